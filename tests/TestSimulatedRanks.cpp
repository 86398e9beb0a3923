#include "CliRun.h"
#include "ErrorOf.h"
#include "backends/ReplayBackend.h"
#include "datasets/DatasetReader.h"
#include "session/SimulatedRanksPool.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

using namespace ts;
using namespace ts::test;

namespace {

const char* kGemm = TUNESCOPE_TEST_DATA "/kt_gemm_clblast.json";

SessionPlan replayPlan(double delayMs) {
    SessionPlan plan;
    plan.backend = "replay";
    plan.dataset = kGemm;
    plan.replayDelayMs = delayMs;
    return plan;
}

// The first configs of the product that the replay measures Ok and the first it finds Invalid (absent).
struct Picked {
    std::vector<SearchSpace::Index> ok;
    std::optional<SearchSpace::Index> invalid;
};

Picked pick(const Dataset& dataset, std::size_t okCount) {
    ReplayBackend backend(std::make_shared<const Dataset>(dataset));
    Picked picked;
    for (SearchSpace::Index i = 0; i < dataset.space.productSize(); ++i) {
        if (picked.ok.size() >= okCount && picked.invalid)
            break;
        const Config config = dataset.space.config(i);
        const MeasureStatus status = backend.measure(std::span(&config, 1)).front().status;
        if (status == MeasureStatus::Ok && picked.ok.size() < okCount)
            picked.ok.push_back(i);
        else if (status == MeasureStatus::Invalid && !picked.invalid)
            picked.invalid = i;
    }
    return picked;
}

// The one integer a query of a records database gives.
std::int64_t queryInt(const QString& db, const char* sql) {
    sqlite3* handle = nullptr;
    sqlite3_stmt* statement = nullptr;
    std::int64_t value = -1;
    if (sqlite3_open(db.toUtf8().constData(), &handle) == SQLITE_OK &&
        sqlite3_prepare_v2(handle, sql, -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW)
        value = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return value;
}

} // namespace

class TestSimulatedRanks : public QObject {
    Q_OBJECT

private slots:
    // Batches complete in the order of their simulated ends (each Ok config takes the delay, an Invalid one
    // none), not of their dealing; the clock jumps to each end while the caller waits; a rank is free again
    // once its batch is taken back.
    void batchesCompleteInTheOrderOfTheirSimulatedEnds() {
        const Dataset dataset = readDataset(kGemm);
        const Picked picked = pick(dataset, 6);
        QCOMPARE(picked.ok.size(), std::size_t{6});
        QVERIFY(picked.invalid.has_value());
        SimulatedRanksPool pool(replayPlan(1000.0), dataset.space, 3);
        QCOMPARE(pool.freeSlots(), std::size_t{3});
        const std::vector<SearchSpace::Index> three{picked.ok[0], picked.ok[1], picked.ok[2]};
        const std::vector<SearchSpace::Index> oneWithInvalid{picked.ok[3], *picked.invalid};
        const std::vector<SearchSpace::Index> two{picked.ok[4], picked.ok[5]};
        pool.submit(1, three);          // done at about 3 s
        pool.submit(2, oneWithInvalid); // about 1 s: the Invalid config takes no time
        pool.submit(3, two);            // about 2 s
        QCOMPARE(pool.freeSlots(), std::size_t{0});
        QCOMPARE(errorOf([&] { pool.submit(4, two); }),
                 std::string("No simulated measuring rank is free for another batch."));
        QVERIFY(!pool.poll()); // nothing is done a second into the simulated run: no real second has passed
        std::vector<std::int64_t> order;
        std::vector<double> clock;
        for (int k = 0; k < 3; ++k) {
            std::optional<MeasurePool::Completed> done = pool.waitAny([] { return false; });
            QVERIFY(done);
            order.push_back(done->ticket);
            clock.push_back(pool.clockMs());
            QCOMPARE(pool.freeSlots(), std::size_t(k + 1));
            const std::size_t size = done->ticket == 1 ? 3 : 2;
            QCOMPARE(done->measurements.size(), size);
        }
        QCOMPARE(order, (std::vector<std::int64_t>{2, 3, 1}));
        QVERIFY(clock[0] >= 1000.0 && clock[0] < 1500.0);
        QVERIFY(clock[1] >= 2000.0 && clock[1] < 2500.0);
        QVERIFY(clock[2] >= 3000.0);
        QVERIFY(!pool.poll());
        QVERIFY(!pool.waitAny([] { return false; })); // nothing in flight
    }

