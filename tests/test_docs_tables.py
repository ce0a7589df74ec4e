"""The tables that the docs draw from the sampler's own code (its constructor's arguments, the
fields of VPBOSettings: ``python docs/tables.py`` rewrites them), and the links of the pages
(README.md, docs/*.md). The lab's tables (from stored runs) are tested in benchmarks/tests."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

from optuna_vpbo import VPBOSampler, VPBOSettings

# Regenerates every marked table from the stored runs (seconds, about 12 MB read).
pytestmark = pytest.mark.docs

REPOSITORY = Path(__file__).resolve().parents[1]
DOC_PAGES = sorted([REPOSITORY / "README.md", *(REPOSITORY / "docs").glob("*.md")])


def _sampler_tables() -> ModuleType:
    """docs/tables.py, the script of the sampler's tables (a script, not a module of a package)."""
    spec = importlib.util.spec_from_file_location("sampler_tables", REPOSITORY / "docs" / "tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SAMPLER_TABLES = _sampler_tables()


def test_the_sampler_tables_are_up_to_date_and_name_their_command() -> None:
    for name, kind in (("README.md", "arguments"), ("docs/settings.md", "settings")):
        text = (REPOSITORY / name).read_text(encoding="utf-8")
        assert f"<!-- sampler-table: {kind} -->" in text
        assert SAMPLER_TABLES.regenerate_page(text) == text, f"{name} is out of date: run `python docs/tables.py`"
        for match in SAMPLER_TABLES.MARKER.finditer(text):
            assert match.group("body").endswith("\n\nTable: `python docs/tables.py`\n")


def test_an_unknown_sampler_table_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown sampler table 'nope'"):
        SAMPLER_TABLES.regenerate_page("<!-- sampler-table: nope -->\n<!-- /sampler-table -->")


def test_the_check_lists_a_stale_page_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    stale = "# Page\n\n<!-- sampler-table: settings -->\nstale\n<!-- /sampler-table -->\n"
    (tmp_path / "README.md").write_text("# Front\n", encoding="utf-8")
    (tmp_path / "docs" / "settings.md").write_text(stale, encoding="utf-8")
    assert SAMPLER_TABLES.main(["--root", str(tmp_path), "--check"]) == 1
    assert (tmp_path / "docs" / "settings.md").read_text(encoding="utf-8") == stale
    assert SAMPLER_TABLES.main(["--root", str(tmp_path)]) == 0
    assert SAMPLER_TABLES.main(["--root", str(tmp_path), "--check"]) == 0
    assert "| `n_candidates` |" in (tmp_path / "docs" / "settings.md").read_text(encoding="utf-8")


def test_docstring_arguments_joins_continued_lines_and_stops_at_the_section_end() -> None:
    doc = """Summary.

    Args:
        alpha: First line
            continued here.
        beta: One line.

    Returns:
        gamma: not an argument.
    """
    assert SAMPLER_TABLES.docstring_arguments(doc) == {"alpha": "First line continued here.", "beta": "One line."}


def test_arguments_table_has_every_constructor_argument_with_its_default() -> None:
    rows = SAMPLER_TABLES.arguments_table().splitlines()[2:]
    parameters = inspect.signature(VPBOSampler).parameters
    assert [row.split(" | ")[0] for row in rows] == [f"| `{n}`" for n in parameters]
    assert all(row.split(" | ")[2] != "- |" for row in rows), "an argument without a docstring entry"
    n_startup = next(row for row in rows if row.startswith("| `n_startup_trials`"))
    settings, paper = VPBOSettings().n_startup_trials, VPBOSettings.paper().n_startup_trials
    assert n_startup.split(" | ")[1] == f"`None` (settings: `{settings}`; paper: `{paper}`)"
    assert (settings, paper) == (16, 24)  # as the pages that are not generated say (README of docs/optunahub)


def test_settings_table_has_every_field_with_its_default_and_paper_value() -> None:
    rows = SAMPLER_TABLES.settings_table().splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == [f"| `{f.name}`" for f in dataclasses.fields(VPBOSettings) if f.init]
    assert len(rows) <= 12  # the knobs a user can turn
    assert all(not row.endswith("| - |") for row in rows), "a field without a docstring entry"
    n_candidates = next(row for row in rows if row.startswith("| `n_candidates`"))
    assert n_candidates.split(" | ")[1:3] == [f"`{VPBOSettings().n_candidates}`", "`200`"]
    pruned = next(row for row in rows if row.startswith("| `pruned_trials`"))
    assert pruned.split(" | ")[1:3] == ["`'impute'`", "`'ignore'`"]  # the paper learns from complete trials only


def test_the_optunahub_readme_gives_the_design_sizes_of_the_code() -> None:
    readme = (REPOSITORY / "docs" / "optunahub" / "package" / "samplers" / "vpbo" / "README.md").read_text(encoding="utf-8")
    settings, paper = VPBOSettings().n_startup_trials, VPBOSettings.paper().n_startup_trials
    assert f"({settings} by default; {paper} with `preset=\"paper\"`)" in readme


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.name)
def test_relative_links_of_the_pages_exist(page: Path) -> None:
    targets = re.findall(r"\]\(([^)#\s]+)", page.read_text(encoding="utf-8"))
    missing = [t for t in targets if "://" not in t and not (page.parent / t).exists()]
    assert not missing, f"{page.name} links to missing files: {missing}"
