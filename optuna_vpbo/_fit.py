"""Hyperparameter fit of the mixed-kernel GP and the cache of every output's fit and GP. As in the
VPBO paper (sec. 5, following CoCaBO's code): lengthscales, output variance, noise variance and the
kernel mix lambda maximise the log marginal likelihood (native, with its gradient) in log space
(lambda in [0, 1]) by SciPy's L-BFGS-B from several starts; the best start wins."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import NamedTuple, Protocol

import numpy as np
import optuna
import scipy.optimize

from optuna_vpbo import _core
from optuna_vpbo._hyperparameters import HyperparameterLayout, hyperparameter_layout
from optuna_vpbo._output_transforms import FittedTransform, OutputTransform, target_variances
from optuna_vpbo._priors import NegativeLogPrior, negative_log_prior

_logger = optuna.logging.get_logger(__name__)

# Bounds on targets standardised to zero mean and unit variance, and x in [0, 1]^d.
LENGTHSCALE_BOUNDS = (1e-2, 20.0)
VARIANCE_BOUNDS = (1e-2, 20.0)
# The lower noise bound is the noise floor: the GP adds no jitter beyond it (native/gp.hpp).
NOISE_BOUNDS = (1e-6, 1.0)
LAMBDA_BOUNDS = (0.0, 1.0)
# Before the first fit, as in CoCaBO's code (lengthscale 0.2 on [-1, 1] is 0.1 on [0, 1]).
DEFAULT_LENGTHSCALE = 0.1
DEFAULT_VARIANCE = 1.0
DEFAULT_NOISE = 0.1
DEFAULT_LAMBDA = 0.5
MAX_LBFGS_ITERATIONS = 200
# Long studies (docs/decisions.md): up to LONG_STUDY observations a model is fitted as in the paper,
# on all its data. Beyond, refits come once the data grew by REFIT_GROWTH, the likelihood sees at
# most FIT_MAX_POINTS observations and a rebuilt GP at most GP_MAX_POINTS (``training_subset``).
LONG_STUDY = 300
EARLY_REFIT_DIVISOR = 10
REFIT_GROWTH = 0.05
FIT_MAX_POINTS = 300
GP_MAX_POINTS = 2000

# NOTE: the shares of a subset's budget: each combination's incumbents (where log EI is decided),
# then the latest points (where the search is now); the rest spread evenly over the history.
BEST_SHARE = 0.5
RECENT_SHARE = 0.25


def training_subset(h: np.ndarray, y: np.ndarray, n_max: int) -> np.ndarray:
    """Sorted indices of at most ``n_max`` of the points (h: n x k codes, y: n targets, larger
    is better): all of them if n <= n_max; else the best in turns over the combinations (each
    combination's best, then each one's second best, ...; within a turn best first), then the
    latest, then evenly spaced over the rest in arrival order. Deterministic: no random numbers."""
    n = len(y)
    if n_max < 1:
        raise ValueError(f"n_max must be a positive integer, got {n_max!r}.")
    if n <= n_max:
        return np.arange(n)
    n_best = int(BEST_SHARE * n_max)
    n_recent = int(RECENT_SHARE * n_max)
    chosen = np.zeros(n, dtype=bool)
    chosen[_best_in_turns(h, y)[:n_best]] = True
    remaining = np.flatnonzero(~chosen)
    chosen[remaining[len(remaining) - n_recent :]] = True
    remaining = np.flatnonzero(~chosen)
    n_spread = n_max - int(chosen.sum())
    if n_spread > 0:
        chosen[remaining[np.linspace(0, len(remaining) - 1, n_spread).round().astype(int)]] = True
    return np.flatnonzero(chosen)


def _best_in_turns(h: np.ndarray, y: np.ndarray) -> np.ndarray:
    """All indices, ordered by the rank of each point within its combination, then by value."""
    best_first = np.argsort(-y, kind="stable")
    if h.shape[1] == 0:
        return best_first
    _, combination = np.unique(h[best_first], axis=0, return_inverse=True)
    combination = combination.reshape(-1)
    rank = np.zeros(len(y), dtype=np.int64)
    seen: dict[int, int] = {}
    for position, c in enumerate(combination.tolist()):
        rank[position] = seen.get(c, 0)
        seen[c] = rank[position] + 1
    return best_first[np.lexsort((np.arange(len(y)), rank))]


@dataclasses.dataclass(frozen=True)
class GPHyperparameters:
    """The GP's hyperparameters: a lengthscale per numeric dimension, the output variance, the
    noise variance and the kernel mix lambda."""

    lengthscales: np.ndarray
    variance: float
    noise: float
    lam: float

    @classmethod
    def default(cls, n_numeric: int) -> GPHyperparameters:
        return cls(np.full(n_numeric, DEFAULT_LENGTHSCALE), DEFAULT_VARIANCE, DEFAULT_NOISE, DEFAULT_LAMBDA)

    @classmethod
    def from_theta(cls, theta: np.ndarray, layout: HyperparameterLayout) -> GPHyperparameters:
        """The inverse of ``to_theta`` for a theta of ``layout`` (lambda clipped to its bounds)."""
        if len(theta) != layout.size:
            raise ValueError(f"theta must have {layout.size} entries ({layout.n_numeric} lengthscales), got {len(theta)}.")
        return cls(
            np.exp(theta[layout.log_lengthscales]),
            float(math.exp(theta[layout.log_variance])),
            float(math.exp(theta[layout.log_noise])),
            float(np.clip(theta[layout.lam], *LAMBDA_BOUNDS)),
        )

    @property
    def layout(self) -> HyperparameterLayout:
        return hyperparameter_layout(len(self.lengthscales))

    def to_theta(self) -> np.ndarray:
        """The vector of the native likelihood, in this model's ``layout``."""
        layout = self.layout
        theta = np.empty(layout.size)
        theta[layout.log_lengthscales] = np.log(self.lengthscales)
        theta[layout.log_variance] = math.log(self.variance)
        theta[layout.log_noise] = math.log(self.noise)
        theta[layout.lam] = self.lam
        return theta

    def fits(self, n_numeric: int) -> bool:
        """Whether these hyperparameters have the shape of a model with ``n_numeric`` dimensions."""
        return len(self.lengthscales) == n_numeric

    def make_gp(self, h: np.ndarray, x: np.ndarray, y: np.ndarray, extra_noise: np.ndarray | None = None) -> _core.MixedGP:
        """The GP on (h, x, y) (``extra_noise``: None, or a noise variance per point beside the
        shared one), its points grouped by the level of the categorical with the most levels (the
        value proposals' per-level solves then skip the rows above each; ``native/proposals.cpp``)."""
        order = grouped_by_level(h)
        return self.gp_in_order(h[order], x[order], y[order], None if extra_noise is None else extra_noise[order])

    def gp_in_order(self, h: np.ndarray, x: np.ndarray, y: np.ndarray, extra_noise: np.ndarray | None = None) -> _core.MixedGP:
        """The GP on (h, x, y), its training points in the given order."""
        return _core.MixedGP(h, x, y, self.lengthscales, self.variance, self.lam, self.noise, extra_noise)


