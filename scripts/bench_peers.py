#!/usr/bin/env python3
"""Peer comparison: Kernel Tuner 1.5 strategies (simulation mode) and Optuna TPE on Kernel Tuner cache files.

Every run is written as one JSON line in Tunescope's trace format, so that `tunescope-cli score` scores the peers
with the same code as Tunescope's own strategies. See docs/peers.md for what is compared and how.

Needs (for this script only, never for the product):  pip install kernel_tuner==1.5.0 optuna
(and torch and scipy for optuna:gp: pip install torch scipy)

    python3 scripts/bench_peers.py --datasets /work/shared/datasets/kernel_tuner/pnpoly/RTX_3090.json.gz ... \
        --repeats 30 --budget 400 --out build/peers.jsonl [--strategies kt:simulated_annealing,optuna:tpe] [--jobs 2]
"""

import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from peers import datasets as peer_datasets  # noqa: E402
from peers import quickcheck  # noqa: E402

DEFAULT_STRATEGIES = [
    "kt:simulated_annealing",
    "kt:genetic_algorithm",
    "kt:dual_annealing",
    "kt:greedy_ils",
    "kt:bayes_opt",
    "kt:bayes_opt+fix",
    "optuna:tpe",
    "optuna:gp",
]
# Rough relative cost, to start the slow runs first (better packing over the workers).
_COST = {"kt:bayes_opt": 100, "kt:bayes_opt+fix": 100, "optuna:tpe": 20, "optuna:gp": 400}

_worker_datasets = {}
_worker_plain = {}


def _worker_init(plain_paths):
    _worker_plain.update(plain_paths)
    import warnings

    warnings.simplefilter("ignore")


def _dataset(path):
    if path not in _worker_datasets:
        _worker_datasets[path] = peer_datasets.Dataset(path)
    return _worker_datasets[path]


def _run_task(task):
    strategy, path, seed, max_fevals, space = task
    ds = _dataset(path)
    tool, name = strategy.split(":", 1)
    if tool == "kt":
        from peers import kt

        configs, info = kt.run(ds, _worker_plain[path], name, seed, max_fevals, space)
    elif tool == "optuna" and name == "tpe":
        from peers import tpe

        if space != "product":
            raise ValueError("optuna:tpe only walks the product of tune_params (use --space product)")
        configs, info = tpe.run(ds, seed, max_fevals)
    elif tool == "optuna" and name == "gp":
        from peers import gp

        if space != "product":
            raise ValueError("optuna:gp only walks the product of tune_params (use --space product)")
        configs, info = gp.run(ds, seed, max_fevals)
    else:
        raise ValueError(f"unknown strategy {strategy}")
    unique = list(dict.fromkeys(configs))
    info.update(
        evaluations=len(configs),
        unique=len(unique),
        invalid=sum(1 for k in unique if ds.time(k) is None),
        fraction=quickcheck.fractions(ds, configs, [max_fevals])[max_fevals],
    )
    return task, configs, info


def _versions():
    out = {}
    try:
        from importlib.metadata import version

        out["kernel_tuner"] = version("kernel_tuner")
        out["optuna"] = version("optuna")
        out["torch"] = version("torch")
    except Exception:  # noqa: BLE001 - versions are informative only
        pass
    return out


