"""The learning-curve task sets, written before any tuning; docs/trial-states.md.

Pruning tasks, each under the pruner it runs with; every value is minimised. A trial reports
``trial.report(value, step)`` for steps 1..max_steps (a pruner's resource is counted in steps),
raises ``optuna.TrialPruned`` when ``trial.should_prune()``, and a complete trial's value is its
last report. A trial's compute is its number of reports times ``units_per_step``.

``MISLEADING_CURVE_TASKS`` (tuning data): synthetic curves, a known optimum at the final step and
a stated Spearman correlation between early and final values (``rank_correlations``), each under
MedianPruner and HyperbandPruner: mf-prior-bench's multi-fidelity Hartmann 6 with its "good",
"bad" and "terrible" presets (reproduced here and checked against the package, which needs
NumPy < 2), and analytic curves whose fast starters finish worse (``crossing_curves``).

``PRUNING_HELD_OUT_TASKS`` (the fresh set). The rule that chose it: unlike the trial-states
suite's pruning tasks (SGDClassifier on digits, MLPClassifier on make_classification, HGB and
XGBoost on breast cancer and wine), every task has data and a learner that no suite task uses, a
pruner or pruner resources that the suite does not (PercentilePruner, PatientPruner, Hyperband
with explicit min_resource / max_resource / reduction_factor), and a resource of its own (epochs
of a scheduled SGD, epochs of an MLP regressor, boosting rounds, trees of a forest, epochs of a
perceptron on random features, training rows of a kernel ridge). Four of the six are regressions;
in two the early steps mislead by construction (learning-rate warm-up, schedules and averaging;
a regulariser judged on few rows). A full trial takes well under 0.3 s on one core; splits and
model seeds are fixed, so a configuration always gives the same curve.
Rule of use: no sampler study (VPBO or a peer) runs on this set until the learning-curve model is frozen;
then it runs once, last.

In the lab: :mod:`.trial_states` registers both sets with its runner and report, as the groups
``misleading`` and ``fresh_pruning``. The scikit-learn tasks of the fresh set are in
:mod:`.pruning_models` (reached through :mod:`.lazy`), the shared curve reporting and budgets in
:mod:`.learning_curves`; the synthetic curves are here.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.trial import BaseTrial, FrozenTrial
from scipy.stats import spearmanr

from vpbo_benchmarks.lazy import deferred
from vpbo_benchmarks.learning_curves import (
    FOREST_STEPS,
    FOREST_TREES_PER_STEP,
    GBR_ROUNDS_PER_STEP,
    GBR_STEPS,
    MLP_EPOCHS,
    PERCEPTRON_EPOCHS,
    RIDGE_ROWS_PER_STEP,
    RIDGE_STEPS,
    SGD_EPOCHS,
    Objective,
    run_curve,
)
from vpbo_benchmarks.tuning_task import TrialStateTask

PrunerFactory = Callable[[], optuna.pruners.BasePruner]
MODELS_MODULE = "vpbo_benchmarks.pruning_models"


@dataclasses.dataclass(frozen=True)
class PruningTask(TrialStateTask):
    """A pruning task under its pruner: a ``TrialStateTask`` with ``pruner`` (a factory) and, for
    the misleading tasks, ``rank_correlations``: (step, Spearman correlation between the values at
    that step and the final values) as measured by :func:`rank_correlations`."""

    pruner: PrunerFactory = optuna.pruners.NopPruner
    rank_correlations: tuple[tuple[int, float], ...] = ()

    def compute(self, trial: FrozenTrial) -> int:
        """Units trained: reports times units per step."""
        return len(trial.intermediate_values) * (self.units_per_step or 1)


# --------------------------------------------------------------------------------------------
# Misleading curves: multi-fidelity Hartmann 6 (mf-prior-bench) in a mixed space
# --------------------------------------------------------------------------------------------

MFH_A = np.array([[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]])
MFH_P = 1e-4 * np.array([[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
                         [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]])
MFH_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
MFH_ARGMIN = (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573)  # mf-prior-bench's optimum
MFH_PRESETS = {"good": (2.5, 2.0), "bad": (3.5, 4.0), "terrible": (4.0, 5.0)}  # (bias, noise)
MFH_MAX_FIDELITY = 100
MFH_NOISE_SEED = 1337  # mf-prior-bench's default seed of the noise
MFH_STEPS = 20
MFH_FIDELITY_PER_STEP = MFH_MAX_FIDELITY // MFH_STEPS
MFH_MIRRORS = {"none": (), "first": (0, 1, 2), "last": (3, 4, 5)}  # coordinates reflected x -> 1 - x
MFH_SHIFTS = {  # level added at every fidelity, per (mirror, shift): the best pair is not the first
    ("none", "a"): 0.3, ("none", "b"): 0.2, ("none", "c"): 0.4,
    ("first", "a"): 0.1, ("first", "b"): 0.25, ("first", "c"): 0.0,
    ("last", "a"): 0.15, ("last", "b"): 0.05, ("last", "c"): 0.35,
}


def mf_hartmann6(z: int, xs: tuple[float, ...], bias: float, noise: float) -> float:
    """mf-prior-bench's ``MFHartmann6`` at fidelity z of 1..100: the weights alpha lowered by
    ``bias (1 - s)`` and ``|N(0, 1)| noise (1 - s)`` added, s = log z / log 100, the normal draw
    seeded by ``abs(1337 z hash(xs))`` as there; at z = 100 the Hartmann 6 function itself."""
    scaled = math.log(z) / math.log(MFH_MAX_FIDELITY)
    inner = np.sum(MFH_A * (np.asarray(xs) - MFH_P) ** 2, axis=1)
    hartmann = -float(np.sum((MFH_ALPHA - bias * (1.0 - scaled)) * np.exp(-inner)))
    draw = np.random.default_rng(abs(MFH_NOISE_SEED * z * hash(xs))).normal()
    return hartmann + abs(float(draw)) * noise * (1.0 - scaled)


def mfh_point(x: tuple[float, ...], mirror: str) -> tuple[float, ...]:
    """The Hartmann input of a configuration: the mirror's coordinates reflected."""
    return tuple(1.0 - v if i in MFH_MIRRORS[mirror] else v for i, v in enumerate(x))


