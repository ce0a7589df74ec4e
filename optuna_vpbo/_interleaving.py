"""Random trials interleaved with the model's, as SMAC interleaves random configurations with
those its model proposes (Hutter, Hoos and Leyton-Brown 2011; SMAC3's ``ModulusRandomDesign``).

After the initial design, every trial whose number is ``interval - 1`` modulo ``interval`` takes
its parameters from the independent sampler, as the random part of the design does: at the known
price of one trial in ``interval``, a model that believes in a wrong basin (or whose fit only ever
sees the points it chose itself) keeps receiving points from the whole space. Chosen by trial
number, so that every worker and process agrees on which trials are random (docs/decisions.md,
"Random trials interleaved with the model's").
"""

from __future__ import annotations


def interleaved_random(trial_number: int, n_finished: int, n_startup_trials: int, interval: int) -> bool:
    """Whether trial ``trial_number`` is random: ``n_finished`` trials are finished, the initial
    design has ``n_startup_trials``, one trial in ``interval`` is random (0: none)."""
    return interval > 0 and n_finished >= n_startup_trials and trial_number % interval == interval - 1
