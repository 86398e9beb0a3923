// core's SessionPlan and PreparedSession on their own: the plan's JSON round trip and its errors, the plan of
// a session recorded before plans were stored, checks that name plan fields (not CLI flags), the order of
// open() and run(), and the rule of a resume's time limit (README: a resume gets the limit it is given, the
// stored one only when none is given, and each run counts its own time).
#include "session/PreparedSession.h"
#include "session/SessionPlan.h"
#include "store/RecordStore.h"
#include "util/Error.h"

#include "CliRun.h"
#include "ErrorOf.h"

#include "StatusCompare.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace ts;

namespace {

const QString kConv = TUNESCOPE_RESOURCES "/datasets/convolution_2021_RTX_3090.json.gz";

SessionPlan fullPlan() {
    SessionPlan plan;
    plan.backend = "cpu";
    plan.kernel.kernel = "softmax";
    plan.kernel.size = "rows=8,cols=64";
    plan.kernel.timeoutS = 3.5;
    plan.kernel.timing.repeat = 4;
    plan.kernel.timing.minRepeatMs = 2;
    plan.kernel.timing.warmupMs = 1.5;
    plan.kernel.timing.flush = false;
    plan.kernel.cacheDir = "/tmp/builds";
    plan.constraints = {"THREADS == 1", "UNROLL <= 2"};
    plan.strategy = "tpe";
    plan.options = {{"startup", "7"}};
    plan.seed = 42;
    plan.mode = SpaceMode::Product;
    plan.batchSize = 3;
    plan.budget = 77;
    plan.timeLimitS = 12.5;
    plan.patience = 9;
    plan.targetMs = 0.25;
    plan.priors = {"/data/a.json", "/data/b.json"};
    plan.transfer = true;
    return plan;
}

QJsonObject jsonOut(const ts::test::CliResult& r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

} // namespace

class TestSessionPlan : public QObject {
    Q_OBJECT

private slots:
    void jsonRoundTripKeepsEveryField() {
        const SessionPlan plan = fullPlan();
        const nlohmann::json json = plan.toJson();
        const SessionPlan back = SessionPlan::fromJson(json, "plan");
        QCOMPARE(QString::fromStdString(back.toJson().dump()), QString::fromStdString(json.dump()));
        QCOMPARE(back.kernel.kernel, std::string("softmax"));
        QCOMPARE(back.kernel.timeoutS, 3.5);
        QCOMPARE(back.kernel.timing.flush, false);
        COMPARE_STATUS(back.mode, SpaceMode::Product);
        QCOMPARE(back.priors.size(), std::size_t{2});
        QCOMPARE(back.options.at("startup"), std::string("7"));
        // A replay plan stores no kernel.
        SessionPlan replay;
        replay.dataset = "/data/x.json";
        QVERIFY(!replay.toJson().contains("kernel"));
    }

    void fromJsonNamesTheBadKey() {
        nlohmann::json json = fullPlan().toJson();
        json["budget"] = "lots";
        const QString error = QString::fromStdString(
            ts::test::errorOf([&] { SessionPlan::fromJson(json, "plan of session 3"); }));
        QVERIFY2(error.contains("plan of session 3") && error.contains("\"budget\""), qPrintable(error));
        json = fullPlan().toJson();
        json["space"] = "sideways";
        const QString mode =
            QString::fromStdString(ts::test::errorOf([&] { SessionPlan::fromJson(json, "plan"); }));
        QVERIFY2(mode.contains("sideways"), qPrintable(mode));
    }

