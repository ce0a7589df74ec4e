"""Tests of the benchmark problems (definitions in shared/benchmarks.md)."""

from __future__ import annotations

import io
import itertools
import pickle
import zipfile
from collections.abc import Sequence
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution

from vpbo_benchmarks import chemistry_problems, emulators, ml_problems, registry, suite_functions, synthetic_problems
from vpbo_benchmarks.problem import simple_regret, single_objective

STATED_X = np.array([0.04492, -0.35633])  # both signs are minima
STATED_TOLERANCE = 5e-7  # the stated optima are rounded to 6 decimals
N_RANDOM_POINTS = 2000
GRID_POINTS = 201
N_TRIALS = 4
R2_THRESHOLD = 0.8

# Optional packages each ML problem needs.
ML_REQUIREMENTS = {
    "svm_boston": ("sklearn",),
    "xg_mnist": ("sklearn", "xgboost"),
    "nas_like": ("sklearn",),
    "automl": ("sklearn",),
}


def _r_squared(observed: np.ndarray, predicted: np.ndarray) -> float:
    residual = np.sum((observed - predicted) ** 2)
    total = np.sum((observed - observed.mean()) ** 2)
    return float(1.0 - residual / total)


# ------------------------------------------------------------------ Func2C / Func3C


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_func2c_and_func3c_optima_at_stated_points(sign: float) -> None:
    x = sign * STATED_X
    assert synthetic_problems.func2c(1, 1, x) == pytest.approx(-0.206326, abs=STATED_TOLERANCE)
    assert synthetic_problems.func3c(1, 1, 0, x) == pytest.approx(-0.722140, abs=STATED_TOLERANCE)
    assert synthetic_problems.FUNC2C_OPTIMUM == pytest.approx(-0.206326, abs=STATED_TOLERANCE)
    assert synthetic_problems.FUNC3C_OPTIMUM == pytest.approx(-0.722140, abs=STATED_TOLERANCE)


def test_six_hump_camel_minimum_constant() -> None:
    scipy_optimize = pytest.importorskip("scipy.optimize")
    result = scipy_optimize.minimize(
        lambda z: float(synthetic_problems.six_hump_camel_term(z)), 2.0 * STATED_X, method="Nelder-Mead",
        options={"xatol": 1e-12, "fatol": 1e-15},
    )
    assert 10.0 * result.fun == pytest.approx(synthetic_problems.SIX_HUMP_CAMEL_MINIMUM, abs=1e-12)


@pytest.mark.parametrize(
    ("tables", "optimum"),
    [
        (synthetic_problems.FUNC2C_TABLES, synthetic_problems.FUNC2C_OPTIMUM),
        (synthetic_problems.FUNC3C_TABLES, synthetic_problems.FUNC3C_OPTIMUM),
    ],
    ids=["func2c", "func3c"],
)
def test_no_point_below_optimum(tables: Sequence[Sequence[synthetic_problems.WeightedTerm]], optimum: float) -> None:
    rng = np.random.default_rng(0)
    axis = np.linspace(-1.0, 1.0, GRID_POINTS)
    grid = np.stack(np.meshgrid(axis, axis), axis=-1).reshape(-1, 2)
    grid_minimum = np.inf
    for h in itertools.product(*(range(len(table)) for table in tables)):
        random_points = rng.uniform(-1.0, 1.0, size=(N_RANDOM_POINTS, 2))
        assert synthetic_problems.cocabo_value(tables, h, random_points).min() >= optimum
        grid_minimum = min(grid_minimum, synthetic_problems.cocabo_value(tables, h, grid).min())
    assert optimum <= grid_minimum <= optimum + 1e-3


def test_observation_noise_is_small_and_seeded_by_trial_number() -> None:
    params = {"h1": 1, "h2": 1, "x1": STATED_X[0], "x2": STATED_X[1]}
    objective = single_objective(registry.get_problem("func2c"))
    first = objective(optuna.trial.FixedTrial(params, number=3))
    again = objective(optuna.trial.FixedTrial(params, number=3))
    other = objective(optuna.trial.FixedTrial(params, number=4))
    noise_free = float(synthetic_problems.func2c(1, 1, STATED_X))
    assert first == again != other
    assert 0.0 <= first - noise_free < synthetic_problems.COCABO_NOISE_SCALE


# ------------------------------------------------------------------ Ackley


def test_ackley_optimum_at_origin() -> None:
    assert suite_functions.ackley(np.zeros(6)) == pytest.approx(0.0, abs=1e-12)
    assert suite_functions.ackley(np.zeros(53)) == pytest.approx(0.0, abs=1e-12)
    assert suite_functions.ackley(np.full(6, 0.125)) > 0.0


