"""The adapt held-out set: eight new problems, written before the tuning of the defaults it checks.

The rule that chose them (in full: docs/suite.md, "The adapt held-out set"):
1. New: no re-parametrisation of a broad-suite, paper, fresh held-out or issue-27-quoted problem;
   base functions the project has not used (Gallagher's peaks, Michalewicz, Wendland holes,
   Drop-Wave, Zakharov, Bohachevsky, a roofline cost model, cantilever sizing, an error terrace)
   and new ways for the categoricals and ints to act.
2. The roles: MULTIMODAL problems (peak_field: three categoricals, four floats; michalewicz_gates;
   compact_foxholes; bit_branches), an int deciding the branch (bit_branches), hierarchical
   engineering (beam_hierarchy), floats and ints only (compact_foxholes), a deterministic int-only
   space of 384 points (tile_autotune), noise (noisy_batch), a plateau (plateau_steps).
3. A known optimum: every combination's best stated by construction, closed form or bounded
   enumeration, the best combination unique by more than 0.005; the tests check each by an
   independent search. 4. Random tables from np.random.default_rng(2701 ... 2708), drawn once.

The rule of use: no sampler study (VPBO or any peer) runs on these problems until the
defaults are frozen; the tests run only random trials and direct evaluations.

This module is the set; :mod:`.registry` registers its problems with every other family's, and
its group ``adapt_held_out``. The problems are in :mod:`.adapt_landscapes` and
:mod:`.adapt_structures`, each a :class:`~.specs.FreshProblem`: ``value(params)`` is noiseless and
vectorised over the numeric parameters (arrays broadcast; the categorical and branch-deciding
ones are scalars); ``suggest(trial)`` is define-by-run. The noise of ``noisy_batch`` is Student-t
(:func:`observation_noise`), not the suite's Gaussian noise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping

from optuna.trial import BaseTrial

from vpbo_benchmarks.adapt_landscapes import bit_branches, compact_foxholes, michalewicz_gates, peak_field
from vpbo_benchmarks.adapt_structures import NB_T_DOF, beam_hierarchy, noisy_batch, plateau_steps, tile_autotune
from vpbo_benchmarks.problem import Problem, noise_generator
from vpbo_benchmarks.specs import FreshProblem, SuiteSpec, fresh_objective, fresh_spec, spec_problem

ADAPT_HELD_OUT_PROBLEMS: tuple[FreshProblem, ...] = (
    peak_field(), michalewicz_gates(), compact_foxholes(), bit_branches(),
    beam_hierarchy(), tile_autotune(), noisy_batch(), plateau_steps(),
)
PROBLEMS_BY_NAME: Mapping[str, FreshProblem] = {p.name: p for p in ADAPT_HELD_OUT_PROBLEMS}
MULTIMODAL: tuple[str, ...] = ("peak_field", "michalewicz_gates", "compact_foxholes", "bit_branches")


def observation_noise(trial: BaseTrial, sd: float) -> float:
    """Student-t noise (NB_T_DOF dof) scaled to sd ``sd``, drawn from the trial's
    ``problem.noise_generator``."""
    draw = float(noise_generator(trial).standard_t(NB_T_DOF))
    return sd * draw / math.sqrt(NB_T_DOF / (NB_T_DOF - 2))


# The Optuna objective: the noiseless value, or for a noisy problem the value plus its Student-t noise
# (the noiseless value then goes to the user attribute NOISELESS_ATTR).
make_objective = functools.partial(fresh_objective, noise=observation_noise)


ADAPT_SPECS: Mapping[str, SuiteSpec] = {p.name: fresh_spec(p, make_objective) for p in ADAPT_HELD_OUT_PROBLEMS}
ADAPT_HELD_OUT: tuple[str, ...] = tuple(ADAPT_SPECS)


def build_problem(name: str) -> Problem:
    """The :class:`~.problem.Problem` of adapt held-out problem ``name`` (minimised)."""
    return spec_problem(ADAPT_SPECS[name], "adapt held-out")


PROBLEMS: Mapping[str, Callable[[], Problem]] = {name: functools.partial(build_problem, name) for name in ADAPT_SPECS}
