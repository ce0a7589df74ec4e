"""The final held-out set, its multimodal landscapes: ``shubert_pairs`` (Shubert's
products; three categoricals, four floats), ``weierstrass_grain`` (Weierstrass's rough sums; a
categorical sets the roughness), ``qing_powers`` (Qing's symmetric minima; floats and ints only)
and ``parity_branches`` (an int's parity decides the branch: Dixon-Price's valley or
Goldstein-Price's basins). The set, its rule and its rule of use: :mod:`.final_held_out`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from optuna.trial import BaseTrial
from scipy.optimize import minimize_scalar

from vpbo_benchmarks.specs import FreshProblem, Params, product_combinations

GRID_POINTS = 200_001  # the grid of a one-dimensional minimum before bounded Brent polishes it


def stack_numeric(p: Params, names: Sequence[str]) -> np.ndarray:
    """The named numeric parameters broadcast together and stacked on a last axis."""
    return np.stack(np.broadcast_arrays(*(np.asarray(p[n], dtype=float) for n in names)), axis=-1)


def one_dimensional_minimum(f: Callable[[Any], Any], low: float, high: float) -> tuple[float, float]:
    """(argmin, min) of the vectorised f on [low, high]: a GRID_POINTS grid, then bounded Brent
    within one grid step of its best point (the grid's best kept if Brent does worse)."""
    grid = np.linspace(low, high, GRID_POINTS)
    values = f(grid)
    i = int(np.argmin(values))
    step = grid[1] - grid[0]
    result = minimize_scalar(lambda v: float(f(v)), bounds=(max(low, grid[i] - step), min(high, grid[i] + step)),
                             method="bounded", options={"xatol": 1e-13})
    if float(result.fun) < float(values[i]):
        return float(result.x), float(result.fun)
    return float(grid[i]), float(values[i])


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
    offset = (rng.uniform(0.0, 0.12, len(SP_PAIRINGS))[:, None, None] + rng.uniform(0.0, 0.08, len(SP_WINDOWS))[None, :, None]
              + rng.uniform(0.0, 0.05, (len(SP_PAIRINGS), len(SP_WINDOWS), len(SP_SIGNS))))
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


def shubert_pairs() -> FreshProblem:
    keys = ("pairing", "window", "sign")
    levels = [list(SP_PAIRINGS), list(SP_WINDOWS), list(SP_SIGNS)]
    combinations = functools.partial(product_combinations, keys, levels)

    def best_of(c: Params) -> tuple[float, dict[str, float]]:
        value, point = float(shubert_pairs_tables()["offset"][_sp_index(c)]), dict[str, float]()
        for a, b in SP_PAIRINGS[c["pairing"]]:
            term, xa, xb = shubert_pair_best(c["window"], SP_SIGNS[c["sign"]], a, b)
            value, point = value + term, {**point, SP_FLOATS[a]: xa, SP_FLOATS[b]: xb}
        return value, point

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=lambda q: best_of(q)[0])
        return {**c, **dict(sorted(best_of(c)[1].items()))}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = {k: trial.suggest_categorical(k, choices) for k, choices in zip(keys, levels)}
        return {**p, **{n: trial.suggest_float(n, 0.0, 1.0) for n in SP_FLOATS}}

    return FreshProblem(
        "shubert_pairs", "multimodal", suggest, shubert_pairs_value, keys, combinations, lambda c: best_of(c)[0], best_point,
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
    offset = np.array(WG_GRAIN_OFFSET)[:, None] + rng.uniform(0.0, 0.08, WG_N_SITES) + rng.uniform(0.0, 0.03, (3, WG_N_SITES))
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
    rate = (np.log10(np.asarray(p["rate"], dtype=float)) - math.log10(WG_RATE_BOUNDS[0])) / -math.log10(WG_RATE_BOUNDS[0])
    return stack_numeric({**p, "rate_coordinate": rate}, (*WG_FLOATS, "rate_coordinate"))


def weierstrass_grain_value(p: Params) -> Any:
    t = weierstrass_grain_tables()
    g, s = list(WG_GRAINS).index(p["grain"]), p["site"]
    z = weierstrass_grain_coordinates(p) - t["centre"][s]
    return t["offset"][g, s] + WG_HEIGHT * np.mean(weierstrass_term(z, WG_GRAINS[p["grain"]]), axis=-1)


def weierstrass_grain() -> FreshProblem:
    keys = ("grain", "site")
    combinations = functools.partial(product_combinations, keys, [list(WG_GRAINS), range(WG_N_SITES)])

    def best(c: Params) -> float:
        return float(weierstrass_grain_tables()["offset"][list(WG_GRAINS).index(c["grain"]), c["site"]])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        centre = weierstrass_grain_tables()["centre"][c["site"]]
        rate = 10.0 ** (math.log10(WG_RATE_BOUNDS[0]) * (1.0 - float(centre[2])))
        return {**c, **{n: float(v) for n, v in zip(WG_FLOATS, centre)}, "rate": rate}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p: dict[str, Any] = {"grain": trial.suggest_categorical("grain", list(WG_GRAINS)),
                             "site": trial.suggest_categorical("site", list(range(WG_N_SITES)))}
        p.update({n: trial.suggest_float(n, 0.0, 1.0) for n in WG_FLOATS})
        return {**p, "rate": trial.suggest_float("rate", *WG_RATE_BOUNDS, log=True)}

    return FreshProblem(
        "weierstrass_grain", "multimodal", suggest, weierstrass_grain_value, keys, combinations, best, best_point,
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


def qing_powers() -> FreshProblem:
    combinations = functools.partial(product_combinations, ("power",), [range(1, len(QP_EXPONENTS) + 1)])

    def best(c: Params) -> float:
        return float(qing_powers_tables()["offset"][c["power"] - 1])

    def best_point() -> dict[str, Any]:
        power = min(combinations(), key=best)["power"]
        return {"power": power, "k": int(qing_argmin(4)), **{n: qing_argmin(i) for i, n in enumerate(QP_FLOATS, start=1)}}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = {"power": trial.suggest_int("power", 1, len(QP_EXPONENTS)), "k": trial.suggest_int("k", *QP_K_BOUNDS)}
        return {**p, **{n: trial.suggest_float(n, *QP_FLOAT_BOUNDS) for n in QP_FLOATS}}

    return FreshProblem(
        "qing_powers", "numeric", suggest, qing_powers_value, ("power",), combinations, best, best_point,
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


# --------------------------------------------------------------------------------------------
# parity_branches (conditional, an int decides the branch): odd order Dixon-Price's valley, even Goldstein-Price
# --------------------------------------------------------------------------------------------

PB_ORDERS = (1, 8)
PB_BASE = (0.34, 0.26, 0.21, 0.17, 0.10, 0.12, 0.19, 0.23)  # per order 1-8
PB_VALLEY_FLOATS = ("v1", "v2", "v3", "v4")  # odd order n opens the first (n + 1) / 2
PB_VALLEY_BOUNDS = (-2.0, 2.0)
PB_SCHEMES = ("explicit", "implicit")
PB_SCHEME_OFFSET = (0.0, 0.035)
PB_STEP_BOUNDS = (1e-4, 1.0)  # even orders: a log float step (coordinate log10 step + 2) and a float damping
PB_VALLEY_WEIGHT, PB_BASIN_WEIGHT = 0.06, 0.05  # of log(1 + Dixon-Price) and of log(Goldstein-Price / 3)
GOLDSTEIN_PRICE_MIN = 3.0


@functools.cache
def parity_branches_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2714)
    return {"valley_shift": rng.uniform(-0.8, 0.8, (4, len(PB_VALLEY_FLOATS))),  # per odd order
            "basin_shift": rng.uniform(-0.5, 0.5, (4, len(PB_SCHEMES), 2))}  # per even order and scheme


def dixon_price(v: np.ndarray) -> Any:
    """Dixon-Price over the last axis: (v1 - 1)^2 + sum_{i>=2} i (2 v_i^2 - v_{i-1})^2 (Dixon &
    Price 1989; Surjanovic & Bingham); 0 at v_i = 2^(-(2^i - 2) / 2^i), the last one of either sign."""
    total = (v[..., 0] - 1.0) ** 2
    for i in range(1, v.shape[-1]):
        total = total + (i + 1) * (2.0 * v[..., i] ** 2 - v[..., i - 1]) ** 2
    return total


def dixon_price_argmin(n: int) -> np.ndarray:
    """Dixon-Price's minimiser in n dimensions with every coordinate positive."""
    return np.array([2.0 ** (-(2.0**i - 2.0) / 2.0**i) for i in range(1, n + 1)])


def goldstein_price(z1: Any, z2: Any) -> Any:
    """Goldstein-Price on [-2, 2]^2 (Goldstein & Price 1971; Surjanovic & Bingham): 3 at (0, -1),
    local minima 30, 84 and 840 elsewhere."""
    z1, z2 = np.asarray(z1, dtype=float), np.asarray(z2, dtype=float)
    a = 1.0 + (z1 + z2 + 1.0) ** 2 * (19.0 - 14.0 * z1 + 3.0 * z1**2 - 14.0 * z2 + 6.0 * z1 * z2 + 3.0 * z2**2)
    b = 30.0 + (2.0 * z1 - 3.0 * z2) ** 2 * (18.0 - 32.0 * z1 + 12.0 * z1**2 + 48.0 * z2 - 36.0 * z1 * z2 + 27.0 * z2**2)
    return a * b


def _pb_is_odd(order: int) -> bool:
    return order % 2 == 1


def parity_branches_value(p: Params) -> Any:
    t, order = parity_branches_tables(), p["order"]
    base = PB_BASE[order - 1]
    if _pb_is_odd(order):
        n = (order + 1) // 2
        v = stack_numeric(p, PB_VALLEY_FLOATS[:n]) - t["valley_shift"][order // 2, :n]
        return base + PB_VALLEY_WEIGHT * np.log1p(dixon_price(v))
    s = PB_SCHEMES.index(p["scheme"])
    shift = t["basin_shift"][order // 2 - 1, s]
    z1 = np.log10(np.asarray(p["step"], dtype=float)) + 2.0 - shift[0]
    z2 = 4.0 * np.asarray(p["damping"], dtype=float) - 2.0 - shift[1]
    return base + PB_SCHEME_OFFSET[s] + PB_BASIN_WEIGHT * np.log(goldstein_price(z1, z2) / GOLDSTEIN_PRICE_MIN)


def _parity_branches_suggest(trial: BaseTrial) -> dict[str, Any]:
    p: dict[str, Any] = {"order": trial.suggest_int("order", *PB_ORDERS)}
    if _pb_is_odd(p["order"]):
        return {**p, **{n: trial.suggest_float(n, *PB_VALLEY_BOUNDS) for n in PB_VALLEY_FLOATS[:(p["order"] + 1) // 2]}}
    p["scheme"] = trial.suggest_categorical("scheme", list(PB_SCHEMES))
    p["step"] = trial.suggest_float("step", *PB_STEP_BOUNDS, log=True)
    return {**p, "damping": trial.suggest_float("damping", 0.0, 1.0)}


def parity_branches() -> FreshProblem:
    orders = range(PB_ORDERS[0], PB_ORDERS[1] + 1)

    def combinations() -> list[dict[str, Any]]:
        return [{"order": o} for o in orders if _pb_is_odd(o)] + [
            {"order": o, "scheme": s} for o in orders if not _pb_is_odd(o) for s in PB_SCHEMES]

    def best(c: Params) -> float:
        return PB_BASE[c["order"] - 1] + (PB_SCHEME_OFFSET[PB_SCHEMES.index(c["scheme"])] if "scheme" in c else 0.0)

    def best_point_of(c: Params) -> dict[str, Any]:
        t, order = parity_branches_tables(), c["order"]
        if _pb_is_odd(order):
            n = (order + 1) // 2
            v = dixon_price_argmin(n) + t["valley_shift"][order // 2, :n]
            return {**c, **{name: float(x) for name, x in zip(PB_VALLEY_FLOATS, v)}}
        shift = t["basin_shift"][order // 2 - 1, PB_SCHEMES.index(c["scheme"])]
        return {**c, "step": float(10.0 ** (shift[0] - 2.0)), "damping": float((1.0 + shift[1]) / 4.0)}

    return FreshProblem(
        "parity_branches", "conditional_int", _parity_branches_suggest, parity_branches_value, ("order", "scheme"),
        combinations, best, lambda: best_point_of(min(combinations(), key=best)),
        description=(
            "int order 1-8 decides the branch by its parity: odd orders open (order + 1) / 2 floats v in [-2, 2] under 0.06 "
            "log(1 + Dixon-Price(v - shift)) (a curved valley whose dimension grows with the order); even orders open a "
            "categorical scheme (2), a log float step in [1e-4, 1] and a float damping in [0, 1] under 0.05 log(GP(z) / 3), GP "
            "Goldstein-Price at z = (log10 step + 2, 4 damping - 2) minus a shift per (order, scheme); plus a base per order "
            "(0.10 at order 5) and a scheme offset"
        ),
        optimum_method=(
            "both branch terms are >= 0 and 0 at a reachable point (Dixon-Price's minimiser plus the shift, inside [-2, 2]; "
            "Goldstein-Price's (0, -1) plus the shift, inside the box), so a leaf's best is its base (+ scheme offset); the "
            "optimum by enumeration of the 12 leaves"
        ),
        hardness=(
            "the parity, not a range, decides the branch, so neighbouring orders have different parameters; the best leaf "
            "(order 5) is a curved three-dimensional valley with two equal minima, the runner-up (order 6, 0.02 behind) an easy "
            "two-dimensional basin; the even leaves have Goldstein-Price's side minima, 0.115, 0.167 and 0.282 above the best"
        ),
        conditional=True,
    )
