"""The adapt held-out set, its structured problems: ``beam_hierarchy`` (hierarchical
engineering: cantilever sizing), ``tile_autotune`` (a deterministic int-only space of 384 points),
``noisy_batch`` (heavy-tailed noise that depends on an int) and ``plateau_steps`` (a quantised
error terrace). The set, its rule and its rule of use: :mod:`.adapt_held_out`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.specs import FreshProblem, Params, product_combinations

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


def beam_hierarchy() -> FreshProblem:
    def combinations() -> list[dict[str, Any]]:
        materials = [{"material": m} for m in ("steel", "aluminium", "titanium")]
        materials += [{"material": "cfrp", "layup": u} for u in BH_LAYUPS]
        sections = [{"section": "round"}, *({"section": "tube", "process": q} for q in BH_PROCESS), {"section": "rect"}]
        return [{**m, **s} for m in materials for s in sections]

    def best(c: Params) -> float:
        return float(beam_hierarchy_value({**c, **beam_best_dimensions(c)}))

    return FreshProblem(
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


@functools.cache
def tile_autotune_table() -> dict[int, tuple[dict[str, int], float]]:
    """Per vector level: (the best point, its value), by enumeration of the 96 (tile, unroll)."""
    table = {}
    for v in range(TA_VECTOR[0], TA_VECTOR[1] + 1):
        tiles, unrolls = range(TA_TILE[0], TA_TILE[1] + 1), range(TA_UNROLL[0], TA_UNROLL[1] + 1)
        points = [{"tile": t, "unroll": u, "vector": v} for t in tiles for u in unrolls]
        best = min(points, key=lambda q: float(tile_autotune_value(q)))
        table[v] = (best, float(tile_autotune_value(best)))
    return table


def tile_autotune() -> FreshProblem:
    combinations = functools.partial(product_combinations, ("vector",), [range(TA_VECTOR[0], TA_VECTOR[1] + 1)])

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        return {k: trial.suggest_int(k, *b) for k, b in (("tile", TA_TILE), ("unroll", TA_UNROLL), ("vector", TA_VECTOR))}

    return FreshProblem(
        "tile_autotune", "int_only", suggest, tile_autotune_value, ("vector",), combinations,
        lambda c: tile_autotune_table()[c["vector"]][1],
        lambda: dict(min(tile_autotune_table().values(), key=lambda pv: pv[1])[0]),
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
# noisy_batch (noisy): heavy-tailed noise whose scale grows as the batch shrinks
# --------------------------------------------------------------------------------------------

NB_OPTIMIZERS, NB_SCHEDULES = ("sgd", "adam", "lion"), ("cosine", "step")
NB_BATCH, NB_LR, NB_WARMUP = (8, 512), (1e-4, 1.0), (0.0, 0.3)
NB_LOG2_BATCH_TARGET = (4.4, 5.3, 4.7)  # per optimiser: small batches generalise better
NB_NOISE_SD_AT_64, NB_T_DOF = 0.05, 3  # sd 0.05 sqrt(64 / batch); Student-t noise with 3 dof


@functools.cache
def noisy_batch_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2707)
    return {"log10_lr": rng.uniform(-3.0, -1.2, 3), "warmup": rng.uniform(0.08, 0.22, 2),
            "offset": np.array([0.05, 0.0, 0.03])[:, None] + np.array([0.0, 0.025]) + rng.uniform(0.0, 0.02, (3, 2))}


def bohachevsky(z1: Any, z2: Any) -> Any:
    """Bohachevsky's first function: z1^2 + 2 z2^2 - 0.3 cos(3 pi z1) - 0.4 cos(4 pi z2) + 0.7; 0 only at 0."""
    z1, z2 = np.asarray(z1), np.asarray(z2)
    return z1**2 + 2 * z2**2 - 0.3 * np.cos(3 * math.pi * z1) - 0.4 * np.cos(4 * math.pi * z2) + 0.7


def _batch_term(o: int, batch: Any) -> Any:
    return 0.012 * (np.log2(np.asarray(batch, dtype=float)) - NB_LOG2_BATCH_TARGET[o]) ** 2


