"""Every command of README.md works as pasted, from the repository root that the README names: the
two set-up lines' programs (their installs are what CI itself runs) and every other command in
backquotes, each run in a copy of the checkout so that what a command writes cannot touch it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
# A command (the text in backquotes, or a line of a code block) that starts with a program a user runs.
COMMAND = re.compile(r"^((?:python|vpbo-benchmark) .+)$")
COPIED_AWAY = shutil.ignore_patterns(".git", "build", "dist", "*.db", "__pycache__", ".mypy_cache", ".ruff_cache")


def readme_commands() -> list[str]:
    """The README's commands: each `python ...` or `vpbo-benchmark ...` in backquotes or on a line
    of its own; of a set-up line, the part after its install (``pip install ... && COMMAND``)."""
    commands = []
    for line in (REPOSITORY / "README.md").read_text(encoding="utf-8").splitlines():
        parts = [line.split(" && ")[-1]] if " && " in line else re.findall(r"`([^`]+)`", line) or [line]
        for part in parts:
            match = COMMAND.match(part.strip())
            if match and "pip install" not in match.group(1):
                commands.append(match.group(1))
    return commands


def test_the_readme_names_its_commands() -> None:
    commands = readme_commands()
    assert "python examples/quickstart.py" in commands and "pytest -q" not in commands
    assert any(c.startswith("vpbo-benchmark ") for c in commands)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the checkout for the module's commands (none of them reads what another writes)."""
    copy = tmp_path_factory.mktemp("readme") / "checkout"
    shutil.copytree(REPOSITORY, copy, ignore=COPIED_AWAY)
    return copy


@pytest.mark.e2e
@pytest.mark.parametrize("command", readme_commands())
def test_a_readme_command_works_as_pasted(command: str, checkout: Path) -> None:
    bin_folder = str(Path(sys.executable).parent)
    env = {"PATH": f"{bin_folder}:/usr/bin:/bin", "HOME": str(checkout.parent), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(command, shell=True, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command!r} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert done.stdout.strip(), f"{command!r} printed nothing"
