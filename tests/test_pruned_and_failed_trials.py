"""Every trial teaches: pruned and failed trials in the model, no repeat of a pruned
or failed configuration, floats strictly inside their bounds."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution
from optuna.study import StudyDirection
from optuna.trial import TrialState, create_trial

from optuna_vpbo import VPBOSampler, VPBOSettings
from optuna_vpbo._trial_states import (
    OBJECTIVE_FAILURE_KEY,
    finished_trials,
    impute_pruned_values,
    step_to_final,
)
from optuna_vpbo.search_space import BOUND_MARGIN, SAME_VALUE_FRACTION, MixedSpaceEncoder

optuna.logging.set_verbosity(optuna.logging.ERROR)


def _complete(value: float, curve: dict[int, float]) -> optuna.trial.FrozenTrial:
    return create_trial(value=value, intermediate_values=curve)


def _pruned(curve: dict[int, float]) -> optuna.trial.FrozenTrial:
    return create_trial(state=TrialState.PRUNED, intermediate_values=curve)


def test_step_to_final_is_the_least_squares_line_of_the_peers() -> None:
    rng = np.random.default_rng(0)
    intermediate = rng.uniform(0, 1, 12)
    final = 0.3 + 0.7 * intermediate + rng.normal(0, 0.05, 12)
    slope, intercept = np.polyfit(intermediate, final, 1)
    values = np.array([0.2, 0.9])
    predicted = step_to_final(np.column_stack([intermediate, final]), values)
    np.testing.assert_allclose(predicted, intercept + slope * values, rtol=1e-10)


def test_step_to_final_never_predicts_a_better_end_from_a_worse_start() -> None:
    intermediate = np.array([0.1, 0.2, 0.3, 0.4])
    final = np.array([0.4, 0.3, 0.2, 0.1])  # a negative slope is clipped to a flat line
    np.testing.assert_allclose(step_to_final(np.column_stack([intermediate, final]), np.array([0.0, 1.0])), [0.25, 0.25])
    # Too few peers for a line: the median offset between intermediate and final values.
    np.testing.assert_allclose(step_to_final(np.array([[1.0, 0.5], [2.0, 1.7]]), np.array([3.0])), [3.0 - 0.4])


def test_pruned_values_are_mapped_from_their_step_and_kept_between_median_and_worst() -> None:
    complete = [_complete(v, {0: v + 1.0, 1: v + 0.5}) for v in (0.1, 0.2, 0.3, 0.4, 1.0)]
    pruned = [_pruned({0: 1.15}), _pruned({0: 5.0, 1: 4.0}), _pruned({0: 1.0, 1: 1.3}), _pruned({})]
    imputed = impute_pruned_values(complete, pruned, StudyDirection.MINIMIZE)
    finals = np.array([0.1, 0.2, 0.3, 0.4, 1.0])
    # Step 0 maps v -> v - 1 exactly; 0.15 is better than the median (0.3): floored there.
    assert imputed[0] == pytest.approx(np.median(finals))
    # Far worse than every peer: capped at the worst complete value.
    assert imputed[1] == pytest.approx(finals.max())
    # Step 1 maps v -> v - 0.5: 1.3 -> 0.8.
    assert imputed[2] == pytest.approx(0.8)
    # Pruned before any report: the worst complete value.
    assert imputed[3] == pytest.approx(finals.max())


def test_pruned_values_follow_the_direction_of_a_maximised_study() -> None:
    complete = [_complete(v, {3: v - 0.1}) for v in (0.5, 0.6, 0.7, 0.9)]
    imputed = impute_pruned_values(complete, [_pruned({3: 0.55}), _pruned({3: 0.1})], StudyDirection.MAXIMIZE)
    np.testing.assert_allclose(imputed, [0.65, 0.5])  # the median (0.65) is the ceiling, the worst (0.5) the floor


def test_only_the_objectives_failures_count_and_not_retried_ones() -> None:
    marked = create_trial(state=TrialState.FAIL, system_attrs={OBJECTIVE_FAILURE_KEY: True})
    heartbeat = create_trial(state=TrialState.FAIL)  # failed by the storage: never passed after_trial
    retried = create_trial(state=TrialState.FAIL, system_attrs={OBJECTIVE_FAILURE_KEY: True})
    trials = [marked, heartbeat, retried, create_trial(value=1.0, system_attrs={"failed_trial": 2}), _pruned({})]
    for number, trial in enumerate(trials):
        trial.number = number
    finished = finished_trials(trials)
    assert finished.failed == [marked]
    assert len(finished.complete) == 1 and len(finished.pruned) == 1


def test_exceptions_and_nan_values_mark_the_failure_in_after_trial() -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0, 1)
        if trial.number == 1:
            raise ValueError("invalid")
        return math.nan if trial.number == 2 else x

    study = optuna.create_study(sampler=VPBOSampler(seed=0))
    study.optimize(objective, n_trials=4, catch=(ValueError,))
    states = [t.state for t in study.trials]
    assert states == [TrialState.COMPLETE, TrialState.FAIL, TrialState.FAIL, TrialState.COMPLETE]
    assert [bool(t.system_attrs.get(OBJECTIVE_FAILURE_KEY)) for t in study.trials] == [False, True, True, False]


def _same_configuration(a: dict[str, Any], b: dict[str, Any], space: dict[str, BaseDistribution]) -> bool:
    """The issue's definition: equal categoricals and ints, floats within 1/10000 of their (log) range."""
    for name, dist in space.items():
        if isinstance(dist, FloatDistribution):
            scale = (lambda v: math.log(v)) if dist.log else (lambda v: v)
            span = scale(dist.high) - scale(dist.low)
            if abs(scale(a[name]) - scale(b[name])) > SAME_VALUE_FRACTION * span:
                return False
        elif a[name] != b[name]:
            return False
    return True


