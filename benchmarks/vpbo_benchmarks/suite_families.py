"""The broad suite's structured families (see :mod:`.suite`): ints and log scales next to a
categorical (``int_log_styblinski``), branches decided by a categorical (``branch_choice``,
``shared_branches``) or by an int (the MLP-style spaces, ``conv_blocks``), and the settings of
the real tuning tasks (their objectives, which import scikit-learn, are in
:mod:`.suite_real_tasks`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.problem import observe
from vpbo_benchmarks.suite_functions import ackley, levy, one_dimensional_minimum, rastrigin, styblinski_tang

# --------------------------------------------------------------------------------------------
# int_log_styblinski: ints, a log-scaled int and a log-scaled float next to a categorical
# --------------------------------------------------------------------------------------------

INT_LOG_SOLVERS = ("s0", "s1", "s2")
INT_LOG_INT_SHIFTS = ((1, -1), (0, 1), (-1, 0))  # per solver: where k1, k2 have their best
INT_LOG_LR_SHIFTS = (0.6, -0.8, 0.2)  # per solver: shift of u = 5 + 2 log10(lr)
INT_LOG_WIDTH_TARGETS = (3, 8, 5)  # per solver: best log2(width)
INT_LOG_OFFSETS = (1.0, 0.0, 0.5)
INT_LOG_HEIGHT = 0.1  # scale of each Styblinski-Tang term
INT_LOG_K_BOUNDS = (-5, 5)
INT_LOG_WIDTH_BOUNDS = (1, 1024)
INT_LOG_LR_BOUNDS = (1e-5, 1.0)


def _styblinski_1d(z: float) -> float:
    return float(INT_LOG_HEIGHT * styblinski_tang(np.array([z])))


def int_log_value(params: Mapping[str, Any]) -> float:
    h = INT_LOG_SOLVERS.index(params["solver"])
    u = 5.0 + 2.0 * math.log10(params["lr"])
    return (
        _styblinski_1d(params["k1"] - INT_LOG_INT_SHIFTS[h][0])
        + _styblinski_1d(params["k2"] - INT_LOG_INT_SHIFTS[h][1])
        + _styblinski_1d(u - INT_LOG_LR_SHIFTS[h])
        + 0.5 * (math.log2(params["width"]) - INT_LOG_WIDTH_TARGETS[h]) ** 2
        + INT_LOG_OFFSETS[h]
    )


def int_log_best(solver: str) -> tuple[dict[str, Any], float]:
    """The best point and value of one solver: the int terms by enumeration, the lr term at
    Styblinski-Tang's continuous argmin (inside the bounds), the width at its power of two."""
    h = INT_LOG_SOLVERS.index(solver)
    ks = range(INT_LOG_K_BOUNDS[0], INT_LOG_K_BOUNDS[1] + 1)
    k1 = min(ks, key=lambda k: _styblinski_1d(k - INT_LOG_INT_SHIFTS[h][0]))
    k2 = min(ks, key=lambda k: _styblinski_1d(k - INT_LOG_INT_SHIFTS[h][1]))
    u = one_dimensional_minimum("styblinski_tang")[0] + INT_LOG_LR_SHIFTS[h]
    point = {"solver": solver, "k1": k1, "k2": k2, "width": 2 ** INT_LOG_WIDTH_TARGETS[h], "lr": 10.0 ** ((u - 5.0) / 2.0)}
    return point, int_log_value(point)


def int_log_objective(trial: BaseTrial) -> float:
    return int_log_value({
        "solver": trial.suggest_categorical("solver", list(INT_LOG_SOLVERS)),
        "k1": trial.suggest_int("k1", *INT_LOG_K_BOUNDS),
        "k2": trial.suggest_int("k2", *INT_LOG_K_BOUNDS),
        "width": trial.suggest_int("width", *INT_LOG_WIDTH_BOUNDS, log=True),
        "lr": trial.suggest_float("lr", *INT_LOG_LR_BOUNDS, log=True),
    })


# --------------------------------------------------------------------------------------------
# branch_choice: a categorical decides the branch; one branch holds a nested categorical
# --------------------------------------------------------------------------------------------

