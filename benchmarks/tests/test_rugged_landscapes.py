"""Tests of the rugged landscapes (vpbo_benchmarks/rugged_landscapes.py): each combination's stated
best against an independent search (``lab_testing``'s rule of these tests), and what makes each
problem hard."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import optuna
import pytest
from scipy.optimize import minimize

from lab_testing import assert_additive, grid_then_polish, line_block, pick, separable_minimum, slice_of
from vpbo_benchmarks import held_out_sets
from vpbo_benchmarks import rugged_landscapes as rugged

optuna.logging.set_verbosity(optuna.logging.ERROR)


def test_shubert_pairs_every_combination_by_pair_grids() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["shubert_pairs"]
    rng = np.random.default_rng(8)
    for c in problem.combinations():
        a, b = ({**c, **dict(zip(rugged.SP_FLOATS, rng.uniform(0.0, 1.0, 4)))} for _ in range(2))
        pairs = [[rugged.SP_FLOATS[i] for i in pair] for pair in rugged.SP_PAIRINGS[c["pairing"]]]
        assert_additive(problem.value, a, b, pairs[0])

        def pair_minimum(names: Sequence[str], c: Mapping[str, Any] = c, a: Mapping[str, Any] = a) -> float:
            return grid_then_polish(lambda u, v: problem.value({**a, names[0]: u, names[1]: v}), [(0.0, 1.0)] * 2, 401, 8)

        found = separable_minimum(problem.value, a, [functools.partial(pair_minimum, names) for names in pairs])
        assert found >= problem.combination_best(c) - 1e-9, c
        assert found == pytest.approx(problem.combination_best(c), abs=1e-8), c


def test_weierstrass_grain_every_combination_by_line_searches() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["weierstrass_grain"]
    rng = np.random.default_rng(9)
    low, high = (math.log10(v) for v in rugged.WG_RATE_BOUNDS)
    for c in problem.combinations():
        a, b = ({**c, "x1": u[0], "x2": u[1], "rate": 10.0 ** (low * u[2])} for u in rng.uniform(0.0, 1.0, (2, 3)))
        for name in ("x1", "x2", "rate"):
            assert_additive(problem.value, a, b, [name])
        blocks = [line_block(slice_of(problem.value, a, n), 0.0, 1.0) for n in ("x1", "x2")]
        blocks.append(line_block(slice_of(problem.value, a, "rate", lambda u: 10.0**u), low, high))
        found = separable_minimum(problem.value, a, blocks)
        assert found >= problem.combination_best(c) - 1e-12, c
        assert found == pytest.approx(problem.combination_best(c), abs=1e-9), c


def test_shubert_pairs_best_combination_is_reached_by_few_local_searches() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["shubert_pairs"]
    c = pick(problem.best_point(), problem.combination_keys)
    best = problem.combination_best(c)
    ends = []
    for start in np.random.default_rng(11).uniform(0.0, 1.0, (150, 4)):
        result = minimize(lambda x: float(problem.value({**c, **dict(zip(rugged.SP_FLOATS, x))})), start, method="L-BFGS-B",
                          bounds=[(0.0, 1.0)] * 4)
        ends.append(float(result.fun) - best)
    assert len({round(e, 4) for e in ends}) >= 30  # many local minima
    assert 0 < sum(e < 1e-6 for e in ends) <= 0.05 * len(ends)
    # The six best combinations share the widest window; every combination's factors span less than a period.
    ranked = sorted(problem.combinations(), key=problem.combination_best)
    assert {q["window"] for q in ranked[:6]} == {"wide"} and max(rugged.SP_WINDOWS.values()) < 2 * math.pi


def test_weierstrass_grain_terms_are_rough_and_the_best_grain_is_not_the_roughest() -> None:
    grid = np.linspace(-0.5, 0.5, 2_000_001)
    counts = {}
    for grain, a in rugged.WG_GRAINS.items():
        term = rugged.weierstrass_term(grid, a)
        counts[grain] = int(np.sum((term[1:-1] < term[:-2]) & (term[1:-1] < term[2:])))
    assert counts["fine"] >= 100 and counts["fine"] < counts["medium"] < counts["coarse"]
    best = held_out_sets.PROBLEMS_BY_NAME["weierstrass_grain"].best_point()["grain"]
    assert best == "medium"