def _repeats(study: optuna.Study, space: dict[str, BaseDistribution]) -> list[int]:
    """Numbers of trials that repeat an earlier pruned or failed trial."""
    bad: list[dict[str, Any]] = []
    repeats = []
    for t in study.trials:
        if any(_same_configuration(t.params, b, space) for b in bad):
            repeats.append(t.number)
        if t.state in (TrialState.PRUNED, TrialState.FAIL):
            bad.append(t.params)
    return repeats


def test_a_pruned_or_failed_configuration_is_not_proposed_again() -> None:
    space = {
        "kind": optuna.distributions.CategoricalDistribution(["a", "b", "c"]),
        "n": IntDistribution(0, 3),
        "x": FloatDistribution(0.0, 1.0, step=0.25),
    }

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        n = trial.suggest_int("n", 0, 3)
        x = trial.suggest_float("x", 0.0, 1.0, step=0.25)
        value = (x - 0.5) ** 2 + 0.1 * n + (0.0 if kind == "a" else 0.2)
        if kind == "a" and n == 0:
            raise ValueError("invalid combination")  # beside the optimum (n = 0 is best)
        trial.report(value + 1.0, 0)
        if value > 0.3 and trial.number > 5:
            raise optuna.TrialPruned()
        return value

    study = optuna.create_study(sampler=VPBOSampler(seed=1))
    study.optimize(objective, n_trials=40, catch=(ValueError,))
    states = [t.state for t in study.trials]
    assert states.count(TrialState.PRUNED) >= 5 and states.count(TrialState.FAIL) >= 1
    # 60 points: every suggestion after the random design (its first 5 trials) is a new one.
    assert [n for n in _repeats(study, space) if n >= 5] == []


def test_a_branch_that_only_pruned_trials_took_shapes_the_tree() -> None:
    """Pruned trials are part of the search tree: a branch every one of whose trials so far was
    pruned (its parameter absent where the complete trials had it) is modelled as a branch, so
    that its pruned configurations are neither ignored by the model nor proposed again."""

    def objective(trial: optuna.Trial) -> float:
        bootstrap = trial.suggest_categorical("bootstrap", [True, False])
        features = trial.suggest_float("features", 0.1, 1.0)
        samples = trial.suggest_float("samples", 0.1, 1.0) if bootstrap else 1.0
        value = (features - 0.7) ** 2 + (samples - 0.6) ** 2 - (0.5 if not bootstrap else 0.0)
        trial.report(value + 1.0, 0)
        if not bootstrap and trial.number >= 3:
            raise optuna.TrialPruned()  # the better branch never completes in this study
        return value

    study = optuna.create_study(sampler=VPBOSampler(seed=2))
    study.enqueue_trial({"bootstrap": True})
    study.enqueue_trial({"bootstrap": True})
    study.enqueue_trial({"bootstrap": True})
    study.optimize(objective, n_trials=40)
    complete = [t for t in study.trials if t.state == TrialState.COMPLETE]
    pruned = [t for t in study.trials if t.state == TrialState.PRUNED]
    assert all(t.params["bootstrap"] for t in complete) and len(pruned) >= 5
    # No pruned configuration again: "features" within SAME_VALUE_FRACTION of its range.
    seen: list[float] = []
    for t in pruned:
        assert all(abs(t.params["features"] - f) > SAME_VALUE_FRACTION * 0.9 for f in seen), t.number
        seen.append(t.params["features"])


