"""Benchmark problems for mixed categorical/continuous optimisation, as Optuna objectives.

Definitions follow ``shared/benchmarks.md`` (the paper's section 5):

- ``func2c``, ``func3c``: CoCaBO's synthetic Func2C and Func3C (Ru et al., 2020).
- ``ackley5c``, ``ackley53``: Ackley functions over large categorical spaces.
- ``reizman_suzuki_<case>``, ``reizman_suzuki_1_mo``, ``baumgartner``, ``baumgartner_mo``:
  Summit 0.8.9's experimental emulators, evaluated with numpy (see :mod:`.emulators`).
- ``conditional_trap``, ``automl``: conditional (define-by-run) search spaces: a synthetic
  tree with a trap branch and a known optimum, and a choice of classifier with each
  classifier's own hyperparameters (scikit-learn).
- ``svm_boston``, ``xg_mnist``, ``nas_like``: small machine-learning tasks that need the
  optional packages scikit-learn, xgboost and (for the Boston data) mlxtend; they are imported
  only when one of these problems is built.

Every problem is a :class:`Problem` whose ``objective`` takes an :class:`optuna.Trial`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import optuna

from . import emulators

ObjectiveValue = float | tuple[float, ...]
Objective = Callable[[optuna.Trial], ObjectiveValue]

MINIMIZE = "minimize"
MAXIMIZE = "maximize"


@dataclasses.dataclass(frozen=True)
class Problem:
    """A benchmark problem: an Optuna objective with its directions and known optimum."""

    name: str
    directions: tuple[str, ...]
    optimum: float | None
    n_combinations: int
    objective: Objective
    description: str


def _suggest_categoricals(trial: optuna.Trial, prefix: str, count: int, levels: Sequence[Any]) -> np.ndarray:
    """Suggest ``prefix1`` .. ``prefix<count>``, each over ``levels``."""
    return np.array([trial.suggest_categorical(f"{prefix}{i}", list(levels)) for i in range(1, count + 1)])


def _suggest_floats(trial: optuna.Trial, prefix: str, count: int, low: float, high: float) -> np.ndarray:
    """Suggest floats ``prefix1`` .. ``prefix<count>`` in [low, high]."""
    return np.array([trial.suggest_float(f"{prefix}{i}", low, high) for i in range(1, count + 1)])


# --------------------------------------------------------------------------------------------
# Func2C and Func3C (CoCaBO, Ru et al. 2020)
# --------------------------------------------------------------------------------------------

COCABO_INPUT_SCALE = 2.0  # the base functions are evaluated at z = 2 x, x in [-1, 1]^2
COCABO_BOUNDS = (-1.0, 1.0)
COCABO_N_CONTINUOUS = 2
COCABO_NOISE_SCALE = 1e-6  # the reference code adds 1e-6 * U(0, 1) to every observation
SIX_HUMP_CAMEL_MINIMUM = -1.0316284534898774  # global minimum of the (unscaled) six-hump camel


def rosenbrock_term(z: np.ndarray) -> np.ndarray:
    """CoCaBO's scaled Rosenbrock: (100 (z2 - z1^2)^2 + (z1 - 1)^2) / 300, over the last axis."""
    z1, z2 = z[..., 0], z[..., 1]
    return (100.0 * (z2 - z1**2) ** 2 + (z1 - 1.0) ** 2) / 300.0


def six_hump_camel_term(z: np.ndarray) -> np.ndarray:
    """CoCaBO's scaled six-hump camel: six-hump camel(z) / 10, over the last axis."""
    z1, z2 = z[..., 0], z[..., 1]
    return ((4.0 - 2.1 * z1**2 + z1**4 / 3.0) * z1**2 + z1 * z2 + (-4.0 + 4.0 * z2**2) * z2**2) / 10.0


def beale_term(z: np.ndarray) -> np.ndarray:
    """CoCaBO's scaled Beale: Beale(z) / 50, over the last axis."""
    z1, z2 = z[..., 0], z[..., 1]
    return (
        (1.5 - z1 + z1 * z2) ** 2 + (2.25 - z1 + z1 * z2**2) ** 2 + (2.625 - z1 + z1 * z2**3) ** 2
    ) / 50.0


# A categorical variable of Func2C/Func3C picks one (weight, base function) pair per level.
WeightedTerm = tuple[float, Callable[[np.ndarray], np.ndarray]]
FUNC_T1: tuple[WeightedTerm, ...] = ((1.0, rosenbrock_term), (1.0, six_hump_camel_term), (1.0, beale_term))
FUNC_T2: tuple[WeightedTerm, ...] = (*FUNC_T1, (1.0, beale_term), (1.0, beale_term))
FUNC3C_T3: tuple[WeightedTerm, ...] = (
    (5.0, six_hump_camel_term),
    (2.0, rosenbrock_term),
    (2.0, beale_term),
    (3.0, beale_term),
)
FUNC2C_TABLES = (FUNC_T1, FUNC_T2)
FUNC3C_TABLES = (FUNC_T1, FUNC_T2, FUNC3C_T3)
# Both minima are at h picking the six-hump camel everywhere and x = +-(0.04492, -0.35633).
FUNC2C_OPTIMUM = 2.0 * SIX_HUMP_CAMEL_MINIMUM / 10.0  # -0.206326 at h = (1, 1)
FUNC3C_OPTIMUM = 7.0 * SIX_HUMP_CAMEL_MINIMUM / 10.0  # -0.722140 at h = (1, 1, 0)


