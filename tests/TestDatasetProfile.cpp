// Static profiles of replayed spaces: `analyze --dataset` compiles every config of a dataset with the kernel
// spec of its measured source (real NVRTC), writes the companion profile atomically, agrees with `analyze
// --kernel-spec` on the same config, stops on Ctrl-C without writing; the replay backend attaches the
// profile's values as metrics; hostile companions are refused with one sentence naming the file.
#include "CliRun.h"
#include "ErrorOf.h"
#include "TextFiles.h"

#include "backends/ReplayBackend.h"
#include "datasets/DatasetProfile.h"
#include "datasets/DatasetReader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <sstream>

using namespace ts;
using namespace ts::test;

namespace {

const QString kFixture = TUNESCOPE_TEST_DATA "/kt_gemm_clblast.json";
const QString kSpecDir = TUNESCOPE_RESOURCES "/dataset-kernels/gemm_clblast";
const QString kSpec = kSpecDir + "/kernel.json";
const QString kBundledGemm = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";
const QString kDemo = TUNESCOPE_RESOURCES "/datasets/dedispersion_milo_A100.json.gz";
const QString kDemoSpecDir = TUNESCOPE_RESOURCES "/dataset-kernels/dedispersion";

} // namespace

class TestDatasetProfile : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_dataset;
    QString m_profile;
    QProcessEnvironment m_env = QProcessEnvironment::systemEnvironment();

    CliResult cli(const QStringList& arguments, const QProcessEnvironment* env = nullptr) {
        return runCli(arguments, env ? *env : m_env, 300000);
    }

    // A copy of the dataset with `edit` applied to its JSON, in the suite's folder.
    QString editedDataset(const QString& name, const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json d = nlohmann::json::parse(readText(kFixture));
        edit(d);
        const QString path = m_dir.filePath(name);
        writeText(path, d.dump());
        return path;
    }

    // The sentence reading `text` as m_dataset's companion gives.
    std::string companionError(const std::string& text) {
        const QString path = m_dir.filePath("hostile/kt_gemm_clblast.json");
        QDir().mkpath(m_dir.filePath("hostile"));
        QFile::remove(path);
        if (!QFile::copy(m_dataset, path))
            return "could not copy " + m_dataset.toStdString();
        writeText(m_dir.filePath("hostile/kt_gemm_clblast.profile"), text);
        const Dataset dataset = readDataset(path.toStdString());
        return errorOf([&] { DatasetProfile::companionOf(dataset); });
    }

