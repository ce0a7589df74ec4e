"""What the problems with stated optima share (:class:`~.specs.StatedProblem`: the held-out sets'
problems, in :mod:`.shifted_landscapes`, :mod:`.multimodal_landscapes`, :mod:`.rugged_landscapes`,
:mod:`.branching_problems`, :mod:`.hierarchical_designs`, :mod:`.integer_lattices`,
:mod:`.noisy_problems`, :mod:`.plateau_problems` and :mod:`.stall_landscapes`): stacking and
suggesting parameters, the random tables' building blocks, a one-dimensional minimum, a log float
as a coordinate in [0, 1], and the shapes that several problems have: categoricals that move a
landscape over floats (:func:`levels_over_floats`; two over two: :func:`levels_over_a_plane`), a
named level and a site that set a landscape's offset and centre in unit coordinates
(:func:`levels_at_sites`), and one parameter whose levels have stated bests
(:func:`levels_with_bests`; an int-only space searched per level by enumeration:
:func:`ints_by_level`).
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from optuna.trial import BaseTrial
from scipy.optimize import minimize_scalar

from vpbo_benchmarks.specs import Params, StatedProblem, product_combinations

GRID_POINTS = 200_001  # the grid of a one-dimensional minimum before bounded Brent polishes it


def stack_numeric(p: Params, names: Sequence[str]) -> np.ndarray:
    """The named numeric parameters broadcast together and stacked on a last axis."""
    return np.stack(np.broadcast_arrays(*(np.asarray(p[n], dtype=float) for n in names)), axis=-1)


def suggest_floats(trial: BaseTrial, names: Sequence[str], low: float, high: float, log: bool = False) -> dict[str, Any]:
    """One float in [low, high] per name, in the order of ``names``."""
    return {n: trial.suggest_float(n, low, high, log=log) for n in names}


def suggest_levels(trial: BaseTrial, keys: Sequence[str], levels: Sequence[Iterable[Any]]) -> dict[str, Any]:
    """One categorical per key over its levels, in the order of ``keys`` (the levels of
    :func:`~.specs.product_combinations`)."""
    return {k: trial.suggest_categorical(k, list(choices)) for k, choices in zip(keys, levels)}


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """An orthogonal 4 x 4 matrix: the Q of a Gaussian matrix's QR decomposition."""
    return np.linalg.qr(rng.standard_normal((4, 4)))[0]


def additive_offsets(
    rng: np.random.Generator, highs: Sequence[float | None], shape: Sequence[int], interaction: float,
    interaction_last: bool = False,
) -> np.ndarray:
    """The offset table of categoricals with ``shape`` levels: per-level offsets U(0, high) for
    each categorical (none where its high is None) plus an interaction table U(0, interaction).
    The interaction table is drawn from ``rng`` first and each categorical's offsets are added to
    it in turn; with ``interaction_last``, the per-level offsets are drawn and summed first, in
    the categoricals' order, and the interaction table drawn and added last."""
    shape = tuple(shape)

    def per_level(axis: int, high: float) -> np.ndarray:
        return np.expand_dims(rng.uniform(0.0, high, shape[axis]), [a for a in range(len(shape)) if a != axis])

    if not interaction_last:
        total = rng.uniform(0.0, interaction, shape)
        for axis, high in enumerate(highs):
            total = total if high is None else total + per_level(axis, high)
        return total
    parts = [per_level(axis, high) for axis, high in enumerate(highs) if high is not None]
    return functools.reduce(operator.add, parts) + rng.uniform(0.0, interaction, shape)


def site_offsets(
    rng: np.random.Generator, level_offsets: Sequence[float], site_high: float, pair_high: float, n_sites: int,
) -> np.ndarray:
    """The (level, site) offset table, shape (len(level_offsets), n_sites): each level's stated
    offset plus U(0, site_high) per site plus U(0, pair_high) per (level, site), drawn from ``rng``
    in that order."""
    per_site = np.array(level_offsets)[:, None] + rng.uniform(0.0, site_high, n_sites)
    return per_site + rng.uniform(0.0, pair_high, (len(level_offsets), n_sites))


