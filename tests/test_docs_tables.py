"""Every marked table of README.md and docs/*.md is what ``vpbo-benchmark docs`` makes of the
stored runs now: regenerated into memory and compared (``vpbo-benchmark docs`` rewrites them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from optuna_vpbo.benchmarks.doc_tables import MARKER, doc_pages, regenerate_page

# Regenerates every marked table from the stored runs (seconds, about 12 MB read).
pytestmark = pytest.mark.docs

REPOSITORY = Path(__file__).resolve().parents[1]
PAGES = [p for p in doc_pages(REPOSITORY) if MARKER.search(p.read_text(encoding="utf-8"))]


def test_the_front_page_and_the_results_have_marked_tables() -> None:
    names = {p.relative_to(REPOSITORY).as_posix() for p in PAGES}
    assert {"README.md", "docs/results.md", "docs/performance.md", "docs/settings.md"} <= names


def test_committed_tables_are_up_to_date() -> None:
    cache: dict = {}
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


def test_docstring_arguments_joins_continued_lines_and_stops_at_the_section_end() -> None:
    from optuna_vpbo.benchmarks.doc_tables import docstring_arguments

    doc = """Summary.

    Args:
        alpha: First line
            continued here.
        beta: One line.

    Returns:
        gamma: not an argument.
    """
    assert docstring_arguments(doc) == {"alpha": "First line continued here.", "beta": "One line."}


def test_arguments_table_has_every_constructor_argument_with_its_default() -> None:
    import inspect

    from optuna_vpbo import VPBOSampler
    from optuna_vpbo.benchmarks.doc_tables import arguments_table

    rows = arguments_table().splitlines()[2:]
    parameters = inspect.signature(VPBOSampler).parameters
    assert [row.split(" | ")[0] for row in rows] == [f"| `{n}`" for n in parameters]
    assert all(row.split(" | ")[2] != "- |" for row in rows), "an argument without a docstring entry"
    n_startup = next(row for row in rows if row.startswith("| `n_startup_trials`"))
    assert n_startup.split(" | ")[1] == "`None`"


def test_settings_table_has_every_field_with_its_default_and_paper_value() -> None:
    import dataclasses

    from optuna_vpbo import VPBOSettings
    from optuna_vpbo.benchmarks.doc_tables import settings_table

    rows = settings_table().splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == [f"| `{f.name}`" for f in dataclasses.fields(VPBOSettings)]
    assert all(not row.endswith("| - |") for row in rows), "a field without a docstring entry"
    n_candidates = next(row for row in rows if row.startswith("| `n_candidates`"))
    assert n_candidates.split(" | ")[1:3] == [f"`{VPBOSettings().n_candidates}`", "`200`"]
    stall = next(row for row in rows if row.startswith("| `stall_trials`"))
    assert stall.split(" | ")[1:3] == [f"`{VPBOSettings().stall_trials}`", "`0`"]  # the paper has no stall safeguard


@pytest.mark.parametrize("page", doc_pages(REPOSITORY), ids=lambda p: p.name)
def test_relative_links_of_the_pages_exist(page: Path) -> None:
    import re

    targets = re.findall(r"\]\(([^)#\s]+)", page.read_text(encoding="utf-8"))
    missing = [t for t in targets if "://" not in t and not (page.parent / t).exists()]
    assert not missing, f"{page.name} links to missing files: {missing}"


def test_the_wide_table_gives_the_90th_percentile_seed_with_tail(tmp_path: Path) -> None:
    """Ten runs of func2c whose regret after two trials is 0.0, 0.1, ..., 0.9: the mean is 0.45 and
    the 90th-percentile seed the 9th smallest, 0.8."""
    from optuna_vpbo.benchmarks.doc_tables import render_table
    from optuna_vpbo.benchmarks.problems import get_problem
    from optuna_vpbo.benchmarks.records import append_record

    optimum = get_problem("func2c").optimum
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
