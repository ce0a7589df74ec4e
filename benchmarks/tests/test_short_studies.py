"""The short-study set: each problem's stated optimum is reached where the construction says and
is not beaten by an independent search (random trials, then Nelder-Mead over the floats)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution
from scipy.optimize import minimize

from vpbo_benchmarks import short_studies
from vpbo_benchmarks.registry import GROUPS, PROBLEM_SETS, get_problem

# Where each optimum lies, written from the construction (not from the module's tables).
FIXED_ARGMIN: dict[str, dict[str, Any]] = {
    "layers_branch": {"n_layers": 3, "width1": 96, "width2": 256, "width3": 24, "dropout": 0.2},
    "model_choice": {"model": "boosting", "learning_rate": 10**-1.3, "n_rounds": 400, "subsample": 0.8},
    "powell_ints": {"variant": "b", "i1": 0, "i2": 0, "f3": 0.0, "f4": 0.0},
    "colville_stepped": {"precision": "fp32", "a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0},
}


def _holder_argmin() -> dict[str, Any]:
    """The heaviest weight's combination, at a Holder well."""
    k, s, f = np.unravel_index(np.argmax(short_studies.HM_WEIGHTS), short_studies.HM_WEIGHTS.shape)
    return {"kernel": short_studies.HM_KERNELS[k], "scale": short_studies.HM_SCALES[s], "flag": short_studies.HM_FLAGS[f],
            "x1": 8.05502347573655, "x2": 9.664590028909654}


def _alpine_argmin() -> dict[str, Any]:
    """The smallest offset's combination, at z = 0."""
    o, b = np.unravel_index(np.argmin(short_studies.AO_OFFSETS), short_studies.AO_OFFSETS.shape)
    optimizer, batch = short_studies.AO_OPTIMISERS[o], short_studies.AO_BATCHES[b]
    return {"optimizer": optimizer, "batch": batch, "lr": 10 ** short_studies.AO_LR_CENTRE[optimizer],
            "weight_decay": 10 ** (short_studies.AO_WD_SHIFT[batch] - 4.1), "momentum": 0.9, "warmup": 3}


def _bird_argmin() -> dict[str, Any]:
    """The cheapest switches, at a Bird well."""
    levels = min(itertools.product(range(3), repeat=5), key=short_studies.switch_cost)
    params = {f"s{i + 1}": short_studies.BS_LEVELS[c] for i, c in enumerate(levels)}
    return {**params, "x": 4.701043130195973, "y": 3.1529385037484228}


def _cosine_argmin() -> dict[str, Any]:
    """The smallest offset's combination, at its shift."""
    a, s = np.unravel_index(np.argmin(short_studies.CN_OFFSETS), short_studies.CN_OFFSETS.shape)
    shift = short_studies.CN_SHIFTS[a, s]
    return {"augment": short_studies.CN_AUGMENTS[a], "schedule": short_studies.CN_SCHEDULES[s],
            **{f"x{i + 1}": float(shift[i]) for i in range(4)}}


def _argmin(name: str) -> dict[str, Any]:
    if name in FIXED_ARGMIN:
        return FIXED_ARGMIN[name]
    return {"holder_modes": _holder_argmin, "alpine_optimiser": _alpine_argmin, "bird_switches": _bird_argmin,
            "cosine_noisy": _cosine_argmin}[name]()


def test_the_set_is_registered_with_its_rule() -> None:
    problem_set = PROBLEM_SETS["short_studies"]
    assert GROUPS["short_studies"] == problem_set.problems
    assert len(problem_set.problems) == 8 and problem_set.rule and problem_set.frozen


@pytest.mark.parametrize("name", [p.name for p in short_studies.SHORT_PROBLEMS])
def test_the_optimum_is_where_the_construction_puts_it(name: str) -> None:
    problem = short_studies.PROBLEMS_BY_NAME[name]
    params = _argmin(name)
    # The parameters are valid for the problem's own suggestions (a FixedTrial checks the ranges).
    assert problem.suggest(optuna.trial.FixedTrial(params)) == params
    assert problem.value(params) == pytest.approx(problem.optimum, abs=1e-9)


@pytest.mark.parametrize("name", [p.name for p in short_studies.SHORT_PROBLEMS])
def test_no_search_beats_the_optimum(name: str) -> None:
    problem = short_studies.PROBLEMS_BY_NAME[name]
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    study.optimize(lambda t: problem.value(problem.suggest(t)), n_trials=400)
    best = sorted(study.trials, key=lambda t: float(t.values[0]))[:5]
    for trial in best:
        distributions = {n: d for n, d in trial.distributions.items() if isinstance(d, FloatDistribution) and d.step is None}
        floats = list(distributions)
        bounds = [(d.low, d.high) for d in distributions.values()]

        def at(
            v: np.ndarray, trial: optuna.trial.FrozenTrial = trial, floats: list[str] = floats,
            bounds: list[tuple[float, float]] = bounds,
        ) -> float:
            params = dict(trial.params)
            for (n, (low, high)), x in zip(zip(floats, bounds), v):
                params[n] = float(np.clip(x, low, high))
            return problem.value(params)

        found = minimize(at, [trial.params[n] for n in floats], method="Nelder-Mead").fun if floats else trial.values[0]
        assert found >= problem.optimum - 1e-7
    assert min(float(t.values[0]) for t in best) > problem.optimum  # random trials do not land on it


def test_the_noisy_problem_reports_its_noiseless_value() -> None:
    problem = get_problem("cosine_noisy")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(problem.objective, n_trials=5)
    for trial in study.trials:
        noiseless = trial.user_attrs["noiseless_value"]
        assert trial.value != noiseless and math.isfinite(noiseless)
        assert abs(trial.value - noiseless) < 10 * short_studies.CN_NOISE_SD
