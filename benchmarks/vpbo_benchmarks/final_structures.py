"""The final held-out set, its structured problems: ``vessel_hierarchy`` (hierarchical
engineering: pressure-vessel design, with stepped plate thicknesses), ``flag_cliffs`` (a
deterministic int-only space of 320 compiler settings), ``skewed_salomon`` (Salomon's rings
under skewed noise) and ``capped_easom`` (Easom's needle under a cap: a plateau). The set, its
rule and its rule of use: :mod:`.final_held_out`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial
from scipy.optimize import minimize_scalar

from vpbo_benchmarks.specs import FreshProblem, Params, product_combinations

# --------------------------------------------------------------------------------------------
# vessel_hierarchy (hierarchical engineering): a cylindrical pressure vessel; material -> cladding, head type
# --------------------------------------------------------------------------------------------

# Sandgren's pressure vessel (J. Mech. Des. 1990; Kannan & Kramer 1994): cost 0.6224 Ts R L +
# 1.7781 Th R^2 + 3.1661 Ts^2 L + 19.84 Ts^2 R, Ts >= 0.0193 R, Th >= 0.00954 R, volume
# pi R^2 L + 4/3 pi R^3 >= 1 296 000 in^3, thicknesses in steps of 1/16 in. Here the material
# scales the material, welding and thickness terms, and the head type the head's terms.
PV_SHELL_COST, PV_HEAD_COST, PV_WELD_LENGTH, PV_WELD_RADIUS = 0.6224, 1.7781, 3.1661, 19.84
PV_SHELL_RATIO, PV_HEAD_RATIO = 0.0193, 0.00954  # required thickness / radius (hemispherical head), in
PV_VOLUME = 1_296_000.0  # in^3 (750 ft^3)
PV_STEP = 0.0625  # plate thickness steps, in
PV_THICKNESS, PV_RADIUS, PV_LENGTH = (PV_STEP, 2.5), (10.0, 120.0), (10.0, 240.0)
# (price factor of the plates, allowable stress relative to carbon steel, welding cost factor)
PV_MATERIALS = {
    "carbon": (1.0, 1.0, 1.0), "stainless": (2.2, 1.6, 1.4),
    "clad_thin": (1.3, 1.15, 1.6), "clad_thick": (1.3, 1.35, 1.7),
}
# (head thickness relative to a hemispherical head's, head volume / (pi R^3) for both heads,
# head plate area relative to two hemispheres', forming cost $): ASME's thickness formulae for
# 2:1 ellipsoidal and torispherical (flanged and dished) heads, their volumes and areas
PV_HEADS = {
    "hemispherical": (1.0, 4.0 / 3.0, 1.0, 1300.0), "ellipsoidal": (2.0, 2.0 / 3.0, 0.69, 350.0),
    "torispherical": (3.5, 0.41, 0.59, 0.0),
}
PV_SCALE = 10_000.0  # the score is the cost in $10 000 ...
PV_PENALTY = 20.0  # ... plus this times the relative violations: above every Lagrange multiplier here


def _pv_factors(p: Params) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
    material = p["material"] if p["material"] != "clad" else f"clad_{p['cladding']}"
    return PV_MATERIALS[material], PV_HEADS[p["head"]]


def vessel_requirements(p: Params, radius: Any) -> tuple[Any, Any]:
    """(shell, head) thickness the stresses require at ``radius``, in."""
    (_, stress, _), (head_ratio, _, _, _) = _pv_factors(p)
    r = np.asarray(radius, dtype=float)
    return PV_SHELL_RATIO * r / stress, PV_HEAD_RATIO * head_ratio * r / stress


def vessel_cost(p: Params) -> Any:
    """The vessel's cost in $, without penalties."""
    (price, _, weld), (_, _, area, forming) = _pv_factors(p)
    ts, th = np.asarray(p["shell_thickness"], dtype=float), np.asarray(p["head_thickness"], dtype=float)
    r, length = np.asarray(p["radius"], dtype=float), np.asarray(p["length"], dtype=float)
    plates = price * (PV_SHELL_COST * ts * r * length + PV_HEAD_COST * area * th * r**2)
    return plates + weld * (PV_WELD_LENGTH * ts**2 * length + PV_WELD_RADIUS * ts**2 * r) + forming


def vessel_volume(p: Params, radius: Any, length: Any) -> Any:
    _, (_, head_volume, _, _) = _pv_factors(p)
    r = np.asarray(radius, dtype=float)
    return math.pi * r**2 * np.asarray(length, dtype=float) + head_volume * math.pi * r**3


