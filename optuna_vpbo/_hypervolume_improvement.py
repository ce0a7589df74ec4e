"""Exact log expected hypervolume improvement (EHVI) for 2 or 3 objectives, all maximised.

The region where a new point improves the hypervolume (above the reference point r, not
weakly dominated by the current front) is cut into axis-aligned boxes [l, u] (u may be +inf).
For a point Y the improvement is sum_b prod_j (min(Y_j, u_bj) - l_bj)^+, and since
(min(Y, u) - l)^+ = (Y - l)^+ - (Y - u)^+, for independent Gaussian posteriors per objective

    EHVI = sum_b prod_j (psi_j(l_bj) - psi_j(u_bj)),   psi(a) = E[(Y - a)^+] = s h((m - a) / s),

with h(z) = phi(z) + z Phi(z) (Emmerich et al. 2006; Yang et al. 2019, "Efficient computation of
expected hypervolume improvement using box decomposition algorithms"). It is evaluated in log
space, as LogEI (Ament et al. 2023): log psi from the native log h, a log-difference per factor
and a logsumexp over boxes, so that it stays finite and informative far from the front.

Reference point: the worst observed value of each objective moved out by 10 % of that
objective's observed range. Optuna's GPSampler also starts from the worst observed (standardised)
value, but moves it by 10 % of its magnitude, which depends on where zero lies; BoTorch's
``infer_reference_point`` moves the nadir of the front by 10 % of the front's range. The worst
observed value (rather than the front's nadir) gives the edges of the front room to grow, as a
benchmark's reference point usually does; the range-relative margin is invariant under the
per-objective affine scaling of the targets. Measured (hypervolume after 100 trials, 4 seeds,
before the refinement from front points): Reizman-Suzuki 6287.7 with this rule, 6287.3 with
Optuna's, 6151 with the front's nadir (the ends of the front were never explored); Baumgartner
0.27971, 0.27979 and 0.27981 (8 seeds of the first two: 0.27974 and 0.27970).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import scipy.special

from optuna_vpbo import _core

# Margin of the reference point beyond the worst observed value, as a fraction of the range.
REFERENCE_MARGIN = 0.1
# Below this width (in posterior standard deviations) a box factor psi(l) - psi(u) loses digits
# to cancellation; there it is the integral of Phi((m - t) / s) over [l, u] by the midpoint rule,
# whose relative error (of order (width z)^2 / 24) is far smaller.
NARROW_WIDTH = 1e-4
# Bounds the (points x boxes) work arrays of one evaluation chunk.
MAX_CHUNK_ELEMENTS = 1 << 22


@dataclasses.dataclass(frozen=True)
class BoxDecomposition:
    """The non-dominated region as boxes, factorised per objective.

    Each objective j has sorted ``edges[j]`` (the last may be +inf) and ``cells[j]``, pairs of
    edge indices (lower, upper) that boxes use; box b spans ``cells[j][box_cells[b, j]]`` on
    objective j. Factors psi(l) - psi(u) are then computed once per cell, not once per box.
    """

    edges: list[np.ndarray]
    cells: list[np.ndarray]
    box_cells: np.ndarray  # (B, M) int

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper corners of the boxes, (B, M) each."""
        lower = [self.edges[j][self.cells[j][self.box_cells[:, j], 0]] for j in range(len(self.edges))]
        upper = [self.edges[j][self.cells[j][self.box_cells[:, j], 1]] for j in range(len(self.edges))]
        return np.column_stack(lower), np.column_stack(upper)


def pareto_mask(points: np.ndarray) -> np.ndarray:
    """Which rows are not dominated (maximisation); of identical rows only the first counts."""
    points = np.asarray(points, dtype=np.float64)
    at_least = np.all(points[:, None, :] >= points[None, :, :], axis=2)  # [a, b]: a >= b everywhere
    strictly = np.any(points[:, None, :] > points[None, :, :], axis=2)
    dominated = np.any(at_least & strictly, axis=0)
    identical_earlier = np.triu(at_least & at_least.T, k=1).any(axis=0)
    return ~dominated & ~identical_earlier


def reference_point(values: np.ndarray) -> np.ndarray:
    """The worst observed value per objective, REFERENCE_MARGIN of the range further out."""
    low, high = values.min(axis=0), values.max(axis=0)
    spread = np.where(high > low, high - low, 1.0)
    return low - REFERENCE_MARGIN * spread