def cocabo_value(tables: Sequence[Sequence[WeightedTerm]], h: Sequence[int], x: np.ndarray) -> np.ndarray:
    """Noise-free Func2C/Func3C: sum over i of tables[i][h_i] at z = 2 x (x: [..., 2])."""
    z = COCABO_INPUT_SCALE * np.asarray(x, dtype=np.float64)
    return sum(tables[i][level][0] * tables[i][level][1](z) for i, level in enumerate(h))


def func2c(h1: int, h2: int, x: np.ndarray) -> np.ndarray:
    """Noise-free CoCaBO Func2C."""
    return cocabo_value(FUNC2C_TABLES, (h1, h2), x)


def func3c(h1: int, h2: int, h3: int, x: np.ndarray) -> np.ndarray:
    """Noise-free CoCaBO Func3C."""
    return cocabo_value(FUNC3C_TABLES, (h1, h2, h3), x)


def observation_noise(trial: optuna.Trial) -> float:
    """CoCaBO's observation noise 1e-6 * U(0, 1), drawn from a Generator seeded by trial.number.

    Seeding by the trial number makes a run reproducible: trial n gets the same noise in
    every run, whatever the sampler. The noise is non-negative, so an observed value is never
    below the noise-free optimum.
    """
    return COCABO_NOISE_SCALE * float(np.random.default_rng(trial.number).uniform())


def _cocabo_objective(tables: Sequence[Sequence[WeightedTerm]]) -> Objective:
    def objective(trial: optuna.Trial) -> float:
        h = [
            trial.suggest_categorical(f"h{i}", list(range(len(table))))
            for i, table in enumerate(tables, start=1)
        ]
        x = _suggest_floats(trial, "x", COCABO_N_CONTINUOUS, *COCABO_BOUNDS)
        return float(cocabo_value(tables, h, x)) + observation_noise(trial)

    return objective


def _cocabo_problem(
    name: str, label: str, tables: Sequence[Sequence[WeightedTerm]], optimum: float
) -> Problem:
    return Problem(
        name=name,
        directions=(MINIMIZE,),
        optimum=optimum,
        n_combinations=math.prod(len(table) for table in tables),
        objective=_cocabo_objective(tables),
        description=f"CoCaBO's {label} (minimise, noise 1e-6*U(0,1) seeded by trial number)",
    )


# --------------------------------------------------------------------------------------------
# Ackley over large categorical spaces
# --------------------------------------------------------------------------------------------

ACKLEY_A = 20.0
ACKLEY_B = 0.2
ACKLEY_C = 2.0 * math.pi
ACKLEY_BOUNDS = (-1.0, 1.0)
ACKLEY5C_N_CATEGORICAL = 5
ACKLEY5C_N_LEVELS = 17
ACKLEY5C_LEVEL_START = -1.0  # level j -> z = -1 + 0.125 j, so level 8 is z = 0
ACKLEY5C_LEVEL_STEP = 0.125
ACKLEY53_N_BINARY = 50
ACKLEY53_N_CONTINUOUS = 3
# Ackley-53's binary levels are used as coordinates directly: level 0 -> z = 0, level 1 -> z = 1,
# so the optimum 0 at the origin is reachable (a {-1, 1} coding would exclude it).
ACKLEY53_LEVELS = (0, 1)


def ackley(v: np.ndarray) -> np.ndarray:
    """Ackley function (a = 20, b = 0.2, c = 2 pi) over the last axis; 0 at the origin."""
    v = np.asarray(v, dtype=np.float64)
    root_mean_square = np.sqrt(np.mean(v**2, axis=-1))
    mean_cos = np.mean(np.cos(ACKLEY_C * v), axis=-1)
    return -ACKLEY_A * np.exp(-ACKLEY_B * root_mean_square) - np.exp(mean_cos) + ACKLEY_A + math.e


def ackley5c_levels_to_z(levels: np.ndarray) -> np.ndarray:
    """Map Ackley-5C's integer levels 0..16 to coordinates -1 + 0.125 j."""
    return ACKLEY5C_LEVEL_START + ACKLEY5C_LEVEL_STEP * np.asarray(levels, dtype=np.float64)


def _ackley5c_objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", *ACKLEY_BOUNDS)
    levels = _suggest_categoricals(trial, "h", ACKLEY5C_N_CATEGORICAL, range(ACKLEY5C_N_LEVELS))
    return float(ackley(np.concatenate([[x], ackley5c_levels_to_z(levels)])))


