#include "views/ParameterImportanceView.h"

#include "charts/ChartSupport.h"
#include "data/RunData.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace ts::gui {

namespace {

// What the analysis reads of a trial: its config and whether and how fast it ran (not the samples or logs).
std::vector<Trial> analysedPart(const std::vector<Trial>& trials) {
    std::vector<Trial> light;
    light.reserve(trials.size());
    for (const Trial& t : trials) {
        Trial copy;
        copy.number = t.number;
        copy.config = t.config;
        copy.measurement.status = t.measurement.status;
        copy.measurement.objective = t.measurement.objective;
        light.push_back(std::move(copy));
    }
    return light;
}

} // namespace

ParameterImportanceView::ParameterImportanceView(RunData& data, QWidget* parent) : RunView(data, parent) {
    auto* layout = new QVBoxLayout(this);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
    m_chartView = charts::makeChartView(
        tr("Parameter importance: %1").arg(QString::fromUtf8(ParameterImportance::kMethod)), this);
    QChart* chart = m_chartView->chart();
    chart->legend()->hide();
    m_series = new QHorizontalBarSeries;
    m_bars = new QBarSet(tr("importance"));
    m_bars->setColor(QColor(52, 101, 164));
    m_series->append(m_bars);
    m_series->setLabelsVisible(true);
    m_series->setLabelsFormat("@value %");
    m_series->setLabelsPrecision(3);
    m_series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    chart->addSeries(m_series);
    m_categories = new QBarCategoryAxis;
    m_categories->setTruncateLabels(false); // parameter names are short: show them whole
    // Ticks on nice steps (charts::setRangeIfChanged keeps the interval to the range).
    m_values = static_cast<QValueAxis*>(
        charts::makeAxis(tr("share of the variance of log time explained (%)"), false));
    m_values->setLabelFormat("%.0f");
    charts::setRangeIfChanged(m_values, 0.0, 100.0);
    chart->addAxis(m_categories, Qt::AlignLeft);
    chart->addAxis(m_values, Qt::AlignBottom);
    m_series->attachAxis(m_categories);
    m_series->attachAxis(m_values);
    layout->addWidget(m_chartView, 1);

    connect(m_bars, &QBarSet::hovered, this, [this](bool entered, int index) {
        const auto row = static_cast<std::size_t>(m_bars->count() - 1 - index);
        if (!entered || row >= m_shown.size()) {
            QToolTip::hideText();
            return;
        }
        const ParameterEffect& e = m_shown[row];
        QToolTip::showText(QCursor::pos(),
                           tr("%1: %2 % of the explained variance; its worst value is %3x slower on average "
                              "than its best, %4 (%5 values seen)")
                               .arg(QString::fromStdString(e.parameter))
                               .arg(100.0 * e.importance, 0, 'f', 1)
                               .arg(e.spread, 0, 'g', 3)
                               .arg(QString::fromStdString(toString(e.bestValue)))
                               .arg(e.values));
    });
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &ParameterImportanceView::showOutcome);
    connect(&data, &RunData::resetDone, this, &ParameterImportanceView::onReset);
    connect(&data, &RunData::trialsAppended, this, &ParameterImportanceView::markDirty);
}

ParameterImportanceView::~ParameterImportanceView() {
    m_watcher.waitForFinished();
}

QStringList ParameterImportanceView::rankedParameters() const {
    QStringList names = m_categories->categories();
    std::reverse(names.begin(), names.end());
    return names;
}

QList<qreal> ParameterImportanceView::barValues() const {
    QList<qreal> values;
    for (qsizetype i = m_bars->count() - 1; i >= 0; --i)
        values.push_back(m_bars->at(i));
    return values;
}

QString ParameterImportanceView::noteText() const {
    return m_note->text();
}

void ParameterImportanceView::onReset() {
    ++m_generation;
    ++m_request;
    m_result.reset();
    clearBars();
    markDirty();
}

void ParameterImportanceView::refresh() {
    const std::size_t usable = ParameterImportance::usableCount(data().trials(), data().parameters().size());
    if (usable < ParameterImportance::kMinTrials) {
        m_result.reset();
        clearBars();
        m_note->setText(data().trials().empty()
                            ? tr("No trials yet.")
                            : tr("Parameter importance needs at least %1 successful trials; this run has %2.")
                                  .arg(ParameterImportance::kMinTrials)
                                  .arg(usable));
        m_analysedGeneration = m_generation;
        m_analysedTrials = usable;
        ++m_request; // supersedes an analysis in flight
        emit importanceShown();
        return;
    }
    if (m_watcher.isRunning() || (usable == m_analysedTrials && m_analysedGeneration == m_generation))
        return; // showOutcome() looks again when the analysis in flight ends
    m_analysedGeneration = m_generation;
    m_analysedTrials = usable;
    m_flight = ++m_request;
    if (!m_result)
        m_note->setText(tr("Analysing %1 successful trials...").arg(usable));
    m_watcher.setFuture(
        QtConcurrent::run([parameters = data().parameters(), trials = analysedPart(data().trials())] {
            Outcome outcome;
            try {
                outcome.result = ParameterImportance::compute(parameters, trials);
            } catch (const std::exception& e) {
                outcome.error = e.what();
            }
            return outcome;
        }));
}

void ParameterImportanceView::showOutcome() {
    const Outcome outcome = m_watcher.result();
    if (m_flight != m_request) { // the run was reset, or a note replaced it, while it was analysed
        markDirty();
        refreshIfNeeded();
        return;
    }
    if (outcome.result) {
        m_result = outcome.result;
        draw(*outcome.result);
    } else {
        m_result.reset();
        clearBars();
        m_note->setText(tr("Parameter importance failed: %1").arg(QString::fromStdString(outcome.error)));
    }
    emit importanceShown();
    if (ParameterImportance::usableCount(data().trials(), data().parameters().size()) != m_analysedTrials) {
        markDirty(); // trials came in meanwhile
        refreshIfNeeded();
    }
}

void ParameterImportanceView::draw(const ImportanceResult& result) {
    m_shown.clear();
    QStringList fixed;
    for (const ParameterEffect& e : result.ranked)
        if (e.values >= 2)
            m_shown.push_back(e);
        else
            fixed << QString::fromStdString(e.parameter);
    QStringList categories;
    QList<qreal> values;
    double top = 0.0;
    for (auto it = m_shown.rbegin(); it != m_shown.rend(); ++it) {
        categories << QString::fromStdString(it->parameter);
        values << 100.0 * it->importance;
        top = std::max(top, 100.0 * it->importance);
    }
    if (m_categories->categories() != categories) {
        m_categories->clear();
        m_categories->append(categories);
    }
    m_bars->remove(0, m_bars->count());
    m_bars->append(values);
    charts::setRangeIfChanged(m_values, 0.0, std::min(100.0, charts::niceCeil(top * 1.15)));
    QString note = tr("Fitted to %1 successful trials").arg(result.trials);
    if (result.excluded > 0)
        note += tr(" (%1 failed or left out)").arg(result.excluded);
    note += tr("; a bar is the variance of the parameter's average effect on log time, as a share of all "
               "parameters' (interactions are not counted).");
    if (!fixed.isEmpty())
        note += tr(" Not varied in this run: %1.").arg(fixed.join(", "));
    if (m_shown.empty() || top <= 0.0)
        note += tr(" No parameter changes the predicted time.");
    m_note->setText(note);
}

void ParameterImportanceView::clearBars() {
    m_shown.clear();
    m_bars->remove(0, m_bars->count());
    m_categories->clear();
}

} // namespace ts::gui
