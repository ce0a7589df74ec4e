"""Figures of stored benchmark runs (paper sec. 5 and appendix C), as PNG files drawn with Agg.

Per problem (``<problem>_<kind>.png``):

- ``best``: the metric of :mod:`.report` (simple regret, log scale where it spans a decade or
  more, or the best value) against the iteration t = trial - 24, mean ± s.e. over the seeds,
  one line per sampler and the Oracle as a grey dotted line; t <= 0 is the initial design.
- ``init_ablation``: the same for the search-initialisation ablation, VPBO with search
  initialisation (``vpbo-v0``, solid) against a random initial design (``vpbo-v0-noinit``, dashed),
  and CoCaBO-S (``cocabo-s``) against CoCaBO-auto (``cocabo-auto``), whichever are stored.
- ``top5_arms``: for each sampler, the mean ± s.e. over seeds of the fraction of its trials
  after the initial design that pulled each of the 5 best arms.
- ``good_choices``: the frequency of good categorical choices over the iterations (see
  :func:`good_arms`), a trailing moving average over ``window`` iterations per seed, then
  mean ± s.e. over the seeds.

and ``top5_arm_pulls.png``, the top-5 fractions averaged over the problems (the paper's figure).

An arm is a combination of the categorical parameters' values. Its value is the best
first-objective value observed with it in any stored run of the problem: every sampler folder,
the requested ones or not, and the Oracle's runs. The Oracle's records keep only the incumbent
of each trial, not the best value of every combination, so they cannot rank the arms by
themselves; their incumbents count as observations like any other trial. Problems with more
than ``MAX_ARMS`` combinations get no arm figures.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import PIL.Image
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from vpbo_benchmarks.oracle import MAX_ORACLE_COMBINATIONS, ORACLE, categorical_combinations
from vpbo_benchmarks.problem import MINIMIZE, Problem
from vpbo_benchmarks.report import (
    N_INIT,
    ProblemRuns,
    Record,
    first_objective,
    iterations,
    mean_se_over_runs,
    metric_name,
    trace,
)

TOP_K = 5
GOOD_FRACTION = 0.95
SMOOTH_WINDOW = 10
MAX_ARMS = MAX_ORACLE_COMBINATIONS
LOG_SCALE_MIN_RATIO = 10.0  # a regret curve spanning at least a decade is drawn on a log axis
# (with search initialisation, with a random initial design)
# (the stored pair of VPBO runs is of the earliest defaults: vpbo-v0)
ABLATION_PAIRS = (("vpbo-v0", "vpbo-v0-noinit"), ("cocabo-s", "cocabo-auto"))
ABLATION_LABELS = {
    "vpbo-v0": "vpbo-v0 (VPBO-S, search init)",
    "vpbo-v0-noinit": "vpbo-v0-noinit (random init)",
    "cocabo-s": "cocabo-s (CoCaBO-S, search init)",
    "cocabo-auto": "cocabo-auto (random init)",
}
ORACLE_STYLE: dict[str, Any] = {"color": "0.4", "linestyle": ":", "linewidth": 2.0}
FIGSIZE = (7.0, 4.5)
DPI = 150

Arm = tuple[Any, ...]
Figures = list[tuple[Path, str]]


@dataclasses.dataclass(frozen=True)
class ArmValues:
    """The best first-objective value observed with each arm (combination of the categorical
    parameters ``names``)."""

    names: tuple[str, ...]
    best: dict[Arm, float]
    direction: str

    def arm(self, params: Mapping[str, Any]) -> Arm | None:
        return tuple(params[n] for n in self.names) if all(n in params for n in self.names) else None

    def ranked(self) -> list[Arm]:
        """Arms from best to worst."""
        sign = 1.0 if self.direction == MINIMIZE else -1.0
        return sorted(self.best, key=lambda arm: sign * self.best[arm])


def arm_values(records: Sequence[Record], names: Sequence[str], direction: str) -> ArmValues:
    """The best value of each arm over all trials of ``records`` (failed trials left out),
    including the Oracle's best trial per combination where a record stores them."""
    values = ArmValues(tuple(names), {}, direction)
    better = min if direction == MINIMIZE else max
    for record in records:
        oracle_best = [(b["params"], b["value"]) for b in record.get("combination_best", [])]
        for params, value in [*zip(record["params"], first_objective(record)), *oracle_best]:
            arm = values.arm(params)
            if arm is not None and not np.isnan(value):
                values.best[arm] = better(values.best.get(arm, value), float(value))
    return values


