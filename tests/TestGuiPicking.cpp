// Clicking a chart selects the trial drawn there, offscreen, on a real replayed xgb run of the GEMM space:
// each chart's own mapping (QChart::mapToPosition, the widgets' pixel mappings) gives where a known trial is
// drawn, a left click there selects it (RunData::selectedRow) and the view marks it, and a click far from
// every point leaves the selection alone. The parallel coordinates' time brush filters the table to exactly
// the trials in the brushed times, and with the space's 15 parameters at 800 px no two axis labels overlap.
#include "charts/ChartSupport.h"
#include "charts/ColorMap.h"
#include "views/ConvergenceView.h"
#include "views/CostModelView.h"
#include "views/ExplorerView.h"
#include "charts/HeatmapWidget.h"
#include "charts/MarginalPlotWidget.h"
#include "charts/ParallelCoordinatesWidget.h"
#include "charts/PointPicker.h"
#include "data/RunData.h"
#include "StrategyRun.h"
#include "data/TrialFilterProxy.h"

#include "datasets/DatasetReader.h"
#include "strategies/StrategyRegistry.h"

#include <QChart>
#include <QChartView>
#include <QHelpEvent>
#include <QLabel>
#include <QLineSeries>
#include <QTabWidget>
#include <QToolTip>
#include <QtTest>
#include <cmath>
#include <set>

using namespace ts;
using namespace ts::gui;

namespace {

const QString kGemm = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";
constexpr double kFar = 3 * PointPicker::kRadius; // a point is isolated when nothing else is this close

double segmentDistance(QPointF p, QPointF a, QPointF b) {
    const QPointF d = b - a;
    const double l2 = QPointF::dotProduct(d, d);
    const double t = l2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / l2, 0.0, 1.0) : 0.0;
    const QPointF n = a + t * d;
    return std::hypot(p.x() - n.x(), p.y() - n.y());
}

// Index of a point of `points` with no other point within kFar; -1 when every point has a neighbour.
int isolated(const QList<QPointF>& points) {
    for (qsizetype i = 0; i < points.size(); ++i) {
        bool alone = true;
        for (qsizetype j = 0; j < points.size() && alone; ++j)
            alone = i == j || QLineF(points[i], points[j]).length() > kFar;
        if (alone)
            return static_cast<int>(i);
    }
    return -1;
}

// A point of `area` farther than kFar from every point and line (polylines of 2+ vertices); nullopt when
// none.
std::optional<QPointF> emptySpot(const QRectF& area, const std::vector<QList<QPointF>>& lines) {
    for (double y = area.top() + 2; y < area.bottom(); y += 3)
        for (double x = area.left() + 2; x < area.right(); x += 3) {
            const QPointF p(x, y);
            bool empty = true;
            for (const QList<QPointF>& line : lines) {
                for (qsizetype i = 0; i < line.size() && empty; ++i)
                    empty = segmentDistance(p, line[i], line[std::min(i + 1, line.size() - 1)]) > kFar;
                if (!empty)
                    break;
            }
            if (empty)
                return p;
        }
    return std::nullopt;
}

// A chart position in the pixels of the chart view's viewport.
QPoint viewportPoint(QChartView* view, QPointF chartPosition) {
    return view->mapFromScene(view->chart()->mapToScene(chartPosition));
}

void click(QWidget* widget, QPointF position, Qt::MouseButton button = Qt::LeftButton) {
    QTest::mouseClick(widget, button, {}, position.toPoint());
}

void showAndSettle(QWidget* widget) {
    widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(widget));
    QApplication::processEvents();
}

} // namespace

