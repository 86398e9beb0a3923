#include "util/Concurrently.h"

#include <exception>
#include <future>

namespace ts {

void runConcurrently(const std::vector<std::function<void()>>& tasks) {
    if (tasks.empty())
        return;
    std::vector<std::future<void>> others;
    for (std::size_t i = 1; i < tasks.size(); ++i)
        others.push_back(std::async(std::launch::async, tasks[i]));
    std::exception_ptr failure;
    try {
        tasks.front()();
    } catch (...) {
        failure = std::current_exception();
    }
    for (std::future<void>& other : others) {
        try {
            other.get();
        } catch (...) {
            if (!failure)
                failure = std::current_exception();
        }
    }
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace ts
