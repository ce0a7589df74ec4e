"""The search policy: which move a trial after the initial design makes.

Three moves (``MOVES``):

- ``"proposals"``: the value proposals over every candidate combination (VPBO paper, Algorithm 1);
- ``"least-observed"``: the value proposals over the combinations (leaves) the study has observed
  least, so that a branch the model wrote off on a few points is tried again;
- ``"perturbed-incumbent"``: the best trial with one active numeric coordinate drawn uniformly,
  so that a float or int held in a local minimum the model believes in (a face of the box) is
  tried elsewhere.

The rule (a stall test with turns): a study is *stalled* once its best complete trial is at least
``STALL_TRIALS`` complete trials old. Each trial stores its move and whether the study was stalled
when it was chosen (``_stored.MOVE_KEY``, written before the trial runs), and a stalled study's
*turn* is the number of stored stalled trials, of any state, numbered after its incumbent. An odd
turn takes the least observed combinations, unless every combination of a flat space already has
``STALL_COVERAGE * (d + 1)`` observations (there is no little-observed combination left). In a
flat space, a turn of ``PERTURBATION_PERIOD / 2`` modulo the period perturbs the incumbent; the
period doubles after each ``PERTURBATION_BACKOFF`` stored perturbations in a row that did not beat
the best. In a conditional space an improvement smaller than ``STALL_TOLERANCE`` of the range of
the values so far does not make the study less stalled: refining one leaf's optimum in its last
digits is a stall. Every other turn, and every trial of a study that is not stalled, makes value
proposals.

In a flat space beyond enumeration every move proposes within a trust region around the
incumbent, which every worker also derives from the study alone (``_combinations.trust_region``).

The decision reads only what the study stores (the complete trials, replayed in trial-number
order, and the stored moves), so every worker and process derives the same move from the same
study, and concurrent workers take turns instead of repeating one move. Why each constant has its
value: docs/decisions.md, "The search policy".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
from optuna.study import StudyDirection

from optuna_vpbo._models import TrialModels
from optuna_vpbo._observations import Observations
from optuna_vpbo._proposals import Proposal, Repeats, blocked_points

PROPOSALS, LEAST_OBSERVED, PERTURBED_INCUMBENT = MOVES = ("proposals", "least-observed", "perturbed-incumbent")
# NOTE: a best trial this many complete trials old marks a stalled study: long enough for the
# value proposals to refine a new incumbent, short enough to return early to a written-off branch.
STALL_TRIALS = 10
# NOTE: a flat space whose every combination has this many observations per numeric dimension
# (plus one) has no combination left that the model has seen on only a few points.
STALL_COVERAGE = 1
# NOTE: in a conditional space, improvements below this fraction of the values' range are
# refinements in the last digits, not progress.
STALL_TOLERANCE = 1e-6
# NOTE: a stalled flat study perturbs on every 4th trial, so that the odd ones still explore.
PERTURBATION_PERIOD = 4
# NOTE: this many perturbations in a row that did not pay double the period: late in a study a
# draw of one coordinate rarely beats the model's own refinement.
PERTURBATION_BACKOFF = 4
# The longest perturbation period: PERTURBATION_PERIOD * 2 ** MAX_HALVINGS trials.
MAX_HALVINGS = 10
# Draws of the perturbed coordinate before the perturbation gives up (every draw taken).
MAX_PERTURBATION_DRAWS = 8
@dataclasses.dataclass(frozen=True)
class StudyRecord:
    """What the policy reads of a single-objective (or scalarised) study after its design.

    ``targets``, ``feasible``, ``numbers`` and ``perturbed``: the complete trials' model targets
    (higher is better), feasibility, trial numbers and whether each stored the move
    ``PERTURBED_INCUMBENT``, in the model's row order; ``values``: the same trials' values as a
    user sees them, signed so that higher is better (None with several objectives: the targets
    serve); ``best_row``: the incumbent's row among the model's rows; ``stalled_numbers``: the
    numbers of the trials of any state that stored a move chosen while the study was stalled;
    ``rows``: the categorical codes of every row the model has (n x k); ``n_levels``: each
    categorical's number of values; ``n_numeric``: the numeric dimensions; ``conditional``:
    whether the space is a tree with conditions.
    """

    targets: np.ndarray
    feasible: np.ndarray
    numbers: np.ndarray
    perturbed: np.ndarray
    values: np.ndarray | None
    best_row: int
    stalled_numbers: np.ndarray
    rows: np.ndarray
    n_levels: np.ndarray
    n_numeric: int
    conditional: bool


@dataclasses.dataclass(frozen=True)
class Move:
    """The move of a trial (one of ``MOVES``), how many complete trials old the best trial is, and
    why the move was made, in a sentence for the diagnostics."""

    kind: str
    stall_age: int
    reason: str

    @property
    def stalled(self) -> bool:
        """Whether the study was stalled when the move was chosen (the move counts as a turn)."""
        return self.stall_age >= STALL_TRIALS

    def without_perturbation(self) -> Move:
        """The move made instead when a perturbed incumbent could not be drawn (every perturbed
        point was taken or failed): value proposals; any other move is itself."""
        if self.kind != PERTURBED_INCUMBENT:
            return self
        return Move(PROPOSALS, self.stall_age, "every perturbed point was taken or failed: value proposals")


def trial_move(observed: Observations, models: TrialModels, best_row: int, every_trial_proposes: bool) -> Move:
    """The move of the trial that read ``observed`` and fitted ``models``; the incumbent is
    objective row ``best_row``. Under log EHVI, and in the paper's algorithm
    (``every_trial_proposes``), every trial makes value proposals; else ``choose_move`` decides."""
    if models.hypervolume:
        return Move(PROPOSALS, 0, "log EHVI: every trial makes value proposals")
    if every_trial_proposes:
        return Move(PROPOSALS, 0, "the paper's algorithm: every trial makes value proposals")
    n = len(observed.complete)
    values = None
    if len(observed.directions) == 1:
        sign = -1.0 if observed.directions[0] == StudyDirection.MINIMIZE else 1.0
        values = sign * np.asarray(observed.values[:n, 0], dtype=np.float64)
    encoder = observed.encoder
    numbers = np.array([t.number for t in observed.complete], dtype=np.int64)
    perturbed = np.array([observed.moves.get(int(k), ("", False))[0] == PERTURBED_INCUMBENT for k in numbers], dtype=bool)
    stalled = np.array([k for k, (_, was_stalled) in observed.moves.items() if was_stalled], dtype=np.int64)
    record = StudyRecord(
        models.objectives[0].targets[:n], models.feasible[:n], numbers, perturbed, values, best_row, stalled,
        observed.h, encoder.n_choices, encoder.n_numeric, conditional=not encoder.tree.is_flat,
    )
    return choose_move(record)


def choose_move(record: StudyRecord) -> Move:
    """The move of the study's next trial (see the module docstring)."""
    age, anchor = _stall(record)
    if age < STALL_TRIALS:
        return Move(PROPOSALS, age, f"the best trial is {age} complete trials old (stalled from {STALL_TRIALS})")
    turn = int(np.count_nonzero(record.stalled_numbers > anchor))
    if turn % 2 == 1:
        if not record.conditional and covered(record.rows, record.n_levels, record.n_numeric, STALL_COVERAGE):
            return Move(PROPOSALS, age, "stalled, but every combination is observed enough")
        return Move(LEAST_OBSERVED, age, f"stalled for {age} trials, turn {turn}: an odd turn explores")
    if not record.conditional and _perturbs(record, turn):
        return Move(PERTURBED_INCUMBENT, age, f"stalled for {age} trials, turn {turn}: this turn perturbs the incumbent")
    return Move(PROPOSALS, age, f"stalled for {age} trials, turn {turn}: this turn refines")


