#pragma once

#include "kernels/KernelSpace.h"
#include "space/Parameter.h"
#include "space/SearchSpace.h"

#include <optional>
#include <string>
#include <vector>

namespace ts {

// A config of one space (a trial of a cpu session, of a replay dataset) as a config of another kernel
// space (the kernel's cuda variant), matched by parameter name: every target parameter takes the value of
// the source parameter of the same name. Used to analyse a trial measured elsewhere for a GPU.
struct ConfigMapping {
    std::optional<SearchSpace::Index> index; // in the target's space; unset when the config cannot map
    std::string problem;                     // one sentence saying why it cannot map, when index is unset
    std::vector<std::string> ignored;        // source parameters the target does not have
    std::vector<std::string> defaulted;      // target parameters the source lacks, at their default

    // The source config has one value per source parameter. Fails (problem set) when a target parameter
    // has no source parameter of its name, a value is not among the target parameter's values (numbers
    // compare by value: 4 and 4.0 are equal), or the mapped config breaks the target's constraints.
    // With MissingParameters::TakeDefaults a target parameter the source lacks takes the target's default
    // value instead (a dataset kernel's spec, whose parameters cover several datasets' parameter sets, as
    // `tunescope-cli analyze --dataset` maps them); they are listed in `defaulted`.
    enum class MissingParameters { Fail, TakeDefaults };
    static ConfigMapping of(const std::vector<Parameter>& sourceParameters, const Config& source,
                            const KernelSpace& target, MissingParameters missing = MissingParameters::Fail);

    // The same parameter value however a file wrote it: numbers (and booleans) by value, so 16 == 16.0,
    // anything else by its printed form, so the string "16" matches 16.
    static bool sameValue(const Value& a, const Value& b);
};

} // namespace ts
