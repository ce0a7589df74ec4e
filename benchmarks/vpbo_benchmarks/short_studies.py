"""The short-study set: eight mixed problems on which a sampler's first 10-25 trials are judged,
written before any change to the initial design was tried, to be run once, last.

The rule that chose them:
1. Shaped like the studies that stop early (tuning a model with a handful of categoricals, log-scaled
   rates, ints and stepped floats): 2-7 parameters, each problem mixed, with categoricals in all but
   one of them, log-scaled parameters in four, ints in four, stepped floats in two.
2. The roles: multimodal mixed problems (``holder_modes``, ``alpine_optimiser``, ``bird_switches``,
   ``cosine_noisy``), an int deciding the branch (``layers_branch``: the number of layers decides
   which widths exist), a categorical deciding the branch (``model_choice``), narrow valleys on
   ints and stepped floats (``powell_ints``, ``colville_stepped``), observation noise
   (``cosine_noisy``).
3. Base functions the lab's other sets do not use (Holder table, Alpine N.1, the three-hump camel,
   McCormick, Booth, Powell, Bird, Colville, cosine mixture), the categoricals acting by weights,
   offsets, shifts and pairwise interactions.
4. A known optimum: every combination's best by construction (closed form, or an enumeration of
   the categorical part), the best combination unique by more than 0.005; the tests check each by
   an independent search. Random tables from ``np.random.default_rng(5501 ... 5508)``, the seed of
   the problem's place in the set, drawn once.

The rule of use: no sampler study runs on these problems before the change they judge is chosen;
the tests run only random trials and direct evaluations.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.problem import MINIMIZE, Problem, observe
from vpbo_benchmarks.specs import ProblemSet

Params = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class ShortProblem:
    """A problem of the set: ``suggest(trial)`` asks for the parameters (define-by-run) and
    returns them; ``value(params)`` is the noiseless objective (minimised); ``optimum`` its
    minimum; ``noise_sd`` the sd of the Gaussian observation noise (0: none)."""

    name: str
    suggest: Callable[[BaseTrial], Params]
    value: Callable[[Params], float]
    optimum: float
    n_combinations: int
    description: str
    noise_sd: float = 0.0


def _table(seed: int, shape: Sequence[int], scale: float) -> np.ndarray:
    """A table of offsets in [0, scale] whose minimum is exactly 0 (rng ``seed``)."""
    table = np.random.default_rng(seed).random(tuple(shape)) * scale
    return table - table.min()


# ------------------------------------------------------------------------------------------------
# The base functions (each at its textbook scale; the minimum and its place in the comment)
# ------------------------------------------------------------------------------------------------


def holder_table(x1: float, x2: float) -> float:
    """Holder table on [-10, 10]^2: minimum -19.2085026 at (+-8.05502, +-9.66459)."""
    return -abs(math.sin(x1) * math.cos(x2) * math.exp(abs(1.0 - math.hypot(x1, x2) / math.pi)))


HOLDER_MINIMUM = -19.208502567886743


def alpine_bowl(z: np.ndarray) -> float:
    """Alpine N.1 plus 0.05 z^2: minimum 0 at z = 0, the only zero (Alpine's other zeros, where
    sin z = -0.1, lie on the bowl)."""
    return float(np.sum(np.abs(z * np.sin(z) + 0.1 * z) + 0.05 * z * z))


def three_hump_camel(x1: float, x2: float) -> float:
    """Three-hump camel: minimum 0 at (0, 0), local minima 0.2986 at (+-1.748, -+0.874)."""
    return 2 * x1**2 - 1.05 * x1**4 + x1**6 / 6 + x1 * x2 + x2**2


def mccormick(x1: float, x2: float) -> float:
    """McCormick on [-1.5, 4] x [-3, 4]: minimum -1.9132230 at (-0.5471976, -1.5471976)."""
    return math.sin(x1 + x2) + (x1 - x2) ** 2 - 1.5 * x1 + 2.5 * x2 + 1.0


MCCORMICK_MINIMUM = -1.913222954981037


def booth(x1: float, x2: float) -> float:
    """Booth: minimum 0 at (1, 3)."""
    return (x1 + 2 * x2 - 7) ** 2 + (2 * x1 + x2 - 5) ** 2


def powell(x: Sequence[float]) -> float:
    """Powell's singular function in 4 dimensions: minimum 0 at 0."""
    x1, x2, x3, x4 = x
    return (x1 + 10 * x2) ** 2 + 5 * (x3 - x4) ** 2 + (x2 - 2 * x3) ** 4 + 10 * (x1 - x4) ** 4


