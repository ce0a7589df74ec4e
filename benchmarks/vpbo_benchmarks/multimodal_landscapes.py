"""Multimodal landscapes, a few basins each whose depths and places the categoricals or ints set:
``peak_field`` (Gallagher's Gaussian peaks), ``michalewicz_gates`` (Michalewicz's valleys), and
over floats and ints only ``compact_foxholes`` (Wendland holes) and ``qing_powers`` (Qing's
symmetric minima). Rugged ones, with minima on every scale: :mod:`.rugged_landscapes`. The sets
that hold them: :mod:`.held_out_sets`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.landscape_parts import (
    additive_offsets,
    levels_over_floats,
    levels_with_bests,
    one_dimensional_minimum,
    random_rotation,
    stack_numeric,
    suggest_floats,
)
from vpbo_benchmarks.specs import Params, StatedProblem

# --------------------------------------------------------------------------------------------
# peak_field: Gallagher's Gaussian peaks; layout picks the peaks, focus the tallest, lens the floats that matter
# --------------------------------------------------------------------------------------------

PF_LAYOUTS, PF_FOCI, PF_N_PEAKS = 3, 3, 7
PF_FLOATS = ("x1", "x2", "x3", "x4")
PF_LENS_MASKS = ((1, 1, 1, 1), (1, 1, 1, 0), (0, 1, 1, 1), (1, 0, 1, 0))  # which floats a lens lets matter
PF_GLOBAL_SD = 0.16  # the tallest peak's standard deviation along each rotated axis
PF_SD_BOUNDS = (0.14, 0.3)  # the other peaks'
PF_HEIGHT_BOUNDS = (0.5, 0.85)  # the other peaks' heights (the tallest: 1)


@functools.cache
def peak_field_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2701)
    shape = (PF_LAYOUTS, PF_N_PEAKS)
    return {
        "position": rng.uniform(0.12, 0.88, (*shape, 4)),
        "rotation": np.array([[random_rotation(rng) for _ in range(PF_N_PEAKS)] for _ in range(PF_LAYOUTS)]),
        "sd": rng.uniform(*PF_SD_BOUNDS, (*shape, 4)),
        "height": rng.uniform(*PF_HEIGHT_BOUNDS, shape),
        "tallest": np.array([rng.permutation(PF_N_PEAKS)[:PF_FOCI] for _ in range(PF_LAYOUTS)]),
        "offset": additive_offsets(rng, (0.3, 0.2, 0.15), (PF_LAYOUTS, PF_FOCI, len(PF_LENS_MASKS)), 0.08),
    }


def peak_field_value(p: Params) -> Any:
    t = peak_field_tables()
    layout, lens = p["layout"], p["lens"]
    tallest = t["tallest"][layout, p["focus"]]
    x = stack_numeric(p, PF_FLOATS)
    highest: Any = 0.0
    for j in range(PF_N_PEAKS):
        u = ((x - t["position"][layout, j]) * np.array(PF_LENS_MASKS[lens])) @ t["rotation"][layout, j]
        sd, height = (PF_GLOBAL_SD, 1.0) if j == tallest else (t["sd"][layout, j], t["height"][layout, j])
        highest = np.maximum(highest, height * np.exp(-0.5 * np.sum((u / sd) ** 2, axis=-1)))
    return 1.0 - highest + t["offset"][layout, p["focus"], lens]


def peak_field() -> StatedProblem:
    def best(c: Params) -> float:
        return float(peak_field_tables()["offset"][c["layout"], c["focus"], c["lens"]])

    def tallest_centre(c: Params) -> np.ndarray:
        t = peak_field_tables()
        return t["position"][c["layout"], t["tallest"][c["layout"], c["focus"]]]

    return levels_over_floats(
        "peak_field", "multimodal", ("layout", "focus", "lens"), [range(PF_LAYOUTS), range(PF_FOCI), range(len(PF_LENS_MASKS))],
        dict.fromkeys(PF_FLOATS, (0.0, 1.0)), peak_field_value, best, tallest_centre,
        description=(
            "1 - max_j h_j exp(-|R_j^T m (x - y_j)|^2_sd / 2) + offset over 4 floats in [0, 1]: 7 rotated anisotropic Gaussian "
            "peaks per layout (3), focus (3) makes one of them the tallest (height 1, sd 0.16; the others 0.5-0.85, sd "
            "0.14-0.3), lens (4) masks the floats that matter (4, 3, 3 or 2 of them)"
        ),
        optimum_method=(
            "the max of the peaks is <= 1, equal to 1 only at the tallest peak's centre (inside the box), so a combination's "
            "best is its offset; the optimum is the smallest offset over the 36 combinations, by enumeration"
        ),
        hardness=(
            "multimodal: a run finds the tallest peak's basin (where it is the highest peak: about 10 % of the box in the best "
            "combination) or stays on a decoy peak 0.15-0.5 higher; the tallest peak jumps with focus, the layout changes every "
            "peak, and the lens changes the dimension"
        ),
    )


# --------------------------------------------------------------------------------------------
# michalewicz_gates: Michalewicz's steep valleys; order assigns the frequencies, steep the sharpness
# --------------------------------------------------------------------------------------------

MG_FLOATS = ("x1", "x2", "x3", "x4")
MG_BOUNDS = (0.0, math.pi)
MG_FREQUENCIES = (2, 3, 5, 7)  # Michalewicz's index i, assigned to the floats by the order level
MG_N_ORDERS = 4
MG_STEEPNESS = (2, 5, 10)  # Michalewicz's m: the valleys narrow as m grows
MG_STEEP_OFFSET = (0.10, 0.05, 0.0)  # the sharpest valleys are the best
MG_HEIGHT = 0.25


@functools.cache
def michalewicz_gates_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2702)
    orders: list[tuple[int, ...]] = []
    while len(orders) < MG_N_ORDERS:
        order = tuple(int(v) for v in rng.permutation(MG_FREQUENCIES))
        if order not in orders:
            orders.append(order)
    offset = additive_offsets(rng, (0.08, None), (MG_N_ORDERS, len(MG_STEEPNESS)), 0.04, interaction_last=True)
    return {"order": np.array(orders), "offset": offset}


def michalewicz_term(x: Any, frequency: float, m: int) -> Any:
    """One coordinate's Michalewicz term sin(x) sin(i x^2 / pi)^(2m), in [0, 1) on [0, pi]."""
    return np.sin(x) * np.sin(frequency * np.asarray(x) ** 2 / math.pi) ** (2 * m)


