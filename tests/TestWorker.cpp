#include "build/BuildCache.h"
#include "util/Error.h"
#include "worker/WorkerClient.h"
#include "worker/WorkerLocator.h"
#include "worker/WorkerProcess.h"

#include "StatusCompare.h"

#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace ts;
using namespace ts::worker;

namespace {

const std::filesystem::path kFaulty = std::filesystem::path(TUNESCOPE_TEST_DATA) / "kernels/faulty";

// True once the process is gone or a zombie (a reparented zombie stays visible until init reaps it).
bool processGone(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    if (!stat)
        return true;
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

} // namespace

class TestWorker : public QObject {
    Q_OBJECT

    QTemporaryDir m_cache;
    std::unique_ptr<BuildCache> m_builds;

    std::string build(const std::string& mode) {
        BuildResult r =
            m_builds->build({kFaulty / "faulty_cpu.cpp", {"-DMODE_" + mode + "=1", "-DUNROLL=1"}});
        if (!r.ok)
            throw Error("test kernel does not build: " + r.log);
        return r.library.string();
    }

    MeasureRequest request(const std::string& library, std::int64_t id) {
        MeasureRequest r;
        r.id = id;
        r.library = library;
        r.referenceLibrary = m_builds->build({kFaulty / "reference.cpp", {}}).library.string();
        r.sizes = {1000};
        r.buffers = {{"x", ElementType::Float32, 1000, ArgumentFill::Random, false},
                     {"y", ElementType::Float32, 1000, ArgumentFill::Zero, true}};
        r.tolerance = {1e-6, 1e-6};
        r.timing.warmupMs = 1;
        r.timing.repeat = 5;
        r.timing.minRepeatMs = 2;
        r.timing.flush = true;
        return r;
    }

    WorkerOptions options() {
        WorkerOptions o;
        o.executable = TUNESCOPE_WORKER;
        return o;
    }

private slots:
    void initTestCase() {
        m_builds = std::make_unique<BuildCache>(HostCompiler::detect(), m_cache.path().toStdString());
    }

    void helloNamesProtocolAndRunners() {
        WorkerOptions o = options();
        o.cpu = 0;
        WorkerClient client(o);
        const HelloReply& hello = client.hello();
        QCOMPARE(hello.protocol, kProtocolVersion);
        QVERIFY(hello.pid > 0);
        QCOMPARE(hello.cpu, 0);
        QVERIFY(std::find(hello.backends.begin(), hello.backends.end(), "cpu") != hello.backends.end());
    }

    void measuresEverySampleWithCalibratedNumber() {
        WorkerClient client(options());
        WorkerResult result = client.measure(request(build("ok"), 1), std::chrono::seconds(10));
        COMPARE_STATUS(result.status, MeasureStatus::Ok);
        QVERIFY(result.reply);
        QCOMPARE(result.reply->samplesMs.size(), std::size_t{5});
        for (double sample : result.reply->samplesMs)
            QVERIFY(sample > 0.0);
        // One call takes microseconds, so reaching 2 ms per sample needs many calls.
        QVERIFY(result.reply->number > 1);
        QVERIFY(result.reply->number * result.reply->samplesMs.front() >= 1.0);
        QCOMPARE(result.reply->metrics.at("mismatches"), 0.0);
    }

    void wrongOutputIsCaughtBeforeTiming() {
        WorkerClient client(options());
        WorkerResult result = client.measure(request(build("wrong"), 1), std::chrono::seconds(10));
        COMPARE_STATUS(result.status, MeasureStatus::WrongResult);
        QVERIFY(result.reply->samplesMs.empty());
        QCOMPARE(result.reply->metrics.at("mismatches"), 1.0);
        QVERIFY2(result.log.find("y[500]") != std::string::npos, result.log.c_str());
    }

    void crashReportsTheSignalAndRestarts() {
        WorkerClient client(options());
        WorkerResult crash = client.measure(request(build("segfault"), 1), std::chrono::seconds(10));
        COMPARE_STATUS(crash.status, MeasureStatus::RuntimeFailed);
        QCOMPARE(crash.signal, SIGSEGV);
        QVERIFY2(crash.log.find("signal 11") != std::string::npos, crash.log.c_str());
        WorkerResult next = client.measure(request(build("ok"), 2), std::chrono::seconds(10));
        COMPARE_STATUS(next.status, MeasureStatus::Ok);
        QCOMPARE(client.starts(), 2);
    }