def _score(cli, dataset_paths, trace, budgets, space):
    cmd = [cli, "score"]
    for d in dataset_paths:
        cmd += ["--dataset", d]
    cmd += ["--trace", trace, "--budgets", ",".join(str(b) for b in budgets), "--space", space]
    print("$ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        sys.stdout.write(proc.stderr)
        print(f"(tunescope-cli score exited with {proc.returncode}; the traces are written, re-score them later)")
    return proc.returncode


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", required=True, help="Kernel Tuner cache files (.json or .json.gz)")
    ap.add_argument("--repeats", type=int, default=30, help="seeds per strategy and dataset (seeds seed..seed+n-1)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (like tunescope-cli compare --seed)")
    ap.add_argument("--budget", type=int, default=400, help="max_fevals of each run (unique configs)")
    ap.add_argument("--budgets", default="25,50,100,200,400", help="budgets the scorer cuts at")
    ap.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES))
    ap.add_argument("--space", choices=["product", "constrained"], default="product")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "peers.jsonl"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--no-per-budget",
        action="store_true",
        help="skip the extra runs of budget-adaptive KT strategies with max_fevals = each smaller budget",
    )
    ap.add_argument(
        "--deadline-min",
        type=float,
        default=0,
        help="stop starting new runs after this many minutes and keep only seeds complete for every "
        "strategy and dataset (0: no deadline)",
    )
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "cli", "tunescope-cli"))
    args = ap.parse_args(argv)

    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    budgets = sorted({int(b) for b in args.budgets.split(",")} | {args.budget})
    budgets = [b for b in budgets if b <= args.budget]
    seeds = list(range(args.seed, args.seed + args.repeats))
    if "optuna:gp" in strategies:
        import importlib.util

        missing = [m for m in ("optuna", "torch", "scipy") if importlib.util.find_spec(m) is None]
        if missing:
            sys.exit(f"bench_peers.py: optuna:gp needs {', '.join(missing)}: pip install {' '.join(missing)}")

    from peers import kt as kt_mod  # only for BUDGET_ADAPTIVE; does not import kernel_tuner

    t_load = time.perf_counter()
    loaded = {p: peer_datasets.Dataset(p) for p in args.datasets}
    tmp = tempfile.TemporaryDirectory(prefix="bench_peers_")
    plain = {p: ds.write_plain_copy(tmp.name) for p, ds in loaded.items()}
    print(f"loaded {len(loaded)} datasets in {time.perf_counter() - t_load:.1f}s; plain copies in {tmp.name}")
    for p, ds in loaded.items():
        print(f"  {p}: {ds.kernel_name}, product {ds.product_size}, cache {len(ds.cache)}, valid {len(ds.times)}, "
              f"fastest {ds.optimum:.4g}")

    # Tasks: seed-major (so a deadline leaves whole seeds), slow strategies first within a seed.
    main_tasks, extra_tasks = [], []
    for seed in seeds:
        for strategy in sorted(strategies, key=lambda s: -_COST.get(s, 1)):
            for path in args.datasets:
                main_tasks.append((strategy, path, seed, args.budget, args.space))
                name = strategy.split(":", 1)[1]
                if strategy.startswith("kt:") and name in kt_mod.BUDGET_ADAPTIVE and not args.no_per_budget:
                    for b in budgets[:-1]:
                        extra_tasks.append((strategy, path, seed, b, args.space))
    tasks = []
    for seed in seeds:  # interleave so extras of a seed come with that seed
        tasks += [t for t in main_tasks if t[2] == seed] + [t for t in extra_tasks if t[2] == seed]

    os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
    stem = args.out[:-6] if args.out.endswith(".jsonl") else args.out
    per_budget_out = stem + ".per-budget.jsonl"
    partial = open(args.out + ".partial", "w")
    versions = _versions()
    print(f"{len(tasks)} runs ({len(main_tasks)} with max_fevals={args.budget}, {len(extra_tasks)} per-budget), "
          f"{args.jobs} processes, {versions}", flush=True)

    results = {}
    failures = []
    t0 = time.perf_counter()
    deadline = t0 + args.deadline_min * 60 if args.deadline_min > 0 else None
    with cf.ProcessPoolExecutor(max_workers=args.jobs, initializer=_worker_init, initargs=(plain,)) as pool:
        pending = set()
        it = iter(tasks)
        done_count = 0

        def submit_more():
            while len(pending) < 2 * args.jobs:
                if deadline and time.perf_counter() > deadline:
                    return
                t = next(it, None)
                if t is None:
                    return
                pending.add(pool.submit(_run_task, t))

        submit_more()
        while pending:
            finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                pending.discard(fut)
                done_count += 1
                try:
                    task, configs, info = fut.result()
                except Exception as e:  # noqa: BLE001 - report and go on with the other runs
                    failures.append(repr(e))
                    print(f"[{done_count}/{len(tasks)}] FAILED: {e!r}", flush=True)
                    continue
                results[task] = (configs, info)
                strategy, path, seed, mf, space = task
                line = _line(task, configs, info, versions)
                partial.write(json.dumps(line) + "\n")
                partial.flush()
                print(f"[{done_count}/{len(tasks)}] {strategy} {os.path.relpath(path, '/work/shared/datasets')} "
                      f"seed {seed} max_fevals {mf}: {info['wall_s']:.1f}s, {info['evaluations']} evals, "
                      f"{info['unique']} unique, {info['invalid']} invalid, fraction {info['fraction']:.3f} "
                      f"[{time.perf_counter() - t0:.0f}s]", flush=True)
            submit_more()
    partial.close()
    elapsed = time.perf_counter() - t0

    # Keep only seeds for which every (strategy, dataset) main run finished, so repeats are balanced.
    complete_seeds = [s for s in seeds if all(t in results for t in main_tasks if t[2] == s)]
    if len(complete_seeds) < len(seeds):
        print(f"NOTE: only seeds {complete_seeds[:1]}..{complete_seeds[-1:]} ({len(complete_seeds)} of {len(seeds)}) "
              f"finished for every strategy and dataset; the traces hold those seeds only.")
    keep = set(complete_seeds)

    def write(path, selected):
        with open(path, "w") as f:
            for task in selected:
                f.write(json.dumps(_line(task, *results[task], versions)) + "\n")

    main_done = [t for t in main_tasks if t[2] in keep]
    extra_done = [t for t in extra_tasks if t[2] in keep and t in results]
    write(args.out, main_done)
    if extra_done:
        write(per_budget_out, extra_done)
    os.remove(args.out + ".partial")
    print(f"wrote {len(main_done)} runs to {args.out}" + (f" and {len(extra_done)} to {per_budget_out}"
                                                             if extra_done else "") + f" in {elapsed:.0f}s")

    _print_timings(results, main_done, args.budget)

    # Scorer-independent check (same counting rule, in Python).
    lines = [_line(t, *results[t], versions) for t in main_done]
    table = quickcheck.summarize(lines, loaded, budgets)
    print()
    print(quickcheck.format_table(table, budgets, f"quick check (Python re-implementation of the scorer), "
                                  f"max_fevals={args.budget} runs cut at each budget, mean fraction of optimum:"))
    if extra_done:
        per_b = {}
        for b in budgets[:-1]:
            sel = [_line(t, *results[t], versions) for t in extra_done if t[3] == b]
            for s, row in quickcheck.summarize(sel, loaded, [b]).items():
                per_b.setdefault(s + f" (max_fevals=B)", {})[b] = row[b]
        for s in per_b:
            base = s.split(" ")[0]
            per_b[s][args.budget] = table[base][args.budget]
        print()
        print(quickcheck.format_table(per_b, budgets, "budget-adaptive strategies run with max_fevals = each budget:"))

    if os.path.exists(args.cli):
        print()
        scored = args.out
        if extra_done:
            # One trace with both: `score` takes column B of a strategy from its runs with max_fevals = B.
            scored = f"{stem}.with-per-budget.jsonl"
            write(scored, main_done + extra_done)
        _score(args.cli, args.datasets, scored, budgets, args.space)
    else:
        print(f"\n{args.cli} not found: score later with\n  {args.cli} score "
              + " ".join(f"--dataset {d}" for d in args.datasets)
              + f" --trace {args.out} --budgets {','.join(map(str, budgets))} --space {args.space}")
    if failures:
        print(f"{len(failures)} runs failed; first: {failures[0]}")
        return 1
    return 0


