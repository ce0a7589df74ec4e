"""Conditional spaces whose branches a parameter decides: a categorical (``hash_resonance``: the
best branch is good only in a narrow band of a log int) or an int (``stacked_stages``: how many
stages, coupled through their product; ``bit_branches``: ranges of the int, Drop-Wave's rings;
``parity_branches``: its parity, Dixon-Price's valley or Goldstein-Price's basins). The sets that
hold them: :mod:`.held_out_sets`.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.landscape_parts import (
    stack_numeric,
    suggest_floats,
)
from vpbo_benchmarks.specs import Params, StatedProblem

# --------------------------------------------------------------------------------------------
# hash_resonance (conditional_cat): the best branch is good only in a narrow band of a log int
# --------------------------------------------------------------------------------------------

HR_ENCODERS = ("onehot", "target", "hash")
HR_HASH_FNS = ("murmur", "xxhash")
HR_X_BOUNDS = (0.0, 1.0)
HR_SMOOTHING_BOUNDS = (1e-3, 1e3)
HR_BUCKET_BOUNDS = (2, 1024)
HR_ONEHOT = (0.25, 0.4, (0.3, 0.6))  # (floor, curvature, centre): the broad trap
HR_TARGET = (0.12, 0.3, (0.55, 0.45))
HR_TARGET_LOG10_SMOOTHING = 1.2
HR_HASH_FLOOR = {"murmur": 0.0, "xxhash": 0.18}
HR_HASH_CENTRE = {"murmur": (0.78, 0.22), "xxhash": (0.15, 0.85)}
HR_HASH_BUCKETS = {"murmur": 160, "xxhash": 40}  # the resonant bucket count (an integer)
HR_HASH_DEPTH = 0.8
HR_HASH_WIDTH = 0.3  # octaves: the band of n_buckets where the hash branch is good
HR_HASH_CURVATURE = 0.5


def _bowl(x1: Any, x2: Any, curvature: float, centre: Sequence[float]) -> Any:
    return curvature * ((np.asarray(x1) - centre[0]) ** 2 + (np.asarray(x2) - centre[1]) ** 2)


def hash_resonance_value(p: Params) -> Any:
    encoder = p["encoder"]
    if encoder == "onehot":
        floor, curvature, centre = HR_ONEHOT
        return floor + _bowl(p["x1"], p["x2"], curvature, centre)
    if encoder == "target":
        floor, curvature, centre = HR_TARGET
        smoothing = np.log10(np.asarray(p["smoothing"], dtype=float)) - HR_TARGET_LOG10_SMOOTHING
        return floor + _bowl(p["x1"], p["x2"], curvature, centre) + 0.02 * smoothing**2
    fn = p["hash_fn"]
    octaves = np.log2(np.asarray(p["n_buckets"], dtype=float)) - math.log2(HR_HASH_BUCKETS[fn])
    resonance = HR_HASH_DEPTH * (1.0 - np.exp(-(octaves**2) / (2.0 * HR_HASH_WIDTH**2)))
    return HR_HASH_FLOOR[fn] + resonance + _bowl(p["x1"], p["x2"], HR_HASH_CURVATURE, HR_HASH_CENTRE[fn])


def _hash_resonance_suggest(trial: BaseTrial) -> dict[str, Any]:
    p: dict[str, Any] = {"encoder": trial.suggest_categorical("encoder", list(HR_ENCODERS))}
    p["x1"] = trial.suggest_float("x1", *HR_X_BOUNDS)
    p["x2"] = trial.suggest_float("x2", *HR_X_BOUNDS)
    if p["encoder"] == "target":
        p["smoothing"] = trial.suggest_float("smoothing", *HR_SMOOTHING_BOUNDS, log=True)
    elif p["encoder"] == "hash":
        p["hash_fn"] = trial.suggest_categorical("hash_fn", list(HR_HASH_FNS))
        p["n_buckets"] = trial.suggest_int("n_buckets", *HR_BUCKET_BOUNDS, log=True)
    return p


def hash_resonance() -> StatedProblem:
    def combinations() -> list[dict[str, Any]]:
        return [{"encoder": "onehot"}, {"encoder": "target"}, *({"encoder": "hash", "hash_fn": f} for f in HR_HASH_FNS)]

    def best(c: Params) -> float:
        if c["encoder"] == "hash":
            return HR_HASH_FLOOR[c["hash_fn"]]
        return HR_ONEHOT[0] if c["encoder"] == "onehot" else HR_TARGET[0]

    def best_point() -> dict[str, Any]:
        fn = min(HR_HASH_FNS, key=HR_HASH_FLOOR.__getitem__)
        x = HR_HASH_CENTRE[fn]
        return {"encoder": "hash", "x1": x[0], "x2": x[1], "hash_fn": fn, "n_buckets": HR_HASH_BUCKETS[fn]}

    return StatedProblem(
        "hash_resonance", "conditional_cat", _hash_resonance_suggest, hash_resonance_value,
        ("encoder", "hash_fn"), combinations, best, best_point,
        description=(
            "encoder categorical: onehot (broad bowl over the shared x1, x2; floor 0.25) / target (opens log float smoothing; "
            "0.12) / hash (opens hash_fn categorical and log int n_buckets in [2, 1024]; 0 with murmur, 0.18 with xxhash, but "
            "only within ~0.3 octave of n_buckets = 160 / 40, else +0.8)"
        ),
        optimum_method=(
            "every penalty is >= 0 and 0 at a reachable point (n_buckets 160 and 40 are integers in range); the optimum is the "
            "smallest floor over the 4 leaves, by enumeration"
        ),
        hardness=(
            "trap: the best branch is the worst on average (+0.8 outside a narrow band of a log int, ~8 % of its range), the "
            "broad onehot and target bowls are better on average"
        ),
        conditional=True,
    )


# --------------------------------------------------------------------------------------------
# stacked_stages (conditional_int): per-stage gains coupled through their product
# --------------------------------------------------------------------------------------------

SS_MAX_STAGES = 4
SS_KINDS = ("narrow", "wide")
SS_SCHEDULES = ("constant", "cosine", "step")
SS_GAIN_BOUNDS = (0.1, 10.0)  # log-scaled: u = log10 gain in [-1, 1]
SS_BASE = (0.40, 0.22, 0.12, 0.16)  # per number of stages
SS_SCHEDULE_OFFSET = {"constant": 0.0, "cosine": 0.03, "step": 0.05}
SS_SCHEDULE_TARGET = {"constant": 0.9, "cosine": -0.6, "step": 0.3}  # target of sum(u): log10 of the total gain
SS_COUPLING = 0.5
SS_KIND_WEIGHT = {"narrow": 3.0, "wide": 0.5}
SS_KIND_OFFSET = {"narrow": 0.02, "wide": 0.0}


@functools.cache
def stacked_stages_targets() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2105)
    return {kind: rng.uniform(-0.5, 0.5, SS_MAX_STAGES) for kind in SS_KINDS}


def stacked_stages_value(p: Params) -> Any:
    n, schedule = p["n_stages"], p["schedule"]
    targets = stacked_stages_targets()
    total: Any = SS_BASE[n - 1] + SS_SCHEDULE_OFFSET[schedule]
    log_gains = [np.log10(np.asarray(p[f"gain_{i}"], dtype=float)) for i in range(n)]
    total = total + SS_COUPLING * (sum(log_gains) - SS_SCHEDULE_TARGET[schedule]) ** 2
    for i, u in enumerate(log_gains):
        kind = p[f"kind_{i}"]
        total = total + SS_KIND_WEIGHT[kind] * (u - targets[kind][i]) ** 2 + SS_KIND_OFFSET[kind]
    return total


def stacked_stages_argmin(c: Params) -> np.ndarray:
    """The log10 gains minimising the coupled quadratic of combination ``c`` (closed form): the
    stationarity condition u_i = t_i - (A / w_i) r with r = sum(u) - U gives
    r = (sum t - U) / (1 + A sum 1 / w_i). Raises if the minimiser leaves [-1, 1]."""
    n = c["n_stages"]
    kinds = [c[f"kind_{i}"] for i in range(n)]
    t = np.array([stacked_stages_targets()[k][i] for i, k in enumerate(kinds)])
    w = np.array([SS_KIND_WEIGHT[k] for k in kinds])
    r = (t.sum() - SS_SCHEDULE_TARGET[c["schedule"]]) / (1.0 + SS_COUPLING * np.sum(1.0 / w))
    u = t - SS_COUPLING / w * r
    if np.any(np.abs(u) > 1.0):
        raise ValueError(f"stacked_stages: the minimiser of {dict(c)} leaves the bounds")
    return u


def _stacked_stages_suggest(trial: BaseTrial) -> dict[str, Any]:
    p: dict[str, Any] = {"n_stages": trial.suggest_int("n_stages", 1, SS_MAX_STAGES)}
    for i in range(p["n_stages"]):
        p[f"kind_{i}"] = trial.suggest_categorical(f"kind_{i}", list(SS_KINDS))
        p[f"gain_{i}"] = trial.suggest_float(f"gain_{i}", *SS_GAIN_BOUNDS, log=True)
    p["schedule"] = trial.suggest_categorical("schedule", list(SS_SCHEDULES))
    return p


def stacked_stages() -> StatedProblem:
    keys = ("n_stages", *(f"kind_{i}" for i in range(SS_MAX_STAGES)), "schedule")

    def combinations() -> list[dict[str, Any]]:
        return [
            {"n_stages": n, **{f"kind_{i}": k for i, k in enumerate(kinds)}, "schedule": s}
            for n in range(1, SS_MAX_STAGES + 1) for kinds in itertools.product(SS_KINDS, repeat=n) for s in SS_SCHEDULES
        ]

    def best_params(c: Params) -> dict[str, Any]:
        u = stacked_stages_argmin(c)
        return {**c, **{f"gain_{i}": float(10.0**v) for i, v in enumerate(u)}}

    def best(c: Params) -> float:
        return float(stacked_stages_value(best_params(c)))

    return StatedProblem(
        "stacked_stages", "conditional_int", _stacked_stages_suggest, stacked_stages_value, keys, combinations,
        best, lambda: best_params(min(combinations(), key=best)),
        description=(
            "n_stages int 1-4, then per stage a kind categorical (narrow/wide) and a log float gain in [0.1, 10]; schedule "
            "categorical (3) sets the target of the total gain: 0.5 (sum log10 gain - U)^2 couples the stages, each pulled to "
            "its own target with weight 3 (narrow) or 0.5 (wide); a base per stage count"
        ),
        optimum_method=(
            "per combination: the coupled quadratic's minimiser in closed form (inside the bounds, checked), its value added to "
            "the base and offsets; the optimum is the smallest over the 90 (n_stages, kinds, schedule), by enumeration"
        ),
        hardness=(
            "the per-stage parameters are coupled through their sum (a ridge, not a point per parameter), their number changes "
            "with an int, and the best kinds depend on the schedule"
        ),
        conditional=True,
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


def bit_branches() -> StatedProblem:
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

    return StatedProblem(
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
        return {**p, **suggest_floats(trial, PB_VALLEY_FLOATS[:(p["order"] + 1) // 2], *PB_VALLEY_BOUNDS)}
    p["scheme"] = trial.suggest_categorical("scheme", list(PB_SCHEMES))
    p["step"] = trial.suggest_float("step", *PB_STEP_BOUNDS, log=True)
    return {**p, "damping": trial.suggest_float("damping", 0.0, 1.0)}


def parity_branches() -> StatedProblem:
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

    return StatedProblem(
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
