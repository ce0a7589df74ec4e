"""The stall safeguard: when a study stops improving, some trials explore the combinations it
has observed least, and how often depends on whether that exploration has paid in this study.

A study is stalled once its best complete trial is at least ``stall_trials`` complete trials old.
A stalled study explores on the trials whose number is 1 modulo a period, 2 to begin with (every
odd trial): a model that is confident too early (a narrow basin in a branch it sampled twice)
otherwise never returns there. With ``backoff`` > 0 the study's own history sets the period: each
run of ``backoff`` exploring trials in a row that did not beat the best trial before them doubles
it, and an exploring trial that did resets it to 2: where the best combination is found and its
numeric part is left to refine, exploration stops costing every other trial. The pipeline applies
the backoff to flat spaces only: in a conditional space the least observed leaves are branches
whose own parameters the model has seen on a few points (conditional_trap's well is found by
exploring trials that pay rarely, and late).

With coverage ``c`` > 0, a flat space whose every combination already has at least ``c * (d +
1)`` observed trials (d numeric dimensions: a handful of points per dimension the model has to
learn) has no least observed combination left to explore, and its exploring trials propose as
usual: the safeguard is for a branch written off on a few points, and on a small space that is
well covered (a paper-suite study past its first hundred trials) every other trial spent there
is a trial taken from refining the incumbent.

With perturbations, a stalled study in a flat space also tries its incumbent elsewhere: on the
trials whose number is a multiple of ``PERTURBATION_PERIOD`` (half of those that do not explore)
it proposes the incumbent with one active numeric coordinate drawn uniformly (with the opt-in
gate, only once the model's own proposal for that trial has no chance left, its mean more than
``-spent_z`` standard deviations below the incumbent: ``spent``). A float or int
can sit in a local minimum that the model believes in (Ackley-5-3's floats on the box's faces,
where the cosine term is as good as at the centre: docs/decisions.md, "Stalled trials perturb
the incumbent"); neither the least observed combinations nor the acquisition move it there.
With ``perturbation_backoff`` > 0 the perturbation reads its own record as the exploration does:
each run of that many perturbing trials in a row that did not beat the best doubles its period,
one that did resets it (a trial the gate lets the model keep counts as scheduled): where the
model refines a found optimum, a draw of one coordinate no longer pays and its trials go back to
the model.

With a tolerance (``stall_tolerance``, conditional spaces), the best trial's age counts from the
last improvement larger than that fraction of the range of the values so far (``stall_age``): a
study that refines one leaf's optimum in its last digits is as stalled as one that repeats it.

The history is replayed from the complete trials in trial-number order, so every process and
every worker derives the same period from the same storage: nothing is written to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

# The longest period: one exploring trial in 2 ** (MAX_HALVINGS + 1) trials.
MAX_HALVINGS = 10
# A stalled study perturbs its incumbent on the trials whose number is a multiple of this: every
# other even trial, so that the odd ones still explore.
PERTURBATION_PERIOD = 4
# Draws of the perturbed coordinate before the perturbation gives up (every draw taken).
MAX_PERTURBATION_DRAWS = 8


def explores(age: int, unpaid: int, trial_number: int, stall_trials: int, backoff: int) -> bool:
    """Whether trial ``trial_number`` explores the least observed combinations: the best trial is
    ``age`` complete trials old and ``unpaid`` exploring trials in a row have not beaten it."""
    if stall_trials <= 0 or age < stall_trials:
        return False
    return trial_number % (2 << _halvings(unpaid, backoff)) == 1


def _halvings(unpaid: int, backoff: int) -> int:
    """How often a backoff has doubled a period: once per ``backoff`` unpaid trials in a row, at
    most ``MAX_HALVINGS`` times (never without a backoff)."""
    return min(unpaid // backoff, MAX_HALVINGS) if backoff > 0 else 0


def covered(observed_h: np.ndarray, n_levels: np.ndarray, n_numeric: int, coverage: int) -> bool:
    """Whether every combination of the flat space with ``n_levels`` values per categorical has at
    least ``coverage * (n_numeric + 1)`` observed trials (rows of ``observed_h``); never with
    ``coverage`` 0."""
    if coverage <= 0:
        return False
    needed = coverage * (n_numeric + 1)
    n_combinations = float(np.prod(n_levels, dtype=np.float64))
    if n_combinations * needed > len(observed_h):  # too few trials to cover them all
        return False
    _, counts = np.unique(np.asarray(observed_h, dtype=np.int64).reshape(len(observed_h), -1), axis=0, return_counts=True)
    return len(counts) == n_combinations and int(counts.min()) >= needed


def unpaid_explorations(
    targets: np.ndarray, feasible: np.ndarray, numbers: np.ndarray, stall_trials: int, backoff: int, tolerance: float = 0.0
) -> int:
    """Replay the complete trials (``targets``: higher is better; ``feasible``; trial ``numbers``)
    in trial-number order: how many exploring trials in a row, up to the last, did not beat the
    best trial before them (0 without ``backoff``: the period never changes)."""
    if backoff <= 0 or stall_trials <= 0:
        return 0
    return unpaid_run(
        targets, feasible, numbers, lambda age, unpaid, n: explores(age, unpaid, n, stall_trials, backoff), tolerance
    )


def unpaid_perturbations(
    targets: np.ndarray, feasible: np.ndarray, numbers: np.ndarray, stall_trials: int, backoff: int, tolerance: float = 0.0
) -> int:
    """As ``unpaid_explorations``, for the trials that perturb the incumbent (``perturbs``)."""
    if backoff <= 0 or stall_trials <= 0:
        return 0
    return unpaid_run(
        targets, feasible, numbers, lambda age, unpaid, n: perturbs(age, n, stall_trials, unpaid, backoff), tolerance
    )


def unpaid_run(
    targets: np.ndarray,
    feasible: np.ndarray,
    numbers: np.ndarray,
    scheduled: Callable[[int, int, int], bool],
    tolerance: float = 0.0,
) -> int:
    """Replay the complete trials in trial-number order: how many trials of one kind in a row, up
    to the last, did not beat the best trial before them; ``scheduled(age, unpaid, number)`` says
    whether trial ``number`` is of that kind when the best trial is ``age`` complete trials old
    (``stall_age``'s rule with ``tolerance``) and ``unpaid`` such trials in a row have not beaten it."""
    return _replay(targets, feasible, numbers, scheduled, tolerance)[1]


def stall_age(targets: np.ndarray, feasible: np.ndarray, numbers: np.ndarray, tolerance: float) -> int:
    """How many complete trials (``targets``: higher is better; ``feasible``; trial ``numbers``)
    came after the last one that improved on the best before it by more than ``tolerance`` times
    the range of the targets so far (a first feasible trial always does): a study that refines
    its optimum in the last digits is as stalled as one that does not improve at all."""
    return _replay(targets, feasible, numbers, lambda age, unpaid, n: False, tolerance)[0]


def _replay(
    targets: np.ndarray,
    feasible: np.ndarray,
    numbers: np.ndarray,
    scheduled: Callable[[int, int, int], bool],
    tolerance: float,
) -> tuple[int, int]:
    """The age of the best trial after the last complete trial, and the unpaid run of the
    ``scheduled`` trials up to it (``unpaid_run``, ``stall_age``)."""
    order = np.argsort(numbers, kind="stable")
    best: tuple[bool, float] | None = None
    anchor = -1
    low, high = math.inf, -math.inf
    unpaid = 0
    for position, i in enumerate(order):
        key = (bool(feasible[i]), float(targets[i]))
        low, high = min(low, key[1]), max(high, key[1])
        if best is not None and scheduled(position - 1 - anchor, unpaid, int(numbers[i])):
            unpaid = 0 if key > best else unpaid + 1
        if best is None or key > best:
            if best is None or key[0] > best[0] or key[1] - best[1] > tolerance * (high - low):
                anchor = position
            best = key
    return len(order) - 1 - anchor, unpaid


def perturbs(age: int, trial_number: int, stall_trials: int, unpaid: int = 0, backoff: int = 0) -> bool:
    """Whether trial ``trial_number`` perturbs the incumbent, which is ``age`` complete trials old;
    with ``backoff`` > 0, each ``backoff`` perturbing trials in a row that have not beaten it
    (``unpaid``) double the period."""
    if not 0 < stall_trials <= age:
        return False
    return trial_number % (PERTURBATION_PERIOD << _halvings(unpaid, backoff)) == 0


def spent(improvement_z: float | None, spent_z: float) -> bool:
    """Whether the model's expected improvement is spent: its proposal's standardised improvement
    over the incumbent is below ``spent_z`` (None, no prediction: spent)."""
    return improvement_z is None or improvement_z < spent_z


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
