#include "datasets/Dataset.h"
#include "datasets/DatasetReader.h"
#include "trial/MeasureStatus.h"
#include "util/Error.h"
#include "util/Gzip.h"
#include "util/Statistics.h"

#include "StatusCompare.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

using namespace ts;

namespace {

std::filesystem::path fixture(const char* name) {
    return std::filesystem::path(TUNESCOPE_TEST_DATA) / name;
}
std::filesystem::path bundled(const char* name) {
    return std::filesystem::path(TUNESCOPE_RESOURCES) / "datasets" / name;
}

// The Error's message, or an empty string when nothing was thrown.
QString errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

std::map<MeasureStatus, int> statusCounts(const Dataset& dataset) {
    std::map<MeasureStatus, int> counts;
    for (const auto& [index, measurement] : dataset.entries) {
        ++counts[measurement.status];
    }
    return counts;
}

bool near(double a, double b, double relative = 1e-9) {
    return std::abs(a - b) <= relative * std::abs(b);
}

const Measurement& entryAt(const Dataset& dataset, const Config& config) {
    const auto index = dataset.space.indexOf(config);
    if (!index) {
        throw std::runtime_error("config not in the product");
    }
    return dataset.entries.at(*index);
}

Config ints(std::initializer_list<std::int64_t> values) {
    Config config;
    for (auto value : values) {
        config.emplace_back(value);
    }
    return config;
}

// A Kernel Tuner cache as read here, independently of the reader: its cache keys (sorted) and the times of
// its Ok records (a number below 1e20, Kernel Tuner's failure value).
struct FixtureCache {
    QStringList keys;
    std::vector<double> okTimes;
};

FixtureCache readFixtureCache(const char* name) {
    QFile file(QString::fromStdString(fixture(name).string()));
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot open the fixture");
    const QJsonObject cache = QJsonDocument::fromJson(file.readAll()).object()["cache"].toObject();
    FixtureCache out;
    out.keys = cache.keys();
    out.keys.sort();
    for (const QJsonValue& record : cache) {
        const QJsonValue time = record.toObject()["time"];
        if (time.isDouble() && time.toDouble() < 1e20)
            out.okTimes.push_back(time.toDouble());
    }
    return out;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

} // namespace

// Expected numbers come from tests/data/expected.py, which reads the fixtures independently:
//   kt_pnpoly.json: product 4092, entries 24, ok 20, fastest 10.520780944824219 ms, {'ok': 20,
//   'runtime_failed': 4} kt_convolution.json.gz: product 10240, entries 16, ok 12, fastest 0.9423359911888838
//   ms,
//       {'compile_failed': 2, 'ok': 12, 'runtime_failed': 2}
//   kt_fail_1e20.json: product 4092, entries 24, ok 20, fastest 10.520780944824219 ms,
//       {'ok': 20, 'runtime_failed': 4}
//   kt_fail_string.json: product 4092, entries 24, ok 20, fastest 10.520780944824219 ms,
//       {'compile_failed': 1, 'invalid': 1, 'ok': 20, 'runtime_failed': 2}
//   kt_fail_error.json: product 4092, entries 24, ok 20, fastest 10.520780944824219 ms,
//       {'compile_failed': 1, 'invalid': 1, 'ok': 20, 'runtime_failed': 2}
//   kt_cut.json: product 4092, entries 14, ok 13, fastest 10.520780944824219 ms, {'ok': 13, 'runtime_failed':
//   1} t4_convolution.json: product 2520, entries 12, ok 8, fastest 0.9881279859691858 ms,
//       {'compile_failed': 2, 'ok': 8, 'runtime_failed': 2}
//   t4_coulomb.json: product 6, entries 4, ok 4, fastest 3.0034560000000003 ms, {'ok': 4}
//   ktt_pnpoly.json: product 1080, entries 15, ok 12, fastest 8.377792 ms, {'ok': 12, 'runtime_failed': 3}
//   kt_malformed.json: parse error at line 53
class TestDatasets : public QObject {
    Q_OBJECT

private slots:
    void measureStatusNames() {
        for (auto status : {MeasureStatus::Ok, MeasureStatus::CompileFailed, MeasureStatus::RuntimeFailed,
                            MeasureStatus::Timeout, MeasureStatus::WrongResult, MeasureStatus::Invalid}) {
            QCOMPARE(measureStatusFromString(toString(status)), std::optional<MeasureStatus>(status));
        }
        QCOMPARE(QString(toString(MeasureStatus::CompileFailed)), QString("compile_failed"));
        QCOMPARE(QString(toString(MeasureStatus::WrongResult)), QString("wrong_result"));
        QVERIFY(!measureStatusFromString("Ok").has_value());
    }

