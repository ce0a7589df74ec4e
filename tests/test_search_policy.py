"""The search policy (``_search_policy``): which move a trial after the initial design makes,
checked against a direct simulation of the rule its docstring states, and in real studies."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import optuna
import pytest

from conftest import make_sampler
from optuna_vpbo import VPBOSampler
from optuna_vpbo._combinations import least_observed, unique_rows
from optuna_vpbo._diagnostics import MOVE_TITLES
from optuna_vpbo._search_policy import (
    MAX_PERTURBATION_DRAWS,
    MOVES,
    PERTURBATION_BACKOFF,
    PERTURBATION_PERIOD,
    STALL_TOLERANCE,
    STALL_TRIALS,
    StudyRecord,
    choose_move,
    covered,
    perturbed_incumbent,
    replay,
)


def _direct_moves(values: list[float], conditional: bool) -> list[tuple[str, bool]]:
    """The move of each trial after ``values`` (minimisation, trial numbers 0, 1, ..., each
    complete before the next begins; no space is ever covered) and whether it was stalled,
    simulated as the rule is stated: the stall age from the last improvement (beyond
    ``STALL_TOLERANCE`` of the range in a conditional space); the turn, the stalled trials since
    that improvement; odd turns explore, a flat space perturbs half a period into the period,
    doubled per ``PERTURBATION_BACKOFF`` unpaid perturbations in a row."""
    moves: list[tuple[str, bool]] = []
    best, anchor, unpaid = math.inf, -1, 0
    for number in range(len(values) + 1):
        age = number - 1 - anchor
        stalled = number > 0 and age >= STALL_TRIALS
        turn = sum(1 for m in range(anchor + 1, number) if moves[m][1])
        period = PERTURBATION_PERIOD * 2 ** min(unpaid // PERTURBATION_BACKOFF, 10)
        if stalled and turn % 2 == 1:
            moves.append(("least-observed", True))
        elif stalled and not conditional and turn % period == PERTURBATION_PERIOD // 2:
            moves.append(("perturbed-incumbent", True))
            if number < len(values):
                unpaid = 0 if values[number] < best else unpaid + 1
        else:
            moves.append(("proposals", stalled))
        if number == len(values):
            break
        value, seen = values[number], values[: number + 1]
        if value < best:
            tolerance = STALL_TOLERANCE if conditional else 0.0
            if best == math.inf or best - value > tolerance * (max(seen) - min(seen)):
                anchor = number
            best = value
    return moves


def _record(values: list[float], conditional: bool, moves: list[tuple[str, bool]] | None = None) -> StudyRecord:
    """The record of complete trials 0..n-1 with ``values`` (minimised) and the stored ``moves``
    (none: none stored), in trial order as the study stores them, over a space with far more
    combinations than trials (never covered)."""
    rng = np.random.default_rng(len(values))
    numbers = np.arange(len(values))
    moves = moves or [("proposals", False)] * len(values)
    targets = -np.asarray(values, dtype=np.float64)
    best_row = int(np.argmax(targets))
    rows = rng.integers(0, 50, size=(len(values), 3)).astype(np.int32)
    perturbed = np.array([kind == "perturbed-incumbent" for kind, _ in moves], dtype=bool)
    stalled = np.array([n for n, (_, was_stalled) in enumerate(moves) if was_stalled], dtype=np.int64)
    return StudyRecord(targets, np.ones(len(values), dtype=bool), numbers, perturbed, targets, best_row, stalled, rows,
                       np.array([50, 50, 50]), 2, conditional)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("conditional", [False, True], ids=["flat", "conditional"])
def test_each_move_is_the_rule_simulated_directly(seed: int, conditional: bool) -> None:
    rng = np.random.default_rng(seed)
    # Long stalls with rare gains, some in the last digits (below the tolerance).
    values = list(np.minimum.accumulate(rng.uniform(size=120)) + rng.exponential(size=120) * (rng.uniform(size=120) > 0.04))
    values += [min(values) - 1e-9 * k for k in range(1, 40)]
    expected = _direct_moves(values, conditional)
    assert {kind for kind, _ in expected} == (set(MOVES) if not conditional else set(MOVES) - {"perturbed-incumbent"})
    for n in range(STALL_TRIALS, len(values) + 1):
        move = choose_move(_record(values[:n], conditional, expected[:n]))
        assert (move.kind, move.stalled) == expected[n], f"trial {n}"


def test_an_imputed_incumbent_is_not_stalled() -> None:
    """The model's best row may be a pruned trial's imputed value, after the complete rows: the
    study is not stalled on it (its age is negative), as before the turns."""
    record = _record([1.0] * 20, False, [("proposals", True)] * 20)
    move = choose_move(dataclasses.replace(record, best_row=len(record.numbers)))
    assert move.kind == "proposals" and not move.stalled


def test_running_trials_take_turns() -> None:
    """Stalled trials still running count as turns: a worker that begins while other workers'
    stalled trials run takes the next turn instead of repeating theirs."""
    values = [0.0] + [1.0] * 14  # trial 0 is the best; trials 11-14 were stalled: turn 4
    moves = [("proposals", False)] * 11 + [("proposals", True), ("least-observed", True)] * 2
    record = _record(values, False, moves)
    assert choose_move(record).kind == "proposals"
    one_running = dataclasses.replace(record, stalled_numbers=np.append(record.stalled_numbers, 15))
    assert choose_move(one_running).kind == "least-observed"
    two_running = dataclasses.replace(record, stalled_numbers=np.append(record.stalled_numbers, [15, 16]))
    assert choose_move(two_running).kind == "perturbed-incumbent"


def test_a_first_feasible_trial_ends_a_stall() -> None:
    targets = np.array([5.0, 6.0, 1.0, 1.0 + 1e-9, 0.5, 0.4])
    feasible = np.array([False, False, True, True, True, True])
    # Trial 2 is the first feasible one; later gains (1e-9, then below 5 % of the range) are not.
    unmarked = np.zeros(6, dtype=bool)
    assert replay(targets, feasible, np.arange(6), unmarked, 0.05)[:2] == (3, 2)
    assert replay(targets, feasible, np.arange(6), unmarked, 0.0)[:2] == (2, 3)


@pytest.mark.parametrize("seed", range(4))
def test_a_space_is_covered_when_every_combination_has_enough_trials(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_levels = np.array([2, 3])
    observed = rng.integers(0, [2, 3], size=(int(rng.integers(0, 40)), 2))
    counts = [np.count_nonzero(np.all(observed == [a, b], axis=1)) for a in range(2) for b in range(3)]
    for coverage in (1, 2, 3):
        needed = coverage * (1 + 1)  # one numeric dimension
        assert covered(observed, n_levels, 1, coverage) == (min(counts) >= needed)


def test_a_space_without_categoricals_is_covered_by_its_trials() -> None:
    assert covered(np.zeros((4, 0), dtype=np.int32), np.zeros(0, dtype=np.int64), 3, 1)
    assert not covered(np.zeros((3, 0), dtype=np.int32), np.zeros(0, dtype=np.int64), 3, 1)
    assert not covered(np.zeros((0, 2), dtype=np.int32), np.array([2, 2]), 1, 1)


def test_a_covered_flat_space_makes_value_proposals_on_odd_turns() -> None:
    values = [0.0] + [1.0] * 30
    record = _record(values, conditional=False)
    record = dataclasses.replace(record, stalled_numbers=np.array([30]))  # turn 1
    dense = dataclasses.replace(record, rows=np.zeros((31, 1), dtype=np.int32), n_levels=np.array([1]))
    assert choose_move(record).kind == "least-observed"
    assert choose_move(dense).kind == "proposals"


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


@pytest.mark.parametrize("n_levels", [[3, 3, 3], [17] * 5, [2**21] * 3])  # the last overflows int64: rows compared
def test_unique_rows_keep_first_occurrences_in_order(n_levels: list[int]) -> None:
    rng = np.random.default_rng(4)
    rows = rng.integers(0, 3, size=(300, len(n_levels))) * (np.array(n_levels) // 3)
    expected = list(dict.fromkeys(tuple(int(v) for v in row) for row in rows))
    unique = unique_rows(rows, np.array(n_levels))
    assert unique.dtype == np.int32 and [tuple(row) for row in unique.tolist()] == expected


def _grid_snap(points: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A snap onto the grid {0, 1/4, ..., 1} on the ``mask`` dimensions, the others at 0.5."""
    return np.where(mask, np.round(points * 4) / 4, 0.5)


