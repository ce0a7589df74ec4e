"""MCBO's CASMOPOLITAN and GP(TO)-GA with trust region on the lab's ``combinatorial`` problems,
stored in the lab's format so that ``vpbo-benchmark report`` reads them beside VPBO's runs.

An optional peer, not a dependency of anything and not in CI. It runs in a venv of MCBO's own
(MCBO is not on PyPI; its PyTorch, GPyTorch and pymoo versions are its own), with a local copy of
MCBO's code installed there; the lab itself is not installed in that venv: this script puts the
lab's folder on ``sys.path`` and uses only :mod:`vpbo_benchmarks.mcbo_runs` and
:mod:`vpbo_benchmarks.records`, which need the standard library alone. Setting it up:
``benchmarks/README.md``, "MCBO's methods as stored peers".

Each run is MCBO's own loop (``mcbo.utils.experiment_utils.run_experiment``, one point at a
time): the optimiser from ``get_opt`` (MCBO's defaults, ``--n-init`` random initial points,
float64 on the CPU), ``set_random_seed(seed)``, then suggest, evaluate MCBO's task, observe. The
task is MCBO's (``get_task_from_id``: ``pest``, ``ackley``, ``ackley-53``), the same functions as
the lab's problems; each point is stored as the lab's parameters (:func:`~vpbo_benchmarks.
mcbo_runs.lab_params`) with MCBO's value, and the optimiser's own seconds per trial (suggest and
observe). A run already stored with as many trials is skipped. One thread (PyTorch's pool and the
BLAS variables), as the lab's runner runs its samplers::

    ~/mcbo-venv/bin/python benchmarks/scripts/run_mcbo_peers.py --problems pest_control \\
        --peers mcbo-casmopolitan,mcbo-gp-to-ga-tr --seeds 5 --trials 200 \\
        --out benchmarks/results-combinatorial --mcbo-source huawei-noah/HEBO@<commit>
    vpbo-benchmark report --problems pest_control --samplers vpbo,mcbo-casmopolitan,mcbo-gp-to-ga-tr \\
        --out benchmarks/results-combinatorial
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the lab's folder, benchmarks/

from vpbo_benchmarks.mcbo_runs import (  # noqa: E402
    MCBO_N_INIT,
    MCBO_PEERS,
    MCBO_TASKS,
    THREAD_VARIABLES,
    lab_params,
    mcbo_record,
    peer_environment,
    seeds_to_run,
)
from vpbo_benchmarks.records import Record, append_record  # noqa: E402

for _variable in THREAD_VARIABLES:  # before PyTorch and NumPy's BLAS start their pools
    os.environ[_variable] = "1"

import torch  # noqa: E402
from mcbo.utils.experiment_utils import get_opt, get_task_from_id  # noqa: E402
from mcbo.utils.general_utils import set_random_seed  # noqa: E402

LIBRARIES = ("MCBO", "torch", "gpytorch", "pymoo", "numpy", "scipy", "pandas", "scikit-learn")
REPORT_EVERY = 10  # trials between progress lines


def versions() -> dict[str, str]:
    found = {}
    for name in LIBRARIES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def run_one(problem: str, peer: str, seed: int, n_trials: int, n_init: int, environment: dict[str, object]) -> Record:
    """One MCBO run as the lab's record (MCBO's loop, its seeding, its task)."""
    task = get_task_from_id(MCBO_TASKS[problem])
    space_params = task.get_search_space_params()
    optimiser = get_opt(
        task=task, short_opt_id=MCBO_PEERS[peer], bo_n_init=n_init, dtype=torch.float64, bo_device=torch.device("cpu")
    )
    set_random_seed(seed)
    task.restart()
    optimiser.restart()
    trials = []
    start = time.perf_counter()
    for number in range(n_trials):
        began = time.perf_counter()
        x = optimiser.suggest(1)
        suggested = time.perf_counter()
        y = task(x)
        evaluated = time.perf_counter()
        optimiser.observe(x, y)
        seconds = (suggested - began) + (time.perf_counter() - evaluated)
        trials.append((lab_params(problem, space_params, x.iloc[0].to_dict()), float(y[0, 0]), seconds))
        if (number + 1) % REPORT_EVERY == 0:
            best = min(value for _, value, _ in trials)
            print(f"{problem} {peer} seed={seed}: {number + 1}/{n_trials}, best {best:.4f}", flush=True)
    return mcbo_record(problem, peer, seed, trials, time.perf_counter() - start, environment)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", default=",".join(MCBO_TASKS), help=f"comma-separated, from {', '.join(MCBO_TASKS)}")
    parser.add_argument("--peers", default=",".join(MCBO_PEERS), help=f"comma-separated, from {', '.join(MCBO_PEERS)}")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0 .. N-1")
    parser.add_argument("--trials", type=int, default=200, help="evaluations per run, the initial points included")
    parser.add_argument("--n-init", type=int, default=MCBO_N_INIT, help="MCBO's random initial points")
    parser.add_argument("--out", type=Path, required=True, help="the lab's folder of stored runs")
    parser.add_argument(
        "--mcbo-source", default="unrecorded", help="where MCBO's code came from, recorded with each run (owner/repo@commit)"
    )
    args = parser.parse_args(argv)
    args.problems, args.peers = args.problems.split(","), args.peers.split(",")
    unknown = [p for p in args.problems if p not in MCBO_TASKS] + [p for p in args.peers if p not in MCBO_PEERS]
    if unknown:
        parser.error(f"unknown problems or peers: {', '.join(unknown)}")
    return args


def main(argv: list[str]) -> None:
    args = parse(argv)
    torch.set_num_threads(1)
    command = " ".join(["python", "benchmarks/scripts/run_mcbo_peers.py", *(shlex.quote(a) for a in argv)])
    for problem in args.problems:
        for peer in args.peers:
            environment = peer_environment(MCBO_PEERS[peer], versions(), args.mcbo_source, command, args.n_init)
            for seed in seeds_to_run(args.out, problem, peer, range(args.seeds), args.trials):
                record = run_one(problem, peer, seed, args.trials, args.n_init, environment)
                append_record(args.out, record)
                best = min(v[0] for v in record["values"])
                print(f"stored {problem} {peer} seed={seed}: best {best:.4f}, {record['wall_seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
