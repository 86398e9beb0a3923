#pragma once

#include "HostBuffer.h"
#include "Runner.h"
#include "SharedLibrary.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ts::worker {

// Measures CPU kernels built as shared objects with the ABI of docs/kernel-spec.md. Steps and rules:
// docs/worker-protocol.md ("What the cpu runner does").
class CpuRunner : public Runner {
public:
    MeasureReply measure(const MeasureRequest& request) override;

private:
    using KernelFunction = void (*)(void* const*, const std::int64_t*);

    // Inputs and expected outputs of one (reference, sizes, buffers, seed), computed once and reused.
    struct Problem {
        std::string key;
        std::vector<HostBuffer> buffers;
        std::vector<void*> pointers;
        std::vector<std::vector<double>> expected; // per buffer; empty for inputs or without a reference
        bool verified = false;
    };

    Problem& prepare(const MeasureRequest& request);
    // Empty when every output matches; else one line naming the first bad element.
    std::optional<std::string> compare(const Problem& problem, const Tolerance& tolerance,
                                       std::map<std::string, double>& metrics) const;
    void flushCaches();

    std::unique_ptr<Problem> m_problem;
    std::vector<std::unique_ptr<SharedLibrary>> m_references; // kept loaded: the worker reuses them
    std::vector<unsigned char> m_flush;
};

} // namespace ts::worker
