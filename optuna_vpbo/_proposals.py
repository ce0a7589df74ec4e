"""Value proposals and the choice of the next point (VPBO paper, Algorithm 1), for every space,
objective count and acquisition.

Each categorical row (a combination of categorical values; in a conditional space, a leaf of the
search tree) receives a value proposal: the maximum of the acquisition over one shared set of
scrambled Sobol candidates, seen on the row's active numeric dimensions (the others held at the
encoder's fill). Rows that use the same numeric dimensions share one native ``value_proposals``
call. The row with the best proposal is chosen on the candidates alone, so that every proposal
is measured the same way; then x is refined within the chosen row by L-BFGS-B on its active
dimensions, as Optuna's GPSampler refines its best candidates (``optuna/_gp/optim_mixed.py``).
"""

from __future__ import annotations

import dataclasses
import math
import threading
import warnings
from collections.abc import Callable

import numpy as np
import scipy.optimize
from scipy.stats import qmc

from optuna_vpbo import _core
from optuna_vpbo._combinations import TrustRegion, candidate_rows, hamming_neighbours, least_observed, unique_rows
from optuna_vpbo._tree_encoder import TreeEncoder

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
# How many of the best value proposals the diagnostics keep.
N_RANKING = 5
# SciPy's Sobol engine initialises shared tables on first use: one lock for every sampler, as
# Optuna guards its own ``qmc.Sobol``.
_SOBOL_LOCK = threading.Lock()

# Moves points (m x d) onto the parameters' grids, the dimensions outside the mask (d,) at the fill.
Snap = Callable[[np.ndarray, np.ndarray], np.ndarray]
# Which points (m x d) of a row may not be proposed (evaluated, pending, pruned or failed).
Blocked = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclasses.dataclass(frozen=True)
class Proposal:
    row: np.ndarray  # codes of the chosen row (k,)
    x: np.ndarray  # numeric point in [0, 1]^d
    value: float  # its acquisition value
    x_candidate: np.ndarray  # the chosen row's best candidate, before refinement
    ranking: list[tuple[np.ndarray, float]]  # best rows with their proposal values


@dataclasses.dataclass(frozen=True)
class RefinementStarts:
    """Where the refinement of the chosen row starts besides its best candidate: its observed
    points in ``observed_h``/``observed_x`` (in priority order), at most ``n_observed`` of them;
    ``n_observed`` None: no refinement. Points in ``taken_h``/``taken_x`` (evaluated or pending)
    are not proposed again."""

    observed_h: np.ndarray
    observed_x: np.ndarray
    n_observed: int | None
    taken_h: np.ndarray
    taken_x: np.ndarray


