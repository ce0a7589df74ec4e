"""The adapt held-out set, its multimodal problems: ``peak_field`` (Gallagher's
Gaussian peaks), ``michalewicz_gates`` (Michalewicz's valleys), ``compact_foxholes`` (Wendland
holes; floats and ints only) and ``bit_branches`` (an int decides the branch; Drop-Wave's rings).
The set, its rule and its rule of use: :mod:`.adapt_held_out`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from optuna.trial import BaseTrial
from scipy.optimize import minimize_scalar

from vpbo_benchmarks.specs import FreshProblem, Params, product_combinations


def _stack(p: Params, names: Sequence[str]) -> np.ndarray:
    """The named numeric parameters broadcast together and stacked on a last axis."""
    return np.stack(np.broadcast_arrays(*(np.asarray(p[n], dtype=float) for n in names)), axis=-1)


def _suggest_floats(trial: BaseTrial, names: Sequence[str], low: float, high: float, log: bool = False) -> dict[str, Any]:
    return {n: trial.suggest_float(n, low, high, log=log) for n in names}


def _random_rotation(rng: np.random.Generator) -> np.ndarray:
    """An orthogonal 4 x 4 matrix: the Q of a Gaussian matrix's QR decomposition."""
    return np.linalg.qr(rng.standard_normal((4, 4)))[0]


def _offsets(rng: np.random.Generator, highs: Sequence[float], shape: Sequence[int], interaction: float) -> np.ndarray:
    """Additive per-level offsets U(0, high) for each categorical plus an interaction table U(0, interaction)."""
    total = rng.uniform(0.0, interaction, tuple(shape))
    for axis, (high, n) in enumerate(zip(highs, shape)):
        total = total + np.expand_dims(rng.uniform(0.0, high, n), [a for a in range(len(shape)) if a != axis])
    return total


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
        "rotation": np.array([[_random_rotation(rng) for _ in range(PF_N_PEAKS)] for _ in range(PF_LAYOUTS)]),
        "sd": rng.uniform(*PF_SD_BOUNDS, (*shape, 4)),
        "height": rng.uniform(*PF_HEIGHT_BOUNDS, shape),
        "tallest": np.array([rng.permutation(PF_N_PEAKS)[:PF_FOCI] for _ in range(PF_LAYOUTS)]),
        "offset": _offsets(rng, (0.3, 0.2, 0.15), (PF_LAYOUTS, PF_FOCI, len(PF_LENS_MASKS)), 0.08),
    }


def peak_field_value(p: Params) -> Any:
    t = peak_field_tables()
    layout, lens = p["layout"], p["lens"]
    tallest = t["tallest"][layout, p["focus"]]
    x = _stack(p, PF_FLOATS)
    highest: Any = 0.0
    for j in range(PF_N_PEAKS):
        u = ((x - t["position"][layout, j]) * np.array(PF_LENS_MASKS[lens])) @ t["rotation"][layout, j]
        sd, height = (PF_GLOBAL_SD, 1.0) if j == tallest else (t["sd"][layout, j], t["height"][layout, j])
        highest = np.maximum(highest, height * np.exp(-0.5 * np.sum((u / sd) ** 2, axis=-1)))
    return 1.0 - highest + t["offset"][layout, p["focus"], lens]


