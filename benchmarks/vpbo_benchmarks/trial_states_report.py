"""Report of the trial-states suite: ``vpbo-benchmark report --sections trial-states``.

Definitions (docs/trial-states.md repeats them):

- Checkpoints are trial numbers counted from 1 (trial 30 is the 30th trial of every sampler,
  whatever its state). The best final value at trial t is the smallest value of the COMPLETE
  trials among trials 1..t (a pruned trial's intermediate values and failed trials never count);
  a run without a complete trial by t has none and is left out of that cell (``n=`` shows it).
- Per (problem, sampler, checkpoint): mean over seeds ± standard error (ddof 1) and the
  90th-percentile seed (the m-th smallest, m = floor(0.9 n + 0.5), with its Maritz-Jarrett
  standard error), as in the broad suite's report.
- Paired difference: reference - peer per seed (seeds both have), mean ± standard error of
  the differences (negative: the reference is better), and the two-sided p-value of the
  Wilcoxon signed-rank test on them (zero differences dropped; p = 1 if all are zero).
- Equal compute, against each peer and at each checkpoint t: the budget is the mean over the
  peer's seeds of the compute (epochs, boosting rounds, trees, rows) its trials 1..t spent; a
  run's value is the best final value of the trials it finished within that budget (cumulative
  compute <= budget), for the reference's runs and the peer's alike. A run whose trials spent less
  than the budget keeps its final best and is counted as "short". Pruning problems only.
- Trial states: COMPLETE and PRUNED counts over the run; the share of FAIL among the trials
  numbered 10 and later (0-based: after a 10-trial initial design); repeats: trials whose
  configuration repeats an earlier PRUNED or FAIL trial's (see trial_states.same_configuration);
  compute: the run's total.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.stats

from vpbo_benchmarks.markdown import format_value, markdown_table
from vpbo_benchmarks.records import load_problem
from vpbo_benchmarks.suite_report import mean_and_se, tail_seed
from vpbo_benchmarks.trial_states import GROUPS, PROBLEMS, get_trial_state_problem

CHECKPOINTS = (30, 60, 100)
DESIGN_TRIALS = 10
REFERENCE = "vpbo"
REPORT_FILES: Mapping[str, str] = {
    "tuning": "TRIAL-STATES-tuning.md", "held_out": "TRIAL-STATES-held-out.md",
    "misleading": "TRIAL-STATES-misleading.md", "fresh_pruning": "TRIAL-STATES-fresh-pruning.md",
}

Record = dict[str, Any]


def complete_values(record: Record) -> np.ndarray:
    """The value of every trial, NaN where it is not COMPLETE."""
    return np.array(
        [v[0] if state == "C" and v else math.nan for v, state in zip(record["values"], record["states"])], dtype=float
    )


def best_trace(record: Record) -> np.ndarray:
    """The best COMPLETE value among trials 1..t for every t; NaN before the first complete trial."""
    values = complete_values(record)
    running = np.minimum.accumulate(np.where(np.isnan(values), np.inf, values)) if len(values) else values
    return np.where(np.isinf(running), math.nan, running)


def best_at(records: Sequence[Record], trial: int) -> dict[int, float]:
    """{seed: best final value at trial number ``trial``} over the runs that have one."""
    out = {}
    for r in records:
        trace = best_trace(r)
        if len(trace) >= trial and not math.isnan(trace[trial - 1]):
            out[int(r["seed"])] = float(trace[trial - 1])
    return out


def compute_budget(records: Sequence[Record], trial: int) -> float:
    """The mean over runs (of at least ``trial`` trials) of the compute of their first ``trial`` trials."""
    spent = [float(np.sum(r["compute"][:trial])) for r in records if len(r["compute"]) >= trial]
    return float(np.mean(spent)) if spent else math.nan


def best_within_compute(record: Record, budget: float) -> tuple[float, bool]:
    """(best final value of the trials finished within ``budget``, whether the run spent the budget)."""
    cumulative = np.cumsum(np.asarray(record["compute"], dtype=float))
    within = int(np.searchsorted(cumulative, budget, side="right"))  # trials 1..within spent <= budget
    trace = best_trace(record)
    value = float(trace[within - 1]) if within > 0 else math.nan
    return value, bool(len(cumulative) and cumulative[-1] >= budget)


def failed_share(record: Record, start: int = DESIGN_TRIALS) -> float:
    """The share of FAIL among trials numbered ``start`` and later (NaN if there are none)."""
    states = record["states"][start:]
    return states.count("F") / len(states) if states else math.nan


def paired_difference(ours: Mapping[int, float], theirs: Mapping[int, float]) -> tuple[float, float, int]:
    """Mean and standard error of ours - theirs over the seeds both have, and their number."""
    seeds = sorted(set(ours) & set(theirs))
    mean, se = mean_and_se([ours[s] - theirs[s] for s in seeds])
    return mean, se, len(seeds)


def paired_test(ours: Mapping[int, float], theirs: Mapping[int, float]) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test of ours - theirs over the seeds both
    have (zero differences dropped; 1 when every difference is zero; NaN without a seed)."""
    differences = np.array([ours[s] - theirs[s] for s in sorted(set(ours) & set(theirs))])
    if not len(differences):
        return math.nan
    if not np.any(differences != 0):
        return 1.0
    return float(scipy.stats.wilcoxon(differences, zero_method="wilcox").pvalue)


