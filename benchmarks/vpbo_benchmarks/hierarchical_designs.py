"""Engineering designs in nested conditional spaces: ``beam_hierarchy`` (cantilever sizing:
material -> layup, section -> process) and ``vessel_hierarchy`` (Sandgren's pressure vessel:
material -> cladding, head type, stepped plate thicknesses). The sets that hold them:
:mod:`.held_out_sets`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial
from scipy.optimize import minimize_scalar

from vpbo_benchmarks.specs import Params, StatedProblem

# --------------------------------------------------------------------------------------------
# beam_hierarchy (hierarchical engineering): size a cantilever; material -> layup, section -> process
# --------------------------------------------------------------------------------------------

BH_LENGTH, BH_LOAD, BH_SAFETY = 1.5, 3000.0, 1.5  # m, N (tip load), on the strength
BH_DEFLECTION = BH_LENGTH / 200.0  # the tip deflection limit, m
# (Young's modulus Pa, density kg/m^3, strength Pa, price $/kg): typical handbook values
BH_MATERIALS = {
    "steel": (210e9, 7850.0, 355e6, 1.0), "aluminium": (69e9, 2700.0, 276e6, 3.0), "titanium": (114e9, 4430.0, 880e6, 25.0),
    "cfrp_ud": (130e9, 1550.0, 600e6, 35.0), "cfrp_quasi": (50e9, 1550.0, 400e6, 35.0), "cfrp_woven": (65e9, 1550.0, 480e6, 30.0),
}
BH_LAYUPS = ("ud", "quasi", "woven")
BH_SECTIONS = ("round", "tube", "rect")
BH_PROCESS = {"seamless": (60.0, 10.0), "welded": (40.0, 4.0)}  # tube: (largest D / t, fabrication $)
BH_FABRICATION = {"round": 0.0, "rect": 6.0}
BH_ASPECT = 5.0  # rect: height / width at most (lateral buckling)
BH_MM = {  # bounds of the dimensions, mm
    "diameter": (10.0, 150.0), "outer_diameter": (10.0, 150.0), "wall": (0.5, 15.0),
    "width": (5.0, 60.0), "height": (10.0, 150.0),
}
BH_PENALTY = 20.0  # per unit of relative constraint violation: above every Lagrange multiplier here


def _beam_material(p: Params) -> tuple[float, float, float, float]:
    return BH_MATERIALS[p["material"] if p["material"] != "cfrp" else f"cfrp_{p['layup']}"]


def beam_requirements(p: Params) -> tuple[float, float]:
    """(second moment of area, section modulus) the deflection and the strength limits require, m^4 and m^3."""
    modulus, _, strength, _ = _beam_material(p)
    return BH_LOAD * BH_LENGTH**3 / (3.0 * modulus * BH_DEFLECTION), BH_LOAD * BH_LENGTH * BH_SAFETY / strength


def _beam_section(p: Params) -> tuple[Any, Any, Any, Any]:
    """(area m^2, second moment m^4, section modulus m^3, slenderness / its limit) of the section."""
    if p["section"] == "round":
        d = np.asarray(p["diameter"], dtype=float) / 1e3
        return math.pi * d**2 / 4, math.pi * d**4 / 64, math.pi * d**3 / 32, 0.0 * d
    if p["section"] == "tube":
        d, w = np.asarray(p["outer_diameter"], dtype=float) / 1e3, np.asarray(p["wall"], dtype=float) / 1e3
        inner = np.maximum(d - 2 * w, 0.0)
        second = math.pi * (d**4 - inner**4) / 64
        return math.pi * (d**2 - inner**2) / 4, second, second / (d / 2), d / w / BH_PROCESS[p["process"]][0]
    b, h = np.asarray(p["width"], dtype=float) / 1e3, np.asarray(p["height"], dtype=float) / 1e3
    return b * h, b * h**3 / 12, b * h**2 / 6, h / b / BH_ASPECT


def beam_cost(p: Params) -> Any:
    """The design's score without penalties: mass / 10 kg + (material + fabrication cost) / $100."""
    area = _beam_section(p)[0]
    _, density, _, price = _beam_material(p)
    fabrication = BH_PROCESS[p["process"]][1] if p["section"] == "tube" else BH_FABRICATION[p["section"]]
    mass = density * area * BH_LENGTH
    return mass / 10.0 + (mass * price + fabrication) / 100.0


def beam_hierarchy_value(p: Params) -> Any:
    need_second, need_modulus = beam_requirements(p)
    _, second, modulus, slender = _beam_section(p)
    violation = np.maximum(0.0, 1.0 - second / need_second) + np.maximum(0.0, 1.0 - modulus / need_modulus)
    violation = violation + np.maximum(0.0, slender - 1.0)
    return beam_cost(p) + BH_PENALTY * violation


