"""Fresh held-out problems about the structure of the space: ``tilted_lattice`` (ints
and a log int), ``hash_resonance`` (a branch decided by a categorical), ``stacked_stages`` (by an
int) and ``hetero_branin`` (noise that depends on a level). The set, its rule and its registry:
:mod:`.fresh_problems`.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.specs import FreshProblem, Params, product_combinations

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


def tilted_lattice() -> FreshProblem:
    keys = ("scheme",)
    combinations = functools.partial(product_combinations, keys, [range(TL_N_SCHEMES)])

    def best(c: Params) -> float:
        return tilted_lattice_best(c["scheme"])[1]

    return FreshProblem(
        "tilted_lattice", "int_log", _tilted_lattice_suggest, tilted_lattice_value, keys, combinations, best,
        lambda: dict(min((tilted_lattice_best(s) for s in range(TL_N_SCHEMES)), key=lambda pv: pv[1])[0]),
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


def hash_resonance() -> FreshProblem:
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


def stacked_stages() -> FreshProblem:
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
    return (
        (x2 - 5.1 / (4.0 * math.pi**2) * x1**2 + 5.0 / math.pi * x1 - 6.0) ** 2
        + 10.0 * (1.0 - 1.0 / (8.0 * math.pi)) * np.cos(x1)
        + 10.0
    )


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


def _hetero_branin_suggest(trial: BaseTrial) -> dict[str, Any]:
    return {
        "device": trial.suggest_categorical("device", list(range(HB_N_DEVICES))),
        "mode": trial.suggest_categorical("mode", list(range(HB_N_MODES))),
        "x1": trial.suggest_float("x1", *HB_X1_BOUNDS),
        "x2": trial.suggest_float("x2", *HB_X2_BOUNDS),
    }


def hetero_branin() -> FreshProblem:
    keys = ("device", "mode")
    combinations = functools.partial(product_combinations, keys, [range(HB_N_DEVICES), range(HB_N_MODES)])

    def best(c: Params) -> float:
        return hetero_branin_offset(c["device"], c["mode"])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        s = hetero_branin_shift(c["device"], c["mode"])
        return {**c, "x1": BRANIN_ARGMIN[0] + float(s[0]), "x2": BRANIN_ARGMIN[1] + float(s[1])}

    return FreshProblem(
        "hetero_branin", "noisy", _hetero_branin_suggest, hetero_branin_value, keys, combinations, best, best_point,
        description=(
            "0.02 (Branin - its minimum) over x1 in [-7, 12], x2 in [-2, 17], shifted by device (5) and mode (3), plus offsets; "
            "Gaussian noise whose sd depends on the device (0.02-0.25; the best device has sd 0.25)"
        ),
        optimum_method=(
            "Branin minus its minimum 5 / (4 pi) is >= 0 and 0 at three points, all inside the bounds for every shift; the "
            "optimum is the smallest offset over the 15 combinations, by enumeration"
        ),
        hardness=(
            "heteroscedastic noise: the best device is the noisiest (sd 0.25 against offset gaps of 0.08-0.12), and Branin has "
            "three equal minima per combination"
        ),
        noise_sd=lambda p: HB_DEVICE_NOISE_SD[p["device"]], max_noise_sd=max(HB_DEVICE_NOISE_SD),
    )
