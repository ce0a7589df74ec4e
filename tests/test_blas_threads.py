"""The process-wide BLAS limit of sampling (``_blas_threads``): one thread while any sampler of
the process samples, and the original limit back when the last one is done, whatever the
interleaving of the samplers' threads.

Against a recording stand-in for threadpoolctl: what OpenBLAS itself reports is no reliable
witness across threads (docs/decisions.md, "The BLAS limit of sampling")."""

from __future__ import annotations

import random
import threading

import optuna
import pytest

from optuna_vpbo import VPBOSampler, _blas_threads
from optuna_vpbo._blas_threads import one_blas_thread


class RecordingController:
    """A stand-in for ``threadpoolctl.ThreadpoolController``: one BLAS thread count, set by
    ``limit`` and put back by the limiter's ``restore_original_limits``, as threadpoolctl does."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.n_limits = 0

    def limit(self, *, limits: int, user_api: str) -> RecordingController.Limiter:
        assert user_api == "blas"
        self.n_limits += 1
        limiter = self.Limiter(self, self.threads)
        self.threads = limits
        return limiter

    class Limiter:
        def __init__(self, controller: RecordingController, original: int) -> None:
            self.controller, self.original = controller, original

        def restore_original_limits(self) -> None:
            self.controller.threads = self.original


@pytest.fixture
def controller(monkeypatch: pytest.MonkeyPatch) -> RecordingController:
    recording = RecordingController(threads=4)
    monkeypatch.setattr(_blas_threads, "_CONTROLLER", recording)
    return recording


def test_overlapping_holders_keep_the_limit_until_the_last_leaves(controller: RecordingController) -> None:
    """A enters, B enters, A leaves, B leaves: the interleaving that left BLAS at one thread for
    good when each sampler took and restored the limit on its own."""
    a, b = one_blas_thread(), one_blas_thread()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert controller.threads == 1  # B still samples
    b.__exit__(None, None, None)
    assert controller.threads == 4 and controller.n_limits == 1


def test_the_limit_is_restored_when_the_block_raises(controller: RecordingController) -> None:
    with pytest.raises(RuntimeError):
        with one_blas_thread():
            raise RuntimeError("a model failure")
    assert controller.threads == 4
    with one_blas_thread():
        assert controller.threads == 1
    assert controller.threads == 4 and controller.n_limits == 2


def test_many_random_interleavings_in_threads(controller: RecordingController) -> None:
    inside: list[int] = []
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(200):
                with one_blas_thread():
                    inside.append(controller.threads)
                    if rng.random() < 0.3:
                        threading.Event().wait(rng.random() * 1e-4)
        except BaseException as error:  # noqa: BLE001  # reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and len(inside) == 6 * 200
    assert set(inside) == {1}
    assert controller.threads == 4 and _blas_threads._holders == 0


def test_two_samplers_in_two_threads_leave_blas_as_they_found_it(
    controller: RecordingController, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two studies, each with its own VPBOSampler, optimised at the same time in two threads: the
    samplers take the limit through the shared count, and the original comes back at the end."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    overlaps: list[int] = []
    real_limit = controller.limit

    def limit(*, limits: int, user_api: str) -> RecordingController.Limiter:
        overlaps.append(_blas_threads._holders)
        return real_limit(limits=limits, user_api=user_api)

    monkeypatch.setattr(controller, "limit", limit)

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b"])
        x = trial.suggest_float("x", -1.0, 1.0)
        return (x - 0.2) ** 2 + (0.3 if kind == "a" else 0.0)

    def run(seed: int) -> None:
        study = optuna.create_study(sampler=VPBOSampler(seed=seed, n_startup_trials=4))
        study.optimize(objective, n_trials=20)
        assert len(study.trials) == 20

    threads = [threading.Thread(target=run, args=(seed,)) for seed in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert controller.n_limits >= 1 and set(overlaps) == {0}  # only a first holder sets the limit
    assert controller.threads == 4 and _blas_threads._holders == 0
