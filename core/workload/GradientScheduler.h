#pragma once

#include "strategies/OptionSpec.h"
#include "strategies/StrategyOptions.h"
#include "workload/TaskScheduler.h"

#include <cstdint>
#include <vector>

namespace ts {

// Ansor's gradient task scheduler (Zheng et al., OSDI 2020, section 6; TVM auto_scheduler TaskScheduler with
// strategy "gradient"): the next round goes to the task whose round is expected to lower the objective
// f = sum_i w_i x best_i the most. For task i, with r_i its rounds (Ansor's task_cts):
//   backward_i = (best after its last round - best `backward_window` rounds earlier) / backward_window,
//                0 while it has no more rounds than that (the earlier best counts from its first valid one);
//   forward_i  = min(best_i - best_i / r_i, beta x flops_i / (max over its group of flops_j / best_j)) -
//   best_i,
//                the second term (similar-task credit) only for a task with flops in a group of more than one
//                task, and not for one that after more than 5 rounds beyond every other task of its group is
//                still slower than the group's best throughput / beta (Ansor's _adjust_similarity_group: it
//                is not similar to them);
//   grad_i     = w_i x (alpha x backward_i + (1 - alpha) x forward_i).
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
    // The optimistic guess of the task's best after one more round.
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
    std::uint64_t m_seed;
};

} // namespace ts