def _ackley53_objective(trial: optuna.Trial) -> float:
    z = _suggest_categoricals(trial, "h", ACKLEY53_N_BINARY, ACKLEY53_LEVELS)
    x = _suggest_floats(trial, "x", ACKLEY53_N_CONTINUOUS, *ACKLEY_BOUNDS)
    return float(ackley(np.concatenate([z, x])))


def _ackley5c_problem() -> Problem:
    return Problem(
        name="ackley5c",
        directions=(MINIMIZE,),
        optimum=0.0,
        n_combinations=ACKLEY5C_N_LEVELS**ACKLEY5C_N_CATEGORICAL,
        objective=_ackley5c_objective,
        description="Ackley-5C: Ackley on [x, z1..z5], 17-level categoricals z = -1 + 0.125 j (minimise)",
    )


def _ackley53_problem() -> Problem:
    return Problem(
        name="ackley53",
        directions=(MINIMIZE,),
        optimum=0.0,
        n_combinations=len(ACKLEY53_LEVELS) ** ACKLEY53_N_BINARY,
        objective=_ackley53_objective,
        description="Ackley-53: Ackley over 50 binary levels used as z in {0, 1} and 3 floats (minimise)",
    )


# --------------------------------------------------------------------------------------------
# Chemistry: Summit 0.8.9 experimental emulators
# --------------------------------------------------------------------------------------------

YIELD = "yld"
TURNOVER_NUMBER = "ton"
BAUMGARTNER_YIELD_OPTIMUM = 1.0  # the clip bound of the yield, reached by 6 of the 12 pairs

# Baumgartner C-N cross-coupling cost (US$ per reaction), as defined in benchmarks.md.
TRIFLATE_MMOL = 0.91 * 0.040
ANILINE_EQUIVALENTS = 1.6
TRIFLATE_PRICE = 5.91  # $/mmol
ANILINE_PRICE = 0.01
CATALYST_EQUIVALENTS: Mapping[str, float] = {"tBuXPhos": 0.0095, "tBuBrettPhos": 0.0094, "AlPhos": 0.0094}
CATALYST_PRICE: Mapping[str, float] = {"tBuXPhos": 94.08, "tBuBrettPhos": 182.85, "AlPhos": 594.18}
BASE_PRICE: Mapping[str, float] = {"DBU": 0.03, "BTMG": 1.2, "TMG": 0.001, "TEA": 0.01}


def baumgartner_cost(catalyst: str, base: str, base_equivalents: float) -> float:
    """Reagent cost of one Baumgartner C-N cross-coupling experiment (triflate-limited)."""
    return (
        TRIFLATE_MMOL * TRIFLATE_PRICE
        + ANILINE_EQUIVALENTS * TRIFLATE_MMOL * ANILINE_PRICE
        + CATALYST_EQUIVALENTS[catalyst] * TRIFLATE_MMOL * CATALYST_PRICE[catalyst]
        + base_equivalents * TRIFLATE_MMOL * BASE_PRICE[base]
    )


def suggest_emulator_inputs(trial: optuna.Trial, domain: emulators.EmulatorDomain) -> dict[str, Any]:
    """Suggest an emulator's inputs: categoricals as level strings, floats within the bounds."""
    params: dict[str, Any] = {
        v.name: trial.suggest_categorical(v.name, list(v.levels)) for v in domain.categorical
    }
    params.update({v.name: trial.suggest_float(v.name, v.low, v.high) for v in domain.continuous})
    return params


def _emulator_objective(
    emulator_name: str, score: Callable[[Mapping[str, Any], Mapping[str, float]], ObjectiveValue]
) -> Objective:
    """An objective that suggests the emulator's inputs and scores (inputs, predictions)."""
    emulator = emulators.load_emulator(emulator_name)

    def objective(trial: optuna.Trial) -> ObjectiveValue:
        params = suggest_emulator_inputs(trial, emulator.domain)
        return score(params, emulator.predict_one(params))

    return objective


def _yield_only(params: Mapping[str, Any], prediction: Mapping[str, float]) -> float:
    return prediction[YIELD]


def _yield_and_ton(params: Mapping[str, Any], prediction: Mapping[str, float]) -> tuple[float, float]:
    return prediction[YIELD], prediction[TURNOVER_NUMBER]


def _yield_and_cost(params: Mapping[str, Any], prediction: Mapping[str, float]) -> tuple[float, float]:
    return prediction[YIELD], baumgartner_cost(params["catalyst"], params["base"], params["base_equivalents"])


