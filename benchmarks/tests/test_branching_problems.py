"""Tests of the conditional spaces whose branches a parameter decides
(vpbo_benchmarks/branching_problems.py): each combination's stated best against an independent
search (``lab_testing``'s rule of these tests), and what makes each problem hard."""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pytest
from scipy.optimize import minimize

from lab_testing import grid_then_polish, random_mean
from vpbo_benchmarks import branching_problems as branching
from vpbo_benchmarks import held_out_sets

optuna.logging.set_verbosity(optuna.logging.ERROR)


def test_hash_resonance_every_leaf_by_grids_and_enumeration() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["hash_resonance"]
    g = np.linspace(0.0, 1.0, 401)
    x1, x2 = np.meshgrid(g, g, indexing="ij")
    buckets = np.arange(branching.HR_BUCKET_BOUNDS[0], branching.HR_BUCKET_BOUNDS[1] + 1)
    smoothing = 10.0 ** np.linspace(-3.0, 3.0, 60_001)
    for c in problem.combinations():
        stated = problem.combination_best(c)
        # A point of the leaf at its stated best, found by the grids (the value is a sum of the groups' terms).
        point = {**c, "x1": 0.5, "x2": 0.5, "smoothing": 1.0, "n_buckets": 64}
        grid = problem.value({**point, "x1": x1, "x2": x2})
        point.update(x1=float(x1.flat[grid.argmin()]), x2=float(x2.flat[grid.argmin()]))
        if c["encoder"] == "hash":
            point["n_buckets"] = int(buckets[np.argmin(problem.value({**point, "n_buckets": buckets}))])
        if c["encoder"] == "target":
            point["smoothing"] = float(smoothing[np.argmin(problem.value({**point, "smoothing": smoothing}))])
        found = grid_then_polish(lambda a, b, p=point: problem.value({**p, "x1": a, "x2": b}), [(0.0, 1.0)] * 2, 401, n_starts=4)
        assert found >= stated - 1e-9
        assert found == pytest.approx(stated, abs=1e-6)


def test_stacked_stages_every_combination_by_lbfgsb() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["stacked_stages"]
    assert len(problem.combinations()) == 90
    for c in problem.combinations():
        n = c["n_stages"]

        def value(u: np.ndarray, c: dict[str, Any] = c, n: int = n) -> float:
            return float(problem.value({**c, **{f"gain_{i}": 10.0 ** u[i] for i in range(n)}}))

        found = min(
            minimize(
                value, np.full(n, start), method="L-BFGS-B", bounds=[(-1.0, 1.0)] * n, options={"ftol": 1e-15, "gtol": 1e-12}
            ).fun
            for start in (-0.5, 0.0, 0.5)
        )
        stated = problem.combination_best(c)
        assert found >= stated - 1e-9
        assert found == pytest.approx(stated, abs=1e-8)


def test_hash_resonance_best_branch_is_worse_on_average_than_the_trap() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["hash_resonance"]

    def log_uniform(rng: np.random.Generator, size: int) -> dict[str, np.ndarray]:
        return {
            "x1": rng.uniform(0, 1, size), "x2": rng.uniform(0, 1, size),
            "n_buckets": np.round(2.0 ** rng.uniform(1, 10, size)), "smoothing": 10.0 ** rng.uniform(-3, 3, size),
        }

    best = min(problem.combinations(), key=problem.combination_best)
    assert best["encoder"] == "hash"
    assert random_mean(problem, best, log_uniform) > random_mean(problem, {"encoder": "onehot"}, log_uniform) + 0.2


def test_bit_branches_every_leaf_by_grids_and_enumeration() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["bit_branches"]
    log_lr, log_scale = tuple(np.log10(branching.BB_LR_BOUNDS)), tuple(np.log10(branching.BB_SCALE_BOUNDS))
    warmups = range(branching.BB_WARMUP_BOUNDS[0], branching.BB_WARMUP_BOUNDS[1] + 1)
    for c in problem.combinations():
        branch = branching.BB_BRANCH_OF_BITS[c["bits"]]
        if branch == "binary":
            found = grid_then_polish(lambda s, c=c: problem.value({**c, "scale": 10.0**s}), [log_scale], 4001)
        elif branch == "uniform":
            found = grid_then_polish(lambda a, u, c=c: problem.value({**c, "clip": a, "lr": 10.0**u}), [(0.0, 1.0), log_lr], 801)
        else:
            found = min(grid_then_polish(lambda u, w=w, c=c: problem.value({**c, "lr": 10.0**u, "warmup": w}), [log_lr], 4001)
                        for w in warmups)
        assert found >= problem.combination_best(c) - 1e-9, c
        assert found == pytest.approx(problem.combination_best(c), abs=1e-8), c


def test_bit_branches_best_branch_has_rings_of_local_minima() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["bit_branches"]
    point = problem.best_point()
    clip = point["clip"] + np.linspace(0.0, 1.0 - point["clip"], 20_001)
    profile = problem.value({**point, "clip": clip})
    rings = np.flatnonzero((profile[1:-1] < profile[:-2]) & (profile[1:-1] < profile[2:]))
    assert len(rings) >= 3 and profile[rings[0] + 1] - profile[0] > 0.02


def test_parity_branches_every_leaf_by_grids_and_local_searches() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["parity_branches"]
    log_step = tuple(np.log10(branching.PB_STEP_BOUNDS))
    for c in problem.combinations():
        if c["order"] % 2:
            names = branching.PB_VALLEY_FLOATS[:(c["order"] + 1) // 2]
            n_grid = {1: 4001, 2: 201, 3: 41, 4: 17}[len(names)]
            found = grid_then_polish(lambda *v, c=c, names=names: problem.value({**c, **dict(zip(names, v))}),
                                      [branching.PB_VALLEY_BOUNDS] * len(names), n_grid, 12)
        else:
            found = grid_then_polish(lambda u, d, c=c: problem.value({**c, "step": 10.0**u, "damping": d}),
                                      [log_step, (0.0, 1.0)], 801)
        assert found >= problem.combination_best(c) - 1e-12, c
        assert found == pytest.approx(problem.combination_best(c), abs=1e-9), c


def test_parity_branches_best_leaf_is_a_valley_with_two_minima_and_the_runner_up_another_branch() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["parity_branches"]
    point = problem.best_point()
    assert point["order"] % 2 == 1 and len(point) - 1 == (point["order"] + 1) // 2 >= 3
    last = branching.PB_VALLEY_FLOATS[(point["order"] + 1) // 2 - 1]
    shift = branching.parity_branches_tables()["valley_shift"][point["order"] // 2]
    mirrored = dict(point, **{last: 2 * shift[(point["order"] + 1) // 2 - 1] - point[last]})  # the last coordinate's sign flipped
    assert float(problem.value(mirrored)) == pytest.approx(float(problem.value(point)), abs=1e-12)
    ranked = sorted(problem.combinations(), key=problem.combination_best)
    assert ranked[1]["order"] % 2 == 0 and problem.combination_best(ranked[1]) - problem.combination_best(ranked[0]) < 0.05
