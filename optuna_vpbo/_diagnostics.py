"""The diagnostics of ``VPBOSampler(record_proposals=True)``: stored in a trial's user attribute
``"vpbo"`` and, where optuna-dashboard is installed, also as the trial's Markdown note.

The diagnostics are a dict with the keys ``phase`` (``random``, ``mes`` or ``proposals``) and,
once a GP is fitted, ``lambda``, ``noise`` and ``lengthscales`` (by numeric parameter name). In
the ``proposals`` phase, ``move`` is the search policy's move (``proposals``, ``least-observed`` or
``perturbed-incumbent``) and ``move_reason`` why it was made, in a sentence; a value proposal's
trial has ``top_proposals``, the best value proposals, best first (each ``{"params": categorical
values, "acquisition": value}``; the first is the chosen one); a perturbed incumbent has
``perturbed_parameter``, the numeric parameter drawn at random. In a flat space beyond
enumeration, ``trust_region`` is ``{"radius", "trained_on"}``: the trial changes at most
``radius`` categoricals of the best trial, and the objective's GP trained on ``trained_on`` trials
nearest it. With log EHVI (several
objectives) ``acquisition`` is ``"log EHVI"`` and the model is a list ``objectives`` of one
``{lambda, noise, lengthscales}`` per objective. Once a model is fitted, ``pruned_in_model`` and
``failed_in_model`` count the pruned and failed trials it learnt from (``early_stopped_in_model``,
where there are some: the COMPLETE trials that stopped early, read as pruned) and, when some trial
failed, ``p_success`` is the success model's probability that the chosen point does not fail
(docs/pruning-and-failures.md). With one objective, ``prediction`` is the model's prediction of
the trial's value at the suggested point (``{"mean", "sd"}`` in the objective's units, noise
excluded; left out where it is not finite). The note renders these as tables, so that
optuna-dashboard shows why a trial was chosen (its note API: ``optuna_dashboard.save_note``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from optuna.trial import TrialState

from optuna_vpbo import _core
from optuna_vpbo._combinations import TrustRegion
from optuna_vpbo._models import ConstraintModel, ObjectiveModel, TrialModels, predicted_value
from optuna_vpbo._observations import Observations
from optuna_vpbo._proposals import Proposal
from optuna_vpbo._search_policy import Move
from optuna_vpbo._tree_encoder import TreeEncoder

DIAGNOSTICS_KEY = "vpbo"  # the trial user attribute of the diagnostics
DEFAULT_ACQUISITION = "log EI"  # single objective; the diagnostics name any other
PHASE_TITLES = {
    "random": "random (initial design)",
    "mes": "initial design: a random combination, its numeric part by Max-value Entropy Search",
    "proposals": "value proposals",
}
# How the note names each move of the search policy.
MOVE_TITLES = {
    "proposals": "value proposals over every combination",
    "least-observed": "value proposals over the least observed combinations",
    "perturbed-incumbent": "the best trial with one numeric parameter drawn at random",
}


def _cell(value: Any) -> str:
    """One Markdown table cell: numbers to 4 significant digits, pipes escaped."""
    if isinstance(value, float):
        text = f"{value:.4g}" if math.isfinite(value) else str(value)
    else:
        text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    return [
        "| " + " | ".join(_cell(h) for h in header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows),
    ]


def _combination(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={value}" for name, value in params.items()) or "(no categorical parameter)"


def proposals_markdown(top_proposals: Sequence[Mapping[str, Any]], acquisition: str) -> list[str]:
    """The top value proposals as a table, best first; the first is the chosen one."""
    rows = [
        ["**chosen**" if rank == 0 else str(rank + 1), _combination(p["params"]), p["acquisition"]]
        for rank, p in enumerate(top_proposals)
    ]
    return _table(["rank", "combination", acquisition], rows)


def model_markdown(models: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> list[str]:
    """The fitted GP hyperparameters, one column per model (objective): lambda, noise and the
    lengthscale of each numeric parameter (in [0, 1] units; shorter means more relevant)."""
    rows = [["lambda", *(m.get("lambda", "-") for m in models)], ["noise", *(m.get("noise", "-") for m in models)]]
    names: list[str] = []
    for model in models:
        names += [n for n in model.get("lengthscales", {}) if n not in names]
    rows += [[f"lengthscale `{n}`", *(m.get("lengthscales", {}).get(n, "-") for m in models)] for n in names]
    return _table(["GP hyperparameter", *labels], rows)


def trial_states_markdown(diagnostics: Mapping[str, Any]) -> list[str]:
    """What the model took from pruned and failed trials, and the chosen point's P(success)."""
    if "pruned_in_model" not in diagnostics:
        return []
    text = f"**Learnt from** {diagnostics['pruned_in_model']} pruned and {diagnostics['failed_in_model']} failed trials"
    if diagnostics.get("early_stopped_in_model"):
        text += f", and {diagnostics['early_stopped_in_model']} complete trials that stopped early, read as pruned"
    if "p_success" in diagnostics:
        text += f"; probability that this trial does not fail: {_cell(diagnostics['p_success'])}"
    return ["", text]


