"""Helpers shared by the lab's tests.

The tests of the problem modules check each combination's stated best against an independent
search of the problem's vectorised value (dense grids polished by SciPy, one-dimensional searches
joined by the separability they are checked to have, or full enumeration of the integers and
steps); they run only random trials and direct evaluations: no sampler study runs on a held-out
set's problems.

The lab's tests have no ``conftest.py``: run from the repository root beside the sampler's tests,
whose helpers are imported as the module ``conftest``, a second one would take its place in
``sys.modules``. This module's name is the lab's own.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import optuna
import pytest
from optuna.trial import BaseTrial, FrozenTrial
from scipy.optimize import minimize

from vpbo_benchmarks import held_out_sets
from vpbo_benchmarks.problem import NOISELESS_ATTR
from vpbo_benchmarks.specs import StatedProblem, SuiteSpec, stated_objective

T = TypeVar("T")


def _never_run(trial: BaseTrial) -> float:
    raise AssertionError("a toy spec's objective is never run")


# A suite spec of one categorical parameter "c", for the reports' tests: only its keys are read.
TOY_SPEC = SuiteSpec("toy", "toy", lambda: _never_run, ("c",), "", "")


def present(value: T | None) -> T:
    """``value``, which must not be None (an optional field of a spec that the test needs)."""
    assert value is not None
    return value


def value_of(trial: FrozenTrial) -> float:
    """The value of a complete trial of a single-objective study (None for the others)."""
    assert trial.value is not None, trial
    return trial.value


def noiseless_value(trial: FrozenTrial) -> float:
    """A complete trial's noiseless value: the user attribute of a noisy problem, else the value."""
    value: float | None = trial.user_attrs.get(NOISELESS_ATTR, trial.value)
    assert value is not None, trial
    return value


