#include "CliRun.h"
#include "ErrorOf.h"
#include "workload/GradientScheduler.h"
#include "workload/SchedulerRegistry.h"
#include "workload/TaskScheduler.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

using namespace ts;

namespace {

constexpr std::int64_t kBatch = 8;

// A task of a simulated workload: its best after its k-th round (k >= 1) is
// floor + (start - floor) x decay^(k-1), a known curve.
struct SyntheticTask {
    double weight = 1.0;
    double start = 10.0;
    double floor = 1.0;
    double decay = 0.7;
    std::int64_t capacity = -1; // trials until its space is exhausted (-1: never)
    bool failsToBuild = false;  // failed at its warm-up, before a trial
    bool neverValid = false;    // measures, but no config of its space is valid
    std::string group;
    std::optional<double> flops;

    SyntheticTask& improving(double from, double to, double rate) {
        start = from;
        floor = to;
        decay = rate;
        return *this;
    }
    SyntheticTask& exhaustedAfter(std::int64_t trials) {
        capacity = trials;
        return *this;
    }
    SyntheticTask& failing() {
        failsToBuild = true;
        return *this;
    }
    SyntheticTask& invalid() {
        neverValid = true;
        return *this;
    }
    SyntheticTask& similar(std::string name, double work) {
        group = std::move(name);
        flops = work;
        return *this;
    }
};

SyntheticTask task(double weight) {
    SyntheticTask t;
    t.weight = weight;
    return t;
}

struct Simulation {
    std::vector<TaskState> states;
    std::vector<std::size_t> order; // the scheduler's answers, after the warm-up
    std::int64_t spent = 0;
    std::vector<std::string> violations; // rules broken on the way, one line each
};

// One round of `trials` for task k, as the workload runs it: the task's session measures up to that many
// (fewer when its space runs out, then it is exhausted) and its best after the round is appended.
std::int64_t giveRound(const SyntheticTask& task, TaskState& state, std::int64_t trials) {
    if (task.failsToBuild) {
        state.active = false;
        return 0;
    }
    if (task.capacity >= 0)
        trials = std::min(trials, task.capacity - state.trials);
    state.trials += trials;
    state.trialsHistory.push_back(state.trials);
    const double k = static_cast<double>(state.rounds());
    state.bestHistory.push_back(task.neverValid
                                    ? TaskState::kNoBest
                                    : task.floor + (task.start - task.floor) * std::pow(task.decay, k));
    if (task.capacity >= 0 && state.trials >= task.capacity)
        state.active = false;
    return trials;
}

// The workload's loop around a scheduler: the warm-up round for every task of positive weight, then one
// round per answer of min(batch, trials left), until the budget is spent or the scheduler says none. Every
// answer is checked against the rules of TaskScheduler (schedulable; the same from a fresh scheduler built
// alike: no hidden state).
Simulation simulate(const std::string& scheduler, const std::map<std::string, std::string>& options,
                    std::uint64_t seed, const std::vector<SyntheticTask>& tasks, std::int64_t budget,
                    std::int64_t batch = kBatch) {
    const SchedulerRegistry& registry = SchedulerRegistry::builtin();
    const auto chooser = registry.create(scheduler, options, seed);
    Simulation sim;
    for (const SyntheticTask& task : tasks) {
        TaskState state;
        state.weight = task.weight;
        state.group = task.group;
        state.flops = task.flops;
        sim.states.push_back(state);
    }
    std::uint64_t round = 0;
    for (std::size_t k = 0; k < tasks.size() && sim.spent < budget; ++k)
        if (tasks[k].weight > 0) {
            sim.spent += giveRound(tasks[k], sim.states[k], std::min(batch, budget - sim.spent));
            ++round;
        }
    while (sim.spent < budget) {
        const std::optional<std::size_t> chosen = chooser->next(sim.states, round, budget - sim.spent);
        const auto fresh =
            registry.create(scheduler, options, seed)->next(sim.states, round, budget - sim.spent);
        if (chosen != fresh)
            sim.violations.push_back(fmt::format("round {}: a fresh scheduler answers otherwise", round));
        if (!chosen)
            break;
        if (*chosen >= tasks.size() || !sim.states[*chosen].schedulable()) {
            sim.violations.push_back(fmt::format("round {}: task {} is not schedulable", round, *chosen));
            break;
        }
        sim.order.push_back(*chosen);
        sim.spent += giveRound(tasks[*chosen], sim.states[*chosen], std::min(batch, budget - sim.spent));
        ++round;
    }
    return sim;
}

// A workload with every kind of task: two improving at different paces, a light one, one of weight 0, one
// that fails to build, one whose space runs out after 40 trials, one that never finds a valid config, and a
// pair of similar tasks (one kernel at two sizes).
std::vector<SyntheticTask> mixedWorkload() {
    std::vector<SyntheticTask> tasks(9);
    tasks[0] = task(12).improving(4.0, 1.0, 0.9);
    tasks[1] = task(1).improving(20.0, 2.0, 0.5);
    tasks[2] = task(0.5).improving(1.0, 0.9, 0.95);
    tasks[3] = task(0);
    tasks[4] = task(3).failing();
    tasks[5] = task(6).exhaustedAfter(40);
    tasks[6] = task(2).invalid();
    tasks[7] = task(4).improving(8.0, 2.0, 0.8).similar("gemm", 4e9);
    tasks[8] = task(4).improving(3.0, 0.5, 0.8).similar("gemm", 1e9);
    return tasks;
}

const std::map<std::string, std::string> kNoOptions;

// A constructed state: `history` its bests per round, `kBatch` trials per round.
TaskState stateOf(double weight, std::vector<double> history) {
    TaskState state;
    state.weight = weight;
    state.trials = static_cast<std::int64_t>(history.size()) * kBatch;
    for (std::size_t k = 1; k <= history.size(); ++k)
        state.trialsHistory.push_back(static_cast<std::int64_t>(k) * kBatch);
    state.bestHistory = std::move(history);
    return state;
}

// `per`: "trial" (the default) or "round" (Ansor's).
std::unique_ptr<TaskScheduler> greedyGradient(const std::string& per = "trial") {
    return SchedulerRegistry::builtin().create("gradient", {{"epsilon", "0"}, {"per", per}}, 1);
}

bool near(double actual, double expected) {
    return std::abs(actual - expected) <= 1e-12 * std::max(1.0, std::abs(expected));
}

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

class TestTaskSchedulers : public QObject {
    Q_OBJECT

private slots:
    void conformance_data();
    void conformance();
    void deterministicPerSeed_data();
    void deterministicPerSeed();
    void gradientSeedsDiffer();
    void noSchedulableTaskEndsTheWorkload_data();
    void noSchedulableTaskEndsTheWorkload();
    void roundRobinEvenSplit();
    void proportionalFormula();
    void proportionalRedistributesDroppedShare();
    void gradientPrefersImprovingTask();
    void gradientPrefersHeavierTask();
    void gradientLeavesConvergedHeavyTask();
    void gradientSpreadsBySquareRootOfShare();
    void gradientSimilarTaskCredit();
    void gradientEqualGradientsAreRandom();
    void gradientTaskWithoutBestIsBounded();
    void gradientEpsilonExplores();
    void gradientLowersEndToEndLatency();
    void gradientForwardModelAsksTheTasksModels();
    void optionValidation();
    void optionsJson();
    void cliListsSchedulers();
};

// Rows: every registered scheduler, at budgets that are and are not a multiple of the batch, so a new
// scheduler is held to the rules without a new test.
void TestTaskSchedulers::conformance_data() {
    QTest::addColumn<QString>("scheduler");
    QTest::addColumn<qint64>("budget");
    for (const std::string& name : SchedulerRegistry::builtin().names())
        for (qint64 budget : {64, 403, 1000})
            QTest::newRow(fmt::format("{}/{}", name, budget).c_str()) << text(name) << budget;
}

void TestTaskSchedulers::conformance() {
    QFETCH(QString, scheduler);
    QFETCH(qint64, budget);
    const std::vector<SyntheticTask> tasks = mixedWorkload();
    const Simulation sim = simulate(scheduler.toStdString(), kNoOptions, 7, tasks, budget);
    QVERIFY2(sim.violations.empty(), sim.violations.empty() ? "" : sim.violations.front().c_str());
    QCOMPARE(sim.spent, budget);
    std::int64_t trials = 0;
    for (std::size_t k = 0; k < tasks.size(); ++k) {
        trials += sim.states[k].trials;
        if (tasks[k].weight > 0 && !tasks[k].failsToBuild)
            QVERIFY2(sim.states[k].trials > 0, qPrintable(QString("task %1 got no trial").arg(k)));
        if (tasks[k].weight == 0 || tasks[k].failsToBuild)
            QVERIFY2(sim.states[k].trials == 0, qPrintable(QString("task %1 got trials").arg(k)));
    }
    QCOMPARE(trials, budget);
    QVERIFY(sim.states[5].trials <= 40);
}

void TestTaskSchedulers::deterministicPerSeed_data() {
    QTest::addColumn<QString>("scheduler");
    QTest::addColumn<QString>("epsilon");
    for (const std::string& name : SchedulerRegistry::builtin().names())
        QTest::newRow(name.c_str()) << text(name) << QString();
    QTest::newRow("gradient/epsilon 0.5") << "gradient"
                                          << "0.5";
}

void TestTaskSchedulers::deterministicPerSeed() {
    QFETCH(QString, scheduler);
    QFETCH(QString, epsilon);
    std::map<std::string, std::string> options;
    if (!epsilon.isEmpty())
        options["epsilon"] = epsilon.toStdString();
    const auto first = simulate(scheduler.toStdString(), options, 42, mixedWorkload(), 600);
    const auto second = simulate(scheduler.toStdString(), options, 42, mixedWorkload(), 600);
    QVERIFY(!first.order.empty());
    QVERIFY(first.order == second.order);
}

// With exploration, the seed matters: another seed gives another sequence.
void TestTaskSchedulers::gradientSeedsDiffer() {
    const std::map<std::string, std::string> options{{"epsilon", "0.3"}};
    const auto base = simulate("gradient", options, 1, mixedWorkload(), 600);
    int differing = 0;
    for (std::uint64_t seed = 2; seed <= 5; ++seed)
        if (simulate("gradient", options, seed, mixedWorkload(), 600).order != base.order)
            ++differing;
    QCOMPARE(differing, 4);
}

// When every task is done (failed, exhausted or of weight 0) the scheduler says so: the workload ends with
// trials left rather than giving them to a task that cannot take them or is kept at its default.
void TestTaskSchedulers::noSchedulableTaskEndsTheWorkload_data() {
    QTest::addColumn<QString>("scheduler");
    for (const std::string& name : SchedulerRegistry::builtin().names())
        QTest::newRow(name.c_str()) << text(name);
}

void TestTaskSchedulers::noSchedulableTaskEndsTheWorkload() {
    QFETCH(QString, scheduler);
    std::vector<SyntheticTask> tasks(3);
    tasks[0] = task(1).exhaustedAfter(20);
    tasks[1] = task(0);
    tasks[2] = task(2).failing();
    const Simulation sim = simulate(scheduler.toStdString(), kNoOptions, 3, tasks, 200);
    QVERIFY2(sim.violations.empty(), sim.violations.empty() ? "" : sim.violations.front().c_str());
    QCOMPARE(sim.spent, qint64(20));
    QCOMPARE(sim.states[1].trials, qint64(0));
}

// Round robin ignores weights: the tasks' rounds differ by at most one after every round, also when a task
// drops out (its space runs out) and with a task of weight 0 that takes none.
void TestTaskSchedulers::roundRobinEvenSplit() {
    std::vector<SyntheticTask> tasks(5);
    tasks[0] = task(1);
    tasks[1] = task(20);
    tasks[2] = task(0);
    tasks[3] = task(0.1).exhaustedAfter(24);
    tasks[4] = task(3);
    const std::int64_t budget = 37 * kBatch + 5;
    const Simulation sim = simulate("round_robin", kNoOptions, 0, tasks, budget);
    QVERIFY(sim.violations.empty());
    QCOMPARE(sim.spent, budget);
    // Replay the answers, checking the split after each.
    std::vector<std::size_t> rounds{1, 1, 0, 1, 1};
    for (std::size_t chosen : sim.order) {
        ++rounds[chosen];
        std::size_t fewest = SIZE_MAX;
        std::size_t most = 0;
        for (std::size_t k : {0, 1, 4}) {
            fewest = std::min(fewest, rounds[k]);
            most = std::max(most, rounds[k]);
        }
        QVERIFY2(most - fewest <= 1, qPrintable(QString("rounds %1 to %2").arg(fewest).arg(most)));
    }
    QCOMPARE(sim.states[3].trials, qint64(24));
    QCOMPARE(sim.states[2].trials, qint64(0));
    // The heavy task got no more than the light ones.
    QVERIFY(sim.states[1].rounds() <= sim.states[0].rounds() + 1);
}

// Each task's trials end within one batch of total x w / sum(w) (every share is at least a batch, so the
// warm-up round does not exceed one). In the second mix, comparing trials / weight instead of the deficits
// ends a task 1.3 batches off; in the third, leaving the round to be given out of the shares does.
void TestTaskSchedulers::proportionalFormula() {
    const std::vector<std::pair<std::vector<double>, std::vector<std::int64_t>>> cases{
        {{1, 2, 3, 6, 0, 1.5}, {500, 1203, 4000}}, {{4, 2, 1, 1, 16}, {1049}}, {{0.3, 20, 0.5, 0.5}, {874}}};
    for (const auto& [weights, budgets] : cases) {
        std::vector<SyntheticTask> tasks;
        double sum = 0.0;
        for (double weight : weights) {
            tasks.push_back(task(weight));
            sum += weight;
        }
        for (std::int64_t budget : budgets) {
            const Simulation sim = simulate("proportional", kNoOptions, 0, tasks, budget);
            QVERIFY(sim.violations.empty());
            QCOMPARE(sim.spent, budget);
            for (std::size_t k = 0; k < tasks.size(); ++k) {
                const double share = static_cast<double>(budget) * weights[k] / sum;
                QVERIFY2(std::abs(static_cast<double>(sim.states[k].trials) - share) <= kBatch,
                         qPrintable(QString("budget %1, task %2: %3 trials for a share of %4")
                                        .arg(budget)
                                        .arg(k)
                                        .arg(sim.states[k].trials)
                                        .arg(share)));
            }
        }
    }
}

// A task whose space runs out leaves the rest of the budget to the others in proportion to their weights.
void TestTaskSchedulers::proportionalRedistributesDroppedShare() {
    std::vector<SyntheticTask> tasks(4);
    tasks[0] = task(1);
    tasks[1] = task(10).exhaustedAfter(32);
    tasks[2] = task(3);
    tasks[3] = task(4);
    const std::int64_t budget = 803;
    const Simulation sim = simulate("proportional", kNoOptions, 0, tasks, budget);
    QVERIFY(sim.violations.empty());
    QCOMPARE(sim.spent, budget);
    QCOMPARE(sim.states[1].trials, qint64(32));
    const double rest = static_cast<double>(budget - 32);
    for (std::size_t k : {0, 2, 3}) {
        const double share = rest * tasks[k].weight / 8.0;
        QVERIFY2(
            std::abs(static_cast<double>(sim.states[k].trials) - share) <= kBatch,
            qPrintable(
                QString("task %1: %2 trials for a share of %3").arg(k).arg(sim.states[k].trials).arg(share)));
    }
}

// Two tasks equal but for their recent improvement: the one still improving fast has the larger expected
// gain (backward estimate) and gets the round; it sits at the higher index, so a tie would not pick it.
void TestTaskSchedulers::gradientPrefersImprovingTask() {
    const std::vector<TaskState> tasks{stateOf(1, {2, 2, 2, 2, 2}), stateOf(1, {14, 11, 8, 5, 2})};
    for (const std::string per : {"trial", "round"}) {
        const auto scheduler = greedyGradient(per);
        for (std::uint64_t round = 0; round < 20; ++round)
            QCOMPARE(scheduler->next(tasks, round, 100), std::optional<std::size_t>(1));
    }
    // Per trial (5 rounds of 8): backward (2 - 11) / 24 trials, forward -(2 / 40) / 41.
    const auto perTrialScheduler = greedyGradient();
    const auto& perTrial = dynamic_cast<const GradientScheduler&>(*perTrialScheduler);
    QVERIFY(near(perTrial.gradient(tasks, 1), 0.2 * (-9.0 / 24) + 0.8 * (-(2.0 / 40) / 41)));
    QVERIFY(near(perTrial.gradient(tasks, 0), 0.8 * (-(2.0 / 40) / 41)));
    // Per round: backward (2 - 11) / 3 = -3, forward -2 / 5 = -0.4: 0.2 x -3 + 0.8 x -0.4 = -0.92; the flat
    // one -0.32.
    const auto perRoundScheduler = greedyGradient("round");
    const auto& perRound = dynamic_cast<const GradientScheduler&>(*perRoundScheduler);
    QVERIFY(near(perRound.gradient(tasks, 1), -0.92));
    QVERIFY(near(perRound.gradient(tasks, 0), -0.32));
}

// Equal histories, weights 1 and 3: the heavier contributes three times as much to the end-to-end latency.
void TestTaskSchedulers::gradientPrefersHeavierTask() {
    const std::vector<TaskState> tasks{stateOf(1, {5, 4, 3}), stateOf(3, {5, 4, 3})};
    const std::vector<TaskState> slower{stateOf(1, {5, 4, 3}), stateOf(1, {15, 12, 9})};
    for (const std::string per : {"trial", "round"}) {
        const auto scheduler = greedyGradient(per);
        for (std::uint64_t round = 0; round < 20; ++round)
            QCOMPARE(scheduler->next(tasks, round, 100), std::optional<std::size_t>(1));
        // And a larger best at equal weight counts as much as a larger weight.
        QCOMPARE(scheduler->next(slower, 0, 100), std::optional<std::size_t>(1));
    }
}

// A heavy task (weight 100) that has not improved in 50 rounds, and a light one (weight 1, as fast) after 2
// rounds. Per round, Ansor's guess (best / rounds: 100 x 1 / 50 against 1 x 1 / 2) keeps the heavy task
// tuning; per trial (100 x (1 / 400) / 401 against (1 / 16) / 17) the light one gets the round.
void TestTaskSchedulers::gradientLeavesConvergedHeavyTask() {
    const std::vector<TaskState> tasks{stateOf(100, std::vector<double>(50, 1.0)), stateOf(1, {1.0, 1.0})};
    QCOMPARE(greedyGradient("round")->next(tasks, 0, 100), std::optional<std::size_t>(0));
    QCOMPARE(greedyGradient()->next(tasks, 0, 100), std::optional<std::size_t>(1));
}

// Two tasks that never improve, one of 100 times the other's share of the end-to-end time: per trial, the
// heavy one's expected gain w x best / (n (n + 1)) meets the light one's where n_heavy / n_light is
// sqrt(100) = 10.
void TestTaskSchedulers::gradientSpreadsBySquareRootOfShare() {
    std::vector<SyntheticTask> tasks(2);
    tasks[0] = task(100).improving(1.0, 1.0, 0.5);
    tasks[1] = task(1).improving(1.0, 1.0, 0.5);
    const Simulation sim = simulate("gradient", {{"epsilon", "0"}}, 3, tasks, 880);
    QVERIFY(sim.violations.empty());
    const double ratio =
        static_cast<double>(sim.states[0].trials) / static_cast<double>(sim.states[1].trials);
    QVERIFY2(ratio > 8.0 && ratio < 12.0,
             qPrintable(QString("%1 / %2 trials").arg(sim.states[0].trials).arg(sim.states[1].trials)));
}

// Task 1 is as fast as task 0 and has as many rounds, but a task of its group (the same kernel) reaches ten
// times its throughput: the similar-task guess says it can gain more, so it gets the round. A task that,
// tuned more than 5 rounds beyond the others of its group, is still that slow gets no such credit.
void TestTaskSchedulers::gradientSimilarTaskCredit() {
    std::vector<TaskState> tasks{stateOf(1, std::vector<double>(10, 1.0)),
                                 stateOf(1, std::vector<double>(10, 1.0)),
                                 stateOf(1, std::vector<double>(10, 0.1))};
    tasks[1].group = tasks[2].group = "gemm";
    tasks[1].flops = tasks[2].flops = 1e9;
    const auto scheduler = greedyGradient();
    QCOMPARE(scheduler->next(tasks, 0, 100), std::optional<std::size_t>(1));
    QCOMPARE(greedyGradient("round")->next(tasks, 0, 100), std::optional<std::size_t>(1));
    // Per trial (80 each): the gap is max(1 / 80, 1 - 2 x 1e9 / 1e10) = 0.8, of which one more trial closes
    // 1 / 81; x 0.8 (backward 0).
    const auto& perTrial = dynamic_cast<const GradientScheduler&>(*scheduler);
    QVERIFY(near(perTrial.gradient(tasks, 1), 0.8 * -0.8 / 81));
    QVERIFY(near(perTrial.gradient(tasks, 0), 0.8 * -(1.0 / 80) / 81));
    // Per round: forward min(1 - 1/10, 2 x 1e9 / 1e10) - 1 = -0.8, x 0.8 (backward 0).
    const auto perRoundScheduler = greedyGradient("round");
    const auto& perRound = dynamic_cast<const GradientScheduler&>(*perRoundScheduler);
    QVERIFY(near(perRound.gradient(tasks, 1), 0.8 * -0.8));
    QVERIFY(near(perRound.gradient(tasks, 0), 0.8 * -0.1));
    // Without flops there is no throughput to compare: no credit.
    std::vector<TaskState> noFlops = tasks;
    noFlops[1].flops.reset();
    QCOMPARE(scheduler->next(noFlops, 0, 100), std::optional<std::size_t>(0));
    // Nor with flops that are no work.
    for (double flops : {0.0, -1e9, std::nan("")}) {
        std::vector<TaskState> badFlops = tasks;
        badFlops[1].flops = flops;
        QCOMPARE(scheduler->next(badFlops, 0, 100), std::optional<std::size_t>(0));
    }
    // Alone in its group: no credit.
    std::vector<TaskState> alone = tasks;
    alone[2].group = "conv2d";
    QCOMPARE(scheduler->next(alone, 0, 100), std::optional<std::size_t>(0));
    // Tuned 6 rounds beyond task 2 and still below 1/beta of its throughput: not similar.
    std::vector<TaskState> dissimilar = tasks;
    dissimilar[1] = stateOf(1, std::vector<double>(16, 1.0));
    dissimilar[1].group = "gemm";
    dissimilar[1].flops = 1e9;
    dissimilar[0] = stateOf(1, std::vector<double>(16, 1.0));
    QCOMPARE(scheduler->next(dissimilar, 0, 100), std::optional<std::size_t>(0));
}

// Every gradient equal: Ansor picks a random task (not always the first).
void TestTaskSchedulers::gradientEqualGradientsAreRandom() {
    const std::vector<TaskState> tasks(3, stateOf(1, {4, 3, 2}));
    const auto scheduler = greedyGradient();
    std::set<std::size_t> chosen;
    for (std::uint64_t round = 0; round < 40; ++round)
        chosen.insert(*scheduler->next(tasks, round, 100));
    QCOMPARE(chosen.size(), std::size_t(3));
}

// A task without a valid config has no gradient: it is given a round while it has fewer trials than every
// task with a best, so in a workload it never gets more than the least tuned one (plus a round), and a
// task of its kind does not eat the budget even when the others stop improving.
void TestTaskSchedulers::gradientTaskWithoutBestIsBounded() {
    std::vector<SyntheticTask> tasks(3);
    tasks[0] = task(5).improving(4.0, 1.0, 0.5);
    tasks[1] = task(1).improving(2.0, 2.0, 0.7);
    tasks[2] = task(100).invalid();
    const Simulation sim = simulate("gradient", {{"epsilon", "0"}}, 5, tasks, 800);
    QVERIFY(sim.violations.empty());
    QCOMPARE(sim.spent, qint64(800));
    const std::int64_t leastTuned = std::min(sim.states[0].trials, sim.states[1].trials);
    QVERIFY2(sim.states[2].trials <= leastTuned + kBatch,
             qPrintable(QString("%1 trials without a valid config, %2 for the least tuned task")
                            .arg(sim.states[2].trials)
                            .arg(leastTuned)));
    QVERIFY(sim.states[2].trials >= leastTuned - kBatch);
    // Constructed: behind the others, it is due.
    std::vector<TaskState> states{stateOf(1, {3, 2}), stateOf(1, {TaskState::kNoBest})};
    QCOMPARE(greedyGradient()->next(states, 0, 100), std::optional<std::size_t>(1));
    states[1] = stateOf(1, {TaskState::kNoBest, TaskState::kNoBest});
    QCOMPARE(greedyGradient()->next(states, 0, 100), std::optional<std::size_t>(0));
    // No task has a best yet: the one with the fewest trials.
    std::vector<TaskState> none{stateOf(1, {TaskState::kNoBest, TaskState::kNoBest}),
                                stateOf(1, {TaskState::kNoBest})};
    QCOMPARE(greedyGradient()->next(none, 0, 100), std::optional<std::size_t>(1));
}

// epsilon 1: every round a random task, so the task that the gradient never picks gets some; epsilon 0:
// none.
void TestTaskSchedulers::gradientEpsilonExplores() {
    const std::vector<TaskState> tasks{stateOf(1, {2, 2, 2, 2, 2}), stateOf(1, {14, 11, 8, 5, 2})};
    const auto greedy = greedyGradient();
    const auto explorer = SchedulerRegistry::builtin().create("gradient", {{"epsilon", "1"}}, 1);
    int greedyFlat = 0;
    int explorerFlat = 0;
    for (std::uint64_t round = 0; round < 100; ++round) {
        greedyFlat += *greedy->next(tasks, round, 100) == 0;
        explorerFlat += *explorer->next(tasks, round, 100) == 0;
    }
    QCOMPARE(greedyFlat, 0);
    QVERIFY2(explorerFlat > 25 && explorerFlat < 75, qPrintable(QString::number(explorerFlat)));
}

// On the mixed workload at equal budgets, the gradient scheduler ends at a lower weighted end-to-end latency
// (mean over seeds) than round robin and proportional: its rounds go where they gain the most.
void TestTaskSchedulers::gradientLowersEndToEndLatency() {
    for (std::int64_t budget : {std::int64_t(200), std::int64_t(400), std::int64_t(800)}) {
        std::map<std::string, double> latency;
        for (const std::string& name : SchedulerRegistry::builtin().names())
            for (std::uint64_t seed = 0; seed < 10; ++seed)
                latency[name] +=
                    endToEndLatency(simulate(name, kNoOptions, seed, mixedWorkload(), budget).states);
        const QString shown = QString("budget %1: gradient %2, proportional %3, round_robin %4")
                                  .arg(budget)
                                  .arg(latency["gradient"] / 10)
                                  .arg(latency["proportional"] / 10)
                                  .arg(latency["round_robin"] / 10);
        QVERIFY2(latency["gradient"] < latency["round_robin"], qPrintable(shown));
        QVERIFY2(latency["gradient"] < latency["proportional"], qPrintable(shown));
    }
}

void TestTaskSchedulers::optionValidation() {
    const SchedulerRegistry& registry = SchedulerRegistry::builtin();
    QCOMPARE(test::errorOf([&] { registry.create("fastest", {}, 0); }),
             std::string("Unknown scheduler \"fastest\" (known: gradient, proportional, round_robin)."));
    QCOMPARE(test::errorOf([&] {
                 registry.create("gradient", {{"gamma", "1"}}, 0);
             }),
             std::string("Scheduler \"gradient\" has no option \"gamma\" (its options: alpha, beta, "
                         "backward_window, epsilon, per, forward)."));
    QCOMPARE(test::errorOf([&] {
                 registry.create("round_robin", {{"alpha", "0.5"}}, 0);
             }),
             std::string("Scheduler \"round_robin\" has no option \"alpha\" (its options: none)."));
    QCOMPARE(test::errorOf([&] {
                 registry.create("gradient", {{"alpha", "1.5"}}, 0);
             }),
             std::string("Option \"alpha\" of scheduler \"gradient\" is \"1.5\", outside its range 0 to 1."));
    QCOMPARE(
        test::errorOf([&] {
            registry.create("gradient", {{"epsilon", "-0.1"}}, 0);
        }),
        std::string("Option \"epsilon\" of scheduler \"gradient\" is \"-0.1\", outside its range 0 to 1."));
    QCOMPARE(test::errorOf([&] {
                 registry.create("gradient", {{"backward_window", "0"}}, 0);
             }),
             std::string("Option \"backward_window\" of scheduler \"gradient\" is \"0\", outside its range 1 "
                         "to 100."));
    QCOMPARE(
        test::errorOf([&] {
            registry.create("gradient", {{"backward_window", "2.5"}}, 0);
        }),
        std::string("Option \"backward_window\" of scheduler \"gradient\" is \"2.5\", not an integer (its "
                    "range: 1 to 100)."));
    QCOMPARE(
        test::errorOf([&] {
            registry.create("gradient", {{"beta", "nan"}}, 0);
        }),
        std::string("Option \"beta\" of scheduler \"gradient\" is \"nan\", outside its range 1 to 100."));
    // Every default is a value its table accepts, and so are the bounds and every choice.
    for (const std::string& name : registry.names())
        for (const OptionSpec& spec : registry.entry(name).options) {
            std::vector<std::string> values = spec.choices;
            values.push_back(spec.defaultValue);
            if (spec.type == OptionType::Integer || spec.type == OptionType::Real)
                values.push_back(fmt::format("{}", spec.max));
            for (const std::string& value : values)
                QCOMPARE(test::errorOf([&] {
                             registry.create(name, {{spec.name, value}}, 0);
                         }),
                         std::string("<no error>"));
        }
    QCOMPARE(
        test::errorOf([&] {
            registry.create("gradient", {{"per", "batch"}}, 0);
        }),
        std::string("Option \"per\" of scheduler \"gradient\" is \"batch\", not one of trial or round."));
    QCOMPARE(registry.create(SchedulerRegistry::kDefault, {}, 0)->name(), std::string("gradient"));
    for (const std::string& name : registry.names())
        QCOMPARE(registry.create(name, {}, 0)->name(), name);
}

void TestTaskSchedulers::optionsJson() {
    const SchedulerRegistry& registry = SchedulerRegistry::builtin();
    const auto json = nlohmann::json::parse(registry.optionsJson("gradient", {{"alpha", "0.5"}}));
    QCOMPARE(json.at("alpha").get<double>(), 0.5);
    QCOMPARE(json.at("beta").get<double>(), 2.0);
    QCOMPARE(json.at("backward_window").get<int>(), 3);
    QVERIFY(json.at("backward_window").is_number_integer());
    QCOMPARE(json.at("epsilon").get<double>(), 0.05);
    QCOMPARE(json.at("per").get<std::string>(), std::string("trial"));
    QCOMPARE(registry.optionsJson("round_robin", {}), std::string("{}"));
    QCOMPARE(test::errorOf([&] {
                 registry.optionsJson("gradient", {{"alpha", "x"}});
             }),
             std::string(
                 "Option \"alpha\" of scheduler \"gradient\" is \"x\", not a number (its range: 0 to 1)."));
}

void TestTaskSchedulers::cliListsSchedulers() {
    const test::CliResult result = test::runCli({"schedulers"});
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(result.err, QString());
    const SchedulerRegistry& registry = SchedulerRegistry::builtin();
    for (const std::string& name : registry.names()) {
        const auto& entry = registry.entry(name);
        const QString heading = text(name) + (name == SchedulerRegistry::kDefault ? " (default)\n" : "\n");
        QVERIFY2(result.out.contains(heading + "    " + text(entry.description) + "\n"),
                 qPrintable(result.out));
        for (const OptionSpec& spec : entry.options) {
            const bool numeric = spec.type == OptionType::Integer || spec.type == OptionType::Real;
            const std::string accepted =
                numeric ? fmt::format("{} {}", toString(spec.type), spec.allowed()) : spec.allowed();
            QVERIFY2(result.out.contains(text(fmt::format("{}=<{}>  default {}: {}", spec.name, accepted,
                                                          spec.defaultValue, spec.description))),
                     qPrintable(result.out));
        }
    }
}

// forward=model: the gap a task may still close is what its own model expects its best candidate to gain,
// instead of the guess best / n; forward=mean takes half of each. Equal histories and weights (three rounds
// of 8: no backward estimate yet): the guess cannot tell the tasks apart, the models can (task 0's expects
// 0.5 ms, task 1's 0.01 ms). A task whose strategy has no estimate keeps the guess.
void TestTaskSchedulers::gradientForwardModelAsksTheTasksModels() {
    std::vector<TaskState> tasks{stateOf(2, {5, 4, 3}), stateOf(2, {5, 4, 3})};
    tasks[0].expectedGain = 0.5;
    tasks[1].expectedGain = 0.01;
    auto greedy = [](const std::string& forward, const std::string& per = "trial") {
        return SchedulerRegistry::builtin().create("gradient",
                                                   {{"epsilon", "0"}, {"forward", forward}, {"per", per}}, 1);
    };
    const auto modelScheduler = greedy("model");
    const auto& model = dynamic_cast<const GradientScheduler&>(*modelScheduler);
    // weight x (1 - alpha) x -gap / (n + 1), n = 24 trials.
    QVERIFY(near(model.gradient(tasks, 0), 2 * 0.8 * -0.5 / 25));
    QVERIFY(near(model.gradient(tasks, 1), 2 * 0.8 * -0.01 / 25));
    for (std::uint64_t round = 0; round < 20; ++round)
        QCOMPARE(modelScheduler->next(tasks, round, 100), std::optional<std::size_t>(0));
    const auto meanScheduler = greedy("mean");
    const auto& mean = dynamic_cast<const GradientScheduler&>(*meanScheduler);
    QVERIFY(near(mean.gradient(tasks, 0), 2 * 0.8 * -(0.5 * (3.0 / 24 + 0.5)) / 25));
    // Per round (Ansor's form), the gap itself.
    const auto perRoundScheduler = greedy("model", "round");
    QVERIFY(
        near(dynamic_cast<const GradientScheduler&>(*perRoundScheduler).gradient(tasks, 0), 2 * 0.8 * -0.5));
    // A weight 100 times larger outweighs a gain 50 times larger.
    tasks[1].weight = 200;
    QCOMPARE(modelScheduler->next(tasks, 0, 100), std::optional<std::size_t>(1));
    // Without an estimate, the guess: the same gradient as the default's.
    tasks[1].expectedGain.reset();
    const auto guessScheduler = greedyGradient();
    QVERIFY(near(model.gradient(tasks, 1),
                 dynamic_cast<const GradientScheduler&>(*guessScheduler).gradient(tasks, 1)));
}

QTEST_GUILESS_MAIN(TestTaskSchedulers)
#include "TestTaskSchedulers.moc"
