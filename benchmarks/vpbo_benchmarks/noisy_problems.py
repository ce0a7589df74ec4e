"""Problems observed with noise that depends on the point, each with its law: ``hetero_branin``
(Gaussian, its sd set by a level), ``noisy_batch`` (Student-t, growing as the batch shrinks:
:func:`student_t_noise`) and ``skewed_salomon`` (a centred gamma, growing with the rate:
:func:`centred_gamma_noise`). The noiseless value goes to the user attribute
``problem.NOISELESS_ATTR``. The sets that hold them: :mod:`.held_out_sets`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.landscape_parts import (
    levels_over_a_plane,
    stated_offsets,
    suggest_levels,
)
from vpbo_benchmarks.problem import noise_generator
from vpbo_benchmarks.specs import Params, StatedProblem, product_combinations

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


def hetero_branin_argmin(device: int, mode: int) -> np.ndarray:
    return np.array(BRANIN_ARGMIN) + hetero_branin_shift(device, mode)


def hetero_branin() -> StatedProblem:
    return levels_over_a_plane(
        "hetero_branin", "noisy", ("device", "mode"), (HB_N_DEVICES, HB_N_MODES), (HB_X1_BOUNDS, HB_X2_BOUNDS),
        hetero_branin_value, hetero_branin_offset, hetero_branin_argmin,
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
            "offset": stated_offsets(rng, (0.05, 0.0, 0.03), (0.0, 0.025), 0.02)}


def student_t_noise(trial: BaseTrial, sd: float) -> float:
    """Student-t noise (NB_T_DOF dof) scaled to sd ``sd``, drawn from the trial's
    ``problem.noise_generator``."""
    draw = float(noise_generator(trial).standard_t(NB_T_DOF))
    return sd * draw / math.sqrt(NB_T_DOF / (NB_T_DOF - 2))


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


def noisy_batch() -> StatedProblem:
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
        p = suggest_levels(trial, keys, [NB_OPTIMIZERS, NB_SCHEDULES])
        p["batch"] = trial.suggest_int("batch", *NB_BATCH, log=True)
        return {**p, "lr": trial.suggest_float("lr", *NB_LR, log=True), "warmup": trial.suggest_float("warmup", *NB_WARMUP)}

    return StatedProblem(
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
        noise=student_t_noise,
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
SS_NOISE_SALT = 2719  # keeps these noise draws apart from another problem's at the same trial and parameters


@functools.cache
def skewed_salomon_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2717)
    offset = stated_offsets(rng, (0.03, 0.0, 0.05), (0.0, 0.02), 0.015)
    return {"rate": rng.uniform(-3.5, -1.5, 3), "momentum": rng.uniform(0.5, 0.95, 2),  # per arch; per norm
            "dropout": rng.uniform(0.1, 0.4, 3), "offset": offset}  # per arch; per (arch, norm)


def centred_gamma_noise(trial: BaseTrial, sd: float) -> float:
    """Centred gamma noise of sd ``sd`` ((Gamma(k) - k) / sqrt k, k = SS_GAMMA_SHAPE: mean 0, a
    long upper tail), drawn from the trial's ``problem.noise_generator`` salted with SS_NOISE_SALT."""
    draw = float(noise_generator(trial, SS_NOISE_SALT).gamma(SS_GAMMA_SHAPE))
    return sd * (draw - SS_GAMMA_SHAPE) / math.sqrt(SS_GAMMA_SHAPE)


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


def skewed_salomon() -> StatedProblem:
    keys = ("arch", "norm")
    combinations = functools.partial(product_combinations, keys, [SS_ARCHS, SS_NORMS])

    def best(c: Params) -> float:
        return float(skewed_salomon_tables()["offset"][SS_ARCHS.index(c["arch"]), SS_NORMS.index(c["norm"])])

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        return {**c, **dict(zip(("rate", "momentum", "dropout"), skewed_salomon_target(c["arch"], c["norm"])))}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = suggest_levels(trial, keys, [SS_ARCHS, SS_NORMS])
        p["rate"] = trial.suggest_float("rate", *SS_RATE, log=True)
        p["momentum"] = trial.suggest_float("momentum", *SS_MOMENTUM)
        return {**p, "dropout": trial.suggest_float("dropout", *SS_DROPOUT)}

    return StatedProblem(
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
        noise=centred_gamma_noise,
    )
