#pragma once

#include <QWidget>
#include <vector>

class QPainter;

namespace ts::gui {

class RunData;

// Per-parameter marginal plots drawn with QPainter, one small panel per parameter: for each of its values,
// the best time (dot, joined by a line) and the median time (grey tick) over the Ok trials with that value,
// on a shared log time scale. Shows at a glance which values matter. A left click on a dot selects the trial
// that measured that best (RunData::select); the selected trial is ringed in red in every panel, at its
// value and time. Axes: each panel's values are labelled under it (as many as fit without overlapping, the
// first and last always), the time ticks (charts::logTicks of the shared range) are marked in every panel and
// labelled left of the first column, and a legend line on top says what the dot, line and tick mean.
class MarginalPlotWidget : public QWidget {
    Q_OBJECT
public:
    struct Marginal {
        std::vector<double> best;   // per value position; +inf when no Ok trial has it
        std::vector<double> median; // per value position
        std::vector<int> count;     // Ok trials per value position
        std::vector<int> bestRow;   // trial row of each best; -1 when no Ok trial has the value
    };

    explicit MarginalPlotWidget(RunData& data, QWidget* parent = nullptr);

    void recompute();
    const std::vector<Marginal>& marginals() const { return m_marginals; }
    // Where a time at value `position` of `parameter` is drawn in the parameter's panel (widget pixels).
    QPointF pointAt(std::size_t parameter, int position, double time) const;
    QSize minimumSizeHint() const override { return {300, 200}; }

    // The axis texts as painted: values under the panels, times left of them, the legend on top.
    struct Text {
        QRectF rect;
        QString text;
    };
    std::vector<Text> valueLabels() const;
    std::vector<Text> timeLabels() const;
    QString legend() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF cellRect(int parameter) const; // a panel, in a grid of about square cells
    QRectF plotRect(int parameter) const;
    double highTime() const;
    QRectF gridRect() const; // the panels' area: below the legend, right of the time labels
    int timeGutter() const;
    QList<double> timeTicks() const;
    void markSelection(QPainter& painter) const;

    RunData& m_data;
    std::vector<Marginal> m_marginals;
    double m_lo = 0, m_hi = 0;
};

} // namespace ts::gui
