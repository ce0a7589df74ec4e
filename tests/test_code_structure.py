"""The shape of the code of both houses, read from the source (nothing is imported): the sampler
package (``optuna_vpbo/``) and the benchmark lab (``benchmarks/vpbo_benchmarks/``).

- No module over 600 lines and no function over 60 lines; in the sampler package, none over 400
  and 50.
- The sampler's settings module imports nothing of the package, and no module but the pipeline
  and the sampler imports it: feature modules take plain values.
- No import cycle among a house's modules. Every import counts, at any depth (an import inside a
  function to get around a cycle is still a cycle); importing a submodule does not count as
  importing its parent package.
- The lab uses the sampler as a user's code does: no private module or name of ``optuna_vpbo``.
- Optuna's private API only through each house's compatibility module.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60
# The sampler package's own limits: (module lines, function lines).
PACKAGE_LIMITS = (400, 50)
# The modules that may read the settings object: the public face and the loop.
SETTINGS_READERS = {"optuna_vpbo", "optuna_vpbo.sampler", "optuna_vpbo._pipeline"}


@dataclasses.dataclass(frozen=True)
class House:
    """A package of the repository: its folder, its import name and its Optuna compatibility module."""

    folder: Path
    package: str
    optuna_compat: str

    def modules(self) -> dict[str, Path]:
        """Every module of the package by its dotted name (a package by its ``__init__``)."""
        modules = {}
        for path in sorted(self.folder.rglob("*.py")):
            parts = path.relative_to(self.folder.parent).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
        return modules


HOUSES = [
    House(REPOSITORY / "optuna_vpbo", "optuna_vpbo", "optuna_vpbo._optuna_compat"),
    House(REPOSITORY / "benchmarks" / "vpbo_benchmarks", "vpbo_benchmarks", "vpbo_benchmarks.optuna_compat"),
]
HOUSE_IDS = [house.package for house in HOUSES]
# Private types of other libraries that annotations name (the return type of a public call).
ALLOWED_PRIVATE_ATTRIBUTES = {"argparse._SubParsersAction", "threadpoolctl._ThreadpoolLimiter"}


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imported_names(tree: ast.Module, module: str, is_package: bool) -> Iterator[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) of every import in ``tree``, relative imports
    resolved against ``module``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base, [alias.name for alias in node.names], node.lineno


def import_graph(house: House) -> dict[str, set[str]]:
    """Each module of the house and the modules of the house it imports."""
    modules = house.modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target, names, _ in imported_names(parsed(path), name, path.name == "__init__.py"):
            for dotted in [f"{target}.{n}" for n in names] or [target]:
                # `from package import submodule` imports the submodule; else the module itself.
                resolved = dotted if dotted in modules else target
                if resolved in modules and resolved != name:
                    graph[name].add(resolved)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_tarjan_search_finds_a_cycle_and_no_false_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


@pytest.mark.parametrize("house", HOUSES, ids=HOUSE_IDS)
def test_no_module_over_600_lines_and_no_function_over_60(house: House) -> None:
    max_module, max_function = PACKAGE_LIMITS if house.package == "optuna_vpbo" else (MAX_MODULE_LINES, MAX_FUNCTION_LINES)
    too_long = []
    for name, path in house.modules().items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > max_module:
            too_long.append(f"module {name}: {lines} lines")
        for node in ast.walk(parsed(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > max_function:
                    too_long.append(f"function {name}.{node.name} (line {node.lineno}): {length} lines")
    assert not too_long, "\n".join(too_long)


def test_the_settings_sit_at_the_bottom_of_the_import_graph() -> None:
    graph = import_graph(HOUSES[0])
    assert graph["optuna_vpbo._settings"] == set()
    readers = {name for name, imported in graph.items() if "optuna_vpbo._settings" in imported}
    assert readers <= SETTINGS_READERS, f"feature modules importing the settings: {sorted(readers - SETTINGS_READERS)}"


@pytest.mark.parametrize("house", HOUSES, ids=HOUSE_IDS)
def test_no_import_cycle(house: House) -> None:
    graph = import_graph(house)
    assert len(graph) > 10  # the walk found the house's modules
    assert cycles(graph) == []


def test_the_lab_imports_only_public_names_of_the_sampler() -> None:
    lab = HOUSES[1]
    private = []
    for name, path in lab.modules().items():
        for target, names, line in imported_names(parsed(path), name, path.name == "__init__.py"):
            if target.split(".")[0] != "optuna_vpbo":
                continue
            dotted = [*target.split("."), *names]
            if any(part.startswith("_") for part in dotted):
                private.append(f"{name}:{line}: {target} {names}")
    assert not private, "\n".join(private)


@pytest.mark.parametrize("house", HOUSES, ids=HOUSE_IDS)
def test_optuna_s_private_api_only_through_the_compatibility_module(house: House) -> None:
    outside = []
    for name, path in house.modules().items():
        if name == house.optuna_compat:
            continue
        tree = parsed(path)
        for target, names, line in imported_names(tree, name, path.name == "__init__.py"):
            if target.split(".")[0] == "optuna" and any(p.startswith("_") for p in [*target.split("."), *names]):
                outside.append(f"{name}:{line}: from {target} import {names}")
        for node in ast.walk(tree):
            # A private attribute of another object (self's and super()'s own are the class's business).
            if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            if ast.unparse(node) not in ALLOWED_PRIVATE_ATTRIBUTES:
                outside.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    assert not outside, "\n".join(outside)


def test_the_lab_imports_at_the_top_of_its_modules() -> None:
    """No import inside a function (none to get around a cycle): the lab's heavy modules are
    reached through ``vpbo_benchmarks.lazy``, the one place that defers imports."""
    lab = HOUSES[1]
    inside = []
    for name, path in lab.modules().items():
        for node in ast.walk(parsed(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside += [
                    f"{name}:{inner.lineno}: {ast.unparse(inner)}"
                    for inner in ast.walk(node) if isinstance(inner, (ast.Import, ast.ImportFrom))
                ]
    assert not inside, "\n".join(inside)


# The modules of the sampler package that may name Optuna's trial record: the sampler (Optuna's
# protocol), the pending-point protocol (it writes the trial's publication) and the
# compatibility module. Every other module reads trials as ``_trial_record.TrialRecord``, or
# arrays and plain records built from them.
MAX_FROZEN_TRIAL_MODULES = 3


def test_frozen_trial_in_at_most_3_modules_of_the_sampler() -> None:
    naming = sorted(name for name, path in HOUSES[0].modules().items() if "FrozenTrial" in path.read_text(encoding="utf-8"))
    assert len(naming) <= MAX_FROZEN_TRIAL_MODULES, f"FrozenTrial in {len(naming)} modules: {naming}"
