"""Four worker processes on one study through real storages: SQLite, the journal file and a
PostgreSQL server; two threads (``n_jobs=2``) in one process; a study resumed in a new process.

Every worker runs ``VPBOSampler(seed=worker_seed, n_startup_trials=4)`` on a mixed objective that
runs in steps (``conftest.Steps``): in each step the workers sample in turn and their trials
then wait for each other, so that the trials of different workers always overlap, on a fast
machine or a loaded one, and each worker conditions on the others' running trials (their
published suggestions) as pending points. Each study must end with all its trials COMPLETE and a best value close to that of a
sequential run of as many trials.

The PostgreSQL case needs a server: its SQLAlchemy URL comes from the environment variable
``VPBO_POSTGRES_URL`` and the case is skipped when the variable is unset. ``bash .ci/postgres.sh``
starts a local server (installing Debian's package if needed) and prints the URL; ``.ci/run``
does so before the tests, so CI always runs it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import optuna
import pytest

from conftest import (
    N_STARTUP,
    Steps,
    assert_all_complete,
    assert_distinct_params,
    assert_gp_suggestions_used,
    make_sampler,
    mixed_objective,
    published_params,
    run_in_processes,
    run_study,
    run_worker,
)
from test_storages import journal_storage, sqlite_url

# Worker processes on SQLite, journal and PostgreSQL storages, as a user deploys them.
pytestmark = [pytest.mark.slow, pytest.mark.e2e]
POSTGRES_URL_VARIABLE = "VPBO_POSTGRES_URL"
N_WORKERS = 4
N_TRIALS_PER_WORKER = 10
N_TRIALS = N_WORKERS * N_TRIALS_PER_WORKER
WORKERS_TIMEOUT_SECONDS = 120
# mixed_objective is 0 at its optimum; 40 sequential VPBO trials reach below 0.01 and 40 random
# trials have a median best of 0.53 (0.12 at their 5% quantile, 50 seeds). Four workers must stay
# within this distance of the sequential run: far better than random search, and a margin for
# the information that pending points hold back.
BEST_VALUE_TOLERANCE = 0.1


def postgres_storage(directory: Path) -> str:
    url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not url:
        pytest.skip(
            f"no PostgreSQL server: set {POSTGRES_URL_VARIABLE} to its SQLAlchemy URL "
            f'(`export {POSTGRES_URL_VARIABLE}="$(bash .ci/postgres.sh)"` starts one; CI does)'
        )
    return url


STORAGES: dict[str, Callable[[Path], str | optuna.storages.BaseStorage]] = {
    "sqlite": sqlite_url, "journal": journal_storage, "postgresql": postgres_storage
}


@dataclasses.dataclass(frozen=True)
class WorkersRun:
    storage_kind: str
    study: optuna.Study
    exit_codes: list[int | None]


@contextlib.contextmanager
def workers_study(storage_kind: str, directory: Path, seed_offset: int = 0) -> Iterator[WorkersRun]:
    """N_WORKERS spawned processes (sampler seeds ``seed_offset`` on) optimise one new study
    together in a storage of ``storage_kind``; the study is deleted afterwards."""
    storage = STORAGES[storage_kind](directory)
    name = f"vpbo-workers-{uuid.uuid4().hex[:12]}"  # the PostgreSQL database outlives the test
    optuna.create_study(study_name=name, storage=storage)
    steps = Steps.for_processes(N_WORKERS)
    try:
        exit_codes = run_in_processes(
            run_worker,
            [(storage, name, N_TRIALS_PER_WORKER, worker, None, steps, seed_offset) for worker in range(N_WORKERS)],
            WORKERS_TIMEOUT_SECONDS,
        )
        yield WorkersRun(storage_kind, optuna.load_study(study_name=name, storage=storage), exit_codes)
    finally:
        optuna.delete_study(study_name=name, storage=storage)


@pytest.fixture(scope="module", params=list(STORAGES))
def workers_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkersRun]:
    """N_WORKERS spawned processes optimise one new study together, once per storage."""
    with workers_study(request.param, tmp_path_factory.mktemp(request.param)) as run:
        yield run


@pytest.fixture(scope="module")
def sequential_best() -> float:
    """Best value of the objective after N_TRIALS trials of one sequential VPBO worker."""
    return run_study(mixed_objective, N_TRIALS, make_sampler(seed=0)).best_value


def max_concurrent_trials(study: optuna.Study) -> int:
    """The largest number of trials that were running at the same moment."""
    events: list[tuple[datetime, int]] = []
    for trial in study.trials:
        assert trial.datetime_start is not None and trial.datetime_complete is not None, trial
        events += [(trial.datetime_start, 1), (trial.datetime_complete, -1)]
    running = peak = 0
    for _, change in sorted(events):  # at equal times -1 sorts first: touching is not overlap
        running += change
        peak = max(peak, running)
    return peak


def test_workers_complete_every_trial_concurrently(workers_run: WorkersRun) -> None:
    assert workers_run.exit_codes == [0] * N_WORKERS, "a worker failed, or was killed at the timeout (-9)"
    study = workers_run.study
    assert_all_complete(study, N_TRIALS)
    # Every step holds one running trial per worker at once.
    assert max_concurrent_trials(study) == N_WORKERS, "the workers did not run concurrently"
    # The GP proposed most trials (all but those begun while the initial design was being
    # evaluated), and each of those took the suggestion it published for the other workers.
    suggested = [(t, suggestion) for t in study.trials if (suggestion := published_params(t))]
    assert len(suggested) >= N_TRIALS - 2 * N_WORKERS
    assert all(suggestion == {k: t.params[k] for k in suggestion} for t, suggestion in suggested)


def test_workers_best_is_comparable_to_a_sequential_run(
    workers_run: WorkersRun, sequential_best: float, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # How the workers' steps interleave (which trial gets which number, which trials are finished
    # when one samples) is up to the machine, and so is the run: 40 journal runs here ended below
    # 0.001 (20 of them beside two busy cores), one in a loaded CI run at 0.106. A miss is tried
    # once more with other seeds; random search misses in 19 of 20 runs, so nearly always twice.
    bests = [workers_run.study.best_value]
    if bests[0] > sequential_best + BEST_VALUE_TOLERANCE:
        kind = workers_run.storage_kind
        with workers_study(kind, tmp_path_factory.mktemp(f"{kind}-again"), seed_offset=N_WORKERS) as again:
            bests.append(again.study.best_value)
    assert min(bests) <= sequential_best + BEST_VALUE_TOLERANCE, (bests, sequential_best)


def test_workers_never_evaluate_one_point_twice(workers_run: WorkersRun) -> None:
    # Each suggestion is reserved (``_pending.reserve``): published, then checked against every
    # other trial of the study, whatever its state (docs/many-workers.md).
    assert_distinct_params(workers_run.study)


def test_two_threads_in_one_process(tmp_path: Path) -> None:
    study = optuna.create_study(storage=sqlite_url(tmp_path), sampler=make_sampler(seed=0))
    study.optimize(Steps.for_threads(2).objective(), n_trials=N_TRIALS // 2, n_jobs=2)
    assert_all_complete(study, N_TRIALS // 2)
    assert_distinct_params(study)  # 20 trials: before the GP converges
    assert max_concurrent_trials(study) == 2
    assert_gp_suggestions_used(study, first=N_STARTUP)


def test_study_resumed_in_a_new_process(tmp_path: Path) -> None:
    storage = sqlite_url(tmp_path)
    recorded = {"record_proposals": True}
    study = optuna.create_study(study_name="resumed", storage=storage, sampler=make_sampler(0, **recorded))
    study.optimize(mixed_objective, n_trials=6)
    assert run_in_processes(run_worker, [(storage, "resumed", 6, 1, recorded)], WORKERS_TIMEOUT_SECONDS) == [0]
    study = optuna.load_study(study_name="resumed", storage=storage)
    assert_all_complete(study, 12)
    assert [t.number for t in study.trials] == list(range(12))
    assert_distinct_params(study)
    # The new process found the initial design done and went straight to value proposals.
    phases = [t.user_attrs["vpbo"]["phase"] for t in study.trials]
    assert phases == ["random"] * (N_STARTUP // 2) + ["mes"] * (N_STARTUP // 2) + ["proposals"] * 8, phases
    assert_gp_suggestions_used(study)
