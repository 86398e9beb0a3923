#include "workload/GradientScheduler.h"

#include "workload/SchedulerRandom.h"

#include <algorithm>
#include <cmath>

namespace ts {

namespace {

// Ansor's _adjust_similarity_group: a task tuned this many rounds beyond every other task of its group and
// still slow is not similar to them.
constexpr std::size_t kDissimilarAfterRounds = 5;

double throughput(const TaskState& task) {
    return *task.flops / task.best();
}

// Flops that are not a positive finite number say nothing of how fast the task could be.
bool hasThroughput(const TaskState& task) {
    return task.flops && std::isfinite(*task.flops) && *task.flops > 0.0 && task.hasBest() &&
           task.best() > 0.0;
}

} // namespace

std::vector<OptionSpec> GradientScheduler::optionTable() {
    return {
        OptionSpec::real(
            "alpha", "0.2", 0, 1,
            "Weight of the backward estimate (the recent improvement) against the forward guess."),
        OptionSpec::real("beta", "2", 1, 100,
                         "Similar-task credit: a task may reach 1/beta of its group's best throughput."),
        OptionSpec::integer("backward_window", "3", 1, 100,
                            "Rounds over which the backward estimate measures the recent improvement."),
        OptionSpec::real("epsilon", "0.05", 0, 1,
                         "Probability of giving the round to a random task instead."),
        OptionSpec::choice("per", kPerTrial, {kPerTrial, kPerRound},
                           "Gains per trial (rounds differ in size) or, as in Ansor, per round."),
        OptionSpec::choice("forward", kForwardGuess, {kForwardGuess, kForwardModel, kForwardMean},
                           "How far a task may still be from its optimum: Ansor's optimistic guess from its "
                           "best time (guess), what its own cost model expects its best candidate to gain "
                           "(model), or half of each (mean); the guess for a task without a model."),
    };
}

GradientScheduler::GradientScheduler(const StrategyOptions& options, std::uint64_t seed)
    : m_alpha(options.real("alpha")), m_beta(options.real("beta")),
      m_backwardWindow(static_cast<std::size_t>(options.integer("backward_window"))),
      m_epsilon(options.real("epsilon")), m_perTrial(options.text("per") == kPerTrial),
      m_forward(options.text("forward")), m_seed(seed) {}

double GradientScheduler::backwardGradient(const TaskState& task) const {
    const std::vector<double>& history = task.bestHistory;
    if (history.size() <= m_backwardWindow)
        return 0.0;
    auto start = history.end() - 1 - static_cast<std::ptrdiff_t>(m_backwardWindow);
    start = std::find_if(start, history.end(), [](double best) { return best != TaskState::kNoBest; });
    if (!m_perTrial)
        return (history.back() - *start) / static_cast<double>(m_backwardWindow);
    const auto from = static_cast<std::size_t>(start - history.begin());
    const std::int64_t trials = task.trialsHistory.at(history.size() - 1) - task.trialsHistory.at(from);
    return trials > 0 ? (history.back() - *start) / static_cast<double>(trials) : 0.0;
}

std::optional<double> GradientScheduler::similarTaskGuess(const std::vector<TaskState>& tasks,
                                                          std::size_t task) const {
    const TaskState& self = tasks[task];
    if (self.group.empty() || !hasThroughput(self))
        return std::nullopt;
    std::size_t members = 0;
    std::size_t othersMostRounds = 0;
    double bestThroughput = throughput(self);
    for (std::size_t j = 0; j < tasks.size(); ++j) {
        if (tasks[j].group != self.group)
            continue;
        ++members;
        if (j != task)
            othersMostRounds = std::max(othersMostRounds, tasks[j].rounds());
        if (hasThroughput(tasks[j]))
            bestThroughput = std::max(bestThroughput, throughput(tasks[j]));
    }
    if (members < 2)
        return std::nullopt;
    if (throughput(self) < bestThroughput / m_beta &&
        self.rounds() > othersMostRounds + kDissimilarAfterRounds)
        return std::nullopt;
    return m_beta * *self.flops / bestThroughput;
}

double GradientScheduler::forwardGuess(const std::vector<TaskState>& tasks, std::size_t task) const {
    const TaskState& self = tasks[task];
    const double spent = static_cast<double>(m_perTrial ? std::max<std::int64_t>(self.trials, 1)
                                                        : std::max<std::size_t>(self.rounds(), 1));
    double guess = self.best() - self.best() / spent;
    if (auto similar = similarTaskGuess(tasks, task))
        guess = std::min(guess, *similar);
    // best - guess: how far the task may still be from its optimum after `spent` trials (rounds). With
    // forward=model the task's model says instead (its best candidate's expected improvement), or half each
    // (forward=mean).
    double gap = self.best() - guess;
    if (m_forward != kForwardGuess && self.expectedGain && std::isfinite(*self.expectedGain)) {
        const double model = std::max(0.0, *self.expectedGain);
        gap = m_forward == kForwardMean ? 0.5 * (gap + model) : model;
    }
    if (!m_perTrial)
        return self.best() - gap;
    // Were that gap to fall as 1 / trials, one more trial would close gap / (spent + 1) of it.
    return self.best() - gap / (spent + 1.0);
}

double GradientScheduler::gradient(const std::vector<TaskState>& tasks, std::size_t task) const {
    const TaskState& self = tasks[task];
    const double forward = forwardGuess(tasks, task) - self.best();
    return self.weight * (m_alpha * backwardGradient(self) + (1.0 - m_alpha) * forward);
}

std::optional<std::size_t>
GradientScheduler::dueWithoutBest(const std::vector<TaskState>& tasks,
                                  const std::vector<std::size_t>& candidates) const {
    std::optional<std::size_t> neediest;
    std::optional<std::int64_t> fewestWithBest;
    for (std::size_t i : candidates) {
        if (tasks[i].hasBest())
            fewestWithBest = std::min(fewestWithBest.value_or(tasks[i].trials), tasks[i].trials);
        else if (!neediest || tasks[i].trials < tasks[*neediest].trials)
            neediest = i;
    }
    if (neediest && (!fewestWithBest || tasks[*neediest].trials < *fewestWithBest))
        return neediest;
    return std::nullopt;
}

std::optional<std::size_t> GradientScheduler::next(const std::vector<TaskState>& tasks, std::uint64_t round,
                                                   std::int64_t) const {
    const std::vector<std::size_t> candidates = schedulableTasks(tasks);
    if (candidates.empty())
        return std::nullopt;
    SchedulerRandom random(m_seed, round);
    if (random.uniform() < m_epsilon)
        return candidates[random.below(candidates.size())];
    if (auto due = dueWithoutBest(tasks, candidates))
        return due;
    // Not empty: without a task with a best, the one of fewest trials was due.
    std::vector<std::size_t> withBest;
    std::vector<double> gradients;
    for (std::size_t i : candidates)
        if (tasks[i].hasBest()) {
            withBest.push_back(i);
            gradients.push_back(gradient(tasks, i));
        }
    const auto [steepest, flattest] = std::minmax_element(gradients.begin(), gradients.end());
    if (*steepest == *flattest)
        return withBest[random.below(withBest.size())];
    return withBest[static_cast<std::size_t>(steepest - gradients.begin())];
}

} // namespace ts
