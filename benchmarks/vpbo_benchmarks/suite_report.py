"""Report of the broad suite: ``python -m vpbo_benchmarks report --sections suite``.

Definitions (docs/suite.md repeats them):

- Checkpoints are trial numbers counted from 1, the initial design included (trial 25 is the
  25th evaluation of every sampler, whatever its own initial design).
- Metric at trial t: the simple regret of the incumbent, ``value(incumbent) - optimum``, where
  the incumbent is the trial with the best *observed* value among trials 1..t (the first such
  trial on ties) and ``value`` its noiseless value where the problem is noisy (the record's
  ``noiseless`` list), else its observed value. Without a known optimum the metric is the
  incumbent's value. Every suite problem is minimised; a maximised problem (``--problems`` with
  the paper suite) is read in loss terms, its first objective negated, so that lower is better
  everywhere. Failed trials are never incumbents.
- Per (problem, sampler, checkpoint): the mean over seeds with its standard error
  (sample standard deviation / sqrt(n)), and the 90th-percentile seed: the m-th smallest
  metric, m = floor(0.9 n + 0.5) (for n = 10 the 9th of 10, for n = 20 the 18th), with the
  Maritz-Jarrett standard error of that order statistic (as scipy.stats.mstats.mjci).
- Paired one-sided test of the reference sampler against each peer: Wilcoxon signed-rank on the
  differences reference - peer of the seeds both have (paired by seed number), alternative
  "less" (the reference has the lower metric); scipy's exact distribution for small n, zero
  differences dropped (``zero_method="wilcox"``), p = 1 where every difference is 0.
- Stuck seed: a run in which, for more than ``stuck_trials`` (50) consecutive trials, the
  incumbent's combination (the values of the problem's combination keys present in its
  parameters) is one and the same wrong combination. A combination is wrong when its best value
  exceeds the best over all combinations by more than 1 % of the range of the combination bests.
  A combination's best value is known where the problem states it (every synthetic problem);
  otherwise it is the best observed value of that combination in any stored run of the problem.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution
from scipy.stats import beta, wilcoxon

from vpbo_benchmarks.markdown import format_value, markdown_table
from vpbo_benchmarks.problem import MAXIMIZE, single_objective
from vpbo_benchmarks.records import load_problem
from vpbo_benchmarks.registry import GROUPS, SPECS, get_problem
from vpbo_benchmarks.specs import SuiteSpec, combination_of

SUITE_CHECKPOINTS = (25, 50, 100, 200)
TAIL_QUANTILE = 0.9
STUCK_TRIALS = 50
WRONG_FRACTION = 0.01  # a combination is wrong beyond 1 % of the range of the combination bests
DEFAULT_REFERENCE = "vpbo"

Record = dict[str, Any]


# --------------------------------------------------------------------------------------------
# Traces
# --------------------------------------------------------------------------------------------


def observed_values(record: Record) -> np.ndarray:
    """First-objective observed value per trial; NaN for failed trials."""
    return np.array([v[0] if v else math.nan for v in record["values"]], dtype=float)


def incumbent_indices(observed: np.ndarray) -> np.ndarray:
    """Index of the incumbent (best observed so far, first on ties) after each trial; -1 before
    the first successful trial."""
    result = np.full(len(observed), -1, dtype=int)
    best, best_index = math.inf, -1
    for i, v in enumerate(observed):
        if not math.isnan(v) and v < best:
            best, best_index = v, i
        result[i] = best_index
    return result


def metric_trace(record: Record, optimum: float | None) -> np.ndarray:
    """The metric after each trial (see the module docstring); NaN before the first success."""
    observed = observed_values(record)
    true_values = record.get("noiseless")
    values = observed if true_values is None else np.array(
        [math.nan if v is None else v for v in true_values], dtype=float
    )
    incumbents = incumbent_indices(observed)
    trace = np.where(incumbents >= 0, values[np.maximum(incumbents, 0)], math.nan)
    return trace if optimum is None else np.maximum(trace - optimum, 0.0)


def metric_at(records: Sequence[Record], optimum: float | None, trial: int) -> dict[int, float]:
    """{seed: metric at trial number ``trial``} over the runs that reach it."""
    out = {}
    for r in records:
        trace = metric_trace(r, optimum)
        if len(trace) >= trial and not math.isnan(trace[trial - 1]):
            out[int(r["seed"])] = float(trace[trial - 1])
    return out


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------


def mean_and_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error (ddof = 1); the error is NaN below two values."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return math.nan, math.nan
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan


def tail_rank(n: int, quantile: float = TAIL_QUANTILE) -> int:
    """1-based rank m = floor(q n + 0.5) of the quantile's order statistic (at least 1)."""
    return max(1, min(n, int(math.floor(quantile * n + 0.5))))


