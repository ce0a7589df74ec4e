"""Tests of the trial-states suite: the split, the repeat rule, and that every task
runs and ends its trials in the states it is built to produce."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import FrozenTrial, TrialState, create_trial

from lab_testing import present, value_of
from vpbo_benchmarks import trial_state_runs, trial_state_tasks, trial_states
from vpbo_benchmarks.records import append_record, load_problem
from vpbo_benchmarks.tuning_task import TrialStateTask

optuna.logging.set_verbosity(optuna.logging.ERROR)


def _states_of(problem_name: str, params_list: list[dict[str, Any]]) -> list[optuna.trial.FrozenTrial]:
    """Run the problem's objective on the given configurations (enqueued, in order)."""
    problem = trial_states.get_trial_state_problem(problem_name)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0), pruner=problem.make_pruner())
    for params in params_list:
        study.enqueue_trial(params)
    study.optimize(problem.task.objective(), n_trials=len(params_list), catch=problem.task.catch)
    return study.trials


# --------------------------------------------------------------------------------------------
# Split
# --------------------------------------------------------------------------------------------


def test_split_is_the_written_rule() -> None:
    assert set(trial_states.TUNING).isdisjoint(trial_states.HELD_OUT)
    # Every problem is in one group: a half of the suite or one of the later sets.
    groups = [trial_states.TUNING, trial_states.HELD_OUT, trial_states.MISLEADING, trial_states.FRESH_PRUNING]
    assert sorted(p for group in groups for p in group) == sorted(trial_states.PROBLEMS)
    assert trial_states.TUNING == (
        "sgd_digits-median", "sgd_digits-hyperband", "mlp_classification-halving", "hgb_warm_start-median",
        "hgb_warm_start-hyperband", "xgb_callback-halving", "linear_svc_invalid", "nan_edge",
    )
    for half in (trial_states.TUNING, trial_states.HELD_OUT):
        problems = [trial_states.PROBLEMS[p] for p in half]
        assert {p.task.family for p in problems} == set(trial_states.FAMILIES)
        pruning = [p for p in problems if p.pruner is not None]
        # Every pruning task and every pruner is in both halves.
        assert {p.task.name for p in pruning} == {t.name for t in trial_states.TASKS.values() if t.family == "pruning"}
        assert {p.pruner for p in pruning} == set(trial_states.PRUNERS)
    assert trial_states.resolve_problems(["held_out", "nan_edge"]) == [*trial_states.HELD_OUT, "nan_edge"]
    with pytest.raises(ValueError, match="unknown trial-states problem"):
        trial_states.resolve_problems(["sgd_digits"])


# --------------------------------------------------------------------------------------------
# Repeats
# --------------------------------------------------------------------------------------------

DISTRIBUTIONS = {
    "c": CategoricalDistribution(["a", "b"]),
    "k": IntDistribution(0, 10),
    "x": FloatDistribution(0.0, 10.0),
    "lr": FloatDistribution(1e-5, 1.0, log=True),
}
BASE = {"c": "a", "k": 3, "x": 5.0, "lr": 1e-3}


def test_same_configuration_within_a_ten_thousandth_of_each_range() -> None:
    same = trial_states.same_configuration
    assert same(BASE, dict(BASE), DISTRIBUTIONS)
    assert same(BASE, {**BASE, "x": 5.0 + 0.9e-3}, DISTRIBUTIONS)  # range 10: tolerance 1e-3
    assert not same(BASE, {**BASE, "x": 5.0 + 1.1e-3}, DISTRIBUTIONS)
    log_span = math.log(1.0) - math.log(1e-5)  # 11.51: tolerance 1.151e-3 in log units
    assert same(BASE, {**BASE, "lr": 1e-3 * math.exp(0.9e-4 * log_span)}, DISTRIBUTIONS)
    assert not same(BASE, {**BASE, "lr": 1e-3 * math.exp(1.1e-4 * log_span)}, DISTRIBUTIONS)
    assert not same(BASE, {**BASE, "k": 4}, DISTRIBUTIONS)
    assert not same(BASE, {**BASE, "c": "b"}, DISTRIBUTIONS)
    assert not same(BASE, {k: v for k, v in BASE.items() if k != "lr"}, DISTRIBUTIONS)
    assert not same({}, {}, DISTRIBUTIONS)


