"""The command line, all of its wiring: ``vpbo-benchmark VERB ...`` (also ``python -m vpbo_benchmarks``).

Six verbs, none with sub-verbs:

- ``list``: what the lab can run (problems, groups, problem sets, samplers; ``--trial-states``: the
  pruned-and-failed-trial tasks); writes nothing.
- ``run``: every missing (problem, sampler, seed) run, stored under ``--out`` (``--trial-states``:
  of the pruned-and-failed-trial tasks).
- ``report``: one report generator over stored runs; ``--sections`` chooses what it covers
  (summary, suite, envelope, ledger, repeats, trial-kinds, hypervolume, trial-states), each
  section's own options in an argument group of the one parser.
- ``table``: one condensed Markdown table of stored runs, printed (the tables of the docs).
- ``docs``: regenerate (``--check``: compare) every marked table of README.md and docs/*.md.
- ``overhead``: the samplers' time per trial: measure and store, or (``--plot``) tabulate.

Each verb has a function that adds its parser and a handler that runs it; the modules they call
know nothing of argparse. Paths are relative to the folder the command runs in (the repository
root for the stored runs of ``benchmarks/``).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeAlias

from optuna_vpbo import VPBOSampler
from vpbo_benchmarks import (
    catalogue,
    doc_tables,
    envelope_report,
    ledger_report,
    overhead,
    repeats_report,
    suite_report,
    trial_kinds,
    trial_state_runs,
    trial_states,
    trial_states_report,
)
from vpbo_benchmarks.hypervolume import hypervolume_table
from vpbo_benchmarks.oracle import ORACLE
from vpbo_benchmarks.plots import SMOOTH_WINDOW, write_figures
from vpbo_benchmarks.registry import GROUPS, PROBLEM_NAMES, PROBLEM_SETS, expand_groups
from vpbo_benchmarks.report import REPORT_NAME, collect, default_checkpoints, write_report
from vpbo_benchmarks.runner import run
from vpbo_benchmarks.samplers import SAMPLER_FACTORIES

DEFAULT_OUT = Path("benchmarks/results")
DEFAULT_OVERHEAD_OUT = Path("benchmarks/results-overhead")
LEDGER_NAME = "ledger.md"  # docs/ledger.md: `report --sections ledger --out docs`
# The extra of benchmarks/pyproject.toml that brings each optional top-level module the commands
# import: the heavy peers only (every other module is a dependency of the lab).
EXTRA_OF_MODULE = dict.fromkeys(["cmaes", "ax", "botorch", "gpytorch", "torch"], "peers")

Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
Handler = Callable[[argparse.Namespace], None]


def names(text: str) -> list[str]:
    """A comma-separated list."""
    return [t.strip() for t in text.split(",") if t.strip()]


def integers(text: str) -> list[int]:
    """A comma-separated list of integers."""
    return [int(v) for v in names(text)]


def exit_for_missing_module(error: ModuleNotFoundError) -> NoReturn:
    """Exit with the extra to install when ``error`` is an optional dependency; else re-raise."""
    module = (error.name or "").partition(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        raise error
    raise SystemExit(
        f"vpbo-benchmark: the optional dependency {module!r} is not installed ({error}); "
        f'install the "{extra}" extra: pip install "optuna-vpbo-benchmarks[{extra}]" '
        f'(from a clone, at the repository root: pip install "./benchmarks[{extra}]")'
    ) from None


def main(argv: list[str] | None = None) -> None:
    """The console script: the verb's handler, with a one-line message for a missing optional
    dependency and a quiet exit when the reader of stdout goes away (``vpbo-benchmark list | head``)."""
    try:
        dispatch(argv)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler
    except ModuleNotFoundError as missing:
        exit_for_missing_module(missing)
    except BrokenPipeError:
        # Python would flush stdout again at exit and print the error: point it at /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(128 + 13)  # as a process killed by SIGPIPE reports



def dispatch(argv: list[str] | None) -> None:
    """Parse ``argv`` and run its verb; ``table`` parses its own arguments (``docs`` reads the same
    arguments from the pages)."""
    parser, handlers = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "table":
        print(doc_tables.render_table(rest))
        return
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    handlers[args.command](args)


def typed_command(verb: str) -> str:
    """The command as typed (for the report's header) when the console script runs ``verb``, else ``""``."""
    return "vpbo-benchmark " + " ".join(sys.argv[1:]) if sys.argv[1:2] == [verb] else ""



def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    """The parser of every verb, and each verb's handler."""
    parser = argparse.ArgumentParser(
        prog="vpbo-benchmark", description="Benchmarks of VPBOSampler: run problems, store the runs, report on them. "
        "Paths are relative to the folder the command runs in (the repository root for the stored runs of benchmarks/). "
        "Each verb's options: vpbo-benchmark VERB --help.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="VERB")
    handlers: dict[str, Handler] = {}
    handlers.update(add_list(commands))
    handlers.update(add_run(commands))
    handlers.update(add_report(commands))
    commands.add_parser(
        "table", help="one condensed Markdown table of stored runs, printed (see `table --help`)", add_help=False
    )
    for add in (add_docs, add_overhead):
        handlers.update(add(commands))
    return parser, handlers


# --------------------------------------------------------------------------------------------
# list, docs
# --------------------------------------------------------------------------------------------


def add_list(commands: Subcommands) -> dict[str, Handler]:
    parser = add_verb(
        commands, "list", "the problems, groups, problem sets and samplers (--trial-states: the trial-state tasks)",
        "Prints what the lab can run: reads the lab's registry and its stored catalogue; writes nothing. A problem's "
        f"space is what {catalogue.PROBES} random trials of it show, as stored with the lab (--probe: run them now). "
        "With --trial-states: the pruned-and-failed-trial tasks, their half or set, family and space.",
        "vpbo-benchmark list --problems numeric",
    )
    parser.add_argument(
        "--problems", type=names, default=list(PROBLEM_NAMES), help="only these problems (or groups, e.g. numeric)"
    )
    parser.add_argument(
        "--probe", action="store_true",
        help="probe each problem's space now rather than read the stored catalogue (seconds per problem)",
    )
    parser.add_argument("--trial-states", action="store_true", help="list the pruned-and-failed-trial tasks instead")
    return {"list": list_problems_and_samplers}


def list_problems_and_samplers(args: argparse.Namespace) -> None:
    if args.trial_states:
        print("\n".join(trial_state_runs.problem_lines()))
        return
    print(f"Problems (space from {catalogue.PROBES} random probe trials):\n")
    print("\n".join(catalogue.problem_lines(expand_groups(args.problems), probe=args.probe)))
    print("\nGroups (for --problems, and report --sections suite --half):\n")
    print("\n".join(f"{group}: {', '.join(members)}" for group, members in GROUPS.items()))
    print("\nProblem sets (groups frozen by a rule):\n")
    print("\n".join(f"{s.name} (frozen {s.frozen}): {s.rule}" for s in PROBLEM_SETS.values()))
    print("\nSamplers:\n")
    print("\n".join(catalogue.sampler_lines()))


def add_verb(
    commands: Subcommands, verb: str, summary: str, description: str, example: str, details: str = ""
) -> argparse.ArgumentParser:
    """The parser of ``verb``: its one-line ``summary``, and a help of its ``description`` (wrapped), ``details``
    (as they are) and an ``example``."""
    return commands.add_parser(
        verb, help=summary, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"{textwrap.fill(description, 100)}\n\n{details}Example: {example}",
    )


def add_docs(commands: Subcommands) -> dict[str, Handler]:
    parser = add_verb(
        commands, "docs", "regenerate every marked table of README.md and docs/*.md from the stored runs",
        "Each marked table of README.md and docs/*.md names the `vpbo-benchmark table` command that made it; "
        "docs reruns each over the stored runs under benchmarks/ and rewrites the table in place (--check: only "
        "compares, exit 1 when a page is out of date).", "vpbo-benchmark docs --check",
    )
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository")
    parser.add_argument("--check", action="store_true", help="only list the pages that are out of date (exit 1)")
    return {"docs": docs}


def docs(args: argparse.Namespace) -> None:
    """Regenerate (or with --check, only compare) the marked tables of the pages."""
    changed = doc_tables.regenerate_docs(args.root, check=args.check)
    for page in changed:
        print(f"{'out of date' if args.check else 'rewrote'}: {page}")
    if args.check and changed:
        raise SystemExit(1)
    if not changed:
        print("every marked table is up to date")


# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------

RUN_TRIALS = 224
TRIAL_STATES_TRIALS = 100


def add_run(commands: Subcommands) -> dict[str, Handler]:
    parser = add_verb(
        commands, "run", "run every missing (problem, sampler, seed) and store it under --out",
        "Runs each (problem, sampler, seed) that --out does not hold yet and stores it there (a compressed file per "
        "problem and sampler; interrupted runs resume). With --trial-states: the pruned-and-failed-trial tasks "
        "(pruned, failed and NaN trials as real tuning scripts report them) instead of the problems.",
        "vpbo-benchmark run --problems func2c --samplers vpbo,random --seeds 2 --trials 30 --out /tmp/runs",
    )
    parser.add_argument(
        "--problems", type=names, default=None,
        help=f"comma-separated problems or groups, from {', '.join(PROBLEM_NAMES)} (required); with --trial-states: "
        "task names, or tuning / held_out / all (both halves) / misleading / fresh_pruning (default all)",
    )
    parser.add_argument(
        "--samplers", type=names, required=True, help=f"comma-separated, from {', '.join([*SAMPLER_FACTORIES, ORACLE])}"
    )
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1 (default 10)")
    parser.add_argument(
        "--trials", type=int, default=None, help=f"trials per run (default {RUN_TRIALS}; --trial-states: {TRIAL_STATES_TRIALS})"
    )
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--out", type=Path, default=None,
        help=f"folder of the stored runs (default {DEFAULT_OUT}; --trial-states: {trial_states.DEFAULT_OUT})",
    )
    parser.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress bars on stderr (default: when stderr is a terminal)",
    )
    parser.add_argument("--trial-states", action="store_true", help="run the pruned-and-failed-trial tasks")
    return {"run": run_benchmarks}


