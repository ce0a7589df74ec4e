"""The tree of a conditional (define-by-run) search space, inferred from the completed trials.

In Optuna a parameter exists only if the objective suggests it, so a choice such as
``clf = trial.suggest_categorical("clf", ...)`` followed by parameters of that ``clf`` alone makes
a tree: SMAC and HyperOpt ask for it to be declared, TPE's group mode finds groups of parameters
that appear together. Here each parameter that is missing from some completed trial gets an
*activation condition*: one parent and a set of its values such that, over all completed trials,
the parameter is present exactly when the parent is present and takes one of those values. A
parent is a categorical (any set of its choices), or an int with at most ``MAX_INT_PARENT_VALUES``
values whose condition is a threshold (``n_layers = trial.suggest_int(...)`` followed by one
parameter per layer); such an int is then modelled as a categorical of its values, like the
categorical branches. Conditions chain (a parent may itself be conditional), which gives nested
branches. A parameter whose presence no single parent explains (a threshold on a float, a
parameter added to the objective later), or whose distribution changes between trials, is not
modelled and stays with the independent sampler. The tree is inferred afresh at every trial, so a
branch that appears late is part of it from the first completed trial that uses it (once the
study has ``MIN_TRIALS_FOR_CONDITIONS`` completed trials).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution

from optuna_vpbo._trial_record import TrialRecord

# Conditions are inferred from this many completed trials on (before, the tree is flat): with
# fewer, chance explains the presence of almost any parameter (docs/decisions.md).
MIN_TRIALS_FOR_CONDITIONS = 10
# An int parameter with at most this many values may parent a branch (by a threshold).
MAX_INT_PARENT_VALUES = 16


@dataclasses.dataclass(frozen=True)
class Condition:
    """A parameter is active when ``parent`` is active and its choice index (an int parent's:
    the index of its value on its grid) is in ``codes``."""

    parent: str
    codes: frozenset[int]


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One configuration shape: the choice index of every active branching parameter
    (categoricals and int parents) and the active numeric parameters (both sorted by name)."""

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

    @functools.cached_property
    def int_parents(self) -> frozenset[str]:
        """The int parameters that parent a condition: modelled as categoricals of their values."""
        return frozenset(c.parent for c in self.conditions.values() if not self._is_categorical_distribution(c.parent))

    def encoding_distributions(self) -> dict[str, BaseDistribution]:
        """The distributions as the model sees them: int parents as categoricals of their values."""
        parents = self.int_parents
        return {
            name: CategoricalDistribution(int_values(dist)) if name in parents else dist  # type: ignore[arg-type]
            for name, dist in self.distributions.items()
        }

    def _is_categorical_distribution(self, name: str) -> bool:
        return isinstance(self.distributions[name], CategoricalDistribution)

    def _choices(self, name: str) -> int:
        return branching_size(self.distributions[name])

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
        parents = self.int_parents
        for name, dist in self.distributions.items():
            if name in params and (isinstance(dist, CategoricalDistribution) or name in parents):
                code = branching_code(dist, params[name])
                if code is None:
                    return None
                codes[name] = code
        active = self.active_names(codes)
        if any(name not in params for name in active):
            return None
        return self._leaf(codes, active)

    def leaf_of_codes(self, codes: Mapping[str, int]) -> Leaf:
        """The leaf of the categorical choice indices ``codes`` (those of inactive parents are
        ignored)."""
        active = self.active_names(codes)
        return self._leaf({name: code for name, code in codes.items() if name in active}, active)

    def _leaf(self, codes: Mapping[str, int], active: Sequence[str]) -> Leaf:
        categoricals = tuple((name, codes[name]) for name in active if self._is_categorical(name))
        numerics = tuple(name for name in active if not self._is_categorical(name))
        return Leaf(categoricals, numerics)

    def _is_categorical(self, name: str) -> bool:
        """Whether the parameter branches (a categorical or an int parent)."""
        return self._is_categorical_distribution(name) or name in self.int_parents

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


def int_values(dist: IntDistribution) -> tuple[int, ...]:
    """The values of an int distribution, in order."""
    step = 1 if dist.log else dist.step
    return tuple(range(dist.low, dist.high + 1, step))


