"""Ray Tune's ASHA scheduler on two pruning tasks of the trial-states suite's tuning half:
VPBOSampler reading the trials that ASHA stops early as pruned (``vpbo``, the default), the same
without it (``vpbo-complete``: ``optuna_vpbo._trial_states.EARLY_STOPPED_AS_PRUNED`` off, each
stopped trial's truncated value taken as final), and TPE with AutoSampler's settings
(``tpe-auto``, :mod:`.peers`).

Each run is one ``tune.Tuner`` with ``OptunaSearch`` (the sampler in the driver, the task's
parameters as a fixed space) and ``ASHAScheduler(max_t=<the task's steps>, grace_period=1,
reduction_factor=2)`` (as examples/ray_tune.py), one trial at a time on one CPU: ASHA's
decisions then depend only on the order of the results, and a run is a function of its sampler
and seed. The trainable runs the task's Optuna objective (:mod:`.trial_state_tasks`) with a trial
whose ``report`` is ``tune.report`` and which never prunes: ASHA stops trials, not Optuna. A
trial's compute is its training iterations (Ray's results: epochs, or steps of 10 boosting rounds
for ``hgb_warm_start``); a trial is *full* when it ran all ``max_t`` of them, and its value is then
a final value. The best final loss of a run at a budget is the least value of the full trials
within it: the first n trials (equal trials), or the trials whose cumulated compute, in trial
order, is within C iterations (equal compute).

Stored: ``<out>/runs.jsonl``, one line per run (task, sampler, seed, and per trial
``[iterations, value]`` in trial order; ``value`` null for a trial that raised). The table:
``<out>/ASHA.md``.

A script beside the lab rather than a module of it: it switches a private constant of the
sampler, which the lab does not touch (tests/test_code_structure.py). Needs the lab and Ray Tune
(``pip install ./benchmarks "ray[tune]"``). Run (one heavy process; about 30 minutes for 2 tasks x
3 samplers x 20 seeds x 50 trials)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/scripts/asha_table.py run --out benchmarks/results-asha
    python benchmarks/scripts/asha_table.py table --out benchmarks/results-asha
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import ray
from optuna.samplers import BaseSampler
from optuna.trial import FixedTrial, TrialState
from ray import tune
from ray.tune.schedulers import ASHAScheduler
from ray.tune.search.optuna import OptunaSearch

from optuna_vpbo import VPBOSampler, _trial_states
from vpbo_benchmarks.peers import tpe_auto
from vpbo_benchmarks.trial_states import TASKS

DEFAULT_OUT = Path("benchmarks/results-asha")
RUNS_FILE = "runs.jsonl"
TABLE_FILE = "ASHA.md"
ASHA_TASKS = ("sgd_digits", "hgb_warm_start")  # cheap, incremental, in the tuning half (-median, -hyperband)
SAMPLERS = ("vpbo", "vpbo-complete", "tpe-auto")
GRACE_PERIOD = 1
REDUCTION_FACTOR = 2  # as examples/ray_tune.py (Ray's default is 4): more trials reach max_t
TRIAL_BUDGETS = (25, 35, 50)
COMPUTE_FRACTIONS = (1 / 3, 2 / 3, 1.0)  # of the least total compute of the task's runs
SIGNIFICANT = 7

# How the stored runs were made (written into the table).
PROVENANCE = (
    "The `vpbo` runs were made before the rule kept complete a stopped trial whose value beats every full trial's; "
    "replayed on the stored trials, that clause changes the reading in 1 of the 40 `vpbo` runs (hgb_warm_start, "
    "seed 9, from trial 32), which was run again with the final rule and replaced. Two runs repeated with the final "
    "code (sgd_digits, seeds 0 and 9) matched the stored ones trial for trial: a run is a function of its sampler and seed."
)
_OBJECTIVES: dict[str, Callable[[Any], float]] = {}


class _RayTrial(FixedTrial):
    """The task's parameters from Ray's config; each report is a Ray result; never prunes."""

    def report(self, value: float, step: int) -> None:
        tune.report({"loss": float(value)})

    def should_prune(self) -> bool:
        return False


def train(config: dict[str, Any], task: str) -> None:
    """Ray's trainable: the task's objective, built once per worker process."""
    if task not in _OBJECTIVES:
        _OBJECTIVES[task] = TASKS[task].objective()
    _OBJECTIVES[task](_RayTrial(config))


def task_space(task: str) -> dict[str, optuna.distributions.BaseDistribution]:
    """The task's (flat) search space: the distributions of one random trial of its objective."""
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(TASKS[task].objective(), n_trials=1)
    return dict(study.trials[0].distributions)