def beam_best_dimensions(c: Params) -> dict[str, float]:
    """A leaf's optimal dimensions (mm), closed form: the area is least with the slenderness at
    its limit and the binding requirement met; if that breaks the 150 mm envelope, the outer
    size is 150 mm and the wall or width meets the requirement. Raises if a bound is crossed."""
    i, z = beam_requirements(c)
    top = BH_MM["height"][1] / 1e3
    if c["section"] == "round":
        dims = {"diameter": max((64 * i / math.pi) ** 0.25, (32 * z / math.pi) ** (1 / 3))}
    elif c["section"] == "tube":
        ratio = 1.0 / BH_PROCESS[c["process"]][0]
        g = 1.0 - (1.0 - 2.0 * ratio) ** 4
        d = max((64 * i / (math.pi * g)) ** 0.25, (32 * z / (math.pi * g)) ** (1 / 3))
        if d > top:
            d, g = top, max(64 * i / (math.pi * top**4), 32 * z / (math.pi * top**3))
            ratio = (1.0 - (1.0 - g) ** 0.25) / 2.0
        dims = {"outer_diameter": d, "wall": ratio * d}
    else:
        b = max((12 * i / BH_ASPECT**3) ** 0.25, (6 * z / BH_ASPECT**2) ** (1 / 3))
        h = BH_ASPECT * b
        if h > top:
            h, b = top, max(12 * i / top**3, 6 * z / top**2)
        dims = {"width": b, "height": h}
    dims = {k: v * 1e3 for k, v in dims.items()}
    if any(not BH_MM[k][0] <= v <= BH_MM[k][1] for k, v in dims.items()):
        raise ValueError(f"beam_hierarchy: the optimum of {dict(c)} leaves the bounds")
    return dims


def _beam_hierarchy_suggest(trial: BaseTrial) -> dict[str, Any]:
    p: dict[str, Any] = {"material": trial.suggest_categorical("material", ["steel", "aluminium", "titanium", "cfrp"])}
    if p["material"] == "cfrp":
        p["layup"] = trial.suggest_categorical("layup", list(BH_LAYUPS))
    p["section"] = trial.suggest_categorical("section", list(BH_SECTIONS))
    if p["section"] == "tube":
        p["process"] = trial.suggest_categorical("process", list(BH_PROCESS))
    names = {"round": ("diameter",), "tube": ("outer_diameter", "wall"), "rect": ("width", "height")}[p["section"]]
    return {**p, **{n: trial.suggest_float(n, *BH_MM[n]) for n in names}}


def beam_hierarchy() -> StatedProblem:
    def combinations() -> list[dict[str, Any]]:
        materials = [{"material": m} for m in ("steel", "aluminium", "titanium")]
        materials += [{"material": "cfrp", "layup": u} for u in BH_LAYUPS]
        sections = [{"section": "round"}, *({"section": "tube", "process": q} for q in BH_PROCESS), {"section": "rect"}]
        return [{**m, **s} for m in materials for s in sections]

    def best(c: Params) -> float:
        return float(beam_hierarchy_value({**c, **beam_best_dimensions(c)}))

    return StatedProblem(
        "beam_hierarchy", "hierarchical", _beam_hierarchy_suggest, beam_hierarchy_value,
        ("material", "layup", "section", "process"),
        combinations, best, lambda: (lambda c: {**c, **beam_best_dimensions(c)})(min(combinations(), key=best)),
        description=(
            "size a 1.5 m cantilever under a 3 kN tip load (deflection <= L / 200, strength with safety 1.5): material (steel, "
            "aluminium, titanium, cfrp; cfrp opens layup (3)), section round (diameter) / tube (outer diameter, wall; opens "
            "process: seamless D/t <= 60, welded <= 40 and cheaper) / rect (width, height; h/b <= 5), dimensions in mm; score "
            "mass / 10 kg + cost / $100 + 20 x the relative constraint violations"
        ),
        optimum_method=(
            "per leaf in closed form (the area is least with the slenderness at its limit and the binding requirement met; the "
            "150 mm envelope then fixes the outer size), the exact penalty's weight above the multipliers; the optimum by "
            "enumeration of the 24 leaves"
        ),
        hardness=(
            "hierarchical (two nested choices); every leaf's optimum is a kink where a requirement meets the slenderness limit "
            "or the 150 mm envelope under a steep penalty; the best (a seamless steel tube) is an interior kink, and four tubes "
            "of three materials lie within 0.12"
        ),
        conditional=True,
    )


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


def vessel_hierarchy() -> StatedProblem:
    def combinations() -> list[dict[str, Any]]:
        materials: list[dict[str, Any]] = [{"material": "carbon"}, {"material": "stainless"}]
        materials += [{"material": "clad", "cladding": k} for k in ("thin", "thick")]
        return [{**m, "head": h} for m in materials for h in PV_HEADS]

    def best(c: Params) -> float:
        return vessel_leaf_best(tuple(sorted(c.items())))[1]

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        return dict(vessel_leaf_best(tuple(sorted(c.items())))[0])

    return StatedProblem(
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
