#include "InterruptSignals.h"

#include "util/Error.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fmt/format.h>
#include <iterator>
#include <unistd.h>

namespace ts::cli {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM};

std::atomic<int> g_received{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free atomic");

struct sigaction g_previous[std::size(kSignals)];

void writeStderr(const char* text) {
    ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
}

extern "C" void onSignal(int signal) {
    int none = 0;
    if (!g_received.compare_exchange_strong(none, signal)) {
        // The second signal: the default action, delivered once this handler returns.
        ::signal(signal, SIG_DFL);
        ::raise(signal);
        return;
    }
    writeStderr("\ntunescope-cli: ");
    writeStderr(InterruptSignals::name(signal));
    writeStderr(": stopping once the measurements in flight end (each within its timeout); send it again to "
                "stop at once.\n");
}

} // namespace

InterruptSignals::InterruptSignals() {
    g_received = 0;
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (std::size_t i = 0; i < std::size(kSignals); ++i)
        if (::sigaction(kSignals[i], &action, &g_previous[i]) != 0)
            throw Error(fmt::format("Cannot handle {}: sigaction failed: {}.", name(kSignals[i]),
                                    std::strerror(errno)));
}

InterruptSignals::~InterruptSignals() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i)
        ::sigaction(kSignals[i], &g_previous[i], nullptr);
}

int InterruptSignals::received() {
    return g_received;
}

const char* InterruptSignals::name(int signal) {
    switch (signal) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    default:
        return "a signal";
    }
}

} // namespace ts::cli
