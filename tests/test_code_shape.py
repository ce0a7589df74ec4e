"""The house rules of size on the sampler package (its Python source, the lab aside): no function
over 60 lines, no module over 600 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import optuna_vpbo

MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600
# The installed package (the source folder is off sys.path under the pytest console script).
PACKAGE = Path(optuna_vpbo.__file__).resolve().parent
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "benchmarks" not in p.relative_to(PACKAGE).parts)


def test_the_package_has_sources() -> None:
    assert {"sampler.py", "_fit.py", "_pipeline.py"} <= {p.name for p in SOURCES}


def test_no_function_is_over_60_lines_and_no_module_over_600() -> None:
    long_functions, long_modules = [], []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            long_modules.append(path.name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions.append(f"{path.relative_to(PACKAGE)}:{node.name} ({length} lines)")
    assert not long_functions and not long_modules, (long_functions, long_modules)