def test_ackley5c_optimum_reachable() -> None:
    centre = (synthetic_problems.ACKLEY5C_N_LEVELS - 1) // 2
    ends_and_centre = [0, centre, synthetic_problems.ACKLEY5C_N_LEVELS - 1]
    assert synthetic_problems.ackley5c_levels_to_z(ends_and_centre).tolist() == [-1.0, 0.0, 1.0]
    params = {"x": 0.0, **{f"h{i}": centre for i in range(1, 6)}}
    value = registry.get_problem("ackley5c").objective(optuna.trial.FixedTrial(params))
    assert value == pytest.approx(0.0, abs=1e-12)


def test_ackley53_optimum_reachable() -> None:
    params = {**{f"h{i}": 0 for i in range(1, 51)}, **{f"x{i}": 0.0 for i in range(1, 4)}}
    value = registry.get_problem("ackley53").objective(optuna.trial.FixedTrial(params))
    assert value == pytest.approx(0.0, abs=1e-12)


# ------------------------------------------------------------------ chemistry emulators


@pytest.mark.parametrize("name", emulators.EMULATOR_NAMES)
def test_emulator_reproduces_shipped_experiments(name: str) -> None:
    emulator = emulators.load_emulator(name)
    experiments = emulators.load_experiments(name)
    predicted = emulator.predict(experiments)[chemistry_problems.YIELD]
    observed = np.asarray(experiments[chemistry_problems.YIELD], dtype=np.float64)
    assert _r_squared(observed, predicted) > R2_THRESHOLD


def test_state_dict_reader_refuses_unknown_globals() -> None:
    payload = io.BytesIO()
    with zipfile.ZipFile(payload, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps(print))
    with pytest.raises(pickle.UnpicklingError):
        emulators.read_state_dict(payload.getvalue())


def test_baumgartner_cost_hand_computed() -> None:
    # mmol triflate 0.0364: triflate 0.0364 * 5.91 = 0.215124; aniline 1.6 * 0.0364 * 0.01
    # = 0.0005824; catalyst 0.0095 * 0.0364 * 94.08 = 0.032532864; base 2 * 0.0364 * 0.03
    # = 0.002184.
    assert chemistry_problems.baumgartner_cost("tBuXPhos", "DBU", 2.0) == pytest.approx(0.250423264, rel=1e-12)
    # AlPhos: 0.0094 * 0.0364 * 594.18 = 0.2033046288; TEA: 1 * 0.0364 * 0.01 = 0.000364.
    assert chemistry_problems.baumgartner_cost("AlPhos", "TEA", 1.0) == pytest.approx(0.4193750288, rel=1e-12)


def test_baumgartner_yield_optimum_is_reached() -> None:
    emulator = emulators.load_emulator(emulators.BAUMGARTNER_ANILINE)
    axes = (np.linspace(1.0, 2.5, 7), np.linspace(30.0, 100.0, 8), np.linspace(60.0, 1800.0, 8))
    grid = np.array(list(itertools.product(*axes)))
    n = len(grid)
    inputs: dict[str, Sequence[Any] | np.ndarray] = {
        "catalyst": ["AlPhos"] * n,
        "base": ["DBU"] * n,
        "base_equivalents": grid[:, 0],
        "temperature": grid[:, 1],
        "t_res": grid[:, 2],
    }
    assert emulator.predict(inputs)[chemistry_problems.YIELD].max() == chemistry_problems.BAUMGARTNER_YIELD_OPTIMUM


# ------------------------------------------------------------------ conditional search spaces

TRAP_OPTIMUM_PARAMS = {"model": "tree", "tree_kind": "deep", "tree_lr": 10.0**-2.5, "tree_s": 0.3}


def test_conditional_trap_optimum_at_stated_point() -> None:
    assert synthetic_problems.conditional_trap_value(TRAP_OPTIMUM_PARAMS) == synthetic_problems.CONDITIONAL_TRAP_OPTIMUM == 0.0
    floors = {
        "flat": synthetic_problems.conditional_trap_value({"model": "flat", "flat_u": 0.5}),
        "bowl": synthetic_problems.conditional_trap_value({"model": "bowl", "bowl_x": 0.2, "bowl_y": 0.7}),
        "shallow": synthetic_problems.conditional_trap_value({"model": "tree", "tree_kind": "shallow", "tree_depth": 12}),
    }
    assert floors == pytest.approx({"flat": 0.30, "bowl": 0.15, "shallow": 0.6})


def test_conditional_trap_flat_branch_is_a_trap() -> None:
    """The flat branch has the best average of all branches and a worse best than two others."""
    rng = np.random.default_rng(0)
    u = rng.random((N_RANDOM_POINTS, 2))
    lr = 10.0 ** rng.uniform(-4.0, 0.0, N_RANDOM_POINTS)
    averages = {
        "flat": np.mean([synthetic_problems.conditional_trap_value({"model": "flat", "flat_u": a}) for a, _ in u]),
        "bowl": np.mean([synthetic_problems.conditional_trap_value({"model": "bowl", "bowl_x": a, "bowl_y": b}) for a, b in u]),
        "deep": np.mean(
            [
                synthetic_problems.conditional_trap_value({"model": "tree", "tree_kind": "deep", "tree_lr": r, "tree_s": b})
                for r, (_, b) in zip(lr, u)
            ]
        ),
    }
    assert averages["flat"] < 0.31 < 0.9 < min(averages["bowl"], averages["deep"])
    values = [synthetic_problems.conditional_trap_value({"model": "flat", "flat_u": a}) for a, _ in u]
    floors = (synthetic_problems.TRAP_FLAT_FLOOR, synthetic_problems.TRAP_BOWL_FLOOR, synthetic_problems.CONDITIONAL_TRAP_OPTIMUM)
    assert min(values) >= floors[0] > floors[1] > floors[2]


