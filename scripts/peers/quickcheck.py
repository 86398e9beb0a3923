"""Scorer-independent check of traces, re-implementing Tunescope's counting rule in a few lines.

Budget = unique configs in evaluation order (duplicates skipped); an absent or failed config is an invalid
evaluation that costs one unit; fraction of optimum = fastest valid time in the cache / fastest found so far
(0 while nothing valid was found).
"""

import math


def fractions(dataset, configs, budgets):
    seen = set()
    best = math.inf
    out = {}
    want = sorted(budgets)
    i = 0
    for key in configs:
        if key in seen:
            continue
        seen.add(key)
        t = dataset.time(key)
        if t is not None and t < best:
            best = t
        while i < len(want) and len(seen) == want[i]:
            out[want[i]] = dataset.optimum / best if best < math.inf else 0.0
            i += 1
    while i < len(want):  # the run stopped before this budget: keep what it found
        out[want[i]] = dataset.optimum / best if best < math.inf else 0.0
        i += 1
    return out


def summarize(lines, datasets, budgets):
    """Mean fraction of optimum per strategy and budget (mean over datasets of the mean over seeds)."""
    per = {}  # (strategy, dataset) -> list of fraction dicts
    for item in lines:
        ds = datasets[item["dataset"]]
        per.setdefault((item["strategy"], item["dataset"]), []).append(fractions(ds, item["configs"], budgets))
    table = {}
    for (strategy, _), runs in per.items():
        means = {b: sum(r[b] for r in runs) / len(runs) for b in budgets}
        table.setdefault(strategy, []).append(means)
    return {s: {b: sum(m[b] for m in ms) / len(ms) for b in budgets} for s, ms in table.items()}


def format_table(table, budgets, title):
    lines = [title, "strategy".ljust(34) + "".join(f"{b:>9}" for b in budgets)]
    for s in sorted(table):
        lines.append(s.ljust(34) + "".join(f"{table[s][b]:9.3f}" for b in budgets))
    return "\n".join(lines)
