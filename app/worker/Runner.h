#pragma once

#include "worker/WorkerProtocol.h"

namespace ts::worker {

// Measures configs of one backend inside the worker. A runner lives as long as the worker and may keep state
// between requests (loaded references, allocated inputs). It reports failures of the config as reply
// statuses; an exception means the request itself was unusable and becomes runtime_failed.
class Runner {
public:
    virtual ~Runner() = default;
    virtual MeasureReply measure(const MeasureRequest& request) = 0;
};

} // namespace ts::worker