def mfh_value(preset: str, params: dict[str, Any], step: int) -> float:
    """The value of a configuration (x0..x5, mirror, shift) after ``step`` steps."""
    bias, noise = MFH_PRESETS[preset]
    point = mfh_point(tuple(params[f"x{i}"] for i in range(6)), params["mirror"])
    return mf_hartmann6(step * MFH_FIDELITY_PER_STEP, point, bias, noise) + MFH_SHIFTS[params["mirror"], params["shift"]]


def mfh_best() -> tuple[dict[str, Any], float]:
    """The optimum at the final step: Hartmann 6's minimiser reflected by the best pair's mirror."""
    mirror, shift = min(MFH_SHIFTS, key=MFH_SHIFTS.__getitem__)
    point = mfh_point(MFH_ARGMIN, mirror)
    params: dict[str, Any] = {f"x{i}": v for i, v in enumerate(point)} | {"mirror": mirror, "shift": shift}
    return params, mf_hartmann6(MFH_MAX_FIDELITY, MFH_ARGMIN, 0.0, 0.0) + MFH_SHIFTS[mirror, shift]


def mfh_params(trial: BaseTrial) -> dict[str, Any]:
    params: dict[str, Any] = {f"x{i}": trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(6)}
    params["mirror"] = trial.suggest_categorical("mirror", list(MFH_MIRRORS))
    params["shift"] = trial.suggest_categorical("shift", ["a", "b", "c"])
    return params


def mfh_objective(preset: str) -> Callable[[], Objective]:
    def build() -> Objective:
        def objective(trial: BaseTrial) -> float:
            params = mfh_params(trial)
            return run_curve(trial, lambda step: mfh_value(preset, params, step), MFH_STEPS)

        return objective

    return build


# --------------------------------------------------------------------------------------------
# Misleading curves: analytic crossing curves
# --------------------------------------------------------------------------------------------