def branching_size(dist: BaseDistribution) -> int:
    """How many choices a parameter has as a parent (0: it cannot parent a branch)."""
    if isinstance(dist, CategoricalDistribution):
        return len(dist.choices)
    if isinstance(dist, IntDistribution):
        n_values = (dist.high - dist.low) // (1 if dist.log else dist.step) + 1
        return n_values if n_values <= MAX_INT_PARENT_VALUES else 0
    return 0


def branching_code(dist: BaseDistribution, value: Any) -> int | None:
    """A value's choice index (an int's index on its grid); None if it is not one of them."""
    try:
        if isinstance(dist, CategoricalDistribution):
            return int(dist.to_internal_repr(value))
        assert isinstance(dist, IntDistribution)
        index = int_values(dist).index(value)
    except ValueError:
        return None
    return index


def _same_distribution(a: BaseDistribution, b: BaseDistribution) -> bool:
    """``a == b``, with a fast path: comparing the attributes directly is several times cheaper
    than Optuna's ``__eq__`` (which compares categorical choices one by one, NaN-aware) and
    decides the common case of equal distributions; only a mismatch takes the exact test."""
    return a is b or (type(a) is type(b) and a.__dict__ == b.__dict__) or a == b


def _consistent_distributions(trials: Sequence[TrialRecord]) -> dict[str, BaseDistribution]:
    """Parameters with one distribution in every trial that has them, single values left out
    (Optuna suggests those itself), as IntersectionSearchSpace treats them."""
    seen: dict[str, BaseDistribution] = {}
    changed: set[str] = set()
    for trial in trials:
        for name, dist in trial.distributions.items():
            if not _same_distribution(seen.setdefault(name, dist), dist):
                changed.add(name)
    return {name: dist for name, dist in sorted(seen.items()) if name not in changed and not dist.single()}


def _explaining_sets(present: frozenset[int], absent: frozenset[int], n_values: int | None) -> list[frozenset[int]]:
    """The value sets a parent may explain a child by, from the parent's values where the child
    is ``present`` and where it is ``absent``: the present values (a categorical), or a threshold
    between the two (an int parent of ``n_values`` values), which gives the values never tried
    between them to the child's side, as a layer count does to its layers."""
    if n_values is None:
        return [present]
    if absent and max(absent) < min(present):
        return [frozenset(range(max(absent) + 1, n_values))]
    if absent and min(absent) > max(present):
        return [frozenset(range(0, min(absent)))]
    return []


def _condition(
    presence: Mapping[str, frozenset[int]],
    codes: Mapping[str, dict[int, int]],
    sizes: Mapping[str, int],
    name: str,
) -> Condition | None:
    """The condition that explains exactly when ``name`` is present, if any.

    A parent must be present in strictly more trials than the child (which makes conditions
    acyclic and keeps a parameter's constant companions from being taken as its parent); among
    the parents that explain the child, the one present in the fewest trials (the deepest) wins,
    then the first by name. A categorical parent explains by any set of its choices, an int
    parent (``sizes``: its number of values) by a threshold only, and only where no categorical
    explains: int values correlate with a branch by chance more easily than choices do.
    """
    present = presence[name]
    best: tuple[bool, int, str, Condition] | None = None
    for parent, parent_codes in codes.items():
        parent_present = presence[parent]
        if parent == name or not present < parent_present:
            continue
        codes_present = frozenset(parent_codes[i] for i in present)
        codes_absent = frozenset(parent_codes[i] for i in parent_present - present)
        for values in _explaining_sets(codes_present, codes_absent, sizes.get(parent)):
            if all((i in present) == (parent_codes[i] in values) for i in parent_present):
                candidate = (parent in sizes, len(parent_present), parent, Condition(parent, values))
                if best is None or candidate[:3] < best[:3]:
                    best = candidate
    return None if best is None else best[3]


def infer_search_tree(
    trials: Sequence[TrialRecord], allowed: Mapping[str, BaseDistribution] | None = None
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
    sizes = {name: branching_size(dist) for name, dist in distributions.items() if isinstance(dist, IntDistribution)}
    sizes = {name: size for name, size in sizes.items() if size > 0}
    codes = {
        name: {i: branching_code(dist, trials[i].params[name]) for i in presence[name]}
        for name, dist in distributions.items()
        if isinstance(dist, CategoricalDistribution) or name in sizes
    }
    # codes holds no None here: every value lies on its consistent distribution.
    conditions = {name: _condition(presence, codes, sizes, name) for name in distributions if name not in roots}  # type: ignore[arg-type]
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