    void statistics() {
        const Statistics empty = summarize({});
        QCOMPARE(empty.mean, 0.0);
        QCOMPARE(empty.cv, 0.0);
        const double one[] = {3.0};
        const Statistics single = summarize(one);
        QCOMPARE(single.median, 3.0);
        QCOMPARE(single.stdev, 0.0);
        const double samples[] = {4.0, 1.0, 3.0, 2.0};
        const Statistics s = summarize(samples);
        QCOMPARE(s.median, 2.5);
        QCOMPARE(s.min, 1.0);
        QCOMPARE(s.mean, 2.5);
        QVERIFY(near(s.stdev, std::sqrt(5.0 / 3.0)));
        QVERIFY(near(s.cv, std::sqrt(5.0 / 3.0) / 2.5));
    }

    void gzipTransparent() {
        const std::string text = readMaybeGzippedFile(fixture("kt_convolution.json.gz"));
        QVERIFY(text.starts_with("{\n\"device_name\": \"NVIDIA A100-PCIE-40GB\""));
        QVERIFY(!isGzipped(text));
        QVERIFY(readMaybeGzippedFile(fixture("kt_pnpoly.json")).starts_with("{\n\"device_name\""));
    }

    void kernelTunerPlain() {
        const Dataset d = readDataset(fixture("kt_pnpoly.json"));
        QCOMPARE(QString::fromStdString(d.format), QString("kernel_tuner"));
        QCOMPARE(QString::fromStdString(d.deviceName), QString("NVIDIA GeForce RTX 3090"));
        QCOMPARE(QString::fromStdString(d.kernelName), QString("cn_pnpoly"));
        QCOMPARE(QString::fromStdString(d.problemSize), QString("20000000"));
        QCOMPARE(QString::fromStdString(d.objective), QString("time"));
        QCOMPARE(d.space.dimension(), std::size_t(4));
        QCOMPARE(QString::fromStdString(d.space.parameters()[1].name), QString("block_size_x"));
        QCOMPARE(d.space.parameters()[1].type, ParameterType::Integer);
        QCOMPARE(d.space.productSize(), SearchSpace::Index(4092));
        QCOMPARE(d.space.validCount(), SearchSpace::Index(24));
        QCOMPARE(d.entries.size(), std::size_t(24));
        QCOMPARE(d.okCount(), std::size_t(20));
        QVERIFY(near(*d.optimum(), 10.520780944824219));
        QCOMPARE(statusCounts(d)[MeasureStatus::RuntimeFailed], 4);

        const Measurement& ok = entryAt(d, ints({0, 192, 20, 2}));
        COMPARE_STATUS(ok.status, MeasureStatus::Ok);
        QVERIFY(near(ok.objective, 10.520780944824219));
        QCOMPARE(ok.samples.size(), std::size_t(10));
        QVERIFY(near(ok.compileMs, 123.07163048535585));
        const Measurement& failed = entryAt(d, ints({0, 928, 20, 0}));
        COMPARE_STATUS(failed.status, MeasureStatus::RuntimeFailed);
        QCOMPARE(QString::fromStdString(failed.log), QString("RuntimeFailedConfig"));
        QVERIFY(failed.samples.empty());
        // The valid configs are exactly the fixture's cache keys, and the median is of its 20 Ok times, both
        // read from the file here with Qt's JSON parser rather than the reader under test.
        const FixtureCache cache = readFixtureCache("kt_pnpoly.json");
        QCOMPARE(cache.keys.size(), 24); // tests/data/expected.py: entries 24
        QStringList valid;
        for (SearchSpace::Index i = 0; i < d.space.validCount(); ++i)
            valid << QString::fromStdString(d.space.key(d.space.validIndices()[i]));
        valid.sort();
        QCOMPARE(valid, cache.keys);
        QCOMPARE(cache.okTimes.size(), std::size_t(20));
        QVERIFY(d.medianObjective().has_value());
        QVERIFY(near(*d.medianObjective(), median(cache.okTimes)));
    }

