"""Value proposals and the choice of the next point (VPBO paper, Algorithm 1).

For each categorical combination the native core maximises log EI over one shared candidate set
of numeric points (scrambled Sobol points); the maximum is the combination's value proposal.
Optionally the best proposals are refined by L-BFGS-B on x with the combination fixed, as
Optuna's GPSampler refines its best candidates (``optuna/_gp/optim_mixed.py``). The next trial
takes the combination with the best proposal and its x.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable

import numpy as np
import scipy.optimize
from scipy.stats import qmc

from optuna_vpbo import _core

MAX_REFINE_ITERATIONS = 50


@dataclasses.dataclass(frozen=True)
class Proposal:
    h: np.ndarray  # codes of the chosen combination (k,)
    x: np.ndarray  # numeric point in [0, 1]^d
    value: float  # its log EI
    ranking: list[tuple[tuple[int, ...], float]]  # best combinations with their proposal values


def sobol_candidates(n_numeric: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` scrambled Sobol points in [0, 1]^d (one empty row when d = 0)."""
    if n_numeric == 0:
        return np.zeros((1, 0))
    with warnings.catch_warnings():
        # SciPy warns that n is not a power of two: balance properties are not needed here.
        warnings.simplefilter("ignore", UserWarning)
        return qmc.Sobol(n_numeric, scramble=True, seed=rng).random(n)


def refine(
    gp: _core.MixedGP, h: np.ndarray, x0: np.ndarray, best: float, snap: Callable[[np.ndarray], np.ndarray]
) -> tuple[np.ndarray, float]:
    """Maximise log EI over x in [0, 1]^d from ``x0`` with the combination ``h`` fixed; the
    result is snapped to the parameters' grids and scored there."""
    h_row = h.reshape(1, -1).astype(np.int32)

    def negative(x: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = gp.log_ei_with_gradient(h_row, x, best)
        return -value, -gradient

    value0 = -negative(x0)[0]
    try:
        result = scipy.optimize.minimize(
            negative,
            x0,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * len(x0),
            options={"maxiter": MAX_REFINE_ITERATIONS},
        )
    except (RuntimeError, ValueError):
        return x0, value0
    if not np.all(np.isfinite(result.x)):
        return x0, value0
    x = snap(np.clip(result.x, 0.0, 1.0).reshape(1, -1))[0]
    value = -negative(x)[0]
    return (x, value) if value > value0 else (x0, value0)


def propose(
    gp: _core.MixedGP,
    combinations: np.ndarray,
    candidates: np.ndarray,
    best: float,
    *,
    n_refine: int,
    observed_h: np.ndarray,
    observed_x: np.ndarray,
    n_ranking: int,
    snap: Callable[[np.ndarray], np.ndarray],
) -> Proposal:
    """Value proposals for all ``combinations`` and the chosen next point.

    The combination is chosen on the candidate set alone, so that every combination's proposal
    is measured the same way (refining only some proposals would inflate exactly those). Then
    up to ``n_refine`` L-BFGS-B runs refine x within the chosen combination: from its best
    candidate and from the observed points of that combination (``observed_h``, ``observed_x``,
    best first). ``snap`` moves points onto the parameters' grids. Ties go to the earlier
    combination.
    """
    best_index, values = gp.value_proposals(combinations, candidates, best)
    order = np.argsort(-values, kind="stable")
    chosen = int(order[0])
    h, x, value = combinations[chosen], candidates[best_index[chosen]], float(values[chosen])
    if candidates.shape[1] > 0 and n_refine > 0:
        same_combination = np.all(observed_h == h, axis=1)
        for x0 in [x, *observed_x[same_combination][: n_refine - 1]]:
            x_refined, value_refined = refine(gp, h, x0, best, snap)
            if value_refined > value:
                x, value = x_refined, value_refined
    ranking = [(tuple(int(a) for a in combinations[c]), float(values[c])) for c in order[:n_ranking]]
    return Proposal(np.asarray(h, dtype=np.int32), np.asarray(x, dtype=np.float64), value, ranking)
