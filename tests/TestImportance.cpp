// Parameter importance of a session (core/analysis/ParameterImportance and `tunescope-cli importance`):
// constructed cases whose answer is known by construction, replayed sessions on brute-forced spaces checked
// against what the whole brute-forced data says matters (the spread of the best time per value), and the
// command's table, JSON and refusals.
#include "BundledDatasets.h"
#include "CliRun.h"
#include "SqlExec.h"
#include "StrategyRun.h"
#include "analysis/ParameterImportance.h"
#include "datasets/DatasetReader.h"
#include "store/RecordStore.h"
#include "store/StoredTrialConverter.h"
#include "strategies/StrategyRegistry.h"
#include "util/Error.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using namespace ts;

namespace {

using Result = ts::test::CliResult;

const QString kPnpoly = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";

Value integer(std::int64_t v) {
    return Value(v);
}

// The full product of a, b (numbers) and c (strings), each config measured `repeats` times, timed by `time`.
template <typename Time>
std::vector<Trial> productTrials(const std::vector<Parameter>& parameters, Time time) {
    SearchSpace space(parameters, {});
    std::vector<Trial> trials;
    for (SearchSpace::Index i = 0; i < space.productSize(); ++i) {
        Trial t;
        t.number = static_cast<std::int64_t>(i);
        t.index = i;
        t.config = space.config(i);
        t.measurement.status = MeasureStatus::Ok;
        t.measurement.objective = time(space.digits(i));
        trials.push_back(std::move(t));
    }
    return trials;
}

std::vector<Parameter> threeParameters() {
    return {{"a", ParameterType::Integer, {integer(1), integer(2), integer(4), integer(8), integer(16)}},
            {"b", ParameterType::Integer, {integer(32), integer(64), integer(128), integer(256)}},
            {"c", ParameterType::String, {std::string("x"), std::string("y"), std::string("z")}}};
}

const ParameterEffect& effectOf(const ImportanceResult& result, const std::string& name) {
    for (const ParameterEffect& e : result.ranked)
        if (e.parameter == name)
            return e;
    throw std::logic_error("no parameter " + name);
}

std::vector<std::string> rankedNames(const ImportanceResult& result) {
    std::vector<std::string> names;
    for (const ParameterEffect& e : result.ranked)
        names.push_back(e.parameter);
    return names;
}

// What the whole brute-forced dataset says, computed here without the analysis: per parameter, the fastest
// time among the configs with each of its values, and their spread (slowest best / fastest best).
std::map<std::string, double> bestTimeSpread(const Dataset& dataset) {
    const auto& parameters = dataset.space.parameters();
    std::vector<std::map<std::string, double>> best(parameters.size());
    for (const auto& [index, m] : dataset.entries) {
        if (m.status != MeasureStatus::Ok)
            continue;
        const Config config = dataset.space.config(index);
        for (std::size_t p = 0; p < parameters.size(); ++p) {
            auto [it, fresh] = best[p].emplace(toString(config[p]), m.objective);
            if (!fresh)
                it->second = std::min(it->second, m.objective);
        }
    }
    std::map<std::string, double> spread;
    for (std::size_t p = 0; p < parameters.size(); ++p) {
        double low = INFINITY, high = 0.0;
        for (const auto& [value, time] : best[p]) {
            low = std::min(low, time);
            high = std::max(high, time);
        }
        spread[parameters[p].name] = high / low;
    }
    return spread;
}

std::vector<std::string> bySpread(const std::map<std::string, double>& spread) {
    std::vector<std::string> names;
    for (const auto& [name, s] : spread)
        names.push_back(name);
    std::stable_sort(names.begin(), names.end(),
                     [&](const std::string& a, const std::string& b) { return spread.at(a) > spread.at(b); });
    return names;
}

test::RunOutcome replay(const std::shared_ptr<const Dataset>& dataset, const std::string& strategy,
                        std::int64_t budget) {
    const StrategyRegistry& registry = StrategyRegistry::builtin();
    StrategyContext context{&dataset->space, SpaceMode::Constrained, 0, registry.options(strategy, {})};
    return test::runStrategy(registry.create(strategy), context, dataset, budget, 8);
}

} // namespace

class TestImportance : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void agreesWithTheBruteForcedData_data();
    void agreesWithTheBruteForcedData();
    void oneParameterAloneDeterminesTheTime();
    void importanceFollowsTheVarianceOfEachEffect();
    void aParameterOfManyValuesIsEvaluatedAtSpreadValues();
    void failedTrialsAreLeftOutAndCounted();
    void tooFewTrialsIsOneSentence();
    void theSameTrialsGiveTheSameResult();
    void cliPrintsTheRankedTableOfCore();
    void cliJsonHasEveryParameterRanked();
    void cliRefusesAnUnknownSession();
    void cliRefusesASessionWithTooFewTrials();
    void cliRefusesAMissingDatabase();
    void cliRefusesUnreadableParameterNames();