def run_benchmarks(args: argparse.Namespace) -> None:
    if args.trial_states:
        trial_state_runs.run_trial_states(
            trial_states.resolve_problems(args.problems or ["all"]), args.samplers, range(args.seeds),
            args.trials or TRIAL_STATES_TRIALS, args.out or trial_states.DEFAULT_OUT, args.jobs, args.progress,
        )
        return
    if not args.problems:
        raise SystemExit("vpbo-benchmark run: --problems is required (or --trial-states for the trial-state tasks)")
    run(
        expand_groups(args.problems), args.samplers, range(args.seeds), args.trials or RUN_TRIALS, args.out or DEFAULT_OUT,
        args.jobs, args.progress,
    )


# --------------------------------------------------------------------------------------------
# report: one parser, its sections chosen by --sections
# --------------------------------------------------------------------------------------------

# section: what it covers (the help of --sections)
SECTIONS: dict[str, str] = {
    "summary": "tables and figures of --problems x --samplers into <out>/REPORT.md (--report-name) and <out>/figures",
    "suite": "the broad suite's tables of one --half (or --problems) into <out>/SUITE-<half>.md",
    "envelope": "--candidate against the better of two --references per problem and checkpoint, "
    "into <out>/ENVELOPE-<candidate>.md",
    "ledger": f"per problem of every problem set under --root, the envelope and the stuck seeds, into <out>/{LEDGER_NAME}",
    "repeats": "how often each sampler evaluated a configuration again, into <out>/REPEATS.md",
    "trial-kinds": "how often each kind of VPBO trial (model, exploring, perturbing) beat the run's best, printed",
    "hypervolume": "hypervolume table of multi-objective runs, printed",
    "trial-states": "tables of the stored pruned-and-failed-trial runs, per half or set, into <out>/TRIAL-STATES-*.md",
}
DEFAULT_SECTIONS = ["summary"]


