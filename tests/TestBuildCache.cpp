#include "build/BuildCache.h"
#include "build/BuildPool.h"
#include "build/CommandRunner.h"
#include "build/ContentHash.h"
#include "build/CpuAffinity.h"
#include "util/Error.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <thread>

using namespace ts;

namespace {

void writeFile(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

const char* kKernel = R"(#include "scale.h"
#include <cstdint>
extern "C" void tunescope_kernel(void* const* buffers, const std::int64_t* sizes) {
    float* y = static_cast<float*>(buffers[0]);
    for (std::int64_t i = 0; i < sizes[0]; ++i) y[i] = SCALE * FACTOR;
}
)";

} // namespace

class TestBuildCache : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::filesystem::path m_source;
    std::filesystem::path m_broken;

private slots:
    void initTestCase() {
        std::filesystem::path dir = m_dir.path().toStdString();
        std::filesystem::create_directories(dir / "src");
        m_source = dir / "src" / "scale.cpp";
        writeFile(m_source, kKernel);
        writeFile(dir / "src" / "scale.h", "#define SCALE 2.0f\n");
        m_broken = dir / "src" / "broken.cpp";
        writeFile(m_broken, "this is not C++\n");
    }

    void hashChangesWithEverythingABuildDependsOn() {
        BuildCache cache(HostCompiler::detect(), m_dir.path().toStdString() + "/hash");
        const std::string base = cache.hash({m_source, {"-DFACTOR=1"}});
        QCOMPARE(base.size(), std::size_t{32});
        QCOMPARE(cache.hash({m_source, {"-DFACTOR=1"}}), base);
        QVERIFY(cache.hash({m_source, {"-DFACTOR=2"}}) != base);
        QVERIFY(cache.hash({m_source, {"-DFACTOR=1", "-fopenmp"}}) != base);
        BuildCache otherCompiler(HostCompiler("g++", "g++ (Imaginary) 99.0"),
                                 m_dir.path().toStdString() + "/hash");
        QVERIFY(otherCompiler.hash({m_source, {"-DFACTOR=1"}}) != base);
        const auto header = m_source.parent_path() / "scale.h";
        writeFile(header, "#define SCALE 3.0f\n");
        const std::string edited = cache.hash({m_source, {"-DFACTOR=1"}});
        writeFile(header, "#define SCALE 2.0f\n");
        QVERIFY(edited != base);
        QCOMPARE(cache.hash({m_source, {"-DFACTOR=1"}}), base);
        QVERIFY(ContentHash().add("ab").add("c").hex() != ContentHash().add("a").add("bc").hex());
    }

    void repeatedBuildIsServedFromDisk() {
        const std::string dir = m_dir.path().toStdString() + "/repeat";
        BuildCache cache(HostCompiler::detect(), dir);
        BuildResult first = cache.build({m_source, {"-DFACTOR=4"}});
        QVERIFY2(first.ok, first.log.c_str());
        QVERIFY(!first.cacheHit);
        QVERIFY(std::filesystem::exists(first.library));
        QCOMPARE(first.library.parent_path(), std::filesystem::path(dir));
        BuildResult second = cache.build({m_source, {"-DFACTOR=4"}});
        QVERIFY(second.cacheHit);
        QCOMPARE(second.library, first.library);
        QCOMPARE(second.compileMs, first.compileMs);
        // A new cache object (a later run) finds it too.
        BuildCache later(HostCompiler::detect(), dir);
        QVERIFY(later.build({m_source, {"-DFACTOR=4"}}).cacheHit);
        BuildCacheStats stats = cache.stats();
        QCOMPARE(stats.hits, std::int64_t{1});
        QCOMPARE(stats.misses, std::int64_t{1});
        QCOMPARE(stats.hitRate(), 0.5);
        QCOMPARE(stats.savedMs, first.compileMs);
        // No temporary files are left behind.
        int files = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            QVERIFY2(entry.path().string().find(".tmp.") == std::string::npos, entry.path().c_str());
            ++files;
        }
        QCOMPARE(files, 2); // <hash>.so and <hash>.json
    }

    void compileErrorKeepsTheLogAndIsCachedToo() {
        BuildCache cache(HostCompiler::detect(), m_dir.path().toStdString() + "/broken");
        BuildResult first = cache.build({m_broken, {}});
        QVERIFY(!first.ok);
        QVERIFY(!first.cacheHit);
        QVERIFY2(first.log.find("broken.cpp") != std::string::npos, first.log.c_str());
        BuildResult second = cache.build({m_broken, {}});
        QVERIFY(!second.ok);
        QVERIFY(second.cacheHit);
        QCOMPARE(second.log, first.log);
    }

    void unreadableSourceIsAnError() {
        BuildCache cache(HostCompiler::detect(), m_dir.path().toStdString() + "/missing");
        QVERIFY_THROWS_EXCEPTION(Error, cache.build({m_dir.path().toStdString() + "/nope.cpp", {}}));
    }

    void defaultDirectoryFollowsTheEnvironment() {
        const QByteArray savedCache = qgetenv("TUNESCOPE_CACHE_DIR");
        const QByteArray savedXdg = qgetenv("XDG_CACHE_HOME");
        qunsetenv("TUNESCOPE_CACHE_DIR");
        qputenv("XDG_CACHE_HOME", "/tmp/xdg-test");
        QCOMPARE(BuildCache::defaultDirectory(), std::filesystem::path("/tmp/xdg-test/tunescope/builds"));
        qputenv("TUNESCOPE_CACHE_DIR", "/tmp/explicit");
        QCOMPARE(BuildCache::defaultDirectory(), std::filesystem::path("/tmp/explicit"));
        qunsetenv("TUNESCOPE_CACHE_DIR");
        qunsetenv("XDG_CACHE_HOME");
        QVERIFY(BuildCache::defaultDirectory().string().find("/.cache/tunescope/builds") !=
                std::string::npos);
        if (!savedCache.isEmpty())
            qputenv("TUNESCOPE_CACHE_DIR", savedCache);
        if (!savedXdg.isEmpty())
            qputenv("XDG_CACHE_HOME", savedXdg);
    }

    void poolBuildsConcurrentlyOnItsCores() {
        BuildCache cache(HostCompiler::detect(), m_dir.path().toStdString() + "/pool");
        std::vector<int> cpus = allowedCpus();
        BuildPool pool(cache, 2, {cpus.front()});
        std::vector<std::future<BuildResult>> futures;
        for (int factor = 1; factor <= 4; ++factor)
            futures.push_back(pool.submit({m_source, {"-DFACTOR=" + std::to_string(factor)}}));
        futures.push_back(pool.submit({m_broken, {}}));
        std::set<std::string> hashes;
        for (int i = 0; i < 4; ++i) {
            BuildResult r = futures[static_cast<std::size_t>(i)].get();
            QVERIFY2(r.ok, r.log.c_str());
            hashes.insert(r.hash);
        }
        QCOMPARE(hashes.size(), std::size_t{4});
        QVERIFY(!futures[4].get().ok);
        QCOMPARE(cache.stats().misses, std::int64_t{5});
    }

    void compilersInheritTheBuildThreadsCores() {
        std::vector<int> cpus = allowedCpus();
        QVERIFY(!cpus.empty());
        std::string seen;
        std::thread([&] {
            pinCurrentThread({cpus.front()});
            seen = runCommand({"sh", "-c", "grep Cpus_allowed_list /proc/self/status"}).output;
        }).join();
        const std::string expected = fmt::format("\t{}\n", cpus.front());
        QVERIFY2(seen.find(expected) != std::string::npos, seen.c_str());
    }

    void cpuPlanGivesTheWorkerACoreOfItsOwn() {
        CpuPlan two = CpuPlan::split({0, 1});
        QCOMPARE(*two.worker, 1);
        QCOMPARE(two.builds, std::vector<int>{0});
        CpuPlan four = CpuPlan::split({0, 1, 2, 3});
        QCOMPARE(*four.worker, 3);
        QCOMPARE(four.builds, (std::vector<int>{0, 1, 2}));
        CpuPlan one = CpuPlan::split({5});
        QVERIFY(!one.worker);
        QVERIFY(one.builds.empty());
    }

    void commandRunnerReportsExitAndOutput() {
        CommandResult r = runCommand({"sh", "-c", "echo out; echo err >&2; exit 5"});
        QCOMPARE(r.exitCode, 5);
        QVERIFY(!r.succeeded());
        QVERIFY(r.output.find("out") != std::string::npos && r.output.find("err") != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(Error, runCommand({"/nonexistent/compiler"}));
        HostCompiler compiler = HostCompiler::detect();
        QVERIFY(!compiler.version().empty());
    }
};

QTEST_APPLESS_MAIN(TestBuildCache)
#include "TestBuildCache.moc"
