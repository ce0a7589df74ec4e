"""The tree of a conditional (define-by-run) search space, inferred from the completed trials.

In Optuna a parameter exists only if the objective suggests it, so a choice such as
``clf = trial.suggest_categorical("clf", ...)`` followed by parameters of that ``clf`` alone makes
a tree: SMAC and HyperOpt ask for it to be declared, TPE's group mode finds groups of parameters
that appear together. Here each parameter that is missing from some completed trial gets an
*activation condition*: one categorical parent and a set of its values such that, over all
completed trials, the parameter is present exactly when the parent is present and takes one of
those values. Conditions chain (a parent may itself be conditional), which gives nested branches.
A parameter whose presence no single categorical explains (a branch on a numeric threshold, a
parameter added to the objective later), or whose distribution changes between trials, is not
modelled and stays with the independent sampler. The tree is inferred afresh at every trial, so a
branch that appears late is part of it from the first completed trial that uses it (once the
study has ``MIN_TRIALS_FOR_CONDITIONS`` completed trials).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution, CategoricalDistribution
from optuna.trial import FrozenTrial

# Conditions are inferred from this many completed trials on (before, the tree is flat): with
# fewer, chance explains the presence of almost any parameter (docs/decisions.md).
MIN_TRIALS_FOR_CONDITIONS = 10


@dataclasses.dataclass(frozen=True)
class Condition:
    """A parameter is active when ``parent`` is active and its choice index is in ``codes``."""

    parent: str
    codes: frozenset[int]


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One configuration shape: the choice index of every active categorical and the active
    numeric parameters (both sorted by name)."""

    categoricals: tuple[tuple[str, int], ...]
    numerics: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SearchTree:
    """The modelled parameters (``distributions``, sorted by name; the root ones have no entry in
    ``conditions``) and the activation condition of each conditional one."""

    distributions: dict[str, BaseDistribution]
    conditions: dict[str, Condition]

    @property
    def is_flat(self) -> bool:
        """No conditional parameter: the plain intersection search space."""
        return not self.conditions

    def _choices(self, name: str) -> int:
        dist = self.distributions[name]
        assert isinstance(dist, CategoricalDistribution)
        return len(dist.choices)

    def active_names(self, codes: Mapping[str, int]) -> list[str]:
        """The parameters active under the categorical choice indices ``codes`` (sorted)."""
        active = [
            name
            for name in self.distributions
            if name not in self.conditions or codes.get(self.conditions[name].parent) in self.conditions[name].codes
        ]
        # A code given for an inactive parent does not activate its children: drop children of
        # dropped parents until nothing changes (the depth of the tree bounds the passes).
        while True:
            kept = [
                name
                for name in active
                if name not in self.conditions or self.conditions[name].parent in active
            ]
            if kept == active:
                return active
            active = kept

    def leaf_of(self, params: Mapping[str, Any]) -> Leaf | None:
        """The leaf of a configuration, or None if a parameter active under its categorical values
        is missing (a trial still being suggested) or a value is outside its distribution."""
        codes: dict[str, int] = {}
        for name, dist in self.distributions.items():
            if isinstance(dist, CategoricalDistribution) and name in params:
                try:
                    codes[name] = int(dist.to_internal_repr(params[name]))
                except ValueError:
                    return None
        active = self.active_names(codes)
        if any(name not in params for name in active):
            return None
        return self._leaf(codes, active)

    def _leaf(self, codes: Mapping[str, int], active: Sequence[str]) -> Leaf:
        categoricals = tuple((name, codes[name]) for name in active if self._is_categorical(name))
        numerics = tuple(name for name in active if not self._is_categorical(name))
        return Leaf(categoricals, numerics)

    def _is_categorical(self, name: str) -> bool:
        return isinstance(self.distributions[name], CategoricalDistribution)

    def _open_categorical(self, codes: Mapping[str, int]) -> tuple[str | None, list[str]]:
        """The first active categorical without a choice yet (None: the leaf is complete)."""
        active = self.active_names(codes)
        open_names = [name for name in active if self._is_categorical(name) and name not in codes]
        return (open_names[0] if open_names else None), active

    def _descend(self, codes: dict[str, int]) -> Iterator[Leaf]:
        name, active = self._open_categorical(codes)
        if name is None:
            yield self._leaf(codes, active)
            return
        for code in range(self._choices(name)):
            yield from self._descend({**codes, name: code})

    def leaves(self, limit: int) -> list[Leaf] | None:
        """Every leaf (depth first, choices in index order), or None if there are more than
        ``limit``."""
        found = list(itertools.islice(self._descend({}), limit + 1))
        return found if len(found) <= limit else None

    def random_leaf(self, rng: np.random.Generator) -> Leaf:
        """A leaf drawn as random sampling would reach it: a uniform choice at every categorical."""
        codes: dict[str, int] = {}
        while True:
            name, active = self._open_categorical(codes)
            if name is None:
                return self._leaf(codes, active)
            codes[name] = int(rng.integers(self._choices(name)))


