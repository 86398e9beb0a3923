#pragma once

#include <QObject>

class QChart;
class QChartView;
class QPalette;

namespace ts::gui {

// Keeps a Qt Charts view in the colours of its palette: Qt's dark chart theme under a dark palette (light
// axis labels and grid, series colours that read on dark), the light theme otherwise, and the chart's
// background, title, legend and outside bar labels in the palette's own colours. The view follows palette
// changes at runtime (the desktop switching to dark, `--palette`); the series keep the colours they had.
class ChartPalette : public QObject {
    Q_OBJECT
public:
    // Colours the view's chart now and whenever the view's palette changes (the follower is the view's
    // child).
    static void follow(QChartView* view);

    // Colours the chart for `palette`.
    static void apply(QChart* chart, const QPalette& palette);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit ChartPalette(QChartView* view);

    QChartView* m_view;
};

} // namespace ts::gui
