"""Tests of the learning-curve task sets (benchmarks/vpbo_benchmarks/pruning_tasks.py,
with pruning_models.py and learning_curves.py; docs/trial-states.md "The fresh pruning set").

Only RandomSampler and enqueued configurations here: no sampler study runs on the fresh set
before its model is frozen. The misleading tasks' stated rank correlations are measured
on their fixed random sample; the synthetic optima are checked against an independent search
(multi-start L-BFGS-B per combination of categoricals and integers); the multi-fidelity Hartmann
is checked against values computed with mf-prior-bench itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState
from scipy.optimize import minimize

from vpbo_benchmarks import pruning_tasks as pt
from vpbo_benchmarks import trial_state_runs, trial_states

optuna.logging.set_verbosity(optuna.logging.ERROR)

ALL_TASKS = {task.name: task for task in pt.MISLEADING_CURVE_TASKS + pt.PRUNING_HELD_OUT_TASKS}
BASE_MISLEADING = [task for task in pt.MISLEADING_CURVE_TASKS if task.name.endswith("-median")]

# mf-prior-bench 1.10.0 (numpy 1.26.4, Python 3.11), in a separate environment, as
#   b = mfpbench.get(f"mfh6_{preset}"); cfg = b.sample(seed=s); b.query(cfg, at=z).value.value
# with s = 1 at z = 1, 5, 50, 100 and s = 2 at z = 10, 75; the last row is b.optimum at z = 100.
X1 = (0.4170220047026, 0.0923385947688, 0.4191945144033, 0.6704675101784, 0.8007445686755, 0.8946066635038)
X2 = (0.435994902142, 0.3303348210039, 0.6211338327693, 0.7853351478167, 0.5052460901217, 0.5967453089786)
MFPBENCH_VALUES = [
    ("good", 1, X1, 0.511755434703356), ("good", 5, X1, 1.1622542949822376), ("good", 50, X1, 0.21350248396767493),
    ("good", 100, X1, -0.039205548317937405), ("good", 10, X2, 1.021047782384235), ("good", 75, X2, -0.027575783572191703),
    ("bad", 1, X1, 1.0102067627593179), ("bad", 5, X1, 2.3295558201964814), ("bad", 50, X1, 0.4583070256500218),
    ("bad", 100, X1, -0.039205548317937405), ("bad", 10, X2, 2.122280109371076), ("bad", 75, X2, 0.07530601686285342),
    ("terrible", 1, X1, 1.259432426787299), ("terrible", 5, X1, 2.913206582803604),
    ("terrible", 50, X1, 0.5807092964911952), ("terrible", 100, X1, -0.039205548317937405),
    ("terrible", 10, X2, 2.6728962728644965), ("terrible", 75, X2, 0.12674691708037597),
    ("bad", 100, pt.MFH_ARGMIN, -3.322368011391339),
]


def _study(task: pt.PruningTask, pruner: optuna.pruners.BasePruner | None = None, seed: int = 0) -> optuna.Study:
    return optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed), pruner=pruner or task.pruner())


def _curve(task: pt.PruningTask, params: dict[str, Any]) -> dict[int, float]:
    """The full curve of one configuration, with a freshly built objective (data loaded anew)."""
    study = _study(task, optuna.pruners.NopPruner())
    study.enqueue_trial(params)
    study.optimize(task.objective(), n_trials=1, catch=task.catch)
    return study.trials[0].intermediate_values


# --------------------------------------------------------------------------------------------
# The sets
# --------------------------------------------------------------------------------------------


def test_sets_are_what_the_issue_asks() -> None:
    assert len(ALL_TASKS) == len(pt.MISLEADING_CURVE_TASKS) + len(pt.PRUNING_HELD_OUT_TASKS)
    for base in BASE_MISLEADING:
        stem = base.name.removesuffix("-median")
        variants = [t for t in pt.MISLEADING_CURVE_TASKS if t.name.startswith(stem + "-")]
        expected: set[type[optuna.pruners.BasePruner]] = {optuna.pruners.MedianPruner, optuna.pruners.HyperbandPruner}
        assert {type(t.pruner()) for t in variants} == expected
        assert base.max_steps >= 20 and base.optimum is not None and len(base.rank_correlations) >= 3
    fresh = pt.PRUNING_HELD_OUT_TASKS
    assert len(fresh) >= 4
    assert sum("MSE" in t.description for t in fresh) >= 1  # a regression
    pruners = [t.pruner() for t in fresh]
    assert any(isinstance(p, optuna.pruners.PercentilePruner) for p in pruners)
    assert any(isinstance(p, optuna.pruners.HyperbandPruner) for p in pruners)
    suite_words = ("digits", "make_classification", "breast_cancer", "SGDClassifier", "MLPClassifier", "HistGradient", "xgboost")
    assert not any(word in t.description for t in fresh for word in suite_words)


@pytest.mark.parametrize("name", list(ALL_TASKS))
def test_random_trials_run_under_the_pruner(name: str) -> None:
    """Every trial reports steps 1, 2, ... and ends COMPLETE (all steps, the last value) or PRUNED;
    its compute is its reports times the units per step."""
    task = ALL_TASKS[name]
    n_trials = 30 if task in pt.MISLEADING_CURVE_TASKS else 12
    study = _study(task)
    study.optimize(task.objective(), n_trials=n_trials, catch=task.catch)
    states = [t.state for t in study.trials]
    assert states.count(TrialState.COMPLETE) >= 1
    assert set(states) <= {TrialState.COMPLETE, TrialState.PRUNED}
    for trial in study.trials:
        steps = sorted(trial.intermediate_values)
        assert steps == list(range(1, len(steps) + 1))
        assert task.compute(trial) == len(steps) * (task.units_per_step or 0)
        if trial.state == TrialState.COMPLETE:
            assert len(steps) == task.max_steps and trial.value == trial.intermediate_values[task.max_steps]
    assert states.count(TrialState.PRUNED) >= 1


@pytest.mark.parametrize("name", [t.name for t in BASE_MISLEADING + list(pt.PRUNING_HELD_OUT_TASKS)])
def test_a_configuration_always_gives_the_same_curve(name: str) -> None:
    task = ALL_TASKS[name]
    study = _study(task, optuna.pruners.NopPruner(), seed=3)
    study.optimize(task.objective(), n_trials=1, catch=task.catch)
    first = study.trials[0]
    assert first.state == TrialState.COMPLETE
    assert _curve(task, first.params) == first.intermediate_values


# --------------------------------------------------------------------------------------------
# The misleading tasks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset, z, xs, expected", MFPBENCH_VALUES)
def test_multi_fidelity_hartmann_reproduces_mf_prior_bench(preset: str, z: int, xs: tuple[float, ...], expected: float) -> None:
    bias, noise = pt.MFH_PRESETS[preset]
    assert pt.mf_hartmann6(z, xs, bias, noise) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("task", BASE_MISLEADING, ids=lambda t: t.name)
def test_stated_rank_correlations_hold(task: pt.PruningTask) -> None:
    steps = [step for step, _ in task.rank_correlations]
    measured = pt.rank_correlations(task, steps)
    for (step, stated), value in zip(task.rank_correlations, measured):
        assert value == pytest.approx(stated, abs=0.006), f"step {step}"
    assert measured == sorted(measured)  # later steps rank the final values better


def test_presets_order_the_correlations() -> None:
    good, bad, terrible = ([c for _, c in pt.MFH_CORRELATIONS[p]] for p in ("good", "bad", "terrible"))
    assert all(g > b > t for g, b, t in zip(good, bad, terrible))


def test_crossing_curves_cross_at_the_top() -> None:
    """Of the 50 best final values of the fixed sample, at most 2 are among the 50 best at steps
    3 and 10; a quarter at most at step 20."""
    task = next(t for t in BASE_MISLEADING if t.name.startswith("crossing"))
    curves = pt.step_curves(task)
    final = np.array([curve[task.max_steps] for curve in curves])
    best = set(np.argsort(final)[:50])
    overlap = {step: len(best & set(np.argsort([curve[step] for curve in curves])[:50])) for step in (3, 10, 20)}
    assert overlap[3] <= 2 and overlap[10] <= 2 and overlap[20] <= 12


def _multistart(f: Callable[[np.ndarray], float], n_dims: int, rng: np.random.Generator, n_starts: int) -> float:
    bounds = [(0.0, 1.0)] * n_dims
    return min(float(minimize(f, rng.random(n_dims), method="L-BFGS-B", bounds=bounds).fun) for _ in range(n_starts))


def test_hartmann_optimum_by_independent_search() -> None:
    """Per (mirror, shift) pair, L-BFGS-B from 12 random starts on the final-step value."""
    rng = np.random.default_rng(28)
    found = {}
    for mirror, shift in pt.MFH_SHIFTS:
        def final(x: np.ndarray, mirror: str = mirror, shift: str = shift) -> float:
            params = {f"x{i}": float(v) for i, v in enumerate(x)} | {"mirror": mirror, "shift": shift}
            return pt.mfh_value("terrible", params, pt.MFH_STEPS)

        found[mirror, shift] = _multistart(final, 6, rng, 12)
    best_params, optimum = pt.mfh_best()
    assert min(found.values()) == pytest.approx(optimum, abs=1e-6)
    assert min(found.values()) >= optimum - 1e-9
    assert min(found, key=found.__getitem__) == (best_params["mirror"], best_params["shift"])
    for task in (t for t in pt.MISLEADING_CURVE_TASKS if t.name.startswith("mfh6")):
        assert task.optimum == optimum
        assert _curve(task, best_params)[task.max_steps] == pytest.approx(optimum, abs=1e-12)


def test_crossing_optimum_by_independent_search() -> None:
    """Every optimizer and every batch size (8..512), L-BFGS-B over (log10 lr, decay) from a random start."""
    rng = np.random.default_rng(28)
    best = math.inf
    for optimizer in pt.CROSSING_OPTIMIZERS:
        for batch in range(8, 513):
            def final(u: np.ndarray, optimizer: str = optimizer, batch: int = batch) -> float:
                return pt.crossing_value(optimizer, 10.0 ** (4.0 * u[0] - 4.0), batch, float(u[1]), pt.CROSSING_STEPS)

            best = min(best, _multistart(final, 2, rng, 1))
    params, optimum = pt.crossing_best()
    assert best == pytest.approx(optimum, abs=1e-9) and best >= optimum - 1e-12
    task = next(t for t in BASE_MISLEADING if t.name.startswith("crossing"))
    assert task.optimum == optimum
    assert _curve(task, params)[task.max_steps] == pytest.approx(optimum, abs=1e-12)


# --------------------------------------------------------------------------------------------
# In the trial-states suite
# --------------------------------------------------------------------------------------------


def test_the_sets_are_groups_of_the_trial_states_suite() -> None:
    assert trial_states.GROUPS["misleading"] == tuple(t.name for t in pt.MISLEADING_CURVE_TASKS)
    assert trial_states.GROUPS["fresh_pruning"] == tuple(t.name for t in pt.PRUNING_HELD_OUT_TASKS)
    assert trial_states.resolve_problems(["misleading", "fresh_pruning"]) == list(ALL_TASKS)
    # Issue 20's halves stay as they were run: "all" is its sixteen problems.
    assert len(trial_states.HALVES["all"]) == 16 and not set(trial_states.HALVES["all"]) & set(ALL_TASKS)
    for name, task in ALL_TASKS.items():
        problem = trial_states.get_trial_state_problem(name)
        assert problem.pruner == name.rsplit("-", 1)[1] and type(problem.make_pruner()) is type(task.pruner())
        assert (problem.task.max_steps, problem.task.units_per_step, problem.task.optimum) == (
            task.max_steps, task.units_per_step, task.optimum)


@pytest.mark.parametrize("name", ["crossing_curves-hyperband", "mfh6_bad-median"])
def test_the_runner_records_states_and_compute_as_the_task_defines_them(name: str) -> None:
    """The suite's runner (RandomSampler) against a study of the task itself with the same sampler,
    pruner and study name: the same states, and per trial the compute of ``PruningTask.compute``."""
    task = ALL_TASKS[name]
    record = trial_state_runs.run_study(name, "random", 0, 40)
    study_name = trial_state_runs.study_name(name, "random", 0)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0), pruner=task.pruner(), study_name=study_name)
    study.optimize(task.objective(), n_trials=40, catch=task.catch)
    assert record["states"] == "".join("C" if t.state == TrialState.COMPLETE else "P" for t in study.trials)
    assert record["compute"] == [task.compute(t) for t in study.trials]
    assert "P" in record["states"] and "C" in record["states"]