def test_a_perturbation_draws_one_active_coordinate_uniformly_onto_its_grid() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    x = np.array([0.25, 0.5, 0.75])
    active = np.array([True, False, True])
    drawn = []
    for _ in range(4000):
        point = perturbed_incumbent(x, active, _grid_snap, rng, lambda p: False)
        assert point is not None
        assert np.count_nonzero(point != x) <= 1 and point[1] == 0.5
        drawn.append(point)
    # Uniform on [0, 1] snapped to 5 points: the end points take 1/8 of the draws, the inner 1/4.
    for j in (0, 2):
        moved = np.array([p[j] for p in drawn if p[j] != x[j]])
        kept = round(x[j] * 4)
        counts = np.array([(moved == g / 4).sum() for g in range(5) if g != kept])
        weights = np.delete(np.array([1.0, 2.0, 2.0, 2.0, 1.0]), kept)
        assert stats.chisquare(counts, len(moved) * weights / weights.sum()).pvalue > 1e-4
    assert abs(np.mean([p[0] != x[0] for p in drawn]) - np.mean([p[2] != x[2] for p in drawn])) < 0.05


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


def _stalled_study(conditional: bool, n_trials: int, sampler: VPBOSampler) -> optuna.Study:
    """A study whose best value comes first (the enqueued trial 0) and never improves, over twelve
    combinations and two floats (``conditional``: kind "c" has a float of its own)."""

    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b", "c"])
        trial.suggest_categorical("size", [1, 2, 3, 4])
        if conditional and kind == "c":
            return 5.0 + trial.suggest_float("z", 0, 1)
        x = trial.suggest_float("x", 0, 1)
        y = trial.suggest_float("y", -1, 1)
        return 0.0 if trial.number == 0 else 1.0 + x + y

    study = optuna.create_study(sampler=sampler)
    study.enqueue_trial({"kind": "a", "size": 1, "x": 0.5, "y": 0.25})
    study.optimize(objective, n_trials=n_trials)
    return study


