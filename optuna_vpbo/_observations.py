"""The read and encode steps of a trial: the study becomes arrays at the door.

``observe`` reads the finished and running trials once, infers the search tree, and encodes
them; everything after it (the models, the search policy, the proposals) works on the
``Observations`` alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.study import Study, StudyDirection
from optuna.trial import TrialState

from optuna_vpbo import _optuna_compat, _pending
from optuna_vpbo._fit_store import StudyFitStore
from optuna_vpbo._proposals import Repeats
from optuna_vpbo._search_tree import infer_search_tree
from optuna_vpbo._stored import stored_moves
from optuna_vpbo._tree_encoder import TreeEncoder
from optuna_vpbo._trial_record import TrialRecord
from optuna_vpbo._trial_states import (
    Report,
    early_stopped_report,
    finished_trials,
    impute_failed_values,
    impute_from_reports,
    last_report,
    split_early_stopped,
)
from optuna_vpbo.search_space import SAME_VALUE_FRACTION

# NOTE: in a flat space a point repeats a complete trial when its continuous floats are within
# this fraction of their (log) range: refining an incumbent at a bound needs a fine tolerance. A
# conditional space, and pruned and failed trials, take ``SAME_VALUE_FRACTION``.
COMPLETE_REPEAT_FRACTION = 1e-9


@dataclasses.dataclass(frozen=True)
class Observations:
    """What one trial reads from the study, encoded. The objective model's rows are the complete
    trials, then (single objective) the pruned and the failed ones with imputed values
    (``imputed``; ``_trial_states``). With ``pruned_trials="impute"`` and one objective, the
    COMPLETE trials that stopped early (``_trial_states.split_early_stopped``) are among the
    pruned ones, after the PRUNED trials, and not among the complete ones."""

    encoder: TreeEncoder
    complete: list[TrialRecord]
    pruned: list[TrialRecord]
    failed: list[TrialRecord]  # failures of the objective
    h: np.ndarray
    x: np.ndarray
    values: np.ndarray  # rows x m objective values (imputed for pruned and failed trials)
    pending: tuple[np.ndarray, np.ndarray]  # (h, x) of the other running trials
    key: tuple[str, ...]  # the model cache's key of this space
    imputed: list[TrialRecord]  # the objective model's rows after the complete trials
    finished: tuple[np.ndarray, np.ndarray]  # (h, x) of the complete, pruned and failed trials
    # The finished trials the initial design counts: complete, and pruned and failed ones where
    # the model learns from them (so that a pruner does not stretch the design).
    n_finished: int
    directions: tuple[StudyDirection, ...]  # the study's, one per objective
    fit_store: StudyFitStore  # where a long study's fits outlive the process
    # The search-policy moves the other trials stored (``_stored.stored_moves``), by trial number.
    moves: dict[int, tuple[str, bool]]

    @property
    def constraints(self) -> list[dict[str, float]]:
        """Each complete trial's constraint values by name (``_optuna_compat.trial_constraints``)."""
        return [_optuna_compat.trial_constraints(t) for t in self.complete]

    @property
    def taken(self) -> tuple[np.ndarray, np.ndarray]:
        return np.vstack([self.h, self.pending[0]]), np.vstack([self.x, self.pending[1]])

    @property
    def n_imputed(self) -> int:
        """How many pruned (or failed) trials are rows of the objective model."""
        return len(self.imputed)

    @property
    def objective_rows(self) -> np.ndarray:
        """Which rows of the objective model are complete trials (the others are imputed)."""
        return np.arange(len(self.h)) < len(self.complete)

    def repeats(self, complete_too: bool, complete_fraction: float = SAME_VALUE_FRACTION) -> Repeats:
        """The pruned and failed trials, not to be proposed again, and with ``complete_too`` the
        complete ones as well (``_repeat_policy``), each float within ``complete_fraction`` of
        its range (the pruned and failed trials: ``SAME_VALUE_FRACTION``)."""
        h, x = self.finished
        n = len(self.complete)
        tolerance = np.repeat(self.encoder.repeat_tolerance()[None, :], len(h), axis=0)
        tolerance[:n] = self.encoder.repeat_tolerance(complete_fraction)
        first = 0 if complete_too else n
        return Repeats(h[first:], x[first:], tolerance[first:])

    @property
    def complete_fraction(self) -> float:
        """Within what fraction of its range a float repeats a complete trial: ``COMPLETE_REPEAT_FRACTION``
        in a flat space, ``SAME_VALUE_FRACTION`` in a conditional one."""
        return COMPLETE_REPEAT_FRACTION if self.encoder.tree.is_flat else SAME_VALUE_FRACTION


