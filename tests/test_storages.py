"""VPBOSampler on persistent storages: SQLite (RDB) and the journal file, in one or two processes.

The sampler publishes each trial's suggestion as system attributes (in chunks of at most 2045
characters) so that workers sharing a storage treat running trials as pending points; these
tests check that this round trip works through real storages.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from pathlib import Path

import optuna
import pytest
from optuna.storages.journal import JournalFileBackend

from conftest import (
    all_params,
    assert_all_complete,
    assert_gp_suggestions_used,
    make_sampler,
    mixed_objective,
    optimize_stored_study,
    published_params,
)
from optuna_vpbo._pending import SYSTEM_ATTR_MAX_LENGTH

WORKER_TIMEOUT_SECONDS = 180


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'study.db'}"


def journal_storage(directory: Path) -> optuna.storages.JournalStorage:
    backend = JournalFileBackend(str(directory / "journal.log"))
    return optuna.storages.JournalStorage(backend)


# Each storage kind: what spawned workers receive (a picklable URL or storage) and a name.
STORAGES: dict[str, Callable[[Path], str | optuna.storages.BaseStorage]] = {
    "sqlite": sqlite_url,
    "journal": journal_storage,
}


@pytest.fixture(params=list(STORAGES))
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> str | optuna.storages.BaseStorage:
    return STORAGES[request.param](tmp_path)


def test_study_runs_and_resumes(storage: str | optuna.storages.BaseStorage) -> None:
    study = optuna.create_study(study_name="vpbo", storage=storage, sampler=make_sampler())
    study.optimize(mixed_objective, n_trials=8)
    assert_gp_suggestions_used(study)
    # A new sampler (as a restarted process would have) continues the stored study.
    resumed = optuna.load_study(study_name="vpbo", storage=storage, sampler=make_sampler(seed=1))
    resumed.optimize(mixed_objective, n_trials=4)
    assert_all_complete(resumed, 12)
    assert_gp_suggestions_used(resumed)


def test_long_suggestion_is_stored_in_chunks(storage: str | optuna.storages.BaseStorage) -> None:
    long_choices = ["a" * 200, "b" * 200]

    def objective(trial: optuna.Trial) -> float:
        picks = [trial.suggest_categorical(f"option_{i}", long_choices) for i in range(16)]
        return sum(p == long_choices[1] for p in picks) + trial.suggest_float("x", -1.0, 1.0) ** 2

    study = optuna.create_study(storage=storage, sampler=make_sampler())
    study.optimize(objective, n_trials=6)
    assert_all_complete(study, 6)
    last = study.trials[-1]
    assert "vpbo:relative_params:1" in last.system_attrs, "the suggestion should need two chunks"
    assert all(len(v) <= SYSTEM_ATTR_MAX_LENGTH for v in last.system_attrs.values() if isinstance(v, str))
    assert_gp_suggestions_used(study)
    assert published_params(last) == last.params


@pytest.mark.slow
def test_two_processes_share_one_study(storage: str | optuna.storages.BaseStorage) -> None:
    optuna.create_study(study_name="shared", storage=storage)
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=optimize_stored_study, args=(storage, "shared", 8, seed)) for seed in (0, 1)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(WORKER_TIMEOUT_SECONDS)
    for worker in workers:
        if worker.is_alive():
            worker.kill()
    assert [w.exitcode for w in workers] == [0, 0]
    study = optuna.load_study(study_name="shared", storage=storage)
    assert_all_complete(study, 16)
    points = {tuple(sorted(p.items())) for p in all_params(study)}
    assert len(points) == 16
