"""The layout of the GP's hyperparameter vector theta, read from the native core.

``native/hyperparameter_layout.hpp`` defines it once for both languages: named blocks
``[log lengthscales (d) | log variance | log noise | lambda]``. This module
turns the native blocks into indices and slices, so that the fit, the priors and the fit store
address theta by name (``theta[layout.log_noise]``), never by position.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from optuna_vpbo import _core

# Bumped by the native core with any change of the layout (stored fits of another one are refitted).
LAYOUT_VERSION: int = _core.HYPERPARAMETER_LAYOUT_VERSION


@dataclasses.dataclass(frozen=True)
class HyperparameterLayout:
    """Where each named block sits in theta: an index for a scalar, a slice for a vector."""

    n_numeric: int
    size: int
    log_lengthscales: slice
    log_variance: int
    log_noise: int
    lam: int


# The native blocks' names and this class's fields of them ("lambda" is a Python keyword).
_FIELDS = {
    "log_lengthscales": "log_lengthscales",
    "log_variance": "log_variance",
    "log_noise": "log_noise",
    "lambda": "lam",
}


@functools.lru_cache(maxsize=256)
def hyperparameter_layout(n_numeric: int) -> HyperparameterLayout:
    """The layout of a model with ``n_numeric`` lengthscales (``_core.HyperparameterLayout``; a
    ValueError on a negative count)."""
    native = _core.HyperparameterLayout(n_numeric)
    blocks: dict[str, Any] = {}
    for block in native.blocks():
        if block.name not in _FIELDS:
            raise RuntimeError(f"the native core has a hyperparameter block {block.name!r} this package does not know")
        blocks[_FIELDS[block.name]] = block.offset if block.scalar else slice(block.offset, block.offset + block.size)
    return HyperparameterLayout(n_numeric=n_numeric, size=native.size, **blocks)
