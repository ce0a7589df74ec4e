"""Tests of the integer spaces (vpbo_benchmarks/integer_lattices.py): each combination's stated best
against an independent search (``lab_testing``'s rule of these tests), and what makes each problem
hard."""

from __future__ import annotations

import itertools
import math

import numpy as np
import optuna
import pytest
from scipy.optimize import minimize_scalar

from lab_testing import observed
from vpbo_benchmarks import held_out_sets
from vpbo_benchmarks import integer_lattices as lattices

optuna.logging.set_verbosity(optuna.logging.ERROR)


def test_tilted_lattice_by_full_enumeration() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["tilted_lattice"]
    k = np.arange(lattices.TL_K_BOUNDS[0], lattices.TL_K_BOUNDS[1] + 1)
    n = np.arange(lattices.TL_N_BOUNDS[0], lattices.TL_N_BOUNDS[1] + 1)
    log10_alpha = np.linspace(-6.0, 0.0, 600_001)
    rounded_differs = 0
    for c in problem.combinations():
        point, stated = lattices.tilted_lattice_best(c["scheme"])
        assert stated == problem.combination_best(c)
        # The value is a sum of a (k1, k2), an n and an alpha term: each group over its whole range.
        k1, k2 = np.meshgrid(k, k, indexing="ij")
        lattice = problem.value({**point, "k1": k1, "k2": k2})
        assert float(lattice.min()) == pytest.approx(stated, abs=1e-12)
        assert (int(k1.flat[lattice.argmin()]), int(k2.flat[lattice.argmin()])) == (point["k1"], point["k2"])
        assert float(problem.value({**point, "n": n}).min()) == pytest.approx(stated, abs=1e-12)
        alpha_grid = problem.value({**point, "alpha": 10.0**log10_alpha})
        start = log10_alpha[alpha_grid.argmin()]
        polished = minimize_scalar(
            lambda v, point=point: float(problem.value({**point, "alpha": 10.0**v})), bounds=(start - 1e-5, start + 1e-5),
            method="bounded", options={"xatol": 1e-12},
        )
        assert min(float(alpha_grid.min()), float(polished.fun)) == pytest.approx(stated, abs=1e-12)
        assert float(alpha_grid.min()) >= stated - 1e-12
        centre = lattices.tilted_lattice_tables()["centre"][c["scheme"]]
        rounded_differs += tuple(np.round(centre).astype(int)) != (point["k1"], point["k2"])
        assert point["n"] & (point["n"] - 1) != 0  # the best n is not a power of two
    assert rounded_differs >= 1  # rounding the continuous optimum is not enough somewhere


def test_tile_autotune_by_full_enumeration_through_the_objective() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["tile_autotune"]
    ranges = [range(low, high + 1) for low, high in (lattices.TA_TILE, lattices.TA_UNROLL, lattices.TA_VECTOR)]
    names = ("tile", "unroll", "vector")
    values = {point: observed(problem, dict(zip(names, point)))[0] for point in itertools.product(*ranges)}
    assert len(values) == 384
    for c in problem.combinations():
        assert min(v for p, v in values.items() if p[2] == c["vector"]) == pytest.approx(problem.combination_best(c), abs=1e-12)
    best = min(values, key=lambda p: values[p])
    assert dict(zip(names, best)) == problem.best_point()
    # Jagged: several strict local minima over the 26 neighbours, and the best point not at a bound of tile or unroll.
    steps = [d for d in itertools.product((-1, 0, 1), repeat=3) if any(d)]
    local = [p for p, v in values.items() if all(values.get(tuple(np.add(p, d)), math.inf) > v for d in steps)]
    assert len(local) >= 5
    assert lattices.TA_TILE[0] < best[0] < lattices.TA_TILE[1] and lattices.TA_UNROLL[0] < best[1] < lattices.TA_UNROLL[1]


def test_flag_cliffs_by_full_enumeration_through_the_objective() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["flag_cliffs"]
    ranges = [range(low, high + 1) for low, high in (lattices.FC_OPT, lattices.FC_INLINE, lattices.FC_UNROLL,
                                                      lattices.FC_VECTORIZE)]
    values = {point: observed(problem, dict(zip(lattices.FC_NAMES, point)))[0] for point in itertools.product(*ranges)}
    assert len(values) == 320
    for c in problem.combinations():
        assert min(v for p, v in values.items() if p[0] == c["opt"]) == pytest.approx(problem.combination_best(c), abs=1e-12)
    best = min(values, key=lambda p: values[p])
    assert dict(zip(lattices.FC_NAMES, best)) == problem.best_point()
    assert sorted(values.values())[1] > values[best]  # one best point
    # Several strict local minima along the axes, and the best unroll strictly inside its range.
    steps = [d for d in itertools.product((-1, 0, 1), repeat=4) if sum(map(abs, d)) == 1]
    local = [p for p, v in values.items() if all(values.get(tuple(np.add(p, d)), math.inf) > v for d in steps)]
    assert len(local) >= 3
    assert lattices.FC_UNROLL[0] < best[2] < lattices.FC_UNROLL[1]


def test_flag_cliffs_best_point_is_at_the_cache_cliff() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["flag_cliffs"]
    point = problem.best_point()
    assert point["vectorize"] == 1 and point["opt"] >= 2 and point["inline"] >= lattices.FC_CHAIN
    over = dict(point, unroll=point["unroll"] + 1)  # one more unroll falls off the instruction-cache cliff
    assert float(problem.value(over)) > float(problem.value(point)) * (1 + lattices.FC_MISS / 2)
    for opt in (0, 1):  # the flag does not vectorise below -O2: it costs its alias check
        scalar = dict(point, opt=opt)
        assert float(problem.value(dict(scalar, vectorize=1))) > float(problem.value(dict(scalar, vectorize=0)))
