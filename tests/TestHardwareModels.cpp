// Hardware-aware models: a static profile's hardware features beside the parameters in the xgb models (option
// `hardware`). The feature table and the encoder; the option hands the features to every model and nothing
// without it; a search whose times follow a static feature the parameters do not explain finds the fast
// configs only with it; `analyze --dataset --product` profiles the whole product with the grid; sessions and
// comparisons refuse, in one sentence naming the dataset, a profile that does not cover the domain; a
// hardware-aware transfer prior predicts a new GPU's ranking from its own features where the parameter-only
// prior can only copy the sources' rankings.
#include "CliRun.h"
#include "ErrorOf.h"
#include "TextFiles.h"

#include "analysis/Comparison.h"
#include "backends/ReplayBackend.h"
#include "datasets/DatasetProfile.h"
#include "datasets/DatasetReader.h"
#include "datasets/ProfileFeatures.h"
#include "hardware/HardwareFeatures.h"
#include "hardware/OccupancyCalculator.h"
#include "models/FeatureEncoder.h"
#include "models/ModelQuality.h"
#include "models/TransferPrior.h"
#include "models/XgbCostModel.h"
#include "session/TuningSession.h"
#include "strategies/StrategyRegistry.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

using namespace ts;
using namespace ts::test;

namespace {

constexpr std::size_t kValues = 1024;

// One parameter whose values say nothing of the time (a random permutation of the configs' ranks), and a
// feature table whose one column is that rank: what a static feature knows and the parameters do not.
struct HiddenRank {
    std::shared_ptr<Dataset> dataset = std::make_shared<Dataset>();
    std::shared_ptr<ConfigFeatureTable> table =
        std::make_shared<ConfigFeatureTable>(std::vector<std::string>{"rank"});
    std::vector<std::size_t> rank;
};

HiddenRank hiddenRank(std::uint64_t shuffle = 7) {
    HiddenRank h;
    std::vector<Value> values;
    for (std::size_t v = 1; v <= kValues; ++v)
        values.emplace_back(std::int64_t(v));
    std::vector<Parameter> parameters{{"p", ParameterType::Integer, values}};
    h.rank.resize(kValues);
    std::iota(h.rank.begin(), h.rank.end(), 0);
    std::shuffle(h.rank.begin(), h.rank.end(), std::mt19937_64(shuffle));
    std::vector<SearchSpace::Index> present;
    for (SearchSpace::Index i = 0; i < kValues; ++i) {
        Measurement m;
        m.status = MeasureStatus::Ok;
        m.objective = 1.0 + double(h.rank[i]) / 100.0;
        m.samples = {m.objective};
        h.dataset->entries[i] = m;
        present.push_back(i);
        const float feature = static_cast<float>(h.rank[i]);
        h.table->set(i, std::span<const float>(&feature, 1));
    }
    h.dataset->path = "hidden-rank";
    h.dataset->format = "kernel_tuner";
    h.dataset->deviceName = "Synthetic GPU";
    h.dataset->kernelName = "hidden";
    h.dataset->problemSize = "[1]";
    h.dataset->objective = "time";
    h.dataset->space = SearchSpace::fromValidSet(parameters, present);
    return h;
}

// The rank of the best config `xgb` found within `budget` evaluations.
std::size_t bestRankFound(const HiddenRank& h, bool hardware, std::uint64_t seed, std::int64_t budget) {
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    auto strategy = registry.create("xgb");
    StrategyContext context{&h.dataset->space, SpaceMode::Constrained, seed,
                            registry.options("xgb", {{"hardware", hardware ? "true" : "false"}})};
    context.staticFeatures = h.table;
    strategy->reset(context);
    ReplayBackend backend(h.dataset);
    SessionSettings settings;
    settings.stop.maxEvaluations = budget;
    TuningSession session(h.dataset->space, backend, *strategy, settings);
    session.run();
    std::size_t best = kValues;
    for (const Trial& trial : session.trials())
        best = std::min(best, h.rank[trial.index]);
    return best;
}

// A Kernel Tuner cache of CLBlast's Xgemm with a product of 8 configs, 3 of them measured.
std::string tinyGemmCache() {
    nlohmann::json d = nlohmann::json::parse(readText(TUNESCOPE_TEST_DATA "/kt_gemm_clblast.json"));
    nlohmann::json params = nlohmann::json::object();
    for (const auto& key : d["tune_params_keys"])
        params[key.get<std::string>()] = nlohmann::json::array({d["tune_params"][key.get<std::string>()][0]});
    params["MWG"] = {64, 128};
    params["NWG"] = {64};
    params["MDIMC"] = {16};
    params["NDIMC"] = {8};
    params["MDIMA"] = {16};
    params["NDIMB"] = {8};
    params["VWM"] = {1, 2};
    params["VWN"] = {1, 2};
    params["SA"] = {0};
    params["SB"] = {0};
    d["tune_params"] = params;
    const nlohmann::json model = d["cache"].begin().value();
    d["cache"] = nlohmann::json::object();
    double time = 9.0;
    for (auto [mwg, vwm, vwn] : {std::tuple{64, 1, 1}, std::tuple{128, 2, 1}, std::tuple{64, 2, 2}}) {
        nlohmann::json entry = model;
        std::string key;
        for (const auto& name : d["tune_params_keys"]) {
            const std::string n = name.get<std::string>();
            entry[n] = params[n][0];
            if (n == "MWG")
                entry[n] = mwg;
            if (n == "VWM")
                entry[n] = vwm;
            if (n == "VWN")
                entry[n] = vwn;
            if (!key.empty())
                key += ',';
            key += entry[n].dump();
        }
        entry["time"] = time;
        entry["times"] = {time, time};
        time -= 1.0;
        d["cache"][key] = entry;
    }
    return d.dump();
}

} // namespace

