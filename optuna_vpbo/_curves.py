"""What a pruned trial's learning curve says about its final value (issue 28).

A pruned trial stopped at its last step s with the value v there. The complete trials that
reported at step s (its peers) show how values at s become final values; a step-to-final map
learnt from their pairs (value at s, final value) turns v into a predictive distribution of the
trial's final value, N(mean, variance), whose variance is what the peers cannot say: the map's
residuals at that step and its own uncertainty with few peers. Where early steps rank the final
values badly the prediction falls back toward the peers' final values as a whole, with their
whole spread: weak evidence, not wrong evidence.

Two maps, both monotone (a worse value at s never predicts a better end):

- ``linear``: a least-squares line with a non-negative slope and the ordinary least-squares
  prediction variance at v;
- ``rank``: a Gaussian copula on ranks. Normal scores of the peers' values at s and of their
  finals, their correlation rho (at least 0, lowered by one standard error: few peers trust
  less), the score of v among the peers' values at s, the final's score N(rho z, 1 - rho^2),
  mapped back through the peers' empirical quantile function of final values (rank-preserving,
  never beyond the best or the worst final value observed).

A ``bound`` (the final value is no better than it) truncates the prediction from below: the
mean and variance of the truncated distribution. Everything here is in losses (lower is better).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable

import numpy as np
import scipy.special

LINEAR, RANK = "linear", "rank"
STEP_TO_FINAL_MAPS = (LINEAR, RANK)
# Peers needed for a map; with fewer, the final value is predicted from the peers' final values
# alone (the value at s shifted by their median offset) with their spread, or a wide default.
MIN_PEERS = 3
# A map of one step: (value at s, bound or None) -> (mean, variance) of the final value.
StepToFinal = Callable[[float, float | None], tuple[float, float]]
# Probabilities of the quantile rule that gives the moments of a (truncated) prediction.
_QUANTILE_LEVELS = (np.arange(64) + 0.5) / 64


def normal_scores(values: np.ndarray) -> np.ndarray:
    """Van der Waerden scores: Phi^-1(rank / (n + 1)), ranks 1..n, ties sharing their mean rank."""
    ranks = _mean_ranks(values)
    return np.asarray(scipy.special.ndtri(ranks / (len(values) + 1.0)))


def _mean_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``values``, ties at their mean rank."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse.reshape(-1), weights=ranks)
    return np.asarray(sums[inverse.reshape(-1)] / counts[inverse.reshape(-1)])


def rank_correlation(intermediate: np.ndarray, final: np.ndarray) -> float:
    """The correlation of the normal scores of the two samples, lowered by one standard error
    ((1 - rho^2) / sqrt(n - 1)) and clipped to [0, 1): what the map trusts of early ranks."""
    n = len(intermediate)
    a, b = normal_scores(intermediate), normal_scores(final)
    spread = float(np.sqrt(np.sum(a * a) * np.sum(b * b)))
    rho = float(np.sum(a * b)) / spread if spread > 0 else 0.0
    return min(max(rho - (1.0 - rho * rho) / math.sqrt(max(n - 1, 1)), 0.0), 1.0 - 1e-9)


def _quantile_function(final: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The peers' empirical quantile function: order statistic k (1..n) at k / (n + 1), linear in
    between and flat beyond the extremes."""
    ordered = np.sort(final)
    positions = np.arange(1, len(ordered) + 1) / (len(ordered) + 1.0)
    return np.interp(probabilities, positions, ordered)


def _score_of(value: float, intermediate: np.ndarray) -> float:
    """The normal score of ``value`` among the peers' values at s (ties count half)."""
    below = float(np.sum(intermediate < value) + 0.5 * np.sum(intermediate == value))
    return float(scipy.special.ndtri((below + 0.5) / (len(intermediate) + 1.0)))


def _truncated_levels(mean: float, sd: float, bound: float | None) -> np.ndarray:
    """Quantiles of N(mean, sd^2), truncated below ``bound`` if given, at ``_QUANTILE_LEVELS``."""
    low = 0.0 if bound is None or sd <= 0 else float(scipy.special.ndtr((bound - mean) / sd))
    low = min(low, 1.0 - 1e-12)
    return mean + sd * np.asarray(scipy.special.ndtri(low + (1.0 - low) * _QUANTILE_LEVELS))


def predict_rank(peers: np.ndarray, value: float, bound: float | None = None) -> tuple[float, float]:
    """Mean and variance of the final loss from the loss ``value`` at s by the rank map; ``bound``
    a loss at s (the pruner's bar) whose predicted score truncates the prediction."""
    return _rank_prediction(peers, rank_correlation(peers[:, 0], peers[:, 1]), value, bound)