def good_arms(values: ArmValues, fraction: float = GOOD_FRACTION) -> set[Arm]:
    """The arms whose value is "within 95 % of the best" (``fraction`` = 0.95).

    With b* the best arm value, b_w the worst and b an arm's value, the arm is good when it
    gets at least ``fraction`` of the way from the worst arm to the best one:
    ``b_w - b >= fraction * (b_w - b*)`` when minimising, ``b - b_w >= fraction * (b* - b_w)``
    when maximising; that is, its gap to the best is at most 5 % of the range of the arm values.
    Unlike the ratio ``b >= 0.95 b*``, which only means "95 % of the best" for positive values
    being maximised (it reverses for negative values and for minimisation, and admits only
    b = b* when b* = 0), this holds in either direction, for any sign, and does not move when
    the objective is shifted or scaled. When all arms have the same value, all are good.
    """
    if not values.best:
        return set()
    sign = 1.0 if values.direction == MINIMIZE else -1.0
    scores = {arm: sign * v for arm, v in values.best.items()}
    best, worst = min(scores.values()), max(scores.values())
    return {arm for arm, s in scores.items() if s - best <= (1.0 - fraction) * (worst - best)}


def _post_initial_arms(record: Record, values: ArmValues, n_init: int) -> list[Arm | None]:
    return [values.arm(params) for params in record["params"][n_init:]]


def pull_fractions(record: Record, arms: Sequence[Arm], values: ArmValues, n_init: int = N_INIT) -> np.ndarray:
    """Fraction of the run's trials after the initial design that pulled each of ``arms``
    (NaN if the run has none)."""
    pulled = [arm for arm in _post_initial_arms(record, values, n_init) if arm is not None]
    if not pulled:
        return np.full(len(arms), np.nan)
    return np.array([sum(p == arm for p in pulled) / len(pulled) for arm in arms])


def good_choices(record: Record, good: set[Arm], values: ArmValues, n_init: int = N_INIT) -> np.ndarray:
    """1 where the trial at iteration t = 1, 2, .. pulled a good arm, 0 where not, NaN where the
    trial has no complete arm."""
    return np.array(
        [np.nan if arm is None else float(arm in good) for arm in _post_initial_arms(record, values, n_init)]
    )


def trailing_mean(series: np.ndarray, window: int) -> np.ndarray:
    """Mean over the last ``window`` points up to each point (fewer at the start; NaN left out)."""
    valid = ~np.isnan(series)
    sums = np.concatenate([[0.0], np.cumsum(np.where(valid, series, 0.0))])
    counts = np.concatenate([[0], np.cumsum(valid)])
    end = np.arange(1, len(series) + 1)
    start = np.maximum(end - window, 0)
    n = counts[end] - counts[start]
    return np.where(n > 0, (sums[end] - sums[start]) / np.maximum(n, 1), np.nan)


def categorical_names(problem: Problem) -> tuple[str, ...]:
    """The problem's categorical parameters (from one evaluated trial, see ``oracle``)."""
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        combinations = categorical_combinations(problem)
    finally:
        optuna.logging.set_verbosity(verbosity)
    return tuple(combinations[0]) if combinations else ()


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def palette(names: Sequence[str]) -> dict[str, Any]:
    """A fixed colour per sampler for every figure of one report."""
    unique = list(dict.fromkeys(n for n in names if n != ORACLE))
    return {name: f"C{i}" if len(unique) <= 10 else _tab20(i) for i, name in enumerate(unique)}


