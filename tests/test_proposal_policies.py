"""The small policies around the value proposals: the stall safeguard that sends a stuck study to
its least observed combinations and tries its incumbent with one numeric coordinate drawn."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import optuna
import pytest

from conftest import make_sampler
from optuna_vpbo import VPBOSettings, _core, _pipeline
from optuna_vpbo._combinations import least_observed, unique_rows
from optuna_vpbo._models import ObjectiveModel, improvement_z
from optuna_vpbo._stall import (
    MAX_PERTURBATION_DRAWS,
    covered,
    explores,
    perturbed_incumbent,
    perturbs,
    spent,
    stall_age,
    unpaid_explorations,
    unpaid_perturbations,
)


def test_a_study_stalls_only_after_the_stall_and_on_odd_trials() -> None:
    # The best is 3 complete trials old; no exploring trial has failed yet.
    assert explores(3, 0, trial_number=7, stall_trials=3, backoff=0)
    assert not explores(3, 0, trial_number=8, stall_trials=3, backoff=0)
    assert not explores(3, 0, trial_number=7, stall_trials=4, backoff=0)
    assert not explores(3, 0, trial_number=7, stall_trials=0, backoff=0)
    # Without backoff the record does not matter; with it, 4 unpaid explorations of a backoff
    # of 2 mean two halvings: trials 1 modulo 8.
    assert explores(3, 40, trial_number=7, stall_trials=3, backoff=0)
    assert not explores(3, 4, trial_number=7, stall_trials=3, backoff=2)
    assert explores(3, 4, trial_number=9, stall_trials=3, backoff=2)
    assert not explores(3, 5, trial_number=13, stall_trials=3, backoff=2)


def _replayed_run(values: list[float], stall_trials: int, backoff: int, period: int, residue: int) -> tuple[list[int], int]:
    """A direct simulation of a backoff (minimisation, trial numbers 0, 1, ...): the trials of
    the kind (``residue`` modulo ``period``, the period doubled per ``backoff`` unpaid ones in a
    row) and the unpaid run at the end."""
    scheduled, unpaid, best, best_at = [], 0, float("inf"), -1
    for number, value in enumerate(values):
        age = number - 1 - best_at
        doubled = period * 2 ** min(unpaid // backoff, 10)
        if number > 0 and age >= stall_trials and number % doubled == residue:
            scheduled.append(number)
            unpaid = 0 if value < best else unpaid + 1
        if value < best:
            best, best_at = value, number
    return scheduled, unpaid


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    ("replay", "period", "residue"),
    [(unpaid_explorations, 2, 1), (unpaid_perturbations, 4, 0)],
    ids=["explorations", "perturbations"],
)
def test_the_replay_counts_an_unpaid_run_as_a_direct_simulation(
    seed: int, replay: Callable[..., int], period: int, residue: int
) -> None:
    rng = np.random.default_rng(seed)
    # Rare improvements: long stalls, and now and then a trial of the kind that pays.
    values = list(np.minimum.accumulate(rng.uniform(size=160)) + rng.exponential(size=160) * (rng.uniform(size=160) > 0.05))
    _, expected = _replayed_run(values, stall_trials=4, backoff=3, period=period, residue=residue)
    numbers = rng.permutation(len(values))  # rows in any order: the replay sorts by trial number
    targets = -np.asarray(values)[numbers]
    feasible = np.ones(len(values), dtype=bool)
    assert replay(targets, feasible, numbers, stall_trials=4, backoff=3) == expected
    assert replay(targets, feasible, numbers, stall_trials=4, backoff=0) == 0


def _direct_age(values: list[float], tolerance: float) -> int:
    """A direct count (minimisation, trial numbers 0, 1, ...): trials after the last one that
    beat the best before it by more than ``tolerance`` times the range of the values so far."""
    best, anchor = math.inf, -1
    for number, value in enumerate(values):
        seen = values[: number + 1]
        if value < best:
            if best == math.inf or best - value > tolerance * (max(seen) - min(seen)):
                anchor = number
            best = value
    return len(values) - 1 - anchor


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("tolerance", [0.0, 1e-3, 0.05])
def test_the_stall_age_counts_from_the_last_improvement_beyond_the_tolerance(seed: int, tolerance: float) -> None:
    rng = np.random.default_rng(seed)
    # Improvements of every size: large early ones, then steps in the last digits.
    values = list(np.minimum.accumulate(rng.uniform(size=120)) + rng.exponential(size=120) * (rng.uniform(size=120) > 0.1))
    values += [min(values) - 1e-6 * k for k in range(1, 30)]
    numbers = rng.permutation(len(values))
    targets = -np.asarray(values)[numbers]
    feasible = np.ones(len(values), dtype=bool)
    assert stall_age(targets, feasible, numbers, tolerance) == _direct_age(values, tolerance)
    if tolerance == 0.0:  # the age of the best trial itself: the sampler's count without a tolerance
        assert stall_age(targets, feasible, numbers, 0.0) == 0
    else:  # the steps of 1e-6 are below the tolerance: the study is stalled through them
        assert stall_age(targets, feasible, numbers, tolerance) >= 29


def test_the_stall_tolerance_is_validated_and_off_in_the_paper_preset() -> None:
    assert VPBOSettings().stall_tolerance == 1e-6
    assert VPBOSettings.paper().stall_tolerance == 0.0
    assert VPBOSettings(stall_tolerance=0).stall_tolerance == 0.0
    bad_values: list[tuple[Any, type[Exception]]] = [
        ("tiny", TypeError), (True, TypeError), (-1e-6, ValueError), (1.0, ValueError), (math.nan, ValueError),
    ]
    for bad, error in bad_values:
        with pytest.raises(error, match="stall_tolerance"):
            VPBOSettings(stall_tolerance=bad)


def test_the_first_feasible_trial_resets_the_stall_age() -> None:
    numbers = np.arange(6)
    targets = np.array([5.0, 6.0, 1.0, 1.0 + 1e-9, 0.5, 0.4])
    feasible = np.array([False, False, True, True, True, True])
    # Trial 2 is the first feasible one; later gains (1e-9, then smaller than 5 % of the range) are not.
    assert stall_age(targets, feasible, numbers, 0.05) == 3
    assert stall_age(targets, feasible, numbers, 0.0) == 2


@pytest.mark.parametrize("conditional", [True, False], ids=["conditional", "flat"])
def test_a_study_refining_in_the_last_digits_stalls_with_a_tolerance(conditional: bool) -> None:
    """The best leaf improves in the ninth digit on each of its trials: without a tolerance the
    study never stalls; with one, a conditional space's does, and a flat space ignores it."""

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        if conditional and kind == "c":
            return 5.0 + trial.suggest_float("z", 0, 1)
        x = trial.suggest_float("x", 0, 1)
        return 1.0 - 1e-9 * trial.number if kind == "a" else 2.0 + x

    def stalled(tolerance: float) -> list[int]:
        sampler = make_sampler(
            n_startup_trials=4, stall_trials=6, stall_coverage=0, record_proposals=True, stall_tolerance=tolerance
        )
        study = optuna.create_study(sampler=sampler)
        study.enqueue_trial({"kind": "a", "x": 0.5})
        study.optimize(objective, n_trials=30)
        return [t.number for t in study.trials if t.user_attrs.get("vpbo", {}).get("stalled")]

    if conditional:
        assert len(stalled(1e-3)) > len(stalled(0.0))
        assert stalled(1e-3), "a study whose gains are in the ninth digit never explored"
    else:
        assert stalled(1e-3) == stalled(0.0)


