"""The VPBO variants the lab compares, each built from complete, explicit settings.

``vpbo`` is the sampler's defaults, what a user gets (``VPBOSampler()``): it follows them when
they change. Every other VPBO name that can run is pinned: its settings are spelt out here field
by field (a reference's complete dictionary, and the fields the variant changes), never taken from
``VPBOSettings()``, so that a new default cannot change what a name means and a stored run keeps
the settings its name says. The references that run:

- ``v4``: the defaults of 2026-12-03 (a 16-trial design, the search policy's stall test with its
  turns read from the moves the trials stored, no wasted repeats; beyond enumeration, the trust
  region, which is code, not a setting);
- ``paper``: the paper's algorithm (``VPBOSettings.paper()``, which must not change).

Older names (``STORED_ONLY``) have stored runs but set fields that have left the settings: they
are compared as stored, and the commit named there builds them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from optuna_vpbo import VPBOSettings

V4_SETTINGS: Mapping[str, Any] = MappingProxyType(
    {
        "n_startup_trials": 16,
        "n_candidates": 512,
        "n_refine": 3,
        "refit_interval": 10,
        "n_restarts": 3,
        "hyperparameter_prior": "dimension-scaled",
        "max_enumerated_combinations": 4096,
        "output_transform": "yeo-johnson",
        "multi_objective": "ehvi",
        "pruned_trials": "impute",
        "failed_trials": "both",
        "complete_repeats": "when-noisy",
    }
)
REFERENCES: Mapping[str, Mapping[str, Any]] = MappingProxyType({"v4": V4_SETTINGS, "paper": MappingProxyType({})})
# The last commit whose settings still build every name of STORED_ONLY.
STORED_ONLY_COMMIT = "328a680"
# Names with stored runs whose settings can no longer be built (fields that left the settings).
STORED_ONLY: Mapping[str, str] = MappingProxyType(
    {
        "vpbo-v4-uniform": "vpbo-v4 before the trust region: a uniform sample beyond enumeration (5827f4a runs it)",
        "vpbo-v3": "vpbo-v4's settings with the search policy's turns read from trial numbers (b9fa6c3 runs it)",
        "vpbo-v2": "the defaults of 2025 (16-trial design, stall safeguard, repeats allowed)",
        "vpbo-v1": "vpbo-v2 with a 10-trial design and no stall safeguard",
        "vpbo-v0": "the defaults before vpbo-v1: a 24-trial design, refits every 10 trials, maximum likelihood",
        "vpbo-noinit": "vpbo-v2, an all-random initial design",
        "vpbo-nostall": "vpbo-v2 without the stall safeguard",
        "vpbo-stall": "vpbo-v2 with a 10-trial design",
        "vpbo-init24": "vpbo-v1 with a 24-trial design",
        "vpbo-noearly": "vpbo-v1, refits every 10 trials from the start",
        "vpbo-noprior": "vpbo-v1, maximum-likelihood fits",
        "vpbo-v0-init10": "vpbo-v0 with a 10-trial design",
        "vpbo-v0-init10-random": "vpbo-v0 with an all-random 10-trial design",
        "vpbo-interleaved": "one random trial in 8 interleaved",
        "vpbo-balanced": "balanced design rows",
    }
)


@dataclasses.dataclass(frozen=True)
class Variant:
    """A reference's settings with ``changes``; ``description`` is what ``vpbo-benchmark list`` says."""

    reference: str
    changes: Mapping[str, Any]
    description: str

    def settings(self) -> VPBOSettings:
        return reference_settings(self.reference).replace(**self.changes)


def reference_settings(name: str) -> VPBOSettings:
    """The settings of a reference that runs (``REFERENCES``): the paper's preset, or the fields
    spelt out."""
    return VPBOSettings.paper() if name == "paper" else VPBOSettings(**REFERENCES[name])


def _variant(reference: str, description: str, **changes: Any) -> Variant:
    return Variant(reference, MappingProxyType(changes), description)


VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        "vpbo-paper": _variant("paper", "the paper's exact algorithm (VPBOSettings.paper())"),
        "vpbo-v4": _variant("v4", "the defaults of 2026-12-03: 16-trial design, the stall test, no wasted repeats"),
        # Ablations of vpbo-v4: each puts back one setting of the paper preset.
        "vpbo-standardize": _variant(
            "v4", "vpbo-v4, plain standardisation (ablation of Yeo-Johnson)", output_transform="standardize"
        ),
        "vpbo-norefine": _variant("v4", "vpbo-v4, no L-BFGS-B refinement of x", n_refine=0),
        "vpbo-200cand": _variant("v4", "vpbo-v4, the paper's 200 candidates", n_candidates=200),
        "vpbo-5restarts": _variant("v4", "vpbo-v4, the paper's 5 fit restarts", n_restarts=5),
        "vpbo-mle": _variant("v4", "vpbo-v4, maximum-likelihood fits", hyperparameter_prior="none"),
        # Multi-objective studies by ParEGO scalarisation, the behaviour before log EHVI.
        "vpbo-parego": _variant("v4", "vpbo-v4 with ParEGO instead of log EHVI", multi_objective="parego"),
    }
)
# The settings of vpbo-intersection (VPBO on the intersection search space alone) and of the
# Oracle's runs (one per combination); their stored runs before 2026-12-01 ran vpbo-v2's.
INTERSECTION_REFERENCE = "v4"
ORACLE_REFERENCE = "v4"


def variant_settings(text: str) -> VPBOSettings:
    """The settings of a sampler written ``vpbo:key=value+key=value`` (values: ints, floats,
    true/false, or strings): ``preset`` names what the others change, ``default`` (the sampler's
    defaults, as ``vpbo``; the default) or a pinned reference (``v4``, ``paper``)."""
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
    return reference_settings(preset).replace(**fields)


def _parsed(raw: str) -> Any:
    """An int, a float, a bool (true/false) or the string itself."""
    for parse in (int, float):
        try:
            return parse(raw)
        except ValueError:
            continue
    return {"true": True, "false": False}.get(raw.lower(), raw)
