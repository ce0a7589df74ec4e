"""Mixed problems on which a study can stall (the policy held-out set's, :data:`POLICY_HELD_OUT`
in :mod:`.held_out_sets`): a narrow well in a branch that looks bad on a few points, a float's
minimum on a face of the box, ints on a lattice, several good combinations close in value.

Base functions no other set of the lab uses: Schaffer N.2, Eggholder, Trid, Bukin N.6, the sum of
different powers, Xin-She Yang N.2 and Perm (0, d, beta). Each combination's best is stated (by
construction, a closed form or a bounded enumeration); random tables from
``np.random.default_rng(3101 ... 3107)``, the seed of the problem's place in the set, drawn once.
All are minimised.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.landscape_parts import (
    additive_offsets,
    levels_over_a_plane,
    levels_over_floats,
    levels_with_bests,
    one_dimensional_minimum,
    stack_numeric,
    suggest_floats,
    suggest_levels,
)
from vpbo_benchmarks.specs import Params, StatedProblem, product_combinations

# ------------------------------------------------------------------ the base functions


def schaffer2(u: Any, v: Any) -> Any:
    """Schaffer N.2: minimum 0 at (0, 0) only (rings of near-zero values around it)."""
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    return 0.5 + (np.sin(u * u - v * v) ** 2 - 0.5) / (1.0 + 0.001 * (u * u + v * v)) ** 2


def eggholder(x: Any, y: Any) -> Any:
    """Eggholder on [-512, 512]^2: minimum about -959.6407 at (512, 404.2319), on the face x = 512."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return -(y + 47.0) * np.sin(np.sqrt(np.abs(x / 2.0 + y + 47.0))) - x * np.sin(np.sqrt(np.abs(x - (y + 47.0))))


def trid(x: np.ndarray) -> Any:
    """Trid in d dimensions (last axis): minimum -d (d + 4) (d - 1) / 6 at x_i = i (d + 1 - i)."""
    return np.sum((x - 1.0) ** 2, axis=-1) - np.sum(x[..., 1:] * x[..., :-1], axis=-1)


def bukin6(x: Any, y: Any) -> Any:
    """Bukin N.6 on [-15, -5] x [-3, 3]: minimum 0 at (-10, 1), at the end of a curved ridge-valley."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return 100.0 * np.sqrt(np.abs(y - 0.01 * x * x)) + 0.01 * np.abs(x + 10.0)


def different_powers(z: np.ndarray) -> Any:
    """The sum of different powers, sum |z_i|^(i + 1) (last axis): minimum 0 at 0, flat near it."""
    powers = np.arange(2, z.shape[-1] + 2, dtype=float)
    return np.sum(np.abs(z) ** powers, axis=-1)


def xin_she_yang2(z: np.ndarray) -> Any:
    """Xin-She Yang N.2, sum |z_i| exp(-sum sin(z_i^2)) (last axis): minimum 0 at 0 only."""
    return np.sum(np.abs(z), axis=-1) * np.exp(-np.sum(np.sin(z * z), axis=-1))


def perm0(x: np.ndarray, beta: float) -> Any:
    """Perm (0, d, beta) (last axis): minimum 0 at x_j = 1 / j (x_1 = 1: on the face of [-1, 1]^d)."""
    d = x.shape[-1]
    j = np.arange(1, d + 1, dtype=float)
    return sum(np.sum((j + beta) * (x**i - j ** (-float(i))), axis=-1) ** 2 for i in range(1, d + 1))


def _zeroed(table: np.ndarray) -> np.ndarray:
    return table - table.min()


# ------------------------------------------------------------------ schaffer_rings (3101)

SR_SIZES = (4, 3)
SR_BOUNDS = ((-10.0, 10.0), (-10.0, 10.0))


@functools.cache
def schaffer_rings_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3101)
    return {"centre": rng.uniform(-4.0, 4.0, (*SR_SIZES, 2)),
            "offset": _zeroed(additive_offsets(rng, (0.3, 0.2), SR_SIZES, 0.1))}


def schaffer_rings_value(p: Params) -> Any:
    t = schaffer_rings_tables()
    c = t["centre"][p["kernel"], p["scale"]]
    return 2.0 * schaffer2(p["x1"] - c[0], p["x2"] - c[1]) + t["offset"][p["kernel"], p["scale"]]


def schaffer_rings() -> StatedProblem:
    return levels_over_a_plane(
        "schaffer_rings", "multimodal", ("kernel", "scale"), SR_SIZES, SR_BOUNDS, schaffer_rings_value,
        lambda a, b: float(schaffer_rings_tables()["offset"][a, b]), lambda a, b: schaffer_rings_tables()["centre"][a, b],
        description="Schaffer N.2 of 2 floats, moved by 2 categoricals (4 x 3)",
        optimum_method="by construction: Schaffer N.2's only zero at each combination's centre, inside the box",
        hardness="rings of near-zero values around a point-sized well; each combination moves the well",
    )


# ------------------------------------------------------------------ eggholder_face (3102)

EF_SIZES = (3, 2)
EF_BOUNDS = ((-512.0, 512.0), (-512.0, 512.0))
EF_SCALE = 0.01


@functools.cache
def eggholder_face_minimum() -> tuple[float, float]:
    """(y, value) of Eggholder's minimum on the face x = 512 (its global minimum)."""
    return one_dimensional_minimum(lambda y: eggholder(512.0, y), -512.0, 512.0)