def decompose(front: np.ndarray, reference: np.ndarray) -> BoxDecomposition:
    """Boxes covering {z >= r : no front point p >= z} (maximisation).

    A grid over the first M - 1 objectives (the front's sorted coordinates, with r below and +inf
    above) splits that part of the space into columns. Inside a column whose upper corner is u,
    the front points that dominate it on those objectives are those with p >= u there, so the
    non-dominated part of the column is one box on the last objective, from its floor
    max(r_M, max of their p_M) to +inf. For M = 2 these columns are the usual strips between
    consecutive front points. Neighbouring columns along objective M - 1 with the same floor are
    merged into one box (for M = 3 this cuts the (front size + 1)^2 columns to about the sum of
    the sizes of the 2-d fronts of the slices). Front points that do not strictly dominate r add
    nothing and are dropped.
    """
    front = np.asarray(front, dtype=np.float64).reshape(-1, len(reference))
    front = front[np.all(front > reference, axis=1)]
    front = front[pareto_mask(front)] if len(front) else front
    n_grid = len(reference) - 1
    edges = [np.concatenate([[reference[j]], np.unique(front[:, j]), [math.inf]]) for j in range(n_grid)]
    shape = tuple(len(e) - 1 for e in edges)
    grid = np.stack(np.meshgrid(*(np.arange(n) for n in shape), indexing="ij"), axis=-1).reshape(-1, n_grid)
    upper = np.column_stack([edges[j][grid[:, j] + 1] for j in range(n_grid)])
    covering = np.all(front[None, :, :-1] >= upper[:, None, :], axis=2)  # (columns, front points)
    floor = np.max(np.where(covering, front[None, :, -1], -math.inf), axis=1, initial=-math.inf)
    floors = np.maximum(floor, reference[-1]).reshape(-1, shape[-1])  # the merged objective last
    # Runs of equal floors along objective M - 1: run k spans grid cells first[k] .. end[k] - 1.
    starts = np.ones(floors.shape, dtype=bool)
    starts[:, 1:] = floors[:, 1:] != floors[:, :-1]
    rows, first = np.nonzero(starts)
    same_row_next = np.append(rows[1:] == rows[:-1], False)
    end = np.where(same_row_next, np.append(first[1:], 0), shape[-1])
    unmerged = grid[rows * shape[-1] + first]  # the box's grid cell on the other objectives
    cells = [np.column_stack([np.arange(n), np.arange(1, n + 1)]) for n in shape[:-1]]
    box_cells = [unmerged[:, j] for j in range(n_grid - 1)]
    merged_cells, merged_index = np.unique(np.column_stack([first, end]), axis=0, return_inverse=True)
    cells.append(merged_cells)
    box_cells.append(merged_index.reshape(-1))
    last_edges, last_index = np.unique(floors[rows, first], return_inverse=True)
    edges.append(np.concatenate([last_edges, [math.inf]]))
    cells.append(np.column_stack([np.arange(len(last_edges)), np.full(len(last_edges), len(last_edges))]))
    box_cells.append(last_index.reshape(-1))
    return BoxDecomposition(edges, cells, np.column_stack(box_cells))


def hypervolume_improvement(points: np.ndarray, boxes: BoxDecomposition) -> np.ndarray:
    """Exact hypervolume improvement of each deterministic point (N, M) over the front."""
    lower, upper = boxes.bounds()
    sides = np.clip(np.minimum(points[:, None, :], upper[None]) - lower[None], 0.0, None)
    return np.prod(sides, axis=2).sum(axis=1)


def _log1mexp(x: np.ndarray) -> np.ndarray:
    """log(1 - exp(x)) for x <= 0 (Maechler 2012: the branch at -log 2 keeps full precision)."""
    with np.errstate(divide="ignore"):
        return np.where(x > -math.log(2.0), np.log(-np.expm1(np.minimum(x, -0.0))), np.log1p(-np.exp(x)))


def _log_cell_factors(mean: np.ndarray, sd: np.ndarray, edges: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """log(psi(l) - psi(u)) for every point (N,) and cell [l, u] of one objective: (N, cells)."""
    finite = np.isfinite(edges)
    log_psi = np.full((len(mean), len(edges)), -math.inf)
    z = (mean[:, None] - edges[None, finite]) / sd[:, None]
    log_psi[:, finite] = np.log(sd)[:, None] + _core.log_h(z)
    lower, upper = edges[cells[:, 0]], edges[cells[:, 1]]
    log_lower, log_upper = log_psi[:, cells[:, 0]], log_psi[:, cells[:, 1]]
    factors = log_lower + _log1mexp(log_upper - log_lower)
    narrow = (upper - lower)[None, :] < NARROW_WIDTH * sd[:, None]
    if narrow.any():
        rows, columns = np.nonzero(narrow)
        middle = 0.5 * (lower[columns] + upper[columns])
        z_middle = (mean[rows] - middle) / sd[rows]
        factors[rows, columns] = np.log(upper[columns] - lower[columns]) + _core.log_ndtr(z_middle)
    return factors


def log_expected_hypervolume_improvement(mean: np.ndarray, sd: np.ndarray, boxes: BoxDecomposition) -> np.ndarray:
    """log EHVI at N points with independent Gaussian posteriors: ``mean``, ``sd`` (N, M), sd > 0."""
    n_points, n_boxes = len(mean), len(boxes.box_cells)
    result = np.empty(n_points)
    chunk = max(1, MAX_CHUNK_ELEMENTS // max(n_boxes, 1))
    for start in range(0, n_points, chunk):
        rows = slice(start, start + chunk)
        total = np.zeros((len(mean[rows]), n_boxes))
        for j, (edges, cells) in enumerate(zip(boxes.edges, boxes.cells)):
            total += _log_cell_factors(mean[rows, j], sd[rows, j], edges, cells)[:, boxes.box_cells[:, j]]
        result[rows] = scipy.special.logsumexp(total, axis=1)
    return result
