"""The sampler's documentation tables, drawn from the code: the README's table of VPBOSampler's
constructor arguments and docs/settings.md's table of the VPBOSettings fields. Names, defaults
and descriptions come from the signature, the docstrings, ``VPBOSettings()`` and
``VPBOSettings.paper()``, so that no default written in a page can go stale.

A page marks such a table with ``<!-- sampler-table: KIND -->`` ... ``<!-- /sampler-table -->``
(KIND: ``arguments`` or ``settings``); the script replaces what lies between the markers with the
table and a line that names the command. Run it from the repository root, with the package
installed:

    python docs/tables.py           # rewrite the marked tables
    python docs/tables.py --check   # only list the pages that are out of date (exit 1)

The tables of stored benchmark runs are the lab's (``vpbo-benchmark docs``).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from optuna_vpbo import VPBOSampler, VPBOSettings

COMMAND = "python docs/tables.py"
MARKER = re.compile(r"(<!-- sampler-table: (?P<kind>\w+) -->\n)(?P<body>.*?)(<!-- /sampler-table -->)", re.DOTALL)
PAGES = ("README.md", "docs/settings.md")  # relative to the repository root


def docstring_arguments(doc: str, section: str = "Args") -> dict[str, str]:
    """A section (``Args:``, ``Attributes:``) of a Google-style docstring: each name's text, on
    one line."""
    parts = re.split(rf"\n\s*{section}:\s*\n", doc, maxsplit=1)
    if len(parts) < 2:
        return {}
    entries: dict[str, str] = {}
    indent = None
    for line in parts[1].splitlines():
        if not line.strip():
            if entries:
                break  # the section ends at the first blank line after it began
            continue
        width = len(line) - len(line.lstrip())
        indent = width if indent is None else indent
        match = re.match(r"(\w+): (.*)", line.strip())
        if width == indent and match:
            entries[match.group(1)] = match.group(2)
        elif width > indent and entries:
            entries[next(reversed(entries))] += " " + line.strip()
        else:
            break
    return entries


def _markdown(text: str) -> str:
    return text.replace("``", "`").replace("|", "\\|")


def arguments_table() -> str:
    """VPBOSampler's constructor arguments: the default and the docstring's description. An
    argument that is also a settings field (``n_startup_trials``) shows the value it takes when
    left at None, from ``VPBOSettings()`` and the paper preset."""
    described = docstring_arguments(VPBOSampler.__doc__ or "")
    defaults, paper = VPBOSettings(), VPBOSettings.paper()
    fields = {f.name for f in dataclasses.fields(VPBOSettings)}
    lines = ["| argument | default | meaning |", "|---|---|---|"]
    for name, parameter in inspect.signature(VPBOSampler).parameters.items():
        default = f"`{parameter.default!r}`"
        if name in fields and parameter.default is None:
            default += f" (settings: `{getattr(defaults, name)!r}`; paper: `{getattr(paper, name)!r}`)"
        lines.append(f"| `{name}` | {default} | {_markdown(described.get(name, '-'))} |")
    return "\n".join(lines)


def settings_table() -> str:
    """The fields of VPBOSettings: the default, the paper preset's value where it differs, and
    the docstring's whole description."""
    defaults, paper = VPBOSettings(), VPBOSettings.paper()
    described = docstring_arguments(VPBOSettings.__doc__ or "", "Attributes")
    lines = ["| setting | default | `VPBOSettings.paper()` | meaning |", "|---|---|---|---|"]
    for field in (f for f in dataclasses.fields(VPBOSettings) if f.init):
        default, paper_value = getattr(defaults, field.name), getattr(paper, field.name)
        paper_cell = f"`{paper_value!r}`" if paper_value != default else ""
        meaning = _markdown(described.get(field.name, "-"))
        lines.append(f"| `{field.name}` | `{default!r}` | {paper_cell} | {meaning} |")
    return "\n".join(lines)


TABLES: dict[str, Callable[[], str]] = {"arguments": arguments_table, "settings": settings_table}


def regenerate_page(text: str) -> str:
    """The page with every marked table regenerated (a ValueError names an unknown kind)."""

    def replace(match: re.Match[str]) -> str:
        kind = match.group("kind")
        if kind not in TABLES:
            raise ValueError(f"unknown sampler table {kind!r}; kinds: {', '.join(TABLES)}")
        return f"{match.group(1)}{TABLES[kind]()}\n\nTable: `{COMMAND}`\n{match.group(4)}"

    return MARKER.sub(replace, text)


def regenerate_pages(root: Path, check: bool = False) -> list[Path]:
    """Rewrite the marked tables of ``PAGES`` under ``root``; return the pages that changed (with
    ``check``, nothing is written: the pages that are out of date)."""
    changed = []
    for page in (root / name for name in PAGES):
        text = page.read_text(encoding="utf-8")
        updated = regenerate_page(text)
        if updated != text:
            changed.append(page)
            if not check:
                page.write_text(updated, encoding="utf-8")
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description="the sampler's tables in README.md and docs/settings.md")
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository root")
    parser.add_argument("--check", action="store_true", help="only list the pages that are out of date (exit 1)")
    args = parser.parse_args(argv)
    changed = regenerate_pages(args.root, check=args.check)
    for page in changed:
        print(f"{'out of date' if args.check else 'rewrote'}: {page}")
    if not changed:
        print("every sampler table is up to date")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