    // `stop` ends the wait with nothing taken, as a cancelled session's pool does.
    void stopEndsTheWait() {
        const Dataset dataset = readDataset(kGemm);
        SimulatedRanksPool pool(replayPlan(50.0), dataset.space, 2);
        pool.submit(1, std::vector<SearchSpace::Index>{pick(dataset, 1).ok.front()});
        QVERIFY(!pool.waitAny([] { return true; }));
    }

    void refusesWhatItCannotSimulate() {
        const Dataset dataset = readDataset(kGemm);
        QCOMPARE(errorOf([&] { SimulatedRanksPool(replayPlan(0.0), dataset.space, 8); }),
                 std::string("Simulated measuring ranks need --replay-delay-ms above 0: each replayed "
                             "measurement takes that long on their clock."));
        SessionPlan kernel = replayPlan(50.0);
        kernel.backend = "cpu";
        QCOMPARE(errorOf([&] { SimulatedRanksPool(kernel, dataset.space, 8); }),
                 std::string("Simulated measuring ranks replay a dataset: give --dataset, not a kernel."));
    }

    // tune --simulate-ranks: a whole session of the default strategy on 8 simulated ranks reaches its budget
    // with every config once, dealt in batches of 1 to 8 ranks at once; what it cannot simulate is refused
    // with one sentence before anything is recorded.
    void tuneSimulatesRanks() {
        QTemporaryDir dir;
        const QString db = dir.filePath("records.db");
        const QString dataset = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";
        CliResult run = runCli({"tune", "--dataset", dataset, "--budget", "60", "--batch-size", "1",
                                "--simulate-ranks", "8", "--replay-delay-ms", "50", "--db", db, "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject result = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(result["evaluations"].toInt(), 60);
        QCOMPARE(result["stop_reason"].toString(), QString("budget reached"));
        QCOMPARE(queryInt(db, "SELECT COUNT(DISTINCT config_index) FROM trials"), std::int64_t{60});
        QCOMPARE(queryInt(db, "SELECT COUNT(DISTINCT batch) FROM trials"), std::int64_t{60});
        QCOMPARE(queryInt(db, "SELECT status = 'completed' FROM sessions"), std::int64_t{1});

        CliResult noDelay = runCli({"tune", "--dataset", dataset, "--budget", "10", "--simulate-ranks", "8",
                                    "--db", dir.filePath("refused.db")});
        QCOMPARE(noDelay.exitCode, 1);
        QVERIFY2(noDelay.err.contains("Simulated measuring ranks need --replay-delay-ms above 0"),
                 qPrintable(noDelay.err));
        QCOMPARE(queryInt(dir.filePath("refused.db"), "SELECT COUNT(*) FROM sessions"), std::int64_t{0});
        CliResult withMpi = runCli({"tune", "--dataset", dataset, "--simulate-ranks", "8", "--mpi"});
        QVERIFY(withMpi.exitCode != 0);
        QVERIFY2(withMpi.err.contains("--simulate-ranks stands in for the measuring ranks of an MPI job"),
                 qPrintable(withMpi.err));
        CliResult zero = runCli({"tune", "--dataset", dataset, "--simulate-ranks", "0"});
        QVERIFY(zero.exitCode != 0);
        QVERIFY2(zero.err.contains("--simulate-ranks"), qPrintable(zero.err));
    }
};

QTEST_GUILESS_MAIN(TestSimulatedRanks)
#include "TestSimulatedRanks.moc"
