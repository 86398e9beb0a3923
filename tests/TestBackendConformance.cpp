// The Backend contract (core/backends/Backend.h), checked the same way on every backend, in the manner of
// Optuna's storage suite: replay (a synthetic dataset), cpu (the fault-injection kernel, short timings) and
// cuda (a small gemm; skipped with the reason where this build or machine has no CUDA device). Each slot runs
// once per backend:
// - one result per config, in the order of the batch (a reversed batch gives the reversed statuses);
// - a bad config (wrong arity, a value not in the space, a value of the wrong type) is a status, never an
//   exception, and says why;
// - name, deviceFingerprint and deviceDetails are non-empty and the same on every call;
// - Ok results have a positive, finite objective and positive samples;
// - the same config measured twice has the same status.
#include "backends/CpuBackend.h"
#include "backends/ReplayBackend.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSpace.h"
#include "kernels/KernelSpecReader.h"
#ifdef TUNESCOPE_WITH_CUDA
#include "cuda/CudaBackend.h"
#include "cuda/CudaDevices.h"
#endif

#include "SyntheticDataset.h"

#include "QuickBackendSettings.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <random>

using namespace ts;

namespace {

// A backend with what it measures: configs of its space, with the statuses they must get where those are
// known, and configs that are not configs of its space.
struct Subject {
    std::string skip; // why this backend cannot run here; empty when it can
    std::shared_ptr<const Dataset> dataset;
    // On the heap: the backends keep references to them, and subjects move.
    std::unique_ptr<KernelSpec> spec;
    std::unique_ptr<KernelSpace> space;
    std::unique_ptr<Backend> backend;
    std::vector<Config> configs;
    std::vector<MeasureStatus> expected; // for configs, where the backend's statuses are known in advance
    std::vector<Config> bad;
};

// Configs that are not configs of the space: empty, one value short, one value too many, a value that `axis`
// does not have, a value of another type on `axis`.
std::vector<Config> badConfigs(const Config& good, std::size_t axis, const Value& missing,
                               const Value& otherType) {
    std::vector<Config> bad;
    bad.emplace_back();
    bad.emplace_back(good.begin(), good.end() - 1);
    bad.push_back(good);
    bad.back().push_back(good.back());
    bad.push_back(good);
    bad.back()[axis] = missing;
    bad.push_back(good);
    bad.back()[axis] = otherType;
    return bad;
}

Subject replaySubject() {
    Subject s;
    s.dataset = test::syntheticDataset(5); // index % 5 == 0 recorded as RuntimeFailed
    s.backend = std::make_unique<ReplayBackend>(s.dataset);
    const SearchSpace& space = s.dataset->space;
    for (SearchSpace::Index index : {SearchSpace::Index{1}, SearchSpace::Index{5}, SearchSpace::Index{7}}) {
        s.configs.push_back(space.config(index));
        s.expected.push_back(index % 5 == 0 ? MeasureStatus::RuntimeFailed : MeasureStatus::Ok);
    }
    s.bad = badConfigs(s.configs.front(), 0, std::int64_t{3}, std::string("eight")); // x: 1, 2, 4, 8
    return s;
}

const QTemporaryDir& buildCache() {
    static const QTemporaryDir dir;
    return dir;
}

Subject cpuSubject() {
    Subject s;
    s.spec = std::make_unique<KernelSpec>(
        readKernelSpec(std::filesystem::path(TUNESCOPE_TEST_DATA) / "kernels/faulty/kernel.json"));
    s.space = std::make_unique<KernelSpace>(*s.spec, "cpu", ProblemSize{4096});
    s.backend = std::make_unique<CpuBackend>(
        *s.spec, *s.space, ts::test::quickCpuSettings(buildCache().path().toStdString(), 5.0));
    const auto config = [](const char* mode, std::int64_t unroll) {
        return Config{std::string(mode), unroll};
    };
    s.configs = {config("ok", 1), config("compile_error", 2), config("wrong", 1), config("ok", 4)};
    s.expected = {MeasureStatus::Ok, MeasureStatus::CompileFailed, MeasureStatus::WrongResult,
                  MeasureStatus::Ok};
    s.bad = badConfigs(s.configs.front(), 1, std::int64_t{3}, std::string("eight")); // UNROLL: 1, 2, 4
    return s;
}

Subject cudaSubject() {
    Subject s;
#ifdef TUNESCOPE_WITH_CUDA
    const CudaDevices devices = CudaDevices::query();
    if (devices.empty()) {
        s.skip = "needs a CUDA device; none here: " + devices.unavailableReason();
        return s;
    }
    static const KernelCatalog catalog(std::vector<std::filesystem::path>{TUNESCOPE_KERNELS});
    s.spec = std::make_unique<KernelSpec>(catalog.find("gemm"));
    s.space = std::make_unique<KernelSpace>(*s.spec, "cuda", ProblemSize{256, 256, 256});
    s.backend = std::make_unique<CudaBackend>(*s.spec, *s.space, ts::test::quickCudaSettings());
    const SearchSpace& space = s.space->space();
    if (auto index = s.space->defaultIndex())
        s.configs.push_back(space.config(*index));
    std::mt19937_64 rng(11);
    for (SearchSpace::Index index : space.sample(3, SpaceMode::Constrained, rng))
        s.configs.push_back(space.config(index));
    s.bad = badConfigs(s.configs.front(), 0, std::int64_t{-12345}, std::string("eight")); // gemm: integers
#else
    s.skip = "this build has no CUDA backend (TUNESCOPE_WITH_CUDA is off)";
#endif
    return s;
}

std::string describe(const Config& config) {
    std::string text = "[";
    for (const Value& value : config)
        text += (text.size() > 1 ? ", " : "") + toString(value);
    return text + "]";
}

std::vector<MeasureStatus> statuses(const std::vector<Measurement>& results) {
    std::vector<MeasureStatus> out;
    for (const Measurement& m : results)
        out.push_back(m.status);
    return out;
}

} // namespace

