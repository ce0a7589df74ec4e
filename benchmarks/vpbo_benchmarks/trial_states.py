"""Tuning tasks in which most trials are not COMPLETE (issue 20), see docs/trial-states.md.

Written the way Optuna users write them, on data shipped with scikit-learn or synthetic:

- ``pruning``: incremental learners that report a validation error per epoch (or per group of
  boosting rounds) with ``trial.report`` / ``trial.should_prune``, or through Optuna's
  ``XGBoostPruningCallback``; each task under three pruners (``median``:
  ``MedianPruner(n_startup_trials=5, n_warmup_steps=3)``, ``halving``:
  ``SuccessiveHalvingPruner()``, ``hyperband``: ``HyperbandPruner()``), one problem per pair,
  named ``<task>-<pruner>``;
- ``invalid``: scikit-learn estimators whose options exclude each other (the fit raises
  ``ValueError``; the study runs with ``catch=(ValueError,)``);
- ``crash``: cheap synthetic mixed-variable functions that return NaN or raise in part of a numeric
  range, with the optimum right at the edge of that region, and combinations that always raise.

Every value is minimised. The compute of a trial is what it trained: epochs or boosting rounds
(reports times the units per report) for the pruning tasks, one fit per trial otherwise.
The runner (:func:`run_trial_states`) stores per trial its state, value, compute and whether
its parameters repeat those of an earlier PRUNED or FAIL trial (:func:`repeat_flags`), as
compact records (:mod:`.records`) in ``benchmarks/results-trial-states/``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, FloatDistribution
from optuna.trial import FrozenTrial, TrialState

from vpbo_benchmarks.progress import TrialReporter
from vpbo_benchmarks.runner import _environment, run_label, run_missing
from vpbo_benchmarks.samplers import TimedSampler, make_sampler

DEFAULT_OUT = Path("benchmarks/results-trial-states")
STATE_LETTERS: Mapping[TrialState, str] = {
    TrialState.COMPLETE: "C", TrialState.PRUNED: "P", TrialState.FAIL: "F",
    TrialState.RUNNING: "R", TrialState.WAITING: "W",
}
REPEAT_TOLERANCE = 1e-4  # a float repeats within this fraction of its range (log range for log floats)
DATA_SEED = 0  # train/validation splits and model seeds: a configuration always gives the same value

Objective = Callable[[optuna.Trial], float]


@dataclasses.dataclass(frozen=True)
class TrialStateTask:
    """A tuning task: ``objective()`` builds the Optuna objective (loading its data once).

    ``units_per_step``: compute units (``compute_unit``) trained between two reports, so that a
    trial's compute is its number of reports times this (pruning tasks); ``None``: one unit per
    trial. ``optimum`` and ``optimum_method``: the best value where it is known (crash tasks)."""

    name: str
    family: str
    objective: Callable[[], Objective]
    description: str
    compute_unit: str
    max_steps: int
    units_per_step: int | None = None
    catch: tuple[type[BaseException], ...] = (ValueError,)
    optimum: float | None = None
    optimum_method: str = "unknown: the best value found in any stored run is the reference"


PRUNERS: Mapping[str, Callable[[], optuna.pruners.BasePruner]] = {
    "median": lambda: optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=3),
    "halving": lambda: optuna.pruners.SuccessiveHalvingPruner(),
    "hyperband": lambda: optuna.pruners.HyperbandPruner(),
}


@dataclasses.dataclass(frozen=True)
class TrialStateProblem:
    """A task under a pruner (``pruner`` a key of PRUNERS) or without one (``None``)."""

    name: str
    task: TrialStateTask
    pruner: str | None

    def make_pruner(self) -> optuna.pruners.BasePruner:
        return PRUNERS[self.pruner]() if self.pruner is not None else optuna.pruners.NopPruner()

    def compute(self, trial: FrozenTrial) -> int:
        """Epochs or rounds trained (pruning tasks), else 1 fit."""
        if self.task.units_per_step is None:
            return 1
        return len(trial.intermediate_values) * self.task.units_per_step


def _split(x: np.ndarray, y: np.ndarray, scale: bool) -> tuple[np.ndarray, ...]:
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    x_train, x_valid, y_train, y_valid = train_test_split(x, y, test_size=0.3, random_state=DATA_SEED, stratify=y)
    if scale:
        scaler = StandardScaler().fit(x_train)
        x_train, x_valid = scaler.transform(x_train), scaler.transform(x_valid)
    return x_train, x_valid, y_train, y_valid


def _report_or_prune(trial: optuna.Trial, value: float, step: int) -> None:
    trial.report(value, step)
    if trial.should_prune():
        raise optuna.TrialPruned()


# --------------------------------------------------------------------------------------------
# Pruning tasks
# --------------------------------------------------------------------------------------------

SGD_EPOCHS = 20
SGD_LOSSES = ("hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron")
SGD_PENALTIES = ("l2", "l1", "elasticnet")
SGD_SCHEDULES = ("constant", "optimal", "invscaling", "adaptive")


def sgd_digits_objective() -> Objective:
    """SGDClassifier on load_digits (standardised), ``partial_fit`` once per epoch; the value is
    the validation error after each epoch."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import SGDClassifier

    x_train, x_valid, y_train, y_valid = _split(*load_digits(return_X_y=True), scale=True)
    classes = np.unique(y_train)

    def objective(trial: optuna.Trial) -> float:
        model = SGDClassifier(
            loss=trial.suggest_categorical("loss", list(SGD_LOSSES)),
            penalty=trial.suggest_categorical("penalty", list(SGD_PENALTIES)),
            learning_rate=trial.suggest_categorical("learning_rate", list(SGD_SCHEDULES)),
            alpha=trial.suggest_float("alpha", 1e-6, 1e-1, log=True),
            eta0=trial.suggest_float("eta0", 1e-4, 1.0, log=True),
            l1_ratio=trial.suggest_float("l1_ratio", 0.0, 1.0),
            random_state=DATA_SEED,
        )
        error = math.nan
        for epoch in range(SGD_EPOCHS):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ConvergenceWarning, overflow notes
                model.partial_fit(x_train, y_train, classes=classes)
            error = 1.0 - float(model.score(x_valid, y_valid))
            _report_or_prune(trial, error, epoch)
        return error

    return objective


