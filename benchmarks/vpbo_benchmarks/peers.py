"""Peer samplers of the broad suite, registered in ``SAMPLER_FACTORIES``.

- ``tpe-auto``: TPE as OptunaHub's AutoSampler runs it on categorical or conditional spaces:
  ``TPESampler(multivariate=True, constant_liar=True)`` (optunahub-registry,
  package/samplers/auto_sampler/_sampler.py, ``_get_tpe_sampler``; AutoSampler switches to it as soon as the space has a
  categorical or the trials' parameter sets differ, before its first model-based trial).
- ``catcmawm``: CatCMA with margin (Hamano et al., GECCO 2025) from the ``cmaes`` package
  (``cmaes.CatCMAwM``), through :class:`~.peer_catcmawm.CatCMAwMSampler`, an ask-and-tell
  adapter; flat search spaces only (a conditional space raises ValueError).
- ``ax``: Ax's default generation strategy (Sobol initialisation, then BoTorch's modular BO with
  a mixed-variable GP) through Ax's ``Client`` API, by :class:`~.peer_ax.AxSampler`; flat search
  spaces only.

``catcmawm`` and ``ax`` need the lab's optional ``peers`` extra (cmaes; ``ax-platform``, which
brings BoTorch and PyTorch): their modules are named here and imported when one is made
(:mod:`.lazy`).

Every peer runs single-threaded (PyTorch's intra-op pool is set to one thread).
"""

from __future__ import annotations

from collections.abc import Callable

import optuna
from optuna.samplers import BaseSampler

from vpbo_benchmarks.lazy import deferred


def tpe_auto(seed: int) -> BaseSampler:
    """TPE with AutoSampler's settings for categorical and conditional spaces."""
    # AutoSampler also passes warn_independent_sampling=False, deprecated since Optuna 4.9: left out.
    return optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True)



PEER_FACTORIES: dict[str, Callable[[int], BaseSampler]] = {
    "tpe-auto": tpe_auto,
    "catcmawm": deferred("vpbo_benchmarks.peer_catcmawm", "CatCMAwMSampler"),
    "ax": deferred("vpbo_benchmarks.peer_ax", "AxSampler"),
}
