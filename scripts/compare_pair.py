#!/usr/bin/env python3
"""Side by side: two sets of `tunescope-cli compare --json` results (A and B, each one or more files), matched by
dataset (kernel name and device, as the files say), for one strategy. Prints a Markdown table per dataset with A, B and
B - A at each budget, then the mean over the datasets both hold with the 95 % interval of the difference
(Student t, paired by dataset).

    python3 scripts/compare_pair.py --a build/bench/warm/cold.json --b build/bench/warm/misleading/*.json \
        [--strategy xgb] [--label-a cold] [--label-b warm]
"""

import argparse
import json
import math
import os

# Two-sided 95 % Student t quantiles by degrees of freedom (1-30); larger: the normal's 1.96.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def key_of(entry):
    # A file that names no device (some Kernel Tuner caches) is told apart by its file name.
    device = entry["device"] or os.path.basename(entry.get("file", "")).split(".")[0]
    return f"{entry['kernel']} / {device}"


def load(paths, strategy):
    rows, budgets = {}, None
    for path in paths:
        with open(path) as f:
            result = json.load(f)
        budgets = result["budgets"]
        for entry in result["datasets"]:
            if strategy in entry["fraction"]:
                rows[key_of(entry)] = entry["fraction"][strategy]
    return rows, budgets


def interval(values):
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    t = _T95[n - 2] if n - 2 < len(_T95) else 1.96
    return mean, t * sd / math.sqrt(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", nargs="+", required=True)
    ap.add_argument("--b", nargs="+", required=True)
    ap.add_argument("--strategy", default="xgb")
    ap.add_argument("--label-a", default="A")
    ap.add_argument("--label-b", default="B")
    args = ap.parse_args()
    a, budgets = load(args.a, args.strategy)
    b, _ = load(args.b, args.strategy)
    both = sorted(set(a) & set(b))
    fmt = lambda xs: " / ".join(f"{x:.3f}" for x in xs)  # noqa: E731
    print(f"| dataset | {args.label_a} | {args.label_b} | {args.label_b} - {args.label_a} |")
    print("|---|---|---|---|")
    for k in both:
        print(f"| {k} | {fmt(a[k])} | {fmt(b[k])} | {' / '.join(f'{y - x:+.3f}' for x, y in zip(a[k], b[k]))} |")
    mean_a = [sum(a[k][i] for k in both) / len(both) for i in range(len(budgets))]
    mean_b = [sum(b[k][i] for k in both) / len(both) for i in range(len(budgets))]
    diffs = [interval([b[k][i] - a[k][i] for k in both]) for i in range(len(budgets))]
    print(f"| mean of {len(both)} | {fmt(mean_a)} | {fmt(mean_b)} | "
          f"{' / '.join(f'{m:+.3f} ± {h:.3f}' for m, h in diffs)} |")
    print(f"\nbudgets {budgets}; ± is the 95 % interval of the mean difference, paired by dataset")


if __name__ == "__main__":
    main()
