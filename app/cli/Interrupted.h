#pragma once

#include <stdexcept>
#include <string>

namespace ts::cli {

// Thrown by a command that a signal stopped once it has saved its work: main prints the sentence and exits
// with 128 + the signal, the status a shell gives a process that signal ended.
class Interrupted : public std::runtime_error {
public:
    Interrupted(int signal, const std::string& message) : std::runtime_error(message), m_signal(signal) {}
    int signal() const { return m_signal; }

private:
    int m_signal;
};

} // namespace ts::cli
