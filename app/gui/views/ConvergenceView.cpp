#include "views/ConvergenceView.h"

#include "charts/ChartClickPicker.h"
#include "charts/ChartSupport.h"
#include "data/ConvergenceData.h"
#include "charts/PointPicker.h"
#include "data/RunData.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace ts::gui {

namespace {
constexpr int kMaxRuns = 12; // overlays kept; the oldest goes first

// The x of trial `row` on chart 0 (its evaluation) or 1 (its wall time).
double trialX(const RunData& data, int chart, std::size_t row) {
    return chart == 0 ? static_cast<double>(row + 1) : data.trials()[row].elapsedS;
}
} // namespace

ConvergenceView::ConvergenceView(RunData& data, QWidget* parent) : RunView(data, parent) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    m_log = new QCheckBox(tr("Log scale"), this);
    auto* clear = new QPushButton(tr("Clear earlier runs"), this);
    controls->addWidget(m_log);
    controls->addWidget(clear);
    controls->addStretch();
    layout->addLayout(controls);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->hide();
    layout->addWidget(m_note);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    layout->addWidget(splitter, 1);
    const QString titles[2] = {tr("Best so far vs evaluations"), tr("Best so far vs wall time")};
    const QString xTitles[2] = {tr("evaluations"), tr("seconds")};
    for (int c = 0; c < 2; ++c) {
        m_views[c] = charts::makeChartView(titles[c], splitter);
        splitter->addWidget(m_views[c]);
        m_x[c] = charts::makeAxis(xTitles[c], false);
        m_views[c]->chart()->addAxis(m_x[c], Qt::AlignBottom);
        m_optimum[c] = new QLineSeries;
        m_optimum[c]->setName(tr("space optimum"));
        QPen pen(Qt::darkGreen);
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        m_optimum[c]->setPen(pen);
        m_views[c]->chart()->addSeries(m_optimum[c]);
        m_optimum[c]->attachAxis(m_x[c]);
        m_selection[c] = new QScatterSeries; // unnamed: no legend entry
        m_selection[c]->setMarkerSize(12.0);
        m_selection[c]->setColor(Qt::transparent);
        m_selection[c]->setBorderColor(Qt::red);
        m_views[c]->chart()->addSeries(m_selection[c]);
        m_selection[c]->attachAxis(m_x[c]);
        for (QLegendMarker* marker : m_views[c]->chart()->legend()->markers(m_selection[c]))
            marker->setVisible(false);
        new ChartClickPicker(m_views[c], data, [this, c](PointPicker& picker) { addPickable(c, picker); });
    }
    rebuildYAxes();
    connect(m_log, &QCheckBox::toggled, this, &ConvergenceView::setLogScale);
    connect(clear, &QPushButton::clicked, this, &ConvergenceView::clearEarlierRuns);
    connect(&data, &RunData::resetDone, this, [this] {
        startRun();
        markDirty();
    });
    connect(&data, &RunData::trialsAppended, this, &ConvergenceView::markDirty);
    connect(&data, &RunData::selectionChanged, this, &ConvergenceView::markSelection);
    startRun();
}

QLineSeries* ConvergenceView::currentSeries(int chart) const {
    return m_runs.back().series[chart];
}

void ConvergenceView::startRun() {
    if (!m_runs.empty() && m_runs.back().series[0]->count() == 0) {
        for (QLineSeries* s : m_runs.back().series)
            s->setName(data().info().label);
        m_runs.back().key = data().comparisonKey();
        showComparableRuns();
        return;
    }
    if (static_cast<int>(m_runs.size()) >= kMaxRuns) {
        for (int c = 0; c < 2; ++c) {
            m_views[c]->chart()->removeSeries(m_runs.front().series[c]);
            delete m_runs.front().series[c];
        }
        m_runs.erase(m_runs.begin());
    }
    for (Run& earlier : m_runs)
        for (QLineSeries* s : earlier.series) {
            QPen pen = s->pen();
            pen.setWidthF(1.0);
            s->setPen(pen);
        }
    Run run;
    for (int c = 0; c < 2; ++c) {
        run.series[c] = new QLineSeries;
        run.series[c]->setName(data().info().label.isEmpty() ? tr("run %1").arg(m_runs.size() + 1)
                                                             : data().info().label);
        m_views[c]->chart()->addSeries(run.series[c]);
        run.series[c]->attachAxis(m_x[c]);
        if (m_y[c])
            run.series[c]->attachAxis(m_y[c]);
        QPen pen = run.series[c]->pen();
        pen.setWidthF(2.2);
        run.series[c]->setPen(pen);
    }
    run.key = data().comparisonKey();
    m_runs.push_back(run);
    showComparableRuns();
}

void ConvergenceView::showComparableRuns() {
    int hidden = 0;
    for (const Run& run : m_runs) {
        const bool comparable = run.key == m_runs.back().key;
        hidden += !comparable;
        for (int c = 0; c < 2; ++c) {
            run.series[c]->setVisible(comparable);
            for (QLegendMarker* marker : m_views[c]->chart()->legend()->markers(run.series[c]))
                marker->setVisible(comparable);
        }
    }
    m_note->setVisible(hidden > 0);
    m_note->setText(hidden == 0 ? QString()
                    : hidden == 1
                        ? tr("1 earlier run of another kernel, dataset or problem size is hidden: its "
                             "times are not comparable with this run's.")
                        : tr("%1 earlier runs of other kernels, datasets or problem sizes are hidden: "
                             "their times are not comparable with this run's.")
                              .arg(hidden));
}

