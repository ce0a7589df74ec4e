"""The final held-out set: eight new problems, written after the adapt held-out set
had been run and before the defaults it checks are frozen, to be run once, last.

The rule that chose them (in full: docs/suite.md, "The final held-out set"):
1. New: no re-parametrisation of any problem the project has (the paper's, the broad suite, the
   fresh and adapt held-out sets, the numeric group, the pruning and trial-state tasks); base
   functions the project has not used (Shubert, Weierstrass, Qing, Dixon-Price, Goldstein-Price,
   Sandgren's pressure vessel, a compiler-settings cost model, Salomon, Easom) and new ways for
   the categoricals and ints to act.
2. The roles: MULTIMODAL mixed problems (shubert_pairs: three categoricals, four floats;
   weierstrass_grain; parity_branches; qing_powers; skewed_salomon), an int deciding the branch
   (parity_branches: by its parity), hierarchical engineering (vessel_hierarchy, stepped floats),
   floats and ints only (qing_powers), a deterministic int-only space of 320 points
   (flag_cliffs), noise (skewed_salomon), a plateau (capped_easom); log-scaled floats in four.
3. A known optimum: every combination's best stated by construction, closed form or bounded
   enumeration, the best combination unique by more than 0.005; the tests check each by an
   independent search. 4. Random tables from np.random.default_rng(2711 ... 2718), the seed of
   the problem's place in the set, drawn once.

The rule of use: no sampler study (VPBO or any peer) runs on these problems until the
defaults are frozen; the tests run only random trials and direct evaluations.

This module is the set; :mod:`.registry` registers its problems with every other family's, and
its group ``final_held_out``. The problems are in :mod:`.final_landscapes` and
:mod:`.final_structures`, each a :class:`~.specs.FreshProblem`: ``value(params)`` is noiseless and
vectorised over the numeric parameters (arrays broadcast; the categorical and branch-deciding
ones are scalars); ``suggest(trial)`` is define-by-run. The noise of ``skewed_salomon`` is a
centred gamma (:func:`observation_noise`), not the suite's Gaussian noise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping

from optuna.trial import BaseTrial

from vpbo_benchmarks.final_landscapes import parity_branches, qing_powers, shubert_pairs, weierstrass_grain
from vpbo_benchmarks.final_structures import SS_GAMMA_SHAPE, capped_easom, flag_cliffs, skewed_salomon, vessel_hierarchy
from vpbo_benchmarks.problem import Problem, noise_generator
from vpbo_benchmarks.specs import FreshProblem, SuiteSpec, fresh_objective, fresh_spec, spec_problem

FINAL_HELD_OUT_PROBLEMS: tuple[FreshProblem, ...] = (
    shubert_pairs(), weierstrass_grain(), qing_powers(), parity_branches(),
    vessel_hierarchy(), flag_cliffs(), skewed_salomon(), capped_easom(),
)
PROBLEMS_BY_NAME: Mapping[str, FreshProblem] = {p.name: p for p in FINAL_HELD_OUT_PROBLEMS}
MULTIMODAL: tuple[str, ...] = ("shubert_pairs", "weierstrass_grain", "qing_powers", "parity_branches", "skewed_salomon")
NOISE_SALT = 2719  # keeps this set's noise draws apart from another set's at the same trial and parameters


def observation_noise(trial: BaseTrial, sd: float) -> float:
    """Centred gamma noise of sd ``sd`` ((Gamma(k) - k) / sqrt k, k = SS_GAMMA_SHAPE: mean 0, a
    long upper tail), drawn from the trial's ``problem.noise_generator`` salted with NOISE_SALT."""
    draw = float(noise_generator(trial, NOISE_SALT).gamma(SS_GAMMA_SHAPE))
    return sd * (draw - SS_GAMMA_SHAPE) / math.sqrt(SS_GAMMA_SHAPE)


# The Optuna objective: the noiseless value, or for a noisy problem the value plus its centred gamma noise
# (the noiseless value then goes to the user attribute NOISELESS_ATTR).
make_objective = functools.partial(fresh_objective, noise=observation_noise)


FINAL_SPECS: Mapping[str, SuiteSpec] = {p.name: fresh_spec(p, make_objective) for p in FINAL_HELD_OUT_PROBLEMS}
FINAL_HELD_OUT: tuple[str, ...] = tuple(FINAL_SPECS)


def build_problem(name: str) -> Problem:
    """The :class:`~.problem.Problem` of final held-out problem ``name`` (minimised)."""
    return spec_problem(FINAL_SPECS[name], "final held-out")


PROBLEMS: Mapping[str, Callable[[], Problem]] = {name: functools.partial(build_problem, name) for name in FINAL_SPECS}
