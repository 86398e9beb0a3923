#pragma once

#include "datasets/Dataset.h"
#include "trial/BestSoFar.h"
#include "trial/Trial.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ts::gui {

// The run every view shows: a live session or one opened from the records database. Holds the trials in
// evaluation order (row = position), the best-so-far after each, the restrictions learned and the shared
// trial selection. UI thread only; views listen to its signals and read it when they refresh.
class RunData : public QObject {
    Q_OBJECT
public:
    struct Info {
        QString label; // e.g. "xgb seed 0" (legend of the convergence overlay)
        QString kernel;
        QString device;
        QString strategy;
        QString status; // running, completed, cancelled, failed
        std::int64_t sessionId = 0;
        std::int64_t budget = 0;
        std::optional<double> optimum; // the space's fastest time, when a replay dataset is known
        // The problem size of a kernel run (e.g. the stored problem JSON): runs of other sizes are not drawn
        // together. Replay runs are told apart by their dataset.
        QString problem;
    };

    explicit RunData(QObject* parent = nullptr) : QObject(parent) {}

    // Starts a new run. Parameters give the value order of every axis (the space's when known).
    void reset(Info info, std::vector<Parameter> parameters, std::shared_ptr<const Dataset> dataset = {});
    void append(std::vector<Trial> trials);
    void setStatus(const QString& status);
    // The restrictions the strategy learned from the failed configs (emits restrictionsChanged).
    void setRestrictions(QStringList restrictions);
    void setSessionId(std::int64_t id) { m_info.sessionId = id; }

    const Info& info() const { return m_info; }
    const std::vector<Parameter>& parameters() const { return m_parameters; }
    const std::shared_ptr<const Dataset>& dataset() const { return m_dataset; }
    const std::vector<Trial>& trials() const { return m_trials; }
    // Fastest Ok objective among trials [0, row]; +inf before any Ok trial.
    const std::vector<double>& bestSoFar() const { return m_best.curve(); }
    std::optional<std::size_t> bestRow() const { return m_best.bestPosition(); }
    const QStringList& restrictions() const { return m_restrictions; }
    // Position of a trial's value in its parameter's list; -1 when the value is not in the list.
    int position(std::size_t parameter, const Value& value) const;
    // The same for trial `row`, computed once on append (the plots read it for every trial on every refresh).
    int trialPosition(std::size_t row, std::size_t parameter) const {
        return m_trialPositions[row * m_parameters.size() + parameter];
    }

    // Runs with equal keys measure the same thing (same dataset; or same kernel, device, problem size and
    // parameters), so their times can be drawn on one axis.
    QString comparisonKey() const;

    int selectedRow() const { return m_selected; }
    // Selects a trial everywhere (-1 clears). Emits selectionChanged when the selection changes.
    void select(int row);

signals:
    void resetDone();
    void trialsAppended(int first, int count);
    void restrictionsChanged();
    void statusChanged(const QString& status);
    void selectionChanged(int row);

private:
    Info m_info;
    std::vector<Parameter> m_parameters;
    std::vector<std::unordered_map<std::string, int>> m_positions;
    std::shared_ptr<const Dataset> m_dataset;
    std::vector<Trial> m_trials;
    std::vector<int> m_trialPositions; // row-major: trials x parameters
    BestSoFar m_best;                  // over m_trials, row = position
    QStringList m_restrictions;
    int m_selected = -1;
};

} // namespace ts::gui
