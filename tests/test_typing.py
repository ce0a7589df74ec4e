"""PEP 561: the installed package is typed for its users' type checkers (``py.typed``), and the
native core has its stub (``_core.pyi``, generated and checked by ``.ci/lint.sh``)."""

from __future__ import annotations

from pathlib import Path

import optuna_vpbo

PACKAGE = Path(optuna_vpbo.__file__).resolve().parent


def test_the_installed_package_is_marked_typed_and_the_core_has_its_stub() -> None:
    assert (PACKAGE / "py.typed").is_file()
    stub = (PACKAGE / "_core.pyi").read_text(encoding="utf-8")
    assert "class HyperparameterLayout:" in stub and "HYPERPARAMETER_LAYOUT_VERSION: int" in stub
    assert "def __getattr__" not in stub  # no catch-all: a name the stub lacks is an error
