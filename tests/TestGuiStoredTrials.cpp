// The window reads stored trials with the same converter as resume (StoredTrialConverter): the two used to
// disagree, the window trusting the stored index (and showing the config at that index) and resume
// recomputing it from the stored config and turning NaN into 0.
#include "running/SessionLoader.h"
#include "store/RecordStore.h"
#include "store/SessionResume.h"

#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace ts;

namespace {

SearchSpace smallSpace() {
    return SearchSpace(
        {{"block", ParameterType::Integer, {std::int64_t{8}, std::int64_t{16}, std::int64_t{32}}},
         {"layout", ParameterType::String, {std::string("row"), std::string("col")}}},
        {});
}

const std::vector<std::string> kNames{"block", "layout"};

// Stores trials at indices 1 (objective NaN) and 4 (ordinary), and reads them back.
std::vector<StoredTrial> storedTrials(const QTemporaryDir& dir, const SearchSpace& space) {
    RecordStore store(dir.filePath("records.db").toStdString());
    SessionRecord record;
    record.budget = 10;
    record.parameters = nlohmann::json(kNames).dump();
    const std::int64_t id = store.beginSession(record);
    Trial nan;
    nan.index = 1;
    nan.config = space.config(1);
    nan.measurement.status = MeasureStatus::Ok;
    nan.measurement.objective = std::numeric_limits<double>::quiet_NaN();
    nan.measurement.compileMs = std::numeric_limits<double>::quiet_NaN();
    store.commit(id, nan, kNames);
    Trial ordinary;
    ordinary.number = 1;
    ordinary.index = 4;
    ordinary.config = space.config(4);
    ordinary.measurement.status = MeasureStatus::Ok;
    ordinary.measurement.objective = 2.5;
    store.commit(id, ordinary, kNames);
    return store.trials(id);
}

} // namespace

class TestGuiStoredTrials : public QObject {
    Q_OBJECT

private slots:
    // A stored index that does not match the stored config (another space order, a foreign import): the
    // window locates the config as resume does, and shows the config that was measured.
    void theWindowAndResumeAgreeOnTheIndex() {
        QTemporaryDir dir;
        const SearchSpace space = smallSpace();
        std::vector<StoredTrial> stored = storedTrials(dir, space);
        stored[1].index = 2;
        const Trial shown = gui::toTrial(stored[1], &space, kNames);
        const std::optional<Trial> resumed = SessionResume::toTrial(stored[1], space);
        QVERIFY(resumed.has_value());
        QCOMPARE(shown.index, resumed->index);
        QCOMPARE(shown.index, SearchSpace::Index{4});
        QVERIFY(shown.config == space.config(4));
    }

    // A NaN objective and compile time read the same in the window and in resume: NaN, not 0.
    void theWindowAndResumeAgreeOnNaN() {
        QTemporaryDir dir;
        const SearchSpace space = smallSpace();
        const std::vector<StoredTrial> stored = storedTrials(dir, space);
        const Trial shown = gui::toTrial(stored[0], &space, kNames);
        const std::optional<Trial> resumed = SessionResume::toTrial(stored[0], space);
        QVERIFY(resumed.has_value());
        QVERIFY(std::isnan(shown.measurement.objective));
        QVERIFY(std::isnan(resumed->measurement.objective));
        QVERIFY(std::isnan(shown.measurement.compileMs));
        QVERIFY(std::isnan(resumed->measurement.compileMs));
    }

    // A config the space does not hold still shows, with its stored values and index.
    void aConfigOutsideTheSpaceStillShows() {
        QTemporaryDir dir;
        const SearchSpace space = smallSpace();
        std::vector<StoredTrial> stored = storedTrials(dir, space);
        stored[1].config = R"({"block": 64, "layout": "row"})";
        QVERIFY(!SessionResume::toTrial(stored[1], space));
        const Trial shown = gui::toTrial(stored[1], &space, kNames);
        QCOMPARE(shown.index, SearchSpace::Index{4});
        QVERIFY(shown.config == (Config{std::int64_t{64}, std::string("row")}));
    }
};

QTEST_GUILESS_MAIN(TestGuiStoredTrials)
#include "TestGuiStoredTrials.moc"