def tail_seed(values: Sequence[float] | np.ndarray, quantile: float = TAIL_QUANTILE) -> tuple[float, float]:
    """The 90th-percentile seed's metric (the m-th smallest) and its Maritz-Jarrett standard error.

    Maritz & Jarrett (1978): with weights W_i = B((i)/n) - B((i-1)/n), B the Beta(m-1, n-m)
    distribution function, C_k = sum_i W_i x_(i)^k and se = sqrt(C_2 - C_1^2); NaN below 3 values.
    """
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    if n == 0:
        return math.nan, math.nan
    m = tail_rank(n, quantile)
    if n < 3 or m < 2 or m > n - 1:
        return float(x[m - 1]), math.nan
    edges = beta.cdf(np.arange(n + 1) / n, m - 1, n - m)
    weights = np.diff(edges)
    c1 = float(weights @ x)
    c2 = float(weights @ x**2)
    return float(x[m - 1]), math.sqrt(max(c2 - c1 * c1, 0.0))


def paired_one_sided_p(reference: Mapping[int, float], other: Mapping[int, float]) -> tuple[float, int]:
    """One-sided Wilcoxon signed-rank p-value that ``reference`` is lower than ``other`` on the
    seeds both have, and the number of pairs; (NaN, n) below one pair, (1, n) if all equal."""
    seeds = sorted(set(reference) & set(other))
    d = np.array([reference[s] - other[s] for s in seeds], dtype=float)
    if len(d) == 0:
        return math.nan, 0
    if np.all(d == 0):
        return 1.0, len(d)
    return float(wilcoxon(d, alternative="less", zero_method="wilcox").pvalue), len(d)


# --------------------------------------------------------------------------------------------
# Stuck seeds
# --------------------------------------------------------------------------------------------

Combination = tuple[tuple[str, Any], ...]


def combination_bests(spec: SuiteSpec, stored: Sequence[Record]) -> dict[Combination, float]:
    """Best value of every combination: the stated one where the problem knows it (all of its
    combinations), else the best observed value of the combination in the ``stored`` runs."""
    if spec.combination_best is not None and spec.combinations is not None:
        return {
            combination_of(c, spec.combination_keys): spec.combination_best(c) for c in spec.combinations()
        }
    bests: dict[Combination, float] = {}
    for r in stored:
        for params, v in zip(r["params"], observed_values(r)):
            if not math.isnan(v):
                key = combination_of(params, spec.combination_keys)
                bests[key] = min(v, bests.get(key, math.inf))
    return bests


def wrong_combinations(bests: Mapping[Combination, float], fraction: float = WRONG_FRACTION) -> set[Combination]:
    """Combinations whose best exceeds the overall best by more than ``fraction`` of the range."""
    if not bests:
        return set()
    low, high = min(bests.values()), max(bests.values())
    return {c for c, v in bests.items() if v - low > fraction * (high - low)}


def longest_wrong_stay(record: Record, keys: Sequence[str], wrong: set[Combination], last_trial: int | None = None) -> int:
    """The longest run of consecutive trials (up to ``last_trial``) whose incumbent has one and
    the same wrong combination."""
    incumbents = incumbent_indices(observed_values(record))[:last_trial]
    longest = current = 0
    previous: Combination | None = None
    for i in incumbents:
        combo = combination_of(record["params"][i], keys) if i >= 0 else None
        if combo is not None and combo in wrong:
            current = current + 1 if combo == previous else 1
            longest = max(longest, current)
        else:
            current = 0
        previous = combo
    return longest


