#pragma once

#include "space/SearchSpace.h"
#include "space/Value.h"

#include <filesystem>
#include <optional>
#include <string>

namespace ts {

// A search space read from a T1 benchmark file (AutoTuningAssociation benchmark_hub format).
struct SpaceDefinition {
    std::string name;       // General.BenchmarkName, else the file name without extension
    std::string kernelName; // KernelSpecification.KernelName, empty when absent
    std::string kernelFile; // KernelSpecification.KernelFile, empty when absent
    SearchSpace space;
    // Each parameter's "Default" converted to its type (a one-element list counts as its element; the
    // parameter's first value when absent). T1 defaults need not appear in the value lists.
    Config defaults;
    // Index of the default config; nullopt when a default is not in its list or the config is not valid.
    std::optional<SearchSpace::Index> defaultIndex;
};

// Reads ConfigurationSpace.TuningParameters (Name, Type, Values as an expression string or a JSON array,
// Default) and ConfigurationSpace.Conditions[].Expression. Throws Error naming the file and the key.
SpaceDefinition readT1Space(const std::filesystem::path& path);

} // namespace ts
