"""Tuning tasks in which most trials are not COMPLETE, see docs/trial-states.md.

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
The runner (:func:`.trial_state_runs.run_trial_states`) stores per trial its state, value,
compute and whether its parameters repeat those of an earlier PRUNED or FAIL trial
(:func:`repeat_flags`), as compact records (:mod:`.records`) in
``benchmarks/results-trial-states/``. This module holds the tasks' table, the problems (a task
under a pruner), the split and the repeat rule; the scikit-learn and XGBoost tasks themselves are
in :mod:`.trial_state_tasks`, the crash tasks (synthetic) below.

The learning-curve sets (:mod:`.pruning_tasks`) run with the same runner and
report, each task under its own pruner, with its own compute rule (reports times units per
step): the groups ``misleading`` (tuning data) and ``fresh_pruning`` (held out: RandomSampler
only until the learning-curve model is frozen), beside the halves ``tuning``, ``held_out`` and ``all``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import BaseDistribution, FloatDistribution
from optuna.trial import BaseTrial, FrozenTrial, TrialState

from vpbo_benchmarks.lazy import deferred
from vpbo_benchmarks.pruning_tasks import MISLEADING_CURVE_TASKS, PRUNING_HELD_OUT_TASKS, PruningTask
from vpbo_benchmarks.tuning_task import Objective, TrialStateTask

DEFAULT_OUT = Path("benchmarks/results-trial-states")
STATE_LETTERS: Mapping[TrialState, str] = {
    TrialState.COMPLETE: "C", TrialState.PRUNED: "P", TrialState.FAIL: "F",
    TrialState.RUNNING: "R", TrialState.WAITING: "W",
}
REPEAT_TOLERANCE = 1e-4  # a float repeats within this fraction of its range (log range for log floats)

PRUNERS: Mapping[str, Callable[[], optuna.pruners.BasePruner]] = {
    "median": lambda: optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=3),
    "halving": lambda: optuna.pruners.SuccessiveHalvingPruner(),
    "hyperband": lambda: optuna.pruners.HyperbandPruner(),
}


@dataclasses.dataclass(frozen=True)
class TrialStateProblem:
    """A task under a pruner (``pruner`` a key of PRUNERS) or without one (``None``).

    A task of the learning-curve issue's sets (:mod:`.pruning_tasks`) brings its own pruner
    (``pruner_factory``; ``pruner`` is then only its label) and its own compute rule
    (``compute_rule``: its ``PruningTask.compute``)."""

    name: str
    task: TrialStateTask
    pruner: str | None
    pruner_factory: Callable[[], optuna.pruners.BasePruner] | None = None
    compute_rule: Callable[[FrozenTrial], int] | None = None

    def make_pruner(self) -> optuna.pruners.BasePruner:
        if self.pruner_factory is not None:
            return self.pruner_factory()
        return PRUNERS[self.pruner]() if self.pruner is not None else optuna.pruners.NopPruner()

    def compute(self, trial: FrozenTrial) -> int:
        """Epochs or rounds trained (pruning tasks), else 1 fit; a learning-curve task's own rule."""
        if self.compute_rule is not None:
            return self.compute_rule(trial)
        if self.task.units_per_step is None:
            return 1
        return len(trial.intermediate_values) * self.task.units_per_step


# The budgets of the pruning tasks (trial_state_tasks.py): epochs, or boosting rounds per step.
SGD_EPOCHS = 20
MLP_EPOCHS = 20
HGB_STEPS = 10
HGB_ROUNDS_PER_STEP = 10
XGB_ROUNDS = 50
TASKS_MODULE = "vpbo_benchmarks.trial_state_tasks"


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
    return (
        NAN_EDGE_OFFSETS[kind]
        + quadratic
        + 0.1 * (math.log10(lr) - NAN_EDGE_LR_TARGET) ** 2
        + 0.02 * (k - NAN_EDGE_K_TARGET) ** 2
    )


def nan_edge_best() -> tuple[dict[str, Any], float]:
    """The target projected onto the line x1 + x2 = limit (the closest point that does not fail;
    in floating point it may land a rounding error beyond the line) and the value there, in
    closed form: the weight times twice the squared half-excess."""
    excess = (sum(NAN_EDGE_TARGET) - NAN_EDGE_LIMIT) / 2.0
    point = {"kind": "a", "x1": NAN_EDGE_TARGET[0] - excess, "x2": NAN_EDGE_TARGET[1] - excess,
             "lr": 10.0**NAN_EDGE_LR_TARGET, "k": NAN_EDGE_K_TARGET}
    return point, NAN_EDGE_OFFSETS["a"] + NAN_EDGE_WEIGHT * 2.0 * excess**2


