#pragma once

namespace ts::worker {

// Ties the worker's life to its parent's: a thread of its own waits for the parent's end of the protocol
// channel to close, which the kernel does however the parent ends (SIGKILL included), and then kills the
// worker's whole process group, so a kernel looping forever and anything a kernel started die with it.
//
// Why not PR_SET_PDEATHSIG: that signal follows the parent *thread* that forked the worker, and core starts
// workers on short-lived measuring threads (one per GPU and batch), which would kill a healthy worker between
// batches. The channel's end, in contrast, belongs to the parent process.
//
// The thread is detached and never joined: it lives as long as the process.
class ParentGuard {
public:
    // `channel` is the worker's end of the socket pair (any descriptor of it); it must stay open.
    static void start(int channel);
};

} // namespace ts::worker