def tree_states(pruned_trials: str) -> tuple[TrialState, ...]:
    """The states of the trials whose parameters shape the search tree: complete and, where the
    model learns from them, pruned (a pruned trial has suggested its parameters before it
    reported; a branch whose trials were all pruned so far is still a branch)."""
    return (TrialState.COMPLETE, TrialState.PRUNED) if pruned_trials != "ignore" else (TrialState.COMPLETE,)


def observe(
    study: Study, trial: TrialRecord, search_space: Mapping[str, BaseDistribution], pruned_trials: str, failed_trials: str
) -> Observations:
    """The finished trials of the search tree (complete, pruned, failed), encoded, and the other
    running trials; pruned and failed trials join the objective model as ``pruned_trials`` and
    ``failed_trials`` say (``"impute"``, ``"both"``: imputed values; ``"ignore"``: not at all)."""
    trials = _optuna_compat.get_trials(
        study, (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL, TrialState.RUNNING), use_cache=False
    )
    finished = finished_trials(trials)
    tree = infer_search_tree([t for t in trials if t.state in tree_states(pruned_trials)], search_space)
    encoder = TreeEncoder(tree)
    complete, pruned, failed = (
        [t for t in group if encoder.covers(t.params)] for group in (finished.complete, finished.pruned, finished.failed)
    )
    m = len(study.directions)
    # Early-stopped COMPLETE trials are evidence of the kind pruned trials are: read as pruned.
    stopped: list[TrialRecord] = []
    if m == 1 and pruned_trials == "impute":
        complete, stopped = split_early_stopped(complete, study.direction)
    reports = [*(last_report(t) for t in pruned), *(early_stopped_report(t, complete) for t in stopped)]
    pruned = [*pruned, *stopped]
    finished_h, finished_x = encoder.encode([t.params for t in (*complete, *pruned, *failed)])
    values = np.array([t.values for t in complete], dtype=np.float64).reshape(len(complete), m)
    pruned_values, failed_values = (np.zeros(0), np.zeros(0))
    if m == 1:
        pruned_values, failed_values = _imputed_values((complete, reports, failed), study, pruned_trials, failed_trials)
    # The objective model's rows: the complete trials, then the imputed pruned and failed ones.
    rows = np.concatenate([
        np.arange(len(complete) + len(pruned_values)),
        len(complete) + len(pruned) + np.arange(len(failed_values)),
    ])
    imputed = [*pruned[: len(pruned_values)], *failed[: len(failed_values)]]
    values = np.vstack([values, np.concatenate([pruned_values, failed_values]).reshape(-1, m)])
    pending = _pending.pending_points(trials, trial, encoder, encoder.active_params)
    key = (study.study_name, repr(sorted(tree.distributions.items())), repr(sorted(tree.conditions.items())))
    n_finished = len(complete) + (len(pruned) if pruned_trials != "ignore" else 0)
    n_finished += len(failed) if failed_trials != "ignore" else 0
    return Observations(
        encoder, complete, pruned, failed, finished_h[rows], finished_x[rows], values, pending, key,
        imputed=imputed, finished=(finished_h, finished_x), n_finished=n_finished,
        directions=tuple(study.directions), fit_store=StudyFitStore(study), moves=stored_moves(trials, trial),
    )


def _imputed_values(
    observed_trials: tuple[list[TrialRecord], list[Report], list[TrialRecord]], study: Study, pruned_trials: str,
    failed_trials: str,
) -> tuple[np.ndarray, np.ndarray]:
    """The imputed values of all the pruned trials (given by their last reports) and of all the
    failed ones, each empty where they are ignored or no complete value exists (``_trial_states``)."""
    complete, reports, failed = observed_trials
    failed = failed if failed_trials in ("impute", "both") else []
    failed_values = impute_failed_values(complete, len(failed), study.direction)
    reports = reports if pruned_trials == "impute" else []
    return impute_from_reports(complete, reports, study.direction), failed_values