@functools.cache
def michalewicz_term_max(frequency: float, m: int) -> tuple[float, float]:
    """(argmax, max) of one term on [0, pi] (:func:`~.landscape_parts.one_dimensional_minimum` of
    its negative), Brent's point kept even where it is no better than the grid's (at x = pi / 2
    for i = 2): the stated best point was written so."""
    x, negative = one_dimensional_minimum(lambda v: -michalewicz_term(v, frequency, m), *MG_BOUNDS, keep_grid=False)
    return x, -negative


def michalewicz_gates_value(p: Params) -> Any:
    t = michalewicz_gates_tables()
    m = MG_STEEPNESS[p["steep"]]
    x = stack_numeric(p, MG_FLOATS)
    total = sum(michalewicz_term(x[..., k], float(f), m) for k, f in enumerate(t["order"][p["order"]]))
    return t["offset"][p["order"], p["steep"]] + MG_STEEP_OFFSET[p["steep"]] + MG_HEIGHT * (len(MG_FLOATS) - total)


def michalewicz_gates() -> StatedProblem:
    def best(c: Params) -> float:
        t = michalewicz_gates_tables()
        top = sum(michalewicz_term_max(float(f), MG_STEEPNESS[c["steep"]])[1] for f in MG_FREQUENCIES)
        return float(t["offset"][c["order"], c["steep"]] + MG_STEEP_OFFSET[c["steep"]] + MG_HEIGHT * (len(MG_FLOATS) - top))

    def best_x(c: Params) -> list[float]:
        order = michalewicz_gates_tables()["order"][c["order"]]
        return [michalewicz_term_max(float(f), MG_STEEPNESS[c["steep"]])[0] for f in order]

    return levels_over_floats(
        "michalewicz_gates", "multimodal", ("order", "steep"), [range(MG_N_ORDERS), range(len(MG_STEEPNESS))],
        dict.fromkeys(MG_FLOATS, MG_BOUNDS), michalewicz_gates_value, best, best_x,
        description=(
            "offset + 0.25 (4 - sum_k sin(x_k) sin(i_k x_k^2 / pi)^(2m)) over 4 floats in [0, pi] (Michalewicz, shifted to be >= "
            "0): order (4) assigns the frequencies i = 2, 3, 5, 7 to the floats, steep (3) sets m = 2, 5 or 10"
        ),
        optimum_method=(
            "separable: each term's maximum on [0, pi] by a 200 001-point grid and bounded Brent (it does not depend on the "
            "order), so a combination's best is its offset + 0.25 (4 - sum of the maxima); the optimum by enumeration of the 12 "
            "combinations"
        ),
        hardness=(
            "multimodal: 2 x 3 x 5 x 7 = 210 local minima per combination in valleys that narrow with m; the best steepness (m = "
            "10) is the worst on average, and the frequencies move between the floats with the order"
        ),
    )


