"""Every setting of the algorithm, validated, and the named presets."""

from __future__ import annotations

import dataclasses

from optuna_vpbo._output_transforms import validate_output_transform
from optuna_vpbo._priors import negative_log_prior
from optuna_vpbo._trial_states import FAILED_TRIALS, PRUNED_TRIALS

MULTI_OBJECTIVE_METHODS = ("ehvi", "parego")


@dataclasses.dataclass(frozen=True)
class VPBOSettings:
    """Every setting of the algorithm; see ``VPBOSampler`` for their meaning."""

    n_startup_trials: int = 10
    search_initialization: bool = True
    n_candidates: int = 512
    n_local_candidates: int = 0
    n_refine: int = 3
    refit_interval: int = 10
    early_refits: bool = True
    hyperparameter_prior: str = "dimension-scaled"
    stall_trials: int = 0
    n_restarts: int = 3
    max_enumerated_combinations: int = 4096
    output_transform: str = "yeo-johnson"
    multi_objective: str = "ehvi"
    record_proposals: bool = False
    categorical_relevance: bool = False
    pruned_trials: str = "impute"
    failed_trials: str = "both"

    @property
    def n_random_startup_trials(self) -> int:
        """The random part of the initial design: half of it with search initialisation."""
        return self.n_startup_trials // 2 if self.search_initialization else self.n_startup_trials

    def __post_init__(self) -> None:
        validate_output_transform(self.output_transform)
        negative_log_prior(self.hyperparameter_prior)
        if self.multi_objective not in MULTI_OBJECTIVE_METHODS:
            raise ValueError(
                f"multi_objective must be one of {MULTI_OBJECTIVE_METHODS}, got {self.multi_objective!r}."
            )
        if self.pruned_trials not in PRUNED_TRIALS:
            raise ValueError(f"pruned_trials must be one of {PRUNED_TRIALS}, got {self.pruned_trials!r}.")
        if self.failed_trials not in FAILED_TRIALS:
            raise ValueError(f"failed_trials must be one of {FAILED_TRIALS}, got {self.failed_trials!r}.")
        for name in ("n_candidates", "refit_interval", "n_restarts", "max_enumerated_combinations"):
            _check_int(name, getattr(self, name), minimum=1)
        for name in ("n_startup_trials", "n_refine", "n_local_candidates", "stall_trials"):
            _check_int(name, getattr(self, name), minimum=0)
        for name in ("search_initialization", "record_proposals", "early_refits", "categorical_relevance"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}.")


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        kind = "a positive integer" if minimum == 1 else "a non-negative integer"
        raise ValueError(f"{name} must be {kind}, got {value!r}.")


PRESETS: dict[str, VPBOSettings] = {
    # The paper's settings (sec. 5): 24 initial points (12 random + 12 MES), 200 uniform
    # candidates per combination with no local refinement, maximum-likelihood refits every 10
    # trials from 5 starts.
    "paper": VPBOSettings(
        n_startup_trials=24,
        n_candidates=200,
        n_refine=0,
        early_refits=False,
        hyperparameter_prior="none",
        n_restarts=5,
        output_transform="standardize",
        pruned_trials="ignore",
        failed_trials="ignore",
    ),
    "default": VPBOSettings(),
}
