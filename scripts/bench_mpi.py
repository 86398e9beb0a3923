#!/usr/bin/env python3
"""Benchmark of `tune --mpi` on this machine (no cluster needed): real MPI jobs of tunescope-cli.

scaling: replay with a real wall time per measurement (--replay-delay-ms, slept), 1, 2, 4 and 8 measuring
         ranks (mpirun -np N+1): measurements per second and parallel efficiency (rate_N / (N * rate_1)),
         median of --repeats runs, for random search (the transport alone) and the default strategy.
workload: `workload tune --mpi` of the replay demo (five tasks on three GPU models) with the same wall time
         per measurement, 1, 2, 4 and 8 measuring ranks: trials per second from the workload's start (every
         task's plan built on every rank included) to its last result, parallel efficiency, and the
         end-to-end latency reached (ten batches per rank: the budget grows with the ranks).
quality: the default strategy on 1 and on 8 measuring ranks, --seeds seeds per dataset: mean fraction of the
         dataset's optimum at 25/50/100/200/400 evaluations. One measuring rank deals one batch at a time,
         which is exactly the loop of a single process, so the 1-rank side runs without MPI (checked against
         an MPI run with one measuring rank for the first seed of the first dataset). Each mean comes with its
         standard error, from the spread of the runs within each dataset; each side run here also gets the
         share of its first 100 trials one parameter away from the best recorded before them. --simulate: the
         8 ranks simulated in one process (tune --simulate-ranks 8) instead of an MPI job; --reference DUMP:
         the 1-rank side from an earlier --dump with the same seeds instead of run again.

  scripts/bench_mpi.py scaling [--cli build/app/cli/tunescope-cli] [--delay-ms 50] [--repeats 3] [--batches 10]
                               [--runs random_sample:8,default:8,default:16]   (strategy:batch size)
                               [--option KEY=VALUE ...]
  scripts/bench_mpi.py workload [--delay-ms 50] [--repeats 3]
  scripts/bench_mpi.py quality [--seeds 30] [--first-seed 0] [--delay-ms 50] [--batch-size 8] [--datasets resources/datasets/*.json.gz]
                               [--option KEY=VALUE ...] [--eight-only | --one-only | --reference DUMP.json]
                               [--simulate] [--dump FILE.json]
"""
import argparse
import glob
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGETS = [25, 50, 100, 200, 400]
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]


