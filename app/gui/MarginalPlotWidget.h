#pragma once

#include <QWidget>
#include <vector>

namespace ts::gui {

class RunData;

// Per-parameter marginal plots drawn with QPainter, one small panel per parameter: for each of its values,
// the best time (dot, joined by a line) and the median time (grey tick) over the Ok trials with that value,
// on a shared log time scale. Shows at a glance which values matter.
class MarginalPlotWidget : public QWidget {
    Q_OBJECT
public:
    struct Marginal {
        std::vector<double> best;   // per value position; +inf when no Ok trial has it
        std::vector<double> median; // per value position
        std::vector<int> count;     // Ok trials per value position
    };

    explicit MarginalPlotWidget(RunData& data, QWidget* parent = nullptr);

    void recompute();
    const std::vector<Marginal>& marginals() const { return m_marginals; }
    QSize minimumSizeHint() const override { return {300, 200}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    RunData& m_data;
    std::vector<Marginal> m_marginals;
    double m_lo = 0, m_hi = 0;
};

} // namespace ts::gui
