"""The screen of a large flat set of combinations (``_proposals.screen``): a shortlist for the
full value proposals, and beyond enumeration a climb over one-change neighbours, checked
against a direct hill climb written here."""

from __future__ import annotations

import numpy as np
import pytest

from optuna_vpbo import _core
from optuna_vpbo._combinations import hamming_neighbours
from optuna_vpbo._proposals import MAX_CLIMB_ROUNDS, N_NEIGHBOUR_SEEDS, N_SCREEN_CANDIDATES, N_SCREENED, screen

N_LEVELS = np.array([2] * 24)  # 2^24 combinations: a sample of them is screened


def _acquisition(seed: int) -> tuple[_core.Acquisition, np.ndarray]:
    """Log EI of a GP fitted to an additive function of 24 binary variables and one float, with
    the candidates the screen scores on."""
    rng = np.random.default_rng(seed)
    h = rng.integers(0, 2, size=(60, len(N_LEVELS))).astype(np.int32)
    x = rng.random((60, 1))
    weights = rng.normal(size=len(N_LEVELS))
    y = h @ weights + np.sin(3 * x[:, 0])
    gp = _core.MixedGP(h, x, y, np.array([0.5]), float(np.var(y)), 0.3, 1e-4)
    return _core.LogExpectedImprovement(gp, float(y.max())), rng.random((N_SCREEN_CANDIDATES, 1))


def _coarse(acquisition: _core.Acquisition, rows: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    return np.asarray(_core.value_proposals(acquisition, np.ascontiguousarray(rows, dtype=np.int32), candidates)[1])


def _direct_climb(acquisition: _core.Acquisition, rows: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """The climb as stated: score the sample, then, round by round, the neighbours of the best
    rows that are not scored yet, until the best rows stay the same; the best rows at the end."""
    scores = {tuple(r): s for r, s in zip(rows.tolist(), _coarse(acquisition, rows, candidates))}
    order = list(scores)
    for _ in range(MAX_CLIMB_ROUNDS):
        best = sorted(order, key=lambda r: -scores[r])[:N_NEIGHBOUR_SEEDS]  # stable: first occurrence wins ties
        new = []
        for seed in best:
            for neighbour in hamming_neighbours(np.array(seed, dtype=np.int32), N_LEVELS).tolist():
                if tuple(neighbour) not in scores and tuple(neighbour) not in new:
                    new.append(tuple(neighbour))
        if not new:
            break
        for row, score in zip(new, _coarse(acquisition, np.array(new), candidates)):
            scores[row] = score
        order += new
        if sorted(order, key=lambda r: -scores[r])[:N_NEIGHBOUR_SEEDS] == best:
            break
    return np.array(sorted(order, key=lambda r: -scores[r])[:N_NEIGHBOUR_SEEDS])


@pytest.mark.parametrize("seed", range(3))
def test_the_climb_ends_where_a_direct_hill_climb_ends(seed: int) -> None:
    acquisition, candidates = _acquisition(seed)
    rows = np.random.default_rng(seed + 10).integers(0, 2, size=(1000, len(N_LEVELS))).astype(np.int32)
    climbed = screen(acquisition, rows, candidates, N_LEVELS, climb=True)
    best = _direct_climb(acquisition, rows, candidates)
    # The shortlist holds the climb's best rows and their neighbours.
    shortlist = {tuple(r) for r in climbed.tolist()}
    assert all(tuple(r) in shortlist for r in best.tolist())
    assert _coarse(acquisition, climbed, candidates).max() == pytest.approx(_coarse(acquisition, best, candidates).max())
    # Climbing never ends below the sample's best, and on an additive acquisition it goes beyond it.
    flat = screen(acquisition, rows, candidates, N_LEVELS)
    assert _coarse(acquisition, climbed, candidates).max() > _coarse(acquisition, flat, candidates).max()
    assert len(flat) <= N_SCREENED + N_NEIGHBOUR_SEEDS * len(N_LEVELS)


def test_a_small_set_is_not_screened() -> None:
    acquisition, candidates = _acquisition(0)
    rows = np.random.default_rng(1).integers(0, 2, size=(100, len(N_LEVELS))).astype(np.int32)
    assert np.array_equal(screen(acquisition, rows, candidates, N_LEVELS, climb=True), rows)
