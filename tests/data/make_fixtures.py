#!/usr/bin/env python3
"""Cuts the small test fixtures in this folder from the brute-forced datasets (see ATTRIBUTION.md).

Run once from this folder with the source files under $TUNESCOPE_DATASETS (default /work/shared/datasets).
The fixtures are committed; this script documents how they were made.
"""
import gzip
import json
import os
import random

SRC = os.environ.get("TUNESCOPE_DATASETS", "/work/shared/datasets")


def load(rel):
    with gzip.open(os.path.join(SRC, rel), "rt") as f:
        return json.load(f)


def kt_text(header, records):
    """Kernel Tuner's own layout: the header one token per line, then one cache record per line."""
    head = json.dumps(header, indent=0)[:-2]  # drop the closing "\n}"
    lines = [json.dumps(k) + ": " + json.dumps(v) for k, v in records]
    return head + ',\n"cache": {\n' + ",\n".join(lines) + "}\n}\n"


def pick(cache, ok_count, failed_count, seed):
    rng = random.Random(seed)
    ok = [k for k, v in cache.items() if not isinstance(v["time"], str)]
    failed = [k for k, v in cache.items() if isinstance(v["time"], str)]
    chosen = set(rng.sample(ok, ok_count)) | set(rng.sample(failed, failed_count))
    return [(k, cache[k]) for k in cache if k in chosen]  # original order


def write(name, text):
    with open(name, "w") as f:
        f.write(text)


pnpoly = load("kernel_tuner/pnpoly/RTX_3090.json.gz")
header = {k: v for k, v in pnpoly.items() if k != "cache"}
records = pick(pnpoly["cache"], 20, 4, seed=7)
text = kt_text(header, records)
write("kt_pnpoly.json", text)

# The same records with the failures written the three ways Kernel Tuner versions have used.
failed = [i for i, (k, v) in enumerate(records) if isinstance(v["time"], str)]
strings = ["RuntimeFailedConfig", "CompilationFailedConfig", "InvalidConfig", "SomeOtherFailure"]

old = [(k, dict(v)) for k, v in records]
for i in failed:
    old[i][1]["time"] = 1e20
write("kt_fail_1e20.json", kt_text(header, old))

relabelled = [(k, dict(v)) for k, v in records]
for n, i in enumerate(failed):
    relabelled[i][1]["time"] = strings[n]
write("kt_fail_string.json", kt_text(header, relabelled))

newest = [(k, dict(v)) for k, v in records]
for n, i in enumerate(failed):
    del newest[i][1]["time"]
    newest[i][1]["__error__"] = strings[n] + ": reported by the fixture generator"
write("kt_fail_error.json", kt_text(header, newest))

# Interrupted run: cut in the middle of the 15th record (14 complete records remain).
lines = text.split("\n")
first = lines.index('"cache": {') + 1
cut_line = lines[first + 14]
cut = "\n".join(lines[: first + 14]) + "\n" + cut_line[: len(cut_line) // 2]
write("kt_cut.json", cut)

# Broken JSON in the header: the comma after the first tile_size value removed.
broken = lines[:]
at = broken.index('"tile_size": [') + 1
broken[at] = broken[at].rstrip(",")
write("kt_malformed.json", "\n".join(broken))

# A cache record whose value is not in tune_params (block_size_x 33).
k, v = records[0]
bad_key = ",".join(["0", "33"] + k.split(",")[2:])
bad = dict(v, block_size_x=33)
write("kt_bad_value.json", kt_text(header, records[:3] + [(bad_key, bad)]))

write("empty.json", "")
write("not_a_dataset.json", json.dumps({"name": "something else", "values": [1, 2, 3]}, indent=2) + "\n")
with open("corrupt.json.gz", "wb") as f:
    f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(40)))

conv = load("kernel_tuner/convolution_milo/A100.json.gz")
conv_header = {k: v for k, v in conv.items() if k != "cache"}
conv_failed = [k for k, v in conv["cache"].items() if isinstance(v["time"], str)]
conv_keep = set(random.Random(3).sample([k for k in conv_failed if conv["cache"][k]["time"].startswith("Comp")], 2))
conv_keep |= set(random.Random(3).sample([k for k in conv_failed if conv["cache"][k]["time"].startswith("Run")], 2))
conv_keep |= {k for k, v in pick(conv["cache"], 12, 0, seed=3)}
conv_records = [(k, v) for k, v in conv["cache"].items() if k in conv_keep]
with gzip.open("kt_convolution.json.gz", "wt") as f:
    f.write(kt_text(conv_header, conv_records))

t4 = load("t4/convolution_milo_A100_T4.json.gz")
rng = random.Random(5)
ok = [r for r in t4["results"] if r["invalidity"] == "correct"]
bad_results = [r for r in t4["results"] if r["invalidity"] != "correct"]
compile_failed = [r for r in bad_results if r["invalidity"] == "compile"]
runtime_failed = [r for r in bad_results if r["invalidity"] == "runtime"]
chosen = rng.sample(ok, 8) + rng.sample(compile_failed, 2) + rng.sample(runtime_failed, 2)
ids = {id(r) for r in chosen}
t4_small = {k: v for k, v in t4.items() if k != "results"}
t4_small["results"] = [r for r in t4["results"] if id(r) in ids]
write("t4_convolution.json", json.dumps(t4_small) + "\n")

coulomb = load("t4/coulomb_2080_T4.json.gz")
c_small = {k: v for k, v in coulomb.items() if k != "results"}
c_small["results"] = coulomb["results"][:4]
write("t4_coulomb.json", json.dumps(c_small) + "\n")

ktt = load("ktt/KTPnpolyOutput_3090.json.gz")
rng = random.Random(11)
ok = [r for r in ktt["Results"] if r["Status"] == "Ok"]
failed_ktt = [r for r in ktt["Results"] if r["Status"] != "Ok"]
chosen = rng.sample(ok, 12) + rng.sample(failed_ktt, 3)
ids = {id(r) for r in chosen}
ktt_small = {k: v for k, v in ktt.items() if k != "Results"}
ktt_small["Results"] = [r for r in ktt["Results"] if id(r) in ids]
write("ktt_pnpoly.json", json.dumps(ktt_small) + "\n")
