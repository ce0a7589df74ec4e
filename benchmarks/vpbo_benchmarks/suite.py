"""A broad mixed-variable suite with a fixed TUNING / HELD_OUT split (issue 13), see docs/suite.md.

Sixteen problems in seven families, two or four per family:

- ``shifted``: multimodal numeric parts (Ackley, Rastrigin, Levy, Schwefel) whose optimum moves
  with the categoricals (a shift vector, or a sign pattern for Schwefel, per level);
- ``many_levels``: 10-20 levels per categorical, or six categoricals with pairwise interactions;
- ``int_log``: integer and log-scaled parameters next to categoricals (Styblinski-Tang, Ackley);
- ``conditional_cat``: branches decided by a categorical;
- ``conditional_int``: branches decided by an int, as in an MLP's ``n_layers`` (Optuna's tutorial
  pattern): per-layer parameters exist only for the layers below the layer count;
- ``noisy``: Gaussian observation noise of a stated standard deviation; the noiseless value of
  every trial is stored in the user attribute :data:`NOISELESS_ATTR` so that regret is measured on it;
- ``real``: cross-validated tuning of scikit-learn models on data that ships with scikit-learn
  (no known optimum: the best value found is the reference).

Every synthetic problem has a known optimum, computed as stated in its :class:`SuiteSpec`
(``optimum_method``) and checked by benchmarks/tests/test_suite.py. Each synthetic objective is
``base(x - shift(h)) + offset(h)``-shaped: the numeric part reaches its own minimum 0 inside the
bounds for every combination ``h``, so the best value of a combination is its offset, and the
optimum is the smallest offset over all combinations (found by enumeration).

The suite's problems are registered in :mod:`.problems` (``get_problem(name)``); this module
imports :class:`~.problems.Problem` only inside functions, so the two modules import in any order.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import warnings
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import optuna

from vpbo_benchmarks.fresh_problems import fresh_specs

NOISELESS_ATTR = "noiseless_value"  # user attribute: the objective without its noise
MINIMIZE = "minimize"

# --------------------------------------------------------------------------------------------
# Base functions, each with minimum 0 (vectorised over the last axis)
# --------------------------------------------------------------------------------------------


def ackley(z: np.ndarray) -> np.ndarray:
    """Ackley (a=20, b=0.2, c=2 pi); minimum 0 at z = 0 (Ackley 1987; Surjanovic & Bingham's library)."""
    z = np.asarray(z, dtype=float)
    d = z.shape[-1]
    first = -20.0 * np.exp(-0.2 * np.sqrt(np.sum(z**2, axis=-1) / d))
    return first - np.exp(np.sum(np.cos(2.0 * math.pi * z), axis=-1) / d) + 20.0 + math.e


def rastrigin(z: np.ndarray) -> np.ndarray:
    """Rastrigin: 10 d + sum(z^2 - 10 cos(2 pi z)); minimum 0 at z = 0."""
    z = np.asarray(z, dtype=float)
    return 10.0 * z.shape[-1] + np.sum(z**2 - 10.0 * np.cos(2.0 * math.pi * z), axis=-1)


def levy(z: np.ndarray) -> np.ndarray:
    """Levy function in the coordinates u = x - 1 (so that the minimum 0 is at z = 0):
    w = 1 + z / 4; sin^2(pi w1) + sum_{i<d} (w_i - 1)^2 (1 + 10 sin^2(pi w_i + 1))
    + (w_d - 1)^2 (1 + sin^2(2 pi w_d)) (Surjanovic & Bingham's library)."""
    w = 1.0 + np.asarray(z, dtype=float) / 4.0
    head = np.sin(math.pi * w[..., 0]) ** 2
    inner = np.sum((w[..., :-1] - 1.0) ** 2 * (1.0 + 10.0 * np.sin(math.pi * w[..., :-1] + 1.0) ** 2), axis=-1)
    tail = (w[..., -1] - 1.0) ** 2 * (1.0 + np.sin(2.0 * math.pi * w[..., -1]) ** 2)
    return head + inner + tail


def _schwefel_term(z: np.ndarray) -> np.ndarray:
    return -z * np.sin(np.sqrt(np.abs(z)))


def _styblinski_tang_term(z: np.ndarray) -> np.ndarray:
    return 0.5 * (z**4 - 16.0 * z**2 + 5.0 * z)


@functools.cache
def one_dimensional_minimum(term: str) -> tuple[float, float]:
    """(argmin, min) of the separable 1-D term of Schwefel on [-500, 500] or Styblinski-Tang on
    [-5, 5]: a dense grid, then scipy's bounded Brent search around the best grid point."""
    from scipy.optimize import minimize_scalar

    function, (low, high) = {
        "schwefel": (_schwefel_term, (-500.0, 500.0)),
        "styblinski_tang": (_styblinski_tang_term, (-5.0, 5.0)),
    }[term]
    grid = np.linspace(low, high, 200_001)
    start = grid[int(np.argmin(function(grid)))]
    step = grid[1] - grid[0]
    result = minimize_scalar(
        lambda v: float(function(np.array(v))), bounds=(start - step, start + step), method="bounded",
        options={"xatol": 1e-12},
    )
    return float(result.x), float(result.fun)


def schwefel(z: np.ndarray) -> np.ndarray:
    """Schwefel: sum(-z sin(sqrt|z|)) minus its minimum, so minimum 0 at z_i = 420.9687..."""
    z = np.asarray(z, dtype=float)
    return np.sum(_schwefel_term(z), axis=-1) - z.shape[-1] * one_dimensional_minimum("schwefel")[1]


def styblinski_tang(z: np.ndarray) -> np.ndarray:
    """Styblinski-Tang: 0.5 sum(z^4 - 16 z^2 + 5 z) minus its minimum: minimum 0 at z_i = -2.9035..."""
    z = np.asarray(z, dtype=float)
    return np.sum(_styblinski_tang_term(z), axis=-1) - z.shape[-1] * one_dimensional_minimum("styblinski_tang")[1]


BASE_FUNCTIONS: Mapping[str, Callable[[np.ndarray], np.ndarray]] = {
    "ackley": ackley,
    "rastrigin": rastrigin,
    "levy": levy,
    "schwefel": schwefel,
    "styblinski_tang": styblinski_tang,
}


def base_argmin(name: str, d: int) -> np.ndarray:
    """Where the base function ``name`` in dimension ``d`` takes its minimum 0."""
    if name in ("schwefel", "styblinski_tang"):
        return np.full(d, one_dimensional_minimum(name)[0])
    return np.zeros(d)


# --------------------------------------------------------------------------------------------
# Shifted (flat) problems: base(sign(h) * (x - shift(h)) / scale) * height + offset(h)
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ShiftedDesign:
    """A flat mixed problem: categoricals ``c1..`` over ``levels``, floats ``x1..`` in ``bounds``
    (and ints ``k1..`` in ``int_bounds``). Each level adds a shift vector (an integer one on the
    int dimensions) and an offset; pairs of categoricals add an interaction offset. Tables come
    from ``np.random.default_rng(table_seed)``, so they are fixed."""

    base: str
    levels: tuple[int, ...]
    n_floats: int
    bounds: tuple[float, float]
    table_seed: int
    offset_spread: float
    interaction_spread: float = 0.0
    shift_fraction: float = 0.3  # the summed shift stays within this fraction of the half-width
    n_ints: int = 0
    int_bounds: tuple[int, int] = (0, 0)
    int_scale: float = 1.0  # base input per integer step
    sign_patterns: bool = False  # Schwefel: per-level sign flips instead of shifts
    height: float = 1.0
    # A fixed shift common to every combination, within this fraction of the half-width: the
    # optima of bases whose argmin is 0 do not sit near the centre of the box (where samplers
    # that start at the centre, such as CMA-ES or Ax's centre point, would be favoured).
    centre_fraction: float = 0.0


@dataclasses.dataclass(frozen=True)
class ShiftedTables:
    shifts: tuple[np.ndarray, ...]  # per categorical: [levels, n_floats + n_ints]
    centre: np.ndarray  # [n_floats + n_ints], added to every combination's shift
    offsets: tuple[np.ndarray, ...]  # per categorical: [levels]
    interactions: Mapping[tuple[int, int], np.ndarray]  # (i, j) -> [levels_i, levels_j]


@functools.cache
def shifted_tables(design: ShiftedDesign) -> ShiftedTables:
    """The fixed shift, sign, offset and interaction tables of ``design``."""
    rng = np.random.default_rng(design.table_seed)
    n_cats = len(design.levels)
    half_width = (design.bounds[1] - design.bounds[0]) / 2.0
    per_cat = design.shift_fraction * half_width / n_cats
    shifts = []
    for n in design.levels:
        if design.sign_patterns:
            shift = rng.choice([-1.0, 1.0], size=(n, design.n_floats))
        else:
            shift = rng.uniform(-per_cat, per_cat, size=(n, design.n_floats))
        int_half = (design.int_bounds[1] - design.int_bounds[0]) // 2
        int_shift = rng.integers(-int(design.shift_fraction * int_half / n_cats), int(design.shift_fraction * int_half / n_cats) + 1, size=(n, design.n_ints))
        shifts.append(np.concatenate([shift, int_shift.astype(float)], axis=1))
    offsets = tuple(rng.uniform(0.0, design.offset_spread, size=n) for n in design.levels)
    interactions = {
        (i, j): rng.uniform(0.0, design.interaction_spread, size=(design.levels[i], design.levels[j]))
        for i, j in itertools.combinations(range(n_cats), 2)
    } if design.interaction_spread > 0 else {}
    # A generator of its own, so that the other tables (and so the optimum) do not depend on it.
    centre_rng = np.random.default_rng([design.table_seed, 1])
    half_int = (design.int_bounds[1] - design.int_bounds[0]) // 2
    centre = np.concatenate([
        centre_rng.uniform(-1.0, 1.0, size=design.n_floats) * design.centre_fraction * half_width,
        centre_rng.integers(-int(design.centre_fraction * half_int), int(design.centre_fraction * half_int) + 1, size=design.n_ints),
    ]).astype(float)
    return ShiftedTables(tuple(shifts), centre, offsets, interactions)


def shifted_offset(design: ShiftedDesign, h: Sequence[int]) -> float:
    """The best value of combination ``h``: its offsets and pairwise interactions."""
    tables = shifted_tables(design)
    total = sum(float(tables.offsets[i][level]) for i, level in enumerate(h))
    return total + sum(float(table[h[i], h[j]]) for (i, j), table in tables.interactions.items())


def _combined_shift(design: ShiftedDesign, h: Sequence[int]) -> np.ndarray:
    """The sum of the levels' shift vectors, or the product of their sign patterns."""
    rows = [shifted_tables(design).shifts[i][level] for i, level in enumerate(h)]
    return np.prod(rows, axis=0) if design.sign_patterns else np.sum(rows, axis=0) + shifted_tables(design).centre


def shifted_value(design: ShiftedDesign, h: Sequence[int], x: np.ndarray, k: np.ndarray | None = None) -> float:
    """The noiseless objective at levels ``h``, floats ``x`` and ints ``k``."""
    shift = _combined_shift(design, h)
    if design.sign_patterns:
        z = np.asarray(x, dtype=float) * shift[: design.n_floats]
    else:
        z_float = np.asarray(x, dtype=float) - shift[: design.n_floats]
        k = np.zeros(0) if k is None else np.asarray(k, dtype=float)
        z = np.concatenate([z_float, (k - shift[design.n_floats:]) * design.int_scale])
    return float(design.height * BASE_FUNCTIONS[design.base](z)) + shifted_offset(design, h)


def shifted_argmin(design: ShiftedDesign, h: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(x, k) where combination ``h`` takes its best value (its offset)."""
    shift = _combined_shift(design, h)
    zero = base_argmin(design.base, design.n_floats)
    if design.sign_patterns:
        return zero * shift[: design.n_floats], np.zeros(0)
    return zero + shift[: design.n_floats], shift[design.n_floats:].round()


def best_combination(design: ShiftedDesign) -> tuple[tuple[int, ...], float]:
    """The combination with the smallest offset and that offset, by enumeration."""
    best = min(itertools.product(*(range(n) for n in design.levels)), key=lambda h: shifted_offset(design, h))
    return tuple(best), shifted_offset(design, best)


def _noise(trial: optuna.Trial, sd: float) -> float:
    """Gaussian noise of standard deviation ``sd`` from a Generator seeded by the trial number and
    the parameters: reproducible for a given run, different between trials and points."""
    key = zlib.crc32(repr(sorted(trial.params.items())).encode())
    return sd * float(np.random.default_rng([trial.number, key]).standard_normal())


def _observe(trial: optuna.Trial, value: float, noise_sd: float) -> float:
    """``value`` plus the noise; the noiseless value goes to the trial's user attributes."""
    if noise_sd <= 0:
        return value
    trial.set_user_attr(NOISELESS_ATTR, value)
    return value + _noise(trial, noise_sd)


def shifted_objective(design: ShiftedDesign, noise_sd: float = 0.0) -> Callable[[optuna.Trial], float]:
    def objective(trial: optuna.Trial) -> float:
        h = [trial.suggest_categorical(f"c{i + 1}", list(range(n))) for i, n in enumerate(design.levels)]
        x = np.array([trial.suggest_float(f"x{i + 1}", *design.bounds) for i in range(design.n_floats)])
        k = np.array([trial.suggest_int(f"k{i + 1}", *design.int_bounds) for i in range(design.n_ints)])
        return _observe(trial, shifted_value(design, h, x, k), noise_sd)

    return objective


SHIFTED_DESIGNS: Mapping[str, ShiftedDesign] = {
    "shifted_ackley": ShiftedDesign("ackley", (5, 5), 4, (-5.0, 5.0), 1301, offset_spread=3.0, centre_fraction=0.5),
    "shifted_rastrigin": ShiftedDesign(
        "rastrigin", (4, 4, 4), 3, (-5.12, 5.12), 1302, offset_spread=6.0, centre_fraction=0.5
    ),
    "shifted_levy": ShiftedDesign("levy", (8, 3), 5, (-10.0, 10.0), 1303, offset_spread=2.0, centre_fraction=0.5),
    "signed_schwefel": ShiftedDesign(
        "schwefel", (6, 6), 3, (-500.0, 500.0), 1304, offset_spread=150.0, sign_patterns=True
    ),
    "many_levels_styblinski": ShiftedDesign(
        "styblinski_tang", (10, 15, 20), 3, (-5.0, 5.0), 1305, offset_spread=8.0, interaction_spread=4.0
    ),
    "many_cats_levy": ShiftedDesign(
        "levy", (4, 4, 4, 4, 4, 4), 2, (-10.0, 10.0), 1306, offset_spread=1.0, interaction_spread=0.4,
        centre_fraction=0.5,
    ),
    "mixed_int_ackley": ShiftedDesign(
        "ackley", (6, 3), 3, (-2.0, 2.0), 1307, offset_spread=2.0, n_ints=3, int_bounds=(-10, 10),
        int_scale=0.25, shift_fraction=0.6, centre_fraction=0.35,
    ),
    "noisy_styblinski": ShiftedDesign(
        "styblinski_tang", (5, 4), 4, (-5.0, 5.0), 1308, offset_spread=10.0, interaction_spread=3.0
    ),
}
SHIFTED_NOISE_SD: Mapping[str, float] = {"noisy_styblinski": 2.0}


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


def _int_log_objective(trial: optuna.Trial) -> float:
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


def _branch_choice_objective(trial: optuna.Trial) -> float:
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


def _shared_branches_objective(trial: optuna.Trial) -> float:
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


def mlp_objective(design: MLPDesign, noise_sd: float = 0.0) -> Callable[[optuna.Trial], float]:
    def objective(trial: optuna.Trial) -> float:
        p: dict[str, Any] = {"n_layers": trial.suggest_int("n_layers", 1, MLP_MAX_LAYERS)}
        for i in range(p["n_layers"]):
            p[f"units_{i}"] = trial.suggest_int(f"units_{i}", *MLP_UNITS_BOUNDS, log=True)
            p[f"dropout_{i}"] = trial.suggest_float(f"dropout_{i}", 0.0, 0.5)
        p["optimizer"] = trial.suggest_categorical("optimizer", list(MLP_OPTIMIZERS))
        p["batch_size"] = trial.suggest_categorical("batch_size", list(MLP_BATCH_SIZES))
        p["lr"] = trial.suggest_float("lr", *MLP_LR_BOUNDS, log=True)
        return _observe(trial, mlp_value(design, p), noise_sd)

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


def _conv_blocks_objective(trial: optuna.Trial) -> float:
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
# Real tuning tasks on data that ships with scikit-learn (no known optimum)
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


def _hgb_breast_cancer_objective() -> Callable[[optuna.Trial], float]:
    """3-fold stratified CV log-loss of HistGradientBoostingClassifier on load_breast_cancer."""
    import threadpoolctl
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    x, y = load_breast_cancer(return_X_y=True)
    folds = StratifiedKFold(n_splits=HGB_N_FOLDS, shuffle=True, random_state=REAL_CV_SEED)

    def objective(trial: optuna.Trial) -> float:
        class_weight = trial.suggest_categorical("class_weight", list(HGB_CLASS_WEIGHTS))
        model = HistGradientBoostingClassifier(
            max_iter=HGB_MAX_ITER,
            learning_rate=trial.suggest_float("learning_rate", 1e-3, 1.0, log=True),
            max_leaf_nodes=trial.suggest_int("max_leaf_nodes", 4, 64, log=True),
            min_samples_leaf=trial.suggest_int("min_samples_leaf", 2, 64, log=True),
            l2_regularization=trial.suggest_float("l2_regularization", 1e-6, 10.0, log=True),
            max_features=trial.suggest_float("max_features", 0.1, 1.0),
            max_bins=trial.suggest_categorical("max_bins", list(HGB_MAX_BINS)),
            class_weight=None if class_weight == "none" else class_weight,
            early_stopping=False,
            random_state=REAL_CV_SEED,
        )
        with threadpoolctl.threadpool_limits(limits=1):  # OpenMP threads only contend on one core
            return -float(np.mean(cross_val_score(model, x, y, cv=folds, scoring="neg_log_loss")))

    return objective


def _svr_diabetes_objective() -> Callable[[optuna.Trial], float]:
    """5-fold CV mean squared error of a standardised SVR on load_diabetes (target standardised),
    capped at SVR_MSE_CAP; gamma, degree and coef0 exist only for the kernels that use them."""
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR

    x, y = load_diabetes(return_X_y=True)
    y = (y - y.mean()) / y.std()
    folds = KFold(n_splits=SVR_N_FOLDS, shuffle=True, random_state=REAL_CV_SEED)

    def objective(trial: optuna.Trial) -> float:
        kernel = trial.suggest_categorical("kernel", list(SVR_KERNELS))
        kwargs: dict[str, Any] = {
            "C": trial.suggest_float("C", 1e-2, 1e3, log=True),
            "epsilon": trial.suggest_float("epsilon", 1e-3, 1.0, log=True),
        }
        if kernel != "linear":
            kwargs["gamma"] = trial.suggest_float("gamma", 1e-4, 10.0, log=True)
        if kernel == "poly":
            kwargs["degree"] = trial.suggest_int("degree", 2, 5)
        if kernel in ("poly", "sigmoid"):
            kwargs["coef0"] = trial.suggest_float("coef0", -1.0, 1.0)
        model = make_pipeline(StandardScaler(), SVR(kernel=kernel, max_iter=SVR_MAX_ITER, **kwargs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at the iteration cap
            mse = -float(np.mean(cross_val_score(model, x, y, cv=folds, scoring="neg_mean_squared_error")))
        return min(mse, SVR_MSE_CAP) if math.isfinite(mse) else SVR_MSE_CAP

    return objective


# --------------------------------------------------------------------------------------------
# Registry, combinations and the split
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SuiteSpec:
    """A suite problem with what the measurements need beyond :class:`~.problems.Problem`.

    ``combination_keys``: the parameters whose values make a trial's combination (the
    categoricals, and the int that decides a conditional space); a trial's combination is the
    (key, value) pairs of those keys it has. ``combination_best`` gives a combination's best
    value where it is known; ``combinations`` lists them all (for enumeration); ``best_point`` the
    parameters of the global optimum; ``noise_sd`` the standard deviation of the observation noise
    (regret is measured on the noiseless value, stored in the user attribute NOISELESS_ATTR)."""

    name: str
    family: str
    objective: Callable[[], Callable[[optuna.Trial], float]]
    combination_keys: tuple[str, ...]
    optimum_method: str
    description: str
    conditional: bool = False
    noise_sd: float = 0.0
    combinations: Callable[[], list[dict[str, Any]]] | None = None
    combination_best: Callable[[Mapping[str, Any]], float] | None = None
    best_point: Callable[[], dict[str, Any]] | None = None

    def optimum(self) -> float | None:
        """The smallest combination best over all combinations (enumeration), or None."""
        if self.combinations is None or self.combination_best is None:
            return None
        return min(self.combination_best(c) for c in self.combinations())

    def n_combinations(self) -> int:
        return len(self.combinations()) if self.combinations is not None else 0


def combination_of(params: Mapping[str, Any], keys: Sequence[str]) -> tuple[tuple[str, Any], ...]:
    """The (key, value) pairs of ``keys`` present in ``params``: a trial's combination."""
    return tuple((k, params[k]) for k in keys if k in params)


def _shifted_spec(name: str, family: str) -> SuiteSpec:
    design = SHIFTED_DESIGNS[name]
    keys = tuple(f"c{i + 1}" for i in range(len(design.levels)))

    def combinations() -> list[dict[str, Any]]:
        return [dict(zip(keys, h)) for h in itertools.product(*(range(n) for n in design.levels))]

    def best_point() -> dict[str, Any]:
        h, _ = best_combination(design)
        x, k = shifted_argmin(design, h)
        return {**dict(zip(keys, h)), **{f"x{i + 1}": float(v) for i, v in enumerate(x)},
                **{f"k{i + 1}": int(v) for i, v in enumerate(k)}}

    noise = SHIFTED_NOISE_SD.get(name, 0.0)
    kinds = f"{design.n_floats} floats" + (f", {design.n_ints} ints" if design.n_ints else "")
    return SuiteSpec(
        name, family, lambda: shifted_objective(design, noise), keys,
        optimum_method=(
            f"{design.base} is 0 at its argmin{' (scipy 1-D search, separable)' if design.base in ('schwefel', 'styblinski_tang') else ''}, "
            f"reachable inside the bounds for every combination; the optimum is the smallest offset over "
            f"the {math.prod(design.levels)} combinations, by enumeration"
        ),
        description=(
            f"{design.base} over {kinds}, categoricals with levels {design.levels}; each level "
            f"{'flips signs' if design.sign_patterns else 'shifts the optimum'} and adds an offset"
            + (" (plus pairwise interactions)" if design.interaction_spread else "")
            + (f"; Gaussian noise sd {noise}" if noise else "")
        ),
        noise_sd=noise, combinations=combinations,
        combination_best=lambda c: shifted_offset(design, [c[k] for k in keys]), best_point=best_point,
    )


def _mlp_spec(name: str, family: str, design: MLPDesign, noise_sd: float) -> SuiteSpec:
    def combinations() -> list[dict[str, Any]]:
        return [
            {"n_layers": n, "optimizer": o, "batch_size": b}
            for n in range(1, MLP_MAX_LAYERS + 1) for o in MLP_OPTIMIZERS for b in MLP_BATCH_SIZES
        ]

    def combination_best(c: Mapping[str, Any]) -> float:
        return design.base[c["n_layers"] - 1] + mlp_combination_offset(design, c)

    def best_point() -> dict[str, Any]:
        return mlp_best_point(design, min(combinations(), key=combination_best))

    return SuiteSpec(
        name, family, lambda: mlp_objective(design, noise_sd), ("n_layers", "optimizer", "batch_size"),
        optimum_method="every penalty is 0 at a reachable point; the optimum is the smallest base + offsets over the 80 (n_layers, optimizer, batch_size), by enumeration",
        description=(
            "MLP-style space: n_layers int 1-4, then units_i (log int 16-512) and dropout_i for i < "
            "n_layers; optimizer, batch_size categoricals; lr log float; a synthetic validation loss"
            + (f"; Gaussian noise sd {noise_sd}" if noise_sd else "")
        ),
        conditional=True, noise_sd=noise_sd, combinations=combinations, combination_best=combination_best,
        best_point=best_point,
    )


def _conv_combinations() -> list[dict[str, Any]]:
    combos = []
    for n in range(CONV_MAX_BLOCKS + 1):
        for kernels in itertools.product(CONV_KERNELS, repeat=n):
            for activation in CONV_ACTIVATIONS:
                combos.append({"n_blocks": n, **{f"kernel_{i}": k for i, k in enumerate(kernels)}, "activation": activation})
    return combos


def _conv_combination_best(c: Mapping[str, Any]) -> float:
    return CONV_BASE[c["n_blocks"]] + conv_combination_offset(c)


def _leaf_combinations(branches: Mapping[str, tuple[str, Sequence[Any]] | None], root: str) -> list[dict[str, Any]]:
    """The leaves of a one-level tree: ``{root: b}`` or ``{root: b, child: v}`` for each child value."""
    leaves = []
    for branch, child in branches.items():
        if child is None:
            leaves.append({root: branch})
        else:
            leaves.extend({root: branch, child[0]: v} for v in child[1])
    return leaves


def _specs() -> list[SuiteSpec]:
    branch_leaves = functools.partial(
        _leaf_combinations, {"bowl": None, "ackley": ("ackley_variant", BRANCH_ACKLEY_VARIANTS), "levy": None, "rastrigin": None}, "branch"
    )
    shared_leaves = functools.partial(
        _leaf_combinations, {k: ("nu", SHARED_MATERN_NU) if k == "matern" else None for k in SHARED_KERNELS}, "kernel"
    )
    enumerated = "every numeric penalty is 0 at a reachable point; the optimum is the smallest combination best, by enumeration"
    return [
        *(_shifted_spec(n, "shifted") for n in ("shifted_ackley", "shifted_rastrigin", "shifted_levy", "signed_schwefel")),
        *(_shifted_spec(n, "many_levels") for n in ("many_levels_styblinski", "many_cats_levy")),
        SuiteSpec(
            "int_log_styblinski", "int_log", lambda: _int_log_objective, ("solver",),
            optimum_method="per solver: the int terms by enumeration of k1, k2, the lr term at Styblinski-Tang's argmin (scipy 1-D search), width at its power of two; then the best solver",
            description="solver categorical (3), k1, k2 ints in [-5, 5], width log int in [1, 1024], lr log float in [1e-5, 1]; Styblinski-Tang terms shifted per solver",
            combinations=lambda: [{"solver": s} for s in INT_LOG_SOLVERS],
            combination_best=lambda c: int_log_best(c["solver"])[1],
            best_point=lambda: min((int_log_best(s) for s in INT_LOG_SOLVERS), key=lambda pv: pv[1])[0],
        ),
        _shifted_spec("mixed_int_ackley", "int_log"),
        SuiteSpec(
            "branch_choice", "conditional_cat", lambda: _branch_choice_objective, ("branch", "ackley_variant"),
            optimum_method=enumerated + " (0 in the levy branch at l = (2.5, -1.5, 4))",
            description="branch categorical: bowl (trap, 0.8) / ackley with a nested variant (0.4-0.75) / levy with an int (optimum 0) / rastrigin over a log float and an int (0.3)",
            conditional=True, combinations=branch_leaves, combination_best=branch_choice_combination_best,
            best_point=lambda: {"branch": "levy", "l1": BRANCH_LEVY_CENTRE[0], "l2": BRANCH_LEVY_CENTRE[1], "l3": int(BRANCH_LEVY_CENTRE[2])},
        ),
        SuiteSpec(
            "shared_branches", "conditional_cat", lambda: _shared_branches_objective, ("kernel", "nu"),
            optimum_method=enumerated + " (0 at kernel rbf, s = its shift, gamma = 10^-1.3)",
            description="kernel categorical (5) moves the optimum of two shared floats (Rastrigin) and opens its own parameter: none, an int, a log float, a nested categorical, a float",
            conditional=True, combinations=shared_leaves, combination_best=shared_branches_combination_best,
            best_point=lambda: {"kernel": "rbf", "s1": SHARED_SHIFTS[2][0], "s2": SHARED_SHIFTS[2][1], "gamma": 10.0**-1.3},
        ),
        _mlp_spec("mlp_synthetic", "conditional_int", MLP_SYNTHETIC, 0.0),
        SuiteSpec(
            "conv_blocks", "conditional_int", lambda: _conv_blocks_objective, ("n_blocks", *(f"kernel_{i}" for i in range(CONV_MAX_BLOCKS)), "activation"),
            optimum_method=enumerated + f" over the {len(_conv_combinations())} (n_blocks, kernels, activation)",
            description="n_blocks int 0-4, then kernel_i categorical (1/3/5/7) and width_i log int (8-256) per block; activation categorical, weight decay log float; Ackley and Rastrigin ripples",
            conditional=True, combinations=_conv_combinations, combination_best=_conv_combination_best,
            best_point=lambda: conv_best_point(min(_conv_combinations(), key=_conv_combination_best)),
        ),
        _shifted_spec("noisy_styblinski", "noisy"),
        _mlp_spec("noisy_mlp", "noisy", NOISY_MLP, NOISY_MLP_SD),
        SuiteSpec(
            "hgb_breast_cancer", "real", _hgb_breast_cancer_objective, ("max_bins", "class_weight"),
            optimum_method="unknown: the best value found in any stored run is the reference",
            description=f"HistGradientBoostingClassifier ({HGB_MAX_ITER} iterations) on load_breast_cancer, {HGB_N_FOLDS}-fold stratified CV log-loss: 5 numeric (ints and log floats), max_bins and class_weight categoricals (minimise)",
            combinations=lambda: [{"max_bins": b, "class_weight": w} for b in HGB_MAX_BINS for w in HGB_CLASS_WEIGHTS],
        ),
        SuiteSpec(
            "svr_diabetes", "real", _svr_diabetes_objective, ("kernel",),
            optimum_method="unknown: the best value found in any stored run is the reference",
            description=f"SVR on load_diabetes (standardised), {SVR_N_FOLDS}-fold CV MSE capped at {SVR_MSE_CAP}: kernel categorical decides gamma, degree (int) and coef0; C and epsilon log floats (minimise)",
            conditional=True, combinations=lambda: [{"kernel": k} for k in SVR_KERNELS],
        ),
    ]


SUITE_SPECS: Mapping[str, SuiteSpec] = {spec.name: spec for spec in _specs()}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(spec.family for spec in SUITE_SPECS.values()))


def _split() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fixed rule, chosen before any run: within each family (in the order above) the problems
    alternate between the halves, and the family's first problem goes to TUNING in the 1st, 3rd,
    ... family and to HELD_OUT in the 2nd, 4th, ... (so that neither half always gets the first)."""
    tuning, held_out = [], []
    for f, family in enumerate(FAMILIES):
        members = [s.name for s in SUITE_SPECS.values() if s.family == family]
        for i, name in enumerate(members):
            (tuning if (i + f) % 2 == 0 else held_out).append(name)
    return tuple(tuning), tuple(held_out)


TUNING, HELD_OUT = _split()
HALVES: Mapping[str, tuple[str, ...]] = {"tuning": TUNING, "held_out": HELD_OUT, "all": TUNING + HELD_OUT}
CONDITIONAL_PROBLEMS: tuple[str, ...] = tuple(s.name for s in SUITE_SPECS.values() if s.conditional)
FLAT_PROBLEMS: tuple[str, ...] = tuple(s.name for s in SUITE_SPECS.values() if not s.conditional)


def build_problem(name: str) -> Any:
    """The :class:`~.problems.Problem` of suite problem ``name`` (minimised)."""
    from vpbo_benchmarks.problems import Problem

    spec = SUITE_SPECS[name]
    return Problem(
        name=name, directions=(MINIMIZE,), optimum=spec.optimum(), n_combinations=spec.n_combinations(),
        objective=spec.objective(), description=f"[suite/{spec.family}] {spec.description}",
    )


SUITE_FACTORIES: Mapping[str, Callable[[], Any]] = {name: functools.partial(build_problem, name) for name in SUITE_SPECS}


# --------------------------------------------------------------------------------------------
# The fresh held-out set of issue 21 (fresh_problems.py; docs/suite.md, "The fresh held-out set")
# --------------------------------------------------------------------------------------------
# Kept apart from SUITE_SPECS so that the TUNING / HELD_OUT rule above stays as it was run.
FRESH_SPECS: Mapping[str, SuiteSpec] = fresh_specs()
FRESH_HELD_OUT: tuple[str, ...] = tuple(FRESH_SPECS)
HALVES = {**HALVES, "fresh_held_out": FRESH_HELD_OUT}
ALL_SPECS: Mapping[str, SuiteSpec] = {**SUITE_SPECS, **FRESH_SPECS}


def build_fresh_problem(name: str) -> Any:
    """The :class:`~.problems.Problem` of fresh held-out problem ``name`` (minimised)."""
    from vpbo_benchmarks.problems import Problem

    spec = FRESH_SPECS[name]
    return Problem(
        name=name, directions=(MINIMIZE,), optimum=spec.optimum(), n_combinations=spec.n_combinations(),
        objective=spec.objective(), description=f"[fresh held-out/{spec.family}] {spec.description}",
    )


SUITE_FACTORIES = {**SUITE_FACTORIES, **{name: functools.partial(build_fresh_problem, name) for name in FRESH_SPECS}}


def expand_groups(names: Sequence[str]) -> list[str]:
    """Problem names with each group name of ``HALVES`` (``tuning``, ``held_out``,
    ``fresh_held_out``, ...) replaced by its problems."""
    return [problem for name in names for problem in HALVES.get(name, (name,))]
