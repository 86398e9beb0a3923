#include "views/WorkloadView.h"

#include "window/AdaptiveSplitter.h"

#include "charts/ChartSupport.h"
#include "charts/PlotLegend.h"
#include "data/WorkloadTaskModel.h"
#include "running/WorkloadSource.h"
#include "window/ErrorReporter.h"
#include "window/TimeFormat.h"

#include "store/RecordStore.h"
#include "workload/SchedulerRegistry.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

namespace ts::gui {

namespace {

constexpr int kRefreshIntervalMs = 100; // 10 Hz while a workload runs
constexpr int kMaxRuns = 12;            // end-to-end overlays kept; the oldest goes first

QStringList schedulerNames() {
    QStringList names;
    for (const std::string& name : SchedulerRegistry::builtin().names())
        names << QString::fromStdString(name);
    return names;
}

QColor taskColor(std::size_t task, std::size_t tasks) {
    return QColor::fromHsvF(std::fmod(0.58 + static_cast<double>(task) / static_cast<double>(tasks), 1.0),
                            0.55, 0.85);
}

} // namespace

WorkloadView::WorkloadView(ErrorReporter& errors, QWidget* parent)
    : QWidget(parent), m_errors(errors), m_model(new WorkloadTaskModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_timer(new QTimer(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(WorkloadTaskModel::kSortRole);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildForm());
    m_summary = new QLabel(tr("Choose a workload and press Start."), this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_table = new QTableView(splitter);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the file's order until a header is clicked
    splitter->addWidget(m_table);
    auto* charts = new AdaptiveSplitter(splitter);
    QWidget* endToEnd = nullptr;
    QWidget* trials = nullptr;
    buildCharts(charts, endToEnd, trials);
    charts->addWidget(endToEnd);
    charts->addWidget(trials);
    splitter->addWidget(charts);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({170, 510}); // a few task rows visible, the charts get the room
    layout->addWidget(splitter, 1);

    m_timer->setInterval(kRefreshIntervalMs);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_dirty)
            refreshNow();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &WorkloadView::onSelectionChanged);
    connect(&m_runner, &WorkloadRunner::started, this, [this](qint64 id) {
        m_summary->setText(tr("Workload %1 started.").arg(id));
        emit started(id);
    });
    connect(&m_runner, &WorkloadRunner::notice, m_summary, &QLabel::setText);
    connect(&m_runner, &WorkloadRunner::taskOpened, m_model, &WorkloadTaskModel::setTaskSession);
    connect(&m_runner, &WorkloadRunner::taskFailed, this, [this](int task, const QString& error) {
        m_model->setTaskFailed(task, error);
        m_summary->setText(tr("Task %1 failed: %2").arg(task + 1).arg(error));
    });
    connect(&m_runner, &WorkloadRunner::roundFinished, this, &WorkloadView::onRound);
    connect(&m_runner, &WorkloadRunner::finished, this, &WorkloadView::onFinished);
    connect(&m_runner, &WorkloadRunner::pausedChanged, this, [this] {
        updateButtons();
        updateProgress();
    });
    updateButtons();
}

WorkloadView::~WorkloadView() {
    m_runner.cancel();
    m_runner.wait();
}

QWidget* WorkloadView::buildForm() {
    auto* form = new QWidget(this);
    auto* rows = new QVBoxLayout(form);
    rows->setContentsMargins(0, 0, 0, 0);
    // Short rows rather than one long one: the view fits a dock of half a 1280 px screen.
    auto* row = new QHBoxLayout;
    auto* settings = new QHBoxLayout;
    auto* limits = new QHBoxLayout;
    auto* controls = new QHBoxLayout;
    auto* progress = new QHBoxLayout;
    rows->addLayout(row);
    rows->addLayout(settings);
    rows->addLayout(limits);
    rows->addLayout(controls);
    rows->addLayout(progress);
    m_source = new QComboBox(form);
    m_source->addItem(tr("demo: replay of 3 bundled datasets"), QString());
    m_source->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_source->setMinimumContentsLength(16);
    m_source->setToolTip(tr("The workload: the demo replay workload or a workload file"));
    auto* open = new QPushButton(tr("Open..."), form);
    open->setToolTip(tr("Add a workload file (JSON) to the list"));
    m_scheduler = new QComboBox(form);
    m_scheduler->addItems(schedulerNames());
    m_scheduler->setCurrentText(SchedulerRegistry::kDefault);
    m_scheduler->setToolTip(tr("Which task gets the next batch"));
    m_budget = new QSpinBox(form);
    m_budget->setRange(1, 10'000'000);
    m_budget->setValue(120);
    m_budget->setToolTip(tr("Trials over all tasks"));
    m_seed = new QSpinBox(form);
    m_seed->setRange(0, 1'000'000);
    m_start = new QPushButton(tr("Start"), form);
    m_pause = new QPushButton(tr("Pause"), form);
    m_resume = new QPushButton(tr("Resume"), form);
    m_stop = new QPushButton(tr("Stop"), form);
    m_progress = new QProgressBar(form);
    m_progress->setFormat("%v / %m");
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_eta = new QLabel(form);
    row->addWidget(m_source, 1);
    row->addWidget(open);
    settings->addWidget(new QLabel(tr("scheduler"), form));
    settings->addWidget(m_scheduler);
    settings->addStretch();
    limits->addWidget(new QLabel(tr("budget"), form));
    limits->addWidget(m_budget);
    limits->addWidget(new QLabel(tr("seed"), form));
    limits->addWidget(m_seed);
    limits->addStretch();
    for (QPushButton* button : {m_start, m_pause, m_resume, m_stop})
        controls->addWidget(button);
    controls->addStretch();
    progress->addWidget(m_progress, 1);
    progress->addWidget(m_eta, 1);
    connect(open, &QPushButton::clicked, this, &WorkloadView::chooseWorkloadFile);
    connect(m_start, &QPushButton::clicked, this, [this] { start(); });
    connect(m_pause, &QPushButton::clicked, &m_runner, &WorkloadRunner::pause);
    connect(m_resume, &QPushButton::clicked, &m_runner, &WorkloadRunner::resume);
    connect(m_stop, &QPushButton::clicked, &m_runner, &WorkloadRunner::cancel);
    return form;
}

void WorkloadView::buildCharts(QWidget* parent, QWidget*& endToEnd, QWidget*& trials) {
    m_endToEndView = charts::makeChartView(tr("Weighted end-to-end latency vs total trials"), parent);
    QChart* chart = m_endToEndView->chart();
    m_endToEndX = charts::makeAxis(tr("total trials"), false);
    m_endToEndY = charts::makeAxis(tr("weighted ms"), false);
    chart->addAxis(m_endToEndX, Qt::AlignBottom);
    chart->addAxis(m_endToEndY, Qt::AlignLeft);
    m_oracle = new QLineSeries;
    m_oracle->setName(tr("oracle (every task at its optimum)"));
    QPen pen(Qt::darkGreen);
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(1.5);
    m_oracle->setPen(pen);
    chart->addSeries(m_oracle);
    m_oracle->attachAxis(m_endToEndX);
    m_oracle->attachAxis(m_endToEndY);
    m_oracle->setVisible(false);
    // Over the plot's top right, which the falling curves leave empty: below it, the runs' names elided.
    m_endToEndLegend = new PlotLegend(m_endToEndView, Qt::TopRightCorner);
    endToEnd = m_endToEndView;

    m_trialsView = charts::makeChartView(tr("Trials per task (stacked)"), parent);
    m_trialsX = charts::makeAxis(tr("total trials"), false);
    m_trialsY = charts::makeAxis(tr("trials"), false);
    m_trialsView->chart()->addAxis(m_trialsX, Qt::AlignBottom);
    m_trialsView->chart()->addAxis(m_trialsY, Qt::AlignLeft);
    trials = m_trialsView;
}

void WorkloadView::chooseWorkloadFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a workload file"), QString(),
                                                      tr("Workloads (*.json);;All files (*)"));
    if (!path.isEmpty())
        addWorkloadFile(path);
}

