"""The pending-point protocol (``_pending``): chunked publication, the one reader of pending
points for flat and conditional spaces, and the clash rule of ``reserve``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo._optuna_compat import get_trials, set_trial_system_attr
from optuna_vpbo._pending import (
    RELATIVE_PARAMS_KEY,
    SYSTEM_ATTR_MAX_LENGTH,
    chunks_of,
    in_flight_params,
    pending_points,
    publish,
    published_params,
    reserve,
)
from optuna_vpbo._search_tree import SearchTree, infer_search_tree
from optuna_vpbo._tree_encoder import TreeEncoder
from test_conditional import ALL_BRANCHES, conditional_params, conditional_trials

FLAT = {"c": CategoricalDistribution(["a", "b"]), "x": FloatDistribution(-2.0, 2.0), "n": IntDistribution(1, 8)}
P = {"c": "a", "x": 0.25, "n": 3}
Q = {"c": "b", "x": -1.5, "n": 7}


def frozen(study: optuna.Study, number: int) -> FrozenTrial:
    return next(t for t in get_trials(study, None, use_cache=False) if t.number == number)


def running_trials(n: int) -> tuple[optuna.Study, list[FrozenTrial]]:
    study = optuna.create_study()
    numbers = [study.ask().number for _ in range(n)]
    return study, [frozen(study, k) for k in numbers]


def test_long_suggestions_are_cut_under_the_storage_limit_and_read_back_whole() -> None:
    params = {f"p{i}": "v" * 300 for i in range(20)}  # about 6400 characters of JSON
    chunks = chunks_of(params)
    assert len(chunks) == 4 and all(len(c) <= SYSTEM_ATTR_MAX_LENGTH < 2046 for c in chunks)
    assert "".join(chunks) == json.dumps(params)
    study, (trial,) = running_trials(1)
    publish(study, trial, params)
    stored = frozen(study, trial.number)
    assert stored.system_attrs[f"{RELATIVE_PARAMS_KEY}:count"] == 4
    assert published_params(stored) == params


def test_nothing_is_published_for_an_empty_suggestion() -> None:
    study, (trial,) = running_trials(1)
    publish(study, trial, {})
    assert published_params(frozen(study, trial.number)) is None


@pytest.mark.parametrize("broken", ["missing chunk", "not json"])
def test_a_suggestion_read_while_being_rewritten_is_ignored(broken: str) -> None:
    study, (trial,) = running_trials(1)
    set_trial_system_attr(study, trial, f"{RELATIVE_PARAMS_KEY}:count", 2)
    set_trial_system_attr(study, trial, f"{RELATIVE_PARAMS_KEY}:0", '{"x": 0.')
    if broken == "not json":
        set_trial_system_attr(study, trial, f"{RELATIVE_PARAMS_KEY}:1", "5, ")
    assert published_params(frozen(study, trial.number)) is None
    assert in_flight_params(frozen(study, trial.number)) == {}


def test_in_flight_params_are_the_published_ones_updated_by_those_set() -> None:
    study = optuna.create_study()
    trial = study.ask()
    publish(study, frozen(study, trial.number), P)
    trial.suggest_float("x", -2.0, 2.0)  # the independent sampler: another value than published
    stored = frozen(study, trial.number)
    assert in_flight_params(stored) == {**P, "x": stored.params["x"]}


def test_flat_pending_points_are_the_other_running_trials_that_cover_the_space() -> None:
    study, (current, other, partial, foreign) = running_trials(4)
    publish(study, current, Q)  # the current trial is not pending for itself
    publish(study, other, P)
    publish(study, partial, {"c": "b", "x": 1.0})  # lacks "n"
    publish(study, foreign, {**P, "c": "z"})  # a value outside this space's choices
    study.tell(study.ask(), 1.0)  # complete trials are not pending either
    encoder = TreeEncoder(SearchTree(dict(sorted(FLAT.items())), {}))
    trials = get_trials(study, None, use_cache=False)
    h, x = pending_points(trials, frozen(study, current.number), encoder, encoder.active_params)
    h_ref, x_ref = encoder.encode([P])
    assert h.dtype == np.int32 and np.array_equal(h, h_ref) and np.array_equal(x, x_ref)


def test_no_pending_point_gives_empty_arrays_of_the_right_width() -> None:
    study, (current,) = running_trials(1)
    encoder = TreeEncoder(SearchTree(dict(sorted(FLAT.items())), {}))
    h, x = pending_points([current], current, encoder, encoder.active_params)
    assert h.shape == (0, 1) and x.shape == (0, 2)


def test_conditional_pending_points_keep_the_parameters_of_a_leaf() -> None:
    tree = infer_search_tree(conditional_trials(ALL_BRANCHES))
    encoder = TreeEncoder(tree)
    study, (current, linear, deep, unfinished) = running_trials(4)
    linear_params, _ = conditional_params("linear")
    deep_params, _ = conditional_params("tree", "deep")
    publish(study, linear, {**linear_params, "unrelated": 1})  # not a parameter of the leaf
    publish(study, deep, deep_params)
    publish(study, unfinished, {"model": "tree"})  # completes no leaf
    trials = get_trials(study, None, use_cache=False)
    h, x = pending_points(trials, current, encoder, encoder.active_params)
    h_ref, x_ref = encoder.encode([linear_params, deep_params])
    assert np.array_equal(h, h_ref) and np.array_equal(x, x_ref)


def test_reserve_keeps_a_free_point() -> None:
    study, (current, other) = running_trials(2)
    publish(study, other, Q)
    publish(study, current, P)
    assert reserve(study, current, [P, Q]) == P


@pytest.mark.parametrize("holder_state", [TrialState.RUNNING, TrialState.COMPLETE])
def test_reserve_moves_to_the_first_free_alternative(holder_state: TrialState) -> None:
    study = optuna.create_study()
    holder, current = study.ask(), study.ask()
    publish(study, frozen(study, holder.number), P)
    if holder_state == TrialState.COMPLETE:
        for name, dist in FLAT.items():
            holder._suggest(name, dist)  # draws random values: publish P as its set values
        study.tell(holder, 0.0)
        P_held = frozen(study, holder.number).params
    else:
        P_held = P
    R = {"c": "b", "x": 0.0, "n": 1}
    publish(study, frozen(study, current.number), P_held)
    kept = reserve(study, frozen(study, current.number), [P_held, P_held, R, Q])
    assert kept == R
    assert published_params(frozen(study, current.number)) == R


def test_reserve_without_a_free_alternative_keeps_its_point() -> None:
    study, (current, other) = running_trials(2)
    publish(study, other, P)
    publish(study, current, P)
    assert reserve(study, current, [P]) == P


def interleave(order: list[str]) -> dict[str, Any]:
    """Two trials A (earlier) and B that chose the same point P (alternatives Q and R): the steps
    'publish A', 'publish B', 'reserve A', 'reserve B' in ``order``; what each keeps."""
    study, (a, b) = running_trials(2)
    trials = {"A": a, "B": b}
    choices = {"A": [P, Q], "B": [P, {"c": "b", "x": 0.5, "n": 2}]}
    kept: dict[str, Any] = {}
    for step in order:
        action, name = step.split()
        if action == "publish":
            publish(study, trials[name], choices[name][0])
        else:
            kept[name] = reserve(study, frozen(study, trials[name].number), choices[name])
    return kept


@pytest.mark.parametrize(
    "order",
    [
        ["publish A", "reserve A", "publish B", "reserve B"],
        ["publish B", "reserve B", "publish A", "reserve A"],
        ["publish A", "publish B", "reserve A", "reserve B"],
        ["publish A", "publish B", "reserve B", "reserve A"],
        ["publish B", "publish A", "reserve A", "reserve B"],
    ],
)
def test_two_trials_that_chose_the_same_point_never_both_keep_it(order: list[str]) -> None:
    kept = interleave(order)
    assert kept["A"] != kept["B"]
    # A trial that reserved before the other published keeps its first choice.
    first = order[1].split()[1] if order[1].startswith("reserve") else None
    if first is not None:
        assert kept[first] == P
