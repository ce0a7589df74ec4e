"""Command line: ``vpbo-benchmark {list,run,report,table,docs,hypervolume,overhead,overhead-plot} ...``
(also ``python -m vpbo_benchmarks ...``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

# The extra of benchmarks/pyproject.toml that brings each optional top-level module the commands
# import: the heavy peers only (every other module is a dependency of the lab).
_EXTRA_OF_MODULE = dict.fromkeys(["cmaes", "ax", "botorch", "gpytorch", "torch"], "peers")


def _exit_for_missing_module(error: ModuleNotFoundError) -> NoReturn:
    """Exit with the extra to install when ``error`` is an optional dependency; else re-raise."""
    module = (error.name or "").partition(".")[0]
    extra = _EXTRA_OF_MODULE.get(module)
    if extra is None:
        raise error
    raise SystemExit(
        f"vpbo-benchmark: the optional dependency {module!r} is not installed ({error}); "
        f'install the "{extra}" extra: pip install "optuna-vpbo-benchmarks[{extra}]" '
        f'(from a clone, at the repository root: pip install "./benchmarks[{extra}]")'
    ) from None


try:
    from optuna_vpbo import VPBOSampler
    from vpbo_benchmarks import catalogue, doc_tables, overhead, suite, suite_report, trial_states
    from vpbo_benchmarks.hypervolume import hypervolume_table
    from vpbo_benchmarks.oracle import ORACLE
    from vpbo_benchmarks.plots import SMOOTH_WINDOW, write_figures
    from vpbo_benchmarks.problems import PROBLEM_NAMES
    from vpbo_benchmarks.report import CHECKPOINTS, N_INIT, REPORT_NAME, collect, write_report
    from vpbo_benchmarks.runner import run
    from vpbo_benchmarks.samplers import SAMPLER_FACTORIES
except ModuleNotFoundError as missing:
    _exit_for_missing_module(missing)

DEFAULT_OUT = Path("benchmarks/results")
DEFAULT_FIGURES = Path("benchmarks/figures")
DEFAULT_OVERHEAD_OUT = Path("benchmarks/results-overhead")


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def main(argv: list[str] | None = None) -> None:
    """The console script: ``_main``, with a one-line message for a missing optional dependency
    and a quiet exit when the reader of stdout goes away (``vpbo-benchmark list | head``)."""
    try:
        _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler
    except ModuleNotFoundError as missing:
        _exit_for_missing_module(missing)
    except BrokenPipeError:
        # Python would flush stdout again at exit and print the error: point it at /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(128 + 13)  # as a process killed by SIGPIPE reports


def _main(argv: list[str] | None) -> None:
    parser = argparse.ArgumentParser(prog="vpbo-benchmark", description="benchmarks of VPBOSampler")
    commands = parser.add_subparsers(dest="command", required=True)
    list_parser = commands.add_parser("list", help="the problems (search space, optimum) and the samplers")
    list_parser.add_argument("--problems", type=_names, default=list(PROBLEM_NAMES), help="only these problems")
    commands.add_parser("table", help="a condensed Markdown table of stored runs (see `table --help`)", add_help=False)
    docs_parser = commands.add_parser("docs", help="regenerate every marked table of README.md and docs/*.md")
    docs_parser.add_argument("--root", type=Path, default=Path("."), help="the repository")
    docs_parser.add_argument("--check", action="store_true", help="only list the pages that are out of date (exit 1)")
    helps = {
        "run": "run every missing (problem, sampler, seed) and store it (interrupted runs resume)",
        "report": "full Markdown report and figures of stored runs",
    }
    for name in ("run", "report"):
        sub = commands.add_parser(name, help=helps[name])
        sub.add_argument("--problems", type=_names, required=True, help=f"comma-separated, from {', '.join(PROBLEM_NAMES)}")
        sub.add_argument(
            "--samplers", type=_names, required=True, help=f"comma-separated, from {', '.join([*SAMPLER_FACTORIES, ORACLE])}"
        )
        sub.add_argument(
            "--out", type=Path, default=DEFAULT_OUT, help="folder of the stored runs (a compressed file per problem and sampler)"
        )
    run_parser = commands.choices["run"]
    run_parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1")
    run_parser.add_argument("--trials", type=int, default=224)
    run_parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    run_parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bars on stderr (default: when stderr is a terminal)",
    )
    report_parser = commands.choices["report"]
    report_parser.add_argument(
        "--checkpoints",
        type=lambda s: [int(v) for v in _names(s)],
        default=list(CHECKPOINTS),
        help="iterations after the initial design (t = trial - n-init) for the regret table",
    )
    report_parser.add_argument("--n-init", type=int, default=N_INIT, help="trials of the initial design")
    report_parser.add_argument("--figures", type=Path, default=DEFAULT_FIGURES, help="folder of the PNG figures")
    report_parser.add_argument("--window", type=int, default=SMOOTH_WINDOW, help="smoothing window (iterations)")
    report_parser.add_argument("--seeds", type=int, default=None, help="only seeds 0 .. N-1 (default: all stored)")
    report_parser.add_argument(
        "--report-name", default=REPORT_NAME, help="file name of the Markdown report in --out (e.g. ABLATION.md)"
    )
    hypervolume_parser = commands.add_parser("hypervolume", help="hypervolume table of multi-objective runs")
    hypervolume_parser.add_argument("--problems", type=_names, required=True)
    hypervolume_parser.add_argument("--samplers", type=_names, required=True)
    hypervolume_parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    hypervolume_parser.add_argument("--checkpoints", type=lambda s: [int(v) for v in _names(s)], default=[50, 100])
    _add_overhead_parsers(commands)
    suite_report.add_parser(commands)
    trial_states.add_parser(commands)
    args, rest = parser.parse_known_args(argv)
    if args.command == "table":  # its own parser: `docs` reads the same arguments from the pages
        print(doc_tables.render_table(rest))
        return
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "list":
        print("Problems (space from a few random probe trials):\n")
        print("\n".join(catalogue.problem_lines(args.problems)))
        print("\nSamplers:\n")
        print("\n".join(catalogue.sampler_lines()))
    elif args.command == "docs":
        docs(args)
    elif args.command == "suite-report":
        suite_report.main(args)
    elif args.command == "trial-states":
        trial_states.main(args)
    elif args.command == "run":
        run(suite.expand_groups(args.problems), args.samplers, range(args.seeds), args.trials, args.out, args.jobs, args.progress)
    elif args.command == "hypervolume":
        print(hypervolume_table(args.out, args.problems, args.samplers, args.checkpoints))
    elif args.command == "overhead":
        # GEMM speed before and after the measurements; the floor takes the faster (a lower bound).
        flops_before = overhead.gemm_flops_per_second()
        results = overhead.run_grid(args.cases, args.samplers, args.sizes, args.window, args.jobs, args.gp_max_trials)
        settings = VPBOSampler().settings
        flops = max(flops_before, overhead.gemm_flops_per_second())
        overhead.save_results(
            args.out / args.file, results, flops, settings.n_candidates, settings.max_enumerated_combinations
        )
        overhead_report(args)
    elif args.command == "overhead-plot":
        overhead_report(args)
    else:
        report(args)


def docs(args: argparse.Namespace) -> None:
    """Regenerate (or with --check, only compare) the marked tables of the pages."""
    changed = doc_tables.regenerate_docs(args.root, check=args.check)
    for page in changed:
        print(f"{'out of date' if args.check else 'rewrote'}: {page}")
    if args.check and changed:
        raise SystemExit(1)
    if not changed:
        print("every marked table is up to date")


def _add_overhead_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    overhead_parser = commands.add_parser("overhead", help="sampler time per trial against n and C")
    overhead_parser.add_argument("--cases", type=_names, default=list(overhead.CASES))
    overhead_parser.add_argument("--samplers", type=_names, default=["vpbo", "gp", "tpe"])
    overhead_parser.add_argument("--sizes", type=lambda s: [int(v) for v in _names(s)], default=[50, 100, 200, 500, 1000])
    overhead_parser.add_argument("--window", type=int, default=overhead.DEFAULT_WINDOW, help="trials timed per measurement")
    overhead_parser.add_argument("--jobs", type=int, default=1, help="processes (1: no interference between timings)")
    overhead_parser.add_argument(
        "--gp-max-trials", type=int, default=overhead.DEFAULT_GP_MAX_TRIALS, help="largest n timed for GPSampler"
    )
    for parser_ in (overhead_parser, commands.add_parser("overhead-plot", help="table and figures of a stored overhead run")):
        parser_.add_argument("--out", type=Path, default=DEFAULT_OVERHEAD_OUT, help="folder of the overhead JSON file")
        parser_.add_argument("--figures", type=Path, default=DEFAULT_FIGURES, help="folder of the PNG figures")
        parser_.add_argument(
            "--file", default=overhead.OVERHEAD_FILE, help="name of the JSON file in --out; its stem prefixes the figures"
        )


def overhead_report(args: argparse.Namespace) -> None:
    """The table of the stored overhead run (printed) and its figures."""
    results, record = overhead.load_results(args.out / args.file)
    flops = record["gemm_flops_per_second"]
    print(f"single-thread GEMM: {flops / 1e9:.1f} GFlop/s")
    print(overhead.overhead_table(results, flops, record["n_candidates"], record["max_enumerated_combinations"]))
    for path in overhead.write_figures(results, args.figures, Path(args.file).stem):
        print(f"wrote {path}")


def report(args: argparse.Namespace) -> None:
    """Tables into <out>/REPORT.md (printed too) and the figures into --figures."""
    notes: list[str] = []
    collected = collect(args.out, args.problems, args.samplers, notes, args.seeds)
    figures = write_figures(collected, args.figures, args.samplers, notes, args.n_init, args.window)
    print(write_report(args.out / args.report_name, collected, args.samplers, args.checkpoints, figures, notes, args.n_init))


if __name__ == "__main__":
    main()