class TestGuiPicking : public QObject {
    Q_OBJECT

private:
    std::shared_ptr<const Dataset> m_dataset;
    RunData m_data;

private slots:
    void initTestCase() {
        m_dataset = std::make_shared<const Dataset>(readDataset(kGemm.toStdString()));
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        StrategyContext context{&m_dataset->space, SpaceMode::Product, 3, registry.options("xgb", {})};
        const auto trials = test::runStrategy(registry.create("xgb"), context, m_dataset, 96, 16).trials;
        QCOMPARE(trials.size(), std::size_t{96});
        m_data.reset({"xgb seed 3", "gemm", "RTX 3090", "xgb", "completed", 1, 96, std::nullopt, {}},
                     m_dataset->space.parameters(), m_dataset);
        m_data.append(trials);
        QVERIFY(m_data.parameters().size() >= 10);
    }

    // The corners of the best-so-far curve are the trials that improved it: a click on one selects it.
    void convergenceClickSelectsTheImprovingTrial() {
        ConvergenceView view(m_data);
        view.resize(900, 800);
        showAndSettle(&view);
        view.refreshIfNeeded(true);
        QApplication::processEvents();
        const auto& best = m_data.bestSoFar();
        for (int c = 0; c < 2; ++c) {
            QChartView* chartView = c == 0 ? view.evaluationsChart() : view.timeChart();
            QChart* chart = chartView->chart();
            QLineSeries* series = view.currentSeries(c);
            std::vector<int> rows;
            QList<QPointF> corners;
            double previous = INFINITY;
            for (std::size_t row = 0; row < best.size(); ++row)
                if (best[row] < previous) {
                    previous = best[row];
                    const double x = c == 0 ? double(row + 1) : m_data.trials()[row].elapsedS;
                    rows.push_back(static_cast<int>(row));
                    corners.push_back(chart->mapToPosition(QPointF(x, best[row]), series));
                }
            const int i = isolated(corners);
            QVERIFY2(i >= 0, "no improvement stands apart on the chart");
            m_data.select(-1);
            click(chartView->viewport(), viewportPoint(chartView, corners[i]));
            QCOMPARE(m_data.selectedRow(), rows[static_cast<std::size_t>(i)]);
            QCOMPARE(view.selectionMark(c).size(), 1);
            // Empty space: nothing changes.
            QList<QPointF> curve;
            for (const QPointF& p : series->points())
                curve.push_back(chart->mapToPosition(p, series));
            const auto spot = emptySpot(chart->plotArea(), {curve});
            QVERIFY(spot);
            // Selected elsewhere (a trial that improved nothing, which no click here can select).
            int other = 0;
            while (std::find(rows.begin(), rows.end(), other) != rows.end())
                ++other;
            m_data.select(other);
            click(chartView->viewport(), viewportPoint(chartView, *spot));
            QCOMPARE(m_data.selectedRow(), other);
        }
    }

    void costModelClickSelectsAScatterPoint() {
        CostModelView view(m_data);
        view.resize(1200, 700);
        showAndSettle(&view);
        view.refreshIfNeeded(true);
        QApplication::processEvents();
        QVERIFY(view.scatterPointCount() > 0);
        QChartView* chartView = view.scatterChart();
        QChart* chart = chartView->chart();
        QAbstractAxis* x = chart->axes(Qt::Horizontal).first();
        QAbstractAxis* y = chart->axes(Qt::Vertical).first();
        QAbstractSeries* series = chart->series().first();
        std::vector<int> rows;
        QList<QPointF> points;
        for (std::size_t row = 0; row < m_data.trials().size(); ++row) {
            const Trial& t = m_data.trials()[row];
            if (t.measurement.status != MeasureStatus::Ok || !t.predicted || *t.predicted <= 0)
                continue;
            rows.push_back(static_cast<int>(row));
            points.push_back(chart->mapToPosition(
                charts::axisPoint(x, y, QPointF(t.measurement.objective, *t.predicted)), series));
        }
        const int i = isolated(points);
        QVERIFY2(i >= 0, "no prediction stands apart on the scatter");
        const int row = rows[static_cast<std::size_t>(i)];
        m_data.select(-1);
        QVERIFY(view.selectionMarks().isEmpty());
        click(chartView->viewport(), viewportPoint(chartView, points[i]));
        QCOMPARE(m_data.selectedRow(), row);
        const Trial& t = m_data.trials()[static_cast<std::size_t>(row)];
        QCOMPARE(view.selectionMarks(), QList<QPointF>{QPointF(t.measurement.objective, *t.predicted)});
        std::vector<QList<QPointF>> all;
        for (const QPointF& p : points)
            all.push_back({p});
        const auto spot = emptySpot(chart->plotArea(), all);
        QVERIFY(spot);
        click(chartView->viewport(), viewportPoint(chartView, *spot));
        QCOMPARE(m_data.selectedRow(), row);
    }