    void timeoutKillsTheProcessGroupAndRestarts() {
        WorkerClient client(options());
        pid_t first = static_cast<pid_t>(client.hello().pid);
        auto started = std::chrono::steady_clock::now();
        WorkerResult hang = client.measure(request(build("hang"), 1), std::chrono::milliseconds(500));
        COMPARE_STATUS(hang.status, MeasureStatus::Timeout);
        QVERIFY(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
        QVERIFY(processGone(first));
        WorkerResult next = client.measure(request(build("ok"), 2), std::chrono::seconds(10));
        COMPARE_STATUS(next.status, MeasureStatus::Ok);
        QVERIFY(client.hello().pid != first);
        QCOMPARE(client.starts(), 2);
    }

    void kernelWritingToStdoutDoesNotBreakTheChannel() {
        WorkerClient client(options());
        WorkerResult result = client.measure(request(build("print"), 1), std::chrono::seconds(10));
        COMPARE_STATUS(result.status, MeasureStatus::Ok);
        QCOMPARE(result.reply->samplesMs.size(), std::size_t{5});
    }

    void missingObjectIsRuntimeFailedNotACrash() {
        WorkerClient client(options());
        WorkerResult result = client.measure(request("/nonexistent/kernel.so", 1), std::chrono::seconds(10));
        COMPARE_STATUS(result.status, MeasureStatus::RuntimeFailed);
        QVERIFY2(result.log.find("/nonexistent/kernel.so") != std::string::npos, result.log.c_str());
        QCOMPARE(client.starts(), 1);
    }

    void unreadableRequestGetsAnErrorMessage() {
        WorkerProcess process({{TUNESCOPE_WORKER}, std::nullopt, {}});
        QVERIFY(process.send("this is not json"));
        auto reply = process.readLine(std::chrono::seconds(10));
        QCOMPARE(reply.outcome, WorkerProcess::ReadOutcome::Line);
        QCOMPARE(nlohmann::json::parse(reply.line).at("type").get<std::string>(), std::string("error"));
        QVERIFY(process.send(R"({"type":"measure","id":3})"));
        reply = process.readLine(std::chrono::seconds(10));
        QVERIFY2(reply.line.find("malformed") != std::string::npos, reply.line.c_str());
    }

    // Everything the worker started goes with it when its group is killed.
    void destroyingAProcessKillsItsWholeGroup() {
        pid_t grandchild = 0;
        {
            WorkerProcess process({{"/bin/sh", "-c", "sleep 60 & echo $!; wait"}, std::nullopt, {}});
            auto line = process.readLine(std::chrono::seconds(10));
            QCOMPARE(line.outcome, WorkerProcess::ReadOutcome::Line);
            grandchild = static_cast<pid_t>(std::stol(line.line));
            QVERIFY(!processGone(grandchild));
        }
        QTRY_VERIFY_WITH_TIMEOUT(processGone(grandchild), 5000);
    }

    void exitStatusIsReported() {
        WorkerProcess process({{"/bin/sh", "-c", "echo bye >&2; exit 3"}, std::nullopt, {}});
        QCOMPARE(process.readLine(std::chrono::seconds(10)).outcome, WorkerProcess::ReadOutcome::Closed);
        auto exit = process.waitExit(std::chrono::seconds(10));
        QVERIFY(exit);
        QCOMPARE(exit->exitCode, 3);
        QCOMPARE(exit->describe(), std::string("exited with code 3"));
        QCOMPARE(process.stderrTail(), std::string("bye\n"));
    }

    void missingExecutableIsAnError() {
        QVERIFY_THROWS_EXCEPTION(Error, WorkerProcess({{"/nonexistent/tunescope-worker"}, std::nullopt, {}}));
    }

    void locatorFindsTheWorkerThroughTheEnvironment() {
        // The test runs from build/tests, where neither rule next to the executable applies.
        const QByteArray saved = qgetenv("TUNESCOPE_WORKER");
        const QByteArray savedPath = qgetenv("PATH");
        qputenv("TUNESCOPE_WORKER", TUNESCOPE_WORKER);
        QCOMPARE(locateWorker(), std::filesystem::path(TUNESCOPE_WORKER).lexically_normal());
        qunsetenv("TUNESCOPE_WORKER");
        qputenv("PATH", "/nonexistent");
        try {
            locateWorker();
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("TUNESCOPE_WORKER") != std::string::npos, e.what());
        }
        qputenv("PATH", savedPath);
        if (!saved.isEmpty())
            qputenv("TUNESCOPE_WORKER", saved);
    }

    void protocolRoundTrips() {
        MeasureRequest r = request("/x.so", 42);
        r.backend = "cuda";
        r.backendOptions = {{"grid", {4, 2}}};
        MeasureRequest back = measureRequestFromJson(toJson(r));
        QCOMPARE(back.id, std::int64_t{42});
        QCOMPARE(back.backend, std::string("cuda"));
        QCOMPARE(back.buffers.size(), std::size_t{2});
        QCOMPARE(back.buffers[1].output, true);
        QCOMPARE(back.timing.repeat, 5);
        QCOMPARE(back.backendOptions, r.backendOptions);
        QCOMPARE(back.referenceLibrary, r.referenceLibrary);
    }
};

QTEST_APPLESS_MAIN(TestWorker)
#include "TestWorker.moc"
