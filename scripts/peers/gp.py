"""Optuna GPSampler over the cartesian product of a Kernel Tuner cache file's tune_params, on an ordinal encoding.

Each parameter is an integer index into its sorted tune_params list (trial.suggest_int(k, 0, n - 1)): the
encoding Optuna's AutoSampler hands GPSampler for numeric spaces, where neighbouring values are neighbouring
indices. The objective is the log of the cache's time, told as deterministic (deterministic_objective=True). A
config absent from the cache or failed in it is infeasible: its constraint value is 1 (Optuna's
constraints_func, which GPSampler models with its own GP), and its objective is the worst log time seen so far
(0 before any), so the objective model is never fed infinities. Duplicates are told their known value and do
not count against the budget; the run stops once `budget` unique configs have been evaluated (or after
50 x budget trials). Needs torch and scipy (pip install torch scipy), for this benchmark only.
"""

import math
import time


def _ordered(values):
    try:
        return sorted(values)
    except TypeError:  # mixed types: keep the file's order
        return list(values)


def run(dataset, seed, budget):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    lists = {k: _ordered(dataset.tune_params[k]) for k in dataset.keys}
    infeasible = set()

    def constraints(frozen):
        return [1.0 if frozen.number in infeasible else -1.0]

    sampler = optuna.samplers.GPSampler(seed=seed, deterministic_objective=True, constraints_func=constraints)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    seen = {}
    configs = []
    worst = None
    limit = min(budget, dataset.product_size)
    t0 = time.perf_counter()
    trials = 0
    while len(seen) < limit and trials < 50 * budget:
        trial = study.ask()
        values = [lists[k][trial.suggest_int(k, 0, len(lists[k]) - 1)] for k in dataset.keys]
        key = ",".join(str(v) for v in values)
        configs.append(key)
        if key not in seen:
            t = dataset.time(key)
            seen[key] = None if t is None or t <= 0 else math.log(t)
            if seen[key] is not None:
                worst = seen[key] if worst is None else max(worst, seen[key])
        value = seen[key]
        if value is None:
            infeasible.add(trial.number)
            value = 0.0 if worst is None else worst
        study.tell(trial, value)
        trials += 1
    return configs, {"wall_s": time.perf_counter() - t0}