def stated_offsets(rng: np.random.Generator, rows: Sequence[float], cols: Sequence[float], pair_high: float) -> np.ndarray:
    """The offset table of two categoricals, shape (len(rows), len(cols)): each row's and each
    column's stated offset plus U(0, pair_high) per (row, column), drawn from ``rng``."""
    return np.array(rows)[:, None] + np.array(cols) + rng.uniform(0.0, pair_high, (len(rows), len(cols)))


def log_unit(value: Any, low: float) -> Any:
    """A log float in [low, 1] as a coordinate in [0, 1]: (log10 value - log10 low) / -log10 low
    (vectorised)."""
    return (np.log10(np.asarray(value, dtype=float)) - math.log10(low)) / -math.log10(low)


def from_log_unit(u: float, low: float) -> float:
    """The log float in [low, 1] at coordinate ``u`` in [0, 1]: the inverse of :func:`log_unit`."""
    return float(10.0 ** (math.log10(low) * (1.0 - u)))


def one_dimensional_minimum(
    f: Callable[[Any], Any], low: float, high: float, xatol: float = 1e-13, keep_grid: bool = True,
) -> tuple[float, float]:
    """(argmin, min) of the vectorised f on [low, high]: a GRID_POINTS grid, then bounded Brent
    (to ``xatol``) within one grid step of its best point, clipped to [low, high]. The grid's best
    is kept where Brent does worse if ``keep_grid``; otherwise Brent's point is returned."""
    grid = np.linspace(low, high, GRID_POINTS)
    values = f(grid)
    i = int(np.argmin(values))
    step = grid[1] - grid[0]
    result = minimize_scalar(lambda v: float(f(v)), bounds=(max(low, grid[i] - step), min(high, grid[i] + step)),
                             method="bounded", options={"xatol": xatol})
    if not keep_grid or float(result.fun) < float(values[i]):
        return float(result.x), float(result.fun)
    return float(grid[i]), float(values[i])


def best_per_level(
    levels: Iterable[int], points: Callable[[int], Iterable[dict[str, int]]], value: Callable[[Params], Any],
) -> dict[int, tuple[dict[str, int], float]]:
    """Per level of an int-only space: (the best of ``points(level)``, its value), by enumeration."""
    table = {}
    for level in levels:
        best = min(points(level), key=lambda q: float(value(q)))
        table[level] = (best, float(value(best)))
    return table


def levels_with_bests(
    name: str, family: str, key: str, levels: Sequence[Any], suggest: Callable[[BaseTrial], dict[str, Any]],
    value: Callable[[Params], Any], level_best: Callable[[Any], tuple[dict[str, Any], float]], **stated: Any,
) -> StatedProblem:
    """A problem whose combination is the one parameter ``key`` over ``levels``: ``level_best(level)``
    is a level's (best point, best value), the optimum the best level's (the first of equal ones,
    in the order of ``levels``). ``stated``: the rest of the :class:`~.specs.StatedProblem`
    (description, optimum_method, hardness)."""
    combinations = functools.partial(product_combinations, (key,), [levels])
    return StatedProblem(
        name, family, suggest, value, (key,), combinations, lambda c: level_best(c[key])[1],
        lambda: dict(min((level_best(v) for v in levels), key=lambda pv: pv[1])[0]), **stated,
    )


def ints_by_level(
    name: str, family: str, bounds: Mapping[str, tuple[int, int]], level: str, value: Callable[[Params], Any],
    **stated: Any,
) -> StatedProblem:
    """:func:`levels_with_bests` of an int-only space: one int per name of ``bounds`` (inclusive
    (low, high), suggested in that order), the int ``level`` its combination, a level's best found
    once by enumeration of the other ints (:func:`best_per_level`; points in the product order of
    ``bounds``). ``stated``: the rest of the :class:`~.specs.StatedProblem` (description,
    optimum_method, hardness)."""
    ranges = {k: range(low, high + 1) for k, (low, high) in bounds.items()}

    def points(v: int) -> list[dict[str, Any]]:
        return product_combinations(tuple(ranges), [[v] if k == level else r for k, r in ranges.items()])

    @functools.cache
    def table() -> dict[int, tuple[dict[str, int], float]]:
        return best_per_level(ranges[level], points, value)

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        return {k: trial.suggest_int(k, *b) for k, b in bounds.items()}

    return levels_with_bests(name, family, level, ranges[level], suggest, value, lambda v: table()[v], **stated)


