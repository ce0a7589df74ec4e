"""Stored runs of MCBO's optimisers on the ``combinatorial`` set: optional peers that the lab
reads, never runs.

MCBO (Dreczkowski et al., NeurIPS 2023; huawei-noah/HEBO, folder MCBO) is not on PyPI and needs
PyTorch, GPyTorch and pymoo at versions of its own, so its methods run in a venv of their own from
a local copy of its code, by ``benchmarks/scripts/run_mcbo_peers.py`` (how to set it up:
``benchmarks/README.md``, "MCBO's methods as stored peers"). That script evaluates MCBO's own tasks
(the lab's ``combinatorial`` problems are the same functions: ``tests/test_combinatorial.py``) and
stores each run here in the lab's format (:mod:`.records`), so that ``vpbo-benchmark report``
reads it beside the lab's samplers. The runs are stored under the lab's sampler names of
:data:`MCBO_PEERS`, which no ``vpbo-benchmark run`` can make.

This module is what the script and the lab share: the names, the translation of an MCBO point into
the lab's parameters and the record. It imports nothing but the standard library and
:mod:`.records`, so that MCBO's venv runs it with the lab's folder on ``PYTHONPATH`` alone.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vpbo_benchmarks.records import Record, load_problem

# The lab's sampler name of each MCBO method, and MCBO's id of it (a BoBuilder combination:
# model __ acquisition optimiser __ acquisition function __ trust region).
MCBO_PEERS: Mapping[str, str] = {
    "mcbo-casmopolitan": "gp_to__is__ei__basic",  # CASMOPOLITAN: GP (transformed overlap), interleaved search, EI, TR
    "mcbo-gp-to-ga-tr": "gp_to__ga__ei__basic",  # GP (transformed overlap), genetic algorithm, EI, TR
}
# The lab's problem of each MCBO task id (mcbo.utils.experiment_utils.get_task_from_id).
MCBO_TASKS: Mapping[str, str] = {"pest_control": "pest", "ackley_20x11": "ackley", "ackley53": "ackley-53"}
MCBO_N_INIT = 20  # MCBO's random initial points (its protocol: 200 evaluations, 20 initial)
# The lab's parameter names of each problem, in the order of MCBO's search space parameters.
LAB_NAMES: Mapping[str, tuple[str, ...]] = {
    "pest_control": tuple(f"stage{i}" for i in range(1, 26)),
    "ackley_20x11": tuple(f"h{i}" for i in range(1, 21)),
    "ackley53": (*(f"h{i}" for i in range(1, 51)), "x1", "x2", "x3"),
}
NOMINAL = "nominal"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def lab_params(problem: str, space_params: Sequence[Mapping[str, Any]], point: Mapping[str, Any]) -> dict[str, Any]:
    """An MCBO point (its values by MCBO's parameter names) as the lab's parameters of ``problem``.

    ``space_params`` is the task's ``get_search_space_params()``: a nominal parameter's value
    becomes its index among the parameter's categories (the lab's level: Pest Control's "do
    nothing" 0 and "pesticide k" k, Ackley 20 x 11's j-th value j, Ackley-53's 0.0 and 1.0 the
    levels 0 and 1), a numeric one a float."""
    names = LAB_NAMES[problem]
    if len(names) != len(space_params):
        raise ValueError(f"{problem}: MCBO's task has {len(space_params)} parameters, the lab's problem {len(names)}")
    params: dict[str, Any] = {}
    for name, spec in zip(names, space_params):
        value = point[spec["name"]]
        params[name] = list(spec["categories"]).index(value) if spec["type"] == NOMINAL else float(value)
    return params


def mcbo_record(
    problem: str,
    sampler: str,
    seed: int,
    trials: Sequence[tuple[dict[str, Any], float, float]],
    wall_seconds: float,
    environment: Mapping[str, Any],
) -> Record:
    """The lab's record of one MCBO run: ``trials`` are (the lab's parameters, the value, the
    optimiser's own seconds of the trial: its suggest and observe, the objective excluded)."""
    return {
        "problem": problem,
        "sampler": sampler,
        "seed": seed,
        "n_trials": len(trials),
        "values": [[float(value)] for _, value, _ in trials],
        "params": [params for params, _, _ in trials],
        "constraints": [[] for _ in trials],
        "sampler_seconds": [float(seconds) for _, _, seconds in trials],
        "wall_seconds": float(wall_seconds),
        "environment": dict(environment),
    }


def seeds_to_run(out_dir: Path, problem: str, sampler: str, seeds: Sequence[int], n_trials: int) -> list[int]:
    """The seeds of ``seeds`` not stored in ``out_dir`` with at least ``n_trials`` trials."""
    stored = {r["seed"]: r["n_trials"] for r in load_problem(out_dir, problem).get(sampler, [])}
    return [seed for seed in seeds if stored.get(seed, 0) < n_trials]


def peer_environment(
    optimiser: str, versions: Mapping[str, str], mcbo_source: str, command: str, n_init: int
) -> dict[str, Any]:
    """What a stored MCBO run records of where it ran: MCBO's method id, its number of initial
    points and where its code came from (e.g. a commit of huawei-noah/HEBO), the libraries'
    versions, the machine, the command and the threads."""
    return {
        "python": platform.python_version(),
        "mcbo": {"optimizer": optimiser, "n_init": n_init, "source": mcbo_source},
        "libraries": dict(versions),
        "machine": f"{platform.machine()} {os.cpu_count()} cores {platform.processor() or ''}".strip(),
        "command": command,
        "threads": {name: os.environ.get(name) for name in THREAD_VARIABLES},
    }
