"""The envelope report (a candidate against the better of two references): ``vpbo-benchmark report --sections envelope``.

A candidate sampler against the better of two references (e.g. ``vpbo-v1`` and ``vpbo-v2``), per
problem and checkpoint. Definitions (docs/suite.md, "The envelope report", repeats them):

- Metric: as in :mod:`.suite_report` (the simple regret of the incumbent, or its value where no
  optimum is known; a maximised problem in loss terms). Seeds: per (problem, checkpoint) those
  that the candidate and every reference with runs reach, paired by seed number.
- Mean cell: the candidate's mean against the reference with the lower mean (the better); it
  fails when ``mean(c) - mean(b) > 2 se + tol``, ``se`` the standard error of the per-seed
  differences ``c - b`` (ddof 1).
- Tail cell: the 90th-percentile seed (:func:`.suite_report.tail_seed`) against the reference
  with the lower one; it fails when ``tail(c) - tail(b) > 2 sqrt(se_c^2 + se_b^2) + tol``, the
  Maritz-Jarrett standard errors (an undefined one, below three seeds, counts 0).
- ``tol = 1e-6 max(1, |optimum|)``; 1e-6 where no optimum is known.
- A copy of the better reference: the better of two noisy references is biased low, so even a
  sampler equal to the better one fails some cells. Per cell and statistic, in each of
  ``n_copies`` bootstrap rounds both references are resampled over their seeds (with
  replacement) and their better one is taken again, and a copy is drawn the same way from the
  reference that is better on the real seeds; the share of rounds in which the copy fails
  against the resampled better reference by the same rule (the copy's seed i paired with the
  reference's i-th draw) is the cell's expected failure of a copy. The report gives their sum
  over cells. One ``numpy.random.default_rng(copy_seed)`` for the whole report, cells in table
  order.
- Mean relative regret per set: per problem and checkpoint, the candidate's and each reference's
  mean divided by the smallest of them, where that is positive; the mean over the set's problems.
- Stuck seeds: :func:`.suite_report.stuck_seeds` over the whole run (wrong combinations from the
  stated bests, or the best observed in any stored run of both folders), for the candidate, the
  references and the peers (GPSampler's ``gp`` and TPE's ``tpe-auto`` by default), with totals.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vpbo_benchmarks.markdown import markdown_table
from vpbo_benchmarks.records import load_problem
from vpbo_benchmarks.registry import GROUPS
from vpbo_benchmarks.specs import SuiteSpec
from vpbo_benchmarks.suite_report import (
    STUCK_TRIALS,
    as_loss,
    combination_bests,
    metric_at,
    problem_spec,
    stuck_seeds,
    tail_seed,
    wrong_combinations,
)

CHECKPOINTS = (25, 50, 100)
REFERENCES = ("vpbo-v1", "vpbo-v2")
PEERS = ("gp", "tpe-auto")
N_COPIES = 200
COPY_SEED = 0
RELATIVE_TOLERANCE = 1e-6
SELECTED = "selected problems"  # the set of the problems named one by one

Record = dict[str, Any]
Statistic = Callable[[np.ndarray], float]
Limit = Callable[[np.ndarray, np.ndarray, float], float]


# --------------------------------------------------------------------------------------------
# The rule of a cell
# --------------------------------------------------------------------------------------------


def tolerance(optimum: float | None) -> float:
    """The relative 1e-6 of the optimum's magnitude, at least 1e-6 absolute."""
    return RELATIVE_TOLERANCE * max(1.0, abs(optimum)) if optimum is not None else RELATIVE_TOLERANCE


def mean_value(values: np.ndarray) -> float:
    return float(np.mean(values))


def tail_value(values: np.ndarray) -> float:
    return tail_seed(values)[0]