# --------------------------------------------------------------------------------------------
# compact_foxholes (floats and ints only): Wendland holes on a two-bowl floor; level trades width for depth
# --------------------------------------------------------------------------------------------

FH_FLOATS = ("x1", "x2", "x3")
FH_K_MAX = 16  # k in [0, 16] is the fourth coordinate, k / 16
FH_LEVEL_RADIUS = (0.42, 0.34, 0.27, 0.21, 0.16)  # the best hole per level 1-5: narrower...
FH_LEVEL_DEPTH = (0.66, 0.74, 0.81, 0.86, 0.84)  # ...and deeper, up to level 4
FH_N_DECOYS = 8
FH_DECOY_DEPTH, FH_DECOY_RADIUS = (0.35, 0.6), (0.18, 0.3)
FH_BOWL, FH_BOWL_FLOOR = 0.25, 0.04  # beta min(|z - a|^2, |z - b|^2 + floor): a broad pull to a decoy


@functools.cache
def compact_foxholes_tables() -> dict[str, np.ndarray]:
    """The best hole's centre a (its k on the lattice) and decoys whose supports are disjoint
    from each other and from a's widest support (rejection sampling)."""
    rng = np.random.default_rng(2703)
    best = np.append(rng.uniform(0.2, 0.8, 3), rng.integers(3, FH_K_MAX - 2) / FH_K_MAX)
    centres: list[np.ndarray] = []
    radii: list[float] = []
    while len(centres) < FH_N_DECOYS:
        c, r = rng.uniform(0.0, 1.0, 4), float(rng.uniform(*FH_DECOY_RADIUS))
        apart = all(np.linalg.norm(c - o) > r + q for o, q in zip(centres, radii))
        if apart and np.linalg.norm(c - best) > r + max(FH_LEVEL_RADIUS):
            centres.append(c)
            radii.append(r)
    depth = rng.uniform(*FH_DECOY_DEPTH, FH_N_DECOYS)
    pull = np.array(centres)[np.argmax(depth)]
    return {"best": best, "centre": np.array(centres), "radius": np.array(radii), "depth": depth, "pull": pull}


def wendland(t: Any) -> Any:
    """Wendland's C2 function (1 - t)^4 (4 t + 1) on [0, 1), 0 beyond: 1 at 0, compact support."""
    t = np.minimum(np.asarray(t, dtype=float), 1.0)
    return (1.0 - t) ** 4 * (4.0 * t + 1.0)