def sections(text: str) -> list[str]:
    """A comma-separated list of sections, each checked against ``SECTIONS``."""
    chosen = names(text)
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"unknown section(s) {', '.join(map(repr, unknown)) or '(none given)'}; choose from {', '.join(SECTIONS)}"
        )
    return chosen


def need(args: argparse.Namespace, section: str, *options: str) -> None:
    """Exit with a clear message when an option ``section`` requires was not given."""
    for option in options:
        if getattr(args, option.lstrip("-").replace("-", "_")) is None:
            raise SystemExit(f"vpbo-benchmark report: the {section} section needs {option}")


def add_report(commands: Subcommands) -> dict[str, Handler]:
    lines = "\n".join(f"  {section:<13} {text}" for section, text in SECTIONS.items())
    parser = add_verb(
        commands, "report", "one report of stored runs; --sections chooses what it covers (default summary)",
        "Reads the stored runs of --out and writes each chosen section's Markdown report (printed too) under --out, "
        "or where --report says; trial-kinds and hypervolume only print. Each section reads only its own option "
        "group below.",
        "vpbo-benchmark report --sections envelope --candidate vpbo --out benchmarks/results-adapt/final "
        "--references vpbo-v1,vpbo-v2 --peers gp,tpe-auto --problems final_held_out --report /tmp/ENVELOPE-vpbo.md",
        f"sections (--sections, comma-separated; default {','.join(DEFAULT_SECTIONS)}):\n{lines}\n\n",
    )
    add_common_report_options(parser)
    add_section_options(parser)
    return {"report": write_sections}


