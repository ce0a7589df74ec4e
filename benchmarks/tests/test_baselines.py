"""Tests of the paper's baselines (vpbo_benchmarks.baselines), SMAC and the Oracle."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any
from unittest import mock

import numpy as np
import optuna
import pytest
from optuna.trial import BaseTrial

from optuna_vpbo import VPBOSampler, VPBOSettings
from optuna_vpbo.gp import GPHyperparameters
from vpbo_benchmarks import oracle
from vpbo_benchmarks.baselines import (
    BASELINE_FACTORIES,
    EXP3BO,
    BanditBO,
    CoCaBO,
    Exp3,
    GPBanditSampler,
    OneHotBO,
    Strategy,
    UniformBandit,
)
from vpbo_benchmarks.baselines.arms import ArmModel, arm_indices
from vpbo_benchmarks.baselines.banditbo import joint_sample
from vpbo_benchmarks.baselines.onehot import one_hot, one_hot_snap, round_one_hot
from vpbo_benchmarks.baselines.ucb import Surrogate, UCBSettings, maximise_ucb
from vpbo_benchmarks.problem import MINIMIZE, Problem
from vpbo_benchmarks.samplers import SAMPLER_FACTORIES

# The toy problem: combination ("a", 0) is best by 0.8; x* = (0.3, -0.2); minimum 0.
TOY_OFFSETS = {("a", 0): 0.0, ("a", 1): 1.0, ("a", 2): 1.5, ("b", 0): 0.8, ("b", 1): 2.0, ("b", 2): 1.2}
TOY_X_STAR = (0.3, -0.2)
N_TOY_TRIALS = 50
N_RANDOM_SEEDS = 20
STRATEGY_SEEDS = (0, 1, 2)
# Shorter than the paper's 24, so that 50 trials leave most of the budget to the model.
N_TEST_STARTUP = 12
# Past the per-arm initial design (6 arms x 3) and the paper's 24 random points.
N_SMOKE_TRIALS = 27
N_ORACLE_TRIALS = 10

STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "cocabo-0.5": lambda: CoCaBO(lam=0.5, n_startup_trials=N_TEST_STARTUP),
    "cocabo-auto": lambda: CoCaBO(lam=None, n_startup_trials=N_TEST_STARTUP),
    "cocabo-s": lambda: CoCaBO(lam=None, search_initialization=True, n_startup_trials=N_TEST_STARTUP),
    "randombo": lambda: CoCaBO(lam=None, bandit=UniformBandit(), n_startup_trials=N_TEST_STARTUP),
    "onehot-bo": lambda: OneHotBO(n_startup_trials=N_TEST_STARTUP),
    "exp3bo": EXP3BO,
    "banditbo": BanditBO,
}


def toy_objective(trial: BaseTrial) -> float:
    h1 = trial.suggest_categorical("h1", ["a", "b"])
    h2 = trial.suggest_categorical("h2", [0, 1, 2])
    x1 = trial.suggest_float("x1", -1.0, 1.0)
    x2 = trial.suggest_float("x2", -1.0, 1.0)
    return TOY_OFFSETS[(h1, h2)] + (x1 - TOY_X_STAR[0]) ** 2 + (x2 - TOY_X_STAR[1]) ** 2


def grid_objective(trial: optuna.Trial) -> float:
    """A categorical with a grid float, a log float and a stepped int: decoding must hit them."""
    kind = trial.suggest_categorical("kind", ["p", "q"])
    x = trial.suggest_float("x", 0.0, 1.0, step=0.25)
    lr = trial.suggest_float("lr", 1e-3, 1.0, log=True)
    n = trial.suggest_int("n", 2, 10, step=2)
    return (0.0 if kind == "p" else 1.0) + (x - 0.5) ** 2 + math.log10(lr) ** 2 + 0.01 * n


TOY_PROBLEM = Problem(
    name="toy",
    directions=(MINIMIZE,),
    optimum=0.0,
    n_combinations=len(TOY_OFFSETS),
    objective=toy_objective,
    description="two categoricals (6 combinations) and two floats",
)


def best_value(sampler: optuna.samplers.BaseSampler, objective: Callable[[optuna.Trial], float], n: int) -> float:
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=n)
    return study.best_value


@pytest.fixture(scope="module")
def random_search_median() -> float:
    return float(
        np.median(
            [
                best_value(optuna.samplers.RandomSampler(seed), toy_objective, N_TOY_TRIALS)
                for seed in range(N_RANDOM_SEEDS)
            ]
        )
    )


# ------------------------------------------------------------------ strategies find the optimum


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_strategy_beats_random_search_median(name: str, random_search_median: float) -> None:
    """Over 3 fixed seeds, the median best value is below random search's median (0.099 on this
    problem; the strategies reach 0.0-0.05, a random-search equivalent would fail half the time)."""
    bests = [
        best_value(GPBanditSampler(STRATEGIES[name](), seed=seed), toy_objective, N_TOY_TRIALS)
        for seed in STRATEGY_SEEDS
    ]
    assert np.median(bests) < random_search_median, (bests, random_search_median)


@pytest.mark.parametrize("name", sorted(BASELINE_FACTORIES))
def test_registered_baselines_decode_onto_grids(name: str) -> None:
    """Every registered baseline runs under Optuna past its initial design, and after the first
    trial every value is its own (none falls back to the independent sampler)."""
    assert SAMPLER_FACTORIES[name] is BASELINE_FACTORIES[name]
    sampler = SAMPLER_FACTORIES[name](0)
    study = optuna.create_study(sampler=sampler)
    with mock.patch.object(sampler, "sample_independent", wraps=sampler.sample_independent) as independent:
        study.optimize(grid_objective, n_trials=N_SMOKE_TRIALS)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert {call.args[1].number for call in independent.call_args_list} == {0}


# ------------------------------------------------------------------ EXP3


def test_exp3_gamma_probabilities_and_update_by_hand() -> None:
    n_arms, budget, reward = 3, 30, 0.6
    gamma = math.sqrt(3 * math.log(3) / ((math.e - 1) * 20))  # horizon 2 * 30 / 3 = 20
    bandit = Exp3.for_budget(n_arms, budget)
    assert bandit.gamma == pytest.approx(gamma, rel=1e-12)
    weights = bandit.initial_log_weights()
    np.testing.assert_allclose(bandit.probabilities(weights), [1 / 3] * 3)
    # Pulling arm 1 at p = 1/3: w_1 = exp(gamma (0.6 / (1/3)) / 3) = exp(0.6 gamma).
    w1 = math.exp(0.6 * gamma)
    updated = bandit.update(weights, 1, reward)
    expected = [(1 - gamma) * w / (2 + w1) + gamma / 3 for w in (1.0, w1, 1.0)]
    np.testing.assert_allclose(bandit.probabilities(updated), expected, rtol=1e-12)
    assert Exp3.for_budget(1, budget).gamma == 0.0
    assert Exp3.for_budget(50, 3).gamma == 1.0  # capped


def test_exp3_replay_rewards_best_so_far_of_the_pulled_arm() -> None:
    """Rows 0-1 are the initial design (no update); the pulls at rows 2, 3, 4 are rewarded with
    the best value so far among their arm's rows: 1.0 (rows 0, 2), 2.0 (rows 1, 3), -1.0."""
    bandit = Exp3.for_budget(3, 30)
    gamma = bandit.gamma
    log_w = np.zeros(3)
    for arm, reward in ((0, 1.0), (1, 2.0), (2, -1.0)):
        w = np.exp(log_w)
        p = (1 - gamma) * w[arm] / w.sum() + gamma / 3
        log_w[arm] += gamma * (reward / p) / 3
    replayed = bandit.replay(np.array([0, 1, 0, 1, 2]), np.array([1.0, 0.5, 0.2, 2.0, -1.0]), first_pull=2)
    np.testing.assert_allclose(replayed, log_w, rtol=1e-12)