def test_repeat_flags_count_only_earlier_pruned_and_failed_trials() -> None:
    def trial(state: TrialState, params: dict[str, Any], value: float | None = None) -> FrozenTrial:
        return create_trial(state=state, params=params, distributions=DISTRIBUTIONS,
                            value=value if state == TrialState.COMPLETE else None)

    near = {**BASE, "x": 5.0 + 1e-4}
    trials = [
        trial(TrialState.COMPLETE, BASE, 1.0),
        trial(TrialState.COMPLETE, near, 1.0),  # repeats a COMPLETE trial: not counted
        trial(TrialState.PRUNED, {**BASE, "k": 7}),
        trial(TrialState.COMPLETE, {**BASE, "k": 7, "x": 5.0005}, 2.0),  # repeats the pruned one
        trial(TrialState.FAIL, {**BASE, "c": "b"}),
        trial(TrialState.FAIL, {**BASE, "c": "b"}),  # repeats the failed one
        trial(TrialState.COMPLETE, {**BASE, "c": "b", "x": 6.0}, 1.0),
    ]
    assert trial_states.repeat_flags(trials) == [False, False, False, True, False, True, False]


# --------------------------------------------------------------------------------------------
# Crash tasks: known optima checked independently, failures where stated
# --------------------------------------------------------------------------------------------


def test_nan_edge_optimum_is_on_the_edge_of_the_failing_region() -> None:
    from scipy.optimize import minimize

    point, optimum = trial_states.nan_edge_best()
    # Independent: SLSQP on the smooth part under x1 + x2 <= limit.
    target = np.array(trial_states.NAN_EDGE_TARGET)
    result = minimize(
        lambda x: trial_states.NAN_EDGE_WEIGHT * float(np.sum((x - target) ** 2)), x0=np.array([0.2, 0.2]), method="SLSQP",
        bounds=[(0, 1), (0, 1)], constraints=[{"type": "ineq", "fun": lambda x: trial_states.NAN_EDGE_LIMIT - x[0] - x[1]}],
    )
    assert optimum == pytest.approx(trial_states.NAN_EDGE_OFFSETS["a"] + result.fun, abs=1e-7)
    assert [point["x1"], point["x2"]] == pytest.approx(result.x, abs=1e-4)
    inside = {**point, "x1": point["x1"] - 1e-9, "x2": point["x2"] - 1e-9}
    assert trial_states.nan_edge_value(**inside) == pytest.approx(optimum, abs=1e-7)
    assert math.isnan(trial_states.nan_edge_value(**{**point, "x1": point["x1"] + 1e-3}))
    rng = np.random.default_rng(0)
    for _ in range(500):
        kind = rng.choice(list(trial_states.NAN_EDGE_OFFSETS))
        x1, x2 = rng.uniform(0, 1, 2)
        value = trial_states.nan_edge_value(kind, x1, x2, 10 ** rng.uniform(-5, 0), int(rng.integers(0, 11)))
        assert math.isnan(value) or value >= optimum
    trials = _states_of("nan_edge", [inside, {**point, "x1": 0.9, "x2": 0.9}])
    assert [t.state for t in trials] == [TrialState.COMPLETE, TrialState.FAIL]  # NaN ends a trial FAIL


def test_diverge_combo_optimum_failing_pairs_and_region() -> None:
    point, optimum = trial_states.diverge_combo_best()
    assert trial_states.diverge_combo_value(**point) == pytest.approx(optimum, abs=1e-12)
    # Independent: a grid over (pair, lr, weight decay, warmup) never beats it.
    grid_best = math.inf
    for optimizer, schedule in itertools.product(trial_states.DIVERGE_OPTIMIZERS, trial_states.DIVERGE_SCHEDULES):
        for lr, wd, warmup in itertools.product(np.logspace(-5, 0, 101), np.logspace(-6, -1, 51), range(11)):
            try:
                grid_best = min(grid_best, trial_states.diverge_combo_value(optimizer, schedule, lr, wd, warmup))
            except (ValueError, FloatingPointError):
                continue
    assert optimum <= grid_best <= optimum + 0.01
    above = {**point, "lr": point["lr"] * 1.01}
    invalid = {**point, "schedule": "step"}  # adam x step
    trials = _states_of("diverge_combo", [point, above, invalid])
    assert [t.state for t in trials] == [TrialState.COMPLETE, TrialState.FAIL, TrialState.FAIL]
    assert trials[0].value == pytest.approx(optimum)
    n_invalid = sum(
        (o, s) in trial_states.DIVERGE_INVALID
        for o, s in itertools.product(trial_states.DIVERGE_OPTIMIZERS, trial_states.DIVERGE_SCHEDULES)
    )
    assert n_invalid == 3


