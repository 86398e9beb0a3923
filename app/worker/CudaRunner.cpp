#include "CudaRunner.h"
#include "OutputCheck.h"

#include "CudaError.h"
#include "CudaEvent.h"
#include "CudaKernelLibrary.h"
#include "util/Error.h"

#include <chrono>
#include <cmath>
#include <fstream>

namespace ts::worker {

namespace {

using Clock = std::chrono::steady_clock;
using KernelFunction = void (*)(void* const*, const std::int64_t*);

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Same streams as the cpu runner, so both backends see the same inputs for the same seed.
std::uint64_t bufferSeed(std::uint64_t seed, std::size_t index) {
    return seed * 0x9e3779b97f4a7c15ull + index + 1;
}

std::string problemKey(const MeasureRequest& r, int device) {
    nlohmann::json key{{"reference", r.referenceLibrary},
                       {"entry", r.referenceEntry},
                       {"sizes", r.sizes},
                       {"seed", r.seed},
                       {"device", device},
                       {"gpu_reference", r.backendOptions.value("reference", std::string())}};
    for (const BufferSpec& b : r.buffers)
        key["buffers"].push_back({b.name, toString(b.type), b.count, b.fill == ArgumentFill::Zero, b.output});
    return key.dump();
}

dim3 dimsOf(const nlohmann::json& options, const char* key) {
    if (!options.contains(key) || !options.at(key).is_array() || options.at(key).empty() ||
        options.at(key).size() > 3)
        throw Error(fmt::format("The cuda request lacks backend_options.{} (1 to 3 numbers).", key));
    std::array<unsigned, 3> d{1, 1, 1};
    for (std::size_t i = 0; i < options.at(key).size(); ++i) {
        const std::int64_t v = options.at(key)[i].get<std::int64_t>();
        if (v < 1 || v > 2147483647)
            throw Error(fmt::format("backend_options.{}[{}] = {} is out of range.", key, i, v));
        d[i] = static_cast<unsigned>(v);
    }
    return dim3(d[0], d[1], d[2]);
}

std::vector<char> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(fmt::format("The cubin {} cannot be read.", path));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A, B of `in`, the output C of float32, sizes M, N, K.
bool isGemmShaped(const MeasureRequest& r, ElementType in) {
    return r.sizes.size() == 3 && r.buffers.size() == 3 && r.buffers[2].output && r.buffers[0].type == in &&
           r.buffers[1].type == in && r.buffers[2].type == ElementType::Float32;
}

} // namespace

CudaRunner::CudaRunner() = default;

CudaBlas& CudaRunner::blas() {
    if (!m_blas)
        m_blas = std::make_unique<CudaBlas>();
    return *m_blas;
}

void CudaRunner::enqueueVendorGemm(const std::string& routine, const MeasureRequest& request,
                                   Problem& problem) {
    const bool half = routine == "cublas_gemm_f16";
    if (!half && routine != "cublas_sgemm")
        throw Error(
            fmt::format("Unknown cuBLAS routine \"{}\" (known: cublas_sgemm, cublas_gemm_f16).", routine));
    if (!isGemmShaped(request, half ? ElementType::Float16 : ElementType::Float32))
        throw Error(fmt::format("{} needs the buffers A, B ({}) and C (float32) and the sizes M, N, K.",
                                routine, half ? "float16" : "float32"));
    const int m = static_cast<int>(request.sizes[0]), n = static_cast<int>(request.sizes[1]),
              k = static_cast<int>(request.sizes[2]);
    float* c = static_cast<float*>(problem.device[2].data());
    if (half)
        blas().gemmHalf(m_stream->get(), m, n, k, problem.device[0].data(), problem.device[1].data(), c);
    else
        blas().sgemm(m_stream->get(), m, n, k, static_cast<const float*>(problem.device[0].data()),
                     static_cast<const float*>(problem.device[1].data()), c);
}

CudaRunner::Problem& CudaRunner::prepare(const MeasureRequest& request, int device) {
    const std::string key = problemKey(request, device);
    if (m_problem && m_problem->key == key)
        return *m_problem;
    m_problem.reset();
    auto problem = std::make_unique<Problem>();
    problem->key = key;
    for (std::size_t i = 0; i < request.buffers.size(); ++i) {
        problem->host.emplace_back(request.buffers[i]);
        problem->host.back().fill(bufferSeed(request.seed, i));
        problem->device.emplace_back(problem->host.back().bytes());
        checkCuda(cudaMemcpy(problem->device.back().data(), problem->host.back().data(),
                             problem->host.back().bytes(), cudaMemcpyHostToDevice),
                  "cudaMemcpy(host to device)");
    }
    problem->expected.resize(problem->host.size());
    computeReference(*problem, request);
    m_problem = std::move(problem);
    return *m_problem;
}

void CudaRunner::computeReference(Problem& problem, const MeasureRequest& request) {
    const std::string gpuReference = request.backendOptions.value("reference", std::string());
    if (!gpuReference.empty()) {
        enqueueVendorGemm(gpuReference, request, problem);
        m_stream->synchronize();
        checkCuda(cudaMemcpy(problem.host[2].data(), problem.device[2].data(), problem.host[2].bytes(),
                             cudaMemcpyDeviceToHost),
                  "cudaMemcpy(device to host)");
    } else if (!request.referenceLibrary.empty()) {
        auto reference = std::make_unique<SharedLibrary>(request.referenceLibrary);
        auto function = reinterpret_cast<KernelFunction>(reference->symbol(request.referenceEntry));
        std::vector<void*> pointers;
        for (HostBuffer& b : problem.host) {
            if (b.spec().output)
                b.zero();
            pointers.push_back(b.data());
        }
        function(pointers.data(), request.sizes.data());
        m_references.push_back(std::move(reference));
    } else {
        return;
    }
    for (std::size_t i = 0; i < problem.host.size(); ++i) {
        const HostBuffer& b = problem.host[i];
        if (!b.spec().output)
            continue;
        problem.expected[i].resize(static_cast<std::size_t>(b.spec().count));
        for (std::int64_t e = 0; e < b.spec().count; ++e)
            problem.expected[i][static_cast<std::size_t>(e)] = b.element(e);
    }
    problem.verified = true;
}

std::optional<std::string> CudaRunner::compare(Problem& problem, const Tolerance& tolerance,
                                               std::map<std::string, double>& metrics) {
    OutputCheck check(tolerance);
    for (std::size_t i = 0; i < problem.host.size(); ++i) {
        HostBuffer& b = problem.host[i];
        if (!b.spec().output)
            continue;
        checkCuda(cudaMemcpy(b.data(), problem.device[i].data(), b.bytes(), cudaMemcpyDeviceToHost),
                  "cudaMemcpy(device to host)");
        check.compare(b, problem.expected[i]);
    }
    return check.verdict(metrics);
}

MeasureReply CudaRunner::measure(const MeasureRequest& request) {
    if (m_poisoned)
        throw Error("This worker's CUDA context is unusable after an earlier sticky error (" + m_poison +
                    "); the worker must be restarted.");
    try {
        return run(request);
    } catch (const CudaError& e) {
        if (!e.sticky())
            throw;
        m_poisoned = true;
        m_poison = e.what();
        MeasureReply reply;
        reply.id = request.id;
        reply.status = ReplyStatus::RuntimeFailed;
        reply.log = fmt::format("sticky CUDA error, the worker must be restarted: {}", e.what());
        reply.metrics["restart_worker"] = 1.0;
        return reply;
    }
}

MeasureReply CudaRunner::run(const MeasureRequest& request) {
    MeasureReply reply;
    reply.id = request.id;
    const nlohmann::json& options = request.backendOptions;
    const int device = options.value("device", 0);
    if (m_device != device) {
        m_problem.reset();
        m_stream.reset();
        m_flush = CudaDeviceBuffer();
        checkCuda(cudaSetDevice(device), "cudaSetDevice");
        m_device = device;
        m_stream = std::make_unique<CudaStream>();
    }
    if (request.buffers.empty())
        throw Error("The measure request names no buffers.");
    Problem& problem = prepare(request, device);
    if (request.library.empty()) { // prepare-only: inputs and reference are ready
        reply.status = ReplyStatus::Ok;
        return reply;
    }

    // What one call is: a cubin's kernel, or cuBLAS itself (the baseline of gpu-check).
    std::function<void()> call;
    std::unique_ptr<CudaKernelLibrary> library;
    std::vector<void*> pointers;
    std::vector<int> sizes;
    std::vector<void*> arguments;
    const std::string builtin = options.value("builtin", std::string());
    if (!builtin.empty()) {
        enqueueVendorGemm(builtin, request, problem); // checks the name and shape once, before timing
        call = [&] { enqueueVendorGemm(builtin, request, problem); };
    } else {
        library = std::make_unique<CudaKernelLibrary>(readFile(request.library));
        cudaKernel_t kernel = library->kernel(request.entry);
        const dim3 grid = dimsOf(options, "grid");
        const dim3 block = dimsOf(options, "block");
        const std::int64_t shared = options.value("dynamic_shared_bytes", std::int64_t{0});
        if (shared > 48 * 1024)
            checkCuda(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared)),
                      "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
        cudaFuncAttributes attributes{};
        checkCuda(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel)),
                  "cudaFuncGetAttributes");
        reply.metrics["registers"] = attributes.numRegs;
        reply.metrics["shared_bytes"] = static_cast<double>(attributes.sharedSizeBytes + shared);
        int blocksPerSm = 0;
        checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &blocksPerSm, reinterpret_cast<const void*>(kernel),
                      static_cast<int>(block.x * block.y * block.z), static_cast<size_t>(shared)),
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        reply.metrics["blocks_per_sm"] = blocksPerSm;
        // The CUDA ABI: buffers as device pointers in argument order, then the sizes as int.
        for (CudaDeviceBuffer& b : problem.device)
            pointers.push_back(b.data());
        for (std::int64_t s : request.sizes)
            sizes.push_back(static_cast<int>(s));
        for (void*& p : pointers)
            arguments.push_back(&p);
        for (int& s : sizes)
            arguments.push_back(&s);
        call = [&, kernel, grid, block, shared] {
            checkCuda(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, arguments.data(),
                                       static_cast<size_t>(shared), m_stream->get()),
                      "cudaLaunchKernel");
        };
    }

    const auto warmupStart = Clock::now();
    for (std::size_t i = 0; i < problem.device.size(); ++i)
        if (problem.host[i].spec().output)
            checkCuda(
                cudaMemsetAsync(problem.device[i].data(), 0, problem.device[i].bytes(), m_stream->get()),
                "cudaMemsetAsync");
    call();
    m_stream->synchronize();
    reply.warmupCalls = 1;
    if (problem.verified) {
        if (auto wrong = compare(problem, request.tolerance, reply.metrics)) {
            reply.status = ReplyStatus::WrongResult;
            reply.log = *wrong;
            return reply;
        }
    }
    while (msSince(warmupStart) < request.timing.warmupMs) {
        call();
        m_stream->synchronize();
        ++reply.warmupCalls;
    }

    int l2 = 0;
    checkCuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device),
              "cudaDeviceGetAttribute(L2CacheSize)");
    if (request.timing.flush && m_flush.bytes() < 2 * static_cast<std::size_t>(l2))
        m_flush = CudaDeviceBuffer(2 * static_cast<std::size_t>(std::max(l2, 1 << 20)));
    CudaEvent start, stop;
    auto sample = [&](std::int64_t number) {
        if (request.timing.flush) // outside the timed region: the events are recorded after it
            checkCuda(cudaMemsetAsync(m_flush.data(), static_cast<int>(number & 0xff), m_flush.bytes(),
                                      m_stream->get()),
                      "cudaMemsetAsync(L2 flush)");
        start.record(m_stream->get());
        for (std::int64_t i = 0; i < number; ++i)
            call();
        stop.record(m_stream->get());
        return static_cast<double>(stop.elapsedSince(start));
    };
    std::int64_t number = 1;
    while (number < request.timing.maxNumber) {
        const double elapsed = sample(number);
        if (elapsed >= request.timing.minRepeatMs)
            break;
        const double grow = request.timing.minRepeatMs / std::max(elapsed, 1e-4) * 1.1;
        number = std::min(request.timing.maxNumber,
                          std::max(number + 1, static_cast<std::int64_t>(std::ceil(number * grow))));
    }
    reply.number = number;
    for (int r = 0; r < request.timing.repeat; ++r)
        reply.samplesMs.push_back(sample(number) / static_cast<double>(number));
    checkCuda(cudaGetLastError(), "kernel launch");
    reply.status = ReplyStatus::Ok;
    return reply;
}

} // namespace ts::worker