def grouped_by_level(h: np.ndarray) -> np.ndarray:
    """Row order that sorts ``h`` by its column with the most levels (stable; identity if none)."""
    if h.shape[1] == 0 or len(h) == 0:
        return np.arange(len(h))
    return np.argsort(h[:, int(np.argmax(h.max(axis=0)))], kind="stable")


def theta_bounds(
    layout: HyperparameterLayout,
    lam_bounds: tuple[float, float] = LAMBDA_BOUNDS,
    variance_bounds: tuple[float, float] = VARIANCE_BOUNDS,
) -> list[tuple[float, float]]:
    """L-BFGS-B's bounds on each entry of a theta of ``layout``."""
    def logs(pair: tuple[float, float]) -> tuple[float, float]:
        return math.log(pair[0]), math.log(pair[1])

    bounds = np.empty((layout.size, 2))
    bounds[layout.log_lengthscales] = logs(LENGTHSCALE_BOUNDS)
    bounds[layout.log_variance] = logs(variance_bounds)
    bounds[layout.log_noise] = logs(NOISE_BOUNDS)
    bounds[layout.lam] = lam_bounds
    return [(float(low), float(high)) for low, high in bounds]


def fit_hyperparameters(
    h: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    *,
    rng: np.random.Generator,
    n_restarts: int,
    warm_start: GPHyperparameters | None = None,
    lam_bounds: tuple[float, float] = LAMBDA_BOUNDS,
    variance_bounds: tuple[float, float] = VARIANCE_BOUNDS,
    prior: str = "none",
    extra_noise: np.ndarray | None = None,
) -> GPHyperparameters:
    """Maximum-likelihood (``prior="none"``) or maximum-a-posteriori hyperparameters (a prior of
    ``_priors``) from ``n_restarts`` L-BFGS-B runs: the first from ``warm_start`` (unless of
    another shape) or the defaults, the others from uniform points in the log-bounds. A start
    whose likelihood cannot be evaluated (a NumericalError) is skipped; if all fail, the first
    start is returned with a warning. ``lam_bounds`` (within [0, 1]) and ``variance_bounds``
    bound lambda and the output variance (equal bounds fix them, as CoCaBO fixes the variance at
    1); ``extra_noise`` (None, or a variance per observation) is noise known beside the fitted one.
    """
    layout = hyperparameter_layout(x.shape[1])
    bounds = theta_bounds(layout, lam_bounds, variance_bounds)
    lows, highs = np.array(bounds).T
    warm_fitted = warm_start is not None and warm_start.layout == layout
    if warm_start is None or not warm_fitted:
        warm_start = GPHyperparameters.default(layout.n_numeric)
    starts = [np.clip(warm_start.to_theta(), lows, highs)]
    starts += [rng.uniform(lows, highs) for _ in range(max(0, n_restarts - 1))]
    likelihood = _core.LikelihoodEvaluator(h, x, y, extra_noise)
    evaluator = _posterior_objective(likelihood, negative_log_prior(prior), layout)
    best_theta, best_value, failures = _best_of_starts(evaluator, starts, bounds)
    if not math.isfinite(best_value):
        _logger.warning(
            f"Every one of the {len(starts)} start(s) of the GP hyperparameter fit on {len(y)} observations failed "
            f"(first reason: {failures[0] if failures else 'none reported'}); the model keeps its "
            f"{'previous' if warm_fitted else 'default'} hyperparameters."
        )
    return GPHyperparameters.from_theta(np.clip(best_theta, lows, highs), layout)