MLP_EPOCHS = 20
MLP_DATA = dict(n_samples=1200, n_features=20, n_informative=8, n_redundant=4, n_classes=3, flip_y=0.03, class_sep=0.8)


def mlp_classification_objective() -> Objective:
    """MLPClassifier on a fixed make_classification set (3 classes, 20 features), ``partial_fit``
    once per epoch; the value is the validation error after each epoch."""
    from sklearn.datasets import make_classification
    from sklearn.neural_network import MLPClassifier

    x_train, x_valid, y_train, y_valid = _split(*make_classification(random_state=DATA_SEED, **MLP_DATA), scale=True)
    classes = np.unique(y_train)

    def objective(trial: optuna.Trial) -> float:
        n_layers = trial.suggest_int("n_layers", 1, 2)
        units = trial.suggest_int("n_units", 8, 128, log=True)
        model = MLPClassifier(
            hidden_layer_sizes=(units,) * n_layers,
            activation=trial.suggest_categorical("activation", ["relu", "tanh", "logistic"]),
            solver=trial.suggest_categorical("solver", ["sgd", "adam"]),
            alpha=trial.suggest_float("alpha", 1e-6, 1e-1, log=True),
            learning_rate_init=trial.suggest_float("learning_rate_init", 1e-4, 3e-1, log=True),
            batch_size=trial.suggest_categorical("batch_size", [16, 32, 64, 128]),
            random_state=DATA_SEED,
        )
        error = math.nan
        for epoch in range(MLP_EPOCHS):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.partial_fit(x_train, y_train, classes=classes)
            error = 1.0 - float(model.score(x_valid, y_valid))
            _report_or_prune(trial, error, epoch)
        return error

    return objective


HGB_STEPS = 10
HGB_ROUNDS_PER_STEP = 10