def add_common_report_options(parser: argparse.ArgumentParser) -> None:
    """The options every section of ``report`` reads."""
    parser.add_argument(
        "--sections", type=sections, default=DEFAULT_SECTIONS, help=f"from {', '.join(SECTIONS)} (default summary)"
    )
    parser.add_argument(
        "--out", type=Path, default=None,
        help=f"folder of the stored runs, where the reports go (summary, hypervolume: default {DEFAULT_OUT}; "
        f"trial-states: default {trial_states.DEFAULT_OUT}; ledger: only the report's folder, e.g. docs)",
    )
    parser.add_argument(
        "--problems", type=names, default=None,
        help="problems and groups (summary, envelope, repeats, trial-kinds, hypervolume: required; suite: instead "
        "of a half; trial-states: only these of the half)",
    )
    parser.add_argument(
        "--samplers", type=names, default=None,
        help="sampler names (summary, suite, hypervolume: required; repeats, trial-states: default every stored one)",
    )
    parser.add_argument("--checkpoints", type=integers, default=None, help="the tables' checkpoints (default per section)")
    parser.add_argument("--seeds", type=int, default=None, help="only seeds 0 .. N-1 (default: all stored)")
    parser.add_argument(
        "--report", type=Path, default=None, help="the Markdown file (one file-writing section only; default under --out)"
    )


