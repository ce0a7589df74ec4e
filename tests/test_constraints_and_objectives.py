"""Constrained and multi-objective studies: feasibility modelling, ParEGO scalarisation and EHVI."""

from __future__ import annotations

import contextlib

import numpy as np
import optuna
import pytest
from optuna.study import StudyDirection

from conftest import assert_all_complete, assert_gp_suggestions_used, make_sampler, needs_named_constraints, value_of
from optuna_vpbo._optuna_compat import HAS_NAMED_CONSTRAINTS, trial_constraints
from optuna_vpbo._targets import scalarized_values


def constrained_objective(trial: optuna.Trial) -> float:
    """min x^2 + y^2 + offset(c) s.t. x + y >= 1: optimum 0.5 at x = y = 0.5, c = "a"."""
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    x = trial.suggest_float("x", -2.0, 2.0)
    y = trial.suggest_float("y", -2.0, 2.0)
    trial.set_constraint("sum", 1.0 - x - y)
    return x * x + y * y + {"a": 0.0, "b": 0.3, "c": 1.0}[c]


def best_feasible(study: optuna.Study) -> float:
    return min(value_of(t) for t in study.trials if all(v <= 0 for v in t.constraints.values()))


@needs_named_constraints
def test_constrained_study_converges_to_the_feasible_optimum() -> None:
    study = optuna.create_study(sampler=make_sampler(seed=0, n_startup_trials=10))
    study.optimize(constrained_objective, n_trials=40)
    assert_all_complete(study, 40)
    assert_gp_suggestions_used(study, first=10)
    assert best_feasible(study) - 0.5 < 0.02
    # the proposals hug the boundary: about half feasible, against 28 % for random points
    later = study.trials[10:]
    assert np.mean([t.constraints["sum"] <= 0 for t in later]) > 0.45


@needs_named_constraints
def test_search_for_feasibility_when_nothing_is_feasible_yet() -> None:
    """Feasible only in a small corner: the sampler must find it from infeasible data alone."""

    def objective(trial: optuna.Trial) -> float:
        trial.suggest_categorical("c", ["a", "b"])
        x = trial.suggest_float("x", 0.0, 1.0)
        y = trial.suggest_float("y", 0.0, 1.0)
        trial.set_constraint("corner", 1.7 - x - y)  # feasible only where x + y >= 1.7
        return x - y

    study = optuna.create_study(sampler=make_sampler(seed=3, n_startup_trials=6))
    for x in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):  # an infeasible initial design
        study.enqueue_trial({"c": "a", "x": x, "y": x})
    study.optimize(objective, n_trials=20)
    assert any(t.constraints["corner"] <= 0 for t in study.trials[6:])


def test_constraints_func_is_honoured() -> None:
    def objective(trial: optuna.Trial) -> float:
        trial.suggest_categorical("c", ["a", "b"])
        x = trial.suggest_float("x", -2.0, 2.0)
        trial.set_user_attr("x", x)
        return x * x

    def constraints(trial: optuna.trial.FrozenTrial) -> list[float]:
        return [0.5 - trial.user_attrs["x"]]  # feasible where x >= 0.5

    # Deprecated with Optuna 5 only: on Optuna 4 it is the one way to give constraints.
    with pytest.warns(FutureWarning, match="constraints_func") if HAS_NAMED_CONSTRAINTS else contextlib.nullcontext():
        sampler = make_sampler(seed=1, n_startup_trials=6, constraints_func=constraints)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=25)
    assert all(trial_constraints(t) for t in study.trials)
    feasible = [value_of(t) for t in study.trials if t.user_attrs["x"] >= 0.5]
    assert feasible and min(feasible) < 0.3


def test_parego_scalarisation_follows_the_weights() -> None:
    values = np.array([[0.0, 10.0], [1.0, 0.0], [0.5, 5.0]])
    directions = [StudyDirection.MINIMIZE, StudyDirection.MINIMIZE]
    # all weight on the first objective: the first point (smallest first value) is best
    assert np.argmax(scalarized_values(values, directions, np.array([1.0, 0.0]))) == 0
    assert np.argmax(scalarized_values(values, directions, np.array([0.0, 1.0]))) == 1
    # maximising flips the order
    maximise = [StudyDirection.MAXIMIZE, StudyDirection.MAXIMIZE]
    assert np.argmax(scalarized_values(values, maximise, np.array([0.0, 1.0]))) == 0


@pytest.mark.parametrize("method", ["ehvi", "parego"])
def test_two_objective_study_spreads_along_the_front(method: str) -> None:
    def objective(trial: optuna.Trial) -> tuple[float, float]:
        c = trial.suggest_categorical("c", ["a", "b"])
        x = trial.suggest_float("x", 0.0, 1.0)
        offset = 0.0 if c == "a" else 0.5
        return x + offset, 1.0 - x + offset  # Pareto front: c = "a", any x

    study = optuna.create_study(
        directions=["minimize", "minimize"], sampler=make_sampler(seed=2, n_startup_trials=8, multi_objective=method)
    )
    study.optimize(objective, n_trials=30)
    assert_gp_suggestions_used(study, first=8)
    later = study.trials[8:]
    assert np.mean([t.params["c"] == "a" for t in later]) > 0.7
    front_x = sorted(t.params["x"] for t in study.best_trials)
    assert front_x[-1] - front_x[0] > 0.5  # not collapsed onto one point of the front
