#pragma once

#include <filesystem>

namespace ts::worker {

// Finds tunescope-worker for a program: next to the running executable, then ../worker/ relative to its
// directory (the build tree: build/app/cli and build/app/worker), then $TUNESCOPE_WORKER, then PATH.
// Throws Error with one sentence naming the places searched when none has it.
std::filesystem::path locateWorker();

// The running executable's path (/proc/self/exe).
std::filesystem::path currentExecutable();

} // namespace ts::worker
