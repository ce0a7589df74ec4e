"""What the plots of :mod:`optuna_vpbo.visualization` draw, read from the diagnostics that
``VPBOSampler(record_proposals=True)`` stores in each trial's user attribute ``"vpbo"`` (keys:
see :mod:`optuna_vpbo._diagnostics`)."""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from optuna.study import Study

from optuna_vpbo._diagnostics import DEFAULT_ACQUISITION, DIAGNOSTICS_KEY

DEFAULT_MAX_COMBINATIONS = 8  # combinations drawn apart; the rest share one trace
OTHER_COMBINATIONS = "other combinations"
NO_DIAGNOSTICS = (
    "no trial of study {name!r} has VPBOSampler diagnostics{what}: run it with "
    "VPBOSampler(record_proposals=True)"
)

Point = tuple[int, float]  # (trial number, value)


def import_optional(module: str, purpose: str, hint: str) -> Any:
    """``module``, or an ImportError that says what needs it and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{purpose} needs {module.split('.')[0]}: {hint}") from error


@dataclasses.dataclass(frozen=True)
class ProposalHistory:
    """The value proposals of a study, trial by trial.

    ``series`` maps a combination's label (``"name=value, ..."``; the least frequent ones merged
    into ``"other combinations"``) to the (trial number, acquisition value) of every trial whose
    top proposals include it, most often chosen first; ``chosen`` has the proposal each trial
    took (the best), ``chosen_labels`` its combination."""

    acquisition: str
    series: dict[str, list[Point]]
    chosen: list[Point]
    chosen_labels: list[str]


def _diagnostics(study: Study) -> list[tuple[int, Mapping[str, Any]]]:
    return [
        (t.number, t.user_attrs[DIAGNOSTICS_KEY])
        for t in study.get_trials(deepcopy=False)
        if isinstance(t.user_attrs.get(DIAGNOSTICS_KEY), Mapping)
    ]


def combination_label(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={value}" for name, value in params.items()) or "(no categorical parameter)"


def value_proposal_history(study: Study, max_combinations: int = DEFAULT_MAX_COMBINATIONS) -> ProposalHistory:
    """The top value proposals of every trial chosen by value proposals (ValueError if none)."""
    if max_combinations < 1:
        raise ValueError(f"max_combinations must be at least 1, got {max_combinations}")
    trials = [(n, d) for n, d in _diagnostics(study) if d.get("top_proposals")]
    if not trials:
        raise ValueError(NO_DIAGNOSTICS.format(name=study.study_name, what=" with value proposals"))
    chosen_count = Counter(combination_label(d["top_proposals"][0]["params"]) for _, d in trials)
    seen_count = Counter(combination_label(p["params"]) for _, d in trials for p in d["top_proposals"])
    ranked = sorted(seen_count, key=lambda label: (-chosen_count[label], -seen_count[label], label))
    kept = set(ranked[:max_combinations])
    series: dict[str, list[Point]] = {label: [] for label in ranked[:max_combinations]}
    chosen, chosen_labels = [], []
    for number, diagnostics in trials:
        for rank, proposal in enumerate(diagnostics["top_proposals"]):
            value = float(proposal["acquisition"])
            if not math.isfinite(value):
                continue
            label = combination_label(proposal["params"])
            series.setdefault(label if label in kept else OTHER_COMBINATIONS, []).append((number, value))
            if rank == 0:
                chosen.append((number, value))
                chosen_labels.append(label)
    acquisition = str(trials[-1][1].get("acquisition", DEFAULT_ACQUISITION))
    return ProposalHistory(acquisition, series, chosen, chosen_labels)


def lengthscale_history(study: Study, objective: int = 0) -> dict[str, list[Point]]:
    """The fitted lengthscale of each numeric parameter at every trial that has a fitted GP (for
    several objectives with log EHVI, the GP of ``objective``); ValueError if none has one."""
    history: dict[str, list[Point]] = {}
    for number, diagnostics in _diagnostics(study):
        models = diagnostics.get("objectives")
        if models is not None:
            if not 0 <= objective < len(models):
                raise ValueError(f"objective {objective} out of range: trial {number} has {len(models)} models")
            model = models[objective]
        else:
            model = diagnostics
        for name, lengthscale in model.get("lengthscales", {}).items():
            history.setdefault(name, []).append((number, float(lengthscale)))
    if not history:
        raise ValueError(NO_DIAGNOSTICS.format(name=study.study_name, what=" with a fitted GP"))
    return history
