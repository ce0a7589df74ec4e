"""One trial of VPBOSampler, one pipeline for every study (VPBO paper, Algorithm 1):

read the study -> infer the search tree and encode -> fit or reuse one GP per output
(objectives, constraints) -> condition on the running trials -> initial design (MES) or value
proposals with the study's acquisition -> decode.

What varies with the study is plugged in, not branched into separate paths: the acquisition
(log EI, log EHVI, plus log P(feasible) and log P(success); ``_acquisition``), the output
transform, and which rows get proposals (``_combinations``); the one branch picks the objective
term (log EHVI over one GP per objective for 2-3 objectives, else log EI over one GP, on a ParEGO
scalarisation for more objectives) and the refinement starts that go with it. Pruned and failed
trials enter through ``_trial_states``. A flat space is a search tree with no conditions. After
the initial design the search policy (``_search_policy``) chooses each trial's move: the value
proposals over every combination, over the least observed ones, or a perturbed incumbent.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.study import Study, StudyDirection
from optuna.trial import TrialState

from optuna_vpbo import _acquisition, _core
from optuna_vpbo._combinations import candidate_rows, least_observed, n_rows
from optuna_vpbo._fit import ModelCache
from optuna_vpbo._init_design import N_MAX_VALUE_POINTS, max_value_samples, mes_numeric_point, random_points
from optuna_vpbo._models import (
    ConstraintModel,
    ModelData,
    ObjectiveModel,
    constraint_models,
    objective_model,
    predicted_value,
    success_model,
)
from optuna_vpbo._multi_objective import MAX_FRONT_STARTS, feasible_front, scalar_values, uses_hypervolume
from optuna_vpbo._observations import Observations, model_data, observe
from optuna_vpbo._output_transforms import make_output_transform
from optuna_vpbo._proposals import (
    N_SCREEN_CANDIDATES,
    Proposal,
    RefinementStarts,
    Repeats,
    blocked_points,
    propose,
    screen,
    sobol_candidates,
)
from optuna_vpbo._search_policy import (
    LEAST_OBSERVED,
    PERTURBED_INCUMBENT,
    PROPOSALS,
    Move,
    StudyRecord,
    choose_move,
    perturbed_incumbent,
)
from optuna_vpbo._settings import VPBOSettings
from optuna_vpbo._tree_encoder import TreeEncoder
from optuna_vpbo._trial_record import TrialRecord
from optuna_vpbo._trial_states import success_labels

# How many of the best value proposals the diagnostics keep.
N_RANKING = 5
# Random rows the initial design draws at most to find a point that is no pruned or failed trial.
MAX_DESIGN_DRAWS = 16


@dataclasses.dataclass(frozen=True)
class Suggestion:
    """The parameters of a trial (empty: the independent sampler draws them), an alternative for
    when another worker published the same suggestion, and the diagnostics of the choice."""

    params: dict[str, Any]
    alternative: dict[str, Any] | None
    diagnostics: dict[str, Any]


class TrialPipeline:
    def __init__(self, settings: VPBOSettings) -> None:
        self._settings = settings
        self._cache = ModelCache(
            settings.refit_interval,
            settings.n_restarts,
            early_refits=not settings.is_paper,
            prior=settings.hyperparameter_prior,
        )

    def suggest(self, study: Study, trial: TrialRecord, search_space: Mapping[str, BaseDistribution], seed: int) -> Suggestion:
        """One trial, top to bottom: read and encode the study, the random half of the initial
        design, fit the models, the MES half of the design, choose the move (``_search_policy``),
        make it, decode."""
        observed = observe(study, trial, search_space, self._settings.pruned_trials, self._settings.failed_trials)
        n_finished = observed.n_finished
        rng = np.random.default_rng([seed, trial.number])
        if n_finished < max(self._settings.n_random_startup_trials, 1) or not observed.complete:
            return _random_design_point(observed, self._settings.complete_repeats, rng)
        # Log EHVI (one GP per objective) once the design is done; else one GP on the objective,
        # or on a ParEGO scalarisation of several.
        hypervolume = n_finished >= self._settings.n_startup_trials and self._uses_hypervolume(study, observed.encoder)
        data = model_data(study, observed)
        models = self._objective_models(study, observed, data, hypervolume, rng)
        constraints, feasible = self._feasibility(observed, data, rng)
        candidates = sobol_candidates(observed.encoder.n_numeric, self._settings.n_candidates, rng)
        diagnostics = _models_diagnostics(models, observed.encoder, hypervolume) | _state_diagnostics(observed, self._settings)
        repeat_complete = observed.may_repeat_complete(self._settings.complete_repeats, models)
        repeats = observed.repeats(not repeat_complete, observed.complete_fraction)
        if n_finished < self._settings.n_startup_trials:
            design = _search_initialization(models[0], observed, candidates, rng, diagnostics, repeats)
            return _with_prediction(design, models, observed)
        if hypervolume:
            term = _acquisition.log_expected_hypervolume_improvement(models, feasible)
            starts_order = feasible_front(np.column_stack([m.targets for m in models]), feasible)
            n_observed = MAX_FRONT_STARTS if self._settings.n_refine > 0 else None
            move = Move(PROPOSALS, 0, "log EHVI: every trial makes value proposals")
        else:
            term = _acquisition.log_expected_improvement(models[0], feasible)
            starts_order = np.lexsort((-models[0].targets, ~feasible))  # feasible trials first, each group best first
            n_observed = self._settings.n_refine - 1 if self._settings.n_refine > 0 else None
            move = self._move(study, observed, models[0].targets, feasible, int(starts_order[0]), trial.number)
        perturbed = None
        if move.kind == PERTURBED_INCUMBENT:
            perturbed = _perturbed_incumbent(observed, int(starts_order[0]), repeats, rng)
        if perturbed is not None:
            proposal, drawn = perturbed
            details: dict[str, Any] = {"perturbed_parameter": drawn}
        else:
            if move.kind == PERTURBED_INCUMBENT:
                move = Move(PROPOSALS, move.stall_age, "every perturbed point was taken or failed: value proposals")
            acquisition = _acquisition.with_feasibility(term, constraints)
            refinement = (starts_order, n_observed)
            proposal = self._propose(acquisition, observed, candidates, refinement, rng, repeats, move.kind == LEAST_OBSERVED)
            details = {"top_proposals": _ranking(proposal, observed.encoder)}
        details = {"phase": "proposals", "move": move.kind, "move_reason": move.reason, **details, **diagnostics}
        details |= {"acquisition": "log EHVI"} if hypervolume else {}
        details |= _repeat_diagnostics(observed, proposal, observed.complete_fraction)
        details |= _success_diagnostics(constraints, proposal)
        return _with_prediction(_suggestion(proposal, observed.encoder, details), models, observed)

    def _objective_models(
        self, study: Study, observed: Observations, data: ModelData, hypervolume: bool, rng: np.random.Generator
    ) -> list[ObjectiveModel]:
        """One GP per objective (log EHVI), or one GP on the objective or on a ParEGO
        scalarisation of the objectives (random weights per trial)."""
        transform = self._settings.output_transform
        if hypervolume:
            columns = [(observed.values[:, j], (*observed.key, f"objective:{j}"), d) for j, d in enumerate(study.directions)]
        else:
            values, direction = scalar_values(observed.values, study.directions, rng)
            columns = [(values, observed.key, direction)]
        return [
            objective_model(
                self._cache, key, data, values, make_output_transform(transform, direction), observed.pending, rng
            )
            for values, key, direction in columns
        ]

    def _feasibility(
        self, observed: Observations, data: ModelData, rng: np.random.Generator
    ) -> tuple[list[ConstraintModel], np.ndarray]:
        """The constraint GPs (on the complete trials) and the success GP (on every finished
        trial, when some failed), and which objective rows may be the incumbent: the feasible
        complete trials (a pruned trial's value is imputed, never an incumbent)."""
        complete = observed.objective_rows
        constraints, feasible = constraint_models(self._cache, observed.key, observed.constraints, data.rows(complete), rng)
        if observed.failed and self._settings.failed_trials in ("classify", "both"):
            numbers = np.array([t.number for t in (*observed.complete, *observed.pruned, *observed.failed)], dtype=np.int64)
            labels = success_labels(len(observed.complete) + len(observed.pruned), len(observed.failed))
            finished = ModelData(numbers, *observed.finished, data.store)
            constraints.append(success_model(self._cache, observed.key, finished, labels, rng))
        return constraints, np.concatenate([feasible, np.zeros(observed.n_imputed, dtype=bool)])

    def _move(
        self, study: Study, observed: Observations, targets: np.ndarray, feasible: np.ndarray, best_row: int, number: int
    ) -> Move:
        """The search policy's move for trial ``number`` (``_search_policy``); the paper's
        algorithm makes value proposals on every trial."""
        if self._settings.is_paper:
            return Move(PROPOSALS, 0, "the paper's algorithm: every trial makes value proposals")
        n = len(observed.complete)
        values = None
        if len(study.directions) == 1:
            sign = -1.0 if study.directions[0] == StudyDirection.MINIMIZE else 1.0
            values = sign * np.asarray(observed.values[:n, 0], dtype=np.float64)
        encoder = observed.encoder
        record = StudyRecord(
            targets[:n], feasible[:n], np.array([t.number for t in observed.complete], dtype=np.int64), values, best_row,
            observed.h, encoder.n_choices, encoder.n_numeric, conditional=not encoder.tree.is_flat,
        )
        return choose_move(record, number)

    def _uses_hypervolume(self, study: Study, encoder: TreeEncoder) -> bool:
        limit = self._settings.max_enumerated_combinations
        return uses_hypervolume(self._settings.multi_objective, len(study.directions), n_rows(encoder, limit), limit)

    def _propose(
        self,
        acquisition: Any,
        observed: Observations,
        candidates: np.ndarray,
        refinement: tuple[np.ndarray, int | None],
        rng: np.random.Generator,
        repeats: Repeats,
        stalled: bool = False,
    ) -> Proposal:
        """Value proposals over the candidate rows (``stalled``: the least observed of them),
        none at a point of ``repeats``; refinement from the observed points in the order
        ``refinement[0]`` (at most ``refinement[1]`` of them; None: no refinement)."""
        starts_order, n_observed = refinement
        encoder = observed.encoder
        rows = candidate_rows(encoder, self._settings.max_enumerated_combinations, rng, observed.h[starts_order])
        if stalled:
            rows = least_observed(rows, observed.h)
        if encoder.tree.is_flat:
            all_numeric = np.ones(encoder.n_numeric, dtype=bool)
            rows = screen(acquisition, rows, encoder.snap(candidates[:N_SCREEN_CANDIDATES], all_numeric), encoder.n_choices)
        taken_h, taken_x = observed.taken
        starts = RefinementStarts(observed.h[starts_order], observed.x[starts_order], n_observed, taken_h, taken_x)
        return propose(
            acquisition,
            rows,
            encoder.numeric_masks(rows),
            candidates,
            starts,
            snap=encoder.snap,
            n_ranking=N_RANKING,
            repeats=repeats,
        )


def _random_design_point(observed: Observations, complete_repeats: str, rng: np.random.Generator) -> Suggestion:
    """A trial of the random part of the initial design: Optuna's random sampling (no relative
    parameters), or, in a discrete
    space under ``complete_repeats="when-noisy"``, a random point that repeats no finished trial,
    redrawn up to ``MAX_DESIGN_DRAWS`` times (among a few hundred configurations, eight random
    draws coincide in about one study in four)."""
    diagnostics: dict[str, Any] = {"phase": "random"}
    random = Suggestion({}, None, diagnostics)
    if complete_repeats != "when-noisy" or not observed.complete or not observed.encoder.is_discrete():
        return random
    encoder, repeats = observed.encoder, observed.repeats(complete_too=True)  # grid points: any fraction
    for _ in range(MAX_DESIGN_DRAWS):
        h, x = random_points(encoder, 1, rng)
        x = encoder.snap(x, encoder.numeric_masks(h)[0])
        if not repeats.contains(h[0], x[0]):
            return Suggestion(encoder.decode(h[0], x[0]), None, diagnostics)
    return random


def _search_initialization(
    model: ObjectiveModel, observed: Observations, candidates: np.ndarray, rng: np.random.Generator, diagnostics: dict[str, Any],
    repeats: Repeats,
) -> Suggestion:
    """The second half of the initial design: a random row, its numeric part by MES; another
    random row while the point
    repeats one of ``repeats`` (``MAX_DESIGN_DRAWS`` draws). Where the
    complete trials are among ``repeats`` (``_repeat_policy``), MES chooses among the candidates
    that repeat none."""
    encoder = observed.encoder
    points = random_points(encoder, N_MAX_VALUE_POINTS, rng)
    max_values = max_value_samples(model.gp, points, observed.h, observed.x, float(model.targets.max()), rng)
    complete_included = len(repeats) > len(observed.pruned) + len(observed.failed)
    for _ in range(MAX_DESIGN_DRAWS):
        row = encoder.random_rows(1, rng)[0]
        mask = encoder.numeric_masks(row.reshape(1, -1))[0]
        snapped = encoder.snap(candidates, mask)
        if complete_included and encoder.n_numeric:
            free = snapped[~repeats.mask(row, snapped)]
            snapped = free if len(free) else snapped
        x_next = mes_numeric_point(model.gp, row, max_values, snapped) if encoder.n_numeric else np.zeros(0)
        if not repeats.contains(row, x_next):
            break
    return Suggestion(encoder.decode(row, x_next), None, {"phase": "mes", **diagnostics})


def _perturbed_incumbent(
    observed: Observations, best_row: int, repeats: Repeats, rng: np.random.Generator
) -> tuple[Proposal, str] | None:
    """The incumbent (objective row ``best_row``) with one active numeric coordinate drawn, as a
    proposal without a ranking (``_search_policy.perturbed_incumbent``), and the drawn parameter's
    name; None when every draw is taken or repeats a pruned or failed trial."""
    row, x = observed.h[best_row], observed.x[best_row]
    blocked = blocked_points(*observed.taken, repeats)
    active = observed.encoder.numeric_masks(row.reshape(1, -1))[0]
    point = perturbed_incumbent(x, active, observed.encoder.snap, rng, lambda p: bool(blocked(row, p.reshape(1, -1))[0]))
    if point is None:
        return None
    drawn = observed.encoder.numeric_names[int(np.flatnonzero(point != x)[0])]
    return Proposal(np.asarray(row, dtype=np.int32), point, math.nan, point, []), drawn


def _repeat_diagnostics(observed: Observations, proposal: Proposal, fraction: float) -> dict[str, Any]:
    """The number of the first complete trial whose configuration the chosen point repeats (floats
    within ``fraction`` of their range), if any: how often a repeat happens is in the diagnostics."""
    n = len(observed.complete)
    same_row = np.all(observed.h[:n] == proposal.row, axis=1)
    close = np.all(np.abs(observed.x[:n] - proposal.x) <= observed.encoder.repeat_tolerance(fraction), axis=1)
    hits = np.flatnonzero(same_row & close)
    return {"repeats_trial": observed.complete[int(hits[0])].number} if len(hits) else {}


def _suggestion(proposal: Proposal, encoder: TreeEncoder, diagnostics: dict[str, Any]) -> Suggestion:
    return Suggestion(encoder.decode(proposal.row, proposal.x), encoder.decode(proposal.row, proposal.x_candidate), diagnostics)


def _ranking(proposal: Proposal, encoder: TreeEncoder) -> list[dict[str, Any]]:
    """The best value proposals for the diagnostics: categorical values and acquisition value."""
    return [{"params": encoder.categorical_params(row), "acquisition": round(value, 4)} for row, value in proposal.ranking]


def _state_diagnostics(observed: Observations, settings: VPBOSettings) -> dict[str, Any]:
    """How many pruned and failed trials the models used, and, where some did, how many COMPLETE
    trials that stopped early it read as pruned (``_trial_states.split_early_stopped``)."""
    imputed_states = [t.state for t in observed.imputed]
    n_failed = len(observed.failed) if settings.failed_trials != "ignore" else 0
    n_stopped = imputed_states.count(TrialState.COMPLETE)
    stopped = {"early_stopped_in_model": n_stopped} if n_stopped else {}
    return {"pruned_in_model": imputed_states.count(TrialState.PRUNED), "failed_in_model": n_failed} | stopped


def _with_prediction(suggestion: Suggestion, models: list[ObjectiveModel], observed: Observations) -> Suggestion:
    """The suggestion with the model's prediction of its value (one objective): ``prediction``,
    ``{"mean", "sd"}`` in the objective's units (``_models.predicted_value``)."""
    if len(models) != 1 or observed.values.shape[1] != 1 or not suggestion.params:
        return suggestion
    h, x = observed.encoder.encode([suggestion.params])
    predicted = predicted_value(models[0], h[0], x[0])
    if predicted is None:
        return suggestion
    prediction = {"mean": float(f"{predicted[0]:.6g}"), "sd": float(f"{predicted[1]:.3g}")}
    return dataclasses.replace(suggestion, diagnostics={**suggestion.diagnostics, "prediction": prediction})


def _success_diagnostics(constraints: list[ConstraintModel], proposal: Proposal) -> dict[str, Any]:
    """The success model's probability that the chosen point does not fail."""
    success = [c for c in constraints if c.is_success_model]
    if not success:
        return {}
    log_p = _core.LogProbabilityOfFeasibility(success[0].gp, success[0].threshold)
    value = log_p.evaluate(proposal.row.reshape(1, -1), proposal.x.reshape(1, -1))[0]
    return {"p_success": round(float(np.exp(value)), 4)}


def _models_diagnostics(models: list[ObjectiveModel], encoder: TreeEncoder, hypervolume: bool) -> dict[str, Any]:
    """The fitted model, or one per objective with log EHVI."""
    if hypervolume:
        return {"objectives": [_model_diagnostics(m, encoder) for m in models]}
    return _model_diagnostics(models[0], encoder)


def _model_diagnostics(model: ObjectiveModel, encoder: TreeEncoder) -> dict[str, Any]:
    """The fitted model: lambda, the noise the GP factorised with and lengthscales by parameter."""
    hyperparameters = model.hyperparameters
    return {
        "lambda": round(hyperparameters.lam, 4),
        "noise": float(f"{model.gp.noise:.3g}"),
        "lengthscales": {name: round(float(ls), 4) for name, ls in zip(encoder.numeric_names, hyperparameters.lengthscales)},
    }
