"""The tables that the docs draw from the sampler's own code (its constructor's arguments, the
fields of VPBOSettings), and the links of the pages (README.md, docs/*.md)."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
DOC_PAGES = sorted([REPOSITORY / "README.md", *(REPOSITORY / "docs").glob("*.md")])


def lab_doc_tables() -> ModuleType:
    """The lab's table module, which still draws these two tables (skip where only the sampler is
    installed, as in .ci/packages.sh's wheel test)."""
    return pytest.importorskip("vpbo_benchmarks.doc_tables", reason="the benchmark lab (./benchmarks) is not installed")


def test_docstring_arguments_joins_continued_lines_and_stops_at_the_section_end() -> None:
    docstring_arguments = lab_doc_tables().docstring_arguments
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

    arguments_table = lab_doc_tables().arguments_table

    rows = arguments_table().splitlines()[2:]
    parameters = inspect.signature(VPBOSampler).parameters
    assert [row.split(" | ")[0] for row in rows] == [f"| `{n}`" for n in parameters]
    assert all(row.split(" | ")[2] != "- |" for row in rows), "an argument without a docstring entry"
    n_startup = next(row for row in rows if row.startswith("| `n_startup_trials`"))
    assert n_startup.split(" | ")[1] == "`None`"


def test_settings_table_has_every_field_with_its_default_and_paper_value() -> None:
    import dataclasses

    from optuna_vpbo import VPBOSettings

    settings_table = lab_doc_tables().settings_table

    rows = settings_table().splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == [f"| `{f.name}`" for f in dataclasses.fields(VPBOSettings)]
    assert all(not row.endswith("| - |") for row in rows), "a field without a docstring entry"
    n_candidates = next(row for row in rows if row.startswith("| `n_candidates`"))
    assert n_candidates.split(" | ")[1:3] == [f"`{VPBOSettings().n_candidates}`", "`200`"]
    stall = next(row for row in rows if row.startswith("| `stall_trials`"))
    assert stall.split(" | ")[1:3] == [f"`{VPBOSettings().stall_trials}`", "`0`"]  # the paper has no stall safeguard


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.name)
def test_relative_links_of_the_pages_exist(page: Path) -> None:
    targets = re.findall(r"\]\(([^)#\s]+)", page.read_text(encoding="utf-8"))
    missing = [t for t in targets if "://" not in t and not (page.parent / t).exists()]
    assert not missing, f"{page.name} links to missing files: {missing}"
