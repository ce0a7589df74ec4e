"""Large combinatorial spaces kept apart from the field's tasks (:mod:`.combinatorial`): the
problem set ``large_spaces`` (:data:`LARGE_SPACES`) on which a search beyond enumeration is
confirmed after it was chosen on the field's tasks. Every problem is deterministic and minimised:

- ``labs_40``: low-autocorrelation binary sequences (Bounce's LABS), 40 signs s_i = 2 h_i - 1;
  the value is minus the merit factor, -n^2 / (2 E), E = sum_{k=1}^{n-1} (sum_i s_i s_{i+k})^2;
  2^40 combinations.
- ``potts_24x4``: a random Potts energy, 24 categoricals of 4 values, a field per variable and
  value plus a coupling matrix on every chain neighbour and on 24 more random pairs (all drawn
  from :data:`POTTS_SEED`); 4^24 combinations.
- ``maxcut_40``: minus the weight of the cut of a random graph on 40 nodes (each pair an edge with
  probability 0.15, weights uniform in [0.5, 1.5], from :data:`MAXCUT_SEED`); 2^40 combinations.
- ``levy_16x7_4f``: the Levy function of 20 values, 16 categoricals of 7 values and 4 floats in
  [-5, 7]; categorical v's level j stands for ``LEVY_GRID[permutation_v[j]]`` (a fixed permutation
  per variable, so the levels carry no order); optimum 0 with every value at 1; 7^16 combinations.
- ``feature_selection_cancer`` (in :mod:`.ml_problems`, which holds the problems that need
  scikit-learn): 30 binary feature flags of the bundled breast cancer data and the C of a logistic
  regression; 2^30 combinations.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.problem import MINIMIZE, Problem, suggest_categoricals, suggest_floats
from vpbo_benchmarks.specs import ProblemSet

BINARY: tuple[int, ...] = (0, 1)

LABS_LENGTH = 40

POTTS_N_VARIABLES = 24
POTTS_N_VALUES = 4
POTTS_N_EXTRA_PAIRS = 24  # random pairs coupled besides the chain's neighbours
POTTS_SEED = 20261203

MAXCUT_N_NODES = 40
MAXCUT_EDGE_PROBABILITY = 0.15
MAXCUT_SEED = 20261204

LEVY_N_CATEGORICAL = 16
LEVY_N_FLOAT = 4
LEVY_GRID: tuple[float, ...] = (-5.0, -3.0, -1.0, 1.0, 3.0, 5.0, 7.0)
LEVY_FLOAT_BOUNDS = (-5.0, 7.0)
LEVY_SEED = 20261205



def labs(bits: Sequence[int]) -> float:
    """Minus the merit factor of the sign sequence 2 bits - 1 (lower is better)."""
    s = 2.0 * np.asarray(bits, dtype=np.float64) - 1.0
    n = len(s)
    energy = sum(float(np.dot(s[: n - k], s[k:])) ** 2 for k in range(1, n))
    return -(n * n) / (2.0 * energy)


@functools.cache
def potts_terms() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Potts energy's fields (n x q), coupled pairs (m x 2) and their couplings (m x q x q)."""
    rng = np.random.default_rng(POTTS_SEED)
    n, q = POTTS_N_VARIABLES, POTTS_N_VALUES
    fields = rng.normal(0.0, 0.5, size=(n, q))
    chain = [(i, i + 1) for i in range(n - 1)]
    extra: list[tuple[int, int]] = []
    while len(extra) < POTTS_N_EXTRA_PAIRS:
        i, j = sorted(int(v) for v in rng.choice(n, size=2, replace=False))
        if j != i + 1 and (i, j) not in extra:
            extra.append((i, j))
    pairs = np.array(chain + extra, dtype=np.int64)
    couplings = rng.normal(0.0, 1.0, size=(len(pairs), q, q))
    return fields, pairs, couplings


def potts(levels: Sequence[int]) -> float:
    """The Potts energy of one value (0..q-1) per variable."""
    h = np.asarray(levels, dtype=np.int64)
    fields, pairs, couplings = potts_terms()
    pair_terms = couplings[np.arange(len(pairs)), h[pairs[:, 0]], h[pairs[:, 1]]]
    return float(fields[np.arange(len(h)), h].sum() + pair_terms.sum())