def stuck_seeds(
    records: Sequence[Record], spec: SuiteSpec, wrong: set[Combination], stuck_trials: int = STUCK_TRIALS,
    last_trial: int | None = None,
) -> list[int]:
    """Seeds that stay more than ``stuck_trials`` trials on a wrong combination (up to ``last_trial``)."""
    return sorted(
        int(r["seed"]) for r in records
        if longest_wrong_stay(r, spec.combination_keys, wrong, last_trial) > stuck_trials
    )


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass
class SuiteRuns:
    """The runs of one problem in loss terms (minimised: a maximised problem's first objective,
    its noiseless values and its optimum are negated at loading)."""

    spec: SuiteSpec
    optimum: float | None
    runs: dict[str, list[Record]]  # the requested samplers with results
    stored: list[Record]  # every stored run of the problem (any sampler, the Oracle included)
    maximised: bool = False


# Conditional problems of the paper suite: the categoricals that decide their branches (a
# single random probe trial would miss the keys of the other branches).
PAPER_COMBINATION_KEYS: Mapping[str, tuple[str, ...]] = {
    "conditional_trap": ("model", "tree_kind"),
    "automl": ("classifier", "lr_class_weight"),
}


def problem_spec(name: str) -> tuple[SuiteSpec, float | None, bool]:
    """(spec, optimum in loss terms, maximised) of a suite problem or of any registered problem.

    For a problem outside the suite the combination keys are its categorical parameters (found
    by one random trial, as the Oracle does, or PAPER_COMBINATION_KEYS), and combination bests
    come from the stored runs."""
    if name in SPECS:
        return SPECS[name], SPECS[name].optimum(), False
    problem = get_problem(name)
    keys = PAPER_COMBINATION_KEYS.get(name)
    if keys is None:
        optuna.logging.set_verbosity(optuna.logging.ERROR)
        probe = optuna.create_study(directions=list(problem.directions), sampler=optuna.samplers.RandomSampler(seed=0))
        probe.optimize(problem.objective, n_trials=1)
        keys = tuple(n for n, d in probe.trials[0].distributions.items() if isinstance(d, CategoricalDistribution))
    maximised = problem.directions[0] == MAXIMIZE
    spec = SuiteSpec(
        name, "paper", lambda: single_objective(problem), keys,
        optimum_method=(
            "stated with the problem" if problem.optimum is not None
            else "unknown: the best value in any stored run is the reference"
        ),
        description=problem.description, conditional=name in PAPER_COMBINATION_KEYS,
    )
    optimum = None if problem.optimum is None else (-problem.optimum if maximised else problem.optimum)
    return spec, optimum, maximised


def as_loss(record: Record) -> Record:
    """The record with its first objective (and noiseless values) negated: a maximised problem in loss terms."""
    values = [None if not v else [-v[0]] for v in record["values"]]
    noiseless = record.get("noiseless")
    out = {**record, "values": values}
    if noiseless is not None:
        out["noiseless"] = [None if v is None else -v for v in noiseless]
    return out


def collect_suite(out_dir: Path, problems: Sequence[str], samplers: Sequence[str], max_seeds: int | None) -> list[SuiteRuns]:
    collected = []
    for name in problems:
        spec, optimum, maximised = problem_spec(name)
        stored = load_problem(out_dir, name)
        every = {
            s: [as_loss(r) if maximised else r for r in records if max_seeds is None or r["seed"] < max_seeds]
            for s, records in sorted(stored.items())
        }
        runs = {s: every[s] for s in samplers if every.get(s)}
        collected.append(SuiteRuns(spec, optimum, runs, [r for rs in every.values() for r in rs], maximised))
    return collected


def metric_rows(entry: SuiteRuns, checkpoints: Sequence[int], stuck_trials: int) -> list[list[str]]:
    """One row per sampler: seeds, mean ± se and 90th-percentile seed ± se per checkpoint, stuck seeds."""
    wrong = wrong_combinations(combination_bests(entry.spec, entry.stored))
    rows = []
    for sampler, records in entry.runs.items():
        cells = []
        for c in checkpoints:
            values = list(metric_at(records, entry.optimum, c).values())
            suffix = f" (n={len(values)})" if values and len(values) < len(records) else ""
            cells.append(f"{format_value(*mean_and_se(values))} / {format_value(*tail_seed(values))}{suffix}" if values else "-")
        stuck = stuck_seeds(records, entry.spec, wrong, stuck_trials)
        rows.append([entry.spec.name, sampler, str(len(records)), *cells, f"{len(stuck)} of {len(records)}"])
    return rows