def bird(x: float, y: float) -> float:
    """Bird on [-2 pi, 2 pi]^2: minimum -106.7645367 at (4.70104, 3.15294) and (-1.58214, -3.13024)."""
    return math.sin(x) * math.exp((1 - math.cos(y)) ** 2) + math.cos(y) * math.exp((1 - math.sin(x)) ** 2) + (x - y) ** 2


BIRD_MINIMUM = -106.76453674926478


def colville(x: Sequence[float]) -> float:
    """Colville: minimum 0 at (1, 1, 1, 1)."""
    x1, x2, x3, x4 = x
    return (
        100 * (x1**2 - x2) ** 2 + (x1 - 1) ** 2 + (x3 - 1) ** 2 + 90 * (x3**2 - x4) ** 2
        + 10.1 * ((x2 - 1) ** 2 + (x4 - 1) ** 2) + 19.8 * (x2 - 1) * (x4 - 1)
    )


def cosine_mixture(z: np.ndarray) -> float:
    """Cosine mixture (minimised): sum z^2 - 0.1 sum cos(5 pi z), minimum -0.1 d at z = 0 on [-1, 1]^d."""
    return float(np.sum(z * z) - 0.1 * np.sum(np.cos(5 * np.pi * z)))


# ------------------------------------------------------------------------------------------------
# The problems
# ------------------------------------------------------------------------------------------------

HM_KERNELS = ("rbf", "matern", "linear", "poly")
HM_SCALES = ("small", "medium", "large")
HM_FLAGS = ("on", "off")
HM_WEIGHTS = 0.55 + 0.45 * np.random.default_rng(5501).random((4, 3, 2))  # the depth of Holder's wells


def holder_modes() -> ShortProblem:
    """Holder table on two floats, its depth weighted by three categoricals (24 combinations)."""
    weights = HM_WEIGHTS
    best = -HOLDER_MINIMUM * weights.max()

    def suggest(trial: BaseTrial) -> Params:
        return {
            "kernel": trial.suggest_categorical("kernel", list(HM_KERNELS)),
            "scale": trial.suggest_categorical("scale", list(HM_SCALES)),
            "flag": trial.suggest_categorical("flag", list(HM_FLAGS)),
            "x1": trial.suggest_float("x1", -10.0, 10.0),
            "x2": trial.suggest_float("x2", -10.0, 10.0),
        }

    def value(p: Params) -> float:
        w = weights[HM_KERNELS.index(p["kernel"]), HM_SCALES.index(p["scale"]), HM_FLAGS.index(p["flag"])]
        return w * holder_table(p["x1"], p["x2"]) + best

    return ShortProblem("holder_modes", suggest, value, 0.0, 24, "Holder table weighted by 3 categoricals; 2 floats")


AO_OPTIMISERS = ("sgd", "adam", "rmsprop")
AO_BATCHES = ("16", "32", "64", "128")
AO_LR_CENTRE = {"sgd": -1.7, "adam": -3.3, "rmsprop": -2.8}  # log10 of the best learning rate
AO_WD_SHIFT = {"16": -0.6, "32": -0.2, "64": 0.2, "128": 0.6}  # the best log10 weight decay moves with the batch
AO_OFFSETS = _table(5502, (3, 4), 1.5)


