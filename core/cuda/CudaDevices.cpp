#include "cuda/CudaDevices.h"

#include "hardware/GpuDatabase.h"
#include "util/Error.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

namespace ts {

namespace {

void checkCuda(cudaError_t status, const char* call) {
    if (status != cudaSuccess)
        throw Error(fmt::format("{}: {}", call, cudaGetErrorString(status)));
}

int attribute(cudaDeviceAttr which, int device, const char* name) {
    int value = 0;
    checkCuda(cudaDeviceGetAttribute(&value, which, device), name);
    return value;
}

// FP32 lanes per SM: 64 on sm_70/75/80, 128 from sm_86 on (sm_90 included).
int fp32LanesPerSm(int major, int minor) {
    return (major == 7 || (major == 8 && minor == 0)) ? 64 : 128;
}

CudaDevice describe(int ordinal) {
    cudaDeviceProp p{};
    checkCuda(cudaGetDeviceProperties(&p, ordinal), "cudaGetDeviceProperties");
    CudaDevice d;
    d.ordinal = ordinal;
    d.totalMemoryBytes = static_cast<std::int64_t>(p.totalGlobalMem);
    d.eccEnabled = p.ECCEnabled != 0;
    char bus[32] = {};
    checkCuda(cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal), "cudaDeviceGetPCIBusId");
    d.pciBusId = bus;
    std::string uuid = "GPU-";
    for (int i = 0; i < 16; ++i) {
        uuid += fmt::format("{:02x}", static_cast<unsigned char>(p.uuid.bytes[i]));
        if (i == 3 || i == 5 || i == 7 || i == 9)
            uuid += '-';
    }
    d.uuid = uuid;

    GpuSpec& s = d.spec;
    s.name = p.name;
    s.computeMajor = p.major;
    s.computeMinor = p.minor;
    s.smCount = p.multiProcessorCount;
    s.boostClockMHz = attribute(cudaDevAttrClockRate, ordinal, "cudaDeviceGetAttribute(ClockRate)") / 1000.0;
    const double memoryClockKHz =
        attribute(cudaDevAttrMemoryClockRate, ordinal, "cudaDeviceGetAttribute(MemoryClockRate)");
    const int busWidth =
        attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal, "cudaDeviceGetAttribute(GlobalMemoryBusWidth)");
    // Double data rate: two transfers per memory clock.
    s.memoryBandwidthGBs = 2.0 * memoryClockKHz * 1e3 * (busWidth / 8.0) / 1e9;
    s.memoryGB = static_cast<double>(p.totalGlobalMem) / 1e9;
    s.l2Bytes = p.l2CacheSize;
    s.warpSize = p.warpSize;
    s.maxThreadsPerBlock = p.maxThreadsPerBlock;
    s.maxThreadsPerSm = p.maxThreadsPerMultiProcessor;
    s.maxBlocksPerSm = p.maxBlocksPerMultiProcessor;
    s.registersPerSm = p.regsPerMultiprocessor;
    s.registersPerBlock = p.regsPerBlock;
    s.sharedPerSm = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor);
    s.sharedPerBlock = static_cast<std::int64_t>(p.sharedMemPerBlock);
    s.sharedPerBlockOptin = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
    s.reservedSharedPerBlock = static_cast<std::int64_t>(p.reservedSharedMemPerBlock);
    s.fp32TFlops = s.smCount * fp32LanesPerSm(p.major, p.minor) * 2.0 * s.boostClockMHz * 1e6 / 1e12;
    s.source = "CUDA runtime";
    // The runtime reports no peak tensor rate or base clock: take them from the database when it knows the
    // GPU.
    const GpuDatabase* database = nullptr;
    try {
        database = &GpuDatabase::builtin();
    } catch (const Error&) {
    }
    if (const GpuSpec* known = database ? database->find(s.name) : nullptr) {
        s.id = known->id;
        s.aliases = known->aliases;
        s.baseClockMHz = known->baseClockMHz;
        s.fp16TensorTFlops = known->fp16TensorTFlops;
        s.bf16TensorTFlops = known->bf16TensorTFlops;
        s.memoryType = known->memoryType;
        s.source = "CUDA runtime; peak tensor rates and base clock from the database entry " + known->id;
    } else {
        s.id = s.name;
    }
    return d;
}

} // namespace

std::string CudaDevices::versionText(int version) {
    return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

CudaDevices CudaDevices::query() {
    CudaDevices out;
    cudaRuntimeGetVersion(&out.m_runtimeVersion);
    cudaDriverGetVersion(&out.m_driverVersion); // 0 when no driver is installed
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        out.m_reason = fmt::format("cudaGetDeviceCount: {}", cudaGetErrorString(status));
        cudaGetLastError(); // clear the non-sticky error so later calls start clean
        return out;
    }
    if (count == 0) {
        out.m_reason = "cudaGetDeviceCount: no CUDA-capable device is detected";
        return out;
    }
    try {
        for (int i = 0; i < count; ++i)
            out.m_devices.push_back(describe(i));
    } catch (const Error& e) {
        out.m_devices.clear();
        out.m_reason = e.what();
    }
    return out;
}

} // namespace ts