    // A session recorded before plans were stored: columns plus the old settings object.
    void planOfAnOlderRecord() {
        SessionRecord r;
        r.id = 5;
        r.backend = "cpu";
        r.strategy = "random_sample";
        r.options = "{}";
        r.seed = 11;
        r.spaceMode = "product";
        r.budget = 30;
        r.settings = R"({"constraints":["THREADS == 1"],"batch_size":2,"time_limit":4.0,"patience":3,)"
                     R"("target":0.5,"stochastic":false,"priors":["/p.json"],"transfer":true,)"
                     R"("kernel":{"spec":"/k/kernel.json","size":"rows=8","backend":"cpu","timeout_s":2.0,)"
                     R"("repeat":5,"min_repeat_ms":1.0,"warmup_ms":3.0,"flush":false,"cache_dir":""}})";
        const SessionPlan plan = SessionPlan::ofRecord(r);
        QCOMPARE(plan.backend, std::string("cpu"));
        QCOMPARE(plan.kernel.kernelSpec, std::string("/k/kernel.json"));
        QCOMPARE(plan.kernel.size, std::string("rows=8"));
        QCOMPARE(plan.kernel.timing.repeat, 5);
        QCOMPARE(plan.kernel.timing.flush, false);
        QCOMPARE(plan.constraints, std::vector<std::string>{"THREADS == 1"});
        QCOMPARE(plan.batchSize, std::size_t{2});
        QCOMPARE(plan.timeLimitS, 4.0);
        QCOMPARE(plan.patience, std::int64_t{3});
        QCOMPARE(plan.targetMs, 0.5);
        QCOMPARE(plan.priors, std::vector<std::string>{"/p.json"});
        QVERIFY(plan.transfer);
        QVERIFY(plan.cold); // stored before warm starts were the default: it resumes as it ran, cold
        QVERIFY(!plan.found);
        QCOMPARE(plan.seed, std::uint64_t{11});
        COMPARE_STATUS(plan.mode, SpaceMode::Product);
        QCOMPARE(plan.budget, std::int64_t{30});
    }

    // A warm plan keeps the sources it found, and reads back as it was written.
    void warmPlanRoundTripsWithItsSources() {
        SessionPlan plan;
        plan.dataset = "/d/target.json";
        plan.found = SessionPlan::Found{{"/d/other.json.gz"}, {3, 7}};
        const SessionPlan back = SessionPlan::fromJson(plan.toJson(), "plan");
        QVERIFY(!back.cold);
        QVERIFY(back.found == plan.found);
        plan.cold = true;
        plan.found.reset();
        const SessionPlan cold = SessionPlan::fromJson(plan.toJson(), "plan");
        QVERIFY(cold.cold && !cold.found);
        SessionRecord r;
        r.id = 2;
        r.dataset = "/d/target.json";
        r.strategy = "xgb";
        r.options = "{}";
        r.settings = R"({"cold":false,"found":{"datasets":["/d/other.json.gz"],"sessions":[3]}})";
        const SessionPlan stored = SessionPlan::ofRecord(r);
        QVERIFY(!stored.cold);
        QVERIFY(stored.found == (SessionPlan::Found{{"/d/other.json.gz"}, {3}}));
    }

    // The checks name the plan's fields in words the window shows too, never a CLI flag.
    void checksNameFieldsNotFlags_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("expected");
        QTest::newRow("budget") << "budget"
                                << "The budget -3 is not a positive number of evaluations.";
        QTest::newRow("batch") << "batch"
                               << "The batch size 0 is not a positive number of configs.";
        QTest::newRow("time") << "time"
                              << "The time limit -1 s is not a number of seconds of 0 or more.";
        QTest::newRow("patience") << "patience"
                                  << "The patience -2 is negative.";
        QTest::newRow("backend") << "backend"
                                 << "The backend \"gpu\" is not one of replay, cpu or cuda.";
        QTest::newRow("timeout") << "timeout"
                                 << "The timeout 0 is not a positive number of seconds.";
        QTest::newRow("repeat") << "repeat"
                                << "The repeat count 0 is not a positive number of samples.";
        QTest::newRow("no dataset") << "dataset"
                                    << "A replay session needs a dataset";
        QTest::newRow("prior") << "prior"
                               << "random_sample does not use a prior.";
    }
    void checksNameFieldsNotFlags() {
        QFETCH(QString, field);
        QFETCH(QString, expected);
        SessionPlan plan;
        plan.dataset = kConv.toStdString();
        if (field == "budget")
            plan.budget = -3;
        else if (field == "batch")
            plan.batchSize = 0;
        else if (field == "time")
            plan.timeLimitS = -1;
        else if (field == "patience")
            plan.patience = -2;
        else if (field == "backend")
            plan.backend = "gpu";
        else if (field == "dataset")
            plan.dataset.clear();
        else if (field == "prior") {
            plan.strategy = "random_sample";
            plan.transfer = true;
        } else { // a kernel's measurement options
            plan.dataset.clear();
            plan.backend = "cpu";
            plan.kernel.kernel = "softmax";
            plan.kernel.timeoutS = field == "timeout" ? 0 : 10;
            plan.kernel.timing.repeat = field == "repeat" ? 0 : 3;
        }
        const QString error =
            QString::fromStdString(ts::test::errorOf([&] { PreparedSession::validate(plan); }));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QVERIFY2(!error.contains("--"), qPrintable(error));
    }

