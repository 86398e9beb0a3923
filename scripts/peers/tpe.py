"""Optuna TPE over the cartesian product of a Kernel Tuner cache file's tune_params.

Each parameter is a categorical choice (trial.suggest_categorical with the tune_params list), the objective is
the cache's time; a config absent from the cache or failed in it returns float('inf') (a completed trial with the
worst possible value, so TPE puts it in its "bad" group). Optuna can suggest a config it has already tried; the
objective is deterministic, so the known value is told again and the duplicate does not count against the
budget. The run stops once `budget` unique configs have been evaluated (or after 50 x budget trials).
"""

import math
import time


def run(dataset, seed, budget):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    seen = {}
    configs = []
    limit = min(budget, dataset.product_size)
    t0 = time.perf_counter()
    trials = 0
    while len(seen) < limit and trials < 50 * budget:
        trial = study.ask()
        values = [trial.suggest_categorical(k, dataset.tune_params[k]) for k in dataset.keys]
        key = ",".join(str(v) for v in values)
        configs.append(key)
        if key not in seen:
            t = dataset.time(key)
            seen[key] = math.inf if t is None else t
        study.tell(trial, seen[key])
        trials += 1
    return configs, {"wall_s": time.perf_counter() - t0}
