"""A study whose attributes the previous release (74e94fd) wrote, kept as compact JSON
(``tests/data/release-74e94fd-study.json``), and the code that writes and loads it.

Written by 74e94fd's package (its own virtual environment; ``python tests/release_study.py
tests/data/release-74e94fd-study.json`` from the repository root, which keeps the source folder
off ``sys.path``): 300 random trials, then VPBOSampler trials, so that the release stored the
fits of its objective model (fitted at 300 trials) and its success model (fitted once a trial
failed in the objective, with the release's failure mark) in the study's system attributes;
three trials are left running with the suggestions the release published (the first before it
set any parameter). ``tests/test_untrusted_storage.py`` continues it with the new code.
"""

from __future__ import annotations

import json
import math
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import distribution_to_json, json_to_distribution
from optuna.trial import FrozenTrial, TrialState

STUDY_NAME = "vpbo-release-74e94fd"
FIXTURE = Path(__file__).parent / "data" / "release-74e94fd-study.json"
N_RANDOM = 300
N_VPBO = 5
FAILING_TRIAL = N_RANDOM + 2  # its objective raises
N_RUNNING = 3


def objective(trial: optuna.Trial) -> float:
    """The mixed objective of the tests (``conftest.mixed_objective``), spelt out: the fixture
    must not depend on how conftest reads later."""
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    flag = trial.suggest_categorical("flag", [True, False])
    x = trial.suggest_float("x", -2.0, 2.0)
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    n = trial.suggest_int("n", 1, 8)
    if trial.number == FAILING_TRIAL:
        raise RuntimeError("a failure of the objective")
    offset = {"a": 0.0, "b": 0.5, "c": 1.0}[kind] + (0.25 if flag else 0.0)
    return (x - 0.3) ** 2 + (math.log10(lr) + 2.5) ** 2 + 0.1 * (n - 3) ** 2 + offset


def write_study() -> optuna.Study:
    """The study, written by the installed package (run under 74e94fd's)."""
    from optuna_vpbo import VPBOSampler

    study = optuna.create_study(study_name=STUDY_NAME, sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(objective, n_trials=N_RANDOM)
    study.sampler = VPBOSampler(seed=0)
    study.optimize(objective, n_trials=N_VPBO, catch=(RuntimeError,))
    for i in range(N_RUNNING):  # sampled (so published), never told; the first sets no parameter
        trial = study.ask()
        if i == 0:
            assert trial.relative_params
            continue
        for name in ("kind", "flag", "x", "lr", "n"):
            trial._suggest(name, study.trials[0].distributions[name])
    return study


def dump(study: optuna.Study) -> dict[str, Any]:
    """The study as compact JSON: one set of distributions, each trial's parameters in their
    order, values, attributes (diagnostics left out), and the study's system attributes."""
    distributions = study.trials[0].distributions
    names = list(distributions)
    return {
        "study_name": study.study_name,
        "directions": [d.name for d in study.directions],
        "study_system_attrs": study._storage.get_study_system_attrs(study._study_id),
        "distributions": {name: distribution_to_json(d) for name, d in distributions.items()},
        "trials": [
            {
                "state": t.state.name,
                "params": [t.params.get(name) for name in names] if t.params else None,
                "values": t.values,
                "system_attrs": t.system_attrs,
            }
            for t in study.trials
        ],
    }


def load(storage: str | optuna.storages.BaseStorage | None, record: dict[str, Any] | None = None) -> optuna.Study:
    """The fixture's study, created anew in ``storage`` (None: in memory)."""
    record = record or json.loads(FIXTURE.read_text())
    directions = [optuna.study.StudyDirection[d] for d in record["directions"]]
    study = optuna.create_study(storage=storage, study_name=record["study_name"], directions=directions)
    for key, value in record["study_system_attrs"].items():
        study._storage.set_study_system_attr(study._study_id, key, value)
    distributions = {name: json_to_distribution(d) for name, d in record["distributions"].items()}
    now = datetime.now()
    for number, trial in enumerate(record["trials"]):
        state = TrialState[trial["state"]]
        params = dict(zip(distributions, trial["params"])) if trial["params"] else {}
        template = FrozenTrial(
            number=number, state=state, value=None, values=trial["values"], datetime_start=now,
            datetime_complete=None if state == TrialState.RUNNING else now, params=params,
            distributions={name: distributions[name] for name in params}, user_attrs={},
            system_attrs=trial["system_attrs"], intermediate_values={}, trial_id=number,
        )
        study._storage.create_new_trial(study._study_id, template_trial=template)
    return study


if __name__ == "__main__":
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    Path(sys.argv[1]).write_text(json.dumps(dump(write_study()), separators=(",", ":")) + "\n")
