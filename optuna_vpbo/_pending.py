"""The pending-point protocol of many workers: a trial publishes its suggestion into its system
attributes, so that other workers (threads or processes) treat it as pending, and a worker that
finds the same suggestion published by another running trial takes its alternative."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo import _optuna_compat

RELATIVE_PARAMS_KEY = "vpbo:relative_params"
# Optuna's RDB storage keeps system attributes under 2046 characters.
SYSTEM_ATTR_MAX_LENGTH = 2045


def publish(study: Study, trial: FrozenTrial, params: dict[str, Any]) -> None:
    """Write the suggestion into the trial's system attributes, in chunks, count last."""
    if not params:
        return
    encoded = json.dumps(params)
    chunks = [encoded[i : i + SYSTEM_ATTR_MAX_LENGTH] for i in range(0, len(encoded), SYSTEM_ATTR_MAX_LENGTH)]
    for i, chunk in enumerate(chunks):
        _optuna_compat.set_trial_system_attr(study, trial, f"{RELATIVE_PARAMS_KEY}:{i}", chunk)
    _optuna_compat.set_trial_system_attr(study, trial, f"{RELATIVE_PARAMS_KEY}:count", len(chunks))


def in_flight_params(trial: FrozenTrial) -> dict[str, Any]:
    """A running trial's parameters: those it has set, plus the suggestion it published."""
    count = trial.system_attrs.get(f"{RELATIVE_PARAMS_KEY}:count", 0)
    chunks = [trial.system_attrs.get(f"{RELATIVE_PARAMS_KEY}:{i}") for i in range(count)]
    try:
        params = json.loads("".join(chunks)) if count and None not in chunks else {}
    except ValueError:
        params = {}  # read while being rewritten: the trial is seen again at the next call
    params.update(trial.params)
    return params


def published_by_another(study: Study, current: FrozenTrial, params: dict[str, Any]) -> bool:
    running = _optuna_compat.get_trials(study, (TrialState.RUNNING,), use_cache=False)
    return any(t.number != current.number and in_flight_params(t) == params for t in running)


def _other_running_params(trials: list[FrozenTrial], current: FrozenTrial) -> Iterator[dict[str, Any]]:
    for t in trials:
        if t.state == TrialState.RUNNING and t.number != current.number:
            yield in_flight_params(t)


def pending_points(
    trials: list[FrozenTrial],
    current: FrozenTrial,
    active_params: Callable[[Mapping[str, Any]], dict[str, Any] | None],
    encode: Callable[[list[dict[str, Any]]], tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Encoded points (h, x) of the other running trials whose in-flight parameters make a
    point of the space (``active_params`` returns None for those that do not)."""
    points = []
    for params in _other_running_params(trials, current):
        active = active_params(params)
        if active is not None:
            points.append(active)
    return encode(points)
