"""The algorithm's settings (``VPBOSampler(settings=...)``), validated, and the named presets.

This module imports nothing from the rest of the package: it sits at the bottom of the import
graph, and every feature module takes plain values from the pipeline rather than the settings.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# The choices of the string fields, in the order the docs list them.
HYPERPARAMETER_PRIORS = ("dimension-scaled", "none")
OUTPUT_TRANSFORMS = ("yeo-johnson", "standardize")
MULTI_OBJECTIVE_METHODS = ("ehvi", "parego")
PRUNED_TRIALS = ("impute", "ignore")
FAILED_TRIALS = ("both", "impute", "classify", "ignore")
COMPLETE_REPEATS = ("when-noisy", "allowed")
_CHOICES = {
    "hyperparameter_prior": HYPERPARAMETER_PRIORS,
    "output_transform": OUTPUT_TRANSFORMS,
    "multi_objective": MULTI_OBJECTIVE_METHODS,
    "pruned_trials": PRUNED_TRIALS,
    "failed_trials": FAILED_TRIALS,
    "complete_repeats": COMPLETE_REPEATS,
}
# The int fields and their least value.
_MINIMA = {
    "n_startup_trials": 0,
    "n_candidates": 1,
    "n_refine": 0,
    "refit_interval": 1,
    "n_restarts": 1,
    "max_enumerated_combinations": 1,
}


@dataclasses.dataclass(frozen=True)
class VPBOSettings:
    """The settings of the algorithm, given as ``VPBOSampler(settings=VPBOSettings(...))``.

    ``VPBOSettings()`` holds the defaults, ``VPBOSettings.paper()`` the paper's algorithm (Zuo et
    al., sec. 5). Change some fields of either with ``replace``, e.g.
    ``VPBOSettings.paper().replace(n_refine=3)``. Every field is checked when the object is made: a
    value of the wrong type raises TypeError, a value out of range or an unknown name ValueError.
    Why each default is what it is: docs/decisions.md.

    Attributes:
        n_startup_trials: Size of the initial design, in finished trials (complete, and pruned or
            failed ones the model learns from); its first half is random, its second half takes a
            random combination and the numeric point of highest Max-value Entropy Search.
        n_candidates: Scrambled Sobol numeric candidates per trial, shared by all combinations: a
            combination's value proposal is the best acquisition value among them.
        n_refine: L-BFGS-B runs that refine the chosen combination's numeric point, from its best
            candidate and its best observed points (0: none; with log EHVI any positive value
            starts from up to 16 points of the observed Pareto front as well).
        refit_interval: Refit the GP's hyperparameters every this many complete trials (more often
            while the study is young, every 5 % of growth beyond 300 trials).
        n_restarts: L-BFGS-B starts per hyperparameter fit, one of them from the previous fit.
        hyperparameter_prior: ``"dimension-scaled"`` (LogNormal lengthscales scaled with the
            dimension, Hvarfner et al. 2024) or ``"none"`` (maximum likelihood, the paper's; try it
            when the optimum is a narrow basin in a flat region).
        max_enumerated_combinations: Up to this many categorical combinations (leaves of a
            conditional space) every one gets a value proposal; beyond, a sample of this many
            (in a flat space, from a trust region around the best trial) plus the neighbours of
            the best trials.
        output_transform: How objective values become the GP's targets: ``"yeo-johnson"``
            (standardise, a Yeo-Johnson power transform fitted by maximum likelihood, standardise
            again) or ``"standardize"`` (the paper's).
        multi_objective: ``"ehvi"``: 2-3 objectives get one GP each and log expected hypervolume
            improvement (up to 512 combinations; beyond, and for more objectives, ParEGO);
            ``"parego"``: a random augmented Chebyshev scalarisation per trial, always.
        pruned_trials: ``"impute"``: a pruned trial joins the objective GP at a pessimistic final
            value imputed from its last intermediate value and counts toward the initial design;
            ``"ignore"`` (the paper's): complete trials only (docs/pruning-and-failures.md).
        failed_trials: What a trial that failed in the objective (an exception, a NaN) teaches:
            ``"both"``: it joins the objective GP at the upper quartile of the complete values and
            a success GP adds log P(success) to the acquisition; ``"impute"`` or ``"classify"``:
            one of the two; ``"ignore"`` (the paper's): nothing.
        complete_repeats: ``"when-noisy"``: a complete configuration is proposed again only when
            the study shows a noisy objective; ``"allowed"`` (the paper's): like any other point.
            Pruned and failed configurations are never proposed again while others remain.
    """

    n_startup_trials: int = 16
    n_candidates: int = 512
    n_refine: int = 3
    refit_interval: int = 10
    n_restarts: int = 3
    hyperparameter_prior: str = "dimension-scaled"
    max_enumerated_combinations: int = 4096
    output_transform: str = "yeo-johnson"
    multi_objective: str = "ehvi"
    pruned_trials: str = "impute"
    failed_trials: str = "both"
    complete_repeats: str = "when-noisy"
    # The paper preset's one switch (not a field a user sets): without the additions made since
    # the paper, early refits and the stall safeguard (``_search_policy``).
    _paper: bool = dataclasses.field(default=False, init=False, repr=False)

    @classmethod
    def paper(cls) -> VPBOSettings:
        """The paper's algorithm (sec. 5): 24 initial points (12 random, 12 MES), 200 candidates,
        no refinement of x, maximum-likelihood refits every 10 trials from 5 starts, standardised
        objective values, complete trials only."""
        return PRESETS["paper"]

    @property
    def is_paper(self) -> bool:
        """Whether these are the paper preset's settings (possibly with fields replaced): no
        early refits and no stall safeguard."""
        return self._paper

    def replace(self, **changes: Any) -> VPBOSettings:
        """A copy with ``changes`` (field names), validated like a new object; a copy of the paper
        preset's settings stays the paper's algorithm."""
        unknown = sorted(set(changes) - set(field_names()))
        if unknown:
            raise TypeError(f"VPBOSettings has no field {', '.join(unknown)}; its fields: {', '.join(field_names())}.")
        copy = dataclasses.replace(self, **changes)
        object.__setattr__(copy, "_paper", self._paper)
        return copy

    @property
    def n_random_startup_trials(self) -> int:
        """The random part of the initial design: its first half, at least one trial (a model
        needs an observation)."""
        return max(self.n_startup_trials // 2, 1)

    def __post_init__(self) -> None:
        for name, minimum in _MINIMA.items():
            _check_int(name, getattr(self, name), minimum)
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {value!r}.")
            if value not in choices:
                raise ValueError(f"{name} must be one of {choices}, got {value!r}.")


def field_names() -> list[str]:
    """The fields a user sets, in order."""
    return [f.name for f in dataclasses.fields(VPBOSettings) if f.init]


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}.")
    if value < minimum:
        kind = "a positive integer" if minimum == 1 else "a non-negative integer"
        raise ValueError(f"{name} must be {kind}, got {value!r}.")


def _paper_preset() -> VPBOSettings:
    """The paper's settings (sec. 5): 24 initial points (12 random + 12 MES), 200 uniform
    candidates per combination with no local refinement, maximum-likelihood refits every 10
    trials from 5 starts, standardised values; pruned and failed trials ignored."""
    settings = VPBOSettings(
        n_startup_trials=24,
        n_candidates=200,
        n_refine=0,
        n_restarts=5,
        hyperparameter_prior="none",
        output_transform="standardize",
        pruned_trials="ignore",
        failed_trials="ignore",
        complete_repeats="allowed",
    )
    object.__setattr__(settings, "_paper", True)
    return settings


PRESETS: dict[str, VPBOSettings] = {"paper": _paper_preset(), "default": VPBOSettings()}
