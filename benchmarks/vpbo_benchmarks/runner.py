"""Runs (problem, sampler, seed) studies in worker processes and stores each run as a record.

The records of a problem go to one compressed file (:mod:`.records`); a run already
stored is not run again, so an interrupted benchmark resumes where it stopped. A record holds the
objective values per trial, the categorical and integer parameters, the sampler's own time per
trial (objective excluded, measured by ``TimedSampler``), the library versions, the machine and
the command as typed (``python -m vpbo_benchmarks ...``, no path of the machine).
Every run is single-threaded (BLAS, OpenMP and PyTorch's pools): ``jobs`` runs then share the
cores without oversubscription, and every sampler is timed on one thread alike.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import importlib.metadata
import multiprocessing
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import scipy
import threadpoolctl

import optuna_vpbo
from vpbo_benchmarks.oracle import ORACLE, oracle_record
from vpbo_benchmarks.problem import NOISELESS_ATTR
from vpbo_benchmarks.progress import POLL_SECONDS, RunProgress, TrialReporter
from vpbo_benchmarks.records import append_record, load_problem
from vpbo_benchmarks.registry import get_problem
from vpbo_benchmarks.samplers import TimedSampler, make_sampler

# Thread pools of the libraries the samplers use (NumPy/SciPy BLAS, PyTorch for GPSampler).
_THREAD_ENVIRONMENT = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# SMAC3 iterates over sets of configurations, so its choices follow Python's string hashing, which
# is salted per process unless PYTHONHASHSEED is set. Workers are spawned with it fixed, so every
# run repeats exactly; an interpreter reads it only at start-up, hence the worker environment.
_HASH_SEED_VARIABLE = "PYTHONHASHSEED"
_WORKER_HASH_SEED = "0"
# Variables that choose the numeric kernels, which set a run's last bits and so, over many trials,
# its suggestions (OpenBLAS picks its kernels by CPU unless told; the core its instruction set;
# NumPy its SIMD loops, e.g. an AVX-512 exp of float64 arrays, unless features are disabled).
_KERNEL_ENVIRONMENT = ("OPENBLAS_CORETYPE", "VPBO_INSTRUCTION_SET", "NPY_DISABLE_CPU_FEATURES")
# Libraries behind some samplers and problems, recorded with their versions where installed.
_OPTIONAL_LIBRARIES = ("torch", "smac", "scikit-learn", "xgboost", "mlxtend", "cmaes", "ax-platform", "botorch")


def single_threaded() -> None:
    """Worker initialiser: one thread per run. The variables reach PyTorch, which reads them when
    GPSampler first imports it; threadpoolctl limits the BLAS already loaded with NumPy."""
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


def _installed_versions(distributions: Sequence[str]) -> dict[str, str]:
    versions = {}
    for name in distributions:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def user_command(argv: Sequence[str]) -> str:
    """The command as a user types it: ``python -m vpbo_benchmarks ...`` where
    ``sys.argv[0]`` is the full path of that package's ``__main__.py``, else the script's file
    name, then the arguments."""
    script = Path(argv[0]) if argv else Path("python")
    program = f"python -m {script.parent.name}" if script.name == "__main__.py" else script.name
    return " ".join([program, *(shlex.quote(a) for a in argv[1:])])


def environment() -> dict[str, Any]:
    """What a stored run records of where it ran: library versions, machine, command, threads."""
    return {
        "python": platform.python_version(),
        "optuna": optuna.__version__,
        "optuna_vpbo": optuna_vpbo.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "machine": f"{platform.machine()} {os.cpu_count()} cores {platform.processor() or ''}".strip(),
        "command": user_command(sys.argv),
        "libraries": _installed_versions(_OPTIONAL_LIBRARIES),
        "threads": {name: os.environ.get(name) for name in _THREAD_ENVIRONMENT},
        "hash_seed": os.environ.get(_HASH_SEED_VARIABLE),
        "kernels": {
            "blas": blas_kernels(),
            "numpy": numpy_simd(),
            "core": optuna_vpbo.INSTRUCTION_SET,  # the native core's variant, chosen at import or forced
            **{name: os.environ.get(name) for name in _KERNEL_ENVIRONMENT},
        },
    }


def blas_kernels() -> list[str]:
    """The BLAS libraries loaded and the kernels each chose (threadpoolctl's "architecture"), e.g.
    "openblas SkylakeX": the stored runs reproduce value for value only with the same kernels."""
    return sorted(
        f"{info['internal_api']} {info.get('architecture', '?')}"
        for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"
    )


def numpy_simd() -> list[str]:
    """The SIMD features above its baseline that NumPy dispatches to on this machine (as
    ``numpy.show_runtime`` lists them as found), e.g. ["X86_V3", "X86_V4"]: an AVX-512 machine's
    runs do not reproduce value for value on an AVX2 one."""
    umath = getattr(getattr(np, "_core", None), "_multiarray_umath", None)
    if umath is None:  # NumPy 1.x: no stable place to read them
        return []
    found = getattr(umath, "__cpu_features__", {})
    return [name for name in getattr(umath, "__cpu_dispatch__", []) if found.get(name)]


def run_one(
    problem_name: str, sampler_name: str, seed: int, n_trials: int, progress_messages: Any = None
) -> dict[str, Any]:
    """One study (for the sampler "oracle", one per combination); returns the record that ``run``
    stores. With ``progress_messages`` (a queue), each finished trial is reported on it."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if sampler_name == ORACLE:
        return {**oracle_record(problem_name, n_trials, seed), "environment": environment()}
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
        "environment": environment(),
    }