def _chemistry_problem(
    name: str,
    emulator_name: str,
    directions: tuple[str, ...],
    score: Callable[[Mapping[str, Any], Mapping[str, float]], ObjectiveValue],
    optimum: float | None,
    description: str,
) -> Problem:
    """A problem over an emulator's domain; one combination per tuple of categorical levels."""
    domain = emulators.load_emulator(emulator_name).domain
    return Problem(
        name=name,
        directions=directions,
        optimum=optimum,
        n_combinations=math.prod(len(v.levels) for v in domain.categorical),
        objective=_emulator_objective(emulator_name, score),
        description=description,
    )


def _reizman_problem(case: int, multi_objective: bool) -> Problem:
    emulator_name = f"reizman_suzuki_case_{case}"
    if multi_objective:
        name, directions, score = f"reizman_suzuki_{case}_mo", (MAXIMIZE, MAXIMIZE), _yield_and_ton
        what = "maximise yield (%) and turnover number as in the paper (Summit's domain marks ton minimise)"
    else:
        name, directions, score = f"reizman_suzuki_{case}", (MAXIMIZE,), _yield_only
        what = "maximise yield (%)"
    description = f"Reizman-Suzuki case {case}, Summit 0.8.9 emulator: {what}"
    return _chemistry_problem(name, emulator_name, directions, score, None, description)


def _baumgartner_problem(multi_objective: bool) -> Problem:
    if multi_objective:
        name, directions, score = "baumgartner_mo", (MAXIMIZE, MINIMIZE), _yield_and_cost
        what = "maximise yield, minimise reagent cost ($)"
    else:
        name, directions, score = "baumgartner", (MAXIMIZE,), _yield_only
        what = "maximise yield (optimum: clip value 1.0, a plateau)"
    description = f"Baumgartner C-N cross-coupling, Summit 0.8.9 emulator: {what}"
    return _chemistry_problem(
        name, emulators.BAUMGARTNER_ANILINE, directions, score, BAUMGARTNER_YIELD_OPTIMUM, description
    )


# --------------------------------------------------------------------------------------------
# Machine-learning problems (optional extra: scikit-learn, xgboost, mlxtend)
# --------------------------------------------------------------------------------------------

ML_TEST_FRACTION = 0.3
ML_SPLIT_SEED = 0
SVM_N_SPLITS = 5
SVM_MAX_ITER = 20_000  # libsvm iteration cap: keeps one evaluation well under a second
SVM_KERNELS = ("linear", "poly", "rbf", "sigmoid")
SVM_GAMMAS = ("scale", "auto")
SVM_SHRINKING = (True, False)
SVM_C_BOUNDS = (1e-4, 10.0)
SVM_TOL_BOUNDS = (1e-6, 1.0)
SVM_NU_BOUNDS = (1e-6, 1.0)

XGB_N_ESTIMATORS = 20
XGB_BOOSTERS = ("gbtree", "dart")
XGB_GROW_POLICIES = ("depthwise", "lossguide")
XGB_OBJECTIVES = ("multi:softmax", "multi:softprob")
XGB_MAX_DEPTHS = tuple(range(1, 11))
XGB_FLOAT_PARAMS: Mapping[str, tuple[float, float]] = {
    "learning_rate": (0.0, 1.0),
    "min_split_loss": (0.0, 10.0),
    "subsample": (0.001, 1.0),
    "reg_lambda": (0.0, 5.0),
}


def _digits_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8x8 digits, pixels scaled to [0, 1], stratified 70/30 split."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    return train_test_split(
        x / 16.0, y, test_size=ML_TEST_FRACTION, stratify=y, random_state=ML_SPLIT_SEED
    )


def _regression_data() -> tuple[np.ndarray, np.ndarray, str]:
    """Boston housing from mlxtend when installed, else scikit-learn's diabetes data."""
    try:
        from mlxtend.data import boston_housing_data
    except ImportError:
        from sklearn.datasets import load_diabetes

        x, y = load_diabetes(return_X_y=True)
        return x, y, "sklearn load_diabetes (substitute: mlxtend not installed, no Boston data)"
    x, y = boston_housing_data()
    return x, y, "Boston housing from mlxtend"


def _svm_problem() -> Problem:
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import NuSVR

    x, y, source = _regression_data()
    splits = [
        train_test_split(x, y, test_size=ML_TEST_FRACTION, random_state=seed) for seed in range(SVM_N_SPLITS)
    ]

    def objective(trial: optuna.Trial) -> float:
        model = make_pipeline(
            StandardScaler(),
            NuSVR(
                kernel=trial.suggest_categorical("kernel", list(SVM_KERNELS)),
                gamma=trial.suggest_categorical("gamma", list(SVM_GAMMAS)),
                shrinking=trial.suggest_categorical("shrinking", list(SVM_SHRINKING)),
                C=trial.suggest_float("C", *SVM_C_BOUNDS, log=True),
                tol=trial.suggest_float("tol", *SVM_TOL_BOUNDS, log=True),
                nu=trial.suggest_float("nu", *SVM_NU_BOUNDS, log=True),
                max_iter=SVM_MAX_ITER,
            ),
        )
        errors = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning from the max_iter cap
            for x_train, x_test, y_train, y_test in splits:
                model.fit(x_train, y_train)
                errors.append(np.sqrt(np.mean((model.predict(x_test) - y_test) ** 2)))
        return float(np.mean(errors))

    return Problem(
        name="svm_boston",
        directions=(MINIMIZE,),
        optimum=None,
        n_combinations=len(SVM_KERNELS) * len(SVM_GAMMAS) * len(SVM_SHRINKING),
        objective=objective,
        description=f"SVM-Boston: NuSVR test RMSE, mean of {SVM_N_SPLITS} 70/30 splits, {source} (minimise)",
    )


