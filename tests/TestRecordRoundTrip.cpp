// The record round trip in Optuna's manner: a Trial of every status, with every kind of number a backend
// may report (NaN, infinity, zero, ordinary times), goes through a real SQLite RecordStore and back through
// the one converter (StoredTrialConverter, with and without the session's space) and must come back the
// same, field by field. Also: the converter's policy where the old two converters disagreed (the stored
// index, NaN).
#include "store/RecordStore.h"
#include "store/SessionResume.h"
#include "store/StoredTrialConverter.h"
#include "space/ValueJson.h"

#include "StatusCompare.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace ts;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr MeasureStatus kStatuses[] = {
    MeasureStatus::Ok,      MeasureStatus::CompileFailed, MeasureStatus::RuntimeFailed,
    MeasureStatus::Timeout, MeasureStatus::WrongResult,   MeasureStatus::Invalid};

// One parameter of each value type.
SearchSpace mixedSpace() {
    return SearchSpace(
        {{"threads", ParameterType::Integer, {std::int64_t{32}, std::int64_t{64}, std::int64_t{128}}},
         {"scale", ParameterType::Real, {0.5, 1.0, 2.5}},
         {"layout", ParameterType::String, {std::string("row"), std::string("col")}},
         {"unroll", ParameterType::Bool, {false, true}}},
        {});
}

std::vector<std::string> names(const SearchSpace& space) {
    std::vector<std::string> result;
    for (const Parameter& parameter : space.parameters())
        result.push_back(parameter.name);
    return result;
}

