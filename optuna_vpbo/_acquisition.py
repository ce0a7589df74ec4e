"""The acquisition of one trial, composed from the native terms (``native/acquisition.hpp``):
log EI of the objective GP (Ament et al. 2023) or log EHVI of 2-3 objective GPs, plus the log
probability of feasibility of each constraint GP (Gardner et al. 2014), as Optuna's GPSampler
composes ``ConstrainedLogEI`` and ``LogCEHVI``. Until some trial is feasible, feasibility alone
counts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from optuna_vpbo import _core
from optuna_vpbo._hypervolume_improvement import decompose, reference_point
from optuna_vpbo._models import ConstraintModel, ObjectiveModel, TrialModels, best_feasible_target
from optuna_vpbo._multi_objective import MAX_FRONT_STARTS, feasible_front


def trial_acquisition(models: TrialModels, n_refine: int) -> tuple[_core.Acquisition, np.ndarray, int | None]:
    """The acquisition of a trial after the initial design and where its refinement starts: log
    EHVI (``models.hypervolume``) or log EI, plus log P(feasible) of every constraint and of
    success (``with_feasibility``); the objective rows the refinement may start from in priority
    order (the feasible front in trial order; else the feasible rows, then the others, each best
    first), and how many of them the chosen row's ``n_refine`` runs take (None: no refinement)."""
    feasible = models.feasible
    if models.hypervolume:
        term = log_expected_hypervolume_improvement(models.objectives, feasible)
        starts_order = feasible_front(np.column_stack([m.targets for m in models.objectives]), feasible)
        n_observed = MAX_FRONT_STARTS if n_refine > 0 else None
    else:
        objective = models.objectives[0]
        term = log_expected_improvement(objective, feasible)
        starts_order = np.lexsort((-objective.targets, ~feasible))
        n_observed = n_refine - 1 if n_refine > 0 else None
    return with_feasibility(term, models.constraints), starts_order, n_observed


def log_expected_improvement(model: ObjectiveModel, feasible: np.ndarray) -> _core.Acquisition | None:
    """log EI over the best feasible target (None: nothing is feasible yet)."""
    best = best_feasible_target(model, feasible)
    return None if best is None else _core.LogExpectedImprovement(model.gp, best)


def log_expected_hypervolume_improvement(
    models: Sequence[ObjectiveModel], feasible: np.ndarray
) -> _core.Acquisition | None:
    """log EHVI over the front of the feasible targets and the believed targets of the running
    trials (None: nothing is feasible yet). The reference point comes from the feasible
    observations only, so that it does not move with what other workers run."""
    if not feasible.any():
        return None
    targets = np.column_stack([m.targets for m in models])
    believed = np.column_stack([m.believed for m in models]) if len(models[0].believed) else np.zeros((0, len(models)))
    boxes = decompose(np.vstack([targets[feasible], believed]), reference_point(targets[feasible]))
    return _core.LogExpectedHypervolumeImprovement(
        [m.gp for m in models],
        boxes.edges,
        [np.ascontiguousarray(cells, dtype=np.int32) for cells in boxes.cells],
        np.ascontiguousarray(boxes.box_cells, dtype=np.int32),
    )


def with_feasibility(term: _core.Acquisition | None, constraints: Sequence[ConstraintModel]) -> _core.Acquisition:
    """``term`` plus log P(feasible) of every constraint."""
    terms = [term] if term is not None else []
    terms += [_core.LogProbabilityOfFeasibility(c.gp, c.threshold) for c in constraints]
    if not terms:
        raise ValueError("An acquisition needs an objective term or at least one constraint.")
    return terms[0] if len(terms) == 1 else _core.SumOfAcquisitions(terms)