def _xgb_problem() -> Problem:
    from xgboost import XGBClassifier

    x_train, x_test, y_train, y_test = _digits_split()

    def objective(trial: optuna.Trial) -> float:
        model = XGBClassifier(
            booster=trial.suggest_categorical("booster", list(XGB_BOOSTERS)),
            grow_policy=trial.suggest_categorical("grow_policy", list(XGB_GROW_POLICIES)),
            objective=trial.suggest_categorical("objective", list(XGB_OBJECTIVES)),
            max_depth=trial.suggest_categorical("max_depth", list(XGB_MAX_DEPTHS)),
            **{name: trial.suggest_float(name, *bounds) for name, bounds in XGB_FLOAT_PARAMS.items()},
            n_estimators=XGB_N_ESTIMATORS,
            tree_method="hist",
            n_jobs=1,
            random_state=ML_SPLIT_SEED,
        )
        model.fit(x_train, y_train)
        return float(np.mean(model.predict(x_test) == y_test))

    return Problem(
        name="xg_mnist",
        directions=(MAXIMIZE,),
        optimum=None,
        n_combinations=len(XGB_BOOSTERS) * len(XGB_GROW_POLICIES) * len(XGB_OBJECTIVES) * len(XGB_MAX_DEPTHS),
        objective=objective,
        description="XG-MNIST substitute: XGBoost test accuracy on sklearn load_digits, not MNIST (maximise)",
    )


# NAS-Bench-101 substitute: CoCaBO's NAS-CIFAR10 encoding of a 7-node cell, scored by a small
# MLP on load_digits whose hidden layers follow the decoded cell.
NAS_N_NODES = 7  # input, five operation nodes, output
NAS_OPS = ("conv1x1-bn-relu", "conv3x3-bn-relu", "maxpool3x3")
NAS_OP_WIDTH: Mapping[str, int] = {"conv1x1-bn-relu": 16, "conv3x3-bn-relu": 32, "maxpool3x3": 8}
NAS_MAX_EDGES = 9
NAS_EDGES: tuple[tuple[int, int], ...] = tuple(
    (i, j) for i in range(NAS_N_NODES) for j in range(i + 1, NAS_N_NODES)
)  # the 21 entries of the upper triangle, row-major
NAS_INVALID_SCORE = 0.0  # invalid cells score the worst accuracy
NAS_MAX_EPOCHS = 30


def decode_cell(ops: Sequence[str], edge_scores: Sequence[float], num_edges: int) -> tuple[int, ...] | None:
    """Decode the NAS-CIFAR10 encoding into the MLP's hidden-layer widths, or None if invalid.

    The cell keeps the ``num_edges`` highest-scoring edges of the upper-triangular adjacency
    matrix, then prunes nodes not on a path from the input (node 0) to the output (node 6),
    as NAS-Bench-101 does. A cell without such a path is invalid. Each kept operation node
    sits at the depth of its longest path from the input; hidden layer d has the summed
    widths of the operations at depth d (so an input-to-output edge alone gives no layer).
    """
    order = np.argsort(-np.asarray(edge_scores, dtype=np.float64), kind="stable")[:num_edges]
    kept = [NAS_EDGES[k] for k in order]
    output = NAS_N_NODES - 1
    reach_from_input = {0}
    for i, j in sorted(kept):  # edges go forward, so one pass in source order suffices
        if i in reach_from_input:
            reach_from_input.add(j)
    reach_output = {output}
    for i, j in sorted(kept, reverse=True):
        if j in reach_output:
            reach_output.add(i)
    if output not in reach_from_input:
        return None
    live = reach_from_input & reach_output
    depth = dict.fromkeys(live, 0)
    for i, j in sorted(kept):
        if i in live and j in live:
            depth[j] = max(depth[j], depth[i] + 1)
    widths = [0] * (depth[output] - 1)  # the longest path puts a node at every depth
    for node in live - {0, output}:
        widths[depth[node] - 1] += NAS_OP_WIDTH[ops[node - 1]]
    return tuple(widths)