def add_section_options(parser: argparse.ArgumentParser) -> None:
    """The option groups of ``report`` that only their sections read: summary; suite and trial-states;
    envelope and ledger."""
    summary = parser.add_argument_group("summary")
    summary.add_argument(
        "--n-init", type=int, default=0,
        help="trials counted as the initial design, before iteration 1 (default 0: iterations are trial numbers; "
        "the paper's protocol: 24); checkpoints are iterations after it, default 25, 50, 100, 200, ... and the last",
    )
    summary.add_argument("--figures", type=Path, default=None, help="folder of the PNG figures (default <out>/figures)")
    summary.add_argument("--window", type=int, default=SMOOTH_WINDOW, help="smoothing window (iterations)")
    summary.add_argument("--report-name", default=REPORT_NAME, help="file name of the report in --out (e.g. ABLATION.md)")
    suite = parser.add_argument_group("suite and trial-states")
    suite.add_argument(
        "--half", default=None,
        help=f"suite: a group, from {', '.join(sorted(GROUPS))} (default held_out; with --problems only the report's "
        f"name); trial-states: both (tuning and held_out) or one of {', '.join(trial_states_report.REPORT_FILES)} "
        "(default both)",
    )
    suite.add_argument(
        "--reference", default=None,
        help=f"the reference sampler (suite: default {suite_report.DEFAULT_REFERENCE}; "
        f"trial-states: default {trial_states_report.REFERENCE})",
    )
    suite.add_argument(
        "--stuck-trials", type=int, default=suite_report.STUCK_TRIALS, help="suite, envelope: a seed stuck this long"
    )
    envelope = parser.add_argument_group("envelope and ledger")
    envelope.add_argument("--candidate", default=None, help="envelope (required): the candidate sampler's name in --out")
    envelope.add_argument(
        "--references", type=names, default=list(envelope_report.REFERENCES), help="envelope: two sampler names"
    )
    envelope.add_argument(
        "--references-out", type=Path, default=None, help="envelope: folder of the references' and peers' runs (default --out)"
    )
    envelope.add_argument(
        "--peers", type=names, default=list(envelope_report.PEERS), help="envelope: whose stuck seeds stand beside"
    )
    envelope.add_argument(
        "--copies", type=int, default=envelope_report.N_COPIES, help="envelope, ledger: bootstrap resamples of the copy"
    )
    envelope.add_argument("--copy-seed", type=int, default=envelope_report.COPY_SEED, help="envelope: the copy's seed")
    envelope.add_argument("--root", type=Path, default=Path("."), help="ledger: the repository root (the stored runs' folders)")
    add_trial_section_options(parser)


def add_trial_section_options(parser: argparse.ArgumentParser) -> None:
    """The option groups of the trial-kinds and trial-states sections of ``report``."""
    kinds = parser.add_argument_group("trial-kinds")
    kinds.add_argument("--sampler", default="vpbo", help="the stored sampler's name")
    kinds.add_argument("--late", type=int, default=50, help="the second count starts at this trial")
    kinds.add_argument("--n-startup", type=int, default=16, help="the replayed initial design")
    kinds.add_argument("--stall-trials", type=int, default=10, help="the replayed stall")
    kinds.add_argument("--no-perturbation", action="store_true", help="replay without perturbing trials")
    kinds.add_argument("--perturbation-backoff", type=int, default=4, help="the replayed perturbation backoff (0: none)")
    kinds.add_argument(
        "--stall-tolerance", type=float, default=1e-6, help="the replayed stall tolerance of conditional spaces (0: none)"
    )
    states = parser.add_argument_group("trial-states")
    states.add_argument(
        "--compute-peers", type=names, default=None, help="equal compute against these peers (default: every one)"
    )
    states.add_argument(
        "--design-trials", type=int, default=trial_states_report.DESIGN_TRIALS, help="failed share counted from this trial number"
    )


# section: its handler
SECTION_WRITERS: dict[str, Handler] = {}
FILE_SECTIONS = {"summary", "suite", "envelope", "ledger", "repeats"}


def write_sections(args: argparse.Namespace) -> None:
    """Each chosen section, in the order given."""
    if args.report is not None and len(FILE_SECTIONS.intersection(args.sections)) > 1:
        raise SystemExit("vpbo-benchmark report: --report names one file: choose one section that writes a report")
    for section in args.sections:
        SECTION_WRITERS[section](args)


