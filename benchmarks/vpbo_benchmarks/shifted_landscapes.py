"""Landscapes that categoricals move and reshape: ``rotated_griewank`` and ``decoy_funnel`` (a
rotation and stretch, a narrow well against broad decoys: family ``shifted``), ``lowrank_valley``
and ``hidden_pair`` (many levels whose offsets come from latent embeddings, or hide one
interaction: family ``many_levels``). Each is two categoricals over two floats
(:func:`~.landscape_parts.levels_over_a_plane`). The sets that hold them: :mod:`.held_out_sets`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from vpbo_benchmarks.landscape_parts import (
    levels_over_a_plane,
)
from vpbo_benchmarks.specs import Params, StatedProblem

# --------------------------------------------------------------------------------------------
# rotated_griewank (shifted): the categoricals rotate and stretch the numeric coordinates
# --------------------------------------------------------------------------------------------

RG_N_ANGLES = 6
RG_STRETCHES = (1.0, 1.6, 2.5, 4.0)  # along the first rotated axis, per level of "stretch"
RG_BOUNDS = (-10.0, 10.0)
RG_INPUT_SCALE = 3.0  # Griewank's ripples (period 2 pi / 3 per unit of x) over the box


@functools.cache
def rotated_griewank_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2101)
    return {
        "angle": np.arange(RG_N_ANGLES) * math.pi / RG_N_ANGLES + rng.uniform(0.0, math.pi / 12, RG_N_ANGLES),
        "centre": rng.uniform(-4.0, 4.0, 2),
        "shift_angle": rng.uniform(-2.0, 2.0, (RG_N_ANGLES, 2)),
        "shift_stretch": rng.uniform(-1.5, 1.5, (len(RG_STRETCHES), 2)),
        "offset_angle": rng.uniform(0.0, 1.5, RG_N_ANGLES),
        "offset_stretch": rng.uniform(0.0, 1.0, len(RG_STRETCHES)),
        "interaction": rng.uniform(0.0, 0.5, (RG_N_ANGLES, len(RG_STRETCHES))),
    }


def griewank_2d(w1: Any, w2: Any) -> Any:
    """Griewank in two dimensions: (w1^2 + w2^2) / 4000 - cos(w1) cos(w2 / sqrt 2) + 1; 0 only at 0."""
    return (w1**2 + w2**2) / 4000.0 - np.cos(w1) * np.cos(w2 / math.sqrt(2.0)) + 1.0


def rotated_griewank_argmin(angle: int, stretch: int) -> np.ndarray:
    t = rotated_griewank_tables()
    return t["centre"] + t["shift_angle"][angle] + t["shift_stretch"][stretch]


def rotated_griewank_offset(angle: int, stretch: int) -> float:
    t = rotated_griewank_tables()
    return float(t["offset_angle"][angle] + t["offset_stretch"][stretch] + t["interaction"][angle, stretch])


def rotated_griewank_value(p: Params) -> Any:
    angle, stretch = p["angle"], p["stretch"]
    theta = rotated_griewank_tables()["angle"][angle]
    centre = rotated_griewank_argmin(angle, stretch)
    d1, d2 = np.asarray(p["x1"]) - centre[0], np.asarray(p["x2"]) - centre[1]
    r1 = math.cos(theta) * d1 + math.sin(theta) * d2
    r2 = -math.sin(theta) * d1 + math.cos(theta) * d2
    w1 = RG_INPUT_SCALE * RG_STRETCHES[stretch] * r1
    w2 = RG_INPUT_SCALE * r2
    return griewank_2d(w1, w2) + rotated_griewank_offset(angle, stretch)


def rotated_griewank() -> StatedProblem:
    return levels_over_a_plane(
        "rotated_griewank", "shifted", ("angle", "stretch"), (RG_N_ANGLES, len(RG_STRETCHES)), (RG_BOUNDS, RG_BOUNDS),
        rotated_griewank_value, rotated_griewank_offset, rotated_griewank_argmin,
        description=(
            "Griewank (input x3) over 2 floats in [-10, 10]; categorical angle (6) rotates the coordinates, stretch (4) "
            "stretches one rotated axis 1-4x; both shift the optimum and add offsets with an interaction table"
        ),
        optimum_method=(
            "Griewank >= 0 with its only zero at 0, reached inside the bounds for every combination; the optimum is the smallest "
            "offset over the 24 combinations, by enumeration"
        ),
        hardness=(
            "the categoricals change the orientation and conditioning of a rippled surface, not only its position: "
            "per-combination lengthscales along non-axis directions"
        ),
    )


# --------------------------------------------------------------------------------------------
# decoy_funnel (shifted, narrow basin): a deep narrow well on a plateau against broad decoy bowls
# --------------------------------------------------------------------------------------------

DF_N_BASINS, DF_N_LENSES = 4, 5
DF_BOUNDS = (-1.0, 1.0)
DF_BASIN_WIDTH = (0.07, 0.45, 0.35, 0.6)  # basin 0 is the needle
DF_LENS_SCALE = (1.0, 0.8, 1.25, 0.9, 1.1)
DF_BASIN_FLOOR = (0.0, 0.35, 0.5, 0.7)
DF_BASIN_DEPTH = (0.9, 0.3, 0.3, 0.3)  # the needle is deep, the decoys shallow and broad
DF_SLOPE = 0.2  # a cone towards the centre: the only hint of the well from afar


@functools.cache
def decoy_funnel_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2107)
    return {
        "centre_basin": rng.uniform(-0.45, 0.45, (DF_N_BASINS, 2)),
        "centre_lens": rng.uniform(-0.25, 0.25, (DF_N_LENSES, 2)),
        "lens_floor": rng.uniform(0.0, 0.25, DF_N_LENSES),
    }


def decoy_funnel_centre(basin: int, lens: int) -> np.ndarray:
    t = decoy_funnel_tables()
    return t["centre_basin"][basin] + t["centre_lens"][lens]


def decoy_funnel_floor(basin: int, lens: int) -> float:
    return DF_BASIN_FLOOR[basin] + float(decoy_funnel_tables()["lens_floor"][lens])


def decoy_funnel_value(p: Params) -> Any:
    basin, lens = p["basin"], p["lens"]
    c = decoy_funnel_centre(basin, lens)
    width = DF_BASIN_WIDTH[basin] * DF_LENS_SCALE[lens]
    r2 = (np.asarray(p["x1"]) - c[0]) ** 2 + (np.asarray(p["x2"]) - c[1]) ** 2
    return (
        decoy_funnel_floor(basin, lens) + DF_BASIN_DEPTH[basin] * (1.0 - np.exp(-r2 / (2.0 * width**2))) + DF_SLOPE * np.sqrt(r2)
    )


def decoy_funnel() -> StatedProblem:
    return levels_over_a_plane(
        "decoy_funnel", "shifted", ("basin", "lens"), (DF_N_BASINS, DF_N_LENSES), (DF_BOUNDS, DF_BOUNDS), decoy_funnel_value,
        decoy_funnel_floor, decoy_funnel_centre,
        description=(
            "categoricals basin (4) and lens (5) over 2 floats in [-1, 1]: floor + D (1 - exp(-r^2 / 2 w^2)) + 0.2 r around a "
            "centre set by both; basin 0 has the lowest floor and a deep needle (D 0.9, w 0.06-0.09), the other basins shallow "
            "broad bowls (D 0.3, w 0.28-0.75)"
        ),
        optimum_method=(
            "both penalties are >= 0 and 0 at the centre, inside the bounds for every combination; the optimum is the smallest "
            "floor over the 20 combinations, by enumeration"
        ),
        hardness=(
            "narrow basin: the best combinations are a plateau near 1 but for a well of width ~0.07 (about 0.5 % of the box), "
            "worse on average than every decoy, while the decoy basin 1 gives 0.35-0.6 over a broad bowl"
        ),
    )


# --------------------------------------------------------------------------------------------
# lowrank_valley (many_levels): 24 x 12 levels whose offsets come from latent 2-D embeddings
# --------------------------------------------------------------------------------------------

LV_ROWS, LV_COLS = 24, 12
LV_BOUNDS = (-2.5, 2.5)
LV_HEIGHT = 0.005  # scale of the Rosenbrock valley
LV_DISTANCE_WEIGHT = 0.8


@functools.cache
def lowrank_valley_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2102)
    return {
        "row_embedding": rng.uniform(-1.0, 1.0, (LV_ROWS, 2)),
        "col_embedding": rng.uniform(-1.0, 1.0, (LV_COLS, 2)),
        "row_offset": rng.uniform(0.0, 0.3, LV_ROWS),
        "col_offset": rng.uniform(0.0, 0.3, LV_COLS),
    }


def lowrank_valley_offset(row: int, col: int) -> float:
    t = lowrank_valley_tables()
    gap = t["row_embedding"][row] - t["col_embedding"][col]
    return float(LV_DISTANCE_WEIGHT * gap @ gap + t["row_offset"][row] + t["col_offset"][col])


def lowrank_valley_argmin(row: int, col: int) -> np.ndarray:
    t = lowrank_valley_tables()
    return 0.6 * (t["row_embedding"][row] + t["col_embedding"][col])


def lowrank_valley_value(p: Params) -> Any:
    centre = lowrank_valley_argmin(p["row"], p["col"])
    # Rosenbrock written so that its minimum 0 is at z = 0: a = z1 + 1, b = z2 + 1.
    a = np.asarray(p["x1"]) - centre[0] + 1.0
    b = np.asarray(p["x2"]) - centre[1] + 1.0
    return LV_HEIGHT * (100.0 * (b - a**2) ** 2 + (1.0 - a) ** 2) + lowrank_valley_offset(p["row"], p["col"])


def lowrank_valley() -> StatedProblem:
    return levels_over_a_plane(
        "lowrank_valley", "many_levels", ("row", "col"), (LV_ROWS, LV_COLS), (LV_BOUNDS, LV_BOUNDS), lowrank_valley_value,
        lowrank_valley_offset, lowrank_valley_argmin,
        description=(
            "categoricals row (24 levels) and col (12); offset 0.8 |u_row - v_col|^2 + per-level terms from latent 2-D "
            "embeddings; a Rosenbrock valley over 2 floats in [-2.5, 2.5] centred at 0.6 (u_row + v_col)"
        ),
        optimum_method=(
            "the Rosenbrock term is >= 0 and 0 at its centre, inside the bounds for every combination; the optimum is the "
            "smallest offset over the 288 combinations, by enumeration"
        ),
        hardness=(
            "288 combinations whose good pairs are matched rows and columns (a low-rank interaction, neither additive nor "
            "random) and a curved valley in the numeric part"
        ),
    )


# --------------------------------------------------------------------------------------------
# hidden_pair (many_levels, trap): nearly additive 16 x 16 offsets with one hidden interaction
# --------------------------------------------------------------------------------------------

HP_LEVELS = 16
HP_BOUNDS = (-6.0, 6.0)
HP_HEIGHT = 0.01
HP_MARGIN = 0.3  # the hidden pair beats the best other combination by this much
HP_HIDDEN_RANK = 8  # the hidden pair's levels are the 8th best of their own marginals
HIMMELBLAU_ARGMIN = (3.0, 2.0)  # one of its four zeros


def himmelblau(x1: Any, x2: Any) -> Any:
    """Himmelblau: (x1^2 + x2 - 11)^2 + (x1 + x2^2 - 7)^2; four zeros, one at (3, 2)."""
    return (x1**2 + x2 - 11.0) ** 2 + (x1 + x2**2 - 7.0) ** 2


@functools.cache
def hidden_pair_tables() -> dict[str, Any]:
    rng = np.random.default_rng(2108)
    a, b = rng.uniform(0.0, 1.0, HP_LEVELS), rng.uniform(0.0, 1.0, HP_LEVELS)
    offsets = a[:, None] + b[None, :] + rng.uniform(0.0, 0.05, (HP_LEVELS, HP_LEVELS))
    hidden = (int(np.argsort(a)[HP_HIDDEN_RANK - 1]), int(np.argsort(b)[HP_HIDDEN_RANK - 1]))
    others = offsets.copy()
    others[hidden] = np.inf
    offsets[hidden] = others.min() - HP_MARGIN
    return {
        "offset": offsets,
        "hidden": hidden,
        "shift_p": rng.uniform(-0.6, 0.6, (HP_LEVELS, 2)),
        "shift_q": rng.uniform(-0.4, 0.4, (HP_LEVELS, 2)),
    }


def hidden_pair_shift(p_level: int, q_level: int) -> np.ndarray:
    t = hidden_pair_tables()
    return t["shift_p"][p_level] + t["shift_q"][q_level]


def hidden_pair_value(p: Params) -> Any:
    s = hidden_pair_shift(p["p"], p["q"])
    value = HP_HEIGHT * himmelblau(np.asarray(p["x1"]) - s[0], np.asarray(p["x2"]) - s[1])
    return value + hidden_pair_offset(p["p"], p["q"])


def hidden_pair_offset(p_level: int, q_level: int) -> float:
    return float(hidden_pair_tables()["offset"][p_level, q_level])


def hidden_pair_argmin(p_level: int, q_level: int) -> np.ndarray:
    return np.array(HIMMELBLAU_ARGMIN) + hidden_pair_shift(p_level, q_level)


def hidden_pair() -> StatedProblem:
    return levels_over_a_plane(
        "hidden_pair", "many_levels", ("p", "q"), (HP_LEVELS, HP_LEVELS), (HP_BOUNDS, HP_BOUNDS), hidden_pair_value,
        hidden_pair_offset, hidden_pair_argmin,
        description=(
            "categoricals p and q (16 levels each), offsets additive a_p + b_q (+ U(0, 0.05)) except one pair of mid-ranked "
            "levels 0.3 below every other combination; 0.01 Himmelblau (four zeros) over 2 floats in [-6, 6], shifted per level"
        ),
        optimum_method=(
            "Himmelblau is >= 0 and 0 at (3, 2) (+ shift), inside the bounds for every combination; the optimum is the smallest "
            "offset over the 256 combinations, by enumeration"
        ),
        hardness=(
            "trap: the marginal effects point to the additive best (0.3 worse); only the pair of two mediocre levels, 1 of 256, "
            "is optimal, and the numeric part has four equal minima"
        ),
    )
