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
// value and time.
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

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF cellRect(int parameter) const; // a panel, in a grid of about square cells
    QRectF plotRect(int parameter) const;
    double highTime() const;
    void markSelection(QPainter& painter) const;

    RunData& m_data;
    std::vector<Marginal> m_marginals;
    double m_lo = 0, m_hi = 0;
};

} // namespace ts::gui
