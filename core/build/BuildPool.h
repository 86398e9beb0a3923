#pragma once

#include "build/BuildCache.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace ts {

// Threads that build configs through a BuildCache while the caller measures earlier ones: submit() returns at
// once and the future becomes ready when the shared object (or the compile error) is there. Each thread pins
// itself to `cpus` (when given), so the compilers it starts stay off the measuring core. Jobs run in
// submission order. The destructor finishes the queued jobs' promises with an error and joins.
class BuildPool {
public:
    BuildPool(BuildCache& cache, std::size_t threads, std::vector<int> cpus = {});
    ~BuildPool();
    BuildPool(const BuildPool&) = delete;
    BuildPool& operator=(const BuildPool&) = delete;

    std::future<BuildResult> submit(BuildRequest request);
    std::size_t threads() const { return m_threads.size(); }

private:
    struct Job {
        BuildRequest request;
        std::promise<BuildResult> promise;
    };

    void run(std::stop_token stop);

    BuildCache& m_cache;
    std::vector<int> m_cpus;
    std::mutex m_mutex;
    std::condition_variable_any m_ready;
    std::deque<Job> m_jobs;
    std::vector<std::jthread> m_threads;
};

} // namespace ts
