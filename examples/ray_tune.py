"""VPBOSampler inside Ray Tune: OptunaSearch with a define-by-run space, an ASHA scheduler, two trials at a time.

Each trial "trains" a model for up to 8 epochs (a synthetic learning curve, so that the example
needs no data set and no GPU) and reports its loss after every epoch; ASHA stops the trials that
fall behind. The space is conditional: the optimiser, then the momentum of SGD or the beta2 of
Adam. Ray runs on 2 CPUs, two trials at a time. At the end the searcher is saved, restored into a
new OptunaSearch, and both are asked for the next configuration: the restored searcher suggests as
the original would; ``--restore`` does the same in a fresh process. About 15 seconds at the default
30 trials on two cores (``reuse_actors``: a worker process per slot, not per trial).

Trap: a trial that ASHA stops early reaches Optuna as COMPLETE with its last loss (a half-trained
one), not as PRUNED (docs/other-tools.md). The summary counts them.

Run: ``python examples/ray_tune.py [--trials N] [--seed S] [--folder DIR]`` (Ray's results and the
saved searcher go to DIR, default ./vpbo-ray); then ``python examples/ray_tune.py --restore [--folder
DIR]`` prints the next suggestion of the searcher saved there.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections import Counter
from pathlib import Path
from typing import Any

import optuna
import ray
from ray import tune
from ray.tune.schedulers import ASHAScheduler
from ray.tune.search.optuna import OptunaSearch

from optuna_vpbo import VPBOSampler

EPOCHS = 8


def space(trial: optuna.Trial) -> None:
    """The define-by-run search space: Ray passes an object that records each suggestion."""
    optimizer = trial.suggest_categorical("optimizer", ["sgd", "adam"])
    trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    if optimizer == "sgd":
        trial.suggest_float("momentum", 0.0, 0.99)
    else:
        trial.suggest_float("beta2", 0.9, 0.9999)
    trial.suggest_categorical("batch_size", [16, 32, 64, 128])


def loss_after(config: dict[str, Any], epoch: int) -> float:
    """A synthetic learning curve: it falls from 2.5 towards a floor that the configuration sets,
    at a speed that the learning rate sets."""
    log_lr = math.log10(config["lr"])
    if config["optimizer"] == "sgd":
        floor = 0.30 + 0.08 * (log_lr + 1.5) ** 2 + 0.4 * (config["momentum"] - 0.9) ** 2
        speed = 0.25 + 0.5 * config["momentum"]
    else:
        floor = 0.25 + 0.06 * (log_lr + 3.0) ** 2 + 30.0 * (config["beta2"] - 0.999) ** 2
        speed = 0.6
    floor += 0.02 * abs(math.log2(config["batch_size"] / 32))
    speed *= 10.0 ** (0.3 * (log_lr + 2.5))
    return floor + (2.5 - floor) * math.exp(-speed * epoch)


def train(config: dict[str, Any]) -> None:
    for epoch in range(1, EPOCHS + 1):
        tune.report({"loss": loss_after(config, epoch)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folder", default="vpbo-ray")
    parser.add_argument("--restore", action="store_true", help="print the next suggestion of the searcher saved in --folder")
    args = parser.parse_args()
    folder = Path(args.folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    checkpoint = folder / "vpbo-searcher.pkl"
    if args.restore:
        restored = OptunaSearch()
        restored.restore(str(checkpoint))  # unpickles the study, VPBOSampler and `space` (from this script)
        print(f"restored {checkpoint}: next suggestion {json.dumps(restored.suggest('probe'), sort_keys=True)}")
        return

    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")  # no GPU warnings on a CPU-only machine
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    # record_proposals: each trial's user attribute "vpbo" says which phase chose it.
    searcher = OptunaSearch(space, sampler=VPBOSampler(seed=args.seed, record_proposals=True), metric="loss", mode="min")
    tuner = tune.Tuner(
        train,
        tune_config=tune.TuneConfig(
            search_alg=searcher,
            scheduler=ASHAScheduler(metric="loss", mode="min", max_t=EPOCHS, grace_period=1, reduction_factor=2),
            num_samples=args.trials,
            max_concurrent_trials=2,
            reuse_actors=True,  # one worker process per slot rather than per trial
        ),
        run_config=tune.RunConfig(name="vpbo-ray", storage_path=str(folder), verbose=0),
    )
    results = tuner.fit()
    best = results.get_best_result(metric="loss", mode="min", scope="last")

    # The searcher that ran the study, saved and restored as Tune does on a resumed experiment.
    searcher.save(str(checkpoint))
    restored = OptunaSearch()
    restored.restore(str(checkpoint))
    study: optuna.Study = searcher._ot_study  # the Optuna study inside OptunaSearch
    original_next = searcher.suggest("probe")
    restored_next = restored.suggest("probe")
    ray.shutdown()

    trials = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    # OptunaSearch reports every result but the last as an intermediate value (the last is the
    # trial's value): a trial that ran every epoch has EPOCHS - 1 of them.
    stopped = sum(1 for t in trials if len(t.intermediate_values) < EPOCHS - 1)
    phases = Counter(t.user_attrs.get("vpbo", {}).get("phase", "none") for t in trials)
    print(f"ray tune: {len(trials)} of {args.trials} trials COMPLETE in Optuna, {stopped} of them stopped early by ASHA")
    print(f"trials by phase: {dict(sorted(phases.items()))}")
    print(f"best loss {best.metrics['loss']:.4f} with {best.config}")
    print(f"saved searcher {checkpoint}; restored suggests as the original: {original_next == restored_next}")
    print(f"next suggestion {json.dumps(original_next, sort_keys=True)}")
    print(f"Ray's results in {folder / 'vpbo-ray'}")


if __name__ == "__main__":
    main()
