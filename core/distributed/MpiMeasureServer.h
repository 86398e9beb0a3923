#pragma once

#include "distributed/MpiRuntime.h"

#include <functional>

namespace ts {

// A measuring rank of an MPI job (every rank but 0). It builds every plan rank 0 sends for itself (the
// dataset it replays, or the kernel with its own host compiler, or NVRTC for its own GPU: the node-local GPU
// of its place on the node, see gpuForRank) and says which device it measures on or why it cannot; it then
// measures the batches it is sent, each with the backend of its plan (its worker processes, with their
// isolation: a crash or a hang costs a worker and is a status in the result), and sends their measurements
// back, until rank 0 says stop. Plans and batches are taken one at a time in the order sent, on a thread of
// their own.
class MpiMeasureServer {
public:
    enum class Ending {
        Stopped,    // rank 0 said stop
        Interrupted // `interrupted` said so (mpirun ends the job): end the process now, without unwinding
    };

    explicit MpiMeasureServer(MpiRuntime& runtime) : m_runtime(runtime) {}

    // `interrupted` is asked while waiting and measuring. On Interrupted a measurement may still be running
    // on another thread, and the caller must end the process without returning through its callers
    // (std::_Exit). Every 100 ms, measuring or not, the rank tells rank 0 that it is alive.
    Ending serve(const std::function<bool()>& interrupted);

    // The CUDA_VISIBLE_DEVICES a cuda rank measures with: the `index`-th of the devices already visible when
    // the variable lists several (Slurm's binding kept when it lists one), else the node's GPU `index`.
    static std::string gpuForRank(const char* visible, int index);

private:
    MpiRuntime& m_runtime;
};

} // namespace ts
