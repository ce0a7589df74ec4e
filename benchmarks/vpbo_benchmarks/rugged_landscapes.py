"""Rugged landscapes, local minima on every scale: ``shubert_pairs`` (Shubert's products on pairs of
floats; three categoricals, four floats) and ``weierstrass_grain`` (Weierstrass's rough sums of
cosines; a categorical sets the roughness). Landscapes of a few basins:
:mod:`.multimodal_landscapes`. The sets that hold them: :mod:`.held_out_sets`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.landscape_parts import (
    additive_offsets,
    from_log_unit,
    levels_at_sites,
    levels_over_floats,
    log_unit,
    one_dimensional_minimum,
    site_offsets,
    stack_numeric,
    suggest_floats,
)
from vpbo_benchmarks.specs import Params, StatedProblem

# --------------------------------------------------------------------------------------------
# shubert_pairs: Shubert's products on two pairs of floats; pairing couples, window crops, sign flips
# --------------------------------------------------------------------------------------------

SP_FLOATS = ("x1", "x2", "x3", "x4")
SP_PAIRINGS = {"12-34": ((0, 1), (2, 3)), "13-24": ((0, 2), (1, 3)), "14-23": ((0, 3), (1, 2))}
SP_WINDOWS = {"wide": 3.0, "mid": 2.0, "narrow": 1.2}  # the span of z that [0, 1] maps to: under the period 2 pi
SP_SIGNS = {"plus": 1.0, "minus": -1.0}
SP_DOMAIN = (-10.0, 10.0)  # Shubert's usual domain: every window lies inside it
SP_HEIGHT = 0.5  # per pair: the pair's product from its least to its largest possible value


def shubert_term(z: Any) -> Any:
    """Shubert's one-dimensional factor sum_{j=1..5} j cos((j + 1) z + j) (period 2 pi; range
    [-12.8709, 14.5080]); Shubert's function is the product of two (Surjanovic & Bingham)."""
    z = np.asarray(z, dtype=float)
    return sum(j * np.cos((j + 1) * z + j) for j in range(1, 6))


@functools.cache
def shubert_range() -> tuple[float, float]:
    """(min, max) of the factor over one period."""
    return one_dimensional_minimum(shubert_term, 0.0, 2 * math.pi)[1], -one_dimensional_minimum(
        lambda z: -shubert_term(z), 0.0, 2 * math.pi)[1]


@functools.cache
def shubert_pairs_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2711)
    lows = np.array([rng.uniform(SP_DOMAIN[0], SP_DOMAIN[1] - span, len(SP_FLOATS)) for span in SP_WINDOWS.values()])
    shape = (len(SP_PAIRINGS), len(SP_WINDOWS), len(SP_SIGNS))
    offset = additive_offsets(rng, (0.12, 0.08, None), shape, 0.05, interaction_last=True)
    return {"low": lows, "offset": offset}


def _sp_index(p: Params) -> tuple[int, int, int]:
    return list(SP_PAIRINGS).index(p["pairing"]), list(SP_WINDOWS).index(p["window"]), list(SP_SIGNS).index(p["sign"])


def shubert_pairs_z(window: str, k: int, x: Any) -> Any:
    """Shubert's z of float k (0-3) at x in [0, 1] under ``window``."""
    w = list(SP_WINDOWS).index(window)
    return shubert_pairs_tables()["low"][w, k] + SP_WINDOWS[window] * np.asarray(x, dtype=float)


def shubert_pair_term(product: Any, sign: float) -> Any:
    """A pair's signed product mapped to [0, SP_HEIGHT]: 0 at the least possible value, -max^2."""
    top = shubert_range()[1] ** 2  # |g(a) g(b)| <= max^2: max > |min|
    return SP_HEIGHT * (sign * np.asarray(product) + top) / (2.0 * top)


def shubert_pairs_value(p: Params) -> Any:
    x = stack_numeric(p, SP_FLOATS)
    g = [shubert_term(shubert_pairs_z(p["window"], k, x[..., k])) for k in range(len(SP_FLOATS))]
    terms = sum(shubert_pair_term(g[a] * g[b], SP_SIGNS[p["sign"]]) for a, b in SP_PAIRINGS[p["pairing"]])
    return shubert_pairs_tables()["offset"][_sp_index(p)] + terms


