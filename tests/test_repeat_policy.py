"""A complete configuration is proposed again only when the study shows a noisy objective
(``optuna_vpbo._repeat_policy``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import optuna
import pytest

from optuna_vpbo import VPBOSampler, VPBOSettings, _observations
from optuna_vpbo._proposals import Repeats
from optuna_vpbo._repeat_policy import evaluated_twice_with_equal_values, fits_noise, may_repeat_complete
from optuna_vpbo.search_space import SAME_VALUE_FRACTION


def test_equal_values_of_a_repeated_configuration_say_deterministic() -> None:
    h = np.array([[0], [1], [0]], dtype=np.int32)
    x = np.array([[0.25], [0.5], [0.25]])
    assert evaluated_twice_with_equal_values(h, x, np.array([[1.0], [2.0], [1.0]]))
    assert not evaluated_twice_with_equal_values(h, x, np.array([[1.0], [2.0], [1.5]]))
    # Another row or another x is another configuration.
    assert not evaluated_twice_with_equal_values(h, np.array([[0.25], [0.5], [0.26]]), np.array([[1.0], [2.0], [1.0]]))
    assert not evaluated_twice_with_equal_values(h[:1], x[:1], np.array([[1.0]]))


def test_equal_values_compare_relative_to_their_magnitude() -> None:
    h = np.zeros((2, 0), dtype=np.int32)
    x = np.array([[0.5], [0.5]])
    assert evaluated_twice_with_equal_values(h, x, np.array([[1e6], [1e6 * (1 + 1e-14)]]))
    assert not evaluated_twice_with_equal_values(h, x, np.array([[1e6], [1e6 * (1 + 1e-9)]]))


def test_noise_counts_as_a_share_of_the_fitted_variance() -> None:
    assert fits_noise([0.2], [1.0]) and not fits_noise([0.05], [1.0])
    assert not fits_noise([0.2, 0.01], [1.0, 1.0])  # every model must be noisy


def test_the_paper_policy_allows_every_repeat() -> None:
    h, x = np.zeros((2, 0), dtype=np.int32), np.array([[0.5], [0.5]])
    assert may_repeat_complete("allowed", h, x, np.array([[1.0], [1.0]]), [1e-6], [1.0])
    assert not may_repeat_complete("when-noisy", h, x, np.array([[1.0], [1.0]]), [0.5], [1.0])
    assert may_repeat_complete("when-noisy", h, x, np.array([[1.0], [1.2]]), [0.5], [1.0])
    assert not may_repeat_complete("when-noisy", h, x, np.array([[1.0], [1.2]]), [0.01], [1.0])


def test_the_setting_is_validated_and_the_paper_keeps_repeats() -> None:
    assert VPBOSettings().complete_repeats == "when-noisy"
    assert VPBOSettings.paper().complete_repeats == "allowed"
    with pytest.raises(ValueError, match="complete_repeats must be one of"):
        VPBOSettings(complete_repeats="never")


def _kinks(trial: optuna.Trial) -> float:
    """A deterministic objective over 60 int points with a jump the GP cannot fit smoothly: the
    kind of landscape on which repeats happened (a k-nearest-neighbours loss, docs/decisions.md)."""
    k = trial.suggest_int("k", 1, 15)
    p = trial.suggest_int("p", 1, 4)
    return (3.0 if k <= 2 else 0.0) + 0.02 * abs(k - 11) + 0.05 * abs(p - 1) + 0.001 * math.sin(k * p)


def _repeated_trials(settings: VPBOSettings, seed: int, n_trials: int) -> list[int]:
    study = optuna.create_study(sampler=VPBOSampler(seed=seed, settings=settings))
    study.optimize(_kinks, n_trials=n_trials)
    seen: set[tuple[int, int]] = set()
    repeats = []
    for t in study.trials:
        key = (t.params["k"], t.params["p"])
        if key in seen:
            repeats.append(t.number)
        seen.add(key)
    return repeats


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_deterministic_int_space_gets_no_repeat_while_points_remain(seed: int) -> None:
    """No repeat from the first trial on: the random part of the design redraws too."""
    assert _repeated_trials(VPBOSettings(n_startup_trials=8), seed, 40) == []


def test_random_draws_of_the_design_repeat_without_the_policy() -> None:
    """The design's random part, as Optuna's random sampling draws it, repeats a point of a
    60-point space in some of 12 studies of 8 random trials (about one in four expected)."""
    settings = VPBOSettings(n_startup_trials=8, complete_repeats="allowed")
    assert any(_repeated_trials(settings, seed, 8) for seed in range(12))


def test_a_space_with_a_continuous_float_keeps_optunas_random_design() -> None:
    """Where a random draw cannot repeat (a float without a step), the design's random part is
    Optuna's random sampling under either policy: the same suggestions."""

    def objective(trial: optuna.Trial) -> float:
        return trial.suggest_float("x", 0, 1) + trial.suggest_int("k", 1, 3)

    params = []
    for policy in ("when-noisy", "allowed"):
        settings = VPBOSettings(n_startup_trials=8, complete_repeats=policy)
        study = optuna.create_study(sampler=VPBOSampler(seed=3, settings=settings))
        study.optimize(objective, n_trials=settings.n_random_startup_trials)
        params.append([t.params for t in study.trials])
    assert params[0] == params[1]


