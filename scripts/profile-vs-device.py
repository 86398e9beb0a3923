#!/usr/bin/env python3
"""A static profile against what the GPU's driver reported for the same configs (scripts/gpu-check, check
`profile`).

  scripts/profile-vs-device.py DATASET.json.gz PROFILE GPUS_JSON

DATASET is a Kernel Tuner cache exported by `tunescope-cli export --format kt-cache` from cuda sessions: each
measured config carries the driver's figures (cudaFuncGetAttributes: `registers`, `shared_bytes` = static +
dynamic; cudaOccupancyMaxActiveBlocksPerMultiprocessor: `blocks_per_sm`) and the hand-set static model's
estimate (`static_ms`). PROFILE is `tunescope-cli analyze --dataset DATASET`'s companion file (NVRTC's resource
report, occupancy from the GPU database GPUS_JSON). Prints, for the configs the driver reported on, how many
agree in registers, shared memory and active blocks per SM, lists the first disagreements, and the static
model's Spearman correlation with the measured times. Exit 0 when at least 99 % agree in each, 1 when not,
2 when an input cannot be read (one sentence naming it).
"""
import gzip
import json
import math
import sys

AGREEMENT = 0.99


def fail(message):
    print(f"profile-vs-device: {message}", file=sys.stderr)
    sys.exit(2)


def load_json(path, what, zipped=False):
    try:
        with (gzip.open(path, "rt") if zipped else open(path)) as f:
            return json.load(f)
    except (OSError, ValueError, EOFError) as error:
        fail(f"the {what} {path} cannot be read ({error}).")


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2.0  # ties share their mean rank
        i = j + 1
    return result


def spearman(x, y):
    if len(x) < 3:
        return float("nan")
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def main():
    if len(sys.argv) != 4:
        fail("usage: profile-vs-device.py DATASET.json.gz PROFILE GPUS_JSON.")
    dataset_path, profile_path, gpus_path = sys.argv[1:]
    dataset = load_json(dataset_path, "dataset", zipped=dataset_path.endswith(".gz"))
    profile = load_json(profile_path, "profile")
    gpus = load_json(gpus_path, "GPU database")
    if not isinstance(dataset, dict) or not isinstance(dataset.get("cache"), dict):
        fail(f"the dataset {dataset_path} is not a Kernel Tuner cache (no \"cache\" object).")
    if not isinstance(profile, dict) or not isinstance(profile.get("configs"), list):
        fail(f"the profile {profile_path} has no \"configs\" array.")
    gpu = next((g for g in gpus.get("gpus", []) if g.get("id") == profile.get("gpu")), None)
    if gpu is None:
        fail(f"the profile's GPU \"{profile.get('gpu')}\" is not in the GPU database {gpus_path}.")
    max_warps = gpu["max_threads_per_sm"] // gpu["warp_size"]
    rows = {c.get("key"): c for c in profile["configs"] if isinstance(c, dict)}

    checked = 0
    wrong = {"registers": [], "shared memory": [], "blocks per SM": []}
    missing = []
    static_ms, measured_ms = [], []
    for key, entry in dataset["cache"].items():
        if not isinstance(entry, dict):
            continue
        time = entry.get("time")
        if isinstance(time, (int, float)) and isinstance(entry.get("static_ms"), (int, float)):
            if time > 0 and math.isfinite(time):
                static_ms.append(entry["static_ms"])
                measured_ms.append(time)
        if "blocks_per_sm" not in entry:  # not run on the device: no driver figures
            continue
        row = rows.get(key)
        if row is None or not row.get("compiled"):
            missing.append(key)
            continue
        checked += 1
        if row["registers"] != entry.get("registers"):
            wrong["registers"].append(f"{key}: profile {row['registers']}, driver {entry.get('registers')}")
        shared = row["static_shared_bytes"] + row["dynamic_shared_bytes"]
        if shared != entry.get("shared_bytes"):
            wrong["shared memory"].append(f"{key}: profile {shared}, driver {entry.get('shared_bytes')}")
        warps_per_block = -(-row["threads_per_block"] // gpu["warp_size"])
        blocks = round(row["occupancy"] * max_warps / warps_per_block)
        if blocks != entry["blocks_per_sm"]:
            wrong["blocks per SM"].append(f"{key}: profile {blocks}, driver {entry['blocks_per_sm']}")

    for name, cases in wrong.items():
        for case in cases[:5]:
            print(f"{name} differ at {case}")
    if missing:
        print(f"{len(missing)} configs run on the device have no compiled row in the profile "
              f"(first: {missing[0]})")
    rho = spearman(static_ms, measured_ms)
    agree = {name: (checked - len(cases)) / checked if checked else 0.0 for name, cases in wrong.items()}
    print(f"{checked} configs run on the device: registers agree on {agree['registers']:.1%}, shared memory on "
          f"{agree['shared memory']:.1%}, blocks per SM on {agree['blocks per SM']:.1%}; static model "
          f"Spearman {rho:.3f} over {len(measured_ms)} measured configs")
    ok = checked > 0 and not missing and all(value >= AGREEMENT for value in agree.values())
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
