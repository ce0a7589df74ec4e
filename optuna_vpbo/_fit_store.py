"""The last fitted hyperparameters of a long study's models, kept in the study's system
attributes: a new process on the study (a restart, another worker) starts from them instead of
fitting from scratch, which at n = 1,000 took 11 s (docs/decisions.md, "Long studies").

A stored fit carries the version of what gives it a meaning (the hyperparameter layout and the
priors): a fit stored by another version, or before versions were stored, is refitted, not read
as a vector of a plausible length (docs/decisions.md, "One hyperparameter layout, stored fits with a version"). A stored fit
is not trusted (``_stored``): one whose fields are not of its layout, or whose hyperparameters
are not finite inside the fit's bounds, is refitted too, with a warning."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
from optuna.study import Study

from optuna_vpbo import _optuna_compat, _stored
from optuna_vpbo._fit import GPHyperparameters, theta_bounds
from optuna_vpbo._hyperparameters import LAYOUT_VERSION, HyperparameterLayout, hyperparameter_layout
from optuna_vpbo._priors import PRIORS_VERSION
from optuna_vpbo._stored import SYSTEM_ATTR_MAX_LENGTH, Expected, Invalid

FIT_KEY_PREFIX = "vpbo:fit:"
STORED_FIT_VERSION = f"layout-{LAYOUT_VERSION}/priors-{PRIORS_VERSION}"
# Bounds of a stored record's counts (a record fits in one system attribute: ~1,000 numbers).
MAX_OBSERVATIONS = 10**9
MAX_BLOCK_SIZE = 1024
# How far (in log space) a stored hyperparameter may lie beyond the fit's bound: the round-off
# of exp then log.
BOUND_TOLERANCE = 1e-9


def attribute_name(key: tuple[str, ...]) -> str:
    """The system attribute of a model key (a digest: keys hold whole search spaces)."""
    return FIT_KEY_PREFIX + hashlib.sha256(repr(key).encode()).hexdigest()[:32]


class StudyFitStore:
    """A ``FitStore`` (``_fit``) in one study's system attributes: ``{"version":
    STORED_FIT_VERSION, "n": observations of the fit, "n_numeric": its lengthscales, "theta":
    GPHyperparameters.to_theta()}`` as JSON. A record with ``"n_relevances"`` (categorical
    relevances, stored by releases that had them) is of another layout: refitted, not read."""

    def __init__(self, study: Study) -> None:
        self._study = study

    def load(self, key: tuple[str, ...]) -> tuple[int, GPHyperparameters] | None:
        """The stored fit of ``key``; None if there is none, it is of another version or it is
        not a valid fit (``valid_fit``; the model is then fitted from scratch)."""
        name = attribute_name(key)
        text = _optuna_compat.get_study_system_attrs(self._study).get(name)
        if text is None:
            return None
        try:
            return valid_fit(_stored.decode_json(text, SYSTEM_ATTR_MAX_LENGTH))
        except Invalid as error:
            owner = _stored.study_owner(self._study.study_name)
            _stored.ignore(name, f"{error}; the model is refitted", *owner, expected=isinstance(error, Expected))
            return None

    def save(self, key: tuple[str, ...], n_observations: int, hyperparameters: GPHyperparameters) -> None:
        """Store the fit unless it is too long for a system attribute (hundreds of parameters)."""
        layout = hyperparameters.layout
        record = {
            "version": STORED_FIT_VERSION,
            "n": int(n_observations),
            "n_numeric": layout.n_numeric,
            "theta": hyperparameters.to_theta().tolist(),
        }
        text = json.dumps(record)
        if len(text) <= SYSTEM_ATTR_MAX_LENGTH:
            _optuna_compat.set_study_system_attr(self._study, attribute_name(key), text)


def valid_fit(record: Any) -> tuple[int, GPHyperparameters]:
    """The number of observations and hyperparameters of a stored record, checked: of this
    version, counts bounded, theta of the record's layout, finite, inside the fit's bounds
    (``theta_bounds``) and finite again once decoded; ``Invalid`` (``Expected`` for another
    version) says why not."""
    if not isinstance(record, dict):
        raise Invalid(f"a stored fit must be a JSON object, got {_stored.quoted(record)}")
    if record.get("version") != STORED_FIT_VERSION:
        raise Expected(f"of version {_stored.quoted(record.get('version'))}, not {STORED_FIT_VERSION!r}")
    layout = record_layout(record)
    n_observations = _stored.integer(record.get("n"), 0, MAX_OBSERVATIONS, "n (the fit's observations)")
    values = record.get("theta")
    if not isinstance(values, list) or len(values) != layout.size:
        raise Invalid(f"theta must be a list of {layout.size} numbers, got {_stored.quoted(values)}")
    theta = np.array([_stored.real(v, f"theta[{i}]") for i, v in enumerate(values)])
    lows, highs = np.array(theta_bounds(layout)).T
    outside = np.flatnonzero((theta < lows - BOUND_TOLERANCE) | (theta > highs + BOUND_TOLERANCE))
    if len(outside):
        i = int(outside[0])
        raise Invalid(f"theta[{i}] = {float(theta[i])!r} is outside the fit's bounds [{lows[i]:.4g}, {highs[i]:.4g}]")
    hyperparameters = GPHyperparameters.from_theta(theta, layout)
    decoded = [*hyperparameters.lengthscales, hyperparameters.variance, hyperparameters.noise]
    if not all(np.isfinite(decoded)) or min(decoded, default=1.0) <= 0:
        raise Invalid("the decoded hyperparameters are not finite and positive")
    return n_observations, hyperparameters


def record_layout(record: dict[str, Any]) -> HyperparameterLayout:
    """The hyperparameter layout a stored record claims (its theta must then be of this size); a
    record with categorical relevances (``n_relevances``, stored by releases that had them) is of
    another layout: ``Expected``, refitted."""
    n_numeric = _stored.integer(record.get("n_numeric"), 0, MAX_BLOCK_SIZE, "n_numeric")
    if _stored.integer(record.get("n_relevances", 0), 0, MAX_BLOCK_SIZE, "n_relevances"):
        raise Expected("of a layout with categorical relevances, which this release has not")
    return hyperparameter_layout(n_numeric)