def _cell(values: Sequence[float], n_runs: int) -> str:
    if not values:
        return "-"
    suffix = f" (n={len(values)})" if len(values) < n_runs else ""
    return f"{format_value(*mean_and_se(values))} / {format_value(*tail_seed(values))}{suffix}"


def _difference_cell(ours: Mapping[int, float], theirs: Mapping[int, float]) -> str:
    """Mean ± s.e. of the paired differences, their number and the signed-rank test's p-value."""
    mean, se, n = paired_difference(ours, theirs)
    if n == 0:
        return "-"
    return (f"{mean:+.3g}" if math.isnan(se) else f"{mean:+.3g} ± {se:.2g}") + f" (n={n}, p={paired_test(ours, theirs):.2g})"


def collect(
    out_dir: Path, problems: Sequence[str], samplers: Sequence[str] | None, max_seeds: int | None, reference: str = REFERENCE,
) -> dict[str, dict[str, list[Record]]]:
    """{problem: {sampler: runs sorted by seed}} of the stored runs, in the order of ``samplers``
    (default: every stored sampler, the reference first)."""
    collected = {}
    for name in problems:
        stored = {
            s: [r for r in runs if max_seeds is None or r["seed"] < max_seeds] for s, runs in load_problem(out_dir, name).items()
        }
        order = samplers if samplers is not None else sorted(stored, key=lambda s: (s != reference, s))
        collected[name] = {s: stored[s] for s in order if stored.get(s)}
    return collected


def value_rows(collected: Mapping[str, Mapping[str, list[Record]]], checkpoints: Sequence[int]) -> list[list[str]]:
    return [
        [problem, sampler, str(len(records)), *(_cell(list(best_at(records, c).values()), len(records)) for c in checkpoints)]
        for problem, runs in collected.items() for sampler, records in runs.items()
    ]


def difference_rows(
    collected: Mapping[str, Mapping[str, list[Record]]], checkpoints: Sequence[int], reference: str
) -> list[list[str]]:
    rows = []
    for problem, runs in collected.items():
        if reference not in runs:
            continue
        for sampler, records in runs.items():
            if sampler != reference:
                rows.append([problem, sampler, *(
                    _difference_cell(best_at(runs[reference], c), best_at(records, c)) for c in checkpoints
                )])
    return rows


def equal_compute_rows(
    collected: Mapping[str, Mapping[str, list[Record]]], reference: str, checkpoints: Sequence[int],
    peers: Sequence[str] | None = None,
) -> list[list[str]]:
    """Pruning problems: for each peer (default: every sampler but the reference) and checkpoint
    t, the peer's mean compute by trial t as the budget, the reference's and the peer's best value
    within it, their paired difference and the runs short of the budget."""
    rows = []
    for problem, runs in collected.items():
        if PROBLEMS[problem].pruner is None or reference not in runs:
            continue
        unit = PROBLEMS[problem].task.compute_unit
        for peer, records in runs.items():
            if peer == reference or (peers is not None and peer not in peers):
                continue
            for trial in checkpoints:
                budget = compute_budget(records, trial)
                if not math.isnan(budget):
                    rows.append([problem, peer, str(trial), f"{budget:.0f} {unit}",
                                 *_within_budget_cells(runs[reference], records, budget)])
    return rows


def _within_budget_cells(ours: Sequence[Record], theirs: Sequence[Record], budget: float) -> list[str]:
    """Both samplers' best values within ``budget``, reference - peer paired, and the short runs."""
    within = [{int(r["seed"]): best_within_compute(r, budget) for r in records} for records in (ours, theirs)]
    values = [{seed: v for seed, (v, _) in by_seed.items() if not math.isnan(v)} for by_seed in within]
    short = [f"{sum(not reached for _, reached in by_seed.values())} of {len(by_seed)}" for by_seed in within]
    return [_cell(list(values[0].values()), len(ours)), _cell(list(values[1].values()), len(theirs)),
            _difference_cell(values[0], values[1]), " / ".join(short)]


def state_rows(collected: Mapping[str, Mapping[str, list[Record]]], design_trials: int) -> list[list[str]]:
    rows = []
    for problem, runs in collected.items():
        for sampler, records in runs.items():
            complete = [r["states"].count("C") for r in records]
            pruned = [r["states"].count("P") for r in records]
            shares = [100.0 * s for s in (failed_share(r, design_trials) for r in records) if not math.isnan(s)]
            repeats = [int(sum(r["repeats"])) for r in records]
            compute = [float(np.sum(r["compute"])) for r in records]
            rows.append([
                problem, sampler, str(len(records)), format_value(*mean_and_se(complete)), format_value(*mean_and_se(pruned)),
                f"{format_value(*mean_and_se(shares))} %" if shares else "-",
                f"{format_value(*mean_and_se(repeats))} (max {max(repeats)}; "
                f"{sum(r > 0 for r in repeats)} of {len(records)} seeds)",
                format_value(*mean_and_se(compute)),
            ])
    return rows