BRANCHES = ("bowl", "ackley", "levy", "rastrigin")
BRANCH_ACKLEY_VARIANTS = ("v0", "v1", "v2")
BRANCH_ACKLEY_SHIFTS = ((1.0, -0.5, 0.3), (-1.2, 0.8, 0.0), (0.4, 1.1, -1.3))
BRANCH_ACKLEY_OFFSETS = (0.2, 0.0, 0.35)
BRANCH_BOWL_FLOOR = 0.8  # the trap: smooth, good on average, a poor best
BRANCH_ACKLEY_FLOOR = 0.4
BRANCH_RASTRIGIN_FLOOR = 0.3
BRANCH_LEVY_CENTRE = (2.5, -1.5, 4.0)  # (l1, l2, l3): the global optimum 0


def branch_choice_value(p: Mapping[str, Any]) -> float:
    branch = p["branch"]
    if branch == "bowl":
        return BRANCH_BOWL_FLOOR + 2.0 * ((p["bowl_x"] - 0.3) ** 2 + (p["bowl_y"] - 0.6) ** 2)
    if branch == "ackley":
        v = BRANCH_ACKLEY_VARIANTS.index(p["ackley_variant"])
        z = np.array([p["a1"], p["a2"], p["a3"]]) - np.array(BRANCH_ACKLEY_SHIFTS[v])
        return BRANCH_ACKLEY_FLOOR + BRANCH_ACKLEY_OFFSETS[v] + 0.15 * float(ackley(z))
    if branch == "levy":
        z = np.array([p["l1"], p["l2"], p["l3"]], dtype=float) - np.array(BRANCH_LEVY_CENTRE)
        return 0.08 * float(levy(z))
    z = np.array([math.log10(p["r_lr"]) + 2.2, (p["r_n"] - 7) / 2.0])
    return BRANCH_RASTRIGIN_FLOOR + 0.02 * float(rastrigin(z))


def branch_choice_objective(trial: BaseTrial) -> float:
    p: dict[str, Any] = {"branch": trial.suggest_categorical("branch", list(BRANCHES))}
    if p["branch"] == "bowl":
        p.update(bowl_x=trial.suggest_float("bowl_x", 0.0, 1.0), bowl_y=trial.suggest_float("bowl_y", 0.0, 1.0))
    elif p["branch"] == "ackley":
        p["ackley_variant"] = trial.suggest_categorical("ackley_variant", list(BRANCH_ACKLEY_VARIANTS))
        p.update({f"a{i}": trial.suggest_float(f"a{i}", -3.0, 3.0) for i in (1, 2, 3)})
    elif p["branch"] == "levy":
        p.update(l1=trial.suggest_float("l1", -10.0, 10.0), l2=trial.suggest_float("l2", -10.0, 10.0))
        p["l3"] = trial.suggest_int("l3", -10, 10)
    else:
        p.update(r_lr=trial.suggest_float("r_lr", 1e-4, 1.0, log=True), r_n=trial.suggest_int("r_n", 1, 20))
    return branch_choice_value(p)


def branch_choice_combination_best(combination: Mapping[str, Any]) -> float:
    branch = combination["branch"]
    if branch == "ackley":
        return BRANCH_ACKLEY_FLOOR + BRANCH_ACKLEY_OFFSETS[BRANCH_ACKLEY_VARIANTS.index(combination["ackley_variant"])]
    return {"bowl": BRANCH_BOWL_FLOOR, "levy": 0.0, "rastrigin": BRANCH_RASTRIGIN_FLOOR}[branch]


# --------------------------------------------------------------------------------------------
# shared_branches: shared floats whose optimum moves with a categorical "kernel"; each kernel
# opens its own parameter (an int, a log float, a nested categorical, a float, or none)
# --------------------------------------------------------------------------------------------

SHARED_KERNELS = ("linear", "poly", "rbf", "matern", "periodic")
SHARED_SHIFTS = ((1.5, -2.0), (-0.5, 1.0), (2.2, 0.7), (-1.8, -1.1), (0.3, 2.5))
SHARED_OFFSETS = (2.0, 0.5, 0.0, 0.0, 0.8)
SHARED_MATERN_NU = ("0.5", "1.5", "2.5")
SHARED_MATERN_OFFSETS = (1.2, 0.4, 0.7)
SHARED_HEIGHT = 0.25


