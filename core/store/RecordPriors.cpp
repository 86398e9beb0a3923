#include "store/RecordPriors.h"

#include "store/SessionResume.h"
#include "util/BoundedJson.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>

namespace ts {

namespace {

bool sameParameters(const SessionRecord& session, const SearchSpace& space) {
    const nlohmann::json names =
        parseBoundedJson(session.parameters, fmt::format("the parameters of session {}", session.id));
    if (!names.is_array() || names.size() != space.dimension())
        return false;
    std::set<std::string> stored;
    for (const auto& name : names)
        if (name.is_string())
            stored.insert(name.get<std::string>());
    for (const Parameter& parameter : space.parameters())
        if (!stored.contains(parameter.name))
            return false;
    return true;
}

} // namespace

std::vector<PriorSource> recordPriorSources(const RecordStore& store, const std::string& kernel,
                                            const SearchSpace& space, std::int64_t excluded,
                                            const std::function<bool(const SessionRecord&)>& accept) {
    std::vector<PriorSource> sources;
    for (const SessionRecord& session : store.sessions()) {
        if (session.id == excluded || session.kernel != kernel || !sameParameters(session, space) ||
            (accept && !accept(session)))
            continue;
        PriorSource source;
        source.session = session.id;
        source.label = fmt::format("session {} ({}, {})", session.id, session.device, session.problem);
        source.space = &space;
        std::size_t ok = 0;
        for (const StoredTrial& stored : store.trials(session.id))
            if (std::optional<Trial> trial = SessionResume::toTrial(stored, space)) {
                ok += trial->measurement.status == MeasureStatus::Ok;
                source.entries.emplace_back(trial->index, trial->measurement);
            }
        if (ok >= 2)
            sources.push_back(std::move(source));
    }
    return sources;
}

std::shared_ptr<const TransferPrior> recordTransferPrior(const RecordStore& store, const std::string& kernel,
                                                         const SearchSpace& space, std::int64_t excluded) {
    std::vector<PriorSource> sources = recordPriorSources(store, kernel, space, excluded);
    return sources.empty() ? nullptr : std::make_shared<const TransferPrior>(space, sources);
}

} // namespace ts