@functools.cache
def eggholder_face_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3102)
    return {"offset": _zeroed(additive_offsets(rng, (0.8, 0.5), EF_SIZES, 0.3))}


def eggholder_face_value(p: Params) -> Any:
    sign = 1.0 if p["mirror"] == 0 else -1.0  # the second level mirrors x: the well on the face x = -512
    low = eggholder_face_minimum()[1]
    return EF_SCALE * (eggholder(sign * np.asarray(p["x1"], dtype=float), p["x2"]) - low) + (
        eggholder_face_tables()["offset"][p["layout"], p["mirror"]])


def eggholder_face() -> StatedProblem:
    return levels_over_a_plane(
        "eggholder_face", "face", ("layout", "mirror"), EF_SIZES, EF_BOUNDS, eggholder_face_value,
        lambda a, b: float(eggholder_face_tables()["offset"][a, b]),
        lambda a, b: np.array([512.0 if b == 0 else -512.0, eggholder_face_minimum()[0]]),
        description="Eggholder of 2 floats (mirrored by one categorical), offsets of 2 categoricals (3 x 2)",
        optimum_method="Eggholder's minimum on the face x = +-512 (a bounded one-dimensional search), plus the offset",
        hardness="the well lies on a face of the box, among many interior local minima",
    )


# ------------------------------------------------------------------ trid_lattice (3103)

TL_LEVELS = 3
TL_INTS = ("k1", "k2", "k3", "k4")
TL_LOW, TL_HIGH, TL_STEP = -8, 16, 2
TL_SCALE = 0.05


@functools.cache
def trid_lattice_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3103)
    return {"tilt": rng.uniform(-3.0, 3.0, (TL_LEVELS, 4)), "offset": _zeroed(rng.uniform(0.0, 0.6, TL_LEVELS))}


def trid_lattice_value(p: Params) -> Any:
    t, x = trid_lattice_tables(), stack_numeric(p, TL_INTS)
    return TL_SCALE * (trid(x) + np.sum(t["tilt"][p["unroll"]] * x, axis=-1)) + t["offset"][p["unroll"]]


@functools.cache
def trid_lattice_best(level: int) -> tuple[dict[str, Any], float]:
    """(best point, value) of a level: every point of the lattice (13^4) evaluated."""
    axis = np.arange(TL_LOW, TL_HIGH + 1, TL_STEP)
    grids = np.meshgrid(axis, axis, axis, axis, indexing="ij")
    values = trid_lattice_value({"unroll": level, **dict(zip(TL_INTS, grids))})
    i = np.unravel_index(int(np.argmin(values)), values.shape)
    point = {"unroll": level, **{k: int(g[i]) for k, g in zip(TL_INTS, grids)}}
    return point, float(trid_lattice_value(point))


def trid_lattice() -> StatedProblem:
    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = suggest_levels(trial, ("unroll",), [range(TL_LEVELS)])
        return {**p, **{k: trial.suggest_int(k, TL_LOW, TL_HIGH, step=TL_STEP) for k in TL_INTS}}

    return levels_with_bests(
        "trid_lattice", "lattice", "unroll", range(TL_LEVELS), suggest, trid_lattice_value, trid_lattice_best,
        description="Trid of 4 ints on a lattice (step 2), tilted and offset by a categorical (3 levels)",
        optimum_method="enumeration of the 13^4 lattice points per level",
        hardness="a coupled quadratic valley (neighbours interact) on a coarse lattice; the tilt moves its floor",
    )


