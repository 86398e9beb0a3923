#include "ParentGuard.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <system_error>
#include <thread>
#include <unistd.h>

namespace ts::worker {

namespace {

// Blocks until the peer of `channel` has closed (POLLHUP) or the descriptor is unusable.
void waitForHangUp(int channel) {
    pollfd fd{channel, 0, 0}; // no events asked: poll reports only hang-up and errors, reads nothing
    while (true) {
        const int ready = ::poll(&fd, 1, -1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0 || (fd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0)
            return;
    }
}

[[noreturn]] void killOwnGroup() {
    // Started by WorkerProcess the worker leads a group of its own; run by hand it would share its shell's
    // job, which is not ours to kill.
    if (::getpgrp() == ::getpid())
        ::kill(0, SIGKILL);
    ::kill(::getpid(), SIGKILL);
    ::_exit(137); // not reached
}

} // namespace

void ParentGuard::start(int channel) {
    try {
        std::thread([channel] {
            waitForHangUp(channel);
            killOwnGroup();
        }).detach();
    } catch (const std::system_error& e) {
        std::fprintf(stderr, "tunescope-worker: cannot start its parent guard: %s\n", e.what());
        std::exit(3);
    }
}

} // namespace ts::worker