def _stall(record: StudyRecord) -> tuple[int, int]:
    """How many complete trials the best one is old, and the trial number it is counted from; in
    a conditional space, counted from the last improvement larger than ``STALL_TOLERANCE`` of the
    range of the values (``replay``)."""
    if not record.conditional:
        # The incumbent may be an imputed (pruned or failed) row after the complete ones: no age yet.
        complete = record.best_row < len(record.numbers)
        return len(record.targets) - 1 - record.best_row, int(record.numbers[record.best_row]) if complete else -1
    values = record.values if record.values is not None else record.targets
    age, anchor, _ = replay(values, record.feasible, record.numbers, np.zeros(len(values), dtype=bool), STALL_TOLERANCE)
    return age, anchor


def _perturbs(record: StudyRecord, turn: int) -> bool:
    """Whether a stalled flat study perturbs its incumbent on an even ``turn``: half a period into
    the period, which each ``PERTURBATION_BACKOFF`` unpaid stored perturbations in a row double."""
    unpaid = replay(record.targets, record.feasible, record.numbers, record.perturbed, 0.0)[2]
    return turn % (PERTURBATION_PERIOD << _halvings(unpaid)) == PERTURBATION_PERIOD // 2


def _halvings(unpaid: int) -> int:
    """How often the perturbation's period has doubled: once per ``PERTURBATION_BACKOFF`` unpaid
    perturbations in a row, at most ``MAX_HALVINGS`` times."""
    return min(unpaid // PERTURBATION_BACKOFF, MAX_HALVINGS)


def covered(observed_h: np.ndarray, n_levels: np.ndarray, n_numeric: int, coverage: int) -> bool:
    """Whether every combination of the flat space with ``n_levels`` values per categorical has at
    least ``coverage * (n_numeric + 1)`` observed trials (rows of ``observed_h``)."""
    needed = coverage * (n_numeric + 1)
    n_combinations = float(np.prod(n_levels, dtype=np.float64))
    if n_combinations * needed > len(observed_h):  # too few trials to cover them all
        return False
    _, counts = np.unique(np.asarray(observed_h, dtype=np.int64).reshape(len(observed_h), -1), axis=0, return_counts=True)
    return len(counts) == n_combinations and int(counts.min()) >= needed


def replay(
    targets: np.ndarray, feasible: np.ndarray, numbers: np.ndarray, marked: np.ndarray, tolerance: float
) -> tuple[int, int, int]:
    """Replay the complete trials (``targets``: higher is better; ``feasible``; trial ``numbers``;
    ``marked``: of one kind) in trial-number order. Returns the best trial's age after the last of
    them (complete trials since the last one that beat the best before it by more than
    ``tolerance`` times the range of the targets so far; a first feasible trial always counts),
    that trial's number (-1 before any), and how many marked trials in a row, up to the last, did
    not beat the best before them."""
    order = np.argsort(numbers, kind="stable")
    best: tuple[bool, float] | None = None
    anchor = -1
    low, high = math.inf, -math.inf
    unpaid = 0
    for position, i in enumerate(order):
        key = (bool(feasible[i]), float(targets[i]))
        low, high = min(low, key[1]), max(high, key[1])
        if best is not None and marked[i]:
            unpaid = 0 if key > best else unpaid + 1
        if best is None or key > best:
            if best is None or key[0] > best[0] or key[1] - best[1] > tolerance * (high - low):
                anchor = position
            best = key
    anchor_number = int(numbers[order[anchor]]) if anchor >= 0 else -1
    return len(order) - 1 - anchor, anchor_number, unpaid


def incumbent_perturbation(
    observed: Observations, best_row: int, repeats: Repeats, rng: np.random.Generator
) -> tuple[Proposal, str] | None:
    """The incumbent (objective row ``best_row``) with one active numeric coordinate drawn, as a
    proposal without a ranking (``perturbed_incumbent``), and the drawn parameter's name; None
    when every draw is taken by a trial or a running trial, or repeats one of ``repeats``."""
    row, x = observed.h[best_row], observed.x[best_row]
    blocked = blocked_points(*observed.taken, repeats)
    active = observed.encoder.numeric_masks(row.reshape(1, -1))[0]
    point = perturbed_incumbent(x, active, observed.encoder.snap, rng, lambda p: bool(blocked(row, p.reshape(1, -1))[0]))
    if point is None:
        return None
    drawn = observed.encoder.numeric_names[int(np.flatnonzero(point != x)[0])]
    return Proposal(np.asarray(row, dtype=np.int32), point, math.nan, point, []), drawn


def perturbed_incumbent(
    x: np.ndarray,
    active: np.ndarray,
    snap: Callable[[np.ndarray, np.ndarray], np.ndarray],
    rng: np.random.Generator,
    blocked: Callable[[np.ndarray], bool],
) -> np.ndarray | None:
    """The incumbent's numeric point ``x`` (unit box) with one of its ``active`` coordinates, chosen
    uniformly, drawn uniformly and snapped (``snap(points, active)``); None when it has no active
    coordinate or ``MAX_PERTURBATION_DRAWS`` draws were all ``blocked``."""
    dims = np.flatnonzero(active)
    if len(dims) == 0:
        return None
    for _ in range(MAX_PERTURBATION_DRAWS):
        point = x.copy()
        point[int(rng.choice(dims))] = rng.uniform()
        point = snap(point.reshape(1, -1), active)[0]
        if not blocked(point):
            return point
    return None