def compact_foxholes_value(p: Params) -> Any:
    t = compact_foxholes_tables()
    z = stack_numeric({**p, "k": np.asarray(p["k"], dtype=float) / FH_K_MAX}, (*FH_FLOATS, "k"))
    level = p["level"] - 1
    to_best, to_pull = np.sum((z - t["best"]) ** 2, axis=-1), np.sum((z - t["pull"]) ** 2, axis=-1)
    total = 1.0 + FH_BOWL * np.minimum(to_best, to_pull + FH_BOWL_FLOOR)
    total = total - FH_LEVEL_DEPTH[level] * wendland(np.sqrt(to_best) / FH_LEVEL_RADIUS[level])
    for c, r, w in zip(t["centre"], t["radius"], t["depth"]):
        total = total - w * wendland(np.linalg.norm(z - c, axis=-1) / r)
    return total


def compact_foxholes() -> StatedProblem:
    def level_best(level: int) -> tuple[dict[str, Any], float]:
        a = compact_foxholes_tables()["best"]
        point = {"level": level, "k": round(float(a[3]) * FH_K_MAX), **{n: float(v) for n, v in zip(FH_FLOATS, a)}}
        return point, 1.0 - FH_LEVEL_DEPTH[level - 1]

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = {"level": trial.suggest_int("level", 1, len(FH_LEVEL_DEPTH)), "k": trial.suggest_int("k", 0, FH_K_MAX)}
        return {**p, **suggest_floats(trial, FH_FLOATS, 0.0, 1.0)}

    return levels_with_bests(
        "compact_foxholes", "numeric", "level", range(1, len(FH_LEVEL_DEPTH) + 1), suggest, compact_foxholes_value,
        level_best,
        description=(
            "no categoricals: floats x1-x3 in [0, 1] and int k in [0, 16] (coordinate k / 16) under 1 + 0.25 min(|z - a|^2, |z - "
            "b|^2 + 0.04) - sum of Wendland C2 holes: 8 decoys (depth 0.35-0.6, radius 0.18-0.3, disjoint) and the best hole at "
            "a, whose radius and depth the int level (1-5) sets: 0.42-0.16 and 0.66-0.86; b is the deepest decoy"
        ),
        optimum_method=(
            "by construction: the holes' supports are disjoint, every term is >= 0 and the floor is 0 only at a (k on the "
            "lattice, inside the box), so level L's best is 1 - depth(L) at a; the best level by enumeration of 5"
        ),
        hardness=(
            "multimodal and deceptive: the broad floor pulls to the deepest decoy, the holes are flat outside their support and "
            "steep inside, and the deepest best hole (level 4) is the second narrowest (support radius 0.21, 1 % of the box; "
            "more than half deep on 0.01 %)"
        ),
    )


# --------------------------------------------------------------------------------------------
# qing_powers (floats and ints only): Qing's 2^4 symmetric minima, a tilt picks one; power sets the exponent
# --------------------------------------------------------------------------------------------

QP_FLOATS = ("x1", "x2", "x3")
QP_FLOAT_BOUNDS = (-2.5, 2.5)
QP_K_BOUNDS, QP_K_SCALE = (-6, 6), 0.5  # int k: the fourth coordinate is k / 2, its minima at +-2 (k = +-4)
QP_EXPONENTS = (0.5, 1.0, 1.5, 2.0)  # per int power 1-4: a cusp, a kink, smooth, Qing's square
QP_POWER_OFFSET = (0.05, 0.0, 0.025, 0.04)
QP_HEIGHT, QP_TILT = 0.8, 0.05  # Qing's part; the tilt: 0 at the favoured side's minimum, QP_TILT at the other's


@functools.cache
def qing_powers_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2713)
    return {"shift": np.append(rng.uniform(-0.4, 0.4, len(QP_FLOATS)), 0.0), "side": rng.choice([-1.0, 1.0], 4),
            "offset": np.array(QP_POWER_OFFSET) + rng.uniform(0.0, 0.015, len(QP_EXPONENTS))}


