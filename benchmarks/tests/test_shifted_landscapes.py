"""Tests of the landscapes that categoricals move and reshape (vpbo_benchmarks/shifted_landscapes.py):
each combination's stated best against an independent search (``lab_testing``'s rule of these
tests), and what makes each problem hard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import optuna
import pytest

from lab_testing import best_and_random, random_mean, two_float_check
from vpbo_benchmarks import held_out_sets
from vpbo_benchmarks import noisy_problems as noisy
from vpbo_benchmarks import shifted_landscapes as shifted

optuna.logging.set_verbosity(optuna.logging.ERROR)


def test_rotated_griewank_every_combination_by_grid_and_lbfgsb() -> None:
    combinations = held_out_sets.PROBLEMS_BY_NAME["rotated_griewank"].combinations()
    two_float_check("rotated_griewank", [shifted.RG_BOUNDS] * 2, 801, combinations)


def test_decoy_funnel_every_combination_by_grid_and_lbfgsb() -> None:
    combinations = held_out_sets.PROBLEMS_BY_NAME["decoy_funnel"].combinations()
    two_float_check("decoy_funnel", [shifted.DF_BOUNDS] * 2, 801, combinations)


def test_lowrank_valley_best_and_sampled_combinations_by_grid_and_lbfgsb() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["lowrank_valley"]
    two_float_check("lowrank_valley", [shifted.LV_BOUNDS] * 2, 401, best_and_random(problem, 4, 8))


def test_hidden_pair_best_and_sampled_combinations_by_grid_and_lbfgsb() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["hidden_pair"]
    two_float_check("hidden_pair", [shifted.HP_BOUNDS] * 2, 481, best_and_random(problem, 4, 8))


def test_every_two_float_optimum_is_inside_the_bounds() -> None:
    for name, bounds in (
        ("rotated_griewank", [shifted.RG_BOUNDS] * 2), ("decoy_funnel", [shifted.DF_BOUNDS] * 2),
        ("hetero_branin", [noisy.HB_X1_BOUNDS, noisy.HB_X2_BOUNDS]),
        ("lowrank_valley", [shifted.LV_BOUNDS] * 2), ("hidden_pair", [shifted.HP_BOUNDS] * 2),
    ):
        centres: dict[str, Callable[[dict[str, Any]], np.ndarray]] = {
            "rotated_griewank": lambda c: shifted.rotated_griewank_argmin(c["angle"], c["stretch"]),
            "decoy_funnel": lambda c: shifted.decoy_funnel_centre(c["basin"], c["lens"]),
            "hetero_branin": lambda c: (
                np.array(noisy.BRANIN_ARGMIN) + noisy.hetero_branin_shift(c["device"], c["mode"])
            ),
            "lowrank_valley": lambda c: shifted.lowrank_valley_argmin(c["row"], c["col"]),
            "hidden_pair": lambda c: (
                np.array(shifted.HIMMELBLAU_ARGMIN) + shifted.hidden_pair_shift(c["p"], c["q"])
            ),
        }
        problem = held_out_sets.PROBLEMS_BY_NAME[name]
        for c in problem.combinations():
            x = centres[name](c)
            assert all(low <= v <= high for v, (low, high) in zip(x, bounds)), (name, c)
            assert float(problem.value({**c, "x1": x[0], "x2": x[1]})) == pytest.approx(problem.combination_best(c), abs=1e-9)


def test_decoy_funnel_best_combination_is_a_needle_worse_on_average() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["decoy_funnel"]

    def uniform(rng: np.random.Generator, size: int) -> dict[str, np.ndarray]:
        return {"x1": rng.uniform(-1, 1, size), "x2": rng.uniform(-1, 1, size)}

    means = {tuple(c.values()): random_mean(problem, c, uniform) for c in problem.combinations()}
    best = tuple(min(problem.combinations(), key=problem.combination_best).values())
    assert sorted(means.values()).index(means[best]) >= len(means) // 2  # in the worse half on average
    # The basin: under 1 % of uniform points come within 0.05 of the best combination's optimum value + 0.1.
    rng = np.random.default_rng(3)
    values = problem.value({**dict(zip(("basin", "lens"), best)), **uniform(rng, 100_000)})
    assert np.mean(values < problem.combination_best(dict(zip(("basin", "lens"), best))) + 0.1) < 0.01


def test_hidden_pair_is_not_where_the_marginals_point() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["hidden_pair"]
    offsets = np.array([[problem.combination_best({"p": p, "q": q}) for q in range(16)] for p in range(16)])
    best = np.unravel_index(np.argmin(offsets), offsets.shape)
    marginal_best = (int(np.argmin(np.median(offsets, axis=1))), int(np.argmin(np.median(offsets, axis=0))))
    assert marginal_best != tuple(int(v) for v in best)
    assert offsets[marginal_best] - offsets[best] >= shifted.HP_MARGIN - 1e-12
    # Both levels of the hidden pair are mid-ranked in their marginals.
    assert 4 <= np.argsort(np.argsort(np.median(offsets, axis=1)))[best[0]] <= 11
    assert 4 <= np.argsort(np.argsort(np.median(offsets, axis=0)))[best[1]] <= 11
