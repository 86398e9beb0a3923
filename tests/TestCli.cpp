#include "CliRun.h"
#include "datasets/DatasetReader.h"
#include "store/RecordStore.h"
#include "strategies/StrategyRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>

using namespace ts;

namespace {

using Result = ts::test::CliResult;

Result cli(const QStringList& arguments) {
    return ts::test::runCli(arguments);
}

const QString kPnpoly = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";

// One clear sentence: a single line on stderr that names the offending input.
void expectOneSentence(const Result& r, const QString& names) {
    QVERIFY2(r.exitCode != 0, qPrintable(r.out));
    QString err = r.err.trimmed();
    QVERIFY2(!err.isEmpty(), "no message on stderr");
    QVERIFY2(!err.contains('\n'), qPrintable(err));
    QVERIFY2(err.contains(names), qPrintable(err));
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void infoDescribesADataset() {
        Result r = cli({"info", kPnpoly, "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject info = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(info["product_size"].toInteger(), 4092);
        QCOMPARE(info["configs_in_file"].toInteger(), 4092);
        QCOMPARE(info["valid"].toInteger(), 3774);
        QVERIFY(std::abs(info["fastest_ms"].toDouble() - 8.714) < 0.001);
        QCOMPARE(info["device"].toString(), QString("NVIDIA GeForce RTX 3090"));
    }

    // Every registered strategy has its own section (a header line, then its option lines), each option of
    // its table listed with its default, the default strategy marked, and nothing listed that is not
    // registered.
    void strategiesListsOptionsAndDefault() {
        Result r = cli({"strategies"});
        QCOMPARE(r.exitCode, 0);
        std::map<QString, QStringList> sections; // header line -> its indented lines
        QString header;
        for (const QString& line : r.out.split('\n', Qt::SkipEmptyParts)) {
            if (!line.startsWith(' '))
                header = line;
            else
                sections[header] << line;
        }
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        // The nine built-in names (the README's strategy table), so an empty registry cannot pass.
        const std::vector<std::string> known{
            "brute_force", "dual_annealing", "evolutionary",        "genetic_algorithm",
            "greedy_ils",  "random_sample",  "simulated_annealing", "tpe",
            "xgb"};
        QCOMPARE(registry.names(), known);
        QCOMPARE(sections.size(), known.size() + 1); // and the "default" alias
        QCOMPARE(sections["default"].join('\n'), "    Alias for " +
                                                     QString::fromStdString(registry.defaultName()) +
                                                     ", the recommended strategy.");
        for (const std::string& name : known) {
            const auto& entry = registry.entry(name);
            QString title = QString::fromStdString(name);
            if (name == registry.defaultName())
                title += " (default)";
            QVERIFY2(sections.count(title), qPrintable(title + " not listed in:\n" + r.out));
            const QStringList& lines = sections[title];
            // The description, then one line per option.
            QCOMPARE(lines.size(), qsizetype(entry.options.size() + 1));
            QCOMPARE(lines.front(), "    " + QString::fromStdString(entry.description));
            for (std::size_t i = 0; i < entry.options.size(); ++i) {
                const OptionSpec& option = entry.options[i];
                const QString& line = lines[qsizetype(i + 1)];
                QVERIFY2(line.startsWith("    --option " + QString::fromStdString(option.name) + "=<"),
                         qPrintable(line));
                QVERIFY2(line.contains("  default " + QString::fromStdString(option.defaultValue) + ": " +
                                       QString::fromStdString(option.description)),
                         qPrintable(line));
            }
        }
        // Spot checks against the option tables as documented, independent of the registry's copy.
        QVERIFY2(
            sections["xgb (default)"].join('\n').contains("--option batch_max=<int 1 to 100000>  default 8:"),
            qPrintable(r.out));
        QVERIFY2(sections["random_sample"].size() == 1, qPrintable(r.out));
    }

    void tuneRecordsEveryTrial() {
        QTemporaryDir dir;
        QString db = dir.filePath("records.db");
        Result r = cli({"tune", "--dataset", kPnpoly, "--strategy", "default", "--budget", "40", "--seed",
                        "3", "--space", "product", "--db", db, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(out["evaluations"].toInt(), 40);
        // The fraction is the dataset's fastest time over the best found (pnpoly's fastest: 8.714 ms, as
        // infoDescribesADataset checks).
        const QJsonObject reported = out["best"].toObject();
        const double optimum = *readDataset(kPnpoly.toStdString()).optimum();
        QVERIFY(std::abs(optimum - 8.714) < 0.001);
        QVERIFY2(reported["objective_ms"].toDouble() >= optimum, qPrintable(r.out));
        QCOMPARE(reported["fraction_of_optimum"].toDouble(), optimum / reported["objective_ms"].toDouble());
        QVERIFY(!out["convergence"].toArray().isEmpty());
        // Progress went to stderr, the result to stdout.
        QVERIFY(r.err.contains("[40/40]"));

        RecordStore store(db.toStdString());
        auto sessions = store.sessions();
        QCOMPARE(sessions.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(sessions[0].status), QString("completed"));
        // The alias is recorded as the strategy it resolved to.
        QCOMPARE(sessions[0].strategy, StrategyRegistry::builtin().defaultName());
        auto trials = store.trials(sessions[0].id);
        QCOMPARE(trials.size(), std::size_t{40});
        double best = 1e300;
        std::size_t ok = 0;
        for (const auto& t : trials)
            if (t.status == "ok") {
                best = std::min(best, t.objective);
                ++ok;
            }
        QVERIFY(ok > 0);
        QCOMPARE(best, reported["objective_ms"].toDouble());
        // The evaluation it names is the trial that measured it, and the convergence curve ends there.
        const int evaluation = reported["evaluation"].toInt();
        QVERIFY(evaluation >= 1 && evaluation <= 40);
        auto measured = std::find_if(trials.begin(), trials.end(),
                                     [&](const auto& t) { return t.number == evaluation - 1; });
        QVERIFY(measured != trials.end());
        QCOMPARE(measured->objective, best);
        const QJsonObject last = out["convergence"].toArray().last().toObject();
        QCOMPARE(last["evaluation"].toInt(), evaluation);
        QCOMPARE(last["best_ms"].toDouble(), best);

        // The same seed gives the same run.
        Result again = cli({"tune", "--dataset", kPnpoly, "--budget", "40", "--seed", "3", "--space",
                            "product", "--db", db, "--json"});
        QCOMPARE(QJsonDocument::fromJson(again.out.toUtf8()).object()["best"], out["best"]);
    }

    void badInputFailsWithOneSentence_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("names");
        QTest::newRow("missing dataset")
            << QStringList{"tune", "--dataset", "/nonexistent/cache.json"} << "/nonexistent/cache.json";
        QTest::newRow("unknown strategy")
            << QStringList{"tune", "--dataset", kPnpoly, "--strategy", "nope"} << "\"nope\"";
        QTest::newRow("unknown option")
            << QStringList{"tune", "--dataset", kPnpoly, "--option", "colour=red"} << "\"colour\"";
        QTest::newRow("bad option form")
            << QStringList{"tune", "--dataset", kPnpoly, "--option", "colour"} << "\"colour\"";
        QTest::newRow("zero budget") << QStringList{"tune", "--dataset", kPnpoly, "--budget", "0"}
                                     << "The budget 0 is not a positive number of evaluations.";
        QTest::newRow("bad space mode")
            << QStringList{"tune", "--dataset", kPnpoly, "--space", "sideways"} << "sideways";
        QTest::newRow("constraint syntax")
            << QStringList{"tune", "--dataset", kPnpoly, "--constraint", "block_size_x * * 2 > 1"}
            << "block_size_x * * 2 > 1";
        QTest::newRow("constraint unknown name")
            << QStringList{"tune", "--dataset", kPnpoly, "--constraint", "block_size_z > 1"}
            << "block_size_z";
        QTest::newRow("unsatisfiable")
            << QStringList{"tune", "--dataset", kPnpoly, "--constraint", "block_size_x > 4096"}
            << "block_size_x > 4096";
        QTest::newRow("compare budgets")
            << QStringList{"compare", "--dataset", kPnpoly, "--budgets", "10,x"} << "\"x\"";
        QTest::newRow("records missing db")
            << QStringList{"records", "--db", "/nonexistent/r.db", "list"} << "/nonexistent/r.db";
    }
    void badInputFailsWithOneSentence() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, names);
        QTemporaryDir dir;
        QString db = dir.filePath("records.db");
        if (arguments.first() == "tune")
            arguments << "--db" << db;
        Result r = cli(arguments);
        expectOneSentence(r, names);
        // Nothing half-written: bad input is rejected before a session is recorded.
        if (QFile::exists(db))
            QCOMPARE(RecordStore(db.toStdString()).sessions().size(), std::size_t{0});
    }

    void malformedAndEmptyDatasets() {
        QTemporaryDir dir;
        QFile empty(dir.filePath("empty.json"));
        QVERIFY(empty.open(QIODevice::WriteOnly));
        empty.close();
        expectOneSentence(cli({"info", empty.fileName()}), "empty.json");
        QFile broken(dir.filePath("broken.json"));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("{\"device_name\": \"x\", \"tune_params\": {\"a\": [1, 2,, }");
        broken.close();
        expectOneSentence(cli({"info", broken.fileName()}), "broken.json");
    }

    void unwritableDatabaseLeavesNothingBehind() {
        QTemporaryDir dir;
        QFile blocker(dir.filePath("not-a-dir"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        // A database path under a regular file cannot be created, even by root.
        QString db = dir.filePath("not-a-dir/records.db");
        expectOneSentence(cli({"tune", "--dataset", kPnpoly, "--budget", "5", "--db", db}), db);
    }

    // The trace written by compare re-scores, through `score`, to exactly the figures compare reported.
    void traceRescoresToTheSameFigures() {
        QTemporaryDir dir;
        const QString conv = TUNESCOPE_RESOURCES "/datasets/convolution_milo_A100.json.gz";
        Result r = cli({"compare", "--dataset", kPnpoly, "--dataset", conv, "--strategies",
                        "random_sample,brute_force", "--repeats", "4", "--budgets", "10,60", "--trace",
                        dir.filePath("trace.jsonl"), "--json", dir.filePath("compare.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Result s =
            cli({"score", "--dataset", kPnpoly, "--dataset", conv, "--trace", dir.filePath("trace.jsonl"),
                 "--budgets", "10,60", "--json", dir.filePath("score.json")});
        QVERIFY2(s.exitCode == 0, qPrintable(s.err));
        auto load = [&](const QString& name) {
            QFile f(dir.filePath(name));
            f.open(QIODevice::ReadOnly);
            return QJsonDocument::fromJson(f.readAll()).object();
        };
        QJsonObject compared = load("compare.json"), scored = load("score.json");
        QVERIFY(!compared["strategies"].toObject().isEmpty());
        QCOMPARE(scored["strategies"], compared["strategies"]);
        QCOMPARE(scored["datasets"].toArray().at(1).toObject()["fraction"],
                 compared["datasets"].toArray().at(1).toObject()["fraction"]);
        // Each trace line lists the evaluated configs as cache keys.
        QFile trace(dir.filePath("trace.jsonl"));
        QVERIFY(trace.open(QIODevice::ReadOnly));
        QJsonObject first = QJsonDocument::fromJson(trace.readLine()).object();
        QCOMPARE(first["configs"].toArray().size(), 60);
        QCOMPARE(first["configs"].toArray().at(0).toString().count(','), 3);
    }

    // A peer's runs started with a smaller max_fevals score that budget's column (one run per budget), the
    // others cut the longest runs; a column whose runs stopped before spending the budget is marked.
    void scoreUsesPerBudgetRunsAndMarksShortRuns() {
        QTemporaryDir dir;
        Result r = cli({"compare", "--dataset", kPnpoly, "--strategies", "brute_force", "--repeats", "1",
                        "--budgets", "10,60", "--trace", dir.filePath("brute.jsonl"), "--json",
                        dir.filePath("brute.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto load = [&](const QString& name) {
            QFile f(dir.filePath(name));
            f.open(QIODevice::ReadOnly);
            return QJsonDocument::fromJson(f.readAll()).object();
        };
        QFile bruteTrace(dir.filePath("brute.jsonl"));
        QVERIFY(bruteTrace.open(QIODevice::ReadOnly));
        const QJsonArray keys = QJsonDocument::fromJson(bruteTrace.readLine()).object()["configs"].toArray();
        QCOMPARE(keys.size(), 60);
        QJsonArray tail; // five configs from the end of the brute-force order: a run that stopped at 5 of 10
        for (int i = 50; i < 55; ++i)
            tail.append(keys.at(i));
        auto line = [&](const QJsonArray& configs, int maxFevals) {
            QJsonObject o{{"strategy", "peer"}, {"dataset", kPnpoly}, {"seed", 0}, {"configs", configs}};
            if (maxFevals > 0)
                o["max_fevals"] = maxFevals;
            return QJsonDocument(o).toJson(QJsonDocument::Compact) + "\n";
        };
        auto write = [&](const QString& name, const QByteArray& text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write("peer.jsonl", line(keys, 60) + line(tail, 10));
        write("tail.jsonl", line(tail, 0));
        Result s = cli({"score", "--dataset", kPnpoly, "--trace", dir.filePath("peer.jsonl"), "--budgets",
                        "10,60", "--json", dir.filePath("peer.json")});
        QVERIFY2(s.exitCode == 0, qPrintable(s.err));
        Result t = cli({"score", "--dataset", kPnpoly, "--trace", dir.filePath("tail.jsonl"), "--budgets",
                        "10", "--json", dir.filePath("tail.json")});
        QVERIFY2(t.exitCode == 0, qPrintable(t.err));
        const QJsonObject peer = load("peer.json")["strategies"].toObject()["peer"].toObject();
        const QJsonObject brute = load("brute.json")["strategies"].toObject()["brute_force"].toObject();
        const QJsonObject alone = load("tail.json")["strategies"].toObject()["peer"].toObject();
        QCOMPARE(load("peer.json")["repeats"].toInt(), 1);
        // Column 10 is the run started with max_fevals 10, scored as if alone; column 60 cuts the long run.
        QCOMPARE(peer["mean_fraction"].toArray().at(0).toDouble(),
                 alone["mean_fraction"].toArray().at(0).toDouble());
        QCOMPARE(peer["mean_fraction"].toArray().at(1).toDouble(),
                 brute["mean_fraction"].toArray().at(1).toDouble());
        QCOMPARE(peer["score"].toDouble(), brute["score"].toDouble());
        QCOMPARE(peer["budget_used"].toArray().at(0).toDouble(), 0.5);
        QCOMPARE(peer["budget_used"].toArray().at(1).toDouble(), 1.0);
        QVERIFY2(s.out.contains("peer: column 10 uses its runs started with max_fevals 10"),
                 qPrintable(s.out));
        QVERIFY2(s.out.contains("peer at 10: 50% of the budget"), qPrintable(s.out));
        QVERIFY2(!s.out.contains("peer at 60"), qPrintable(s.out));
        // A bad max_fevals is named.
        write("bad.jsonl", line(keys, 60).replace("\"max_fevals\":60", "\"max_fevals\":-3"));
        expectOneSentence(cli({"score", "--dataset", kPnpoly, "--trace", dir.filePath("bad.jsonl")}),
                          "max_fevals");
    }

    // In product mode `xgb` reports the divisibility rules it learned from the failed configs, in text and
    // JSON, written as constraint expressions: on the CLBlast GEMM product (78 % invalid) they keep almost
    // every Ok config of the dataset and rule out most of the invalid rest.
    void learnedRestrictionsAreReported() {
        const QString gemm = TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz";
        QTemporaryDir dir;
        // Cold: a warm start (from the bundled RTX 2080 Ti file) proposes few invalid configs to learn from.
        QStringList arguments{
            "tune",    "--dataset", gemm,   "--strategy",         "xgb",   "--budget", "150",
            "--space", "product",   "--db", dir.filePath("r.db"), "--cold"};
        Result r = cli(arguments + QStringList{"--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QJsonArray learned =
            QJsonDocument::fromJson(r.out.toUtf8()).object()["learned_restrictions"].toArray();
        QVERIFY(!learned.isEmpty());
        Result text = cli(arguments);
        QVERIFY(text.out.contains("learned restrictions"));
        QVERIFY(text.out.contains(learned.first().toString()));

        Dataset dataset = readDataset(gemm.toStdString());
        std::vector<std::string> constraints;
        for (const auto& rule : learned)
            constraints.push_back(rule.toString().toStdString());
        SearchSpace restricted(dataset.space.parameters(), constraints);
        std::size_t okKept = 0;
        for (const auto& [index, m] : dataset.entries)
            okKept += m.status == MeasureStatus::Ok && restricted.isValid(index);
        double kept = double(okKept) / double(dataset.okCount());
        double share = double(restricted.validCount()) / double(restricted.productSize());
        qInfo("%lld rules keep %.3f of the Ok configs and %.3f of the product (%.3f of it is Ok)",
              static_cast<long long>(learned.size()), kept, share,
              double(dataset.okCount()) / double(restricted.productSize()));
        QVERIFY(kept > 0.9);
        QVERIFY(share < 0.5);
    }

    void constraintsRestrictTheSpace() {
        QTemporaryDir dir;
        Result r = cli({"tune", "--dataset", kPnpoly, "--budget", "30", "--constraint", "block_size_x <= 64",
                        "--constraint", "tile_size == 1 or use_method != 0", "--db", dir.filePath("r.db"),
                        "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["evaluations"].toInt(), 30);
        RecordStore store(dir.filePath("r.db").toStdString());
        const auto trials = store.trials(store.sessions().at(0).id);
        QCOMPARE(trials.size(), std::size_t{30});
        for (const auto& t : trials) {
            QJsonObject config = QJsonDocument::fromJson(QByteArray::fromStdString(t.config)).object();
            QVERIFY(config["block_size_x"].toInt() <= 64);
            QVERIFY(config["tile_size"].toInt() == 1 || config["use_method"].toInt() != 0);
        }
    }
};

QTEST_APPLESS_MAIN(TestCli)
#include "TestCli.moc"