@functools.cache
def shubert_window_extremes(window: str, k: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """((argmin, min), (argmax, max)) of float k's factor over [0, 1] under ``window``."""
    lowest = one_dimensional_minimum(lambda x: shubert_term(shubert_pairs_z(window, k, x)), 0.0, 1.0)
    x_top, negative_top = one_dimensional_minimum(lambda x: -shubert_term(shubert_pairs_z(window, k, x)), 0.0, 1.0)
    return lowest, (x_top, -negative_top)


def shubert_pair_best(window: str, sign: float, a: int, b: int) -> tuple[float, float, float]:
    """(least term, x_a, x_b) of the pair (a, b): the product of two factors is bilinear in the
    factors' values, which fill an interval each, so its least value is at a corner."""
    ea, eb = shubert_window_extremes(window, a), shubert_window_extremes(window, b)
    corners = [(float(shubert_pair_term(ga * gb, sign)), xa, xb) for xa, ga in ea for xb, gb in eb]
    return min(corners)


def shubert_pairs_best(c: Params) -> tuple[float, dict[str, float]]:
    """(a combination's best value, the floats where it is reached): its offset plus each pair's
    least term, at the pair's corner (:func:`shubert_pair_best`)."""
    value, point = float(shubert_pairs_tables()["offset"][_sp_index(c)]), dict[str, float]()
    for a, b in SP_PAIRINGS[c["pairing"]]:
        term, xa, xb = shubert_pair_best(c["window"], SP_SIGNS[c["sign"]], a, b)
        value, point = value + term, {**point, SP_FLOATS[a]: xa, SP_FLOATS[b]: xb}
    return value, point


def shubert_pairs() -> StatedProblem:
    return levels_over_floats(
        "shubert_pairs", "multimodal", ("pairing", "window", "sign"), [list(SP_PAIRINGS), list(SP_WINDOWS), list(SP_SIGNS)],
        dict.fromkeys(SP_FLOATS, (0.0, 1.0)), shubert_pairs_value, lambda c: shubert_pairs_best(c)[0],
        lambda c: [shubert_pairs_best(c)[1][n] for n in SP_FLOATS],
        description=(
            "offset + sum over two pairs (a, b) of 0.5 (s g(z_a) g(z_b) + G^2) / (2 G^2) over 4 floats in [0, 1]: g Shubert's "
            "factor sum_j j cos((j + 1) z + j), G its maximum 14.508; pairing (3) decides which floats multiply, window (3) "
            "maps [0, 1] onto a span of 3, 2 or 1.2 of z (a start per float in [-10, 10]), sign (2) is s = +1 or -1"
        ),
        optimum_method=(
            "a pair's product is bilinear in its two factors, so its least value over the box is at a corner of the factors' "
            "ranges; each float's least and largest factor by a 200 001-point grid and bounded Brent; a combination's best is "
            "its offset plus the two pairs' corners; the optimum by enumeration of the 18 combinations"
        ),
        hardness=(
            "multimodal and multiplicative: a pair is low only where both factors sit on their narrow extreme spikes (about 4 % "
            "of a float's range each), so about 1 % of local searches from random starts reach the optimum; the 6 best "
            "combinations share the wide window, and pairing and sign change which spikes must meet"
        ),
    )


# --------------------------------------------------------------------------------------------
# weierstrass_grain: Weierstrass's sums of cosines; grain sets the roughness, site the centre
# --------------------------------------------------------------------------------------------

WG_FLOATS = ("x1", "x2")
WG_RATE_BOUNDS = (1e-3, 1.0)  # the log float "rate": its coordinate is (log10 rate + 3) / 3 in [0, 1]
WG_GRAINS = {"fine": 0.35, "medium": 0.55, "coarse": 0.75}  # Weierstrass's a: the larger, the rougher
WG_GRAIN_OFFSET = (0.06, 0.0, 0.035)  # the medium grain is the best
WG_BASE, WG_N_TERMS = 3, 7  # Weierstrass's b (odd: 0 is the only minimum within 1 of the centre) and k_max + 1
WG_N_SITES = 4
WG_HEIGHT = 0.6  # the mean of the three coordinates' terms, each in [0, 1], times this


@functools.cache
def weierstrass_grain_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2712)
    offset = site_offsets(rng, WG_GRAIN_OFFSET, 0.08, 0.03, WG_N_SITES)
    return {"centre": rng.uniform(0.2, 0.8, (WG_N_SITES, 3)), "offset": offset}


