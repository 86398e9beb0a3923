#include "hardware/MemoryBandwidth.h"

#include "hardware/CpuInfo.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>
#include <thread>
#include <vector>

namespace ts {

namespace {

std::int64_t lastLevelCacheBytes() {
    std::int64_t largest = 0;
    for (const CpuCache& cache : CpuInfo::query().caches)
        if (cache.type != "Instruction")
            largest = std::max(largest, cache.bytes);
    return largest;
}

// One triad over [begin, end) of every array.
void triad(float* a, const float* b, const float* c, std::size_t begin, std::size_t end) {
    const float s = 3.0f;
    for (std::size_t i = begin; i < end; ++i)
        a[i] = b[i] + s * c[i];
}

// Seconds of one triad over the whole arrays, split into `threads` contiguous slices.
double timedTriad(float* a, const float* b, const float* c, std::size_t n, int threads) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::jthread> workers;
    const std::size_t slice = (n + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
    for (int t = 1; t < threads; ++t) {
        const std::size_t begin = std::min(n, slice * static_cast<std::size_t>(t));
        const std::size_t end = std::min(n, begin + slice);
        workers.emplace_back([=] { triad(a, b, c, begin, end); });
    }
    triad(a, b, c, 0, std::min(n, slice));
    workers.clear(); // joins
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

std::string MemoryBandwidth::description() const {
    return fmt::format("measured: STREAM-like triad, {} thread{}, 3 x {} MB, best of {}", threads,
                       threads == 1 ? "" : "s", arrayBytes >> 20, repetitions);
}

MemoryBandwidth MemoryBandwidth::measure(int threads, std::int64_t arrayBytes) {
    MemoryBandwidth result;
    result.threads =
        threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    result.arrayBytes =
        arrayBytes > 0 ? arrayBytes : std::clamp(4 * lastLevelCacheBytes(), kMinArrayBytes, kMaxArrayBytes);
    const std::size_t n = static_cast<std::size_t>(result.arrayBytes) / sizeof(float);
    std::unique_ptr<float[]> a(new (std::nothrow) float[n]);
    std::unique_ptr<float[]> b(new (std::nothrow) float[n]);
    std::unique_ptr<float[]> c(new (std::nothrow) float[n]);
    if (!a || !b || !c) {
        result.problem = fmt::format("Memory bandwidth not measured: 3 x {} MB could not be allocated.",
                                     result.arrayBytes >> 20);
        return result;
    }
    // Touches every page first (the kernel maps them lazily), in the slices the threads will use.
    std::fill_n(a.get(), n, 0.0f);
    std::fill_n(b.get(), n, 1.0f);
    std::fill_n(c.get(), n, 2.0f);
    double best = 0.0;
    double spent = 0.0;
    while (result.repetitions < kMaxRepetitions && (result.repetitions < 2 || spent < kTimeBudgetS)) {
        const double seconds = timedTriad(a.get(), b.get(), c.get(), n, result.threads);
        spent += seconds;
        ++result.repetitions;
        if (seconds > 0 && (best == 0.0 || seconds < best))
            best = seconds;
    }
    // Reads the result back, so that no store of the triads can be dropped as dead.
    volatile float sink = a[n / 2];
    (void)sink;
    if (best <= 0.0) {
        result.problem = "Memory bandwidth not measured: the triad took no measurable time.";
        return result;
    }
    result.gbPerSecond = 3.0 * static_cast<double>(n) * sizeof(float) / best / 1e9;
    return result;
}

const MemoryBandwidth& MemoryBandwidth::measuredOnce() {
    static const MemoryBandwidth measured = measure();
    return measured;
}

} // namespace ts
