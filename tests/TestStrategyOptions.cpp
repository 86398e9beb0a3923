#include "CliRun.h"
#include "SqlExec.h"
#include "SyntheticDataset.h"
#include "store/RecordStore.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ts;

namespace {

using Result = ts::test::CliResult;

// A replay dataset of 6 configs (4 of them in the file): every tune on it is quick.
const QString kSmall = TUNESCOPE_TEST_DATA "/t4_coulomb.json";
// The same dataset with 4092 configs, for runs that must last several batches.
const QString kPnpoly = TUNESCOPE_TEST_DATA "/kt_pnpoly.json";

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

// A number as the user would type it, exact for doubles.
QString numberText(double value, OptionType type) {
    if (type == OptionType::Integer)
        return QString::number(static_cast<qint64>(value));
    return QString::number(value, 'g', 17);
}

// The sentence every refused option value gets: the strategy, the option, the value and what it accepts.
QString refusal(const QString& strategy, const OptionSpec& spec, const QString& value) {
    QString problem;
    if (spec.type == OptionType::String)
        problem = "not one of " + text(spec.allowed());
    else
        problem = "outside its range " + text(spec.allowed());
    return QString("tunescope-cli: Option \"%1\" of strategy \"%2\" is \"%3\", %4.")
        .arg(text(spec.name), strategy, value, problem);
}

// Sessions and trials in a records database, to show that a refused run wrote nothing.
std::pair<std::size_t, std::size_t> contents(const QString& db) {
    RecordStore store(db.toStdString());
    std::size_t trials = 0;
    const std::vector<SessionRecord> sessions = store.sessions();
    for (const SessionRecord& session : sessions)
        trials += store.trials(session.id).size();
    return {sessions.size(), trials};
}

// A records database holding one finished session of 3 trials.
QString seededDatabase(const QTemporaryDir& dir) {
    QString db = dir.filePath("records.db");
    Result seeded = ts::test::runCli(
        {"tune", "--dataset", kSmall, "--strategy", "random_sample", "--budget", "3", "--db", db, "--json"});
    if (seeded.exitCode != 0)
        qFatal("cannot seed the records database: %s", qPrintable(seeded.err));
    return db;
}

// The "#" column of `records show`.
QList<int> shownNumbers(const QString& db, int session) {
    Result shown = ts::test::runCli({"records", "--db", db, "show", QString::number(session)});
    QList<int> numbers;
    static const QRegularExpression row(R"(^\s*(\d+) )");
    for (const QString& line : shown.out.split('\n').mid(2))
        if (auto match = row.match(line); match.hasMatch())
            numbers << match.captured(1).toInt();
    return numbers;
}

} // namespace

class TestStrategyOptions : public QObject {
    Q_OBJECT

private slots:
    // Every registered strategy's table states each option's range or choices, its defaults lie within them,
    // and the registry lists the table the strategy itself validates against.
    void everyTableStatesItsRanges() {
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        QCOMPARE(registry.names().size(), std::size_t{9}); // the nine of the README's strategy table
        std::size_t rows = 0;
        for (const std::string& name : registry.names()) {
            const StrategyRegistry::Entry& entry = registry.entry(name);
            const std::vector<OptionSpec> own = registry.create(name)->optionSpecs();
            QCOMPARE(entry.options.size(), own.size());
            for (std::size_t i = 0; i < own.size(); ++i) {
                const OptionSpec& spec = entry.options[i];
                const QString row = text(name + " " + spec.name);
                ++rows;
                QCOMPARE(text(own[i].name), text(spec.name));
                QVERIFY2(!spec.description.empty(), qPrintable(row));
                if (spec.type == OptionType::Integer || spec.type == OptionType::Real) {
                    QVERIFY2(std::isfinite(spec.min) && std::isfinite(spec.max) && spec.min <= spec.max,
                             qPrintable(row));
                    if (spec.type == OptionType::Integer)
                        QVERIFY2(std::trunc(spec.min) == spec.min && std::trunc(spec.max) == spec.max,
                                 qPrintable(row));
                }
                if (spec.type == OptionType::String) {
                    QVERIFY2(!spec.choices.empty(), qPrintable(row));
                    QVERIFY2(std::find(spec.choices.begin(), spec.choices.end(), spec.defaultValue) !=
                                 spec.choices.end(),
                             qPrintable(row));
                }
                try {
                    StrategyOptions(name, entry.options, {{spec.name, spec.defaultValue}});
                } catch (const Error& e) {
                    QFAIL(qPrintable(row + ": its default is refused: " + e.what()));
                }
            }
        }
        QVERIFY(rows >= 10); // xgb's table alone has more
    }