def levels_over_floats(
    name: str, family: str, keys: Sequence[str], levels: Sequence[Sequence[Any]], floats: Mapping[str, tuple[float, float]],
    value: Callable[[Params], Any], offset: Callable[[Params], float], argmin: Callable[[Params], Iterable[float]],
    **stated: Any,
) -> StatedProblem:
    """A problem of categoricals (``keys``, over ``levels``) that move and reshape a landscape over
    floats (``floats``: name -> (low, high), suggested after the categoricals, in that order):
    ``value`` is at least ``offset(combination)``, reached at ``argmin(combination)`` (one value
    per float, in the order of ``floats``, inside the bounds), so a combination's best is its
    offset and the optimum the smallest, by enumeration. ``stated``: the rest of the
    :class:`~.specs.StatedProblem` (description, optimum_method, hardness, noise)."""
    keys = tuple(keys)
    combinations = functools.partial(product_combinations, keys, levels)

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=offset)
        return {**c, **{n: float(v) for n, v in zip(floats, argmin(c))}}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        return {**suggest_levels(trial, keys, levels), **{n: trial.suggest_float(n, *b) for n, b in floats.items()}}

    return StatedProblem(name, family, suggest, value, keys, combinations, offset, best_point, **stated)


def levels_over_a_plane(
    name: str, family: str, keys: tuple[str, str], sizes: tuple[int, int],
    bounds: tuple[tuple[float, float], tuple[float, float]], value: Callable[[Params], Any],
    offset: Callable[[int, int], float], argmin: Callable[[int, int], np.ndarray], **stated: Any,
) -> StatedProblem:
    """:func:`levels_over_floats` of two categoricals (``keys``, levels 0 .. size - 1) over two
    floats x1, x2 (``bounds``): ``offset(level, level)`` and ``argmin(level, level)`` of the two
    categoricals' levels. ``stated``: the rest of the :class:`~.specs.StatedProblem`
    (description, optimum_method, hardness, noise)."""

    def best(c: Params) -> float:
        return offset(c[keys[0]], c[keys[1]])

    def best_x(c: Params) -> np.ndarray:
        return argmin(c[keys[0]], c[keys[1]])

    levels = [range(n) for n in sizes]
    floats = {"x1": bounds[0], "x2": bounds[1]}
    return levels_over_floats(name, family, keys, levels, floats, value, best, best_x, **stated)


def levels_at_sites(
    name: str, family: str, key: str, levels: Mapping[str, float], n_sites: int,
    tables: Callable[[], Mapping[str, np.ndarray]], coordinates: Callable[[Params], np.ndarray],
    landscape: Callable[[float, np.ndarray, float], Any], point: Callable[[np.ndarray], dict[str, float]],
    suggest_numeric: Callable[[BaseTrial], dict[str, Any]], **stated: Any,
) -> StatedProblem:
    """A problem of a named level (categorical ``key`` over the names of ``levels``, each with a
    constant) and a ``site`` (categorical 0 .. n_sites - 1) over numeric parameters that
    ``coordinates`` maps to unit coordinates (last axis). ``tables()`` holds ``offset`` (levels x
    sites) and ``centre`` (sites x coordinates); the value is ``landscape(offset, coordinates -
    centre, constant)``, at least the offset and equal to it at the centre (inside the box), so a
    combination's best is its offset and the optimum the smallest, by enumeration; ``point`` maps a
    centre back to the numeric parameters, ``suggest_numeric`` suggests them (after the two
    categoricals). ``stated``: the rest of the :class:`~.specs.StatedProblem` (description,
    optimum_method, hardness)."""
    keys, names = (key, "site"), list(levels)
    choices = [names, range(n_sites)]
    combinations = functools.partial(product_combinations, keys, choices)

    def value(p: Params) -> Any:
        t = tables()
        z = coordinates(p) - t["centre"][p["site"]]
        return landscape(t["offset"][names.index(p[key]), p["site"]], z, levels[p[key]])

    def best(c: Params) -> float:
        return float(tables()["offset"][names.index(c[key]), c["site"]])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        return {**c, **point(tables()["centre"][c["site"]])}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        return {**suggest_levels(trial, keys, choices), **suggest_numeric(trial)}

    return StatedProblem(name, family, suggest, value, keys, combinations, best, best_point, **stated)