def hgb_warm_start_objective() -> Objective:
    """HistGradientBoostingClassifier on load_breast_cancer with ``warm_start``: ``max_iter``
    grown by 10 rounds per step, the validation log-loss reported after each step. (No
    class_weight: with sample weights a fit on these 398 rows is ten times slower.)"""
    import threadpoolctl
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import log_loss

    x_train, x_valid, y_train, y_valid = _split(*load_breast_cancer(return_X_y=True), scale=False)

    def objective(trial: optuna.Trial) -> float:
        model = HistGradientBoostingClassifier(
            learning_rate=trial.suggest_float("learning_rate", 1e-3, 1.0, log=True),
            max_leaf_nodes=trial.suggest_int("max_leaf_nodes", 2, 64, log=True),
            min_samples_leaf=trial.suggest_int("min_samples_leaf", 1, 64, log=True),
            l2_regularization=trial.suggest_float("l2_regularization", 1e-6, 10.0, log=True),
            max_features=trial.suggest_float("max_features", 0.1, 1.0),
            max_bins=trial.suggest_categorical("max_bins", [15, 63, 255]),
            max_depth=trial.suggest_categorical("max_depth", [None, 3, 6]),
            warm_start=True, early_stopping=False, random_state=DATA_SEED,
        )
        loss = math.nan
        for step in range(HGB_STEPS):
            model.set_params(max_iter=HGB_ROUNDS_PER_STEP * (step + 1))
            with threadpoolctl.threadpool_limits(limits=1):  # OpenMP threads only contend on a shared core
                model.fit(x_train, y_train)
                loss = float(log_loss(y_valid, model.predict_proba(x_valid)))
            _report_or_prune(trial, loss, step)
        return loss

    return objective


XGB_ROUNDS = 50


def xgb_callback_objective() -> Objective:
    """XGBoost (``xgb.train``) on load_wine with Optuna's ``XGBoostPruningCallback`` on the
    validation multi-class log-loss, one report per boosting round, as in Optuna's
    ``xgboost/xgboost_integration.py`` example; the value is the final validation log-loss."""
    import xgboost as xgb
    from optuna_integration import XGBoostPruningCallback
    from sklearn.datasets import load_wine

    x_train, x_valid, y_train, y_valid = _split(*load_wine(return_X_y=True), scale=False)
    train, valid = xgb.DMatrix(x_train, label=y_train), xgb.DMatrix(x_valid, label=y_valid)

    def objective(trial: optuna.Trial) -> float:
        booster = trial.suggest_categorical("booster", ["gbtree", "dart"])
        params = {
            "objective": "multi:softprob", "num_class": 3, "eval_metric": "mlogloss", "nthread": 1,
            "seed": DATA_SEED, "verbosity": 0, "booster": booster,
            "lambda": trial.suggest_float("lambda", 1e-8, 1.0, log=True),
            "alpha": trial.suggest_float("alpha", 1e-8, 1.0, log=True),
            "max_depth": trial.suggest_int("max_depth", 1, 9),
            "eta": trial.suggest_float("eta", 1e-3, 1.0, log=True),
            "gamma": trial.suggest_float("gamma", 1e-8, 1.0, log=True),
            "grow_policy": trial.suggest_categorical("grow_policy", ["depthwise", "lossguide"]),
            "subsample": trial.suggest_float("subsample", 0.4, 1.0),
        }
        callback = XGBoostPruningCallback(trial, "validation-mlogloss")
        model = xgb.train(
            params, train, num_boost_round=XGB_ROUNDS, evals=[(valid, "validation")], callbacks=[callback],
            verbose_eval=False,
        )
        return float(model.eval(valid).split(":")[-1])

    return objective


# --------------------------------------------------------------------------------------------
# Invalid combinations
# --------------------------------------------------------------------------------------------

LOGREG_SOLVERS = ("lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga")
LOGREG_PENALTIES = ("l1", "l2", "elasticnet", "none")