// The same number, NaN included (NaN != NaN), and the same sign of zero and infinity.
bool same(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

QString text(double value) {
    return QString::number(value, 'g', 17);
}

#define COMPARE_NUMBER(actual, expected)                                                                     \
    QVERIFY2(same(actual, expected),                                                                         \
             qPrintable(QString("%1: %2, expected %3").arg(#actual, text(actual), text(expected))))

void compareTrials(const Trial& actual, const Trial& expected) {
    QCOMPARE(actual.number, expected.number);
    QCOMPARE(actual.index, expected.index);
    QVERIFY(actual.config == expected.config);
    COMPARE_STATUS(actual.measurement.status, expected.measurement.status);
    COMPARE_NUMBER(actual.measurement.objective, expected.measurement.objective);
    QCOMPARE(actual.measurement.samples.size(), expected.measurement.samples.size());
    for (std::size_t i = 0; i < expected.measurement.samples.size(); ++i)
        COMPARE_NUMBER(actual.measurement.samples[i], expected.measurement.samples[i]);
    COMPARE_NUMBER(actual.measurement.compileMs, expected.measurement.compileMs);
    QCOMPARE(actual.measurement.log, expected.measurement.log);
    QVERIFY(actual.measurement.metrics == expected.measurement.metrics);
    QCOMPARE(actual.predicted.has_value(), expected.predicted.has_value());
    if (expected.predicted)
        COMPARE_NUMBER(*actual.predicted, *expected.predicted);
    QCOMPARE(actual.batch, expected.batch);
    COMPARE_NUMBER(actual.elapsedS, expected.elapsedS);
    COMPARE_NUMBER(actual.finishedAt, expected.finishedAt);
    // strategyMs is a live session's timing, not stored: it comes back 0 (StoredTrialConverter).
    QCOMPARE(actual.strategyMs, 0.0);
}

// Every status x every kind of objective, with the other numbers varied along.
std::vector<Trial> everyKindOfTrial(const SearchSpace& space) {
    const double objectives[] = {kNaN, kInf, 0.0, 1.25, 1e-9, 3.5e6};
    std::vector<Trial> trials;
    for (MeasureStatus status : kStatuses)
        for (double objective : objectives) {
            Trial& trial = trials.emplace_back();
            trial.number = static_cast<std::int64_t>(trials.size()) - 1;
            trial.index = static_cast<SearchSpace::Index>(trial.number) % space.productSize();
            trial.config = space.config(trial.index);
            Measurement& m = trial.measurement;
            m.status = status;
            m.objective = objective;
            if (trial.number % 3 != 0)
                m.samples = {1.0, 0.0, 2.5e-7, 1e300};
            if (trial.number % 5 == 1)
                m.samples.push_back(kNaN); // a sample the timer could not take
            m.compileMs = trial.number % 4 == 0 ? kNaN : 12.5 * static_cast<double>(trial.number);
            m.log = trial.number % 2 ? std::string() : "line one\nline \"two\" with ' and ; and \xc3\xa9";
            if (trial.number % 3 == 2)
                m.metrics = {{"gflops", 812.25}, {"noisy", 1.0}, {"occupancy", 0.0}, {"huge", -1e300}};
            if (trial.number % 2 == 0)
                trial.predicted = trial.number % 4 ? -0.75 : 0.0;
            trial.batch = trial.number / 4;
            trial.elapsedS = trial.number % 7 == 3 ? kNaN : 0.5 * static_cast<double>(trial.number);
            trial.finishedAt = 1.7e9 + static_cast<double>(trial.number);
        }
    return trials;
}

struct StoredSession {
    QTemporaryDir dir;
    std::unique_ptr<RecordStore> store;
    std::int64_t id = 0;
};

void storeTrials(StoredSession& session, const SearchSpace& space, const std::vector<Trial>& trials) {
    QVERIFY(session.dir.isValid());
    session.store = std::make_unique<RecordStore>(session.dir.filePath("records.db").toStdString());
    SessionRecord record;
    record.kernel = "round_trip";
    record.strategy = "random_sample";
    record.budget = static_cast<std::int64_t>(trials.size()) + 1; // resumable
    record.parameters = nlohmann::json(names(space)).dump();
    session.id = session.store->beginSession(record);
    for (const Trial& trial : trials)
        session.store->commit(session.id, trial, names(space));
}

} // namespace

class TestRecordRoundTrip : public QObject {
    Q_OBJECT

private slots:
    // Trial -> RecordStore::commit -> trials() -> StoredTrialConverter gives the same trial, for every status
    // and every kind of number: inSpace locates the config in the session's space, byNames (the window's view
    // of a session whose dataset is gone) reads the values from the stored JSON with their types and keeps
    // the stored index.
    void everyTrialComesBack_data() {
        QTest::addColumn<bool>("withSpace");
        QTest::newRow("inSpace") << true;
        QTest::newRow("byNames") << false;
    }
    void everyTrialComesBack() {
        QFETCH(bool, withSpace);
        const SearchSpace space = mixedSpace();
        const std::vector<Trial> trials = everyKindOfTrial(space);
        StoredSession session;
        storeTrials(session, space, trials);
        const std::vector<StoredTrial> stored = session.store->trials(session.id);
        QCOMPARE(stored.size(), trials.size());
        for (std::size_t i = 0; i < trials.size(); ++i) {
            const std::optional<Trial> back = withSpace
                                                  ? StoredTrialConverter::inSpace(stored[i], space)
                                                  : StoredTrialConverter::byNames(stored[i], names(space));
            QVERIFY2(back.has_value(), stored[i].config.c_str());
            compareTrials(*back, trials[i]);
        }
    }

    // The resume path (SessionResume, used by tune --resume and warm starts) is the same converter: it keeps
    // NaN and infinity as they were measured (it used to turn a NaN objective, compile time and elapsed time
    // into 0, and a stored NaN objective then read as a 0 ms time).
    void resumeKeepsNaNAndInfinity() {
        const SearchSpace space = mixedSpace();
        std::vector<Trial> trials(3);
        for (std::size_t i = 0; i < trials.size(); ++i) {
            trials[i].number = static_cast<std::int64_t>(i);
            trials[i].index = i;
            trials[i].config = space.config(i);
        }
        trials[0].measurement.status = MeasureStatus::Ok;
        trials[0].measurement.objective = kNaN;
        trials[0].measurement.compileMs = kNaN;
        trials[0].elapsedS = kNaN;
        trials[1].measurement.status = MeasureStatus::Timeout;
        trials[1].measurement.objective = kInf;
        trials[2].measurement.status = MeasureStatus::Ok;
        trials[2].measurement.objective = 2.0;
        StoredSession session;
        storeTrials(session, space, trials);
        const SessionRecord record = SessionResume::resumable(*session.store, session.id);
        const std::vector<Trial> back = SessionResume::finishedTrials(*session.store, record, space);
        QCOMPARE(back.size(), trials.size());
        for (std::size_t i = 0; i < trials.size(); ++i)
            compareTrials(back[i], trials[i]);
    }

    // With a space the stored index is never trusted: the config is located by value (the old window
    // converter took the config from the stored index, and showed another config than the one measured).
    void theIndexIsRecomputedFromTheConfig() {
        const SearchSpace space = mixedSpace();
        Trial trial;
        trial.index = 5;
        trial.config = space.config(5);
        trial.measurement.status = MeasureStatus::Ok;
        trial.measurement.objective = 1.5;
        StoredSession session;
        storeTrials(session, space, {trial});
        StoredTrial stored = session.store->trials(session.id).at(0);
        stored.index = 7; // a store written with another space order, or a foreign import
        const std::optional<Trial> inSpace = StoredTrialConverter::inSpace(stored, space);
        QVERIFY(inSpace.has_value());
        QCOMPARE(inSpace->index, SearchSpace::Index{5});
        QVERIFY(inSpace->config == space.config(5));
        const std::optional<Trial> resumed = SessionResume::toTrial(stored, space);
        QVERIFY(resumed.has_value());
        QCOMPARE(resumed->index, SearchSpace::Index{5});
        // Without a space the stored index is all there is, and the config still comes from the JSON.
        const Trial byNames = StoredTrialConverter::byNames(stored, names(space));
        QCOMPARE(byNames.index, SearchSpace::Index{7});
        QVERIFY(byNames.config == space.config(5));
    }

    // A config that is not in the space (a value the space lacks, a missing or an extra parameter) is nullopt
    // with a space; without one its values are shown as stored.
    void aConfigOutsideTheSpaceIsNotLocated() {
        const SearchSpace space = mixedSpace();
        StoredTrial stored;
        stored.status = "ok";
        const std::vector<std::string> outside = {
            R"({"threads": 48, "scale": 1.0, "layout": "row", "unroll": true})",
            R"({"threads": 32, "scale": 1.0, "layout": "row"})",
            R"({"threads": 32, "scale": 1.0, "layout": "row", "unroll": true, "extra": 1})",
            R"([32, 1.0, "row", true])",
        };
        for (const std::string& config : outside) {
            stored.config = config;
            QVERIFY2(!StoredTrialConverter::inSpace(stored, space), config.c_str());
        }
        stored.config = R"({"threads": 48, "scale": [1], "layout": null})";
        const Trial shown = StoredTrialConverter::byNames(stored, names(space));
        QVERIFY(shown.config ==
                (Config{std::int64_t{48}, std::string("[1]"), std::string("null"), std::string()}));
    }

    // The one JSON -> Value policy: each JSON type to its Value, numbers int64 can hold as integers, the rest
    // as doubles, no Value for null, arrays and objects; and Value -> JSON -> Value gives the value back.
    void jsonValuePolicy() {
        using Json = nlohmann::json;
        QVERIFY(valueFromJson(Json(true)) == Value(true));
        QVERIFY(valueFromJson(Json(-3)) == Value(std::int64_t{-3}));
        QVERIFY(valueFromJson(Json(std::uint64_t{7})) == Value(std::int64_t{7}));
        QVERIFY(valueFromJson(Json(std::uint64_t{1} << 63)) == Value(9223372036854775808.0));
        QVERIFY(valueFromJson(Json(2.0)) == Value(2.0));
        QVERIFY(valueFromJson(Json("x")) == Value(std::string("x")));
        QVERIFY(!valueFromJson(Json()));
        QVERIFY(!valueFromJson(Json::array({1})));
        QVERIFY(!valueFromJson(Json::object()));
        QVERIFY(!valueFromJson(nlohmann::ordered_json::parse("[]")));
        for (const Value& value :
             {Value(false), Value(std::int64_t{-9}), Value(0.1), Value(16.0), Value(std::string("a b"))}) {
            QVERIFY(valueFromJson(Json::parse(valueToJson(value).dump())) == value);
            QVERIFY(valueFromJson(nlohmann::ordered_json::parse(
                        valueToJson<nlohmann::ordered_json>(value).dump())) == value);
        }
        QCOMPARE(valueToJson(Value(kNaN)).dump(), std::string("null")); // JSON has no NaN
    }
};

QTEST_GUILESS_MAIN(TestRecordRoundTrip)
#include "TestRecordRoundTrip.moc"
