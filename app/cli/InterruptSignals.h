#pragma once

namespace ts::cli {

// Turns SIGINT (Ctrl-C) and SIGTERM into a request to stop between batches, for as long as it lives: the
// measurements in flight finish (each within its timeout), every finished trial is committed, and the session
// ends as cancelled, which `tune --resume` continues. A second signal stops the process at once, as the
// default action would (what was committed stays; the session can still be resumed).
//
// One at a time, on the main thread; the handlers only set an atomic and write a line on stderr, so they are
// safe whichever thread the signal lands on.
class InterruptSignals {
public:
    InterruptSignals();
    ~InterruptSignals(); // restores the dispositions found at construction
    InterruptSignals(const InterruptSignals&) = delete;
    InterruptSignals& operator=(const InterruptSignals&) = delete;

    // The first signal received while one was installed, 0 when none.
    static int received();
    // "SIGINT", "SIGTERM".
    static const char* name(int signal);
};

} // namespace ts::cli
