#pragma once

#include "backends/CpuBackend.h"
#ifdef TUNESCOPE_WITH_CUDA
#include "cuda/CudaBackend.h"
#endif

#include <string>

// Short timings for suites that check statuses and plumbing, not speed: a few samples of about a millisecond,
// the worker of this build.
namespace ts::test {

inline CpuBackendSettings quickCpuSettings(const std::string& cacheDirectory, double timeoutS = 2.0) {
    CpuBackendSettings settings;
    settings.worker = TUNESCOPE_WORKER;
    settings.cacheDirectory = cacheDirectory;
    settings.timeoutS = timeoutS;
    settings.timing.warmupMs = 1.0;
    settings.timing.repeat = 3;
    settings.timing.minRepeatMs = 1.0;
    settings.timing.flush = false;
    settings.buildThreads = 2;
    return settings;
}

#ifdef TUNESCOPE_WITH_CUDA
inline CudaBackendSettings quickCudaSettings() {
    CudaBackendSettings settings;
    settings.worker = TUNESCOPE_WORKER;
    settings.timing.repeat = 3;
    settings.timing.warmupMs = 5;
    settings.timing.minRepeatMs = 2;
    settings.timeoutS = 60;
    return settings;
}
#endif

} // namespace ts::test