class TestBackendConformance : public QObject {
    Q_OBJECT

    std::map<QString, Subject> m_subjects;

// The subject of the current data row as `s`, or a skip with the reason it cannot run here.
#define SUBJECT_OR_SKIP()                                                                                    \
    QFETCH(QString, backend);                                                                                \
    Subject* s = &m_subjects.at(backend);                                                                    \
    if (!s->skip.empty())                                                                                    \
        QSKIP(qPrintable(QString::fromStdString(s->skip)));

    void rows() {
        QTest::addColumn<QString>("backend");
        for (const char* backend : {"replay", "cpu", "cuda"})
            QTest::newRow(backend) << QString(backend);
    }

private slots:
    void initTestCase() {
        QVERIFY(buildCache().isValid());
        m_subjects["replay"] = replaySubject();
        m_subjects["cpu"] = cpuSubject();
        m_subjects["cuda"] = cudaSubject();
    }

    void identityIsNonEmptyAndStable_data() {
        rows();
    }
    void identityIsNonEmptyAndStable() {
        SUBJECT_OR_SKIP();
        const Backend& b = *s->backend;
        QCOMPARE(QString::fromStdString(b.name()), backend);
        QVERIFY(!b.deviceFingerprint().empty());
        QCOMPARE(b.deviceFingerprint(), b.deviceFingerprint());
        const DeviceFingerprint device = b.deviceDetails();
        QVERIFY(!device.kind.empty());
        QVERIFY(!device.name.empty());
        QCOMPARE(QString::fromStdString(device.kind), QString(backend == "cpu" ? "cpu" : "gpu"));
        QCOMPARE(b.deviceDetails().toJson(), device.toJson());
        // The fingerprint names the device the details describe.
        QVERIFY2(b.deviceFingerprint().find(device.name) != std::string::npos,
                 qPrintable(QString::fromStdString(b.deviceFingerprint() + " / " + device.name)));
    }