    void kernelTunerGzipped() {
        const Dataset d = readDataset(fixture("kt_convolution.json.gz"));
        QCOMPARE(QString::fromStdString(d.deviceName), QString("NVIDIA A100-PCIE-40GB"));
        QCOMPARE(d.space.productSize(), SearchSpace::Index(10240));
        QCOMPARE(d.space.validCount(), SearchSpace::Index(16));
        QCOMPARE(d.okCount(), std::size_t(12));
        QVERIFY(near(*d.optimum(), 0.9423359911888838));
        auto counts = statusCounts(d);
        QCOMPARE(counts[MeasureStatus::CompileFailed], 2);
        QCOMPARE(counts[MeasureStatus::RuntimeFailed], 2);
        // Same through the format-specific entry point.
        QCOMPARE(readKernelTunerCache(fixture("kt_convolution.json.gz")).entries.size(), std::size_t(16));
    }

    void failureEncodings_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("compileFailed");
        QTest::addColumn<int>("runtimeFailed");
        QTest::addColumn<int>("invalid");
        QTest::newRow("1e20") << "kt_fail_1e20.json" << 0 << 4 << 0;
        QTest::newRow("string") << "kt_fail_string.json" << 1 << 2 << 1;
        QTest::newRow("__error__") << "kt_fail_error.json" << 1 << 2 << 1;
    }

    void failureEncodings() {
        QFETCH(QString, file);
        QFETCH(int, compileFailed);
        QFETCH(int, runtimeFailed);
        QFETCH(int, invalid);
        const Dataset d = readDataset(fixture(file.toStdString().c_str()));
        QCOMPARE(d.space.productSize(), SearchSpace::Index(4092));
        QCOMPARE(d.entries.size(), std::size_t(24));
        QCOMPARE(d.okCount(), std::size_t(20));
        QVERIFY(near(*d.optimum(), 10.520780944824219));
        auto counts = statusCounts(d);
        QCOMPARE(counts[MeasureStatus::CompileFailed], compileFailed);
        QCOMPARE(counts[MeasureStatus::RuntimeFailed], runtimeFailed);
        QCOMPARE(counts[MeasureStatus::Invalid], invalid);
        // The original failure text is kept as the log.
        const Measurement& failed = entryAt(d, ints({0, 928, 20, 0}));
        QVERIFY(!failed.log.empty());
        if (file == "kt_fail_1e20.json") {
            QCOMPARE(QString::fromStdString(failed.log), QString("1e+20"));
        } else {
            QVERIFY(QString::fromStdString(failed.log).startsWith("RuntimeFailedConfig"));
        }
    }

    void cutFileIsRepaired() {
        const Dataset d = readDataset(fixture("kt_cut.json"));
        QCOMPARE(d.space.productSize(), SearchSpace::Index(4092));
        QCOMPARE(d.entries.size(), std::size_t(14));
        QCOMPARE(d.okCount(), std::size_t(13));
        QVERIFY(near(*d.optimum(), 10.520780944824219));
    }