def qing_term(z: Any, i: int, exponent: float, side: float) -> Any:
    """Coordinate i's term (1-4): QP_HEIGHT log(1 + (|z^2 - i| / i)^exponent), Qing's (z_i^2 - i)^2
    at exponent 2 (Qing 2008, in Jamil & Yang's survey of test functions) scaled by i so that the
    barrier between its two minima is the same for every i and compressed by the logarithm, plus
    a tilt QP_TILT ((side z - sqrt i) / (2 sqrt i))^2: a bowl whose bottom is the favoured
    minimum, so that both parts are 0 there and the minimum stays at side sqrt i for every exponent."""
    z = np.asarray(z, dtype=float)
    root = math.sqrt(i)
    qing = np.log1p((np.abs(z**2 - i) / i) ** exponent)
    return QP_HEIGHT * qing + QP_TILT * ((side * z - root) / (2.0 * root)) ** 2


def qing_powers_value(p: Params) -> Any:
    t = qing_powers_tables()
    exponent = QP_EXPONENTS[p["power"] - 1]
    z = stack_numeric({**p, "k_coordinate": QP_K_SCALE * np.asarray(p["k"], dtype=float)}, (*QP_FLOATS, "k_coordinate"))
    z = z - t["shift"]
    total = sum(qing_term(z[..., i - 1], i, exponent, float(t["side"][i - 1])) for i in range(1, 5))
    return t["offset"][p["power"] - 1] + total / 4.0


def qing_argmin(i: int) -> float:
    """Coordinate i's minimiser (1-4) in the parameter's units, the same for every power: the
    favoured side's root plus the shift (for k, an integer: the shift is 0 and k = side 4)."""
    t = qing_powers_tables()
    z = float(t["side"][i - 1]) * math.sqrt(i) + float(t["shift"][i - 1])
    return z if i <= len(QP_FLOATS) else round(z / QP_K_SCALE)


def qing_powers() -> StatedProblem:
    def level_best(power: int) -> tuple[dict[str, Any], float]:
        point = {"power": power, "k": int(qing_argmin(4)), **{n: qing_argmin(i) for i, n in enumerate(QP_FLOATS, start=1)}}
        return point, float(qing_powers_tables()["offset"][power - 1])

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = {"power": trial.suggest_int("power", 1, len(QP_EXPONENTS)), "k": trial.suggest_int("k", *QP_K_BOUNDS)}
        return {**p, **suggest_floats(trial, QP_FLOATS, *QP_FLOAT_BOUNDS)}

    return levels_with_bests(
        "qing_powers", "numeric", "power", range(1, len(QP_EXPONENTS) + 1), suggest, qing_powers_value, level_best,
        description=(
            "no categoricals: floats x1-x3 in [-2.5, 2.5] and int k in [-6, 6] (coordinate k / 2), z = that minus a shift; "
            "offset + mean_i [0.8 log(1 + (|z_i^2 - i| / i)^e) + 0.05 ((t_i z_i - sqrt i) / (2 sqrt i))^2]: Qing's minima at "
            "z_i = +-sqrt i (2^4 of them, a barrier of 0.8 log 2 between each two), a bowl favouring the side t_i, the int "
            "power (1-4) setting e = 0.5, 1, 1.5 or 2"
        ),
        optimum_method=(
            "both parts of every term are >= 0 and 0 together only at z_i = t_i sqrt i (inside the box; k = 4 t_4 an integer), "
            "so a combination's best is its offset; the optimum by enumeration of the 4 powers"
        ),
        hardness=(
            "2^4 = 16 local minima per power (one per sign pattern), 0.0125 apart per wrong sign, the int's minima at k = +-4 of "
            "13 values; the exponent changes the minima from cusps (power 1) and kinks to smooth wells, and the best power (2) "
            "is a kink"
        ),
    )
