"""Problems flat on most of their space: ``plateau_steps`` (a decision tree's quantised error,
flat wherever the tree degenerates to the same stump) and ``capped_easom`` (Easom's needle under
a cap). The sets that hold them: :mod:`.held_out_sets`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.landscape_parts import (
    from_log_unit,
    levels_at_sites,
    log_unit,
    site_offsets,
    stack_numeric,
    suggest_levels,
)
from vpbo_benchmarks.specs import Params, StatedProblem, product_combinations

# --------------------------------------------------------------------------------------------
# plateau_steps (plateau): a decision tree's quantised validation error, flat wherever the tree degenerates to the same stump
# --------------------------------------------------------------------------------------------

PS_CRITERIA, PS_SPLITTERS = ("gini", "entropy", "log_loss"), ("best", "random")
PS_DEPTH, PS_LEAF, PS_FEATURES, PS_ALPHA = (1, 30), (1, 256), (0.1, 1.0), (1e-6, 1e-1)
PS_N_VALIDATION = 200  # the error is a count of the 200 validation points
PS_PLATEAU_COUNT, PS_WORST_COUNT = 18, 24  # the stump's error 0.09; off the plateau at most 0.12
PS_STUMP = (6, 8, 3e-4)  # the tree is the stump if max_depth <= 6, min_samples_leaf >= 8 or ccp_alpha >= 3e-4
PS_BEST_COUNT = ((8, 11), (12, 10), (13, 14))  # per (criterion, splitter): the best error count


@functools.cache
def plateau_steps_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2708)
    shape = (len(PS_CRITERIA), len(PS_SPLITTERS))
    return {"depth": rng.integers(8, 17, shape), "log2_leaf": rng.uniform(1.0, 2.5, shape),
            "features": rng.uniform(0.3, 0.8, shape), "log10_alpha": rng.uniform(-5.5, -4.0, shape)}


def plateau_steps_value(p: Params) -> Any:
    t = plateau_steps_tables()
    c = (PS_CRITERIA.index(p["criterion"]), PS_SPLITTERS.index(p["splitter"]))
    depth, leaf = np.asarray(p["max_depth"], dtype=float), np.asarray(p["min_samples_leaf"], dtype=float)
    features, alpha = np.asarray(p["max_features"], dtype=float), np.asarray(p["ccp_alpha"], dtype=float)
    error = PS_BEST_COUNT[c[0]][c[1]] / PS_N_VALIDATION + 0.0015 * (depth - t["depth"][c]) ** 2
    error = error + 0.008 * (np.log2(leaf) - t["log2_leaf"][c]) ** 2 + 0.08 * (features - t["features"][c]) ** 2
    error = error + 0.006 * (np.log10(alpha) - t["log10_alpha"][c]) ** 2
    count = np.minimum(np.round(PS_N_VALIDATION * error), PS_WORST_COUNT)
    stump = (depth <= PS_STUMP[0]) | (leaf >= PS_STUMP[1]) | (alpha >= PS_STUMP[2])
    return np.where(stump, PS_PLATEAU_COUNT, count) / PS_N_VALIDATION


def plateau_steps() -> StatedProblem:
    keys = ("criterion", "splitter")
    combinations = functools.partial(product_combinations, keys, [PS_CRITERIA, PS_SPLITTERS])

    def best(c: Params) -> float:
        return PS_BEST_COUNT[PS_CRITERIA.index(c["criterion"])][PS_SPLITTERS.index(c["splitter"])] / PS_N_VALIDATION

    def best_point() -> dict[str, Any]:
        c = min(combinations(), key=best)
        t, i = plateau_steps_tables(), (PS_CRITERIA.index(c["criterion"]), PS_SPLITTERS.index(c["splitter"]))
        target = float(t["log2_leaf"][i])
        leaf = min((math.floor(2.0**target), math.ceil(2.0**target)), key=lambda v: abs(math.log2(v) - target))
        return {**c, "max_depth": int(t["depth"][i]), "min_samples_leaf": int(leaf),
                "max_features": float(t["features"][i]), "ccp_alpha": float(10.0 ** t["log10_alpha"][i])}

    def suggest(trial: BaseTrial) -> dict[str, Any]:
        p = suggest_levels(trial, keys, [PS_CRITERIA, PS_SPLITTERS])
        p["max_depth"] = trial.suggest_int("max_depth", *PS_DEPTH)
        p["min_samples_leaf"] = trial.suggest_int("min_samples_leaf", *PS_LEAF, log=True)
        return {**p, "max_features": trial.suggest_float("max_features", *PS_FEATURES),
                "ccp_alpha": trial.suggest_float("ccp_alpha", *PS_ALPHA, log=True)}

    return StatedProblem(
        "plateau_steps", "plateau", suggest, plateau_steps_value, keys, combinations, best, best_point,
        description=(
            "a decision tree's validation error in steps of 1/200: criterion (3), splitter (2), int max_depth 1-30, log int "
            "min_samples_leaf 1-256, float max_features in [0.1, 1], log float ccp_alpha in [1e-6, 0.1]; 0.09 (the stump) "
            "wherever max_depth <= 6, min_samples_leaf >= 8 or ccp_alpha >= 3e-4, elsewhere round(200 (best + quadratic "
            "penalties)) / 200, at most 0.12"
        ),
        optimum_method=(
            "by construction: the penalties are >= 0, 0 at a point off the plateau but for min_samples_leaf (an integer within "
            "0.25 octave of its target: under 0.1 of a count), and the best counts are whole, so a combination's best is its "
            "count / 200; the optimum by enumeration of the 6"
        ),
        hardness=(
            "about 83 % of the space is one flat plateau (every combination's stump, 0.09) and 1.5-4 % is better than it, in "
            "terraces of width 1/200: a model sees no slope, and the first trials on the plateau all tie"
        ),
    )


# --------------------------------------------------------------------------------------------
# capped_easom (plateau): Easom's needle in three dimensions under a cap that flattens the rest of the space
# --------------------------------------------------------------------------------------------

CE_SITES = 4
CE_WIDTHS = {"narrow": 0.14, "mid": 0.2, "wide": 0.3}  # u = (coordinates - centre) / width
CE_WIDTH_OFFSET = (0.0, 0.06, 0.11)  # the narrowest needle is the deepest
CE_RATE = (1e-4, 1.0)  # log float: its coordinate is (log10 rate + 4) / 4 in [0, 1]
CE_FRACTION_STEP = 0.05  # the stepped float "fraction" in [0, 1]: its centres lie on the steps
CE_CAP = 1.0  # the value wherever the needle is above it: most of the space


@functools.cache
def capped_easom_tables() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2718)
    n_steps = round(1.0 / CE_FRACTION_STEP)
    centre = np.column_stack([rng.uniform(0.2, 0.8, (CE_SITES, 2)), rng.integers(4, n_steps - 3, CE_SITES) * CE_FRACTION_STEP])
    return {"centre": centre, "offset": site_offsets(rng, CE_WIDTH_OFFSET, 0.05, 0.02, CE_SITES)}


def easom(u: np.ndarray) -> Any:
    """Easom's function in d dimensions over the last axis, centred at 0: -prod cos(u_i)
    exp(-|u|^2) (Easom 1990; its d-dimensional form as in Jamil & Yang's survey); -1 only at 0,
    |value| < exp(-|u|^2) elsewhere: flat away from the needle."""
    return -np.prod(np.cos(u), axis=-1) * np.exp(-np.sum(u**2, axis=-1))


def capped_easom_coordinates(p: Params) -> np.ndarray:
    """(x, (log10 rate + 4) / 4, fraction) stacked on a last axis, each in [0, 1]."""
    rate = log_unit(p["rate"], CE_RATE[0])
    return stack_numeric({**p, "rate_coordinate": rate}, ("x", "rate_coordinate", "fraction"))


def capped_easom_landscape(offset: float, z: np.ndarray, width: float) -> Any:
    """min(CE_CAP, offset + 1 + Easom's needle at z / width)."""
    return np.minimum(CE_CAP, offset + 1.0 + easom(z / width))


def capped_easom_point(centre: np.ndarray) -> dict[str, float]:
    """x, rate and fraction at a centre in the unit coordinates."""
    x, rate, fraction = (float(v) for v in centre)
    return {"x": x, "rate": from_log_unit(rate, CE_RATE[0]), "fraction": fraction}


def capped_easom_suggest(trial: BaseTrial) -> dict[str, Any]:
    p = {"x": trial.suggest_float("x", 0.0, 1.0), "rate": trial.suggest_float("rate", *CE_RATE, log=True)}
    return {**p, "fraction": trial.suggest_float("fraction", 0.0, 1.0, step=CE_FRACTION_STEP)}


def capped_easom() -> StatedProblem:
    return levels_at_sites(
        "capped_easom", "plateau", "width", CE_WIDTHS, CE_SITES, capped_easom_tables, capped_easom_coordinates,
        capped_easom_landscape, capped_easom_point, capped_easom_suggest,
        description=(
            "min(1, offset + 1 + E(u)) with E Easom's needle -prod cos(u_i) exp(-|u|^2) in three dimensions, u = ((x, (log10 "
            "rate + 4) / 4, fraction) - centre) / width: float x in [0, 1], log float rate in [1e-4, 1], stepped float fraction "
            "in [0, 1] (steps of 0.05); width (3: 0.14, 0.2, 0.3) and site (4: the centre, in [0.2, 0.8]) set the needle, the "
            "narrowest the deepest"
        ),
        optimum_method=(
            "Easom's function is > -1 except at its centre, where it is -1 (inside the box; the fraction's centre on a step), so "
            "a combination's best is its offset, below the cap; the optimum by enumeration of the 12 combinations"
        ),
        hardness=(
            "a plateau: the value is exactly 1 on 93 % of the space (every combination's needle is under the cap only where the "
            "cosines are positive and the envelope deep enough), and the best combination is below the cap on 4.6 % of its box; "
            "the wider needles are easier to find and 0.05-0.16 worse"
        ),
    )