def nan_edge_objective() -> Objective:
    def objective(trial: BaseTrial) -> float:
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
    def objective(trial: BaseTrial) -> float:
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
        "sgd_digits", "pruning", deferred(TASKS_MODULE, "sgd_digits_objective", epochs=SGD_EPOCHS),
        f"SGDClassifier.partial_fit on load_digits, {SGD_EPOCHS} epochs; loss (5), penalty (3), learning_rate schedule (4) "
        "categoricals, alpha and eta0 log floats, l1_ratio; validation error",
        "epochs", SGD_EPOCHS, units_per_step=1, catch=(ValueError, FloatingPointError),
    ),
    TrialStateTask(
        "mlp_classification", "pruning", deferred(TASKS_MODULE, "mlp_classification_objective", epochs=MLP_EPOCHS),
        f"MLPClassifier.partial_fit on make_classification (1200 x 20, 3 classes), {MLP_EPOCHS} epochs; n_layers (1-2), "
        "n_units (log int), activation (3), solver (2), batch_size (4) categoricals, alpha and learning_rate_init log floats; "
        "validation error",
        "epochs", MLP_EPOCHS, units_per_step=1, catch=(ValueError, FloatingPointError),
    ),
    TrialStateTask(
        "hgb_warm_start", "pruning",
        deferred(TASKS_MODULE, "hgb_warm_start_objective", steps=HGB_STEPS, rounds_per_step=HGB_ROUNDS_PER_STEP),
        f"HistGradientBoostingClassifier on load_breast_cancer with warm_start, {HGB_ROUNDS_PER_STEP} rounds per step, "
        f"{HGB_STEPS} steps; learning_rate and l2 log floats, max_leaf_nodes and min_samples_leaf log ints, max_features, "
        "max_bins and max_depth (None, 3, 6) categoricals; validation log-loss",
        "boosting rounds", HGB_STEPS, units_per_step=HGB_ROUNDS_PER_STEP, catch=(ValueError,),
    ),
    TrialStateTask(
        "xgb_callback", "pruning", deferred(TASKS_MODULE, "xgb_callback_objective", rounds=XGB_ROUNDS),
        f"xgboost.train on load_wine with optuna_integration.XGBoostPruningCallback, {XGB_ROUNDS} rounds; booster and "
        "grow_policy categoricals, lambda, alpha, eta, gamma log floats, max_depth int, subsample; validation log-loss",
        "boosting rounds", XGB_ROUNDS, units_per_step=1, catch=(ValueError,),
    ),
    TrialStateTask(
        "logreg_invalid", "invalid", deferred(TASKS_MODULE, "logreg_invalid_objective"),
        "LogisticRegression on load_breast_cancer: solver (6) x penalty (4) x dual (2) categoricals, 33 of 48 "
        "combinations raise ValueError; C log float, l1_ratio (elasticnet only); validation log-loss",
        "fits", 1,
    ),
    TrialStateTask(
        "linear_svc_invalid", "invalid", deferred(TASKS_MODULE, "linear_svc_invalid_objective"),
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


def learning_curve_problem(task: PruningTask) -> TrialStateProblem:
    """A task of :mod:`.pruning_tasks` as a problem of this suite: its pruner (labelled by its
    name's suffix) and its compute rule."""
    return TrialStateProblem(task.name, task, task.name.rsplit("-", 1)[-1], pruner_factory=task.pruner, compute_rule=task.compute)


# The learning-curve sets: tuning data, and a fresh set held out until its
# model is frozen (RandomSampler only until then: docs/trial-states.md).
MISLEADING: tuple[str, ...] = tuple(t.name for t in MISLEADING_CURVE_TASKS)
FRESH_PRUNING: tuple[str, ...] = tuple(t.name for t in PRUNING_HELD_OUT_TASKS)
PROBLEMS: Mapping[str, TrialStateProblem] = {
    **_problems(), **{t.name: learning_curve_problem(t) for t in MISLEADING_CURVE_TASKS + PRUNING_HELD_OUT_TASKS},
}


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
# Every name that stands for problems: the halves of the trial-states suite ("all" is both halves, as
# run) and the learning-curve sets.
GROUPS: Mapping[str, tuple[str, ...]] = {**HALVES, "misleading": MISLEADING, "fresh_pruning": FRESH_PRUNING}


def get_trial_state_problem(name: str) -> TrialStateProblem:
    try:
        return PROBLEMS[name]
    except KeyError:
        raise ValueError(f"unknown trial-states problem {name!r}; valid names: {', '.join(PROBLEMS)}") from None


def resolve_problems(names: Sequence[str]) -> list[str]:
    """Problem names, where a group's name (tuning, held_out, all, misleading, fresh_pruning)
    stands for its problems."""
    resolved: list[str] = []
    for name in names:
        for member in GROUPS.get(name, (name,)):
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