def vessel_hierarchy_value(p: Params) -> Any:
    shell, head = vessel_requirements(p, p["radius"])
    violation = np.maximum(0.0, 1.0 - np.asarray(p["shell_thickness"], dtype=float) / shell)
    violation = violation + np.maximum(0.0, 1.0 - np.asarray(p["head_thickness"], dtype=float) / head)
    violation = violation + np.maximum(0.0, 1.0 - vessel_volume(p, p["radius"], p["length"]) / PV_VOLUME)
    return vessel_cost(p) / PV_SCALE + PV_PENALTY * violation


def _steps_up(thickness: Any) -> Any:
    """The least plate thickness (a whole number of steps) >= ``thickness``; 1e-9 forgives round-off."""
    return np.ceil(np.asarray(thickness, dtype=float) / PV_STEP - 1e-9) * PV_STEP


def vessel_design_at(c: Params, radius: Any) -> dict[str, Any]:
    """The cheapest feasible design of leaf ``c`` at ``radius``: cost grows with each thickness and
    with the length, so each is the least that meets its requirement."""
    shell, head = vessel_requirements(c, radius)
    r = np.asarray(radius, dtype=float)
    length = np.maximum(PV_LENGTH[0], (PV_VOLUME - vessel_volume(c, r, 0.0)) / (math.pi * r**2))
    return {**c, "shell_thickness": _steps_up(shell), "head_thickness": _steps_up(head), "radius": r, "length": length}


def vessel_radius_range(c: Params) -> tuple[float, float]:
    """The radii at which the cheapest design is inside the bounds: the length <= 240 in from below,
    both thicknesses <= 2.5 in from above."""
    low = minimize_scalar(lambda r: (vessel_volume(c, r, PV_LENGTH[1]) - PV_VOLUME) ** 2, bounds=PV_RADIUS, method="bounded",
                          options={"xatol": 1e-12}).x
    shell, head = vessel_requirements(c, 1.0)
    return float(low) + 1e-9, min(PV_RADIUS[1], PV_THICKNESS[1] / float(shell), PV_THICKNESS[1] / float(head))


@functools.cache
def vessel_leaf_best(c_items: tuple[tuple[str, str], ...]) -> tuple[dict[str, Any], float]:
    """(the best design, its score) of a leaf: the cheapest design is a function of the radius,
    smooth between the radii where a thickness steps up; on a 40 001-point grid of radii plus
    each piece's ends, then bounded Brent within the best point's piece."""
    c = dict(c_items)
    low, high = vessel_radius_range(c)
    shell, head = vessel_requirements(c, 1.0)
    steps = np.arange(1, round(PV_THICKNESS[1] / PV_STEP) + 1) * PV_STEP
    ends = np.concatenate([steps / float(shell), steps / float(head)])
    ends = np.unique(np.clip(np.concatenate([ends, [low, high]]), low, high))
    radii = np.unique(np.concatenate([np.linspace(low, high, 40_001), ends]))

    def score(r: Any) -> Any:
        return vessel_hierarchy_value(vessel_design_at(c, r))

    values = score(radii)
    r0 = float(radii[np.argmin(values)])
    below, above = ends[ends <= r0], ends[ends > r0]
    piece = (float(below.max()) if below.size else low, float(above.min()) if above.size else high)
    polished = minimize_scalar(lambda r: float(score(r)), bounds=piece, method="bounded", options={"xatol": 1e-12})
    r_best = float(polished.x) if float(polished.fun) < float(values.min()) else r0
    design = {k: (float(v) if isinstance(v, np.ndarray | float) else v) for k, v in vessel_design_at(c, r_best).items()}
    return design, float(vessel_hierarchy_value(design))


def _vessel_suggest(trial: BaseTrial) -> dict[str, Any]:
    p: dict[str, Any] = {"material": trial.suggest_categorical("material", ["carbon", "stainless", "clad"])}
    if p["material"] == "clad":
        p["cladding"] = trial.suggest_categorical("cladding", ["thin", "thick"])
    p["head"] = trial.suggest_categorical("head", list(PV_HEADS))
    for name in ("shell_thickness", "head_thickness"):
        p[name] = trial.suggest_float(name, *PV_THICKNESS, step=PV_STEP)
    return {**p, "radius": trial.suggest_float("radius", *PV_RADIUS), "length": trial.suggest_float("length", *PV_LENGTH)}