def _tab20(index: int) -> tuple[float, ...]:
    return colormaps["tab20"](index % 20)


def _new_figure() -> tuple[Figure, Axes]:
    figure = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()


def _save(figure: Figure, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    save_compact_png(figure, path, dpi=DPI)


def save_compact_png(figure: Figure, path: Path, dpi: float) -> None:
    """The figure as a 256-colour palette PNG: line plots lose nothing visible, and the stored
    figures take about a third of the space of RGBA ones (docs/decisions.md)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    buffer.seek(0)
    with PIL.Image.open(buffer) as image:
        palette = image.convert("RGB").quantize(colors=256, method=PIL.Image.Quantize.MEDIANCUT)
        palette.save(path, format="PNG", optimize=True)


def _title(entry: ProblemRuns, what: str) -> str:
    objective = ", first objective" if entry.multi_objective else ""
    return f"{entry.problem.name}: {what}{objective}"


def _band(axes: Axes, x: np.ndarray, mean: np.ndarray, se: np.ndarray, colour: Any, floor: float = -np.inf) -> None:
    """The mean ± s.e. band (no band where the s.e. is NaN), its lower edge at least ``floor``."""
    se = np.nan_to_num(se)
    axes.fill_between(x, np.maximum(mean - se, floor), mean + se, color=colour, alpha=0.15, linewidth=0)


def _bars(axes: Axes, group: int, n_groups: int, mean: np.ndarray, se: np.ndarray, colour: Any, label: str) -> None:
    """Bar ``group`` of ``n_groups`` side by side at each x = 0, 1, .., with s.e. error bars."""
    width = 0.8 / max(n_groups, 1)
    x = np.arange(len(mean)) + (group - (n_groups - 1) / 2) * width
    axes.bar(x, mean, width, yerr=np.nan_to_num(se), color=colour, label=label, capsize=2)


def _iteration_axis(axes: Axes, n_init: int) -> None:
    axes.axvline(0, color="0.7", linewidth=1.0, zorder=0)
    axes.set_xlabel(f"iteration t = trial − {n_init}  (t ≤ 0: initial design, left of the grey line)")


def _draw_curves(
    axes: Axes, entry: ProblemRuns, curves: Sequence[tuple[str, list[Record], dict[str, Any]]], n_init: int
) -> None:
    """Mean ± s.e. of the metric per curve (label, runs, line style); log axis where it helps."""
    drawn = []
    for label, records, style in curves:
        mean, se, _ = mean_se_over_runs([trace(r, entry.problem) for r in records])
        x = iterations(len(mean), n_init)
        axes.plot(x, mean, label=f"{label} ({len(records)} seeds)", **style)
        drawn.append((x, mean, se, style))
    positive = np.concatenate([m[m > 0] for _, m, _, _ in drawn]) if drawn else np.array([])
    log = (
        entry.problem.optimum is not None
        and positive.size > 0
        and positive.max() / positive.min() >= LOG_SCALE_MIN_RATIO
    )
    floor = positive.min() / 2 if log else -np.inf
    for x, mean, se, style in drawn:
        _band(axes, x, mean, se, style.get("color"), floor)
    if log:
        has_zero = any(np.any(m == 0) for _, m, _, _ in drawn)
        axes.set_yscale("symlog", linthresh=positive.min()) if has_zero else axes.set_yscale("log")
        axes.set_ylim(bottom=0 if has_zero else floor)
    scale = " (log scale)" if log else ""
    axes.set_ylabel(f"{metric_name(entry.problem)}{scale}")
    _iteration_axis(axes, n_init)
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(fontsize="small")


def plot_best(entry: ProblemRuns, path: Path, colours: Mapping[str, Any], n_init: int = N_INIT) -> str:
    curves = [(s, records, {"color": colours[s], "linewidth": 1.5}) for s, records in entry.runs.items()]
    if entry.oracle:
        curves.append(("Oracle", entry.oracle, ORACLE_STYLE))
    figure, axes = _new_figure()
    _draw_curves(axes, entry, curves, n_init)
    axes.set_title(_title(entry, f"{metric_name(entry.problem)}, mean ± s.e. over seeds"))
    _save(figure, path)
    oracle = ", Oracle grey dotted" if entry.oracle else ", no Oracle stored"
    return f"{entry.problem.name}: best-so-far {metric_name(entry.problem)} against iteration{oracle}."


def plot_ablation(entry: ProblemRuns, path: Path, colours: Mapping[str, Any], n_init: int = N_INIT) -> str | None:
    """The search-initialisation ablation, or None when no pair is stored complete."""
    if not any(all(s in entry.stored for s in pair) for pair in ABLATION_PAIRS):
        return None
    curves = []
    for pair in ABLATION_PAIRS:
        colour = colours.get(pair[0], colours.get(pair[1]))
        for sampler, linestyle in zip(pair, ("-", "--")):
            if sampler in entry.stored:
                style = {"color": colour, "linestyle": linestyle, "linewidth": 1.5}
                curves.append((ABLATION_LABELS[sampler], entry.stored[sampler], style))
    figure, axes = _new_figure()
    _draw_curves(axes, entry, curves, n_init)
    axes.set_title(_title(entry, "search initialisation ablation (solid: search init)"))
    _save(figure, path)
    return f"{entry.problem.name}: search initialisation (solid) against a random initial design (dashed)."


def _ranking_source(entry: ProblemRuns) -> str:
    return "best observed value, all runs" + (" incl. Oracle" if entry.oracle else "")


def plot_top_arms(
    entry: ProblemRuns, path: Path, values: ArmValues, colours: Mapping[str, Any], n_init: int = N_INIT
) -> dict[str, np.ndarray]:
    """Grouped bars of the pull fractions of the top arms; returns each sampler's mean fractions."""
    arms = values.ranked()[:TOP_K]
    means = {}
    figure, axes = _new_figure()
    for i, (sampler, records) in enumerate(entry.runs.items()):
        mean, se, _ = mean_se_over_runs([pull_fractions(r, arms, values, n_init) for r in records])
        means[sampler] = mean
        _bars(axes, i, len(entry.runs), mean, se, colours[sampler], sampler)
    axes.set_xticks(np.arange(len(arms)), [f"#{k + 1} {arm}\n{values.best[arm]:.3g}" for k, arm in enumerate(arms)])
    axes.set_xlabel(f"arm ({', '.join(values.names)}) and its best value ({_ranking_source(entry)})")
    axes.set_ylabel(f"fraction of trials {n_init + 1}.. pulling the arm")
    axes.set_title(_title(entry, f"top-{TOP_K} arms ranked by {_ranking_source(entry)}"), fontsize="medium")
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize="small")
    _save(figure, path)
    return means