    void parallelCoordinatesClickSelectsALine() {
        ParallelCoordinatesWidget widget(m_data);
        widget.resize(1400, 600);
        showAndSettle(&widget);
        widget.grab(); // draws the lines
        std::vector<int> rows;
        std::vector<QList<QPointF>> lines;
        for (std::size_t row = 0; row < m_data.trials().size(); ++row) {
            const std::vector<QPointF> line = widget.polyline(row);
            if (line.empty())
                continue;
            rows.push_back(static_cast<int>(row));
            lines.push_back(QList<QPointF>(line.begin(), line.end()));
        }
        QVERIFY(rows.size() > 10);
        // The middle of a segment no other line comes near.
        int picked = -1;
        QPointF where;
        for (std::size_t i = 0; i < lines.size() && picked < 0; ++i)
            for (qsizetype a = 0; a + 1 < lines[i].size() && picked < 0; ++a) {
                const QPointF middle = (lines[i][a] + lines[i][a + 1]) / 2;
                bool alone = true;
                for (std::size_t j = 0; j < lines.size() && alone; ++j)
                    for (qsizetype b = 0; j != i && b + 1 < lines[j].size() && alone; ++b)
                        alone = segmentDistance(middle, lines[j][b], lines[j][b + 1]) > kFar;
                if (alone) {
                    picked = rows[i];
                    where = middle;
                }
            }
        QVERIFY2(picked >= 0, "no line stands apart");
        m_data.select(-1);
        click(&widget, where);
        QCOMPARE(m_data.selectedRow(), picked);
        // Between two axes, away from every line.
        const std::vector<QPointF> first = widget.polyline(static_cast<std::size_t>(picked));
        const QRectF between(first[0].x() + 12, 0, first[1].x() - first[0].x() - 24, widget.height());
        const auto spot = emptySpot(between, lines);
        QVERIFY(spot);
        click(&widget, *spot);
        QCOMPARE(m_data.selectedRow(), picked);
    }

    void marginalClickSelectsTheBestOfAValue() {
        MarginalPlotWidget widget(m_data);
        widget.resize(1000, 700);
        widget.recompute();
        showAndSettle(&widget);
        const auto& marginals = widget.marginals();
        // A value of a parameter with few values (its dots far apart), and the fastest Ok trial that has it.
        std::size_t parameter = 0;
        for (std::size_t p = 0; p < marginals.size(); ++p)
            if (marginals[p].best.size() >= 2 && marginals[p].best.size() <= 4) {
                parameter = p;
                break;
            }
        const int value = static_cast<int>(marginals[parameter].best.size()) - 1;
        int fastest = -1;
        for (std::size_t row = 0; row < m_data.trials().size(); ++row) {
            const Trial& t = m_data.trials()[row];
            if (t.measurement.status == MeasureStatus::Ok && m_data.trialPosition(row, parameter) == value &&
                (fastest < 0 || t.measurement.objective <
                                    m_data.trials()[static_cast<std::size_t>(fastest)].measurement.objective))
                fastest = static_cast<int>(row);
        }
        QVERIFY(fastest >= 0);
        const double time = m_data.trials()[static_cast<std::size_t>(fastest)].measurement.objective;
        m_data.select(-1);
        click(&widget, widget.pointAt(parameter, value, time));
        QCOMPARE(m_data.selectedRow(), fastest);
        // Far from every dot.
        std::vector<QList<QPointF>> dots;
        for (std::size_t p = 0; p < marginals.size(); ++p)
            for (std::size_t v = 0; v < marginals[p].best.size(); ++v)
                if (std::isfinite(marginals[p].best[v]))
                    dots.push_back({widget.pointAt(p, static_cast<int>(v), marginals[p].best[v])});
        const auto spot = emptySpot(widget.rect(), dots);
        QVERIFY(spot);
        click(&widget, *spot);
        QCOMPARE(m_data.selectedRow(), fastest);
    }

