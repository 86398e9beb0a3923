#include "WorkloadPrinter.h"

#include "CliSupport.h"
#include "InterruptSignals.h"
#include "Interrupted.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace ts::cli {

namespace {

// The progress line, and SIGINT / SIGTERM turned into a cancel between rounds.
class WorkloadProgressPrinter : public WorkloadObserver {
public:
    explicit WorkloadProgressPrinter(WorkloadRun& run) : m_run(run) {}
    void roundFinished(const WorkloadProgress& p) override {
        if (InterruptSignals::received() != 0)
            m_run.cancel();
        std::string oracle;
        if (p.oracleMs && p.endToEndMs > 0)
            oracle = fmt::format(" ({:.3f}x the oracle {:.6g} ms)", p.endToEndMs / *p.oracleMs, *p.oracleMs);
        std::string missing =
            p.tasksWithoutBest > 0 ? fmt::format(", {} tasks without a config yet", p.tasksWithoutBest) : "";
        const WorkloadTask& task = m_run.tasks()[p.task.value_or(0)];
        m_line.update(fmt::format("[{}/{}] end-to-end {:.6g} ms{}{}, tuning task {}/{} \"{}\" ({} trials), "
                                  "{:.1f} s",
                                  p.trials, p.budget, p.endToEndMs, oracle, missing, p.task.value_or(0) + 1,
                                  m_run.tasks().size(), task.plan().name, task.state().trials, p.elapsedS),
                      p.trials >= p.budget);
    }
    void finished(WorkloadStop) override { m_line.finish(); }

private:
    WorkloadRun& m_run;
    ProgressLine m_line;
};

struct TaskRow {
    const WorkloadTaskRecord* task = nullptr;
    std::string target; // kernel and size, or dataset
    std::int64_t trials = 0;
    std::optional<double> best;
};

std::string targetOf(const WorkloadTaskPlan& task) {
    const SessionPlan& plan = task.plan;
    if (!plan.measuresKernel())
        return std::filesystem::path(plan.dataset).filename().string();
    const std::string kernel = !plan.kernel.kernel.empty()
                                   ? plan.kernel.kernel
                                   : std::filesystem::path(plan.kernel.kernelSpec).string();
    return plan.kernel.size.empty() ? kernel : fmt::format("{} {}", kernel, plan.kernel.size);
}

} // namespace

void runWorkload(WorkloadRun& run, RecordStore& store, bool json, MpiJob& mpi) {
    WorkloadProgressPrinter printer(run);
    run.addObserver(&printer);
    WorkloadPool* pool = mpi.workloadPool();
    const std::int64_t id = run.open();
    if (InterruptSignals::received() != 0)
        run.cancel();
    const WorkloadStop stop = pool ? run.run(*pool) : run.run();
    printWorkload(store, id, json);
    if (const std::string lost = mpi.lostRanks(); !lost.empty()) {
        std::fflush(stdout);
        throw Error(fmt::format("{}: workload {} stopped after {} trials, every one recorded; `tunescope-cli "
                                "workload resume {} --db {}` continues it, with or without --mpi.",
                                lost, id, run.progress().trials, id, store.path().string()));
    }
    const int signal = InterruptSignals::received();
    if (signal != 0 && stop == WorkloadStop::Cancelled) {
        std::fflush(stdout);
        throw Interrupted(signal, fmt::format("Workload {} was interrupted by {} after {} trials; "
                                              "`tunescope-cli workload resume {} --db {}` continues it.",
                                              id, InterruptSignals::name(signal), run.progress().trials, id,
                                              store.path().string()));
    }
}

void printWorkload(const RecordStore& store, std::int64_t id, bool json) {
    const std::optional<WorkloadRecord> record = store.workload(id);
    if (!record)
        throw Error(fmt::format("The records database {} has no workload {}.", store.path().string(), id));
    const WorkloadPlan plan = WorkloadPlan::fromJson(parseBoundedJson(record->plan, "a workload's plan"),
                                                     fmt::format("the plan of workload {}", id));
    std::vector<TaskRow> rows;
    double endToEnd = 0.0;
    std::int64_t trials = 0;
    for (const WorkloadTaskRecord& task : record->tasks) {
        TaskRow& row = rows.emplace_back();
        row.task = &task;
        if (static_cast<std::size_t>(task.position) < plan.tasks.size())
            row.target = targetOf(plan.tasks[static_cast<std::size_t>(task.position)]);
        if (task.session)
            for (const StoredTrial& trial : store.trials(*task.session)) {
                ++row.trials;
                if (trial.status == toString(MeasureStatus::Ok) && std::isfinite(trial.objective))
                    row.best = std::min(row.best.value_or(trial.objective), trial.objective);
            }
        trials += row.trials;
        if (row.best)
            endToEnd += task.weight * *row.best;
    }
    auto share = [&](const TaskRow& row) -> std::optional<double> {
        if (!row.best || endToEnd <= 0)
            return std::nullopt;
        return row.task->weight * *row.best / endToEnd;
    };
    if (json) {
        nlohmann::ordered_json out{
            {"workload", id},
            {"name", record->name},
            {"status", record->status},
            {"scheduler", record->scheduler},
            {"scheduler_options", parseBoundedJson(record->options, "scheduler options")},
            {"seed", record->seed},
            {"budget", record->budget},
            {"trials", trials},
            {"end_to_end_ms", endToEnd},
            {"tasks", nlohmann::ordered_json::array()}};
        for (const TaskRow& row : rows) {
            nlohmann::ordered_json task{{"task", row.task->position + 1}, {"name", row.task->name},
                                        {"target", row.target},           {"weight", row.task->weight},
                                        {"trials", row.trials},           {"status", row.task->status}};
            task["session"] = row.task->session ? nlohmann::ordered_json(*row.task->session) : nullptr;
            task["best_ms"] = row.best ? nlohmann::ordered_json(*row.best) : nullptr;
            task["share"] = share(row) ? nlohmann::ordered_json(*share(row)) : nullptr;
            if (!row.task->error.empty())
                task["error"] = row.task->error;
            out["tasks"].push_back(task);
        }
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("workload {} \"{}\" ({}, {}): {} of {} trials, scheduler {}, end-to-end {:.6g} ms\n", id,
               record->name, record->device, record->status, trials, record->budget, record->scheduler,
               endToEnd);
    fmt::print("{:>4}  {:<28} {:<34} {:>8} {:>7} {:>12} {:>7}  {:<8} {}\n", "task", "name", "target",
               "weight", "trials", "best ms", "share", "status", "session");
    for (const TaskRow& row : rows) {
        const std::optional<double> part = share(row);
        fmt::print("{:>4}  {:<28} {:<34} {:>8.6g} {:>7} {:>12} {:>7}  {:<8} {}\n", row.task->position + 1,
                   row.task->name, row.target, row.task->weight, row.trials,
                   row.best ? fmt::format("{:.6g}", *row.best) : "-",
                   part ? fmt::format("{:.1f}%", 100.0 * *part) : "-", row.task->status,
                   row.task->session ? std::to_string(*row.task->session) : "-");
        if (!row.task->error.empty())
            fmt::print("      failed: {}\n", row.task->error);
    }
}

} // namespace ts::cli
