"""Tests of the suite's peer samplers (benchmarks/vpbo_benchmarks/peers.py, peer_catcmawm.py,
peer_ax.py). The peers' modules import the peers extra at their top: each test imports its
module after checking the extra is there."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import numpy as np
import optuna
import pytest

from vpbo_benchmarks.samplers import SAMPLER_FACTORIES

LEVELS = ("a", "b", "c")


def flat_objective(trial: optuna.Trial) -> float:
    """Minimum 0 at c = "b", x = 0.3, lr = 1e-2, k = 4."""
    c = trial.suggest_categorical("c", list(LEVELS))
    x = trial.suggest_float("x", -1.0, 1.0)
    lr = trial.suggest_float("lr", 1e-4, 1.0, log=True)
    k = trial.suggest_int("k", 0, 10)
    return (x - 0.3) ** 2 + (np.log10(lr) + 2) ** 2 + 0.1 * (k - 4) ** 2 + (0.0 if c == "b" else 1.0)


def conditional_objective(trial: optuna.Trial) -> float:
    n = trial.suggest_int("n", 1, 3)
    return sum(trial.suggest_float(f"u{i}", 0.0, 1.0) for i in range(n))


def _run(sampler: optuna.samplers.BaseSampler, objective: Callable[[optuna.Trial], float], n_trials: int) -> optuna.Study:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=n_trials)
    return study


def _assert_in_bounds(study: optuna.Study) -> None:
    for t in study.trials:
        assert t.params["c"] in LEVELS and isinstance(t.params["k"], int) and 0 <= t.params["k"] <= 10
        assert -1.0 <= t.params["x"] <= 1.0 and 1e-4 <= t.params["lr"] <= 1.0


def test_peers_are_registered_next_to_tpe_group() -> None:
    for name in ("tpe-auto", "catcmawm", "ax", "tpe-group", "tpe", "gp", "random", "smac"):
        assert name in SAMPLER_FACTORIES
    sampler = SAMPLER_FACTORIES["tpe-auto"](0)
    assert isinstance(sampler, optuna.samplers.TPESampler)
    assert sampler._multivariate and sampler._constant_liar and not sampler._group


def test_catcmawm_optimises_a_flat_mixed_problem() -> None:
    pytest.importorskip("cmaes", reason="catcmawm needs the cmaes package (the peers extra)")
    from vpbo_benchmarks import peer_catcmawm as peers

    sampler = peers.CatCMAwMSampler(seed=0)
    study = _run(sampler, flat_objective, 120)
    _assert_in_bounds(study)
    assert sampler._optimizer.generation >= 5  # told whole generations
    random = _run(optuna.samplers.RandomSampler(seed=0), flat_objective, 120)
    assert study.best_value < random.best_value
    assert study.best_params["c"] == "b"
    # Reproducible for a seed.
    again = _run(peers.CatCMAwMSampler(seed=0), flat_objective, 30)
    assert [t.params for t in again.trials] == [t.params for t in study.trials[:30]]


def test_catcmawm_rejects_a_conditional_space() -> None:
    pytest.importorskip("cmaes", reason="catcmawm needs the cmaes package (the peers extra)")
    from vpbo_benchmarks import peer_catcmawm as peers

    with pytest.raises(ValueError, match="flat search spaces only"):
        _run(peers.CatCMAwMSampler(seed=0), conditional_objective, 30)


@pytest.mark.skipif(
    importlib.util.find_spec("ax") is None, reason="the ax peer needs ax-platform (the peers extra, with PyTorch)"
)
def test_ax_samples_a_flat_mixed_problem_and_rejects_a_conditional_one() -> None:
    from vpbo_benchmarks import peer_ax as peers

    study = _run(peers.AxSampler(seed=0), flat_objective, 9)
    _assert_in_bounds(study)
    assert len(study.trials) == 9 and all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert len({t.params["c"] for t in study.trials}) >= 2
    with pytest.raises(ValueError, match="flat search spaces only"):
        _run(peers.AxSampler(seed=0), conditional_objective, 12)
