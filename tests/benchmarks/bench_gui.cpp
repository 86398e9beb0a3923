// GUI responsiveness: the longest event-loop stall while a replay session runs flat out with every view open
// (target < 50 ms), and the redraw time of each chart with 10,000 trials. Prints medians of several runs.
// Run offscreen: QT_QPA_PLATFORM=offscreen build-gui/tests/benchmarks/bench_gui [runs]
#include "views/ConvergenceView.h"
#include "views/CostModelView.h"
#include "window/ErrorReporter.h"
#include "views/ExplorerView.h"
#include "views/HardwareView.h"
#include "charts/HeatmapWidget.h"
#include "window/MainWindow.h"
#include "charts/MarginalPlotWidget.h"
#include "charts/ParallelCoordinatesWidget.h"
#include "window/TaskPanel.h"
#include "views/TrialDetailsView.h"

#include "datasets/DatasetReader.h"

#include <QApplication>
#include <QChartView>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <random>

using namespace ts;
using namespace ts::gui;

namespace {

const char* kGemm = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";

// Runs the event loop until `signal` fires (or the timeout passes).
template <typename Signal> void waitFor(MainWindow& window, Signal signal, int timeoutMs) {
    QEventLoop loop;
    QObject::connect(&window, signal, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

struct StallResult {
    double longestStallMs = 0;
    double longestRefreshMs = 0;
    std::size_t trials = 0;
    double seconds = 0;
};

// A 1 ms timer on the UI thread: the longest gap between its ticks, less the period, is the longest stall.
StallResult measureStall(const QString& database, std::int64_t budget) {
    MainWindow window;
    window.errors().setInteractive(false);
    window.setDatabasePath(database);
    window.resize(1900, 1200);
    window.show();
    window.tileViews();
    QTimer::singleShot(0, &window, [&window] { window.openDataset(kGemm); });
    waitFor(window, &MainWindow::datasetLoaded, 60000);
    SessionPlan task = window.taskPanel()->task();
    task.strategy = "random_sample";
    task.options.clear();
    task.budget = budget;
    task.mode = SpaceMode::Product;
    task.batchSize = 8;
    window.taskPanel()->setTask(task);
    QApplication::processEvents();

    StallResult result;
    QElapsedTimer clock;
    qint64 last = 0;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(1);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        qint64 now = clock.nsecsElapsed();
        result.longestStallMs = std::max(result.longestStallMs, (now - last) / 1e6 - 1.0);
        last = now;
    });
    clock.start();
    probe.start();
    QTimer::singleShot(0, &window, [&window] { window.startSession(); });
    waitFor(window, &MainWindow::sessionEnded, 600000);
    probe.stop();
    result.seconds = clock.nsecsElapsed() / 1e9;
    result.longestRefreshMs = window.longestRefreshMs();
    result.trials = window.runData().trials().size();
    return result;
}

// 10,000 trials of the GEMM dataset (in a shuffled order) with predictions scattered around the truth, as a
// cost model would make them, so that every chart has its full load.
std::vector<Trial> tenThousandTrials(const Dataset& dataset) {
    std::vector<SearchSpace::Index> indices;
    for (const auto& [index, m] : dataset.entries)
        indices.push_back(index);
    std::sort(indices.begin(), indices.end());
    std::mt19937_64 rng(1);
    std::shuffle(indices.begin(), indices.end(), rng);
    std::normal_distribution<double> noise(0.0, 0.3);
    std::vector<Trial> trials;
    for (std::size_t i = 0; i < 10000 && i < indices.size(); ++i) {
        Trial t;
        t.number = static_cast<std::int64_t>(i);
        t.index = indices[i];
        t.config = dataset.space.config(indices[i]);
        t.measurement = dataset.entries.at(indices[i]);
        t.batch = static_cast<std::int64_t>(i / 64);
        t.elapsedS = i * 0.001;
        if (t.measurement.status == MeasureStatus::Ok)
            t.predicted = t.measurement.objective * std::exp(noise(rng));
        trials.push_back(std::move(t));
    }
    return trials;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName("TunescopeBench");
    int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    QTemporaryDir dir;

    std::vector<double> stalls, refreshes, rates;
    for (int r = 0; r < runs; ++r) {
        StallResult s = measureStall(dir.filePath(QString("stall-%1.db").arg(r)), 20000);
        stalls.push_back(s.longestStallMs);
        refreshes.push_back(s.longestRefreshMs);
        rates.push_back(s.trials / s.seconds);
        fmt::print("run {}: {} trials in {:.2f} s, longest stall {:.1f} ms, longest refresh tick {:.1f} ms\n",
                   r + 1, s.trials, s.seconds, s.longestStallMs, s.longestRefreshMs);
    }
    fmt::print("event loop, replay session flat out (random_sample, product mode, GEMM, 20,000 evaluations), "
               "every view open: longest stall median {:.1f} ms, longest refresh tick median {:.1f} ms, "
               "{:.0f} trials/s\n",
               median(stalls), median(refreshes), median(rates));

    // Redraw of each chart with 10,000 trials: push the data (refresh) and paint (grab), median of `runs`.
    auto dataset = std::make_shared<const Dataset>(readDataset(kGemm));
    MainWindow window;
    window.errors().setInteractive(false);
    window.resize(1900, 1200);
    window.show();
    window.tileViews();
    RunData& data = window.runData();
    RunData::Info info;
    info.label = "bench";
    info.budget = 10000;
    info.optimum = dataset->optimum();
    data.reset(info, dataset->space.parameters(), dataset);
    data.append(tenThousandTrials(*dataset));
    data.select(static_cast<int>(*data.bestRow()));
    QApplication::processEvents();
    window.refreshNow(true);

    auto time = [&](const char* name, const std::function<void()>& redraw) {
        std::vector<double> ms;
        for (int r = 0; r < std::max(runs, 5); ++r) {
            QElapsedTimer timer;
            timer.start();
            redraw();
            ms.push_back(timer.nsecsElapsed() / 1e6);
        }
        fmt::print("  {:<34} {:8.1f} ms\n", name, median(ms));
    };
    fmt::print("redraw with {} trials (data pushed with replace() + paint), median:\n", data.trials().size());
    ConvergenceView* convergence = window.convergenceView();
    time("convergence vs evaluations", [&] {
        convergence->markDirty();
        convergence->refreshIfNeeded(true);
        convergence->evaluationsChart()->grab();
    });
    time("convergence vs time", [&] { convergence->timeChart()->grab(); });
    CostModelView* cost = window.costModelView();
    time("cost model scatter + quality", [&] {
        cost->refreshIfNeeded(true);
        cost->scatterChart()->grab();
        cost->qualityChart()->grab();
    });
    ExplorerView* explorer = window.explorerView();
    time("trials table (10,000 rows)", [&] { explorer->table()->grab(); });
    time("heatmap", [&] {
        explorer->heatmap()->recompute();
        explorer->heatmap()->grab();
    });
    time("parallel coordinates", [&] {
        explorer->parallelCoordinates()->invalidate();
        explorer->parallelCoordinates()->grab();
    });
    time("marginals", [&] {
        explorer->marginals()->recompute();
        explorer->marginals()->grab();
    });
    time("trial details", [&] {
        window.detailsView()->refreshIfNeeded(true);
        window.detailsView()->grab();
    });
    time("hardware", [&] {
        window.hardwareView()->refreshIfNeeded(true);
        window.hardwareView()->grab();
    });
    return 0;
}