def _noiseless_values(trials: Sequence[optuna.trial.FrozenTrial]) -> dict[str, list[float | None]]:
    """``{"noiseless": [...]}``, each trial's noiseless objective value, where the problem adds
    noise and stores it (suite.NOISELESS_ATTR); empty otherwise, so other records are unchanged."""
    if not any(NOISELESS_ATTR in t.user_attrs for t in trials):
        return {}
    return {"noiseless": [t.user_attrs.get(NOISELESS_ATTR) for t in trials]}


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
    run_missing(run_one, problems, samplers, seeds, n_trials, out_dir, jobs, progress)


def run_missing(
    worker: Callable[..., dict[str, Any]],
    problems: Sequence[str],
    samplers: Sequence[str],
    seeds: Sequence[int],
    n_trials: int,
    out_dir: Path,
    jobs: int,
    progress: bool | None,
    summary: Callable[[dict[str, Any]], str] = lambda record: "",
) -> None:
    """Run ``worker(problem, sampler, seed, n_trials, messages)`` for every (problem, sampler,
    seed) not stored with ``n_trials`` trials in ``out_dir``, in ``jobs`` spawned single-threaded
    processes with a fixed hash seed, and store each record as it comes (this process alone writes
    the files); ``summary(record)`` adds to each run's progress line."""
    stored = {p: load_problem(out_dir, p) for p in problems}
    lengths = {(p, s, r["seed"]): r["n_trials"] for p in problems for s, runs in stored[p].items() for r in runs}
    todo = [(p, s, seed) for p in problems for seed in seeds for s in samplers if lengths.get((p, s, seed), 0) < n_trials]
    print(f"{len(todo)} runs to do ({len(problems) * len(samplers) * len(seeds) - len(todo)} stored already)")
    start = time.perf_counter()
    context = multiprocessing.get_context("spawn")
    bars = RunProgress(len(todo), n_trials, progress)
    # The workers report their trials through a manager's queue, only when the bars are drawn.
    reporting = context.Manager() if bars.enabled else contextlib.nullcontext()
    with reporting as manager, _worker_hash_seed(), concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=single_threaded
    ) as pool:
        messages = manager.Queue() if manager is not None else None
        futures = {pool.submit(worker, p, s, seed, n_trials, messages): (p, s, seed) for p, s, seed in todo}
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
                    append_record(out_dir, record)
                    done += 1
                    elapsed = time.perf_counter() - start
                    eta = elapsed / done * (len(todo) - done)
                    bars.finish_run(
                        run_label(p, s, seed),
                        f"[{done}/{len(todo)}] {run_label(p, s, seed)}: {record['wall_seconds']:.1f} s{summary(record)} "
                        f"(elapsed {elapsed / 60:.1f} min, eta {eta / 60:.1f} min)",
                    )
        finally:
            bars.close()


def load_results(out_dir: Path, problem: str, sampler: str) -> list[dict[str, Any]]:
    """The stored runs of ``sampler`` on ``problem``, sorted by seed."""
    return load_problem(out_dir, problem).get(sampler, [])