def test_exp3_log_weights_do_not_overflow_on_raw_yields() -> None:
    bandit = Exp3.for_budget(3, 200)
    arms = np.zeros(300, dtype=np.int64)
    p = bandit.probabilities(bandit.replay(arms, np.full(300, 100.0), first_pull=0))
    assert np.all(np.isfinite(p)) and p[0] == pytest.approx(1 - 2 * bandit.gamma / 3)


# ------------------------------------------------------------------ One-hot BO


def test_one_hot_encoding_and_rounding() -> None:
    n_levels = np.array([3, 2])
    np.testing.assert_array_equal(one_hot(np.array([[1, 0], [2, 1]]), n_levels), [[0, 1, 0, 1, 0], [0, 0, 1, 0, 1]])
    relaxed = np.array([[0.2, 0.7, 0.1, 0.4, 0.6, 0.33]])
    np.testing.assert_array_equal(round_one_hot(relaxed[:, :5], n_levels), [[1, 1]])
    snapped = one_hot_snap(n_levels, lambda x: np.round(x, 1))(relaxed)
    np.testing.assert_allclose(snapped, [[0, 1, 0, 0, 1, 0.3]])


# ------------------------------------------------------------------ shared pieces


def _quadratic_gp(n: int = 30) -> Surrogate:
    rng = np.random.default_rng(0)
    x = rng.random((n, 2))
    y = -np.sum((x - 0.7) ** 2, axis=1)
    y = (y - y.mean()) / y.std()
    no_h = np.zeros((n, 0), dtype=np.int32)
    hyperparameters = GPHyperparameters(np.array([0.5, 0.5]), 1.0, 1e-6, 1.0)
    return Surrogate(hyperparameters.make_gp(no_h, x, y), 1e-6, np.zeros(0, dtype=np.int32))


