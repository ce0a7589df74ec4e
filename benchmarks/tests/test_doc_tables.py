"""Every marked table of README.md and docs/*.md is what ``vpbo-benchmark docs`` makes of the
stored runs now (in ``benchmarks/results*``): regenerated into memory and compared
(``vpbo-benchmark docs``, from the repository root, rewrites them). The reports stored with the
runs link only to files that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lab_testing import present
from vpbo_benchmarks.doc_tables import MARKER, RunCache, doc_pages, regenerate_page

REPOSITORY = Path(__file__).resolve().parents[2]
PAGES = [p for p in doc_pages(REPOSITORY) if MARKER.search(p.read_text(encoding="utf-8"))]
LAB_PAGES = sorted((REPOSITORY / "benchmarks").glob("**/*.md"))


def test_the_front_page_and_the_results_have_marked_tables() -> None:
    names = {p.relative_to(REPOSITORY).as_posix() for p in PAGES}
    assert {"README.md", "docs/results.md", "docs/performance.md"} <= names


def test_committed_tables_are_up_to_date() -> None:
    cache: RunCache = {}
    stale = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        if regenerate_page(text, REPOSITORY, cache) != text:
            stale.append(page.relative_to(REPOSITORY).as_posix())
    assert not stale, f"out of date: {stale}; run `vpbo-benchmark docs` from the repository root"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_table_names_its_command(page: Path) -> None:
    for match in MARKER.finditer(page.read_text(encoding="utf-8")):
        assert f"Table: `vpbo-benchmark table {match.group('args').strip()}`" in match.group("body")


def test_the_wide_table_gives_the_90th_percentile_seed_with_tail(tmp_path: Path) -> None:
    """Ten runs of func2c whose regret after two trials is 0.0, 0.1, ..., 0.9: the mean is 0.45 and
    the 90th-percentile seed the 9th smallest, 0.8."""
    from vpbo_benchmarks.doc_tables import render_table
    from vpbo_benchmarks.records import append_record
    from vpbo_benchmarks.registry import get_problem

    optimum = present(get_problem("func2c").optimum)
    for seed in range(10):
        values = [[optimum + 5.0], [optimum + seed / 10]]
        record = {
            "problem": "func2c", "sampler": "random", "seed": seed, "n_trials": 2, "values": values,
            "params": [{"h1": 0, "h2": 0, "x1": 0.0, "x2": 0.0}] * 2, "constraints": [[], []],
            "sampler_seconds": [0.0, 0.0], "wall_seconds": 0.0, "environment": {},
        }
        append_record(tmp_path, record)
    arguments = ["wide", "--out", str(tmp_path), "--problems", "func2c", "--samplers", "random", "--trials", "2"]
    plain = render_table(arguments, tmp_path)
    tail = render_table([*arguments, "--tail"], tmp_path)
    row = tail.splitlines()[2]
    assert "0.45 ± 0.096" in plain.splitlines()[2] and " / " not in plain.splitlines()[2]
    assert row.endswith("0.45 ± 0.096 / 0.8 |"), row



@pytest.mark.parametrize("page", LAB_PAGES, ids=lambda p: p.relative_to(REPOSITORY).as_posix())
def test_relative_links_of_the_lab_s_reports_exist(page: Path) -> None:
    targets = re.findall(r"\]\(([^)#\s]+)", page.read_text(encoding="utf-8"))
    # Links into a temporary folder of the machine that wrote the report were never meant to resolve.
    missing = [t for t in targets if "://" not in t and "/tmp/" not in t and not (page.parent / t).exists()]
    assert not missing, f"{page.name} links to missing files: {missing}"