def test_once_every_point_is_taken_a_repeat_is_made_and_named_in_the_diagnostics() -> None:
    def three_points(trial: optuna.Trial) -> float:
        return float((trial.suggest_int("k", 1, 3) - 2) ** 2)

    sampler = VPBOSampler(seed=0, record_proposals=True, settings=VPBOSettings(n_startup_trials=2))
    study = optuna.create_study(sampler=sampler)
    study.optimize(three_points, n_trials=8)
    assert {t.params["k"] for t in study.trials} == {1, 2, 3}
    numbers = {t.params["k"]: min(u.number for u in study.trials if u.params["k"] == t.params["k"]) for t in study.trials}
    named = [t.user_attrs["vpbo"].get("repeats_trial") for t in study.trials[4:]]
    assert all(n in numbers.values() for n in named if n is not None)
    assert any(n is not None for n in named)


def test_the_complete_trials_tolerance_is_finer_in_a_flat_space() -> None:
    assert (_observations.COMPLETE_REPEAT_FRACTION, SAME_VALUE_FRACTION) == (1e-9, 1e-4)


def test_repeats_take_a_tolerance_per_point() -> None:
    """A complete trial's tolerance (fine) beside a pruned trial's (coarse) on one row."""
    h = np.zeros((2, 1), dtype=np.int32)
    x = np.array([[0.2, 0.5], [0.7, 0.5]])
    repeats = Repeats(h, x, np.array([[1e-9, 1e-9], [1e-4, 1e-4]]))
    near = np.array([[0.2 + 1e-6, 0.5], [0.7 + 1e-6, 0.5], [0.7 + 2e-4, 0.5]])
    assert repeats.mask(np.array([0]), near).tolist() == [False, True, False]
    assert not repeats.mask(np.array([1]), near).any()  # another row
    assert Repeats(h, x, np.array([1e-4, 1e-4])).mask(np.array([0]), near).tolist() == [True, True, False]


def _closest_pair(study: optuna.Study, names: list[str]) -> float:
    """The smallest distance (largest coordinate difference) between two complete trials of the
    same branch whose floats are ``names`` (all on [0, 1])."""
    closest = math.inf
    trials = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    for i, a in enumerate(trials):
        for b in trials[:i]:
            if a.params.keys() == b.params.keys() and a.params.get("branch") == b.params.get("branch"):
                closest = min(closest, max(abs(a.params[n] - b.params[n]) for n in names if n in a.params))
    return closest


def _bowl(trial: optuna.Trial) -> float:
    return (trial.suggest_float("x", 0, 1) - 0.31) ** 2 + (trial.suggest_float("y", 0, 1) - 0.67) ** 2


def _two_bowls(trial: optuna.Trial) -> float:
    """A conditional space: each branch opens its own float."""
    branch = trial.suggest_categorical("branch", ["a", "b"])
    u = trial.suggest_float(f"u_{branch}", 0, 1)
    return (u - 0.31) ** 2 + (0.0 if branch == "a" else 0.5)


def _study(objective: Any, n_trials: int, **changes: Any) -> optuna.Study:
    settings = VPBOSettings(n_startup_trials=8, **changes)
    study = optuna.create_study(sampler=VPBOSampler(seed=0, settings=settings))
    study.optimize(objective, n_trials=n_trials)
    return study


def test_a_flat_space_refines_closer_to_a_complete_trial_than_a_conditional_one() -> None:
    """The refinement of a smooth optimum comes within 1e-4 of a complete trial in a flat space
    (``COMPLETE_REPEAT_FRACTION``), not where the coarse tolerance holds: with the coarse fraction,
    and in a conditional space."""
    assert _closest_pair(_study(_bowl, 40), ["x", "y"]) < 1e-4
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_observations, "COMPLETE_REPEAT_FRACTION", SAME_VALUE_FRACTION)
        assert _closest_pair(_study(_bowl, 40), ["x", "y"]) >= 1e-4
    assert _closest_pair(_study(_two_bowls, 40), ["u_a", "u_b"]) >= 1e-4
