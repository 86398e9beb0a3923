#include "backends/ReplayBackend.h"
#include "datasets/DatasetReader.h"

#include "StatusCompare.h"

#include <QtTest>

#include <algorithm>
#include <memory>

using namespace ts;

namespace {

std::shared_ptr<const Dataset> pnpoly() {
    static const auto dataset = std::make_shared<const Dataset>(
        readDataset(std::filesystem::path(TUNESCOPE_TEST_DATA) / "kt_pnpoly.json"));
    return dataset;
}

Config ints(std::initializer_list<std::int64_t> values) {
    Config config;
    for (auto value : values) {
        config.emplace_back(value);
    }
    return config;
}

// From kt_pnpoly.json (see tests/data/expected.py).
const Config kFastest = ints({0, 192, 20, 2}); // time 10.520780944824219, 10 samples
const Config kFailed = ints({0, 928, 20, 0});  // "RuntimeFailedConfig"
const Config kAbsent = ints({0, 32, 1, 0});    // in the product, not in the fixture
const Config kOutside = ints({0, 33, 1, 0});   // 33 is not a block_size_x value

} // namespace

class TestReplayBackend : public QObject {
    Q_OBJECT

private slots:
    void identity() {
        ReplayBackend backend(pnpoly());
        QCOMPARE(QString::fromStdString(backend.name()), QString("replay"));
        QCOMPARE(QString::fromStdString(backend.deviceFingerprint()), QString("NVIDIA GeForce RTX 3090"));
        QCOMPARE(&backend.dataset(), pnpoly().get());
    }

    void lookups() {
        ReplayBackend backend(pnpoly());
        const std::vector<Config> batch{kFastest, kFailed, kAbsent, kOutside, Config{}};
        const auto results = backend.measure(batch);
        QCOMPARE(results.size(), batch.size());

        COMPARE_STATUS(results[0].status, MeasureStatus::Ok);
        QCOMPARE(results[0].objective, 10.520780944824219);
        QCOMPARE(results[0].samples.size(), std::size_t(10));
        QVERIFY(results[0].compileMs > 0.0);

        COMPARE_STATUS(results[1].status, MeasureStatus::RuntimeFailed);
        QCOMPARE(QString::fromStdString(results[1].log), QString("RuntimeFailedConfig"));

        for (std::size_t i = 2; i < results.size(); ++i) {
            COMPARE_STATUS(results[i].status, MeasureStatus::Invalid);
            QCOMPARE(QString::fromStdString(results[i].log),
                     QString("not in the dataset (did not satisfy the restrictions or was never measured)"));
        }
        QVERIFY(backend.measure({}).empty());
    }

    void deterministicReplayIsTheMean() {
        ReplayBackend backend(pnpoly());
        const std::vector<Config> batch(5, kFastest);
        const std::vector<Measurement> measured = backend.measure(batch);
        QCOMPARE(measured.size(), batch.size());
        for (const auto& m : measured) {
            QCOMPARE(m.objective, 10.520780944824219);
        }
    }

    void stochasticDrawsRecordedSamples() {
        const std::vector<Config> batch(50, kFastest);
        ReplayBackend a(pnpoly(), true, 42);
        ReplayBackend b(pnpoly(), true, 42);
        ReplayBackend c(pnpoly(), true, 43);
        const auto ra = a.measure(batch);
        const auto rb = b.measure(batch);
        const auto rc = c.measure(batch);
        const auto& samples = ra.front().samples;
        QCOMPARE(samples.size(), std::size_t(10));
        bool differs = false;
        bool variesWithinRun = false;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            COMPARE_STATUS(ra[i].status, MeasureStatus::Ok);
            QCOMPARE(ra[i].objective, rb[i].objective);
            QCOMPARE(ra[i].samples, samples);
            QVERIFY(std::find(samples.begin(), samples.end(), ra[i].objective) != samples.end());
            QVERIFY(std::find(samples.begin(), samples.end(), rc[i].objective) != samples.end());
            differs = differs || ra[i].objective != rc[i].objective;
            variesWithinRun = variesWithinRun || ra[i].objective != ra[0].objective;
        }
        QVERIFY(differs);
        QVERIFY(variesWithinRun);
        // Failed and absent configs are unaffected by stochastic mode.
        const std::vector<Config> others{kFailed, kAbsent};
        const auto failed = a.measure(others);
        COMPARE_STATUS(failed[0].status, MeasureStatus::RuntimeFailed);
        COMPARE_STATUS(failed[1].status, MeasureStatus::Invalid);
    }

    void nullDatasetIsRejected() { QVERIFY_THROWS_EXCEPTION(std::exception, ReplayBackend(nullptr)); }
};

QTEST_APPLESS_MAIN(TestReplayBackend)
#include "TestReplayBackend.moc"
