"""Value proposals and the choice of the next point (VPBO paper, Algorithm 1).

For each categorical combination the native core maximises the acquisition (log EI, plus the log
probability of feasibility of each constraint) over one shared candidate set of numeric points
(scrambled Sobol points); the maximum is the combination's value proposal. The combination with
the best proposal is chosen, and x is then refined within it by L-BFGS-B, as Optuna's GPSampler
refines its best candidates (``optuna/_gp/optim_mixed.py``).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable

import numpy as np
import scipy.optimize
from scipy.stats import qmc

from optuna_vpbo import _core
from optuna_vpbo._combinations import hamming_neighbours

MAX_REFINE_ITERATIONS = 50
# Encoded points closer than this in every coordinate are the same trial.
SAME_POINT = 1e-12
# Screening of large combination sets (beyond the exhaustive regime): every combination is first
# scored on this many candidates; the best ones and the one-change neighbours of the very best
# then get full proposals.
SCREEN_ABOVE = 512
N_SCREEN_CANDIDATES = 64
N_SCREENED = 128
N_NEIGHBOUR_SEEDS = 4


@dataclasses.dataclass(frozen=True)
class Acquisition:
    """What the value proposals maximise: log EI of ``objective`` over the incumbent ``best``
    (NaN: nothing feasible yet, feasibility alone counts) plus log P(feasible) per constraint."""

    objective: _core.MixedGP
    best: float
    constraints: list[tuple[_core.MixedGP, float]] = dataclasses.field(default_factory=list)

    def with_gradient(self, h_row: np.ndarray, x: np.ndarray) -> tuple[float, np.ndarray]:
        return _core.acquisition_with_gradient(self.objective, h_row, x, self.best, self.constraints)


@dataclasses.dataclass(frozen=True)
class Proposal:
    h: np.ndarray  # codes of the chosen combination (k,)
    x: np.ndarray  # numeric point in [0, 1]^d
    value: float  # its acquisition value
    x_candidate: np.ndarray  # the chosen combination's best candidate, before refinement
    ranking: list[tuple[tuple[int, ...], float]]  # best combinations with their proposal values


def sobol_candidates(n_numeric: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` scrambled Sobol points in [0, 1]^d (one empty row when d = 0)."""
    if n_numeric == 0:
        return np.zeros((1, 0))
    with warnings.catch_warnings():
        # SciPy warns that n is not a power of two: balance properties are not needed here.
        warnings.simplefilter("ignore", UserWarning)
        return qmc.Sobol(n_numeric, scramble=True, seed=rng).random(n)


def is_taken(taken_x: np.ndarray, x: np.ndarray) -> bool:
    """Whether ``x`` is (within ``SAME_POINT``) one of the rows of ``taken_x``: a point already
    evaluated or pending in the same combination."""
    return bool(np.any(np.all(np.abs(taken_x - x) <= SAME_POINT, axis=1)))


def refine(
    acquisition: Acquisition, h: np.ndarray, x0: np.ndarray, snap: Callable[[np.ndarray], np.ndarray]
) -> tuple[np.ndarray, float]:
    """Maximise the acquisition over x in [0, 1]^d from ``x0`` with the combination ``h`` fixed;
    the result is snapped to the parameters' grids and scored there."""
    h_row = h.reshape(1, -1).astype(np.int32)

    def negative(x: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = acquisition.with_gradient(h_row, x)
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


def screen_combinations(
    acquisition: Acquisition, combinations: np.ndarray, candidates: np.ndarray, n_levels: np.ndarray
) -> np.ndarray:
    """A shortlist of a large set of combinations for the full value proposals.

    All combinations are scored on the first ``N_SCREEN_CANDIDATES`` candidates (a coarse
    proposal); the ``N_SCREENED`` best are kept, plus every one-change neighbour of the
    ``N_NEIGHBOUR_SEEDS`` best (a local search step over combinations). Small sets are returned
    unchanged, so the paper's exhaustive proposals stay exact there.
    """
    if len(combinations) <= SCREEN_ABOVE:
        return combinations
    _, coarse = _core.value_proposals(
        acquisition.objective, combinations, candidates[:N_SCREEN_CANDIDATES], acquisition.best, acquisition.constraints
    )
    order = np.argsort(-coarse, kind="stable")
    seeds = combinations[order[:N_NEIGHBOUR_SEEDS]]
    shortlist = np.concatenate(
        [combinations[order[:N_SCREENED]], *(hamming_neighbours(seed, n_levels) for seed in seeds)]
    )
    _, first = np.unique(shortlist, axis=0, return_index=True)
    return np.ascontiguousarray(shortlist[np.sort(first)], dtype=np.int32)


def propose(
    acquisition: Acquisition,
    combinations: np.ndarray,
    candidates: np.ndarray,
    *,
    n_refine: int,
    observed_h: np.ndarray,
    observed_x: np.ndarray,
    taken_h: np.ndarray,
    taken_x: np.ndarray,
    n_ranking: int,
    snap: Callable[[np.ndarray], np.ndarray],
) -> Proposal:
    """Value proposals for all ``combinations`` and the chosen next point.

    The combination is chosen on the candidate set alone, so that every combination's proposal
    is measured the same way (refining only some proposals would inflate exactly those). Then
    up to ``n_refine`` L-BFGS-B runs refine x within the chosen combination: from its best
    candidate and from the observed points of that combination (``observed_h``, ``observed_x``,
    best first). A refined point that is already evaluated or pending (``taken_h``,
    ``taken_x``) is not taken: a refinement that cannot leave an observed start would propose it
    again. ``snap`` moves points onto the parameters' grids. Ties go to the earlier combination.
    """
    best_index, values = _core.value_proposals(
        acquisition.objective, combinations, candidates, acquisition.best, acquisition.constraints
    )
    order = np.argsort(-values, kind="stable")
    chosen = int(order[0])
    h, x, value = combinations[chosen], candidates[best_index[chosen]], float(values[chosen])
    x_candidate = x
    if candidates.shape[1] > 0 and n_refine > 0 and math.isfinite(value):
        same_combination = np.all(observed_h == h, axis=1)
        taken = taken_x[np.all(taken_h == h, axis=1)]
        for x0 in [x, *observed_x[same_combination][: n_refine - 1]]:
            x_refined, value_refined = refine(acquisition, h, x0, snap)
            if value_refined > value and not is_taken(taken, x_refined):
                x, value = x_refined, value_refined
    ranking = [(tuple(int(a) for a in combinations[c]), float(values[c])) for c in order[:n_ranking]]
    return Proposal(np.asarray(h, dtype=np.int32), np.asarray(x, dtype=np.float64), value, x_candidate, ranking)
