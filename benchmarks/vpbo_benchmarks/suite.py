"""A broad mixed-variable suite with a fixed TUNING / HELD_OUT split, see docs/suite.md.

Sixteen problems in seven families, two or four per family:

- ``shifted``: multimodal numeric parts (Ackley, Rastrigin, Levy, Schwefel) whose optimum moves
  with the categoricals (a shift vector, or a sign pattern for Schwefel, per level);
- ``many_levels``: 10-20 levels per categorical, or six categoricals with pairwise interactions;
- ``int_log``: integer and log-scaled parameters next to categoricals (Styblinski-Tang, Ackley);
- ``conditional_cat``: branches decided by a categorical;
- ``conditional_int``: branches decided by an int, as in an MLP's ``n_layers`` (Optuna's tutorial
  pattern): per-layer parameters exist only for the layers below the layer count;
- ``noisy``: Gaussian observation noise of a stated standard deviation; the noiseless value of
  every trial is stored in the user attribute :data:`~.problem.NOISELESS_ATTR` so that regret is measured on it;
- ``real``: cross-validated tuning of scikit-learn models on data that ships with scikit-learn
  (no known optimum: the best value found is the reference).

Every synthetic problem has a known optimum, computed as stated in its :class:`SuiteSpec`
(``optimum_method``) and checked by benchmarks/tests/test_suite.py. Each synthetic objective is
``base(x - shift(h)) + offset(h)``-shaped: the numeric part reaches its own minimum 0 inside the
bounds for every combination ``h``, so the best value of a combination is its offset, and the
optimum is the smallest offset over all combinations (found by enumeration).

Code: the base functions and the shifted problems in :mod:`.suite_functions`, the structured
families in :mod:`.suite_families`, the real tasks' objectives in :mod:`.suite_real_tasks`; this
module holds the specifications (:class:`~.specs.SuiteSpec`), the split and the problems, which
:mod:`.registry` registers with every other family's.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vpbo_benchmarks.lazy import deferred
from vpbo_benchmarks.problem import Problem
from vpbo_benchmarks.specs import SuiteSpec, product_combinations, spec_problem
from vpbo_benchmarks.suite_families import (
    BRANCH_ACKLEY_VARIANTS,
    BRANCH_LEVY_CENTRE,
    CONV_ACTIVATIONS,
    CONV_BASE,
    CONV_KERNELS,
    CONV_MAX_BLOCKS,
    HGB_CLASS_WEIGHTS,
    HGB_MAX_BINS,
    HGB_MAX_ITER,
    HGB_N_FOLDS,
    INT_LOG_SOLVERS,
    MLP_BATCH_SIZES,
    MLP_MAX_LAYERS,
    MLP_OPTIMIZERS,
    MLP_SYNTHETIC,
    NOISY_MLP,
    NOISY_MLP_SD,
    SHARED_KERNELS,
    SHARED_MATERN_NU,
    SHARED_SHIFTS,
    SVR_KERNELS,
    SVR_MSE_CAP,
    SVR_N_FOLDS,
    MLPDesign,
    branch_choice_combination_best,
    branch_choice_objective,
    conv_best_point,
    conv_blocks_objective,
    conv_combination_offset,
    int_log_best,
    int_log_objective,
    mlp_best_point,
    mlp_combination_offset,
    mlp_objective,
    shared_branches_combination_best,
    shared_branches_objective,
)
from vpbo_benchmarks.suite_functions import (
    SHIFTED_DESIGNS,
    SHIFTED_NOISE_SD,
    best_combination,
    shifted_argmin,
    shifted_objective,
    shifted_offset,
)

# --------------------------------------------------------------------------------------------
# Registry, combinations and the split
# --------------------------------------------------------------------------------------------




def _shifted_spec(name: str, family: str) -> SuiteSpec:
    design = SHIFTED_DESIGNS[name]
    keys = tuple(f"c{i + 1}" for i in range(len(design.levels)))

    combinations = functools.partial(product_combinations, keys, [range(n) for n in design.levels])

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
            f"{design.base} is 0 at its argmin"
            f"{' (scipy 1-D search, separable)' if design.base in ('schwefel', 'styblinski_tang') else ''}, "
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
    keys = ("n_layers", "optimizer", "batch_size")
    combinations = functools.partial(product_combinations, keys, [range(1, MLP_MAX_LAYERS + 1), MLP_OPTIMIZERS, MLP_BATCH_SIZES])

    def combination_best(c: Mapping[str, Any]) -> float:
        return design.base[c["n_layers"] - 1] + mlp_combination_offset(design, c)

    def best_point() -> dict[str, Any]:
        return mlp_best_point(design, min(combinations(), key=combination_best))

    return SuiteSpec(
        name, family, lambda: mlp_objective(design, noise_sd), keys,
        optimum_method=(
            "every penalty is 0 at a reachable point; the optimum is the smallest base + offsets over the 80 (n_layers, "
            "optimizer, batch_size), by enumeration"
        ),
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


def _int_and_branch_specs(enumerated: str) -> list[SuiteSpec]:
    """The int-log and categorical-branch problems (``enumerated``: how their optima were found)."""
    branch_leaves = functools.partial(
        _leaf_combinations,
        {"bowl": None, "ackley": ("ackley_variant", BRANCH_ACKLEY_VARIANTS), "levy": None, "rastrigin": None},
        "branch",
    )
    shared_leaves = functools.partial(
        _leaf_combinations, {k: ("nu", SHARED_MATERN_NU) if k == "matern" else None for k in SHARED_KERNELS}, "kernel"
    )
    return [
        SuiteSpec(
            "int_log_styblinski", "int_log", lambda: int_log_objective, ("solver",),
            optimum_method=(
                "per solver: the int terms by enumeration of k1, k2, the lr term at Styblinski-Tang's argmin (scipy 1-D search), "
                "width at its power of two; then the best solver"
            ),
            description=(
                "solver categorical (3), k1, k2 ints in [-5, 5], width log int in [1, 1024], lr log float in [1e-5, 1]; "
                "Styblinski-Tang terms shifted per solver"
            ),
            combinations=functools.partial(product_combinations, ("solver",), [INT_LOG_SOLVERS]),
            combination_best=lambda c: int_log_best(c["solver"])[1],
            best_point=lambda: min((int_log_best(s) for s in INT_LOG_SOLVERS), key=lambda pv: pv[1])[0],
        ),
        _shifted_spec("mixed_int_ackley", "int_log"),
        SuiteSpec(
            "branch_choice", "conditional_cat", lambda: branch_choice_objective, ("branch", "ackley_variant"),
            optimum_method=enumerated + " (0 in the levy branch at l = (2.5, -1.5, 4))",
            description=(
                "branch categorical: bowl (trap, 0.8) / ackley with a nested variant (0.4-0.75) / levy with an int (optimum 0) / "
                "rastrigin over a log float and an int (0.3)"
            ),
            conditional=True, combinations=branch_leaves, combination_best=branch_choice_combination_best,
            best_point=lambda: {
                "branch": "levy", "l1": BRANCH_LEVY_CENTRE[0], "l2": BRANCH_LEVY_CENTRE[1], "l3": int(BRANCH_LEVY_CENTRE[2])
            },
        ),
        SuiteSpec(
            "shared_branches", "conditional_cat", lambda: shared_branches_objective, ("kernel", "nu"),
            optimum_method=enumerated + " (0 at kernel rbf, s = its shift, gamma = 10^-1.3)",
            description=(
                "kernel categorical (5) moves the optimum of two shared floats (Rastrigin) and opens its own parameter: none, an "
                "int, a log float, a nested categorical, a float"
            ),
            conditional=True, combinations=shared_leaves, combination_best=shared_branches_combination_best,
            best_point=lambda: {"kernel": "rbf", "s1": SHARED_SHIFTS[2][0], "s2": SHARED_SHIFTS[2][1], "gamma": 10.0**-1.3},
        ),
    ]


def _specs() -> list[SuiteSpec]:
    enumerated = "every numeric penalty is 0 at a reachable point; the optimum is the smallest combination best, by enumeration"
    return [
        *(_shifted_spec(n, "shifted") for n in ("shifted_ackley", "shifted_rastrigin", "shifted_levy", "signed_schwefel")),
        *(_shifted_spec(n, "many_levels") for n in ("many_levels_styblinski", "many_cats_levy")),
        *_int_and_branch_specs(enumerated),
        _mlp_spec("mlp_synthetic", "conditional_int", MLP_SYNTHETIC, 0.0),
        SuiteSpec(
            "conv_blocks", "conditional_int", lambda: conv_blocks_objective,
            ("n_blocks", *(f"kernel_{i}" for i in range(CONV_MAX_BLOCKS)), "activation"),
            optimum_method=enumerated + f" over the {len(_conv_combinations())} (n_blocks, kernels, activation)",
            description=(
                "n_blocks int 0-4, then kernel_i categorical (1/3/5/7) and width_i log int (8-256) per block; activation "
                "categorical, weight decay log float; Ackley and Rastrigin ripples"
            ),
            conditional=True, combinations=_conv_combinations, combination_best=_conv_combination_best,
            best_point=lambda: conv_best_point(min(_conv_combinations(), key=_conv_combination_best)),
        ),
        _shifted_spec("noisy_styblinski", "noisy"),
        _mlp_spec("noisy_mlp", "noisy", NOISY_MLP, NOISY_MLP_SD),
        SuiteSpec(
            "hgb_breast_cancer", "real", deferred("vpbo_benchmarks.suite_real_tasks", "hgb_breast_cancer_objective"),
            ("max_bins", "class_weight"),
            optimum_method="unknown: the best value found in any stored run is the reference",
            description=(
                f"HistGradientBoostingClassifier ({HGB_MAX_ITER} iterations) on load_breast_cancer, {HGB_N_FOLDS}-fold "
                f"stratified CV log-loss: 5 numeric (ints and log floats), max_bins and class_weight categoricals (minimise)"
            ),
            combinations=functools.partial(product_combinations, ("max_bins", "class_weight"), [HGB_MAX_BINS, HGB_CLASS_WEIGHTS]),
        ),
        SuiteSpec(
            "svr_diabetes", "real", deferred("vpbo_benchmarks.suite_real_tasks", "svr_diabetes_objective"), ("kernel",),
            optimum_method="unknown: the best value found in any stored run is the reference",
            description=(
                f"SVR on load_diabetes (standardised), {SVR_N_FOLDS}-fold CV MSE capped at {SVR_MSE_CAP}: kernel categorical "
                f"decides gamma, degree (int) and coef0; C and epsilon log floats (minimise)"
            ),
            conditional=True, combinations=functools.partial(product_combinations, ("kernel",), [SVR_KERNELS]),
        ),
    ]


SUITE_SPECS: Mapping[str, SuiteSpec] = {spec.name: spec for spec in _specs()}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(spec.family for spec in SUITE_SPECS.values()))


def _split() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fixed rule, chosen before any run: within each family (in the order above) the problems
    alternate between the halves, and the family's first problem goes to TUNING in the 1st, 3rd,
    ... family and to HELD_OUT in the 2nd, 4th, ... (so that neither half always gets the first)."""
    tuning: list[str] = []
    held_out: list[str] = []
    for f, family in enumerate(FAMILIES):
        members = [s.name for s in SUITE_SPECS.values() if s.family == family]
        for i, name in enumerate(members):
            (tuning if (i + f) % 2 == 0 else held_out).append(name)
    return tuple(tuning), tuple(held_out)


TUNING, HELD_OUT = _split()
HALVES: Mapping[str, tuple[str, ...]] = {"tuning": TUNING, "held_out": HELD_OUT, "all": TUNING + HELD_OUT}
CONDITIONAL_PROBLEMS: tuple[str, ...] = tuple(s.name for s in SUITE_SPECS.values() if s.conditional)
FLAT_PROBLEMS: tuple[str, ...] = tuple(s.name for s in SUITE_SPECS.values() if not s.conditional)


def build_problem(name: str) -> Problem:
    """The :class:`~.problem.Problem` of suite problem ``name`` (minimised)."""
    return spec_problem(SUITE_SPECS[name], "suite")


PROBLEMS: Mapping[str, Callable[[], Problem]] = {name: functools.partial(build_problem, name) for name in SUITE_SPECS}
