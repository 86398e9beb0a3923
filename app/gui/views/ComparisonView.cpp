#include "views/ComparisonView.h"

#include "charts/ChartSupport.h"
#include "window/AdaptiveSplitter.h"
#include "window/ErrorReporter.h"
#include "window/TimeFormat.h"

#include "datasets/DatasetReader.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <fmt/format.h>

namespace ts::gui {

namespace {

std::vector<std::int64_t> parseBudgets(const QString& text) {
    std::vector<std::int64_t> budgets;
    for (const QString& item : text.split(',', Qt::SkipEmptyParts)) {
        bool ok = false;
        qlonglong value = item.trimmed().toLongLong(&ok);
        if (!ok || value <= 0)
            throw Error(fmt::format("Budgets item \"{}\" is not a positive number of evaluations.",
                                    item.trimmed().toStdString()));
        budgets.push_back(value);
    }
    if (budgets.empty())
        throw Error("Budgets is empty: give evaluations such as 25,50,100.");
    std::sort(budgets.begin(), budgets.end());
    return budgets;
}

constexpr int kChartHeight = 300;
// Rows a list shows at least: all the strategies, and this many datasets (more scroll).
constexpr int kListRows = 10;

// A list as tall as its rows (at most `rows` of them): stacked in a narrow dock the splitter gives the form
// only what it asks for, and a list of five rows in a tall dock scrolls for nothing; the dock scrolls
// instead.
void fitRows(QListWidget* list, int rows) {
    const int shown = std::min(rows, list->count());
    if (shown > 0)
        list->setMinimumHeight(list->sizeHintForRow(0) * shown + 2 * list->frameWidth());
}

} // namespace

ComparisonView::ComparisonView(ErrorReporter& errors, QWidget* parent) : QWidget(parent), m_errors(errors) {
    auto* outer = new QVBoxLayout(this);
    // The form beside the results, or above them in a narrow dock.
    auto* layout = new AdaptiveSplitter(this);
    outer->addWidget(layout);
    auto* form = new QWidget(layout);
    // No maximum width: stacked in a narrow dock (AdaptiveSplitter) a vertical splitter takes its widgets'
    // smallest maximum, which would narrow the results too; side by side the results get the stretch.
    auto* formLayout = new QVBoxLayout(form);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addWidget(new QLabel(tr("Datasets"), form));
    m_datasets = new QListWidget(form);
    formLayout->addWidget(m_datasets, 1);
    auto* addDataset = new QPushButton(tr("Add dataset..."), form);
    formLayout->addWidget(addDataset);
    formLayout->addWidget(new QLabel(tr("Strategies"), form));
    m_strategies = new QListWidget(form);
    for (const std::string& name : StrategyRegistry::builtin().names()) {
        auto* item = new QListWidgetItem(QString::fromStdString(name), m_strategies);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(name == "random_sample" ? Qt::Checked : Qt::Unchecked);
    }
    formLayout->addWidget(m_strategies, 1);
    fitRows(m_strategies, m_strategies->count());
    auto* settings = new QFormLayout;
    m_seeds = new QSpinBox(form);
    m_seeds->setRange(1, 1000);
    m_seeds->setValue(10);
    settings->addRow(tr("Seeds"), m_seeds);
    m_budgets = new QLineEdit("25,50,100,200", form);
    settings->addRow(tr("Budgets"), m_budgets);
    m_mode = new QComboBox(form);
    m_mode->addItem(tr("product"), "product");
    m_mode->addItem(tr("constrained"), "constrained");
    settings->addRow(tr("Space mode"), m_mode);
    formLayout->addLayout(settings);
    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Compare"), form);
    m_cancel = new QPushButton(tr("Cancel"), form);
    m_cancel->setEnabled(false);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    formLayout->addLayout(buttons);
    m_progress = new QProgressBar(form);
    formLayout->addWidget(m_progress);
    layout->addWidget(form);

    auto* results = new QSplitter(Qt::Vertical, layout);
    m_summary = new QLabel(tr("Choose datasets and strategies, then Compare."), results);
    m_summary->setWordWrap(true);
    m_chart = charts::makeChartView(tr("Mean fraction of optimum (band: +-1 standard deviation)"), results);
    // Stacked under the form in a narrow dock the chart gets its minimum: tall enough for its axis title.
    m_chart->setMinimumHeight(kChartHeight);
    m_x = charts::makeAxis(tr("evaluations"), false);
    m_y = charts::makeAxis(tr("fraction of optimum"), false);
    m_chart->chart()->addAxis(m_x, Qt::AlignBottom);
    m_chart->chart()->addAxis(m_y, Qt::AlignLeft);
    charts::setRangeIfChanged(m_x, 0, 1);
    charts::setRangeIfChanged(m_y, 0, 1.02);
    m_table = new QTableWidget(results);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    results->addWidget(m_summary);
    results->addWidget(m_chart);
    results->addWidget(m_table);
    results->setSizes({40, 560, 200});
    layout->addWidget(results);
    layout->setStretchFactor(1, 1);

    QDir dir(TUNESCOPE_RESOURCE_DIR "/datasets");
    for (const QFileInfo& info : dir.entryInfoList({"*.json.gz", "*.json"}, QDir::Files, QDir::Name))
        this->addDataset(info.absoluteFilePath(), info.fileName().startsWith("pnpoly"));
    fitRows(m_datasets, kListRows);

    connect(addDataset, &QPushButton::clicked, this, &ComparisonView::addDatasetFile);
    connect(m_run, &QPushButton::clicked, this, [this] { start(); });
    connect(m_cancel, &QPushButton::clicked, this, &ComparisonView::cancel);
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &ComparisonView::showOutcome);
    connect(&m_watcher, &QFutureWatcherBase::progressRangeChanged, m_progress, &QProgressBar::setRange);
    connect(&m_watcher, &QFutureWatcherBase::progressValueChanged, m_progress, &QProgressBar::setValue);
}