    void t4Results() {
        const Dataset d = readDataset(fixture("t4_convolution.json"));
        QCOMPARE(QString::fromStdString(d.format), QString("t4"));
        QCOMPARE(d.space.dimension(), std::size_t(10));
        QCOMPARE(QString::fromStdString(d.space.parameters().front().name), QString("block_size_x"));
        QCOMPARE(QString::fromStdString(d.space.parameters().back().name), QString("filter_width"));
        QCOMPARE(d.space.productSize(), SearchSpace::Index(2520));
        QCOMPARE(d.entries.size(), std::size_t(12));
        QCOMPARE(d.okCount(), std::size_t(8));
        QVERIFY(near(*d.optimum(), 0.9881279859691858));
        auto counts = statusCounts(d);
        QCOMPARE(counts[MeasureStatus::CompileFailed], 2);
        QCOMPARE(counts[MeasureStatus::RuntimeFailed], 2);
        const Measurement& first = entryAt(d, ints({16, 4, 2, 4, 1, 0, 0, 1, 15, 15}));
        COMPARE_STATUS(first.status, MeasureStatus::Ok);
        QVERIFY(near(first.objective, 5.718720018863678));
        QCOMPARE(first.samples.size(), std::size_t(32));
        QVERIFY(near(first.compileMs, 4467.736630002037));
        QCOMPARE(readT4Results(fixture("t4_convolution.json")).entries.size(), std::size_t(12));
    }

    void t4Microseconds() {
        const Dataset d = readDataset(fixture("t4_coulomb.json"));
        QCOMPARE(d.space.productSize(), SearchSpace::Index(6));
        QCOMPARE(d.entries.size(), std::size_t(4));
        QCOMPARE(d.okCount(), std::size_t(4));
        QVERIFY(near(*d.optimum(), 3.0034560000000003));
        const Measurement& first = entryAt(d, ints({16, 4, 0, 1, 0, 0, 1, 1}));
        QVERIFY(near(first.objective, 3.037408));
        QCOMPARE(first.samples.size(), std::size_t(1));
        QVERIFY(near(first.samples[0], 3.037408));
    }

    void kttOutput() {
        const Dataset d = readDataset(fixture("ktt_pnpoly.json"));
        QCOMPARE(QString::fromStdString(d.format), QString("ktt"));
        QCOMPARE(QString::fromStdString(d.deviceName), QString("NVIDIA GeForce RTX 3090"));
        QCOMPARE(QString::fromStdString(d.kernelName), QString("Pnpoly"));
        QCOMPARE(QString::fromStdString(d.space.parameters().front().name), QString("VERTICES"));
        QCOMPARE(d.space.productSize(), SearchSpace::Index(1080));
        QCOMPARE(d.entries.size(), std::size_t(15));
        QCOMPARE(d.okCount(), std::size_t(12));
        QVERIFY(near(*d.optimum(), 8.377792));
        QCOMPARE(statusCounts(d)[MeasureStatus::RuntimeFailed], 3);
        const Measurement& first = entryAt(d, ints({600, 736, 6, 2, 0}));
        QVERIFY(near(first.objective, 13.845472)); // TotalDuration 13845.472 us
        QCOMPARE(readKttOutput(fixture("ktt_pnpoly.json")).entries.size(), std::size_t(15));
    }

