"""Tests of the problems flat on most of their space (vpbo_benchmarks/plateau_problems.py): each
combination's stated best against an independent search (``lab_testing``'s rule of these tests), and
what makes each problem hard."""

from __future__ import annotations

import math

import numpy as np
import optuna
import pytest

from lab_testing import pick, polish
from vpbo_benchmarks import held_out_sets
from vpbo_benchmarks import plateau_problems as plateaus

optuna.logging.set_verbosity(optuna.logging.ERROR)


def test_plateau_steps_every_combination_by_enumeration_and_grids() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["plateau_steps"]
    axes = (np.arange(1, 31), np.arange(1, 257), np.linspace(0.1, 1.0, 19), 10.0 ** np.linspace(-6.0, -1.0, 26))
    grid = dict(zip(("max_depth", "min_samples_leaf", "max_features", "ccp_alpha"), np.meshgrid(*axes, indexing="ij")))
    for c in problem.combinations():
        values = problem.value({**c, **grid})
        assert float(values.min()) == pytest.approx(problem.combination_best(c), abs=1e-12)
        counts = values * plateaus.PS_N_VALIDATION
        assert np.all(np.isclose(counts, np.round(counts)))  # whole counts


def test_plateau_steps_plateau_covers_most_of_the_space() -> None:
    rng = np.random.default_rng(7)
    n = 200_000
    params = {"criterion": "gini", "splitter": "best", "max_depth": rng.integers(1, 31, n),
              "min_samples_leaf": np.round(np.exp(rng.uniform(math.log(0.5), math.log(256.5), n))).clip(1, 256),
              "max_features": rng.uniform(0.1, 1.0, n), "ccp_alpha": 10.0 ** rng.uniform(-6.0, -1.0, n)}
    values = held_out_sets.PROBLEMS_BY_NAME["plateau_steps"].value(params)
    assert 0.7 <= float(np.mean(values == plateaus.PS_PLATEAU_COUNT / plateaus.PS_N_VALIDATION)) <= 0.9


def test_capped_easom_every_combination_by_every_step_and_a_grid() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["capped_easom"]
    fractions = np.arange(round(1.0 / plateaus.CE_FRACTION_STEP) + 1) * plateaus.CE_FRACTION_STEP
    log_rate = (math.log10(plateaus.CE_RATE[0]), math.log10(plateaus.CE_RATE[1]))
    x, u, f = np.meshgrid(np.linspace(0.0, 1.0, 201), np.linspace(*log_rate, 201), fractions, indexing="ij")
    for c in problem.combinations():
        values = problem.value({**c, "x": x, "rate": 10.0**u, "fraction": f})
        found = float(values.min())
        for index in np.argsort(values, axis=None)[:4]:
            fixed = {**c, "fraction": float(f.flat[index])}
            found = min(found, polish(lambda a, b, fixed=fixed: problem.value({**fixed, "x": a, "rate": 10.0**b}),
                                       [[x.flat[index], u.flat[index]]], [(0.0, 1.0), log_rate]))
        assert found >= problem.combination_best(c) - 1e-12, c
        assert found == pytest.approx(problem.combination_best(c), abs=1e-10), c


def test_capped_easom_plateau_covers_most_of_the_space() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["capped_easom"]
    rng = np.random.default_rng(13)
    n = 100_000
    shares = {}
    for c in problem.combinations():
        values = problem.value({**c, "x": rng.uniform(0.0, 1.0, n), "rate": 10.0 ** rng.uniform(-4.0, 0.0, n),
                                "fraction": rng.integers(0, 21, n) * plateaus.CE_FRACTION_STEP})
        shares[(c["width"], c["site"])] = float(np.mean(values < plateaus.CE_CAP))
    assert 0.85 <= 1.0 - float(np.mean(list(shares.values()))) <= 0.97
    best = pick(problem.best_point(), problem.combination_keys)
    assert 0.01 <= shares[(best["width"], best["site"])] <= 0.1 and best["width"] == "narrow"