def alpine_optimiser() -> ShortProblem:
    """An optimiser's settings: Alpine N.1 (with a bowl) of a log learning rate, a log weight decay,
    a momentum and an int warmup; the optimiser and the batch size move the best rates and add an
    offset (12 combinations)."""

    def suggest(trial: BaseTrial) -> Params:
        return {
            "optimizer": trial.suggest_categorical("optimizer", list(AO_OPTIMISERS)),
            "batch": trial.suggest_categorical("batch", list(AO_BATCHES)),
            "lr": trial.suggest_float("lr", 1e-5, 1e-1, log=True),
            "weight_decay": trial.suggest_float("weight_decay", 1e-6, 1e-2, log=True),
            "momentum": trial.suggest_float("momentum", 0.0, 0.99),
            "warmup": trial.suggest_int("warmup", 0, 10),
        }

    def value(p: Params) -> float:
        z = np.array([
            2.0 * (math.log10(p["lr"]) - AO_LR_CENTRE[p["optimizer"]]),
            2.0 * (math.log10(p["weight_decay"]) + 4.1 - AO_WD_SHIFT[p["batch"]]),
            8.0 * (p["momentum"] - 0.9),
            (p["warmup"] - 3) / 1.5,
        ])
        offset = AO_OFFSETS[AO_OPTIMISERS.index(p["optimizer"]), AO_BATCHES.index(p["batch"])]
        return alpine_bowl(z) + float(offset)

    description = "Alpine N.1 of 2 log floats, a float, an int; 2 categoricals"
    return ShortProblem("alpine_optimiser", suggest, value, 0.0, 12, description)


LB_BASE = (1.2, 0.4, 0.0, 0.7)  # the best value of each number of layers 1..4
LB_WIDTHS = ((48,), (128, 32), (96, 256, 24), (64, 64, 160, 16))  # the best widths of each
LB_DROPOUT = (0.05, 0.3, 0.2, 0.45)  # the best dropout of each


def layers_branch() -> ShortProblem:
    """An int decides the branch: ``n_layers`` (1-4) decides which log-int widths exist; the
    three-hump camel of the dropout and the first width, a bowl in the others, a base per branch."""

    def suggest(trial: BaseTrial) -> Params:
        n = trial.suggest_int("n_layers", 1, 4)
        params: Params = {"n_layers": n}
        for i in range(n):
            params[f"width{i + 1}"] = trial.suggest_int(f"width{i + 1}", 8, 512, log=True)
        params["dropout"] = trial.suggest_float("dropout", 0.0, 0.6)
        return params

    def value(p: Params) -> float:
        n = p["n_layers"]
        gaps = [math.log2(p[f"width{i + 1}"]) - math.log2(w) for i, w in enumerate(LB_WIDTHS[n - 1])]
        camel = three_hump_camel(6.0 * (p["dropout"] - LB_DROPOUT[n - 1]), gaps[0])
        return LB_BASE[n - 1] + camel + 0.3 * sum(g * g for g in gaps[1:])

    return ShortProblem("layers_branch", suggest, value, 0.0, 4, "int n_layers decides 1-4 log-int widths; a float")


MC_MODELS = ("svm", "forest", "boosting")
MC_FEATURES = {"sqrt": 0.0, "log2": 0.25, "all": 0.4}


def model_choice() -> ShortProblem:
    """A categorical decides the branch: an SVM (McCormick of log C and log gamma, best 0.8), a
    forest (bowls in a log-int tree count and an int depth, a categorical, best 0.5), boosting
    (Booth of a log rate and a stepped int, a stepped float, best 0)."""

    def suggest(trial: BaseTrial) -> Params:
        model = trial.suggest_categorical("model", list(MC_MODELS))
        if model == "svm":
            return {"model": model, "C": trial.suggest_float("C", 1e-3, 1e3, log=True),
                    "gamma": trial.suggest_float("gamma", 1e-4, 10.0, log=True)}
        if model == "forest":
            return {"model": model, "n_trees": trial.suggest_int("n_trees", 10, 500, log=True),
                    "depth": trial.suggest_int("depth", 2, 24),
                    "max_features": trial.suggest_categorical("max_features", list(MC_FEATURES))}
        return {"model": model, "learning_rate": trial.suggest_float("learning_rate", 1e-3, 1.0, log=True),
                "n_rounds": trial.suggest_int("n_rounds", 20, 1000, step=20),
                "subsample": trial.suggest_float("subsample", 0.5, 1.0, step=0.05)}

    def value(p: Params) -> float:
        if p["model"] == "svm":
            x1 = -1.5 + 5.5 * (math.log10(p["C"]) + 3.0) / 6.0
            x2 = -3.0 + 7.0 * (math.log10(p["gamma"]) + 4.0) / 5.0
            return 0.8 + mccormick(x1, x2) - MCCORMICK_MINIMUM
        if p["model"] == "forest":
            trees = 0.15 * (math.log2(p["n_trees"]) - math.log2(300)) ** 2
            return 0.5 + trees + 0.02 * (p["depth"] - 14) ** 2 + MC_FEATURES[p["max_features"]]
        y1 = 1.0 + 1.2 * (math.log10(p["learning_rate"]) + 1.3)
        y2 = 3.0 + (p["n_rounds"] - 400) / 100.0
        return 0.05 * booth(y1, y2) + 2.0 * (p["subsample"] - 0.8) ** 2

    return ShortProblem("model_choice", suggest, value, 0.0, 5, "categorical model decides svm/forest/boosting parameters")


