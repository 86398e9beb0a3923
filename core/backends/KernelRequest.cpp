#include "backends/KernelRequest.h"

namespace ts {

worker::MeasureRequest KernelRequest::make(std::int64_t id, std::string backend, std::string library,
                                           std::string entry) const {
    worker::MeasureRequest r;
    r.id = id;
    r.backend = std::move(backend);
    r.library = std::move(library);
    r.entry = std::move(entry);
    if (reference.ok)
        r.referenceLibrary = reference.library.string();
    r.sizes = space.size();
    r.buffers = buffers;
    r.tolerance = spec.tolerance;
    r.seed = seed;
    r.timing = timing;
    return r;
}

} // namespace ts
