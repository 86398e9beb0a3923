"""Run one Kernel Tuner 1.5 strategy in simulation mode on a cache file and return its evaluation order.

Kernel Tuner is used as shipped (its own strategies, runner, budget accounting and default strategy options);
the only things this module adds are
  * product mode: the cache handed to the SimulationRunner answers for every config of the cartesian product.
    A config absent from the file is returned as an InvalidConfig failure (Kernel Tuner 1.5 would otherwise
    raise ValueError, as no restrictions are passed). The runner then counts it against max_fevals on its first
    visit like any cached failure, which is Tunescope's product-mode rule.
  * constrained mode: restrictions = "the config is in the cache file", so Kernel Tuner's search space is
    exactly the configs that were measured (valid or failed).
  * seeding: random.seed / numpy.random.seed per run, plus a seed for the Latin hypercube sampler of
    bayes_opt (scipy's qmc engines draw fresh OS entropy when no seed is given).
  * a log of every cache lookup the runner makes, to check that the results list is the evaluation order.
  * strategy "bayes_opt+fix" only: Kernel Tuner's bayes_opt with its invalid-value check mended. Its cost
    function returns sys.float_info.max for a failed config while the strategy only treats 1e20 as invalid,
    so as shipped every failure enters the Gaussian process as a valid observation (docs/peers.md). The fix
    hands the strategy its own invalid value instead, for any cost of 1e20 or more; nothing else changes.
"""

import contextlib
import functools
import os
import random
import time
import warnings

import numpy as np

# Strategies whose behaviour before the budget runs out depends on max_fevals itself (see docs/peers.md).
BUDGET_ADAPTIVE = {"simulated_annealing", "dual_annealing"}

_KERNEL_SOURCE = "// simulation mode: the kernel is never compiled\n__global__ void {name}() {{}}\n"


class _LoggingCache(dict):
    """The cache dict Kernel Tuner's SimulationRunner reads; records every lookup (one per evaluation)."""

    def __init__(self, base, dataset, log, product):
        super().__init__(base)
        self._dataset = dataset
        self._log = log
        self._product = product

    def __contains__(self, key):
        if dict.__contains__(self, key):
            return True
        return self._product and self._dataset.in_product(key)

    def __getitem__(self, key):
        self._log.append(key)
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        if not self._product:
            raise KeyError(key)
        from kernel_tuner.util import InvalidConfig

        values = self._dataset.values_of_key(key)
        if values is None:
            raise KeyError(key)
        rec = dict(zip(self._dataset.keys, values))
        rec["__error__"] = InvalidConfig()
        return rec


FIXED_SUFFIX = "+fix"


@contextlib.contextmanager
def _bayes_opt_invalid_fix(bayes_opt):
    """Let bayes_opt see failed configs as the invalid value it checks for (1e20), not sys.float_info.max."""
    cls = bayes_opt.BayesianOptimization
    single, parallel = cls.evaluate_objective_function, cls.evaluate_parallel_objective_function

    def mend(self, value):
        return self.invalid_value if value is not None and value >= self.invalid_value else value

    cls.evaluate_objective_function = lambda self, c: mend(self, single(self, c))
    cls.evaluate_parallel_objective_function = lambda self, cs: [mend(self, v) for v in parallel(self, cs)]
    try:
        yield
    finally:
        cls.evaluate_objective_function, cls.evaluate_parallel_objective_function = single, parallel


def _result_key(dataset, result):
    return dataset.key_of(result)


def run(dataset, plain_path, strategy, seed, max_fevals, space="product"):
    """Return (configs in evaluation order as cache keys, info dict)."""
    import kernel_tuner
    import kernel_tuner.util as ktu
    from kernel_tuner.strategies import bayes_opt

    log = []
    original_process_cache = ktu.process_cache

    def process_cache(cachefile, kernel_options, tuning_options, runner):
        base = original_process_cache(cachefile, kernel_options, tuning_options, runner)
        return _LoggingCache(base, dataset, log, product=(space == "product"))

    original_lhs = bayes_opt.LatinHypercube
    ktu.process_cache = process_cache
    bayes_opt.LatinHypercube = functools.partial(original_lhs, rng=np.random.default_rng(seed))
    random.seed(seed)
    np.random.seed(seed % (2**32))

    restrictions = None
    if space == "constrained":
        measured = set(dataset.cache.keys())
        keys = dataset.keys

        def in_file(p):  # a def, not a lambda: Kernel Tuner rewrites lambdas into constraint strings
            return ",".join(str(p[k]) for k in keys) in measured

        restrictions = [in_file]

    fixed = strategy.endswith(FIXED_SUFFIX)
    if fixed:
        if strategy != "bayes_opt" + FIXED_SUFFIX:
            raise ValueError(f"kt:{strategy}: only bayes_opt has a mended variant")
        strategy = strategy[: -len(FIXED_SUFFIX)]
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(), (_bayes_opt_invalid_fix(bayes_opt) if fixed else contextlib.nullcontext()):
            warnings.simplefilter("ignore")
            results, env = kernel_tuner.tune_kernel(
                dataset.kernel_name,
                _KERNEL_SOURCE.format(name=dataset.kernel_name),
                dataset.problem_size,
                [],
                dataset.tune_params,
                lang="CUDA",
                restrictions=restrictions,
                strategy=strategy,
                strategy_options={"max_fevals": max_fevals},
                simulation_mode=True,
                cache=plain_path,
                objective=dataset.objective,
                quiet=True,
                verbose=False,
            )
    finally:
        ktu.process_cache = original_process_cache
        bayes_opt.LatinHypercube = original_lhs
    wall = time.perf_counter() - t0

    configs = [_result_key(dataset, r) for r in results]
    if configs != log:
        raise RuntimeError(
            f"kt:{strategy} on {dataset.path} seed {seed}: results list ({len(configs)}) differs from the "
            f"runner's lookups ({len(log)})"
        )
    return configs, {"wall_s": wall}