def comparison_rows(entry: SuiteRuns, checkpoints: Sequence[int], reference: str) -> list[list[str]]:
    """Per peer: mean difference (reference - peer) and the paired one-sided Wilcoxon p per checkpoint."""
    if reference not in entry.runs:
        return []
    rows = []
    for sampler, records in entry.runs.items():
        if sampler == reference:
            continue
        cells = []
        for c in checkpoints:
            ours = metric_at(entry.runs[reference], entry.optimum, c)
            theirs = metric_at(records, entry.optimum, c)
            p, n = paired_one_sided_p(ours, theirs)
            if n == 0:
                cells.append("-")
                continue
            seeds = sorted(set(ours) & set(theirs))
            diff = float(np.mean([ours[s] - theirs[s] for s in seeds]))
            cells.append(f"{diff:+.3g} (p={p:.2g}, n={n})")
        rows.append([entry.spec.name, sampler, *cells])
    return rows


# The peers of the targets (the reference level with or ahead of the better peer): the reference's
# mean against the best of these, its 90th-percentile seed against the first one's.
TARGET_PEERS = ("gp", "tpe-auto")


def target_rows(entry: SuiteRuns, checkpoints: Sequence[int], reference: str) -> list[list[str]]:
    """Per checkpoint: the reference's mean against the best mean of ``TARGET_PEERS`` ("ahead",
    "level" within one standard error of either, or "behind"), and its 90th-percentile seed
    against the first peer's ("<=" or ">")."""
    peers = [p for p in TARGET_PEERS if p in entry.runs]
    if reference not in entry.runs or not peers:
        return []
    cells = []
    for c in checkpoints:
        ours = list(metric_at(entry.runs[reference], entry.optimum, c).values())
        theirs = {p: list(metric_at(entry.runs[p], entry.optimum, c).values()) for p in peers}
        if not ours or not all(theirs.values()):
            cells.append("-")
            continue
        mean, se = mean_and_se(ours)
        best = min(peers, key=lambda p: mean_and_se(theirs[p])[0])
        best_mean, best_se = mean_and_se(theirs[best])
        margin = max(np.nan_to_num(se), np.nan_to_num(best_se))
        verdict = "ahead of" if mean < best_mean - margin else "level with" if mean <= best_mean + margin else "behind"
        tail = ""
        if peers[0] == TARGET_PEERS[0]:
            tail = "; p90 " + ("<=" if tail_seed(ours)[0] <= tail_seed(theirs[peers[0]])[0] else ">") + " " + peers[0]
        cells.append(f"{verdict} {best}{tail}")
    return [[entry.spec.name, *cells]]


def relative_rows(collected: Sequence[SuiteRuns], checkpoints: Sequence[int]) -> list[list[str]]:
    """Per sampler and checkpoint: the mean over problems of its mean metric divided by the best
    sampler's mean on that problem (1: the best everywhere), over the problems where it has runs
    and the best mean is positive, with how many problems that is."""
    ratios: dict[str, dict[int, list[float]]] = {}
    for entry in collected:
        for c in checkpoints:
            means = {s: mean_and_se(list(metric_at(r, entry.optimum, c).values()))[0] for s, r in entry.runs.items()}
            means = {s: m for s, m in means.items() if not math.isnan(m)}
            best = min(means.values(), default=math.nan)
            if not best > 0:
                continue
            for sampler, mean in means.items():
                ratios.setdefault(sampler, {k: [] for k in checkpoints})[c].append(mean / best)
    return [
        [sampler, *(f"{np.mean(by_c[c]):.2f} ({len(by_c[c])})" if by_c[c] else "-" for c in checkpoints)]
        for sampler, by_c in ratios.items()
    ]


def write_suite_report(
    path: Path, collected: Sequence[SuiteRuns], half: str, checkpoints: Sequence[int], reference: str,
    stuck_trials: int = STUCK_TRIALS, command: str = "",
) -> str:
    """Write the Markdown report of one half of the suite to ``path`` and return it."""
    lines = [
        *_introduction(collected, half, command),
        *_metric_section(collected, checkpoints, stuck_trials),
        *_comparison_section(collected, checkpoints, reference),
        *_relative_section(collected, checkpoints),
        *_target_section(collected, checkpoints, reference),
        *_optima_section(collected),
    ]
    text = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text