def prediction_markdown(diagnostics: Mapping[str, Any]) -> list[str]:
    """The model's prediction of this trial's value."""
    lines = []
    if "prediction" in diagnostics:
        p = diagnostics["prediction"]
        lines += ["", f"**Predicted value** (the model, at this point): {_cell(p['mean'])} ± {_cell(p['sd'])}"]
    return lines


def diagnostics_markdown(diagnostics: Mapping[str, Any]) -> str:
    """The Markdown note of one trial's diagnostics (see the module docstring for the keys)."""
    phase = diagnostics.get("phase", "?")
    acquisition = diagnostics.get("acquisition", DEFAULT_ACQUISITION)
    lines = ["## VPBOSampler", "", f"**Phase**: {PHASE_TITLES.get(phase, phase)}"]
    if "move" in diagnostics:
        move = MOVE_TITLES.get(diagnostics["move"], diagnostics["move"])
        drawn = diagnostics.get("perturbed_parameter")
        move += f" (`{drawn}`)" if drawn else ""
        lines += ["", f"**Move**: {move}; {diagnostics.get('move_reason', '')}"]
    region = diagnostics.get("trust_region")
    if region:
        lines += ["", f"**Trust region**: at most {region['radius']} categorical changes from the best trial; "
                  f"the GP trained on the {region['trained_on']} trials nearest it"]
    top = diagnostics.get("top_proposals")
    if top:
        lines += ["", f"**Top value proposals** ({acquisition} of each categorical combination, best first)", ""]
        lines += proposals_markdown(top, acquisition)
    lines += prediction_markdown(diagnostics)
    lines += trial_states_markdown(diagnostics)
    if "objectives" in diagnostics:
        models = list(diagnostics["objectives"])
        labels = [f"objective {i}" for i in range(len(models))]
    elif "lambda" in diagnostics:
        models, labels = [diagnostics], ["value"]
    else:
        models, labels = [], []
    if models:
        lines += ["", "**Fitted GP model**", ""] + model_markdown(models, labels)
    elif phase == "random":
        lines += ["", "No model yet: the parameters come from the independent sampler."]
    return "\n".join(lines) + "\n"


def design_diagnostics(models: TrialModels, observed: Observations, failed_trials: str, params: dict[str, Any]) -> dict[str, Any]:
    """The diagnostics of a trial of the initial design's MES half that suggests ``params``."""
    return {"phase": "mes", **_models_diagnostics(models, observed, failed_trials)} | _prediction(models, observed, params)


def proposal_diagnostics(
    move: Move, proposal: Proposal, drawn: str | None, models: TrialModels, observed: Observations, failed_trials: str,
    params: dict[str, Any], region: TrustRegion | None = None,
) -> dict[str, Any]:
    """The diagnostics of a trial after the initial design that made ``move`` and suggests
    ``params`` (``proposal`` decoded; ``drawn``: the perturbed parameter of a perturbed incumbent),
    within the trust ``region`` where there is one: its radius and how many trials the GP trained on."""
    fitted = _models_diagnostics(models, observed, failed_trials)
    fitted |= {"acquisition": "log EHVI"} if models.hypervolume else {}
    chosen = _repeat_diagnostics(observed, proposal) | _success_diagnostics(models.constraints, proposal)
    chosen |= _prediction(models, observed, params)
    details: dict[str, Any] = (
        {"perturbed_parameter": drawn} if drawn is not None else {"top_proposals": _ranking(proposal, observed.encoder)}
    )
    if region is not None:
        trained_on = len(observed.h) if region.training is None else len(region.training)
        details |= {"trust_region": {"radius": region.radius, "trained_on": trained_on}}
    return {"phase": "proposals", "move": move.kind, "move_reason": move.reason, **details, **fitted, **chosen}