    void bundledDatasets_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qulonglong>("product");
        QTest::addColumn<qulonglong>("entries");
        QTest::addColumn<qulonglong>("ok");
        QTest::addColumn<double>("fastest");
        // From /work/shared/datasets/MANIFEST.md (fastest rounded to 4 significant digits there).
        QTest::newRow("gemm RTX 3090")
            << "gemm_clblast_RTX_3090.json.gz" << 82944ULL << 17956ULL << 17956ULL << 5.658;
        QTest::newRow("pnpoly RTX 3090")
            << "pnpoly_RTX_3090.json.gz" << 4092ULL << 4092ULL << 3774ULL << 8.714;
        QTest::newRow("convolution_milo A100")
            << "convolution_milo_A100.json.gz" << 10240ULL << 4362ULL << 4201ULL << 0.5536;
        QTest::newRow("convolution_milo A4000")
            << "convolution_milo_A4000.json.gz" << 10240ULL << 4362ULL << 4201ULL << 1.021;
        QTest::newRow("convolution_milo A6000")
            << "convolution_milo_A6000.json.gz" << 10240ULL << 4362ULL << 3889ULL << 0.603;
        QTest::newRow("dedispersion_milo A100")
            << "dedispersion_milo_A100.json.gz" << 22272ULL << 11130ULL << 11130ULL << 68.12;
        QTest::newRow("dedispersion_milo A4000")
            << "dedispersion_milo_A4000.json.gz" << 22272ULL << 11130ULL << 11130ULL << 147.7;
        QTest::newRow("dedispersion_milo A6000")
            << "dedispersion_milo_A6000.json.gz" << 22272ULL << 11130ULL << 11130ULL << 84.22;
    }

    void bundledDatasets() {
        QFETCH(QString, file);
        QFETCH(qulonglong, product);
        QFETCH(qulonglong, entries);
        QFETCH(qulonglong, ok);
        QFETCH(double, fastest);
        QElapsedTimer timer;
        timer.start();
        const Dataset d = readDataset(bundled(file.toStdString().c_str()));
        qInfo("%s read in %lld ms", qPrintable(file), static_cast<long long>(timer.elapsed()));
        QCOMPARE(d.space.productSize(), SearchSpace::Index(product));
        QCOMPARE(d.space.validCount(), SearchSpace::Index(entries));
        QCOMPARE(d.entries.size(), std::size_t(entries));
        QCOMPARE(d.okCount(), std::size_t(ok));
        QVERIFY2(std::abs(*d.optimum() - fastest) <= 0.0005 * fastest,
                 qPrintable(QString::number(*d.optimum())));
    }

    void errorsNameTheFile_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected"); // a part of the message besides the file name
        QTest::newRow("missing") << "no_such_file.json"
                                 << "does not exist";
        QTest::newRow("empty") << "empty.json"
                               << "line 1";
        QTest::newRow("malformed header") << "kt_malformed.json"
                                          << "line 53";
        QTest::newRow("unknown format") << "not_a_dataset.json"
                                        << "is not a Kernel Tuner cache, T4 or KTT file.";
        QTest::newRow("corrupt gzip") << "corrupt.json.gz"
                                      << "gzip";
        QTest::newRow("value not in tune_params") << "kt_bad_value.json"
                                                  << "\"0,33,14,0\"";
    }

    void errorsNameTheFile() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const auto path = fixture(file.toStdString().c_str());
        const QString message = errorOf([&] { readDataset(path); });
        QVERIFY2(!message.isEmpty(), "no Error thrown");
        QVERIFY2(message.contains(QString::fromStdString(path.string())), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.endsWith('.'), qPrintable(message));
    }

    void unknownFormatMessage() {
        const auto path = fixture("not_a_dataset.json");
        QCOMPARE(errorOf([&] { readDataset(path); }),
                 QString::fromStdString(path.string() + " is not a Kernel Tuner cache, T4 or KTT file."));
        const QString bad = errorOf([] { readDataset(fixture("kt_bad_value.json")); });
        QVERIFY2(bad.contains("block_size_x"), qPrintable(bad));
    }

    void wrongReaderNamesTheFile() {
        const auto t4 = fixture("t4_convolution.json");
        const auto kt = fixture("kt_pnpoly.json");
        QVERIFY(errorOf([&] { readKernelTunerCache(t4); }).contains(QString::fromStdString(t4.string())));
        QVERIFY(errorOf([&] { readT4Results(kt); }).contains(QString::fromStdString(kt.string())));
        QVERIFY(errorOf([&] { readKttOutput(kt); }).contains(QString::fromStdString(kt.string())));
    }

    void datasetSummaries() {
        Dataset d;
        QVERIFY(!d.optimum().has_value());
        QVERIFY(!d.medianObjective().has_value());
        const double objectives[] = {4.0, 2.0, 3.0, 1.0};
        SearchSpace::Index index = 0;
        for (double objective : objectives) {
            Measurement m;
            m.status = MeasureStatus::Ok;
            m.objective = objective;
            d.entries[index++] = m;
        }
        Measurement failed;
        failed.status = MeasureStatus::RuntimeFailed;
        d.entries[index++] = failed;
        QCOMPARE(d.okCount(), std::size_t(4));
        QCOMPARE(*d.optimum(), 1.0);
        QCOMPARE(*d.medianObjective(), 2.5);
        d.entries.erase(0);
        QCOMPARE(*d.medianObjective(), 2.0);
    }
};

QTEST_APPLESS_MAIN(TestDatasets)
#include "TestDatasets.moc"
