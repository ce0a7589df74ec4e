"""The last fitted hyperparameters of a long study's models, kept in the study's system
attributes: a new process on the study (a restart, another worker) starts from them instead of
fitting from scratch, which at n = 1,000 took 11 s (docs/decisions.md, "Long studies").

A stored fit carries the version of what gives it a meaning (the hyperparameter layout and the
priors): a fit stored by another version, or before versions were stored, is refitted, not read
as a vector of a plausible length (docs/decisions.md, "One hyperparameter layout")."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import optuna
from optuna.study import Study

from optuna_vpbo import _optuna_compat
from optuna_vpbo._fit import GPHyperparameters
from optuna_vpbo._hyperparameters import LAYOUT_VERSION, hyperparameter_layout
from optuna_vpbo._pending import SYSTEM_ATTR_MAX_LENGTH
from optuna_vpbo._priors import PRIORS_VERSION

FIT_KEY_PREFIX = "vpbo:fit:"
STORED_FIT_VERSION = f"layout-{LAYOUT_VERSION}/priors-{PRIORS_VERSION}"

_logger = optuna.logging.get_logger(__name__)


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
        not a valid fit (the model is then fitted from scratch)."""
        text = _optuna_compat.get_study_system_attrs(self._study).get(attribute_name(key), "")
        try:
            record = json.loads(text)
            version = record.get("version")
            if version != STORED_FIT_VERSION:
                name = attribute_name(key)
                _logger.debug(f"The stored fit {name} is of version {version!r}, not {STORED_FIT_VERSION!r}: refitted.")
                return None
            if record.get("n_relevances", 0):
                return None
            layout = hyperparameter_layout(int(record["n_numeric"]))
            n_observations, theta = int(record["n"]), np.asarray(record["theta"], dtype=np.float64)
        except (TypeError, ValueError, KeyError, AttributeError):
            return None
        if theta.shape != (layout.size,) or not np.all(np.isfinite(theta)):
            return None
        return n_observations, GPHyperparameters.from_theta(theta, layout)

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
