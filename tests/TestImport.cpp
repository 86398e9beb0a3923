// tunescope-cli import: Kernel Tuner caches, T4 results and KTT output land as sessions with every measured
// config; bad input of every kind fails with one sentence and adds nothing.
#include "CliRun.h"
#include "datasets/DatasetReader.h"
#include "formats/CsvTable.h"
#include "formats/TrialImporter.h"
#include "store/RecordStore.h"
#include "util/Error.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <fstream>
#include <map>

using namespace ts;

namespace {

using Result = ts::test::CliResult;

Result cli(const QStringList& arguments) {
    return ts::test::runCli(arguments);
}

const QString kData = TUNESCOPE_TEST_DATA "/";

void write(const QString& path, const std::string& text) {
    std::ofstream(path.toStdString(), std::ios::binary) << text;
}

} // namespace

class TestImport : public QObject {
    Q_OBJECT

private slots:
    void importsEveryDatasetFormat_data();
    void importsEveryDatasetFormat();
    void importedDatasetExportsAndImportsAgain();
    void badInputFailsWithOneSentenceAndAddsNothing_data();
    void badInputFailsWithOneSentenceAndAddsNothing();
    void refusesADatabaseOfANewerSchema();
    void csvReaderHandlesQuotingAndLineEnds();
};

void TestImport::importsEveryDatasetFormat_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("format");
    QTest::newRow("kernel tuner") << "kt_pnpoly.json"
                                  << "kt-cache";
    QTest::newRow("kernel tuner gzip") << "kt_convolution.json.gz"
                                       << "kt-cache";
    QTest::newRow("kernel tuner cut off") << "kt_cut.json"
                                          << "kt-cache";
    QTest::newRow("kernel tuner failures") << "kt_fail_string.json"
                                           << "kt-cache";
    QTest::newRow("t4") << "t4_convolution.json"
                        << "t4";
    QTest::newRow("t4 coulomb") << "t4_coulomb.json"
                                << "t4";
    QTest::newRow("ktt") << "ktt_pnpoly.json"
                         << "ktt";
}

void TestImport::importsEveryDatasetFormat() {
    QFETCH(QString, file);
    QFETCH(QString, format);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    const Result r = cli({"import", "--db", db, kData + file});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("(" + format + ")"), qPrintable(r.out));

    const Dataset dataset = readDataset((kData + file).toStdString());
    RecordStore store(db.toStdString());
    QCOMPARE(store.sessions().size(), std::size_t{1});
    const SessionRecord session = store.sessions().front();
    QCOMPARE(session.device, dataset.deviceName);
    QCOMPARE(session.backend, std::string("import"));
    QCOMPARE(session.status, std::string("completed"));
    QVERIFY(session.sourceHash.starts_with("fnv1a64:"));
    const std::vector<StoredTrial> trials = store.trials(session.id);
    QCOMPARE(trials.size(), dataset.entries.size());
    // Every measured config is there with its status and time.
    std::map<std::string, int> statuses;
    for (const StoredTrial& trial : trials) {
        const auto entry = dataset.entries.find(trial.index);
        QVERIFY(entry != dataset.entries.end());
        QCOMPARE(trial.status, std::string(toString(entry->second.status)));
        if (entry->second.status == MeasureStatus::Ok) {
            QCOMPARE(trial.objective, entry->second.objective);
            QCOMPARE(trial.samples, entry->second.samples);
        }
        ++statuses[trial.status];
    }
    QVERIFY(statuses["ok"] > 0);
    QCOMPARE(static_cast<std::size_t>(session.budget), trials.size());
}

void TestImport::importedDatasetExportsAndImportsAgain() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath("first.db");
    QCOMPARE(cli({"import", "--db", first, kData + "kt_fail_error.json"}).exitCode, 0);
    const QString cache = dir.filePath("again.json");
    QCOMPARE(cli({"export", "--db", first, "--format", "kt-cache", "-o", cache}).exitCode, 0);
    const QString second = dir.filePath("second.db");
    QCOMPARE(cli({"import", "--db", second, cache}).exitCode, 0);
    const auto summary = [](const QString& db) {
        RecordStore store(db.toStdString());
        std::map<std::string, std::pair<std::string, double>> result;
        for (const StoredTrial& t : store.trials(store.sessions().front().id))
            result[t.config] = {t.status, t.objective};
        return result;
    };
    QCOMPARE(summary(second), summary(first));
}

