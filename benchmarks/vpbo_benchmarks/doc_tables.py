"""Condensed Markdown tables of stored benchmark runs for the README and the docs pages, and the
rewriting of every marked table in those pages (``vpbo-benchmark table`` and ``vpbo-benchmark
docs``).

A page marks a table with ``<!-- table: ARGS -->`` ... ``<!-- /table -->``; ARGS are the
arguments of ``vpbo-benchmark table``. ``docs`` replaces what lies between the markers with the
table that ARGS give and a line that names the command, so a page never holds a table pasted by
hand. The runs are read through :func:`.report.collect` (and the hypervolume and overhead
modules' own loaders), never from the files directly. The sampler's own tables (its arguments,
its settings) are drawn from the code by ``docs/tables.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import shlex
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vpbo_benchmarks import overhead
from vpbo_benchmarks.hypervolume import hypervolume_table
from vpbo_benchmarks.report import ProblemRuns, collect, format_mean_se, lower_is_better, mean_se_over_runs, trace
from vpbo_benchmarks.suite_report import tail_seed

COMMAND = "vpbo-benchmark"
MARKER = re.compile(r"(<!-- table: (?P<args>.*?) -->\n)(?P<body>.*?)(<!-- /table -->)", re.DOTALL)
DOC_PAGES = ("README.md", "docs/*.md")  # the pages ``docs`` rewrites, relative to the repository
SAMPLER_LABELS = {
    "vpbo": "VPBOSampler",
    "vpbo-paper": "VPBO, paper preset",
    "vpbo-noinit": "VPBO without search init",
    "vpbo-intersection": "VPBO on the intersection only",
    "vpbo-parego": "VPBO (ParEGO)",
    # The pinned references (vpbo_variants.py): the every-seed defaults (vpbo-v2), the robust
    # defaults before them (vpbo-v1) and the defaults before those (vpbo-v0, with its ablations);
    # the every-seed changes put back alone.
    "vpbo-v2": "VPBO, the every-seed defaults",
    "vpbo-v1": "VPBO, the robust defaults",
    "vpbo-nostall": "VPBO, no stall safeguard",
    "vpbo-v0": "VPBO, the defaults before the robust ones",
    "vpbo-v0-noinit": "VPBO earlier, no search init",
    "vpbo-v0-standardize": "VPBO earlier, plain standardisation",
    "vpbo-v0-norefine": "VPBO earlier, no refinement of x",
    "vpbo-v0-200cand": "VPBO earlier, 200 candidates",
    "vpbo-v0-5restarts": "VPBO earlier, 5 restarts",
    "vpbo-v0-intersection": "VPBO earlier, intersection only",
    "vpbo-v0-parego": "VPBO earlier (ParEGO)",
    "vpbo-init24": "VPBO (robust defaults), 24-trial design",
    "vpbo-noearly": "VPBO (robust defaults), refits every 10 trials",
    "vpbo-noprior": "VPBO (robust defaults), maximum likelihood",
    # Stored runs of samplers that left the lab with their settings.
    "vpbo-gpsampler-prior": "VPBO (robust defaults), GPSampler's priors",
    "vpbo-relevance": "VPBO (robust defaults), categorical relevance",
    "vpbo-stall": "VPBO, 10-trial design",
    "vpbo-local": "VPBO (robust defaults), local candidates",
    "tpe": "TPESampler",
    "tpe-group": "TPESampler (multivariate, group)",
    "tpe-auto": "TPESampler (AutoSampler's settings)",
    "catcmawm": "CatCMAwM",
    "ax": "Ax (BoTorch)",
    "gp": "GPSampler",
    "random": "RandomSampler",
    "smac": "SMAC3",
    "cocabo-0.5": "CoCaBO (lambda 0.5)",
    "cocabo-auto": "CoCaBO",
    "cocabo-s": "CoCaBO-S",
    "randombo": "RandomBO",
    "onehot-bo": "One-hot BO",
    "exp3bo": "EXP3BO",
    "banditbo": "Bandit-BO",
    "oracle": "Oracle",
}


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _label(sampler: str) -> str:
    return SAMPLER_LABELS.get(sampler, sampler)


def _problem_label(entry: ProblemRuns) -> str:
    metric = "regret" if entry.problem.optimum is not None else f"best value, {entry.problem.directions[0]}"
    return f"{entry.problem.name} ({metric})"


def _metric_cells(
    entry: ProblemRuns, sampler: str, trials: Sequence[int], tail: bool = False
) -> list[tuple[float, str]]:
    """(mean, cell) of the metric after each number of ``trials`` over the sampler's runs; with
    ``tail`` the cell also gives the 90th-percentile run (``suite_report.tail_seed``), the one a
    user with an unlucky seed gets."""
    records = entry.oracle if sampler == "oracle" else entry.runs.get(sampler, [])
    if not records:
        return [(math.nan, "-")] * len(trials)
    traces = [trace(r, entry.problem) for r in records]
    mean, se, count = mean_se_over_runs(traces)
    cells = []
    for n in trials:
        if n - 1 >= len(mean) or count[n - 1] == 0:
            cells.append((math.nan, "-"))
            continue
        partial = f" ({count[n - 1]} runs)" if count[n - 1] < len(records) else ""
        text = format_mean_se(mean[n - 1], se[n - 1])
        if tail:
            at_n = [float(t[n - 1]) for t in traces if len(t) >= n]
            # the tail of a maximised problem is its low side: the seed-ranking runs on the loss
            sign = 1.0 if lower_is_better(entry.problem) else -1.0
            text += f" / {sign * tail_seed([sign * v for v in at_n])[0]:.3g}"
        cells.append((float(mean[n - 1]), text + partial))
    return cells


def _bold_best(cells: list[tuple[float, str]], lower_better: bool) -> list[str]:
    """The cells' text with the best mean in bold (all tied bests; none if every mean ties)."""
    means = np.array([m for m, _ in cells], dtype=float)
    finite = means[np.isfinite(means)]
    if len(finite) < 2 or np.ptp(finite) == 0:
        return [text for _, text in cells]
    best = finite.min() if lower_better else finite.max()
    return [f"**{text}**" if mean == best else text for mean, text in cells]