CROSSING_STEPS = 30
CROSSING_OPTIMIZERS = {"sgd": (-1.0, 0.10, 0.0), "momentum": (-1.5, 0.05, 0.5), "adam": (-2.5, 0.08, 1.0)}
# per optimizer: (best log10 lr, final floor, head start in decades of lr)
CROSSING_AMPLITUDE = 3.0  # how far above its final value a curve starts: the knob of the crossing
CROSSING_SPEED = 1.2  # per decade of lr above the best one, the log of the decay rate grows by this


def crossing_final(optimizer: str, lr: float, batch: int, decay: float) -> float:
    """The final value: a floor per optimizer plus quadratics in log10 lr, log2 batch and decay."""
    best_log_lr, floor, _ = CROSSING_OPTIMIZERS[optimizer]
    return floor + 0.15 * (math.log10(lr) - best_log_lr) ** 2 + 0.01 * (math.log2(batch) - 6.0) ** 2 + 0.2 * (decay - 0.7) ** 2


def crossing_value(optimizer: str, lr: float, batch: int, decay: float, step: int) -> float:
    """``final + amplitude h(step)``, h falling from about 1 to 0 at the last step at a rate that
    grows with lr above the best one, the optimizer's head start, small batches and little decay."""
    best_log_lr, _, head_start = CROSSING_OPTIMIZERS[optimizer]
    speed = (math.log10(lr) - best_log_lr) + head_start - 0.3 * (math.log2(batch) - 6.0) - decay
    rate = 2.0 * math.exp(CROSSING_SPEED * speed)
    fraction = step / CROSSING_STEPS
    remaining = (math.exp(-rate * fraction) - math.exp(-rate)) / -math.expm1(-rate)
    return crossing_final(optimizer, lr, batch, decay) + CROSSING_AMPLITUDE * remaining


def crossing_best() -> tuple[dict[str, Any], float]:
    optimizer = min(CROSSING_OPTIMIZERS, key=lambda o: CROSSING_OPTIMIZERS[o][1])
    params = {"optimizer": optimizer, "lr": 10.0 ** CROSSING_OPTIMIZERS[optimizer][0], "batch": 64, "decay": 0.7}
    return params, CROSSING_OPTIMIZERS[optimizer][1]


def crossing_objective() -> Objective:
    def objective(trial: BaseTrial) -> float:
        optimizer = trial.suggest_categorical("optimizer", list(CROSSING_OPTIMIZERS))
        lr = trial.suggest_float("lr", 1e-4, 1.0, log=True)
        batch = trial.suggest_int("batch", 8, 512, log=True)
        decay = trial.suggest_float("decay", 0.0, 1.0)
        return run_curve(trial, lambda step: crossing_value(optimizer, lr, batch, decay, step), CROSSING_STEPS)

    return objective



# --------------------------------------------------------------------------------------------
# The two sets
# --------------------------------------------------------------------------------------------


def median_pruner() -> optuna.pruners.BasePruner:
    return optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=3)


def hyperband_pruner(max_resource: int, min_resource: int = 1, reduction_factor: int = 3) -> PrunerFactory:
    """A HyperbandPruner over steps 1..max_resource (explicit, not estimated from the first trial)."""
    return lambda: optuna.pruners.HyperbandPruner(
        min_resource=min_resource, max_resource=max_resource, reduction_factor=reduction_factor)


def percentile_pruner(percentile: float, n_startup_trials: int, n_warmup_steps: int, interval_steps: int = 1) -> PrunerFactory:
    return lambda: optuna.pruners.PercentilePruner(
        percentile, n_startup_trials=n_startup_trials, n_warmup_steps=n_warmup_steps, interval_steps=interval_steps)


