"""The VPBO variants the lab compares, each built from complete, explicit settings.

``vpbo`` is the sampler's defaults, what a user gets (``VPBOSampler()``): it follows them when
they change. Every other VPBO name is pinned: its settings are spelt out here field by field (a
reference's complete dictionary, and the fields the variant changes), never taken from
``VPBOSettings()``, so that a new default cannot change what a name means and a stored run keeps
the settings its name says (issue 27's protocol). The references:

- ``v2``: the defaults of issue 21 (a 16-trial design, the stall safeguard), the sampler's
  defaults at issue 26;
- ``v1``: issue 13's defaults: ``v2`` with a 10-trial design and no stall safeguard;
- ``v0``: the defaults before issue 13: a 24-trial design, refits every 10 trials, maximum
  likelihood, no stall safeguard;
- ``paper``: the paper's algorithm (``VPBOSettings.paper()``, which must not change).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from optuna_vpbo import VPBOSettings

V2_SETTINGS: Mapping[str, Any] = MappingProxyType(
    {
        "n_startup_trials": 16,
        "search_initialization": True,
        "n_candidates": 512,
        "n_refine": 3,
        "discrete_line_search": False,
        "flat_dimensions": "optimise",
        "stall_perturbation": False,
        "random_interval": 0,
        "design_rows": "random",
        "perturbation_spent_z": math.inf,
        "perturbation_backoff": 0,
        "refit_interval": 10,
        "early_refits": True,
        "hyperparameter_prior": "dimension-scaled",
        "stall_trials": 10,
        "stall_backoff": 0,
        "stall_coverage": 0,
        "stall_tolerance": 0.0,
        "n_restarts": 3,
        "max_enumerated_combinations": 4096,
        "output_transform": "yeo-johnson",
        "multi_objective": "ehvi",
        "pruned_trials": "impute",
        "failed_trials": "both",
        "complete_repeats": "allowed",
        "complete_repeat_fraction": 1e-4,
    }
)
V1_SETTINGS: Mapping[str, Any] = MappingProxyType({**V2_SETTINGS, "n_startup_trials": 10, "stall_trials": 0})
V0_SETTINGS: Mapping[str, Any] = MappingProxyType(
    {**V2_SETTINGS, "n_startup_trials": 24, "early_refits": False, "hyperparameter_prior": "none", "stall_trials": 0}
)
PAPER_SETTINGS: Mapping[str, Any] = MappingProxyType(
    {
        "n_startup_trials": 24,
        "search_initialization": True,
        "n_candidates": 200,
        "n_refine": 0,
        "discrete_line_search": False,
        "flat_dimensions": "optimise",
        "stall_perturbation": False,
        "random_interval": 0,
        "design_rows": "random",
        "perturbation_spent_z": math.inf,
        "perturbation_backoff": 0,
        "refit_interval": 10,
        "early_refits": False,
        "hyperparameter_prior": "none",
        "stall_trials": 0,
        "stall_backoff": 0,
        "stall_coverage": 0,
        "stall_tolerance": 0.0,
        "n_restarts": 5,
        "max_enumerated_combinations": 4096,
        "output_transform": "standardize",
        "multi_objective": "ehvi",
        "pruned_trials": "ignore",
        "failed_trials": "ignore",
        "complete_repeats": "allowed",
        "complete_repeat_fraction": 1e-4,
    }
)
REFERENCES: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {"v2": V2_SETTINGS, "v1": V1_SETTINGS, "v0": V0_SETTINGS, "paper": PAPER_SETTINGS}
)


@dataclasses.dataclass(frozen=True)
class Variant:
    """A reference's settings with ``changes``; ``description`` is what ``vpbo-benchmark list`` says."""

    reference: str
    changes: Mapping[str, Any]
    description: str

    def settings(self) -> VPBOSettings:
        return VPBOSettings(**{**REFERENCES[self.reference], **self.changes})


def _variant(reference: str, description: str, **changes: Any) -> Variant:
    return Variant(reference, MappingProxyType(changes), description)


VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        "vpbo-paper": _variant("paper", "the paper's exact algorithm (VPBOSettings.paper())"),
        "vpbo-v2": _variant("v2", "the defaults of issue 21: 16-trial design, stall safeguard"),
        # Ablations of vpbo-v2: each puts back one setting of the paper preset.
        "vpbo-noinit": _variant("v2", "vpbo-v2, an all-random initial design", search_initialization=False),
        "vpbo-standardize": _variant(
            "v2", "vpbo-v2, plain standardisation (ablation of Yeo-Johnson)", output_transform="standardize"
        ),
        "vpbo-norefine": _variant("v2", "vpbo-v2, no L-BFGS-B refinement of x", n_refine=0),
        "vpbo-200cand": _variant("v2", "vpbo-v2, the paper's 200 candidates", n_candidates=200),
        "vpbo-5restarts": _variant("v2", "vpbo-v2, the paper's 5 fit restarts", n_restarts=5),
        # Issue 21 (docs/decisions.md, "Every seed"): its two changes put back alone.
        "vpbo-v1": _variant("v1", "issue 13's defaults: 10-trial design, no stall safeguard"),
        "vpbo-nostall": _variant("v2", "vpbo-v2 without the stall safeguard", stall_trials=0),
        "vpbo-stall": _variant("v2", "vpbo-v2 with a 10-trial design", n_startup_trials=10),
        # Issue 13 (docs/decisions.md, "Robust defaults"): its changes put back alone (vpbo-v1 based),
        # and all of them (vpbo-v0, the defaults before).
        "vpbo-init24": _variant("v1", "vpbo-v1 with a 24-trial design", n_startup_trials=24),
        "vpbo-noearly": _variant("v1", "vpbo-v1, refits every 10 trials from the start", early_refits=False),
        "vpbo-noprior": _variant("v1", "vpbo-v1, maximum-likelihood fits", hyperparameter_prior="none"),
        "vpbo-v0": _variant("v0", "the defaults before issue 13"),
        # The first step tried: the earlier defaults with a 10-trial design (5 MES, or all random).
        "vpbo-v0-init10": _variant(
            "v1", "vpbo-v0 with a 10-trial design", early_refits=False, hyperparameter_prior="none"
        ),
        "vpbo-v0-init10-random": _variant(
            "v1", "vpbo-v0 with an all-random 10-trial design",
            early_refits=False, hyperparameter_prior="none", search_initialization=False,
        ),
        # Issue 27: today's defaults with one random trial in 8 interleaved (opt-in).
        "vpbo-interleaved": _variant(
            "v2", "the defaults (vpbo-v2, no wasted repeats, the stall perturbation) with one random trial in 8",
            complete_repeats="when-noisy", stall_perturbation=True, random_interval=8,
        ),
        # Issue 27: today's defaults with the design's second half on the least taken rows.
        "vpbo-balanced": _variant(
            "v2", "the defaults (vpbo-v2, no wasted repeats, the stall perturbation) with balanced design rows",
            complete_repeats="when-noisy", stall_perturbation=True, design_rows="balanced",
        ),
        # Multi-objective studies by ParEGO scalarisation, the behaviour before log EHVI.
        "vpbo-parego": _variant("v2", "vpbo-v2 with ParEGO instead of log EHVI", multi_objective="parego"),
    }
)
# The settings of vpbo-intersection (VPBO on the intersection search space alone) and of the
# Oracle's runs (one per combination).
INTERSECTION_REFERENCE = "v2"
ORACLE_REFERENCE = "v2"


def variant_settings(text: str) -> VPBOSettings:
    """The settings of a sampler written ``vpbo:key=value+key=value`` (values: ints, floats,
    true/false, or strings): ``preset`` names what the others change, ``default`` (the sampler's
    defaults, as ``vpbo``; the default) or a pinned reference (``v2``, ``v1``, ``v0``, ``paper``)."""
    fields: dict[str, Any] = {}
    for item in text.split("+"):
        key, separator, raw = item.partition("=")
        if not separator or not key:
            raise ValueError(f"A VPBO variant is written vpbo:key=value+key=value, got {item!r}.")
        fields[key] = _parsed(raw)
    preset = fields.pop("preset", "default")
    if preset == "default":
        return VPBOSettings().replace(**fields)
    if preset not in REFERENCES:
        raise ValueError(f"Unknown preset {preset!r} in vpbo:{text}; choose one of {['default', *REFERENCES]}.")
    return VPBOSettings(**REFERENCES[preset]).replace(**fields)


def _parsed(raw: str) -> Any:
    """An int, a float, a bool (true/false) or the string itself."""
    for parse in (int, float):
        try:
            return parse(raw)
        except ValueError:
            continue
    return {"true": True, "false": False}.get(raw.lower(), raw)
