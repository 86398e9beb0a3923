#pragma once

#include "space/SearchSpace.h"
#include "trial/Measurement.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace ts {

// Measures batches of a session's configs elsewhere, several batches at once (the measuring ranks of an MPI
// job, each with its own backend built from the session's plan). TuningSession::run(MeasurePool&) deals a
// batch to every free slot and takes the results back in the order they complete, so that a slow batch on
// one slot does not hold up the others.
class MeasurePool {
public:
    struct Completed {
        std::int64_t ticket = 0;               // as given to submit()
        std::vector<Measurement> measurements; // one per config of the batch, in its order
    };

    virtual ~MeasurePool() = default;
    // Slots with no batch: submit() may be called this many times before the next waitAny().
    virtual std::size_t freeSlots() const = 0;
    // Starts measuring the configs (product indices of the session's space) on a free slot.
    virtual void submit(std::int64_t ticket, std::span<const SearchSpace::Index> batch) = 0;
    // Blocks until a submitted batch is done and returns it; nullopt when `stop` returns true first (it is
    // asked often while waiting): the batches in flight are then given up. Throws Error when a slot fails.
    virtual std::optional<Completed> waitAny(const std::function<bool()>& stop) = 0;
    // A batch that is done already, without waiting; nullopt when none is. After waitAny() the session takes
    // every such batch before it proposes again, so that one model fit serves all the results at hand.
    virtual std::optional<Completed> poll() = 0;
};

} // namespace ts
