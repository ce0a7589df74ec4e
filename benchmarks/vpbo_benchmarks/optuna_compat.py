"""The one home of the Optuna private names the lab uses.

The lab's samplers and reports reach a little into Optuna, as Optuna's own samplers do, but only
through the names below, so that an Optuna release that renames one breaks this module (and the
lab's tests) rather than a sampler. The sampler package has its own (``optuna_vpbo``'s
``_optuna_compat``); the lab does not use it: it uses the sampler through public names only.
"""

from __future__ import annotations

import numpy as np
from optuna._hypervolume import compute_hypervolume as _compute_hypervolume
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState


def complete_trials(study: Study) -> list[FrozenTrial]:
    """The study's COMPLETE trials, in trial order, without copies and from the storage's cache
    (what Optuna's samplers read; the public ``get_trials`` has no cache)."""
    return study._get_trials(deepcopy=False, states=(TrialState.COMPLETE,), use_cache=True)


def hypervolume(points: np.ndarray, reference: np.ndarray) -> float:
    """The hypervolume dominated by ``points`` (n x m losses, each below ``reference``) up to
    ``reference`` (Optuna's WFG algorithm)."""
    return float(_compute_hypervolume(points, reference))
