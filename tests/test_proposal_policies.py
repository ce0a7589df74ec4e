"""The small policies around the value proposals: the stall safeguard that sends a stuck study to
its least observed combinations."""

from __future__ import annotations

import numpy as np
import optuna
import pytest

from conftest import make_sampler
from optuna_vpbo._combinations import is_stalled, least_observed


def test_a_study_stalls_only_after_the_stall_and_on_odd_trials() -> None:
    # The best (index 1 of 5) is 3 complete trials old.
    assert is_stalled(5, 1, stall_trials=3, trial_number=7)
    assert not is_stalled(5, 1, stall_trials=3, trial_number=8)
    assert not is_stalled(5, 1, stall_trials=4, trial_number=7)
    assert not is_stalled(5, 1, stall_trials=0, trial_number=7)


def test_least_observed_rows() -> None:
    rows = np.array([[0, 1], [1, 1], [1, 0]], dtype=np.int32)
    observed = np.array([[0, 1], [1, 1], [0, 1], [1, 0], [1, 1]], dtype=np.int32)
    assert least_observed(rows, observed).tolist() == [[1, 0]]
    assert least_observed(rows, observed[:2]).tolist() == [[1, 0]]
    assert least_observed(rows, observed[:0]).tolist() == rows.tolist()


@pytest.mark.parametrize("conditional", [False, True], ids=["flat", "conditional"])
def test_a_stalled_study_tries_other_combinations(conditional: bool) -> None:
    """An objective whose best value comes first and never improves: once stalled, every other
    trial goes to a combination observed least so far."""

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        if conditional and kind == "c":
            return 5.0 + trial.suggest_float("z", 0, 1)
        x = trial.suggest_float("x", 0, 1)
        return 0.0 if trial.number == 0 else 1.0 + x

    study = optuna.create_study(sampler=make_sampler(n_startup_trials=4, stall_trials=6, record_proposals=True))
    study.enqueue_trial({"kind": "a", "x": 0.5})
    study.optimize(objective, n_trials=24)
    stalled = [t for t in study.trials if t.user_attrs.get("vpbo", {}).get("stalled")]
    # The incumbent (trial 0) is 6 complete trials old at trial 6: odd trials from 7 on.
    assert [t.number for t in stalled] == list(range(7, 24, 2))
    for t in stalled:
        counts = {k: sum(u.params["kind"] == k for u in study.trials[: t.number]) for k in ("a", "b", "c")}
        assert counts[t.params["kind"]] == min(counts.values())
