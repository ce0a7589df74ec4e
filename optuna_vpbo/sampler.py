"""VPBOSampler: Bayesian Optimisation using Value Proposals (Zuo et al.) as an Optuna sampler."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo import _blas_threads, _core, _optuna_compat, _pending
from optuna_vpbo._diagnostics import DIAGNOSTICS_KEY, diagnostics_markdown
from optuna_vpbo._independent_sampling import fallback_reason
from optuna_vpbo._observations import tree_states
from optuna_vpbo._pipeline import TrialPipeline
from optuna_vpbo._search_tree import infer_search_tree
from optuna_vpbo._settings import PRESETS, VPBOSettings
from optuna_vpbo._stored import MOVE_KEY, OBJECTIVE_FAILURE_KEY

_logger = optuna.logging.get_logger(__name__)
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
    each and the proposals maximise log expected hypervolume improvement; more objectives are
    scalarised by a random augmented Chebyshev weighting per trial (ParEGO). Conditional
    (define-by-run) spaces are inferred as a search tree whose leaves take the place of the
    combinations. Pruned trials join the GP at a pessimistic value imputed from their last
    intermediate value; failed trials join it at a pessimistic value and teach a success GP whose
    log P(success) joins the acquisition; a pruned or failed configuration is not proposed again
    (docs/pruning-and-failures.md). The first ``n_startup_trials`` finished trials are an initial
    design: the first half random, the second half with random categoricals and numeric values
    chosen by Max-value Entropy Search. The GP's hyperparameters maximise the marginal likelihood times a prior (by
    default the dimension-scaled lengthscale prior of Hvarfner et al. 2024) and are refitted every
    trial while the data are few; the paper fits by maximum likelihood every 10 trials.

    Long studies (beyond 300 trials) keep the cost per trial bounded: refits every 5 % of growth
    from the previous fit on a 300-trial subset, the GP grown by the new trials between refits,
    and at most 2,000 trials in the GP (the best of every combination, the latest, and a spread
    over the rest); the last fit is stored in the study's system attributes, so that a new
    process on the study does not fit from scratch.

    The algorithm's settings are one validated object, ``VPBOSettings`` (its fields are documented
    there), from ``settings`` or from a named ``preset``; ``n_startup_trials`` replaces the size of
    the initial design in either.

    Args:
        seed: Seed of the sampler's random numbers; the same seed gives the same suggestions on
            one machine (another machine's BLAS kernels may round differently, and over a few dozen
            trials the suggestions part).
        n_startup_trials: Size of the initial design; None: the settings' value.
        constraints_func: The older way of giving constraints (values <= 0 are feasible), as in
            Optuna's samplers; constraints set with ``trial.set_constraint`` need no argument.
        independent_sampler: Sampler for parameters outside the relative search space and for
            the random part of the initial design (default: ``RandomSampler(seed)``).
        record_proposals: Write diagnostics into each trial's user attribute ``"vpbo"`` and, with
            optuna-dashboard installed, a Markdown note it shows: the phase that chose the trial
            (``random``, ``mes`` or ``proposals``), the best value proposals (combination and log
            EI, or log EHVI), the fitted lambda, lengthscales and noise (per objective with
            EHVI), how many pruned and failed trials the model learnt from, and the probability
            that the chosen point does not fail.
        preset: ``"default"`` (the settings that measured best) or ``"paper"`` (the paper's exact
            algorithm); None: ``"default"``, unless ``settings`` is given (then preset must be
            None).
        settings: Every other setting of the algorithm, a ``VPBOSettings`` (see its fields), e.g.
            ``VPBOSettings(hyperparameter_prior="none")`` or
            ``VPBOSettings.paper().replace(n_refine=3)``; None: the preset's.
        warn_independent_sampling: Log a warning, with its reason, when a parameter is sampled by
            the independent sampler after the initial design.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        n_startup_trials: int | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
        independent_sampler: BaseSampler | None = None,
        record_proposals: bool = False,
        preset: str | None = None,
        settings: VPBOSettings | None = None,
        warn_independent_sampling: bool = True,
    ) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise TypeError(f"seed must be an int or None, got {seed!r}.")
        _check_bool("record_proposals", record_proposals)
        _check_bool("warn_independent_sampling", warn_independent_sampling)
        if independent_sampler is not None and not isinstance(independent_sampler, BaseSampler):
            raise TypeError(f"independent_sampler must be an Optuna sampler or None, got {independent_sampler!r}.")
        if constraints_func is not None and not callable(constraints_func):
            raise TypeError(f"constraints_func must be callable or None, got {constraints_func!r}.")
        self._settings = resolve_settings(preset, settings, n_startup_trials)
        self._record_proposals = record_proposals
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
        # Pruned trials shape the space as they shape the tree (``_observations.tree_states``).
        self._intersection_search_space = optuna.search_space.IntersectionSearchSpace(
            include_pruned=TrialState.PRUNED in tree_states(self._settings.pruned_trials)
        )
        self._pipeline = TrialPipeline(self._settings)
        self._lock = threading.Lock()

    @property
    def settings(self) -> VPBOSettings:
        """The settings the sampler runs with (the preset's or ``settings``, with
        ``n_startup_trials`` applied)."""
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
        tree = infer_search_tree(_optuna_compat.get_trials(study, tree_states(self._settings.pruned_trials), use_cache=True))
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
        # a multi-threaded OpenBLAS spins and slows down badly on a busy machine. Process-wide,
        # reference-counted over every sampler of the process (``_blas_threads``).
        with self._lock, _blas_threads.one_blas_thread():
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
            # already sees this trial as pending, and its move as taken.
            if suggestion.move is not None:
                _optuna_compat.set_trial_system_attr(study, trial, MOVE_KEY, list(suggestion.move))
            _pending.publish(study, trial, suggestion.params)
        self._record(study, trial, suggestion.diagnostics)
        if not suggestion.params:
            return {}
        # Another worker may hold the same point (docs/many-workers.md): move on a clash.
        alternatives = [suggestion.alternative] if suggestion.alternative is not None else []
        return _pending.reserve(study, trial, [suggestion.params, *alternatives])

    def _record(self, study: Study, trial: FrozenTrial, diagnostics: dict[str, Any]) -> None:
        if self._record_proposals:
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
            and _began_after_initial_design(study, trial, self._settings.n_startup_trials)
        ):
            _logger.warning(
                _optuna_compat.independent_sampling_warning(
                    param_name=param_name,
                    trial_number=trial.number,
                    independent_sampler_name=self._independent_sampler.__class__.__name__,
                    sampler_name=self.__class__.__name__,
                    fallback_reason=fallback_reason(study, trial, param_name, param_distribution),
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
        if state == TrialState.FAIL:
            # Only failures that pass here are the configuration's (docs/pruning-and-failures.md).
            _optuna_compat.set_trial_system_attr(study, trial, OBJECTIVE_FAILURE_KEY, True)
        if self._constraints_func is not None:
            _optuna_compat.process_constraints_after_trial(self._constraints_func, study, trial, state)
        self._independent_sampler.after_trial(study, trial, state, values)


def resolve_settings(preset: str | None, settings: VPBOSettings | None, n_startup_trials: int | None) -> VPBOSettings:
    """The settings of a sampler: ``settings``, else the preset's (None: "default"); the size of
    the initial design replaced by ``n_startup_trials`` unless it is None."""
    if preset is not None and not isinstance(preset, str):
        raise TypeError(f"preset must be a str or None, got {preset!r}.")
    if preset is not None and preset not in PRESETS:
        raise ValueError(f"Unknown preset {preset!r}; choose one of {sorted(PRESETS)}.")
    if settings is None:
        resolved = PRESETS[preset or "default"]
    elif not isinstance(settings, VPBOSettings):
        raise TypeError(f"settings must be a VPBOSettings or None, got {type(settings).__name__}.")
    elif preset is not None:
        raise ValueError(
            f"Give either preset={preset!r} or settings, not both: start the settings from the preset "
            f"instead, e.g. settings=VPBOSettings.paper().replace(...)."
        )
    else:
        resolved = settings
    return resolved if n_startup_trials is None else resolved.replace(n_startup_trials=n_startup_trials)


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {value!r}.")


def seed_entropy(seed: int | None) -> int:
    """A non-negative integer seeding the per-trial random streams."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]  # drawn entropy is an int
    return int(seed) % (1 << 64)


def record_diagnostics(study: Study, trial: FrozenTrial, diagnostics: dict[str, Any]) -> None:
    """Store ``diagnostics`` in the trial's user attribute ``"vpbo"`` and, when optuna-dashboard
    is importable, write them as the trial's Markdown note (skipped silently without it)."""
    _optuna_compat.set_trial_user_attr(study, trial, DIAGNOSTICS_KEY, diagnostics)
    _optuna_compat.save_dashboard_note(study, trial, diagnostics_markdown(diagnostics))


def _began_after_initial_design(study: Study, trial: FrozenTrial, n_startup_trials: int) -> bool:
    """Whether ``n_startup_trials`` trials were complete when ``trial`` began: if not, the trial
    is part of the initial design, whatever completed while it ran (other workers)."""
    complete = _optuna_compat.get_trials(study, (TrialState.COMPLETE,), use_cache=True)
    if len(complete) < n_startup_trials or trial.datetime_start is None:
        return len(complete) >= n_startup_trials
    began = trial.datetime_start
    return sum(1 for t in complete if t.datetime_complete is not None and t.datetime_complete <= began) >= n_startup_trials
