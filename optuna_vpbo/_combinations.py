"""The categorical rows that receive a value proposal.

Up to ``max_enumerated`` rows, all of them (the paper's Algorithm 1). Beyond, a set that keeps
the cost bounded: a sample, the rows of the best observed trials and, in a flat space, every
combination one categorical change away from those (Hamming neighbours). The sample is uniform,
or drawn from the search policy's trust region (``TrustRegion``: the combinations near the
incumbent), which then also bounds the whole set.

The trust region (CASMOPOLITAN, Wan et al. 2021; TuRBO, Eriksson et al. 2019) of a flat
single-objective space beyond enumeration (``trust_region``): the combinations within a Hamming
radius of the incumbent. Replayed over the complete trials after the initial design, the radius
starts at ``TRUST_REGION_START`` of the categoricals, shrinks by ``TRUST_REGION_FACTOR`` after
``TRUST_REGION_FAILURES`` trials in a row that did not beat the best, grows by it after
``TRUST_REGION_SUCCESSES`` that did, and starts again when it falls below one change: every worker
derives the same region from the same study. The objective's GP trains on the trials nearest the
incumbent there (at least ``LOCAL_TRIALS``): the overlap kernel is additive over the categoricals,
and fitted on the whole history it credits a value with the study's old, far trials that share it.

The search policy's ``least-observed`` move (``_search_policy``) proposes only among the rows it has observed
least (``least_observed``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from optuna.study import StudyDirection

from optuna_vpbo._tree_encoder import TreeEncoder

# How many of the best observed trials seed the neighbourhood search in a huge space.
N_SEED_TRIALS = 5
# NOTE: the trust region's first radius, as a share of the categoricals: wide enough that the
# first regions still move the incumbent far, a few shrinks away from one-change steps.
TRUST_REGION_START = 0.4
# NOTE: two trials without improvement shrink the region (CASMOPOLITAN's failure tolerance in a
# categorical space), three improvements in a row grow it; 1.5 is CASMOPOLITAN's factor.
TRUST_REGION_FAILURES = 2
TRUST_REGION_SUCCESSES = 3
TRUST_REGION_FACTOR = 1.5
# NOTE: the objective's GP in a trust region trains on at least this many trials, nearest the
# incumbent first: enough for the categoricals' effects near it, few enough to leave the far ones out.
LOCAL_TRIALS = 120


class Observed(Protocol):
    """What ``trust_region`` reads of a trial's ``_observations.Observations`` (which imports this
    module through ``_proposals``)."""

    @property
    def encoder(self) -> TreeEncoder: ...
    @property
    def h(self) -> np.ndarray: ...
    @property
    def values(self) -> np.ndarray: ...
    @property
    def directions(self) -> tuple[StudyDirection, ...]: ...
    @property
    def complete(self) -> Sequence[Any]: ...
    @property
    def constraints(self) -> Sequence[Mapping[str, float]]: ...


@dataclasses.dataclass(frozen=True)
class TrustRegion:
    """The combinations within Hamming distance ``radius`` (>= 1) of ``centre`` (k codes): where a
    flat space beyond enumeration proposes. ``training``: the objective model's rows that its GP
    trains on (indices; None: all of them)."""

    centre: np.ndarray
    radius: int
    training: np.ndarray | None = None

    def sample(self, n_levels: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` combinations of the region (n x k int32), each ``d`` changes from the centre with
        ``d`` uniform in 1..radius, the changed variables and their new values uniform."""
        k = len(n_levels)
        levels = np.asarray(n_levels, dtype=np.int64)
        distances = rng.integers(1, min(self.radius, k) + 1, size=n)
        changed = np.argsort(rng.random((n, k)), axis=1).argsort(axis=1) < distances[:, None]
        shifts = 1 + np.floor(rng.random((n, k)) * (levels - 1)).astype(np.int64)
        rows = (np.asarray(self.centre, dtype=np.int64) + changed * shifts) % levels
        return rows.astype(np.int32)

    def within(self, rows: np.ndarray) -> np.ndarray:
        """The ``rows`` (C x k) of the region, in their order; all of them if none is."""
        inside = np.count_nonzero(rows != self.centre, axis=1) <= self.radius
        return rows[inside] if inside.any() else rows


