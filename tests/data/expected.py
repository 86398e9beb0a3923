#!/usr/bin/env python3
"""Independent check of the numbers TestDatasets asserts for the fixtures in this folder.

For each fixture: product of the parameter value counts, entries (distinct configs present), Ok count,
fastest Ok time (ms) and the failure statuses. Written without looking at the C++ reader.
"""
import gzip
import json
import math

UNIT_MS = {"": 1.0, "miliseconds": 1.0, "milliseconds": 1.0, "ms": 1.0, "microseconds": 1e-3, "us": 1e-3}


def load_text(name):
    opener = gzip.open if name.endswith(".gz") else open
    with opener(name, "rt") as f:
        return f.read()


def kt_status(record):
    text = record.get("__error__", record.get("time"))
    if isinstance(text, (int, float)) and "__error__" not in record:
        return "ok" if text < 1e20 else "runtime_failed"
    for marker, status in (("CompilationFailed", "compile_failed"), ("RuntimeFailed", "runtime_failed"),
                           ("InvalidConfig", "invalid")):
        if marker in str(text):
            return status
    return "runtime_failed"


def kernel_tuner(name, data):
    params = data["tune_params"]
    product = math.prod(len(v) for v in params.values())
    configs = {}
    for key, record in data["cache"].items():
        configs[tuple(float(record[p]) for p in data["tune_params_keys"])] = record
    statuses = [kt_status(r) for r in configs.values()]
    ok = [r["time"] for r in configs.values() if kt_status(r) == "ok"]
    report(name, product, len(configs), ok, statuses)


def cut_cache(name):
    """Kernel Tuner writes one cache record per line: keep the lines that parse on their own."""
    lines = load_text(name).split("\n")
    start = lines.index('"cache": {')
    header = json.loads("\n".join(lines[:start]) + '\n"cache": {}}')
    cache = {}
    for line in lines[start + 1:]:
        line = line.rstrip().rstrip(",")
        try:
            cache.update(json.loads("{" + line + "}"))
        except json.JSONDecodeError:
            break
    header["cache"] = cache
    kernel_tuner(name, header)


def results_file(name, rows):
    """rows: (config dict, status, ms or None)."""
    names = list(rows[0][0])
    product = math.prod(len({row[0][n] for row in rows}) for n in names)
    configs = {tuple(row[0][n] for n in names): row for row in rows}
    ok = [row[2] for row in configs.values() if row[1] == "ok"]
    report(name, product, len(configs), ok, [row[1] for row in configs.values()])


def t4(name):
    data = json.loads(load_text(name))
    default = UNIT_MS[data.get("metadata", {}).get("timeunit", "").lower()]
    statuses = {"correct": "ok", "compile": "compile_failed", "runtime": "runtime_failed",
                "correctness": "wrong_result", "constraints": "invalid", "timeout": "timeout"}
    rows = []
    for r in data["results"]:
        objective = r.get("objectives", ["time"])[0]
        m = next(m for m in r["measurements"] if m["name"] == objective)
        scale = UNIT_MS[m["unit"].lower()] if m["unit"] else default
        status = statuses[r["invalidity"]]
        rows.append((r["configuration"], status, m["value"] * scale if status == "ok" else None))
    results_file(name, rows)


def ktt(name):
    data = json.loads(load_text(name))
    statuses = {"Ok": "ok", "ComputationFailed": "runtime_failed", "CompilationFailed": "compile_failed",
                "ValidationFailed": "wrong_result"}
    rows = []
    for r in data["Results"]:
        config = {p["Name"]: p["Value"] for p in r["Configuration"]}
        rows.append((config, statuses[r["Status"]], r["TotalDuration"] / 1000.0))
    results_file(name, rows)


def report(name, product, entries, ok, statuses):
    counts = {s: statuses.count(s) for s in sorted(set(statuses))}
    fastest = min(ok) if ok else None
    print(f"{name}: product {product}, entries {entries}, ok {len(ok)}, fastest {fastest!r} ms, {counts}")


for fixture in ["kt_pnpoly.json", "kt_convolution.json.gz", "kt_fail_1e20.json", "kt_fail_string.json",
                "kt_fail_error.json"]:
    kernel_tuner(fixture, json.loads(load_text(fixture)))
cut_cache("kt_cut.json")
t4("t4_convolution.json")
t4("t4_coulomb.json")
ktt("ktt_pnpoly.json")
try:
    json.loads(load_text("kt_malformed.json"))
except json.JSONDecodeError as error:
    print(f"kt_malformed.json: parse error at line {error.lineno}")