def equal_compute_section(
    collected: Mapping[str, Mapping[str, list[Record]]], reference: str, checkpoints: Sequence[int],
    compute_peers: Sequence[str] | None,
) -> list[str]:
    """The report's section at equal compute: ``reference`` within each peer's compute."""
    compute = equal_compute_rows(collected, reference, checkpoints, compute_peers)
    lines = [
        "",
        f"## At equal compute: {reference} within each peer's compute (pruning problems)",
        "",
        "Budget: the peer's mean compute (epochs, rounds, trees, rows) by trial t. Best final value of the trials "
        f"finished within it (mean ± s.e. / 90th-percentile seed), {reference} - peer paired by seed (signed-rank p); "
        f"short: runs whose trials spent less than the budget (their final best), {reference} / peer.",
        "",
    ]
    return lines + (markdown_table(
        ["problem", "peer", "trial", "budget", reference, "peer", f"{reference} - peer", "short"], compute,
    ) if compute else [f"No equal-compute table: no pruning problem with runs of {reference} and a peer."])


def write_report(
    path: Path, collected: Mapping[str, Mapping[str, list[Record]]], half: str, checkpoints: Sequence[int],
    reference: str, compute_peers: Sequence[str] | None, design_trials: int, command: str = "",
) -> str:
    """Write the Markdown report of one half to ``path`` and return it."""
    lines = [
        f"# Trial states: {half.replace('_', '-')} {'half' if half in ('tuning', 'held_out') else 'set'}",
        "",
        f"Problems: {', '.join(collected)}. Definitions: docs/trial-states.md and "
        "benchmarks/vpbo_benchmarks/trial_states_report.py. Every value is minimised; only COMPLETE trials have a final value.",
        *([f"Regenerate: `{command}`"] if command else []),
        "",
        "## Best final value: mean ± s.e. / 90th-percentile seed ± s.e.",
        "",
        *markdown_table(
            ["problem", "sampler", "seeds", *(f"trial {c}" for c in checkpoints)], value_rows(collected, checkpoints)
        ),
        "",
        f"## {reference} - peer, paired by seed: mean ± s.e. (negative: {reference} better)",
        "",
    ]
    differences = difference_rows(collected, checkpoints, reference)
    lines += (
        markdown_table(["problem", f"{reference} vs", *(f"trial {c}" for c in checkpoints)], differences)
        if differences
        else [f"No comparison: no runs of {reference}, or no other sampler."]
    )
    lines += equal_compute_section(collected, reference, checkpoints, compute_peers)
    lines += [
        "",
        "## Trial states (mean ± s.e. over seeds)",
        "",
        f"failed: share of FAIL among trials numbered {design_trials} and later; repeats: trials whose configuration "
        "repeats an earlier PRUNED or FAIL trial's (categoricals and ints equal, floats within 1/10000 of their "
        "range, log range for log floats); compute: epochs, rounds or fits of the whole run.",
        "",
        *markdown_table(["problem", "sampler", "seeds", "complete", "pruned", "failed", "repeats", "compute"],
                state_rows(collected, design_trials)),
        "",
        "## Problems",
        "",
        *markdown_table(["problem", "family", "pruner", "compute", "optimum"], [
            [p, PROBLEMS[p].task.family, PROBLEMS[p].pruner or "-", PROBLEMS[p].task.compute_unit,
             f"{PROBLEMS[p].task.optimum:.6g}" if PROBLEMS[p].task.optimum is not None else "unknown"]
            for p in collected
        ]),
    ]
    missing = [p for p, runs in collected.items() if not runs]
    if missing:
        lines += ["", f"No runs stored for: {', '.join(missing)}."]
    text = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text


def write_reports(
    out: Path, halves: Sequence[str], problems: Sequence[str] | None, samplers: Sequence[str] | None, seeds: int | None,
    reference: str, checkpoints: Sequence[int], compute_peers: Sequence[str] | None, design_trials: int, command: str = "",
) -> list[Path]:
    """The report of each half or set (a key of REPORT_FILES; its ``problems`` only, if given) from
    the runs stored in ``out``, written there; equal compute against ``compute_peers`` (None: every
    peer). Returns the files."""
    for name in problems or []:
        get_trial_state_problem(name)
    paths = []
    for half in halves:
        members = [p for p in GROUPS[half] if problems is None or p in problems]
        collected = collect(out, members, samplers, seeds, reference)
        path = out / REPORT_FILES[half]
        write_report(path, collected, half, checkpoints, reference, compute_peers, design_trials, command)
        paths.append(path)
    return paths
