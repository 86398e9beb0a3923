#include "views/ExplorerView.h"

#include "window/AdaptiveSplitter.h"
#include "charts/HeatmapWidget.h"
#include "charts/MarginalPlotWidget.h"
#include "charts/ParallelCoordinatesWidget.h"
#include "data/RunData.h"
#include "window/TimeFormat.h"
#include "data/TrialFilterProxy.h"
#include "data/TrialTableModel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ts::gui {

ExplorerView::ExplorerView(RunData& data, QWidget* parent) : RunView(data, parent) {
    auto* layout = new QVBoxLayout(this);
    m_splitter = new AdaptiveSplitter(this);
    auto* splitter = m_splitter;
    layout->addWidget(splitter);

    auto* left = new QWidget(splitter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    // Two short rows (a narrow dock stacks the plots under the table and must not scroll sideways).
    auto* filters = new QHBoxLayout;
    auto* ranges = new QHBoxLayout;
    m_status = new QComboBox(left);
    m_status->addItem(tr("all statuses"), -1);
    for (MeasureStatus s : {MeasureStatus::Ok, MeasureStatus::CompileFailed, MeasureStatus::RuntimeFailed,
                            MeasureStatus::Timeout, MeasureStatus::WrongResult, MeasureStatus::Invalid})
        m_status->addItem(toString(s), static_cast<int>(s));
    m_status->addItem(tr("failed (not Ok)"), -2);
    filters->addWidget(m_status);
    m_rangeParameter = new QComboBox(left);
    m_rangeLow = new QLineEdit(left);
    m_rangeLow->setPlaceholderText(tr("min"));
    m_rangeLow->setMaximumWidth(70);
    m_rangeHigh = new QLineEdit(left);
    m_rangeHigh->setPlaceholderText(tr("max"));
    m_rangeHigh->setMaximumWidth(70);
    auto* add = new QPushButton(tr("Filter"), left);
    auto* clear = new QPushButton(tr("Clear"), left);
    filters->addWidget(m_rangeParameter);
    filters->addStretch();
    ranges->addWidget(m_rangeLow);
    ranges->addWidget(m_rangeHigh);
    ranges->addWidget(add);
    ranges->addWidget(clear);
    ranges->addStretch();
    leftLayout->addLayout(filters);
    leftLayout->addLayout(ranges);
    m_filterSummary = new QLabel(left);
    leftLayout->addWidget(m_filterSummary);

    m_model = new TrialTableModel(data, this);
    m_proxy = new TrialFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_table = new QTableView(left);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TrialTableModel::Number, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setDefaultSectionSize(70);
    leftLayout->addWidget(m_table, 1);
    splitter->addWidget(left);

    m_plots = new QTabWidget(splitter);
    auto* heatPage = new QWidget(m_plots);
    auto* heatLayout = new QVBoxLayout(heatPage);
    auto* heatChoice = new QHBoxLayout;
    m_heatX = new QComboBox(heatPage);
    m_heatY = new QComboBox(heatPage);
    heatChoice->addWidget(new QLabel(tr("x"), heatPage));
    heatChoice->addWidget(m_heatX, 1);
    heatChoice->addWidget(new QLabel(tr("y"), heatPage));
    heatChoice->addWidget(m_heatY, 1);
    heatLayout->addLayout(heatChoice);
    m_heatmap = new HeatmapWidget(data, heatPage);
    heatLayout->addWidget(m_heatmap, 1);
    m_plots->addTab(heatPage, tr("Heatmap"));
    auto* parallelPage = new QWidget(m_plots);
    auto* parallelLayout = new QVBoxLayout(parallelPage);
    auto* clearBrushes = new QPushButton(tr("Clear brushes"), parallelPage);
    auto* hint =
        new QLabel(tr("Drag along any axis to brush; click a line to select its trial."), parallelPage);
    hint->setWordWrap(true);
    auto* parallelBar = new QHBoxLayout;
    parallelBar->addWidget(hint, 1);
    parallelBar->addWidget(clearBrushes);
    parallelLayout->addLayout(parallelBar);
    m_parallel = new ParallelCoordinatesWidget(data, parallelPage);
    parallelLayout->addWidget(m_parallel, 1);
    m_plots->addTab(parallelPage, tr("Parallel coordinates"));
    m_marginals = new MarginalPlotWidget(data, m_plots);
    m_plots->addTab(m_marginals, tr("Marginals"));
    splitter->addWidget(m_plots);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    connect(m_status, &QComboBox::currentIndexChanged, this, &ExplorerView::applyStatusFilter);
    connect(add, &QPushButton::clicked, this, &ExplorerView::addTypedRange);
    connect(clear, &QPushButton::clicked, this, [this] {
        m_proxy->clearParameterRanges();
        m_parallel->clearBrushes();
    });
    connect(clearBrushes, &QPushButton::clicked, m_parallel, &ParallelCoordinatesWidget::clearBrushes);
    connect(m_parallel, &ParallelCoordinatesWidget::brushesChanged, this, &ExplorerView::applyBrushes);
    auto heatChanged = [this] {
        if (m_heatX->currentIndex() >= 0 && m_heatY->currentIndex() >= 0)
            m_heatmap->setParameters(static_cast<std::size_t>(m_heatX->currentIndex()),
                                     static_cast<std::size_t>(m_heatY->currentIndex()));
    };
    connect(m_heatX, &QComboBox::currentIndexChanged, this, heatChanged);
    connect(m_heatY, &QComboBox::currentIndexChanged, this, heatChanged);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (m_following || !current.isValid())
                    return;
                this->data().select(m_proxy->mapToSource(current).row());
            });
    connect(&data, &RunData::selectionChanged, this, &ExplorerView::followSelection);
    connect(&data, &RunData::resetDone, this, [this] {
        resetChoices();
        markDirty();
    });
    connect(&data, &RunData::trialsAppended, this, &ExplorerView::markDirty);
    connect(m_plots, &QTabWidget::currentChanged, this, [this] { refreshIfNeeded(true); });
    resetChoices();
}

