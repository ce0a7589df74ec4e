"""VPBOSampler: Bayesian Optimisation using Value Proposals (Zuo et al.) as an Optuna sampler."""

from __future__ import annotations

import dataclasses
import json
import threading
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import optuna
import threadpoolctl
from optuna._warnings import optuna_warn
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.samplers._base import _INDEPENDENT_SAMPLING_WARNING_TEMPLATE, _process_constraints_after_trial
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo._combinations import candidate_combinations, enumerate_combinations
from optuna_vpbo._conditional_encoder import ConditionalEncoder
from optuna_vpbo._conditional_proposals import candidate_leaves, leaf_max_value_samples, propose_leaf
from optuna_vpbo._diagnostics import record_diagnostics
from optuna_vpbo._fit import GPHyperparameters, fit_hyperparameters
from optuna_vpbo._init_design import max_value_samples, mes_numeric_point, random_combination
from optuna_vpbo._multi_objective import (
    MULTI_OBJECTIVE_METHODS,
    feasible_front,
    hypervolume_acquisition,
    propose_hypervolume,
    uses_hypervolume,
)
from optuna_vpbo import _core
from optuna_vpbo._proposals import Acquisition, propose, screen_combinations, sobol_candidates
from optuna_vpbo._targets import (
    OUTPUT_TRANSFORMS,
    scalarized_values,
    standardized_constraint,
    transformed_targets,
)
from optuna_vpbo._search_tree import SearchTree, infer_search_tree
from optuna_vpbo.search_space import MixedSpaceEncoder

_logger = optuna.logging.get_logger(__name__)
_THREADPOOLS = threadpoolctl.ThreadpoolController()
# Numerical failures of the model (e.g. a Cholesky that fails even with jitter) that must not fail
# the user's trial.
_MODEL_FAILURES = (RuntimeError, ValueError, ArithmeticError, np.linalg.LinAlgError, MemoryError)

# Running trials publish their suggestion here so that other workers treat them as pending.
_RELATIVE_PARAMS_KEY = "vpbo:relative_params"
# Optuna's RDB storage keeps system attributes under 2046 characters.
_SYSTEM_ATTR_MAX_LENGTH = 2045
# The trial user attribute of the diagnostics (``record_proposals``).
_DIAGNOSTICS_KEY = "vpbo"
# How many of the best value proposals a Proposal keeps for diagnostics.
_N_RANKING = 5


