"""Sampler overhead per trial (objective excluded) at a given number of trials n.

A study is pre-filled with n random trials (RandomSampler, real objective values), copied into a
fresh in-memory study per sampler, and the sampler's own time is measured over a window of
further trials. Reported per trial of the window: the median, the mean including refits, the
95th percentile and the maximum (the first trial of the window fits VPBO's hyperparameters from
scratch: the study's trials came from another sampler); then the first trial of a new sampler
object on the same study (``restart_cpu_seconds``: a new process on an existing study, which for
VPBO reads the fit the window stored in the study). Each
(case, sampler) runs in its own process held to one thread, so its peak resident memory is its
own, and its CPU time is the sampler's work even on a machine shared with other jobs (the wall
clock is recorded too).

The floor is the floating-point work of VPBO's value proposals at that size (with the points the
GP keeps, at most ``GP_MAX_POINTS``), divided by the machine's measured single-thread GEMM speed.
Per candidate: the pieces, K_x by a triangular solve (n^2 flops), the levels of the variable the
training points are grouped by (less one, derived) by solves of their trailing rows, and every other
variable's levels (less one) as products with their columns of L^-1 (2 n n / L flops each; a
two-level variable by a solve); then per combination n (k + 2) flops to assemble its posterior, or,
with many combinations (``gram_pays``, as native/combination_posterior.cpp decides), the Gram
matrix of the m pieces (n m (m + 1) flops) and (k + 1)(k + 2) / 2 per combination; and the
Cholesky of the GP (n^3 / 3). Spaces of more than ``SCREEN_ABOVE`` combinations count both
stages: all combinations on ``N_SCREEN_CANDIDATES`` candidates, then the shortlist on all S.

Results are stored as one JSON file (``OVERHEAD_FILE``) so that the table and the figures
(time per trial against n per case, and against the number of combinations C at one n) can be
regenerated without measuring again.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import multiprocessing
import resource
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import threadpoolctl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from optuna.trial import BaseTrial

from optuna_vpbo.gp import GP_MAX_POINTS, N_NEIGHBOUR_SEEDS, N_SCREEN_CANDIDATES, N_SCREENED, N_SEED_TRIALS, SCREEN_ABOVE
from vpbo_benchmarks.plots import save_compact_png
from vpbo_benchmarks.problem import Direction, single_objective
from vpbo_benchmarks.registry import get_problem
from vpbo_benchmarks.runner import environment, single_threaded
from vpbo_benchmarks.samplers import TimedSampler, make_sampler

# Long enough to include refits of a long study (every 5 % of growth beyond 300 trials).
DEFAULT_WINDOW = 21
OVERHEAD_FILE = "overhead.json"
# GPSampler's time grows fast with n (0.5 to 1.8 s per trial at n = 500 here): larger sizes are
# skipped.
DEFAULT_GP_MAX_TRIALS = 1000
# The n of the time-against-C figure.
FIGURE_N = 200
NAS_LIKE_OPS = ("conv1x1-bn-relu", "conv3x3-bn-relu", "maxpool3x3")


def nas_like_space_objective(trial: BaseTrial) -> float:
    """The NAS-Bench-101 substitute's search space (5 ops of 3 levels, 21 edge scores, an int)
    with a cheap synthetic value: overhead does not depend on what the objective computes."""
    ops = [trial.suggest_categorical(f"op_node_{i}", NAS_LIKE_OPS) for i in range(5)]
    edges = np.array([trial.suggest_float(f"edge_{i}", 0.0, 1.0) for i in range(21)])
    n_edges = trial.suggest_int("num_edges", 0, 9)
    return float(np.sum((edges - 0.3) ** 2) + ops.count("conv3x3-bn-relu") + 0.1 * n_edges)


def three_quarters_pruned(objective: Callable[[BaseTrial], float]) -> Callable[[BaseTrial], float]:
    """``objective`` with three trials in four pruned after one report (the trial-states
    case: the model then holds imputed values of pruned trials)."""

    def pruned_objective(trial: BaseTrial) -> float:
        value = objective(trial)
        trial.report(value + 0.1 * abs(value), 0)
        if trial.number % 4:
            raise optuna.TrialPruned()
        return value

    return pruned_objective


# Issue 28's time target: curves of at least 20 steps, three trials in four pruned.
CURVE_STEPS = 30
MIN_PRUNED_STEPS = 20


def learning_curves(objective: Callable[[BaseTrial], float], pruned: bool) -> Callable[[BaseTrial], float]:
    """``objective`` as a learning curve of ``CURVE_STEPS`` reports (value (1 + 1/step) at each);
    with ``pruned``, three trials in four are pruned after ``MIN_PRUNED_STEPS`` to
    ``CURVE_STEPS - 1`` reports (by trial number), so that the model reads pruned curves at many
    steps."""

    def curve_objective(trial: BaseTrial) -> float:
        value = objective(trial)
        spread = CURVE_STEPS - MIN_PRUNED_STEPS
        last = MIN_PRUNED_STEPS + trial.number % spread if pruned and trial.number % 4 else CURVE_STEPS
        for step in range(1, last + 1):
            trial.report(value + abs(value) / step, step)
        if last < CURVE_STEPS:
            raise optuna.TrialPruned()
        return value

    return curve_objective


CASES: dict[str, tuple[Callable[[BaseTrial], float], Direction, list[int]]] = {
    # name: (objective, direction, levels of the categorical parameters)
    "func2c": (single_objective(get_problem("func2c")), "minimize", [3, 5]),
    "func2c_pruned": (three_quarters_pruned(single_objective(get_problem("func2c"))), "minimize", [3, 5]),
    "func2c_curves": (learning_curves(single_objective(get_problem("func2c")), pruned=False), "minimize", [3, 5]),
    "func2c_curves_pruned": (learning_curves(single_objective(get_problem("func2c")), pruned=True), "minimize", [3, 5]),
    "func3c": (single_objective(get_problem("func3c")), "minimize", [3, 5, 4]),
    "nas_like_space": (nas_like_space_objective, "minimize", [3] * 5),
    "ackley5c": (single_objective(get_problem("ackley5c")), "minimize", [17] * 5),
    "ackley53": (single_objective(get_problem("ackley53")), "minimize", [2] * 50),
}
CASE_LABELS = {
    "func2c": "Func2C",
    "func2c_pruned": "Func2C, 3 in 4 trials pruned",
    "func2c_curves": f"Func2C, {CURVE_STEPS}-step curves",
    "func2c_curves_pruned": f"Func2C, {CURVE_STEPS}-step curves, 3 in 4 pruned after {MIN_PRUNED_STEPS}-{CURVE_STEPS - 1}",
    "func3c": "Func3C",
    "nas_like_space": "NAS-like (22 numeric)",
    "ackley5c": "Ackley-5C",
    "ackley53": "Ackley-53 (50 binary, 3 floats)",
}
SAMPLER_LABELS = {"vpbo": "VPBOSampler", "gp": "GPSampler", "tpe": "TPESampler"}


def n_combinations(case: str) -> int:
    return int(np.prod(CASES[case][2]))


@dataclasses.dataclass(frozen=True)
class Measurement:
    case: str
    sampler: str
    n_trials: int
    median_seconds: float  # wall clock
    median_cpu_seconds: float  # CPU time of the (one-thread) process
    peak_memory_mib: float
    seconds: list[float]  # every trial of the window, wall clock
    cpu_seconds: list[float]
    # The first trial of a new sampler object on the study after the window (None: not measured).
    restart_cpu_seconds: float | None = None

    @property
    def mean_cpu_seconds(self) -> float:
        return statistics.fmean(self.cpu_seconds)

    @property
    def p95_cpu_seconds(self) -> float:
        return float(np.percentile(self.cpu_seconds, 95))

    @property
    def max_cpu_seconds(self) -> float:
        return max(self.cpu_seconds)


class CpuTimedSampler(TimedSampler):
    """A TimedSampler that also adds up the process's CPU time per trial. On a shared machine the
    wall clock also counts the time other processes hold the cores; the CPU time of a process
    held to one thread does not."""

    def __init__(self, inner: optuna.samplers.BaseSampler) -> None:
        super().__init__(inner)
        self.cpu_seconds: defaultdict[int, float] = defaultdict(float)

    def _timed(self, trial_number: int, call: Callable[[], Any]) -> Any:
        start = time.process_time()
        try:
            return super()._timed(trial_number, call)
        finally:
            self.cpu_seconds[trial_number] += time.process_time() - start


def _prefilled(case: str, n_trials: int, seed: int) -> list[optuna.trial.FrozenTrial]:
    objective, direction, _ = CASES[case]
    study = optuna.create_study(direction=direction, sampler=optuna.samplers.RandomSampler(seed=seed))
    study.optimize(objective, n_trials=n_trials)
    return study.get_trials(deepcopy=True)


def measure(case: str, sampler_name: str, n_trials: int, window: int, seed: int = 0) -> Measurement:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    objective, direction, _ = CASES[case]
    sampler = CpuTimedSampler(make_sampler(sampler_name, seed))
    study = optuna.create_study(direction=direction, sampler=sampler)
    study.add_trials(_prefilled(case, n_trials, seed))
    study.optimize(objective, n_trials=window)
    numbers = [t.number for t in study.trials[n_trials:]]
    seconds = [sampler.seconds[i] for i in numbers]
    cpu_seconds = [sampler.cpu_seconds[i] for i in numbers]
    # A new process on the existing study: a new sampler object (empty model cache), same storage.
    restarted = CpuTimedSampler(make_sampler(sampler_name, seed + 1))
    study.sampler = restarted
    study.optimize(objective, n_trials=1)
    restart = restarted.cpu_seconds[study.trials[-1].number]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    return Measurement(
        case, sampler_name, n_trials, statistics.median(seconds), statistics.median(cpu_seconds), peak, seconds, cpu_seconds,
        restart,
    )


def gemm_flops_per_second(size: int = 512, repeats: int = 5) -> float:
    """Single-thread double-precision GEMM speed of this machine (best of ``repeats``)."""
    a, b = np.random.default_rng(0).random((2, size, size))
    with threadpoolctl.threadpool_limits(1):
        best = min(_timed(lambda: a @ b) for _ in range(repeats))
    return 2.0 * size**3 / best


def _timed(call: Callable[[], object]) -> float:
    """CPU seconds of ``call`` (one thread), like the samplers' times."""
    start = time.process_time()
    call()
    return time.process_time() - start