def patient_percentile_pruner() -> optuna.pruners.BasePruner:
    """Prunes below the best third only after 3 steps without improvement: for jumpy curves."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)  # PatientPruner since Optuna 2.8
        return optuna.pruners.PatientPruner(
            optuna.pruners.PercentilePruner(100.0 / 3, n_startup_trials=5, n_warmup_steps=5), patience=3)


MFH_CORRELATIONS = {  # Spearman at steps 2, 5, 10, 15 (z = 10, 25, 50, 75), from rank_correlations
    "good": ((2, 0.30), (5, 0.46), (10, 0.76), (15, 0.95)),
    "bad": ((2, 0.11), (5, 0.21), (10, 0.52), (15, 0.85)),
    "terrible": ((2, 0.07), (5, 0.14), (10, 0.43), (15, 0.80)),
}
CROSSING_CORRELATIONS = ((3, 0.34), (10, 0.39), (20, 0.59), (25, 0.79))


def _misleading_tasks() -> tuple[PruningTask, ...]:
    mfh_params_text = "x0..x5 in [0, 1]; mirror (none, first, last: reflected coordinates) and shift (a, b, c) categoricals"
    tasks = []
    for preset, (bias, noise) in MFH_PRESETS.items():
        tasks.append(PruningTask(
            f"mfh6_{preset}", "pruning", mfh_objective(preset),
            f"mf-prior-bench's multi-fidelity Hartmann 6, preset {preset!r} (bias {bias}, noise {noise}), reported at "
            f"z = 5, 10, ..., 100; {mfh_params_text} shifting the level by 0-0.4 per pair",
            "fidelity units (z)", MFH_STEPS, units_per_step=MFH_FIDELITY_PER_STEP, catch=(),
            optimum=mfh_best()[1], rank_correlations=MFH_CORRELATIONS[preset],
            optimum_method="Hartmann 6 (-3.32237) at its known minimiser reflected by the best pair's mirror, plus that "
            "pair's shift (at z = 100 the noise and bias vanish)",
        ))
    tasks.append(PruningTask(
        "crossing_curves", "pruning", crossing_objective,
        f"analytic curves final(x) + {CROSSING_AMPLITUDE} h(step) over {CROSSING_STEPS} steps, h falling faster for lr above "
        "the best one, small batches and little decay (fast starters finish worse); optimizer (3) categorical, lr log float, "
        "batch log int 8-512, decay float",
        "epochs", CROSSING_STEPS, units_per_step=1, catch=(), optimum=crossing_best()[1],
        rank_correlations=CROSSING_CORRELATIONS,
        optimum_method=(
            "the optimizer with the lowest floor, its best lr, batch 64 and decay 0.7 zero the quadratics (closed form)"
        ),
    ))
    return tuple(
        dataclasses.replace(task, name=f"{task.name}-{pruner_name}", pruner=pruner)
        for task in tasks
        for pruner_name, pruner in (("median", median_pruner), ("hyperband", hyperband_pruner(task.max_steps)))
    )


MISLEADING_CURVE_TASKS: tuple[PruningTask, ...] = _misleading_tasks()

PRUNING_HELD_OUT_TASKS: tuple[PruningTask, ...] = (
    PruningTask(
        "sgd_schedule_diabetes-percentile", "pruning", deferred(MODELS_MODULE, "sgd_schedule_objective"),
        f"SGDRegressor.partial_fit on load_diabetes with pairwise products, {SGD_EPOCHS} epochs, the learning rate set per "
        "epoch: loss (3), penalty (3), schedule (4), average (2) categoricals, alpha, eta0 and epsilon (not with squared "
        "error) log floats, warmup int 0-10; early epochs mislead; validation MSE (standardised target); "
        "PercentilePruner(25, n_startup_trials=5, n_warmup_steps=5)",
        "epochs", SGD_EPOCHS, units_per_step=1, catch=(ValueError, FloatingPointError),
        pruner=percentile_pruner(25.0, n_startup_trials=5, n_warmup_steps=5),
    ),
    PruningTask(
        "mlp_regressor_friedman1-hyperband", "pruning", deferred(MODELS_MODULE, "mlp_regressor_objective"),
        f"MLPRegressor.partial_fit on make_friedman1 (1000 x 10), {MLP_EPOCHS} epochs: n_layers int 1-3, n_units log int "
        "4-128, activation (3), solver (2), batch_size (3) categoricals, alpha and learning_rate_init log floats, momentum; "
        f"validation MSE (standardised target); HyperbandPruner(min_resource=2, max_resource={MLP_EPOCHS}, reduction_factor=2)",
        "epochs", MLP_EPOCHS, units_per_step=1, catch=(ValueError, FloatingPointError),
        pruner=hyperband_pruner(MLP_EPOCHS, min_resource=2, reduction_factor=2),
    ),
    PruningTask(
        "gbr_warm_start_friedman2-percentile", "pruning", deferred(MODELS_MODULE, "gbr_warm_start_objective"),
        f"GradientBoostingRegressor(warm_start=True) on make_friedman2 (500 x 4), {GBR_ROUNDS_PER_STEP} rounds per step, "
        f"{GBR_STEPS} steps: loss (3), max_features (3) categoricals, learning_rate log float, max_depth int 1-4, "
        "min_samples_leaf log int, subsample; validation MSE (standardised target); "
        "PercentilePruner(40, n_startup_trials=8, n_warmup_steps=2, interval_steps=2)",
        "boosting rounds", GBR_STEPS, units_per_step=GBR_ROUNDS_PER_STEP,
        pruner=percentile_pruner(40.0, n_startup_trials=8, n_warmup_steps=2, interval_steps=2),
    ),
    PruningTask(
        "forest_trees_hastie-hyperband", "pruning", deferred(MODELS_MODULE, "forest_trees_objective"),
        f"RandomForestClassifier(warm_start=True) on make_hastie_10_2 (800 x 10), {FOREST_TREES_PER_STEP} trees per step, "
        f"{FOREST_STEPS} steps: criterion, max_depth (3, 6, 12, None), bootstrap categoricals, min_samples_leaf log int, "
        "max_features, max_samples (bootstrap only) floats; validation Brier score; "
        f"HyperbandPruner(min_resource=1, max_resource={FOREST_STEPS}, reduction_factor=4)",
        "trees", FOREST_STEPS, units_per_step=FOREST_TREES_PER_STEP,
        pruner=hyperband_pruner(FOREST_STEPS, min_resource=1, reduction_factor=4),
    ),
    PruningTask(
        "perceptron_features_moons-patient", "pruning", deferred(MODELS_MODULE, "perceptron_features_objective"),
        f"Perceptron.partial_fit on random Fourier features of make_moons (1000, noise 0.3), {PERCEPTRON_EPOCHS} epochs: "
        "gamma, alpha, eta0 log floats, n_components log int 16-1024, penalty (4), fit_intercept categoricals; validation "
        "error; PatientPruner(PercentilePruner(33.3, n_startup_trials=5, n_warmup_steps=5), patience=3)",
        "epochs", PERCEPTRON_EPOCHS, units_per_step=1, pruner=patient_percentile_pruner,
    ),
    PruningTask(
        "kernel_ridge_rows_friedman3-hyperband", "pruning", deferred(MODELS_MODULE, "kernel_ridge_rows_objective"),
        f"KernelRidge on make_friedman3 (1000 x 4) refitted on {RIDGE_ROWS_PER_STEP} more training rows per step, "
        f"{RIDGE_STEPS} steps: kernel (3) categorical, alpha and gamma log floats, degree int 2-5 and coef0 (polynomial "
        f"only); few rows favour strong regularisation; validation MSE (standardised target); "
        f"HyperbandPruner(min_resource=4, max_resource={RIDGE_STEPS}, reduction_factor=2)",
        "training rows", RIDGE_STEPS, units_per_step=RIDGE_ROWS_PER_STEP,
        pruner=hyperband_pruner(RIDGE_STEPS, min_resource=4, reduction_factor=2),
    ),
)


def step_curves(task: PruningTask, n_configs: int = 500, seed: int = 0) -> list[dict[int, float]]:
    """The full curves (no pruner) of ``n_configs`` configurations drawn by RandomSampler(seed)."""
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed), pruner=optuna.pruners.NopPruner())
    study.optimize(task.objective(), n_trials=n_configs, catch=task.catch)
    return [trial.intermediate_values for trial in study.trials if trial.value is not None]


def rank_correlations(task: PruningTask, steps: Sequence[int], n_configs: int = 500, seed: int = 0) -> list[float]:
    """Per step, the Spearman correlation between the values at that step and the final values of
    the complete curves of :func:`step_curves` (the stated ``rank_correlations`` use the defaults)."""
    curves = step_curves(task, n_configs, seed)
    final = [curve[task.max_steps] for curve in curves]
    return [float(spearmanr([curve[step] for curve in curves], final)[0]) for step in steps]
