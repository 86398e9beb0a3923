#pragma once

#include "strategies/OptionSpec.h"
#include "strategies/StrategyOptions.h"
#include "workload/TaskScheduler.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// Ansor's gradient task scheduler (Zheng et al., OSDI 2020, section 6; TVM auto_scheduler TaskScheduler with
// strategy "gradient"): the next round goes to the task whose round is expected to lower the objective
// f = sum_i w_i x best_i the most. With `per` round, as in Ansor, for task i with r_i its rounds (Ansor's
// task_cts):
//   backward_i = (best after its last round - best `backward_window` rounds earlier) / backward_window,
//                0 while it has no more rounds than that (the earlier best counts from its first valid one);
//   forward_i  = min(best_i - best_i / r_i, beta x flops_i / (max over its group of flops_j / best_j)) -
//                best_i,
//                the second term (similar-task credit) only for a task with flops in a group of more than one
//                task, and not for one that after more than 5 rounds beyond every other task of its group is
//                still slower than the group's best throughput / beta (Ansor's _adjust_similarity_group: it
//                is not similar to them);
//   grad_i     = w_i x (alpha x backward_i + (1 - alpha) x forward_i).
// Ansor's rounds are all of one size (its num_measures_per_round); ours are the task's session batches, which
// differ (a strategy's batches may grow with its observations), so by default (`per` trial) both estimates
// are per trial, with n_i the task's trials:
//   backward_i = the same change of best, divided by the trials of those rounds;
//   forward_i  = -gap_i / (n_i + 1), gap_i = max(best_i / n_i, best_i - the similar-task term above): Ansor's
//                optimistic guess of how far the task is from its optimum, and the part of it that one more
//                trial closes if the gap falls as 1 / trials.
// With `forward` model, the gap is instead what the task's own strategy expects its best candidate to gain
// (TaskState::expectedGain: for xgb, P(valid) x the expected improvement in time over the best, from its
// last ranking), and with `forward` mean, half the guess's gap plus half the model's; a task whose strategy
// has no such estimate (no model, or still in its random start) keeps the guess. Measured against the guess
// in docs/benchmarks.md ("Workloads"): neither is the default.
// Per round, Ansor's guess best_i / r_i stays as large as a heavy task's time long after it has reached its
// optimum, so the heavy tasks take the budget while light ones stay far from theirs (docs/benchmarks.md,
// "Workloads"); per trial it falls as 1 / n_i^2, and trials spread as the square root of each task's share of
// the end-to-end time, shifted towards the tasks that are still improving.
// The most negative grad wins (ties: the lower index); when every grad is equal, a random one of them; with
// probability epsilon, a random schedulable task instead (epsilon-greedy).
//
// A task without a valid config yet (TaskState::kNoBest) has no gradient (Ansor's 1e10 initial cost would
// give it every round): it gets the round while it has fewer trials than every schedulable task with a best
// (the one with the fewest trials first), so a task that never finds a valid config gets at most what the
// least tuned task gets, and the others keep the rest.
class GradientScheduler : public TaskScheduler {
public:
    static constexpr const char* kName = "gradient";
    static constexpr const char* kPerTrial = "trial";
    static constexpr const char* kPerRound = "round";
    static constexpr const char* kForwardGuess = "guess";
    static constexpr const char* kForwardModel = "model";
    static constexpr const char* kForwardMean = "mean";

    static std::vector<OptionSpec> optionTable();

    // `options` validated against optionTable().
    GradientScheduler(const StrategyOptions& options, std::uint64_t seed);

    std::string name() const override { return kName; }
    std::optional<std::size_t> next(const std::vector<TaskState>& tasks, std::uint64_t round,
                                    std::int64_t trialsLeft) const override;

    // grad_i above, for a task with a best (<= 0 for a task whose best has not got worse).
    double gradient(const std::vector<TaskState>& tasks, std::size_t task) const;

private:
    double backwardGradient(const TaskState& task) const;
    // The optimistic guess of the task's best after one more trial (per trial) or round (per round).
    double forwardGuess(const std::vector<TaskState>& tasks, std::size_t task) const;
    // The similar-task guess, or nullopt without flops, group or credit.
    std::optional<double> similarTaskGuess(const std::vector<TaskState>& tasks, std::size_t task) const;
    // The task without a best that is due a round (see the class comment), if any.
    std::optional<std::size_t> dueWithoutBest(const std::vector<TaskState>& tasks,
                                              const std::vector<std::size_t>& candidates) const;

    double m_alpha;
    double m_beta;
    std::size_t m_backwardWindow;
    double m_epsilon;
    bool m_perTrial;
    std::string m_forward;
    std::uint64_t m_seed;
};

} // namespace ts
