#pragma once

#include "space/SpaceMode.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ts {

struct SessionPlan;

// How a workload task's session searches, as one level gives it: the file's `defaults`, a task, the command
// line (WorkloadDefaults::search). The levels are applied in that order and the later one wins; an unset
// field leaves the earlier levels' choice, else SessionPlan's built-in default.
struct SearchSettings {
    std::optional<std::string> strategy;
    std::map<std::string, std::string> options;
    std::optional<SpaceMode> mode;
    std::optional<std::size_t> batchSize;
    std::vector<std::string> constraints; // added to the earlier levels' (constraints only narrow)
    std::optional<bool> cold;             // true: no warm start from what Tunescope knows of the kernel
    std::optional<bool> transfer;         // true: start from earlier sessions of the kernel
    std::optional<bool> stochastic;       // replay: one recorded sample instead of the mean

    // The settings of a plan, every field set.
    static SearchSettings of(const SessionPlan& plan);
    // A strategy given here replaces the options of the earlier levels (they were for another strategy);
    // without one, these options are merged in name by name. Constraints add up.
    void applyTo(SessionPlan& plan) const;
};

} // namespace ts