    // Through the real CLI: for every option of every registered strategy, a value below the minimum, one
    // above the maximum, NaN and infinities for reals, an integer that overflows, and a non-member for
    // choices are refused with one sentence before anything is measured or recorded.
    void outOfRangeValuesAreRefusedBeforeAnyTrial_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("sentence");
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        for (const std::string& name : registry.names()) {
            const QString strategy = text(name);
            for (const OptionSpec& spec : registry.entry(name).options) {
                QStringList values;
                if (spec.type == OptionType::Integer || spec.type == OptionType::Real) {
                    const double step =
                        spec.type == OptionType::Integer ? 1.0 : std::max(1.0, std::abs(spec.min));
                    values << numberText(spec.min - step, spec.type)
                           << numberText(spec.max + std::max(1.0, std::abs(spec.max)), spec.type);
                }
                if (spec.type == OptionType::Integer)
                    values << "99999999999999999999"
                           << "-99999999999999999999";
                if (spec.type == OptionType::Real)
                    values << "nan"
                           << "inf"
                           << "-inf"
                           << "1e999";
                if (spec.type == OptionType::String)
                    values << "not_" + text(spec.defaultValue) << text(spec.defaultValue).toUpper() + "x";
                for (const QString& value : values)
                    QTest::newRow(qPrintable(strategy + " " + text(spec.name) + "=" + value))
                        << strategy << text(spec.name) << value << refusal(strategy, spec, value);
            }
        }
    }
    void outOfRangeValuesAreRefusedBeforeAnyTrial() {
        QFETCH(QString, strategy);
        QFETCH(QString, option);
        QFETCH(QString, value);
        QFETCH(QString, sentence);
        static QTemporaryDir dir;
        static const QString db = seededDatabase(dir);
        const auto before = contents(db);
        Result r = ts::test::runCli({"tune", "--dataset", kSmall, "--strategy", strategy, "--option",
                                     option + "=" + value, "--budget", "4", "--db", db},
                                    QProcessEnvironment::systemEnvironment(), 60000);
        QVERIFY2(r.exitCode == 1, qPrintable(QString::number(r.exitCode) + " " + r.err));
        QCOMPARE(r.err.trimmed(), sentence);
        QCOMPARE(contents(db), before);
    }

    // The hang of the issue: greedy_ils with a negative random walk spun at 100 % CPU. Now it is refused at
    // once, with the sentence, and nothing is recorded.
    void negativeRandomWalkExitsPromptly() {
        QTemporaryDir dir;
        const QString db = dir.filePath("records.db");
        QElapsedTimer clock;
        clock.start();
        Result r = ts::test::runCli({"tune", "--dataset", kPnpoly, "--strategy", "greedy_ils", "--option",
                                     "random_walk=-1", "--budget", "100", "--db", db},
                                    QProcessEnvironment::systemEnvironment(), 30000);
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.trimmed(),
                 QString("tunescope-cli: Option \"random_walk\" of strategy \"greedy_ils\" is "
                         "\"-1\", outside its range 0 to 1."));
        QVERIFY(!QFile::exists(db));
    }

    // The key cases of the issue, spelled out: the sentences name the strategy, option, value and range.
    void sentencesOfTheIssue_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("sentence");
        QTest::newRow("rounds")
            << "xgb"
            << "rounds=-3"
            << "Option \"rounds\" of strategy \"xgb\" is \"-3\", outside its range 1 to 10000.";
        QTest::newRow("max_depth")
            << "evolutionary"
            << "max_depth=-1"
            << "Option \"max_depth\" of strategy \"evolutionary\" is \"-1\", outside its "
               "range 1 to 32.";
        QTest::newRow("method")
            << "genetic_algorithm"
            << "method=blend"
            << "Option \"method\" of strategy \"genetic_algorithm\" is \"blend\", not one of "
               "single_point, two_point, uniform or disruptive_uniform.";
        QTest::newRow("neighbor") << "greedy_ils"
                                  << "neighbor=far"
                                  << "Option \"neighbor\" of strategy \"greedy_ils\" is \"far\", not one of "
                                     "Hamming or adjacent.";
        QTest::newRow("epsilon nan")
            << "xgb"
            << "epsilon=nan"
            << "Option \"epsilon\" of strategy \"xgb\" is \"nan\", outside its range 0 "
               "to 1.";
        QTest::newRow("not an integer")
            << "tpe"
            << "n_ei_candidates=many"
            << "Option \"n_ei_candidates\" of strategy \"tpe\" is \"many\", not an "
               "integer (its range: 1 to 10000).";
        QTest::newRow("not a bool")
            << "greedy_ils"
            << "restart=maybe"
            << "Option \"restart\" of strategy \"greedy_ils\" is \"maybe\", not true or "
               "false.";
    }
    void sentencesOfTheIssue() {
        QFETCH(QString, strategy);
        QFETCH(QString, option);
        QFETCH(QString, sentence);
        QTemporaryDir dir;
        const QString db = dir.filePath("records.db");
        Result r = ts::test::runCli(
            {"tune", "--dataset", kSmall, "--strategy", strategy, "--option", option, "--db", db});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.trimmed(), "tunescope-cli: " + sentence);
        QVERIFY(!QFile::exists(db));
    }

    // Options built without the table (by hand, bypassing the registry) are held to it at reset, before a
    // strategy proposes anything.
    void resetValidatesOptionsMadeWithoutTheTable() {
        auto dataset = test::syntheticDataset();
        const StrategyRegistry& registry = StrategyRegistry::builtin();
        QCOMPARE(registry.names().size(), std::size_t{9});
        std::size_t refused = 0;
        for (const std::string& name : registry.names()) {
            std::vector<OptionSpec> loose = registry.entry(name).options;
            for (OptionSpec& spec : loose) {
                spec.min = -1e12;
                spec.max = 1e12;
                spec.choices.clear();
            }
            for (const OptionSpec& spec : registry.entry(name).options) {
                if (spec.type == OptionType::Bool)
                    continue;
                const std::string bad = spec.type == OptionType::String
                                            ? "nonesuch"
                                            : numberText(spec.max + 1e6, spec.type).toStdString();
                auto strategy = registry.create(name);
                try {
                    strategy->reset({&dataset->space, SpaceMode::Product, 0,
                                     StrategyOptions(name, loose, {{spec.name, bad}})});
                    QFAIL(qPrintable(text(name + " accepted " + spec.name + "=" + bad)));
                } catch (const Error& e) {
                    const QString message = e.what();
                    QVERIFY2(message.contains(text("\"" + spec.name + "\"")) &&
                                 message.contains(text(name)) && message.contains(text(bad)) &&
                                 message.contains(text(spec.allowed())),
                             e.what());
                    ++refused;
                }
            }
            // A context without any options gets the table's defaults.
            auto strategy = registry.create(name);
            strategy->reset({&dataset->space, SpaceMode::Product, 0, StrategyOptions()});
            QVERIFY(!strategy->propose(4).empty());
        }
        QVERIFY(refused >= 10);
    }

    // A budget beyond the space is capped at the space's size in the chosen mode, said once on stderr; the
    // session runs to the size, and progress counts towards it.
    void hugeBudgetIsCappedAtTheSpaceSize_data() {
        QTest::addColumn<QString>("space");
        QTest::addColumn<int>("size");
        QTest::newRow("constrained") << "constrained" << 4; // the configs in the file
        QTest::newRow("product") << "product" << 6;
    }
    void hugeBudgetIsCappedAtTheSpaceSize() {
        QFETCH(QString, space);
        QFETCH(int, size);
        QTemporaryDir dir;
        const QString db = dir.filePath("records.db");
        Result r = ts::test::runCli({"tune", "--dataset", kSmall, "--strategy", "random_sample", "--space",
                                     space, "--budget", "1000000000", "--db", db, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString note =
            QString("The budget 1000000000 is more than the %1 configs of the %2 space, so the "
                    "budget is %1.")
                .arg(size)
                .arg(space);
        QCOMPARE(r.err.count(note), 1);
        QVERIFY2(r.err.contains(QString("[%1/%1]").arg(size)), qPrintable(r.err));
        QVERIFY2(!r.err.contains("/1000000000]"), qPrintable(r.err));
        const QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(out["evaluations"].toInt(), size);
        QCOMPARE(out["stop_reason"].toString(), QString("space exhausted"));
        RecordStore store(db.toStdString());
        QCOMPARE(store.sessions().size(), std::size_t{1});
        QCOMPARE(store.sessions().front().budget, std::int64_t{size});
        QCOMPARE(store.trials(store.sessions().front().id).size(), std::size_t(size));

        // A budget within the space is left alone and not remarked on.
        Result within = ts::test::runCli({"tune", "--dataset", kSmall, "--strategy", "random_sample",
                                          "--space", space, "--budget", "3", "--db", db});
        QVERIFY2(within.exitCode == 0, qPrintable(within.err));
        QVERIFY2(!within.err.contains("The budget"), qPrintable(within.err));
        QVERIFY2(within.err.contains("[3/3]"), qPrintable(within.err));
    }

    // Users read one numbering: the trial a failed save names is the trial `records show` lists under that
    // number, as --log-trials counts.
    void trialNumbersAgreeBetweenErrorsAndRecords() {
        QTemporaryDir dir;
        const QString db = dir.filePath("records.db");
        { RecordStore create(db.toStdString()); }
        // The database refuses the third trial (stored number 2), as a full disk would.
        test::execSql(db, "CREATE TRIGGER refuse_third BEFORE INSERT ON trials WHEN NEW.number = 2 BEGIN "
                          "SELECT RAISE(ABORT, 'database or disk is full'); END;");
        Result r = ts::test::runCli({"tune", "--dataset", kPnpoly, "--strategy", "random_sample", "--budget",
                                     "6", "--batch-size", "1", "--log-trials", "--db", db});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("trial 2 committed"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("trial 3 committed"), qPrintable(r.err));
        static const QRegularExpression named(R"(Cannot save trial (\d+) of session 1\b)");
        const auto match = named.match(r.err);
        QVERIFY2(match.hasMatch(), qPrintable(r.err));
        const int failed = match.captured(1).toInt();
        QCOMPARE(shownNumbers(db, 1), (QList<int>{1, 2}));

        // With the fault gone, the resumed session saves that trial under the number the error named.
        test::execSql(db, "DROP TRIGGER refuse_third;");
        Result resumed = ts::test::runCli({"tune", "--resume", "1", "--log-trials", "--db", db});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QVERIFY2(resumed.err.contains(QString("trial %1 committed").arg(failed)), qPrintable(resumed.err));
        QCOMPARE(shownNumbers(db, 1), (QList<int>{1, 2, 3, 4, 5, 6}));
        QCOMPARE(failed, 3);
    }
};

QTEST_GUILESS_MAIN(TestStrategyOptions)
#include "TestStrategyOptions.moc"