def plot_top_arms_overall(means: Mapping[str, Mapping[str, np.ndarray]], path: Path, colours: Mapping[str, Any]) -> str:
    """The paper's figure: per sampler, the pull fraction of the k-th best arm averaged over the
    problems (``means``: problem -> sampler -> fractions), ± s.e. over the problems."""
    samplers = list(dict.fromkeys(s for per_problem in means.values() for s in per_problem))
    figure, axes = _new_figure()
    for i, sampler in enumerate(samplers):
        mean, se, count = mean_se_over_runs([m[sampler] for m in means.values() if sampler in m])
        _bars(axes, i, len(samplers), mean, se, colours[sampler], f"{sampler} (n={count.max()} problems)")
    axes.set_xticks(np.arange(TOP_K), [f"#{k + 1}" for k in range(TOP_K)])
    axes.set_xlabel("rank of the arm in its problem (by best observed value, all runs)")
    axes.set_ylabel("fraction of trials after the initial design")
    axes.set_title(f"Top {TOP_K} average best arm pull frequency over {len(means)} problems")
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize="small")
    _save(figure, path)
    return f"top-{TOP_K} arm pull fractions averaged over {', '.join(means)} (± s.e. over the problems)."


def plot_good_choices(
    entry: ProblemRuns,
    path: Path,
    values: ArmValues,
    colours: Mapping[str, Any],
    n_init: int = N_INIT,
    window: int = SMOOTH_WINDOW,
) -> str:
    good = good_arms(values)
    figure, axes = _new_figure()
    for sampler, records in entry.runs.items():
        smoothed = [trailing_mean(good_choices(r, good, values, n_init), window) for r in records]
        mean, se, _ = mean_se_over_runs(smoothed)
        t = np.arange(1, len(mean) + 1)
        axes.plot(t, mean, color=colours[sampler], linewidth=1.5, label=f"{sampler} ({len(records)} seeds)")
        _band(axes, t, mean, se, colours[sampler])
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel(f"iteration t = trial − {n_init} (after the initial design)")
    axes.set_ylabel(f"frequency of a good arm (trailing mean, {window} iterations)")
    what = f"good choices: {len(good)} of {len(values.best)} arms {GOOD_FRACTION:.0%} of the way from worst to best"
    axes.set_title(_title(entry, what), fontsize="medium")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    _save(figure, path)
    arms = ", ".join(str(arm) for arm in sorted(good, key=str))
    return (
        f"{entry.problem.name}: frequency of pulling a good arm (gap to the best arm at most "
        f"{1 - GOOD_FRACTION:.0%} of the range of the arms' values, by {_ranking_source(entry)}: {arms}), "
        f"trailing mean over {window} iterations, mean ± s.e. over seeds."
    )


