#pragma once

#include "session/SessionObserver.h"

namespace ts::cli {

// `tune --log-trials`: one line per finished trial on stderr, "trial N committed: STATUS TIME", printed
// after the trial is in the records database (the records writer is the session's first observer). Scripts
// and tests that interrupt a session read these lines to know what must survive.
class TrialLogPrinter : public SessionObserver {
public:
    void trialFinished(const Trial& trial) override;
};

} // namespace ts::cli