# native/combination_posterior.cpp's rule for the Gram matrices (kMinGramCombinations, kGramProductSpeedup).
MIN_GRAM_COMBINATIONS = 64
GRAM_PRODUCT_SPEEDUP = 8.0


def gram_pays(n_combinations: int, k: int, n_slots: int) -> bool:
    """Whether the native sweep takes the variances from the pieces' Gram matrices."""
    return n_combinations >= MIN_GRAM_COMBINATIONS and GRAM_PRODUCT_SPEEDUP * n_combinations * (k + 2) >= n_slots**2 / 2


def proposal_flops(case: str, n: int, n_candidates: int, max_combinations: int) -> float:
    """Floating-point work of one round of value proposals (see the module docstring) with the
    points the GP keeps (at most ``GP_MAX_POINTS`` of the n at a rebuild)."""
    n = min(n, GP_MAX_POINTS)
    levels = CASES[case][2]
    k = len(levels)
    n_slots = 1 + sum(levels)
    # The grouped variable (the most levels, L of them, equally frequent): level a solves only the
    # last (1 - a / L) n rows; the others' levels are products, or one solve for two levels.
    grouped = max(levels)
    others = list(levels)
    others.remove(grouped)
    grouped_solves = sum((1 - a / grouped) ** 2 for a in range(1, grouped))
    products = sum(2 * (n_levels - 1) / n_levels if n_levels > 2 else 1.0 for n_levels in others)
    pieces_per_candidate = (1 + grouped_solves + products) * n * n
    n_all = n_combinations(case)
    if n_all > max_combinations:
        # A sample of combinations plus the best trials and their one-change neighbours.
        n_all = max_combinations + N_SEED_TRIALS * (1 + sum(levels) - k)

    def stage(n_comb: int, s: int) -> float:
        if gram_pays(n_comb, k, n_slots):
            return (pieces_per_candidate + n * n_slots * (n_slots + 1)) * s + n_comb * s * (k + 1) * (k + 2) / 2
        return pieces_per_candidate * s + n_comb * s * n * (k + 2)

    if n_all <= SCREEN_ABOVE:
        proposals = stage(n_all, n_candidates)
    else:
        shortlist = min(n_all, N_SCREENED + N_NEIGHBOUR_SEEDS * (sum(levels) - k))
        proposals = stage(n_all, N_SCREEN_CANDIDATES) + stage(shortlist, n_candidates)
    return proposals + n**3 / 3.0