def make_sampler(name: str, seed: int) -> BaseSampler:
    if name == "tpe-auto":
        return tpe_auto(seed)
    return VPBOSampler(seed=seed)


@contextlib.contextmanager
def early_stop_treatment(enabled: bool) -> Iterator[None]:
    """VPBOSampler's reading of early-stopped trials on or off (the module constant)."""
    before = _trial_states.EARLY_STOPPED_AS_PRUNED
    _trial_states.EARLY_STOPPED_AS_PRUNED = enabled
    try:
        yield
    finally:
        _trial_states.EARLY_STOPPED_AS_PRUNED = before


def run_one(task: str, sampler: str, seed: int, n_trials: int, space: Mapping[str, Any]) -> dict[str, Any]:
    """One Tuner run; Ray must be initialised."""
    max_t = TASKS[task].max_steps
    searcher = OptunaSearch(dict(space), sampler=make_sampler(sampler, seed), metric="loss", mode="min")
    folder = tempfile.mkdtemp(prefix="vpbo-asha-")
    began = time.perf_counter()
    try:
        with early_stop_treatment(sampler != "vpbo-complete"):
            tuner = tune.Tuner(
                tune.with_parameters(train, task=task),
                tune_config=tune.TuneConfig(
                    search_alg=searcher,
                    scheduler=ASHAScheduler(
                        metric="loss", mode="min", max_t=max_t, grace_period=GRACE_PERIOD, reduction_factor=REDUCTION_FACTOR
                    ),
                    num_samples=n_trials, max_concurrent_trials=1, reuse_actors=True,
                ),
                run_config=tune.RunConfig(name="asha", storage_path=folder, verbose=0),
            )
            grid = tuner.fit()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    study: optuna.Study = searcher._ot_study
    ray_iterations = sorted(int(r.metrics["training_iteration"]) for r in grid if r.error is None and r.metrics)
    trials: list[tuple[int, float | None]] = []
    for t in study.trials:
        if t.state == TrialState.COMPLETE:
            trials.append((len(t.intermediate_values) + 1, float(f"{t.value:.{SIGNIFICANT}g}")))
        else:  # an error in the trainable: no value
            trials.append((len(t.intermediate_values), None))
    # OptunaSearch reports each result but the last as an intermediate value: check against Ray's count.
    assert sorted(i for i, v in trials if v is not None) == ray_iterations, "iterations disagree with Ray's"
    return {
        "task": task, "sampler": sampler, "seed": seed, "max_t": max_t, "trials": trials,
        "wall_seconds": round(time.perf_counter() - began, 1),
    }


def run(tasks: Sequence[str], samplers: Sequence[str], seeds: Sequence[int], n_trials: int, out: Path) -> None:
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    out.mkdir(parents=True, exist_ok=True)
    done = {(r["task"], r["sampler"], r["seed"]) for r in load(out) if len(r["trials"]) >= n_trials}
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        spaces = {task: task_space(task) for task in tasks}
        for seed in seeds:  # seed by seed: an interrupted run leaves every task with the same seeds
            for task, space in spaces.items():
                for sampler in samplers:
                    if (task, sampler, seed) in done:
                        continue
                    record = run_one(task, sampler, seed, n_trials, space)
                    with open(out / RUNS_FILE, "a") as f:
                        f.write(json.dumps(record, separators=(",", ":")) + "\n")
                    best = best_final(record, len(record["trials"]), None)
                    print(f"{task} {sampler} seed {seed}: best final {best:.4g}, {record['wall_seconds']} s", flush=True)
    finally:
        ray.shutdown()


def load(out: Path) -> list[dict[str, Any]]:
    """The stored runs; a (task, sampler, seed) stored twice: the later line."""
    path = out / RUNS_FILE
    if not path.exists():
        return []
    runs = {}
    for line in path.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            runs[(r["task"], r["sampler"], r["seed"])] = r
    return list(runs.values())


def best_final(record: Mapping[str, Any], n_trials: int, compute: float | None) -> float:
    """The least value of the full trials among the first ``n_trials`` and, with ``compute``,
    within that many cumulated iterations; inf without a full trial."""
    best, spent = math.inf, 0
    for iterations, value in record["trials"][:n_trials]:
        spent += iterations
        if compute is not None and spent > compute:
            break
        if value is not None and iterations == record["max_t"]:
            best = min(best, value)
    return best