def write_figures(
    collected: Sequence[ProblemRuns],
    out_dir: Path,
    samplers: Sequence[str],
    notes: list[str],
    n_init: int = N_INIT,
    window: int = SMOOTH_WINDOW,
) -> Figures:
    """Write every figure into ``out_dir``; return (path, caption) pairs. What cannot be drawn
    is left out with a note."""
    stored = sorted({s for entry in collected for s in entry.stored})
    colours = palette([*samplers, *(s for pair in ABLATION_PAIRS for s in pair), *stored])
    figures: Figures = []
    top_means: dict[str, dict[str, np.ndarray]] = {}
    for entry in collected:
        name = entry.problem.name
        if entry.runs or entry.oracle:
            path = out_dir / f"{name}_best.png"
            figures.append((path, plot_best(entry, path, colours, n_init)))
        path = out_dir / f"{name}_init_ablation.png"
        caption = plot_ablation(entry, path, colours, n_init)
        if caption is None:
            pairs = "; ".join(" vs ".join(p) for p in ABLATION_PAIRS)
            notes.append(f"{name}: no search-initialisation pair ({pairs}) stored, no ablation figure.")
        else:
            figures.append((path, caption))
        values = _arm_values(entry, notes)
        if values is None or not entry.runs:
            continue
        path = out_dir / f"{name}_top5_arms.png"
        top_means[name] = plot_top_arms(entry, path, values, colours, n_init)
        what = f"fraction of the trials after the initial design that pulled each of the top-{TOP_K} arms"
        figures.append((path, f"{name}: {what} ({_ranking_source(entry)})."))
        path = out_dir / f"{name}_good_choices.png"
        figures.append((path, plot_good_choices(entry, path, values, colours, n_init, window)))
    if len(top_means) > 1:
        path = out_dir / "top5_arm_pulls.png"
        figures.append((path, plot_top_arms_overall(top_means, path, colours)))
    return figures


def _arm_values(entry: ProblemRuns, notes: list[str]) -> ArmValues | None:
    name = entry.problem.name
    if entry.problem.n_combinations > MAX_ARMS:
        notes.append(f"{name}: {entry.problem.n_combinations} combinations (> {MAX_ARMS}), no arm figures.")
        return None
    names = categorical_names(entry.problem)
    if not names:
        notes.append(f"{name}: no categorical parameters, no arm figures.")
        return None
    records = [r for runs in entry.stored.values() for r in runs]
    return arm_values(records, names, entry.problem.directions[0])