def logreg_invalid_objective() -> Objective:
    """LogisticRegression on load_breast_cancer (standardised): solver x penalty x dual, of which
    33 of the 48 combinations raise ValueError in scikit-learn; validation log-loss."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss

    x_train, x_valid, y_train, y_valid = _split(*load_breast_cancer(return_X_y=True), scale=True)

    def objective(trial: optuna.Trial) -> float:
        penalty = trial.suggest_categorical("penalty", list(LOGREG_PENALTIES))
        model = LogisticRegression(
            solver=trial.suggest_categorical("solver", list(LOGREG_SOLVERS)),
            penalty=None if penalty == "none" else penalty,
            dual=trial.suggest_categorical("dual", [False, True]),
            C=trial.suggest_float("C", 1e-4, 1e4, log=True),
            l1_ratio=trial.suggest_float("l1_ratio", 0.0, 1.0) if penalty == "elasticnet" else None,
            max_iter=200, random_state=DATA_SEED,  # sag, saga and liblinear shuffle
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning; the deprecation of penalty (sklearn 1.8)
            model.fit(x_train, y_train)
        return float(log_loss(y_valid, model.predict_proba(x_valid)))

    return objective


def linear_svc_invalid_objective() -> Objective:
    """LinearSVC on a fixed make_classification set (standardised): loss x penalty x dual, of
    which 4 of the 8 combinations raise ValueError; validation error."""
    from sklearn.datasets import make_classification
    from sklearn.svm import LinearSVC

    data = make_classification(n_samples=600, n_features=30, n_informative=6, flip_y=0.05, random_state=DATA_SEED)
    x_train, x_valid, y_train, y_valid = _split(*data, scale=True)

    def objective(trial: optuna.Trial) -> float:
        loss = trial.suggest_categorical("loss", ["hinge", "squared_hinge"])
        penalty = trial.suggest_categorical("penalty", ["l1", "l2"])
        dual = trial.suggest_categorical("dual", [True, False])
        class_weight = trial.suggest_categorical("class_weight", ["none", "balanced"])
        model = LinearSVC(
            loss=loss, penalty=penalty, dual=dual,
            C=trial.suggest_float("C", 1e-4, 1e2, log=True),
            tol=trial.suggest_float("tol", 1e-6, 1e-1, log=True),
            class_weight=None if class_weight == "none" else class_weight,
            fit_intercept=trial.suggest_categorical("fit_intercept", [True, False]),
            max_iter=500, random_state=DATA_SEED,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at the iteration cap
            model.fit(x_train, y_train)
        return 1.0 - float(model.score(x_valid, y_valid))

    return objective


# --------------------------------------------------------------------------------------------
# Crash regions (synthetic, known optimum)
# --------------------------------------------------------------------------------------------

NAN_EDGE_OFFSETS: Mapping[str, float] = {"a": 0.0, "b": 0.15, "c": 0.3}
NAN_EDGE_TARGET = (0.75, 0.65)  # the unconstrained minimum, inside the failing region
NAN_EDGE_LIMIT = 1.2  # NaN where x1 + x2 > this
NAN_EDGE_WEIGHT = 4.0
NAN_EDGE_LR_TARGET = -2.5  # log10
NAN_EDGE_K_TARGET = 5


def nan_edge_value(kind: str, x1: float, x2: float, lr: float, k: int) -> float:
    """The objective (NaN where x1 + x2 > NAN_EDGE_LIMIT: a diverged run returning NaN)."""
    if x1 + x2 > NAN_EDGE_LIMIT:
        return math.nan
    quadratic = NAN_EDGE_WEIGHT * ((x1 - NAN_EDGE_TARGET[0]) ** 2 + (x2 - NAN_EDGE_TARGET[1]) ** 2)
    return NAN_EDGE_OFFSETS[kind] + quadratic + 0.1 * (math.log10(lr) - NAN_EDGE_LR_TARGET) ** 2 + 0.02 * (k - NAN_EDGE_K_TARGET) ** 2


def nan_edge_best() -> tuple[dict[str, Any], float]:
    """The target projected onto the line x1 + x2 = limit (the closest point that does not fail;
    in floating point it may land a rounding error beyond the line) and the value there, in
    closed form: the weight times twice the squared half-excess."""
    excess = (sum(NAN_EDGE_TARGET) - NAN_EDGE_LIMIT) / 2.0
    point = {"kind": "a", "x1": NAN_EDGE_TARGET[0] - excess, "x2": NAN_EDGE_TARGET[1] - excess,
             "lr": 10.0**NAN_EDGE_LR_TARGET, "k": NAN_EDGE_K_TARGET}
    return point, NAN_EDGE_OFFSETS["a"] + NAN_EDGE_WEIGHT * 2.0 * excess**2


def nan_edge_objective() -> Objective:
    def objective(trial: optuna.Trial) -> float:
        return nan_edge_value(
            trial.suggest_categorical("kind", list(NAN_EDGE_OFFSETS)),
            trial.suggest_float("x1", 0.0, 1.0), trial.suggest_float("x2", 0.0, 1.0),
            trial.suggest_float("lr", 1e-5, 1.0, log=True), trial.suggest_int("k", 0, 10),
        )

    return objective


DIVERGE_OPTIMIZERS: Mapping[str, tuple[float, float]] = {  # offset, log10 of the largest stable lr
    "sgd": (0.25, -0.5), "momentum": (0.1, -1.0), "adam": (0.0, -2.0), "rmsprop": (0.05, -2.5),
}
DIVERGE_SCHEDULES: Mapping[str, float] = {"constant": 0.1, "cosine": 0.0, "step": 0.05}
DIVERGE_INVALID = (("adam", "step"), ("rmsprop", "constant"), ("sgd", "cosine"))
DIVERGE_LR_BEYOND = 0.25  # each optimizer's best lr lies this far (log10) beyond its stable limit
DIVERGE_LR_WEIGHT = 0.5


def diverge_combo_value(optimizer: str, schedule: str, lr: float, weight_decay: float, warmup: int) -> float:
    """The objective; raises ValueError for an invalid (optimizer, schedule) pair and
    FloatingPointError where lr exceeds the optimizer's stable limit (the run diverges)."""
    if (optimizer, schedule) in DIVERGE_INVALID:
        raise ValueError(f"schedule {schedule!r} is not supported with optimizer {optimizer!r}")
    offset, log_limit = DIVERGE_OPTIMIZERS[optimizer]
    if math.log10(lr) > log_limit:
        raise FloatingPointError(f"training diverged (lr={lr:.3g})")
    lr_term = DIVERGE_LR_WEIGHT * (math.log10(lr) - log_limit - DIVERGE_LR_BEYOND) ** 2
    return offset + DIVERGE_SCHEDULES[schedule] + lr_term + 0.1 * (math.log10(weight_decay) + 3.5) ** 2 + 0.01 * (warmup - 4) ** 2