def run_grid(
    cases: list[str], samplers: list[str], sizes: list[int], window: int, jobs: int, gp_max_trials: int
) -> list[Measurement]:
    context = multiprocessing.get_context("spawn")
    tasks = [(c, s, n) for c in cases for n in sizes for s in samplers if s != "gp" or n <= gp_max_trials]
    results: list[Measurement] = []
    # One process per measurement (max_tasks_per_child) so peak memory is the measurement's own;
    # one thread per process (BLAS and PyTorch), as the runs of the benchmarks.
    if sys.version_info < (3, 11):
        raise RuntimeError("the overhead measurement needs Python 3.11 or later (ProcessPoolExecutor's max_tasks_per_child)")
    with concurrent.futures.ProcessPoolExecutor(
        jobs, mp_context=context, max_tasks_per_child=1, initializer=single_threaded
    ) as pool:
        futures = [pool.submit(measure, c, s, n, window) for c, s, n in tasks]
        for future in futures:
            results.append(future.result())
            m = results[-1]
            print(
                f"{m.case} n={m.n_trials} {m.sampler}: CPU s median {m.median_cpu_seconds:.4f}, mean {m.mean_cpu_seconds:.4f}, "
                f"p95 {m.p95_cpu_seconds:.4f}, max {m.max_cpu_seconds:.4f}, restart {m.restart_cpu_seconds:.4f}; "
                f"{m.median_seconds:.4f} s wall, {m.peak_memory_mib:.0f} MiB",
                flush=True,
            )
    return results