@dataclasses.dataclass(frozen=True)
class VPBOSettings:
    """Every setting of the algorithm; see ``VPBOSampler`` for their meaning."""

    n_startup_trials: int = 24
    search_initialization: bool = True
    n_candidates: int = 512
    n_refine: int = 3
    refit_interval: int = 10
    n_restarts: int = 3
    max_enumerated_combinations: int = 4096
    output_transform: str = "yeo-johnson"
    multi_objective: str = "ehvi"
    record_proposals: bool = False

    @property
    def n_random_startup_trials(self) -> int:
        """The random part of the initial design: half of it with search initialisation."""
        return self.n_startup_trials // 2 if self.search_initialization else self.n_startup_trials

    def __post_init__(self) -> None:
        if self.output_transform not in OUTPUT_TRANSFORMS:
            raise ValueError(f"output_transform must be one of {OUTPUT_TRANSFORMS}, got {self.output_transform!r}.")
        if self.multi_objective not in MULTI_OBJECTIVE_METHODS:
            raise ValueError(
                f"multi_objective must be one of {MULTI_OBJECTIVE_METHODS}, got {self.multi_objective!r}."
            )
        for name in ("n_candidates", "refit_interval", "n_restarts", "max_enumerated_combinations"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name} must be a positive integer, got {getattr(self, name)!r}.")
        for name in ("n_startup_trials", "n_refine"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {getattr(self, name)!r}.")
        for name in ("search_initialization", "record_proposals"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}.")


PRESETS: dict[str, VPBOSettings] = {
    # The paper's settings (sec. 5): 24 initial points (12 random + 12 MES), 200 uniform
    # candidates per combination with no local refinement, multi-start refits every 10 trials.
    "paper": VPBOSettings(n_candidates=200, n_refine=0, n_restarts=5, output_transform="standardize"),
    "default": VPBOSettings(),
}


@dataclasses.dataclass(frozen=True)
class _ModelFit:
    n_observations: int
    hyperparameters: GPHyperparameters
    exponent: float | None  # of the Yeo-Johnson output transform


class VPBOSampler(BaseSampler):
    """Bayesian Optimisation using Value Proposals for mixed categorical / numeric spaces.

    A GP with the mixed kernel ``(1 - lambda)(k_h + k_x) + lambda k_h k_x`` (overlap kernel on
    categoricals, Matern-5/2 ARD on the numeric part scaled to [0, 1]) models the objective. At
    every trial each categorical combination receives a *value proposal*, the maximum of log
    Expected Improvement over its numeric part; the trial takes the combination with the best
    proposal and its numeric point. Constraints (``trial.set_constraint`` or ``constraints_func``)
    get a GP each and multiply EI by the probability of feasibility. Two or three objectives get
    a GP each and the proposals maximise log expected hypervolume improvement
    (``multi_objective``); more objectives are scalarised by a random augmented Chebyshev
    weighting per trial (ParEGO). The first
    ``n_startup_trials`` complete trials are an initial
    design: the first half random, the second half with random categoricals and numeric values
    chosen by Max-value Entropy Search (``search_initialization``).

    Args:
        seed: Seed of the sampler's random numbers; the same seed gives the same suggestions.
        preset: ``"default"`` (the settings that measured best) or ``"paper"`` (the paper's exact
            algorithm). Any argument below that is given overrides the preset.
        n_startup_trials: Size of the initial design (paper: 24).
        search_initialization: Choose the numeric part of the second half of the initial design
            by MES (paper: True); if False the whole initial design is random.
        n_candidates: Quasi-random numeric candidates shared by all combinations (paper: 200).
        n_refine: L-BFGS-B runs refining x within the chosen combination, from its best
            candidate and its best observed points (paper: 0).
        refit_interval: Refit the GP hyperparameters every this many trials (paper: 10).
        n_restarts: L-BFGS-B starts per hyperparameter fit, one warm-started (paper: 5).
        max_enumerated_combinations: Above this many categorical combinations, proposals go to a
            sample of combinations plus the neighbours of the best observed ones.
        output_transform: ``"standardize"`` (paper), ``"yeo-johnson"`` or ``"copula"``: how
            objective values become the GP's targets.
        multi_objective: ``"ehvi"``: for 2 or 3 objectives, one GP per objective and value
            proposals by log expected hypervolume improvement (more objectives, spaces of more
            than 512 combinations and conditional spaces fall back to ParEGO); ``"parego"``: a
            random augmented Chebyshev scalarisation per trial and one GP on it (Knowles 2006).
        record_proposals: Write diagnostics into each trial's user attribute ``"vpbo"`` (shown by
            optuna-dashboard): the phase that chose the trial (``random``, ``mes`` or
            ``proposals``), the best value proposals (combination and log EI, or log EHVI), and
            the fitted lambda, lengthscales and noise (per objective with EHVI).
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
        n_refine: int | None = None,
        refit_interval: int | None = None,
        n_restarts: int | None = None,
        max_enumerated_combinations: int | None = None,
        output_transform: str | None = None,
        multi_objective: str | None = None,
        record_proposals: bool | None = None,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        if preset not in PRESETS:
            raise ValueError(f"Unknown preset {preset!r}; choose one of {sorted(PRESETS)}.")
        overrides = {
            "n_startup_trials": n_startup_trials,
            "search_initialization": search_initialization,
            "n_candidates": n_candidates,
            "n_refine": n_refine,
            "refit_interval": refit_interval,
            "n_restarts": n_restarts,
            "max_enumerated_combinations": max_enumerated_combinations,
            "output_transform": output_transform,
            "multi_objective": multi_objective,
            "record_proposals": record_proposals,
        }
        self._settings = dataclasses.replace(
            PRESETS[preset], **{k: v for k, v in overrides.items() if v is not None}
        )
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an int or None, got {seed!r}.")
        self._base_seed = _seed_entropy(seed)
        self._independent_sampler = independent_sampler or RandomSampler(seed=seed)
        self._warn_independent_sampling = warn_independent_sampling
        self._constraints_func = constraints_func
        if constraints_func is not None:
            optuna_warn(
                "`constraints_func` is deprecated in Optuna 5 (as in Optuna's samplers): use "
                "`optuna.trial.Trial.set_constraint` instead.",
                FutureWarning,
            )
        self._intersection_search_space = optuna.search_space.IntersectionSearchSpace()
        # The last fit per model: (study, search space[, constraint]).
        self._fit_cache: dict[tuple[str, ...], _ModelFit] = {}
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
        self._base_seed = _seed_entropy(None)
        self._independent_sampler.reseed_rng()

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        intersection = {
            name: dist
            for name, dist in self._intersection_search_space.calculate(study).items()
            if not dist.single()
        }
        tree = infer_search_tree(study._get_trials(deepcopy=False, states=(TrialState.COMPLETE,), use_cache=True))
        # Conditional parameters join the relative search space, and each trial gets the
        # parameters of one leaf of the tree (``_sample_conditional_locked``).
        return intersection if tree.is_flat else tree.distributions

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space:
            self._record(study, trial, {"phase": "random"})
            return {}
        # One BLAS thread: the native core is single-threaded by design, and SciPy's L-BFGS-B with
        # a multi-threaded OpenBLAS spins and slows down badly on a busy machine.
        with self._lock, _THREADPOOLS.limit(limits=1, user_api="blas"):
            try:
                params, fallback = self._sample_relative_locked(study, trial, search_space)
            except _MODEL_FAILURES as error:
                # A study never loses a trial to the sampler: the independent sampler takes over.
                _logger.warning(
                    f"VPBOSampler could not propose Trial#{trial.number} ({type(error).__name__}: "
                    f"{error}); its parameters are sampled by {type(self._independent_sampler).__name__}."
                )
                return {}
            # Published before the lock is released, so that the next thread of this process
            # already sees this trial as pending.
            _publish(study, trial, params)
        if fallback is not None and _published_by_another(study, trial, params):
            # Another process computed the same point at the same time (both refined from the
            # same observed best) and published it: whichever publisher sees the clash takes its
            # unrefined candidate instead. The later publisher always sees the earlier one, so
            # at least one of them moves.
            params = fallback
            _publish(study, trial, params)
        return params

    def _sample_relative_locked(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The suggestion, and an alternative for when another worker published the same one."""
        settings = self._settings
        trials = study._get_trials(
            deepcopy=False, states=(TrialState.COMPLETE, TrialState.RUNNING), use_cache=False
        )
        tree = infer_search_tree([t for t in trials if t.state == TrialState.COMPLETE], search_space)
        if not tree.is_flat:
            return self._sample_conditional_locked(study, trial, trials, tree)
        complete = [
            t for t in trials if t.state == TrialState.COMPLETE and search_space.keys() <= t.params.keys()
        ]
        if len(complete) < max(settings.n_random_startup_trials, 1):
            self._record(study, trial, {"phase": "random"})
            return {}, None

        encoder = MixedSpaceEncoder(search_space)
        rng = np.random.default_rng([self._base_seed, trial.number])
        h, x = encoder.encode([t.params for t in complete])
        values = np.array([t.values for t in complete], dtype=np.float64)
        key = (study.study_name, repr(sorted(search_space.items())))
        if len(complete) >= settings.n_startup_trials and uses_hypervolume(
            settings.multi_objective,
            len(study.directions),
            float(np.prod(encoder.n_levels, dtype=np.float64)),
            settings.max_enumerated_combinations,
        ):
            return self._propose_hypervolume(study, trial, trials, complete, encoder, key, h, x, values, rng)
        # Several objectives: ParEGO (also the initial design's MES model under EHVI).
        values, direction = _scalar_values(values, study.directions, rng)
        y, hyperparameters = self._fit_or_reuse(
            key, h, x, lambda e: transformed_targets(values, direction, settings.output_transform, e), rng
        )
        h_pending, x_pending = _pending_points(trials, trial, encoder)
        gp, _ = _kriging_believer(hyperparameters, h, x, y, h_pending, x_pending)
        constraints, feasible = self._constraint_models(key, complete, h, x, rng)
        best = float(y[feasible].max()) if feasible.any() else math.nan

        candidates = encoder.round_to_grid(sobol_candidates(encoder.n_numeric, settings.n_candidates, rng))
        if len(complete) < settings.n_startup_trials:
            max_values = max_value_samples(gp, encoder.n_levels, h, x, float(y.max()), rng)
            h_next = random_combination(encoder.n_levels, rng)
            x_next = (
                mes_numeric_point(gp, h_next, max_values, candidates)
                if encoder.n_numeric
                else np.zeros(0)
            )
            self._record(study, trial, {"phase": "mes", **_model_diagnostics(hyperparameters, encoder)})
            return encoder.decode(h_next, x_next), None

        # Feasible trials first, each group best first.
        best_first = np.lexsort((-y, ~feasible))
        acquisition = Acquisition(gp, best, constraints)
        combinations = screen_combinations(
            acquisition,
            candidate_combinations(encoder.n_levels, settings.max_enumerated_combinations, rng, h[best_first]),
            candidates,
            encoder.n_levels,
        )
        proposal = propose(
            acquisition,
            combinations,
            candidates,
            n_refine=settings.n_refine,
            observed_h=h[best_first],
            observed_x=x[best_first],
            taken_h=np.vstack([h, h_pending]),
            taken_x=np.vstack([x, x_pending]),
            n_ranking=_N_RANKING,
            snap=encoder.round_to_grid,
        )
        if settings.record_proposals:
            top = _top_proposals(encoder, proposal.ranking)
            self._record(
                study,
                trial,
                {"phase": "proposals", "top_proposals": top, **_model_diagnostics(hyperparameters, encoder)},
            )
        return encoder.decode(proposal.h, proposal.x), encoder.decode(proposal.h, proposal.x_candidate)

    def _propose_hypervolume(
        self,
        study: Study,
        trial: FrozenTrial,
        trials: list[FrozenTrial],
        complete: list[FrozenTrial],
        encoder: MixedSpaceEncoder,
        key: tuple[str, ...],
        h: np.ndarray,
        x: np.ndarray,
        values: np.ndarray,
        rng: np.random.Generator,
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """Value proposals by log EHVI: one GP per objective (kriging believers for the running
        trials), the constraint GPs, all combinations on shared candidates (``_multi_objective``)."""
        settings = self._settings
        h_pending, x_pending = _pending_points(trials, trial, encoder)
        objectives, targets, believed, fits = [], [], [], []
        for j, direction in enumerate(study.directions):
            y, hyperparameters = self._fit_or_reuse(
                (*key, f"objective:{j}"),
                h,
                x,
                lambda e, j=j, d=direction: transformed_targets(values[:, j], d, settings.output_transform, e),
                rng,
            )
            gp, mean = _kriging_believer(hyperparameters, h, x, y, h_pending, x_pending)
            objectives.append(gp)
            targets.append(y)
            believed.append(mean)
            fits.append(hyperparameters)
        targets_matrix = np.column_stack(targets)
        constraints, feasible = self._constraint_models(key, complete, h, x, rng)
        acquisition = hypervolume_acquisition(
            objectives, targets_matrix, feasible, np.column_stack(believed), constraints
        )
        front = feasible_front(targets_matrix, feasible)
        proposal = propose_hypervolume(
            acquisition,
            enumerate_combinations(encoder.n_levels),
            encoder.round_to_grid(sobol_candidates(encoder.n_numeric, settings.n_candidates, rng)),
            refine_x=settings.n_refine > 0,
            front_h=h[front],
            front_x=x[front],
            taken_h=np.vstack([h, h_pending]),
            taken_x=np.vstack([x, x_pending]),
            n_ranking=_N_RANKING,
            snap=encoder.round_to_grid,
        )
        if settings.record_proposals:
            top = _top_proposals(encoder, proposal.ranking)
            models = [_model_diagnostics(fit, encoder) for fit in fits]
            self._record(
                study,
                trial,
                {"phase": "proposals", "acquisition": "log EHVI", "top_proposals": top, "objectives": models},
            )
        return encoder.decode(proposal.h, proposal.x), encoder.decode(proposal.h, proposal.x_candidate)

    def _sample_conditional_locked(
        self, study: Study, trial: FrozenTrial, trials: list[FrozenTrial], tree: SearchTree
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """``_sample_relative_locked`` on a conditional search space: the same GP on the imputed
        encoding of all completed trials (``_conditional_encoder``), MES on a random leaf in the
        initial design, then one value proposal per leaf of the tree
        (``_conditional_proposals``). Several objectives are scalarised (ParEGO)."""
        settings = self._settings
        complete = [t for t in trials if t.state == TrialState.COMPLETE]
        if len(complete) < max(settings.n_random_startup_trials, 1):
            self._record(study, trial, {"phase": "random"})
            return {}, None

        encoder = ConditionalEncoder(tree)
        rng = np.random.default_rng([self._base_seed, trial.number])
        h, x = encoder.encode([t.params for t in complete])
        values = np.array([t.values for t in complete], dtype=np.float64)
        values, direction = _scalar_values(values, study.directions, rng)
        key = (study.study_name, repr(sorted(tree.distributions.items())), repr(sorted(tree.conditions.items())))
        y, hyperparameters = self._fit_or_reuse(
            key, h, x, lambda e: transformed_targets(values, direction, settings.output_transform, e), rng
        )
        h_pending, x_pending = _conditional_pending_points(trials, trial, encoder)
        gp, _ = _kriging_believer(hyperparameters, h, x, y, h_pending, x_pending)
        constraints, feasible = self._constraint_models(key, complete, h, x, rng)
        best = float(y[feasible].max()) if feasible.any() else math.nan

        candidates = sobol_candidates(encoder.n_numeric, settings.n_candidates, rng)
        diagnostics = _model_diagnostics(hyperparameters, encoder)
        if len(complete) < settings.n_startup_trials:
            max_values = leaf_max_value_samples(gp, encoder, h, x, float(y.max()), rng)
            leaf = tree.random_leaf(rng)
            leaf_candidates = encoder.snap(candidates, encoder.active_numerics(leaf))
            x_next = (
                mes_numeric_point(gp, encoder.leaf_codes(leaf), max_values, leaf_candidates)
                if encoder.n_numeric
                else np.zeros(0)
            )
            self._record(study, trial, {"phase": "mes", **diagnostics})
            return encoder.decode(leaf, x_next), None

        order = np.lexsort((-y, ~feasible))  # feasible trials first, each group best first
        observed_leaves = [tree.leaf_of(complete[i].params) for i in order]
        proposal = propose_leaf(
            Acquisition(gp, best, constraints),
            encoder,
            candidate_leaves(
                encoder,
                settings.max_enumerated_combinations,
                rng,
                [leaf for leaf in observed_leaves if leaf is not None],
            ),
            candidates,
            n_refine=settings.n_refine,
            observed_h=h[order],
            observed_x=x[order],
            taken_h=np.vstack([h, h_pending]),
            taken_x=np.vstack([x, x_pending]),
            n_ranking=_N_RANKING,
        )
        if settings.record_proposals:
            top = [
                {"params": encoder.categorical_params(leaf), "acquisition": round(value, 4)}
                for leaf, value in proposal.ranking
            ]
            self._record(study, trial, {"phase": "proposals", "top_proposals": top, **diagnostics})
        return encoder.decode(proposal.leaf, proposal.x), encoder.decode(proposal.leaf, proposal.x_candidate)

    def _record(self, study: Study, trial: FrozenTrial, diagnostics: dict[str, Any]) -> None:
        if self._settings.record_proposals:
            record_diagnostics(study, trial, diagnostics)

    def _fit_or_reuse(
        self,
        key: tuple[str, ...],
        h: np.ndarray,
        x: np.ndarray,
        make_targets: Callable[[float | None], tuple[np.ndarray, float | None]],
        rng: np.random.Generator,
    ) -> tuple[np.ndarray, GPHyperparameters]:
        """Targets and GP hyperparameters of one model (``key``): the cached fit (hyperparameters
        and output-transform exponent) while fewer than ``refit_interval`` trials came since it,
        else a refit warm-started from it. ``make_targets(exponent)`` returns the targets and the
        exponent it used (None: fit one)."""
        cached = self._fit_cache.get(key)
        n = len(h)
        if cached is not None and 0 <= n - cached.n_observations < self._settings.refit_interval:
            y, _ = make_targets(cached.exponent)
            return y, cached.hyperparameters
        y, exponent = make_targets(None)
        fitted = fit_hyperparameters(
            h,
            x,
            y,
            rng=rng,
            n_restarts=self._settings.n_restarts,
            warm_start=cached.hyperparameters if cached is not None else None,
        )
        self._fit_cache[key] = _ModelFit(n, fitted, exponent)
        return y, fitted

    def _constraint_models(
        self,
        key: tuple[str, ...],
        complete: list[FrozenTrial],
        h: np.ndarray,
        x: np.ndarray,
        rng: np.random.Generator,
    ) -> tuple[list[tuple[_core.MixedGP, float]], np.ndarray]:
        """One GP per constraint (Gardner et al. 2014) with its feasibility threshold, and which
        trials are feasible (all constraints <= 0). Trials of an unconstrained study are all
        feasible; a trial that lacks a constraint's value counts as infeasible and is left out
        of that constraint's GP."""
        names = sorted(set().union(*(t.constraints.keys() for t in complete)))
        if not names:
            return [], np.ones(len(complete), dtype=bool)
        values = np.array([[t.constraints.get(name, math.nan) for name in names] for t in complete])
        feasible = np.all(values <= 0.0, axis=1)  # NaN compares False: infeasible
        models = []
        for j, name in enumerate(names):
            known = ~np.isnan(values[:, j])
            g, threshold = standardized_constraint(values[known, j])
            _, hyperparameters = self._fit_or_reuse(
                (*key, f"constraint:{name}"), h[known], x[known], lambda _: (g, None), rng
            )
            models.append((hyperparameters.make_gp(h[known], x[known], g), threshold))
        return models, feasible

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
            and not study._is_multi_objective()
            and _n_complete(study) >= self._settings.n_startup_trials
        ):
            _logger.warning(
                _INDEPENDENT_SAMPLING_WARNING_TEMPLATE.format(
                    param_name=param_name,
                    trial_number=trial.number,
                    independent_sampler_name=self._independent_sampler.__class__.__name__,
                    sampler_name=self.__class__.__name__,
                    fallback_reason=(
                        "the parameter is not in every completed trial and its presence is not explained "
                        "by the values of one categorical parameter"
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
            _process_constraints_after_trial(self._constraints_func, study, trial, state)
        self._independent_sampler.after_trial(study, trial, state, values)


def _scalar_values(
    values: np.ndarray, directions: Sequence[StudyDirection], rng: np.random.Generator
) -> tuple[np.ndarray, StudyDirection]:
    """The objective values (n x m) as one value per trial and its direction: several objectives
    are scalarised by ParEGO (Knowles 2006), a random augmented-Chebyshev weighting per trial."""
    if len(directions) == 1:
        return values[:, 0], directions[0]
    weights = rng.dirichlet(np.ones(len(directions)))
    return scalarized_values(values, list(directions), weights), StudyDirection.MAXIMIZE


def _kriging_believer(
    hyperparameters: GPHyperparameters,
    h: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    h_pending: np.ndarray,
    x_pending: np.ndarray,
) -> tuple[_core.MixedGP, np.ndarray]:
    """The GP on the data, conditioned on the running trials at its posterior mean there (the
    kriging believer: the mean is kept and the variance shrinks, so workers spread out), and
    those believed values (empty when nothing is pending)."""
    gp = hyperparameters.make_gp(h, x, y)
    if not len(h_pending):
        return gp, np.zeros(0)
    mean, _ = gp.predict(h_pending, x_pending)
    believed = hyperparameters.make_gp(np.vstack([h, h_pending]), np.vstack([x, x_pending]), np.concatenate([y, mean]))
    return believed, mean


def _top_proposals(
    encoder: MixedSpaceEncoder, ranking: Sequence[tuple[Sequence[int], float]]
) -> list[dict[str, Any]]:
    """The best value proposals for the diagnostics: categorical values and acquisition value."""
    return [
        {"params": _categorical_params(encoder, combination), "acquisition": round(value, 4)}
        for combination, value in ranking
    ]


def _categorical_params(encoder: MixedSpaceEncoder, combination: Sequence[int]) -> dict[str, Any]:
    return {
        name: encoder.decode_categorical(name, code)
        for name, code in zip(encoder.categorical_names, combination)
    }


def _model_diagnostics(hyperparameters: GPHyperparameters, encoder: MixedSpaceEncoder) -> dict[str, Any]:
    return {
        "lambda": round(hyperparameters.lam, 4),
        "noise": float(f"{hyperparameters.noise:.3g}"),
        "lengthscales": {
            name: round(float(ls), 4) for name, ls in zip(encoder.numeric_names, hyperparameters.lengthscales)
        },
    }


def _seed_entropy(seed: int | None) -> int:
    """A non-negative integer seeding the per-trial random streams."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    return int(seed) % (1 << 64)


def _n_complete(study: Study) -> int:
    return len(study._get_trials(deepcopy=False, states=(TrialState.COMPLETE,), use_cache=True))


def _publish(study: Study, trial: FrozenTrial, params: dict[str, Any]) -> None:
    """Write the suggestion into the trial's system attributes, in chunks, count last."""
    if not params:
        return
    encoded = json.dumps(params)
    chunks = [encoded[i : i + _SYSTEM_ATTR_MAX_LENGTH] for i in range(0, len(encoded), _SYSTEM_ATTR_MAX_LENGTH)]
    for i, chunk in enumerate(chunks):
        study._storage.set_trial_system_attr(trial._trial_id, f"{_RELATIVE_PARAMS_KEY}:{i}", chunk)
    study._storage.set_trial_system_attr(trial._trial_id, f"{_RELATIVE_PARAMS_KEY}:count", len(chunks))


def _in_flight_params(trial: FrozenTrial) -> dict[str, Any]:
    """A running trial's parameters: those it has set, plus the suggestion it published."""
    count = trial.system_attrs.get(f"{_RELATIVE_PARAMS_KEY}:count", 0)
    chunks = [trial.system_attrs.get(f"{_RELATIVE_PARAMS_KEY}:{i}") for i in range(count)]
    try:
        params = json.loads("".join(chunks)) if count and None not in chunks else {}
    except ValueError:
        params = {}  # read while being rewritten: the trial is seen again at the next call
    params.update(trial.params)
    return params


def _published_by_another(study: Study, current: FrozenTrial, params: dict[str, Any]) -> bool:
    running = study._get_trials(deepcopy=False, states=(TrialState.RUNNING,), use_cache=False)
    return any(t.number != current.number and _in_flight_params(t) == params for t in running)


def _other_running_params(trials: list[FrozenTrial], current: FrozenTrial) -> Iterator[dict[str, Any]]:
    """The in-flight parameters of every running trial other than ``current``."""
    for t in trials:
        if t.state == TrialState.RUNNING and t.number != current.number:
            yield _in_flight_params(t)


def _pending_points(
    trials: list[FrozenTrial], current: FrozenTrial, encoder: MixedSpaceEncoder
) -> tuple[np.ndarray, np.ndarray]:
    """Encoded points (h, x) of the other running trials whose parameters cover the search
    space (empty arrays when there are none)."""
    names = set(encoder.categorical_names) | set(encoder.numeric_names)
    points = []
    for params in _other_running_params(trials, current):
        if names <= params.keys():
            try:
                points.append(encoder.encode([params]))
            except (ValueError, KeyError, TypeError):
                continue  # values from another search space: not a pending point of this one
    h_pending = np.zeros((0, encoder.n_categorical), dtype=np.int32)
    x_pending = np.zeros((0, encoder.n_numeric))
    return (
        np.vstack([h_pending, *(p[0] for p in points)]).astype(np.int32),
        np.vstack([x_pending, *(p[1] for p in points)]),
    )


def _conditional_pending_points(
    trials: list[FrozenTrial], current: FrozenTrial, encoder: ConditionalEncoder
) -> tuple[np.ndarray, np.ndarray]:
    """Encoded points (h, x) of the other running trials that have every parameter of a leaf of
    the tree (empty arrays when there are none)."""
    points = []
    for params in _other_running_params(trials, current):
        leaf = encoder.tree.leaf_of(params)
        if leaf is not None:
            active = {name for name, _ in leaf.categoricals} | set(leaf.numerics)
            points.append({name: value for name, value in params.items() if name in active})
    return encoder.encode(points)