def mean_limit(candidate: np.ndarray, reference: np.ndarray, tol: float) -> float:
    """2 paired standard errors of the per-seed differences (0 below two seeds) plus ``tol``."""
    differences = candidate - reference
    se = float(np.std(differences, ddof=1) / math.sqrt(len(differences))) if len(differences) > 1 else 0.0
    return 2.0 * se + tol


def tail_limit(candidate: np.ndarray, reference: np.ndarray, tol: float) -> float:
    """2 standard errors of the difference of two 90th-percentile seeds (Maritz-Jarrett, in
    quadrature; an undefined one counts 0) plus ``tol``."""
    se_candidate, se_reference = tail_seed(candidate)[1], tail_seed(reference)[1]
    return 2.0 * math.hypot(float(np.nan_to_num(se_candidate)), float(np.nan_to_num(se_reference))) + tol


STATISTICS: Mapping[str, tuple[Statistic, Limit]] = {"mean": (mean_value, mean_limit), "p90": (tail_value, tail_limit)}


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One statistic of one cell: the candidate's value against the better reference's, the
    limit of their difference, and the share of copies of the better reference that fail."""

    statistic: str
    candidate: float
    better: str
    reference: float
    limit: float
    copy_failures: float

    @property
    def difference(self) -> float:
        return self.candidate - self.reference

    @property
    def fails(self) -> bool:
        return self.difference > self.limit


def copy_failure_share(
    statistic: str, references: Mapping[str, np.ndarray], better: str, tol: float, rng: np.random.Generator,
    n_copies: int,
) -> float:
    """The share of ``n_copies`` bootstrap rounds in which a copy of the ``better`` reference
    fails against the better of the resampled ``references`` (see the module docstring)."""
    if n_copies <= 0:
        return math.nan
    value, limit = STATISTICS[statistic]

    def resample(values: np.ndarray) -> np.ndarray:
        return values[rng.integers(0, len(values), len(values))]

    failures = 0
    for _ in range(n_copies):
        resampled = [resample(values) for values in references.values()]
        reference = min(resampled, key=value)
        copy = resample(references[better])
        failures += value(copy) - value(reference) > limit(copy, reference, tol)
    return failures / n_copies


def compare(
    statistic: str, candidate: np.ndarray, references: Mapping[str, np.ndarray], tol: float,
    rng: np.random.Generator, n_copies: int = N_COPIES,
) -> Comparison:
    """The candidate (per-seed values) against the better of ``references`` (values on the same
    seeds, in the same order) by ``statistic`` (``mean`` or ``p90``)."""
    value, limit = STATISTICS[statistic]
    better = min(references, key=lambda name: value(references[name]))
    reference = references[better]
    return Comparison(
        statistic, value(candidate), better, value(reference), limit(candidate, reference, tol),
        copy_failure_share(statistic, references, better, tol, rng, n_copies),
    )


# --------------------------------------------------------------------------------------------
# Runs and cells
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass
class EnvelopeRuns:
    """One problem's runs in loss terms: the candidate's, the references' and the peers' (those
    with runs), and every stored run of both folders (the combination bests of stuck seeds)."""

    spec: SuiteSpec
    optimum: float | None
    candidate: list[Record]
    references: dict[str, list[Record]]
    peers: dict[str, list[Record]]
    stored: list[Record]


def load_runs(folder: Path, problem: str, maximised: bool, max_seeds: int | None = None) -> dict[str, list[Record]]:
    """{sampler: its runs of ``problem`` in ``folder``} in loss terms (seeds 0 .. max_seeds - 1 if given)."""
    return {
        sampler: [as_loss(r) if maximised else r for r in records if max_seeds is None or r["seed"] < max_seeds]
        for sampler, records in sorted(load_problem(folder, problem).items())
    }


def collect_envelope(
    candidate_out: Path, references_out: Path, problems: Sequence[str], candidate: str, references: Sequence[str],
    peers: Sequence[str] = PEERS, max_seeds: int | None = None,
) -> list[EnvelopeRuns]:
    """The runs of each problem: the candidate's from ``candidate_out``, the references' and the
    peers' from ``references_out`` (seeds 0 .. max_seeds - 1 if given)."""
    collected = []
    for name in problems:
        spec, optimum, maximised = problem_spec(name)
        own = load_runs(candidate_out, name, maximised, max_seeds)
        others = own if Path(references_out) == Path(candidate_out) else load_runs(references_out, name, maximised, max_seeds)
        stored = [r for runs in own.values() for r in runs] + (
            [] if others is own else [r for runs in others.values() for r in runs]
        )
        collected.append(EnvelopeRuns(
            spec, optimum, own.get(candidate, []), {r: others[r] for r in references if others.get(r)},
            {p: others[p] for p in peers if others.get(p)}, stored,
        ))
    return collected