def test_floats_never_land_on_their_bounds_while_grids_keep_theirs() -> None:
    def objective(trial: optuna.Trial) -> float:
        fraction = trial.suggest_float("fraction", 0.0, 1.0)
        rate = trial.suggest_float("rate", 1e-3, 1.0, log=True)
        n = trial.suggest_int("n", 1, 4)
        step = trial.suggest_float("step", 0.0, 1.0, step=0.5)
        return fraction + math.log(rate) + n + step  # optimum at every lower bound

    study = optuna.create_study(sampler=VPBOSampler(seed=0))
    study.optimize(objective, n_trials=30)
    params = [t.params for t in study.trials]
    assert all(0.0 < p["fraction"] < 1.0 and 1e-3 < p["rate"] < 1.0 for p in params)
    best = study.best_params
    assert best["fraction"] < 1e-3 and best["rate"] < 1.1e-3, "the optimum on the bound is approached"
    assert best["n"] == 1 and best["step"] == 0.0, "ints and steps still reach their bounds"


def test_decode_keeps_a_relative_margin_from_the_bounds() -> None:
    encoder = MixedSpaceEncoder({"u": FloatDistribution(0.0, 1.0), "r": FloatDistribution(1e-5, 1e-1, log=True)})
    low = encoder.decode(np.zeros(0, dtype=np.int32), np.array([0.0, 0.0]))
    high = encoder.decode(np.zeros(0, dtype=np.int32), np.array([1.0, 1.0]))
    assert low["u"] == pytest.approx(BOUND_MARGIN) and 0.0 < low["u"]
    assert high["u"] == pytest.approx(1.0 - BOUND_MARGIN) and high["u"] < 1.0
    assert 1e-5 < low["r"] < 1e-5 * 1.0001 and 0.1 * 0.9999 < high["r"] < 0.1


def test_the_design_counts_pruned_trials_and_the_model_uses_them() -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -2, 2)
        kind = trial.suggest_categorical("kind", ["a", "b"])
        value = x**2 + (kind == "b")
        trial.report(value + 1.0, 0)
        if trial.number >= 3 and trial.number % 3:  # two thirds pruned after three complete trials
            raise optuna.TrialPruned()
        return value

    n_design = VPBOSettings().n_startup_trials
    study = optuna.create_study(sampler=VPBOSampler(seed=0, record_proposals=True))
    study.optimize(objective, n_trials=n_design + 4)
    phases = [t.user_attrs["vpbo"]["phase"] for t in study.trials]
    assert phases[n_design:] == ["proposals"] * 4, "the design ends after its finished trials, not its complete ones"
    last = study.trials[-1].user_attrs["vpbo"]
    pruned_before = sum(t.state == TrialState.PRUNED for t in study.trials[:-1])
    assert last["pruned_in_model"] == pruned_before and last["failed_in_model"] == 0


def test_failures_teach_the_model_where_trials_fail() -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        y = trial.suggest_float("y", 0.0, 1.0)
        if x > 0.6:
            return math.nan  # a failing region beside the optimum (x = 0.6)
        return (x - 0.6) ** 2 + (y - 0.4) ** 2

    n_design = VPBOSettings().n_startup_trials
    study = optuna.create_study(sampler=VPBOSampler(seed=0, record_proposals=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study.optimize(objective, n_trials=n_design + 40)
    after_design = study.trials[n_design:]
    failed = sum(t.state == TrialState.FAIL for t in after_design)
    assert failed <= 8, f"{failed} of 40 trials after the design failed (random search: about 16)"
    assert study.best_value < 1e-3
    diagnostics = study.trials[-1].user_attrs["vpbo"]
    assert diagnostics["failed_in_model"] == sum(t.state == TrialState.FAIL for t in study.trials[:-1])
    assert 0.0 <= diagnostics["p_success"] <= 1.0
