"""The benchmark command line as a user runs it: the console script ``vpbo-benchmark`` (and
``python -m vpbo_benchmarks``) from a folder of their own: ``list``, a tiny ``run`` with
progress bars, ``report``, ``table`` and ``docs`` on what it stored."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lab_testing import run_bounded
from vpbo_benchmarks.cli import SECTIONS, build_parser, dispatch, exit_for_missing_module, main
from vpbo_benchmarks.doc_tables import regenerate_docs
from vpbo_benchmarks.progress import RunProgress
from vpbo_benchmarks.report import collect

REPOSITORY = Path(__file__).resolve().parents[2]
TIMEOUT_SECONDS = 300
N_TRIALS = 6


def vpbo_benchmark() -> list[str]:
    script = Path(sys.executable).parent / "vpbo-benchmark"
    found = str(script) if script.exists() else shutil.which("vpbo-benchmark")
    if found is None:
        pytest.fail("the vpbo-benchmark console script is not installed (pip install .)")
    return [found]


def cli(arguments: list[str], cwd: Path) -> str:
    result = run_bounded([*vpbo_benchmark(), *arguments], TIMEOUT_SECONDS, cwd=cwd)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout + result.stderr


def in_process(arguments: list[str], cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The command's ``main`` in this process (the console script's start-up costs seconds)."""
    monkeypatch.chdir(cwd)
    main(arguments)
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_list_prints_the_problems_spaces_and_the_samplers() -> None:
    # From the repository root, where the source folder must not shadow the installed package.
    output = cli(["list", "--problems", "func2c,conditional_trap"], REPOSITORY)
    assert "| func2c | 2 | 15 | 2 | minimize | -0.206326 |" in output
    assert re.search(r"\| conditional_trap \| 2 \| 4 \| 6 \(conditional; \d+ probe trials\) \| minimize \| 0 \|", output)
    assert re.search(r"^vpbo +VPBOSampler with its defaults$", output, re.MULTILINE)
    assert re.search(r"^oracle +the Oracle", output, re.MULTILINE)
    assert re.search(r"^gp +Optuna's GPSampler$", output, re.MULTILINE)
    assert re.search(r"^numeric: hartmann6, knn_breast, knn_wine, svm_breast, dt_digits, linear_breast$", output, re.MULTILINE)
    assert re.search(r"^adapt_held_out: peak_field, michalewicz_gates, ", output, re.MULTILINE)
    assert re.search(r"^final_held_out: shubert_pairs, weierstrass_grain, ", output, re.MULTILINE)


def test_list_expands_a_group() -> None:
    output = cli(["list", "--problems", "numeric"], REPOSITORY)
    assert "| hartmann6 | 0 | 0 | 6 | minimize | -3.32237 |" in output
    assert re.search(r"\| knn_wine \| 0 \| 0 \| 2 \| minimize \| unknown \|", output)


def test_a_missing_peer_names_the_extra(tmp_path: Path) -> None:
    # As after `pip install ./benchmarks` without the peers: the module cannot be imported.
    code = "import sys; sys.modules['cmaes'] = None; from vpbo_benchmarks.cli import main; main(['list'])"
    result = run_bounded([sys.executable, "-c", code], TIMEOUT_SECONDS, cwd=tmp_path)
    assert result.returncode == 0, result.stderr  # `list` needs no peer: the peers import lazily
    module_missing = ModuleNotFoundError("No module named 'cmaes'", name="cmaes")
    with pytest.raises(SystemExit, match=re.escape('pip install "optuna-vpbo-benchmarks[peers]"')):
        exit_for_missing_module(module_missing)


@pytest.mark.parametrize("module", ["sklearn.ensemble", "smac", "matplotlib", "PIL"])
def test_the_lab_s_own_dependencies_are_no_extra(module: str) -> None:
    # They are dependencies of the lab: missing, they are a broken install, raised as is.
    with pytest.raises(ModuleNotFoundError):
        exit_for_missing_module(ModuleNotFoundError(f"No module named {module!r}", name=module))


def test_a_missing_module_of_no_extra_is_raised_as_is(tmp_path: Path) -> None:
    code = "from vpbo_benchmarks.cli import exit_for_missing_module as f; f(ModuleNotFoundError(name='nope'))"
    result = run_bounded([sys.executable, "-c", code], TIMEOUT_SECONDS, cwd=tmp_path)
    assert result.returncode == 1 and "ModuleNotFoundError" in result.stderr


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    # `vpbo-benchmark list | head -1`, made deterministic: the reader is gone before any write.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [*vpbo_benchmark(), "list", "--problems", "func2c"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=TIMEOUT_SECONDS,
        )
    finally:
        os.close(write_end)
    assert result.stderr == ""
    assert result.returncode == 141  # 128 + SIGPIPE, as `yes | head -1` leaves for `yes`


def test_module_entry_point_still_works(tmp_path: Path) -> None:
    result = run_bounded([sys.executable, "-m", "vpbo_benchmarks", "--help"], TIMEOUT_SECONDS, cwd=tmp_path)
    assert result.returncode == 0 and "list" in result.stdout and "docs" in result.stdout


def verbs_and_sub_verbs(parser: argparse.ArgumentParser) -> list[str]:
    """Every verb and sub-verb of ``parser``: its sub-parsers' names, recursively, and any ``--kind``'s choices."""
    found: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += [name, *verbs_and_sub_verbs(sub)]
        elif "--kind" in action.option_strings:
            found += list(action.choices or [])
    return found


