#include "build/CpuAffinity.h"

#include "util/Error.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pthread.h>
#include <sched.h>

namespace ts {

std::vector<int> allowedCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (::sched_getaffinity(0, sizeof set, &set) != 0)
        return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
            cpus.push_back(cpu);
    return cpus;
}

void pinCurrentThread(const std::vector<int>& cpus) {
    if (cpus.empty())
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus)
        CPU_SET(cpu, &set);
    if (int rc = ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set); rc != 0)
        throw Error(
            fmt::format("Cannot pin a thread to cores {}: {}.", fmt::join(cpus, ","), std::strerror(rc)));
}

CpuPlan CpuPlan::split(const std::vector<int>& cpus) {
    CpuPlan plan;
    if (cpus.size() < 2)
        return plan;
    plan.worker = cpus.back();
    plan.builds.assign(cpus.begin(), cpus.end() - 1);
    return plan;
}

} // namespace ts