def test_ucb_maximiser_finds_the_mean_maximum_and_snaps() -> None:
    surrogate = _quadratic_gp()
    rng = np.random.default_rng(1)
    x = maximise_ucb(surrogate, 2, rng, lambda z: z, UCBSettings(kappa=0.0, n_samples=500))
    np.testing.assert_allclose(x, [0.7, 0.7], atol=0.03)
    on_grid = maximise_ucb(surrogate, 2, rng, lambda z: np.round(z * 4) / 4, UCBSettings(n_samples=500))
    np.testing.assert_allclose(on_grid * 4, np.round(on_grid * 4))


def test_per_arm_initial_design_gives_each_arm_three_points() -> None:
    study = optuna.create_study(sampler=GPBanditSampler(EXP3BO(), seed=3))
    study.optimize(toy_objective, n_trials=3 * len(TOY_OFFSETS))
    counts = {key: 0 for key in TOY_OFFSETS}
    for t in study.trials:
        counts[(t.params["h1"], t.params["h2"])] += 1
    assert set(counts.values()) == {3}
    # Arm 0 has its third point at row 4, arm 1 at row 5: the pulls start at row 6.
    arms = arm_indices(np.array([[0], [1], [0], [1], [0], [1], [1]]), np.array([2]))
    assert EXP3BO().first_pull(arms, 2) == 6


def test_bandit_bo_draws_are_joint() -> None:
    """Two nearly equal points far from the data get nearly equal draws (an independent draw
    at each would differ by about the prior standard deviation)."""
    surrogate = _quadratic_gp(5)
    model = ArmModel(
        surrogate,
        GPHyperparameters(np.array([0.5, 0.5]), 1.0, 1e-6, 1.0),
        np.random.default_rng(0).random((5, 2)) * 0.2,
        np.linspace(-1, 1, 5),
        0.0,
        1.0,
    )
    rng = np.random.default_rng(2)
    points = np.array([[0.9, 0.9], [0.9, 0.9001]])
    gaps = [abs(np.subtract(*joint_sample(model, points, rng))) for _ in range(20)]
    assert max(gaps) < 0.01


# ------------------------------------------------------------------ SMAC and the Oracle


def test_smac_sampler_runs_past_its_initial_design() -> None:
    pytest.importorskip("smac")
    values = [best_value(SAMPLER_FACTORIES["smac"](0), grid_objective, N_SMOKE_TRIALS)]
    assert np.all(np.isfinite(values))


def _fast_oracle_sampler(seed: int) -> optuna.samplers.BaseSampler:
    return VPBOSampler(
        seed=seed, n_startup_trials=4, settings=VPBOSettings(n_candidates=64), warn_independent_sampling=False
    )


def test_oracle_trace_is_the_running_best_over_combinations() -> None:
    runs = oracle.oracle_runs(TOY_PROBLEM, N_ORACLE_TRIALS, 0, make_sampler=_fast_oracle_sampler)
    assert sorted((r.fixed["h1"], r.fixed["h2"]) for r in runs) == sorted(TOY_OFFSETS)
    for run in runs:
        assert {(p["h1"], p["h2"]) for p in run.params} == {(run.fixed["h1"], run.fixed["h2"])}
    trace, _ = oracle.combine(runs, MINIMIZE)
    per_run = np.array([oracle.best_so_far(r.values, MINIMIZE) for r in runs])
    assert np.all(np.diff(trace) <= 0)
    assert np.all(trace <= per_run + 1e-15)
    np.testing.assert_array_equal(trace, per_run.min(axis=0))


def test_oracle_record_has_the_runner_format() -> None:
    record: dict[str, Any] = oracle.oracle_record(TOY_PROBLEM, N_ORACLE_TRIALS, 0, make_sampler=_fast_oracle_sampler)
    assert record["sampler"] == oracle.ORACLE and record["problem"] == "toy"
    assert len(record["values"]) == len(record["params"]) == len(record["sampler_seconds"]) == N_ORACLE_TRIALS
    values = [v[0] for v in record["values"]]
    assert values == sorted(values, reverse=True)
    best = record["params"][-1]
    assert toy_objective(optuna.trial.FixedTrial(best)) == pytest.approx(values[-1])
    per_combination = record["combination_best"]
    assert sorted((b["params"]["h1"], b["params"]["h2"]) for b in per_combination) == sorted(TOY_OFFSETS)
    for entry in per_combination:
        assert toy_objective(optuna.trial.FixedTrial(entry["params"])) == pytest.approx(entry["value"])
    assert min(b["value"] for b in per_combination) == pytest.approx(values[-1])