PI_VARIANTS = ("a", "b", "c")
PI_OFFSETS = {"a": 0.3, "b": 0.0, "c": 0.6}
PI_SCALE = 1e-3  # Powell's values reach 1e5 at the box's corners


def powell_ints() -> ShortProblem:
    """Powell's singular function of two ints and two floats in [-4, 5] (a flat valley along
    x1 = -10 x2), a categorical adding an offset."""

    def suggest(trial: BaseTrial) -> Params:
        return {
            "variant": trial.suggest_categorical("variant", list(PI_VARIANTS)),
            "i1": trial.suggest_int("i1", -4, 5),
            "i2": trial.suggest_int("i2", -4, 5),
            "f3": trial.suggest_float("f3", -4.0, 5.0),
            "f4": trial.suggest_float("f4", -4.0, 5.0),
        }

    def value(p: Params) -> float:
        return PI_SCALE * powell((p["i1"], p["i2"], p["f3"], p["f4"])) + PI_OFFSETS[p["variant"]]

    return ShortProblem("powell_ints", suggest, value, 0.0, 3, "Powell of 2 ints and 2 floats; 1 categorical")


BS_COUNT = 5
BS_LEVELS = ("low", "mid", "high")
BS_SCALE = 8.0  # the categorical part spans about 58, a fifth of Bird's range on the box (about 282)


def _switch_tables() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5506)
    return rng.random((BS_COUNT, 3)), rng.standard_normal((BS_COUNT, BS_COUNT, 3, 3)) * 0.5


BS_UNARY, BS_PAIRWISE = _switch_tables()


def switch_cost(levels: Sequence[int]) -> float:
    """The categorical part of ``bird_switches`` (before the shift to a minimum of 0): unary and
    pairwise terms of the five switches' level indices."""
    cost = sum(BS_UNARY[i, c] for i, c in enumerate(levels))
    cost += sum(BS_PAIRWISE[i, j, levels[i], levels[j]] for i, j in itertools.combinations(range(BS_COUNT), 2))
    return BS_SCALE * float(cost)


BS_MIN_COST = min(switch_cost(c) for c in itertools.product(range(3), repeat=BS_COUNT))


def bird_switches() -> ShortProblem:
    """Bird of two floats plus a pairwise-interacting cost of five three-level switches (243
    combinations), shifted so that the optimum is 0."""

    def suggest(trial: BaseTrial) -> Params:
        params: Params = {f"s{i + 1}": trial.suggest_categorical(f"s{i + 1}", list(BS_LEVELS)) for i in range(BS_COUNT)}
        params["x"] = trial.suggest_float("x", -2 * math.pi, 2 * math.pi)
        params["y"] = trial.suggest_float("y", -2 * math.pi, 2 * math.pi)
        return params

    def value(p: Params) -> float:
        levels = [BS_LEVELS.index(p[f"s{i + 1}"]) for i in range(BS_COUNT)]
        return bird(p["x"], p["y"]) - BIRD_MINIMUM + switch_cost(levels) - BS_MIN_COST

    return ShortProblem("bird_switches", suggest, value, 0.0, 3**BS_COUNT, "Bird of 2 floats; 5 interacting 3-level categoricals")


CS_PRECISIONS = {"fp32": 0.0, "fp16": 2.0, "bf16": 5.0}
CS_SCALE = 1e-2  # Colville's values reach 1e6 at the box's corners


