"""SMAC3 (Hutter et al. 2011; automl/SMAC3 2.x) as an Optuna sampler, through its ask-and-tell API.

The paper's SMAC baseline (sec. 5): SMAC's hyperparameter-optimisation facade (random forest on
log-scaled costs, log EI, local and random search, interleaved random configurations) with 24
random initial configurations. The relative search space is given to SMAC in VPBOSampler's
encoding (``MixedSpaceEncoder``): categoricals by their index, numeric parameters in [0, 1]
(log and grids handled by the encoder, which decodes exactly onto Optuna's grids).
Complete trials that SMAC did not ask for (the first, random trial) are told to it as well.

Heavy (SMAC3 brings dask and ConfigSpace): :mod:`.samplers` reaches this module through :mod:`.lazy`.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from ConfigSpace import Categorical, Configuration, ConfigurationSpace, Float
from optuna.distributions import BaseDistribution
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial
from smac import HyperparameterOptimizationFacade, Scenario
from smac.initial_design import RandomInitialDesign
from smac.model.random_forest import RandomForest
from smac.runhistory.dataclasses import TrialInfo, TrialValue

from optuna_vpbo.search_space import MixedSpaceEncoder
from vpbo_benchmarks.intersection_sampler import IntersectionSpaceSampler, search_space_key
from vpbo_benchmarks.optuna_compat import complete_trials

# Paper, sec. 5: SMAC starts from 24 random initial points.
SMAC_N_INITIAL = 24
# SMAC's planned number of trials: only its initial design's size depends on it here.
SMAC_N_TRIALS = 100_000


@dataclasses.dataclass
class _SMACRun:
    """One SMAC optimiser for one (study, search space)."""

    facade: Any
    encoder: MixedSpaceEncoder
    workdir: tempfile.TemporaryDirectory[str]
    asked: dict[int, Any] = dataclasses.field(default_factory=dict)  # trial number -> TrialInfo
    told: set[int] = dataclasses.field(default_factory=set)


def _configuration_space(encoder: MixedSpaceEncoder, seed: int) -> Any:
    space = ConfigurationSpace(seed=seed)
    for name, levels in zip(encoder.categorical_names, encoder.n_levels, strict=True):
        space.add(Categorical(name, list(range(int(levels)))))
    for name in encoder.numeric_names:
        space.add(Float(name, (0.0, 1.0)))
    return space


def _new_run(encoder: MixedSpaceEncoder, seed: int) -> _SMACRun:
    workdir = tempfile.TemporaryDirectory(prefix="smac-")
    scenario = Scenario(
        _configuration_space(encoder, seed),
        deterministic=True,
        n_trials=SMAC_N_TRIALS,
        seed=seed,
        output_directory=Path(workdir.name),
    )
    # The facade's own forest (HyperparameterOptimizationFacade.get_model's settings), but on one
    # thread: its default n_jobs=-1 spends most of an ask in joblib's polling sleeps, and every
    # benchmark run is one single-threaded process.
    forest = RandomForest(
        scenario.configspace,
        log_y=True,
        n_trees=10,
        ratio_features=1.0,
        min_samples_split=2,
        min_samples_leaf=1,
        max_depth=2**20,
        bootstrapping=True,
        n_jobs=1,
        seed=seed,
    )
    facade = HyperparameterOptimizationFacade(
        scenario,
        None,
        model=forest,
        initial_design=RandomInitialDesign(scenario, n_configs=SMAC_N_INITIAL, max_ratio=1.0),
        intensifier=HyperparameterOptimizationFacade.get_intensifier(scenario, max_config_calls=1),
        logging_level=False,
        overwrite=True,
    )
    return _SMACRun(facade, encoder, workdir)


class SMACSampler(IntersectionSpaceSampler):
    """SMAC3's HPO facade behind Optuna's sampler protocol (see the module docstring)."""

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(seed)
        self._seed = seed
        self._runs: dict[str, _SMACRun] = {}

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space or len(study.directions) > 1:
            return {}

        key = search_space_key(study, search_space)
        run = self._runs.get(key)
        if run is None:
            run = self._runs[key] = _new_run(MixedSpaceEncoder(search_space), self._seed)
        sign = 1.0 if study.direction == StudyDirection.MINIMIZE else -1.0
        for t in complete_trials(study):
            if t.number in run.told or not search_space.keys() <= t.params.keys():
                continue
            info = run.asked.get(t.number) or TrialInfo(self._configuration(run, t.params), seed=0)
            assert t.value is not None  # a complete trial's
            run.facade.tell(info, TrialValue(cost=sign * float(t.value)), save=False)
            run.told.add(t.number)
        info = run.facade.ask()
        run.asked[trial.number] = info
        h = np.array([info.config[name] for name in run.encoder.categorical_names], dtype=np.int32)
        x = np.array([info.config[name] for name in run.encoder.numeric_names], dtype=np.float64)
        return run.encoder.decode(h, x)

    def _configuration(self, run: _SMACRun, params: dict[str, Any]) -> Any:
        h, x = run.encoder.encode([params])
        values: dict[str, int | float] = {name: int(h[0, j]) for j, name in enumerate(run.encoder.categorical_names)}
        values.update({name: float(x[0, j]) for j, name in enumerate(run.encoder.numeric_names)})
        return Configuration(run.facade.scenario.configspace, values=values)
