#include "CpuRunner.h"
#include "OutputCheck.h"

#include "util/Error.h"

#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <unistd.h>

namespace ts::worker {

namespace {

using Clock = std::chrono::steady_clock;

// Keeps the flush's reads from being optimised away.
volatile unsigned char g_flushSink = 0;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string problemKey(const MeasureRequest& r) {
    nlohmann::json key{
        {"reference", r.referenceLibrary}, {"entry", r.referenceEntry}, {"sizes", r.sizes}, {"seed", r.seed}};
    for (const BufferSpec& b : r.buffers)
        key["buffers"].push_back({b.name, toString(b.type), b.count, b.fill == ArgumentFill::Zero, b.output});
    return key.dump();
}

// Each buffer gets its own stream, so adding a buffer does not change the others' values.
std::uint64_t bufferSeed(std::uint64_t seed, std::size_t index) {
    return seed * 0x9e3779b97f4a7c15ull + index + 1;
}

std::size_t flushBytes() {
    long llc = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0)
        llc = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
    std::size_t bytes = llc > 0 ? 2 * static_cast<std::size_t>(llc) : std::size_t{64} << 20;
    // Capped: virtual machines often report the whole socket's L3 (256 MB on this project's EPYC hosts), and
    // writing twice that before every sample would cost more than most kernels take.
    return std::clamp<std::size_t>(bytes, std::size_t{8} << 20, std::size_t{64} << 20);
}

} // namespace

CpuRunner::Problem& CpuRunner::prepare(const MeasureRequest& request) {
    std::string key = problemKey(request);
    if (m_problem && m_problem->key == key)
        return *m_problem;
    m_problem.reset();
    auto problem = std::make_unique<Problem>();
    problem->key = key;
    for (std::size_t i = 0; i < request.buffers.size(); ++i) {
        problem->buffers.emplace_back(request.buffers[i]);
        problem->buffers.back().fill(bufferSeed(request.seed, i));
    }
    for (HostBuffer& b : problem->buffers)
        problem->pointers.push_back(b.data());
    problem->expected.resize(problem->buffers.size());
    if (!request.referenceLibrary.empty()) {
        auto reference = std::make_unique<SharedLibrary>(request.referenceLibrary);
        auto function = reinterpret_cast<KernelFunction>(reference->symbol(request.referenceEntry));
        for (HostBuffer& b : problem->buffers)
            if (b.spec().output)
                b.zero();
        function(problem->pointers.data(), request.sizes.data());
        for (std::size_t i = 0; i < problem->buffers.size(); ++i) {
            const HostBuffer& b = problem->buffers[i];
            if (!b.spec().output)
                continue;
            problem->expected[i].resize(static_cast<std::size_t>(b.spec().count));
            for (std::int64_t e = 0; e < b.spec().count; ++e)
                problem->expected[i][static_cast<std::size_t>(e)] = b.element(e);
        }
        problem->verified = true;
        m_references.push_back(std::move(reference));
    }
    m_problem = std::move(problem);
    return *m_problem;
}

std::optional<std::string> CpuRunner::compare(const Problem& problem, const Tolerance& tolerance,
                                              std::map<std::string, double>& metrics) const {
    OutputCheck check(tolerance);
    for (std::size_t i = 0; i < problem.buffers.size(); ++i)
        if (problem.buffers[i].spec().output)
            check.compare(problem.buffers[i], problem.expected[i]);
    return check.verdict(metrics);
}

void CpuRunner::flushCaches() {
    if (m_flush.empty())
        m_flush.resize(flushBytes());
    // Write then read every cache line, so the last level holds none of the kernel's data.
    unsigned char sum = 0;
    for (std::size_t i = 0; i < m_flush.size(); i += 64)
        m_flush[i] = static_cast<unsigned char>(m_flush[i] + 1);
    for (std::size_t i = 0; i < m_flush.size(); i += 64)
        sum = static_cast<unsigned char>(sum + m_flush[i]);
    g_flushSink = sum;
}

MeasureReply CpuRunner::measure(const MeasureRequest& request) {
    MeasureReply reply;
    reply.id = request.id;
    if (request.buffers.empty())
        throw Error("The measure request names no buffers.");
    Problem& problem = prepare(request);
    if (request.library.empty()) { // a prepare-only request: inputs and reference are ready now
        reply.status = ReplyStatus::Ok;
        return reply;
    }
    SharedLibrary library(request.library);
    auto kernel = reinterpret_cast<KernelFunction>(library.symbol(request.entry));
    auto call = [&] { kernel(problem.pointers.data(), request.sizes.data()); };

    const auto warmupStart = Clock::now();
    for (HostBuffer& b : problem.buffers)
        if (b.spec().output)
            b.zero();
    call();
    reply.warmupCalls = 1;
    if (problem.verified) {
        if (auto wrong = compare(problem, request.tolerance, reply.metrics)) {
            reply.status = ReplyStatus::WrongResult;
            reply.log = *wrong;
            return reply;
        }
    }
    while (msSince(warmupStart) < request.timing.warmupMs) {
        call();
        ++reply.warmupCalls;
    }

    auto sample = [&](std::int64_t number) {
        if (request.timing.flush)
            flushCaches();
        const auto start = Clock::now();
        for (std::int64_t i = 0; i < number; ++i)
            call();
        return msSince(start);
    };
    std::int64_t number = 1;
    while (number < request.timing.maxNumber) {
        double elapsed = sample(number);
        if (elapsed >= request.timing.minRepeatMs)
            break;
        double grow = request.timing.minRepeatMs / std::max(elapsed, 1e-6) * 1.1;
        number = std::min(request.timing.maxNumber,
                          std::max(number + 1, static_cast<std::int64_t>(std::ceil(number * grow))));
    }
    reply.number = number;
    for (int r = 0; r < request.timing.repeat; ++r)
        reply.samplesMs.push_back(sample(number) / static_cast<double>(number));
    reply.status = ReplyStatus::Ok;
    return reply;
}

} // namespace ts::worker