def _introduction(collected: Sequence[SuiteRuns], half: str, command: str) -> list[str]:
    return [
        f"# Broad suite: {half}" + (" half" if half in GROUPS else ""),
        "",
        f"Problems: {', '.join(e.spec.name for e in collected)}. Definitions: docs/suite.md and "
        "benchmarks/vpbo_benchmarks/suite_report.py. Checkpoints are trial numbers (initial design included).",
        "Metric: simple regret of the incumbent (noiseless value where the problem is noisy), or its value "
        "where no optimum is known (the negated value for a maximised problem: lower is better everywhere).",
        *([f"Regenerate: `{command}`"] if command else []),
        "",
    ]


def _metric_section(collected: Sequence[SuiteRuns], checkpoints: Sequence[int], stuck_trials: int) -> list[str]:
    return [
        "## Mean ± s.e. / 90th-percentile seed ± s.e. (Maritz-Jarrett), and stuck seeds",
        "",
        f"Stuck: seeds whose incumbent stays more than {stuck_trials} consecutive trials on one wrong combination.",
        "",
        *markdown_table(["problem", "sampler", "seeds", *[f"trial {c}" for c in checkpoints], "stuck"],
                        [row for e in collected for row in metric_rows(e, checkpoints, stuck_trials)]),
        "",
    ]


def _comparison_section(collected: Sequence[SuiteRuns], checkpoints: Sequence[int], reference: str) -> list[str]:
    lines = [
        f"## {reference} against each peer (paired by seed, one-sided Wilcoxon signed-rank)",
        "",
        f"Mean of the differences {reference} - peer (negative: {reference} better) and the p-value of "
        f"\"{reference} is lower\".",
        "",
    ]
    comparisons = [row for e in collected for row in comparison_rows(e, checkpoints, reference)]
    if comparisons:
        return lines + markdown_table(["problem", f"{reference} vs", *[f"trial {c}" for c in checkpoints]], comparisons)
    return [*lines, f"No comparison: no runs of {reference}, or no other sampler with runs."]


def _relative_section(collected: Sequence[SuiteRuns], checkpoints: Sequence[int]) -> list[str]:
    return [
        "",
        "## Relative to the best sampler, over problems",
        "",
        "Mean over problems of (a sampler's mean / the best sampler's mean) at each checkpoint (1: the best on "
        "every problem), and over how many problems (those where the best mean is positive). It depends on "
        "which samplers are in the table.",
        "",
        *markdown_table(["sampler", *[f"trial {c}" for c in checkpoints]], relative_rows(collected, checkpoints)),
    ]


def _target_section(collected: Sequence[SuiteRuns], checkpoints: Sequence[int], reference: str) -> list[str]:
    targets = [row for e in collected for row in target_rows(e, checkpoints, reference)]
    if not targets:
        return []
    return [
        "",
        f"## {reference} against the best of {' and '.join(TARGET_PEERS)} (the targets against the peers)",
        "",
        f"Mean: ahead, level (the means within one standard error of either) or behind the better peer's mean; "
        f"90th-percentile seed against {TARGET_PEERS[0]}'s.",
        "",
        *markdown_table(["problem", *[f"trial {c}" for c in checkpoints]], targets),
    ]


def _optima_section(collected: Sequence[SuiteRuns]) -> list[str]:
    lines = ["", "## Optima", "", *markdown_table(
        ["problem", "family", "optimum", "how"],
        [[e.spec.name, e.spec.family, optimum_cell(e), e.spec.optimum_method] for e in collected],
    )]
    missing = [e.spec.name for e in collected if not e.runs]
    known = [e for e in collected if e.optimum is not None]
    if missing or len(known) < len(collected):
        lines += ["", "## Notes", ""]
        lines += [f"- No runs stored for: {', '.join(missing)}."] if missing else []
        lines += ["- Without a known optimum the metric is the best value; its reference is the best in any stored run."]
    return lines


def best_stored(entry: SuiteRuns) -> float:
    """The best observed value in any stored run of the problem (NaN without runs)."""
    values = [v for r in entry.stored for v in observed_values(r) if not math.isnan(v)]
    return min(values) if values else math.nan


def optimum_cell(entry: SuiteRuns) -> str:
    """The optimum of the report's Optima table (in the problem's own direction)."""
    sign = -1.0 if entry.maximised else 1.0
    negated = " (maximised: the metric is the negated best value)" if entry.maximised and entry.optimum is None else ""
    if entry.optimum is not None:
        return f"{sign * entry.optimum:.10g}"
    return f"unknown (best in any stored run: {sign * best_stored(entry):.10g}){negated}"