def weierstrass_term(z: Any, a: float) -> Any:
    """Weierstrass's sum_k a^k cos(2 pi b^k (z + 1/2)) (k < WG_N_TERMS, b = 3; CEC 2005 F11,
    BBOB f16) shifted and scaled to [0, 1]: 0 exactly at integer z, above 0 elsewhere (b odd)."""
    z = np.asarray(z, dtype=float)
    weights = a ** np.arange(WG_N_TERMS)
    total = sum(w * (1.0 + np.cos(2 * math.pi * WG_BASE**k * (z + 0.5))) for k, w in enumerate(weights))
    return total / (2.0 * float(weights.sum()))


def weierstrass_grain_coordinates(p: Params) -> np.ndarray:
    """(x1, x2, (log10 rate + 3) / 3) stacked on a last axis, each in [0, 1]."""
    rate = log_unit(p["rate"], WG_RATE_BOUNDS[0])
    return stack_numeric({**p, "rate_coordinate": rate}, (*WG_FLOATS, "rate_coordinate"))


def weierstrass_grain_landscape(offset: float, z: np.ndarray, a: float) -> Any:
    """offset + WG_HEIGHT times the mean over the last axis of z's Weierstrass terms of roughness a."""
    return offset + WG_HEIGHT * np.mean(weierstrass_term(z, a), axis=-1)


def weierstrass_grain_point(centre: np.ndarray) -> dict[str, float]:
    """x1, x2 and the rate at a centre in the unit coordinates."""
    return {**{n: float(v) for n, v in zip(WG_FLOATS, centre)}, "rate": from_log_unit(float(centre[2]), WG_RATE_BOUNDS[0])}


def weierstrass_grain_suggest(trial: BaseTrial) -> dict[str, Any]:
    return {**suggest_floats(trial, WG_FLOATS, 0.0, 1.0), "rate": trial.suggest_float("rate", *WG_RATE_BOUNDS, log=True)}


def weierstrass_grain() -> StatedProblem:
    return levels_at_sites(
        "weierstrass_grain", "multimodal", "grain", WG_GRAINS, WG_N_SITES, weierstrass_grain_tables,
        weierstrass_grain_coordinates, weierstrass_grain_landscape, weierstrass_grain_point, weierstrass_grain_suggest,
        description=(
            "offset + 0.6 mean_i W_a(z_i - c_i) over z = (x1, x2, (log10 rate + 3) / 3) (floats in [0, 1], log float rate in "
            "[1e-3, 1]): W_a Weierstrass's sum_{k<7} a^k (1 + cos(2 pi 3^k (z + 1/2))) / (2 sum a^k), grain (3) sets a = 0.35, "
            "0.55 or 0.75, site (4) the centre c in [0.2, 0.8]^3"
        ),
        optimum_method=(
            "W_a is >= 0 and 0 only at integer z (b = 3 is odd: every cosine is -1 there and nowhere else at once), and |z| < 1 "
            "in the box, so a combination's best is its offset, at its centre; the optimum by enumeration of the 12"
        ),
        hardness=(
            "rough: every term has hundreds of local minima on [0, 1] (333, 669 and 729 for the fine, medium and coarse grain) "
            "whose depths vary on every scale down to 1/729, so a smooth model sees noise; the best grain is the medium one, "
            "and 2.4 % of a coordinate's range lies within 0.1 of its term's minimum"
        ),
    )