def _seconds_per_trial(entry: ProblemRuns, sampler: str, n_init: int) -> str:
    """Median over the seeds of each run's median sampler seconds per trial after ``n_init``."""
    per_run = [
        float(np.median(r["sampler_seconds"][n_init:]))
        for r in entry.runs.get(sampler, [])
        if len(r["sampler_seconds"]) > n_init
    ]
    return f"{np.median(per_run):.2g}" if per_run else "-"


def long_table(
    collected: Sequence[ProblemRuns], samplers: Sequence[str], trials: Sequence[int], seconds_after: int | None
) -> str:
    """Rows (problem, sampler), columns the metric after each number of trials (bold: the best
    mean of the problem at that number, Oracle excluded), and optionally the sampler's median
    seconds per trial after ``seconds_after`` trials."""
    header = ["problem", "sampler", "seeds", *[f"trial {n}" for n in trials]]
    header += [] if seconds_after is None else ["median sampler s/trial"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for entry in collected:
        present = [s for s in samplers if (entry.oracle if s == "oracle" else entry.runs.get(s))]
        columns = {s: _metric_cells(entry, s, trials) for s in present}
        compared = [s for s in present if s != "oracle"]
        bolded: dict[str, list[str]] = {s: [] for s in present}
        for k in range(len(trials)):
            texts = _bold_best([columns[s][k] for s in compared], lower_is_better(entry.problem))
            for s, text in zip(compared, texts):
                bolded[s].append(text)
        if "oracle" in present:
            bolded["oracle"] = [text for _, text in columns["oracle"]]
        for row, s in enumerate(present):
            records = entry.oracle if s == "oracle" else entry.runs[s]
            cells = [_problem_label(entry) if row == 0 else "", _label(s), str(len(records)), *bolded[s]]
            if seconds_after is not None:
                cells.append("-" if s == "oracle" else _seconds_per_trial(entry, s, seconds_after))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def wide_table(
    collected: Sequence[ProblemRuns], samplers: Sequence[str], trials: Sequence[int], tail: bool = False
) -> str:
    """Rows (problem, number of trials), one column per sampler (bold: the best mean); with
    ``tail`` each cell is "mean ± s.e. / 90th-percentile seed"."""
    header = ["problem", "trials", *[_label(s) for s in samplers]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for entry in collected:
        columns = [_metric_cells(entry, s, trials, tail) for s in samplers]
        for k, n in enumerate(trials):
            texts = _bold_best([column[k] for column in columns], lower_is_better(entry.problem))
            lines.append("| " + " | ".join([_problem_label(entry) if k == 0 else "", str(n), *texts]) + " |")
    return "\n".join(lines)


def table_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{COMMAND} table", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A condensed Markdown table of the stored runs of --out, printed (writes nothing); the marked "
        "tables of README.md and docs/*.md are its output (`docs` reruns them).\n\nExample: "
        f"{COMMAND} table wide --out benchmarks/results-suite --problems func2c --samplers vpbo,gp --trials 100",
    )
    parser.add_argument(
        "kind",
        choices=["long", "wide", "hypervolume", "overhead"],
        help="long: a row per problem and sampler; wide: a row per problem and number of trials, a column "
        "per sampler; hypervolume: of multi-objective runs; overhead: the stored overhead run (--out its "
        "folder)",
    )
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"), help="folder of the stored runs")
    parser.add_argument("--file", default=overhead.OVERHEAD_FILE, help="overhead: the JSON file in --out")
    parser.add_argument("--problems", type=_names, default=[])
    parser.add_argument("--samplers", type=_names, default=[])
    parser.add_argument(
        "--trials",
        type=lambda s: [int(v) for v in _names(s)],
        default=[50, 100, 224],
        help="numbers of trials (counted from the first) of the columns or rows",
    )
    parser.add_argument("--seeds", type=int, default=None, help="only seeds 0 .. N-1 (default: all stored)")
    parser.add_argument(
        "--tail", action="store_true", help="wide: each cell also gives the 90th-percentile seed (mean ± s.e. / p90)"
    )
    parser.add_argument(
        "--seconds-after",
        type=int,
        default=None,
        help="long: add the median sampler seconds per trial after this many trials",
    )
    return parser


RunCache = dict[tuple[Path, str, "int | None"], list[ProblemRuns]]


def collect_cached(
    out: Path, problems: Sequence[str], samplers: Sequence[str], seeds: int | None, cache: RunCache
) -> list[ProblemRuns]:
    """:func:`.report.collect` of each problem once per ``cache`` (every sampler folder is loaded
    anyway), narrowed to ``samplers``: the pages' tables share their problems' runs."""
    collected = []
    for name in problems:
        key = (out, name, seeds)
        if key not in cache:
            cache[key] = collect(out, [name], [], [], seeds)
        for entry in cache[key]:
            runs = {s: entry.stored[s] for s in samplers if s != "oracle" and s in entry.stored}
            collected.append(dataclasses.replace(entry, runs=runs))
    return collected


def render_table(arguments: Sequence[str], root: Path = Path("."), cache: RunCache | None = None) -> str:
    """The Markdown table that ``vpbo-benchmark table ARGUMENTS`` prints (paths from ``root``;
    ``cache`` keeps the loaded runs between tables)."""
    args = table_parser().parse_args(list(arguments))
    out = root / args.out
    if args.kind == "overhead":
        results, record = overhead.load_results(out / args.file)
        return overhead.overhead_table(
            results, record["gemm_flops_per_second"], record["n_candidates"], record["max_enumerated_combinations"]
        )
    if not args.problems or not args.samplers:
        raise SystemExit(f"{COMMAND} table {args.kind}: --problems and --samplers are needed")
    if args.kind == "hypervolume":
        return hypervolume_table(out, args.problems, args.samplers, args.trials)
    collected = collect_cached(out, args.problems, args.samplers, args.seeds, {} if cache is None else cache)
    if not collected:
        raise SystemExit(f"{COMMAND} table: no stored runs of {', '.join(args.problems)} in {out}")
    if args.kind == "wide":
        return wide_table(collected, args.samplers, args.trials, args.tail)
    return long_table(collected, args.samplers, args.trials, args.seconds_after)


def regenerate_page(text: str, root: Path, cache: RunCache | None = None) -> str:
    """The page with every marked table regenerated."""
    cache = {} if cache is None else cache

    def replace(match: re.Match[str]) -> str:
        arguments = match.group("args").strip()
        table = render_table(shlex.split(arguments), root, cache)
        return f"{match.group(1)}{table}\n\nTable: `{COMMAND} table {arguments}`\n{match.group(4)}"

    return MARKER.sub(replace, text)


def doc_pages(root: Path) -> list[Path]:
    return sorted({p for pattern in DOC_PAGES for p in root.glob(pattern)})


def regenerate_docs(root: Path, check: bool = False) -> list[Path]:
    """Rewrite the marked tables of every page under ``root``; return the pages that changed (with
    ``check``, nothing is written: the pages that are out of date)."""
    changed = []
    cache: RunCache = {}
    for page in doc_pages(root):
        text = page.read_text(encoding="utf-8")
        if MARKER.search(text) is None:
            continue
        updated = regenerate_page(text, root, cache)
        if updated != text:
            changed.append(page)
            if not check:
                page.write_text(updated, encoding="utf-8")
    return changed