    // A cell holds many trials: a left click picks its best; a right click and an unmeasured cell pick none.
    void heatmapClickSelectsTheBestOfACell() {
        HeatmapWidget widget(m_data);
        widget.resize(900, 700);
        widget.setParameters(0, 1);
        showAndSettle(&widget);
        const HeatmapData& h = widget.heatmap();
        int cell = -1, fastest = -1;
        std::optional<std::pair<int, int>> unmeasured;
        for (int r = 0; r < h.rows; ++r)
            for (int c = 0; c < h.columns; ++c) {
                int best = -1;
                bool any = false;
                for (std::size_t row = 0; row < m_data.trials().size(); ++row) {
                    const Trial& t = m_data.trials()[row];
                    if (m_data.trialPosition(row, 0) != c || m_data.trialPosition(row, 1) != r)
                        continue;
                    any = true;
                    if (t.measurement.status == MeasureStatus::Ok &&
                        (best < 0 ||
                         t.measurement.objective <
                             m_data.trials()[static_cast<std::size_t>(best)].measurement.objective))
                        best = static_cast<int>(row);
                }
                if (best >= 0 && cell < 0) {
                    cell = r * h.columns + c;
                    fastest = best;
                }
                if (!any && !unmeasured)
                    unmeasured = std::make_pair(c, r);
            }
        QVERIFY(fastest >= 0);
        const QPointF centre = widget.cellArea(cell % h.columns, cell / h.columns).center();
        m_data.select(-1);
        click(&widget, centre, Qt::RightButton);
        QCOMPARE(m_data.selectedRow(), -1);
        click(&widget, centre);
        QCOMPARE(m_data.selectedRow(), fastest);
        if (unmeasured) {
            click(&widget, widget.cellArea(unmeasured->first, unmeasured->second).center());
            QCOMPARE(m_data.selectedRow(), fastest);
        }
        click(&widget, QPointF(widget.width() - 2, widget.height() - 2)); // outside the cells
        QCOMPARE(m_data.selectedRow(), fastest);
    }

    // The time axis is log, fastest at the top: brushing its upper half keeps the Ok trials at most
    // sqrt(fastest * slowest) ms, exactly those, in the table.
    void timeBrushFiltersTheTable() {
        ExplorerView view(m_data);
        view.resize(1400, 800);
        view.plots()->setCurrentIndex(1);
        showAndSettle(&view);
        view.refreshIfNeeded(true);
        ParallelCoordinatesWidget* parallel = view.parallelCoordinates();
        double lo = INFINITY, hi = -INFINITY;
        for (const Trial& t : m_data.trials())
            if (t.measurement.status == MeasureStatus::Ok) {
                lo = std::min(lo, t.measurement.objective);
                hi = std::max(hi, t.measurement.objective);
            }
        const double limit = std::sqrt(lo * hi);
        std::set<int> expected;
        for (std::size_t row = 0; row < m_data.trials().size(); ++row) {
            const Trial& t = m_data.trials()[row];
            if (t.measurement.status == MeasureStatus::Ok && t.measurement.objective <= limit)
                expected.insert(static_cast<int>(row));
        }
        QVERIFY(!expected.empty() && expected.size() < m_data.trials().size());
        parallel->setBrush(parallel->axisCount() - 1, 0.5, 1.0);
        std::set<int> shown;
        TrialFilterProxy* proxy = view.proxy();
        for (int r = 0; r < proxy->rowCount(); ++r)
            shown.insert(proxy->mapToSource(proxy->index(r, 0)).row());
        QCOMPARE(shown, expected);
        bool said = false;
        for (QLabel* label : view.findChildren<QLabel*>())
            said =
                said || label->text().contains(
                            QString("keep %1 of %2 trials").arg(expected.size()).arg(m_data.trials().size()));
        QVERIFY2(said, "the summary says how many trials the brush keeps");
        parallel->clearBrushes();
        QCOMPARE(proxy->rowCount(), static_cast<int>(m_data.trials().size()));
    }

