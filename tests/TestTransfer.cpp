#include "CliRun.h"
#include "StrategyRun.h"
#include "datasets/DatasetCatalog.h"
#include "datasets/DatasetReader.h"
#include "datasets/TransferSources.h"
#include "hardware/OccupancyCalculator.h"
#include "models/ModelQuality.h"
#include "session/PreparedSession.h"
#include "store/RecordPriors.h"
#include "strategies/ModelGuidedSearch.h"
#include "util/Error.h"

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

using namespace ts;
using namespace ts::test;

namespace {

// Two brute-forced spaces of the same convolution kernel, on an RTX 2080 Ti and an RTX 3090.
std::shared_ptr<const Dataset> conv2080() {
    static const auto dataset = std::make_shared<const Dataset>(
        readDataset(TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_2080_Ti.json.gz"));
    return dataset;
}

std::shared_ptr<const Dataset> conv3090() {
    static const auto dataset = std::make_shared<const Dataset>(
        readDataset(TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz"));
    return dataset;
}

// The 2080 Ti's measurements with every Ok time inverted: a prior that points the wrong way.
std::shared_ptr<const Dataset> invertedConv2080() {
    static const auto dataset = [] {
        auto copy = std::make_shared<Dataset>(*conv2080());
        for (auto& [index, measurement] : copy->entries)
            if (measurement.status == MeasureStatus::Ok)
                measurement.objective = 1.0 / measurement.objective;
        return std::shared_ptr<const Dataset>(copy);
    }();
    return dataset;
}

std::shared_ptr<const TransferPrior> priorFrom(const Dataset& source, const Dataset& target) {
    std::vector<PriorSource> sources{priorSource(source)};
    return std::make_shared<const TransferPrior>(target.space, sources);
}

StrategyContext xgbContext(const Dataset& dataset, std::uint64_t seed,
                           std::shared_ptr<const TransferPrior> prior) {
    return {&dataset.space, SpaceMode::Product, seed,
            StrategyOptions("xgb", ModelGuidedSearch::optionTable(), {}), std::move(prior)};
}

// Mean fraction of optimum of xgb on `dataset` (the 3090 convolution's space by default) over `seeds` seeds.
double meanFraction(std::shared_ptr<const TransferPrior> prior, std::int64_t budget, int seeds,
                    const std::shared_ptr<const Dataset>& dataset = conv3090()) {
    double sum = 0.0;
    for (int seed = 0; seed < seeds; ++seed) {
        RunOutcome run = runStrategy(std::make_unique<ModelGuidedSearch>(), xgbContext(*dataset, seed, prior),
                                     dataset, budget, 8);
        sum += fractionOfOptimum(run.trials, *dataset->optimum());
    }
    return sum / seeds;
}

// A folder holding copies of resources/datasets files, as a dataset catalog's root.
void copyDatasets(const QString& folder, const QStringList& names) {
    QDir().mkpath(folder);
    for (const QString& name : names)
        QVERIFY(QFile::copy(TUNESCOPE_RESOURCES "/datasets/" + name, folder + "/" + name));
}

// The environment of a process whose dataset catalog holds `resources` (its datasets/ folder) and nothing
// else: no user data folder, no TUNESCOPE_DATASET_PATH.
QProcessEnvironment catalogEnvironment(const QString& resources, const QString& home) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("TUNESCOPE_RESOURCES", resources);
    environment.insert("XDG_DATA_HOME", home);
    environment.remove("TUNESCOPE_DATASET_PATH");
    return environment;
}

Trial trialOf(const Dataset& dataset, SearchSpace::Index index, std::int64_t number) {
    Trial trial;
    trial.number = number;
    trial.index = index;
    trial.config = dataset.space.config(index);
    trial.measurement = dataset.entries.at(index);
    return trial;
}

} // namespace

class TestTransfer : public QObject {
    Q_OBJECT

private slots:
    void priorRanksTheOtherDevicesConfigs();
    void warmStartBeatsColdStartAtSmallBudgets();
    void misleadingPriorIsOutgrown();
    void misleadingPriorIsDroppedWhereMostConfigsFail();
    void sameSeedSameSequenceWithPrior();
    void favouritesOfALargeProductAreDrawnFromTheProduct();
    void incompatibleSourcesAreRefused();
    void earlierSessionsInTheDatabaseAreSources();
    void cliWarmStartsAndRefusesBadPriors();
    void compareTransferNamesItsRunsApart();
    void catalogFindsTheSameKernelByItsHeader();
    void tuneStartsWarmFromTheBundledDatasetsUnlessCold();
    void aResumeStartsFromTheSourcesFoundAtTheStart();
    void comparePriorIsAChosenSourceReportedApart();
};

void TestTransfer::priorRanksTheOtherDevicesConfigs() {
    auto prior = priorFrom(*conv2080(), *conv3090());
    QCOMPARE(prior->sources().size(), std::size_t(1));
    std::vector<SearchSpace::Index> ok, failed;
    std::vector<double> logTime;
    for (const auto& [index, measurement] : conv3090()->entries) {
        if (measurement.status == MeasureStatus::Ok) {
            ok.push_back(index);
            logTime.push_back(std::log(measurement.objective));
        } else {
            failed.push_back(index);
        }
    }
    std::vector<double> predicted = prior->predictLog(ok);
    double rho = spearman(predicted, logTime);
    qInfo("prior (2080 Ti) vs measured (3090): Spearman %.3f on %zu configs", rho, ok.size());
    QVERIFY2(rho > 0.7, qPrintable(QString::number(rho)));
    // Configs absent from the 3090's product are mostly the ones the prior calls invalid.
    std::vector<SearchSpace::Index> absent;
    for (SearchSpace::Index index = 0; index < conv3090()->space.productSize() && absent.size() < 2000;
         index += 3)
        if (!conv3090()->entries.contains(index))
            absent.push_back(index);
    std::vector<double> pOk = prior->predictValid(ok), pAbsent = prior->predictValid(absent);
    double meanOk = std::accumulate(pOk.begin(), pOk.end(), 0.0) / double(pOk.size());
    double meanAbsent = std::accumulate(pAbsent.begin(), pAbsent.end(), 0.0) / double(pAbsent.size());
    qInfo("prior P(valid): %.3f on the 3090's Ok configs, %.3f on configs absent there", meanOk, meanAbsent);
    QVERIFY(meanOk > meanAbsent + 0.5);
    // The favourites are configs the prior ranks best: the first is among the fastest few percent of the
    // 3090.
    QVERIFY(!prior->favourites().empty());
    auto first = conv3090()->entries.find(prior->favourites().front());
    QVERIFY(first != conv3090()->entries.end() && first->second.status == MeasureStatus::Ok);
    QVERIFY(*conv3090()->optimum() / first->second.objective > 0.8);
}

void TestTransfer::warmStartBeatsColdStartAtSmallBudgets() {
    double cold = meanFraction(nullptr, 10, 4);
    double warm = meanFraction(priorFrom(*conv2080(), *conv3090()), 10, 4);
    qInfo("3090 convolution, 10 evaluations, 4 seeds: cold %.3f, warm-started from the 2080 Ti %.3f", cold,
          warm);
    QVERIFY(warm > 0.95);
    QVERIFY(warm > cold + 0.1);
}

void TestTransfer::misleadingPriorIsOutgrown() {
    // A prior that ranks the configs backwards must not trap the search: its weight is fitted on this
    // device's own trials, so by 100 evaluations the run is within 0.15 of a cold one (which finds the
    // optimum or nearly here) and above random sampling's exact expectation at 100 on this space (0.845).
    double cold = meanFraction(nullptr, 100, 3);
    double misled = meanFraction(priorFrom(*invertedConv2080(), *conv3090()), 100, 3);
    qInfo("3090 convolution, 100 evaluations, 3 seeds: cold %.3f, with an inverted prior %.3f", cold, misled);
    QVERIFY(misled > cold - 0.15);
    QVERIFY(misled > 0.845);
}

// Where most random configs fail (the CLBlast GEMM in product mode: about one in four runs), twelve uniform
// probes often held fewer than three Ok ones, the prior was never judged and a backwards prior stayed for the
// whole run. The probes are the likeliest valid of a few by this device's validity model, and the prior is
// judged once they are all measured: the GEMM's own times reversed are dropped, and by 100 evaluations the
// run is within 0.01 of a cold one (4 seeds: 0.06 ahead of it, where it was 0.03 behind before).
void TestTransfer::misleadingPriorIsDroppedWhereMostConfigsFail() {
    static const auto gemm = std::make_shared<const Dataset>(
        readDataset(TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz"));
    auto reversed = std::make_shared<Dataset>(*gemm);
    std::vector<double> times;
    for (const auto& [index, measurement] : reversed->entries)
        if (measurement.status == MeasureStatus::Ok)
            times.push_back(measurement.objective);
    std::sort(times.begin(), times.end());
    for (auto& [index, measurement] : reversed->entries)
        if (measurement.status == MeasureStatus::Ok)
            measurement.objective =
                times[times.size() - 1 -
                      (std::lower_bound(times.begin(), times.end(), measurement.objective) - times.begin())];
    const auto prior = priorFrom(*reversed, *gemm);
    const double cold = meanFraction(nullptr, 100, 4, gemm), misled = meanFraction(prior, 100, 4, gemm);
    qInfo("RTX 3090 GEMM, 100 evaluations, 4 seeds: cold %.3f, with its own times reversed %.3f", cold,
          misled);
    QVERIFY(misled > cold - 0.01);
}

void TestTransfer::sameSeedSameSequenceWithPrior() {
    auto prior = priorFrom(*conv2080(), *conv3090());
    auto run = [&] {
        return runStrategy(std::make_unique<ModelGuidedSearch>(), xgbContext(*conv3090(), 7, prior),
                           conv3090(), 40, 8)
            .proposed;
    };
    std::vector<SearchSpace::Index> a = run(), b = run();
    QCOMPARE(a.size(), std::size_t(40));
    QVERIFY(a == b);
    QVERIFY(unique(a));
}

// A product too large to tabulate (16^6 configs) of which the target knows 200 valid ones (in product-mode
// replay: the configs its dataset measured, which the search must not be told). The favourites come from the
// whole product: the full 4096 of them, nearly all outside those 200, spread over the product, the same for
// the same seed.
void TestTransfer::favouritesOfALargeProductAreDrawnFromTheProduct() {
    std::vector<Parameter> parameters;
    for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
        Parameter p{name, ParameterType::Integer, {}};
        for (std::int64_t v = 1; v <= 16; ++v)
            p.values.emplace_back(v);
        parameters.push_back(std::move(p));
    }
    std::vector<SearchSpace::Index> valid, measured;
    for (SearchSpace::Index i = 0; i < 200; ++i)
        valid.push_back(i * 83'813 + 5);
    for (SearchSpace::Index i = 0; i < 400; ++i)
        measured.push_back(i * 41'903 + 11);
    const SearchSpace target = SearchSpace::fromValidSet(parameters, valid);
    const SearchSpace sourceSpace = SearchSpace::fromValidSet(parameters, measured);
    QVERIFY(target.productSize() > (SearchSpace::Index(1) << 22));
    PriorSource source{"synthetic", &sourceSpace, {}, false};
    for (SearchSpace::Index index : measured) {
        Measurement m;
        m.status = MeasureStatus::Ok;
        auto digits = sourceSpace.digits(index);
        m.objective = 1.0 + std::accumulate(digits.begin(), digits.end(), 0.0);
        source.entries.emplace_back(index, m);
    }
    const std::vector<PriorSource> sources{source};
    const TransferPrior prior(target, sources);
    const std::vector<SearchSpace::Index>& favourites = prior.favourites();
    QCOMPARE(favourites.size(), std::size_t(4096));
    std::size_t outside = 0;
    for (SearchSpace::Index index : favourites) {
        QVERIFY(index < target.productSize());
        outside += !target.isValid(index);
    }
    qInfo("%zu of the 4096 favourites are outside the target's 200 valid configs", outside);
    QVERIFY(outside >= favourites.size() - valid.size());
    std::vector<SearchSpace::Index> sorted = favourites;
    std::sort(sorted.begin(), sorted.end());
    QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    QCOMPARE(TransferPrior(target, sources).favourites(), favourites);
}

void TestTransfer::incompatibleSourcesAreRefused() {
    auto pnpoly = readDataset(TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz");
    QVERIFY(!TransferPrior::compatible(conv3090()->space, pnpoly.space));
    QVERIFY(TransferPrior::compatible(conv3090()->space, conv2080()->space));
    std::vector<PriorSource> sources{priorSource(pnpoly)};
    QVERIFY_THROWS_EXCEPTION(Error, TransferPrior(conv3090()->space, sources));
    // Leave one out: the 3090's prior comes from the 2080 Ti only; pnpoly has no sibling and no prior.
    std::vector<std::shared_ptr<const Dataset>> all{conv2080(), conv3090(),
                                                    std::make_shared<const Dataset>(std::move(pnpoly))};
    auto prior = leaveOneOutPrior(all, 1, 1);
    QVERIFY(prior);
    QCOMPARE(prior->sources(), std::vector<std::string>{"convolution_2021_RTX_2080_Ti.json.gz"});
    QVERIFY(!leaveOneOutPrior(all, 2, 1));
}

void TestTransfer::earlierSessionsInTheDatabaseAreSources() {
    QTemporaryDir dir;
    RecordStore store(dir.filePath("records.db").toStdString());
    const Dataset& source = *conv2080();
    std::vector<std::string> names;
    nlohmann::json nameList = nlohmann::json::array();
    for (const Parameter& p : source.space.parameters()) {
        names.push_back(p.name);
        nameList.push_back(p.name);
    }
    auto session = [&](const std::string& kernel, const std::string& parameters) {
        SessionRecord record;
        record.kernel = kernel;
        record.device = "NVIDIA GeForce RTX 2080 Ti";
        record.problem = "[4096, 4096]";
        record.backend = "replay";
        record.parameters = parameters;
        return store.beginSession(record);
    };
    std::vector<SearchSpace::Index> ok, failed;
    for (const auto& [index, measurement] : source.entries)
        (measurement.status == MeasureStatus::Ok ? ok : failed).push_back(index);
    std::sort(ok.begin(), ok.end());
    std::sort(failed.begin(), failed.end());
    const std::int64_t useful = session("convolution_kernel", nameList.dump());
    for (int i = 0; i < 5; ++i)
        store.commit(useful, trialOf(source, ok[i], i), names);
    store.commit(useful, trialOf(source, failed[0], 5), names);
    const std::int64_t otherKernel = session("cn_pnpoly", nameList.dump());
    for (int i = 0; i < 3; ++i)
        store.commit(otherKernel, trialOf(source, ok[i], i), names);
    const std::int64_t oneOk = session("convolution_kernel", nameList.dump());
    store.commit(oneOk, trialOf(source, ok[0], 0), names);
    store.commit(oneOk, trialOf(source, failed[0], 1), names);
    const std::int64_t current = session("convolution_kernel", nameList.dump());
    for (int i = 0; i < 3; ++i)
        store.commit(current, trialOf(source, ok[10 + i], i), names);

    std::vector<PriorSource> sources =
        recordPriorSources(store, "convolution_kernel", conv3090()->space, current);
    QCOMPARE(sources.size(), std::size_t(1));
    QVERIFY(sources[0].label.starts_with(fmt::format("session {} ", useful)));
    QCOMPARE(sources[0].entries.size(), std::size_t(6));
    QVERIFY(!sources[0].absentAreInvalid);
    for (std::size_t i = 0; i < 5; ++i) {
        QCOMPARE(sources[0].entries[i].first, ok[i]); // same parameter lists: same product indices
        QCOMPARE(sources[0].entries[i].second.objective, source.entries.at(ok[i]).objective);
    }
    QCOMPARE(sources[0].entries[5].second.status, source.entries.at(failed[0]).status);
    // Not excluding the current session makes it a source too.
    QCOMPARE(recordPriorSources(store, "convolution_kernel", conv3090()->space).size(), std::size_t(2));
}

void TestTransfer::cliWarmStartsAndRefusesBadPriors() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    const QString target = TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz";
    const QString prior = TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_2080_Ti.json.gz";
    CliResult warm = runCli({"tune", "--dataset", target, "--prior", prior, "--space", "product", "--budget",
                             "12", "--db", db, "--json"});
    QCOMPARE(warm.exitCode, 0);
    QVERIFY2(warm.err.contains("Warm start from") &&
                 warm.err.contains("convolution_2021_RTX_2080_Ti.json.gz"),
             qPrintable(warm.err));
    const auto result = nlohmann::json::parse(warm.out.toStdString());
    QCOMPARE(result["evaluations"].get<int>(), 12);

    // --transfer finds that session in the database when tuning the 2080 Ti.
    CliResult fromRecords =
        runCli({"tune", "--dataset", prior, "--transfer", "--space", "product", "--budget", "5", "--db", db});
    QCOMPARE(fromRecords.exitCode, 0);
    QVERIFY2(fromRecords.err.contains("Warm start from") && fromRecords.err.contains("session 1 "),
             qPrintable(fromRecords.err));

    CliResult wrongKernel = runCli({"tune", "--dataset", target, "--prior",
                                    TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz", "--db", db});
    QCOMPARE(wrongKernel.exitCode, 1);
    QVERIFY2(wrongKernel.err.contains("pnpoly_RTX_3090.json.gz: its parameters are not those of the space"),
             qPrintable(wrongKernel.err));
    QCOMPARE(wrongKernel.err.count('\n'), 1);

    CliResult otherStrategy =
        runCli({"tune", "--dataset", target, "--prior", prior, "--strategy", "tpe", "--db", db});
    QCOMPARE(otherStrategy.exitCode, 1);
    QVERIFY2(otherStrategy.err.contains("tpe does not use a prior"), qPrintable(otherStrategy.err));

    CliResult missing =
        runCli({"tune", "--dataset", target, "--prior", dir.filePath("none.json"), "--db", db});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("none.json"), qPrintable(missing.err));
}

void TestTransfer::compareTransferNamesItsRunsApart() {
    QTemporaryDir dir;
    const QString trace = dir.filePath("trace.jsonl");
    CliResult run = runCli({"compare", "--dataset",
                            TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_2080_Ti.json.gz", "--dataset",
                            TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz", "--strategies",
                            "xgb", "--repeats", "2", "--budgets", "10,20", "--transfer", "--trace", trace});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("warm starts"), qPrintable(run.out));
    std::ifstream in(trace.toStdString());
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        QCOMPARE(nlohmann::json::parse(line)["strategy"].get<std::string>(), std::string("xgb+transfer"));
        ++lines;
    }
    QCOMPARE(lines, 4);
}

void TestTransfer::catalogFindsTheSameKernelByItsHeader() {
    QTemporaryDir dir;
    // Names that say nothing: the catalog reads what the files are.
    QDir().mkpath(dir.filePath("a/deep"));
    QVERIFY(QFile::copy(TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_2080_Ti.json.gz",
                        dir.filePath("a/deep/one.json.gz")));
    QVERIFY(QFile::copy(TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_2080_Ti.json.gz",
                        dir.filePath("a/same-measurement.json.gz")));
    QVERIFY(
        QFile::copy(TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz", dir.filePath("two.json.gz")));
    { std::ofstream(dir.filePath("notes.json").toStdString()) << R"({"tune_params": 3})"; }
    { std::ofstream(dir.filePath("broken.json.gz").toStdString()) << "\x1f\x8b garbage"; }
    { std::ofstream(dir.filePath("readme.txt").toStdString()) << "not looked at"; }

    const DatasetCatalog catalog({dir.path().toStdString(), dir.filePath("missing").toStdString()});
    QCOMPARE(catalog.datasets().size(), std::size_t(3));
    QCOMPARE(catalog.skipped().size(), std::size_t(2));
    for (const std::string& line : catalog.skipped())
        QVERIFY2(line.find("notes.json: ") != std::string::npos ||
                     line.find("broken.json.gz: ") != std::string::npos,
                 line.c_str());
    // The header says what readDataset would.
    const DatasetHeader header =
        readDatasetHeader(TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz");
    QCOMPARE(header.kernelName, conv3090()->kernelName);
    QCOMPARE(header.deviceName, conv3090()->deviceName);
    QCOMPARE(header.problemSize, conv3090()->problemSize);
    QCOMPARE(header.parameterNames.size(), conv3090()->space.parameters().size());
    // Every format's header (read from a prefix for Kernel Tuner and T4 files) says what its reader does.
    for (const char* file :
         {TUNESCOPE_RESOURCES "/datasets/t4/convolution_milo_A100_T4.json.gz",
          TUNESCOPE_TEST_DATA "/t4_convolution.json", TUNESCOPE_TEST_DATA "/ktt_pnpoly.json",
          TUNESCOPE_TEST_DATA "/kt_gemm_clblast.json"}) {
        const DatasetHeader h = readDatasetHeader(file);
        const Dataset d = readDataset(file);
        std::vector<std::string> names;
        for (const Parameter& p : d.space.parameters())
            names.push_back(p.name);
        std::sort(names.begin(), names.end());
        QCOMPARE(h.kernelName, d.kernelName);
        QCOMPARE(h.deviceName, d.deviceName);
        QCOMPARE(h.problemSize, d.problemSize);
        QCOMPARE(h.parameterNames, names);
    }

    // The 3090's sources: the 2080 Ti once (two files of one measurement), never pnpoly.
    const std::vector<DatasetHeader> sources = catalog.sourcesFor(header);
    QCOMPARE(sources.size(), std::size_t(1));
    QCOMPARE(sources[0].deviceName, conv2080()->deviceName);
    // A dataset is never its own source, nor is another file of its measurement.
    DatasetHeader self = sources[0];
    QVERIFY(catalog.sourcesFor(self).empty());
    // The user's folders are searched after the bundled ones.
    qputenv("TUNESCOPE_DATASET_PATH", QByteArray("/nonexistent:") + dir.filePath("a").toUtf8());
    const auto roots = DatasetCatalog::searchPath();
    qunsetenv("TUNESCOPE_DATASET_PATH");
    QVERIFY(std::find(roots.begin(), roots.end(), std::filesystem::path(dir.filePath("a").toStdString())) !=
            roots.end());
    QCOMPARE(roots.front(), std::filesystem::path(TUNESCOPE_RESOURCES "/datasets"));
}

void TestTransfer::tuneStartsWarmFromTheBundledDatasetsUnlessCold() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    const QString target = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";
    // The bundled datasets as they ship (the GEMM on the RTX 2080 Ti is the other GPU's).
    const QProcessEnvironment environment = catalogEnvironment(TUNESCOPE_RESOURCES, dir.filePath("home"));
    CliResult warm =
        runCli({"tune", "--dataset", target, "--space", "product", "--budget", "8", "--db", db, "--json"},
               environment);
    QCOMPARE(warm.exitCode, 0);
    // Hardware-aware: both GEMM datasets ship static profiles (where the build has CUDA's occupancy header).
    const QString announced =
        OccupancyCalculator::available() ? "Warm start (hardware-aware) from " : "Warm start from ";
    QVERIFY2(warm.err.contains(announced) &&
                 warm.err.contains("gemm_clblast_RTX_2080_Ti.json.gz (NVIDIA GeForce RTX 2080 Ti): ") &&
                 warm.err.contains("1 source(s)") && warm.err.contains("--cold starts without it"),
             qPrintable(warm.err));
    CliResult cold = runCli(
        {"tune", "--dataset", target, "--space", "product", "--budget", "8", "--db", db, "--cold", "--json"},
        environment);
    QCOMPARE(cold.exitCode, 0);
    QVERIFY2(!cold.err.contains("Warm start") && !cold.err.contains("2080"), qPrintable(cold.err));

    // The record says what each started from; the warm plan keeps the file it found.
    RecordStore store(db.toStdString());
    const auto warmSettings = nlohmann::json::parse(store.session(1)->settings);
    QCOMPARE(warmSettings["cold"].get<bool>(), false);
    QCOMPARE(warmSettings["found"]["datasets"].size(), std::size_t(1));
    QVERIFY(warmSettings["found"]["datasets"][0].get<std::string>().ends_with(
        "gemm_clblast_RTX_2080_Ti.json.gz"));
    QCOMPARE(warmSettings["warm_start"]["hardware_aware"].get<bool>(), OccupancyCalculator::available());
    QCOMPARE(warmSettings["warm_start"]["sources"][0]["source"].get<std::string>(),
             std::string("gemm_clblast_RTX_2080_Ti.json.gz (NVIDIA GeForce RTX 2080 Ti)"));
    const auto coldSettings = nlohmann::json::parse(store.session(2)->settings);
    QCOMPARE(coldSettings["cold"].get<bool>(), true);
    QVERIFY(!coldSettings.contains("found") && !coldSettings.contains("warm_start"));
    // The warm start found its way to better configs first: the prior's favourites.
    const auto best = [&](std::int64_t id) {
        double b = INFINITY;
        for (const StoredTrial& t : store.trials(id))
            if (t.status == "ok")
                b = std::min(b, t.objective);
        return b;
    };
    QVERIFY2(best(1) < best(2), qPrintable(QString("%1 vs %2").arg(best(1)).arg(best(2))));

    // --cold reproduces a cold run config for config; what the catalog holds changes nothing then.
    const QProcessEnvironment empty = catalogEnvironment(dir.filePath("nothing"), dir.filePath("home"));
    CliResult coldElsewhere = runCli(
        {"tune", "--dataset", target, "--space", "product", "--budget", "8", "--db", db, "--cold", "--json"},
        empty);
    QCOMPARE(coldElsewhere.exitCode, 0);
    std::vector<std::string> first, again;
    for (const StoredTrial& t : store.trials(2))
        first.push_back(t.config);
    for (const StoredTrial& t : store.trials(3))
        again.push_back(t.config);
    QCOMPARE(again, first);
    // With nothing to start from, a warm default is a cold run, config for config, and says nothing of it.
    CliResult nothing = runCli(
        {"tune", "--dataset", target, "--space", "product", "--budget", "8", "--db", db, "--json"}, empty);
    QCOMPARE(nothing.exitCode, 0);
    QVERIFY2(!nothing.err.contains("Warm start") && !nothing.err.contains("cold"), qPrintable(nothing.err));
    std::vector<std::string> unwarmed;
    for (const StoredTrial& t : store.trials(4))
        unwarmed.push_back(t.config);
    QCOMPARE(unwarmed, first);
}

void TestTransfer::aResumeStartsFromTheSourcesFoundAtTheStart() {
    QTemporaryDir dir;
    copyDatasets(dir.filePath("first/datasets"), {"convolution_2021_RTX_2080_Ti.json.gz"});
    QDir().mkpath(dir.filePath("second/datasets"));
    qputenv("XDG_DATA_HOME", dir.filePath("home").toUtf8());
    qunsetenv("TUNESCOPE_DATASET_PATH");
    qputenv("TUNESCOPE_RESOURCES", dir.filePath("first").toUtf8());
    RecordStore store(dir.filePath("records.db").toStdString());
    SessionPlan plan;
    plan.dataset = TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz";
    plan.mode = SpaceMode::Product;
    plan.budget = 24;
    std::vector<std::string> said;
    PreparedSession::Hooks hooks;
    hooks.warmStart = [&](const std::string& line) { said.push_back(line); };
    std::int64_t id = 0;
    {
        auto session = PreparedSession::create(plan, store, hooks);
        QVERIFY(session->prior());
        id = session->open();
        QVERIFY(!session->step(8)); // interrupted after one batch: resumable
    }
    QCOMPARE(said.size(), std::size_t(1));
    QVERIFY2(said[0].find("convolution_2021_RTX_2080_Ti.json.gz (") != std::string::npos, said[0].c_str());
    // The catalog has changed since; the resume starts from what the session found.
    qputenv("TUNESCOPE_RESOURCES", dir.filePath("second").toUtf8());
    said.clear();
    {
        auto resumed = PreparedSession::resume(store, id, std::nullopt, hooks);
        QVERIFY(resumed->prior());
        QCOMPARE(resumed->plan().found, SessionPlan::ofRecord(*store.session(id)).found);
    }
    QCOMPARE(said.size(), std::size_t(1));
    QVERIFY2(said[0].find("convolution_2021_RTX_2080_Ti.json.gz (") != std::string::npos, said[0].c_str());
    // A new session finds nothing now: the catalog is empty, and the interrupted session measured this
    // dataset's own device and size.
    said.clear();
    QVERIFY(!PreparedSession::create(plan, store, hooks)->prior());
    QVERIFY(said.empty());
    qunsetenv("TUNESCOPE_RESOURCES");
    qunsetenv("XDG_DATA_HOME");
    // A plan stored before warm starts were the default resumes cold, as it ran.
    SessionRecord old = *store.session(id);
    auto settings = nlohmann::json::parse(old.settings);
    settings.erase("cold");
    settings.erase("found");
    old.settings = settings.dump();
    QVERIFY(SessionPlan::ofRecord(old).cold);
    QVERIFY(!SessionPlan::ofRecord(old).found);
}

void TestTransfer::comparePriorIsAChosenSourceReportedApart() {
    QTemporaryDir dir;
    const QString trace = dir.filePath("trace.jsonl");
    CliResult run =
        runCli({"compare", "--dataset", TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz",
                "--strategies", "xgb,random_sample", "--repeats", "2", "--budgets", "10", "--prior",
                TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_2080_Ti.json.gz", "--trace", trace});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("warm starts: xgb started from the 1 prior dataset(s) given"),
             qPrintable(run.out));
    std::ifstream in(trace.toStdString());
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        // Only the strategy that uses a prior is named apart; random_sample ran as it always does.
        const std::string name = nlohmann::json::parse(line)["strategy"].get<std::string>();
        QVERIFY2(name == "xgb+prior" || name == "random_sample", name.c_str());
        ++lines;
    }
    QCOMPARE(lines, 4);
    CliResult cold =
        runCli({"compare", "--dataset", TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz",
                "--strategies", "xgb", "--repeats", "1", "--budgets", "10"});
    QCOMPARE(cold.exitCode, 0);
    QVERIFY2(cold.out.contains("cold starts: no strategy started from another measurement"),
             qPrintable(cold.out));
    CliResult both = runCli(
        {"compare", "--dataset", TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz",
         "--transfer", "--prior", TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_2080_Ti.json.gz"});
    QVERIFY(both.exitCode > 0);
    QVERIFY2(both.err.contains("--transfer excludes --prior"), qPrintable(both.err));
}

QTEST_GUILESS_MAIN(TestTransfer)
#include "TestTransfer.moc"
