"""Sampler overhead per trial (objective excluded) at a given number of trials n.

A study is pre-filled with n random trials (RandomSampler, real objective values), copied into a
fresh in-memory study per sampler, and the sampler's own time is measured over a window of
further trials; the median over the window is reported. Each (case, sampler) runs in its own
process, so its peak resident memory is its own. The floor is the floating-point work VPBO's
value proposals must do at that size, divided by the machine's measured single-thread GEMM
speed: (sum of levels + 1) triangular solves of an n x S block (n^2 S flops each), C S n (k + 2)
flops to assemble the combinations' variances, and the Cholesky (n^3 / 3).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import multiprocessing
import resource
import statistics
import time
from collections.abc import Callable

import numpy as np
import optuna

from optuna_vpbo.benchmarks.problems import get_problem
from optuna_vpbo.benchmarks.samplers import TimedSampler, make_sampler

DEFAULT_WINDOW = 5
NAS_LIKE_OPS = ("conv1x1-bn-relu", "conv3x3-bn-relu", "maxpool3x3")


def nas_like_space_objective(trial: optuna.Trial) -> float:
    """The NAS-Bench-101 substitute's search space (5 ops of 3 levels, 21 edge scores, an int)
    with a cheap synthetic value: overhead does not depend on what the objective computes."""
    ops = [trial.suggest_categorical(f"op_node_{i}", NAS_LIKE_OPS) for i in range(5)]
    edges = np.array([trial.suggest_float(f"edge_{i}", 0.0, 1.0) for i in range(21)])
    n_edges = trial.suggest_int("num_edges", 0, 9)
    return float(np.sum((edges - 0.3) ** 2) + ops.count("conv3x3-bn-relu") + 0.1 * n_edges)


CASES: dict[str, tuple[Callable[[optuna.Trial], float], str, int]] = {
    # name: (objective, direction, number of combinations)
    "func2c": (get_problem("func2c").objective, "minimize", 15),
    "func3c": (get_problem("func3c").objective, "minimize", 60),
    "nas_like_space": (nas_like_space_objective, "minimize", 243),
    "ackley5c": (get_problem("ackley5c").objective, "minimize", 17**5),
}


@dataclasses.dataclass(frozen=True)
class Measurement:
    case: str
    sampler: str
    n_trials: int
    median_seconds: float
    peak_memory_mib: float


def _prefilled(case: str, n_trials: int, seed: int) -> list[optuna.trial.FrozenTrial]:
    objective, direction, _ = CASES[case]
    study = optuna.create_study(direction=direction, sampler=optuna.samplers.RandomSampler(seed=seed))
    study.optimize(objective, n_trials=n_trials)
    return study.get_trials(deepcopy=True)


def measure(case: str, sampler_name: str, n_trials: int, window: int, seed: int = 0) -> Measurement:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    objective, direction, _ = CASES[case]
    sampler = TimedSampler(make_sampler(sampler_name, seed))
    study = optuna.create_study(direction=direction, sampler=sampler)
    study.add_trials(_prefilled(case, n_trials, seed))
    study.optimize(objective, n_trials=window)
    seconds = [sampler.seconds[t.number] for t in study.trials[n_trials:]]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    return Measurement(case, sampler_name, n_trials, statistics.median(seconds), peak)


def gemm_flops_per_second(size: int = 512, repeats: int = 5) -> float:
    """Single-thread double-precision GEMM speed of this machine (best of ``repeats``)."""
    import threadpoolctl

    a, b = np.random.default_rng(0).random((2, size, size))
    with threadpoolctl.threadpool_limits(1):
        best = min(_timed(lambda: a @ b) for _ in range(repeats))
    return 2.0 * size**3 / best


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def proposal_flops(case: str, n: int, n_candidates: int, max_combinations: int) -> float:
    """Floating-point work of one round of value proposals (see the module docstring)."""
    levels = {"func2c": [3, 5], "func3c": [3, 5, 4], "nas_like_space": [3] * 5, "ackley5c": [17] * 5}[case]
    n_combinations = min(CASES[case][2], max_combinations)
    solves = (sum(levels) + 1) * n * n * n_candidates
    assembly = n_combinations * n_candidates * n * (len(levels) + 2)
    return solves + assembly + n**3 / 3.0


def run_grid(
    cases: list[str], samplers: list[str], sizes: list[int], window: int, jobs: int
) -> list[Measurement]:
    context = multiprocessing.get_context("spawn")
    tasks = [(c, s, n) for c in cases for n in sizes for s in samplers]
    results: list[Measurement] = []
    # One process per measurement (max_tasks_per_child) so peak memory is the measurement's own.
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context, max_tasks_per_child=1) as pool:
        futures = [pool.submit(measure, c, s, n, window) for c, s, n in tasks]
        for future in futures:
            results.append(future.result())
            m = results[-1]
            print(f"{m.case} n={m.n_trials} {m.sampler}: {m.median_seconds:.4f} s, {m.peak_memory_mib:.0f} MiB", flush=True)
    return results


def overhead_table(results: list[Measurement], flops_per_second: float, n_candidates: int, max_combinations: int) -> str:
    """Markdown: per case and n, each sampler's median seconds, VPBO's ratios and floor."""
    samplers = sorted({m.sampler for m in results}, key=lambda s: (s != "vpbo", s))
    header = ["case", "n", *[f"{s} (s)" for s in samplers]]
    header += [f"{s} / vpbo" for s in samplers if s != "vpbo"] + ["vpbo peak MiB", "vpbo floor (s)", "vpbo / floor"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    by_key = {(m.case, m.n_trials, m.sampler): m for m in results}
    for case, n in sorted({(m.case, m.n_trials) for m in results}, key=lambda k: (list(CASES).index(k[0]), k[1])):
        row = [case, str(n)]
        times = {s: by_key[(case, n, s)].median_seconds for s in samplers if (case, n, s) in by_key}
        row += [f"{times[s]:.4f}" if s in times else "-" for s in samplers]
        vpbo = times.get("vpbo")
        row += [f"{times[s] / vpbo:.3g}" if vpbo and s in times else "-" for s in samplers if s != "vpbo"]
        floor = proposal_flops(case, n, n_candidates, max_combinations) / flops_per_second
        peak = by_key.get((case, n, "vpbo"))
        row += [f"{peak.peak_memory_mib:.0f}" if peak else "-", f"{floor:.4f}", f"{vpbo / floor:.1f}" if vpbo else "-"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)
