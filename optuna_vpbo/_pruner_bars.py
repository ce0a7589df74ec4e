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

import math
from collections.abc import Sequence

import numpy as np
from optuna.pruners import BasePruner
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo._optuna_compat import percentile_pruner_rule


def pruner_bar(pruner: BasePruner | None, trial: FrozenTrial, trials: Sequence[FrozenTrial], direction: StudyDirection) -> float:
    """The value at ``trial``'s last step that it had to beat (see the module docstring)."""
    step = trial.last_step
    if step is None:
        return math.nan
    percentile = percentile_pruner_rule(pruner)
    if percentile is not None:
        earlier = [t for t in trials if t.number != trial.number and _finished_before(t, trial)]
        return _percentile_bar(earlier, step, direction, *percentile)
    return _survivors_bar(trials, trial, step, direction)


def _finished_before(other: FrozenTrial, trial: FrozenTrial) -> bool:
    """Whether ``other`` had finished when ``trial`` was pruned (by time, else by number)."""
    if other.datetime_complete is not None and trial.datetime_complete is not None:
        return other.datetime_complete <= trial.datetime_complete
    return other.number < trial.number


def _percentile_bar(earlier: Sequence[FrozenTrial], step: int, direction: StudyDirection, percentile: float, n_min: int) -> float:
    """Optuna's ``_get_percentile_intermediate_result_over_trials`` on the complete trials."""
    values = [t.intermediate_values[step] for t in earlier if t.state == TrialState.COMPLETE and step in t.intermediate_values]
    if not values or len(values) < n_min:
        return math.nan
    if direction == StudyDirection.MAXIMIZE:
        percentile = 100.0 - percentile
    finite = np.array(values, dtype=float)
    return float(np.nanpercentile(finite, percentile)) if np.isfinite(finite).any() else math.nan


def _survivors_bar(trials: Sequence[FrozenTrial], trial: FrozenTrial, step: int, direction: StudyDirection) -> float:
    """The worst value at ``step`` of the trials numbered before ``trial`` that reported beyond it."""
    values = [
        t.intermediate_values[step]
        for t in trials
        if step in t.intermediate_values and t.last_step is not None and t.last_step > step
        and math.isfinite(t.intermediate_values[step]) and t.number < trial.number
    ]
    if not values:
        return math.nan
    return float(min(values) if direction == StudyDirection.MAXIMIZE else max(values))