def run_bounded(
    command: list[str], timeout: float, cwd: str | os.PathLike[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command in its own process group; on timeout kill the whole group and fail."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=cwd
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{command[0]} did not finish within {timeout:.0f} s", pytrace=False)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


# ------------------------------------------------------------------ independent searches of stated optima
# (the tests of the problems with stated optima: vpbo_benchmarks/held_out_sets.py)


Bounds = Sequence[tuple[float, float]]


def polish(f: Callable[..., Any], starts: Iterable[Sequence[float]], bounds: Bounds, method: str = "L-BFGS-B") -> float:
    """The least of f over local searches from ``starts`` within ``bounds``."""
    if method == "L-BFGS-B":
        options: dict[str, float] = {"ftol": 1e-15, "gtol": 1e-12, "maxiter": 5000}
    else:
        options = {"xatol": 1e-10, "fatol": 1e-13, "maxiter": 20000}
    best = math.inf
    for start in starts:
        result = minimize(lambda z: float(f(*z)), list(start), method=method, bounds=bounds, options=options)
        best = min(best, float(result.fun))
    return best


def grid_then_polish(f: Callable[..., Any], bounds: Bounds, n_grid: int, n_starts: int = 6, method: str = "L-BFGS-B") -> float:
    """Minimum of the vectorised f(*coordinates) over a box: a dense grid, then local searches from its best points."""
    grids = np.meshgrid(*(np.linspace(low, high, n_grid) for low, high in bounds), indexing="ij")
    values = f(*grids)
    starts = [[g.flat[i] for g in grids] for i in np.argsort(values, axis=None)[:n_starts]]
    return min(float(values.min()), polish(f, starts, bounds, method))


def line_minimum(f: Callable[[Any], Any], low: float, high: float, n_grid: int = 400_001, n_zooms: int = 3) -> float:
    """Minimum of the vectorised one-dimensional f on [low, high]: a grid, then grids of 2001
    points over two steps either side of the best point so far, each 500 times finer (no
    smoothness assumed: a cusp is reached too)."""
    grid = np.linspace(low, high, n_grid)
    best = math.inf
    for _ in range(n_zooms + 1):
        values = f(grid)
        i, step = int(np.argmin(values)), grid[1] - grid[0]
        best = min(best, float(values[i]))
        grid = np.linspace(max(low, grid[i] - 2 * step), min(high, grid[i] + 2 * step), 2001)
    return best


def line_block(f: Callable[[Any], Any], low: float, high: float) -> Callable[[], float]:
    """The search of :func:`line_minimum` on f over [low, high], to run later."""
    return lambda: line_minimum(f, low, high)


def slice_of(
    f: Callable[[dict[str, Any]], Any], base: Mapping[str, Any], name: str, transform: Callable[[Any], Any] = lambda v: v,
) -> Callable[[Any], Any]:
    """f along one parameter: ``name`` set to transform(v), the others at ``base``."""
    return lambda v: f({**base, name: transform(v)})


def zoom_minimum(f: Callable[..., Any], bounds: Bounds, n_grid: int = 101, n_zooms: int = 10, cells: int = 8) -> float:
    """Minimum of the vectorised f(*coordinates) over a box: a grid, then grids of the same size
    over ``cells`` cells either side of the best point so far (no smoothness assumed: kinks are
    reached; the window lets the best point move along a narrow valley)."""
    box = [tuple(b) for b in bounds]
    best = math.inf
    for _ in range(n_zooms + 1):
        axes = [np.linspace(low, high, n_grid) for low, high in box]
        values = f(*np.meshgrid(*axes, indexing="ij"))
        index = np.unravel_index(int(np.argmin(values)), values.shape)
        best = min(best, float(values[index]))
        widths = [cells * (a[1] - a[0]) for a in axes]
        box = [(max(b[0], a[i] - w), min(b[1], a[i] + w)) for a, i, b, w in zip(axes, index, bounds, widths)]
    return best


def separable_minimum(
    f: Callable[[dict[str, Any]], Any], base: Mapping[str, Any], blocks: Sequence[Callable[[], float]],
) -> float:
    """min f of an additively separable f from the minima over each block with the others at
    ``base``: min f = sum_b min_b f(base with block b free) - (B - 1) f(base)."""
    return sum(block() for block in blocks) - (len(blocks) - 1) * float(f(dict(base)))


def assert_additive(
    f: Callable[[dict[str, Any]], Any], a: Mapping[str, Any], b: Mapping[str, Any], block: Sequence[str],
) -> None:
    """f(a) + f(b) = f(a with b's block) + f(b with a's block): f is a sum of a term in ``block`` and one in the rest."""
    swapped_a, swapped_b = dict(a, **{k: b[k] for k in block}), dict(b, **{k: a[k] for k in block})
    values = [float(f(dict(q))) for q in (a, b, swapped_a, swapped_b)]
    assert values[0] + values[1] == pytest.approx(values[2] + values[3], abs=1e-12)


def observed(problem: StatedProblem, params: Mapping[str, Any], number: int = 0) -> tuple[float, float]:
    """(observed, noiseless) value of the problem's Optuna objective at ``params``."""
    trial = optuna.trial.FixedTrial(dict(params), number=number)
    value = stated_objective(problem)(trial)
    return value, float(trial.user_attrs.get(NOISELESS_ATTR, value))


def noiseless_objective(problem: StatedProblem) -> Callable[[optuna.Trial], float]:
    def objective(trial: optuna.Trial) -> float:
        return float(problem.value(problem.suggest(trial)))

    return objective


def random_study(problem: StatedProblem, n_trials: int, seed: int) -> optuna.Study:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    study.optimize(noiseless_objective(problem), n_trials=n_trials)
    return study


def objective_value(name: str, params: dict[str, Any]) -> float:
    """The noiseless value of the Optuna objective of ``name`` at ``params``."""
    trial = optuna.trial.FixedTrial(params)
    value = held_out_sets.build_problem(name).objective(trial)
    return trial.user_attrs.get(NOISELESS_ATTR, value)


def pick(params: Mapping[str, Any], like: Iterable[str]) -> dict[str, Any]:
    return {k: params[k] for k in like if k in params}


def two_float_check(
    name: str, bounds: Sequence[tuple[float, float]], n_grid: int, combinations: Iterable[dict[str, Any]]
) -> None:
    problem = held_out_sets.PROBLEMS_BY_NAME[name]
    for c in combinations:
        found = grid_then_polish(lambda a, b, c=c: problem.value({**c, "x1": a, "x2": b}), bounds, n_grid, n_starts=4)
        stated = problem.combination_best(c)
        assert found >= stated - 1e-9, c  # nothing below the stated best
        assert found == pytest.approx(stated, abs=2e-6), c  # and the search reaches it


def best_and_random(problem: StatedProblem, n_best: int, n_random: int) -> list[dict[str, Any]]:
    combos = sorted(problem.combinations(), key=problem.combination_best)
    rng = np.random.default_rng(5)
    rest = combos[n_best:]
    return combos[:n_best] + [rest[i] for i in rng.choice(len(rest), size=min(n_random, len(rest)), replace=False)]


# Draws a sample of the numeric parameters: (rng, size) -> parameter name -> values.
Sampler = Callable[[np.random.Generator, int], dict[str, np.ndarray]]


def random_mean(problem: StatedProblem, combination: dict[str, Any], sample: Sampler) -> float:
    rng = np.random.default_rng(11)
    return float(np.mean(problem.value({**combination, **sample(rng, 4000)})))