ComparisonView::~ComparisonView() {
    cancel();
    m_watcher.waitForFinished();
}

void ComparisonView::addDataset(const QString& path, bool checked) {
    for (int i = 0; i < m_datasets->count(); ++i)
        if (m_datasets->item(i)->data(Qt::UserRole).toString() == path) {
            m_datasets->item(i)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
            return;
        }
    auto* item = new QListWidgetItem(QFileInfo(path).fileName(), m_datasets);
    item->setData(Qt::UserRole, path);
    item->setToolTip(path);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

void ComparisonView::addDatasetFile() {
    QString path = QFileDialog::getOpenFileName(this, tr("Add a replay dataset"), QString(),
                                                tr("Datasets (*.json *.json.gz *.csv *.txt);;All files (*)"));
    if (!path.isEmpty())
        addDataset(path, true);
}

void ComparisonView::configure(const QStringList& datasets, const QStringList& strategies, int seeds,
                               const QString& budgets, SpaceMode mode) {
    for (int i = 0; i < m_datasets->count(); ++i)
        m_datasets->item(i)->setCheckState(Qt::Unchecked);
    for (const QString& path : datasets)
        addDataset(QFileInfo(path).absoluteFilePath(), true);
    for (int i = 0; i < m_strategies->count(); ++i)
        m_strategies->item(i)->setCheckState(
            strategies.contains(m_strategies->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    m_seeds->setValue(seeds);
    m_budgets->setText(budgets);
    m_mode->setCurrentIndex(mode == SpaceMode::Product ? 0 : 1);
}

bool ComparisonView::start() {
    if (isRunning())
        return false;
    CompareSettings settings;
    QStringList paths;
    try {
        for (int i = 0; i < m_datasets->count(); ++i)
            if (m_datasets->item(i)->checkState() == Qt::Checked)
                paths << m_datasets->item(i)->data(Qt::UserRole).toString();
        for (int i = 0; i < m_strategies->count(); ++i)
            if (m_strategies->item(i)->checkState() == Qt::Checked)
                settings.strategies.push_back(m_strategies->item(i)->text().toStdString());
        if (paths.isEmpty())
            throw Error("No dataset is checked: check at least one dataset to compare on.");
        if (settings.strategies.empty())
            throw Error("No strategy is checked: check at least one strategy to compare.");
        settings.budgets = parseBudgets(m_budgets->text());
        settings.repeats = m_seeds->value();
        settings.mode =
            m_mode->currentData().toString() == "product" ? SpaceMode::Product : SpaceMode::Constrained;
        // Leave one core to the UI thread (and a running session) on small machines.
        settings.threads = static_cast<unsigned>(std::max(1, QThread::idealThreadCount() - 1));
    } catch (const std::exception& e) {
        m_errors.report(this, tr("Cannot compare"), QString::fromUtf8(e.what()));
        return false;
    }
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    auto cancelFlag = m_cancelFlag;
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_summary->setText(tr("Comparing %1 strategies on %2 datasets, %3 seeds each...")
                           .arg(settings.strategies.size())
                           .arg(paths.size())
                           .arg(settings.repeats));
    m_progress->setFormat(tr("%v of %m runs"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_watcher.setFuture(QtConcurrent::run([paths, settings, cancelFlag](QPromise<Outcome>& promise) {
        Outcome outcome;
        outcome.settings = settings;
        try {
            std::vector<std::shared_ptr<const Dataset>> datasets;
            std::vector<double> optima;
            for (const QString& path : paths) {
                datasets.push_back(std::make_shared<const Dataset>(readDataset(path.toStdString())));
                optima.push_back(datasets.back()->optimum().value_or(0.0));
                outcome.datasetNames.push_back(QFileInfo(path).fileName().toStdString());
            }
            Comparison comparison(datasets, settings);
            promise.setProgressRange(
                0, static_cast<int>(paths.size() * settings.strategies.size() * settings.repeats));
            outcome.result =
                comparison.run([&promise](std::size_t done,
                                          std::size_t) { promise.setProgressValue(static_cast<int>(done)); },
                               cancelFlag.get());
            outcome.curves = ComparisonCurves::compute(outcome.result, optima, settings.budgets.back());
            outcome.cancelled = *cancelFlag;
        } catch (const std::exception& e) {
            outcome.error = QString::fromUtf8(e.what());
        }
        promise.addResult(std::move(outcome));
    }));
    return true;
}

void ComparisonView::cancel() {
    if (m_cancelFlag)
        *m_cancelFlag = true;
}

void ComparisonView::showOutcome() {
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    if (m_watcher.future().resultCount() == 0) {
        emit finished(false);
        return;
    }
    display(m_watcher.result());
}

QString ComparisonView::summaryText() const {
    return m_summary->text();
}

void ComparisonView::display(Outcome outcome) {
    m_outcome = std::move(outcome);
    if (!m_outcome.error.isEmpty()) {
        m_summary->setText(tr("The comparison failed."));
        m_errors.report(this, tr("Cannot compare"), m_outcome.error);
        emit finished(false);
        return;
    }
    const CompareResult& result = m_outcome.result;
    const CompareSettings& settings = m_outcome.settings;
    // The bar ends on what the chart and the table are built from: the finished runs.
    const auto planned = static_cast<int>(m_outcome.datasetNames.size() * settings.strategies.size() *
                                          static_cast<std::size_t>(std::max(0, settings.repeats)));
    m_progress->setRange(0, std::max(1, planned));
    m_progress->setValue(static_cast<int>(result.runs.size()));
    m_progress->setFormat(m_outcome.cancelled ? tr("cancelled: %v of %m runs") : tr("%v of %m runs"));
    QChart* chart = m_chart->chart();
    chart->removeAllSeries();
    double horizon = 1;
    int colourIndex = 0;
    for (const auto& [strategy, curve] : m_outcome.curves.curves) {
        QList<QPointF> mean, upper, lower;
        for (std::size_t t = 0; t < curve.mean.size(); ++t) {
            double x = static_cast<double>(t + 1);
            mean.push_back({x, curve.mean[t]});
            upper.push_back({x, std::min(1.0, curve.mean[t] + curve.stdev[t])});
            lower.push_back({x, std::max(0.0, curve.mean[t] - curve.stdev[t])});
        }
        horizon = std::max(horizon, static_cast<double>(curve.mean.size()));
        QColor colour = QColor::fromHsv((colourIndex++ * 67) % 360, 200, 200);
        auto* upperSeries = new QLineSeries;
        auto* lowerSeries = new QLineSeries;
        upperSeries->replace(upper);
        lowerSeries->replace(lower);
        auto* band = new QAreaSeries(upperSeries, lowerSeries);
        QColor fill = colour;
        fill.setAlpha(50);
        band->setBrush(fill);
        band->setPen(Qt::NoPen);
        auto* line = new QLineSeries;
        line->setName(QString::fromStdString(strategy));
        line->replace(mean);
        line->setPen(QPen(colour, 2));
        chart->addSeries(band);
        chart->addSeries(line);
        for (QAbstractSeries* s :
             {static_cast<QAbstractSeries*>(band), static_cast<QAbstractSeries*>(line)}) {
            s->attachAxis(m_x);
            s->attachAxis(m_y);
        }
        for (QLegendMarker* marker : chart->legend()->markers(band))
            marker->setVisible(false);
    }
    charts::setRangeIfChanged(m_x, 0, horizon);
    charts::setRangeIfChanged(m_y, 0, 1.02);
    fillTable();

    QStringList names;
    for (const std::string& name : m_outcome.datasetNames)
        names << QString::fromStdString(name);
    QString state = tr("complete");
    if (m_outcome.cancelled) {
        const QStringList cutOff = cutOffRuns();
        state = cutOff.isEmpty()
                    ? tr("cancelled after the last run")
                    : tr("cancelled: finished runs only; cut off (marked *): %1").arg(cutOff.join(", "));
    }
    m_summary->setText(tr("%1 of %2 runs in %3 on %4 (%5).")
                           .arg(result.runs.size())
                           .arg(planned)
                           .arg(formatS(result.seconds))
                           .arg(names.join(", "))
                           .arg(state));
    emit finished(true);
}

// "xgb on pnpoly.json (3 of 10 seeds)" for every strategy x dataset with runs missing.
QStringList ComparisonView::cutOffRuns() const {
    QStringList cutOff;
    const CompareSettings& settings = m_outcome.settings;
    for (const std::string& strategy : settings.strategies)
        for (std::size_t d = 0; d < m_outcome.datasetNames.size(); ++d) {
            const auto finished = std::count_if(
                m_outcome.result.runs.begin(), m_outcome.result.runs.end(),
                [&](const CompareRun& run) { return run.strategy == strategy && run.dataset == d; });
            if (finished < settings.repeats)
                cutOff << tr("%1 on %2 (%3 of %4 seeds)")
                              .arg(QString::fromStdString(strategy),
                                   QString::fromStdString(m_outcome.datasetNames[d]))
                              .arg(finished)
                              .arg(settings.repeats);
        }
    return cutOff;
}

// The fraction at each budget is read off the chart's own curve (mean over the same finished runs); a
// strategy with runs cut off is marked, one with none finished shows no numbers.
void ComparisonView::fillTable() {
    const CompareSettings& settings = m_outcome.settings;
    std::vector<std::int64_t> budgets = settings.budgets;
    std::sort(budgets.begin(), budgets.end());
    QStringList headers{tr("strategy")};
    for (std::int64_t b : budgets)
        headers << tr("@%1").arg(b);
    headers << tr("methodology score");
    m_table->clear();
    m_table->setColumnCount(static_cast<int>(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    std::vector<std::string> strategies = settings.strategies;
    std::sort(strategies.begin(), strategies.end());
    m_table->setRowCount(static_cast<int>(strategies.size()));
    const std::size_t datasets = m_outcome.datasetNames.size();
    for (std::size_t row = 0; row < strategies.size(); ++row) {
        const std::string& strategy = strategies[row];
        const auto runs = static_cast<std::size_t>(
            std::count_if(m_outcome.result.runs.begin(), m_outcome.result.runs.end(),
                          [&](const CompareRun& run) { return run.strategy == strategy; }));
        const bool cut = runs < datasets * static_cast<std::size_t>(std::max(0, settings.repeats));
        const QString mark = cut ? QStringLiteral("*") : QString();
        const QString tip = cut ? tr("%1 of %2 runs finished before the comparison was cancelled")
                                      .arg(runs)
                                      .arg(datasets * static_cast<std::size_t>(settings.repeats))
                                : QString();
        auto cell = [&](int column, const QString& text) {
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(tip);
            m_table->setItem(static_cast<int>(row), column, item);
        };
        cell(0, QString::fromStdString(strategy) + mark);
        auto curve = m_outcome.curves.curves.find(strategy);
        for (std::size_t b = 0; b < budgets.size(); ++b) {
            const bool known = curve != m_outcome.curves.curves.end() && budgets[b] >= 1 &&
                               static_cast<std::size_t>(budgets[b]) <= curve->second.mean.size();
            cell(static_cast<int>(b + 1),
                 known
                     ? QString::number(curve->second.mean[static_cast<std::size_t>(budgets[b] - 1)], 'f', 3) +
                           mark
                     : tr("no run"));
        }
        auto score = m_outcome.result.score.find(strategy);
        cell(static_cast<int>(headers.size()) - 1, runs > 0 && score != m_outcome.result.score.end()
                                                       ? QString::number(score->second, 'f', 3) + mark
                                                       : tr("no run"));
    }
    m_table->resizeColumnsToContents();
}

} // namespace ts::gui
