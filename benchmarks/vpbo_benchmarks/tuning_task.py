"""A tuning task of the trial-states suite and the learning-curve sets: one record of what it is,
how to build its objective and what its compute counts (:mod:`.trial_states`, :mod:`.pruning_tasks`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from vpbo_benchmarks.learning_curves import Objective

__all__ = ["Objective", "TrialStateTask"]


@dataclasses.dataclass(frozen=True)
class TrialStateTask:
    """A tuning task: ``objective()`` builds the Optuna objective (loading its data once).

    ``units_per_step``: compute units (``compute_unit``) trained between two reports, so that a
    trial's compute is its number of reports times this (pruning tasks); ``None``: one unit per
    trial. ``optimum`` and ``optimum_method``: the best value where it is known (crash tasks)."""

    name: str
    family: str
    objective: Callable[[], Objective]
    description: str
    compute_unit: str
    max_steps: int
    units_per_step: int | None = None
    catch: tuple[type[Exception], ...] = (ValueError,)
    optimum: float | None = None
    optimum_method: str = "unknown: the best value found in any stored run is the reference"
