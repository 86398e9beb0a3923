#include "build/BuildPool.h"

#include "build/CpuAffinity.h"
#include "util/Error.h"

namespace ts {

BuildPool::BuildPool(BuildCache& cache, std::size_t threads, std::vector<int> cpus)
    : m_cache(cache), m_cpus(std::move(cpus)) {
    for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i)
        m_threads.emplace_back([this](std::stop_token stop) { run(stop); });
}

BuildPool::~BuildPool() {
    for (auto& thread : m_threads)
        thread.request_stop();
    m_ready.notify_all();
    m_threads.clear(); // joins
    for (Job& job : m_jobs)
        job.promise.set_exception(
            std::make_exception_ptr(Error("The build pool stopped before this build ran.")));
}

std::future<BuildResult> BuildPool::submit(BuildRequest request) {
    Job job{std::move(request), {}};
    auto future = job.promise.get_future();
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back(std::move(job));
    }
    m_ready.notify_one();
    return future;
}

void BuildPool::run(std::stop_token stop) {
    try {
        pinCurrentThread(m_cpus);
    } catch (const Error&) {
        // Pinning is an optimisation: an unpinned build is still a correct build.
    }
    while (true) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            if (!m_ready.wait(lock, stop, [this] { return !m_jobs.empty(); }))
                return;
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        try {
            job.promise.set_value(m_cache.build(job.request));
        } catch (...) {
            job.promise.set_exception(std::current_exception());
        }
    }
}

} // namespace ts