void TestImport::badInputFailsWithOneSentenceAndAddsNothing_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("says");
    const QByteArray session =
        R"({"type":"session","id":4,"kernel":"k","problem":"[8]","device":"d","backend":"replay","status":"completed"})";
    const QByteArray trial =
        R"({"type":"trial","session":4,"number":0,"config_index":0,"config":{"x":1},"status":"ok","time_ms":1.0})";
    QTest::newRow("jsonl line not json") << "bad.jsonl" << session + "\n{oops\n"
                                         << "auto"
                                         << "line 2";
    QTest::newRow("jsonl trial first") << "order.jsonl" << trial + "\n" + session + "\n"
                                       << "auto"
                                       << "before the line of its session 4";
    QTest::newRow("jsonl bad status")
        << "status.jsonl" << session + "\n" + QByteArray(trial).replace("\"ok\"", "\"meh\"") << "auto"
        << "\"meh\"";
    QTest::newRow("jsonl duplicate trial") << "dup.jsonl" << session + "\n" + trial + "\n" + trial + "\n"
                                           << "auto"
                                           << "UNIQUE";
    QTest::newRow("csv unclosed quote")
        << "q.csv" << QByteArray("config,status,time_ms\n\"{\"\"x\"\":1},ok,1\n") << "auto"
        << "never closed";
    QTest::newRow("csv missing column") << "c.csv" << QByteArray("config,status\n{},ok\n") << "auto"
                                        << "\"time_ms\"";
    QTest::newRow("csv not a number")
        << "n.csv" << QByteArray("config,status,time_ms\n\"{\"\"x\"\":1}\",ok,fast\n") << "auto"
        << "\"fast\"";
    QTest::newRow("csv ragged row") << "r.csv" << QByteArray("config,status,time_ms\n\"{}\",ok\n") << "auto"
                                    << "row 2";
    QTest::newRow("deployment file") << "deploy.json"
                                     << QByteArray(
                                            R"({"format":"tunescope-deployment","version":1,"entries":[]})")
                                     << "auto"
                                     << "deployment file";
    QTest::newRow("not a dataset") << "other.json" << QByteArray(R"({"hello": 1})") << "auto"
                                   << "not a Kernel Tuner cache, T4 or KTT file";
    QTest::newRow("t4 forced on a cache")
        << "cache.json" << QByteArray(R"({"tune_params":{"x":[1]},"cache":{"1":{"x":1,"time":2}}})") << "t4"
        << "not a T4 results file";
    QTest::newRow("unknown format") << "x.jsonl" << session << "parquet"
                                    << "\"parquet\"";
    QTest::newRow("missing file") << "" << QByteArray() << "auto"
                                  << "does not exist";
}

void TestImport::badInputFailsWithOneSentenceAndAddsNothing() {
    QFETCH(QString, name);
    QFETCH(QByteArray, content);
    QFETCH(QString, format);
    QFETCH(QString, says);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    QCOMPARE(cli({"import", "--db", db, kData + "kt_pnpoly.json"}).exitCode, 0);
    const QString input = dir.filePath(name.isEmpty() ? "absent.json" : name);
    if (!name.isEmpty())
        write(input, content.toStdString());

    const Result r = cli({"import", "--db", db, input, "--format", format});
    QCOMPARE(r.exitCode, 1);
    const QString err = r.err.trimmed();
    QVERIFY2(!err.contains('\n') && err.contains(says), qPrintable(err));
    QVERIFY2(format == "parquet" || says == "UNIQUE" || err.contains(input), qPrintable(err));
    RecordStore store(db.toStdString());
    QCOMPARE(store.sessions().size(), std::size_t{1});
}

void TestImport::refusesADatabaseOfANewerSchema() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    QCOMPARE(cli({"import", "--db", db, kData + "kt_pnpoly.json"}).exitCode, 0);
    {
        sqlite3* handle = nullptr;
        QCOMPARE(sqlite3_open(db.toUtf8().constData(), &handle), SQLITE_OK);
        QCOMPARE(sqlite3_exec(handle, "PRAGMA user_version=7", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(handle);
    }
    for (const QStringList& arguments :
         {QStringList{"import", "--db", db, kData + "kt_pnpoly.json"}, QStringList{"records", "--db", db},
          QStringList{"export", "--db", db, "--format", "jsonl", "-o", dir.filePath("x.jsonl")},
          QStringList{"tune", "--resume", "1", "--db", db}}) {
        const Result r = cli(arguments);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err, "tunescope-cli: " + db +
                            " was written by a newer Tunescope (schema 7, this build reads up to 4).\n");
    }
}

void TestImport::csvReaderHandlesQuotingAndLineEnds() {
    const auto rows = CsvTable::parse("a,\"b,\"\"c\"\"\nd\",e\r\n,\r\nlast", "t.csv");
    QCOMPARE(rows.size(), std::size_t{3});
    QCOMPARE(rows[0], (std::vector<std::string>{"a", "b,\"c\"\nd", "e"}));
    QCOMPARE(rows[1], (std::vector<std::string>{"", ""}));
    QCOMPARE(rows[2], (std::vector<std::string>{"last"}));
    CsvTable table;
    table.addRow({"plain", "with,comma", "with \"quote\"", "two\nlines"});
    QCOMPARE(CsvTable::parse(table.text(), "t.csv").at(0),
             (std::vector<std::string>{"plain", "with,comma", "with \"quote\"", "two\nlines"}));
    try {
        CsvTable::parse("a,\"b\"x\n", "t.csv");
        QFAIL("text after a closing quote was accepted");
    } catch (const Error& error) {
        QCOMPARE(QString(error.what()), QString("t.csv has text after a closing quote on line 1."));
    }
}

QTEST_APPLESS_MAIN(TestImport)
#include "TestImport.moc"
