#!/usr/bin/env python3
"""Speed of two builds of tunescope-cli side by side (the same commands, alternated, median of --repeats runs):
wall seconds and CPU seconds (user + system, the command's processes together), and whether both builds
printed the same --json result (a run depends only on its seed, so a change that only makes it faster prints
the same bytes).

  scripts/bench_cli_speed.py --before OLD/tunescope-cli --after build/app/cli/tunescope-cli [--repeats 3]

Cases: `tune` of the default strategy (400 evaluations, its batches) and with batches of 1 (300 evaluations:
a model fit per evaluation) on three bundled datasets; `compare` of xgb (8 repeats on 2 threads, 200
evaluations; its --trace compared); and the latency an MPI measuring rank adds to a measurement (`tune --mpi`
with one measuring rank, random_sample, batches of 1, 100 replayed measurements of 50 ms slept each: the
session's seconds less 5 s, per measurement).
"""
import argparse
import os
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATASETS = ["gemm_clblast_RTX_3090", "convolution_milo_A100", "convolution_2021_RTX_2080_Ti"]
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]


def run(command):
    """Wall and CPU seconds of one command, and its stdout. A `tune` records into a database of its own."""
    if command[1] == "tune" and "--db" not in command:
        with tempfile.TemporaryDirectory() as tmp:
            return run(command + ["--db", os.path.join(tmp, "records.db")])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"bench_cli_speed: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def cases():
    for name in DATASETS:
        dataset = os.path.join(ROOT, "resources/datasets", name + ".json.gz")
        yield (f"tune default, 400, {name}",
               ["tune", "--dataset", dataset, "--strategy", "default", "--seed", "0", "--budget", "400", "--json", "--cold"])
        yield (f"tune default, batches of 1, 300, {name}",
               ["tune", "--dataset", dataset, "--strategy", "default", "--seed", "0", "--budget", "300",
                "--batch-size", "1", "--option", "batch_growth=1", "--json", "--cold"])
    dataset = os.path.join(ROOT, "resources/datasets/convolution_milo_A100.json.gz")
    yield ("compare xgb, 8 repeats, 2 threads, convolution_milo_A100",
           ["compare", "--dataset", dataset, "--strategies", "xgb", "--repeats", "8", "--threads", "2",
            "--budgets", "25,50,100,200", "--trace", "-"])


def mpi_latency(cli):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "records.db")
        dataset = os.path.join(ROOT, "resources/datasets/gemm_clblast_RTX_3090.json.gz")
        run(MPIRUN + ["-np", "2", cli, "tune", "--dataset", dataset, "--strategy", "random_sample", "--seed", "0",
                      "--budget", "100", "--batch-size", "1", "--replay-delay-ms", "50", "--db", db, "--mpi",
                      "--json"])
        with sqlite3.connect(db) as c:
            (elapsed, count), = c.execute("SELECT MAX(elapsed_s), COUNT(*) FROM trials")
    return (elapsed - count * 0.050) / count * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"# median of {args.repeats} runs, the two builds alternated")
    print("| case | wall s, before | wall s, after | after / before | CPU s, before | CPU s, after | after / before "
          "| same result |")
    print("|---|---|---|---|---|---|---|---|")
    for name, arguments in cases():
        walls = {"before": [], "after": []}
        cpus = {"before": [], "after": []}
        outputs = {}
        for _ in range(args.repeats):
            for side in ["before", "after"]:
                wall, cpu, out = run([getattr(args, side)] + arguments)
                walls[side].append(wall)
                cpus[side].append(cpu)
                # compare's runs end in any order, and it says how long they took
                outputs[side] = sorted(line for line in out.splitlines() if not re.search(r"runs in [0-9.]+ s", line))
        wb, wa = statistics.median(walls["before"]), statistics.median(walls["after"])
        cb, ca = statistics.median(cpus["before"]), statistics.median(cpus["after"])
        same = "yes" if outputs["before"] == outputs["after"] else "no"
        print(f"| {name} | {wb:.2f} | {wa:.2f} | {wa / wb:.2f} | {cb:.2f} | {ca:.2f} | {ca / cb:.2f} | {same} |",
              flush=True)
    latency = {"before": [], "after": []}
    for _ in range(args.repeats):
        for side in ["before", "after"]:
            latency[side].append(mpi_latency(getattr(args, side)))
    lb, la = statistics.median(latency["before"]), statistics.median(latency["after"])
    print(f"| MPI, 1 measuring rank: ms added to each 50 ms measurement | {lb:.1f} | {la:.1f} | {la / lb:.2f} | | | | |")


if __name__ == "__main__":
    main()
