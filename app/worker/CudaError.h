#pragma once

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace ts::worker {

// A failed CUDA runtime call, naming the call. sticky() tells whether the error poisoned the context
// (illegal address, launch failure, ...): the process must then be replaced, which CudaRunner asks for.
class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const char* call)
        : std::runtime_error(
              fmt::format("{}: {} ({})", call, cudaGetErrorString(code), cudaGetErrorName(code))),
          m_code(code) {}

    cudaError_t code() const { return m_code; }
    bool sticky() const {
        switch (m_code) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorMisalignedAddress:
        case cudaErrorIllegalInstruction:
        case cudaErrorInvalidPc:
        case cudaErrorHardwareStackError:
        case cudaErrorAssert:
        case cudaErrorLaunchTimeout:
        case cudaErrorECCUncorrectable:
        case cudaErrorUnknown:
            return true;
        default:
            return false;
        }
    }

private:
    cudaError_t m_code;
};

inline void checkCuda(cudaError_t code, const char* call) {
    if (code != cudaSuccess)
        throw CudaError(code, call);
}

} // namespace ts::worker
