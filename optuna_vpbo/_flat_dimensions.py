"""Numeric dimensions the model cannot tell apart are drawn, not optimised.

Along a dimension whose lengthscale is long against the unit box and through which the posterior
mean moves less than the fitted noise's standard deviation, the model has no evidence that the
value matters. The acquisition's preference along it is then an extrapolation: a long-lengthscale
GP is close to a linear trend, whose maximiser sits on the box's faces, and the proposals keep
the dimension there (Ackley-5-3's stuck runs: docs/decisions.md, "Flat dimensions drawn"). Such
a coordinate of the chosen point is drawn uniformly instead, so that the evaluations spread along
it until the data say whether it matters.
"""

from __future__ import annotations

import math

import numpy as np

from optuna_vpbo._models import ObjectiveModel
from optuna_vpbo._proposals import Blocked, Proposal, Snap

FLAT_DIMENSIONS = ("optimise", "draw")
# A dimension is a candidate when its lengthscale is at least this (the unit box is 1 wide).
FLAT_LENGTHSCALE = 2.0
# The posterior mean is read at this many evenly spaced values along the dimension.
N_LINE_POINTS = 9


def flat_dimensions(model: ObjectiveModel, row: np.ndarray, x: np.ndarray, active: np.ndarray) -> np.ndarray:
    """The dimensions among ``active`` (indices) whose lengthscale is at least
    ``FLAT_LENGTHSCALE`` and along which the posterior mean through ``(row, x)`` ranges over less
    than the noise's standard deviation (both in the GP's target units)."""
    noise_sd = math.sqrt(model.hyperparameters.noise)
    rows = np.repeat(row.reshape(1, -1), N_LINE_POINTS, axis=0).astype(np.int32)
    line = np.linspace(0.0, 1.0, N_LINE_POINTS)
    flat = []
    for j in active:
        if model.hyperparameters.lengthscales[j] < FLAT_LENGTHSCALE:
            continue
        points = np.repeat(x.reshape(1, -1), N_LINE_POINTS, axis=0)
        points[:, j] = line
        mean, _ = model.gp.predict(rows, points)
        if float(np.ptp(mean)) < noise_sd:
            flat.append(int(j))
    return np.asarray(flat, dtype=np.int64)


def with_flat_drawn(
    proposal: Proposal,
    model: ObjectiveModel,
    active: np.ndarray,
    snap: Snap,
    rng: np.random.Generator,
    blocked: Blocked,
) -> tuple[Proposal, np.ndarray]:
    """The proposal with its flat dimensions (``flat_dimensions``) drawn uniformly and snapped to
    the parameters' grids, and the drawn dimensions; unchanged (none drawn) when no dimension is
    flat or the drawn point is ``blocked`` (evaluated, running, or repeating a pruned or failed
    trial). ``active``: the chosen row's numeric mask (d,)."""
    flat = flat_dimensions(model, proposal.row, proposal.x, np.flatnonzero(active))
    if not len(flat):
        return proposal, flat
    x = proposal.x.copy()
    x[flat] = rng.uniform(size=len(flat))
    x = snap(x.reshape(1, -1), active)[0]
    if blocked(proposal.row, x.reshape(1, -1))[0]:
        return proposal, np.zeros(0, dtype=np.int64)
    return Proposal(proposal.row, x, proposal.value, proposal.x_candidate, proposal.ranking), flat
