#pragma once

#include <QWidget>
#include <vector>

namespace ts::gui {

// A QPainter histogram of one trial's raw timing samples (bins by Sturges' rule), with the median marked.
class HistogramWidget : public QWidget {
    Q_OBJECT
public:
    explicit HistogramWidget(QWidget* parent = nullptr);

    void setSamples(std::vector<double> samples, double median);
    const std::vector<int>& bins() const { return m_bins; }
    QSize minimumSizeHint() const override { return {200, 120}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<double> m_samples;
    std::vector<int> m_bins;
    double m_lo = 0, m_hi = 0, m_median = 0;
};

} // namespace ts::gui