def shared_branches_value(p: Mapping[str, Any]) -> float:
    k = SHARED_KERNELS.index(p["kernel"])
    value = SHARED_HEIGHT * float(rastrigin(np.array([p["s1"], p["s2"]]) - np.array(SHARED_SHIFTS[k])))
    value += SHARED_OFFSETS[k]
    if p["kernel"] == "poly":
        value += 0.3 * (p["degree"] - 3) ** 2
    elif p["kernel"] == "rbf":
        value += 0.5 * (math.log10(p["gamma"]) + 1.3) ** 2
    elif p["kernel"] == "matern":
        value += SHARED_MATERN_OFFSETS[SHARED_MATERN_NU.index(p["nu"])]
    elif p["kernel"] == "periodic":
        value += (p["period"] - 1.7) ** 2
    return value


def shared_branches_objective(trial: BaseTrial) -> float:
    p: dict[str, Any] = {"kernel": trial.suggest_categorical("kernel", list(SHARED_KERNELS))}
    p.update(s1=trial.suggest_float("s1", -5.0, 5.0), s2=trial.suggest_float("s2", -5.0, 5.0))
    if p["kernel"] == "poly":
        p["degree"] = trial.suggest_int("degree", 1, 6)
    elif p["kernel"] == "rbf":
        p["gamma"] = trial.suggest_float("gamma", 1e-4, 10.0, log=True)
    elif p["kernel"] == "matern":
        p["nu"] = trial.suggest_categorical("nu", list(SHARED_MATERN_NU))
    elif p["kernel"] == "periodic":
        p["period"] = trial.suggest_float("period", 0.1, 5.0)
    return shared_branches_value(p)


def shared_branches_combination_best(combination: Mapping[str, Any]) -> float:
    k = SHARED_KERNELS.index(combination["kernel"])
    nu = SHARED_MATERN_OFFSETS[SHARED_MATERN_NU.index(combination["nu"])] if combination["kernel"] == "matern" else 0.0
    return SHARED_OFFSETS[k] + nu


# --------------------------------------------------------------------------------------------
# MLP-style spaces decided by an int: n_layers, then units_i and dropout_i for i < n_layers
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MLPDesign:
    """A synthetic validation loss of an MLP; every table is indexed by the layer count n (1-4).

    loss = base[n] + sum_{i<n} (unit_weight[n] (log2 units_i - unit_targets[n][i])^2
    + dropout_weight[n] (dropout_i - dropout_targets[n][i])^2) + lr_term(log10 lr - lr*)
    + optimizer_offsets[opt] + batch_weight (log2 batch - 6)^2, with
    lr* = lr_targets[opt] + lr_batch_slope * (log2 batch - 6) (the linear scaling rule) and
    lr_term(d) = 0.08 d^2 + 0.02 (1 - cos(4 pi d)) (side minima at d = +-0.5).
    Deeper nets have a lower base but narrower basins, so one layer is a good average (a trap)."""

    base: tuple[float, float, float, float]
    unit_weight: tuple[float, float, float, float]
    unit_targets: tuple[tuple[int, ...], ...]  # log2 of the best units (powers of two in 16..512)
    dropout_weight: tuple[float, float, float, float]
    dropout_targets: tuple[tuple[float, ...], ...]
    lr_targets: tuple[float, float, float, float]  # per optimiser, log10
    optimizer_offsets: tuple[float, float, float, float]
    lr_batch_slope: float = 0.15
    batch_weight: float = 0.005


MLP_OPTIMIZERS = ("sgd", "momentum", "adam", "rmsprop")
MLP_BATCH_SIZES = (16, 32, 64, 128, 256)
MLP_MAX_LAYERS = 4
MLP_UNITS_BOUNDS = (16, 512)
MLP_LR_BOUNDS = (1e-5, 1e-1)

