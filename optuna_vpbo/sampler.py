"""VPBOSampler: Bayesian Optimisation using Value Proposals (Zuo et al.) as an Optuna sampler."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import optuna
import threadpoolctl
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo import _core, _optuna_compat, _pending
from optuna_vpbo._diagnostics import record_diagnostics
from optuna_vpbo._pipeline import TrialPipeline
from optuna_vpbo._search_tree import infer_search_tree
from optuna_vpbo._settings import PRESETS, VPBOSettings

_logger = optuna.logging.get_logger(__name__)
THREADPOOLS = threadpoolctl.ThreadpoolController()
# What the model honestly cannot do (a kernel matrix that cannot be factorised): the trial then
# goes to the independent sampler. Anything else is a bug and surfaces.
MODEL_FAILURES = (_core.NumericalError, np.linalg.LinAlgError)


class VPBOSampler(BaseSampler):
    """Bayesian Optimisation using Value Proposals for mixed categorical / numeric spaces.

    A GP with the mixed kernel ``(1 - lambda)(k_h + k_x) + lambda k_h k_x`` (overlap kernel on
    categoricals, Matern-5/2 ARD on the numeric part scaled to [0, 1]) models the objective. At
    every trial each categorical combination receives a *value proposal*, the maximum of log
    Expected Improvement over its numeric part; the trial takes the combination with the best
    proposal and its numeric point. Constraints (``trial.set_constraint`` or ``constraints_func``)
    get a GP each and add log P(feasible) to the acquisition. Two or three objectives get a GP
    each and the proposals maximise log expected hypervolume improvement (``multi_objective``);
    more objectives are scalarised by a random augmented Chebyshev weighting per trial (ParEGO).
    Conditional (define-by-run) spaces are inferred as a search tree whose leaves take the place
    of the combinations. The first ``n_startup_trials`` complete trials are an initial design: the
    first half random, the second half with random categoricals and numeric values chosen by
    Max-value Entropy Search (``search_initialization``). The GP's hyperparameters maximise the
    marginal likelihood times a prior (``hyperparameter_prior``; by default the dimension-scaled
    lengthscale prior of Hvarfner et al. 2024) and are refitted every trial while the data are
    few (``early_refits``); the paper fits by maximum likelihood every 10 trials.

    Long studies (beyond 300 trials) keep the cost per trial bounded: refits every 5 % of growth
    from the previous fit on a 300-trial subset, the GP grown by the new trials between refits,
    and at most 2,000 trials in the GP (the best of every combination, the latest, and a spread
    over the rest); the last fit is stored in the study's system attributes, so that a new
    process on the study does not fit from scratch.

    Args:
        seed: Seed of the sampler's random numbers; the same seed gives the same suggestions.
        preset: ``"default"`` (the settings that measured best) or ``"paper"`` (the paper's exact
            algorithm). Any argument below that is given overrides the preset.
        n_startup_trials: Size of the initial design (paper: 24).
        search_initialization: Choose the numeric part of the second half of the initial design
            by MES (paper: True); if False the whole initial design is random.
        n_candidates: Quasi-random numeric candidates shared by all combinations (paper: 200).
        n_local_candidates: Further candidates, Gaussian steps around the best observed points,
            shared by all combinations (paper: 0).
        n_refine: L-BFGS-B runs refining x within the chosen combination, from its best
            candidate and its best observed points (paper: 0).
        stall_trials: Once the best trial is older than this many complete trials, every other
            trial goes to the combinations observed least (0: never; paper: 0).
        refit_interval: Refit the GP hyperparameters every this many trials (paper: 10); beyond
            300 trials once the data grew by 5 %, and at least this many trials apart.
        early_refits: Refit every n / 10 observations while that is fewer than
            ``refit_interval`` (every trial up to 20 observations; paper: False).
        hyperparameter_prior: ``"none"`` (maximum likelihood, paper), ``"gpsampler"`` (Optuna
            GPSampler's priors) or ``"dimension-scaled"`` (Hvarfner et al. 2024): the fit
            maximises the likelihood times this prior.
        n_restarts: L-BFGS-B starts per hyperparameter fit, one warm-started (paper: 5); beyond
            300 trials a refit starts from the previous fit alone.
        max_enumerated_combinations: Above this many categorical combinations, proposals go to a
            sample of combinations plus the neighbours of the best observed ones.
        output_transform: ``"standardize"`` (paper), ``"yeo-johnson"`` or ``"copula"``: how
            objective values become the GP's targets.
        multi_objective: ``"ehvi"``: for 2 or 3 objectives, one GP per objective and value
            proposals by log expected hypervolume improvement (more objectives and spaces of more
            than 512 combinations fall back to ParEGO); ``"parego"``: a random augmented
            Chebyshev scalarisation per trial and one GP on it (Knowles 2006).
        record_proposals: Write diagnostics into each trial's user attribute ``"vpbo"`` and, with
            optuna-dashboard installed, a Markdown note it shows: the phase that chose the trial (``random``, ``mes`` or
            ``proposals``), the best value proposals (combination and log EI, or log EHVI), and
            the fitted lambda, lengthscales and noise (per objective with EHVI).
        categorical_relevance: Learn one relevance per categorical parameter with the other GP
            hyperparameters: the overlap kernel weighs the parameters by their relevances
            (normalised to sum to 1) instead of equally (paper: False). Opt-in; the diagnostics
            then show the weights.
        independent_sampler: Sampler for parameters outside the relative search space and for
            the random part of the initial design (default: ``RandomSampler(seed)``).
        warn_independent_sampling: Warn when a parameter falls back to the independent sampler
            after the initial design.
        constraints_func: The older way of giving constraints (values <= 0 are feasible), as in
            Optuna's samplers; constraints set with ``trial.set_constraint`` need no argument.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        preset: str = "default",
        n_startup_trials: int | None = None,
        search_initialization: bool | None = None,
        n_candidates: int | None = None,
        n_local_candidates: int | None = None,
        n_refine: int | None = None,
        stall_trials: int | None = None,
        refit_interval: int | None = None,
        early_refits: bool | None = None,
        hyperparameter_prior: str | None = None,
        n_restarts: int | None = None,
        max_enumerated_combinations: int | None = None,
        output_transform: str | None = None,
        multi_objective: str | None = None,
        record_proposals: bool | None = None,
        categorical_relevance: bool | None = None,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        if preset not in PRESETS:
            raise ValueError(f"Unknown preset {preset!r}; choose one of {sorted(PRESETS)}.")
        overrides: dict[str, Any] = {
            "n_startup_trials": n_startup_trials,
            "search_initialization": search_initialization,
            "n_candidates": n_candidates,
            "n_local_candidates": n_local_candidates,
            "n_refine": n_refine,
            "stall_trials": stall_trials,
            "refit_interval": refit_interval,
            "early_refits": early_refits,
            "hyperparameter_prior": hyperparameter_prior,
            "n_restarts": n_restarts,
            "max_enumerated_combinations": max_enumerated_combinations,
            "output_transform": output_transform,
            "multi_objective": multi_objective,
            "record_proposals": record_proposals,
            "categorical_relevance": categorical_relevance,
        }
        self._settings = dataclasses.replace(PRESETS[preset], **{k: v for k, v in overrides.items() if v is not None})
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an int or None, got {seed!r}.")
        self._base_seed = seed_entropy(seed)
        self._independent_sampler = independent_sampler or RandomSampler(seed=seed)
        self._warn_independent_sampling = warn_independent_sampling
        self._constraints_func = constraints_func
        if constraints_func is not None and _optuna_compat.HAS_NAMED_CONSTRAINTS:  # Optuna 4: the only way
            _optuna_compat.warn(
                "`constraints_func` is deprecated in Optuna 5 (as in Optuna's samplers): use "
                "`optuna.trial.Trial.set_constraint` instead.",
                FutureWarning,
            )
        self._intersection_search_space = optuna.search_space.IntersectionSearchSpace()
        self._pipeline = TrialPipeline(self._settings)
        self._lock = threading.Lock()

    @property
    def settings(self) -> VPBOSettings:
        return self._settings

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def reseed_rng(self) -> None:
        self._base_seed = seed_entropy(None)
        self._independent_sampler.reseed_rng()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        intersection = {
            name: dist for name, dist in self._intersection_search_space.calculate(study).items() if not dist.single()
        }
        tree = infer_search_tree(_optuna_compat.get_trials(study, (TrialState.COMPLETE,), use_cache=True))
        # Conditional parameters join the relative search space; each trial gets the parameters
        # of one leaf of the tree.
        return intersection if tree.is_flat else tree.distributions

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space:
            self._record(study, trial, {"phase": "random"})
            return {}
        # One BLAS thread: the native core is single-threaded by design, and SciPy's L-BFGS-B with
        # a multi-threaded OpenBLAS spins and slows down badly on a busy machine.
        with self._lock, THREADPOOLS.limit(limits=1, user_api="blas"):
            try:
                suggestion = self._pipeline.suggest(study, trial, search_space, self._base_seed)
            except MODEL_FAILURES as error:
                # A study never loses a trial to what the model cannot do: the independent
                # sampler takes over.
                _logger.warning(
                    f"VPBOSampler could not propose Trial#{trial.number} ({type(error).__name__}: "
                    f"{error}); its parameters are sampled by {type(self._independent_sampler).__name__}."
                )
                return {}
            # Published before the lock is released, so that the next thread of this process
            # already sees this trial as pending.
            _pending.publish(study, trial, suggestion.params)
        self._record(study, trial, suggestion.diagnostics)
        if not suggestion.params:
            return {}
        # Another worker may hold the same point (docs/many-workers.md): move on a clash.
        alternatives = [suggestion.alternative] if suggestion.alternative is not None else []
        return _pending.reserve(study, trial, [suggestion.params, *alternatives])

    def _record(self, study: Study, trial: FrozenTrial, diagnostics: dict[str, Any]) -> None:
        if self._settings.record_proposals:
            record_diagnostics(study, trial, diagnostics)

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        if (
            self._warn_independent_sampling
            and not param_distribution.single()
            and len(study.directions) == 1
            and _n_complete(study) >= self._settings.n_startup_trials
        ):
            _logger.warning(
                _optuna_compat.independent_sampling_warning(
                    param_name=param_name,
                    trial_number=trial.number,
                    independent_sampler_name=self._independent_sampler.__class__.__name__,
                    sampler_name=self.__class__.__name__,
                    fallback_reason=(
                        "the parameter is not in every completed trial and its presence is not explained "
                        "by the values of one categorical parameter or a threshold on one int parameter"
                    ),
                )
            )
        return self._independent_sampler.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._independent_sampler.before_trial(study, trial)

    def after_trial(
        self,
        study: Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        if self._constraints_func is not None:
            _optuna_compat.process_constraints_after_trial(self._constraints_func, study, trial, state)
        self._independent_sampler.after_trial(study, trial, state, values)


def seed_entropy(seed: int | None) -> int:
    """A non-negative integer seeding the per-trial random streams."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]  # drawn entropy is an int
    return int(seed) % (1 << 64)


def _n_complete(study: Study) -> int:
    return len(_optuna_compat.get_trials(study, (TrialState.COMPLETE,), use_cache=True))
