"""The samplers the benchmarks compare, by name, and a wrapper that times a sampler's own work."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_vpbo import VPBOSampler, VPBOSettings
from optuna_vpbo._settings import PRESETS
from optuna_vpbo.benchmarks.baselines import BASELINE_FACTORIES
from optuna_vpbo.benchmarks.peers import PEER_FACTORIES
from optuna_vpbo.benchmarks.smac_sampler import SMACSampler


def _gp_sampler(seed: int) -> BaseSampler:
    return optuna.samplers.GPSampler(seed=seed)


def _vpbo(**fields: Any) -> Callable[[int], BaseSampler]:
    """A VPBO variant: the default settings with ``fields`` changed."""
    settings = VPBOSettings(**fields)
    return lambda seed: VPBOSampler(seed=seed, settings=settings)


class IntersectionVPBOSampler(VPBOSampler):
    """VPBO on the intersection search space alone, as before conditional search spaces were
    modelled: an ablation, in which parameters of one branch go to the independent sampler."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed, warn_independent_sampling=False)
        self._intersection = optuna.search_space.IntersectionSearchSpace()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return {name: dist for name, dist in self._intersection.calculate(study).items() if not dist.single()}


# The defaults issue 13 chose and issue 21 changed: a 10-trial design, no stall safeguard.
ISSUE_13_DEFAULTS: dict[str, Any] = {"n_startup_trials": 10, "stall_trials": 0}

SAMPLER_FACTORIES: dict[str, Callable[[int], BaseSampler]] = {
    "vpbo": lambda seed: VPBOSampler(seed=seed),
    "vpbo-paper": lambda seed: VPBOSampler(seed=seed, preset="paper"),
    "vpbo-noinit": _vpbo(search_initialization=False),
    # Ablations of the defaults: each puts back one setting of the paper preset.
    "vpbo-standardize": _vpbo(output_transform="standardize"),
    "vpbo-norefine": _vpbo(n_refine=0),
    "vpbo-200cand": _vpbo(n_candidates=200),
    "vpbo-5restarts": _vpbo(n_restarts=5),
    # Issue 21 (docs/decisions.md, "Every seed"): the defaults before it (issue 13's), and each
    # of its two changes put back alone.
    "vpbo-v1": _vpbo(**ISSUE_13_DEFAULTS),
    "vpbo-nostall": _vpbo(stall_trials=0),
    "vpbo-stall": _vpbo(n_startup_trials=10),
    # Issue 13 (docs/decisions.md, "Robust defaults"): each of its changes put back or added
    # alone to its defaults (vpbo-v1), and all of them put back (the defaults before: vpbo-v0).
    "vpbo-init24": _vpbo(**ISSUE_13_DEFAULTS | {"n_startup_trials": 24}),
    "vpbo-noearly": _vpbo(**ISSUE_13_DEFAULTS, early_refits=False),
    "vpbo-noprior": _vpbo(**ISSUE_13_DEFAULTS, hyperparameter_prior="none"),
    "vpbo-v0": _vpbo(n_startup_trials=24, early_refits=False, hyperparameter_prior="none", stall_trials=0),
    # The first step tried: the earlier defaults with a 10-trial design (5 MES, or all random).
    "vpbo-v0-init10": _vpbo(**ISSUE_13_DEFAULTS, early_refits=False, hyperparameter_prior="none"),
    "vpbo-v0-init10-random": _vpbo(
        **ISSUE_13_DEFAULTS, early_refits=False, hyperparameter_prior="none", search_initialization=False
    ),
    "vpbo-intersection": IntersectionVPBOSampler,
    # Multi-objective studies by ParEGO scalarisation, the behaviour before log EHVI.
    "vpbo-parego": _vpbo(multi_objective="parego"),
    "tpe": lambda seed: optuna.samplers.TPESampler(seed=seed),
    # TPE's own answer to conditional search spaces: joint densities per group of parameters
    # that appear together.
    "tpe-group": lambda seed: optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True),
    "gp": _gp_sampler,
    "random": lambda seed: optuna.samplers.RandomSampler(seed=seed),
    # The paper's baselines (sec. 5); "oracle" is run by the runner (see oracle.py).
    **BASELINE_FACTORIES,
    "smac": lambda seed: SMACSampler(seed=seed),
    # Peers of the broad suite (issue 13): tpe-auto, catcmawm, ax (see peers.py).
    **PEER_FACTORIES,
}


def make_sampler(name: str, seed: int) -> BaseSampler:
    """The sampler registered as ``name``, or VPBO with explicit settings written
    ``vpbo:key=value+key=value``: a variant for a comparison without a registered name. Keys are
    ``VPBOSettings`` fields (values: ints, floats, true/false, or strings), and ``preset`` names the
    settings the others change (default: "default")."""
    if name.startswith("vpbo:"):
        return VPBOSampler(seed=seed, settings=variant_settings(name.removeprefix("vpbo:")))
    if name not in SAMPLER_FACTORIES:
        raise ValueError(f"Unknown sampler {name!r}; choose from {sorted(SAMPLER_FACTORIES)}.")
    return SAMPLER_FACTORIES[name](seed)


def variant_settings(text: str) -> VPBOSettings:
    """The settings of ``vpbo:TEXT`` (see ``make_sampler``), validated."""
    fields: dict[str, Any] = {}
    for item in text.split("+"):
        key, separator, raw = item.partition("=")
        if not separator or not key:
            raise ValueError(f"A VPBO variant is written vpbo:key=value+key=value, got {item!r}.")
        for parse in (int, float):
            try:
                fields[key] = parse(raw)
                break
            except ValueError:
                continue
        else:
            fields[key] = {"true": True, "false": False}.get(raw.lower(), raw)
    preset = fields.pop("preset", "default")
    if preset not in PRESETS:
        raise ValueError(f"Unknown preset {preset!r} in vpbo:{text}; choose one of {sorted(PRESETS)}.")
    return PRESETS[preset].replace(**fields)


class TimedSampler(BaseSampler):
    """Delegates to ``inner`` and adds up the wall-clock time of its calls per trial number."""

    def __init__(self, inner: BaseSampler) -> None:
        self.inner = inner
        self.seconds: defaultdict[int, float] = defaultdict(float)

    def _timed(self, trial_number: int, call: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        try:
            return call()
        finally:
            self.seconds[trial_number] += time.perf_counter() - start

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return self._timed(trial.number, lambda: self.inner.infer_relative_search_space(study, trial))

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        return self._timed(trial.number, lambda: self.inner.sample_relative(study, trial, search_space))

    def sample_independent(
        self, study: Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution
    ) -> Any:
        return self._timed(
            trial.number, lambda: self.inner.sample_independent(study, trial, param_name, param_distribution)
        )

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._timed(trial.number, lambda: self.inner.before_trial(study, trial))

    def after_trial(
        self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None
    ) -> None:
        self._timed(trial.number, lambda: self.inner.after_trial(study, trial, state, values))

    def reseed_rng(self) -> None:
        self.inner.reseed_rng()