def colville_stepped() -> ShortProblem:
    """Colville of two stepped floats (step 0.5) and two floats in [-10, 10], a categorical adding
    an offset."""

    def suggest(trial: BaseTrial) -> Params:
        return {
            "precision": trial.suggest_categorical("precision", list(CS_PRECISIONS)),
            "a": trial.suggest_float("a", -10.0, 10.0, step=0.5),
            "b": trial.suggest_float("b", -10.0, 10.0, step=0.5),
            "c": trial.suggest_float("c", -10.0, 10.0),
            "d": trial.suggest_float("d", -10.0, 10.0),
        }

    def value(p: Params) -> float:
        return CS_SCALE * colville((p["a"], p["b"], p["c"], p["d"])) + CS_PRECISIONS[p["precision"]]

    return ShortProblem("colville_stepped", suggest, value, 0.0, 3, "Colville of 2 stepped and 2 floats; 1 categorical")


CN_AUGMENTS = ("none", "flip", "crop", "mix")
CN_SCHEDULES = ("const", "cosine", "step")
CN_DIM = 4
CN_NOISE_SD = 0.03


def _noisy_tables() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5508)
    shifts = rng.uniform(-0.3, 0.3, (4, 3, CN_DIM))
    offsets = rng.random((4, 3)) * 0.8
    return shifts, offsets - offsets.min()


CN_SHIFTS, CN_OFFSETS = _noisy_tables()


def cosine_noisy() -> ShortProblem:
    """Cosine mixture of four floats in [-1, 1] whose centre and offset two categoricals move (12
    combinations), observed with Gaussian noise of sd 0.03."""

    def suggest(trial: BaseTrial) -> Params:
        params: Params = {
            "augment": trial.suggest_categorical("augment", list(CN_AUGMENTS)),
            "schedule": trial.suggest_categorical("schedule", list(CN_SCHEDULES)),
        }
        params.update({f"x{i + 1}": trial.suggest_float(f"x{i + 1}", -1.0, 1.0) for i in range(CN_DIM)})
        return params

    def value(p: Params) -> float:
        a, s = CN_AUGMENTS.index(p["augment"]), CN_SCHEDULES.index(p["schedule"])
        z = np.array([p[f"x{i + 1}"] for i in range(CN_DIM)]) - CN_SHIFTS[a, s]
        return cosine_mixture(z) + 0.1 * CN_DIM + float(CN_OFFSETS[a, s])

    return ShortProblem(
        "cosine_noisy", suggest, value, 0.0, 12, "cosine mixture of 4 floats, 2 categoricals, noise sd 0.03", CN_NOISE_SD
    )


SHORT_PROBLEMS: tuple[ShortProblem, ...] = (
    holder_modes(), alpine_optimiser(), layers_branch(), model_choice(),
    powell_ints(), bird_switches(), colville_stepped(), cosine_noisy(),
)
PROBLEMS_BY_NAME: Mapping[str, ShortProblem] = {p.name: p for p in SHORT_PROBLEMS}


def _objective(problem: ShortProblem) -> Callable[[BaseTrial], float]:
    def objective(trial: BaseTrial) -> float:
        return observe(trial, problem.value(problem.suggest(trial)), problem.noise_sd)

    return objective


def build_problem(name: str) -> Problem:
    """The :class:`~.problem.Problem` of short-study problem ``name`` (minimised)."""
    p = PROBLEMS_BY_NAME[name]
    return Problem(
        name=p.name, directions=(MINIMIZE,), optimum=p.optimum, n_combinations=p.n_combinations,
        objective=_objective(p), description=f"[short studies] {p.description}",
    )


PROBLEMS: Mapping[str, Callable[[], Problem]] = {p.name: functools.partial(build_problem, p.name) for p in SHORT_PROBLEMS}
SHORT_STUDIES = ProblemSet(
    name="short_studies",
    problems=tuple(PROBLEMS),
    rule="eight mixed problems shaped like studies that stop at 10-25 trials (two conditional, one noisy), "
    "base functions no other set uses, known optima; written before the first-trials change was tried",
    frozen="2026-12-02",
)