void ExplorerView::resetChoices() {
    QSignalBlocker bx(m_heatX), by(m_heatY), br(m_rangeParameter);
    m_heatX->clear();
    m_heatY->clear();
    m_rangeParameter->clear();
    for (const Parameter& p : data().parameters()) {
        QString name = QString::fromStdString(p.name);
        m_heatX->addItem(name);
        m_heatY->addItem(name);
        m_rangeParameter->addItem(name);
    }
    // Default: the two parameters with the most values, the most informative picture.
    const auto& parameters = data().parameters();
    std::vector<int> order(parameters.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&parameters](int a, int b) {
        return parameters[static_cast<std::size_t>(a)].values.size() >
               parameters[static_cast<std::size_t>(b)].values.size();
    });
    if (order.size() >= 2) {
        m_heatX->setCurrentIndex(std::min(order[0], order[1]));
        m_heatY->setCurrentIndex(std::max(order[0], order[1]));
        m_heatmap->setParameters(static_cast<std::size_t>(m_heatX->currentIndex()),
                                 static_cast<std::size_t>(m_heatY->currentIndex()));
    } else if (order.size() == 1) {
        m_heatmap->setParameters(0, 0);
    }
    m_proxy->clearParameterRanges();
    m_filterSummary->clear();
}

void ExplorerView::applyStatusFilter() {
    int choice = m_status->currentData().toInt();
    std::set<MeasureStatus> statuses;
    if (choice >= 0)
        statuses.insert(static_cast<MeasureStatus>(choice));
    else if (choice == -2)
        statuses = {MeasureStatus::CompileFailed, MeasureStatus::RuntimeFailed, MeasureStatus::Timeout,
                    MeasureStatus::WrongResult, MeasureStatus::Invalid};
    m_proxy->setStatuses(statuses);
}

void ExplorerView::addTypedRange() {
    int parameter = m_rangeParameter->currentIndex();
    if (parameter < 0)
        return;
    bool okLow = true, okHigh = true;
    double low = m_rangeLow->text().trimmed().isEmpty() ? -1e300 : m_rangeLow->text().toDouble(&okLow);
    double high = m_rangeHigh->text().trimmed().isEmpty() ? 1e300 : m_rangeHigh->text().toDouble(&okHigh);
    if (!okLow || !okHigh) {
        m_filterSummary->setText(
            tr("The range of %1 needs numbers for min and max.").arg(m_rangeParameter->currentText()));
        return;
    }
    m_proxy->setParameterRange(parameter, low, high);
    m_filterSummary->setText(
        tr("%1 in [%2, %3]").arg(m_rangeParameter->currentText(), m_rangeLow->text(), m_rangeHigh->text()));
}

// The table keeps the trials the parallel coordinates draw in colour: those within every brush, the time
// axis's included.
void ExplorerView::applyBrushes() {
    if (m_parallel->brushes().empty()) {
        m_proxy->setRowFilter({});
        m_filterSummary->clear();
        return;
    }
    const ParallelCoordinatesWidget* parallel = m_parallel;
    m_proxy->setRowFilter([parallel](int row) { return parallel->keeps(static_cast<std::size_t>(row)); });
    showBrushSummary();
}

void ExplorerView::showBrushSummary() {
    QStringList parts;
    const auto& parameters = data().parameters();
    for (std::size_t p = 0; p < parameters.size(); ++p) {
        auto positions = m_parallel->brushedPositions(p);
        if (!positions)
            continue;
        const auto& values = parameters[p].values;
        const int first = std::max(0, positions->first);
        const int last = std::min(positions->second, static_cast<int>(values.size()) - 1);
        const QString name = QString::fromStdString(parameters[p].name);
        if (first > last)
            parts << tr("%1: no value").arg(name);
        else
            parts << QString("%1 in [%2, %3]")
                         .arg(name, QString::fromStdString(toString(values[static_cast<std::size_t>(first)])),
                              QString::fromStdString(toString(values[static_cast<std::size_t>(last)])));
    }
    if (auto times = m_parallel->brushedTimes())
        parts << (times->first > times->second
                      ? tr("time: none")
                      : tr("time in [%1, %2]").arg(formatMs(times->first), formatMs(times->second)));
    const auto& trials = data().trials();
    int kept = 0;
    for (std::size_t row = 0; row < trials.size(); ++row)
        kept += m_parallel->keeps(row);
    m_filterSummary->setText(
        tr("The brushes keep %1 of %2 trials: %3").arg(kept).arg(trials.size()).arg(parts.join("; ")));
}

void ExplorerView::followSelection(int row) {
    m_heatmap->update();
    if (row < 0)
        return;
    QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    if (!index.isValid())
        return;
    m_following = true;
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
    m_table->scrollTo(index);
    m_following = false;
}

void ExplorerView::refresh() {
    // Only the plot in front is recomputed; the others catch up when their tab is shown. The heatmap needs
    // neither: it adds the trials as they are appended.
    if (!m_parallel->brushes().empty())
        showBrushSummary(); // new trials within the brushes
    QWidget* current = m_plots->currentWidget();
    if (current && current->isAncestorOf(m_parallel))
        m_parallel->invalidate();
    else if (current == m_marginals)
        m_marginals->recompute();
}

} // namespace ts::gui