def _line(task, configs, info, versions):
    strategy, path, seed, max_fevals, space = task
    tool = "kernel_tuner" if strategy.startswith("kt:") else "optuna"
    return {
        "strategy": strategy,
        "dataset": path,
        "seed": seed,
        "configs": configs,
        "max_fevals": max_fevals,
        "space": space,
        "peer": f"{tool} {versions.get(tool, '?')}",
        "wall_s": round(info["wall_s"], 3),
        "evaluations": info["evaluations"],
    }


def _print_timings(results, tasks, budget):
    print(f"\nmean wall time of one run with max_fevals={budget} (s), and mean unique configs evaluated:")
    by = {}
    for t in tasks:
        configs, info = results[t]
        by.setdefault((t[0], t[1]), []).append(info)
    paths = sorted({t[1] for t in tasks})
    strategies = sorted({t[0] for t in tasks})
    short = {p: os.path.relpath(p, "/work/shared/datasets/kernel_tuner").replace(".json.gz", "") for p in paths}
    print("dataset".ljust(34) + "".join(s.split(":")[1][:14].rjust(16) for s in strategies))
    for p in paths:
        row = short[p][:33].ljust(34)
        for s in strategies:
            infos = by.get((s, p), [])
            if infos:
                w = sum(i["wall_s"] for i in infos) / len(infos)
                u = sum(i["unique"] for i in infos) / len(infos)
                row += f"{w:8.1f}s/{u:5.0f}u".rjust(16)
            else:
                row += "-".rjust(16)
        print(row)


if __name__ == "__main__":
    sys.exit(main())
