"""VPBOSampler from OptunaHub on a small mixed space: one categorical and two continuous
parameters; the minimum is 0 at shape = "bowl", x = 1, y = -2.
Install first: ``pip install optunahub optuna-vpbo``."""

import optuna
import optunahub

OFFSETS = {"bowl": 0.0, "tilted": 0.5, "ridge": 1.0}


def objective(trial: optuna.Trial) -> float:
    shape = trial.suggest_categorical("shape", list(OFFSETS))
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", -5.0, 5.0)
    return (x - 1.0) ** 2 + (y + 2.0) ** 2 + OFFSETS[shape]


if __name__ == "__main__":
    module = optunahub.load_module(package="samplers/vpbo")
    study = optuna.create_study(sampler=module.VPBOSampler(seed=0))
    study.optimize(objective, n_trials=40)
    print(f"best value {study.best_value:.4g} at {study.best_params}")