def _models_diagnostics(models: TrialModels, observed: Observations, failed_trials: str) -> dict[str, Any]:
    """The fitted model (one per objective with log EHVI), and how many pruned and failed trials
    it used; where some did, how many COMPLETE trials that stopped early it read as pruned
    (``_trial_states.split_early_stopped``)."""
    if models.hypervolume:
        fitted = {"objectives": [_model_diagnostics(m, observed.encoder) for m in models.objectives]}
    else:
        fitted = _model_diagnostics(models.objectives[0], observed.encoder)
    imputed_states = [t.state for t in observed.imputed]
    n_failed = len(observed.failed) if failed_trials != "ignore" else 0
    n_stopped = imputed_states.count(TrialState.COMPLETE)
    stopped = {"early_stopped_in_model": n_stopped} if n_stopped else {}
    return fitted | {"pruned_in_model": imputed_states.count(TrialState.PRUNED), "failed_in_model": n_failed} | stopped


def _model_diagnostics(model: ObjectiveModel, encoder: TreeEncoder) -> dict[str, Any]:
    """The fitted model: lambda, the noise the GP factorised with and lengthscales by parameter."""
    hyperparameters = model.hyperparameters
    return {
        "lambda": round(hyperparameters.lam, 4),
        "noise": float(f"{model.gp.noise:.3g}"),
        "lengthscales": {name: round(float(ls), 4) for name, ls in zip(encoder.numeric_names, hyperparameters.lengthscales)},
    }


def _ranking(proposal: Proposal, encoder: TreeEncoder) -> list[dict[str, Any]]:
    """The best value proposals: categorical values and acquisition value."""
    return [{"params": encoder.categorical_params(row), "acquisition": round(value, 4)} for row, value in proposal.ranking]


def _repeat_diagnostics(observed: Observations, proposal: Proposal) -> dict[str, Any]:
    """The number of the first complete trial whose configuration the chosen point repeats (floats
    within ``Observations.complete_fraction`` of their range), if any: how often a repeat happens."""
    n = len(observed.complete)
    same_row = np.all(observed.h[:n] == proposal.row, axis=1)
    tolerance = observed.encoder.repeat_tolerance(observed.complete_fraction)
    hits = np.flatnonzero(same_row & np.all(np.abs(observed.x[:n] - proposal.x) <= tolerance, axis=1))
    return {"repeats_trial": observed.complete[int(hits[0])].number} if len(hits) else {}


def _success_diagnostics(constraints: list[ConstraintModel], proposal: Proposal) -> dict[str, Any]:
    """The success model's probability that the chosen point does not fail."""
    success = [c for c in constraints if c.is_success_model]
    if not success:
        return {}
    log_p = _core.LogProbabilityOfFeasibility(success[0].gp, success[0].threshold)
    value = log_p.evaluate(proposal.row.reshape(1, -1), proposal.x.reshape(1, -1))[0]
    return {"p_success": round(float(np.exp(value)), 4)}


def _prediction(models: TrialModels, observed: Observations, params: dict[str, Any]) -> dict[str, Any]:
    """The model's prediction of the value at ``params`` (one objective): ``prediction``,
    ``{"mean", "sd"}`` in the objective's units (``_models.predicted_value``); empty where the
    study has several objectives or the prediction is not finite."""
    if len(models.objectives) != 1 or observed.values.shape[1] != 1 or not params:
        return {}
    h, x = observed.encoder.encode([params])
    predicted = predicted_value(models.objectives[0], h[0], x[0])
    if predicted is None:
        return {}
    return {"prediction": {"mean": float(f"{predicted[0]:.6g}"), "sd": float(f"{predicted[1]:.3g}")}}
