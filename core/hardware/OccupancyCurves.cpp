#include "hardware/OccupancyCurves.h"

#include <algorithm>

namespace ts {

namespace {

OccupancyPoint pointOf(double x, const Occupancy& o) {
    return OccupancyPoint{x, o.occupancy, o.activeBlocksPerSm, o.activeWarpsPerSm};
}

// Sorted, unique sample positions including the config's own.
std::vector<std::int64_t> positions(std::int64_t first, std::int64_t last, std::int64_t step,
                                    std::int64_t own) {
    std::vector<std::int64_t> xs;
    for (std::int64_t x = first; x <= last; x += step)
        xs.push_back(x);
    xs.push_back(own);
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    return xs;
}

} // namespace

OccupancyCurves OccupancyCurves::compute(const OccupancyCalculator& calculator, const KernelResources& kernel,
                                         int threadsPerBlock, std::int64_t dynamicSharedBytes) {
    const GpuSpec& gpu = calculator.gpu();
    OccupancyCurves curves;
    curves.current = calculator.compute(kernel, threadsPerBlock, dynamicSharedBytes);

    curves.threads.xLabel = "threads per block";
    curves.threads.xUnit = "threads";
    for (std::int64_t t : positions(gpu.warpSize, gpu.maxThreadsPerBlock, gpu.warpSize, threadsPerBlock))
        curves.threads.points.push_back(
            pointOf(double(t), calculator.compute(kernel, static_cast<int>(t), dynamicSharedBytes)));
    curves.threads.marked = pointOf(threadsPerBlock, curves.current);

    curves.registers.xLabel = "registers per thread";
    curves.registers.xUnit = "registers";
    for (std::int64_t r : positions(1, gpu.maxRegistersPerThread, 1, kernel.registersPerThread)) {
        KernelResources varied = kernel;
        varied.registersPerThread = static_cast<int>(r);
        curves.registers.points.push_back(
            pointOf(double(r), calculator.compute(varied, threadsPerBlock, dynamicSharedBytes)));
    }
    curves.registers.marked = pointOf(kernel.registersPerThread, curves.current);

    curves.sharedMemory.xLabel = "shared memory per block";
    curves.sharedMemory.xUnit = "bytes";
    const std::int64_t own = kernel.staticSharedBytes + dynamicSharedBytes;
    // One step past the opt-in limit, so the curve shows where blocks stop fitting.
    const std::int64_t last = std::max(gpu.sharedPerBlockOptin + 256, kernel.staticSharedBytes);
    for (std::int64_t total : positions(kernel.staticSharedBytes, last, 256, own))
        curves.sharedMemory.points.push_back(pointOf(
            double(total), calculator.compute(kernel, threadsPerBlock, total - kernel.staticSharedBytes)));
    curves.sharedMemory.marked = pointOf(double(own), curves.current);
    return curves;
}

} // namespace ts