void WorkloadView::addWorkloadFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    int index = m_source->findData(absolute);
    if (index < 0) {
        m_source->addItem(QFileInfo(absolute).fileName(), absolute);
        index = m_source->count() - 1;
    }
    m_source->setCurrentIndex(index);
}

void WorkloadView::configure(const QString& scheduler, int budget, int seed) {
    m_scheduler->setCurrentText(scheduler);
    m_budget->setValue(budget);
    m_seed->setValue(seed);
}

WorkloadPlan WorkloadView::formPlan() const {
    const QString path = m_source->currentData().toString();
    WorkloadPlan plan = path.isEmpty() ? workloads::demo() : workloads::readFile(path);
    plan.scheduler = m_scheduler->currentText().toStdString();
    plan.budget = m_budget->value();
    plan.seed = static_cast<std::uint64_t>(m_seed->value());
    return plan;
}

bool WorkloadView::start() {
    WorkloadPlan plan;
    try {
        plan = formPlan();
    } catch (const std::exception& e) {
        m_errors.report(this, tr("Cannot start the workload"), QString::fromUtf8(e.what()));
        return false;
    }
    return startWorkload(plan);
}

bool WorkloadView::startWorkload(const WorkloadPlan& plan) {
    if (m_runner.isRunning())
        return false;
    try {
        if (!m_runner.start({plan, m_databasePath}))
            return false;
    } catch (const std::exception& e) {
        m_errors.report(this, tr("Cannot start the workload"), QString::fromUtf8(e.what()));
        return false;
    }
    startRun(plan);
    return true;
}

