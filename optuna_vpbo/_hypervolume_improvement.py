"""The region a new point can add hypervolume to, as boxes, for 2 or 3 objectives, all maximised.

The region above the reference point r and not weakly dominated by the current front is cut into
axis-aligned boxes [l, u] (u may be +inf), factorised per objective (``BoxDecomposition``); the
native log EHVI (``native/hypervolume.hpp``) integrates the Gaussian posteriors over them (Yang et
al. 2019, "Efficient computation of expected hypervolume improvement using box decomposition
algorithms").

Reference point: the worst observed value of each objective moved out by 10 % of that
objective's observed range, which gives the edges of the front room to grow and is invariant
under the per-objective affine scaling of the targets (docs/decisions.md: the reference point).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

# Margin of the reference point beyond the worst observed value, as a fraction of the range.
REFERENCE_MARGIN = 0.1


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