MLP_SYNTHETIC = MLPDesign(
    base=(0.30, 0.19, 0.12, 0.15),
    unit_weight=(0.002, 0.006, 0.012, 0.02),
    unit_targets=((7,), (8, 6), (9, 8, 6), (9, 8, 7, 5)),
    dropout_weight=(0.1, 0.3, 0.6, 0.8),
    dropout_targets=((0.1,), (0.2, 0.1), (0.3, 0.2, 0.1), (0.4, 0.3, 0.2, 0.1)),
    lr_targets=(-1.3, -1.8, -3.0, -3.3),
    optimizer_offsets=(0.06, 0.03, 0.0, 0.015),
)
# A different instance for the noisy family: best at two layers and RMSprop.
NOISY_MLP = MLPDesign(
    base=(0.25, 0.11, 0.14, 0.18),
    unit_weight=(0.003, 0.01, 0.015, 0.02),
    unit_targets=((6,), (9, 5), (8, 7, 6), (9, 9, 6, 4)),
    dropout_weight=(0.2, 0.5, 0.6, 0.7),
    dropout_targets=((0.0,), (0.35, 0.15), (0.25, 0.25, 0.05), (0.45, 0.3, 0.2, 0.0)),
    lr_targets=(-1.5, -2.1, -2.8, -3.6),
    optimizer_offsets=(0.05, 0.035, 0.01, 0.0),
)
NOISY_MLP_SD = 0.01


def mlp_value(design: MLPDesign, p: Mapping[str, Any]) -> float:
    n = p["n_layers"]
    loss = design.base[n - 1] + mlp_combination_offset(design, p)
    for i in range(n):
        loss += design.unit_weight[n - 1] * (math.log2(p[f"units_{i}"]) - design.unit_targets[n - 1][i]) ** 2
        loss += design.dropout_weight[n - 1] * (p[f"dropout_{i}"] - design.dropout_targets[n - 1][i]) ** 2
    d = math.log10(p["lr"]) - mlp_best_log_lr(design, p)
    return loss + 0.08 * d * d + 0.02 * (1.0 - math.cos(4.0 * math.pi * d))


def mlp_combination_offset(design: MLPDesign, p: Mapping[str, Any]) -> float:
    batch_term = design.batch_weight * (math.log2(p["batch_size"]) - 6.0) ** 2
    return design.optimizer_offsets[MLP_OPTIMIZERS.index(p["optimizer"])] + batch_term


def mlp_best_log_lr(design: MLPDesign, p: Mapping[str, Any]) -> float:
    return design.lr_targets[MLP_OPTIMIZERS.index(p["optimizer"])] + design.lr_batch_slope * (math.log2(p["batch_size"]) - 6.0)


def mlp_best_point(design: MLPDesign, combination: Mapping[str, Any]) -> dict[str, Any]:
    """The best point of one (n_layers, optimizer, batch_size): every penalty at 0."""
    n = combination["n_layers"]
    point = dict(combination)
    for i in range(n):
        point[f"units_{i}"] = 2 ** design.unit_targets[n - 1][i]
        point[f"dropout_{i}"] = design.dropout_targets[n - 1][i]
    point["lr"] = 10.0 ** mlp_best_log_lr(design, combination)
    return point


def mlp_objective(design: MLPDesign, noise_sd: float = 0.0) -> Callable[[BaseTrial], float]:
    def objective(trial: BaseTrial) -> float:
        p: dict[str, Any] = {"n_layers": trial.suggest_int("n_layers", 1, MLP_MAX_LAYERS)}
        for i in range(p["n_layers"]):
            p[f"units_{i}"] = trial.suggest_int(f"units_{i}", *MLP_UNITS_BOUNDS, log=True)
            p[f"dropout_{i}"] = trial.suggest_float(f"dropout_{i}", 0.0, 0.5)
        p["optimizer"] = trial.suggest_categorical("optimizer", list(MLP_OPTIMIZERS))
        p["batch_size"] = trial.suggest_categorical("batch_size", list(MLP_BATCH_SIZES))
        p["lr"] = trial.suggest_float("lr", *MLP_LR_BOUNDS, log=True)
        return observe(trial, mlp_value(design, p), noise_sd)

    return objective