    void oneResultPerConfigInOrder_data() {
        rows();
    }
    void oneResultPerConfigInOrder() {
        SUBJECT_OR_SKIP();
        std::vector<Config> batch;
        for (std::size_t i = 0; i < s->configs.size(); ++i) {
            batch.push_back(s->configs[i]);
            if (i < s->bad.size())
                batch.push_back(s->bad[i]);
        }
        const std::vector<Measurement> forward = s->backend->measure(batch);
        QCOMPARE(forward.size(), batch.size());
        std::vector<Config> reversed(batch.rbegin(), batch.rend());
        const std::vector<Measurement> backward = s->backend->measure(reversed);
        QCOMPARE(backward.size(), batch.size());
        std::vector<MeasureStatus> backwardStatuses = statuses(backward);
        std::reverse(backwardStatuses.begin(), backwardStatuses.end());
        QVERIFY(statuses(forward) == backwardStatuses);
        for (std::size_t i = 0, config = 0; i < batch.size(); ++i) {
            const bool isConfig = config < s->configs.size() && batch[i] == s->configs[config];
            if (isConfig && config < s->expected.size())
                QVERIFY2(forward[i].status == s->expected[config],
                         qPrintable(QString("%1: %2, expected %3 (%4)")
                                        .arg(describe(batch[i]).c_str(), toString(forward[i].status),
                                             toString(s->expected[config]), forward[i].log.c_str())));
            config += isConfig ? 1 : 0;
        }
        QVERIFY(s->backend->measure(std::span<const Config>()).empty());
    }

    void aBadConfigIsAStatusNotAnException_data() {
        rows();
    }
    void aBadConfigIsAStatusNotAnException() {
        SUBJECT_OR_SKIP();
        for (const Config& bad : s->bad) {
            std::vector<Measurement> results;
            try {
                results = s->backend->measure(std::vector<Config>{bad});
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QString("%1 threw: %2").arg(describe(bad).c_str(), e.what())));
            }
            QCOMPARE(results.size(), std::size_t{1});
            QVERIFY2(results[0].status != MeasureStatus::Ok, describe(bad).c_str());
            QVERIFY2(!results[0].log.empty(), describe(bad).c_str());
        }
    }

    void okResultsHavePositiveTimesAndSamples_data() {
        rows();
    }
    void okResultsHavePositiveTimesAndSamples() {
        SUBJECT_OR_SKIP();
        const std::vector<Measurement> results = s->backend->measure(s->configs);
        int ok = 0;
        for (const Measurement& m : results) {
            if (m.status != MeasureStatus::Ok)
                continue;
            ++ok;
            QVERIFY2(std::isfinite(m.objective) && m.objective > 0, qPrintable(QString::number(m.objective)));
            QVERIFY(!m.samples.empty());
            for (double sample : m.samples)
                QVERIFY2(std::isfinite(sample) && sample > 0, qPrintable(QString::number(sample)));
        }
        QVERIFY2(ok > 0, "no config of the subject measured Ok");
    }

    void sameConfigTwiceSameStatus_data() {
        rows();
    }
    void sameConfigTwiceSameStatus() {
        SUBJECT_OR_SKIP();
        std::vector<Config> batch = s->configs;
        batch.insert(batch.end(), s->bad.begin(), s->bad.end());
        const std::vector<Measurement> first = s->backend->measure(batch);
        const std::vector<Measurement> second = s->backend->measure(batch);
        QCOMPARE(first.size(), batch.size());
        QCOMPARE(second.size(), batch.size());
        for (std::size_t i = 0; i < batch.size(); ++i)
            QVERIFY2(first[i].status == second[i].status,
                     qPrintable(QString("%1: %2 then %3")
                                    .arg(describe(batch[i]).c_str(), toString(first[i].status),
                                         toString(second[i].status))));
    }
};

QTEST_GUILESS_MAIN(TestBackendConformance)
#include "TestBackendConformance.moc"