# ------------------------------------------------------------------ bukin_branch (3104)

BB_SOLVERS = ("ridge", "bowl", "steps")
BB_BASE = {"ridge": 0.0, "bowl": 0.4, "steps": 0.25}
BB_RIDGE_SCALE = 0.2


@functools.cache
def bukin_branch_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3104)
    return {"bowl_centre": rng.uniform(-0.6, 0.6, 3), "steps_n": rng.integers(3, 18, 1), "steps_w": rng.uniform(0.1, 0.9, 1)}


def bukin_branch_value(p: Params) -> Any:
    t = bukin_branch_tables()
    if p["solver"] == "ridge":
        return BB_RIDGE_SCALE * bukin6(p["x"], p["y"])
    if p["solver"] == "bowl":
        return different_powers(stack_numeric(p, ("a", "b", "c")) - t["bowl_centre"]) + BB_BASE["bowl"]
    n, w = np.asarray(p["n"], dtype=float), np.asarray(p["w"], dtype=float)
    return 0.01 * (n - t["steps_n"][0]) ** 2 + (w - t["steps_w"][0]) ** 2 + BB_BASE["steps"]


def bukin_branch() -> StatedProblem:
    keys = ("solver",)

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        solver = trial.suggest_categorical("solver", list(BB_SOLVERS))
        if solver == "ridge":
            return {"solver": solver, "x": trial.suggest_float("x", -15.0, -5.0), "y": trial.suggest_float("y", -3.0, 3.0)}
        if solver == "bowl":
            return {"solver": solver, **suggest_floats(trial, ("a", "b", "c"), -1.0, 1.0)}
        return {"solver": solver, "n": trial.suggest_int("n", 1, 20), "w": trial.suggest_float("w", 0.0, 1.0)}

    def best_point() -> dict[str, Any]:
        return {"solver": "ridge", "x": -10.0, "y": 1.0}

    return StatedProblem(
        "bukin_branch", "conditional", suggest, bukin_branch_value, keys,
        functools.partial(product_combinations, keys, [BB_SOLVERS]), lambda c: BB_BASE[c["solver"]], best_point,
        description="a categorical decides the branch: Bukin N.6 of 2 floats, different powers of 3 floats, an int and a float",
        optimum_method="closed form: each branch's terms are zero at stated points inside the box, plus its base",
        hardness="the best branch is a narrow curved ridge-valley whose random points look far worse than the others'",
        conditional=True,
    )


# ------------------------------------------------------------------ xin_she_yang_close (3105)

XC_KEYS = ("optimizer", "schedule", "norm")
XC_SIZES = (3, 3, 2)
XC_FLOATS = ("z1", "z2", "z3")
XC_GAP = 0.011  # the offsets of the 18 combinations: 0, 0.011, 0.022, ... in a random order


@functools.cache
def xin_she_yang_close_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3105)
    n = math.prod(XC_SIZES)
    return {"centre": rng.uniform(-1.5, 1.5, (*XC_SIZES, 3)),
            "offset": (XC_GAP * rng.permutation(n).astype(float)).reshape(XC_SIZES)}


def xin_she_yang_close_value(p: Params) -> Any:
    t, c = xin_she_yang_close_tables(), tuple(p[k] for k in XC_KEYS)
    return 0.5 * xin_she_yang2(stack_numeric(p, XC_FLOATS) - t["centre"][c]) + t["offset"][c]


def xin_she_yang_close() -> StatedProblem:
    def best(c: Params) -> float:
        return float(xin_she_yang_close_tables()["offset"][tuple(c[k] for k in XC_KEYS)])

    def centre(c: Params) -> np.ndarray:
        return xin_she_yang_close_tables()["centre"][tuple(c[k] for k in XC_KEYS)]

    return levels_over_floats(
        "xin_she_yang_close", "close", XC_KEYS, [range(n) for n in XC_SIZES], dict.fromkeys(XC_FLOATS, (-6.0, 6.0)),
        xin_she_yang_close_value, best, centre,
        description="Xin-She Yang N.2 of 3 floats, moved by 3 categoricals (3 x 3 x 2) whose offsets are 0.011 apart",
        optimum_method="by construction: the function's only zero at each combination's centre, plus the offset",
        hardness="18 combinations within 0.19 of each other, each a rugged, kinked landscape",
    )