def test_least_observed_rows() -> None:
    rows = np.array([[0, 1], [1, 1], [1, 0]], dtype=np.int32)
    observed = np.array([[0, 1], [1, 1], [0, 1], [1, 0], [1, 1]], dtype=np.int32)
    assert least_observed(rows, observed).tolist() == [[1, 0]]
    assert least_observed(rows, observed[:2]).tolist() == [[1, 0]]
    assert least_observed(rows, observed[:0]).tolist() == rows.tolist()


@pytest.mark.parametrize("seed", range(3))
def test_least_observed_rows_match_a_pairwise_count(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 3, size=(60, 3)).astype(np.int32)
    observed = rng.integers(0, 3, size=(40, 3))
    counts = np.array([np.count_nonzero(np.all(observed == row, axis=1)) for row in rows])
    assert least_observed(rows, observed).tolist() == rows[counts == counts.min()].tolist()
    assert least_observed(rows[:, :0], observed[:, :0]).tolist() == rows[:, :0].tolist()


@pytest.mark.parametrize("n_levels", [[3, 3, 3], [17] * 5, [2**21] * 3])  # the last overflows int64: rows compared
def test_unique_rows_keep_first_occurrences_in_order(n_levels: list[int]) -> None:
    rng = np.random.default_rng(4)
    rows = rng.integers(0, 3, size=(300, len(n_levels))) * (np.array(n_levels) // 3)
    expected = list(dict.fromkeys(tuple(int(v) for v in row) for row in rows))
    unique = unique_rows(rows, np.array(n_levels))
    assert unique.dtype == np.int32 and [tuple(row) for row in unique.tolist()] == expected


def _stalled_study(conditional: bool, n_trials: int, **settings: int) -> optuna.Study:
    """A study whose best value comes first (trial 0, kind "a") and never improves, over three
    kinds and a float (``conditional``: kind "c" has a float of its own); a 4-trial design, the
    stall after 6 trials, diagnostics recorded, and ``settings``."""

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        if conditional and kind == "c":
            return 5.0 + trial.suggest_float("z", 0, 1)
        x = trial.suggest_float("x", 0, 1)
        return 0.0 if trial.number == 0 else 1.0 + x

    sampler = make_sampler(n_startup_trials=4, stall_trials=6, record_proposals=True, **settings)
    study = optuna.create_study(sampler=sampler)
    study.enqueue_trial({"kind": "a", "x": 0.5})
    study.optimize(objective, n_trials=n_trials)
    return study


@pytest.mark.parametrize(
    ("backoff", "exploring"), [(0, list(range(7, 24, 2))), (2, [7, 9, 13, 17])], ids=["every-other", "backoff"]
)
@pytest.mark.parametrize("conditional", [False, True], ids=["flat", "conditional"])
def test_a_stalled_study_tries_other_combinations(conditional: bool, backoff: int, exploring: list[int]) -> None:
    """An objective whose best value comes first and never improves: once stalled, every other
    trial goes to a combination observed least so far; with a backoff of 2, in the flat space,
    each two exploring trials that did not pay double the period (odd trials, then 1 modulo 4,
    then 8), while the conditional space keeps exploring its least observed leaves."""
    study = _stalled_study(conditional, 24, stall_backoff=backoff, stall_coverage=0)
    stalled = [t for t in study.trials if t.user_attrs.get("vpbo", {}).get("stalled")]
    # The incumbent (trial 0) is 6 complete trials old at trial 6: exploring trials from 7 on.
    assert [t.number for t in stalled] == (list(range(7, 24, 2)) if conditional else exploring)
    for t in stalled:
        counts = {k: sum(u.params["kind"] == k for u in study.trials[: t.number]) for k in ("a", "b", "c")}
        assert counts[t.params["kind"]] == min(counts.values())


@pytest.mark.parametrize("seed", range(4))
def test_a_space_is_covered_when_every_combination_has_enough_trials(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_levels = np.array([2, 3])
    observed = rng.integers(0, [2, 3], size=(int(rng.integers(0, 40)), 2))
    counts = [np.count_nonzero(np.all(observed == [a, b], axis=1)) for a in range(2) for b in range(3)]
    for coverage in (1, 2, 3):
        needed = coverage * (1 + 1)  # one numeric dimension
        assert covered(observed, n_levels, 1, coverage) == (min(counts) >= needed)
    assert not covered(observed, n_levels, 1, 0)


def test_a_space_without_categoricals_is_covered_by_its_trials() -> None:
    assert covered(np.zeros((4, 0), dtype=np.int32), np.zeros(0, dtype=np.int64), 3, 1)
    assert not covered(np.zeros((3, 0), dtype=np.int32), np.zeros(0, dtype=np.int64), 3, 1)
    assert not covered(np.zeros((0, 2), dtype=np.int32), np.array([2, 2]), 1, 1)


@pytest.mark.parametrize("conditional", [False, True], ids=["flat", "conditional"])
def test_a_stalled_study_stops_exploring_once_the_space_is_covered(conditional: bool) -> None:
    """The study of ``_stalled_study`` with ``stall_coverage=3`` (one numeric dimension: 6 trials a
    combination): an odd trial after the stall explores while some combination has fewer than 6
    trials and, in the flat space, proposes as usual once none has; the conditional space keeps
    exploring. From trial 11 on: the conditional parameters join the search tree at 10 complete
    trials (before, the tree is the flat space of ``kind`` alone)."""
    study = _stalled_study(conditional, 36, stall_coverage=3)
    odd = [t for t in study.trials if t.number >= 11 and t.number % 2 == 1]
    uncovered = [min(sum(u.params["kind"] == k for u in study.trials[: t.number]) for k in "abc") < 6 for t in odd]
    stalled = [bool(t.user_attrs["vpbo"].get("stalled")) for t in odd]
    assert any(uncovered) and not all(uncovered)
    assert stalled == ([True] * len(odd) if conditional else uncovered)


def _grid_snap(points: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A snap onto the grid {0, 1/4, ..., 1} on the ``mask`` dimensions, the others at 0.5."""
    return np.where(mask, np.round(points * 4) / 4, 0.5)


def test_a_perturbation_draws_one_active_coordinate_uniformly_onto_its_grid() -> None:
    rng = np.random.default_rng(3)
    x = np.array([0.25, 0.5, 0.75])
    active = np.array([True, False, True])
    drawn = []
    for _ in range(4000):
        point = perturbed_incumbent(x, active, _grid_snap, rng, lambda p: False)
        assert point is not None
        assert np.count_nonzero(point != x) <= 1 and point[1] == 0.5
        assert np.all(np.isin(point, np.arange(5) / 4))
        drawn.append(point)
    # A drawn value is uniform on [0, 1] snapped to the nearest of 5 points: the end points take
    # 1/8 of the draws, the inner ones 1/4 (chi-square over the draws that moved the coordinate;
    # a draw that lands on x's own grid point changes nothing). Each active coordinate is chosen
    # in half the draws.
    stats = pytest.importorskip("scipy.stats")
    for j in (0, 2):
        moved = np.array([p[j] for p in drawn if p[j] != x[j]])
        kept = round(x[j] * 4)
        counts = np.array([(moved == g / 4).sum() for g in range(5) if g != kept])
        weights = np.delete(np.array([1.0, 2.0, 2.0, 2.0, 1.0]), kept)
        assert stats.chisquare(counts, len(moved) * weights / weights.sum()).pvalue > 1e-4
    moved_first = np.mean([p[0] != x[0] for p in drawn])
    moved_last = np.mean([p[2] != x[2] for p in drawn])
    assert abs(moved_first - moved_last) < 0.05  # both 1/2 * 3/4 (a draw stays on x's point 1/4 of the time)


def test_a_perturbation_gives_up_without_active_coordinates_or_free_points() -> None:
    rng = np.random.default_rng(0)
    x = np.array([0.25, 0.5])
    assert perturbed_incumbent(x, np.zeros(2, dtype=bool), _grid_snap, rng, lambda p: False) is None
    tried: list[np.ndarray] = []

    def every_point_taken(point: np.ndarray) -> bool:
        tried.append(point)
        return True

    assert perturbed_incumbent(x, np.ones(2, dtype=bool), _grid_snap, rng, every_point_taken) is None
    assert len(tried) == MAX_PERTURBATION_DRAWS
    for _ in range(50):  # only x0 = 1 is free: nothing else is returned
        point = perturbed_incumbent(x, np.array([True, False]), _grid_snap, rng, lambda p: p[0] != 1.0)
        assert point is None or point[0] == 1.0


def test_the_model_is_spent_below_the_threshold_or_without_a_prediction() -> None:
    assert spent(-2.5, -2.0) and not spent(-1.5, -2.0) and not spent(-2.0, -2.0)
    assert spent(None, -2.0) and spent(None, -math.inf)
    assert spent(-0.1, math.inf) and spent(3.0, math.inf)
    assert not spent(-50.0, -math.inf)


def test_a_stalled_study_perturbs_on_every_fourth_trial() -> None:
    assert [n for n in range(30) if perturbs(10, n, stall_trials=10)] == [0, 4, 8, 12, 16, 20, 24, 28]
    assert not any(perturbs(9, n, stall_trials=10) for n in range(30))
    assert not any(perturbs(50, n, stall_trials=0) for n in range(30))
    # With a backoff of 2, five unpaid perturbations in a row mean two doublings: every 16th trial.
    assert [n for n in range(40) if perturbs(10, n, stall_trials=10, unpaid=5, backoff=2)] == [0, 16, 32]
    assert [n for n in range(40) if perturbs(10, n, stall_trials=10, unpaid=1, backoff=2)] == list(range(0, 40, 4))


@pytest.mark.parametrize("conditional", [False, True], ids=["flat", "conditional"])
@pytest.mark.parametrize("perturbation", [True, False], ids=["perturbation", "none"])
def test_a_stalled_study_perturbs_its_incumbent_between_explorations(conditional: bool, perturbation: bool) -> None:
    """An objective whose best value comes first and never improves: once stalled (trial 7 on),
    the odd trials explore the least observed combinations as before and, in the flat space,
    trials 8, 12, ... are the incumbent (trial 0) with one of its two floats drawn; a
    conditional space, or ``stall_perturbation=False``, has none."""

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        if conditional and kind == "c":
            return 5.0 + trial.suggest_float("z", 0, 1)
        x = trial.suggest_float("x", 0, 1)
        y = trial.suggest_float("y", -1, 1)
        return 0.0 if trial.number == 0 else 1.0 + x + y

    def study_of(record: bool) -> optuna.Study:
        sampler = make_sampler(
            n_startup_trials=4,
            stall_trials=6,
            stall_perturbation=perturbation,
            perturbation_spent_z=math.inf,
            stall_coverage=0,  # 3 combinations of two floats: covered at 9 trials
            record_proposals=record,
        )
        study = optuna.create_study(sampler=sampler)
        study.enqueue_trial({"kind": "a", "x": 0.5, "y": 0.25})
        study.optimize(objective, n_trials=24)
        return study

    study = study_of(record=True)
    stalled = [t.number for t in study.trials if t.user_attrs.get("vpbo", {}).get("stalled")]
    perturbed = [t for t in study.trials if t.user_attrs.get("vpbo", {}).get("perturbed")]
    assert stalled == list(range(7, 24, 2))
    assert [t.number for t in perturbed] == ([8, 12, 16, 20] if perturbation and not conditional else [])
    for t in perturbed:
        assert t.params["kind"] == "a"
        changed = [name for name in ("x", "y") if t.params[name] != study.trials[0].params[name]]
        assert changed == [t.user_attrs["vpbo"]["perturbed_parameter"]]
    assert [t.params for t in study_of(record=False).trials] == [t.params for t in study.trials]


def _spike(trial: optuna.Trial) -> float:
    """The best value comes first (the enqueued trial 0) and is never improved on."""
    trial.suggest_categorical("kind", ["a", "b", "c"])
    x = trial.suggest_float("x", 0, 1)
    y = trial.suggest_float("y", -1, 1)
    return 0.0 if trial.number == 0 else 1.0 + x + y


@pytest.mark.parametrize(("backoff", "perturbing"), [(0, list(range(8, 40, 4))), (2, [8, 12, 16, 24, 32])])
def test_perturbations_that_do_not_pay_back_off(backoff: int, perturbing: list[int]) -> None:
    """A stalled study whose perturbations never pay: with ``perturbation_backoff=2`` each two in
    a row double the period (trials 8 and 12, then 16 and 24, then 32); the exploring trials
    stay every odd one, and the trials given back propose as usual."""
    sampler = make_sampler(
        n_startup_trials=4, stall_trials=6, stall_coverage=0, perturbation_backoff=backoff, record_proposals=True
    )
    study = optuna.create_study(sampler=sampler)
    study.enqueue_trial({"kind": "a", "x": 0.5, "y": 0.25})
    study.optimize(_spike, n_trials=40)
    records = {t.number: t.user_attrs["vpbo"] for t in study.trials if "vpbo" in t.user_attrs}
    assert [n for n, r in records.items() if r.get("perturbed")] == perturbing
    assert [n for n, r in records.items() if r.get("stalled")] == list(range(7, 40, 2))
    assert all("top_proposals" in records[n] for n in range(8, 40, 4) if n not in perturbing)


@pytest.mark.parametrize("z, perturbing", [(-5.0, [8, 12, 16, 20]), (None, [8, 12, 16, 20]), (-1.0, [])])
def test_a_perturbation_waits_until_the_models_improvement_is_spent(
    monkeypatch: pytest.MonkeyPatch, z: float | None, perturbing: list[int]
) -> None:
    """On the trials where a stalled study may perturb (8, 12, ...), the standardised improvement
    of the model's own proposal decides (here set): below ``perturbation_spent_z`` (-2), or no
    prediction, the incumbent is perturbed; above, the proposal stands. It is recorded (not
    without the gate: the default perturbs without a proposal)."""
    monkeypatch.setattr(_pipeline, "improvement_z", lambda *args: z)
    sampler = make_sampler(n_startup_trials=4, stall_trials=6, perturbation_spent_z=-2.0, record_proposals=True)
    study = optuna.create_study(sampler=sampler)
    study.enqueue_trial({"kind": "a", "x": 0.5, "y": 0.25})
    study.optimize(_spike, n_trials=24)
    records = {t.number: t.user_attrs["vpbo"] for t in study.trials if "vpbo" in t.user_attrs}
    assert [n for n, r in records.items() if "improvement_z" in r] == [8, 12, 16, 20]
    assert all(r["improvement_z"] == z for r in records.values() if "improvement_z" in r)
    assert [n for n, r in records.items() if r.get("perturbed")] == perturbing
    assert all("top_proposals" in records[n] for n in (8, 12, 16, 20) if n not in perturbing)


def test_the_standardised_improvement_is_the_one_log_ei_is_a_function_of() -> None:
    """An independent check of ``improvement_z``: log EI at the point (native) equals
    log(sd * (z Phi(z) + phi(z))) computed with mpmath from z and the GP's sd."""
    rng = np.random.default_rng(3)
    h = rng.integers(0, 3, size=(30, 1)).astype(np.int32)
    x = rng.random((30, 2))
    y = np.sin(4 * x[:, 0]) + x[:, 1] + 0.3 * h[:, 0]
    gp = _core.MixedGP(h, x, y, np.array([0.4, 0.7]), 1.1, 0.3, 1e-3)
    feasible = np.ones(30, dtype=bool)
    feasible[int(np.argmax(y))] = False  # the best feasible target, not the best target
    model = ObjectiveModel(gp, y, None, np.zeros(0))  # type: ignore[arg-type]
    best = float(y[feasible].max())
    for point in rng.random((5, 2)):
        row = np.array([1], dtype=np.int32)
        z = improvement_z(model, feasible, row, point)
        _, variance = gp.predict(row.reshape(1, -1), point.reshape(1, -1))
        sd = mpmath.sqrt(float(variance[0]))
        zm = mpmath.mpf(z)
        reference = mpmath.log(sd * (zm * mpmath.ncdf(zm) + mpmath.npdf(zm)))
        log_ei = _core.LogExpectedImprovement(gp, best).evaluate(row.reshape(1, -1), point.reshape(1, -1))[0]
        assert float(log_ei) == pytest.approx(float(reference), rel=1e-9, abs=1e-9)
    assert improvement_z(model, np.zeros(30, dtype=bool), np.array([1], dtype=np.int32), x[0]) is None