@dataclasses.dataclass(frozen=True)
class EnvelopeCell:
    """A problem at a checkpoint: the seeds compared, each sampler's (mean, 90th-percentile seed)
    on them (the candidate first, under the label ``candidate``), and both comparisons."""

    problem: str
    checkpoint: int
    seeds: int
    summaries: dict[str, tuple[float, float]]
    mean: Comparison
    tail: Comparison


def envelope_cells(
    entry: EnvelopeRuns, checkpoints: Sequence[int], rng: np.random.Generator, n_copies: int = N_COPIES,
    candidate: str = "candidate",
) -> list[EnvelopeCell]:
    """The cells of one problem (a checkpoint without a candidate or a reference run is left out)."""
    cells = []
    for checkpoint in checkpoints:
        ours = metric_at(entry.candidate, entry.optimum, checkpoint)
        theirs = {r: metric_at(records, entry.optimum, checkpoint) for r, records in entry.references.items()}
        theirs = {r: values for r, values in theirs.items() if values}
        seeds = sorted(set(ours).intersection(*theirs.values())) if theirs else []
        if not seeds:
            continue
        values = {candidate: np.array([ours[s] for s in seeds])}
        values.update({r: np.array([v[s] for s in seeds]) for r, v in theirs.items()})
        tol = tolerance(entry.optimum)
        references = {r: values[r] for r in theirs}
        cells.append(EnvelopeCell(
            entry.spec.name, checkpoint, len(seeds), {s: (mean_value(v), tail_value(v)) for s, v in values.items()},
            compare("mean", values[candidate], references, tol, rng, n_copies),
            compare("p90", values[candidate], references, tol, rng, n_copies),
        ))
    return cells


def relative_regrets(cells: Sequence[EnvelopeCell], checkpoints: Sequence[int]) -> dict[str, dict[int, list[float]]]:
    """{sampler: {checkpoint: [its mean / the smallest mean of the cell]}} over the cells whose
    smallest mean is positive."""
    ratios: dict[str, dict[int, list[float]]] = {}
    for cell in cells:
        means = {sampler: summary[0] for sampler, summary in cell.summaries.items()}
        best = min(means.values())
        if not best > 0:
            continue
        for sampler, mean in means.items():
            ratios.setdefault(sampler, {c: [] for c in checkpoints})[cell.checkpoint].append(mean / best)
    return ratios


def stuck_seed_sets(
    entry: EnvelopeRuns, candidate: str, stuck_trials: int = STUCK_TRIALS
) -> dict[str, tuple[list[Record], set[int]]]:
    """{sampler: (its runs, its stuck seeds)} of the candidate (under ``candidate``), the
    references and the peers that have runs."""
    wrong = wrong_combinations(combination_bests(entry.spec, entry.stored))
    runs = {candidate: entry.candidate, **entry.references, **entry.peers}
    return {s: (records, set(stuck_seeds(records, entry.spec, wrong, stuck_trials))) for s, records in runs.items() if records}


