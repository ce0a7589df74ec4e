"""``vpbo-benchmark list``: the problems' rows come from the stored catalogue
(``vpbo_benchmarks/data/problem_spaces.json``), so that the command answers at once and prints the
same each time; the catalogue is what fresh probes of the registered problems find."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vpbo_benchmarks import catalogue
from vpbo_benchmarks.cli import main
from vpbo_benchmarks.registry import PROBLEM_NAMES

REWRITE = "python -m vpbo_benchmarks.catalogue --write benchmarks/vpbo_benchmarks/data/problem_spaces.json"


def _no_probe(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("list probed a problem that the catalogue holds")


def test_list_reads_the_catalogue_and_prints_the_same_each_time(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalogue, "probe_space", _no_probe)
    main(["list"])
    first = capsys.readouterr().out
    main(["list"])
    assert capsys.readouterr().out == first
    assert "| func2c | 2 | 15 | 2 | minimize | -0.206326 |" in first
    assert "| automl | 2 | 5 | 9 (conditional; 12 probe trials) | maximize | unknown |" in first
    assert all(f"| {name} |" in first for name in PROBLEM_NAMES)


def test_every_registered_problem_is_in_the_catalogue() -> None:
    assert sorted(catalogue.stored_entries()) == sorted(PROBLEM_NAMES), f"rewrite the catalogue: {REWRITE}"


def test_a_problem_missing_from_the_catalogue_is_probed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (expected,) = catalogue.problem_lines(["func2c"])[2:]
    empty = tmp_path / "problem_spaces.json"
    empty.write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr(catalogue, "STORED_SPACES", empty)
    assert catalogue.problem_lines(["func2c"])[2:] == [expected]
    assert catalogue.problem_lines(["func2c"], probe=True)[2:] == [expected]


def test_the_catalogue_file_is_what_write_makes_of_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rewritten from probes of two problems, the file holds their entries, one problem a line."""
    path = tmp_path / "spaces.json"
    catalogue.write_stored_entries(path, ["func2c", "conditional_trap"])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "{" and lines[-1] == "}" and len(lines) == 4
    entries = catalogue.stored_entries(path)
    assert entries["conditional_trap"]["conditional"] is True and entries["func2c"]["conditional"] is False


@pytest.mark.slow
def test_the_catalogue_is_what_fresh_probes_find() -> None:
    """Every registered problem probed again (about 25 s: the machine-learning problems run their
    models) gives its stored entry; a problem whose library is missing is left out."""
    stored = catalogue.stored_entries()
    differing = []
    for name in PROBLEM_NAMES:
        try:
            entry = catalogue.probe_entry(name)
        except ImportError:
            continue
        if entry != stored.get(name):
            differing.append(name)
    assert not differing, f"the catalogue is out of date for {differing}: {REWRITE}"
