#include "data/RunData.h"

#include <QFileInfo>

namespace ts::gui {

void RunData::reset(Info info, std::vector<Parameter> parameters, std::shared_ptr<const Dataset> dataset) {
    m_info = std::move(info);
    m_parameters = std::move(parameters);
    m_dataset = std::move(dataset);
    m_positions.assign(m_parameters.size(), {});
    for (std::size_t p = 0; p < m_parameters.size(); ++p)
        for (std::size_t v = 0; v < m_parameters[p].values.size(); ++v)
            m_positions[p].emplace(toString(m_parameters[p].values[v]), static_cast<int>(v));
    m_trials.clear();
    m_trialPositions.clear();
    m_best = {};
    m_restrictions.clear();
    m_selected = -1;
    emit resetDone();
    emit selectionChanged(-1);
}

void RunData::append(std::vector<Trial> trials) {
    if (trials.empty())
        return;
    int first = static_cast<int>(m_trials.size());
    for (Trial& trial : trials) {
        m_best.add(trial.measurement);
        for (std::size_t p = 0; p < m_parameters.size(); ++p)
            m_trialPositions.push_back(p < trial.config.size() ? position(p, trial.config[p]) : -1);
        m_trials.push_back(std::move(trial));
    }
    emit trialsAppended(first, static_cast<int>(m_trials.size()) - first);
}

void RunData::setRestrictions(QStringList restrictions) {
    if (restrictions == m_restrictions)
        return;
    m_restrictions = std::move(restrictions);
    emit restrictionsChanged();
}

void RunData::setStatus(const QString& status) {
    m_info.status = status;
    emit statusChanged(status);
}

int RunData::position(std::size_t parameter, const Value& value) const {
    if (parameter >= m_positions.size())
        return -1;
    auto it = m_positions[parameter].find(toString(value));
    return it == m_positions[parameter].end() ? -1 : it->second;
}

QString RunData::comparisonKey() const {
    if (m_dataset) {
        const QFileInfo file(QString::fromStdString(m_dataset->path.string()));
        const QString canonical = file.canonicalFilePath();
        return "dataset\n" + (canonical.isEmpty() ? file.absoluteFilePath() : canonical);
    }
    QStringList names;
    for (const Parameter& p : m_parameters)
        names << QString::fromStdString(p.name);
    return QStringList{"kernel", m_info.kernel, m_info.device, m_info.problem, names.join(',')}.join('\n');
}

void RunData::select(int row) {
    if (row < -1 || row >= static_cast<int>(m_trials.size()) || row == m_selected)
        return;
    m_selected = row;
    emit selectionChanged(row);
}

} // namespace ts::gui
