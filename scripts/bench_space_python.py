#!/usr/bin/env python3
"""Side-by-side reference for bench_space: builds the hotspot T1 space with a plain Python loop over the
product (itertools.product, the four conditions as compiled Python expressions), as a Python tuner would."""
import itertools
import json
import sys
import time


def build(path):
    spec = json.load(open(path))["ConfigurationSpace"]
    names = [p["Name"] for p in spec["TuningParameters"]]
    values = [eval(p["Values"]) for p in spec["TuningParameters"]]
    conditions = [compile(c["Expression"], "<condition>", "eval") for c in spec["Conditions"]]
    valid = 0
    for config in itertools.product(*values):
        scope = dict(zip(names, config))
        if all(eval(c, {}, scope) for c in conditions):
            valid += 1
    return valid


path = sys.argv[1] if len(sys.argv) > 1 else "resources/spaces/hotspot_milo.json"
times = []
for _ in range(3):
    start = time.perf_counter()
    valid = build(path)
    times.append(time.perf_counter() - start)
times.sort()
print(f"python loop: {path} valid {valid} median {times[1]:.2f} s min {times[0]:.2f} s (3 runs)")
