"""Every finished trial teaches: what the model takes from complete, pruned and failed trials.

- **Complete** trials give the objective GP its observations, as in the paper.
- **Pruned** trials (single objective) join the objective GP with a pessimistic imputed final
  value (``impute_pruned_values``): their last intermediate value mapped to a final value by a
  monotone fit on the complete trials that reported at the same step, never better than the
  median final value of the complete trials (the pruner ruled the trial worse than its peers)
  and never worse than their worst. A trial pruned before any report takes the worst value.
- **Early-stopped** trials (single objective): a COMPLETE trial whose intermediate values stop
  before the study's last step, in a study where at least ``MIN_FULL_TRIALS`` complete trials
  reach that step, and whose value is not better than all of theirs (``split_early_stopped``),
  was stopped early: Ray Tune's schedulers tell Optuna
  such a trial as COMPLETE with its last, truncated value (each result but the last is an
  intermediate value), and so does a user's own early stopping. It is evidence of the same kind
  as a pruned trial and is read as one (``early_stopped_report``, ``impute_from_reports``): its
  value, where it differs from its last intermediate value, is its report at the next step the
  full trials reported.
- **Failed** trials (an exception or a NaN returned by the objective) join the objective GP at a
  pessimistic value (the upper quartile of the complete values: ``impute_failed_values``), and
  get rows in the success model: a GP on success/failure labels of every finished trial whose
  probability of success multiplies the acquisition, as a constraint's probability of
  feasibility does (Gardner et al. 2014). A failure counts only if it was the objective's: ``VPBOSampler.after_trial`` marks the
  trials that end FAIL through ``tell`` (the system attribute ``OBJECTIVE_FAILURE_KEY``); a trial failed by Optuna's
  heartbeat (a killed worker) never passes there, and a trial that ``RetryFailedTrialCallback``
  retried is left out too.

docs/pruning-and-failures.md tells the same for users; docs/decisions.md the measurements.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence

import numpy as np
from optuna.study import StudyDirection
from optuna.trial import TrialState

from optuna_vpbo._stored import OBJECTIVE_FAILURE_KEY as OBJECTIVE_FAILURE_KEY
from optuna_vpbo._stored import objective_failure_mark, retried_trial
from optuna_vpbo._trial_record import TrialRecord

# The mark of a failure in the objective (written before the trial's state is set) and
# RetryFailedTrialCallback's number of the retried trial are read through ``_stored``.
# Failed trials join the objective model at this quantile of the complete values, from the best:
# a pessimistic value that lowers the acquisition where trials fail without flattening the best
# basin beside them (docs/decisions.md, "Pruned and failed trials").
FAILED_VALUE_QUANTILE = 0.75
# Least complete trials at one step for a least-squares step-to-final fit (else a median offset).
MIN_PEERS_FOR_FIT = 3
# NOTE: a COMPLETE trial that stopped reporting before the study's last step is read as a pruned
# trial (with pruned_trials="impute", one objective): Ray Tune's schedulers and a user's own early
# stopping end trials COMPLETE with a truncated value, which the model would otherwise take for a
# final one. A constant, not a setting: studies in which no complete trial stops early are read
# as before, bit for bit, and where trials do stop early a truncated loss is not a final loss;
# the tests switch it off to compare.
EARLY_STOPPED_AS_PRUNED = True
# NOTE: the study's last step is its budget only once this many complete trials reach it; before,
# the longest trials may be a few that happened to run longer, and no trial counts as stopped.
MIN_FULL_TRIALS = 3
# Success labels as constraint values: <= 0 is a success, so log P(success) is log P(feasible).
SUCCESS_LABEL = -0.5
FAILURE_LABEL = 0.5


@dataclasses.dataclass(frozen=True)
class FinishedTrials:
    """The finished trials a model learns from, by state (failures of the objective only)."""

    complete: list[TrialRecord]
    pruned: list[TrialRecord]
    failed: list[TrialRecord]


def finished_trials(trials: Iterable[TrialRecord]) -> FinishedTrials:
    """The complete, pruned and failed-in-the-objective trials of ``trials``."""
    trials = list(trials)
    retried = {retried_trial(t) for t in trials} - {None}
    return FinishedTrials(
        [t for t in trials if t.state == TrialState.COMPLETE],
        [t for t in trials if t.state == TrialState.PRUNED],
        [t for t in trials if is_objective_failure(t) and t.number not in retried],
    )


def is_objective_failure(trial: TrialRecord) -> bool:
    return trial.state == TrialState.FAIL and objective_failure_mark(trial)


# A trial's last report: (step, value); (None, nan) for a trial that reported nothing.
Report = tuple[int | None, float]


def impute_pruned_values(complete: Sequence[TrialRecord], pruned: Sequence[TrialRecord], direction: StudyDirection) -> np.ndarray:
    """Pessimistic final values (in the study's direction) of ``pruned`` trials, from the
    ``complete`` trials' final values and intermediate values (see the module docstring).
    Empty without a finite complete value."""
    return impute_from_reports(complete, [last_report(t) for t in pruned], direction)


def last_report(trial: TrialRecord) -> Report:
    """A (pruned) trial's last intermediate value and its step."""
    step = trial.last_step
    return (step, trial.intermediate_values[step]) if step is not None else (None, math.nan)


def impute_from_reports(complete: Sequence[TrialRecord], reports: Sequence[Report], direction: StudyDirection) -> np.ndarray:
    """``impute_pruned_values`` of trials whose last reports are ``reports``."""
    sign, finals = _losses(complete, direction)
    finite = finals[np.isfinite(finals)]
    if not len(reports) or not len(finite):
        return np.zeros(0)
    floor, worst = float(np.median(finite)), float(finite.max())
    losses = np.full(len(reports), worst)
    for step, members in _by_last_step(reports).items():
        reported = [
            (sign * t.intermediate_values[step], final) for t, final in zip(complete, finals) if step in t.intermediate_values
        ]
        peers = [(v, f) for v, f in reported if math.isfinite(v) and math.isfinite(f)]
        if not peers:
            continue
        last = np.array([sign * reports[i][1] for i in members])
        losses[members] = np.clip(step_to_final(np.array(peers), last), floor, worst)
    return sign * losses


def _by_last_step(reports: Sequence[Report]) -> dict[int, list[int]]:
    """The indices of the reports by their step (those with a step and a finite value)."""
    by_step: dict[int, list[int]] = {}
    for i, (step, value) in enumerate(reports):
        if step is not None and math.isfinite(value):
            by_step.setdefault(step, []).append(i)
    return by_step


def split_early_stopped(
    complete: Sequence[TrialRecord], direction: StudyDirection
) -> tuple[list[TrialRecord], list[TrialRecord]]:
    """The ``complete`` trials read as complete, and those that stopped early (both in trial
    order). With ``EARLY_STOPPED_AS_PRUNED``, where at least ``MIN_FULL_TRIALS`` complete trials
    with a finite value (the *full* trials) reach the largest last step L of the complete trials,
    a complete trial stopped early when its last step is below L, or it reported no intermediate
    value, and its value is not better than every full trial's (a scheduler stops the trials that
    fall behind; one that stopped ahead of every full trial converged, or will end better still:
    it stays complete). Else none did."""
    complete = list(complete)
    _, losses = _losses(complete, direction)
    finite = np.isfinite(losses)
    reached = [t.last_step for t, ok in zip(complete, finite) if ok and t.last_step is not None]
    if not EARLY_STOPPED_AS_PRUNED or not reached:
        return complete, []
    last = max(reached)
    full = [t.last_step == last and ok for t, ok in zip(complete, finite)]
    if sum(full) < MIN_FULL_TRIALS:
        return complete, []
    best = float(losses[np.array(full)].min())
    stopped = [
        not is_full and (t.last_step is None or t.last_step < last) and not loss < best
        for t, is_full, loss in zip(complete, full, losses)
    ]
    return [t for t, s in zip(complete, stopped) if not s], [t for t, s in zip(complete, stopped) if s]


def early_stopped_report(trial: TrialRecord, full: Sequence[TrialRecord]) -> Report:
    """An early-stopped trial's last report: its value at the first step after its last
    intermediate value at which the ``full`` trials reported (Ray Tune reports each result but the
    last as an intermediate value, and the last is the value); its last intermediate value where
    the value equals it (the objective returned its last report), or where no value is finite."""
    step, value = last_report(trial)
    final = trial.value if trial.value is not None else math.nan
    if not math.isfinite(final) or (step is not None and final == value):
        return step, value
    later = {s for t in full for s in t.intermediate_values if step is None or s > step}
    return (min(later), final) if later else (step, value)


def impute_failed_values(complete: Sequence[TrialRecord], n_failed: int, direction: StudyDirection) -> np.ndarray:
    """The value (in the study's direction) that each of ``n_failed`` failed trials takes in the
    objective model: the ``FAILED_VALUE_QUANTILE`` of the finite complete values, from the best.
    Empty without a finite complete value."""
    sign, losses = _losses(complete, direction)
    finite = losses[np.isfinite(losses)]
    if not n_failed or not len(finite):
        return np.zeros(0)
    return np.full(n_failed, sign * float(np.quantile(finite, FAILED_VALUE_QUANTILE)))


def _losses(complete: Sequence[TrialRecord], direction: StudyDirection) -> tuple[float, np.ndarray]:
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