# ------------------------------------------------------------------ layers_powers (3106)

LP_MAX_LAYERS = 3
LP_ACTS = 2
LP_BASE = (0.5, 0.0, 0.3)
LP_ACT_OFFSET = (0.0, 0.15)
LP_WEIGHT = 4.0


@functools.cache
def layers_powers_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3106)
    return {"target": rng.uniform(0.1, 0.9, (LP_MAX_LAYERS, LP_MAX_LAYERS))}


def layers_powers_value(p: Params) -> Any:
    n = p["n_layers"]
    names = [f"w{i + 1}" for i in range(n)]
    z = stack_numeric(p, names) - layers_powers_tables()["target"][n - 1, :n]
    return LP_WEIGHT * different_powers(z) + LP_BASE[n - 1] + LP_ACT_OFFSET[p["act"]]


def layers_powers() -> StatedProblem:
    keys = ("n_layers", "act")
    levels = [range(1, LP_MAX_LAYERS + 1), range(LP_ACTS)]

    def best(c: Params) -> float:
        return LP_BASE[c["n_layers"] - 1] + LP_ACT_OFFSET[c["act"]]

    def best_point() -> dict[str, Any]:
        c = min(product_combinations(keys, levels), key=best)
        target = layers_powers_tables()["target"][c["n_layers"] - 1]
        return {**c, **{f"w{i + 1}": float(target[i]) for i in range(c["n_layers"])}}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        n = trial.suggest_int("n_layers", 1, LP_MAX_LAYERS)
        p: dict[str, Any] = {"n_layers": n, "act": trial.suggest_categorical("act", list(range(LP_ACTS)))}
        return {**p, **suggest_floats(trial, [f"w{i + 1}" for i in range(n)], 0.0, 1.0)}

    return StatedProblem(
        "layers_powers", "conditional", suggest, layers_powers_value, keys,
        functools.partial(product_combinations, keys, levels), best, best_point,
        description="an int decides how many floats exist (1-3): sum of different powers; a categorical offset",
        optimum_method="closed form: the powers are zero at each branch's targets, inside the box, plus the base",
        hardness="high powers leave a flat floor around each target: improvements stall near it",
        conditional=True,
    )


# ------------------------------------------------------------------ perm_face (3107)

PF_LEVELS = 3
PF_FLOATS = ("x1", "x2", "x3")
PF_BETA = 10.0
PF_SCALE = 1e-3
PF_INT = (0, 8)


@functools.cache
def perm_face_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3107)
    return {"k": rng.integers(PF_INT[0], PF_INT[1] + 1, PF_LEVELS), "offset": _zeroed(rng.uniform(0.0, 0.5, PF_LEVELS))}


def perm_face_value(p: Params) -> Any:
    t, level = perm_face_tables(), p["precision"]
    k = np.asarray(p["k"], dtype=float)
    return PF_SCALE * perm0(stack_numeric(p, PF_FLOATS), PF_BETA) + 0.05 * (k - t["k"][level]) ** 2 + t["offset"][level]


def perm_face() -> StatedProblem:
    def level_best(precision: int) -> tuple[dict[str, Any], float]:
        t = perm_face_tables()
        point = {"precision": precision, "x1": 1.0, "x2": 0.5, "x3": 1.0 / 3.0, "k": int(t["k"][precision])}
        return point, float(t["offset"][precision])

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = {**suggest_levels(trial, ("precision",), [range(PF_LEVELS)]), **suggest_floats(trial, PF_FLOATS, -1.0, 1.0)}
        return {**p, "k": trial.suggest_int("k", *PF_INT)}

    return levels_with_bests(
        "perm_face", "face", "precision", range(PF_LEVELS), suggest, perm_face_value, level_best,
        description="Perm (0, 3, 10) of 3 floats (x1's best on the face x1 = 1), an int and a categorical (3 levels)",
        optimum_method="closed form: Perm's zero at x_j = 1 / j, the int at its level's target, plus the offset",
        hardness="an ill-conditioned curved valley ending on a face of the box",
    )


PROBLEMS = (schaffer_rings, eggholder_face, trid_lattice, bukin_branch, xin_she_yang_close, layers_powers, perm_face)
POLICY_NAMES: tuple[str, ...] = tuple(f.__name__ for f in PROBLEMS)