int ConvergenceView::visibleRunCount() const {
    return static_cast<int>(std::count_if(m_runs.begin(), m_runs.end(),
                                          [](const Run& run) { return run.series[0]->isVisible(); }));
}

QString ConvergenceView::overlayNote() const {
    return m_note->text();
}

void ConvergenceView::clearEarlierRuns() {
    while (m_runs.size() > 1) {
        for (int c = 0; c < 2; ++c) {
            m_views[c]->chart()->removeSeries(m_runs.front().series[c]);
            delete m_runs.front().series[c];
        }
        m_runs.erase(m_runs.begin());
    }
    showComparableRuns();
    updateRanges();
}

void ConvergenceView::setLogScale(bool log) {
    if (log == m_logScale)
        return;
    m_logScale = log;
    if (m_log->isChecked() != log)
        m_log->setChecked(log);
    rebuildYAxes();
    updateRanges();
    markSelection();
}

// Series hold points in their y axis's coordinates (log10 on a log axis): a new axis re-maps them.
void ConvergenceView::rebuildYAxes() {
    for (int c = 0; c < 2; ++c) {
        QChart* chart = m_views[c]->chart();
        QAbstractAxis* axis = charts::makeAxis(tr("best (ms)"), m_logScale);
        for (Run& run : m_runs) {
            QList<QPointF> points = run.series[c]->points();
            for (QPointF& p : points)
                p.setY(charts::axisValue(axis, charts::dataValue(m_y[c], p.y())));
            run.series[c]->replace(points);
        }
        if (m_y[c]) {
            chart->removeAxis(m_y[c]);
            delete m_y[c];
        }
        m_y[c] = axis;
        chart->addAxis(m_y[c], Qt::AlignLeft);
        m_optimum[c]->attachAxis(m_y[c]);
        m_selection[c]->attachAxis(m_y[c]);
        for (Run& run : m_runs)
            run.series[c]->attachAxis(m_y[c]);
    }
}

void ConvergenceView::refresh() {
    const RunData& d = data();
    QList<QPointF> curves[2] = {ConvergenceData::byEvaluations(d.bestSoFar()),
                                ConvergenceData::byTime(d.trials(), d.bestSoFar())};
    for (int c = 0; c < 2; ++c) {
        for (QPointF& p : curves[c])
            p.setY(charts::axisValue(m_y[c], p.y()));
        m_runs.back().series[c]->replace(curves[c]);
    }
    updateRanges();
    markSelection();
}

QList<QPointF> ConvergenceView::selectionMark(int chart) const {
    const int row = data().selectedRow();
    const auto& best = data().bestSoFar();
    if (row < 0 || static_cast<std::size_t>(row) >= best.size() || !std::isfinite(best[row]))
        return {};
    return {QPointF(trialX(data(), chart, static_cast<std::size_t>(row)), best[row])};
}

void ConvergenceView::markSelection() {
    for (int c = 0; c < 2; ++c) {
        QList<QPointF> mark = selectionMark(c);
        for (QPointF& p : mark)
            p.setY(charts::axisValue(m_y[c], p.y()));
        if (m_selection[c]->points() != mark)
            m_selection[c]->replace(mark);
    }
}

// The corners of the current run's curve: the trials that improved the best so far.
void ConvergenceView::addPickable(int chart, PointPicker& picker) const {
    QChart* view = m_views[chart]->chart();
    QLineSeries* series = m_runs.back().series[chart];
    const auto& best = data().bestSoFar();
    double previous = INFINITY;
    for (std::size_t row = 0; row < best.size(); ++row) {
        if (!(best[row] < previous))
            continue;
        previous = best[row];
        const QPointF point(trialX(data(), chart, row), charts::axisValue(m_y[chart], best[row]));
        picker.add(static_cast<int>(row), view->mapToPosition(point, series));
    }
}

void ConvergenceView::updateRanges() {
    std::optional<double> optimum = data().info().optimum;
    for (int c = 0; c < 2; ++c) {
        double xMax = 0, yMin = INFINITY, yMax = -INFINITY;
        for (const Run& run : m_runs) {
            if (run.key != m_runs.back().key)
                continue; // hidden: not comparable
            for (const QPointF& p : run.series[c]->points()) {
                xMax = std::max(xMax, p.x());
                yMin = std::min(yMin, charts::dataValue(m_y[c], p.y()));
                yMax = std::max(yMax, charts::dataValue(m_y[c], p.y()));
            }
        }
        if (optimum) {
            yMin = std::min(yMin, *optimum);
            yMax = std::max(yMax, *optimum);
        }
        // Evaluations: the budget is known, so the axis is fixed for the whole session.
        if (c == 0)
            xMax = std::max(xMax, static_cast<double>(data().info().budget));
        xMax = charts::niceCeil(xMax);
        charts::setRangeIfChanged(m_x[c], 0.0, xMax);
        charts::setRange(m_y[c], yMin, yMax);
        QList<QPointF> line;
        if (optimum)
            line = {QPointF(0.0, charts::axisValue(m_y[c], *optimum)),
                    QPointF(xMax, charts::axisValue(m_y[c], *optimum))};
        if (m_optimum[c]->points() != line)
            m_optimum[c]->replace(line);
        if (m_optimum[c]->isVisible() != optimum.has_value())
            m_optimum[c]->setVisible(optimum.has_value());
    }
}

} // namespace ts::gui
