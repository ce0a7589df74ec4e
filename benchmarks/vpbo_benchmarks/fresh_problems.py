"""The fresh held-out set of issue 21: eight new synthetic problems of the broad suite's families.

Written before any tuning of issue 21 and not to be run by any sampler study until that tuning is
over (docs/suite.md, "The fresh held-out set"). Registered by :mod:`.suite` as the group
``FRESH_HELD_OUT`` (``HALVES["fresh_held_out"]``) and, through ``SUITE_FACTORIES``, in
:mod:`.problems`.

Every problem is written as a noiseless ``value(params)`` plus a define-by-run ``suggest(trial)``.
``value`` is vectorised over its numeric parameters (NumPy arrays broadcast, the categorical and
branch-deciding parameters are scalars), so that the tests can search each combination's numeric
part on a dense grid or with SciPy independently of the stated optimum. Each combination's best
value is stated by construction (every numeric penalty is >= 0 and 0 at a point inside the bounds),
by a closed form (``stacked_stages``) or by a bounded enumeration (``tilted_lattice``); the
optimum is the smallest combination best, by enumeration.

This module imports nothing from :mod:`.suite` at import time (suite.py imports it at its end);
:func:`fresh_specs` builds the :class:`~.suite.SuiteSpec` objects when suite.py asks for them.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import optuna

Params = Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class FreshProblem:
    """A fresh problem: ``suggest`` asks the trial for its parameters and returns them,
    ``value`` is the noiseless objective, ``noise_sd`` the observation noise at a point (None:
    noiseless); the rest as in :class:`~.suite.SuiteSpec`."""

    name: str
    family: str
    suggest: Callable[[optuna.Trial], dict[str, Any]]
    value: Callable[[Params], Any]
    combination_keys: tuple[str, ...]
    combinations: Callable[[], list[dict[str, Any]]]
    combination_best: Callable[[Params], float]
    best_point: Callable[[], dict[str, Any]]
    description: str
    optimum_method: str
    hardness: str
    conditional: bool = False
    noise_sd: Callable[[Params], float] | None = None
    max_noise_sd: float = 0.0


def _product_combinations(keys: Sequence[str], levels: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    return [dict(zip(keys, values)) for values in itertools.product(*levels)]


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


def _rotated_griewank_suggest(trial: optuna.Trial) -> dict[str, Any]:
    return {
        "angle": trial.suggest_categorical("angle", list(range(RG_N_ANGLES))),
        "stretch": trial.suggest_categorical("stretch", list(range(len(RG_STRETCHES)))),
        "x1": trial.suggest_float("x1", *RG_BOUNDS),
        "x2": trial.suggest_float("x2", *RG_BOUNDS),
    }


def _rotated_griewank() -> FreshProblem:
    keys = ("angle", "stretch")
    combinations = functools.partial(_product_combinations, keys, [range(RG_N_ANGLES), range(len(RG_STRETCHES))])

    def best(c: Params) -> float:
        return rotated_griewank_offset(c["angle"], c["stretch"])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        x = rotated_griewank_argmin(c["angle"], c["stretch"])
        return {**c, "x1": float(x[0]), "x2": float(x[1])}

    return FreshProblem(
        "rotated_griewank", "shifted", _rotated_griewank_suggest, rotated_griewank_value, keys, combinations,
        best, best_point,
        description="Griewank (input x3) over 2 floats in [-10, 10]; categorical angle (6) rotates the coordinates, stretch (4) stretches one rotated axis 1-4x; both shift the optimum and add offsets with an interaction table",
        optimum_method="Griewank >= 0 with its only zero at 0, reached inside the bounds for every combination; the optimum is the smallest offset over the 24 combinations, by enumeration",
        hardness="the categoricals change the orientation and conditioning of a rippled surface, not only its position: per-combination lengthscales along non-axis directions",
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


def _lowrank_valley_suggest(trial: optuna.Trial) -> dict[str, Any]:
    return {
        "row": trial.suggest_categorical("row", list(range(LV_ROWS))),
        "col": trial.suggest_categorical("col", list(range(LV_COLS))),
        "x1": trial.suggest_float("x1", *LV_BOUNDS),
        "x2": trial.suggest_float("x2", *LV_BOUNDS),
    }


def _lowrank_valley() -> FreshProblem:
    keys = ("row", "col")
    combinations = functools.partial(_product_combinations, keys, [range(LV_ROWS), range(LV_COLS)])

    def best(c: Params) -> float:
        return lowrank_valley_offset(c["row"], c["col"])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        x = lowrank_valley_argmin(c["row"], c["col"])
        return {**c, "x1": float(x[0]), "x2": float(x[1])}

    return FreshProblem(
        "lowrank_valley", "many_levels", _lowrank_valley_suggest, lowrank_valley_value, keys, combinations,
        best, best_point,
        description="categoricals row (24 levels) and col (12); offset 0.8 |u_row - v_col|^2 + per-level terms from latent 2-D embeddings; a Rosenbrock valley over 2 floats in [-2.5, 2.5] centred at 0.6 (u_row + v_col)",
        optimum_method="the Rosenbrock term is >= 0 and 0 at its centre, inside the bounds for every combination; the optimum is the smallest offset over the 288 combinations, by enumeration",
        hardness="288 combinations whose good pairs are matched rows and columns (a low-rank interaction, neither additive nor random) and a curved valley in the numeric part",
    )


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


def _tilted_lattice_suggest(trial: optuna.Trial) -> dict[str, Any]:
    return {
        "scheme": trial.suggest_categorical("scheme", list(range(TL_N_SCHEMES))),
        "k1": trial.suggest_int("k1", *TL_K_BOUNDS),
        "k2": trial.suggest_int("k2", *TL_K_BOUNDS),
        "n": trial.suggest_int("n", *TL_N_BOUNDS, log=True),
        "alpha": trial.suggest_float("alpha", *TL_ALPHA_BOUNDS, log=True),
    }


def _tilted_lattice() -> FreshProblem:
    keys = ("scheme",)
    combinations = functools.partial(_product_combinations, keys, [range(TL_N_SCHEMES)])

    def best(c: Params) -> float:
        return tilted_lattice_best(c["scheme"])[1]

    return FreshProblem(
        "tilted_lattice", "int_log", _tilted_lattice_suggest, tilted_lattice_value, keys, combinations, best,
        lambda: dict(min((tilted_lattice_best(s) for s in range(TL_N_SCHEMES)), key=lambda pv: pv[1])[0]),
        description="scheme categorical (4); ints k1, k2 in [0, 30] under a tilted quadratic of condition number 15 centred off the lattice; log int n in [1, 4096] with a target 2^t, t not an integer; log float alpha in [1e-6, 1] with a cosine ripple in log10",
        optimum_method="per scheme: (k1, k2) by search within 6 cells of the quadratic's centre, n among floor/ceil of 2^t, alpha at its target (the ripple and the quadratic are both 0 there); then the best scheme",
        hardness="the integer optimum of a tilted ill-conditioned quadratic is not the rounded continuous one; n must be found on a log-int axis between two powers of two",
    )


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


def _hash_resonance_suggest(trial: optuna.Trial) -> dict[str, Any]:
    p: dict[str, Any] = {"encoder": trial.suggest_categorical("encoder", list(HR_ENCODERS))}
    p["x1"] = trial.suggest_float("x1", *HR_X_BOUNDS)
    p["x2"] = trial.suggest_float("x2", *HR_X_BOUNDS)
    if p["encoder"] == "target":
        p["smoothing"] = trial.suggest_float("smoothing", *HR_SMOOTHING_BOUNDS, log=True)
    elif p["encoder"] == "hash":
        p["hash_fn"] = trial.suggest_categorical("hash_fn", list(HR_HASH_FNS))
        p["n_buckets"] = trial.suggest_int("n_buckets", *HR_BUCKET_BOUNDS, log=True)
    return p


def _hash_resonance() -> FreshProblem:
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

    return FreshProblem(
        "hash_resonance", "conditional_cat", _hash_resonance_suggest, hash_resonance_value,
        ("encoder", "hash_fn"), combinations, best, best_point,
        description="encoder categorical: onehot (broad bowl over the shared x1, x2; floor 0.25) / target (opens log float smoothing; 0.12) / hash (opens hash_fn categorical and log int n_buckets in [2, 1024]; 0 with murmur, 0.18 with xxhash, but only within ~0.3 octave of n_buckets = 160 / 40, else +0.8)",
        optimum_method="every penalty is >= 0 and 0 at a reachable point (n_buckets 160 and 40 are integers in range); the optimum is the smallest floor over the 4 leaves, by enumeration",
        hardness="trap: the best branch is the worst on average (+0.8 outside a narrow band of a log int, ~8 % of its range), the broad onehot and target bowls are better on average",
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


def _stacked_stages_suggest(trial: optuna.Trial) -> dict[str, Any]:
    p: dict[str, Any] = {"n_stages": trial.suggest_int("n_stages", 1, SS_MAX_STAGES)}
    for i in range(p["n_stages"]):
        p[f"kind_{i}"] = trial.suggest_categorical(f"kind_{i}", list(SS_KINDS))
        p[f"gain_{i}"] = trial.suggest_float(f"gain_{i}", *SS_GAIN_BOUNDS, log=True)
    p["schedule"] = trial.suggest_categorical("schedule", list(SS_SCHEDULES))
    return p


def _stacked_stages() -> FreshProblem:
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

    return FreshProblem(
        "stacked_stages", "conditional_int", _stacked_stages_suggest, stacked_stages_value, keys, combinations,
        best, lambda: best_params(min(combinations(), key=best)),
        description="n_stages int 1-4, then per stage a kind categorical (narrow/wide) and a log float gain in [0.1, 10]; schedule categorical (3) sets the target of the total gain: 0.5 (sum log10 gain - U)^2 couples the stages, each pulled to its own target with weight 3 (narrow) or 0.5 (wide); a base per stage count",
        optimum_method="per combination: the coupled quadratic's minimiser in closed form (inside the bounds, checked), its value added to the base and offsets; the optimum is the smallest over the 90 (n_stages, kinds, schedule), by enumeration",
        hardness="the per-stage parameters are coupled through their sum (a ridge, not a point per parameter), their number changes with an int, and the best kinds depend on the schedule",
        conditional=True,
    )


# --------------------------------------------------------------------------------------------
# hetero_branin (noisy): Branin's three minima per combination, noise that depends on a level
# --------------------------------------------------------------------------------------------

HB_N_DEVICES, HB_N_MODES = 5, 3
HB_X1_BOUNDS, HB_X2_BOUNDS = (-7.0, 12.0), (-2.0, 17.0)
HB_HEIGHT = 0.02
HB_DEVICE_OFFSET = (0.30, 0.22, 0.12, 0.0, 0.08)
HB_DEVICE_NOISE_SD = (0.02, 0.04, 0.08, 0.25, 0.15)  # the best device is the noisiest
HB_MODE_OFFSET = (0.05, 0.0, 0.12)
BRANIN_MINIMUM = 5.0 / (4.0 * math.pi)  # 0.397887..., at (-pi, 12.275), (pi, 2.275), (9.42478, 2.475)
BRANIN_ARGMIN = (math.pi, 2.275)


def branin(x1: Any, x2: Any) -> Any:
    """Branin-Hoo (a = 1, b = 5.1 / (4 pi^2), c = 5 / pi, r = 6, s = 10, t = 1 / (8 pi))."""
    return (x2 - 5.1 / (4.0 * math.pi**2) * x1**2 + 5.0 / math.pi * x1 - 6.0) ** 2 + 10.0 * (1.0 - 1.0 / (8.0 * math.pi)) * np.cos(x1) + 10.0


@functools.cache
def hetero_branin_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2106)
    return {
        "shift_device": rng.uniform(-1.0, 1.0, (HB_N_DEVICES, 2)),
        "shift_mode": rng.uniform(-1.0, 1.0, (HB_N_MODES, 2)),
        "interaction": rng.uniform(0.0, 0.06, (HB_N_DEVICES, HB_N_MODES)),
    }


def hetero_branin_shift(device: int, mode: int) -> np.ndarray:
    t = hetero_branin_tables()
    return t["shift_device"][device] + t["shift_mode"][mode]


def hetero_branin_offset(device: int, mode: int) -> float:
    return HB_DEVICE_OFFSET[device] + HB_MODE_OFFSET[mode] + float(hetero_branin_tables()["interaction"][device, mode])


def hetero_branin_value(p: Params) -> Any:
    s = hetero_branin_shift(p["device"], p["mode"])
    z1, z2 = np.asarray(p["x1"]) - s[0], np.asarray(p["x2"]) - s[1]
    return HB_HEIGHT * (branin(z1, z2) - BRANIN_MINIMUM) + hetero_branin_offset(p["device"], p["mode"])


def _hetero_branin_suggest(trial: optuna.Trial) -> dict[str, Any]:
    return {
        "device": trial.suggest_categorical("device", list(range(HB_N_DEVICES))),
        "mode": trial.suggest_categorical("mode", list(range(HB_N_MODES))),
        "x1": trial.suggest_float("x1", *HB_X1_BOUNDS),
        "x2": trial.suggest_float("x2", *HB_X2_BOUNDS),
    }


def _hetero_branin() -> FreshProblem:
    keys = ("device", "mode")
    combinations = functools.partial(_product_combinations, keys, [range(HB_N_DEVICES), range(HB_N_MODES)])

    def best(c: Params) -> float:
        return hetero_branin_offset(c["device"], c["mode"])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        s = hetero_branin_shift(c["device"], c["mode"])
        return {**c, "x1": BRANIN_ARGMIN[0] + float(s[0]), "x2": BRANIN_ARGMIN[1] + float(s[1])}

    return FreshProblem(
        "hetero_branin", "noisy", _hetero_branin_suggest, hetero_branin_value, keys, combinations, best, best_point,
        description="0.02 (Branin - its minimum) over x1 in [-7, 12], x2 in [-2, 17], shifted by device (5) and mode (3), plus offsets; Gaussian noise whose sd depends on the device (0.02-0.25; the best device has sd 0.25)",
        optimum_method="Branin minus its minimum 5 / (4 pi) is >= 0 and 0 at three points, all inside the bounds for every shift; the optimum is the smallest offset over the 15 combinations, by enumeration",
        hardness="heteroscedastic noise: the best device is the noisiest (sd 0.25 against offset gaps of 0.08-0.12), and Branin has three equal minima per combination",
        noise_sd=lambda p: HB_DEVICE_NOISE_SD[p["device"]], max_noise_sd=max(HB_DEVICE_NOISE_SD),
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
    return decoy_funnel_floor(basin, lens) + DF_BASIN_DEPTH[basin] * (1.0 - np.exp(-r2 / (2.0 * width**2))) + DF_SLOPE * np.sqrt(r2)


def _decoy_funnel_suggest(trial: optuna.Trial) -> dict[str, Any]:
    return {
        "basin": trial.suggest_categorical("basin", list(range(DF_N_BASINS))),
        "lens": trial.suggest_categorical("lens", list(range(DF_N_LENSES))),
        "x1": trial.suggest_float("x1", *DF_BOUNDS),
        "x2": trial.suggest_float("x2", *DF_BOUNDS),
    }


def _decoy_funnel() -> FreshProblem:
    keys = ("basin", "lens")
    combinations = functools.partial(_product_combinations, keys, [range(DF_N_BASINS), range(DF_N_LENSES)])

    def best(c: Params) -> float:
        return decoy_funnel_floor(c["basin"], c["lens"])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        x = decoy_funnel_centre(c["basin"], c["lens"])
        return {**c, "x1": float(x[0]), "x2": float(x[1])}

    return FreshProblem(
        "decoy_funnel", "shifted", _decoy_funnel_suggest, decoy_funnel_value, keys, combinations, best, best_point,
        description="categoricals basin (4) and lens (5) over 2 floats in [-1, 1]: floor + D (1 - exp(-r^2 / 2 w^2)) + 0.2 r around a centre set by both; basin 0 has the lowest floor and a deep needle (D 0.9, w 0.06-0.09), the other basins shallow broad bowls (D 0.3, w 0.28-0.75)",
        optimum_method="both penalties are >= 0 and 0 at the centre, inside the bounds for every combination; the optimum is the smallest floor over the 20 combinations, by enumeration",
        hardness="narrow basin: the best combinations are a plateau near 1 but for a well of width ~0.07 (about 0.5 % of the box), worse on average than every decoy, while the decoy basin 1 gives 0.35-0.6 over a broad bowl",
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
    return value + float(hidden_pair_tables()["offset"][p["p"], p["q"]])


def _hidden_pair_suggest(trial: optuna.Trial) -> dict[str, Any]:
    return {
        "p": trial.suggest_categorical("p", list(range(HP_LEVELS))),
        "q": trial.suggest_categorical("q", list(range(HP_LEVELS))),
        "x1": trial.suggest_float("x1", *HP_BOUNDS),
        "x2": trial.suggest_float("x2", *HP_BOUNDS),
    }


def _hidden_pair() -> FreshProblem:
    keys = ("p", "q")
    combinations = functools.partial(_product_combinations, keys, [range(HP_LEVELS), range(HP_LEVELS)])

    def best(c: Params) -> float:
        return float(hidden_pair_tables()["offset"][c["p"], c["q"]])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        s = hidden_pair_shift(c["p"], c["q"])
        return {**c, "x1": HIMMELBLAU_ARGMIN[0] + float(s[0]), "x2": HIMMELBLAU_ARGMIN[1] + float(s[1])}

    return FreshProblem(
        "hidden_pair", "many_levels", _hidden_pair_suggest, hidden_pair_value, keys, combinations, best, best_point,
        description="categoricals p and q (16 levels each), offsets additive a_p + b_q (+ U(0, 0.05)) except one pair of mid-ranked levels 0.3 below every other combination; 0.01 Himmelblau (four zeros) over 2 floats in [-6, 6], shifted per level",
        optimum_method="Himmelblau is >= 0 and 0 at (3, 2) (+ shift), inside the bounds for every combination; the optimum is the smallest offset over the 256 combinations, by enumeration",
        hardness="trap: the marginal effects point to the additive best (0.3 worse); only the pair of two mediocre levels, 1 of 256, is optimal, and the numeric part has four equal minima",
    )


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

FRESH_PROBLEMS: Mapping[str, FreshProblem] = {
    p.name: p
    for p in (
        _rotated_griewank(), _decoy_funnel(), _lowrank_valley(), _hidden_pair(), _tilted_lattice(),
        _hash_resonance(), _stacked_stages(), _hetero_branin(),
    )
}
# The problems built around a narrow basin or a trap (issue 21's concern: seeds that stay stuck).
NARROW_OR_TRAP: tuple[str, ...] = ("decoy_funnel", "hidden_pair", "hash_resonance")


def make_objective(problem: FreshProblem) -> Callable[[optuna.Trial], float]:
    """The Optuna objective: the noiseless value, plus the problem's noise where it has some
    (the noiseless value then goes to the user attribute suite.NOISELESS_ATTR)."""
    from vpbo_benchmarks.suite import _observe

    def objective(trial: optuna.Trial) -> float:
        params = problem.suggest(trial)
        value = float(problem.value(params))
        return _observe(trial, value, problem.noise_sd(params)) if problem.noise_sd is not None else value

    return objective


def fresh_specs() -> dict[str, Any]:
    """The :class:`~.suite.SuiteSpec` of every fresh problem (called by suite.py at its end)."""
    from vpbo_benchmarks.suite import SuiteSpec

    return {
        p.name: SuiteSpec(
            p.name, p.family, functools.partial(make_objective, p), p.combination_keys,
            optimum_method=p.optimum_method, description=p.description, conditional=p.conditional,
            noise_sd=p.max_noise_sd, combinations=p.combinations, combination_best=p.combination_best,
            best_point=p.best_point,
        )
        for p in FRESH_PROBLEMS.values()
    }
