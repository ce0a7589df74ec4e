"""Runs (problem, sampler, seed) studies in worker processes and stores one JSON file per run.

A run whose file exists is not run again, so an interrupted benchmark resumes where it stopped.
Each file records the objective values per trial, the sampler's own time per trial (objective
excluded, measured by ``TimedSampler``), the library versions, the machine and the command.
Every run is single-threaded (BLAS, OpenMP and PyTorch's pools): ``jobs`` runs then share the
cores without oversubscription, and every sampler is timed on one thread alike.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import importlib.metadata
import json
import multiprocessing
import os
import platform
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna

from optuna_vpbo.benchmarks.oracle import ORACLE, oracle_record
from optuna_vpbo.benchmarks.problems import get_problem
from optuna_vpbo.benchmarks.progress import POLL_SECONDS, RunProgress, TrialReporter
from optuna_vpbo.benchmarks.samplers import TimedSampler, make_sampler
from optuna_vpbo.benchmarks.suite import NOISELESS_ATTR


# Thread pools of the libraries the samplers use (NumPy/SciPy BLAS, PyTorch for GPSampler).
_THREAD_ENVIRONMENT = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# SMAC3 iterates over sets of configurations, so its choices follow Python's string hashing, which
# is salted per process unless PYTHONHASHSEED is set. Workers are spawned with it fixed, so every
# run repeats exactly; an interpreter reads it only at start-up, hence the worker environment.
_HASH_SEED_VARIABLE = "PYTHONHASHSEED"
_WORKER_HASH_SEED = "0"
# Libraries behind some samplers and problems, recorded with their versions where installed.
_OPTIONAL_LIBRARIES = ("torch", "smac", "scikit-learn", "xgboost", "mlxtend", "cmaes", "ax-platform", "botorch")


def _single_threaded() -> None:
    """Worker initialiser: one thread per run. The variables reach PyTorch, which reads them when
    GPSampler first imports it; threadpoolctl limits the BLAS already loaded with NumPy."""
    import threadpoolctl

    for name in _THREAD_ENVIRONMENT:
        os.environ[name] = "1"
    threadpoolctl.threadpool_limits(1)


@contextlib.contextmanager
def _worker_hash_seed() -> Iterator[None]:
    """Set PYTHONHASHSEED for the workers spawned inside the block; restore it afterwards."""
    previous = os.environ.get(_HASH_SEED_VARIABLE)
    os.environ[_HASH_SEED_VARIABLE] = _WORKER_HASH_SEED
    try:
        yield
    finally:
        if previous is None:
            del os.environ[_HASH_SEED_VARIABLE]
        else:
            os.environ[_HASH_SEED_VARIABLE] = previous


def run_label(problem: str, sampler: str, seed: int) -> str:
    return f"{problem} {sampler} seed={seed}"


def result_path(out_dir: Path, problem: str, sampler: str, seed: int) -> Path:
    return out_dir / problem / sampler / f"seed{seed:03d}.json"


def _installed_versions(distributions: Sequence[str]) -> dict[str, str]:
    versions = {}
    for name in distributions:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def _environment() -> dict[str, Any]:
    import scipy

    import optuna_vpbo

    return {
        "python": platform.python_version(),
        "optuna": optuna.__version__,
        "optuna_vpbo": optuna_vpbo.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "machine": f"{platform.machine()} {os.cpu_count()} cores {platform.processor() or ''}".strip(),
        "command": " ".join(sys.argv),
        "libraries": _installed_versions(_OPTIONAL_LIBRARIES),
        "threads": {name: os.environ.get(name) for name in _THREAD_ENVIRONMENT},
        "hash_seed": os.environ.get(_HASH_SEED_VARIABLE),
    }


def run_one(
    problem_name: str, sampler_name: str, seed: int, n_trials: int, progress_messages: Any = None
) -> dict[str, Any]:
    """One study (for the sampler "oracle", one per combination); returns the record that ``run``
    stores. With ``progress_messages`` (a queue), each finished trial is reported on it."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if sampler_name == ORACLE:
        return {**oracle_record(problem_name, n_trials, seed), "environment": _environment()}
    problem = get_problem(problem_name)
    sampler = TimedSampler(make_sampler(sampler_name, seed))
    study = optuna.create_study(directions=list(problem.directions), sampler=sampler)
    start = time.perf_counter()
    label = run_label(problem_name, sampler_name, seed)
    callbacks = [] if progress_messages is None else [TrialReporter(progress_messages, label)]
    study.optimize(problem.objective, n_trials=n_trials, callbacks=callbacks)
    trials = study.get_trials(deepcopy=False)
    return {
        "problem": problem_name,
        "sampler": sampler_name,
        "seed": seed,
        "n_trials": n_trials,
        "values": [t.values for t in trials],
        "params": [t.params for t in trials],
        "constraints": [list(t.constraints.values()) for t in trials],
        "sampler_seconds": [sampler.seconds.get(t.number, 0.0) for t in trials],
        **_noiseless_values(trials),
        "wall_seconds": time.perf_counter() - start,
        "environment": _environment(),
    }