def stuck_counts(stuck: Mapping[str, tuple[list[Record], set[int]]]) -> dict[str, tuple[int, int]]:
    """{sampler: (stuck seeds, seeds)} of ``stuck_seed_sets``."""
    return {s: (len(seeds), len(records)) for s, (records, seeds) in stuck.items()}


def stuck_regrets(
    entry: EnvelopeRuns, stuck: Mapping[str, tuple[list[Record], set[int]]], checkpoint: int
) -> dict[str, tuple[float, float]]:
    """{sampler: (mean metric at ``checkpoint`` of its stuck seeds, of its other seeds)}, NaN
    where a group is empty: whether staying on a wrong combination costs on this problem (a
    combination can be wrong by the lab's rule and still hold values as good as the right one's)."""
    regrets = {}
    for sampler, (records, seeds) in stuck.items():
        values = metric_at(records, entry.optimum, checkpoint)
        if not values:
            continue
        groups = ([v for s, v in values.items() if s in seeds], [v for s, v in values.items() if s not in seeds])
        regrets[sampler] = (
            float(np.mean(groups[0])) if groups[0] else math.nan, float(np.mean(groups[1])) if groups[1] else math.nan
        )
    return regrets


def problem_sets(names: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The named groups (of :data:`.registry.GROUPS`) with their problems, and the problems named
    one by one as one more set; each problem once."""
    sets: dict[str, list[str]] = {}
    seen: set[str] = set()
    for name in names:
        label, members = (name, list(GROUPS[name])) if name in GROUPS else (SELECTED, [name])
        fresh = [m for m in members if m not in seen]
        seen.update(fresh)
        if fresh:
            sets.setdefault(label, []).extend(fresh)
    return list(sets.items())


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EnvelopeResult:
    """Everything the report prints: the cells of each set, and per problem the stuck seeds of
    each sampler (``candidate``, ``references``, ``peers``: the labels, the candidate's first)."""

    candidate: str
    references: tuple[str, ...]
    peers: tuple[str, ...]
    checkpoints: tuple[int, ...]
    sets: list[tuple[str, list[EnvelopeCell]]]
    stuck: dict[str, dict[str, tuple[int, int]]]
    n_copies: int
    copy_seed: int
    stuck_trials: int = STUCK_TRIALS
    # Per problem and sampler, the mean metric of the stuck and of the other seeds at the last checkpoint.
    stuck_regrets: dict[str, dict[str, tuple[float, float]]] = dataclasses.field(default_factory=dict)

    def cells(self) -> list[EnvelopeCell]:
        return [cell for _, cells in self.sets for cell in cells]


def candidate_label(candidate: str, references: Sequence[str]) -> str:
    """The candidate's name, marked where a reference has the same name (runs of another folder)."""
    return f"{candidate} (candidate)" if candidate in references else candidate


def envelope(
    candidate_out: Path, references_out: Path, names: Sequence[str], candidate: str, references: Sequence[str] = REFERENCES,
    peers: Sequence[str] = PEERS, checkpoints: Sequence[int] = CHECKPOINTS, max_seeds: int | None = None,
    stuck_trials: int = STUCK_TRIALS, n_copies: int = N_COPIES, copy_seed: int = COPY_SEED,
) -> EnvelopeResult:
    """The envelope of ``candidate`` (runs in ``candidate_out``) against ``references`` (runs in
    ``references_out``, with the peers') on the problems and groups ``names``."""
    label = candidate_label(candidate, references)
    rng = np.random.default_rng(copy_seed)
    sets, stuck, regrets = [], {}, {}
    for set_name, problems in problem_sets(names):
        entries = collect_envelope(candidate_out, references_out, problems, candidate, references, peers, max_seeds)
        sets.append((set_name, [cell for e in entries for cell in envelope_cells(e, checkpoints, rng, n_copies, label)]))
        for e in entries:
            seed_sets = stuck_seed_sets(e, label, stuck_trials)
            stuck[e.spec.name] = stuck_counts(seed_sets)
            regrets[e.spec.name] = stuck_regrets(e, seed_sets, max(checkpoints))
    return EnvelopeResult(
        label, tuple(references), tuple(peers), tuple(checkpoints), sets, stuck, n_copies, copy_seed, stuck_trials, regrets,
    )


def _number(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3g}"


def _comparison_text(comparison: Comparison) -> str:
    return f"{comparison.difference:+.3g} (limit {comparison.limit:.2g}, {comparison.better})"


def cell_rows(result: EnvelopeResult) -> list[list[str]]:
    """One row per problem and checkpoint."""
    rows = []
    for cell in result.cells():
        samplers = [result.candidate, *result.references]
        summaries = [
            f"{_number(cell.summaries[s][0])} / {_number(cell.summaries[s][1])}" if s in cell.summaries else "-" for s in samplers
        ]
        fails = ", ".join(c.statistic for c in (cell.mean, cell.tail) if c.fails)
        copies = cell.mean.copy_failures + cell.tail.copy_failures
        rows.append([
            cell.problem, str(cell.checkpoint), str(cell.seeds), *summaries, _comparison_text(cell.mean),
            _comparison_text(cell.tail), f"**{fails}**" if fails else "", _number(copies),
        ])
    return rows


def failure_counts(cells: Sequence[EnvelopeCell]) -> tuple[int, int, float]:
    """(failing mean cells, failing tail cells, expected failing cells of a copy)."""
    means = sum(cell.mean.fails for cell in cells)
    tails = sum(cell.tail.fails for cell in cells)
    return means, tails, float(sum(cell.mean.copy_failures + cell.tail.copy_failures for cell in cells))


def summary_lines(result: EnvelopeResult) -> list[str]:
    """The counts of failing cells (all, and per set), the copy's, and the stuck-seed totals."""
    cells = result.cells()
    means, tails, copies = failure_counts(cells)
    lines = [
        f"- Failing cells: **{means + tails} of {2 * len(cells)}** ({means} of {len(cells)} means, {tails} of {len(cells)} "
        f"90th-percentile seeds). A copy of the better reference would fail **{copies:.1f}** (expected; {result.n_copies} "
        f"bootstrap rounds of both references per cell, seed {result.copy_seed}).",
    ]
    for set_name, set_cells in result.sets:
        m, t, c = failure_counts(set_cells)
        ratios = relative_regrets(set_cells, result.checkpoints)
        below = _relative_below_references(ratios, result)
        lines.append(f"- {set_name}: {m + t} of {2 * len(set_cells)} cells fail ({m} means, {t} tails), a copy {c:.1f}; "
                     f"the candidate's mean relative regret below both references at every checkpoint: {below}.")
    lines += stuck_summary(result)
    return lines


def _relative_below_references(ratios: Mapping[str, Mapping[int, list[float]]], result: EnvelopeResult) -> str:
    if result.candidate not in ratios:
        return "-"
    for c in result.checkpoints:
        ours = ratios[result.candidate][c]
        for reference in result.references:
            theirs = ratios.get(reference, {}).get(c, [])
            if not ours or not theirs or np.mean(ours) >= np.mean(theirs):
                return "no"
    return "yes"


def stuck_summary(result: EnvelopeResult) -> list[str]:
    """The total of stuck seeds per sampler, and the problems where the candidate's share of stuck
    seeds is above the better of the peers' shares."""
    totals: dict[str, list[int]] = {}
    above = []
    for problem, counts in result.stuck.items():
        for sampler, (stuck, seeds) in counts.items():
            total = totals.setdefault(sampler, [0, 0])
            total[0], total[1] = total[0] + stuck, total[1] + seeds
        if share_above_peers(counts, result.candidate, result.peers) == "no":
            above.append(problem)
    text = "; ".join(f"{s} {k} of {n}" for s, (k, n) in totals.items())
    return [
        f"- Stuck seeds, total over {len(result.stuck)} problems: {text}.",
        f"- Problems where the candidate's share of stuck seeds is above the better of {' and '.join(result.peers)}'s: "
        + (", ".join(above) if above else "none") + ".",
    ]


def share_above_peers(counts: Mapping[str, tuple[int, int]], candidate: str, peers: Sequence[str]) -> str:
    """"yes" where the candidate's share of stuck seeds (``counts``: sampler -> (stuck, seeds)) is at
    most the better peer's, "no" above, "-" unknown (no seeds of the candidate or of any peer)."""
    shares = {s: k / n for s, (k, n) in counts.items() if n}
    peer_shares = [shares[p] for p in peers if p in shares]
    if candidate not in shares or not peer_shares:
        return "-"
    return "yes" if shares[candidate] <= min(peer_shares) else "no"


def relative_rows(result: EnvelopeResult) -> list[list[str]]:
    """Per set and sampler: the mean relative regret at each checkpoint (with its problem count)."""
    rows = []
    for set_name, cells in result.sets:
        for sampler, by_checkpoint in relative_regrets(cells, result.checkpoints).items():
            rows.append([set_name, sampler, *(
                f"{np.mean(by_checkpoint[c]):.3f} ({len(by_checkpoint[c])})" if by_checkpoint[c] else "-"
                for c in result.checkpoints
            )])
    return rows


def stuck_rows(result: EnvelopeResult) -> list[list[str]]:
    samplers = [result.candidate, *result.references, *result.peers]
    return [
        [problem, *(f"{counts[s][0]} of {counts[s][1]}" if s in counts else "-" for s in samplers),
         share_above_peers(counts, result.candidate, result.peers)]
        for problem, counts in result.stuck.items()
    ]


def stuck_regret_rows(result: EnvelopeResult) -> list[list[str]]:
    samplers = [result.candidate, *result.references, *result.peers]
    return [
        [problem, *(f"{_number(by_sampler[s][0])} / {_number(by_sampler[s][1])}" if s in by_sampler else "-" for s in samplers)]
        for problem, by_sampler in result.stuck_regrets.items()
    ]


def write_envelope_report(path: Path, result: EnvelopeResult, command: str = "") -> str:
    """Write the Markdown report to ``path`` and return it."""
    samplers = [result.candidate, *result.references]
    lines = [
        f"# Envelope: {result.candidate} against the better of {' and '.join(result.references)}",
        "",
        "Definitions: docs/suite.md (\"The envelope report\") and benchmarks/vpbo_benchmarks/envelope_report.py. "
        "Metric: simple regret of the incumbent (its value where no optimum is known), lower is better; "
        "seeds: those every sampler of the cell reaches, paired by seed number.",
        *([f"Regenerate: `{command}`"] if command else []),
        "",
        "## Summary",
        "",
        *summary_lines(result),
        "",
        "## Cells: mean / 90th-percentile seed; candidate - better reference (limit: 2 s.e. + tolerance)",
        "",
        *markdown_table(
            ["problem", "trial", "seeds", *samplers, "mean: difference", "p90: difference", "fails", "copy fails"],
            cell_rows(result),
        ),
        "",
        "## Mean relative regret (each mean over the best of the three on the problem; problems counted)",
        "",
        *markdown_table(["set", "sampler", *(f"trial {c}" for c in result.checkpoints)], relative_rows(result)),
        "",
        f"## Stuck seeds: the incumbent more than {result.stuck_trials} consecutive trials on one wrong combination",
        "",
        *markdown_table(["problem", *samplers, *result.peers, "candidate's share <= better peer's"], stuck_rows(result)),
        "",
        f"## Stuck seeds' cost: mean metric at trial {max(result.checkpoints)}, stuck seeds / the other seeds",
        "",
        *markdown_table(["problem", *samplers, *result.peers], stuck_regret_rows(result)),
    ]
    text = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text
