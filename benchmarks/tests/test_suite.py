"""Tests of the broad suite (benchmarks/vpbo_benchmarks/suite.py, docs/suite.md)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import optuna
import pytest

from lab_testing import noiseless_value, present, value_of
from vpbo_benchmarks import registry, specs, suite, suite_functions
from vpbo_benchmarks.problem import NOISELESS_ATTR, single_objective
from vpbo_benchmarks.runner import run_one

SYNTHETIC = [name for name, spec in suite.SUITE_SPECS.items() if spec.family != "real"]
REAL = [name for name, spec in suite.SUITE_SPECS.items() if spec.family == "real"]
N_RANDOM_TRIALS = 400


def _value(name: str, params: dict[str, Any]) -> float:
    """The noiseless objective of ``name`` at ``params``."""
    trial = optuna.trial.FixedTrial(params)
    value = suite.build_problem(name).objective(trial)
    return trial.user_attrs.get(NOISELESS_ATTR, value)


def test_split_is_disjoint_covers_all_and_every_family() -> None:
    assert not set(suite.TUNING) & set(suite.HELD_OUT)
    assert sorted(suite.TUNING + suite.HELD_OUT) == sorted(suite.SUITE_SPECS)
    assert len(suite.TUNING) == len(suite.HELD_OUT) == len(suite.SUITE_SPECS) // 2
    for half in (suite.TUNING, suite.HELD_OUT):
        assert {suite.SUITE_SPECS[n].family for n in half} == set(suite.FAMILIES)
        assert any(suite.SUITE_SPECS[n].conditional for n in half)
        assert any(not suite.SUITE_SPECS[n].conditional for n in half)


def test_split_is_the_documented_rule() -> None:
    # The rule of suite._split, restated: alternate within each family, the start flipping per family.
    for f, family in enumerate(suite.FAMILIES):
        members = [n for n, s in suite.SUITE_SPECS.items() if s.family == family]
        for i, name in enumerate(members):
            assert (name in suite.TUNING) == ((i + f) % 2 == 0)


def test_every_suite_problem_is_registered() -> None:
    for name in suite.SUITE_SPECS:
        assert name in registry.PROBLEM_NAMES
        assert registry.get_problem(name).name == name


def test_base_functions_reference_values() -> None:
    d = 3
    for name in ("ackley", "rastrigin", "levy"):
        assert suite_functions.BASE_FUNCTIONS[name](np.zeros(d)) == pytest.approx(0.0, abs=1e-12)
    # Schwefel: 418.9829 d - sum x sin(sqrt|x|), minimum 0 at x_i = 420.9687 (Surjanovic & Bingham).
    x, fmin = suite_functions.one_dimensional_minimum("schwefel")
    assert x == pytest.approx(420.9687, abs=1e-4)
    assert -fmin == pytest.approx(418.9829, abs=1e-4)
    # Styblinski-Tang's 1-D minimum at -2.903534 (Surjanovic & Bingham), checked on a fine grid.
    grid = np.linspace(-5, 5, 1_000_001)
    term = 0.5 * (grid**4 - 16 * grid**2 + 5 * grid)
    x, fmin = suite_functions.one_dimensional_minimum("styblinski_tang")
    assert x == pytest.approx(-2.903534, abs=1e-6)
    assert fmin == pytest.approx(term.min(), abs=1e-9) and fmin <= term.min()
    assert suite_functions.styblinski_tang(np.full(d, x)) == pytest.approx(0.0, abs=1e-9)
    argmin = suite_functions.one_dimensional_minimum("schwefel")[0]
    assert suite_functions.schwefel(np.full(d, argmin)) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("name", list(suite_functions.SHIFTED_DESIGNS))
def test_shifted_optimum_by_an_independent_table_minimum(name: str) -> None:
    design = suite_functions.SHIFTED_DESIGNS[name]
    tables = suite_functions.shifted_tables(design)
    # Offsets of every combination by broadcasting (independent of the enumeration in suite.py).
    n = len(design.levels)
    total = np.zeros(design.levels)
    for i, offsets in enumerate(tables.offsets):
        total = total + offsets.reshape([-1 if j == i else 1 for j in range(n)])
    for (i, j), table in tables.interactions.items():
        total = total + table.reshape([design.levels[k] if k in (i, j) else 1 for k in range(n)])
    assert suite.build_problem(name).optimum == pytest.approx(float(total.min()), abs=1e-12)
    # Every combination reaches its offset inside the bounds.
    for h in np.ndindex(*design.levels):
        x, k = suite_functions.shifted_argmin(design, h)
        assert np.all((design.bounds[0] <= x) & (x <= design.bounds[1]))
        assert np.all((design.int_bounds[0] <= k) & (k <= design.int_bounds[1]))
    rng = np.random.default_rng(0)
    for h in [tuple(int(rng.integers(k)) for k in design.levels) for _ in range(10)]:
        x, k = suite_functions.shifted_argmin(design, h)
        assert suite_functions.shifted_value(design, h, x, k) == pytest.approx(float(total[h]), abs=1e-9)


@pytest.mark.parametrize("name", [n for n, d in suite_functions.SHIFTED_DESIGNS.items() if d.centre_fraction > 0])
def test_optima_are_off_centre(name: str) -> None:
    # The best combination's optimum is not within 20 % of the half-width of the centre in every dimension.
    design = suite_functions.SHIFTED_DESIGNS[name]
    x, _ = suite_functions.shifted_argmin(design, suite_functions.best_combination(design)[0])
    half_width = (design.bounds[1] - design.bounds[0]) / 2
    assert np.max(np.abs(x - (design.bounds[0] + half_width))) > 0.2 * half_width


@pytest.mark.parametrize("name", SYNTHETIC)
def test_optimum_point_gives_the_optimum_and_random_points_are_worse(name: str) -> None:
    spec = suite.SUITE_SPECS[name]
    problem = suite.build_problem(name)
    optimum = present(problem.optimum)
    assert math.isfinite(optimum)
    assert _value(name, present(spec.best_point)()) == pytest.approx(optimum, abs=1e-9)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study.optimize(problem.objective, n_trials=N_RANDOM_TRIALS)
    noiseless = [noiseless_value(t) for t in study.trials]
    assert min(noiseless) > optimum + 1e-6
    # The combination bests bound every observed value of their combination from below.
    combination_best = present(spec.combination_best)
    bests = {specs.combination_of(c, spec.combination_keys): combination_best(c) for c in present(spec.combinations)()}
    for t, v in zip(study.trials, noiseless):
        assert v >= bests[specs.combination_of(t.params, spec.combination_keys)] - 1e-9


@pytest.mark.parametrize("name", SYNTHETIC)
def test_perturbing_the_optimum_makes_it_worse(name: str) -> None:
    spec = suite.SUITE_SPECS[name]
    best = present(spec.best_point)()
    optimum = present(suite.build_problem(name).optimum)
    for key, value in best.items():
        if isinstance(value, float):
            for step in (-1e-3, 1e-3):
                moved = dict(best, **{key: value * (1 + step) if value else step})
                assert _value(name, moved) >= optimum - 1e-12


def test_branch_and_mlp_combination_bests_are_reached() -> None:
    for name in ("branch_choice", "shared_branches", "mlp_synthetic", "conv_blocks", "int_log_styblinski"):
        spec = suite.SUITE_SPECS[name]
        combination_best = present(spec.combination_best)
        values = sorted(combination_best(c) for c in present(spec.combinations)())
        assert values[0] == suite.build_problem(name).optimum
        assert values[0] < values[1]  # a unique best combination


def test_conditional_spaces_open_parameters_by_their_int() -> None:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(suite.build_problem("mlp_synthetic").objective, n_trials=40)
    for t in study.trials:
        n = t.params["n_layers"]
        assert {f"units_{i}" for i in range(4)} & set(t.params) == {f"units_{i}" for i in range(n)}
        assert {f"dropout_{i}" for i in range(4)} & set(t.params) == {f"dropout_{i}" for i in range(n)}
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(suite.build_problem("conv_blocks").objective, n_trials=40)
    assert any(t.params["n_blocks"] == 0 and not any(k.startswith("kernel_") for k in t.params) for t in study.trials)
    assert len({frozenset(t.params) for t in study.trials}) >= 4


@pytest.mark.parametrize("name", ["noisy_styblinski", "noisy_mlp"])
def test_noise_has_the_stated_standard_deviation(name: str) -> None:
    spec = suite.SUITE_SPECS[name]
    objective = single_objective(suite.build_problem(name))
    point = present(spec.best_point)()
    deviations = []
    for number in range(2000):
        trial = optuna.trial.FixedTrial(point, number=number)
        deviations.append(objective(trial) - trial.user_attrs[NOISELESS_ATTR])
    assert np.std(deviations) == pytest.approx(spec.noise_sd, rel=0.08)
    assert abs(np.mean(deviations)) < 4 * spec.noise_sd / math.sqrt(2000)


def test_runner_records_noiseless_values_of_noisy_problems_only() -> None:
    record = run_one("noisy_mlp", "random", 0, 6)
    assert len(record["noiseless"]) == 6
    assert all(v is not None and v != obs[0] for v, obs in zip(record["noiseless"], record["values"]))
    assert "noiseless" not in run_one("mlp_synthetic", "random", 0, 3)


@pytest.mark.parametrize("name", REAL)
def test_real_tasks_evaluate(name: str) -> None:
    pytest.importorskip("sklearn", reason="the real tasks need scikit-learn (the benchmarks extra)")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(suite.build_problem(name).objective, n_trials=3)
    values = [value_of(t) for t in study.trials]
    assert all(math.isfinite(v) and v >= 0 for v in values)
    assert len(set(values)) > 1
    assert suite.build_problem(name).optimum is None