def test_at_most_eight_verbs_counting_every_sub_verb() -> None:
    parser, _ = build_parser()
    assert verbs_and_sub_verbs(parser) == ["list", "run", "report", "table", "docs", "overhead"]


def test_each_verb_has_a_help_and_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    parser, _ = build_parser()
    for verb in verbs_and_sub_verbs(parser):
        try:
            dispatch([verb, "--help"])
        except SystemExit:
            pass
        assert "Example: vpbo-benchmark " in capsys.readouterr().out, verb
    with pytest.raises(SystemExit):
        dispatch(["report", "--help"])
    report_help = capsys.readouterr().out
    assert all(f"  {section} " in report_help for section in SECTIONS)


def test_an_unknown_section_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        dispatch(["report", "--sections", "envelope,ledgr", "--out", "runs"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert "unknown section(s) 'ledgr'; choose from summary, suite, envelope, ledger" in error


def test_a_section_without_its_required_option_is_a_clear_error() -> None:
    with pytest.raises(SystemExit, match="the envelope section needs --candidate"):
        dispatch(["report", "--sections", "envelope", "--out", "runs", "--problems", "func2c"])


@pytest.fixture(scope="module")
def stored_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run (1 seed, 6 trials, two samplers) stored by the command, with progress bars."""
    root = tmp_path_factory.mktemp("bench")
    command = ["run", "--problems", "func2c", "--samplers", "vpbo,random", "--seeds", "1"]
    command += ["--trials", str(N_TRIALS), "--out", "runs", "--jobs", "1", "--progress"]
    output = cli(command, root)
    assert "2 runs to do (0 stored already)" in output
    assert "[2/2] func2c" in output
    # The overall bar counts trials and reaches all of them; a bar per run names the run.
    assert "all runs (2/2 done): 100%" in output and f"{2 * N_TRIALS}/{2 * N_TRIALS}" in output
    assert "func2c vpbo seed=0" in output
    return root


def test_run_stores_what_report_reads(
    stored_runs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes: list[str] = []
    (entry,) = collect(stored_runs / "runs", ["func2c"], ["vpbo", "random"], notes)
    assert sorted(entry.runs) == ["random", "vpbo"]
    assert all(len(records) == 1 and len(records[0]["values"]) == N_TRIALS for records in entry.runs.values())
    resumed = ["run", "--problems", "func2c", "--samplers", "vpbo,random", "--seeds", "1"]
    output = in_process([*resumed, "--trials", str(N_TRIALS), "--out", "runs"], stored_runs, capsys, monkeypatch)
    assert "0 runs to do (2 stored already)" in output


def test_report_and_table_of_the_stored_runs(
    stored_runs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    output = in_process(["report", "--problems", "func2c", "--samplers", "vpbo,random", "--out", "runs",
                  "--figures", "figures", "--n-init", "0", "--checkpoints", "3,6"], stored_runs, capsys, monkeypatch)
    assert "# Benchmark report" in output and (stored_runs / "runs" / "REPORT.md").exists()
    assert list((stored_runs / "figures").glob("*.png"))
    table = in_process(["table", "long", "--out", "runs", "--problems", "func2c", "--samplers", "vpbo,random",
                        "--trials", "3,6"], stored_runs, capsys, monkeypatch)
    lines = table.strip().splitlines()
    assert lines[0] == "| problem | sampler | seeds | trial 3 | trial 6 |"
    assert lines[2].startswith("| func2c (regret) | VPBOSampler | 1 | ")
    assert lines[3].startswith("|  | RandomSampler | 1 | ")


def test_docs_rewrites_marked_tables_and_checks_them(
    stored_runs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    arguments = "wide --out runs --problems func2c --samplers vpbo,random --trials 6"
    page = stored_runs / "docs" / "page.md"
    page.parent.mkdir(exist_ok=True)
    page.write_text(f"# Page\n\n<!-- table: {arguments} -->\nstale\n<!-- /table -->\n\nafter\n")
    assert regenerate_docs(stored_runs, check=True) == [page]
    assert page.read_text().count("stale") == 1  # --check writes nothing
    with pytest.raises(SystemExit) as exit_info:
        in_process(["docs", "--check"], stored_runs, capsys, monkeypatch)
    assert exit_info.value.code == 1 and "out of date" in capsys.readouterr().out
    in_process(["docs"], stored_runs, capsys, monkeypatch)
    text = page.read_text()
    table = in_process(["table", *arguments.split()], stored_runs, capsys, monkeypatch).strip()
    assert f"<!-- table: {arguments} -->\n{table}\n\nTable: `vpbo-benchmark table {arguments}`\n<!-- /table -->" in text
    assert text.endswith("<!-- /table -->\n\nafter\n") and "stale" not in text
    assert "every marked table is up to date" in in_process(["docs", "--check"], stored_runs, capsys, monkeypatch)


def test_progress_bars_count_trials_and_finish_each_run(capsys: pytest.CaptureFixture[str]) -> None:
    bars = RunProgress(total_runs=2, n_trials=4, enabled=True)
    bars.advance("a", 2)
    bars.advance("b", 1)
    bars.advance("a", 3)
    assert bars.overall.n == 4 and bars.runs["a"].n == 3 and bars.lines == {"a": 1, "b": 2}
    bars.finish_run("a", "run a stored")
    assert bars.overall.n == 5 and "a" not in bars.runs
    bars.advance("c", 4)  # takes the free line of the finished run
    assert bars.lines == {"b": 2, "c": 1}
    bars.close()
    captured = capsys.readouterr()
    assert "run a stored" in captured.out and "all runs (1/2 done)" in captured.err