def tune(cli, ranks, arguments, db, simulate=False):
    """Runs one session (on `ranks` measuring ranks; 0: a single process) and returns its --json result.
    simulate: the ranks simulated in one process (tune --simulate-ranks) instead of an MPI job."""
    # Cold, as every figure of docs/benchmarks.md on ranks: the search alone, no warm start by default.
    command = [cli, "tune"] + arguments + ["--db", db, "--json", "--cold"]
    if ranks > 0 and simulate:
        command += ["--simulate-ranks", str(ranks)]
    elif ranks > 0:
        command = MPIRUN + ["-np", str(ranks + 1)] + command + ["--mpi"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_mpi: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def session_seconds(db):
    """Seconds from the session's start to its last result, and the number of trials."""
    with sqlite3.connect(db) as c:
        (elapsed, count), = c.execute("SELECT MAX(elapsed_s), COUNT(*) FROM trials")
    return elapsed, count


def scaling(args):
    dataset = os.path.join(ROOT, "resources/datasets/gemm_clblast_RTX_3090.json.gz")
    print(f"# scaling: {os.path.basename(dataset)}, {args.delay_ms:g} ms per measurement (slept), "
          f"median of {args.repeats} runs")
    ideal = 1000.0 / args.delay_ms
    print("| strategy | measuring ranks | measurements | seconds | measurements/s | parallel efficiency "
          f"(rate / (N x rate with 1)) | of the ideal N x {ideal:g}/s |")
    print("|---|---|---|---|---|---|---|")
    for strategy, batch in args.runs:
        base = None  # the rate with one measuring rank
        for ranks in [1, 2, 4, 8]:
            budget = args.batches * batch * ranks  # --batches batches per rank
            rates, seconds = [], []
            for repeat in range(args.repeats):
                with tempfile.TemporaryDirectory() as tmp:
                    db = os.path.join(tmp, "records.db")
                    options = [] if strategy == "random_sample" else sum((["--option", o] for o in args.option or []), [])
                    tune(args.cli, ranks, ["--dataset", dataset, "--strategy", strategy, "--seed", str(repeat),
                                           "--budget", str(budget), "--batch-size", str(batch),
                                           "--replay-delay-ms", str(args.delay_ms)] + options, db)
                    elapsed, count = session_seconds(db)
                    rates.append(count / elapsed)
                    seconds.append(elapsed)
            rate = statistics.median(rates)
            base = base or rate
            print(f"| {strategy}, batch {batch} | {ranks} | {budget} | {statistics.median(seconds):.2f} | {rate:.1f} | "
                  f"{rate / (ranks * base):.3f} | {rate / (ranks * ideal):.3f} |", flush=True)


def workload(args):
    demo = os.path.join(ROOT, "resources/workloads/replay-demo.json")
    print(f"# workload: {os.path.basename(demo)}, {args.delay_ms:g} ms per measurement (slept), "
          f"median of {args.repeats} runs (seeds 0-{args.repeats - 1})")
    print("| measuring ranks | trials | seconds | trials/s | parallel efficiency | end-to-end ms at that budget (median) |")
    print("|---|---|---|---|---|---|")
    base = None
    for ranks in [1, 2, 4, 8]:
        budget = 80 * ranks  # ten batches of 8 per rank
        rates, seconds, latencies = [], [], []
        for repeat in range(args.repeats):
            with tempfile.TemporaryDirectory() as tmp:
                db = os.path.join(tmp, "records.db")
                command = MPIRUN + ["-np", str(ranks + 1), args.cli, "workload", "tune", demo, "--budget",
                                    str(budget), "--seed", str(repeat), "--replay-delay-ms", str(args.delay_ms),
                                    "--db", db, "--json", "--mpi", "--cold"]
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    sys.exit(f"bench_mpi: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
                latencies.append(json.loads(done.stdout)["end_to_end_ms"])
                with sqlite3.connect(db) as c:
                    (started,), = c.execute("SELECT started_at FROM workloads")
                    (last, count), = c.execute("SELECT MAX(finished_at), COUNT(*) FROM trials")
                rates.append(count / (last - started))
                seconds.append(last - started)
        rate = statistics.median(rates)
        base = base or rate
        print(f"| {ranks} | {budget} | {statistics.median(seconds):.2f} | {rate:.1f} | {rate / (ranks * base):.3f} | "
              f"{statistics.median(latencies):.1f} |", flush=True)


def out_of_order(db):
    """Share of batches whose results came back before those of a batch dealt earlier: how asynchronous the
    run really was (0 for one measuring rank)."""
    with sqlite3.connect(db) as c:
        order = [b for (b,) in c.execute("SELECT batch FROM trials GROUP BY batch ORDER BY MIN(number)")]
    late = sum(1 for i, b in enumerate(order) if i > 0 and b < max(order[:i]))
    return late / max(len(order), 1)


def next_to_best(db, first=100):
    """Share of the first `first` trials (in the order recorded) one parameter away from the best of the
    trials recorded before them: how much a run refines around its best."""
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT config, status, objective FROM trials ORDER BY number LIMIT ?", (first,)).fetchall()
    best, best_time, near = None, None, 0
    for text, status, objective in rows:
        config = json.loads(text)
        if best is not None:
            near += sum(1 for key in config if config[key] != best.get(key)) == 1
        if status == "ok" and (best_time is None or objective < best_time):
            best, best_time = config, objective
    return near / max(len(rows), 1)


def fractions(result):
    """Fraction of the optimum at each budget, from tune --json's convergence."""
    best = result["best"]
    optimum = best["objective_ms"] * best["fraction_of_optimum"]
    out = []
    for budget in BUDGETS:
        reached = [p["best_ms"] for p in result["convergence"] if p["evaluation"] <= budget]
        out.append(optimum / min(reached) if reached else 0.0)
    return out


def quality(args):
    datasets = sorted(args.datasets or glob.glob(os.path.join(ROOT, "resources/datasets/*.json.gz")))
    datasets = [d for d in datasets if d.endswith(".json.gz")]
    reference = None  # dataset -> per budget, every seed's fraction: the 1-rank side of an earlier --dump
    if args.reference:
        with open(args.reference) as f:
            dumped = json.load(f)
        if dumped.get("budgets") != BUDGETS or "1" not in dumped.get("runs", {}):
            sys.exit(f"bench_mpi: {args.reference} is not a --dump with 1-rank runs at {BUDGETS} evaluations.")
        reference = dumped["runs"]["1"]
    if args.one_only:
        print(f"# quality: default strategy, {args.seeds} seeds, one process (no MPI), batch size {args.batch_size}")
    else:
        print(f"# quality: default strategy, {args.seeds} seeds, {args.delay_ms:g} ms per measurement on the 8 "
              f"ranks{' (simulated: tune --simulate-ranks 8)' if args.simulate else ''}, batch size "
              f"{args.batch_size} on the 8 ranks (8 on one{', from ' + args.reference if args.reference else ''})")
    print("| dataset | ranks | " + " | ".join(str(b) for b in BUDGETS) + " |")
    print("|---|---|" + "---|" * len(BUDGETS))
    totals = {1: [[] for _ in BUDGETS], 8: [[] for _ in BUDGETS]}
    per_dataset = {1: {}, 8: {}}  # side -> dataset -> per budget, every seed's fraction
    if args.reference and (args.eight_only or args.one_only):
        sys.exit("bench_mpi: --reference gives the 1-rank side to compare with; it does not go with --eight-only or --one-only.")
    sides = [8] if args.eight_only else [1] if args.one_only else [1, 8]  # the rows printed
    disorder = []
    near = {1: [], 8: []}  # per run, next_to_best
    with tempfile.TemporaryDirectory() as tmp:
        for d, dataset in enumerate(datasets):
            rows = {1: [[] for _ in BUDGETS], 8: [[] for _ in BUDGETS]}
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                plan = ["--dataset", dataset, "--seed", str(seed), "--budget", str(BUDGETS[-1])]
                for option in args.option or []:
                    plan += ["--option", option]
                if args.one_only:  # --batch-size is then the single process's
                    plan += ["--batch-size", str(args.batch_size)]
                one = {"best": {"objective_ms": 1, "fraction_of_optimum": 1}, "convergence": []}
                if not (args.eight_only or reference):  # the 1-rank side is run here
                    one_db = os.path.join(tmp, f"one-{d}-{seed}.db")
                    one = tune(args.cli, 0, plan, one_db)
                    near[1].append(next_to_best(one_db))
                if args.one_only:
                    for i, value in enumerate(fractions(one)):
                        rows[1][i].append(value)
                        totals[1][i].append(value)
                    continue
                plan += ["--batch-size", str(args.batch_size)]  # the 8 ranks' (the 1-rank side keeps 8)
                if d == 0 and seed == args.first_seed and args.batch_size == 8 and not (args.eight_only or reference or args.simulate):
                    check = tune(args.cli, 1, plan, os.path.join(tmp, "check.db"))
                    if check["convergence"] != one["convergence"]:
                        sys.exit("bench_mpi: one measuring rank did not reproduce the single-process run")
                eight_db = os.path.join(tmp, f"eight-{d}-{seed}.db")
                eight = tune(args.cli, 8, plan + ["--replay-delay-ms", str(args.delay_ms)], eight_db, args.simulate)
                disorder.append(out_of_order(eight_db))
                near[8].append(next_to_best(eight_db))
                for ranks, result in [(1, one), (8, eight)]:
                    if ranks == 1 and reference:
                        name = os.path.basename(dataset)
                        at = seed - args.first_seed  # the dump holds the same seeds, in order
                        if name not in reference or len(reference[name][0]) <= at:
                            sys.exit(f"bench_mpi: {args.reference} has no 1-rank run of {name} with seed {seed}.")
                        for i in range(len(BUDGETS)):
                            rows[1][i].append(reference[name][i][at])
                            totals[1][i].append(reference[name][i][at])
                        continue
                    for i, value in enumerate(fractions(result)):
                        rows[ranks][i].append(value)
                        totals[ranks][i].append(value)
            for ranks in sides:
                per_dataset[ranks][os.path.basename(dataset)] = rows[ranks]
                cells = " | ".join(f"{statistics.mean(v):.3f}" for v in rows[ranks])
                print(f"| {os.path.basename(dataset)} | {ranks} | {cells} |", flush=True)
    # The spread of the runs within each dataset gives the standard error of a mean over the datasets (each
    # weighs the same; the datasets are fixed, so their differences add no error). The 8 - 1 row's error
    # takes the two sides as independent.
    def variance_of_mean(ranks, i):
        sets = per_dataset[ranks]
        return sum(statistics.variance(v[i]) / len(v[i]) for v in sets.values() if len(v[i]) > 1) / len(sets) ** 2

    for ranks in sides:
        cells = " | ".join(f"{statistics.mean(v):.3f}" for v in totals[ranks])
        print(f"| mean of {len(datasets)} | {ranks} | {cells} |")
        cells = " | ".join(f"{variance_of_mean(ranks, i) ** 0.5:.3f}" for i in range(len(BUDGETS)))
        print(f"| its standard error | {ranks} | {cells} |")
    if sides == [1, 8]:
        diff = " | ".join(f"{statistics.mean(a) - statistics.mean(b):+.3f}" for a, b in zip(totals[8], totals[1]))
        print(f"| 8 ranks - 1 rank | | {diff} |")
        error = " | ".join(f"{(variance_of_mean(1, i) + variance_of_mean(8, i)) ** 0.5:.3f}"
                           for i in range(len(BUDGETS)))
        print(f"| its standard error | | {error} |")
    if args.dump:
        with open(args.dump, "w") as out:
            json.dump({"budgets": BUDGETS, "runs": {str(ranks): per_dataset[ranks] for ranks in sides}}, out)
    for ranks in sides:
        if near[ranks]:
            print(f"# {ranks} rank{'s' if ranks > 1 else ''}: {100 * statistics.mean(near[ranks]):.1f} % of the first 100 "
                  f"trials one parameter away from the best recorded before them (mean over the runs)")
    if disorder:
        print(f"# 8 ranks: {100 * statistics.mean(disorder):.0f} % of the batches came back before a batch dealt "
              f"earlier (mean over the runs)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["scaling", "workload", "quality"])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build/app/cli/tunescope-cli"))
    parser.add_argument("--delay-ms", type=float, default=50.0)
    parser.add_argument("--batches", type=int, default=10, help="scaling: batches per measuring rank")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--first-seed", type=int, default=0, help="quality: the seeds are first-seed .. first-seed + seeds - 1")
    parser.add_argument("--datasets", nargs="*")
    parser.add_argument("--batch-size", type=int, default=8, help="quality: the 8 ranks' batch size (with --one-only: the single process's)")
    parser.add_argument("--option", action="append",
                        help="a strategy option KEY=VALUE (quality: both sides; scaling: the runs other than random_sample)")
    sides = parser.add_mutually_exclusive_group()
    sides.add_argument("--eight-only", action="store_true", help="quality: only the 8 ranks (no 1-rank rows)")
    sides.add_argument("--one-only", action="store_true",
                       help="quality: only the single process (no MPI), e.g. to see what --option does there")
    parser.add_argument("--simulate", action="store_true",
                        help="quality: the 8 ranks simulated in one process (tune --simulate-ranks 8), not an MPI job")
    parser.add_argument("--reference", help="quality: the 1-rank side from this earlier --dump (same seeds), not run again")
    parser.add_argument("--dump", help="quality: write every run's fractions (per side, dataset and budget) to this JSON file")
    parser.add_argument("--runs", default="random_sample:8,default:8,default:16",
                        help="scaling: strategy:batch size pairs, comma-separated")
    args = parser.parse_args()
    try:
        args.runs = [(name, int(batch)) for name, batch in (run.split(":") for run in args.runs.split(","))]
    except ValueError:
        sys.exit(f"bench_mpi: --runs \"{args.runs}\" is not a list of strategy:batch-size pairs.")
    if not os.access(args.cli, os.X_OK):
        sys.exit(f"bench_mpi: {args.cli} is not an executable tunescope-cli (build it first: scripts/bootstrap).")
    {"scaling": scaling, "workload": workload, "quality": quality}[args.what](args)


if __name__ == "__main__":
    main()