def noisy_batch_value(p: Params) -> Any:
    t = noisy_batch_tables()
    o, s = NB_OPTIMIZERS.index(p["optimizer"]), NB_SCHEDULES.index(p["schedule"])
    z1 = 0.8 * (np.log10(np.asarray(p["lr"], dtype=float)) - t["log10_lr"][o])
    z2 = (np.asarray(p["warmup"], dtype=float) - t["warmup"][s]) / 0.1
    return t["offset"][o, s] + _batch_term(o, p["batch"]) + 0.1 * bohachevsky(z1, z2)


def noisy_batch_noise_sd(p: Params) -> Any:
    return NB_NOISE_SD_AT_64 * np.sqrt(64.0 / np.asarray(p["batch"], dtype=float))


def noisy_batch() -> FreshProblem:
    keys = ("optimizer", "schedule")
    combinations = functools.partial(product_combinations, keys, [NB_OPTIMIZERS, NB_SCHEDULES])
    batches = np.arange(NB_BATCH[0], NB_BATCH[1] + 1)

    def best_point_of(c: Params) -> dict[str, Any]:
        o, s = NB_OPTIMIZERS.index(c["optimizer"]), NB_SCHEDULES.index(c["schedule"])
        t = noisy_batch_tables()
        batch = int(batches[np.argmin(_batch_term(o, batches))])
        return {**c, "batch": batch, "lr": float(10.0 ** t["log10_lr"][o]), "warmup": float(t["warmup"][s])}

    def best(c: Params) -> float:
        return float(noisy_batch_value(best_point_of(c)))

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p: dict[str, Any] = {"optimizer": trial.suggest_categorical("optimizer", list(NB_OPTIMIZERS)),
             "schedule": trial.suggest_categorical("schedule", list(NB_SCHEDULES))}
        p["batch"] = trial.suggest_int("batch", *NB_BATCH, log=True)
        return {**p, "lr": trial.suggest_float("lr", *NB_LR, log=True), "warmup": trial.suggest_float("warmup", *NB_WARMUP)}

    return FreshProblem(
        "noisy_batch", "noisy", suggest, noisy_batch_value, keys, combinations,
        best, lambda: best_point_of(min(combinations(), key=best)),
        description=(
            "optimizer (3) and schedule (2) offsets + 0.012 (log2 batch - target)^2 (log int batch 8-512, target 2^4.4-2^5.3) + "
            "0.1 Bohachevsky(0.8 (log10 lr - l_opt), (warmup - w_sched) / 0.1) (log float lr in [1e-4, 1], warmup in [0, 0.3]); "
            "observed with Student-t noise (3 dof) of sd 0.05 sqrt(64 / batch), 0.14 at batch 8"
        ),
        optimum_method=(
            "Bohachevsky is >= 0 and 0 at its centre (inside the box); the batch term by enumeration of the integers 8-512; a "
            "combination's best is its offset plus that; the optimum by enumeration of the 6 combinations"
        ),
        hardness=(
            "input-dependent heavy-tailed noise: the best batches (21-39) have noise sd 0.06-0.09 against combination gaps of "
            "0.01-0.06, rare outliers of several sd, and the cheapest noise is at the worst batches"
        ),
        noise_sd=noisy_batch_noise_sd, max_noise_sd=float(noisy_batch_noise_sd({"batch": NB_BATCH[0]})),
    )


# --------------------------------------------------------------------------------------------
# plateau_steps (plateau): a decision tree's quantised validation error, flat wherever the tree degenerates to the same stump
# --------------------------------------------------------------------------------------------

PS_CRITERIA, PS_SPLITTERS = ("gini", "entropy", "log_loss"), ("best", "random")
PS_DEPTH, PS_LEAF, PS_FEATURES, PS_ALPHA = (1, 30), (1, 256), (0.1, 1.0), (1e-6, 1e-1)
PS_N_VALIDATION = 200  # the error is a count of the 200 validation points
PS_PLATEAU_COUNT, PS_WORST_COUNT = 18, 24  # the stump's error 0.09; off the plateau at most 0.12
PS_STUMP = (6, 8, 3e-4)  # the tree is the stump if max_depth <= 6, min_samples_leaf >= 8 or ccp_alpha >= 3e-4
PS_BEST_COUNT = ((8, 11), (12, 10), (13, 14))  # per (criterion, splitter): the best error count


