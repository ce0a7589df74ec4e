"""Tests of the fresh held-out set of issue 21 (benchmarks/vpbo_benchmarks/fresh_problems.py,
docs/suite.md "The fresh held-out set").

Only random trials and direct evaluations here: no sampler study runs on these problems before
issue 21's tuning is over. Each combination's stated best is checked against an independent
numerical search of the problem's vectorised value: a dense grid polished by SciPy's L-BFGS-B for
two floats, SciPy's L-BFGS-B on the (convex) coupled gains, full enumeration of the integers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest
from scipy.optimize import minimize, minimize_scalar

from lab_testing import noiseless_value, present
from vpbo_benchmarks import fresh_landscapes, fresh_problems, fresh_structures, registry, specs, suite, suite_functions
from vpbo_benchmarks.cli import main as cli_main
from vpbo_benchmarks.problem import NOISELESS_ATTR
from vpbo_benchmarks.records import append_record
from vpbo_benchmarks.runner import run_one

FRESH = list(fresh_problems.FRESH_HELD_OUT)
SYNTHETIC_FAMILIES = {s.family for s in suite.SUITE_SPECS.values() if s.family != "real"}
N_RANDOM_TRIALS = 120

optuna.logging.set_verbosity(optuna.logging.ERROR)


def _objective_value(name: str, params: dict[str, Any]) -> float:
    """The noiseless value of the Optuna objective of ``name`` at ``params``."""
    trial = optuna.trial.FixedTrial(params)
    value = fresh_problems.build_problem(name).objective(trial)
    return trial.user_attrs.get(NOISELESS_ATTR, value)


def _grid_then_polish(
    f: Callable[..., Any], bounds: Sequence[tuple[float, float]], n_grid: int, n_starts: int = 4
) -> float:
    """Minimum of f(x1, x2) (vectorised) over the box: a dense grid, then L-BFGS-B from the best
    few grid points."""
    g1, g2 = (np.linspace(low, high, n_grid) for low, high in bounds)
    x1, x2 = np.meshgrid(g1, g2, indexing="ij")
    values = f(x1, x2)
    best = float(values.min())
    for index in np.argsort(values, axis=None)[:n_starts]:
        result = minimize(
            lambda z: float(f(z[0], z[1])), [x1.flat[index], x2.flat[index]], method="L-BFGS-B", bounds=bounds,
            options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 5000},
        )
        best = min(best, float(result.fun))
    return best


# ------------------------------------------------------------------ the group


def test_group_is_fresh_disjoint_and_covers_the_synthetic_families() -> None:
    assert len(FRESH) >= 6
    assert not set(FRESH) & set(suite.TUNING)
    assert not set(FRESH) & set(suite.HELD_OUT)
    assert not set(FRESH) & set(suite.SUITE_SPECS)
    assert registry.GROUPS["fresh_held_out"] == fresh_problems.FRESH_HELD_OUT
    # The broad suite's split is unchanged by the addition.
    assert suite.HALVES["all"] == suite.TUNING + suite.HELD_OUT
    assert sorted(suite.TUNING + suite.HELD_OUT) == sorted(suite.SUITE_SPECS)
    families = {fresh_problems.FRESH_SPECS[n].family for n in FRESH}
    assert families == SYNTHETIC_FAMILIES
    assert sum(fresh_problems.FRESH_SPECS[n].conditional for n in FRESH) >= 2
    assert any(fresh_problems.FRESH_SPECS[n].noise_sd > 0 for n in FRESH)
    assert len(fresh_problems.NARROW_OR_TRAP) >= 2 and set(fresh_problems.NARROW_OR_TRAP) <= set(FRESH)


def test_group_is_registered_and_builds() -> None:
    for name in FRESH:
        assert name in registry.PROBLEM_NAMES
        problem = registry.get_problem(name)
        assert problem.name == name and problem.directions == ("minimize",)
        assert problem.optimum is not None and math.isfinite(problem.optimum)
        assert problem.n_combinations == len(present(fresh_problems.FRESH_SPECS[name].combinations)())
        assert "[fresh held-out/" in problem.description


def test_new_base_functions_are_not_the_suites() -> None:
    # Griewank, Rosenbrock, Himmelblau and Branin: none is among the broad suite's bases.
    assert not {"griewank", "rosenbrock", "himmelblau", "branin"} & set(suite_functions.BASE_FUNCTIONS)
    assert fresh_landscapes.griewank_2d(0.0, 0.0) == 0.0
    assert fresh_landscapes.himmelblau(3.0, 2.0) == 0.0
    # Branin's three minima (Surjanovic & Bingham): 0.397887 at (-pi, 12.275), (pi, 2.275), (9.42478, 2.475).
    for x in ((-math.pi, 12.275), (math.pi, 2.275), (9.42478, 2.475)):
        assert fresh_structures.branin(*x) == pytest.approx(0.397887, abs=1e-6)
    assert fresh_structures.BRANIN_MINIMUM == pytest.approx(0.397887, abs=1e-6)


# ------------------------------------------------------------------ every problem


@pytest.mark.parametrize("name", FRESH)
def test_problem_runs_with_random_trials(name: str) -> None:
    spec = fresh_problems.FRESH_SPECS[name]
    problem = fresh_problems.build_problem(name)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(problem.objective, n_trials=N_RANDOM_TRIALS)
    combination_best = present(spec.combination_best)
    bests = {specs.combination_of(c, spec.combination_keys): combination_best(c) for c in present(spec.combinations)()}
    noiseless = [noiseless_value(t) for t in study.trials]
    assert all(math.isfinite(v) for v in noiseless)
    for trial, value in zip(study.trials, noiseless):
        combination = specs.combination_of(trial.params, spec.combination_keys)
        assert combination in bests  # every trial's combination is a listed one
        assert value >= bests[combination] - 1e-9
        assert value == pytest.approx(float(fresh_problems.FRESH_PROBLEMS[name].value(trial.params)), abs=1e-12)
    assert min(noiseless) > present(problem.optimum) + 1e-6
    assert len({c for c in (specs.combination_of(t.params, spec.combination_keys) for t in study.trials)}) >= min(4, len(bests))


@pytest.mark.parametrize("name", FRESH)
def test_best_point_gives_the_optimum_and_the_best_combination_is_unique(name: str) -> None:
    spec = fresh_problems.FRESH_SPECS[name]
    optimum = present(fresh_problems.build_problem(name).optimum)
    best_point, combination_best = present(spec.best_point), present(spec.combination_best)
    assert _objective_value(name, best_point()) == pytest.approx(optimum, abs=1e-9)
    values = sorted(combination_best(c) for c in present(spec.combinations)())
    assert values[0] == optimum
    assert values[1] - values[0] > 0.005  # a unique best combination, by a margin
    for key, value in best_point().items():
        if isinstance(value, float):
            for step in (-1e-3, 1e-3):
                assert _objective_value(name, dict(best_point(), **{key: value * (1 + step)})) >= optimum - 1e-12


def test_runner_and_suite_report_accept_the_group(tmp_path: Path) -> None:
    noisy = run_one("hetero_branin", "random", 0, 5)
    assert len(noisy["noiseless"]) == 5 and noisy["noiseless"] != [v[0] for v in noisy["values"]]
    append_record(tmp_path, noisy)
    append_record(tmp_path, run_one("stacked_stages", "random", 0, 5))
    report = tmp_path / "fresh.md"
    cli_main(["report", "--kind", "suite", "--half", "fresh_held_out", "--samplers", "random", "--out", str(tmp_path),
              "--report", str(report), "--checkpoints", "5"])
    text = report.read_text()
    for name in FRESH:
        assert name in text
    assert f"{fresh_problems.build_problem('stacked_stages').optimum:.10g}" in text


# ------------------------------------------------------------------ optima by independent searches


def _two_float_check(
    name: str, bounds: Sequence[tuple[float, float]], n_grid: int, combinations: Iterable[dict[str, Any]]
) -> None:
    problem = fresh_problems.FRESH_PROBLEMS[name]
    for c in combinations:
        found = _grid_then_polish(lambda a, b, c=c: problem.value({**c, "x1": a, "x2": b}), bounds, n_grid)
        stated = problem.combination_best(c)
        assert found >= stated - 1e-9, c  # nothing below the stated best
        assert found == pytest.approx(stated, abs=2e-6), c  # and the search reaches it


def _best_and_random(problem: specs.FreshProblem, n_best: int, n_random: int) -> list[dict[str, Any]]:
    combos = sorted(problem.combinations(), key=problem.combination_best)
    rng = np.random.default_rng(5)
    rest = combos[n_best:]
    return combos[:n_best] + [rest[i] for i in rng.choice(len(rest), size=min(n_random, len(rest)), replace=False)]


def test_rotated_griewank_every_combination_by_grid_and_lbfgsb() -> None:
    combinations = fresh_problems.FRESH_PROBLEMS["rotated_griewank"].combinations()
    _two_float_check("rotated_griewank", [fresh_landscapes.RG_BOUNDS] * 2, 801, combinations)


def test_decoy_funnel_every_combination_by_grid_and_lbfgsb() -> None:
    combinations = fresh_problems.FRESH_PROBLEMS["decoy_funnel"].combinations()
    _two_float_check("decoy_funnel", [fresh_landscapes.DF_BOUNDS] * 2, 801, combinations)


def test_hetero_branin_every_combination_by_grid_and_lbfgsb() -> None:
    bounds = [fresh_structures.HB_X1_BOUNDS, fresh_structures.HB_X2_BOUNDS]
    _two_float_check("hetero_branin", bounds, 761, fresh_problems.FRESH_PROBLEMS["hetero_branin"].combinations())


def test_lowrank_valley_best_and_sampled_combinations_by_grid_and_lbfgsb() -> None:
    problem = fresh_problems.FRESH_PROBLEMS["lowrank_valley"]
    _two_float_check("lowrank_valley", [fresh_landscapes.LV_BOUNDS] * 2, 401, _best_and_random(problem, 4, 8))


def test_hidden_pair_best_and_sampled_combinations_by_grid_and_lbfgsb() -> None:
    problem = fresh_problems.FRESH_PROBLEMS["hidden_pair"]
    _two_float_check("hidden_pair", [fresh_landscapes.HP_BOUNDS] * 2, 481, _best_and_random(problem, 4, 8))


def test_every_two_float_optimum_is_inside_the_bounds() -> None:
    for name, bounds in (
        ("rotated_griewank", [fresh_landscapes.RG_BOUNDS] * 2), ("decoy_funnel", [fresh_landscapes.DF_BOUNDS] * 2),
        ("hetero_branin", [fresh_structures.HB_X1_BOUNDS, fresh_structures.HB_X2_BOUNDS]),
        ("lowrank_valley", [fresh_landscapes.LV_BOUNDS] * 2), ("hidden_pair", [fresh_landscapes.HP_BOUNDS] * 2),
    ):
        centres: dict[str, Callable[[dict[str, Any]], np.ndarray]] = {
            "rotated_griewank": lambda c: fresh_landscapes.rotated_griewank_argmin(c["angle"], c["stretch"]),
            "decoy_funnel": lambda c: fresh_landscapes.decoy_funnel_centre(c["basin"], c["lens"]),
            "hetero_branin": lambda c: (
                np.array(fresh_structures.BRANIN_ARGMIN) + fresh_structures.hetero_branin_shift(c["device"], c["mode"])
            ),
            "lowrank_valley": lambda c: fresh_landscapes.lowrank_valley_argmin(c["row"], c["col"]),
            "hidden_pair": lambda c: (
                np.array(fresh_landscapes.HIMMELBLAU_ARGMIN) + fresh_landscapes.hidden_pair_shift(c["p"], c["q"])
            ),
        }
        problem = fresh_problems.FRESH_PROBLEMS[name]
        for c in problem.combinations():
            x = centres[name](c)
            assert all(low <= v <= high for v, (low, high) in zip(x, bounds)), (name, c)
            assert float(problem.value({**c, "x1": x[0], "x2": x[1]})) == pytest.approx(problem.combination_best(c), abs=1e-9)


def test_tilted_lattice_by_full_enumeration() -> None:
    problem = fresh_problems.FRESH_PROBLEMS["tilted_lattice"]
    k = np.arange(fresh_structures.TL_K_BOUNDS[0], fresh_structures.TL_K_BOUNDS[1] + 1)
    n = np.arange(fresh_structures.TL_N_BOUNDS[0], fresh_structures.TL_N_BOUNDS[1] + 1)
    log10_alpha = np.linspace(-6.0, 0.0, 600_001)
    rounded_differs = 0
    for c in problem.combinations():
        point, stated = fresh_structures.tilted_lattice_best(c["scheme"])
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
        centre = fresh_structures.tilted_lattice_tables()["centre"][c["scheme"]]
        rounded_differs += tuple(np.round(centre).astype(int)) != (point["k1"], point["k2"])
        assert point["n"] & (point["n"] - 1) != 0  # the best n is not a power of two
    assert rounded_differs >= 1  # rounding the continuous optimum is not enough somewhere


def test_hash_resonance_every_leaf_by_grids_and_enumeration() -> None:
    problem = fresh_problems.FRESH_PROBLEMS["hash_resonance"]
    g = np.linspace(0.0, 1.0, 401)
    x1, x2 = np.meshgrid(g, g, indexing="ij")
    buckets = np.arange(fresh_structures.HR_BUCKET_BOUNDS[0], fresh_structures.HR_BUCKET_BOUNDS[1] + 1)
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
        found = _grid_then_polish(lambda a, b, p=point: problem.value({**p, "x1": a, "x2": b}), [(0.0, 1.0)] * 2, 401)
        assert found >= stated - 1e-9
        assert found == pytest.approx(stated, abs=1e-6)


def test_stacked_stages_every_combination_by_lbfgsb() -> None:
    problem = fresh_problems.FRESH_PROBLEMS["stacked_stages"]
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


# ------------------------------------------------------------------ what makes them hard


def test_hetero_branin_noise_depends_on_the_device() -> None:
    spec = fresh_problems.FRESH_SPECS["hetero_branin"]
    objective = fresh_problems.build_problem("hetero_branin").objective
    best_point = present(spec.best_point)
    for device in (0, 3):
        point = dict(best_point(), device=device)
        deviations = []
        for number in range(1500):
            trial = optuna.trial.FixedTrial(point, number=number)
            deviations.append(objective(trial) - trial.user_attrs[NOISELESS_ATTR])
        assert np.std(deviations) == pytest.approx(fresh_structures.HB_DEVICE_NOISE_SD[device], rel=0.1)
    assert best_point()["device"] == int(np.argmax(fresh_structures.HB_DEVICE_NOISE_SD))


# Draws a sample of the numeric parameters: (rng, size) -> parameter name -> values.
Sampler = Callable[[np.random.Generator, int], dict[str, np.ndarray]]


def _random_mean(problem: specs.FreshProblem, combination: dict[str, Any], sample: Sampler) -> float:
    rng = np.random.default_rng(11)
    return float(np.mean(problem.value({**combination, **sample(rng, 4000)})))


def test_decoy_funnel_best_combination_is_a_needle_worse_on_average() -> None:
    problem = fresh_problems.FRESH_PROBLEMS["decoy_funnel"]

    def uniform(rng: np.random.Generator, size: int) -> dict[str, np.ndarray]:
        return {"x1": rng.uniform(-1, 1, size), "x2": rng.uniform(-1, 1, size)}

    means = {tuple(c.values()): _random_mean(problem, c, uniform) for c in problem.combinations()}
    best = tuple(min(problem.combinations(), key=problem.combination_best).values())
    assert sorted(means.values()).index(means[best]) >= len(means) // 2  # in the worse half on average
    # The basin: under 1 % of uniform points come within 0.05 of the best combination's optimum value + 0.1.
    rng = np.random.default_rng(3)
    values = problem.value({**dict(zip(("basin", "lens"), best)), **uniform(rng, 100_000)})
    assert np.mean(values < problem.combination_best(dict(zip(("basin", "lens"), best))) + 0.1) < 0.01


def test_hash_resonance_best_branch_is_worse_on_average_than_the_trap() -> None:
    problem = fresh_problems.FRESH_PROBLEMS["hash_resonance"]

    def log_uniform(rng: np.random.Generator, size: int) -> dict[str, np.ndarray]:
        return {
            "x1": rng.uniform(0, 1, size), "x2": rng.uniform(0, 1, size),
            "n_buckets": np.round(2.0 ** rng.uniform(1, 10, size)), "smoothing": 10.0 ** rng.uniform(-3, 3, size),
        }

    best = min(problem.combinations(), key=problem.combination_best)
    assert best["encoder"] == "hash"
    assert _random_mean(problem, best, log_uniform) > _random_mean(problem, {"encoder": "onehot"}, log_uniform) + 0.2


def test_hidden_pair_is_not_where_the_marginals_point() -> None:
    problem = fresh_problems.FRESH_PROBLEMS["hidden_pair"]
    offsets = np.array([[problem.combination_best({"p": p, "q": q}) for q in range(16)] for p in range(16)])
    best = np.unravel_index(np.argmin(offsets), offsets.shape)
    marginal_best = (int(np.argmin(np.median(offsets, axis=1))), int(np.argmin(np.median(offsets, axis=0))))
    assert marginal_best != tuple(int(v) for v in best)
    assert offsets[marginal_best] - offsets[best] >= fresh_landscapes.HP_MARGIN - 1e-12
    # Both levels of the hidden pair are mid-ranked in their marginals.
    assert 4 <= np.argsort(np.argsort(np.median(offsets, axis=1)))[best[0]] <= 11
    assert 4 <= np.argsort(np.argsort(np.median(offsets, axis=0)))[best[1]] <= 11