private slots:
    void initTestCase() {
#ifndef TUNESCOPE_WITH_CUDA
        QSKIP("This build has no CUDA backend (TUNESCOPE_WITH_CUDA): there is no NVRTC to compile profiles "
              "with.");
#endif
        QVERIFY(m_dir.isValid());
        m_env.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("cache"));
        m_dataset = m_dir.filePath("kt_gemm_clblast.json");
        QVERIFY(QFile::copy(kFixture, m_dataset));
        m_profile = m_dir.filePath("kt_gemm_clblast.profile");
        CliResult r = cli({"analyze", "--dataset", m_dataset, "--kernel-spec", kSpec, "--threads", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.contains("profiling kt_gemm_clblast.json: 6 of 6 configs compiled"));
        QVERIFY(r.out.contains("6 configs of kt_gemm_clblast.json compiled for sm_86"));
        QVERIFY(QFile::exists(m_profile));
        // Written atomically: no temporary is left beside it.
        QCOMPARE(QDir(m_dir.path()).entryList({"*.tmp*", ".*tmp*"}, QDir::Files | QDir::Hidden).size(), 0);
    }

    void profileHoldsEveryConfigWithItsHeader() {
        const Dataset dataset = readDataset(m_dataset.toStdString());
        const DatasetProfile p = DatasetProfile::read(m_profile.toStdString(), dataset);
        QCOMPARE(p.configs.size(), dataset.entries.size());
        QCOMPARE(p.architecture, std::string("sm_86")); // the RTX 3090's own
        QCOMPARE(p.gpu, std::string("RTX_3090"));       // looked up from "NVIDIA GeForce RTX 3090"
        QCOMPARE(p.kernelSpec, std::string("gemm_clblast"));
        QVERIFY(p.sourceHash.starts_with("fnv1a64:"));
        QVERIFY(!p.nvrtcVersion.empty());
        for (const auto& [key, c] : p.configs) {
            QVERIFY2(c.compiled, key.c_str());
            QVERIFY(c.registers > 0 && c.registers <= 255);
            QVERIFY(c.occupancy > 0.0 && c.occupancy <= 1.0);
            // MDIMC x NDIMC threads (the block Kernel Tuner launched).
            const Config config = dataset.space.config(*dataset.space.indexOfKey(key));
            const auto mdimc = std::get<std::int64_t>(config[*dataset.space.parameterIndex("MDIMC")]);
            const auto ndimc = std::get<std::int64_t>(config[*dataset.space.parameterIndex("NDIMC")]);
            QCOMPARE(c.threadsPerBlock, mdimc * ndimc);
        }
    }

    // `analyze --kernel-spec --json` of one config of `dataset` alone, compiled afresh (its own cubin cache):
    // a copy of the spec in `specDir` whose parameters hold only that config's values.
    nlohmann::json analyzeOneConfig(const QString& specDir, const Dataset& dataset, const std::string& key,
                                    const QString& target) {
        const Config config = dataset.space.config(*dataset.space.indexOfKey(key));
        const QString dir = m_dir.filePath("one-config-" + QFileInfo(specDir).fileName());
        QDir().mkpath(dir);
        for (const QString& file : QDir(specDir).entryList(QDir::Files))
            QFile::copy(specDir + "/" + file, dir + "/" + file);
        nlohmann::json spec = nlohmann::json::parse(readText(specDir + "/kernel.json"));
        for (auto& parameter : spec["variants"]["cuda"]["parameters"]) {
            const auto index = dataset.space.parameterIndex(parameter["name"].get<std::string>());
            if (!index)
                continue;
            const std::int64_t value = std::get<std::int64_t>(config[*index]);
            parameter["values"] = nlohmann::json::array({value});
            parameter["default"] = value;
        }
        writeText(dir + "/kernel.json", spec.dump());
        QProcessEnvironment fresh = m_env;
        fresh.insert("TUNESCOPE_CACHE_DIR", // afresh for every dataset (two files may hold the same configs)
                     dir + "/cache-" + QString::fromStdString(dataset.path.filename().string()));
        CliResult r =
            cli({"analyze", "--kernel-spec", dir + "/kernel.json", "--target", target, "--json"}, &fresh);
        if (r.exitCode != 0)
            return nlohmann::json{{"error", r.err.toStdString()}};
        return nlohmann::json::parse(r.out.toStdString());
    }

    static void compareRow(const nlohmann::json& out, const ConfigProfile& row) {
        QVERIFY2(out.contains("configs"), out.dump().c_str());
        QCOMPARE(out["cache_hits"].get<int>(), 0);
        const nlohmann::json& one = out["configs"][0];
        QCOMPARE(one["compiled"].get<bool>(), row.compiled);
        if (!row.compiled)
            return;
        QCOMPARE(one["registers"].get<int>(), row.registers);
        QCOMPARE(one["static_shared_bytes"].get<std::int64_t>(), row.staticSharedBytes);
        QCOMPARE(one["spill_stores"].get<std::int64_t>(), row.spillStores);
        QCOMPARE(one["threads_per_block"].get<std::int64_t>(), row.threadsPerBlock);
        QCOMPARE(one["occupancy"].get<double>(), row.occupancy);
        QCOMPARE(QString::fromStdString(one["limited_by"].get<std::string>()),
                 QString::fromStdString(row.limitedBy));
    }

    // The profile's row of a config equals `analyze --kernel-spec` of that config alone.
    void registersAgreeWithAnalyzeOfTheConfig() {
        const Dataset dataset = readDataset(m_dataset.toStdString());
        const DatasetProfile p = DatasetProfile::read(m_profile.toStdString(), dataset);
        const auto& [key, row] = *p.configs.begin();
        compareRow(analyzeOneConfig(kSpecDir, dataset, key, "RTX_3090"), row);
    }

    // Each shipped profile belongs to its dataset (hash), covers what it says it covers (the milo kernels:
    // the whole product; GEMM: every config of the file) with the grid of every config that compiled, and
    // agrees with a fresh compile of three of its configs.
    void shippedProfilesAreTheDatasets_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("specDir");
        QTest::addColumn<QString>("kernelSpec");
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("product");
        // The milo kernels were measured on the same three GPUs, and both are profiled over the product on
        // all of them.
        // t4/*_A100_T4 are the A100's results in the community's T4 format, whose file names no GPU
        // (profiled with --target A100_40GB).
        const QString convolution = TUNESCOPE_RESOURCES "/dataset-kernels/convolution";
        for (const auto& [kernel, specDir] :
             {std::pair{"dedispersion_milo", kDemoSpecDir}, {"convolution_milo", convolution}})
            for (const auto& [gpu, dir, architecture, id] : {std::tuple{"A100", "", "sm_80", "A100_40GB"},
                                                             {"A100_T4", "t4/", "sm_80", "A100_40GB"},
                                                             {"A4000", "", "sm_86", "RTX_A4000"},
                                                             {"A6000", "", "sm_86", "RTX_A6000"}})
                QTest::newRow(qPrintable(QString(kernel) + " " + gpu))
                    << QString(dir) + kernel + "_" + gpu << specDir << kernel << architecture << id << true;
        for (const auto& [gpu, architecture] : {std::pair{"RTX_3090", "sm_86"}, {"RTX_2080_Ti", "sm_75"}})
            QTest::newRow(qPrintable(QString("gemm_clblast ") + gpu))
                << QString("gemm_clblast_") + gpu << kSpecDir << "gemm_clblast" << architecture << gpu
                << false;
    }
    void shippedProfilesAreTheDatasets() {
        QFETCH(QString, dataset);
        QFETCH(QString, specDir);
        QFETCH(QString, kernelSpec);
        QFETCH(QString, architecture);
        QFETCH(QString, id);
        QFETCH(bool, product);
        const QString path = TUNESCOPE_RESOURCES "/datasets/" + dataset + ".json.gz";
        if (!QFile::exists(path))
            QFAIL(qPrintable(path + " is not bundled"));
        const Dataset data = readDataset(path.toStdString());
        std::shared_ptr<const DatasetProfile> p = DatasetProfile::companionOf(data);
        QVERIFY(p);
        QCOMPARE(p->configs.size(), product ? std::size_t(data.space.productSize()) : data.entries.size());
        for (const auto& [index, measurement] : data.entries)
            QVERIFY(p->configs.count(data.space.key(index)));
        QCOMPARE(p->architecture, architecture.toStdString());
        QCOMPARE(p->gpu, id.toStdString());
        QCOMPARE(p->kernelSpec, kernelSpec.toStdString());
        for (const auto& [key, c] : p->configs)
            QVERIFY2(!c.compiled || c.blocks > 0, key.c_str());
        auto it = p->configs.begin();
        for (int i = 0; i < 3; ++i, std::advance(it, static_cast<long>(p->configs.size() / 3)))
            compareRow(analyzeOneConfig(specDir, data, it->first, id), it->second);
    }

    // The same measurements in two formats (Kernel Tuner's cache file and the T4 results) give the same
    // config keys, so their profiles, made apart, agree row for row: the profile depends on the source, the
    // architecture, the GPU and the config, never on the file's format.
    void t4CopiesProfileAsTheirCacheFiles_data() {
        QTest::addColumn<QString>("kernel");
        QTest::newRow("dedispersion_milo") << "dedispersion_milo";
        QTest::newRow("convolution_milo") << "convolution_milo";
    }
    void t4CopiesProfileAsTheirCacheFiles() {
        QFETCH(QString, kernel);
        const auto profileOf = [](const QString& name) {
            const QString path = TUNESCOPE_RESOURCES "/datasets/" + name + ".json.gz";
            return DatasetProfile::companionOf(readDataset(path.toStdString()));
        };
        std::shared_ptr<const DatasetProfile> cache = profileOf(kernel + "_A100");
        std::shared_ptr<const DatasetProfile> t4 = profileOf("t4/" + kernel + "_A100_T4");
        QVERIFY(cache && t4);
        QCOMPARE(t4->configs.size(), cache->configs.size());
        QVERIFY(t4->datasetHash != cache->datasetHash);
        QCOMPARE(t4->sourceHash, cache->sourceHash);
        for (const auto& [key, row] : t4->configs) {
            auto it = cache->configs.find(key);
            QVERIFY2(it != cache->configs.end(), key.c_str());
            QVERIFY2(row == it->second, key.c_str());
        }
    }

    void replayTrialsCarryTheProfile() {
        auto dataset = std::make_shared<const Dataset>(readDataset(m_dataset.toStdString()));
        std::shared_ptr<const DatasetProfile> profile = DatasetProfile::companionOf(*dataset);
        QVERIFY(profile);
        ReplayBackend backend(dataset, false, 0, profile);
        std::vector<Config> batch;
        for (const auto& [key, row] : profile->configs)
            batch.push_back(dataset->space.config(*dataset->space.indexOfKey(key)));
        const std::vector<Measurement> results = backend.measure(batch);
        std::size_t i = 0;
        for (const auto& [key, row] : profile->configs) {
            const Measurement& m = results[i++];
            QCOMPARE(m.status, MeasureStatus::Ok);
            QVERIFY2(m.metrics.count("registers") && m.metrics.count("occupancy"), key.c_str());
            QCOMPARE(m.metrics.at("registers"), double(row.registers));
            QCOMPARE(m.metrics.at("shared_bytes"), double(row.staticSharedBytes));
            QCOMPARE(m.metrics.at("dynamic_shared_bytes"), double(row.dynamicSharedBytes));
            QCOMPARE(m.metrics.at("threads_per_block"), double(row.threadsPerBlock));
            QCOMPARE(m.metrics.at("occupancy"), row.occupancy);
            QCOMPARE(m.metrics.at("spill_stores"), double(row.spillStores));
            QCOMPARE(m.metrics.at("spill_loads"), double(row.spillLoads));
        }
        // Without a profile the same trials carry times only.
        ReplayBackend plain(dataset);
        QVERIFY(plain.measure(batch).front().metrics.count("registers") == 0);
    }

    // A session on the dataset (the CLI's tune, as the GUI assembles it) finds the companion by itself.
    void tunedSessionStoresTheMetrics() {
        const QString db = m_dir.filePath("records.db");
        CliResult r = cli({"tune", "--dataset", m_dataset, "--strategy", "brute_force", "--budget", "6",
                           "--space", "constrained", "--db", db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString exported = m_dir.filePath("export.json");
        r = cli({"export", "--db", db, "--format", "jsonl", "-o", exported});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const std::string text = readText(exported);
        QVERIFY2(text.find("\"registers\"") != std::string::npos, text.substr(0, 600).c_str());
        QVERIFY(text.find("\"threads_per_block\"") != std::string::npos);
    }

    void hostileCompanionsAreRefusedNamingTheFile_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("problem");
        QTest::newRow("truncated gzip") << "gzip"
                                        << "is gzip data";
        QTest::newRow("cut short") << "cut"
                                   << "is not valid JSON";
        QTest::newRow("not json") << "garbage"
                                  << "is not valid JSON";
        QTest::newRow("other dataset") << "hash"
                                       << "was made for another dataset";
        QTest::newRow("huge registers") << "huge"
                                        << "\"registers\" 300";
        QTest::newRow("number beyond int64") << "beyond"
                                             << "has no whole number \"spill_stores\"";
        QTest::newRow("occupancy above 1") << "occupancy"
                                           << "has no \"occupancy\" from 0 to 1";
        QTest::newRow("wrong type") << "type"
                                    << "has no true or false \"compiled\"";
        QTest::newRow("unknown config") << "key"
                                        << "which is not a config of kt_gemm_clblast.json";
        QTest::newRow("duplicate config") << "twice"
                                          << "twice";
        QTest::newRow("not a profile") << "format"
                                       << "is not a dataset profile";
        QTest::newRow("deep") << "deep"
                              << "is not valid JSON";
        QTest::newRow("too large") << "large"
                                   << "more than the";
    }

    void hostileCompanionsAreRefusedNamingTheFile() {
        QFETCH(QString, kind);
        QFETCH(QString, problem);
        const std::string good = readText(m_profile);
        nlohmann::json j = nlohmann::json::parse(good);
        std::string text;
        if (kind == "gzip") {
            const QString gz = m_dir.filePath("p.json.gz");
            writeText(m_dir.filePath("p.json"), good);
            QFile::remove(gz);
            QCOMPARE(QProcess::execute("gzip", {"-k", m_dir.filePath("p.json")}), 0);
            text = readText(gz);
            text.resize(text.size() / 2);
        } else if (kind == "cut") {
            text = good.substr(0, good.size() / 2);
        } else if (kind == "garbage") {
            text = std::string("\x01\x02 not json at all", 19);
        } else if (kind == "deep") {
            text = std::string(100000, '[');
        } else if (kind == "large") {
            text = good;
            text.resize(DatasetProfile::kMaxFileBytes + 1, ' ');
        } else {
            nlohmann::json& row = j["configs"][0];
            if (kind == "hash")
                j["dataset_hash"] = "fnv1a64:0000000000000000";
            else if (kind == "huge")
                row["registers"] = 300;
            else if (kind == "beyond")
                row["spill_stores"] = 1e300;
            else if (kind == "occupancy")
                row["occupancy"] = 7.5;
            else if (kind == "type")
                row["compiled"] = "yes";
            else if (kind == "key")
                row["key"] = "1,2,3";
            else if (kind == "twice")
                j["configs"].push_back(row);
            else if (kind == "format")
                j["format"] = 3;
            text = j.dump();
        }
        const std::string error = companionError(text);
        QVERIFY2(error.find("kt_gemm_clblast.profile") != std::string::npos, error.c_str());
        QVERIFY2(error.find(problem.toStdString()) != std::string::npos, error.c_str());
        QVERIFY2(error.find('\n') == std::string::npos, error.c_str());
    }

    // At the user's edge: a session on a dataset with a bad companion stops with that sentence, exit 1.
    void tuneWithABadCompanionSaysWhich() {
        const std::string error = companionError("{\"format\": ");
        Q_UNUSED(error);
        const QString dataset = m_dir.filePath("hostile/kt_gemm_clblast.json");
        CliResult r = cli({"tune", "--dataset", dataset, "--budget", "3", "--db", m_dir.filePath("bad.db")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("The dataset profile " + m_dir.filePath("hostile/kt_gemm_clblast.profile") +
                                " is not valid JSON"),
                 qPrintable(r.err));
    }

    void datasetsThatDoNotMapAreRefused_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("sentence");
        QTest::newRow("parameter missing from the spec")
            << editedDataset("extra.json",
                             [](nlohmann::json& d) {
                                 d["tune_params_keys"].push_back("UNROLL");
                                 d["tune_params"]["UNROLL"] = {1};
                                 nlohmann::json cache;
                                 for (auto& [key, row] : d["cache"].items()) {
                                     row["UNROLL"] = 1;
                                     cache[key + ",1"] = row;
                                 }
                                 d["cache"] = cache;
                             })
            << "The dataset extra.json has the parameter UNROLL, which the kernel spec " + kSpec +
                   " does not have.";
        QTest::newRow("value missing from the spec") << editedDataset("value.json", [](nlohmann::json& d) {
            d["tune_params"]["KWI"] = {2, 3};
            nlohmann::json cache;
            for (auto& [key, row] : d["cache"].items()) {
                row["KWI"] = 3;
                std::string k = key;
                k.replace(k.find(",2,"), 3, ",3,");
                cache[k] = row;
            }
            d["cache"] = cache;
        }) << "sets KWI to 3, which is not one of its values in the kernel spec " + kSpec + ".";
        QTest::newRow("AMD GPU")
            << editedDataset("amd.json", [](nlohmann::json& d) { d["device_name"] = "AMD Instinct MI250X"; })
            << "The dataset amd.json was measured on AMD Instinct MI250X, an AMD GPU, which "
               "NVRTC cannot compile for: static profiles are for NVIDIA GPUs.";
        QTest::newRow("GPU not in the database")
            << editedDataset("gtx1080.json",
                             [](nlohmann::json& d) { d["device_name"] = "NVIDIA GeForce GTX 1080"; })
            << "The dataset gtx1080.json was measured on \"NVIDIA GeForce GTX 1080\", which is not in the "
               "GPU database: name the GPU to compute occupancy on with --target";
        QTest::newRow("GPU not named")
            << editedDataset("nameless.json", [](nlohmann::json& d) { d.erase("device_name"); })
            << "The dataset nameless.json does not name the GPU it was measured on: name it with --target "
               "(one "
               "of ";
    }

    void datasetsThatDoNotMapAreRefused() {
        QFETCH(QString, dataset);
        QFETCH(QString, sentence);
        CliResult r = cli({"analyze", "--dataset", dataset, "--kernel-spec", kSpec});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(sentence), qPrintable(r.err));
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(!QFile::exists(
            QString::fromStdString(DatasetProfile::companionPath(dataset.toStdString()).string())));
    }

    // Ctrl-C while a large space compiles: exit 130 after the batch in flight, no profile and no temporary
    // left, and an earlier profile at --out stays as it was.
    void ctrlCStopsWithoutWriting() {
        const QString out = m_dir.filePath("cancel/gemm.profile");
        QDir().mkpath(m_dir.filePath("cancel"));
        writeText(out, "earlier");
        QProcess process;
        QProcessEnvironment env = m_env;
        env.insert("TUNESCOPE_CACHE_DIR", m_dir.filePath("cancel-cache"));
        process.setProcessEnvironment(env);
        process.start(TUNESCOPE_CLI, {"analyze", "--dataset", kBundledGemm, "--kernel-spec", kSpec,
                                      "--threads", "1", "--out", out});
        QVERIFY(process.waitForStarted());
        QByteArray err;
        while (!err.contains("configs compiled") && process.state() == QProcess::Running) {
            process.waitForReadyRead(60000);
            err += process.readAllStandardError();
        }
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(120000));
        err += process.readAllStandardError();
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + SIGINT);
        QVERIFY2(err.contains("analyze stopped by SIGINT before every config was compiled; " + out.toUtf8() +
                              " was not written"),
                 err.constData());
        QCOMPARE(QString::fromStdString(readText(out)), QString("earlier"));
        QCOMPARE(QDir(m_dir.filePath("cancel")).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestDatasetProfile)
#include "TestDatasetProfile.moc"
