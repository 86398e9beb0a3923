#include "datasets/DatasetRestriction.h"

#include "space/Expression.h"
#include "util/Error.h"

#include <fmt/format.h>

namespace ts {

namespace {

std::vector<Expression> parseConstraints(const SearchSpace& space, const std::vector<std::string>& texts) {
    std::vector<Expression> constraints;
    for (const std::string& text : texts) {
        Expression e = Expression::parse(text, "constraint");
        for (const std::string& name : e.variables())
            if (!space.parameterIndex(name))
                throw Error(fmt::format(
                    "Constraint \"{}\" names \"{}\", which is not a parameter of the space.", text, name));
        constraints.push_back(std::move(e));
    }
    return constraints;
}

std::string quotedList(const std::vector<std::string>& texts) {
    std::string joined;
    for (const std::string& text : texts)
        joined += fmt::format("{}\"{}\"", joined.empty() ? "" : ", ", text);
    return joined;
}

} // namespace

Dataset restrictDataset(const Dataset& dataset, const std::vector<std::string>& texts) {
    if (texts.empty())
        return dataset;
    const SearchSpace& space = dataset.space;
    std::vector<Expression> constraints = parseConstraints(space, texts);
    std::vector<SearchSpace::Index> kept;
    for (SearchSpace::Index index : space.validIndices()) {
        Config config = space.config(index);
        auto lookup = [&](std::string_view name) -> std::optional<Value> {
            auto position = space.parameterIndex(std::string(name));
            return position ? std::optional<Value>(config[*position]) : std::nullopt;
        };
        bool satisfied = true;
        for (const Expression& constraint : constraints)
            if (!(satisfied = constraint.test(lookup)))
                break;
        if (satisfied)
            kept.push_back(index);
    }
    if (kept.empty())
        throw Error(fmt::format("No configuration of {} satisfies the constraints {}.", dataset.path.string(),
                                quotedList(texts)));
    Dataset restricted;
    restricted.path = dataset.path;
    restricted.format = dataset.format;
    restricted.deviceName = dataset.deviceName;
    restricted.kernelName = dataset.kernelName;
    restricted.problemSize = dataset.problemSize;
    restricted.objective = dataset.objective;
    for (SearchSpace::Index index : kept)
        restricted.entries.emplace(index, dataset.entries.at(index));
    restricted.space = SearchSpace::fromValidSet(space.parameters(), std::move(kept));
    return restricted;
}

} // namespace ts