def _noiseless_values(trials: Sequence[optuna.trial.FrozenTrial]) -> dict[str, list[float | None]]:
    """``{"noiseless": [...]}``, each trial's noiseless objective value, where the problem adds
    noise and stores it (suite.NOISELESS_ATTR); empty otherwise, so other records are unchanged."""
    if not any(NOISELESS_ATTR in t.user_attrs for t in trials):
        return {}
    return {"noiseless": [t.user_attrs.get(NOISELESS_ATTR) for t in trials]}


def _run_and_store(
    path: Path, problem: str, sampler: str, seed: int, n_trials: int, progress_messages: Any = None
) -> dict[str, Any]:
    record = run_one(problem, sampler, seed, n_trials, progress_messages)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record))
    tmp.replace(path)  # atomic: an interrupted run leaves no half-written result
    return record


def run(
    problems: Sequence[str],
    samplers: Sequence[str],
    seeds: Sequence[int],
    n_trials: int,
    out_dir: Path,
    jobs: int,
    progress: bool | None = None,
) -> None:
    """Run every missing (problem, sampler, seed) with ``jobs`` worker processes; ``progress``:
    progress bars on stderr (``None``: when stderr is a terminal)."""
    for name in problems:
        get_problem(name)  # fail early on a bad name
    for name in samplers:
        if name != ORACLE:
            make_sampler(name, 0)
    todo = [
        (p, s, seed)
        for p in problems
        for seed in seeds
        for s in samplers
        if not _complete(result_path(out_dir, p, s, seed), n_trials)
    ]
    print(f"{len(todo)} runs to do ({len(problems) * len(samplers) * len(seeds) - len(todo)} stored already)")
    start = time.perf_counter()
    context = multiprocessing.get_context("spawn")
    bars = RunProgress(len(todo), n_trials, progress)
    # The workers report their trials through a manager's queue, only when the bars are drawn.
    reporting = context.Manager() if bars.enabled else contextlib.nullcontext()
    with reporting as manager, _worker_hash_seed(), concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_single_threaded
    ) as pool:
        messages = manager.Queue() if manager is not None else None
        futures = {
            pool.submit(_run_and_store, result_path(out_dir, p, s, seed), p, s, seed, n_trials, messages): (p, s, seed)
            for p, s, seed in todo
        }
        pending = set(futures)
        done = 0
        try:
            while pending:
                finished, pending = concurrent.futures.wait(
                    pending, timeout=POLL_SECONDS, return_when=concurrent.futures.FIRST_COMPLETED
                )
                if messages is not None:
                    bars.poll(messages)
                for future in finished:
                    p, s, seed = futures[future]
                    record = future.result()
                    done += 1
                    elapsed = time.perf_counter() - start
                    eta = elapsed / done * (len(todo) - done)
                    bars.finish_run(
                        run_label(p, s, seed),
                        f"[{done}/{len(todo)}] {run_label(p, s, seed)}: {record['wall_seconds']:.1f} s "
                        f"(elapsed {elapsed / 60:.1f} min, eta {eta / 60:.1f} min)",
                    )
        finally:
            bars.close()


def _complete(path: Path, n_trials: int) -> bool:
    if not path.exists():
        return False
    try:
        return json.loads(path.read_text())["n_trials"] >= n_trials
    except (ValueError, KeyError):
        return False


def load_results(out_dir: Path, problem: str, sampler: str) -> list[dict[str, Any]]:
    folder = out_dir / problem / sampler
    return [json.loads(p.read_text()) for p in sorted(folder.glob("seed*.json"))] if folder.exists() else []