def _same_distribution(a: BaseDistribution, b: BaseDistribution) -> bool:
    """``a == b``, with a fast path: comparing the attributes directly is several times cheaper
    than Optuna's ``__eq__`` (which compares categorical choices one by one, NaN-aware) and
    decides the common case of equal distributions; only a mismatch takes the exact test."""
    return a is b or (type(a) is type(b) and a.__dict__ == b.__dict__) or a == b


def _consistent_distributions(trials: Sequence[FrozenTrial]) -> dict[str, BaseDistribution]:
    """Parameters with one distribution in every trial that has them, single values left out
    (Optuna suggests those itself), as IntersectionSearchSpace treats them."""
    seen: dict[str, BaseDistribution] = {}
    changed: set[str] = set()
    for trial in trials:
        for name, dist in trial.distributions.items():
            if not _same_distribution(seen.setdefault(name, dist), dist):
                changed.add(name)
    return {name: dist for name, dist in sorted(seen.items()) if name not in changed and not dist.single()}


def _condition(
    presence: Mapping[str, frozenset[int]],
    codes: Mapping[str, dict[int, int]],
    name: str,
) -> Condition | None:
    """The categorical condition that explains exactly when ``name`` is present, if any.

    A parent must be present in strictly more trials than the child (which makes conditions
    acyclic and keeps a parameter's constant companions from being taken as its parent); among
    the parents that explain the child, the one present in the fewest trials (the deepest) wins,
    then the first by name.
    """
    present = presence[name]
    best: tuple[int, str, Condition] | None = None
    for parent, parent_codes in codes.items():
        parent_present = presence[parent]
        if parent == name or not present < parent_present:
            continue
        values = frozenset(parent_codes[i] for i in present)
        if all((i in present) == (parent_codes[i] in values) for i in parent_present):
            candidate = (len(parent_present), parent, Condition(parent, values))
            if best is None or candidate[:2] < best[:2]:
                best = candidate
    return None if best is None else best[2]


def infer_search_tree(
    trials: Sequence[FrozenTrial], allowed: Mapping[str, BaseDistribution] | None = None
) -> SearchTree:
    """The tree of the parameters of the completed ``trials`` (see the module docstring).

    ``allowed`` restricts the tree to these parameters with these distributions (the relative
    search space Optuna fixed for the trial being sampled). Below ``MIN_TRIALS_FOR_CONDITIONS``
    trials only the root parameters are modelled.
    """
    distributions = _consistent_distributions(trials)
    if allowed is not None:
        distributions = {n: d for n, d in distributions.items() if allowed.get(n) == d}
    presence = {
        name: frozenset(i for i, t in enumerate(trials) if name in t.params) for name in distributions
    }
    everywhere = frozenset(range(len(trials)))
    roots = {name for name in distributions if presence[name] == everywhere}
    if len(trials) < MIN_TRIALS_FOR_CONDITIONS or len(roots) == len(distributions):
        return SearchTree({name: dist for name, dist in distributions.items() if name in roots}, {})
    codes = {
        name: {i: int(dist.to_internal_repr(trials[i].params[name])) for i in presence[name]}
        for name, dist in distributions.items()
        if isinstance(dist, CategoricalDistribution)
    }
    conditions = {name: _condition(presence, codes, name) for name in distributions if name not in roots}
    # Modelled: the root parameters and, transitively, the children of modelled parents.
    modelled = set(roots)
    while children := {
        name
        for name, condition in conditions.items()
        if condition is not None and name not in modelled and condition.parent in modelled
    }:
        modelled |= children
    return SearchTree(
        {name: dist for name, dist in distributions.items() if name in modelled},
        {name: c for name, c in conditions.items() if name in modelled and c is not None},
    )