@dataclasses.dataclass(frozen=True)
class Repeats:
    """Points (h, x) a proposal must not repeat: the finished trials (within
    ``TreeEncoder.repeat_tolerance``), or the evaluated and pending ones (within ``SAME_POINT``).
    A point repeats one of them if it has the same row and every numeric coordinate within
    ``tolerance`` of it: (d,) for every point, or (n, d) per point."""

    h: np.ndarray
    x: np.ndarray
    tolerance: np.ndarray

    def __len__(self) -> int:
        return len(self.h)

    def mask(self, row: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """Which of the points ``xs`` (m x d) of ``row`` repeat one of these points."""
        same = np.all(self.h == row, axis=1)
        if not same.any():
            return np.zeros(len(xs), dtype=bool)
        tolerance = self.tolerance[same] if self.tolerance.ndim == 2 else self.tolerance
        close = np.abs(xs[:, None, :] - self.x[same][None, :, :]) <= tolerance
        return np.any(np.all(close, axis=2), axis=1)

    def contains(self, row: np.ndarray, x: np.ndarray) -> bool:
        return bool(self.mask(row, x.reshape(1, -1))[0])


def sobol_candidates(n_numeric: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` scrambled Sobol points in [0, 1]^d (one empty row when d = 0)."""
    if n_numeric == 0:
        return np.zeros((1, 0))
    with _SOBOL_LOCK, warnings.catch_warnings():
        # SciPy warns that n is not a power of two: balance properties are not needed here.
        warnings.simplefilter("ignore", UserWarning)
        return qmc.Sobol(n_numeric, scramble=True, seed=rng).random(n)


def refine(
    acquisition: _core.Acquisition, row: np.ndarray, x0: np.ndarray, active: np.ndarray, snap: Snap
) -> tuple[np.ndarray, float]:
    """Maximise the acquisition over the ``active`` dimensions of x (the others as in ``x0``)
    with the row fixed; the result is snapped to the parameters' grids and scored there."""
    h_row = row.reshape(1, -1).astype(np.int32)
    mask = np.zeros(len(x0), dtype=bool)
    mask[active] = True

    def embed(z: np.ndarray) -> np.ndarray:
        x = x0.copy()
        x[active] = z
        return x

    def negative(z: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = acquisition.value_with_gradient(h_row, embed(z))
        return -value, -gradient[active]

    value0 = -negative(x0[active])[0]
    result = scipy.optimize.minimize(
        negative, x0[active], jac=True, method="L-BFGS-B", bounds=[(0.0, 1.0)] * len(active),
        options={"maxiter": MAX_REFINE_ITERATIONS},
    )
    if not np.all(np.isfinite(result.x)):
        return x0, value0
    x = snap(embed(np.clip(result.x, 0.0, 1.0)).reshape(1, -1), mask)[0]
    value = -negative(x[active])[0]
    return (x, value) if value > value0 else (x0, value0)


def screen(acquisition: _core.Acquisition, rows: np.ndarray, candidates: np.ndarray, n_levels: np.ndarray) -> np.ndarray:
    """A shortlist of a large flat set of combinations for the full value proposals.

    All combinations are scored on the first ``N_SCREEN_CANDIDATES`` candidates (a coarse
    proposal); the ``N_SCREENED`` best are kept, plus every one-change neighbour of the
    ``N_NEIGHBOUR_SEEDS`` best (a local search step over combinations). Small sets are returned
    unchanged, so the paper's exhaustive proposals stay exact there.
    """
    if len(rows) <= SCREEN_ABOVE:
        return rows
    _, coarse = _core.value_proposals(acquisition, rows, candidates[:N_SCREEN_CANDIDATES])
    order = np.argsort(-coarse, kind="stable")
    seeds = rows[order[:N_NEIGHBOUR_SEEDS]]
    shortlist = np.concatenate([rows[order[:N_SCREENED]], *(hamming_neighbours(seed, n_levels) for seed in seeds)])
    return unique_rows(shortlist, n_levels)


def proposal_values(
    acquisition: _core.Acquisition, rows: np.ndarray, masks: np.ndarray, candidates: np.ndarray, snap: Snap
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's value proposal and its best candidate (C x d), rows with the same numeric
    mask in one native call on the candidates snapped for that mask."""
    values = np.full(len(rows), -math.inf)
    best_x = np.zeros((len(rows), candidates.shape[1]))
    _, group_of_row = np.unique(masks, axis=0, return_inverse=True)
    for group in np.unique(group_of_row.reshape(-1)):
        members = np.flatnonzero(group_of_row.reshape(-1) == group)
        group_candidates = snap(candidates, masks[members[0]])
        best_index, group_values = _core.value_proposals(acquisition, np.ascontiguousarray(rows[members]), group_candidates)
        values[members] = group_values
        best_x[members] = group_candidates[best_index]
    return values, best_x


def value_proposals(
    acquisition: _core.Acquisition,
    encoder: TreeEncoder,
    candidates: np.ndarray,
    starts: RefinementStarts,
    repeats: Repeats,
    rng: np.random.Generator,
    *,
    max_enumerated: int,
    least_observed_in: np.ndarray | None = None,
    region: TrustRegion | None = None,
) -> Proposal:
    """The propose step of a trial (VPBO paper, Algorithm 1): value proposals over the candidate
    rows (``_combinations.candidate_rows``: every combination up to ``max_enumerated`` of them,
    else a sample plus the neighbours of the refinement starts; with ``least_observed_in``, the
    observed rows, only the least observed of them; within the trust ``region`` where there is one),
    screened on a few candidates in a flat space, none at a point of ``repeats``, the chosen row
    refined from ``starts``; the best ``N_RANKING`` rows kept for the diagnostics."""
    rows = candidate_rows(encoder, max_enumerated, rng, starts.observed_h, region)
    if least_observed_in is not None:
        rows = least_observed(rows, least_observed_in)
    if encoder.tree.is_flat:
        all_numeric = np.ones(encoder.n_numeric, dtype=bool)
        rows = screen(acquisition, rows, encoder.snap(candidates[:N_SCREEN_CANDIDATES], all_numeric), encoder.n_choices)
        if region is not None:  # the screen adds neighbours, one change beyond the region's
            rows = rows[np.count_nonzero(rows != region.centre, axis=1) <= region.radius]
    masks = encoder.numeric_masks(rows)
    return propose(acquisition, rows, masks, candidates, starts, snap=encoder.snap, n_ranking=N_RANKING, repeats=repeats)


def propose(
    acquisition: _core.Acquisition,
    rows: np.ndarray,
    masks: np.ndarray,
    candidates: np.ndarray,
    starts: RefinementStarts,
    *,
    snap: Snap,
    n_ranking: int,
    repeats: Repeats | None = None,
) -> Proposal:
    """Value proposals for all ``rows`` (C x k, with numeric masks C x d), the chosen row and its
    point, refined from ``starts`` (see the module docstring). Ties go to the earlier row.
    A refined point that is already evaluated or pending is not taken: a refinement that
    cannot leave an observed start would propose it again. Nor is a point that ``repeats`` a
    pruned or failed trial, while some row has a candidate that does not."""
    values, best_x = proposal_values(acquisition, rows, masks, candidates, snap)
    if repeats is not None and len(repeats):
        values, best_x = _without_repeats(acquisition, rows, masks, candidates, snap, repeats, (values, best_x))
    order = np.argsort(-values, kind="stable")
    chosen = int(order[0])
    row, x, value = rows[chosen], best_x[chosen], float(values[chosen])
    x_candidate = x
    active = np.flatnonzero(masks[chosen])
    if len(active) and starts.n_observed is not None and math.isfinite(value):
        same_row = np.all(starts.observed_h == row, axis=1)
        blocked = blocked_points(starts.taken_h, starts.taken_x, repeats)
        for x0 in [x, *starts.observed_x[same_row][: starts.n_observed]]:
            x_refined, value_refined = refine(acquisition, row, x0, active, snap)
            repeated = bool(blocked(row, x_refined.reshape(1, -1))[0])
            if value_refined > value and not repeated:
                x, value = x_refined, value_refined
    ranking = [(rows[i], float(values[i])) for i in order[:n_ranking]]
    return Proposal(np.asarray(row, dtype=np.int32), np.asarray(x, dtype=np.float64), value, x_candidate, ranking)


def blocked_points(taken_h: np.ndarray, taken_x: np.ndarray, repeats: Repeats | None) -> Blocked:
    """Which points of a row may not be proposed: the evaluated or pending ones (``taken_h``,
    ``taken_x``) and those that repeat a pruned or failed trial (``repeats``)."""
    taken = Repeats(taken_h, taken_x, np.full(taken_x.shape[1], SAME_POINT))

    def blocked(row: np.ndarray, points: np.ndarray) -> np.ndarray:
        mask = taken.mask(row, points)
        return mask | repeats.mask(row, points) if repeats is not None else mask

    return blocked


def _without_repeats(
    acquisition: _core.Acquisition,
    rows: np.ndarray,
    masks: np.ndarray,
    candidates: np.ndarray,
    snap: Snap,
    repeats: Repeats,
    proposals: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """The value proposals with the best candidate of each row that repeats a pruned or failed
    trial replaced by its best candidate that does not (-inf if it has none), in the order of
    the proposals until the best row has a free candidate; unchanged if no row has one."""
    values, best_x = proposals[0].copy(), proposals[1].copy()
    checked = np.zeros(len(rows), dtype=bool)
    while True:
        chosen = int(np.argmax(values))
        if checked[chosen] or not math.isfinite(values[chosen]):
            break
        checked[chosen] = True
        if not repeats.contains(rows[chosen], best_x[chosen]):
            break
        row_candidates = snap(candidates, masks[chosen])
        h = np.repeat(rows[chosen].reshape(1, -1), len(row_candidates), axis=0).astype(np.int32)
        scores = np.asarray(acquisition.evaluate(h, row_candidates), dtype=np.float64)
        scores[repeats.mask(rows[chosen], row_candidates)] = -math.inf
        best = int(np.argmax(scores))
        values[chosen], best_x[chosen] = scores[best], row_candidates[best]
    if not np.isfinite(values).any():
        return proposals  # every candidate repeats: the space has no other point to offer
    return values, best_x
