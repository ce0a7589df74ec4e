"""One trial of VPBOSampler, one pipeline for every study (VPBO paper, Algorithm 1):

read the study -> infer the search tree and encode -> fit or reuse one GP per output
(objectives, constraints) -> condition on the running trials -> initial design (MES) or value
proposals with the study's acquisition -> decode.

What varies with the study is plugged in, not branched into separate paths: the acquisition
(log EI, log EHVI, plus log P(feasible) and log P(success); ``_acquisition``), the output
transform, and which rows get proposals (``_combinations``); the one branch picks the objective
term (log EHVI over one GP per objective for 2-3 objectives, else log EI over one GP, on a ParEGO
scalarisation for more objectives) and the refinement starts that go with it. Pruned and failed
trials enter through ``_trial_states``. A flat space is a search tree with no conditions. A
stalled study (``_stall``) explores its least observed combinations on some trials and, in a flat
space, proposes its incumbent with one numeric coordinate drawn on others: without proposals, or
with the opt-in gate once its own proposal holds no chance.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo import _acquisition, _core, _optuna_compat, _pending
from optuna_vpbo._combinations import candidate_rows, least_observed, n_rows
from optuna_vpbo._fit import ModelCache
from optuna_vpbo._fit_store import StudyFitStore
from optuna_vpbo._flat_dimensions import with_flat_drawn
from optuna_vpbo._init_design import N_MAX_VALUE_POINTS, design_row, max_value_samples, mes_numeric_point, random_points
from optuna_vpbo._interleaving import interleaved_random
from optuna_vpbo._models import (
    ConstraintModel,
    ModelData,
    ObjectiveModel,
    constraint_models,
    improvement_z,
    objective_model,
    predicted_value,
    success_model,
)
from optuna_vpbo._multi_objective import MAX_FRONT_STARTS, feasible_front, scalar_values, uses_hypervolume
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
from optuna_vpbo._repeat_policy import may_repeat_complete
from optuna_vpbo._search_tree import infer_search_tree
from optuna_vpbo._settings import VPBOSettings
from optuna_vpbo._stall import (
    covered,
    explores,
    perturbed_incumbent,
    perturbs,
    spent,
    stall_age,
    unpaid_explorations,
    unpaid_perturbations,
)
from optuna_vpbo._tree_encoder import TreeEncoder
from optuna_vpbo._trial_states import (
    CURVE_MODES,
    finished_trials,
    impute_failed_values,
    impute_pruned_values,
    pruned_evidence,
    success_labels,
)
from optuna_vpbo.search_space import SAME_VALUE_FRACTION

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


@dataclasses.dataclass(frozen=True)
class _Observations:
    """What one trial reads from the study, encoded. The objective model's rows are the complete
    trials, then (single objective) the pruned and the failed ones with imputed values
    (``imputed``; ``_trial_states``)."""

    encoder: TreeEncoder
    complete: list[FrozenTrial]
    pruned: list[FrozenTrial]
    failed: list[FrozenTrial]  # failures of the objective
    h: np.ndarray
    x: np.ndarray
    values: np.ndarray  # rows x m objective values (imputed for pruned and failed trials)
    pending: tuple[np.ndarray, np.ndarray]  # (h, x) of the other running trials
    key: tuple[str, ...]  # the model cache's key of this space
    imputed: list[FrozenTrial]  # the objective model's rows after the complete trials
    finished: tuple[np.ndarray, np.ndarray]  # (h, x) of the complete, pruned and failed trials
    # Per objective row, the variance of its value (pruned trials' predicted final values); None
    # when every value is taken as observed.
    value_variances: np.ndarray | None = None

    @property
    def taken(self) -> tuple[np.ndarray, np.ndarray]:
        return np.vstack([self.h, self.pending[0]]), np.vstack([self.x, self.pending[1]])

    def n_finished(self, settings: VPBOSettings) -> int:
        """The finished trials the initial design counts: complete, and pruned and failed ones
        where the model learns from them (so that a pruner does not stretch the design)."""
        n_pruned = len(self.pruned) if settings.pruned_trials != "ignore" else 0
        return len(self.complete) + n_pruned + (len(self.failed) if settings.failed_trials != "ignore" else 0)

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

    def complete_fraction(self, settings: VPBOSettings) -> float:
        """Within what fraction of its range a float repeats a complete trial: the settings'
        ``complete_repeat_fraction`` in a flat space, ``SAME_VALUE_FRACTION`` in a conditional one."""
        return settings.complete_repeat_fraction if self.encoder.tree.is_flat else SAME_VALUE_FRACTION

    def may_repeat_complete(self, policy: str, models: list[ObjectiveModel]) -> bool:
        """Whether a complete configuration may be proposed again (``_repeat_policy``)."""
        n = len(self.complete)
        noise = [m.gp.noise for m in models]
        signal = [m.hyperparameters.variance for m in models]
        return may_repeat_complete(policy, self.h[:n], self.x[:n], self.values[:n], noise, signal)


class TrialPipeline:
    def __init__(self, settings: VPBOSettings) -> None:
        self._settings = settings
        self._cache = ModelCache(
            settings.refit_interval,
            settings.n_restarts,
            early_refits=settings.early_refits,
            prior=settings.hyperparameter_prior,
        )

    def suggest(self, study: Study, trial: FrozenTrial, search_space: Mapping[str, BaseDistribution], seed: int) -> Suggestion:
        observed = _observe(study, trial, search_space, self._settings)
        n_finished = observed.n_finished(self._settings)
        rng = np.random.default_rng([seed, trial.number])
        if n_finished < max(self._settings.n_random_startup_trials, 1) or not observed.complete:
            return _random_design_point(observed, self._settings.complete_repeats, rng)
        if interleaved_random(trial.number, n_finished, self._settings.n_startup_trials, self._settings.random_interval):
            return _random_design_point(observed, self._settings.complete_repeats, rng, interleaved=True)
        # Log EHVI (one GP per objective) once the design is done; else one GP on the objective,
        # or on a ParEGO scalarisation of several.
        hypervolume = n_finished >= self._settings.n_startup_trials and self._uses_hypervolume(study, observed.encoder)
        data = _model_data(study, observed)
        models = self._objective_models(study, observed, data, hypervolume, rng)
        constraints, feasible = self._feasibility(observed, data, rng)
        candidates = sobol_candidates(observed.encoder.n_numeric, self._settings.n_candidates, rng)
        diagnostics = _models_diagnostics(models, observed.encoder, hypervolume) | _state_diagnostics(observed, self._settings)
        repeat_complete = observed.may_repeat_complete(self._settings.complete_repeats, models)
        repeats = observed.repeats(not repeat_complete, observed.complete_fraction(self._settings))
        if n_finished < self._settings.n_startup_trials:
            balanced = self._settings.design_rows == "balanced"
            design = _search_initialization(models[0], observed, candidates, rng, diagnostics, repeats, balanced)
            return _with_prediction(design, models, observed)
        perturbing = False
        if hypervolume:
            term = _acquisition.log_expected_hypervolume_improvement(models, feasible)
            starts_order = feasible_front(np.column_stack([m.targets for m in models]), feasible)
            n_observed = MAX_FRONT_STARTS if self._settings.n_refine > 0 else None
            phase: dict[str, Any] = {"phase": "proposals", "acquisition": "log EHVI"}
        else:
            term = _acquisition.log_expected_improvement(models[0], feasible)
            starts_order = np.lexsort((-models[0].targets, ~feasible))  # feasible trials first, each group best first
            n_observed = self._settings.n_refine - 1 if self._settings.n_refine > 0 else None
            stalled, perturbing = self._stall(study, observed, models[0].targets, feasible, int(starts_order[0]), trial.number)
            phase = {"phase": "proposals", "stalled": stalled}
            if perturbing and self._settings.perturbation_spent_z == math.inf:  # ungated: no proposal needed
                details = {**phase, **diagnostics}
                perturbed = self._perturbed_incumbent(observed, int(starts_order[0]), repeats, rng, models, details)
                if perturbed is not None:
                    return perturbed
        acquisition = _acquisition.with_feasibility(term, constraints)
        proposal = self._propose(
            acquisition, observed, candidates, (starts_order, n_observed), rng, repeats, phase.get("stalled", False)
        )
        if perturbing and self._settings.perturbation_spent_z < math.inf:
            # The gate: the perturbation waits until the model's own proposal holds no chance.
            z = improvement_z(models[0], feasible, proposal.row, proposal.x)
            phase["improvement_z"] = None if z is None else round(z, 2)
            if spent(z, self._settings.perturbation_spent_z):
                details = {**phase, **diagnostics}
                perturbed = self._perturbed_incumbent(observed, int(starts_order[0]), repeats, rng, models, details)
                if perturbed is not None:
                    return perturbed
        if self._settings.flat_dimensions == "draw" and not hypervolume and not constraints:
            proposal, drawn = self._draw_flat(proposal, models[0], observed, repeats, rng)
            phase["drawn"] = [observed.encoder.numeric_names[j] for j in drawn]
        details = {**phase, "top_proposals": _ranking(proposal, observed.encoder), **diagnostics}
        details |= _repeat_diagnostics(observed, proposal, observed.complete_fraction(self._settings))
        suggestion = _suggestion(proposal, observed.encoder, {**details, **_success_diagnostics(constraints, proposal)})
        return _with_prediction(suggestion, models, observed)

    def _objective_models(
        self, study: Study, observed: _Observations, data: ModelData, hypervolume: bool, rng: np.random.Generator
    ) -> list[ObjectiveModel]:
        """One GP per objective (log EHVI), or one GP on the objective or on a ParEGO
        scalarisation of the objectives (random weights per trial)."""
        transform = self._settings.output_transform
        if hypervolume:
            columns = [(observed.values[:, j], (*observed.key, f"objective:{j}"), d) for j, d in enumerate(study.directions)]
        else:
            values, direction = scalar_values(observed.values, study.directions, rng)
            columns = [(values, observed.key, direction)]
        variances = observed.value_variances if len(columns) == 1 else None
        return [
            objective_model(
                self._cache, key, data, values, make_output_transform(transform, direction), observed.pending, rng, variances
            )
            for values, key, direction in columns
        ]

    def _feasibility(
        self, observed: _Observations, data: ModelData, rng: np.random.Generator
    ) -> tuple[list[ConstraintModel], np.ndarray]:
        """The constraint GPs (on the complete trials) and the success GP (on every finished
        trial, when some failed), and which objective rows may be the incumbent: the feasible
        complete trials (a pruned trial's value is imputed, never an incumbent)."""
        complete = observed.objective_rows
        constraints, feasible = constraint_models(self._cache, observed.key, observed.complete, data.rows(complete), rng)
        if observed.failed and self._settings.failed_trials in ("classify", "both"):
            numbers = np.array([t.number for t in (*observed.complete, *observed.pruned, *observed.failed)], dtype=np.int64)
            labels = success_labels(len(observed.complete) + len(observed.pruned), len(observed.failed))
            finished = ModelData(numbers, *observed.finished, data.store)
            constraints.append(success_model(self._cache, observed.key, finished, labels, rng))
        return constraints, np.concatenate([feasible, np.zeros(observed.n_imputed, dtype=bool)])

    def _stall(
        self, study: Study, observed: _Observations, targets: np.ndarray, feasible: np.ndarray, best_row: int, number: int
    ) -> tuple[bool, bool]:
        """Whether trial ``number`` explores, and whether it perturbs the incumbent (``_stall``)."""
        stall_targets = self._stall_targets(study, observed, targets)
        return (
            self._explores(observed, stall_targets, feasible, best_row, number),
            self._perturbs(observed, stall_targets, feasible, best_row, number),
        )

    def _explores(
        self, observed: _Observations, targets: np.ndarray, feasible: np.ndarray, best_row: int, trial_number: int
    ) -> bool:
        """The stall safeguard (``_stall``): whether this trial proposes among the least observed
        combinations; the best objective row is ``best_row``. The backoff and the coverage act in
        flat spaces only: a conditional space's least observed leaves are the branches the model
        wrote off."""
        stall_trials, tolerance = self._settings.stall_trials, self._tolerance(observed)
        backoff = self._settings.stall_backoff if observed.encoder.tree.is_flat else 0
        age = self._age(observed, targets, feasible, best_row)
        if not explores(age, 0, trial_number, stall_trials, 0):  # a backoff only removes trials: no replay
            return False
        unpaid = unpaid_explorations(*_complete_record(observed, targets, feasible), stall_trials, backoff, tolerance)
        if not explores(age, unpaid, trial_number, stall_trials, backoff):
            return False
        encoder = observed.encoder
        coverage = self._settings.stall_coverage if encoder.tree.is_flat else 0
        return not covered(observed.h, encoder.n_choices, encoder.n_numeric, coverage)

    def _perturbs(
        self, observed: _Observations, targets: np.ndarray, feasible: np.ndarray, best_row: int, trial_number: int
    ) -> bool:
        """With ``stall_perturbation``, in a flat space: whether this is a trial on which a stalled
        study perturbs its incumbent (objective row ``best_row``; ``_stall.perturbs``, its period
        set by the study's record with ``perturbation_backoff``)."""
        if not (self._settings.stall_perturbation and observed.encoder.tree.is_flat):
            return False
        stall_trials, backoff = self._settings.stall_trials, self._settings.perturbation_backoff
        age = self._age(observed, targets, feasible, best_row)
        if not perturbs(age, trial_number, stall_trials):  # a backoff only removes trials: no replay
            return False
        record = _complete_record(observed, targets, feasible)
        unpaid = unpaid_perturbations(*record, stall_trials, backoff, self._tolerance(observed))
        return perturbs(age, trial_number, stall_trials, unpaid, backoff)

    def _age(self, observed: _Observations, targets: np.ndarray, feasible: np.ndarray, best_row: int) -> int:
        """How many complete trials the best one (objective row ``best_row``) is old; in a
        conditional space with ``stall_tolerance``, counted from the last improvement larger than
        it (``_stall.stall_age``)."""
        tolerance = self._tolerance(observed)
        if tolerance <= 0.0:
            return len(observed.complete) - 1 - best_row
        return stall_age(*_complete_record(observed, targets, feasible), tolerance)

    def _stall_targets(self, study: Study, observed: _Observations, targets: np.ndarray) -> np.ndarray:
        """What the stall safeguard replays: the model's ``targets`` (higher is better), or, where
        its tolerance acts and the study has one objective, the observed values in the same
        order, so that the tolerance is a fraction of the range of the values a user sees rather
        than of their transform (which is monotone: the best trial is the same)."""
        if self._tolerance(observed) <= 0.0 or len(study.directions) != 1:
            return targets
        sign = -1.0 if study.directions[0] == StudyDirection.MINIMIZE else 1.0
        return sign * np.asarray(observed.values[:, 0], dtype=np.float64)

    def _tolerance(self, observed: _Observations) -> float:
        """``stall_tolerance`` in a conditional space; 0 in a flat one, whose refinement has the
        perturbation and the coverage rule (docs/decisions.md, "A stall that ignores the last digits")."""
        return 0.0 if observed.encoder.tree.is_flat else self._settings.stall_tolerance

    def _perturbed_incumbent(
        self,
        observed: _Observations,
        best_row: int,
        repeats: Repeats,
        rng: np.random.Generator,
        models: list[ObjectiveModel],
        details: dict[str, Any],
    ) -> Suggestion | None:
        """The incumbent (objective row ``best_row``) with one active numeric coordinate drawn, as
        this trial's suggestion (``details``, ``perturbed`` and ``perturbed_parameter``, the drawn
        parameter's name, its diagnostics), unless every draw is taken or repeats a pruned or
        failed trial."""
        row, x = observed.h[best_row], observed.x[best_row]
        blocked = blocked_points(*observed.taken, repeats)
        active = observed.encoder.numeric_masks(row.reshape(1, -1))[0]
        point = perturbed_incumbent(x, active, observed.encoder.snap, rng, lambda p: bool(blocked(row, p.reshape(1, -1))[0]))
        if point is None:
            return None
        drawn = observed.encoder.numeric_names[int(np.flatnonzero(point != x)[0])]
        perturbed = Proposal(np.asarray(row, dtype=np.int32), point, math.nan, point, [])
        details = {**details, "perturbed": True, "perturbed_parameter": drawn}
        return _with_prediction(_suggestion(perturbed, observed.encoder, details), models, observed)

    def _draw_flat(
        self, proposal: Proposal, model: ObjectiveModel, observed: _Observations, repeats: Repeats, rng: np.random.Generator
    ) -> tuple[Proposal, np.ndarray]:
        """The proposal with the numeric dimensions the model finds flat drawn uniformly
        (``_flat_dimensions``), unless that point is taken or repeats a pruned or failed trial."""
        blocked = blocked_points(*observed.taken, repeats)
        active = observed.encoder.numeric_masks(proposal.row.reshape(1, -1))[0]
        return with_flat_drawn(proposal, model, active, observed.encoder.snap, rng, blocked)

    def _uses_hypervolume(self, study: Study, encoder: TreeEncoder) -> bool:
        limit = self._settings.max_enumerated_combinations
        return uses_hypervolume(self._settings.multi_objective, len(study.directions), n_rows(encoder, limit), limit)

    def _propose(
        self,
        acquisition: Any,
        observed: _Observations,
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
            grids=encoder.grid_units() if self._settings.discrete_line_search else None,
        )


def tree_states(settings: VPBOSettings) -> tuple[TrialState, ...]:
    """The states of the trials whose parameters shape the search tree: complete and, where the
    model learns from them, pruned (a pruned trial has suggested its parameters before it
    reported; a branch whose trials were all pruned so far is still a branch)."""
    return (TrialState.COMPLETE, TrialState.PRUNED) if settings.pruned_trials != "ignore" else (TrialState.COMPLETE,)


def _observe(
    study: Study, trial: FrozenTrial, search_space: Mapping[str, BaseDistribution], settings: VPBOSettings
) -> _Observations:
    """The finished trials of the search tree (complete, pruned, failed), encoded, and the other
    running trials."""
    trials = _optuna_compat.get_trials(
        study, (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL, TrialState.RUNNING), use_cache=False
    )
    finished = finished_trials(trials)
    tree = infer_search_tree([t for t in trials if t.state in tree_states(settings)], search_space)
    encoder = TreeEncoder(tree)
    complete, pruned, failed = (
        [t for t in group if encoder.covers(t.params)] for group in (finished.complete, finished.pruned, finished.failed)
    )
    finished_h, finished_x = encoder.encode([t.params for t in (*complete, *pruned, *failed)])
    m = len(study.directions)
    values = np.array([t.values for t in complete], dtype=np.float64).reshape(len(complete), m)
    pruned_values, pruned_variances, failed_values = (
        _imputed_values((complete, pruned, failed), study, settings, trials) if m == 1 else (np.zeros(0), None, np.zeros(0))
    )
    # The objective model's rows: the complete trials, then the imputed pruned and failed ones.
    rows = np.concatenate([
        np.arange(len(complete) + len(pruned_values)),
        len(complete) + len(pruned) + np.arange(len(failed_values)),
    ])
    imputed = [*pruned[: len(pruned_values)], *failed[: len(failed_values)]]
    values = np.vstack([values, np.concatenate([pruned_values, failed_values]).reshape(-1, m)])
    pending = _pending.pending_points(trials, trial, encoder, encoder.active_params)
    key = (study.study_name, repr(sorted(tree.distributions.items())), repr(sorted(tree.conditions.items())))
    variances = None
    if pruned_variances is not None and len(pruned_variances):
        variances = np.concatenate([np.zeros(len(complete)), pruned_variances, np.zeros(len(failed_values))])
    return _Observations(
        encoder, complete, pruned, failed, finished_h[rows], finished_x[rows], values, pending, key,
        imputed=imputed, finished=(finished_h, finished_x), value_variances=variances,
    )


def _imputed_values(
    observed_trials: tuple[list[FrozenTrial], list[FrozenTrial], list[FrozenTrial]], study: Study, settings: VPBOSettings,
    trials: list[FrozenTrial],
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The imputed values of all the pruned trials (and their variances: None where they are
    taken as observed) and of all the failed ones, each empty where the settings ignore them or
    no complete value exists (``_trial_states``)."""
    complete, pruned, failed = observed_trials
    failed = failed if settings.failed_trials in ("impute", "both") else []
    failed_values = impute_failed_values(complete, len(failed), study.direction)
    if settings.pruned_trials in CURVE_MODES:
        evidence = pruned_evidence(complete, pruned, study.direction, settings.pruned_trials, study.pruner, trials)
        return evidence.values, evidence.variances, failed_values
    pruned = pruned if settings.pruned_trials == "impute" else []
    return impute_pruned_values(complete, pruned, study.direction), None, failed_values


def _model_data(study: Study, observed: _Observations) -> ModelData:
    numbers = np.array([t.number for t in (*observed.complete, *observed.imputed)], dtype=np.int64)
    return ModelData(numbers, observed.h, observed.x, StudyFitStore(study))


def _random_design_point(
    observed: _Observations, complete_repeats: str, rng: np.random.Generator, interleaved: bool = False
) -> Suggestion:
    """A trial of the random part of the initial design or, ``interleaved``, a random trial after
    it (``_interleaving``): Optuna's random sampling (no relative parameters), or, in a discrete
    space under ``complete_repeats="when-noisy"``, a random point that repeats no finished trial,
    redrawn up to ``MAX_DESIGN_DRAWS`` times (among a few hundred configurations, eight random
    draws coincide in about one study in four)."""
    diagnostics: dict[str, Any] = {"phase": "random", "interleaved": True} if interleaved else {"phase": "random"}
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
    model: ObjectiveModel, observed: _Observations, candidates: np.ndarray, rng: np.random.Generator, diagnostics: dict[str, Any],
    repeats: Repeats, balanced: bool = False,
) -> Suggestion:
    """The second half of the initial design: a random row (``balanced``: the least taken of
    random rows, ``design_row``), its numeric part by MES; another random row while the point
    repeats one of ``repeats`` (``MAX_DESIGN_DRAWS`` draws). Where the
    complete trials are among ``repeats`` (``_repeat_policy``), MES chooses among the candidates
    that repeat none."""
    encoder = observed.encoder
    points = random_points(encoder, N_MAX_VALUE_POINTS, rng)
    max_values = max_value_samples(model.gp, points, observed.h, observed.x, float(model.targets.max()), rng)
    complete_included = len(repeats) > len(observed.pruned) + len(observed.failed)
    taken = np.vstack([observed.finished[0], observed.pending[0]])
    for draw in range(MAX_DESIGN_DRAWS):
        row = design_row(encoder, taken, rng, balanced and draw == 0)
        mask = encoder.numeric_masks(row.reshape(1, -1))[0]
        snapped = encoder.snap(candidates, mask)
        if complete_included and encoder.n_numeric:
            free = snapped[~repeats.mask(row, snapped)]
            snapped = free if len(free) else snapped
        x_next = mes_numeric_point(model.gp, row, max_values, snapped) if encoder.n_numeric else np.zeros(0)
        if not repeats.contains(row, x_next):
            break
    return Suggestion(encoder.decode(row, x_next), None, {"phase": "mes", **diagnostics})


def _complete_record(
    observed: _Observations, targets: np.ndarray, feasible: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The complete trials' targets, feasibility and trial numbers: the record the stall
    safeguard's backoffs replay (the objective rows after them are imputed)."""
    n = len(observed.complete)
    return targets[:n], feasible[:n], np.array([t.number for t in observed.complete], dtype=np.int64)


def _repeat_diagnostics(observed: _Observations, proposal: Proposal, fraction: float) -> dict[str, Any]:
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


def _state_diagnostics(observed: _Observations, settings: VPBOSettings) -> dict[str, Any]:
    """How many pruned and failed trials the models used."""
    imputed_states = [t.state for t in observed.imputed]
    n_failed = len(observed.failed) if settings.failed_trials != "ignore" else 0
    return {"pruned_in_model": imputed_states.count(TrialState.PRUNED), "failed_in_model": n_failed}


def _with_prediction(suggestion: Suggestion, models: list[ObjectiveModel], observed: _Observations) -> Suggestion:
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