def _best_of_starts(
    objective: Callable[[np.ndarray], tuple[float, np.ndarray]], starts: list[np.ndarray], bounds: list[tuple[float, float]]
) -> tuple[np.ndarray, float, list[str]]:
    """L-BFGS-B from each start: the best end point and its value (the first start and inf if no
    run ended finite), and why the failed runs failed."""
    best_theta, best_value = starts[0], math.inf
    failures: list[str] = []
    for start in starts:
        try:
            result = scipy.optimize.minimize(
                objective, start, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": MAX_LBFGS_ITERATIONS}
            )
        except _core.NumericalError as error:
            failures.append(str(error))  # hyperparameters whose kernel matrix cannot be factorised
            continue
        if not np.isfinite(result.fun):
            failures.append(f"the objective reached {result.fun}")
        elif result.fun < best_value:
            best_theta, best_value = result.x, float(result.fun)
    return best_theta, best_value, failures


def _posterior_objective(
    likelihood: Callable[[np.ndarray], tuple[float, np.ndarray]], prior: NegativeLogPrior, layout: HyperparameterLayout
) -> Callable[[np.ndarray], tuple[float, np.ndarray]]:
    """-log likelihood - log prior of theta, and its gradient."""

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = likelihood(theta)
        prior_value, prior_gradient = prior(theta, layout)
        return value + prior_value, np.asarray(gradient) + prior_gradient

    return objective