def diverge_combo_best() -> tuple[dict[str, Any], float]:
    """Per valid pair the lr term is smallest at the stable limit (DIVERGE_LR_WEIGHT *
    DIVERGE_LR_BEYOND^2) and the other terms are 0 at wd = 10^-3.5, warmup 4; the best pair by
    enumeration."""
    best = min(
        ((o, s) for o in DIVERGE_OPTIMIZERS for s in DIVERGE_SCHEDULES if (o, s) not in DIVERGE_INVALID),
        key=lambda pair: DIVERGE_OPTIMIZERS[pair[0]][0] + DIVERGE_SCHEDULES[pair[1]],
    )
    point = {"optimizer": best[0], "schedule": best[1], "lr": 10.0 ** DIVERGE_OPTIMIZERS[best[0]][1],
             "weight_decay": 10.0**-3.5, "warmup": 4}
    value = DIVERGE_OPTIMIZERS[best[0]][0] + DIVERGE_SCHEDULES[best[1]] + DIVERGE_LR_WEIGHT * DIVERGE_LR_BEYOND**2
    return point, value


def diverge_combo_objective() -> Objective:
    def objective(trial: optuna.Trial) -> float:
        return diverge_combo_value(
            trial.suggest_categorical("optimizer", list(DIVERGE_OPTIMIZERS)),
            trial.suggest_categorical("schedule", list(DIVERGE_SCHEDULES)),
            trial.suggest_float("lr", 1e-5, 1.0, log=True),
            trial.suggest_float("weight_decay", 1e-6, 1e-1, log=True),
            trial.suggest_int("warmup", 0, 10),
        )

    return objective


# --------------------------------------------------------------------------------------------
# Registry and the split
# --------------------------------------------------------------------------------------------

