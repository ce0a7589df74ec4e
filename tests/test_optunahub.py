"""The OptunaHub package in docs/optunahub, loaded the way a user loads a local package."""

from __future__ import annotations

import re
from pathlib import Path

import optuna
import optunahub

from conftest import value_of
from optuna_vpbo import VPBOSampler

REGISTRY_ROOT = Path(__file__).resolve().parents[1] / "docs" / "optunahub" / "package"
PACKAGE = "samplers/vpbo"
FRONT_MATTER_KEYS = ("author", "title", "description", "tags", "optuna_versions", "license")


def _objective(trial: optuna.Trial) -> float:
    shape = trial.suggest_categorical("shape", ["bowl", "tilted", "ridge"])
    x = trial.suggest_float("x", -5.0, 5.0)
    return (x - 1.0) ** 2 + {"bowl": 0.0, "tilted": 0.5, "ridge": 1.0}[shape]


def test_the_package_loads_and_runs_a_short_study() -> None:
    module = optunahub.load_local_module(package=PACKAGE, registry_root=str(REGISTRY_ROOT))
    assert module.VPBOSampler is VPBOSampler
    sampler = module.VPBOSampler(seed=0, n_startup_trials=4)
    study = optuna.create_study(sampler=sampler)
    study.optimize(_objective, n_trials=12)
    completed = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert len(completed) == 12
    # The 8 GP trials after the 4-trial initial design find the optimum (0 at bowl, x = 1) within
    # 0.01, which 12 random trials do with probability 1 - (1 - 0.02 / 3)^12 = 8 %; the initial
    # design alone does not come close.
    assert min(value_of(t) for t in completed[:4]) > 0.1
    best = min(completed[4:], key=value_of)
    assert value_of(best) < 0.01 and best.params["shape"] == "bowl", best
    module_settings = module.VPBOSettings(hyperparameter_prior="none")
    assert module.VPBOSampler(settings=module_settings).settings.hyperparameter_prior == "none"


def test_the_readme_has_optunahubs_front_matter_and_the_package_its_files() -> None:
    folder = REGISTRY_ROOT / PACKAGE
    readme = (folder / "README.md").read_text(encoding="utf-8")
    front = re.match(r"---\n(.*?)\n---\n", readme, re.S)
    assert front is not None
    keys = [line.split(":", 1)[0] for line in front.group(1).splitlines()]
    assert keys == list(FRONT_MATTER_KEYS)
    tags = re.search(r"^tags: \[(.*)\]$", front.group(1), re.M)
    assert tags is not None and "sampler" in tags.group(1).split(", ")
    for section in ("## Abstract", "## APIs", "## Example", "### Reference"):
        assert section in readme
    assert (folder / "requirements.txt").read_text().split() == ["optuna-vpbo"]
    for name in ("__init__.py", "example.py", "LICENSE"):
        assert (folder / name).is_file()