@functools.cache
def plateau_steps_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2708)
    shape = (len(PS_CRITERIA), len(PS_SPLITTERS))
    return {"depth": rng.integers(8, 17, shape), "log2_leaf": rng.uniform(1.0, 2.5, shape),
            "features": rng.uniform(0.3, 0.8, shape), "log10_alpha": rng.uniform(-5.5, -4.0, shape)}


def plateau_steps_value(p: Params) -> Any:
    t = plateau_steps_tables()
    c = (PS_CRITERIA.index(p["criterion"]), PS_SPLITTERS.index(p["splitter"]))
    depth, leaf = np.asarray(p["max_depth"], dtype=float), np.asarray(p["min_samples_leaf"], dtype=float)
    features, alpha = np.asarray(p["max_features"], dtype=float), np.asarray(p["ccp_alpha"], dtype=float)
    error = PS_BEST_COUNT[c[0]][c[1]] / PS_N_VALIDATION + 0.0015 * (depth - t["depth"][c]) ** 2
    error = error + 0.008 * (np.log2(leaf) - t["log2_leaf"][c]) ** 2 + 0.08 * (features - t["features"][c]) ** 2
    error = error + 0.006 * (np.log10(alpha) - t["log10_alpha"][c]) ** 2
    count = np.minimum(np.round(PS_N_VALIDATION * error), PS_WORST_COUNT)
    stump = (depth <= PS_STUMP[0]) | (leaf >= PS_STUMP[1]) | (alpha >= PS_STUMP[2])
    return np.where(stump, PS_PLATEAU_COUNT, count) / PS_N_VALIDATION


def plateau_steps() -> FreshProblem:
    keys = ("criterion", "splitter")
    combinations = functools.partial(product_combinations, keys, [PS_CRITERIA, PS_SPLITTERS])

    def best(c: Params) -> float:
        return PS_BEST_COUNT[PS_CRITERIA.index(c["criterion"])][PS_SPLITTERS.index(c["splitter"])] / PS_N_VALIDATION

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        t, i = plateau_steps_tables(), (PS_CRITERIA.index(c["criterion"]), PS_SPLITTERS.index(c["splitter"]))
        target = float(t["log2_leaf"][i])
        leaf = min((math.floor(2.0**target), math.ceil(2.0**target)), key=lambda v: abs(math.log2(v) - target))
        return {**c, "max_depth": int(t["depth"][i]), "min_samples_leaf": int(leaf),
                "max_features": float(t["features"][i]), "ccp_alpha": float(10.0 ** t["log10_alpha"][i])}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p: dict[str, Any] = {"criterion": trial.suggest_categorical("criterion", list(PS_CRITERIA)),
             "splitter": trial.suggest_categorical("splitter", list(PS_SPLITTERS))}
        p["max_depth"] = trial.suggest_int("max_depth", *PS_DEPTH)
        p["min_samples_leaf"] = trial.suggest_int("min_samples_leaf", *PS_LEAF, log=True)
        return {**p, "max_features": trial.suggest_float("max_features", *PS_FEATURES),
                "ccp_alpha": trial.suggest_float("ccp_alpha", *PS_ALPHA, log=True)}

    return FreshProblem(
        "plateau_steps", "plateau", suggest, plateau_steps_value, keys, combinations, best, best_point,
        description=(
            "a decision tree's validation error in steps of 1/200: criterion (3), splitter (2), int max_depth 1-30, log int "
            "min_samples_leaf 1-256, float max_features in [0.1, 1], log float ccp_alpha in [1e-6, 0.1]; 0.09 (the stump) "
            "wherever max_depth <= 6, min_samples_leaf >= 8 or ccp_alpha >= 3e-4, elsewhere round(200 (best + quadratic "
            "penalties)) / 200, at most 0.12"
        ),
        optimum_method=(
            "by construction: the penalties are >= 0, 0 at a point off the plateau but for min_samples_leaf (an integer within "
            "0.25 octave of its target: under 0.1 of a count), and the best counts are whole, so a combination's best is its "
            "count / 200; the optimum by enumeration of the 6"
        ),
        hardness=(
            "about 83 % of the space is one flat plateau (every combination's stump, 0.09) and 1.5-4 % is better than it, in "
            "terraces of width 1/200: a model sees no slope, and the first trials on the plateau all tie"
        ),
    )
