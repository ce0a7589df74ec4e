"""One trial of VPBOSampler, one pipeline for every study (VPBO paper, Algorithm 1), each step a
call into its module:

1. read and encode: ``_observations.observe`` (the study becomes arrays: ``Observations``);
2. the random half of the initial design: ``_init_design.random_design_point``;
3. models: ``_models.fit_models`` (one GP per objective column, constraint and trial success);
4. the MES half of the design: ``_init_design.mes_design_point``;
5. choose: the acquisition (``_acquisition.trial_acquisition``), the search policy's move
   (``_search_policy.trial_move``; beyond enumeration, within the ``_combinations.trust_region``,
   whose trials the objective's GP of step 3 trains on) and its point: a perturbed incumbent
   (``_search_policy.incumbent_perturbation``) or value proposals
   (``_proposals.value_proposals``);
6. decode: ``TreeEncoder.decode``, with the diagnostics of the choice (``_diagnostics``).

What varies with the study (log EI or log EHVI, constraints, failed trials, flat or conditional
spaces) is plugged into these steps, not branched into separate paths.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.study import Study

from optuna_vpbo._acquisition import trial_acquisition
from optuna_vpbo._combinations import n_rows, trust_region
from optuna_vpbo._diagnostics import design_diagnostics, proposal_diagnostics
from optuna_vpbo._fit import ModelCache
from optuna_vpbo._init_design import mes_design_point, random_design_point
from optuna_vpbo._models import fit_models
from optuna_vpbo._multi_objective import objective_columns, uses_hypervolume
from optuna_vpbo._observations import observe
from optuna_vpbo._proposals import RefinementStarts, sobol_candidates, value_proposals
from optuna_vpbo._search_policy import LEAST_OBSERVED, PERTURBED_INCUMBENT, incumbent_perturbation, trial_move
from optuna_vpbo._settings import VPBOSettings
from optuna_vpbo._trial_record import TrialRecord


@dataclasses.dataclass(frozen=True)
class Suggestion:
    """The parameters of a trial (empty: the independent sampler draws them), an alternative for
    when another worker published the same suggestion, the diagnostics of the choice and the
    search policy's move to store (``_stored.MOVE_KEY``: kind, stalled), None in the design."""

    params: dict[str, Any]
    alternative: dict[str, Any] | None
    diagnostics: dict[str, Any]
    move: tuple[str, bool] | None = None


class TrialPipeline:
    """The trial flow of every study; the one state it keeps between trials is the model cache."""

    def __init__(self, settings: VPBOSettings) -> None:
        self._settings = settings
        self._cache = ModelCache(
            settings.refit_interval,
            settings.n_restarts,
            early_refits=not settings.is_paper,
            prior=settings.hyperparameter_prior,
        )

    def suggest(self, study: Study, trial: TrialRecord, search_space: Mapping[str, BaseDistribution], seed: int) -> Suggestion:
        """One trial, top to bottom: read and encode the study; the random half of the initial
        design; fit the models; the MES half of the design; choose the move (``_search_policy``)
        and make it; decode."""
        settings = self._settings
        observed = observe(study, trial, search_space, settings.pruned_trials, settings.failed_trials)
        rng = np.random.default_rng([seed, trial.number])
        if observed.n_finished < settings.n_random_startup_trials or not observed.complete:
            return Suggestion(random_design_point(observed, settings.complete_repeats, rng), None, {"phase": "random"})
        designing = observed.n_finished < settings.n_startup_trials
        limit = settings.max_enumerated_combinations
        n_combinations = n_rows(observed.encoder, limit)
        n_objectives = len(observed.directions)
        hypervolume = not designing and uses_hypervolume(settings.multi_objective, n_objectives, n_combinations, limit)
        beyond = n_combinations > limit and not (designing or settings.is_paper)
        region = trust_region(observed, settings.n_startup_trials, beyond)
        columns = objective_columns(observed.values, observed.directions, observed.key, hypervolume, rng)
        training = None if region is None else region.training
        models = fit_models(self._cache, observed, columns, settings.output_transform, settings.failed_trials, rng, training)
        candidates = sobol_candidates(observed.encoder.n_numeric, settings.n_candidates, rng)
        repeats = models.repeats(observed, settings.complete_repeats)
        if designing:
            row, x = mes_design_point(models.objectives[0], observed, candidates, repeats, rng)
            params = observed.encoder.decode(row, x)
            return Suggestion(params, None, design_diagnostics(models, observed, settings.failed_trials, params))
        acquisition, starts_order, n_observed = trial_acquisition(models, settings.n_refine)
        best_row = int(starts_order[0])
        move = trial_move(observed, models, best_row, settings.is_paper)
        perturbed = incumbent_perturbation(observed, best_row, repeats, rng) if move.kind == PERTURBED_INCUMBENT else None
        drawn = None
        if perturbed is not None:
            proposal, drawn = perturbed
        else:
            move = move.without_perturbation()
            starts = RefinementStarts(observed.h[starts_order], observed.x[starts_order], n_observed, *observed.taken)
            least_observed_in = observed.h if move.kind == LEAST_OBSERVED else None
            proposal = value_proposals(
                acquisition, observed.encoder, candidates, starts, repeats, rng, max_enumerated=limit,
                least_observed_in=least_observed_in, region=region,
            )
        params = observed.encoder.decode(proposal.row, proposal.x)
        alternative = observed.encoder.decode(proposal.row, proposal.x_candidate)
        diagnostics = proposal_diagnostics(move, proposal, drawn, models, observed, settings.failed_trials, params, region)
        return Suggestion(params, alternative, diagnostics, (move.kind, move.stalled))
