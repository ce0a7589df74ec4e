"""A search tree <-> the (h, x) encoding of the native core; a flat space is a tree with no
conditions, so this one encoder serves every study.

Active parameters are encoded as ``search_space.MixedSpaceEncoder`` encodes them (the union of
all branches, in sorted name order). Inactive ones are imputed (Levesque et al. 2017, "Bayesian
optimization for conditional hyperparameter spaces"): an inactive categorical takes an extra
level of its own (code = its number of choices), so that the overlap kernel counts two trials in
which it is inactive as agreeing on it; an inactive numeric takes ``INACTIVE_FILL``, so that two
trials of one leaf coincide in every inactive dimension (docs/decisions.md: the fill value).

An int that parents a branch (``_search_tree``) is encoded as a categorical of its values.

A *row* is the categorical part of a point: the codes of one leaf of the tree (for a flat space,
one combination of categorical values). Rows are what the value proposals choose between.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution

from optuna_vpbo._search_tree import Leaf, SearchTree
from optuna_vpbo.search_space import SAME_VALUE_FRACTION, MixedSpaceEncoder

# The encoded value of an inactive numeric parameter: the centre of [0, 1].
INACTIVE_FILL = 0.5


class TreeEncoder:
    """The encoding of one search tree: the union space, with inactive levels and fills."""

    def __init__(self, tree: SearchTree) -> None:
        self.tree = tree
        distributions = tree.encoding_distributions()
        self._space = MixedSpaceEncoder(distributions)
        self.categorical_names = self._space.categorical_names
        self.numeric_names = self._space.numeric_names
        # Choices per categorical; the code equal to it is the inactive level.
        self.n_choices = self._space.n_levels
        self.inactive_codes = self.n_choices.astype(np.int32)
        # Any valid value: it stands in for inactive parameters during encoding, then is masked.
        self._placeholder = {name: _any_value(dist) for name, dist in distributions.items()}

    @property
    def n_categorical(self) -> int:
        return self._space.n_categorical

    @property
    def n_numeric(self) -> int:
        return self._space.n_numeric

    def encode(self, params_list: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        """Encode configurations (each with exactly its active parameters) into ``h`` and ``x``."""
        h, x = self._space.encode([{**self._placeholder, **params} for params in params_list])
        if self.tree.is_flat:
            return h, x
        for i, params in enumerate(params_list):
            for j, name in enumerate(self.categorical_names):
                if name not in params:
                    h[i, j] = self.inactive_codes[j]
            for j, name in enumerate(self.numeric_names):
                if name not in params:
                    x[i, j] = INACTIVE_FILL
        return h, x

    def is_discrete(self) -> bool:
        """Whether every numeric parameter is on a grid (``MixedSpaceEncoder.is_discrete``)."""
        return self._space.is_discrete()

    def repeat_tolerance(self, fraction: float = SAME_VALUE_FRACTION) -> np.ndarray:
        """How close (d,) two encoded numeric values are the same configuration (floats: within
        ``fraction`` of their range)."""
        return self._space.repeat_tolerance(fraction)

    def covers(self, params: Mapping[str, Any]) -> bool:
        """Whether a completed trial's parameters make a point of this tree."""
        if self.tree.is_flat:
            return self.tree.distributions.keys() <= params.keys()
        return self.tree.leaf_of(params) is not None

    def active_params(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The parameters of a configuration that its leaf uses, or None if it has no leaf of
        this tree (a parameter missing, or a value outside its distribution: values may come
        from other workers' publications, ``_stored``)."""
        leaf = self.tree.leaf_of(params)
        if leaf is None or any(number_outside(self.tree.distributions[name], params[name]) for name in leaf.numerics):
            return None
        active = {name for name, _ in leaf.categoricals} | set(leaf.numerics)
        return {name: value for name, value in params.items() if name in active}

    def row(self, leaf: Leaf) -> np.ndarray:
        """The categorical row (k,) of a leaf: its choices, the inactive level elsewhere."""
        chosen = dict(leaf.categoricals)
        return np.array(
            [chosen.get(name, int(self.inactive_codes[j])) for j, name in enumerate(self.categorical_names)],
            dtype=np.int32,
        )

    def active_numerics(self, leaf: Leaf) -> np.ndarray:
        """Which numeric dimensions (d,) the leaf uses."""
        return np.isin(self.numeric_names, leaf.numerics)

    def leaf_of_row(self, row: np.ndarray) -> Leaf:
        columns = zip(self.categorical_names, row, self.inactive_codes)
        codes = {name: int(code) for name, code, inactive in columns if code != inactive}
        return self.tree.leaf_of_codes(codes)

    def numeric_masks(self, rows: np.ndarray) -> np.ndarray:
        """Which numeric dimensions (C x d) each row uses."""
        if self.tree.is_flat:
            return np.ones((len(rows), self.n_numeric), dtype=bool)
        return np.array([self.active_numerics(self.leaf_of_row(row)) for row in rows], dtype=bool).reshape(len(rows), -1)

    def random_rows(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """Rows (count x k) drawn as random sampling would reach them: a uniform choice at every
        active categorical."""
        if self.tree.is_flat:
            return rng.integers(0, self.n_choices, size=(count, self.n_categorical)).astype(np.int32)
        leaves = [self.tree.random_leaf(rng) for _ in range(count)]
        return np.array([self.row(leaf) for leaf in leaves], dtype=np.int32).reshape(count, self.n_categorical)

    def snap(self, x: np.ndarray, active: np.ndarray) -> np.ndarray:
        """Numeric points (m x d) moved onto the parameters' grids, with the dimensions that
        ``active`` (d,) leaves out at ``INACTIVE_FILL``."""
        out = self._space.round_to_grid(x)
        out[:, ~active] = INACTIVE_FILL
        return out

    def grid_units(self) -> list[np.ndarray | None]:
        """Per numeric dimension, the encodings of its grid points (None: a continuous float)."""
        return self._space.grid_units()

    def decode(self, row: np.ndarray, x: np.ndarray) -> dict[str, Any]:
        """The parameter values of the point (row, x): the parameters of its leaf only, as native
        Python values on Optuna's grids."""
        leaf = self.leaf_of_row(row)
        params = self._space.decode(np.where(row == self.inactive_codes, 0, row), x)
        active = {name for name, _ in leaf.categoricals} | set(leaf.numerics)
        return {name: value for name, value in params.items() if name in active}

    def categorical_params(self, row: np.ndarray) -> dict[str, Any]:
        """The row's active categorical values (diagnostics)."""
        return {
            name: self._space.decode_categorical(name, code)
            for name, code, inactive in zip(self.categorical_names, row, self.inactive_codes)
            if code != inactive
        }


def number_outside(dist: BaseDistribution, value: Any) -> bool:
    """Whether ``value`` is a number (int or float) outside the float or int distribution
    ``dist``: beyond its range (an int of any size compares exactly), NaN, or no integer for an
    int. What is no number is the encoder's to reject."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and (math.isnan(value) or (isinstance(dist, IntDistribution) and not value.is_integer())):
        return True
    assert isinstance(dist, (FloatDistribution, IntDistribution))
    return not dist.low <= value <= dist.high


def _any_value(dist: Any) -> Any:
    if isinstance(dist, CategoricalDistribution):
        return dist.choices[0]
    assert isinstance(dist, (FloatDistribution, IntDistribution))
    return dist.low
