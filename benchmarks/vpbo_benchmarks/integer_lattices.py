"""Integer spaces: ``tilted_lattice`` (a tilted quadratic on an integer lattice, a log int, per
categorical scheme) and two deterministic int-only cost models, ``tile_autotune`` (a roofline
model of a vectorised loop, 384 points) and ``flag_cliffs`` (compiler settings for one loop, 320
points), searched per level by enumeration (:func:`~.landscape_parts.ints_by_level`). The sets
that hold them: :mod:`.held_out_sets`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.landscape_parts import (
    ints_by_level,
    levels_with_bests,
)
from vpbo_benchmarks.specs import Params, StatedProblem

# --------------------------------------------------------------------------------------------
# tilted_lattice (int_log): a tilted ill-conditioned quadratic on an integer lattice, a log int
# with a non-power-of-two target and a rippled log float, per categorical scheme
# --------------------------------------------------------------------------------------------

TL_N_SCHEMES = 4
TL_K_BOUNDS = (0, 30)
TL_N_BOUNDS = (1, 4096)
TL_ALPHA_BOUNDS = (1e-6, 1.0)
TL_LATTICE_HEIGHT = 0.004
TL_EIGENVALUES = (1.0, 15.0)  # condition number 15 of the lattice quadratic
TL_N_WEIGHT = 0.15
TL_SEARCH_RADIUS = 6  # cells around the continuous minimiser searched for the integer one
TL_LOG2_N_TARGET = (6.3, 8.6, 4.45, 7.7)  # none an integer: the best n is not a power of two
TL_OFFSET = (0.35, 0.15, 0.0, 0.25)


@functools.cache
def tilted_lattice_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2103)
    angles = rng.uniform(0.0, math.pi, TL_N_SCHEMES)
    forms = []
    for theta in angles:
        rotation = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
        forms.append(rotation @ np.diag(TL_EIGENVALUES) @ rotation.T)
    return {
        "form": np.array(forms),
        "centre": rng.uniform(6.0, 24.0, (TL_N_SCHEMES, 2)),
        "log2_n_target": np.array(TL_LOG2_N_TARGET),
        "log10_alpha_target": rng.uniform(-5.0, -1.0, TL_N_SCHEMES),
        "offset": np.array(TL_OFFSET),
    }


def _lattice_term(scheme: int, k1: Any, k2: Any) -> Any:
    t = tilted_lattice_tables()
    a = t["form"][scheme]
    d1, d2 = np.asarray(k1, dtype=float) - t["centre"][scheme, 0], np.asarray(k2, dtype=float) - t["centre"][scheme, 1]
    return TL_LATTICE_HEIGHT * (a[0, 0] * d1**2 + 2.0 * a[0, 1] * d1 * d2 + a[1, 1] * d2**2)


def _n_term(scheme: int, n: Any) -> Any:
    return TL_N_WEIGHT * (np.log2(np.asarray(n, dtype=float)) - tilted_lattice_tables()["log2_n_target"][scheme]) ** 2


def _alpha_term(scheme: int, alpha: Any) -> Any:
    d = np.log10(np.asarray(alpha, dtype=float)) - tilted_lattice_tables()["log10_alpha_target"][scheme]
    return 0.04 * d**2 + 0.05 * (1.0 - np.cos(2.0 * math.pi * d))


def tilted_lattice_value(p: Params) -> Any:
    s = p["scheme"]
    return (
        _lattice_term(s, p["k1"], p["k2"]) + _n_term(s, p["n"]) + _alpha_term(s, p["alpha"])
        + tilted_lattice_tables()["offset"][s]
    )


@functools.cache
def tilted_lattice_best(scheme: int) -> tuple[dict[str, Any], float]:
    """(best point, best value) of a scheme: the integer (k1, k2) searched within
    TL_SEARCH_RADIUS cells of the continuous minimiser (the quadratic's centre), n among the two
    integers around 2^target (the term is monotone in log2 n on either side), alpha at its target."""
    t = tilted_lattice_tables()
    c = np.round(t["centre"][scheme]).astype(int)
    ks = [
        (k1, k2)
        for k1 in range(max(TL_K_BOUNDS[0], c[0] - TL_SEARCH_RADIUS), min(TL_K_BOUNDS[1], c[0] + TL_SEARCH_RADIUS) + 1)
        for k2 in range(max(TL_K_BOUNDS[0], c[1] - TL_SEARCH_RADIUS), min(TL_K_BOUNDS[1], c[1] + TL_SEARCH_RADIUS) + 1)
    ]
    k1, k2 = min(ks, key=lambda k: float(_lattice_term(scheme, *k)))
    target = 2.0 ** t["log2_n_target"][scheme]
    n = min((math.floor(target), math.ceil(target)), key=lambda v: float(_n_term(scheme, v)))
    point = {"scheme": scheme, "k1": int(k1), "k2": int(k2), "n": int(n), "alpha": float(10.0 ** t["log10_alpha_target"][scheme])}
    return point, float(tilted_lattice_value(point))


def _tilted_lattice_suggest(trial: BaseTrial) -> dict[str, Any]:
    return {
        "scheme": trial.suggest_categorical("scheme", list(range(TL_N_SCHEMES))),
        "k1": trial.suggest_int("k1", *TL_K_BOUNDS),
        "k2": trial.suggest_int("k2", *TL_K_BOUNDS),
        "n": trial.suggest_int("n", *TL_N_BOUNDS, log=True),
        "alpha": trial.suggest_float("alpha", *TL_ALPHA_BOUNDS, log=True),
    }


def tilted_lattice() -> StatedProblem:
    return levels_with_bests(
        "tilted_lattice", "int_log", "scheme", range(TL_N_SCHEMES), _tilted_lattice_suggest, tilted_lattice_value,
        tilted_lattice_best,
        description=(
            "scheme categorical (4); ints k1, k2 in [0, 30] under a tilted quadratic of condition number 15 centred off the "
            "lattice; log int n in [1, 4096] with a target 2^t, t not an integer; log float alpha in [1e-6, 1] with a cosine "
            "ripple in log10"
        ),
        optimum_method=(
            "per scheme: (k1, k2) by search within 6 cells of the quadratic's centre, n among floor/ceil of 2^t, alpha at its "
            "target (the ripple and the quadratic are both 0 there); then the best scheme"
        ),
        hardness=(
            "the integer optimum of a tilted ill-conditioned quadratic is not the rounded continuous one; n must be found on a "
            "log-int axis between two powers of two"
        ),
    )


# --------------------------------------------------------------------------------------------
# tile_autotune (int-only, deterministic): a roofline cost model of a vectorised loop, 384 points
# --------------------------------------------------------------------------------------------

TA_TILE, TA_UNROLL, TA_VECTOR = (1, 16), (1, 6), (0, 3)  # vector: log2 of the SIMD width
TA_N = 1000  # elements per row: not a power of two, so the tile size pads
TA_CLOCK = (1.0, 1.0, 1.0, 0.40)  # relative clock per width: the widest units run slower
TA_REGISTERS, TA_MAX_BLOCKS = 320, 8


def tile_autotune_value(p: Params) -> Any:
    """Time of one row: max(compute, memory) plus loop overhead, over the square root of the
    occupancy that the registers leave; the work is padded to a whole number of tiles."""
    tile, unroll, vector = (np.asarray(p[k], dtype=np.int64) for k in ("tile", "unroll", "vector"))
    width = 2**vector
    chunk = tile * width
    chunks = -(-TA_N // chunk)  # ceil
    padded = chunks * chunk
    registers = 20 + unroll * (width + 6) + 2 * tile
    occupancy = np.minimum(TA_MAX_BLOCKS, TA_REGISTERS // registers) / TA_MAX_BLOCKS
    compute = padded / (width * np.asarray(TA_CLOCK)[vector]) / 400.0
    memory = padded / (1.0 + np.minimum(chunk, 24) / 4.0) / 300.0
    loop = chunks * (-(-tile // unroll) * 0.12 + (tile % unroll) * 0.05 + 0.1) / 60.0
    return (np.maximum(compute, memory) + loop) / np.sqrt(occupancy)


def tile_autotune() -> StatedProblem:
    return ints_by_level(
        "tile_autotune", "int_only", {"tile": TA_TILE, "unroll": TA_UNROLL, "vector": TA_VECTOR}, "vector",
        tile_autotune_value,
        description=(
            "ints only: tile 1-16, unroll 1-6, vector 0-3 (SIMD width 2^vector), 384 points; a deterministic roofline time of a "
            "1000-element row: max(compute, memory) + loop overhead over sqrt(occupancy), padded to whole tiles, registers 20 + "
            "unroll (width + 6) + 2 tile out of 320, the widest units at 0.4 clock"
        ),
        optimum_method="bounded enumeration of the 96 (tile, unroll) per vector level; the optimum is the best of the 4 levels",
        hardness=(
            "deterministic and jagged (padding to whole tiles, integer occupancy steps, remainder iterations): 9 strict local "
            "minima, two widths within 0.012, and the two best points 0.0014 apart; a repeated point teaches nothing"
        ),
    )


# --------------------------------------------------------------------------------------------
# flag_cliffs (int-only, deterministic): a cost model of compiler settings for one loop, 320 points
# --------------------------------------------------------------------------------------------

FC_OPT, FC_INLINE, FC_UNROLL, FC_VECTORIZE = (0, 3), (0, 4), (1, 8), (0, 1)
FC_NAMES = ("opt", "inline", "unroll", "vectorize")
FC_N = 1000  # loop iterations: not a multiple of most unroll x width products, so a scalar remainder runs
FC_SPEED = (1.0, 1.8, 2.2, 2.5)  # per opt level: how much faster its scalar code is than -O0's
FC_GROWTH = (1.0, 1.0, 1.1, 1.35)  # per opt level: code growth (-O3's own unrolling and cloning)
FC_LOOP = (3.0, 1.5, 1.2, 1.2)  # per opt level: cycles of loop control per body iteration
FC_COMPUTE, FC_CALL, FC_CHAIN = 6.0, 2.5, 3  # cycles per element at -O0; per call; calls per element before inlining
FC_BOUNDS = 0.4  # cycles per element of a bounds check that only inlining deeper than the chain (4) hoists
FC_ALIAS = 1.0  # cycles per body iteration of the run-time alias check when the flag is on but the loop stays scalar
FC_WIDTH, FC_REGISTERS, FC_LIVE, FC_SPILL = 4, 16, 4, 1.1  # SIMD lanes; registers; live at least; cycles per spill
FC_BODY, FC_INLINE_GROWTH, FC_FETCH = 24.0, 0.45, 256.0  # bytes per element; growth per inlined level; bytes per cycle
FC_ICACHE, FC_MISS = 512.0, 0.4  # bytes of instruction cache for the loop; the body's slowdown past it


def flag_cliffs_value(p: Params) -> Any:
    """Cycles per element over FC_COMPUTE: the unrolled body (vectorised at -O2 or more with the
    flag on and every call inlined: a call in the loop blocks vectorisation), its bounds checks,
    calls, loop control, spills and fetch, an instruction-cache cliff, and the scalar remainder."""
    opt, inline, unroll, vectorize = (np.asarray(p[k], dtype=np.int64) for k in FC_NAMES)
    speed, loop, growth = (np.asarray(table)[opt] for table in (FC_SPEED, FC_LOOP, FC_GROWTH))
    calls = np.maximum(0, FC_CHAIN - inline)
    width = np.where((vectorize == 1) & (opt >= 2) & (calls == 0), FC_WIDTH, 1)
    lanes = unroll * width
    live = FC_LIVE + unroll * np.where(width > 1, 2, 1) + inline
    size = FC_BODY * unroll * (1.0 + FC_INLINE_GROWTH * inline) * np.where(width > 1, 1.5, 1.0) * growth
    element = FC_COMPUTE / speed + np.where(inline > FC_CHAIN, 0.0, FC_BOUNDS)
    body = element * unroll + FC_CALL * calls * lanes + loop + FC_SPILL * np.maximum(0, live - FC_REGISTERS) + size / FC_FETCH
    body = (body + np.where((vectorize == 1) & (width == 1), FC_ALIAS, 0.0)) * np.where(size > FC_ICACHE, 1.0 + FC_MISS, 1.0)
    remainder = FC_N % lanes
    scalar = FC_COMPUTE / speed + FC_BOUNDS + FC_CALL * calls
    return ((FC_N - remainder) // lanes * body + remainder * scalar) / (FC_N * FC_COMPUTE)


def flag_cliffs() -> StatedProblem:
    return ints_by_level(
        "flag_cliffs", "int_only", dict(zip(FC_NAMES, (FC_OPT, FC_INLINE, FC_UNROLL, FC_VECTORIZE))), "opt", flag_cliffs_value,
        description=(
            "ints only: opt 0-3, inline 0-4, unroll 1-8, vectorize 0-1 (320 points); cycles per element of a 1000-iteration "
            "loop over -O0's: the unrolled body, vectorised 4 wide only at opt >= 2 with the flag on and the whole call chain "
            "(3) inlined, plus calls, bounds checks (hoisted only at inline 4), loop control, register spills past 16, fetch, "
            "a 40 % slowdown past a 512-byte instruction cache, and the scalar remainder"
        ),
        optimum_method=(
            "bounded enumeration of the 80 (inline, unroll, vectorize) per opt level; the optimum is the best of the 4"
        ),
        hardness=(
            "deterministic, jagged and cliffed: vectorising needs three settings at once (opt >= 2, the flag, full inlining), "
            "the code-size cliff stops -O3's unroll at 3 and -O2's at 4, the two levels' bests 0.007 apart; strict local minima "
            "along the axes; a repeated point teaches nothing, and the flag is inert at opt 0-1 but for its alias check"
        ),
    )
