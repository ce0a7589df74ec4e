"""The trust region of a flat space beyond enumeration (``_combinations.trust_region``,
``_combinations.TrustRegion``): its radius checked against a direct simulation of the rule its
docstring states, its samples against a count of the changes, and real studies against the
diagnostics they store."""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pytest

from conftest import N_STARTUP, make_sampler
from optuna_vpbo import VPBOSampler, VPBOSettings
from optuna_vpbo._combinations import (
    LOCAL_TRIALS,
    TRUST_REGION_FACTOR,
    TRUST_REGION_FAILURES,
    TRUST_REGION_START,
    TRUST_REGION_SUCCESSES,
    TrustRegion,
    trust_radius,
)
from optuna_vpbo._diagnostics import diagnostics_markdown


def _direct_radius(improved: list[bool], k: int) -> float:
    """The radius after a run of trials past the design, each improving or not: a counter of
    the improvements and one of the failures in a row, as the rule is stated."""
    start = max(1.0, round(TRUST_REGION_START * k))
    radius, run_up, run_down = start, 0, 0
    for up in improved:
        if up:
            run_up, run_down = run_up + 1, 0
        else:
            run_up, run_down = 0, run_down + 1
        if run_up == TRUST_REGION_SUCCESSES:
            radius, run_up = min(k, radius * TRUST_REGION_FACTOR), 0
        if run_down == TRUST_REGION_FAILURES:
            radius, run_down = radius / TRUST_REGION_FACTOR, 0
            if radius < 1:
                radius = start
    return radius


def _targets(improved: list[bool], n_design: int) -> np.ndarray:
    """Targets (higher is better) of a design of ``n_design`` trials and then trials that each
    beat the best or fall below it."""
    targets, best = list(np.linspace(-1.0, 0.0, n_design)), 0.0
    for up in improved:
        best = best + 1.0 if up else best
        targets.append(best if up else -5.0)
    return np.array(targets)


@pytest.mark.parametrize("seed", range(6))
def test_the_radius_follows_the_stated_rule(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k, n_design = int(rng.integers(2, 60)), int(rng.integers(1, 20))
    improved = list(rng.random(int(rng.integers(0, 120))) < rng.uniform(0.05, 0.6))
    targets = _targets(improved, n_design)
    numbers = rng.permutation(len(targets))  # stored out of order: replayed by trial number
    radius = trust_radius(targets[numbers], np.ones(len(targets), dtype=bool), numbers, n_design, k)
    assert radius == max(1, int(_direct_radius(improved, k)))
    assert 1 <= radius <= k


def test_failures_shrink_the_radius_until_it_starts_again() -> None:
    k, n_design = 25, 4
    radii = [trust_radius(_targets([False] * f, n_design), np.ones(n_design + f, bool), np.arange(n_design + f), n_design, k)
             for f in range(16)]
    start = round(TRUST_REGION_START * k)
    assert radii[0] == radii[1] == start
    assert radii[2] < start and min(radii) == 1
    assert start in radii[3:]  # below one change the region starts again
    assert all(b <= a for a, b in zip(radii, radii[1:]) if b != start)


def test_an_infeasible_improvement_is_no_success() -> None:
    targets = _targets([True] * 6, 3)
    feasible = np.ones(len(targets), dtype=bool)
    feasible[3:] = False  # every trial after the design violates a constraint
    k = 30
    start = round(TRUST_REGION_START * k)
    assert trust_radius(targets, feasible, np.arange(len(targets)), 3, k) < start
    assert trust_radius(targets, np.ones(len(targets), bool), np.arange(len(targets)), 3, k) > start


@pytest.mark.parametrize("radius", [1, 3, 7])
def test_samples_lie_within_the_radius_and_reach_it(radius: int) -> None:
    n_levels = np.array([2, 5, 3, 7, 2, 4, 6, 2, 3, 5])
    centre = np.array([1, 4, 0, 6, 1, 2, 0, 1, 2, 3], dtype=np.int32)
    region = TrustRegion(centre, radius)
    rows = region.sample(n_levels, 3000, np.random.default_rng(radius))
    distances = np.count_nonzero(rows != centre, axis=1)
    assert np.all((rows >= 0) & (rows < n_levels))
    assert distances.min() == 1 and distances.max() == radius
    counts = np.bincount(distances, minlength=radius + 1)[1:]
    assert np.all(np.abs(counts / len(rows) - 1 / radius) < 0.05)  # each distance about equally often
    changed = rows != centre
    assert np.all(changed.mean(axis=0) > 0.3 * changed.mean())  # every variable is changed
    inside = region.within(np.vstack([rows, (centre + 1) % n_levels]))
    assert len(inside) == len(rows) and np.array_equal(inside, rows)


def _binary_study(n_trials: int, **settings: Any) -> optuna.Study:
    def objective(trial: optuna.Trial) -> float:
        bits = np.array([trial.suggest_categorical(f"b{i}", [0, 1]) for i in range(16)])
        return float(np.sum(bits * np.arange(1, 17)) + 3.0 * bits[0] * bits[1])

    sampler = make_sampler(**{"max_enumerated_combinations": 512, "record_proposals": True, **settings})
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=n_trials)
    return study


def test_a_study_beyond_enumeration_proposes_within_its_trust_region() -> None:
    study = _binary_study(40)
    after_design = [t for t in study.trials if t.user_attrs.get("vpbo", {}).get("phase") == "proposals"]
    assert after_design
    for trial in after_design:
        region = trial.user_attrs["vpbo"]["trust_region"]
        earlier = [t for t in study.trials if t.number < trial.number and t.state == optuna.trial.TrialState.COMPLETE]
        incumbent = min(earlier, key=lambda t: (t.value, t.number))
        changes = sum(trial.params[name] != incumbent.params[name] for name in trial.params)
        assert 1 <= changes <= region["radius"]
        assert region["trained_on"] == len(earlier) or len(earlier) > LOCAL_TRIALS
        assert f"at most {region['radius']} categorical changes" in diagnostics_markdown(trial.user_attrs["vpbo"])


def test_enumerable_and_paper_studies_have_no_trust_region() -> None:
    enumerable = _binary_study(24, max_enumerated_combinations=1 << 16)
    settings = VPBOSettings.paper().replace(max_enumerated_combinations=512, n_startup_trials=N_STARTUP)
    paper = optuna.create_study(sampler=VPBOSampler(seed=0, settings=settings, record_proposals=True))
    paper.optimize(lambda t: sum(t.suggest_categorical(f"b{i}", [0, 1]) for i in range(16)), n_trials=24)
    for study in (enumerable, paper):
        assert not any("trust_region" in t.user_attrs.get("vpbo", {}) for t in study.trials)