def save_results(
    path: Path, results: Sequence[Measurement], flops_per_second: float, n_candidates: int, max_combinations: int
) -> None:
    """The measurements with what the table needs (GEMM speed, VPBO settings) and the machine."""
    record = {
        "gemm_flops_per_second": flops_per_second,
        "n_candidates": n_candidates,
        "max_enumerated_combinations": max_combinations,
        "environment": environment(),
        "measurements": [dataclasses.asdict(m) for m in results],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1))


def load_results(path: Path) -> tuple[list[Measurement], dict[str, Any]]:
    """The measurements of ``save_results`` and the rest of its record."""
    record = json.loads(path.read_text())
    return [Measurement(**m) for m in record.pop("measurements")], record


def overhead_table(results: list[Measurement], flops_per_second: float, n_candidates: int, max_combinations: int) -> str:
    """Markdown: per case, n and sampler, CPU seconds per trial over the window (median, mean
    including refits, 95th percentile, maximum), the first trial of a restart on the study, peak
    memory, the wall-clock median, and VPBO's floor (its proposals' flops at GEMM speed)."""
    header = ["case", "C", "n", "sampler", "median (s)", "mean incl. refits (s)", "p95 (s)", "max (s)", "restart 1st trial (s)"]
    header += ["peak MiB", "wall median (s)", "floor (s)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    sampler_order = sorted({m.sampler for m in results}, key=lambda s: (s != "vpbo", s))
    for m in sorted(results, key=lambda m: (list(CASES).index(m.case), m.n_trials, sampler_order.index(m.sampler))):
        restart = f"{m.restart_cpu_seconds:.4g}" if m.restart_cpu_seconds is not None else "-"
        floor = proposal_flops(m.case, m.n_trials, n_candidates, max_combinations) / flops_per_second
        row = [CASE_LABELS[m.case], f"{n_combinations(m.case):,}", str(m.n_trials), SAMPLER_LABELS.get(m.sampler, m.sampler)]
        row += [f"{v:.4g}" for v in (m.median_cpu_seconds, m.mean_cpu_seconds, m.p95_cpu_seconds, m.max_cpu_seconds)]
        row += [restart, f"{m.peak_memory_mib:.0f}", f"{m.median_seconds:.4g}", f"{floor:.2g}" if m.sampler == "vpbo" else ""]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def write_figures(results: Sequence[Measurement], folder: Path, prefix: str = "overhead") -> list[Path]:
    """``<prefix>_vs_n.png`` (mean time per trial including refits, and the slowest trial,
    against n, one panel per case, log-log) and ``<prefix>_vs_c.png`` (median against the
    number of combinations at n = ``FIGURE_N``, when measured)."""
    folder.mkdir(parents=True, exist_ok=True)
    samplers = sorted({m.sampler for m in results}, key=lambda s: (s != "vpbo", s))
    markers = dict(zip(samplers, "osd^v"))
    paths = [_figure_against_n(results, samplers, markers, folder / f"{prefix}_vs_n.png")]
    if len({m.case for m in results if m.n_trials == FIGURE_N}) > 1:
        paths.append(_figure_against_c(results, samplers, markers, folder / f"{prefix}_vs_c.png"))
    return paths


def _figure_against_n(results: Sequence[Measurement], samplers: list[str], markers: dict[str, str], path: Path) -> Path:
    cases = [c for c in CASES if any(m.case == c for m in results)]
    figure = Figure(figsize=(3.6 * len(cases), 3.4), layout="constrained")
    FigureCanvasAgg(figure)
    axes_row = figure.subplots(1, len(cases), sharey=True, squeeze=False)[0]
    for axes, case in zip(axes_row, cases):
        for sampler in samplers:
            own = sorted((m for m in results if m.case == case and m.sampler == sampler), key=lambda m: m.n_trials)
            if not own:
                continue
            n = [m.n_trials for m in own]
            line = axes.plot(
                n, [m.mean_cpu_seconds for m in own], marker=markers[sampler],
                label=f"{SAMPLER_LABELS.get(sampler, sampler)} mean",
            )
            axes.plot(n, [m.max_cpu_seconds for m in own], marker=markers[sampler], linestyle=":", fillstyle="none",
                      color=line[0].get_color(), label=f"{SAMPLER_LABELS.get(sampler, sampler)} max")
        axes.set(xscale="log", yscale="log", xlabel="trials n", title=f"{CASE_LABELS[case]}, C = {n_combinations(case):,}")
        axes.grid(True, which="both", alpha=0.3)
    axes_row[0].set_ylabel("sampler CPU time per trial (s)")
    axes_row[0].legend(fontsize=7)
    save_compact_png(figure, path, dpi=110)
    return path


def _figure_against_c(results: Sequence[Measurement], samplers: list[str], markers: dict[str, str], path: Path) -> Path:
    figure = Figure(figsize=(4.5, 3.4), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    for sampler in samplers:
        points = sorted(
            (n_combinations(m.case), m.median_cpu_seconds) for m in results if m.sampler == sampler and m.n_trials == FIGURE_N
        )
        if points:
            axes.plot(*zip(*points), marker=markers[sampler], label=SAMPLER_LABELS.get(sampler, sampler))
    for m in results:
        if m.sampler == "vpbo" and m.n_trials == FIGURE_N:
            # The cases differ in more than C (numeric dimensions, levels): name them.
            axes.annotate(CASE_LABELS[m.case].split(" (")[0], (n_combinations(m.case), m.median_cpu_seconds),
                          fontsize=7, xytext=(4, -10), textcoords="offset points")
    axes.set(
        xscale="log",
        yscale="log",
        xlabel="categorical combinations C",
        ylabel="median sampler CPU time per trial (s)",
        title=f"n = {FIGURE_N} trials",
    )
    axes.grid(True, which="both", alpha=0.3)
    if axes.lines:
        axes.legend(loc="center right", fontsize=8)
    save_compact_png(figure, path, dpi=110)
    return path