def vessel_hierarchy() -> FreshProblem:
    def combinations() -> list[dict[str, Any]]:
        materials: list[dict[str, Any]] = [{"material": "carbon"}, {"material": "stainless"}]
        materials += [{"material": "clad", "cladding": k} for k in ("thin", "thick")]
        return [{**m, "head": h} for m in materials for h in PV_HEADS]

    def best(c: Params) -> float:
        return vessel_leaf_best(tuple(sorted(c.items())))[1]

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        return dict(vessel_leaf_best(tuple(sorted(c.items())))[0])

    return FreshProblem(
        "vessel_hierarchy", "hierarchical", _vessel_suggest, vessel_hierarchy_value, ("material", "cladding", "head"),
        combinations, best, best_point,
        description=(
            "Sandgren's pressure vessel: material (carbon, stainless, clad; clad opens cladding (2)) and head (hemispherical, "
            "ellipsoidal, torispherical) scale the plate, welding and forming costs, the allowable stress and the heads' "
            "thickness and volume; stepped floats shell and head thickness (1/16 to 2.5 in, steps of 1/16), floats radius "
            "[10, 120] and length [10, 240] in; score cost / $10 000 + 20 x the relative violations of the two thickness "
            "requirements and of the volume (750 ft^3)"
        ),
        optimum_method=(
            "the cost grows with each thickness and with the length, so a leaf's best design has each at the least value that "
            "meets its requirement, a function of the radius, smooth between the radii where a thickness steps up: a 40 001-"
            "point grid of radii with every piece's ends, polished by bounded Brent in the best piece; the exact penalty's "
            "weight is above the multipliers; the optimum by enumeration of the 12 leaves"
        ),
        hardness=(
            "hierarchical (cladding under clad) with stepped floats: every leaf's optimum is a kink where a thickness "
            "requirement is met exactly and the volume is exact, under a steep penalty (17 % of random designs are feasible); "
            "the best (clad thick, hemispherical heads) leads carbon steel by 0.012 and four leaves lie within 0.042"
        ),
        conditional=True,
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


@functools.cache
def flag_cliffs_table() -> dict[int, tuple[dict[str, int], float]]:
    """Per opt level: (the best point, its value), by enumeration of the 80 (inline, unroll, vectorize)."""
    table = {}
    for o in range(FC_OPT[0], FC_OPT[1] + 1):
        points = [{"opt": o, "inline": i, "unroll": u, "vectorize": v} for i in range(FC_INLINE[0], FC_INLINE[1] + 1)
                  for u in range(FC_UNROLL[0], FC_UNROLL[1] + 1) for v in range(FC_VECTORIZE[0], FC_VECTORIZE[1] + 1)]
        best = min(points, key=lambda q: float(flag_cliffs_value(q)))
        table[o] = (best, float(flag_cliffs_value(best)))
    return table


def flag_cliffs() -> FreshProblem:
    combinations = functools.partial(product_combinations, ("opt",), [range(FC_OPT[0], FC_OPT[1] + 1)])

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        bounds = dict(zip(FC_NAMES, (FC_OPT, FC_INLINE, FC_UNROLL, FC_VECTORIZE)))
        return {k: trial.suggest_int(k, *b) for k, b in bounds.items()}

    return FreshProblem(
        "flag_cliffs", "int_only", suggest, flag_cliffs_value, ("opt",), combinations,
        lambda c: flag_cliffs_table()[c["opt"]][1],
        lambda: dict(min(flag_cliffs_table().values(), key=lambda pv: pv[1])[0]),
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


# --------------------------------------------------------------------------------------------
# skewed_salomon (noisy): Salomon's rings; the noise is skewed (a centred gamma) and grows with the rate
# --------------------------------------------------------------------------------------------

SS_ARCHS, SS_NORMS = ("narrow", "wide", "deep"), ("batch", "layer")
SS_RATE, SS_MOMENTUM, SS_DROPOUT = (1e-5, 1.0), (0.0, 0.99), (0.0, 0.6)
SS_SCALE = (1.2, 0.3, 0.2)  # z = ((log10 rate, momentum, dropout) - target) / scale
SS_HEIGHT = 0.3  # times Salomon: the first ring of minima 0.03 above the centre, the second 0.06
SS_NOISE_SD_AT, SS_NOISE_RATE, SS_NOISE_POWER = 0.05, 1e-2, 0.25  # sd 0.05 (rate / 1e-2)^0.25
SS_GAMMA_SHAPE = 2.0  # the noise is (Gamma(2) - 2) / sqrt 2 times the sd: mean 0, skewness sqrt 2, >= -sqrt 2 sd


@functools.cache
def skewed_salomon_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2717)
    offset = np.array([0.03, 0.0, 0.05])[:, None] + np.array([0.0, 0.02]) + rng.uniform(0.0, 0.015, (3, 2))
    return {"rate": rng.uniform(-3.5, -1.5, 3), "momentum": rng.uniform(0.5, 0.95, 2),  # per arch; per norm
            "dropout": rng.uniform(0.1, 0.4, 3), "offset": offset}  # per arch; per (arch, norm)


def salomon(r: Any) -> Any:
    """Salomon's function of the norm r = |z|: 1 - cos(2 pi r) + 0.1 r (Salomon 1996, in Jamil &
    Yang's survey); 0 only at r = 0, rings of local minima near r = 1, 2, ..."""
    r = np.asarray(r, dtype=float)
    return 1.0 - np.cos(2.0 * math.pi * r) + 0.1 * r


def skewed_salomon_target(arch: str, norm: str) -> tuple[float, float, float]:
    """(rate, momentum, dropout) at the combination's centre."""
    t = skewed_salomon_tables()
    a = SS_ARCHS.index(arch)
    return float(10.0 ** t["rate"][a]), float(t["momentum"][SS_NORMS.index(norm)]), float(t["dropout"][a])


def skewed_salomon_value(p: Params) -> Any:
    t = skewed_salomon_tables()
    a, n = SS_ARCHS.index(p["arch"]), SS_NORMS.index(p["norm"])
    z1 = (np.log10(np.asarray(p["rate"], dtype=float)) - t["rate"][a]) / SS_SCALE[0]
    z2 = (np.asarray(p["momentum"], dtype=float) - t["momentum"][n]) / SS_SCALE[1]
    z3 = (np.asarray(p["dropout"], dtype=float) - t["dropout"][a]) / SS_SCALE[2]
    return t["offset"][a, n] + SS_HEIGHT * salomon(np.sqrt(z1**2 + z2**2 + z3**2))


def skewed_salomon_noise_sd(p: Params) -> Any:
    return SS_NOISE_SD_AT * (np.asarray(p["rate"], dtype=float) / SS_NOISE_RATE) ** SS_NOISE_POWER


def skewed_salomon() -> FreshProblem:
    keys = ("arch", "norm")
    combinations = functools.partial(product_combinations, keys, [SS_ARCHS, SS_NORMS])

    def best(c: Params) -> float:
        return float(skewed_salomon_tables()["offset"][SS_ARCHS.index(c["arch"]), SS_NORMS.index(c["norm"])])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        return {**c, **dict(zip(("rate", "momentum", "dropout"), skewed_salomon_target(c["arch"], c["norm"])))}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p: dict[str, Any] = {"arch": trial.suggest_categorical("arch", list(SS_ARCHS)),
                             "norm": trial.suggest_categorical("norm", list(SS_NORMS))}
        p["rate"] = trial.suggest_float("rate", *SS_RATE, log=True)
        p["momentum"] = trial.suggest_float("momentum", *SS_MOMENTUM)
        return {**p, "dropout": trial.suggest_float("dropout", *SS_DROPOUT)}

    return FreshProblem(
        "skewed_salomon", "noisy", suggest, skewed_salomon_value, keys, combinations, best, best_point,
        description=(
            "arch (3) and norm (2) offsets + 0.3 Salomon(|z|), z = ((log10 rate - r_arch) / 1.2, (momentum - m_norm) / 0.3, "
            "(dropout - d_arch) / 0.2) (log float rate in [1e-5, 1], momentum in [0, 0.99], dropout in [0, 0.6]); observed with "
            "centred gamma noise (shape 2: skewed upwards) of sd 0.05 (rate / 1e-2)^0.25, 0.16 at rate 1"
        ),
        optimum_method=(
            "Salomon's function is >= 0 and 0 only at the centre (inside the box), so a combination's best is its offset; the "
            "optimum by enumeration of the 6 combinations"
        ),
        hardness=(
            "multimodal and noisy: Salomon's rings of local minima 0.03, 0.06, ... above the centre (0.14 % of the best "
            "combination's box within 0.03 of its best); the noise at the best point (sd 0.024) exceeds the gap to the second "
            "combination (0.02), is bounded below by -1.41 sd and has a long upper tail, and grows with the rate"
        ),
        noise_sd=skewed_salomon_noise_sd, max_noise_sd=float(skewed_salomon_noise_sd({"rate": SS_RATE[1]})),
    )


# --------------------------------------------------------------------------------------------
# capped_easom (plateau): Easom's needle in three dimensions under a cap that flattens the rest of the space
# --------------------------------------------------------------------------------------------

CE_SITES = 4
CE_WIDTHS = {"narrow": 0.14, "mid": 0.2, "wide": 0.3}  # u = (coordinates - centre) / width
CE_WIDTH_OFFSET = (0.0, 0.06, 0.11)  # the narrowest needle is the deepest
CE_RATE = (1e-4, 1.0)  # log float: its coordinate is (log10 rate + 4) / 4 in [0, 1]
CE_FRACTION_STEP = 0.05  # the stepped float "fraction" in [0, 1]: its centres lie on the steps
CE_CAP = 1.0  # the value wherever the needle is above it: most of the space


@functools.cache
def capped_easom_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2718)
    n_steps = round(1.0 / CE_FRACTION_STEP)
    centre = np.column_stack([rng.uniform(0.2, 0.8, (CE_SITES, 2)), rng.integers(4, n_steps - 3, CE_SITES) * CE_FRACTION_STEP])
    offset = np.array(CE_WIDTH_OFFSET)[:, None] + rng.uniform(0.0, 0.05, CE_SITES) + rng.uniform(0.0, 0.02, (3, CE_SITES))
    return {"centre": centre, "offset": offset}