def enumerate_combinations(n_levels: np.ndarray) -> np.ndarray:
    """All combinations (C x k int32) in lexicographic order; one empty row when k = 0."""
    if len(n_levels) == 0:
        return np.zeros((1, 0), dtype=np.int32)
    grids = np.indices(tuple(int(n) for n in n_levels)).reshape(len(n_levels), -1).T
    return np.ascontiguousarray(grids, dtype=np.int32)


def hamming_neighbours(combination: np.ndarray, n_levels: np.ndarray) -> np.ndarray:
    """Every combination that differs from ``combination`` in exactly one variable."""
    rows = []
    for v, levels in enumerate(n_levels):
        for a in range(int(levels)):
            if a != combination[v]:
                row = combination.copy()
                row[v] = a
                rows.append(row)
    return np.array(rows, dtype=np.int32).reshape(-1, len(n_levels))


def candidate_rows(
    encoder: TreeEncoder, limit: int, rng: np.random.Generator, best_observed: np.ndarray, region: TrustRegion | None = None
) -> np.ndarray:
    """The rows (C x k) to propose for (see the module docstring); ``best_observed`` holds the
    rows of observed trials, best first; ``region`` (a flat space only) bounds them."""
    if encoder.tree.is_flat:
        return candidate_combinations(encoder.n_choices, limit, rng, best_observed, region)
    leaves = encoder.tree.leaves(limit)
    if leaves is None:
        sampled = [encoder.tree.random_leaf(rng) for _ in range(limit)]
        observed = [encoder.leaf_of_row(row) for row in best_observed[:N_SEED_TRIALS]]
        leaves = list(dict.fromkeys([*observed, *sampled]))
    return np.array([encoder.row(leaf) for leaf in leaves], dtype=np.int32).reshape(len(leaves), encoder.n_categorical)


def n_rows(encoder: TreeEncoder, limit: int) -> float:
    """How many rows the space has (inf: more than ``limit`` leaves of a conditional tree)."""
    if encoder.tree.is_flat:
        return float(np.prod(encoder.n_choices, dtype=np.float64))
    leaves = encoder.tree.leaves(limit)
    return float(len(leaves)) if leaves is not None else float("inf")


def candidate_combinations(
    n_levels: np.ndarray,
    max_enumerated: int,
    rng: np.random.Generator,
    best_observed: np.ndarray,
    region: TrustRegion | None = None,
) -> np.ndarray:
    """The combinations of a flat space to propose for (see the module docstring).

    ``best_observed`` holds the codes of observed trials, best first; beyond ``max_enumerated``
    combinations, the sample comes from ``region`` (None: uniform) and only the rows in it stay.
    """
    n_total = float(np.prod(n_levels, dtype=np.float64)) if len(n_levels) else 1.0
    if n_total <= max_enumerated:
        return enumerate_combinations(n_levels)
    if region is None:
        sampled = np.column_stack([rng.integers(0, int(n), size=max_enumerated) for n in n_levels])
    else:
        sampled = region.sample(n_levels, max_enumerated, rng)
    seeds = np.asarray(best_observed[:N_SEED_TRIALS], dtype=np.int32).reshape(-1, len(n_levels))
    parts = [seeds, *(hamming_neighbours(s, n_levels) for s in seeds), sampled.astype(np.int32)]
    rows = unique_rows(np.concatenate(parts, axis=0), n_levels)
    return rows if region is None else region.within(rows)


