"""The field's combinatorial tasks: spaces far beyond enumeration, as MCBO defines them
(Dreczkowski et al., NeurIPS 2023; huawei-noah/HEBO, folder MCBO, ``mcbo/tasks``), and the problem
set ``combinatorial`` that holds them (:data:`COMBINATORIAL`, a :class:`~.specs.ProblemSet`: its problems,
the rule that chose them and the date it was frozen).

- ``pest_control``: MCBO's Pest Control (``tasks/synthetic/pest.py``, from COMBO), 25 stages each
  of 5 choices (0: no pesticide, 1-4: pesticides 1-4), 5^25 combinations. 100 simulated pest
  fractions start from Beta(1, 30); at each stage the share of them above 0.1 is counted, then they
  spread at a rate Beta(1, 17/3) or, where a pesticide is used, fall by its control rate
  Beta(1, b_k), whose b_k grows by the pesticide's tolerance rate / 25 at each use; a used
  pesticide costs its price less a volume discount (its maximal discount / 25 times the number of
  stages that use it). The score (minimised) is the total price plus the summed shares. As in MCBO's
  task, every Beta sample comes from a fresh ``np.random.RandomState(0)``: the objective is
  deterministic (the spread rates are the same draw at every stage). No known optimum; MCBO's
  trust-region methods end at 12.07 (pesticide 4 at stages 1-24, none at stage 25:
  :data:`PEST_CONTROL_BEST_KNOWN`).
- ``ackley_20x11``: MCBO's task ``ackley`` (``tasks/synthetic/sfu``), 20 unordered categoricals
  each with the 11 values ``linspace(-32.768, 32.768, 11)``, the standard Ackley (a = 20,
  b = 0.2, c = 2 pi) of the 20 chosen values; optimum 0 with every value at 0 (level 5). A
  categorical's choices are the level indices 0..10, level j standing for the j-th value (as
  Ackley-5C's levels do): the stored runs keep every choice that is not a float.
- ``ackley53``: MCBO's ``ackley-53`` (50 categoricals of the values {0, 1} and 3 floats in
  [-1, 1], Ackley of the 53 values) is the lab's registered ``ackley53``
  (:mod:`.synthetic_problems`), the same function on the same space; it is not registered again.

The rest of MCBO's benchmark needs external data or tools (XGBoost on MNIST, an SVM on a
regression data set, antibody design, RNA folding, EDA flows) and is not in the set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from optuna.trial import BaseTrial

from vpbo_benchmarks.problem import MINIMIZE, Problem, suggest_categoricals
from vpbo_benchmarks.specs import ProblemSet
from vpbo_benchmarks.suite_functions import ackley

# --------------------------------------------------------------------------------------------
# Pest Control (MCBO's tasks/synthetic/pest.py)
# --------------------------------------------------------------------------------------------

PEST_STAGES = 25
PEST_CHOICES: tuple[int, ...] = (0, 1, 2, 3, 4)  # 0: no pesticide; k: pesticide k
PEST_SIMULATIONS = 100
PEST_THRESHOLD = 0.1  # a stage counts the share of simulations whose pest fraction is above it
PEST_SEED = 0  # every Beta sample comes from a fresh RandomState of this seed
PEST_INITIAL_BETA = (1.0, 30.0)  # the initial pest fractions
PEST_SPREAD_BETA = (1.0, 17.0 / 3.0)  # the spread rate at a stage without pesticide
PEST_CONTROL_ALPHA = 1.0
# Per pesticide 1-4: the control rate's initial second Beta parameter, its growth (tolerance) per
# use before the division by the number of stages, the price and the maximal volume discount.
PEST_CONTROL_BETA = (2.0 / 7.0, 3.0 / 7.0, 3.0 / 7.0, 5.0 / 7.0)
PEST_TOLERANCE = (1.0 / 7.0, 2.5 / 7.0, 2.0 / 7.0, 0.5 / 7.0)
PEST_PRICE = (1.0, 0.8, 0.7, 0.5)
PEST_MAX_DISCOUNT = (0.2, 0.3, 0.3, 0.0)
# The best value MCBO's trust-region methods reach (5 of their 6 runs of 200 evaluations):
# pesticide 4 at stages 1-24, none at stage 25.
PEST_CONTROL_BEST_KNOWN_STAGES: tuple[int, ...] = (4,) * (PEST_STAGES - 1) + (0,)
PEST_CONTROL_BEST_KNOWN = 12.07  # pest_control(the stages above), exactly this float


def _beta_draws(a: float, b: float) -> np.ndarray:
    """PEST_SIMULATIONS samples of Beta(a, b) from a fresh RandomState(PEST_SEED), as MCBO draws
    every one of its samples."""
    return np.random.RandomState(PEST_SEED).beta(a, b, size=PEST_SIMULATIONS)


def pest_control(stages: Sequence[int]) -> float:
    """MCBO's Pest Control score of one choice per stage (0: none, k: pesticide k), minimised.

    The arithmetic is MCBO's, operation for operation (the same draws, the same order of the sums),
    so that a configuration's value is MCBO's to the last bit."""
    choices = [int(choice) for choice in stages]
    n_stages = float(len(choices))
    uses = [choices.count(k) for k in range(1, len(PEST_CHOICES))]
    control_beta = list(PEST_CONTROL_BETA)
    fraction = _beta_draws(*PEST_INITIAL_BETA)
    spread = _beta_draws(*PEST_SPREAD_BETA)  # a fresh RandomState: the same draw at every stage
    price_paid = 0.0
    above_threshold = 0.0
    for choice in choices:
        above_threshold += float(np.mean(fraction > PEST_THRESHOLD))
        if choice == 0:
            fraction = spread * (1.0 - fraction) + fraction
            continue
        k = choice - 1
        control = _beta_draws(PEST_CONTROL_ALPHA, control_beta[k])
        fraction = (1.0 - control) * fraction
        control_beta[k] += PEST_TOLERANCE[k] / n_stages
        price_paid += PEST_PRICE[k] * (1.0 - PEST_MAX_DISCOUNT[k] / n_stages * float(uses[k]))
    return price_paid + above_threshold


def _pest_control_objective(trial: BaseTrial) -> float:
    return pest_control(suggest_categoricals(trial, "stage", PEST_STAGES, PEST_CHOICES).tolist())


def _pest_control_problem() -> Problem:
    return Problem(
        name="pest_control",
        directions=(MINIMIZE,),
        optimum=None,
        n_combinations=len(PEST_CHOICES) ** PEST_STAGES,
        objective=_pest_control_objective,
        description=(
            "MCBO's Pest Control: 25 stages x 5 choices (0 none, 1-4 pesticides), price plus pests above 0.1, "
            "fixed-seed simulations (deterministic; best known 12.07) (minimise)"
        ),
    )


# --------------------------------------------------------------------------------------------
# Ackley 20 x 11 (MCBO's task "ackley")
# --------------------------------------------------------------------------------------------

ACKLEY_20X11_N_CATEGORICAL = 20
ACKLEY_20X11_BOUND = 32.768
# The 11 values of every categorical, exactly as MCBO lists them; level 5 is 0.0.
ACKLEY_20X11_VALUES: tuple[float, ...] = tuple(
    np.linspace(-ACKLEY_20X11_BOUND, ACKLEY_20X11_BOUND, 11).tolist()
)
ACKLEY_20X11_LEVELS: tuple[int, ...] = tuple(range(len(ACKLEY_20X11_VALUES)))


def ackley_20x11(levels: Sequence[int]) -> float:
    """Ackley of the values that the 20 levels (0..10) stand for."""
    return float(ackley(np.asarray(ACKLEY_20X11_VALUES)[np.asarray(levels, dtype=int)]))


def _ackley_20x11_objective(trial: BaseTrial) -> float:
    return ackley_20x11(suggest_categoricals(trial, "h", ACKLEY_20X11_N_CATEGORICAL, ACKLEY_20X11_LEVELS).tolist())


def _ackley_20x11_problem() -> Problem:
    return Problem(
        name="ackley_20x11",
        directions=(MINIMIZE,),
        optimum=0.0,
        n_combinations=len(ACKLEY_20X11_LEVELS) ** ACKLEY_20X11_N_CATEGORICAL,
        objective=_ackley_20x11_objective,
        description=(
            "MCBO's Ackley 20 x 11: Ackley of 20 unordered categoricals, level j = linspace(-32.768, 32.768, 11)[j] "
            "(minimise)"
        ),
    )


PROBLEMS: Mapping[str, Callable[[], Problem]] = {
    "pest_control": _pest_control_problem,
    "ackley_20x11": _ackley_20x11_problem,
}

COMBINATORIAL = ProblemSet(
    name="combinatorial",
    problems=("pest_control", "ackley_20x11", "ackley53"),
    rule=(
        "the synthetic tasks of MCBO's benchmark (NeurIPS 2023) as MCBO's code defines them, those that need no "
        "external data or tool: Pest Control, Ackley 20 x 11 and Ackley-53 (the lab's ackley53, the same function)"
    ),
    frozen="2026-12-02",
)
