"""Reading Kernel Tuner cache files for the peer benchmark (no Kernel Tuner import needed here)."""

import gzip
import json
import math
import os

# Failure encodings of Kernel Tuner cache files (see /work/shared/datasets/MANIFEST.md).
ERROR_STRINGS = {"ErrorConfig", "InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig"}
FAILED_TIME = 1e20


def read_text(path):
    if path.endswith(".gz"):
        with gzip.open(path, "rt") as f:
            return f.read()
    with open(path) as f:
        return f.read()


def parse_cache_text(text):
    """Parse a cache file, repairing one cut off by an interrupted run (as Kernel Tuner itself does)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        s = text.strip()
        if s.endswith(","):
            s = s[:-1]
        return json.loads(s + "}\n}")


def config_key(values):
    """Kernel Tuner cache key: str() of each value, joined by commas, in tune_params_keys order."""
    return ",".join(str(v) for v in values)


class Dataset:
    """One Kernel Tuner cache file: its space (the product of tune_params) and objective per config."""

    def __init__(self, path):
        self.path = path
        data = parse_cache_text(read_text(path))
        self.raw = data
        self.kernel_name = data["kernel_name"]
        self.device_name = data.get("device_name", "")
        self.problem_size = data.get("problem_size")
        self.objective = data.get("objective") or "time"
        self.keys = list(data["tune_params_keys"])
        self.tune_params = {k: list(data["tune_params"][k]) for k in self.keys}
        self.product_size = math.prod(len(v) for v in self.tune_params.values())
        self.cache = data["cache"]
        self.times = {}  # key -> objective (ms) for valid configs only
        for key, rec in self.cache.items():
            if self.is_valid_record(rec):
                self.times[key] = float(rec[self.objective])
        self.optimum = min(self.times.values()) if self.times else math.inf
        # str(value) -> value, per parameter, to turn a key back into values
        self._from_str = [{str(v): v for v in self.tune_params[k]} for k in self.keys]

    def is_valid_record(self, rec):
        if "__error__" in rec:
            return False
        t = rec.get(self.objective)
        if isinstance(t, bool) or not isinstance(t, (int, float)):
            return False  # string failure marker or missing
        for v in rec.values():
            if isinstance(v, str) and v in ERROR_STRINGS:
                return False
        return math.isfinite(t) and t < FAILED_TIME

    def key_of(self, params):
        """Key of a config given as a dict name -> value."""
        return config_key(params[k] for k in self.keys)

    def values_of_key(self, key):
        parts = key.split(",")
        if len(parts) != len(self.keys):
            return None
        try:
            return [m[p] for m, p in zip(self._from_str, parts)]
        except KeyError:
            return None

    def in_product(self, key):
        return self.values_of_key(key) is not None

    def time(self, key):
        """Objective of a config, or None if it is absent from the cache or failed there."""
        return self.times.get(key)

    def write_plain_copy(self, directory):
        """Write an uncompressed copy for Kernel Tuner (which wants a plain .json path); return its path."""
        parent = os.path.basename(os.path.dirname(os.path.abspath(self.path)))
        base = os.path.basename(self.path)
        for suffix in (".gz", ".json"):
            if base.endswith(suffix):
                base = base[: -len(suffix)]
        out = os.path.join(directory, f"{parent}__{base}.json")
        with open(out, "w") as f:
            json.dump(self.raw, f)
        return out
