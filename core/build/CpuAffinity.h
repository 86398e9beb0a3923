#pragma once

#include <optional>
#include <vector>

namespace ts {

// The cores this process may run on (sched_getaffinity), ascending.
std::vector<int> allowedCpus();

// Pins the calling thread (and every process it starts afterwards) to the given cores. Empty: no change.
// Throws Error naming the cores when the kernel refuses.
void pinCurrentThread(const std::vector<int>& cpus);

// How measuring and building share the machine: with two or more cores the worker gets the last one to
// itself and build threads the others; with one core nothing is pinned.
struct CpuPlan {
    std::optional<int> worker;
    std::vector<int> builds;
    static CpuPlan split(const std::vector<int>& cpus = allowedCpus());
};

} // namespace ts