TASKS: Mapping[str, TrialStateTask] = {t.name: t for t in (
    TrialStateTask(
        "sgd_digits", "pruning", sgd_digits_objective,
        f"SGDClassifier.partial_fit on load_digits, {SGD_EPOCHS} epochs; loss (5), penalty (3), learning_rate schedule (4) "
        "categoricals, alpha and eta0 log floats, l1_ratio; validation error",
        "epochs", SGD_EPOCHS, units_per_step=1, catch=(ValueError, FloatingPointError),
    ),
    TrialStateTask(
        "mlp_classification", "pruning", mlp_classification_objective,
        f"MLPClassifier.partial_fit on make_classification (1200 x 20, 3 classes), {MLP_EPOCHS} epochs; n_layers (1-2), "
        "n_units (log int), activation (3), solver (2), batch_size (4) categoricals, alpha and learning_rate_init log floats; validation error",
        "epochs", MLP_EPOCHS, units_per_step=1, catch=(ValueError, FloatingPointError),
    ),
    TrialStateTask(
        "hgb_warm_start", "pruning", hgb_warm_start_objective,
        f"HistGradientBoostingClassifier on load_breast_cancer with warm_start, {HGB_ROUNDS_PER_STEP} rounds per step, "
        f"{HGB_STEPS} steps; learning_rate and l2 log floats, max_leaf_nodes and min_samples_leaf log ints, max_features, "
        "max_bins and max_depth (None, 3, 6) categoricals; validation log-loss",
        "boosting rounds", HGB_STEPS, units_per_step=HGB_ROUNDS_PER_STEP, catch=(ValueError,),
    ),
    TrialStateTask(
        "xgb_callback", "pruning", xgb_callback_objective,
        f"xgboost.train on load_wine with optuna_integration.XGBoostPruningCallback, {XGB_ROUNDS} rounds; booster and "
        "grow_policy categoricals, lambda, alpha, eta, gamma log floats, max_depth int, subsample; validation log-loss",
        "boosting rounds", XGB_ROUNDS, units_per_step=1, catch=(ValueError,),
    ),
    TrialStateTask(
        "logreg_invalid", "invalid", logreg_invalid_objective,
        "LogisticRegression on load_breast_cancer: solver (6) x penalty (4) x dual (2) categoricals, 33 of 48 "
        "combinations raise ValueError; C log float, l1_ratio (elasticnet only); validation log-loss",
        "fits", 1,
    ),
    TrialStateTask(
        "linear_svc_invalid", "invalid", linear_svc_invalid_objective,
        "LinearSVC on make_classification (600 x 30): loss (2) x penalty (2) x dual (2), 4 of 8 combinations raise "
        "ValueError; class_weight, fit_intercept categoricals, C and tol log floats; validation error",
        "fits", 1,
    ),
    TrialStateTask(
        "nan_edge", "crash", nan_edge_objective,
        f"kind (3) categorical, x1, x2 in [0, 1], lr log float, k int 0-10; returns NaN where x1 + x2 > {NAN_EDGE_LIMIT}, "
        "and the quadratic's minimum in x lies inside that region: the optimum sits on its edge",
        "fits", 1, catch=(), optimum=nan_edge_best()[1],
        optimum_method=f"the target {NAN_EDGE_TARGET} projected onto x1 + x2 = {NAN_EDGE_LIMIT}, the other terms 0 at kind a, "
        f"lr 10^{NAN_EDGE_LR_TARGET}, k {NAN_EDGE_K_TARGET} (closed form)",
    ),
    TrialStateTask(
        "diverge_combo", "crash", diverge_combo_objective,
        "optimizer (4) x schedule (3) categoricals, 3 of 12 pairs raise ValueError; lr log float raises FloatingPointError "
        "above a per-optimizer limit, just below each optimizer's best lr; weight_decay log float, warmup int 0-10",
        "fits", 1, catch=(ValueError, FloatingPointError), optimum=diverge_combo_best()[1],
        optimum_method="per valid pair the lr term at its stable limit, the other terms 0; the best pair by enumeration",
    ),
)}
FAMILIES: tuple[str, ...] = ("pruning", "invalid", "crash")