def _nas_problem() -> Problem:
    from sklearn.neural_network import MLPClassifier

    x_train, x_test, y_train, y_test = _digits_split()

    def objective(trial: optuna.Trial) -> float:
        ops = [trial.suggest_categorical(f"op_node_{k}", list(NAS_OPS)) for k in range(NAS_N_NODES - 2)]
        scores = [trial.suggest_float(f"edge_{k}", 0.0, 1.0) for k in range(len(NAS_EDGES))]
        widths = decode_cell(ops, scores, trial.suggest_int("num_edges", 0, NAS_MAX_EDGES))
        if widths is None:
            return NAS_INVALID_SCORE
        model = MLPClassifier(hidden_layer_sizes=widths, max_iter=NAS_MAX_EPOCHS, random_state=ML_SPLIT_SEED)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning from the epoch cap
            model.fit(x_train, y_train)
        return float(model.score(x_test, y_test))

    return Problem(
        name="nas_like",
        directions=(MAXIMIZE,),
        optimum=None,
        n_combinations=len(NAS_OPS) ** (NAS_N_NODES - 2),
        objective=objective,
        description="NAS-Bench-101 substitute: NAS-CIFAR10 cell scored by an MLP on load_digits (maximise)",
    )


# --------------------------------------------------------------------------------------------
# A constrained mixed problem with a known optimum
# --------------------------------------------------------------------------------------------

CONSTRAINED_OFFSETS = {"a": 0.0, "b": 0.3, "c": 1.0}
CONSTRAINED_OPTIMUM = 0.5  # x = y = 0.5 on the boundary x + y = 1, level "a"


def _constrained_objective(trial: optuna.Trial) -> float:
    """min x^2 + y^2 + offset(c) subject to x + y >= 1 (``set_constraint``: 1 - x - y <= 0)."""
    level = trial.suggest_categorical("c", list(CONSTRAINED_OFFSETS))
    x = trial.suggest_float("x", -2.0, 2.0)
    y = trial.suggest_float("y", -2.0, 2.0)
    trial.set_constraint("x_plus_y_at_least_1", 1.0 - x - y)
    return x * x + y * y + CONSTRAINED_OFFSETS[level]


def _constrained_problem() -> Problem:
    return Problem(
        name="constrained",
        directions=(MINIMIZE,),
        optimum=CONSTRAINED_OPTIMUM,
        n_combinations=len(CONSTRAINED_OFFSETS),
        objective=_constrained_objective,
        description="quadratic with a categorical offset under a linear constraint (optimum 0.5 on the boundary)",
    )


# --------------------------------------------------------------------------------------------
# Conditional search spaces: a synthetic trap with a known optimum, and AutoML
# --------------------------------------------------------------------------------------------

# conditional_trap (minimise): the root choice "model" opens a branch of its own parameters.
# "flat" is the trap: the best average value of any branch but a poor best (0.30). "bowl" has
# a Gaussian basin down to 0.15; "tree" opens a nested choice "tree_kind", whose "deep" leaf
# holds the global optimum 0 in a narrow basin and whose "shallow" leaf bottoms out at 0.6.
TRAP_MODELS = ("flat", "bowl", "tree")
TRAP_TREE_KINDS = ("shallow", "deep")
TRAP_FLAT_FLOOR = 0.30
TRAP_FLAT_CURVATURE = 0.05
TRAP_BOWL_FLOOR = 0.15
TRAP_BOWL_CENTRE = (0.2, 0.7)
TRAP_BOWL_WIDTH = 0.2
TRAP_SHALLOW_FLOOR = 0.6
TRAP_SHALLOW_SLOPE = 0.03
TRAP_SHALLOW_BEST_DEPTH = 12
TRAP_SHALLOW_DEPTHS = (1, 20)
TRAP_DEEP_HEIGHT = 1.2
TRAP_DEEP_LR_BOUNDS = (1e-4, 1.0)  # log-scaled
TRAP_DEEP_CENTRE = (10.0**-2.5, 0.3)  # (lr, s): the global optimum
TRAP_DEEP_WIDTH = 0.2  # in the unit scaling of (log10 lr, s)
CONDITIONAL_TRAP_OPTIMUM = 0.0


def _gaussian_well(offsets: Sequence[float], width: float) -> float:
    """1 - exp(-|offsets|^2 / (2 width^2)): 0 at the centre, 1 far from it."""
    return 1.0 - math.exp(-sum(o * o for o in offsets) / (2.0 * width * width))


