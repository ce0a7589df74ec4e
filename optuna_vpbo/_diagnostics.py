"""The diagnostics of ``VPBOSampler(record_proposals=True)``: stored in a trial's user attribute
``"vpbo"`` and, where optuna-dashboard is installed, also as the trial's Markdown note.

The diagnostics are a dict with the keys ``phase`` (``random``, ``mes`` or ``proposals``) and,
once a GP is fitted, ``lambda``, ``noise`` and ``lengthscales`` (by numeric parameter name); in
the ``proposals`` phase ``top_proposals``, the best value proposals, best first (each ``{"params":
categorical values, "acquisition": value}``; the first is the chosen one), ``stalled`` (the
trial proposed among the least observed combinations) and ``drawn`` (the numeric parameters the
flat draw chose); a stalled study's trial that is its incumbent with one numeric parameter drawn
has ``perturbed``, ``perturbed_parameter`` (that parameter's name) and no ``top_proposals``
(``_stall``); a random trial after the initial design has ``interleaved`` (``_interleaving``). With log EHVI
(several objectives) ``acquisition`` is ``"log EHVI"`` and the model is a list ``objectives`` of
one ``{lambda, noise, lengthscales}`` per objective. Once a model is fitted, ``pruned_in_model``
and ``failed_in_model`` count the pruned and failed trials it learnt from and, when some trial
failed, ``p_success`` is the success model's probability that the chosen point does not fail
(docs/pruning-and-failures.md). With one objective, ``prediction`` is the model's prediction of
the trial's value at the suggested point (``{"mean", "sd"}`` in the objective's units, noise
excluded; left out where it is not finite); a pruned trial gets ``pruned_final`` when it is pruned
(from the sampler object that sampled it): its last step and the final value (mean, sd) that the
model reads from its curve (``pruned_trials="curve-..."``). The note renders these as tables, so
that optuna-dashboard shows why a trial was chosen (its note API: ``optuna_dashboard.save_note``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from optuna.study import Study
from optuna.trial import FrozenTrial

from optuna_vpbo._optuna_compat import save_dashboard_note, set_trial_user_attr

DIAGNOSTICS_KEY = "vpbo"  # the trial user attribute of the diagnostics
DEFAULT_ACQUISITION = "log EI"  # single objective; the diagnostics name any other
PHASE_TITLES = {
    "random": "random (initial design)",
    "mes": "initial design: a random or least taken combination (`design_rows`), its numeric part by Max-value Entropy Search",
    "proposals": "value proposals",
}
INTERLEAVED_TITLE = "random (one trial in `random_interval` after the initial design)"


def record_diagnostics(study: Study, trial: FrozenTrial, diagnostics: dict[str, Any]) -> None:
    """Store ``diagnostics`` in the trial's user attribute ``"vpbo"`` and, when optuna-dashboard
    is importable, write them as the trial's Markdown note (skipped silently without it)."""
    set_trial_user_attr(study, trial, DIAGNOSTICS_KEY, diagnostics)
    save_dashboard_note(study, trial, diagnostics_markdown(diagnostics))


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
    if "p_success" in diagnostics:
        text += f"; probability that this trial does not fail: {_cell(diagnostics['p_success'])}"
    return ["", text]


def prediction_markdown(diagnostics: Mapping[str, Any]) -> list[str]:
    """The model's prediction of this trial's value and, for a pruned trial, the final value the
    model reads from its curve."""
    lines = []
    if "prediction" in diagnostics:
        p = diagnostics["prediction"]
        lines += ["", f"**Predicted value** (the model, at this point): {_cell(p['mean'])} ± {_cell(p['sd'])}"]
    if "pruned_final" in diagnostics:
        p = diagnostics["pruned_final"]
        lines += ["", f"**Pruned at step {p['step']}**; the model reads its final value as {_cell(p['mean'])} ± {_cell(p['sd'])} "
                  "(from the complete trials' curves when it was pruned)"]
    return lines


def diagnostics_markdown(diagnostics: Mapping[str, Any]) -> str:
    """The Markdown note of one trial's diagnostics (see the module docstring for the keys)."""
    phase = diagnostics.get("phase", "?")
    acquisition = diagnostics.get("acquisition", DEFAULT_ACQUISITION)
    title = INTERLEAVED_TITLE if diagnostics.get("interleaved") else PHASE_TITLES.get(phase, phase)
    lines = ["## VPBOSampler", "", f"**Phase**: {title}"]
    if diagnostics.get("perturbed"):
        drawn = diagnostics.get("perturbed_parameter")
        which = f"`{drawn}`" if drawn else "one numeric parameter"
        lines += ["", f"The study is stalled: this trial is its best trial with {which} drawn at random."]
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
    elif diagnostics.get("interleaved"):
        lines += ["", "The parameters come from the independent sampler (`_interleaving`)."]
    elif phase == "random":
        lines += ["", "No model yet: the parameters come from the independent sampler."]
    return "\n".join(lines) + "\n"