def test_conditional_problems_have_conditional_parameters() -> None:
    pytest.importorskip("sklearn")
    for name, root in (("conditional_trap", "model"), ("automl", "classifier")):
        problem = registry.get_problem(name)
        study = optuna.create_study(directions=list(problem.directions), sampler=optuna.samplers.RandomSampler(seed=0))
        study.optimize(problem.objective, n_trials=12)
        names = [set(t.params) for t in study.trials]
        assert all(root in n for n in names)
        assert len({frozenset(n) for n in names}) >= 3  # several branches, each with its own parameters


# ------------------------------------------------------------------ registry and Optuna runs


@pytest.mark.parametrize("name", registry.PROBLEM_NAMES)
def test_problem_runs_as_optuna_objective(name: str) -> None:
    for module in ML_REQUIREMENTS.get(name, ()):
        pytest.importorskip(module)
    problem = registry.get_problem(name)
    assert problem.name == name
    sampler = optuna.samplers.RandomSampler(seed=0)
    study = optuna.create_study(directions=list(problem.directions), sampler=sampler)
    study.optimize(problem.objective, n_trials=N_TRIALS)
    complete = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert len(complete) == N_TRIALS
    for trial in complete:
        assert len(trial.values) == len(problem.directions)
        assert all(np.isfinite(trial.values))
        if problem.optimum is not None:
            assert simple_regret(problem, trial.values[0]) >= 0.0


def categorical(distribution: BaseDistribution) -> CategoricalDistribution:
    assert isinstance(distribution, CategoricalDistribution), distribution
    return distribution


def floats(distribution: BaseDistribution) -> FloatDistribution:
    assert isinstance(distribution, FloatDistribution), distribution
    return distribution


def test_parameter_names_and_choices() -> None:
    func3c = registry.get_problem("func3c")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(func3c.objective, n_trials=1)
    dists = study.trials[0].distributions
    assert [categorical(dists[f"h{i}"]).choices for i in (1, 2, 3)] == [(0, 1, 2), (0, 1, 2, 3, 4), (0, 1, 2, 3)]
    assert (floats(dists["x1"]).low, floats(dists["x1"]).high) == (-1.0, 1.0)
    assert func3c.n_combinations == 60

    reizman = registry.get_problem("reizman_suzuki_2")
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(reizman.objective, n_trials=1)
    dists = study.trials[0].distributions
    catalysts = ("P1-L1", "P2-L1", "P1-L2", "P1-L3", "P1-L4", "P1-L5", "P1-L6", "P1-L7")
    assert categorical(dists["catalyst"]).choices == catalysts
    assert (floats(dists["t_res"]).low, floats(dists["t_res"]).high) == (60.0, 600.0)
    assert registry.get_problem("baumgartner_mo").n_combinations == 12


def test_unknown_problem_lists_valid_names() -> None:
    with pytest.raises(ValueError, match="func2c"):
        registry.get_problem("no_such_problem")


def test_simple_regret() -> None:
    func2c = registry.get_problem("func2c")
    assert simple_regret(func2c, synthetic_problems.FUNC2C_OPTIMUM) == 0.0
    assert simple_regret(func2c, 0.0) == pytest.approx(-synthetic_problems.FUNC2C_OPTIMUM)
    assert simple_regret(registry.get_problem("baumgartner"), 0.9) == pytest.approx(0.1)
    with pytest.raises(ValueError):
        simple_regret(registry.get_problem("reizman_suzuki_1"), 50.0)


def test_decode_cell() -> None:
    ops = list(ml_problems.NAS_OPS[:2]) + [ml_problems.NAS_OPS[2]] * 3  # widths 16, 32, 8, 8, 8

    def scores(edges: list[tuple[int, int]]) -> list[float]:
        return [1.0 if edge in edges else 0.0 for edge in ml_problems.NAS_EDGES]

    chain = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]
    assert ml_problems.decode_cell(ops, scores(chain), len(chain)) == (16, 32, 8, 8, 8)
    parallel = [(0, 1), (0, 2), (1, 6), (2, 6), (0, 3)]  # node 3 is a dead end and is pruned
    assert ml_problems.decode_cell(ops, scores(parallel), len(parallel)) == (48,)
    assert ml_problems.decode_cell(ops, scores([(0, 6)]), 1) == ()
    assert ml_problems.decode_cell(ops, scores(chain), 0) is None
    assert ml_problems.decode_cell(ops, scores(chain[:-1]), len(chain) - 1) is None