@dataclasses.dataclass(frozen=True)
class RefitSchedule:
    """When a model's hyperparameters are refitted and from how many starts: up to
    ``LONG_STUDY`` observations every ``refit_interval`` observations from ``n_restarts`` starts
    (one warm), as the paper; with ``early_refits`` every ``n / EARLY_REFIT_DIVISOR`` below that (a
    fit on a few points says little about the next, and costs milliseconds). Beyond, once the data
    grew by ``REFIT_GROWTH`` (at least ``refit_interval``), from the warm start alone."""

    refit_interval: int
    n_restarts: int
    early_refits: bool = False

    def interval(self, n_fitted: int) -> int:
        """How many new observations a fit on ``n_fitted`` observations is reused for."""
        if n_fitted < LONG_STUDY:
            if self.early_refits:
                return min(self.refit_interval, max(1, n_fitted // EARLY_REFIT_DIVISOR))
            return self.refit_interval
        return max(self.refit_interval, math.ceil(REFIT_GROWTH * n_fitted))

    def is_due(self, n_fitted: int, n: int) -> bool:
        """Whether a fit on ``n_fitted`` observations must be redone at ``n`` (or the data shrank)."""
        return not 0 <= n - n_fitted < self.interval(n_fitted)

    def restarts(self, n: int, warm: bool) -> int:
        return 1 if warm and n >= LONG_STUDY else self.n_restarts


class FitStore(Protocol):
    """Where the last fit of a long study's model outlives the process (``_fit_store``)."""

    def load(self, key: tuple[str, ...]) -> tuple[int, GPHyperparameters] | None: ...

    def save(self, key: tuple[str, ...], n_observations: int, hyperparameters: GPHyperparameters) -> None: ...


@dataclasses.dataclass(frozen=True)
class ModelFit:
    """One output's last fit: its size, hyperparameters and fitted output transform."""

    n_observations: int
    hyperparameters: GPHyperparameters
    transform: FittedTransform


class BuiltGP(NamedTuple):
    """The last GP built for a model: its hyperparameters, its training points' trial numbers in
    its order, the trial numbers it has seen (sorted; those left out of a subset too), the GP."""

    hyperparameters: GPHyperparameters
    numbers: np.ndarray
    seen: np.ndarray
    gp: _core.MixedGP


class ModelCache:
    """The last fit and the last GP of every output model (objectives and constraints), by key.
    Fits follow the ``RefitSchedule``, warm-started from the previous fit, or in a new process from
    the one a ``FitStore`` kept; in a long study a GP grows by the new observations between
    rebuilds (an O(n^2) update of its Cholesky factor)."""

    def __init__(self, refit_interval: int, n_restarts: int, *, early_refits: bool = False, prior: str = "none") -> None:
        self._schedule = RefitSchedule(refit_interval, n_restarts, early_refits)
        self._prior = prior
        self._fits: dict[tuple[str, ...], ModelFit] = {}
        self._gps: dict[tuple[str, ...], BuiltGP] = {}

    def __getstate__(self) -> dict[str, object]:
        """A pickled cache (a pickled sampler) leaves its GPs behind: native objects do not
        pickle, and the next trial builds them anew from the fits."""
        return {**self.__dict__, "_gps": {}}

    def fit_or_reuse(
        self, key: tuple[str, ...], h: np.ndarray, x: np.ndarray, values: np.ndarray, transform: OutputTransform,
        rng: np.random.Generator, store: FitStore | None = None, training: np.ndarray | None = None,
        value_variances: np.ndarray | None = None,
    ) -> tuple[np.ndarray, GPHyperparameters, FittedTransform]:
        """Every row's targets, the hyperparameters and output transform of model ``key`` fitted on
        the rows ``training`` (None: all), the ``value_variances`` (None: none) as extra noise."""
        rows = np.arange(len(h)) if training is None else training
        n = len(rows)
        cached = self._fits.get(key)
        if cached is None and store is not None and n >= LONG_STUDY:
            cached = _restored(store.load(key), x.shape[1], transform, values[rows])
        if cached is not None and not self._schedule.is_due(cached.n_observations, n):
            return cached.transform(values), cached.hyperparameters, cached.transform
        fitted_transform = transform.fit(values[rows])
        y = fitted_transform(values)
        warm_start = cached.hyperparameters if cached is not None else None
        subset = rows[training_subset(h[rows], y[rows], FIT_MAX_POINTS)]
        n_restarts = self._schedule.restarts(n, warm_start is not None)
        extra = target_variances(fitted_transform, values, value_variances)
        fitted = fit_hyperparameters(
            h[subset], x[subset], y[subset], rng=rng, n_restarts=n_restarts, warm_start=warm_start, prior=self._prior,
            extra_noise=None if extra is None else extra[subset],
        )
        self._fits[key] = ModelFit(n, fitted, fitted_transform)
        if store is not None and n >= LONG_STUDY:
            store.save(key, n, fitted)
        return y, fitted, fitted_transform

    def gp(
        self, key: tuple[str, ...], numbers: np.ndarray, data: tuple[np.ndarray, np.ndarray, np.ndarray],
        hyperparameters: GPHyperparameters, extra_noise: np.ndarray | None = None, training: np.ndarray | None = None,
    ) -> tuple[_core.MixedGP, np.ndarray]:
        """The GP of model ``key`` on the rows ``training`` (None: all) of ``data = (h, x, y)`` of the
        trials ``numbers`` (with their ``extra_noise``, None: none), and the order of the data in it
        (indices; a subset beyond ``GP_MAX_POINTS``). In a long study (``LONG_STUDY`` points) the
        last GP of every row grows by the trials it has not seen while its hyperparameters are
        current and its training trials are still in the data; else it is built anew from the
        ``training_subset`` grouped by level (bit for bit: a grown factor differs by round-off)."""
        h, x, y = data
        built = self._gps.get(key)
        current = built is not None and built.hyperparameters is hyperparameters
        if training is None and current and built is not None and len(built.numbers) >= LONG_STUDY:
            order = _extension_order(built.numbers, built.seen, numbers)
            if order is not None:
                new = order[len(built.numbers) :]
                try:
                    gp = built.gp.extended(h[new], x[new], y[order], None if extra_noise is None else extra_noise[new])
                except _core.NumericalError:
                    pass  # the round-off of the update: the GP is built anew below
                else:
                    self._gps[key] = BuiltGP(hyperparameters, numbers[order], np.union1d(built.seen, numbers[new]), gp)
                    return gp, order
        rows = np.arange(len(h)) if training is None else training
        subset = rows[training_subset(h[rows], y[rows], GP_MAX_POINTS)]
        order = subset[grouped_by_level(h[subset])]
        gp = hyperparameters.gp_in_order(h[order], x[order], y[order], None if extra_noise is None else extra_noise[order])
        self._gps[key] = BuiltGP(hyperparameters, numbers[order], np.unique(numbers[rows]), gp)
        return gp, order


def _restored(
    stored: tuple[int, GPHyperparameters] | None, n_numeric: int, transform: OutputTransform, values: np.ndarray
) -> ModelFit | None:
    """A stored fit as the cache's last fit (its output transform fitted on the current values);
    None if there is none or it has not ``n_numeric`` lengthscales."""
    if stored is None or not stored[1].fits(n_numeric):
        return None
    n_observations, hyperparameters = stored
    return ModelFit(n_observations, hyperparameters, transform.fit(values))


def _extension_order(previous: np.ndarray, seen: np.ndarray, numbers: np.ndarray) -> np.ndarray | None:
    """Indices into ``numbers``: the ``previous`` trials in their order, then the ones not
    ``seen`` before in theirs; None if some previous trial is no longer in ``numbers``."""
    position = {int(number): i for i, number in enumerate(numbers.tolist())}
    kept = [position.get(int(number), -1) for number in previous.tolist()]
    if -1 in kept:
        return None
    return np.concatenate([np.asarray(kept, dtype=np.int64), np.flatnonzero(~np.isin(numbers, seen))])
