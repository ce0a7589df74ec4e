"""Every finished trial teaches: what the model takes from complete, pruned and failed trials.

- **Complete** trials give the objective GP its observations, as in the paper.
- **Pruned** trials (single objective) join the objective GP with a pessimistic imputed final
  value (``impute_pruned_values``): their last intermediate value mapped to a final value by a
  monotone fit on the complete trials that reported at the same step, never better than the
  median final value of the complete trials (the pruner ruled the trial worse than its peers)
  and never worse than their worst. A trial pruned before any report takes the worst value.
- **Failed** trials (an exception or a NaN returned by the objective) join the objective GP at a
  pessimistic value (the upper quartile of the complete values: ``impute_failed_values``), and
  get rows in the success model: a GP on success/failure labels of every finished trial whose
  probability of success multiplies the acquisition, as a constraint's probability of
  feasibility does (Gardner et al. 2014). A failure counts only if it was the objective's: ``VPBOSampler.after_trial`` marks the
  trials that end FAIL through ``tell`` (``mark_objective_failure``); a trial failed by Optuna's
  heartbeat (a killed worker) never passes there, and a trial that ``RetryFailedTrialCallback``
  retried is left out too.

docs/pruning-and-failures.md tells the same for users; docs/decisions.md the measurements.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence

import numpy as np
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo._optuna_compat import set_trial_system_attr
from optuna_vpbo._stored import OBJECTIVE_FAILURE_KEY as OBJECTIVE_FAILURE_KEY
from optuna_vpbo._stored import objective_failure_mark, retried_trial

# The mark of a failure in the objective (written before the trial's state is set) and
# RetryFailedTrialCallback's number of the retried trial are read through ``_stored``.
# Failed trials join the objective model at this quantile of the complete values, from the best:
# a pessimistic value that lowers the acquisition where trials fail without flattening the best
# basin beside them (docs/decisions.md, "Pruned and failed trials").
FAILED_VALUE_QUANTILE = 0.75
# Least complete trials at one step for a least-squares step-to-final fit (else a median offset).
MIN_PEERS_FOR_FIT = 3
# Success labels as constraint values: <= 0 is a success, so log P(success) is log P(feasible).
SUCCESS_LABEL = -0.5
FAILURE_LABEL = 0.5


@dataclasses.dataclass(frozen=True)
class FinishedTrials:
    """The finished trials a model learns from, by state (failures of the objective only)."""

    complete: list[FrozenTrial]
    pruned: list[FrozenTrial]
    failed: list[FrozenTrial]


def finished_trials(trials: Iterable[FrozenTrial]) -> FinishedTrials:
    """The complete, pruned and failed-in-the-objective trials of ``trials``."""
    trials = list(trials)
    retried = {retried_trial(t) for t in trials} - {None}
    return FinishedTrials(
        [t for t in trials if t.state == TrialState.COMPLETE],
        [t for t in trials if t.state == TrialState.PRUNED],
        [t for t in trials if is_objective_failure(t) and t.number not in retried],
    )


def is_objective_failure(trial: FrozenTrial) -> bool:
    return trial.state == TrialState.FAIL and objective_failure_mark(trial)


def mark_objective_failure(study: Study, trial: FrozenTrial) -> None:
    """Mark a trial that ``tell`` is about to fail (an exception or a non-finite value)."""
    set_trial_system_attr(study, trial, OBJECTIVE_FAILURE_KEY, True)


def impute_pruned_values(complete: Sequence[FrozenTrial], pruned: Sequence[FrozenTrial], direction: StudyDirection) -> np.ndarray:
    """Pessimistic final values (in the study's direction) of ``pruned`` trials, from the
    ``complete`` trials' final values and intermediate values (see the module docstring).
    Empty without a finite complete value."""
    sign, finals = _losses(complete, direction)
    finite = finals[np.isfinite(finals)]
    if not len(pruned) or not len(finite):
        return np.zeros(0)
    floor, worst = float(np.median(finite)), float(finite.max())
    losses = np.full(len(pruned), worst)
    for step, members in _by_last_step(pruned).items():
        reported = [
            (sign * t.intermediate_values[step], final) for t, final in zip(complete, finals) if step in t.intermediate_values
        ]
        peers = [(v, f) for v, f in reported if math.isfinite(v) and math.isfinite(f)]
        if not peers:
            continue
        last = np.array([sign * pruned[i].intermediate_values[step] for i in members])
        losses[members] = np.clip(step_to_final(np.array(peers), last), floor, worst)
    return sign * losses


def _by_last_step(pruned: Sequence[FrozenTrial]) -> dict[int, list[int]]:
    """The indices of the pruned trials by their last step (those with a finite last value)."""
    by_step: dict[int, list[int]] = {}
    for i, trial in enumerate(pruned):
        step = trial.last_step
        if step is not None and math.isfinite(trial.intermediate_values[step]):
            by_step.setdefault(step, []).append(i)
    return by_step


def impute_failed_values(complete: Sequence[FrozenTrial], n_failed: int, direction: StudyDirection) -> np.ndarray:
    """The value (in the study's direction) that each of ``n_failed`` failed trials takes in the
    objective model: the ``FAILED_VALUE_QUANTILE`` of the finite complete values, from the best.
    Empty without a finite complete value."""
    sign, losses = _losses(complete, direction)
    finite = losses[np.isfinite(losses)]
    if not n_failed or not len(finite):
        return np.zeros(0)
    return np.full(n_failed, sign * float(np.quantile(finite, FAILED_VALUE_QUANTILE)))


def _losses(complete: Sequence[FrozenTrial], direction: StudyDirection) -> tuple[float, np.ndarray]:
    """The sign that turns values of ``direction`` into losses (lower is better), and the complete
    trials' values as losses."""
    sign = 1.0 if direction == StudyDirection.MINIMIZE else -1.0
    return sign, sign * np.array([t.value for t in complete], dtype=np.float64)


def step_to_final(peers: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Final losses predicted from intermediate losses ``values`` by the peers' pairs
    (intermediate, final) (p x 2): a least-squares line with a non-negative slope (a worse
    intermediate value never predicts a better end), or the median offset for few peers."""
    intermediate, final = peers[:, 0], peers[:, 1]
    spread = intermediate.std()
    if len(peers) >= MIN_PEERS_FOR_FIT and spread > 0:
        slope = max(float(np.cov(intermediate, final, bias=True)[0, 1] / spread**2), 0.0)
        return final.mean() + slope * (values - intermediate.mean())
    return values + float(np.median(final - intermediate))


def success_labels(n_success: int, n_failed: int) -> np.ndarray:
    """Constraint-like labels (<= 0: success) of ``n_success`` trials, then ``n_failed``."""
    return np.concatenate([np.full(n_success, SUCCESS_LABEL), np.full(n_failed, FAILURE_LABEL)])
