"""The small policies around the value proposals: the stall safeguard that sends a stuck study to
its least observed combinations."""

from __future__ import annotations

import numpy as np
import optuna
import pytest

from conftest import make_sampler
from optuna_vpbo._combinations import least_observed
from optuna_vpbo._stall import explores, unpaid_explorations


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


def _replayed_explorations(values: list[float], stall_trials: int, backoff: int) -> tuple[list[int], int]:
    """A direct simulation of the rule (minimisation, trial numbers 0, 1, ...): the exploring
    trials and the unpaid run at the end."""
    exploring, unpaid, best, best_at = [], 0, float("inf"), -1
    for number, value in enumerate(values):
        age = number - 1 - best_at
        period = 2 ** (1 + min(unpaid // backoff, 10))
        if number > 0 and age >= stall_trials and number % period == 1:
            exploring.append(number)
            unpaid = 0 if value < best else unpaid + 1
        if value < best:
            best, best_at = value, number
    return exploring, unpaid


@pytest.mark.parametrize("seed", range(5))
def test_the_replay_counts_unpaid_explorations_as_a_direct_simulation(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # Rare improvements: long stalls, and now and then an exploring trial that pays.
    values = list(np.minimum.accumulate(rng.uniform(size=120)) + rng.exponential(size=120) * (rng.uniform(size=120) > 0.05))
    _, expected = _replayed_explorations(values, stall_trials=4, backoff=3)
    numbers = rng.permutation(len(values))  # rows in any order: the replay sorts by trial number
    targets = -np.asarray(values)[numbers]
    got = unpaid_explorations(targets, np.ones(len(values), dtype=bool), numbers, stall_trials=4, backoff=3)
    assert got == expected
    assert unpaid_explorations(targets, np.ones(len(values), dtype=bool), numbers, stall_trials=4, backoff=0) == 0


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


@pytest.mark.parametrize(
    ("backoff", "exploring"), [(0, list(range(7, 24, 2))), (2, [7, 9, 13, 17])], ids=["every-other", "backoff"]
)
@pytest.mark.parametrize("conditional", [False, True], ids=["flat", "conditional"])
def test_a_stalled_study_tries_other_combinations(conditional: bool, backoff: int, exploring: list[int]) -> None:
    """An objective whose best value comes first and never improves: once stalled, every other
    trial goes to a combination observed least so far; with a backoff of 2, in the flat space,
    each two exploring trials that did not pay double the period (odd trials, then 1 modulo 4,
    then 8), while the conditional space keeps exploring its least observed leaves."""

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        if conditional and kind == "c":
            return 5.0 + trial.suggest_float("z", 0, 1)
        x = trial.suggest_float("x", 0, 1)
        return 0.0 if trial.number == 0 else 1.0 + x

    sampler = make_sampler(n_startup_trials=4, stall_trials=6, stall_backoff=backoff, record_proposals=True)
    study = optuna.create_study(sampler=sampler)
    study.enqueue_trial({"kind": "a", "x": 0.5})
    study.optimize(objective, n_trials=24)
    stalled = [t for t in study.trials if t.user_attrs.get("vpbo", {}).get("stalled")]
    # The incumbent (trial 0) is 6 complete trials old at trial 6: exploring trials from 7 on.
    assert [t.number for t in stalled] == (list(range(7, 24, 2)) if conditional else exploring)
    for t in stalled:
        counts = {k: sum(u.params["kind"] == k for u in study.trials[: t.number]) for k in ("a", "b", "c")}
        assert counts[t.params["kind"]] == min(counts.values())