void WorkloadView::startRun(const WorkloadPlan& plan) {
    m_model->setPlan(plan);
    m_last.reset();
    QChart* chart = m_endToEndView->chart();
    if (!m_runs.empty() && m_runs.back().history.empty()) { // a run that never got a round: reuse its series
        chart->removeSeries(m_runs.back().series);
        delete m_runs.back().series;
        m_runs.pop_back();
    }
    if (static_cast<int>(m_runs.size()) >= kMaxRuns) {
        chart->removeSeries(m_runs.front().series);
        delete m_runs.front().series;
        m_runs.erase(m_runs.begin());
    }
    for (Run& earlier : m_runs) {
        QPen pen = earlier.series->pen();
        pen.setWidthF(1.0);
        earlier.series->setPen(pen);
    }
    Run run{WorkloadHistory(tr("%1 seed %2, %3 tasks")
                                .arg(QString::fromStdString(plan.scheduler))
                                .arg(plan.seed)
                                .arg(plan.tasks.size()),
                            plan.tasks.size()),
            new QLineSeries};
    run.series->setName(run.history.label());
    chart->addSeries(run.series);
    run.series->attachAxis(m_endToEndX);
    run.series->attachAxis(m_endToEndY);
    QPen pen = run.series->pen();
    pen.setWidthF(2.2);
    run.series->setPen(pen);
    m_runs.push_back(std::move(run));
    rebuildAreas(plan);
    m_progress->setRange(0, static_cast<int>(std::min<std::int64_t>(plan.budget, INT_MAX)));
    m_progress->setValue(0);
    m_summary->setText(tr("Workload \"%1\": %2 tasks, budget %3, scheduler %4.")
                           .arg(QString::fromStdString(plan.name))
                           .arg(plan.tasks.size())
                           .arg(plan.budget)
                           .arg(QString::fromStdString(plan.scheduler)));
    m_timer->start();
    refreshNow();
    updateButtons();
}

void WorkloadView::rebuildAreas(const WorkloadPlan& plan) {
    QChart* chart = m_trialsView->chart();
    for (QAreaSeries* area : m_areas) {
        chart->removeSeries(area);
        delete area;
    }
    m_areas.clear();
    for (std::size_t k = 0; k < plan.tasks.size(); ++k) {
        auto* upper = new QLineSeries;
        auto* lower = k == 0 ? nullptr : new QLineSeries;
        auto* area = new QAreaSeries(upper, lower);
        upper->setParent(area);
        if (lower)
            lower->setParent(area);
        area->setName(QString::fromStdString(plan.tasks[k].name));
        const QColor colour = taskColor(k, plan.tasks.size());
        area->setColor(colour);
        area->setBorderColor(colour.darker(130));
        chart->addSeries(area);
        area->attachAxis(m_trialsX);
        area->attachAxis(m_trialsY);
        m_areas.push_back(area);
    }
}

void WorkloadView::onRound(const WorkloadUpdate& update) {
    m_model->applyUpdate(update);
    std::size_t failed = 0;
    for (const WorkloadTaskModel::Row& row : m_model->rows())
        failed += row.status == "failed" && row.weight > 0 ? 1 : 0;
    if (!m_runs.empty())
        m_runs.back().history.add(update.progress, failed);
    m_last = update.progress;
    m_dirty = true;
    updateProgress();
    const WorkloadProgress& p = update.progress;
    QString text = tr("Round %1").arg(p.rounds);
    if (p.task && *p.task < m_model->rows().size())
        text += tr(", task %1").arg(m_model->rows()[*p.task].name);
    text += tr(": %1 of %2 trials, end-to-end %3").arg(p.trials).arg(p.budget).arg(formatMs(p.endToEndMs));
    if (p.tasksWithoutBest > 0)
        text += tr(" (%n task(s) without a best yet)", nullptr, static_cast<int>(p.tasksWithoutBest));
    if (p.oracleMs)
        text += tr(", oracle %1").arg(formatMs(*p.oracleMs));
    m_summary->setText(text);
}

