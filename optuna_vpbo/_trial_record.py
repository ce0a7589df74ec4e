"""The record of one trial as the modules past the door read it: its number, state, parameters
and their distributions, values, reports and system attributes, read-only.

Optuna's trial type has these members and is such a record; the modules that read trials
(``_trial_states``, ``_search_tree``, ``_stored``) name this protocol only, so that they depend
on what they read, not on Optuna's type.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Protocol

from optuna.distributions import BaseDistribution
from optuna.trial import TrialState


class TrialRecord(Protocol):
    """A trial, read-only: ``number`` (0-based, in the order of creation), ``state``, ``params``
    (name -> value in the distribution's own form) with their ``distributions``, ``values`` (one
    per objective, None before the trial completes) and ``value`` (the one objective's, or
    None), ``intermediate_values`` (step -> reported value) and ``last_step`` (the largest
    reported step, or None), ``system_attrs`` (key -> JSON value) and ``datetime_start`` (None
    before the trial runs)."""

    @property
    def number(self) -> int: ...

    @property
    def state(self) -> TrialState: ...

    @property
    def params(self) -> dict[str, Any]: ...

    @property
    def distributions(self) -> dict[str, BaseDistribution]: ...

    @property
    def values(self) -> list[float] | None: ...

    @property
    def value(self) -> float | None: ...

    @property
    def intermediate_values(self) -> Mapping[int, float]: ...

    @property
    def last_step(self) -> int | None: ...

    @property
    def system_attrs(self) -> dict[str, Any]: ...

    @property
    def datetime_start(self) -> datetime.datetime | None: ...
