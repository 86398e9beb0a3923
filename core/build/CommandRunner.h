#pragma once

#include <string>
#include <vector>

namespace ts {

// The result of running a program to completion.
struct CommandResult {
    int exitCode = -1;  // when it exited normally
    int signal = 0;     // when a signal ended it
    std::string output; // stdout and stderr together, in order
    double elapsedMs = 0.0;
    bool succeeded() const { return signal == 0 && exitCode == 0; }
};

// Runs argv (argv[0] looked up on PATH when it has no slash) with stdout and stderr captured, and waits for
// it. The child inherits the calling thread's CPU affinity (how build threads keep compilers on their cores)
// and runs in a process group of its own, so a terminal's Ctrl-C reaches only the program that started it.
// Throws Error when the program cannot be started.
CommandResult runCommand(const std::vector<std::string>& argv);

} // namespace ts