def _mean_se(values: Sequence[float]) -> str:
    a = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        return "n/a"
    se = a.std(ddof=1) / math.sqrt(len(a)) if len(a) > 1 else math.nan
    return f"{a.mean():.4f} ± {se:.4f}"


def table(out: Path) -> str:
    """The Markdown table of the stored runs (seeds that every sampler ran)."""
    runs = load(out)
    lines = [
        "# Ray Tune with ASHA: VPBOSampler reading early-stopped trials as pruned",
        "",
        "Best final loss (least value of the trials that ran all `max_t` iterations), mean ± s.e. over seeds,",
        "and paired differences by seed (negative: `vpbo` better), ± the s.e. of the paired difference.",
        "`vpbo`: the default, early-stopped trials read as pruned; `vpbo-complete`: the same sampler with",
        "`EARLY_STOPPED_AS_PRUNED` off; `tpe-auto`: TPESampler(multivariate=True, constant_liar=True).",
        f"ASHA: grace_period={GRACE_PERIOD}, reduction_factor={REDUCTION_FACTOR}, max_t = the task's steps; one trial at a time.",
        "Equal compute: the trials whose cumulated training iterations, in trial order, are within C "
        f"(C: {', '.join(f'{f:.2g}' for f in COMPUTE_FRACTIONS)} of the least total compute among the task's runs).",
        "",
        "| task | budget | seeds | vpbo | vpbo-complete | tpe-auto | vpbo − vpbo-complete | vpbo − tpe-auto "
        "| vpbo-complete − tpe-auto |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    ran = (0, 0)  # seeds and trials per run of the last task
    for task in ASHA_TASKS:
        by = {(r["sampler"], r["seed"]): r for r in runs if r["task"] == task}
        seeds = sorted({s for _, s in by} & set.intersection(*({s for n, s in by if n == k} for k in SAMPLERS)) if by else set())
        if not seeds:
            continue
        n_trials = min(len(by[(k, s)]["trials"]) for k in SAMPLERS for s in seeds)
        ran = (len(seeds), n_trials)
        least = min(sum(i for i, _ in by[(k, s)]["trials"][:n_trials]) for k in SAMPLERS for s in seeds)
        budgets: list[tuple[str, int, float | None]] = [(f"{n} trials", n, None) for n in TRIAL_BUDGETS if n <= n_trials]
        budgets += [(f"{round(f * least)} iterations", n_trials, round(f * least)) for f in COMPUTE_FRACTIONS]
        for label, n, compute in budgets:
            best = {k: [best_final(by[(k, s)], n, compute) for s in seeds] for k in SAMPLERS}
            diff = [
                [a - b for a, b in zip(best[x], best[y])]
                for x, y in (("vpbo", "vpbo-complete"), ("vpbo", "tpe-auto"), ("vpbo-complete", "tpe-auto"))
            ]
            cells = [_mean_se(best[k]) for k in SAMPLERS] + [_mean_se(d) for d in diff]
            lines.append(f"| {task} | {label} | {len(seeds)} | " + " | ".join(cells) + " |")
        for k in SAMPLERS:
            trials = [t for s in seeds for t in by[(k, s)]["trials"][:n_trials]]
            full = sum(1 for i, v in trials if v is not None and i == by[(k, seeds[0])]["max_t"])
            stopped = sum(1 for i, v in trials if v is not None and i < by[(k, seeds[0])]["max_t"])
            spent = sum(i for i, _ in trials) / len(seeds)
            notes.append(
                f"- {task}, {k}: {n_trials} trials per run; per run {full / len(seeds):.1f} full, "
                f"{stopped / len(seeds):.1f} stopped early by ASHA, {spent:.0f} iterations"
            )
    lines += [
        "", *notes, "",
        f"Runs: `{RUNS_FILE}`, made by `OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/scripts/asha_table.py run "
        f"--out {out} --seeds {ran[0]} --trials {ran[1]}`.",
        f"Table: `python benchmarks/scripts/asha_table.py table --out {out}`.", "",
        PROVENANCE, "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("command", choices=("run", "table"))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tasks", default=",".join(ASHA_TASKS))
    parser.add_argument("--samplers", default=",".join(SAMPLERS))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=max(TRIAL_BUDGETS))
    args = parser.parse_args(argv)
    if args.command == "run":
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        run(args.tasks.split(","), args.samplers.split(","), list(seeds), args.trials, args.out)
    else:
        text = table(args.out)
        (args.out / TABLE_FILE).write_text(text)
        print(text)


if __name__ == "__main__":
    main()