def conditional_trap_value(params: Mapping[str, Any]) -> float:
    """The trap function of the active parameters of one configuration (see the constants)."""
    model = params["model"]
    if model == "flat":
        return TRAP_FLAT_FLOOR + TRAP_FLAT_CURVATURE * (params["flat_u"] - 0.5) ** 2
    if model == "bowl":
        offsets = (params["bowl_x"] - TRAP_BOWL_CENTRE[0], params["bowl_y"] - TRAP_BOWL_CENTRE[1])
        return TRAP_BOWL_FLOOR + _gaussian_well(offsets, TRAP_BOWL_WIDTH)
    if params["tree_kind"] == "shallow":
        return TRAP_SHALLOW_FLOOR + TRAP_SHALLOW_SLOPE * abs(params["tree_depth"] - TRAP_SHALLOW_BEST_DEPTH)
    log_low, log_high = (math.log10(b) for b in TRAP_DEEP_LR_BOUNDS)
    unit_lr = (math.log10(params["tree_lr"]) - log_low) / (log_high - log_low)
    unit_centre = (math.log10(TRAP_DEEP_CENTRE[0]) - log_low) / (log_high - log_low)
    offsets = (unit_lr - unit_centre, params["tree_s"] - TRAP_DEEP_CENTRE[1])
    return TRAP_DEEP_HEIGHT * _gaussian_well(offsets, TRAP_DEEP_WIDTH)


def _conditional_trap_objective(trial: optuna.Trial) -> float:
    params: dict[str, Any] = {"model": trial.suggest_categorical("model", list(TRAP_MODELS))}
    if params["model"] == "flat":
        params["flat_u"] = trial.suggest_float("flat_u", 0.0, 1.0)
    elif params["model"] == "bowl":
        params["bowl_x"] = trial.suggest_float("bowl_x", 0.0, 1.0)
        params["bowl_y"] = trial.suggest_float("bowl_y", 0.0, 1.0)
    else:
        params["tree_kind"] = trial.suggest_categorical("tree_kind", list(TRAP_TREE_KINDS))
        if params["tree_kind"] == "shallow":
            params["tree_depth"] = trial.suggest_int("tree_depth", *TRAP_SHALLOW_DEPTHS)
        else:
            params["tree_lr"] = trial.suggest_float("tree_lr", *TRAP_DEEP_LR_BOUNDS, log=True)
            params["tree_s"] = trial.suggest_float("tree_s", 0.0, 1.0)
    return conditional_trap_value(params)


def _conditional_trap_problem() -> Problem:
    return Problem(
        name="conditional_trap",
        directions=(MINIMIZE,),
        optimum=CONDITIONAL_TRAP_OPTIMUM,
        n_combinations=len(TRAP_MODELS) + len(TRAP_TREE_KINDS) - 1,  # the leaves of the tree
        objective=_conditional_trap_objective,
        description=(
            "conditional trap: branches flat (trap: best average, best 0.30), bowl (0.15), "
            "tree > shallow (0.6) / deep (optimum 0 at lr = 10^-2.5, s = 0.3) (minimise)"
        ),
    )


# automl (maximise): choose a classifier, then its own hyperparameters; 3-fold stratified CV
# accuracy on scikit-learn's bundled breast cancer data (569 samples, 30 features). Model sizes
# are capped so that one evaluation stays well under a second on one core.
AUTOML_CLASSIFIERS = ("svc", "random_forest", "hist_gradient_boosting", "logistic_regression")
AUTOML_N_FOLDS = 3
AUTOML_CV_SEED = 0
AUTOML_SVC_C_BOUNDS = (1e-2, 1e3)
AUTOML_SVC_GAMMA_BOUNDS = (1e-5, 1.0)
AUTOML_RF_N_ESTIMATORS = 20
AUTOML_RF_MAX_DEPTH_BOUNDS = (1, 16)
AUTOML_RF_MAX_FEATURES_BOUNDS = (0.05, 1.0)
AUTOML_RF_MIN_SAMPLES_LEAF_BOUNDS = (1, 32)  # log-scaled
AUTOML_HGB_MAX_ITER = 30
AUTOML_HGB_LEARNING_RATE_BOUNDS = (1e-3, 1.0)
AUTOML_HGB_MAX_LEAF_NODES_BOUNDS = (4, 64)  # log-scaled
AUTOML_HGB_L2_BOUNDS = (1e-6, 10.0)
AUTOML_LR_C_BOUNDS = (1e-4, 1e3)
AUTOML_LR_CLASS_WEIGHTS = ("none", "balanced")
AUTOML_LR_MAX_ITER = 1000