# --------------------------------------------------------------------------------------------
# Invalid-combination tasks
# --------------------------------------------------------------------------------------------


def test_logreg_invalid_fails_exactly_on_the_excluded_combinations() -> None:
    combos = list(itertools.product(trial_state_tasks.LOGREG_SOLVERS, trial_state_tasks.LOGREG_PENALTIES, [False, True]))
    params = [{"solver": s, "penalty": p, "dual": d, "C": 1.0, "l1_ratio": 0.5} for s, p, d in combos]
    trials = _states_of("logreg_invalid", params)
    failed = {c for c, t in zip(combos, trials) if t.state == TrialState.FAIL}
    assert len(failed) == 33
    # A few of scikit-learn's rules, stated independently.
    assert ("lbfgs", "l1", False) in failed and ("liblinear", "none", False) in failed
    assert ("liblinear", "l2", True) not in failed and ("saga", "elasticnet", False) not in failed
    assert all(0 < value_of(t) < 5 for t in trials if t.state == TrialState.COMPLETE)  # finite log-losses


def test_linear_svc_invalid_fails_on_four_of_eight() -> None:
    combos = list(itertools.product(["hinge", "squared_hinge"], ["l1", "l2"], [True, False]))
    params = [{"loss": loss, "penalty": p, "dual": d, "C": 1.0, "tol": 1e-4, "class_weight": "none", "fit_intercept": True}
              for loss, p, d in combos]
    trials = _states_of("linear_svc_invalid", params)
    failed = {c for c, t in zip(combos, trials) if t.state == TrialState.FAIL}
    assert failed == {("hinge", "l1", True), ("hinge", "l1", False), ("hinge", "l2", False), ("squared_hinge", "l1", True)}


# --------------------------------------------------------------------------------------------
# Pruning tasks: a run of the runner's own function
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [t for t in trial_states.TASKS.values() if t.family == "pruning"], ids=lambda t: t.name)
def test_pruning_task_runs_reports_and_prunes(task: TrialStateTask) -> None:
    record = trial_state_runs.run_study(f"{task.name}-median", "random", 0, 12)
    states = record["states"]
    assert len(states) == len(record["compute"]) == len(record["repeats"]) == len(record["values"]) == 12
    assert set(states) <= {"C", "P"} and "P" in states and "C" in states
    units_per_step = present(task.units_per_step)  # a pruning task's
    full = task.max_steps * units_per_step
    for state, compute, value in zip(states, record["compute"], record["values"]):
        if state == "C":
            assert compute == full and 0 <= value[0] < 10
        else:  # MedianPruner(n_warmup_steps=3) prunes at step 3 (the 4th report) at the earliest
            assert 4 * units_per_step <= compute < full and value is None


def test_other_pruners_prune_and_record_compute() -> None:
    record = trial_state_runs.run_study("xgb_callback-hyperband", "random", 0, 20)
    assert "P" in record["states"]
    assert all(0 < c <= trial_states.XGB_ROUNDS for c in record["compute"])
    record = trial_state_runs.run_study("sgd_digits-halving", "random", 1, 12)
    assert "P" in record["states"] and set(record["states"]) <= {"C", "P", "F"}


def test_record_round_trip_keeps_states_compute_and_repeats(tmp_path: Path) -> None:
    record = trial_state_runs.run_study("nan_edge", "random", 3, 15)
    assert "F" in record["states"] and record["compute"] == [1] * 15
    append_record(tmp_path, record)
    stored = load_problem(tmp_path, "nan_edge")["random"][0]
    for key in ("states", "compute", "repeats", "values"):
        assert stored[key] == record[key]
    assert stored["params"][0].keys() == {"kind", "k"}  # floats are not stored