    // A time brush holds times: trials that widen the time axis later leave it keeping the same range.
    void timeBrushKeepsItsTimesAsTheAxisWidens() {
        const std::vector<Trial>& all = m_data.trials();
        RunData data;
        data.reset(m_data.info(), m_data.parameters(), m_dataset);
        data.append(std::vector<Trial>(all.begin(), all.begin() + 48));
        ExplorerView view(data);
        view.resize(1400, 800);
        view.plots()->setCurrentIndex(1);
        showAndSettle(&view);
        auto okTimes = [](const std::vector<Trial>& trials) {
            double lo = INFINITY, hi = -INFINITY;
            for (const Trial& t : trials)
                if (t.measurement.status == MeasureStatus::Ok) {
                    lo = std::min(lo, t.measurement.objective);
                    hi = std::max(hi, t.measurement.objective);
                }
            return std::make_pair(lo, hi);
        };
        const auto [lo, hi] = okTimes(data.trials());
        ParallelCoordinatesWidget* parallel = view.parallelCoordinates();
        parallel->setBrush(parallel->axisCount() - 1, 0.5, 1.0);
        data.append(std::vector<Trial>(all.begin() + 48, all.end()));
        const auto [newLo, newHi] = okTimes(data.trials());
        QVERIFY(newLo < lo || newHi > hi);
        view.refreshIfNeeded(true);
        parallel->grab();
        std::set<int> expected, shown;
        for (std::size_t row = 0; row < all.size(); ++row)
            if (all[row].measurement.status == MeasureStatus::Ok && all[row].measurement.objective >= lo &&
                all[row].measurement.objective <= std::sqrt(lo * hi) * (1 + 1e-9))
                expected.insert(static_cast<int>(row));
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            shown.insert(view.proxy()->mapToSource(view.proxy()->index(r, 0)).row());
        QCOMPARE(shown, expected);
        // The box is drawn over the same times on the wider axis.
        const auto box = parallel->brushes().at(parallel->axisCount() - 1);
        QVERIFY(std::abs(box.first - (1 - logPosition(std::sqrt(lo * hi), newLo, newHi))) < 1e-6);
        QVERIFY(std::abs(box.second - (1 - logPosition(lo, newLo, newHi))) < 1e-6);
    }

    // 15 parameters and the time at 800 px: names and value ranges are laid out without overlap, and the
    // tool tip gives a name in full.
    void manyAxesLabelsDoNotOverlap() {
        ParallelCoordinatesWidget widget(m_data);
        widget.resize(800, 400);
        showAndSettle(&widget);
        const auto labels = widget.labels();
        QCOMPARE(labels.size(), 2 * m_data.parameters().size() + 1); // names, ranges, "time"
        for (std::size_t i = 0; i < labels.size(); ++i)
            for (std::size_t j = i + 1; j < labels.size(); ++j)
                QVERIFY2(!labels[i].rect.intersects(labels[j].rect),
                         qPrintable(QString("\"%1\" overlaps \"%2\"").arg(labels[i].text, labels[j].text)));
        QHelpEvent help(QEvent::ToolTip, labels.front().rect.center().toPoint(),
                        widget.mapToGlobal(labels.front().rect.center().toPoint()));
        QApplication::sendEvent(&widget, &help);
        QCOMPARE(QToolTip::text(), QString::fromStdString(m_data.parameters().front().name));
    }
};

QTEST_MAIN(TestGuiPicking)
#include "TestGuiPicking.moc"