def _problems() -> dict[str, TrialStateProblem]:
    problems = {}
    for task in TASKS.values():
        if task.family == "pruning":
            for pruner in PRUNERS:
                name = f"{task.name}-{pruner}"
                problems[name] = TrialStateProblem(name, task, pruner)
        else:
            problems[task.name] = TrialStateProblem(task.name, task, None)
    return problems


PROBLEMS: Mapping[str, TrialStateProblem] = _problems()


def _split_halves() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fixed rule, written before any run. Pruning problems: task i (in TASKS order) under
    pruner j (in PRUNERS order) goes to TUNING when i + j is even, so that every task and every
    pruner is in both halves. The other families as in the broad suite: within a family the
    problems alternate, the family's first going to TUNING in the 1st and 3rd family (pruning,
    crash) and to HELD_OUT in the 2nd (invalid)."""
    tuning: list[str] = []
    held_out: list[str] = []
    pruning_tasks = [t.name for t in TASKS.values() if t.family == "pruning"]
    for i, task in enumerate(pruning_tasks):
        for j, pruner in enumerate(PRUNERS):
            (tuning if (i + j) % 2 == 0 else held_out).append(f"{task}-{pruner}")
    for f, family in enumerate(FAMILIES):
        if family == "pruning":
            continue
        for i, name in enumerate(t.name for t in TASKS.values() if t.family == family):
            (tuning if (i + f) % 2 == 0 else held_out).append(name)
    return tuple(tuning), tuple(held_out)


TUNING, HELD_OUT = _split_halves()
HALVES: Mapping[str, tuple[str, ...]] = {"tuning": TUNING, "held_out": HELD_OUT, "all": TUNING + HELD_OUT}


def get_trial_state_problem(name: str) -> TrialStateProblem:
    try:
        return PROBLEMS[name]
    except KeyError:
        raise ValueError(f"unknown trial-states problem {name!r}; valid names: {', '.join(PROBLEMS)}") from None


def resolve_problems(names: Sequence[str]) -> list[str]:
    """Problem names, where a half's name (tuning, held_out, all) stands for its problems."""
    resolved: list[str] = []
    for name in names:
        for member in HALVES.get(name, (name,)):
            get_trial_state_problem(member)
            if member not in resolved:
                resolved.append(member)
    return resolved


# --------------------------------------------------------------------------------------------
# Repeats of pruned and failed configurations
# --------------------------------------------------------------------------------------------


def same_configuration(
    params: Mapping[str, Any], other: Mapping[str, Any], distributions: Mapping[str, BaseDistribution],
    tolerance: float = REPEAT_TOLERANCE,
) -> bool:
    """The same parameters with the same categorical and int values, and each float within
    ``tolerance`` of its range (of its log range for a log float). Empty parameter sets never
    match (a trial that failed before its first suggestion has no configuration)."""
    if not params or set(params) != set(other):
        return False
    for name, value in params.items():
        distribution = distributions[name]
        if isinstance(distribution, FloatDistribution):
            if distribution.log:
                span = math.log(distribution.high) - math.log(distribution.low)
                gap = abs(math.log(value) - math.log(other[name]))
            else:
                span = distribution.high - distribution.low
                gap = abs(value - other[name])
            if gap > tolerance * span:
                return False
        elif value != other[name]:
            return False
    return True


def repeat_flags(trials: Sequence[FrozenTrial], tolerance: float = REPEAT_TOLERANCE) -> list[bool]:
    """Per trial: whether its configuration repeats that of an earlier PRUNED or FAIL trial."""
    flags = []
    for i, trial in enumerate(trials):
        flags.append(any(
            earlier.state in (TrialState.PRUNED, TrialState.FAIL)
            and same_configuration(trial.params, earlier.params, trial.distributions, tolerance)
            for earlier in trials[:i]
        ))
    return flags


# --------------------------------------------------------------------------------------------
# Runner
# --------------------------------------------------------------------------------------------


def study_name(problem: str, sampler: str, seed: int) -> str:
    """Fixed per run: HyperbandPruner assigns trials to brackets by a hash of the study name."""
    return f"trial-states {problem} {sampler} seed={seed}"


