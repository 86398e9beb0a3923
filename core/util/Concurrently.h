#pragma once

#include <functional>
#include <vector>

namespace ts {

// Runs every task at once, the first on the calling thread and each other on a thread of its own, and returns
// when all have finished. When tasks throw, the first task's exception (in the order given) is rethrown after
// all have finished. For a handful of independent pieces of work of similar size (the models of an ensemble).
void runConcurrently(const std::vector<std::function<void()>>& tasks);

} // namespace ts
