"""When a complete configuration may be evaluated again.

On a deterministic objective a repeated configuration teaches nothing: its value is known. A
GP whose fitted noise is above its floor still gives an observed point a small positive
expected improvement, and in a small discrete space (a few ints) that can be the largest one
left, so the study spends trial after trial on one point (docs/decisions.md, "No wasted
repeats"). A complete configuration is therefore proposed again only when the study says that
its objective is noisy:

- no configuration that was evaluated twice gave the same value twice (measured noise beats the
  model: equal values mean a deterministic objective), and
- every objective model fits a noise variance of at least ``NOISY_FRACTION`` of its total
  variance (noise plus signal), on standardised targets;

and then only where its acquisition is the best of all candidates, as for any point. With
``complete_repeats="allowed"`` (the paper's and the earlier defaults) only pruned and failed
trials are never proposed again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# The share of the fitted variance that is noise at and above which a repeat may pay.
NOISY_FRACTION = 0.1
# Values of one configuration closer than this (relative to their magnitude, at least 1) are equal.
EQUAL_VALUES = 1e-12


def evaluated_twice_with_equal_values(h: np.ndarray, x: np.ndarray, values: np.ndarray) -> bool:
    """Whether some configuration (rows of h, x) of the complete trials was evaluated at least
    twice with the same values (rows of ``values``)."""
    if len(h) < 2:
        return False
    keys = np.column_stack([h.astype(np.float64), x])
    _, group, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    group = group.reshape(-1)
    for repeated in np.flatnonzero(counts > 1):
        same = values[group == repeated]
        scale = max(1.0, float(np.max(np.abs(same))))
        if float(np.max(np.ptp(same, axis=0))) <= EQUAL_VALUES * scale:
            return True
    return False


def fits_noise(noise_variances: Sequence[float], signal_variances: Sequence[float]) -> bool:
    """Whether every model's fitted noise is at least ``NOISY_FRACTION`` of its total variance."""
    return all(n >= NOISY_FRACTION * (n + s) for n, s in zip(noise_variances, signal_variances))


def may_repeat_complete(
    policy: str, h: np.ndarray, x: np.ndarray, values: np.ndarray, noise_variances: Sequence[float],
    signal_variances: Sequence[float],
) -> bool:
    """Whether complete configurations may be proposed again (see the module docstring); h, x and
    values are the complete trials' encoding and objective values."""
    if policy == "allowed":
        return True
    return not evaluated_twice_with_equal_values(h, x, values) and fits_noise(noise_variances, signal_variances)
