#pragma once

#include "hardware/GpuSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// One CUDA device as the runtime reports it.
struct CudaDevice {
    int ordinal = 0;
    GpuSpec spec; // limits and clocks from the runtime; peak rates from the database when it knows the GPU
    std::string pciBusId; // "0000:3b:00.0"
    std::string uuid;     // "GPU-xxxxxxxx-..."
    std::int64_t totalMemoryBytes = 0;
    bool eccEnabled = false;
};

// The CUDA devices of this machine. Querying never fails for a missing GPU or driver: the runtime's
// "no device" and "driver version is insufficient" (what it says with no driver installed) both mean zero
// devices, with the runtime's words kept in unavailableReason(). Other runtime failures also leave the list
// empty, with the failing call named in unavailableReason().
class CudaDevices {
public:
    static CudaDevices query();

    const std::vector<CudaDevice>& devices() const { return m_devices; }
    bool empty() const { return m_devices.empty(); }
    // Why there are no devices ("cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime
    // version"); empty when devices were found.
    const std::string& unavailableReason() const { return m_reason; }
    int driverVersion() const { return m_driverVersion; }   // 13000 for 13.0; 0 without a driver
    int runtimeVersion() const { return m_runtimeVersion; } // of the statically linked runtime
    // "13.0"
    static std::string versionText(int version);

private:
    std::vector<CudaDevice> m_devices;
    std::string m_reason;
    int m_driverVersion = 0;
    int m_runtimeVersion = 0;
};

} // namespace ts
