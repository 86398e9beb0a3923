#include "views/RecordsView.h"

#include "window/ElidedLabel.h"
#include "window/ErrorReporter.h"

#include "deploy/DeploymentBuilder.h"
#include "deploy/DeploymentHeader.h"
#include "formats/TrialExporter.h"
#include "store/RecordStore.h"
#include "util/OutputFile.h"

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace ts::gui {

namespace {

struct ExportFormat {
    const char* filter;
    const char* suffix;
};

// Formats of the records issue, in the order of the save dialog's filters.
const ExportFormat kFormats[] = {{"Deployment JSON (*.json)", ".json"},
                                 {"C++ lookup header (*.h)", ".h"},
                                 {"Kernel Tuner cache JSON (*.json)", ".json"},
                                 {"T4 results JSON (*.json)", ".json"},
                                 {"JSON lines (*.jsonl)", ".jsonl"},
                                 {"CSV (*.csv)", ".csv"}};

std::string exportText(const RecordStore& store, int format, std::int64_t session) {
    TrialExporter exporter(store);
    switch (format) {
    case 0: {
        DeploymentBuilder builder(store);
        return builder.build(session).dump(2) + "\n";
    }
    case 1: {
        DeploymentBuilder builder(store);
        return DeploymentHeader::generate(builder.build(session));
    }
    case 2:
        return exporter.kernelTunerCache(session);
    case 3:
        return exporter.t4(session);
    case 4:
        return exporter.jsonLines(session);
    default:
        return exporter.csv(session);
    }
}

} // namespace

RecordsView::RecordsView(ErrorReporter& errors, QWidget* parent) : QWidget(parent), m_errors(errors) {
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    m_pathLabel = new ElidedLabel(this);
    m_pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* reloadButton = new QPushButton(tr("Reload"), this);
    m_open = new QPushButton(tr("Open"), this);
    m_resume = new QPushButton(tr("Resume"), this);
    m_export = new QPushButton(tr("Export..."), this);
    bar->addWidget(m_pathLabel, 1);
    for (QPushButton* b : {reloadButton, m_open, m_resume, m_export})
        bar->addWidget(b);
    layout->addLayout(bar);
    m_table = new QTableWidget(0, 9, this);
    m_table->setHorizontalHeaderLabels({tr("id"), tr("started"), tr("status"), tr("kernel"), tr("device"),
                                        tr("strategy"), tr("seed"), tr("budget"), tr("space")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    m_notice = new QLabel(this);
    m_notice->setWordWrap(true);
    m_notice->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notice->hide();
    layout->addWidget(m_notice);

    connect(reloadButton, &QPushButton::clicked, this, &RecordsView::reload);
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (auto id = selectedSession())
            emit openRequested(*id);
    });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this] {
        if (auto id = selectedSession())
            emit openRequested(*id);
    });
    connect(m_resume, &QPushButton::clicked, this, [this] {
        if (auto id = selectedSession())
            emit resumeRequested(*id);
    });
    connect(m_export, &QPushButton::clicked, this, &RecordsView::exportSelected);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &RecordsView::updateButtons);
    updateButtons();
}

void RecordsView::setDatabasePath(const QString& path) {
    m_path = path;
    m_pathLabel->setFullText(tr("Database: %1").arg(path));
    if (QFileInfo::exists(path))
        reload();
    else {
        m_sessions.clear();
        m_table->setRowCount(0);
    }
}

