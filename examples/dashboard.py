"""Watch VPBOSampler's decisions in optuna-dashboard.

With ``record_proposals=True`` every trial carries the user attribute ``vpbo``: the phase that
chose it (``random`` or ``mes`` in the initial design, then ``proposals``), the best value
proposals (a categorical combination with its log EI each) and the GP's fitted lambda, noise and
lengthscales. optuna-dashboard shows them on each trial's page as a note (tables of the top
value proposals and of the fitted model) and as the raw user attribute. The objective is a
cheap stand-in for a network's validation loss over a mixed space (optimizer, activation,
learning rate, layers, dropout). A few seconds at the default 40 trials.

Run: ``python examples/dashboard.py [--trials N] [--storage URL] [--seed S]``, then the
``optuna-dashboard`` command that it prints (``pip install optuna-dashboard``). The study is stored
in ``vpbo-dashboard.db`` in the current folder (the script prints its path) unless ``--storage``
names another storage; a second run resumes it and says how many trials it already has.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import optuna

from optuna_vpbo import VPBOSampler

STUDY_NAME = "vpbo-dashboard"
DEFAULT_DATABASE = "vpbo-dashboard.db"  # in the current folder
BEST_LEARNING_RATE = {"sgd": 1e-1, "momentum": 3e-2, "adam": 1e-3, "rmsprop": 3e-4}
ACTIVATION_PENALTY = {"relu": 0.0, "gelu": -0.02, "tanh": 0.08}


def objective(trial: optuna.Trial) -> float:
    optimizer = trial.suggest_categorical("optimizer", list(BEST_LEARNING_RATE))
    activation = trial.suggest_categorical("activation", list(ACTIVATION_PENALTY))
    learning_rate = trial.suggest_float("learning_rate", 1e-5, 1.0, log=True)
    n_layers = trial.suggest_int("n_layers", 1, 8)
    dropout = trial.suggest_float("dropout", 0.0, 0.6)
    lr_miss = math.log10(learning_rate / BEST_LEARNING_RATE[optimizer])
    depth_miss = (n_layers - 4) / 3
    return 0.3 + 0.15 * lr_miss**2 + 0.1 * depth_miss**2 + 0.4 * (dropout - 0.2) ** 2 + ACTIVATION_PENALTY[activation]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--storage", help=f"an Optuna storage URL (default: {DEFAULT_DATABASE} in the current folder)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    storage = args.storage or f"sqlite:///{Path(DEFAULT_DATABASE).resolve()}"
    if args.storage is None:
        print(f"study {STUDY_NAME!r} in {Path(DEFAULT_DATABASE).resolve()}")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # A short initial design, so that most trials show value proposals.
    sampler = VPBOSampler(seed=args.seed, n_startup_trials=10, record_proposals=True)
    study = optuna.create_study(study_name=STUDY_NAME, storage=storage, sampler=sampler, load_if_exists=True)
    if n_stored := len(study.trials):
        print(f"resuming the stored study: {n_stored} trials already, adding {args.trials}")
    study.optimize(objective, n_trials=args.trials)

    last = study.trials[-1]
    print(f"best loss {study.best_value:.4f} (trial #{study.best_trial.number} of {len(study.trials)})")
    print(f"trial #{last.number} user attribute 'vpbo': phase {last.user_attrs['vpbo']['phase']}")
    print(f"open the study: optuna-dashboard {storage}")


if __name__ == "__main__":
    main()