def run_study(problem_name: str, sampler_name: str, seed: int, n_trials: int, progress_messages: Any = None) -> dict[str, Any]:
    """One study; returns the record that ``run_trial_states`` stores."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    problem = get_trial_state_problem(problem_name)
    sampler = TimedSampler(make_sampler(sampler_name, seed))
    study = optuna.create_study(
        direction="minimize", sampler=sampler, pruner=problem.make_pruner(),
        study_name=study_name(problem_name, sampler_name, seed),
    )
    label = run_label(problem_name, sampler_name, seed)
    callbacks = [] if progress_messages is None else [TrialReporter(progress_messages, label)]
    objective = problem.task.objective()
    start = time.perf_counter()
    study.optimize(objective, n_trials=n_trials, catch=problem.task.catch, callbacks=callbacks)
    trials = study.get_trials(deepcopy=False)
    return {
        "problem": problem_name,
        "sampler": sampler_name,
        "seed": seed,
        "n_trials": n_trials,
        "values": [t.values if t.state == TrialState.COMPLETE else None for t in trials],
        "params": [t.params for t in trials],
        "states": "".join(STATE_LETTERS[t.state] for t in trials),
        "compute": [problem.compute(t) for t in trials],
        "repeats": [int(flag) for flag in repeat_flags(trials)],
        "sampler_seconds": [sampler.seconds.get(t.number, 0.0) for t in trials],
        "wall_seconds": time.perf_counter() - start,
        "environment": _environment(),
    }


def run_trial_states(
    problems: Sequence[str], samplers: Sequence[str], seeds: Sequence[int], n_trials: int, out_dir: Path,
    jobs: int, progress: bool | None = None,
) -> None:
    """Run every missing (problem, sampler, seed) with ``jobs`` worker processes (the machinery
    of runner.run: spawned single-threaded workers, a fixed hash seed, one writer)."""
    for name in problems:
        get_trial_state_problem(name)
    for name in samplers:
        make_sampler(name, 0)
    run_missing(run_study, problems, samplers, seeds, n_trials, out_dir, jobs, progress, _summary)


def _summary(record: dict[str, Any]) -> str:
    return f", states {_state_counts(record['states'])}, repeats {sum(record['repeats'])}"


def _state_counts(states: str) -> str:
    return " ".join(f"{letter}{states.count(letter)}" for letter in "CPF")


def problem_lines() -> list[str]:
    """One line per problem: half, family, pruner, compute unit, description."""
    lines = []
    for name, problem in PROBLEMS.items():
        half = "TUNING" if name in TUNING else "HELD_OUT"
        pruner = problem.pruner or "none"
        lines.append(f"{name} [{half}, {problem.task.family}, pruner {pruner}, compute in {problem.task.compute_unit}]: "
                     f"{problem.task.description}")
    return lines


# --------------------------------------------------------------------------------------------
# Command line: vpbo-benchmark trial-states {list,run,report}
# --------------------------------------------------------------------------------------------


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def add_parser(commands: Any) -> None:
    """The ``trial-states`` subcommand and its own subcommands."""
    from vpbo_benchmarks import trial_states_report

    parser = commands.add_parser("trial-states", help="pruned and failed trials: tasks, runs and report (docs/trial-states.md)")
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("list", help="the problems, their half and family")
    run_parser = actions.add_parser("run", help="run every missing (problem, sampler, seed) and store it")
    run_parser.add_argument("--problems", type=_names, default=["all"], help="names, or tuning / held_out / all")
    run_parser.add_argument("--samplers", type=_names, required=True)
    run_parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1")
    run_parser.add_argument("--trials", type=int, default=100)
    run_parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    run_parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    run_parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    trial_states_report.add_arguments(actions.add_parser("report", help="Markdown tables of stored runs, per half"))


def main(args: argparse.Namespace) -> None:
    from vpbo_benchmarks import trial_states_report

    if args.action == "list":
        print("\n".join(problem_lines()))
    elif args.action == "run":
        run_trial_states(resolve_problems(args.problems), args.samplers, range(args.seeds), args.trials, args.out,
                         args.jobs, args.progress)
    else:
        trial_states_report.main(args)
