"""The broad suite's base functions (each with minimum 0, vectorised over the last axis) and its
shifted problems: ``base(sign(h) * (x - shift(h)) / scale) * height + offset(h)``, whose optimum
moves with the categoricals (see :mod:`.suite`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks import landscape_parts
from vpbo_benchmarks.problem import observe

# --------------------------------------------------------------------------------------------
# Base functions, each with minimum 0 (vectorised over the last axis)
# --------------------------------------------------------------------------------------------


def ackley(z: np.ndarray) -> np.ndarray:
    """Ackley (a=20, b=0.2, c=2 pi); minimum 0 at z = 0 (Ackley 1987; Surjanovic & Bingham's library)."""
    z = np.asarray(z, dtype=float)
    d = z.shape[-1]
    first = -20.0 * np.exp(-0.2 * np.sqrt(np.sum(z**2, axis=-1) / d))
    return first - np.exp(np.sum(np.cos(2.0 * math.pi * z), axis=-1) / d) + 20.0 + math.e


def rastrigin(z: np.ndarray) -> np.ndarray:
    """Rastrigin: 10 d + sum(z^2 - 10 cos(2 pi z)); minimum 0 at z = 0."""
    z = np.asarray(z, dtype=float)
    return 10.0 * z.shape[-1] + np.sum(z**2 - 10.0 * np.cos(2.0 * math.pi * z), axis=-1)


def levy(z: np.ndarray) -> np.ndarray:
    """Levy function in the coordinates u = x - 1 (so that the minimum 0 is at z = 0):
    w = 1 + z / 4; sin^2(pi w1) + sum_{i<d} (w_i - 1)^2 (1 + 10 sin^2(pi w_i + 1))
    + (w_d - 1)^2 (1 + sin^2(2 pi w_d)) (Surjanovic & Bingham's library)."""
    w = 1.0 + np.asarray(z, dtype=float) / 4.0
    head = np.sin(math.pi * w[..., 0]) ** 2
    inner = np.sum((w[..., :-1] - 1.0) ** 2 * (1.0 + 10.0 * np.sin(math.pi * w[..., :-1] + 1.0) ** 2), axis=-1)
    tail = (w[..., -1] - 1.0) ** 2 * (1.0 + np.sin(2.0 * math.pi * w[..., -1]) ** 2)
    return head + inner + tail


def _schwefel_term(z: np.ndarray) -> np.ndarray:
    return -z * np.sin(np.sqrt(np.abs(z)))


def _styblinski_tang_term(z: np.ndarray) -> np.ndarray:
    return 0.5 * (z**4 - 16.0 * z**2 + 5.0 * z)


@functools.cache
def one_dimensional_minimum(term: str) -> tuple[float, float]:
    """(argmin, min) of the separable 1-D term of Schwefel on [-500, 500] or Styblinski-Tang on
    [-5, 5]: :func:`~.landscape_parts.one_dimensional_minimum` to xatol 1e-12, Brent's point
    returned."""
    function, (low, high) = {
        "schwefel": (_schwefel_term, (-500.0, 500.0)),
        "styblinski_tang": (_styblinski_tang_term, (-5.0, 5.0)),
    }[term]
    return landscape_parts.one_dimensional_minimum(
        lambda v: function(np.array(v)), low, high, xatol=1e-12, keep_grid=False,
    )


def schwefel(z: np.ndarray) -> np.ndarray:
    """Schwefel: sum(-z sin(sqrt|z|)) minus its minimum, so minimum 0 at z_i = 420.9687..."""
    z = np.asarray(z, dtype=float)
    return np.sum(_schwefel_term(z), axis=-1) - z.shape[-1] * one_dimensional_minimum("schwefel")[1]


def styblinski_tang(z: np.ndarray) -> np.ndarray:
    """Styblinski-Tang: 0.5 sum(z^4 - 16 z^2 + 5 z) minus its minimum: minimum 0 at z_i = -2.9035..."""
    z = np.asarray(z, dtype=float)
    return np.sum(_styblinski_tang_term(z), axis=-1) - z.shape[-1] * one_dimensional_minimum("styblinski_tang")[1]


BASE_FUNCTIONS: Mapping[str, Callable[[np.ndarray], np.ndarray]] = {
    "ackley": ackley,
    "rastrigin": rastrigin,
    "levy": levy,
    "schwefel": schwefel,
    "styblinski_tang": styblinski_tang,
}


def base_argmin(name: str, d: int) -> np.ndarray:
    """Where the base function ``name`` in dimension ``d`` takes its minimum 0."""
    if name in ("schwefel", "styblinski_tang"):
        return np.full(d, one_dimensional_minimum(name)[0])
    return np.zeros(d)


# --------------------------------------------------------------------------------------------
# Shifted (flat) problems: base(sign(h) * (x - shift(h)) / scale) * height + offset(h)
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ShiftedDesign:
    """A flat mixed problem: categoricals ``c1..`` over ``levels``, floats ``x1..`` in ``bounds``
    (and ints ``k1..`` in ``int_bounds``). Each level adds a shift vector (an integer one on the
    int dimensions) and an offset; pairs of categoricals add an interaction offset. Tables come
    from ``np.random.default_rng(table_seed)``, so they are fixed."""

    base: str
    levels: tuple[int, ...]
    n_floats: int
    bounds: tuple[float, float]
    table_seed: int
    offset_spread: float
    interaction_spread: float = 0.0
    shift_fraction: float = 0.3  # the summed shift stays within this fraction of the half-width
    n_ints: int = 0
    int_bounds: tuple[int, int] = (0, 0)
    int_scale: float = 1.0  # base input per integer step
    sign_patterns: bool = False  # Schwefel: per-level sign flips instead of shifts
    height: float = 1.0
    # A fixed shift common to every combination, within this fraction of the half-width: the
    # optima of bases whose argmin is 0 do not sit near the centre of the box (where samplers
    # that start at the centre, such as CMA-ES or Ax's centre point, would be favoured).
    centre_fraction: float = 0.0


@dataclasses.dataclass(frozen=True)
class ShiftedTables:
    shifts: tuple[np.ndarray, ...]  # per categorical: [levels, n_floats + n_ints]
    centre: np.ndarray  # [n_floats + n_ints], added to every combination's shift
    offsets: tuple[np.ndarray, ...]  # per categorical: [levels]
    interactions: Mapping[tuple[int, int], np.ndarray]  # (i, j) -> [levels_i, levels_j]


@functools.cache
def shifted_tables(design: ShiftedDesign) -> ShiftedTables:
    """The fixed shift, sign, offset and interaction tables of ``design``."""
    rng = np.random.default_rng(design.table_seed)
    n_cats = len(design.levels)
    half_width = (design.bounds[1] - design.bounds[0]) / 2.0
    per_cat = design.shift_fraction * half_width / n_cats
    shifts = []
    for n in design.levels:
        if design.sign_patterns:
            shift = rng.choice([-1.0, 1.0], size=(n, design.n_floats))
        else:
            shift = rng.uniform(-per_cat, per_cat, size=(n, design.n_floats))
        int_half = (design.int_bounds[1] - design.int_bounds[0]) // 2
        int_shift = rng.integers(
            -int(design.shift_fraction * int_half / n_cats),
            int(design.shift_fraction * int_half / n_cats) + 1,
            size=(n, design.n_ints),
        )
        shifts.append(np.concatenate([shift, int_shift.astype(float)], axis=1))
    offsets = tuple(rng.uniform(0.0, design.offset_spread, size=n) for n in design.levels)
    interactions = {
        (i, j): rng.uniform(0.0, design.interaction_spread, size=(design.levels[i], design.levels[j]))
        for i, j in itertools.combinations(range(n_cats), 2)
    } if design.interaction_spread > 0 else {}
    # A generator of its own, so that the other tables (and so the optimum) do not depend on it.
    centre_rng = np.random.default_rng([design.table_seed, 1])
    half_int = (design.int_bounds[1] - design.int_bounds[0]) // 2
    centre = np.concatenate([
        centre_rng.uniform(-1.0, 1.0, size=design.n_floats) * design.centre_fraction * half_width,
        centre_rng.integers(
            -int(design.centre_fraction * half_int), int(design.centre_fraction * half_int) + 1, size=design.n_ints
        ),
    ]).astype(float)
    return ShiftedTables(tuple(shifts), centre, offsets, interactions)


def shifted_offset(design: ShiftedDesign, h: Sequence[int]) -> float:
    """The best value of combination ``h``: its offsets and pairwise interactions."""
    tables = shifted_tables(design)
    total = sum(float(tables.offsets[i][level]) for i, level in enumerate(h))
    return total + sum(float(table[h[i], h[j]]) for (i, j), table in tables.interactions.items())


def _combined_shift(design: ShiftedDesign, h: Sequence[int]) -> np.ndarray:
    """The sum of the levels' shift vectors, or the product of their sign patterns."""
    rows = [shifted_tables(design).shifts[i][level] for i, level in enumerate(h)]
    return np.prod(rows, axis=0) if design.sign_patterns else np.sum(rows, axis=0) + shifted_tables(design).centre


def shifted_value(design: ShiftedDesign, h: Sequence[int], x: np.ndarray, k: np.ndarray | None = None) -> float:
    """The noiseless objective at levels ``h``, floats ``x`` and ints ``k``."""
    shift = _combined_shift(design, h)
    if design.sign_patterns:
        z = np.asarray(x, dtype=float) * shift[: design.n_floats]
    else:
        z_float = np.asarray(x, dtype=float) - shift[: design.n_floats]
        k = np.zeros(0) if k is None else np.asarray(k, dtype=float)
        z = np.concatenate([z_float, (k - shift[design.n_floats:]) * design.int_scale])
    return float(design.height * BASE_FUNCTIONS[design.base](z)) + shifted_offset(design, h)


def shifted_argmin(design: ShiftedDesign, h: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(x, k) where combination ``h`` takes its best value (its offset)."""
    shift = _combined_shift(design, h)
    zero = base_argmin(design.base, design.n_floats)
    if design.sign_patterns:
        return zero * shift[: design.n_floats], np.zeros(0)
    return zero + shift[: design.n_floats], shift[design.n_floats:].round()


def best_combination(design: ShiftedDesign) -> tuple[tuple[int, ...], float]:
    """The combination with the smallest offset and that offset, by enumeration."""
    best = min(itertools.product(*(range(n) for n in design.levels)), key=lambda h: shifted_offset(design, h))
    return tuple(best), shifted_offset(design, best)


def shifted_objective(design: ShiftedDesign, noise_sd: float = 0.0) -> Callable[[BaseTrial], float]:
    def objective(trial: BaseTrial) -> float:
        h = [trial.suggest_categorical(f"c{i + 1}", list(range(n))) for i, n in enumerate(design.levels)]
        x = np.array([trial.suggest_float(f"x{i + 1}", *design.bounds) for i in range(design.n_floats)])
        k = np.array([trial.suggest_int(f"k{i + 1}", *design.int_bounds) for i in range(design.n_ints)])
        return observe(trial, shifted_value(design, h, x, k), noise_sd)

    return objective


SHIFTED_DESIGNS: Mapping[str, ShiftedDesign] = {
    "shifted_ackley": ShiftedDesign("ackley", (5, 5), 4, (-5.0, 5.0), 1301, offset_spread=3.0, centre_fraction=0.5),
    "shifted_rastrigin": ShiftedDesign(
        "rastrigin", (4, 4, 4), 3, (-5.12, 5.12), 1302, offset_spread=6.0, centre_fraction=0.5
    ),
    "shifted_levy": ShiftedDesign("levy", (8, 3), 5, (-10.0, 10.0), 1303, offset_spread=2.0, centre_fraction=0.5),
    "signed_schwefel": ShiftedDesign(
        "schwefel", (6, 6), 3, (-500.0, 500.0), 1304, offset_spread=150.0, sign_patterns=True
    ),
    "many_levels_styblinski": ShiftedDesign(
        "styblinski_tang", (10, 15, 20), 3, (-5.0, 5.0), 1305, offset_spread=8.0, interaction_spread=4.0
    ),
    "many_cats_levy": ShiftedDesign(
        "levy", (4, 4, 4, 4, 4, 4), 2, (-10.0, 10.0), 1306, offset_spread=1.0, interaction_spread=0.4,
        centre_fraction=0.5,
    ),
    "mixed_int_ackley": ShiftedDesign(
        "ackley", (6, 3), 3, (-2.0, 2.0), 1307, offset_spread=2.0, n_ints=3, int_bounds=(-10, 10),
        int_scale=0.25, shift_fraction=0.6, centre_fraction=0.35,
    ),
    "noisy_styblinski": ShiftedDesign(
        "styblinski_tang", (5, 4), 4, (-5.0, 5.0), 1308, offset_spread=10.0, interaction_spread=3.0
    ),
}
SHIFTED_NOISE_SD: Mapping[str, float] = {"noisy_styblinski": 2.0}