def _rank_prediction(peers: np.ndarray, rho: float, value: float, bound: float | None = None) -> tuple[float, float]:
    """``predict_rank`` with the peers' ``rank_correlation`` given (one per step)."""
    intermediate, final = peers[:, 0], peers[:, 1]
    sd = math.sqrt(1.0 - rho * rho)
    bound_score = None if bound is None else rho * _score_of(bound, intermediate)
    scores = _truncated_levels(rho * _score_of(value, intermediate), sd, bound_score)
    finals = _quantile_function(final, np.asarray(scipy.special.ndtr(scores)))
    return float(finals.mean()), float(finals.var())


def predict_linear(peers: np.ndarray, value: float, bound: float | None = None) -> tuple[float, float]:
    """Mean and variance of the final loss from the loss ``value`` at s by the line (slope >= 0),
    with the least-squares prediction variance; ``bound`` a loss at s whose prediction truncates."""
    return LinearFit.of(peers)(value, bound)


@dataclasses.dataclass(frozen=True)
class LinearFit:
    """The least-squares line of one step's peers (slope >= 0), fitted once for every pruned trial
    of that step: ``fit(value, bound)`` is ``predict_linear(peers, value, bound)``."""

    n: int
    center: float  # the mean value at s
    final_mean: float
    sxx: float
    slope: float
    residual_variance: float

    @classmethod
    def of(cls, peers: np.ndarray) -> LinearFit:
        intermediate, final = peers[:, 0], peers[:, 1]
        n = len(peers)
        center = intermediate.mean()
        sxx = float(np.sum((intermediate - center) ** 2))
        slope = max(float(np.sum((intermediate - center) * (final - final.mean()))) / sxx, 0.0) if sxx > 0 else 0.0
        residuals = final - final.mean() - slope * (intermediate - center)
        residual_variance = float(np.sum(residuals**2)) / max(n - 2, 1)
        return cls(n, center, final.mean(), sxx, slope, residual_variance)

    def __call__(self, value: float, bound: float | None = None) -> tuple[float, float]:
        leverage = 1.0 + 1.0 / self.n + ((value - self.center) ** 2 / self.sxx if self.sxx > 0 else 0.0)
        mean = float(self.final_mean + self.slope * (value - self.center))
        sd = math.sqrt(self.residual_variance * leverage)
        if bound is None or sd == 0:
            return mean, sd * sd
        levels = _truncated_levels(mean, sd, float(self.final_mean + self.slope * (bound - self.center)))
        return float(levels.mean()), float(levels.var())


def predict_final(
    peers: np.ndarray, value: float, method: str, bound: float | None = None, default_variance: float = math.nan,
) -> tuple[float, float]:
    """Mean and variance of a pruned trial's final loss from its loss ``value`` at its last step
    and the peers' pairs (loss at that step, final loss) (p x 2), by the map ``method`` (one of
    ``STEP_TO_FINAL_MAPS``), truncated below at the image of ``bound`` if given. With fewer than
    ``MIN_PEERS`` peers (or no spread), the value shifted by the peers' median offset with
    ``default_variance``. An unknown ``method`` or peers not of shape (p, 2) raise ValueError."""
    return step_to_final_map(peers, method, default_variance)(value, bound)


def step_to_final_map(peers: np.ndarray, method: str, default_variance: float = math.nan) -> StepToFinal:
    """``predict_final`` of one step's ``peers`` as a function of (value, bound): what the peers
    alone decide (the rank correlation) computed once for every pruned trial of that step."""
    if method not in STEP_TO_FINAL_MAPS:
        raise ValueError(f"Unknown step-to-final map {method!r}; choose from {STEP_TO_FINAL_MAPS}.")
    peers = np.asarray(peers, dtype=np.float64)
    if peers.ndim != 2 or peers.shape[1] != 2:
        raise ValueError(f"peers must be (value at the step, final value) pairs of shape (p, 2), not {peers.shape}.")
    if len(peers) >= MIN_PEERS and np.ptp(peers[:, 0]) > 0 and np.ptp(peers[:, 1]) > 0:
        if method == RANK:
            return functools.partial(_rank_prediction, peers, rank_correlation(peers[:, 0], peers[:, 1]))
        return LinearFit.of(peers)
    offset = float(np.median(peers[:, 1] - peers[:, 0])) if len(peers) else 0.0
    return functools.partial(_shifted, offset, default_variance)


def _shifted(offset: float, variance: float, value: float, bound: float | None = None) -> tuple[float, float]:
    """The fallback of few peers: ``value`` plus the peers' median ``offset``, with ``variance``."""
    return value + offset, variance
