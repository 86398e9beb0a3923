#pragma once

#include "CudaBlas.h"
#include "CudaDeviceBuffer.h"
#include "CudaStream.h"
#include "HostBuffer.h"
#include "Runner.h"
#include "SharedLibrary.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ts::worker {

// Measures CUDA kernels (cubins from NVRTC) on one GPU of this worker, following docs/worker-protocol.md and
// docs/gpu.md. Request fields specific to it (backend_options):
//   device                 the CUDA ordinal to run on (default 0)
//   grid, block            launch geometry, 3 numbers each
//   dynamic_shared_bytes   per launch (opted into when above the default 48 KB)
//   reference              "cublas_sgemm" or "cublas_gemm_f16" (the spec's reference.gpu): verify against
//                          cuBLAS on the device; otherwise the request's CPU reference object, run on the
//                          host inputs
//   builtin                "cublas_sgemm" or "cublas_gemm_f16": time cuBLAS itself instead of a cubin (the
//                          vendor baseline of gpu-check)
// Steps: inputs filled on the host from the seed (same values as the cpu runner) and copied once per
// problem; the reference computed once per problem; per config: load the cubin (cudaLibraryLoadData), zero
// the outputs, one launch, compare; warm-up by time; `number` calibrated to min_repeat_ms; `repeat` samples
// timed with CUDA events, the L2 flushed before each (a memset of twice the L2 size, outside the timed
// region). A sticky error (illegal address, launch failure) is reported as runtime_failed with the metric
// restart_worker = 1, and the runner refuses further requests: the parent replaces the process.
class CudaRunner : public Runner {
public:
    CudaRunner();
    MeasureReply measure(const MeasureRequest& request) override;

private:
    struct Problem {
        std::string key;
        std::vector<HostBuffer> host;
        std::vector<CudaDeviceBuffer> device;
        std::vector<std::vector<double>> expected; // per buffer; empty for inputs or without a reference
        bool verified = false;
    };

    Problem& prepare(const MeasureRequest& request, int device);
    void computeReference(Problem& problem, const MeasureRequest& request);
    std::optional<std::string> compare(Problem& problem, const Tolerance& tolerance,
                                       std::map<std::string, double>& metrics);
    MeasureReply run(const MeasureRequest& request);
    CudaBlas& blas();
    // Enqueues the vendor GEMM `routine` (cublas_sgemm, cublas_gemm_f16) on the problem's buffers A, B, C;
    // throws Error for another name or buffers of another shape.
    void enqueueVendorGemm(const std::string& routine, const MeasureRequest& request, Problem& problem);

    int m_device = -1;
    std::unique_ptr<CudaStream> m_stream;
    std::unique_ptr<Problem> m_problem;
    std::unique_ptr<CudaBlas> m_blas;
    std::vector<std::unique_ptr<SharedLibrary>> m_references;
    CudaDeviceBuffer m_flush;
    bool m_poisoned = false;
    std::string m_poison;
};

} // namespace ts::worker
