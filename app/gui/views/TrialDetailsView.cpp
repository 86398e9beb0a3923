#include "views/TrialDetailsView.h"

#include "charts/HistogramWidget.h"
#include "data/RunData.h"
#include "window/AppPalette.h"
#include "window/TimeFormat.h"

#include "util/Statistics.h"

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace ts::gui {

TrialDetailsView::TrialDetailsView(RunData& data, QWidget* parent) : RunView(data, parent) {
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(tr("Select a trial in any view."), this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_histogram = new HistogramWidget(splitter);
    m_statistics = new QLabel(splitter);
    m_statistics->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The statistics line wraps in the dock's width instead of widening the dock.
    m_statistics->setWordWrap(true);
    m_statistics->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_config = new QTableWidget(0, 2, splitter);
    m_config->setHorizontalHeaderLabels({tr("name"), tr("value")});
    m_config->verticalHeader()->hide();
    m_config->horizontalHeader()->setStretchLastSection(true);
    // Parameter and metric names whole (ROWS_PER_CHUNK, dynamic_shared_bytes); the values take the rest.
    m_config->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_config->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_log = new QPlainTextEdit(splitter);
    m_log->setReadOnly(true);
    m_log->setPlaceholderText(tr("compile log / failure reason"));
    for (QWidget* w : {static_cast<QWidget*>(m_histogram), static_cast<QWidget*>(m_statistics),
                       static_cast<QWidget*>(m_config), static_cast<QWidget*>(m_log)})
        splitter->addWidget(w);
    layout->addWidget(splitter, 1);
    connect(&data, &RunData::selectionChanged, this, [this] {
        markDirty();
        refreshIfNeeded();
    });
}

void TrialDetailsView::refresh() {
    int row = data().selectedRow();
    if (row < 0) {
        m_summary->setText(tr("Select a trial in any view."));
        m_histogram->setSamples({}, 0);
        m_statistics->clear();
        m_config->setRowCount(0);
        m_log->clear();
        return;
    }
    const Trial& t = data().trials()[static_cast<std::size_t>(row)];
    const Measurement& m = t.measurement;
    QString time = m.status == MeasureStatus::Ok ? formatMs(m.objective) : QString("-");
    m_summary->setText(
        tr("Trial %1 (batch %2): %3, %4").arg(t.number + 1).arg(t.batch).arg(toString(m.status), time));
    Statistics stats = summarize(m.samples);
    m_histogram->setSamples(m.samples, stats.median);
    QString text =
        tr("%1 samples: median %2, min %3, mean %4, stdev %5, cv %6%")
            .arg(m.samples.size())
            .arg(formatMs(stats.median), formatMs(stats.min), formatMs(stats.mean), formatMs(stats.stdev))
            .arg(stats.cv * 100, 0, 'f', 2);
    if (t.predicted)
        text += tr("\npredicted before measuring: %1").arg(formatMs(*t.predicted));
    text += tr("\ncompile %1, strategy %2, at %3")
                .arg(formatMs(m.compileMs), formatMs(t.strategyMs), formatS(t.elapsedS));
    m_statistics->setText(text);
    const auto& parameters = data().parameters();
    m_config->setRowCount(static_cast<int>(t.config.size() + m.metrics.size()));
    int r = 0;
    for (std::size_t p = 0; p < t.config.size(); ++p, ++r) {
        m_config->setItem(r, 0,
                          new QTableWidgetItem(p < parameters.size()
                                                   ? QString::fromStdString(parameters[p].name)
                                                   : QString::number(p)));
        m_config->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(toString(t.config[p]))));
    }
    for (const auto& [name, value] : m.metrics) {
        auto* item = new QTableWidgetItem(QString::fromStdString(name));
        // Resources and metrics apart from the parameters.
        item->setForeground(readableText(QColor(30, 90, 200), palette()));
        m_config->setItem(r, 0, item);
        m_config->setItem(r++, 1, new QTableWidgetItem(QString::number(value, 'g', 6)));
    }
    m_log->setPlainText(QString::fromStdString(m.log));
}

} // namespace ts::gui