# --------------------------------------------------------------------------------------------
# conv_blocks: n_blocks in 0..4 decides how many (kernel_i, width_i) pairs exist
# --------------------------------------------------------------------------------------------

CONV_MAX_BLOCKS = 4
CONV_BASE = (1.0, 0.6, 0.35, 0.2, 0.25)  # per n_blocks 0..4
CONV_KERNELS = (1, 3, 5, 7)
CONV_KERNEL_TARGETS = (7, 5, 3, 3)  # per block index
CONV_KERNEL_COST = 0.04  # per step of kernel index away from the target
CONV_WIDTH_BOUNDS = (8, 256)
CONV_WIDTH_TARGETS = (5, 6, 7, 8)  # log2 of the best width per block index
CONV_ACTIVATIONS = ("relu", "gelu", "tanh", "sigmoid")
CONV_ACTIVATION_OFFSETS = (0.02, 0.0, 0.06, 0.1)
CONV_DECAY_TARGETS = (-4.0, -3.5, -2.5, -2.0)  # log10 weight decay per activation
CONV_DECAY_BOUNDS = (1e-6, 1e-1)


def conv_blocks_value(p: Mapping[str, Any]) -> float:
    value = CONV_BASE[p["n_blocks"]] + conv_combination_offset(p)
    for i in range(p["n_blocks"]):
        value += 0.03 * float(ackley(np.array([math.log2(p[f"width_{i}"]) - CONV_WIDTH_TARGETS[i]])))
    a = CONV_ACTIVATIONS.index(p["activation"])
    return value + 0.005 * float(rastrigin(np.array([math.log10(p["weight_decay"]) - CONV_DECAY_TARGETS[a]])))


def conv_combination_offset(p: Mapping[str, Any]) -> float:
    """Kernel costs of the active blocks plus the activation's offset (width and decay at 0)."""
    cost = sum(
        CONV_KERNEL_COST * abs(CONV_KERNELS.index(p[f"kernel_{i}"]) - CONV_KERNELS.index(CONV_KERNEL_TARGETS[i]))
        for i in range(p["n_blocks"])
    )
    return cost + CONV_ACTIVATION_OFFSETS[CONV_ACTIVATIONS.index(p["activation"])]


def conv_blocks_objective(trial: BaseTrial) -> float:
    p: dict[str, Any] = {"n_blocks": trial.suggest_int("n_blocks", 0, CONV_MAX_BLOCKS)}
    for i in range(p["n_blocks"]):
        p[f"kernel_{i}"] = trial.suggest_categorical(f"kernel_{i}", list(CONV_KERNELS))
        p[f"width_{i}"] = trial.suggest_int(f"width_{i}", *CONV_WIDTH_BOUNDS, log=True)
    p["activation"] = trial.suggest_categorical("activation", list(CONV_ACTIVATIONS))
    p["weight_decay"] = trial.suggest_float("weight_decay", *CONV_DECAY_BOUNDS, log=True)
    return conv_blocks_value(p)


def conv_best_point(combination: Mapping[str, Any]) -> dict[str, Any]:
    point = dict(combination)
    for i in range(combination["n_blocks"]):
        point[f"width_{i}"] = 2 ** CONV_WIDTH_TARGETS[i]
    point["weight_decay"] = 10.0 ** CONV_DECAY_TARGETS[CONV_ACTIVATIONS.index(combination["activation"])]
    return point


# --------------------------------------------------------------------------------------------
# Real tuning tasks on data that ships with scikit-learn (no known optimum): their settings
# --------------------------------------------------------------------------------------------

HGB_MAX_ITER = 30
HGB_N_FOLDS = 3
HGB_MAX_BINS = (15, 31, 63, 127, 255)
HGB_CLASS_WEIGHTS = ("none", "balanced")
SVR_KERNELS = ("linear", "poly", "rbf", "sigmoid")
SVR_N_FOLDS = 5
SVR_MAX_ITER = 20_000  # libsvm iteration cap: one evaluation stays under a second
SVR_MSE_CAP = 2.0  # twice the variance of the standardised target: diverged fits are capped here
REAL_CV_SEED = 0