private:
    QTemporaryDir m_dir;
    QString m_db;

    QByteArray digest(const QString& path) const {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
    }
};

// Session 1: 80 random configs of the pnpoly space; session 2: 5 of them (too few to analyse).
void TestImportance::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath("records.db");
    for (const char* budget : {"80", "5"}) {
        const Result r = test::runCli(
            {"tune", "--dataset", kPnpoly, "--strategy", "random_sample", "--budget", budget, "--db", m_db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
}

// Only a matters (time = 2^position of a); b and c are irrelevant, and d has one value.
void TestImportance::oneParameterAloneDeterminesTheTime() {
    std::vector<Parameter> parameters = threeParameters();
    parameters.push_back({"d", ParameterType::Integer, {integer(7)}});
    const auto trials =
        productTrials(parameters, [](const std::vector<std::uint32_t>& d) { return std::exp2(d[0]); });
    const ImportanceResult result = ParameterImportance::compute(parameters, trials);
    QCOMPARE(result.trials, trials.size());
    QCOMPARE(result.excluded, std::size_t{0});
    QCOMPARE(rankedNames(result).front(), std::string("a"));
    QVERIFY2(effectOf(result, "a").importance > 0.99,
             qPrintable(QString::number(effectOf(result, "a").importance)));
    QVERIFY(effectOf(result, "b").importance < 0.005);
    QVERIFY(effectOf(result, "c").importance < 0.005);
    QCOMPARE(effectOf(result, "d").importance, 0.0);
    QCOMPARE(rankedNames(result).back(), std::string("d"));
    // a's values span 2^0 .. 2^4: its worst value is about 16x slower than its best, which is a = 1.
    QVERIFY2(std::abs(effectOf(result, "a").spread - 16.0) < 1.6,
             qPrintable(QString::number(effectOf(result, "a").spread)));
    QVERIFY(effectOf(result, "a").bestValue == integer(1));
    QCOMPARE(effectOf(result, "a").values, std::size_t{5});
    QCOMPARE(effectOf(result, "c").values, std::size_t{3});
    QCOMPARE(effectOf(result, "d").values, std::size_t{1});
    QCOMPARE(effectOf(result, "d").spread, 1.0);
    QVERIFY(effectOf(result, "d").bestValue == integer(7));
}

// log time = 2 * a-position + b-position + (c == "z"): on the full product the main effects' variances are
// 4 * var(0..4) = 8, var(0..3) = 1.25 and var({0, 0, 1}) = 2/9, so the shares are about 0.85, 0.13 and 0.02.
void TestImportance::importanceFollowsTheVarianceOfEachEffect() {
    const auto trials = productTrials(threeParameters(), [](const std::vector<std::uint32_t>& d) {
        return std::exp(2.0 * d[0] + 1.0 * d[1] + (d[2] == 2 ? 1.0 : 0.0));
    });
    const ImportanceResult result = ParameterImportance::compute(threeParameters(), trials);
    QCOMPARE(rankedNames(result), (std::vector<std::string>{"a", "b", "c"}));
    const double total = 8.0 + 1.25 + 2.0 / 9.0;
    QVERIFY2(std::abs(effectOf(result, "a").importance - 8.0 / total) < 0.03,
             qPrintable(QString::number(effectOf(result, "a").importance)));
    QVERIFY2(std::abs(effectOf(result, "b").importance - 1.25 / total) < 0.03,
             qPrintable(QString::number(effectOf(result, "b").importance)));
    QVERIFY2(std::abs(effectOf(result, "c").importance - (2.0 / 9.0) / total) < 0.02,
             qPrintable(QString::number(effectOf(result, "c").importance)));
    QVERIFY(effectOf(result, "c").bestValue != Value(std::string("z")));
    double sum = 0.0;
    for (const ParameterEffect& e : result.ranked)
        sum += e.importance;
    QVERIFY(std::abs(sum - 1.0) < 1e-9);
}

// A real parameter with 3000 distinct values (more than kMaxEffectValues): its main effect is evaluated at
// values spread over its whole range, and its best value is one of them, at the fast end.
void TestImportance::aParameterOfManyValuesIsEvaluatedAtSpreadValues() {
    const std::vector<Parameter> parameters{
        {"x", ParameterType::Real, {}}, {"y", ParameterType::Integer, {integer(1), integer(2), integer(3)}}};
    std::vector<Trial> trials;
    for (int i = 0; i < 3000; ++i) {
        Trial t;
        t.number = i;
        const double x = double((i * 7919) % 3000) / 3000.0; // a permutation of 0 .. 2999 / 3000
        t.config = {Value(x), integer(1 + i % 3)};
        t.measurement.status = MeasureStatus::Ok;
        t.measurement.objective = std::exp(3.0 * x);
        trials.push_back(std::move(t));
    }
    const ImportanceResult result = ParameterImportance::compute(parameters, trials);
    QCOMPARE(rankedNames(result).front(), std::string("x"));
    QVERIFY2(effectOf(result, "x").importance > 0.99,
             qPrintable(QString::number(effectOf(result, "x").importance)));
    QCOMPARE(effectOf(result, "x").values, std::size_t{3000});
    QVERIFY2(toNumber(effectOf(result, "x").bestValue) < 0.02,
             qPrintable(QString::fromStdString(toString(effectOf(result, "x").bestValue))));
    QVERIFY2(std::abs(std::log(effectOf(result, "x").spread) - 3.0) < 0.3,
             qPrintable(QString::number(effectOf(result, "x").spread)));
}

// Failed trials, trials without a positive finite time and configs of the wrong size change nothing but the
// count of trials left out, whatever time they carry.
void TestImportance::failedTrialsAreLeftOutAndCounted() {
    const auto parameters = threeParameters();
    auto trials =
        productTrials(parameters, [](const std::vector<std::uint32_t>& d) { return std::exp2(d[1]); });
    const ImportanceResult clean = ParameterImportance::compute(parameters, trials);
    std::vector<Trial> noisy = trials;
    for (std::size_t i = 0; i < 12; ++i) {
        Trial bad = trials[i];
        bad.measurement.status = i % 2 ? MeasureStatus::CompileFailed : MeasureStatus::Timeout;
        bad.measurement.objective = 1e20 * double(i + 1); // a time that would dominate if it counted
        noisy.insert(noisy.begin() + static_cast<std::ptrdiff_t>(3 * i), bad);
    }
    for (double time : {0.0, -1.0, double(NAN), double(INFINITY)}) {
        Trial bad = trials[5];
        bad.measurement.objective = time;
        noisy.push_back(bad);
    }
    Trial shortConfig = trials[7];
    shortConfig.config.pop_back();
    noisy.push_back(shortConfig);
    const ImportanceResult result = ParameterImportance::compute(parameters, noisy);
    QCOMPARE(result.trials, trials.size());
    QCOMPARE(result.excluded, std::size_t{17});
    QCOMPARE(ParameterImportance::usableCount(noisy, parameters.size()), trials.size());
    QCOMPARE(rankedNames(result), rankedNames(clean));
    for (std::size_t i = 0; i < result.ranked.size(); ++i)
        QCOMPARE(result.ranked[i].importance, clean.ranked[i].importance);
    QCOMPARE(rankedNames(result).front(), std::string("b"));
}

void TestImportance::tooFewTrialsIsOneSentence() {
    auto trials =
        productTrials(threeParameters(), [](const std::vector<std::uint32_t>& d) { return 1.0 + d[0]; });
    trials.resize(ParameterImportance::kMinTrials - 1);
    trials.push_back(trials.front());
    trials.back().measurement.status = MeasureStatus::RuntimeFailed;
    try {
        ParameterImportance::compute(threeParameters(), trials);
        QFAIL("no error for too few trials");
    } catch (const Error& e) {
        QCOMPARE(QString(e.what()), QString("Parameter importance needs at least 8 successful trials with a "
                                            "positive time; there are 7."));
    }
}

void TestImportance::theSameTrialsGiveTheSameResult() {
    auto dataset = std::make_shared<const Dataset>(readDataset(kPnpoly.toStdString()));
    const auto outcome = replay(dataset, "random_sample", 200);
    const ImportanceResult first = ParameterImportance::compute(dataset->space.parameters(), outcome.trials);
    const ImportanceResult second = ParameterImportance::compute(dataset->space.parameters(), outcome.trials);
    QCOMPARE(rankedNames(first), rankedNames(second));
    for (std::size_t i = 0; i < first.ranked.size(); ++i) {
        QCOMPARE(first.ranked[i].importance, second.ranked[i].importance);
        QCOMPARE(first.ranked[i].variance, second.ranked[i].variance);
    }
}

// Rows: brute-forced spaces, the strategy of the replayed session (random sampling, and xgb, whose trials
// crowd around the fast configs) and k, the number of parameters whose best times spread clearly more than
// the others' in the whole dataset; k = 0 checks only the parameters that do not matter. GEMM's xgb row has
// k = 0: a session's importance is that of its own trials, and around GEMM's fast configs MDIMC decides much
// of the time (xgb sessions of 400, seeds 0-19: MDIMC in the top three in 15 of 20 with gp_until=0 and 17 of
// 20 with 100, the whole space ranks it sixth; the top three exact in 2 and 1 of 20; NWG first in 16 and 15).
void TestImportance::agreesWithTheBruteForcedData_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<int>("k");
    for (const char* strategy : {"random_sample", "xgb"}) {
        QTest::newRow(qPrintable(QString("gemm/") + strategy))
            << "gemm_clblast_RTX_3090" << strategy << (std::string(strategy) == "xgb" ? 0 : 3);
        QTest::newRow(qPrintable(QString("pnpoly/") + strategy)) << "pnpoly_RTX_3090" << strategy << 2;
        QTest::newRow(qPrintable(QString("convolution/") + strategy))
            << "convolution_2021_RTX_3090" << strategy << 4;
    }
}

// A replayed session of 400 configs ranks first the k parameters that the whole brute-forced space says
// matter most (computed here: the spread of the best time per value), and gives the parameters whose values
// do not change the best time (spread under 1 %) almost nothing.
void TestImportance::agreesWithTheBruteForcedData() {
    QFETCH(QString, file);
    QFETCH(QString, strategy);
    QFETCH(int, k);
    auto dataset = std::make_shared<const Dataset>(
        readDataset(QString(TUNESCOPE_RESOURCES "/datasets/%1.json.gz").arg(file).toStdString()));
    const std::map<std::string, double> spread = bestTimeSpread(*dataset);
    const std::vector<std::string> known = bySpread(spread);
    QVERIFY2(k == 0 || spread.at(known[std::size_t(k - 1)]) > 1.1 * spread.at(known[std::size_t(k)]),
             "the row's k parameters must spread clearly more than the next one");

    const auto outcome = replay(dataset, strategy.toStdString(), 400);
    const ImportanceResult result = ParameterImportance::compute(dataset->space.parameters(), outcome.trials);
    QVERIFY(result.trials >= 250);
    const std::vector<std::string> ranked = rankedNames(result);
    const std::set<std::string> topKnown(known.begin(), known.begin() + k);
    const std::set<std::string> topRanked(ranked.begin(), ranked.begin() + k);
    QVERIFY2(topRanked == topKnown,
             qPrintable(QString::fromStdString(fmt::format("ranked {} ; by the spread of best times {}",
                                                           fmt::join(ranked, " "), fmt::join(known, " ")))));
    QVERIFY2(k > 0 || std::any_of(spread.begin(), spread.end(),
                                  [](const auto& entry) { return entry.second < 1.01; }),
             "a row with k = 0 must have parameters that do not matter");
    for (const auto& [name, s] : spread)
        if (s < 1.01)
            QVERIFY2(effectOf(result, name).importance < 0.02,
                     qPrintable(QString::fromStdString(
                         fmt::format("{}: importance {}", name, effectOf(result, name).importance))));
}

namespace {

// One clear sentence: a single line on stderr, exit status 1, naming every part in `parts`.
void expectSentence(const Result& r, const QStringList& parts) {
    QVERIFY2(r.exitCode == 1, qPrintable(QString::number(r.exitCode) + r.out + r.err));
    QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
    const QString err = r.err.trimmed();
    QVERIFY2(!err.contains('\n'), qPrintable(err));
    QVERIFY2(err.startsWith("tunescope-cli: "), qPrintable(err));
    for (const QString& part : parts)
        QVERIFY2(err.contains(part), qPrintable(part + " not in: " + err));
}

// What core says of a stored session, read back as the command reads it.
ImportanceResult coreImportanceOf(const QString& db, std::int64_t session) {
    RecordStore store(db.toStdString(), DatabaseAccess::ReadOnly);
    const auto record = store.session(session);
    const auto names = nlohmann::json::parse(record->parameters).get<std::vector<std::string>>();
    std::vector<Parameter> parameters;
    for (const std::string& name : names)
        parameters.push_back({name, ParameterType::Integer, {}});
    std::vector<Trial> trials;
    for (const StoredTrial& stored : store.trials(session))
        trials.push_back(StoredTrialConverter::byNames(stored, names));
    return ParameterImportance::compute(parameters, trials);
}

} // namespace

void TestImportance::cliPrintsTheRankedTableOfCore() {
    const Result r = test::runCli({"importance", "1", "--db", m_db});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const ImportanceResult expected = coreImportanceOf(m_db, 1);
    const QStringList lines = r.out.trimmed().split('\n');
    QVERIFY2(lines.size() == 3 + static_cast<qsizetype>(expected.ranked.size()), qPrintable(r.out));
    QVERIFY2(lines[0].startsWith("session 1: cn_pnpoly"), qPrintable(lines[0]));
    QVERIFY2(lines[0].contains(QString("%1 successful trials used").arg(expected.trials)),
             qPrintable(lines[0]));
    QCOMPARE(lines[1], QString("method: %1").arg(ParameterImportance::kMethod));
    for (std::size_t i = 0; i < expected.ranked.size(); ++i) {
        const QStringList cells = lines[3 + static_cast<qsizetype>(i)].simplified().split(' ');
        QCOMPARE(cells[0], QString::number(i + 1));
        QCOMPARE(cells[1], QString::fromStdString(expected.ranked[i].parameter));
        QCOMPARE(cells[2], QString::asprintf("%.4f", expected.ranked[i].importance));
    }
}

void TestImportance::cliJsonHasEveryParameterRanked() {
    const Result r = test::runCli({"importance", "1", "--db", m_db, "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const ImportanceResult expected = coreImportanceOf(m_db, 1);
    QCOMPARE(out["session"].toInt(), 1);
    QCOMPARE(out["method"].toString(), QString(ParameterImportance::kMethod));
    QCOMPARE(out["trials"].toInteger(), static_cast<qint64>(expected.trials));
    const QJsonArray parameters = out["parameters"].toArray();
    QCOMPARE(parameters.size(), static_cast<qsizetype>(expected.ranked.size()));
    double sum = 0.0;
    for (qsizetype i = 0; i < parameters.size(); ++i) {
        const QJsonObject p = parameters[i].toObject();
        QCOMPARE(p["rank"].toInt(), int(i + 1));
        QCOMPARE(p["name"].toString(), QString::fromStdString(expected.ranked[std::size_t(i)].parameter));
        QCOMPARE(p["importance"].toDouble(), expected.ranked[std::size_t(i)].importance);
        sum += p["importance"].toDouble();
    }
    QVERIFY(std::abs(sum - 1.0) < 1e-9);
}

void TestImportance::cliRefusesAnUnknownSession() {
    const QByteArray before = digest(m_db);
    const Result r = test::runCli({"importance", "99", "--db", m_db});
    expectSentence(r, {"Session 99 is not in", m_db});
    QCOMPARE(digest(m_db), before);
    QVERIFY(test::runCli({"importance", "1", "--db", m_db}).exitCode == 0); // the records are intact
}

void TestImportance::cliRefusesASessionWithTooFewTrials() {
    const QByteArray before = digest(m_db);
    const Result r = test::runCli({"importance", "2", "--db", m_db});
    const std::size_t usable = [&] {
        RecordStore store(m_db.toStdString(), DatabaseAccess::ReadOnly);
        std::size_t ok = 0;
        for (const StoredTrial& t : store.trials(2))
            ok += t.status == "ok";
        return ok;
    }();
    expectSentence(r, {QString("Session 2 in %1 has %2 successful").arg(m_db).arg(usable), "(of 5)",
                       "parameter importance needs at least 8."});
    QCOMPARE(digest(m_db), before);
}

void TestImportance::cliRefusesAMissingDatabase() {
    const QString missing = m_dir.filePath("nothing-here.db");
    expectSentence(test::runCli({"importance", "1", "--db", missing}),
                   {QString("The records database %1 does not exist.").arg(missing)});
    QVERIFY(!QFile::exists(missing));
}

// A session whose parameter names were overwritten (by another tool, a bad import) cannot be read.
void TestImportance::cliRefusesUnreadableParameterNames() {
    const QString copy = m_dir.filePath("names.db");
    QVERIFY(QFile::copy(m_db, copy));
    for (const char* names : {"'{\"a\": 1}'", "'[1, 2]'", "'[]'", "'not json'"}) {
        test::execSql(copy, std::string("UPDATE sessions SET parameters = ") + names + " WHERE id = 1");
        const QByteArray before = digest(copy);
        expectSentence(test::runCli({"importance", "1", "--db", copy}),
                       {"The parameters of session 1 in", copy, "are not a JSON array of names"});
        QCOMPARE(digest(copy), before);
    }
}

QTEST_GUILESS_MAIN(TestImportance)
#include "TestImportance.moc"