def easom(u: np.ndarray) -> Any:
    """Easom's function in d dimensions over the last axis, centred at 0: -prod cos(u_i)
    exp(-|u|^2) (Easom 1990; its d-dimensional form as in Jamil & Yang's survey); -1 only at 0,
    |value| < exp(-|u|^2) elsewhere: flat away from the needle."""
    return -np.prod(np.cos(u), axis=-1) * np.exp(-np.sum(u**2, axis=-1))


def capped_easom_coordinates(p: Params) -> np.ndarray:
    rate = (np.log10(np.asarray(p["rate"], dtype=float)) - math.log10(CE_RATE[0])) / -math.log10(CE_RATE[0])
    return np.stack(np.broadcast_arrays(np.asarray(p["x"], dtype=float), rate, np.asarray(p["fraction"], dtype=float)), axis=-1)


def capped_easom_value(p: Params) -> Any:
    t = capped_easom_tables()
    w = list(CE_WIDTHS).index(p["width"])
    u = (capped_easom_coordinates(p) - t["centre"][p["site"]]) / CE_WIDTHS[p["width"]]
    return np.minimum(CE_CAP, t["offset"][w, p["site"]] + 1.0 + easom(u))


def capped_easom() -> FreshProblem:
    keys = ("width", "site")
    combinations = functools.partial(product_combinations, keys, [list(CE_WIDTHS), range(CE_SITES)])

    def best(c: Params) -> float:
        return float(capped_easom_tables()["offset"][list(CE_WIDTHS).index(c["width"]), c["site"]])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        x, rate, fraction = (float(v) for v in capped_easom_tables()["centre"][c["site"]])
        return {**c, "x": x, "rate": float(10.0 ** (math.log10(CE_RATE[0]) * (1.0 - rate))), "fraction": fraction}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p: dict[str, Any] = {"width": trial.suggest_categorical("width", list(CE_WIDTHS)),
                             "site": trial.suggest_categorical("site", list(range(CE_SITES)))}
        p["x"] = trial.suggest_float("x", 0.0, 1.0)
        p["rate"] = trial.suggest_float("rate", *CE_RATE, log=True)
        return {**p, "fraction": trial.suggest_float("fraction", 0.0, 1.0, step=CE_FRACTION_STEP)}

    return FreshProblem(
        "capped_easom", "plateau", suggest, capped_easom_value, keys, combinations, best, best_point,
        description=(
            "min(1, offset + 1 + E(u)) with E Easom's needle -prod cos(u_i) exp(-|u|^2) in three dimensions, u = ((x, (log10 "
            "rate + 4) / 4, fraction) - centre) / width: float x in [0, 1], log float rate in [1e-4, 1], stepped float fraction "
            "in [0, 1] (steps of 0.05); width (3: 0.14, 0.2, 0.3) and site (4: the centre, in [0.2, 0.8]) set the needle, the "
            "narrowest the deepest"
        ),
        optimum_method=(
            "Easom's function is > -1 except at its centre, where it is -1 (inside the box; the fraction's centre on a step), so "
            "a combination's best is its offset, below the cap; the optimum by enumeration of the 12 combinations"
        ),
        hardness=(
            "a plateau: the value is exactly 1 on 93 % of the space (every combination's needle is under the cap only where the "
            "cosines are positive and the envelope deep enough), and the best combination is below the cap on 4.6 % of its box; "
            "the wider needles are easier to find and 0.05-0.16 worse"
        ),
    )