void RecordsView::reload() {
    if (m_path.isEmpty())
        return;
    try {
        RecordStore store(m_path.toStdString(), DatabaseAccess::ReadOnly);
        m_sessions = store.sessions();
    } catch (const std::exception& e) {
        m_sessions.clear();
        m_table->setRowCount(0);
        m_errors.report(this, tr("Cannot read the records"), QString::fromUtf8(e.what()));
        return;
    }
    std::sort(m_sessions.begin(), m_sessions.end(),
              [](const SessionRecord& a, const SessionRecord& b) { return a.id > b.id; });
    auto keep = selectedSession();
    m_table->setRowCount(static_cast<int>(m_sessions.size()));
    for (int row = 0; row < static_cast<int>(m_sessions.size()); ++row) {
        const SessionRecord& s = m_sessions[static_cast<std::size_t>(row)];
        QStringList cells{
            QString::number(s.id),
            QDateTime::fromSecsSinceEpoch(static_cast<qint64>(s.startedAt)).toString("yyyy-MM-dd hh:mm:ss"),
            QString::fromStdString(s.status),
            QString::fromStdString(s.kernel),
            QString::fromStdString(s.device),
            QString::fromStdString(s.strategy),
            QString::number(s.seed),
            QString::number(s.budget),
            QString::fromStdString(s.spaceMode)};
        for (int c = 0; c < cells.size(); ++c)
            m_table->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    fitColumns();
    if (keep)
        selectSession(*keep);
    updateButtons();
}

// Every cell shows its whole text: columns as wide as their contents, a long one (a CPU's device text names
// its compiler too) at most kMaxColumnWidth and wrapped, its row as tall as that takes. The table scrolls
// sideways within the dock.
void RecordsView::fitColumns() {
    m_table->resizeColumnsToContents();
    for (int c = 0; c < m_table->columnCount(); ++c)
        if (m_table->columnWidth(c) > kMaxColumnWidth)
            m_table->setColumnWidth(c, kMaxColumnWidth);
    m_table->resizeRowsToContents();
}

bool RecordsView::selectSession(std::int64_t id) {
    for (int row = 0; row < static_cast<int>(m_sessions.size()); ++row)
        if (m_sessions[static_cast<std::size_t>(row)].id == id) {
            m_table->selectRow(row);
            return true;
        }
    return false;
}

std::optional<std::int64_t> RecordsView::selectedSession() const {
    auto rows = m_table->selectionModel() ? m_table->selectionModel()->selectedRows() : QModelIndexList{};
    if (rows.isEmpty() || rows.front().row() >= static_cast<int>(m_sessions.size()))
        return std::nullopt;
    return m_sessions[static_cast<std::size_t>(rows.front().row())].id;
}

void RecordsView::updateButtons() {
    auto id = selectedSession();
    m_open->setEnabled(id.has_value());
    m_export->setEnabled(id.has_value());
    bool resumable = false;
    if (id)
        for (const SessionRecord& s : m_sessions)
            if (s.id == *id)
                resumable = s.status == "running" || s.status == "cancelled" || s.status == "failed";
    m_resume->setEnabled(resumable);
}

QStringList RecordsView::exportFormats() {
    QStringList filters;
    for (const ExportFormat& f : kFormats)
        filters << tr(f.filter);
    return filters;
}

QString RecordsView::notice() const {
    return m_notice->isHidden() ? QString() : m_notice->text();
}

void RecordsView::exportSelected() {
    auto id = selectedSession();
    if (!id)
        return;
    const QStringList filters = exportFormats();
    QString chosen;
    QString path =
        QFileDialog::getSaveFileName(this, tr("Export session %1").arg(*id),
                                     QString("session-%1.json").arg(*id), filters.join(";;"), &chosen);
    if (path.isEmpty())
        return;
    exportSession(*id, path, std::max<int>(0, static_cast<int>(filters.indexOf(chosen))));
}

bool RecordsView::exportSession(std::int64_t id, const QString& path, int format) {
    const QStringList filters = exportFormats();
    format = std::clamp(format, 0, static_cast<int>(filters.size()) - 1);
    std::size_t written = 0;
    try {
        RecordStore store(m_path.toStdString(), DatabaseAccess::ReadOnly);
        std::string text = exportText(store, format, id);
        OutputFile output(path.toStdString(), "export file");
        output.protect(m_path.toStdString());
        output.write(text);
        output.commit();
        written = text.size();
    } catch (const std::exception& e) {
        m_errors.report(this, tr("Cannot export"), QString::fromUtf8(e.what()));
        return false;
    }
    QString name = filters[format];
    name = name.left(name.indexOf(" (")).trimmed();
    const QString message = tr("Exported session %1 as %2 to %3 (%4).")
                                .arg(id)
                                .arg(name, QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()),
                                     QLocale().formattedDataSize(static_cast<qint64>(written)));
    m_notice->setText(message);
    m_notice->show();
    emit exported(message);
    return true;
}

} // namespace ts::gui
