"""The paper's synthetic problems and the feature pages' problems with a known optimum, as
Optuna objectives (definitions after ``shared/benchmarks.md``, the paper's section 5):

- ``func2c``, ``func3c``: CoCaBO's synthetic Func2C and Func3C (Ru et al., 2020);
- ``ackley5c``, ``ackley53``: Ackley functions (:func:`~.suite_functions.ackley`) over large categorical spaces;
- ``constrained``: a quadratic with a categorical offset under a linear constraint;
- ``conditional_trap``: a conditional (define-by-run) tree with a trap branch.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.problem import MINIMIZE, Objective, Problem, suggest_categoricals, suggest_floats
from vpbo_benchmarks.suite_functions import ackley

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
    return np.asarray(sum(tables[i][level][0] * tables[i][level][1](z) for i, level in enumerate(h)))


def func2c(h1: int, h2: int, x: np.ndarray) -> np.ndarray:
    """Noise-free CoCaBO Func2C."""
    return cocabo_value(FUNC2C_TABLES, (h1, h2), x)


def func3c(h1: int, h2: int, h3: int, x: np.ndarray) -> np.ndarray:
    """Noise-free CoCaBO Func3C."""
    return cocabo_value(FUNC3C_TABLES, (h1, h2, h3), x)


def observation_noise(trial: BaseTrial) -> float:
    """CoCaBO's observation noise 1e-6 * U(0, 1), drawn from a Generator seeded by trial.number.

    Seeding by the trial number makes a run reproducible: trial n gets the same noise in
    every run, whatever the sampler. The noise is non-negative, so an observed value is never
    below the noise-free optimum.
    """
    return COCABO_NOISE_SCALE * float(np.random.default_rng(trial.number).uniform())


def _cocabo_objective(tables: Sequence[Sequence[WeightedTerm]]) -> Objective:
    def objective(trial: BaseTrial) -> float:
        h = [
            trial.suggest_categorical(f"h{i}", list(range(len(table))))
            for i, table in enumerate(tables, start=1)
        ]
        x = suggest_floats(trial, "x", COCABO_N_CONTINUOUS, *COCABO_BOUNDS)
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


def ackley5c_levels_to_z(levels: Sequence[int] | np.ndarray) -> np.ndarray:
    """Map Ackley-5C's integer levels 0..16 to coordinates -1 + 0.125 j."""
    return ACKLEY5C_LEVEL_START + ACKLEY5C_LEVEL_STEP * np.asarray(levels, dtype=np.float64)


def _ackley5c_objective(trial: BaseTrial) -> float:
    x = trial.suggest_float("x", *ACKLEY_BOUNDS)
    levels = suggest_categoricals(trial, "h", ACKLEY5C_N_CATEGORICAL, range(ACKLEY5C_N_LEVELS))
    return float(ackley(np.concatenate([[x], ackley5c_levels_to_z(levels)])))


def _ackley53_objective(trial: BaseTrial) -> float:
    z = suggest_categoricals(trial, "h", ACKLEY53_N_BINARY, ACKLEY53_LEVELS)
    x = suggest_floats(trial, "x", ACKLEY53_N_CONTINUOUS, *ACKLEY_BOUNDS)
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
# A constrained mixed problem with a known optimum
# --------------------------------------------------------------------------------------------

CONSTRAINED_OFFSETS = {"a": 0.0, "b": 0.3, "c": 1.0}
CONSTRAINED_OPTIMUM = 0.5  # x = y = 0.5 on the boundary x + y = 1, level "a"


def _constrained_objective(trial: BaseTrial) -> float:
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


def _conditional_trap_objective(trial: BaseTrial) -> float:
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


PROBLEMS: Mapping[str, Callable[[], Problem]] = {
    "func2c": functools.partial(_cocabo_problem, "func2c", "Func2C", FUNC2C_TABLES, FUNC2C_OPTIMUM),
    "func3c": functools.partial(_cocabo_problem, "func3c", "Func3C", FUNC3C_TABLES, FUNC3C_OPTIMUM),
    "ackley5c": _ackley5c_problem,
    "ackley53": _ackley53_problem,
    "constrained": _constrained_problem,
    "conditional_trap": _conditional_trap_problem,
}