def write_summary(args: argparse.Namespace) -> None:
    """Tables into <out>/REPORT.md (printed too) and the figures into --figures (<out>/figures)."""
    need(args, "summary", "--problems", "--samplers")
    out = args.out or DEFAULT_OUT
    notes: list[str] = []
    collected = collect(out, args.problems, args.samplers, notes, args.seeds)
    checkpoints = default_checkpoints(collected, args.n_init) if args.checkpoints is None else args.checkpoints
    figures_folder = out / "figures" if args.figures is None else args.figures
    figures = write_figures(collected, figures_folder, args.samplers, notes, args.n_init, args.window)
    path = args.report or out / args.report_name
    print(write_report(path, collected, args.samplers, checkpoints, figures, notes, args.n_init))


def write_hypervolume(args: argparse.Namespace) -> None:
    need(args, "hypervolume", "--problems", "--samplers")
    checkpoints = args.checkpoints or [50, 100]
    print(hypervolume_table(args.out or DEFAULT_OUT, args.problems, args.samplers, checkpoints))


def write_suite_report(args: argparse.Namespace) -> None:
    """The report of one half (or of --problems), written and printed."""
    need(args, "suite", "--out", "--samplers")
    half = args.half or "held_out"
    if half not in GROUPS:
        raise SystemExit(f"vpbo-benchmark report: the suite section's --half is a group, from {', '.join(sorted(GROUPS))}")
    label = "selected-problems" if args.problems else half
    path = args.report or args.out / f"SUITE-{label}.md"
    collected = suite_report.collect_suite(args.out, args.problems or GROUPS[half], args.samplers, args.seeds)
    checkpoints = args.checkpoints or list(suite_report.SUITE_CHECKPOINTS)
    reference = args.reference or suite_report.DEFAULT_REFERENCE
    command = typed_command("report")
    print(suite_report.write_suite_report(path, collected, label, checkpoints, reference, args.stuck_trials, command))


def write_envelope(args: argparse.Namespace) -> None:
    """The envelope report, written and printed."""
    need(args, "envelope", "--candidate", "--out", "--problems")
    if len(args.references) != 2:
        raise SystemExit("vpbo-benchmark report: the envelope section's --references takes two sampler names")
    result = envelope_report.envelope(
        args.out, args.references_out or args.out, args.problems, args.candidate, args.references, args.peers,
        args.checkpoints or list(envelope_report.CHECKPOINTS), args.seeds, args.stuck_trials, args.copies, args.copy_seed,
    )
    path = args.report or args.out / f"ENVELOPE-{args.candidate}.md"
    command = typed_command("report")
    print(envelope_report.write_envelope_report(path, result, command))


def write_ledger(args: argparse.Namespace) -> None:
    """The ledger, written; its summary printed."""
    need(args, "ledger", "--out")
    result = ledger_report.ledger(args.root, n_copies=args.copies)
    command = typed_command("report") or "vpbo-benchmark report --sections ledger --out docs"
    ledger_report.write_ledger(args.report or args.out / LEDGER_NAME, result, command)
    print("\n".join(ledger_report.overall_lines(result)))


def write_repeats(args: argparse.Namespace) -> None:
    """The repeats report, written and printed."""
    need(args, "repeats", "--out", "--problems")
    rows = repeats_report.repeat_rows(args.out, expand_groups(args.problems), args.samplers)
    command = typed_command("report")
    print(repeats_report.write_repeats_report(args.report or args.out / "REPEATS.md", rows, command))


def print_trial_kinds(args: argparse.Namespace) -> None:
    need(args, "trial-kinds", "--out", "--problems")
    schedule = trial_kinds.Schedule(
        args.n_startup, args.stall_trials, not args.no_perturbation, args.perturbation_backoff, args.stall_tolerance
    )
    print(trial_kinds.kinds_table(args.out, expand_groups(args.problems), args.sampler, args.late, schedule))


