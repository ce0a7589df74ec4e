"""Runs of the trial-states suite (:mod:`.trial_states`): one study per (problem, sampler,
seed), its record (per trial: state, value, compute, repeat of a pruned or failed configuration),
and the runner that stores every missing run (the machinery of :func:`.runner.run_missing`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from vpbo_benchmarks.progress import TrialReporter
from vpbo_benchmarks.runner import environment, run_label, run_missing
from vpbo_benchmarks.samplers import TimedSampler, make_sampler
from vpbo_benchmarks.trial_states import GROUPS, PROBLEMS, STATE_LETTERS, get_trial_state_problem, repeat_flags

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
        "environment": environment(),
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
    """One line per problem: its group (half, or learning-curve set), family, pruner, compute unit, description."""
    lines = []
    for name, problem in PROBLEMS.items():
        group = next(g for g in ("tuning", "held_out", "misleading", "fresh_pruning") if name in GROUPS[g])
        pruner = problem.pruner or "none"
        lines.append(f"{name} [{group}, {problem.task.family}, pruner {pruner}, compute in {problem.task.compute_unit}]: "
                     f"{problem.task.description}")
    return lines
