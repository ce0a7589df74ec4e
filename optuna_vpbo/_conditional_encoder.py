"""A conditional search space <-> the (h, x) encoding of the native core.

Active parameters are encoded as ``search_space.MixedSpaceEncoder`` encodes them (the union of
all branches, in sorted name order). Inactive ones are imputed (Levesque et al. 2017, "Bayesian
optimization for conditional hyperparameter spaces"):

- an inactive categorical takes an extra level of its own (code = its number of choices), so the
  overlap kernel counts two trials in which it is inactive as agreeing on it, and a trial in which
  it is active as disagreeing;
- an inactive numeric takes the fixed value ``INACTIVE_FILL``, the centre of [0, 1]. Two trials
  of the same leaf then coincide in every inactive dimension, so the Matern part compares them
  on their active parameters alone, and the categorical part (the choice that opened the branch)
  tells branches apart. A fill outside [0, 1] measured worse (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

from optuna_vpbo._search_tree import Leaf, SearchTree
from optuna_vpbo.search_space import MixedSpaceEncoder

# The encoded value of an inactive numeric parameter (see the module docstring).
INACTIVE_FILL = 0.5


class ConditionalEncoder:
    """The encoding of one search tree: the union space, with inactive levels and fills."""

    def __init__(self, tree: SearchTree) -> None:
        self.tree = tree
        self._space = MixedSpaceEncoder(tree.distributions)
        self.categorical_names = self._space.categorical_names
        self.numeric_names = self._space.numeric_names
        self.inactive_codes = self._space.n_levels.astype(np.int32)
        # Every categorical has its choices plus the inactive level.
        self.n_levels = self._space.n_levels + 1
        # Any valid value: it stands in for inactive parameters during encoding, then is masked.
        self._placeholder = {name: _any_value(dist) for name, dist in tree.distributions.items()}

    @property
    def n_categorical(self) -> int:
        return self._space.n_categorical

    @property
    def n_numeric(self) -> int:
        return self._space.n_numeric

    def encode(self, params_list: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        """Encode configurations (each with exactly its active parameters) into ``h`` and ``x``."""
        h, x = self._space.encode([{**self._placeholder, **params} for params in params_list])
        for i, params in enumerate(params_list):
            for j, name in enumerate(self.categorical_names):
                if name not in params:
                    h[i, j] = self.inactive_codes[j]
            for j, name in enumerate(self.numeric_names):
                if name not in params:
                    x[i, j] = INACTIVE_FILL
        return h, x

    def leaf_codes(self, leaf: Leaf) -> np.ndarray:
        """The categorical row (k,) of a leaf: its choices, the inactive level elsewhere."""
        chosen = dict(leaf.categoricals)
        return np.array(
            [chosen.get(name, int(self.inactive_codes[j])) for j, name in enumerate(self.categorical_names)],
            dtype=np.int32,
        )

    def active_numerics(self, leaf: Leaf) -> np.ndarray:
        """Which numeric dimensions (d,) the leaf uses."""
        return np.isin(self.numeric_names, leaf.numerics)

    def snap(self, x: np.ndarray, active: np.ndarray) -> np.ndarray:
        """Numeric points (m x d) of a leaf moved onto the parameters' grids, with the inactive
        dimensions at ``INACTIVE_FILL``."""
        out = self._space.round_to_grid(x)
        out[:, ~active] = INACTIVE_FILL
        return out

    def decode(self, leaf: Leaf, x: np.ndarray) -> dict[str, Any]:
        """The parameter values of the leaf's point ``x``: its active parameters only."""
        h = np.array(
            [dict(leaf.categoricals).get(name, 0) for name in self.categorical_names], dtype=np.int32
        )
        params = self._space.decode(h, x)
        active = {name for name, _ in leaf.categoricals} | set(leaf.numerics)
        return {name: value for name, value in params.items() if name in active}

    def categorical_params(self, leaf: Leaf) -> dict[str, Any]:
        """The leaf's categorical values (diagnostics)."""
        return {name: self._space.decode_categorical(name, code) for name, code in leaf.categoricals}


def _any_value(dist: Any) -> Any:
    if isinstance(dist, CategoricalDistribution):
        return dist.choices[0]
    assert isinstance(dist, (FloatDistribution, IntDistribution))
    return dist.low