@pytest.mark.slow
@pytest.mark.parametrize("conditional", [False, True], ids=["flat", "conditional"])
def test_a_stalled_study_explores_and_perturbs_as_the_rule_says(conditional: bool) -> None:
    """Trial 0 is the best, never beaten: from trial 11 on (the best 10 trials old) every trial is
    a turn, and the odd turns (trials 12, 14, ...) propose among the least observed combinations;
    in the flat space turns 2, 6, 10 and 14 (trials 13, 17, 21, 25) perturb the incumbent, and the
    four unpaid perturbations double the period (turns 18 and 26: trials 29 and 37); the
    conditional space never perturbs. The diagnostics name each move and why, each trial stores
    its move, and recording the diagnostics changes no suggestion."""
    study = _stalled_study(conditional, 44, make_sampler(n_startup_trials=4, record_proposals=True))
    moves = {t.number: t.user_attrs["vpbo"].get("move") for t in study.trials if "vpbo" in t.user_attrs}
    assert [n for n, m in moves.items() if m == "least-observed"] == list(range(12, 44, 2))
    perturbed = [n for n, m in moves.items() if m == "perturbed-incumbent"]
    assert perturbed == ([] if conditional else [13, 17, 21, 25, 29, 37])
    stored = {t.number: t.system_attrs.get("vpbo:move") for t in study.trials}
    assert all(stored[n] == [m, n >= 11] for n, m in moves.items() if m)
    for n in perturbed:
        trial = study.trials[n]
        changed = [name for name in ("x", "y") if trial.params[name] != study.trials[0].params[name]]
        assert (trial.params["kind"], trial.params["size"]) == ("a", 1)
        assert changed == [trial.user_attrs["vpbo"]["perturbed_parameter"]]
    for n in range(12, 44, 2):
        trial = study.trials[n]
        leaf = (trial.params["kind"], trial.params["size"])
        counts: dict[tuple[str, int], int] = {}
        for u in study.trials[:n]:
            if not conditional or u.params["kind"] != "c":
                counts[(u.params["kind"], u.params["size"])] = counts.get((u.params["kind"], u.params["size"]), 0) + 1
        if not conditional or leaf[0] != "c":
            assert counts.get(leaf, 0) == min(counts.get((k, s), 0) for k in "ab" for s in (1, 2, 3, 4))
    assert all(study.trials[n].user_attrs["vpbo"]["move_reason"] for n in moves if moves[n])
    unrecorded = _stalled_study(conditional, 44, make_sampler(n_startup_trials=4))
    assert [t.params for t in unrecorded.trials] == [t.params for t in study.trials]


@pytest.mark.slow
def test_the_paper_preset_makes_value_proposals_on_every_trial() -> None:
    study = _stalled_study(False, 40, VPBOSampler(seed=0, preset="paper", n_startup_trials=4, record_proposals=True))
    moves = {t.user_attrs["vpbo"].get("move") for t in study.trials[4:]}
    assert moves == {"proposals"}


def test_the_note_has_a_title_for_every_move() -> None:
    assert set(MOVE_TITLES) == set(MOVES)