    void openOnceThenRun() {
        QTemporaryDir dir;
        RecordStore store(dir.filePath("r.db").toStdString());
        SessionPlan plan;
        plan.dataset = kConv.toStdString();
        plan.strategy = "random_sample";
        plan.budget = 5;
        auto prepared = PreparedSession::create(plan, store);
        QVERIFY(store.sessions().empty()); // nothing is written before open()
        QVERIFY(QString::fromStdString(ts::test::errorOf([&] { prepared->run(); })) != "<no error>");
        const std::int64_t id = prepared->open();
        QVERIFY(QString::fromStdString(ts::test::errorOf([&] { prepared->open(); })) != "<no error>");
        COMPARE_STATUS(prepared->run(), StopReason::Budget);
        QCOMPARE(store.trials(id).size(), std::size_t{5});
        QCOMPARE(prepared->plan().strategy, std::string("random_sample"));
        QVERIFY(std::filesystem::path(prepared->plan().dataset).is_absolute());
    }

    // A session stopped by its time limit resumes: with a new --time-limit for that run, or without one
    // with the stored limit counted afresh (the earlier run's time is not counted again).
    void resumeGetsItsOwnTimeLimit() {
        QTemporaryDir dir;
        const QString db = dir.filePath("r.db");
        const QStringList tune{"tune", "--dataset", kConv, "--strategy", "xgb", "--budget",
                               "200",  "--seed",    "1",   "--db",       db,    "--json"};
        ts::test::CliResult first = ts::test::runCli(tune + QStringList{"--time-limit", "0.3"});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        QCOMPARE(jsonOut(first)["stop_reason"].toString(), QString("time limit reached"));
        const int before = jsonOut(first)["evaluations"].toInt();
        QVERIFY(before > 0 && before < 200);
        const QString id = QString::number(jsonOut(first)["session"].toInt());

        // No --time-limit: the stored 0.3 s again, for this run: it measures more, then stops on time.
        ts::test::CliResult second = ts::test::runCli({"tune", "--resume", id, "--db", db, "--json"});
        QVERIFY2(second.exitCode == 0, qPrintable(second.err));
        QCOMPARE(jsonOut(second)["stop_reason"].toString(), QString("time limit reached"));
        const int middle = jsonOut(second)["evaluations"].toInt();
        QVERIFY2(middle > before && middle < 200, qPrintable(second.out));

        // A new --time-limit replaces the stored one: 120 s is plenty to use up the budget.
        ts::test::CliResult third = ts::test::runCli(
            {"tune", "--resume", id, "--db", db, "--json", "--time-limit", "120", "--budget", "9"});
        QVERIFY2(third.exitCode == 0, qPrintable(third.err));
        QCOMPARE(jsonOut(third)["stop_reason"].toString(), QString("budget reached"));
        QCOMPARE(jsonOut(third)["evaluations"].toInt(), 200);
        QVERIFY2(third.err.contains("--resume continues the session with its stored plan, so --budget is not "
                                    "used."),
                 qPrintable(third.err));
    }
};

QTEST_MAIN(TestSessionPlan)
#include "TestSessionPlan.moc"
