#pragma once

#include "datasets/Dataset.h"
#include "store/RecordStore.h"
#include "store/SessionRecord.h"
#include "trial/Trial.h"

#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <vector>

namespace ts::gui {

// A past session read back from the records database, converted to what the views show: core trials with
// their configs, and the parameters' value lists (the dataset's space when the replay dataset still exists,
// otherwise the values seen in the trials, in numeric order).
struct LoadedSession {
    SessionRecord record;
    std::vector<Trial> trials;
    std::vector<Parameter> parameters;
    std::shared_ptr<const Dataset> dataset; // null when the session's dataset could not be read
    QString datasetProblem;                 // why the dataset is missing, empty when it was read
    // What the session's strategy learned from its failed configs, asked again of that strategy from the
    // stored trials (sessions with their replay dataset; empty otherwise).
    QStringList restrictions;
};

// Reads a session and its trials (and its replay dataset). Any thread: opens its own connection. Throws
// ts::Error naming the database or the session.
LoadedSession loadSession(const QString& databasePath, std::int64_t sessionId);

// A stored session's strategy options (its JSON object) as name -> value text, as the registry takes them.
std::map<std::string, std::string> strategyOptionsOf(const SessionRecord& record);

// One stored trial as a core trial (StoredTrialConverter): located in the space when one is given and the
// config is in it, otherwise with the values of the stored JSON in the order of `names`.
Trial toTrial(const StoredTrial& stored, const SearchSpace* space, const std::vector<std::string>& names);

} // namespace ts::gui
