"""What a pruned trial had to beat: the pruner's bar at the step where it was pruned.

- ``PercentilePruner`` and ``MedianPruner`` (also inside ``PatientPruner``): as Optuna computes
  it, the percentile of the values at that step of the trials that were complete when the trial
  was pruned (no bar with fewer than the pruner's ``n_min_trials``);
- every other pruner (``SuccessiveHalvingPruner``, ``HyperbandPruner``, ``ThresholdPruner``,
  ``WilcoxonPruner``, a user's): the survivors' rule: the worst value at that step of the earlier
  trials that went beyond it (for successive halving, the worst trial promoted from that rung,
  which is where its promotion threshold was). No bar where no earlier trial went beyond.

The bar is in the study's direction (NaN where none is known).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Sequence

import numpy as np
from optuna.pruners import BasePruner
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo._optuna_compat import percentile_pruner_rule


def pruner_bar(pruner: BasePruner | None, trial: FrozenTrial, trials: Sequence[FrozenTrial], direction: StudyDirection) -> float:
    """The value at ``trial``'s last step that it had to beat (see the module docstring)."""
    return PrunerBars(pruner, trials, direction)(trial)


class PrunerBars:
    """``pruner_bar`` of many pruned trials of one study: what the bar of a step reads from
    ``trials`` (numbers, completion times, values at that step) gathered once per step."""

    def __init__(self, pruner: BasePruner | None, trials: Sequence[FrozenTrial], direction: StudyDirection) -> None:
        self._rule = percentile_pruner_rule(pruner)
        self._trials = trials
        self._direction = direction
        self._steps: dict[int, _StepColumns] = {}

    def __call__(self, trial: FrozenTrial) -> float:
        step = trial.last_step
        if step is None:
            return math.nan
        if step not in self._steps:
            self._steps[step] = _step_columns(self._trials, step, percentile=self._rule is not None)
        columns = self._steps[step]
        if self._rule is not None:
            return _percentile_bar(columns, trial, self._direction, *self._rule)
        values = columns.values[columns.numbers < trial.number]
        if not len(values):
            return math.nan
        return float(values.min() if self._direction == StudyDirection.MAXIMIZE else values.max())


@dataclasses.dataclass(frozen=True)
class _StepColumns:
    """The trials a step's bar reads: the complete ones that reported there (percentile rule),
    or those that reported a finite value there and went beyond it (survivors' rule)."""

    numbers: np.ndarray
    values: np.ndarray
    times: np.ndarray  # completion times in microseconds (0 where unknown; see ``timed``)
    timed: np.ndarray


def _step_columns(trials: Sequence[FrozenTrial], step: int, percentile: bool) -> _StepColumns:
    if percentile:
        chosen = [t for t in trials if t.state == TrialState.COMPLETE and step in t.intermediate_values]
    else:
        chosen = [
            t for t in trials
            if step in t.intermediate_values and t.last_step is not None and t.last_step > step
            and math.isfinite(t.intermediate_values[step])
        ]
    return _StepColumns(
        np.array([t.number for t in chosen], dtype=np.int64),
        np.array([t.intermediate_values[step] for t in chosen], dtype=float),
        np.array([_microseconds(t.datetime_complete) for t in chosen], dtype=np.int64),
        np.array([t.datetime_complete is not None for t in chosen], dtype=bool),
    )


def _microseconds(moment: datetime.datetime | None) -> int:
    """``moment`` as whole microseconds (exact, so that equal and ordered times stay so); 0 for None."""
    if moment is None:
        return 0
    return (moment.replace(tzinfo=None) - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)


def _percentile_bar(columns: _StepColumns, trial: FrozenTrial, direction: StudyDirection, percentile: float, n_min: int) -> float:
    """Optuna's ``_get_percentile_intermediate_result_over_trials`` on the trials complete when
    ``trial`` was pruned (by completion time where both have one, else by number)."""
    if trial.datetime_complete is None:
        before = columns.numbers < trial.number
    else:
        before = np.where(columns.timed, columns.times <= _microseconds(trial.datetime_complete), columns.numbers < trial.number)
    values = columns.values[before & (columns.numbers != trial.number)]
    if not len(values) or len(values) < n_min:
        return math.nan
    if direction == StudyDirection.MAXIMIZE:
        percentile = 100.0 - percentile
    return float(np.nanpercentile(values, percentile)) if np.isfinite(values).any() else math.nan
