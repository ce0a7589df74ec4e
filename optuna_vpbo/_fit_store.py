"""The last fitted hyperparameters of a long study's models, kept in the study's system
attributes: a new process on the study (a restart, another worker) starts from them instead of
fitting from scratch, which at n = 1,000 took 11 s (docs/decisions.md, "Long studies")."""

from __future__ import annotations

import hashlib
import json

import numpy as np
from optuna.study import Study

from optuna_vpbo import _optuna_compat
from optuna_vpbo._fit import GPHyperparameters
from optuna_vpbo._pending import SYSTEM_ATTR_MAX_LENGTH

FIT_KEY_PREFIX = "vpbo:fit:"


def attribute_name(key: tuple[str, ...]) -> str:
    """The system attribute of a model key (a digest: keys hold whole search spaces)."""
    return FIT_KEY_PREFIX + hashlib.sha256(repr(key).encode()).hexdigest()[:32]


class StudyFitStore:
    """A ``FitStore`` (``_fit``) in one study's system attributes: ``{"n": observations of the
    fit, "theta": GPHyperparameters.to_theta(), "n_relevances": how many of theta's entries are
    categorical relevances}`` as JSON (no "n_relevances": none)."""

    def __init__(self, study: Study) -> None:
        self._study = study

    def load(self, key: tuple[str, ...]) -> tuple[int, GPHyperparameters] | None:
        """The stored fit of ``key``; None if there is none or it is not a valid fit (written by
        another version: the model is then fitted from scratch)."""
        text = _optuna_compat.get_study_system_attrs(self._study).get(attribute_name(key), "")
        try:
            record = json.loads(text)
            n_observations, theta = int(record["n"]), np.asarray(record["theta"], dtype=np.float64)
            n_relevances = int(record.get("n_relevances", 0))
        except (TypeError, ValueError, KeyError, AttributeError):
            return None
        if theta.ndim != 1 or not 0 <= n_relevances <= len(theta) - 3 or not np.all(np.isfinite(theta)):
            return None
        return n_observations, GPHyperparameters.from_theta(theta, n_relevances)

    def save(self, key: tuple[str, ...], n_observations: int, hyperparameters: GPHyperparameters) -> None:
        """Store the fit unless it is too long for a system attribute (hundreds of parameters)."""
        record = {"n": int(n_observations), "theta": hyperparameters.to_theta().tolist()}
        if hyperparameters.n_relevances:
            record["n_relevances"] = hyperparameters.n_relevances
        text = json.dumps(record)
        if len(text) <= SYSTEM_ATTR_MAX_LENGTH:
            _optuna_compat.set_study_system_attr(self._study, attribute_name(key), text)