def write_trial_states_reports(args: argparse.Namespace) -> None:
    half = args.half or "both"
    choices = ["both", *trial_states_report.REPORT_FILES]
    if half not in choices:
        raise SystemExit(f"vpbo-benchmark report: the trial-states section's --half is one of {', '.join(choices)}")
    halves = ["tuning", "held_out"] if half == "both" else [half]
    paths = trial_states_report.write_reports(
        args.out or trial_states.DEFAULT_OUT, halves, args.problems, args.samplers, args.seeds,
        args.reference or trial_states_report.REFERENCE, args.checkpoints or list(trial_states_report.CHECKPOINTS),
        args.compute_peers, args.design_trials, typed_command("report"),
    )
    for path in paths:
        print(f"wrote {path}")


SECTION_WRITERS.update({
    "summary": write_summary, "suite": write_suite_report, "envelope": write_envelope, "ledger": write_ledger,
    "repeats": write_repeats, "trial-kinds": print_trial_kinds, "hypervolume": write_hypervolume,
    "trial-states": write_trial_states_reports,
})
assert list(SECTION_WRITERS) == list(SECTIONS)


# --------------------------------------------------------------------------------------------
# overhead
# --------------------------------------------------------------------------------------------


def add_overhead(commands: Subcommands) -> dict[str, Handler]:
    parser = add_verb(
        commands, "overhead", "sampler time per trial against n and C: measure and store, or (--plot) tabulate a stored run",
        "Times each sampler's suggestion at every size of --sizes, stores the run as <out>/<file>, prints its "
        "table and draws its figures into --figures (<out>/figures). With --plot: no timing, only the table and figures "
        "of the stored run.", "vpbo-benchmark overhead --plot --figures /tmp/figures",
    )
    parser.add_argument("--cases", type=names, default=list(overhead.CASES))
    parser.add_argument("--samplers", type=names, default=["vpbo", "gp", "tpe"])
    parser.add_argument("--sizes", type=integers, default=[50, 100, 200, 500, 1000])
    parser.add_argument("--window", type=int, default=overhead.DEFAULT_WINDOW, help="trials timed per measurement")
    parser.add_argument("--jobs", type=int, default=1, help="processes (1: no interference between timings)")
    parser.add_argument("--gp-max-trials", type=int, default=overhead.DEFAULT_GP_MAX_TRIALS, help="largest n timed for GPSampler")
    parser.add_argument("--plot", action="store_true", help="no timing: the table and figures of the stored run")
    parser.add_argument("--out", type=Path, default=DEFAULT_OVERHEAD_OUT, help="folder of the overhead JSON file")
    parser.add_argument("--figures", type=Path, default=None, help="folder of the PNG figures (default <out>/figures)")
    parser.add_argument(
        "--file", default=overhead.OVERHEAD_FILE, help="name of the JSON file in --out; its stem prefixes the figures"
    )
    return {"overhead": lambda args: overhead_report(args) if args.plot else measure_overhead(args)}


def measure_overhead(args: argparse.Namespace) -> None:
    """Time the samplers, store the run, then its table and figures."""
    # GEMM speed before and after the measurements; the floor takes the faster (a lower bound).
    flops_before = overhead.gemm_flops_per_second()
    results = overhead.run_grid(args.cases, args.samplers, args.sizes, args.window, args.jobs, args.gp_max_trials)
    settings = VPBOSampler().settings
    flops = max(flops_before, overhead.gemm_flops_per_second())
    overhead.save_results(args.out / args.file, results, flops, settings.n_candidates, settings.max_enumerated_combinations)
    overhead_report(args)


def overhead_report(args: argparse.Namespace) -> None:
    """The table of the stored overhead run (printed) and its figures."""
    results, record = overhead.load_results(args.out / args.file)
    flops = record["gemm_flops_per_second"]
    print(f"single-thread GEMM: {flops / 1e9:.1f} GFlop/s")
    print(overhead.overhead_table(results, flops, record["n_candidates"], record["max_enumerated_combinations"]))
    figures = args.out / "figures" if args.figures is None else args.figures
    for path in overhead.write_figures(results, figures, Path(args.file).stem):
        print(f"wrote {path}")