def unique_rows(rows: np.ndarray, n_levels: np.ndarray) -> np.ndarray:
    """The distinct ``rows`` (C x k codes below ``n_levels``) in the order of their first occurrence
    (int32), so that results do not depend on hashing. Each row is one mixed-radix integer where
    those fit in int64: a sort of C integers, several times faster than ``np.unique(axis=0)``."""
    rows = np.asarray(rows).reshape(len(rows), len(n_levels))
    if len(n_levels) and float(np.prod(n_levels, dtype=np.float64)) < 2.0**62:
        _, first = np.unique(np.ravel_multi_index(tuple(rows.T), tuple(int(n) for n in n_levels)), return_index=True)
    else:
        _, first = np.unique(rows, axis=0, return_index=True)
    return np.ascontiguousarray(rows[np.sort(first)], dtype=np.int32)


def least_observed(rows: np.ndarray, observed_h: np.ndarray) -> np.ndarray:
    """The ``rows`` with the fewest observed trials (rows of ``observed_h``)."""
    # Rows as bytes keys: one pass over each array, not one comparison of every pair.
    keys = np.ascontiguousarray(rows, dtype=np.int64)
    observed_counts = Counter(row.tobytes() for row in np.ascontiguousarray(observed_h, dtype=np.int64))
    counts = np.array([observed_counts.get(row.tobytes(), 0) for row in keys], dtype=np.int64)
    return np.ascontiguousarray(rows[counts == counts.min()])


def trust_region(observed: Observed, n_design: int, beyond_enumeration: bool) -> TrustRegion | None:
    """The trust region of the trial that read ``observed`` (see the module docstring): in a flat
    single-objective space ``beyond_enumeration`` once a complete trial is feasible, else None.
    The first ``n_design`` complete trials (in trial-number order) are the design's: they set
    the best but do not move the radius. Its ``training`` rows: the objective rows within the
    radius of the centre, and at least the ``LOCAL_TRIALS`` nearest complete ones (None while
    there are no more complete trials than that)."""
    encoder = observed.encoder
    n = len(observed.complete)
    if len(observed.directions) != 1 or not encoder.tree.is_flat or not beyond_enumeration:
        return None
    feasible = np.array([all(v <= 0.0 for v in c.values()) for c in observed.constraints], dtype=bool)
    if not feasible.any():
        return None
    sign = -1.0 if observed.directions[0] == StudyDirection.MINIMIZE else 1.0
    targets = sign * np.asarray(observed.values[:n, 0], dtype=np.float64)
    numbers = np.array([t.number for t in observed.complete], dtype=np.int64)
    radius = trust_radius(targets, feasible, numbers, n_design, encoder.n_categorical)
    centre = observed.h[int(np.lexsort((-targets, ~feasible))[0])]
    distance = np.count_nonzero(observed.h != centre, axis=1)
    training = None
    if n > LOCAL_TRIALS:
        reach = max(radius, int(np.sort(distance[:n])[LOCAL_TRIALS - 1]))
        training = np.flatnonzero(distance <= reach)
    return TrustRegion(centre, radius, training)


def trust_radius(targets: np.ndarray, feasible: np.ndarray, numbers: np.ndarray, n_design: int, k: int) -> int:
    """The trust region's Hamming radius (1..k) after the complete trials (``targets``: higher is
    better; ``feasible``; trial ``numbers``) replayed in trial-number order, the first ``n_design``
    of them the design's (see the module docstring)."""
    start = max(1.0, round(TRUST_REGION_START * k))
    radius, successes, failures = start, 0, 0
    best: tuple[bool, float] | None = None
    for position, i in enumerate(np.argsort(numbers, kind="stable")):
        key = (bool(feasible[i]), float(targets[i]))
        if position >= n_design and best is not None:
            improved = key > best
            successes, failures = (successes + 1, 0) if improved else (0, failures + 1)
            if successes == TRUST_REGION_SUCCESSES:
                successes, radius = 0, min(radius * TRUST_REGION_FACTOR, float(k))
            elif failures == TRUST_REGION_FAILURES:
                failures, radius = 0, radius / TRUST_REGION_FACTOR
                radius = start if radius < 1.0 else radius
        best = key if best is None or key > best else best
    return max(1, int(radius))
