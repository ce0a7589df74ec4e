"""Which observations a long study's GP and hyperparameter fit use (docs/decisions.md, "Long
studies").

An exact GP costs O(n^3) to factorise and O(n^2) per candidate: beyond a few thousand points the
model keeps a subset, chosen so that the value proposals stay what they are for: the incumbents of
every categorical combination (where log EI is decided), the latest points (where the search is
now, so that they are not proposed again) and an even spread over the history (coverage of the
space, as the early random points give).
"""

from __future__ import annotations

import numpy as np

# Shares of the budget: the best points taken in turns over the combinations, then the latest;
# the rest is spread evenly over the remaining history.
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
