#!/usr/bin/env python3
"""Offline check: which regressor ranks a replayed space best when it has seen only a few valid configs?

Trains a Gaussian process (Matern 5/2, one length scale per parameter), gradient boosting and extra trees on
N random valid configs of each Kernel Tuner cache file (log time; features: log2 of positive parameters, scaled
to [0, 1]), then reports the fraction of optimum of the best among the training configs and the model's top 8
over the whole valid space (what a model-guided strategy would measure next). Benchmark-only dependencies:
pip install numpy scikit-learn (docs/benchmarks.md, "Variants of xgb tried").

    python3 scripts/bench_small_data_models.py FILE.json.gz ... [--sizes 5,10,20,40,80] [--seeds 6]
"""

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers.datasets import Dataset  # noqa: E402


def load(path):
    """Parameter values (the parameters that vary) and times of the valid configs, read by the peers' reader."""
    dataset = Dataset(path)
    varying = [i for i, k in enumerate(dataset.keys) if len(dataset.tune_params[k]) > 1]
    rows = [dataset.values_of_key(key) for key in dataset.times]
    x = np.array([[row[i] for i in varying] for row in rows], dtype=float)
    return x, np.array(list(dataset.times.values()))


def features(x):
    columns = []
    for j in range(x.shape[1]):
        col = np.log2(x[:, j]) if (x[:, j] > 0).all() else x[:, j]
        lo, hi = col.min(), col.max()
        columns.append((col - lo) / (hi - lo if hi > lo else 1.0))
    return np.array(columns).T


def model(name, width, seed):
    from sklearn.ensemble import ExtraTreesRegressor, GradientBoostingRegressor
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    if name == "gp":
        kernel = ConstantKernel(1.0) * Matern(np.ones(width), (0.05, 20), nu=2.5) + WhiteKernel(0.01, (1e-4, 1))
        return GaussianProcessRegressor(kernel, normalize_y=True, n_restarts_optimizer=2, random_state=seed)
    if name == "boosting":
        return GradientBoostingRegressor(n_estimators=40, max_depth=4, learning_rate=0.3, random_state=seed)
    return ExtraTreesRegressor(100, random_state=seed)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--sizes", default="5,10,20,40,80")
    ap.add_argument("--seeds", type=int, default=6)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    warnings.filterwarnings("ignore")
    for path in args.files:
        if not os.path.exists(path):
            raise SystemExit(f"{path}: no such file")
    names = ("gp", "boosting", "extra_trees")
    print("file".ljust(34) + "".join(f"{n}:{m}".rjust(16) for n in sizes for m in names))
    for path in args.files:
        x, t = load(path)
        z, y, best = features(x), np.log(t), t.min()
        cells = []
        for n in sizes:
            if n >= len(t):
                raise SystemExit(f"{path}: only {len(t)} valid configs, cannot train on {n}")
            for name in names:
                fractions = []
                for seed in range(args.seeds):
                    seen = np.random.default_rng(seed).choice(len(t), n, replace=False)
                    predicted = model(name, z.shape[1], seed).fit(z[seen], y[seen]).predict(z)
                    predicted[seen] = np.inf
                    top = np.argsort(predicted)[:8]
                    fractions.append(best / min(t[top].min(), t[seen].min()))
                cells.append(f"{np.mean(fractions):.3f}".rjust(16))
        print("/".join(path.split("/")[-2:]).ljust(34) + "".join(cells))


if __name__ == "__main__":
    main()
