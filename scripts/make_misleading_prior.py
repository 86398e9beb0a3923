#!/usr/bin/env python3
"""Writes a deliberately misleading copy of a Kernel Tuner cache, as a warm-start source for the benchmark of
docs/benchmarks.md ("A misleading source"): the same kernel, parameters and valid configs, with times that
lie about which configs are fast.

    python3 scripts/make_misleading_prior.py IN.json.gz OUT.json.gz --mode reversed|shuffled [--seed N]

reversed: the fastest config gets the slowest time, the second fastest the second slowest, and so on (the
ranking turned upside down). shuffled: the valid configs' times dealt at random among them (no information).
Failed configs stay failed. The device name gets a "misleading" suffix, so it is never taken for a real
measurement of that GPU.
"""

import argparse
import gzip
import json
import random


def is_time(value):
    return isinstance(value, (int, float)) and 0 < value < 1e19


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--mode", choices=["reversed", "shuffled"], required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    opener = gzip.open if args.source.endswith(".gz") else open
    with opener(args.source, "rt") as f:
        cache = json.load(f)
    entries = [entry for entry in cache["cache"].values() if is_time(entry.get("time"))]
    times = sorted(entry["time"] for entry in entries)
    if args.mode == "reversed":
        entries.sort(key=lambda entry: entry["time"])
        new_times = list(reversed(times))
    else:
        new_times = list(times)
        random.Random(args.seed).shuffle(new_times)
    for entry, time in zip(entries, new_times):
        entry["time"] = time
        entry["times"] = [time]
    cache["device_name"] = f"{cache.get('device_name', '')} ({args.mode}, misleading)"
    writer = gzip.open if args.out.endswith(".gz") else open
    with writer(args.out, "wt") as f:
        json.dump(cache, f)


if __name__ == "__main__":
    main()
