"""A tiny Hydra app whose sweep is driven by VPBOSampler through Hydra's optuna sweeper.

The job returns the validation loss of a synthetic model (an optimiser among three, a learning rate
on a log scale, a batch size, a dropout rate); the sweeper (hydra-optuna-sweeper) asks VPBOSampler
for each job's overrides. The sampler is the config group option conf/hydra/sweeper/sampler/vpbo.yaml,
chosen in conf/config.yaml's defaults list; the study is stored in ./vpbo-hydra.db and the jobs'
folders in Hydra's ./multirun/. About 10 seconds at the default 20 trials.

Install (the released plugin pins optuna<3, which would downgrade Optuna; without its
dependencies it runs with Optuna 5):
``pip install hydra-core && pip install --no-deps hydra-optuna-sweeper``.

Run: ``python examples/hydra_app/app.py --multirun [hydra.sweeper.n_trials=N] [hydra.sweeper.sampler.seed=S]``.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import hydra
import optuna
from omegaconf import DictConfig

OPTIMIZERS = {"sgd": (0.32, -1.5), "adam": (0.25, -3.0), "rmsprop": (0.28, -2.5)}  # floor, best log10(lr)


def job(cfg: DictConfig) -> float:
    """One job of the sweep: the loss that the sweeper's trial minimises."""
    floor, best_log_lr = OPTIMIZERS[cfg.optimizer]
    loss = floor + 0.08 * (math.log10(cfg.lr) - best_log_lr) ** 2
    loss += 0.02 * abs(math.log2(cfg.batch_size / 32)) + 0.3 * (cfg.dropout - 0.2) ** 2
    return loss


class Summary:
    """Hydra callback (conf/config.yaml's hydra.callbacks): one line about the sweep when it ends.
    Hydra calls every method of hydra.experimental.callback.Callback: the others do nothing."""

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        pass

    def on_run_end(self, config: DictConfig, **kwargs: Any) -> None:
        pass

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        pass

    def on_job_start(self, config: DictConfig, **kwargs: Any) -> None:
        pass

    def on_job_end(self, config: DictConfig, **kwargs: Any) -> None:
        pass

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        sweeper = config.hydra.sweeper
        study = optuna.load_study(study_name=sweeper.study_name, storage=sweeper.storage)
        trials = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        phases = Counter(t.user_attrs.get("vpbo", {}).get("phase", "none") for t in trials)
        print(
            f"hydra sweep: {len(trials)} trials COMPLETE in study {study.study_name} ({sweeper.storage}), "
            f"by phase {dict(sorted(phases.items()))}; best loss {study.best_value:.4f} with {study.best_params}; "
            f"jobs in {config.hydra.sweep.dir}"
        )


# hydra.main(...)(job) rather than a decorator: mypy's strict check passes without Hydra installed.
main = hydra.main(version_base=None, config_path="conf", config_name="config")(job)

if __name__ == "__main__":
    main()