def _automl_classifier(trial: optuna.Trial) -> Any:
    """The classifier the trial chooses, with the hyperparameters of that choice only."""
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    name = trial.suggest_categorical("classifier", list(AUTOML_CLASSIFIERS))
    if name == "svc":
        return make_pipeline(
            StandardScaler(),
            SVC(
                C=trial.suggest_float("svc_C", *AUTOML_SVC_C_BOUNDS, log=True),
                gamma=trial.suggest_float("svc_gamma", *AUTOML_SVC_GAMMA_BOUNDS, log=True),
            ),
        )
    if name == "random_forest":
        return RandomForestClassifier(
            n_estimators=AUTOML_RF_N_ESTIMATORS,
            max_depth=trial.suggest_int("rf_max_depth", *AUTOML_RF_MAX_DEPTH_BOUNDS),
            max_features=trial.suggest_float("rf_max_features", *AUTOML_RF_MAX_FEATURES_BOUNDS),
            min_samples_leaf=trial.suggest_int("rf_min_samples_leaf", *AUTOML_RF_MIN_SAMPLES_LEAF_BOUNDS, log=True),
            random_state=AUTOML_CV_SEED,
            n_jobs=1,
        )
    if name == "hist_gradient_boosting":
        return HistGradientBoostingClassifier(
            max_iter=AUTOML_HGB_MAX_ITER,
            learning_rate=trial.suggest_float("hgb_learning_rate", *AUTOML_HGB_LEARNING_RATE_BOUNDS, log=True),
            max_leaf_nodes=trial.suggest_int("hgb_max_leaf_nodes", *AUTOML_HGB_MAX_LEAF_NODES_BOUNDS, log=True),
            l2_regularization=trial.suggest_float("hgb_l2_regularization", *AUTOML_HGB_L2_BOUNDS, log=True),
            early_stopping=False,
            random_state=AUTOML_CV_SEED,
        )
    class_weight = trial.suggest_categorical("lr_class_weight", list(AUTOML_LR_CLASS_WEIGHTS))
    return make_pipeline(
        StandardScaler(),
        LogisticRegression(
            C=trial.suggest_float("lr_C", *AUTOML_LR_C_BOUNDS, log=True),
            class_weight=None if class_weight == "none" else class_weight,
            max_iter=AUTOML_LR_MAX_ITER,
        ),
    )


def _automl_problem() -> Problem:
    import threadpoolctl
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    x, y = load_breast_cancer(return_X_y=True)
    folds = StratifiedKFold(n_splits=AUTOML_N_FOLDS, shuffle=True, random_state=AUTOML_CV_SEED)

    def objective(trial: optuna.Trial) -> float:
        model = _automl_classifier(trial)
        # One thread: HistGradientBoosting's OpenMP threads only contend on a shared machine.
        with threadpoolctl.threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning of extreme C
            return float(np.mean(cross_val_score(model, x, y, cv=folds)))

    return Problem(
        name="automl",
        directions=(MAXIMIZE,),
        optimum=None,
        n_combinations=len(AUTOML_CLASSIFIERS) + len(AUTOML_LR_CLASS_WEIGHTS) - 1,
        objective=objective,
        description=(
            "AutoML: SVC / random forest / histogram gradient boosting / logistic regression and "
            f"their own hyperparameters, {AUTOML_N_FOLDS}-fold stratified CV accuracy on sklearn "
            "load_breast_cancer (maximise)"
        ),
    )


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

REIZMAN_CASES = (1, 2, 3, 4)

_FACTORIES: Mapping[str, Callable[[], Problem]] = {
    "func2c": functools.partial(_cocabo_problem, "func2c", "Func2C", FUNC2C_TABLES, FUNC2C_OPTIMUM),
    "func3c": functools.partial(_cocabo_problem, "func3c", "Func3C", FUNC3C_TABLES, FUNC3C_OPTIMUM),
    "ackley5c": _ackley5c_problem,
    "ackley53": _ackley53_problem,
    **{f"reizman_suzuki_{case}": functools.partial(_reizman_problem, case, False) for case in REIZMAN_CASES},
    "reizman_suzuki_1_mo": functools.partial(_reizman_problem, 1, True),
    "baumgartner": functools.partial(_baumgartner_problem, False),
    "baumgartner_mo": functools.partial(_baumgartner_problem, True),
    "svm_boston": _svm_problem,
    "xg_mnist": _xgb_problem,
    "nas_like": _nas_problem,
    "constrained": _constrained_problem,
    "conditional_trap": _conditional_trap_problem,
    "automl": _automl_problem,
}

# The broad suite of issue 13 (suite.py imports this module only inside its functions).
from vpbo_benchmarks.suite import SUITE_FACTORIES  # noqa: E402

_FACTORIES = {**_FACTORIES, **SUITE_FACTORIES}
PROBLEM_NAMES: tuple[str, ...] = tuple(_FACTORIES)
ML_PROBLEM_NAMES: tuple[str, ...] = ("svm_boston", "xg_mnist", "nas_like", "automl")


def get_problem(name: str) -> Problem:
    """Build the problem registered as ``name`` (one of :data:`PROBLEM_NAMES`).

    The ML problems import scikit-learn/xgboost here and raise ImportError without them.
    """
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown problem {name!r}; valid names: {', '.join(PROBLEM_NAMES)}") from None
    return factory()


def simple_regret(problem: Problem, best_value: float) -> float:
    """Gap between the best value found and the known optimum of the first objective.

    Measured in the problem's first direction, so it is >= 0; a gap below zero can only come
    from floating-point rounding and is clipped to 0. Raises ValueError if no optimum is known.
    """
    if problem.optimum is None:
        raise ValueError(f"problem {problem.name!r} has no known optimum")
    gap = best_value - problem.optimum if problem.directions[0] == MINIMIZE else problem.optimum - best_value
    return max(0.0, gap)
