"""Tests of the multimodal landscapes (vpbo_benchmarks/multimodal_landscapes.py): each combination's
stated best against an independent search (``lab_testing``'s rule of these tests), and what makes
each problem hard."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import optuna
import pytest
from scipy.optimize import minimize

from lab_testing import assert_additive, grid_then_polish, line_block, pick, polish, separable_minimum, slice_of
from vpbo_benchmarks import held_out_sets
from vpbo_benchmarks import multimodal_landscapes as multimodal

optuna.logging.set_verbosity(optuna.logging.ERROR)


def test_peak_field_every_combination_by_grid_and_lbfgsb() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["peak_field"]
    for c in problem.combinations():
        found = grid_then_polish(
            lambda *x, c=c: problem.value({**c, **dict(zip(multimodal.PF_FLOATS, x))}), [(0.0, 1.0)] * 4, 13, 4
        )
        assert found >= problem.combination_best(c) - 1e-9, c
        assert found == pytest.approx(problem.combination_best(c), abs=2e-6), c


def test_michalewicz_gates_is_separable_and_its_terms_reach_the_stated_maxima() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["michalewicz_gates"]
    rng = np.random.default_rng(9)
    for c in problem.combinations():
        a, b = rng.uniform(0.0, math.pi, (2, 4))
        for k in range(4):  # f(a) + f(b) = f(a with b's k-th) + f(b with a's k-th) for a sum of one-coordinate terms
            swapped_a, swapped_b = a.copy(), b.copy()
            swapped_a[k], swapped_b[k] = b[k], a[k]
            values = [float(problem.value({**c, **dict(zip(multimodal.MG_FLOATS, x))})) for x in (a, b, swapped_a, swapped_b)]
            assert values[0] + values[1] == pytest.approx(values[2] + values[3], abs=1e-12)
    grid = np.linspace(0.0, math.pi, 1_000_001)
    for frequency, m in itertools.product(multimodal.MG_FREQUENCIES, multimodal.MG_STEEPNESS):
        term = multimodal.michalewicz_term(grid, frequency, m)
        start = grid[np.argmax(term)]
        polished = minimize(lambda v, f=frequency, m=m: -float(multimodal.michalewicz_term(v[0], f, m)), [start],
                            method="L-BFGS-B",
                            bounds=[(start - 1e-5, start + 1e-5)], options={"ftol": 1e-15, "gtol": 1e-12})
        stated = multimodal.michalewicz_term_max(frequency, m)[1]
        assert max(float(term.max()), -float(polished.fun)) == pytest.approx(stated, abs=1e-12)
        assert float(term.max()) <= stated + 1e-12
    for c in problem.combinations():  # every float at its term's argmax gives the stated best
        order = multimodal.michalewicz_gates_tables()["order"][c["order"]]
        m = multimodal.MG_STEEPNESS[c["steep"]]
        x = {n: multimodal.michalewicz_term_max(float(f), m)[0] for n, f in zip(multimodal.MG_FLOATS, order)}
        assert float(problem.value({**c, **x})) == pytest.approx(problem.combination_best(c), abs=1e-12)


def test_compact_foxholes_every_level_by_enumerating_k_and_a_grid_on_the_floats() -> None:
    problem, t = held_out_sets.PROBLEMS_BY_NAME["compact_foxholes"], multimodal.compact_foxholes_tables()
    # The construction: the decoys' supports are disjoint from each other and from the widest best hole's.
    for i, j in itertools.combinations(range(multimodal.FH_N_DECOYS), 2):
        assert np.linalg.norm(t["centre"][i] - t["centre"][j]) > t["radius"][i] + t["radius"][j]
    assert np.all(np.linalg.norm(t["centre"] - t["best"], axis=1) > t["radius"] + max(multimodal.FH_LEVEL_RADIUS))
    assert t["depth"].max() < min(multimodal.FH_LEVEL_DEPTH)
    g = np.linspace(0.0, 1.0, 31)
    x1, x2, x3, k = np.meshgrid(g, g, g, np.arange(multimodal.FH_K_MAX + 1), indexing="ij")
    for c in problem.combinations():
        values = problem.value({**c, "x1": x1, "x2": x2, "x3": x3, "k": k})
        found = float(values.min())
        for index in np.argsort(values, axis=None)[:4]:
            kk = int(k.flat[index])
            found = min(found, polish(lambda *x, kk=kk, c=c: problem.value({**c, "k": kk, **dict(zip(multimodal.FH_FLOATS, x))}),
                                       [[x1.flat[index], x2.flat[index], x3.flat[index]]], [(0.0, 1.0)] * 3))
        assert found >= problem.combination_best(c) - 1e-9
        assert found == pytest.approx(problem.combination_best(c), abs=1e-7)


def test_peak_field_best_combination_is_multimodal_with_a_small_basin() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["peak_field"]
    c = pick(problem.best_point(), problem.combination_keys)
    rng = np.random.default_rng(4)

    def f(*x: Any) -> Any:
        return problem.value({**c, **dict(zip(multimodal.PF_FLOATS, x))})

    minima = set()
    for start in rng.uniform(0.0, 1.0, (40, 4)):
        result = minimize(lambda z: float(f(*z)), start, method="L-BFGS-B", bounds=[(0.0, 1.0)] * 4)
        minima.add(round(float(result.fun), 4))
    assert len(minima) >= 4
    # The tallest peak's basin: where its term is the largest of the seven, 2-15 % of the box.
    t = multimodal.peak_field_tables()
    x = rng.uniform(0.0, 1.0, (200_000, 4))
    tallest = t["tallest"][c["layout"], c["focus"]]
    u = (x - t["position"][c["layout"], tallest]) @ t["rotation"][c["layout"], tallest]
    on_top = 1.0 - np.exp(-0.5 * np.sum((u / multimodal.PF_GLOBAL_SD) ** 2, axis=-1)) + problem.combination_best(c)
    share = float(np.mean(np.isclose(f(*x.T), on_top)))
    assert 0.02 <= share <= 0.15


def test_michalewicz_gates_sharpest_level_is_best_but_worst_on_average() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["michalewicz_gates"]
    best = problem.best_point()
    assert multimodal.MG_STEEPNESS[best["steep"]] == max(multimodal.MG_STEEPNESS)
    x = np.random.default_rng(5).uniform(0.0, math.pi, (4, 20_000))
    floats = dict(zip(multimodal.MG_FLOATS, x))
    means = [float(np.mean(problem.value({"order": best["order"], "steep": s, **floats}))) for s in range(3)]
    assert means[best["steep"]] == max(means)
    # 2 x 3 x 5 x 7 local minima: each term's strict local maxima on a fine grid, for every steepness.
    grid = np.linspace(0.0, math.pi, 1_000_001)
    for m in multimodal.MG_STEEPNESS:
        counts = []
        for frequency in multimodal.MG_FREQUENCIES:
            term = multimodal.michalewicz_term(grid, frequency, m)
            counts.append(int(np.sum((term[1:-1] > term[:-2]) & (term[1:-1] > term[2:]))))
        assert counts == list(multimodal.MG_FREQUENCIES)


def test_compact_foxholes_best_hole_is_small_and_the_floor_pulls_elsewhere() -> None:
    t = multimodal.compact_foxholes_tables()
    z = np.random.default_rng(6).uniform(0.0, 1.0, (200_000, 4))
    level = held_out_sets.PROBLEMS_BY_NAME["compact_foxholes"].best_point()["level"]
    assert float(np.mean(np.linalg.norm(z - t["best"], axis=1) < multimodal.FH_LEVEL_RADIUS[level - 1])) < 0.05
    to_pull = np.sum((z - t["pull"]) ** 2, axis=1) + multimodal.FH_BOWL_FLOOR < np.sum((z - t["best"]) ** 2, axis=1)
    assert float(np.mean(to_pull)) > 0.25  # the floor descends towards a decoy over about a third of the box


def test_qing_powers_every_power_by_line_searches_and_every_k() -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME["qing_powers"]
    rng = np.random.default_rng(10)
    ks = np.arange(multimodal.QP_K_BOUNDS[0], multimodal.QP_K_BOUNDS[1] + 1)
    for c in problem.combinations():
        a, b = ({**c, "k": int(rng.integers(-6, 7)), **dict(zip(multimodal.QP_FLOATS, rng.uniform(-2.5, 2.5, 3)))}
                for _ in range(2))
        for name in (*multimodal.QP_FLOATS, "k"):
            assert_additive(problem.value, a, b, [name])
        blocks = [line_block(slice_of(problem.value, a, n), *multimodal.QP_FLOAT_BOUNDS) for n in multimodal.QP_FLOATS]
        blocks.append(lambda: float(np.min(problem.value({**a, "k": ks}))))  # noqa: B023 (called in this iteration)
        found = separable_minimum(problem.value, a, blocks)
        # The cusp (power 1) is reached to the square root of the last grid's step: 1e-7 in value.
        assert found >= problem.combination_best(c) - 1e-12, c
        assert found == pytest.approx(problem.combination_best(c), abs=1e-6 if c["power"] == 1 else 1e-10), c


def test_qing_powers_has_sixteen_minima_per_power_ranked_by_wrong_signs() -> None:
    problem, t = held_out_sets.PROBLEMS_BY_NAME["qing_powers"], multimodal.qing_powers_tables()
    bounds = [multimodal.QP_FLOAT_BOUNDS] * len(multimodal.QP_FLOATS)
    for c in problem.combinations():
        for signs in itertools.product((-1.0, 1.0), repeat=4):
            z = np.array(signs) * np.sqrt([1.0, 2.0, 3.0, 4.0]) + t["shift"]
            k = round(z[3] / multimodal.QP_K_SCALE)
            result = minimize(lambda x, k=k, c=c: float(problem.value({**c, **dict(zip(multimodal.QP_FLOATS, x)), "k": k})),
                              z[:3], method="Nelder-Mead", bounds=bounds, options={"xatol": 1e-10, "fatol": 1e-14})
            # A local minimum at every sign pattern (the bowl moves the smooth ones a little), 0.0125 above the
            # best per wrong sign (the bowl's slope there lowers it by less than 0.001).
            assert np.max(np.abs(result.x - z[:3])) < 0.2  # the wells are 2 sqrt(i) >= 2 apart
            wrong = int(np.sum(np.array(signs) != t["side"]))
            expected = problem.combination_best(c) + wrong * multimodal.QP_TILT / 4
            assert float(result.fun) == pytest.approx(expected, abs=1e-3)
            assert (float(result.fun) < problem.combination_best(c) + 0.01) == (wrong == 0)