class TestHardwareModels : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QProcessEnvironment m_env = QProcessEnvironment::systemEnvironment();

    CliResult cli(const QStringList& arguments) { return runCli(arguments, m_env, 300000); }

    // A copy of the tiny cache in its own folder, with the companion profile `analyze` writes (of the
    // configs in the file, or of the product).
    QString profiledCopy(const QString& name, bool product) {
        const QString dir = m_dir.filePath(name);
        QDir().mkpath(dir);
        const QString path = dir + "/tiny_gemm.json";
        writeText(path, tinyGemmCache());
        QStringList arguments{"analyze",
                              "--dataset",
                              path,
                              "--kernel-spec",
                              TUNESCOPE_RESOURCES "/dataset-kernels/gemm_clblast/kernel.json",
                              "--threads",
                              "2"};
        if (product)
            arguments << "--product";
        const CliResult r = cli(arguments);
        if (r.exitCode != 0)
            qWarning("%s", qPrintable(r.err));
        return path;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_env.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("cache"));
    }

    void tableEncodesItsRowsAndMissingRowsAsNaN() {
        ConfigFeatureTable table({"a", "b"});
        const float row[] = {1.5f, -2.0f};
        table.set(3, row);
        QCOMPARE(table.width(), std::size_t(2));
        QCOMPARE(table.rows(), std::size_t(1));
        float out[2];
        table.encode(3, out);
        QCOMPARE(out[0], 1.5f);
        QCOMPARE(out[1], -2.0f);
        table.encode(4, out);
        QVERIFY(std::isnan(out[0]) && std::isnan(out[1]));
        const float other[] = {7.0f, 8.0f};
        table.set(3, other); // replaces
        table.encode(3, out);
        QCOMPARE(out[0], 7.0f);
        QCOMPARE(table.rows(), std::size_t(1));
        QVERIFY(!errorOf([&] { table.set(5, std::span<const float>(other, 1)); }).starts_with("<no error>"));
    }

    void tableCoversADomainOnlyWhenEveryConfigHasARow() {
        HiddenRank h = hiddenRank();
        QVERIFY(h.table->covers(h.dataset->space, SpaceMode::Constrained));
        QVERIFY(h.table->covers(h.dataset->space, SpaceMode::Product));
        ConfigFeatureTable partial({"rank"});
        const float value = 1.0f;
        for (SearchSpace::Index i = 0; i + 1 < kValues; ++i)
            partial.set(i, std::span<const float>(&value, 1));
        QVERIFY(!partial.covers(h.dataset->space, SpaceMode::Constrained));
    }

    void encoderAppendsTheTableAfterTheParameters() {
        HiddenRank h = hiddenRank();
        const FeatureEncoder plain(h.dataset->space);
        const FeatureEncoder hardware(h.dataset->space, h.table);
        QCOMPARE(hardware.width(), plain.width() + 1);
        QCOMPARE(hardware.names().back(), std::string("rank"));
        const std::vector<SearchSpace::Index> indices{0, 17, 1023};
        const std::vector<float> a = plain.encode(h.dataset->space, indices);
        const std::vector<float> b = hardware.encode(h.dataset->space, indices);
        for (std::size_t r = 0; r < indices.size(); ++r) {
            for (std::size_t c = 0; c < plain.width(); ++c)
                QCOMPARE(b[r * hardware.width() + c], a[r * plain.width() + c]);
            QCOMPARE(b[r * hardware.width() + plain.width()], float(h.rank[indices[r]]));
        }
    }

    // The option hands the context's features to every cost model the strategy makes, and only then.
    void optionGivesTheFeaturesToEveryModel_data() {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("xgb") << "xgb";
        QTest::newRow("evolutionary") << "evolutionary";
    }
    void optionGivesTheFeaturesToEveryModel() {
        QFETCH(QString, strategy);
        HiddenRank h = hiddenRank();
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        for (bool on : {false, true}) {
            std::vector<const ConfigFeatureTable*> seen;
            auto strategyObject = registry.create(strategy.toStdString());
            StrategyContext context{
                &h.dataset->space, SpaceMode::Constrained, 1,
                registry.options(strategy.toStdString(), {{"hardware", on ? "true" : "false"}})};
            context.staticFeatures = h.table;
            context.costModel = [&](const CostModelRequest& request) -> std::unique_ptr<CostModel> {
                seen.push_back(request.features.get());
                return std::make_unique<XgbCostModel>(*request.space, XgbSettings{}, nullptr,
                                                      request.features);
            };
            strategyObject->reset(context);
            QVERIFY(!seen.empty());
            for (const ConfigFeatureTable* features : seen)
                QCOMPARE(features, on ? h.table.get() : nullptr);
        }
    }

    // Times that follow a static feature and not the parameters: with the feature, xgb finds configs among
    // the fastest 1 % within 40 evaluations; without, it does no better than random draws (expected best rank
    // about 1024 / 41, i.e. 25).
    void searchFindsWhatOnlyTheFeaturesExplain() {
        const HiddenRank h = hiddenRank();
        double withFeatures = 0.0, without = 0.0;
        const int seeds = 5;
        for (int seed = 0; seed < seeds; ++seed) {
            withFeatures += double(bestRankFound(h, true, seed, 40)) / seeds;
            without += double(bestRankFound(h, false, seed, 40)) / seeds;
        }
        qInfo("mean best rank in 40 evaluations: %.1f with the feature, %.1f without", withFeatures, without);
        QVERIFY2(withFeatures < 10.0, qPrintable(QString::number(withFeatures)));
        QVERIFY2(without > 10.0, qPrintable(QString::number(without)));
    }

    // Three "GPUs" of one space whose times follow each GPU's own static feature (a rank permuted
    // differently on each): a prior from two of them ranks the third's configs by its own feature only when
    // it is hardware-aware; the parameter-only prior can only copy the sources' rankings, which say nothing
    // of the third's.
    void hardwareAwarePriorRanksForTheTargetsHardware() {
        const HiddenRank a = hiddenRank(1), b = hiddenRank(2), target = hiddenRank(3);
        std::vector<PriorSource> sources;
        for (const HiddenRank* source : {&a, &b}) {
            PriorSource s;
            s.label = "source";
            s.space = &source->dataset->space;
            s.entries.assign(source->dataset->entries.begin(), source->dataset->entries.end());
            s.hardware = source->table;
            sources.push_back(s);
        }
        const SearchSpace& space = target.dataset->space;
        std::vector<SearchSpace::Index> all;
        std::vector<double> times;
        for (SearchSpace::Index i = 0; i < kValues; ++i) {
            all.push_back(i);
            times.push_back(target.dataset->entries.at(i).objective);
        }
        const TransferPrior aware(space, sources, XgbSettings{}, target.table);
        QVERIFY(aware.hardwareAware());
        const TransferPrior plain(space, sources);
        QVERIFY(!plain.hardwareAware());
        const double awareRho = spearman(aware.predictLog(all), times);
        const double plainRho = spearman(plain.predictLog(all), times);
        qInfo("Spearman on the target: %.3f hardware-aware, %.3f parameters only", awareRho, plainRho);
        QVERIFY2(awareRho > 0.9, qPrintable(QString::number(awareRho)));
        QVERIFY2(std::abs(plainRho) < 0.3, qPrintable(QString::number(plainRho)));
        // The favourites are the target's fastest configs.
        QVERIFY(target.rank[aware.favourites().front()] < 20);
        // A source without a table: the prior falls back to the parameters.
        sources[1].hardware = nullptr;
        QVERIFY(!TransferPrior(space, sources, XgbSettings{}, target.table).hardwareAware());
    }

    void productProfileHoldsTheProductWithItsGrid() {
#ifndef TUNESCOPE_WITH_CUDA
        QSKIP("This build has no CUDA backend (TUNESCOPE_WITH_CUDA): there is no NVRTC to compile profiles "
              "with.");
#endif
        const QString path = profiledCopy("product", true);
        const Dataset dataset = readDataset(path.toStdString());
        const DatasetProfile profile =
            DatasetProfile::read(DatasetProfile::companionPath(dataset.path), dataset);
        QCOMPARE(profile.configs.size(), std::size_t(8)); // the product, not the 3 configs in the file
        QCOMPARE(dataset.entries.size(), std::size_t(3));
        for (const auto& [key, c] : profile.configs) {
            QVERIFY2(c.compiled, key.c_str());
            QCOMPARE(c.threadsPerBlock, std::int64_t(16 * 8)); // MDIMC x NDIMC
            // (4096 / MWG) x (4096 / NWG) work-groups, as Kernel Tuner launched them
            const Config config = dataset.space.config(*dataset.space.indexOfKey(key));
            const auto mwg = std::get<std::int64_t>(config[*dataset.space.parameterIndex("MWG")]);
            QCOMPARE(c.blocks, (4096 / mwg) * (4096 / 64));
        }
        if (!OccupancyCalculator::available())
            return;
        const auto features = profileFeatures(dataset, profile);
        QVERIFY(features->covers(dataset.space, SpaceMode::Product));
        QCOMPARE(features->names(), HardwareFeatures::names());
        std::vector<float> row(features->width());
        for (const auto& [key, c] : profile.configs) {
            features->encode(*dataset.space.indexOfKey(key), row);
            QVERIFY(std::all_of(row.begin(), row.end(), [](float v) { return std::isfinite(v); }));
            QCOMPARE(row[0], float(c.registers / 255.0));
            QCOMPARE(row[6], float(c.occupancy));
        }
    }

    // A profile written before the grid was recorded gives its grid columns as missing values, the rest as
    // before.
    void profileWithoutTheGridLeavesItsColumnsMissing() {
        if (!OccupancyCalculator::available())
            QSKIP("This build lacks the CUDA toolkit's occupancy header.");
        const QString path = m_dir.filePath("tiny_old.json");
        writeText(path, tinyGemmCache());
        const Dataset dataset = readDataset(path.toStdString());
        DatasetProfile profile;
        profile.gpu = "RTX_3090";
        for (const auto& [index, m] : dataset.entries) {
            ConfigProfile c;
            c.compiled = true;
            c.registers = 64;
            c.threadsPerBlock = 128;
            c.occupancy = 0.5;
            profile.configs[dataset.space.key(index)] = c;
        }
        const auto features = profileFeatures(dataset, profile);
        QVERIFY(features->covers(dataset.space, SpaceMode::Constrained));
        QVERIFY(!features->covers(dataset.space, SpaceMode::Product));
        std::vector<float> row(features->width());
        features->encode(dataset.entries.begin()->first, row);
        const auto& names = HardwareFeatures::names();
        for (std::size_t i = 0; i < names.size(); ++i) {
            const bool grid =
                names[i] == "sm_fill" || names[i] == "waves_log2" || names[i] == "tail_efficiency";
            QVERIFY2(grid == std::isnan(row[i]), names[i].c_str());
        }
        // Recomputed on the RTX 3090: 64 registers x 128 threads allow 8 blocks of 4 warps, 32 of its 48.
        QCOMPARE(row[6], static_cast<float>(32.0 / 48.0));
        profile.gpu = "GTX_1080";
        QCOMPARE(
            errorOf([&] { profileFeatures(dataset, profile); }),
            std::string("The static profile of tiny_old.json was made for the GPU GTX_1080, which is not in "
                        "the GPU database, so its configs' hardware features cannot be computed."));
    }

    // hardware=true where the profile does not cover what the search may propose: one sentence naming the
    // dataset, from tune and from compare, exit 1; where it does, the run goes through.
    void sessionsNeedAProfileOfTheirDomain() {
#ifndef TUNESCOPE_WITH_CUDA
        QSKIP("This build has no CUDA backend (TUNESCOPE_WITH_CUDA): there is no NVRTC to compile profiles "
              "with.");
#endif
        const QString bare = m_dir.filePath("bare/tiny_gemm.json");
        QDir().mkpath(m_dir.filePath("bare"));
        writeText(bare, tinyGemmCache());
        const QString measured = profiledCopy("measured", false);
        const QString product = profiledCopy("whole", true);
        const QString db = m_dir.filePath("records.db");
        auto tune = [&](const QString& dataset, const QString& space) {
            return cli({"tune", "--dataset", dataset, "--strategy", "xgb", "--option", "hardware=true",
                        "--space", space, "--budget", "8", "--db", db});
        };
        CliResult r = tune(bare, "constrained");
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.err.contains("Option hardware=true needs the static profile of tiny_gemm.json, which has none"),
            qPrintable(r.err));
        r = tune(measured, "product");
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.err.contains("needs a static profile of every config a product search of tiny_gemm.json may "
                           "propose, but its profile holds 3 configs: remake it with tunescope-cli analyze "
                           "--dataset"),
            qPrintable(r.err));
        r = tune(measured, "constrained");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = tune(product, "product");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = cli({"tune", "--kernel", "gemm", "--backend", "cpu", "--option", "hardware=true", "--budget", "2",
                 "--db", db});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.err.contains("Option hardware=true applies to replay datasets with a static profile; a kernel "
                           "measured here has none yet."),
            qPrintable(r.err));
        r = cli({"compare", "--dataset", measured, "--strategies", "xgb", "--option", "xgb.hardware=true",
                 "--repeats", "1", "--budgets", "8"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("profile holds 3 configs"), qPrintable(r.err));
        r = cli({"compare", "--dataset", product, "--strategies", "xgb,random_sample", "--option",
                 "xgb.hardware=true", "--repeats", "1", "--budgets", "8"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    // tune --prior with hardware=true: a prior dataset with a profile gives a hardware-aware warm start; one
    // without falls back to the parameters and says so.
    void warmStartSaysWhetherItIsHardwareAware() {
#ifndef TUNESCOPE_WITH_CUDA
        QSKIP("This build has no CUDA backend (TUNESCOPE_WITH_CUDA): there is no NVRTC to compile profiles "
              "with.");
#endif
        if (!OccupancyCalculator::available())
            QSKIP("This build lacks the CUDA toolkit's occupancy header.");
        const QString target = profiledCopy("warm-target", true);
        const QString profiledPrior = profiledCopy("warm-prior", true);
        const QString barePrior = m_dir.filePath("warm-bare/tiny_gemm.json");
        QDir().mkpath(m_dir.filePath("warm-bare"));
        writeText(barePrior, tinyGemmCache());
        auto tune = [&](const QString& prior) {
            return cli({"tune", "--dataset", target, "--strategy", "xgb", "--option", "hardware=true",
                        "--space", "product", "--budget", "4", "--prior", prior, "--db",
                        m_dir.filePath("warm.db")});
        };
        CliResult r = tune(profiledPrior);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("Warm start (hardware-aware) from"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("parameters alone"), qPrintable(r.err));
        r = tune(barePrior);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(
                     "The prior uses the parameters alone: a hardware-aware prior needs a static profile "
                     "of the dataset tuned and of every source."),
                 qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestHardwareModels)
#include "TestHardwareModels.moc"
