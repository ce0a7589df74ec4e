"""The pending-point protocol of many workers sharing one study.

A trial's suggestion is written into its system attributes (``publish``) before the sampler
returns it, so that every other worker, in this process or another, reads it as the trial's
in-flight parameters (``in_flight_params``): the GP conditions on those points
(``pending_points``), and a worker does not return a point that another trial holds
(``reserve``). What this guarantees is in docs/many-workers.md. Publications are read back
through the validating reader ``_stored.published_params``: other workers' are not trusted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import optuna
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo._once import FirstTime
from optuna_vpbo._optuna_compat import get_trials, set_trial_system_attr
from optuna_vpbo._stored import MAX_PUBLISHED_CHUNKS
from optuna_vpbo._stored import RELATIVE_PARAMS_KEY as RELATIVE_PARAMS_KEY
from optuna_vpbo._stored import SYSTEM_ATTR_MAX_LENGTH as SYSTEM_ATTR_MAX_LENGTH
from optuna_vpbo._stored import published_params as published_params
from optuna_vpbo._trial_record import TrialRecord

# The keys of a publication and their validating reader (re-exported above) live in ``_stored``
# with the other readers of storage.
# Publish-and-check rounds of ``reserve`` before it gives up moving (each round moves once).
MAX_RESERVE_ROUNDS = 8

Params = dict[str, Any]

_logger = optuna.logging.get_logger(__name__)
# Running trials left out of the pending points, already logged (and why).
_LEFT_OUT_REPORTED = FirstTime()


class Encoder(Protocol):
    """What ``pending_points`` needs of an encoder (``TreeEncoder``)."""

    def encode(self, params_list: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray]: ...


def chunks_of(params: Mapping[str, Any]) -> list[str]:
    """The JSON of ``params`` cut into pieces that fit one system attribute each."""
    encoded = json.dumps(params)
    return [encoded[i : i + SYSTEM_ATTR_MAX_LENGTH] for i in range(0, len(encoded), SYSTEM_ATTR_MAX_LENGTH)]


def publish(study: Study, trial: FrozenTrial, params: Mapping[str, Any]) -> None:
    """Write the suggestion into the trial's system attributes: chunks first, their count last,
    so that a reader never takes a partial write for a whole one. Nothing for an empty one, or
    one longer than the readers take (``MAX_PUBLISHED_CHUNKS``)."""
    if not params:
        return
    chunks = chunks_of(params)
    if len(chunks) > MAX_PUBLISHED_CHUNKS:
        _logger.debug(f"Trial#{trial.number}'s suggestion is not published: {len(chunks)} chunks of JSON.")
        return
    for i, chunk in enumerate(chunks):
        set_trial_system_attr(study, trial, f"{RELATIVE_PARAMS_KEY}:{i}", chunk)
    set_trial_system_attr(study, trial, f"{RELATIVE_PARAMS_KEY}:count", len(chunks))


def in_flight_params(trial: TrialRecord) -> Params:
    """A trial's parameters: the suggestion it published, updated by those it has set."""
    return {**(published_params(trial) or {}), **trial.params}


def other_running_trials(trials: Iterable[TrialRecord], current: TrialRecord) -> Iterator[TrialRecord]:
    """Every running trial other than ``current``."""
    for t in trials:
        if t.state == TrialState.RUNNING and t.number != current.number:
            yield t


def pending_points(
    trials: Iterable[TrialRecord],
    current: TrialRecord,
    encoder: Encoder,
    select: Callable[[Params], Params | None],
) -> tuple[np.ndarray, np.ndarray]:
    """Encoded points (h int32, x float64) of the other running trials whose in-flight parameters
    ``select`` maps to encodable ones (``TreeEncoder.active_params``: the parameters of the
    leaf they complete, or None), empty arrays when there are none. Values the encoder
    rejects (another search space's) are not pending points of this one. Each trial left out
    is logged once: at debug level without a leaf (often a trial still being suggested), as a
    warning with the encoder's reason when its leaf's values cannot be encoded."""
    rows = [encoder.encode([])]
    for trial in other_running_trials(trials, current):
        params = in_flight_params(trial)
        selected = select(params)
        if selected is None:
            if _LEFT_OUT_REPORTED.first((trial.number, trial.datetime_start, "no leaf")):
                _logger.debug(
                    f"Running Trial#{trial.number} is not a pending point of this search space: its parameters "
                    f"{params} lack one of its leaves' parameters (still being suggested) or hold a value outside it."
                )
            continue
        try:
            h, x = encoder.encode([selected])
            if not np.all(np.isfinite(x)):  # a null for a number: NaN
                raise ValueError("a numeric value is no number")
            rows.append((h, x))
        except (ValueError, KeyError, TypeError) as error:
            if _LEFT_OUT_REPORTED.first((trial.number, trial.datetime_start, "encoding")):
                _logger.warning(
                    f"Running Trial#{trial.number} is left out of the GP's pending points: its parameters "
                    f"{selected} cannot be encoded in this search space ({type(error).__name__}: {error})."
                )
    return np.vstack([h for h, _ in rows]).astype(np.int32), np.vstack([x for _, x in rows])


def holds(other: Mapping[str, Any], params: Mapping[str, Any]) -> bool:
    """Whether a trial with parameters ``other`` holds the point ``params`` (same values of
    every parameter of ``params``)."""
    return all(name in other and other[name] == value for name, value in params.items())


def taken_by_others(study: Study, current: TrialRecord) -> list[Params]:
    """The parameters every other trial of the study holds, read from the storage now: those it
    published or set, whatever its state (running, complete, failed...)."""
    trials = get_trials(study, None, use_cache=False)
    return [in_flight_params(t) for t in trials if t.number != current.number]


def first_free(choices: Sequence[Params], taken: Sequence[Params]) -> Params | None:
    """The first of ``choices`` that no ``taken`` parameters hold; None if all are held."""
    return next((c for c in choices if not any(holds(t, c) for t in taken)), None)


def reserve(study: Study, current: FrozenTrial, choices: Sequence[Params]) -> Params:
    """The suggestion ``current`` keeps: ``choices[0]``, already published, unless another trial
    holds it, then the first of the alternatives ``choices[1:]`` that none holds.

    Publish, then read every other trial; on a clash move and check again. Whichever of two
    trials that publish the same point writes last reads the other's publication and moves, so
    two trials that both end here never keep the same point (the storage being linearizable:
    a read after a write sees every write completed before it). Without a free alternative, or
    after ``MAX_RESERVE_ROUNDS`` moves, the last published choice is kept.
    """
    kept = choices[0]
    for _ in range(MAX_RESERVE_ROUNDS):
        taken = taken_by_others(study, current)
        if not any(holds(t, kept) for t in taken):
            return kept
        free = first_free(choices, taken)
        if free is None:
            return kept
        kept = free
        publish(study, current, kept)
    return kept