void WorkloadView::onFinished(const QString& stop, const QString& error) {
    m_timer->stop();
    // What the records say when it ended: the statuses of tasks that stopped on their own, and errors.
    if (const std::optional<std::int64_t> id = m_runner.workloadId()) {
        try {
            RecordStore store(m_databasePath.toStdString(), DatabaseAccess::ReadOnly);
            if (const std::optional<WorkloadRecord> record = store.workload(*id))
                m_model->setRecordedStatuses(*record);
        } catch (const std::exception& e) {
            m_errors.report(this, tr("Cannot read the workload's record"), QString::fromUtf8(e.what()));
        }
    }
    refreshNow();
    updateButtons();
    updateProgress();
    m_summary->setText(stop == "failed" ? tr("The workload failed.")
                                        : tr("Workload %1 ended (%2): %3 trials.")
                                              .arg(m_runner.workloadId().value_or(0))
                                              .arg(stop)
                                              .arg(m_last ? m_last->trials : 0));
    if (!error.isEmpty())
        m_errors.report(this, tr("The workload failed"), error);
    emit finished(stop);
}

void WorkloadView::refreshNow() {
    m_dirty = false;
    if (m_runs.empty())
        return;
    const WorkloadHistory& current = m_runs.back().history;
    double xMax = static_cast<double>(m_progress->maximum());
    double yMin = INFINITY, yMax = -INFINITY;
    for (Run& run : m_runs) {
        if (&run == &m_runs.back())
            run.series->replace(current.endToEnd());
        for (const QPointF& p : run.series->points()) {
            xMax = std::max(xMax, p.x());
            yMin = std::min(yMin, p.y());
            yMax = std::max(yMax, p.y());
        }
    }
    const std::optional<double> oracle = current.oracleMs();
    if (oracle) {
        yMin = std::min(yMin, *oracle);
        yMax = std::max(yMax, *oracle);
    }
    xMax = charts::niceCeil(xMax);
    charts::setRangeIfChanged(m_endToEndX, 0.0, xMax);
    charts::setRange(m_endToEndY, yMin, yMax);
    const QList<QPointF> line =
        oracle ? QList<QPointF>{QPointF(0.0, *oracle), QPointF(xMax, *oracle)} : QList<QPointF>{};
    if (m_oracle->points() != line)
        m_oracle->replace(line);
    m_oracle->setVisible(oracle.has_value());
    m_endToEndLegend->place();

    const std::vector<QList<QPointF>> stacked = current.stackedTrials();
    for (std::size_t k = 0; k < m_areas.size() && k < stacked.size(); ++k) {
        m_areas[k]->upperSeries()->replace(stacked[k]);
        if (k > 0)
            m_areas[k]->lowerSeries()->replace(stacked[k - 1]);
    }
    charts::setRangeIfChanged(m_trialsX, 0.0, xMax);
    charts::setRangeFromZero(m_trialsY, std::max<double>(1.0, static_cast<double>(current.trials())));
}

void WorkloadView::onSelectionChanged() {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    const QVariant session = rows.first().data(WorkloadTaskModel::kSessionRole);
    if (!session.isNull())
        emit taskSelected(session.toLongLong());
}

void WorkloadView::updateButtons() {
    const bool running = m_runner.isRunning();
    m_start->setEnabled(!running);
    m_pause->setEnabled(running && !m_runner.isPaused());
    m_resume->setEnabled(running && m_runner.isPaused());
    m_stop->setEnabled(running);
    m_source->setEnabled(!running);
}

void WorkloadView::updateProgress() {
    if (!m_last) {
        m_eta->clear();
        return;
    }
    m_progress->setValue(static_cast<int>(std::min<std::int64_t>(m_last->trials, m_progress->maximum())));
    QString text = tr("%1 elapsed").arg(formatDuration(m_last->elapsedS));
    if (m_runner.isPaused())
        text += tr(", paused");
    else if (m_runner.isRunning() && m_last->trials > 0 && m_last->budget > m_last->trials)
        text +=
            tr(", ETA %1")
                .arg(formatDuration(m_last->elapsedS * static_cast<double>(m_last->budget - m_last->trials) /
                                    static_cast<double>(m_last->trials)));
    m_eta->setText(text);
}

} // namespace ts::gui