def peak_field() -> FreshProblem:
    keys = ("layout", "focus", "lens")
    combinations = functools.partial(product_combinations, keys, [range(PF_LAYOUTS), range(PF_FOCI), range(len(PF_LENS_MASKS))])

    def best(c: Params) -> float:
        return float(peak_field_tables()["offset"][c["layout"], c["focus"], c["lens"]])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        t = peak_field_tables()
        y = t["position"][c["layout"], t["tallest"][c["layout"], c["focus"]]]
        return {**c, **{n: float(v) for n, v in zip(PF_FLOATS, y)}}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = {k: trial.suggest_categorical(k, list(range(n))) for k, n in zip(keys, (PF_LAYOUTS, PF_FOCI, len(PF_LENS_MASKS)))}
        return {**p, **_suggest_floats(trial, PF_FLOATS, 0.0, 1.0)}

    return FreshProblem(
        "peak_field", "multimodal", suggest, peak_field_value, keys, combinations, best, best_point,
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
    offset = rng.uniform(0.0, 0.08, MG_N_ORDERS)[:, None] + rng.uniform(0.0, 0.04, (MG_N_ORDERS, len(MG_STEEPNESS)))
    return {"order": np.array(orders), "offset": offset}


def michalewicz_term(x: Any, frequency: float, m: int) -> Any:
    """One coordinate's Michalewicz term sin(x) sin(i x^2 / pi)^(2m), in [0, 1) on [0, pi]."""
    return np.sin(x) * np.sin(frequency * np.asarray(x) ** 2 / math.pi) ** (2 * m)


@functools.cache
def michalewicz_term_max(frequency: float, m: int) -> tuple[float, float]:
    """(argmax, max) of one term on [0, pi]: a 200 001-point grid, then bounded Brent around the best."""
    grid = np.linspace(*MG_BOUNDS, 200_001)
    start = float(grid[np.argmax(michalewicz_term(grid, frequency, m))])
    step = grid[1] - grid[0]
    result = minimize_scalar(lambda v: -float(michalewicz_term(v, frequency, m)), bounds=(start - step, start + step),
                             method="bounded", options={"xatol": 1e-13})
    return float(result.x), -float(result.fun)


def michalewicz_gates_value(p: Params) -> Any:
    t = michalewicz_gates_tables()
    m = MG_STEEPNESS[p["steep"]]
    x = _stack(p, MG_FLOATS)
    total = sum(michalewicz_term(x[..., k], float(f), m) for k, f in enumerate(t["order"][p["order"]]))
    return t["offset"][p["order"], p["steep"]] + MG_STEEP_OFFSET[p["steep"]] + MG_HEIGHT * (len(MG_FLOATS) - total)


def michalewicz_gates() -> FreshProblem:
    keys = ("order", "steep")
    combinations = functools.partial(product_combinations, keys, [range(MG_N_ORDERS), range(len(MG_STEEPNESS))])

    def best(c: Params) -> float:
        t = michalewicz_gates_tables()
        top = sum(michalewicz_term_max(float(f), MG_STEEPNESS[c["steep"]])[1] for f in MG_FREQUENCIES)
        return float(t["offset"][c["order"], c["steep"]] + MG_STEEP_OFFSET[c["steep"]] + MG_HEIGHT * (len(MG_FLOATS) - top))

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        order = michalewicz_gates_tables()["order"][c["order"]]
        return {**c, **{n: michalewicz_term_max(float(f), MG_STEEPNESS[c["steep"]])[0] for n, f in zip(MG_FLOATS, order)}}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = {"order": trial.suggest_categorical("order", list(range(MG_N_ORDERS))),
             "steep": trial.suggest_categorical("steep", list(range(len(MG_STEEPNESS))))}
        return {**p, **_suggest_floats(trial, MG_FLOATS, *MG_BOUNDS)}

    return FreshProblem(
        "michalewicz_gates", "multimodal", suggest, michalewicz_gates_value, keys, combinations, best, best_point,
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
    z = _stack({**p, "k": np.asarray(p["k"], dtype=float) / FH_K_MAX}, (*FH_FLOATS, "k"))
    level = p["level"] - 1
    to_best, to_pull = np.sum((z - t["best"]) ** 2, axis=-1), np.sum((z - t["pull"]) ** 2, axis=-1)
    total = 1.0 + FH_BOWL * np.minimum(to_best, to_pull + FH_BOWL_FLOOR)
    total = total - FH_LEVEL_DEPTH[level] * wendland(np.sqrt(to_best) / FH_LEVEL_RADIUS[level])
    for c, r, w in zip(t["centre"], t["radius"], t["depth"]):
        total = total - w * wendland(np.linalg.norm(z - c, axis=-1) / r)
    return total


def compact_foxholes() -> FreshProblem:
    combinations = functools.partial(product_combinations, ("level",), [range(1, len(FH_LEVEL_DEPTH) + 1)])

    def best(c: Params) -> float:
        return 1.0 - FH_LEVEL_DEPTH[c["level"] - 1]

    def best_point() -> dict[str, Any]:
        a = compact_foxholes_tables()["best"]
        level = min(combinations(), key=best)["level"]
        return {"level": level, "k": round(float(a[3]) * FH_K_MAX), **{n: float(v) for n, v in zip(FH_FLOATS, a)}}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = {"level": trial.suggest_int("level", 1, len(FH_LEVEL_DEPTH)), "k": trial.suggest_int("k", 0, FH_K_MAX)}
        return {**p, **_suggest_floats(trial, FH_FLOATS, 0.0, 1.0)}

    return FreshProblem(
        "compact_foxholes", "numeric", suggest, compact_foxholes_value, ("level",), combinations, best, best_point,
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
# bit_branches (conditional, an int decides the branch): bits 1-2 binary, 3-5 uniform, 6-8 float
# --------------------------------------------------------------------------------------------

BB_BITS = (1, 8)
BB_BRANCH_OF_BITS = {1: "binary", 2: "binary", 3: "uniform", 4: "uniform", 5: "uniform", 6: "float", 7: "float", 8: "float"}
BB_BASE = (0.34, 0.27, 0.16, 0.10, 0.13, 0.19, 0.22, 0.26)  # per bits 1-8
BB_CODEBOOKS = ("sign", "ternary", "learned")
BB_CODEBOOK_OFFSET = (0.0, 0.03, 0.05)
BB_LR_BOUNDS, BB_SCALE_BOUNDS, BB_WARMUP_BOUNDS = (1e-4, 1e-1), (1e-2, 1e2), (0, 20)
BB_RING_HEIGHT, BB_RING_SCALE = 0.5, 4.0


@functools.cache
def bit_branches_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2704)
    return {
        "log10_scale": rng.uniform(-1.0, 1.0, (2, len(BB_CODEBOOKS))),  # per bits 1-2 and codebook
        "ring_centre": np.column_stack([rng.uniform(0.3, 0.7, 3), rng.uniform(-3.2, -1.8, 3)]),  # per bits 3-5
        "float_lr": rng.uniform(-3.3, -1.7, 3),  # log10 lr per bits 6-8
        "float_warmup": rng.integers(3, 17, 3),
    }


def drop_wave(z1: Any, z2: Any) -> Any:
    """Drop-Wave shifted to be >= 0: 1 - (1 + cos(12 r)) / (r^2 / 2 + 2); 0 only at r = 0, rings of minima."""
    r2 = np.asarray(z1) ** 2 + np.asarray(z2) ** 2
    return 1.0 - (1.0 + np.cos(12.0 * np.sqrt(r2))) / (0.5 * r2 + 2.0)


def zakharov(z1: Any, z2: Any) -> Any:
    """Zakharov in two dimensions: |z|^2 + s^2 + s^4, s = z1 / 2 + z2; 0 only at 0."""
    s = 0.5 * np.asarray(z1) + np.asarray(z2)
    return np.asarray(z1) ** 2 + np.asarray(z2) ** 2 + s**2 + s**4


def bit_branches_value(p: Params) -> Any:
    t, bits = bit_branches_tables(), p["bits"]
    branch, base = BB_BRANCH_OF_BITS[bits], BB_BASE[bits - 1]
    if branch == "binary":
        code = BB_CODEBOOKS.index(p["codebook"])
        d = np.log10(np.asarray(p["scale"], dtype=float)) - t["log10_scale"][bits - 1, code]
        return base + BB_CODEBOOK_OFFSET[code] + 0.1 * d**2
    log_lr = np.log10(np.asarray(p["lr"], dtype=float))
    if branch == "uniform":
        c = t["ring_centre"][bits - 3]
        z1, z2 = BB_RING_SCALE * (np.asarray(p["clip"]) - c[0]), BB_RING_SCALE * (log_lr - c[1]) / 3.0
        return base + BB_RING_HEIGHT * drop_wave(z1, z2)
    z1 = 1.2 * (log_lr - t["float_lr"][bits - 6])
    z2 = (np.asarray(p["warmup"], dtype=float) - t["float_warmup"][bits - 6]) / 8.0
    return base + 0.1 * zakharov(z1, z2)


def _bit_branches_suggest(trial: BaseTrial) -> dict[str, Any]:
    p: dict[str, Any] = {"bits": trial.suggest_int("bits", *BB_BITS)}
    branch = BB_BRANCH_OF_BITS[p["bits"]]
    if branch == "binary":
        p["codebook"] = trial.suggest_categorical("codebook", list(BB_CODEBOOKS))
        p["scale"] = trial.suggest_float("scale", *BB_SCALE_BOUNDS, log=True)
    else:
        p["lr"] = trial.suggest_float("lr", *BB_LR_BOUNDS, log=True)
        if branch == "uniform":
            p["clip"] = trial.suggest_float("clip", 0.0, 1.0)
        else:
            p["warmup"] = trial.suggest_int("warmup", *BB_WARMUP_BOUNDS)
    return p


def bit_branches() -> FreshProblem:
    def combinations() -> list[dict[str, Any]]:
        bits = range(BB_BITS[0], BB_BITS[1] + 1)
        return [{"bits": b, "codebook": c} for b in bits if BB_BRANCH_OF_BITS[b] == "binary" for c in BB_CODEBOOKS] + [
            {"bits": b} for b in bits if BB_BRANCH_OF_BITS[b] != "binary"]

    def best(c: Params) -> float:
        extra = BB_CODEBOOK_OFFSET[BB_CODEBOOKS.index(c["codebook"])] if "codebook" in c else 0.0
        return BB_BASE[c["bits"] - 1] + extra

    def best_point() -> dict[str, Any]:
        bits = min(combinations(), key=best)["bits"]
        assert BB_BRANCH_OF_BITS[bits] == "uniform"
        c = bit_branches_tables()["ring_centre"][bits - 3]
        return {"bits": bits, "lr": float(10.0 ** c[1]), "clip": float(c[0])}

    return FreshProblem(
        "bit_branches", "conditional_int", _bit_branches_suggest, bit_branches_value, ("bits", "codebook"), combinations, best,
        best_point,
        description=(
            "int bits 1-8 decides the branch: 1-2 binary (categorical codebook (3), log float scale in [1e-2, 1e2], a quadratic "
            "in log10 scale), 3-5 uniform (float clip in [0, 1], log float lr in [1e-4, 0.1]: 0.5 Drop-Wave around a centre per "
            "bits), 6-8 float (log float lr, int warmup in [0, 20]: 0.1 Zakharov around a target per bits); plus a base per bits "
            "(0.10 at 4 bits) and codebook offsets"
        ),
        optimum_method=(
            "every branch term is >= 0 and 0 at a reachable point (Drop-Wave's centre inside the box, the warmup targets "
            "integers), so a leaf's best is its base (+ codebook offset); the optimum by enumeration of the 12 leaves"
        ),
        hardness=(
            "the int's ranges decide which parameters exist; the best branch is Drop-Wave's rings (ring minima 0.03, 0.11, ... "
            "above the centre, whose basin is about 1 % of the branch's box), the neighbouring bits shift the rings' centre, and "
            "the other branches are easy bowls"
        ),
        conditional=True,
    )
