"""The paper's Oracle (sec. 5.1, after Gopakumar et al. 2018): one BO run per combination.

For each categorical combination c, one study optimises the numeric part alone with the
categoricals fixed (``PartialFixedSampler``), for the full number of trials and with its own GP:
by default a ``VPBOSampler`` with ``vpbo-v4``'s pinned settings (:mod:`.vpbo_variants`), which on
a space without categoricals is GP-EI (Matern ARD GP, log EI maximised over quasi-random
candidates and refined by L-BFGS-B, an initial design of random and MES points). The Oracle's
value after t trials is the best over the combinations of each run's best value after t trials:
the best that knowing the right combination in advance could give.

Simplification: the runs refit their hyperparameters on VPBOSampler's schedule where the paper
refits at every iteration; pass ``make_sampler`` to change the runs' sampler.

``oracle_record`` stores the trace in the runner's record format (``values``, ``params`` of the
incumbent, ``sampler_seconds`` summed over the runs) so that ``report`` reads it as the sampler
"oracle" (``python -m vpbo_benchmarks run --samplers oracle``), plus each combination's
best trial (``combination_best``), which ranks the arms for the report's arm figures.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution
from optuna.samplers import BaseSampler, PartialFixedSampler, RandomSampler

from optuna_vpbo import VPBOSampler
from vpbo_benchmarks.problem import MINIMIZE, Problem
from vpbo_benchmarks.registry import get_problem
from vpbo_benchmarks.samplers import TimedSampler
from vpbo_benchmarks.vpbo_variants import ORACLE_REFERENCE, reference_settings

ORACLE = "oracle"
# One full BO run per combination: beyond this many the Oracle is not run.
MAX_ORACLE_COMBINATIONS = 256


def default_oracle_sampler(seed: int) -> BaseSampler:
    settings = reference_settings(ORACLE_REFERENCE)
    return VPBOSampler(seed=seed, settings=settings, warn_independent_sampling=False)


@dataclasses.dataclass(frozen=True)
class CombinationRun:
    """One BO run with the categoricals fixed to ``fixed``: values, parameters and sampler
    seconds per trial."""

    fixed: dict[str, Any]
    values: np.ndarray
    params: list[dict[str, Any]]
    sampler_seconds: np.ndarray


def categorical_combinations(problem: Problem) -> list[dict[str, Any]]:
    """Every assignment of the problem's categorical parameters (found by one random trial)."""
    probe = optuna.create_study(directions=list(problem.directions), sampler=RandomSampler(seed=0))
    probe.optimize(problem.objective, n_trials=1)
    categoricals = {
        name: dist.choices
        for name, dist in probe.trials[0].distributions.items()
        if isinstance(dist, CategoricalDistribution)
    }
    names = sorted(categoricals)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*(categoricals[n] for n in names))]


def _as_problem(problem: str | Problem) -> Problem:
    return get_problem(problem) if isinstance(problem, str) else problem


def _run_seed(seed: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def run_combination(
    problem: Problem, fixed: dict[str, Any], n_trials: int, seed: int, make_sampler: Callable[[int], BaseSampler]
) -> CombinationRun:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = TimedSampler(PartialFixedSampler(fixed, make_sampler(seed)))
    study = optuna.create_study(directions=list(problem.directions), sampler=sampler)
    study.optimize(problem.objective, n_trials=n_trials)
    trials = study.get_trials(deepcopy=False)
    values = np.array([t.value if t.value is not None else np.nan for t in trials], dtype=np.float64)
    seconds = np.array([sampler.seconds.get(t.number, 0.0) for t in trials])
    return CombinationRun(fixed, values, [t.params for t in trials], seconds)


def oracle_runs(
    problem: str | Problem,
    n_trials: int,
    seed: int,
    *,
    make_sampler: Callable[[int], BaseSampler] = default_oracle_sampler,
) -> list[CombinationRun]:
    """One run per combination of a single-objective problem (see the module docstring)."""
    problem = _as_problem(problem)
    if len(problem.directions) != 1:
        raise ValueError(f"The Oracle needs a single-objective problem; {problem.name} has {len(problem.directions)}.")
    if problem.n_combinations > MAX_ORACLE_COMBINATIONS:
        raise ValueError(f"{problem.name} has {problem.n_combinations} combinations; the Oracle runs one BO each.")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    return [
        run_combination(problem, fixed, n_trials, _run_seed(seed, i), make_sampler)
        for i, fixed in enumerate(categorical_combinations(problem))
    ]


def best_so_far(values: np.ndarray, direction: str) -> np.ndarray:
    """Best value after each trial (failed trials, NaN, keep the previous best)."""
    sign = 1.0 if direction == MINIMIZE else -1.0
    return sign * np.minimum.accumulate(np.where(np.isnan(values), np.inf, sign * values))


def combine(runs: list[CombinationRun], direction: str) -> tuple[np.ndarray, np.ndarray]:
    """The Oracle's best value after each trial and the run that holds it."""
    sign = 1.0 if direction == MINIMIZE else -1.0
    per_run = np.array([sign * best_so_far(run.values, direction) for run in runs])
    winner = np.argmin(per_run, axis=0)
    return sign * per_run[winner, np.arange(per_run.shape[1])], winner


def oracle_trace(problem_name: str | Problem, n_trials: int, seed: int, **kwargs: Any) -> np.ndarray:
    """The Oracle's best objective value after each of ``n_trials`` trials."""
    problem = _as_problem(problem_name)
    return combine(oracle_runs(problem, n_trials, seed, **kwargs), problem.directions[0])[0]


def _incumbent_params(run: CombinationRun, t: int, direction: str) -> dict[str, Any]:
    sign = 1.0 if direction == MINIMIZE else -1.0
    scores = np.where(np.isnan(run.values[: t + 1]), np.inf, sign * run.values[: t + 1])
    return run.params[int(np.argmin(scores))]


def oracle_record(problem_name: str | Problem, n_trials: int, seed: int, **kwargs: Any) -> dict[str, Any]:
    """The Oracle as a run of the sampler "oracle", in the runner's record format."""
    start = time.perf_counter()
    problem = _as_problem(problem_name)
    direction = problem.directions[0]
    runs = oracle_runs(problem, n_trials, seed, **kwargs)
    trace, winner = combine(runs, direction)
    return {
        "problem": problem.name,
        "sampler": ORACLE,
        "seed": seed,
        "n_trials": n_trials,
        "values": [[float(v)] for v in trace],
        "params": [_incumbent_params(runs[w], t, direction) for t, w in enumerate(winner)],
        "sampler_seconds": [float(s) for s in np.sum([run.sampler_seconds for run in runs], axis=0)],
        "wall_seconds": time.perf_counter() - start,
        "n_combinations": len(runs),
        "combination_best": [_combination_best(run, direction) for run in runs],
    }


def _combination_best(run: CombinationRun, direction: str) -> dict[str, Any]:
    """The best trial of one combination's run: its parameters and value."""
    params = _incumbent_params(run, len(run.values) - 1, direction)
    return {"params": params, "value": float(run.values[run.params.index(params)])}