@functools.cache
def maxcut_weights() -> np.ndarray:
    """The graph's symmetric weight matrix (0: no edge)."""
    rng = np.random.default_rng(MAXCUT_SEED)
    n = MAXCUT_N_NODES
    upper = np.triu((rng.uniform(size=(n, n)) < MAXCUT_EDGE_PROBABILITY) * rng.uniform(0.5, 1.5, size=(n, n)), k=1)
    return upper + upper.T


def maxcut(sides: Sequence[int]) -> float:
    """Minus the weight of the edges between the nodes on side 0 and those on side 1."""
    side = np.asarray(sides, dtype=np.int64)
    cut = side[:, None] != side[None, :]
    return -float(np.sum(maxcut_weights() * cut) / 2.0)


@functools.cache
def levy_permutations() -> np.ndarray:
    """Which grid value each categorical's level stands for (LEVY_N_CATEGORICAL x 7)."""
    rng = np.random.default_rng(LEVY_SEED)
    return np.array([rng.permutation(len(LEVY_GRID)) for _ in range(LEVY_N_CATEGORICAL)])


def levy(z: np.ndarray) -> float:
    """The Levy function (minimum 0 at every z_i = 1)."""
    w = 1.0 + (np.asarray(z, dtype=np.float64) - 1.0) / 4.0
    head = math.sin(math.pi * w[0]) ** 2
    middle = np.sum((w[:-1] - 1.0) ** 2 * (1.0 + 10.0 * np.sin(math.pi * w[:-1] + 1.0) ** 2))
    tail = (w[-1] - 1.0) ** 2 * (1.0 + math.sin(2.0 * math.pi * w[-1]) ** 2)
    return float(head + middle + tail)


def levy_mixed(levels: Sequence[int], x: Sequence[float]) -> float:
    """Levy of the grid values the levels stand for, then the floats."""
    grid = np.asarray(LEVY_GRID)[levy_permutations()[np.arange(LEVY_N_CATEGORICAL), np.asarray(levels, dtype=int)]]
    return levy(np.concatenate([grid, np.asarray(x, dtype=np.float64)]))


def _categorical_problem(name: str, count: int, levels: Sequence[int], value: Callable[[list[int]], float], text: str) -> Problem:
    def objective(trial: BaseTrial) -> float:
        return value(suggest_categoricals(trial, "h", count, levels).tolist())

    return Problem(name, (MINIMIZE,), None, len(levels) ** count, objective, text)


def _levy_objective(trial: BaseTrial) -> float:
    levels = suggest_categoricals(trial, "h", LEVY_N_CATEGORICAL, tuple(range(len(LEVY_GRID))))
    return levy_mixed(levels.tolist(), suggest_floats(trial, "x", LEVY_N_FLOAT, *LEVY_FLOAT_BOUNDS).tolist())


PROBLEMS: Mapping[str, Callable[[], Problem]] = {
    "labs_40": lambda: _categorical_problem(
        "labs_40", LABS_LENGTH, BINARY, labs, "LABS: minus the merit factor of 40 signs (minimise)"
    ),
    "potts_24x4": lambda: _categorical_problem(
        "potts_24x4", POTTS_N_VARIABLES, tuple(range(POTTS_N_VALUES)), potts,
        "a random Potts energy: 24 categoricals of 4 values, chain and random pair couplings (minimise)",
    ),
    "maxcut_40": lambda: _categorical_problem(
        "maxcut_40", MAXCUT_N_NODES, BINARY, maxcut, "minus the cut weight of a random 40-node graph (minimise)"
    ),
    "levy_16x7_4f": lambda: Problem(
        "levy_16x7_4f", (MINIMIZE,), 0.0, len(LEVY_GRID) ** LEVY_N_CATEGORICAL, _levy_objective,
        "Levy of 16 unordered 7-level categoricals and 4 floats in [-5, 7] (minimise)",
    ),
}

LARGE_SPACES = ProblemSet(
    name="large_spaces",
    problems=(*PROBLEMS, "feature_selection_cancer"),  # the last one: ml_problems (scikit-learn)
    rule=(
        "written before any tuning of the search beyond enumeration, one problem of each kind the field's "
        "combinatorial benchmarks have besides MCBO's synthetic three: a binary sequence (Bounce's LABS), a "
        "categorical energy with pairwise couplings (MaxSAT- and Ising-like), a graph cut, a mixed function with "
        "neighbour interactions and floats (Levy), a feature selection with a float on a bundled data set"
    ),
    frozen="2026-12-03",
)
