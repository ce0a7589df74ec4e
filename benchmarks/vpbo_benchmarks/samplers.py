"""The samplers the benchmarks compare, by name (the VPBO variants pinned in :mod:`.vpbo_variants`),
and a wrapper that times a sampler's own work."""

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

from optuna_vpbo import VPBOSampler
from vpbo_benchmarks.baselines import BASELINE_FACTORIES
from vpbo_benchmarks.lazy import deferred
from vpbo_benchmarks.peers import PEER_FACTORIES
from vpbo_benchmarks.vpbo_variants import INTERSECTION_REFERENCE, VARIANTS, Variant, reference_settings, variant_settings


def _gp_sampler(seed: int) -> BaseSampler:
    return optuna.samplers.GPSampler(seed=seed)


def _pinned(variant: Variant) -> Callable[[int], BaseSampler]:
    """A VPBO variant's factory: its complete settings, fixed when the lab is imported."""
    settings = variant.settings()
    return lambda seed: VPBOSampler(seed=seed, settings=settings)


class IntersectionVPBOSampler(VPBOSampler):
    """VPBO on the intersection search space alone, as before conditional search spaces were
    modelled: an ablation, in which parameters of one branch go to the independent sampler
    (``vpbo-v4``'s settings)."""

    def __init__(self, seed: int) -> None:
        settings = reference_settings(INTERSECTION_REFERENCE)
        super().__init__(seed=seed, settings=settings, warn_independent_sampling=False)
        self._intersection = optuna.search_space.IntersectionSearchSpace()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return {name: dist for name, dist in self._intersection.calculate(study).items() if not dist.single()}


# SMAC3 and its dask come with the sampler's module, when a run first needs it.
_SMAC_SAMPLER = deferred("vpbo_benchmarks.smac_sampler", "SMACSampler")

SAMPLER_FACTORIES: dict[str, Callable[[int], BaseSampler]] = {
    # What a user gets: the sampler's defaults, whatever they are (every other VPBO name is pinned).
    "vpbo": lambda seed: VPBOSampler(seed=seed),
    **{name: _pinned(variant) for name, variant in VARIANTS.items()},
    "vpbo-intersection": IntersectionVPBOSampler,
    "tpe": lambda seed: optuna.samplers.TPESampler(seed=seed),
    # TPE's own answer to conditional search spaces: joint densities per group of parameters
    # that appear together.
    "tpe-group": lambda seed: optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True),
    "gp": _gp_sampler,
    "random": lambda seed: optuna.samplers.RandomSampler(seed=seed),
    # The paper's baselines (sec. 5); "oracle" is run by the runner (see oracle.py).
    **BASELINE_FACTORIES,
    "smac": lambda seed: _SMAC_SAMPLER(seed=seed),
    # Peers of the broad suite: tpe-auto, catcmawm, ax (see peers.py).
    **PEER_FACTORIES,
}


def make_sampler(name: str, seed: int) -> BaseSampler:
    """The sampler registered as ``name``, or VPBO with explicit settings written
    ``vpbo:key=value+key=value`` (:func:`.vpbo_variants.variant_settings`): a variant for a
    comparison without a registered name."""
    if name.startswith("vpbo:"):
        return VPBOSampler(seed=seed, settings=variant_settings(name.removeprefix("vpbo:")))
    if name not in SAMPLER_FACTORIES:
        raise ValueError(f"Unknown sampler {name!r}; choose from {sorted(SAMPLER_FACTORIES)}.")
    return SAMPLER_FACTORIES[name](seed)


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
