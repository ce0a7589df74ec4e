"""The paper's chemistry problems: Summit 0.8.9's experimental emulators (``reizman_suzuki_<case>``,
``reizman_suzuki_1_mo``, ``baumgartner``, ``baumgartner_mo``), evaluated with numpy
(:mod:`.emulators`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

from optuna.trial import BaseTrial

from vpbo_benchmarks import emulators
from vpbo_benchmarks.problem import MAXIMIZE, MINIMIZE, Direction, Objective, ObjectiveValue, Problem

# --------------------------------------------------------------------------------------------
# Chemistry: Summit 0.8.9 experimental emulators
# --------------------------------------------------------------------------------------------

YIELD = "yld"
TURNOVER_NUMBER = "ton"
BAUMGARTNER_YIELD_OPTIMUM = 1.0  # the clip bound of the yield, reached by 6 of the 12 pairs

# Baumgartner C-N cross-coupling cost (US$ per reaction), as defined in benchmarks.md.
TRIFLATE_MMOL = 0.91 * 0.040
ANILINE_EQUIVALENTS = 1.6
TRIFLATE_PRICE = 5.91  # $/mmol
ANILINE_PRICE = 0.01
CATALYST_EQUIVALENTS: Mapping[str, float] = {"tBuXPhos": 0.0095, "tBuBrettPhos": 0.0094, "AlPhos": 0.0094}
CATALYST_PRICE: Mapping[str, float] = {"tBuXPhos": 94.08, "tBuBrettPhos": 182.85, "AlPhos": 594.18}
BASE_PRICE: Mapping[str, float] = {"DBU": 0.03, "BTMG": 1.2, "TMG": 0.001, "TEA": 0.01}


def baumgartner_cost(catalyst: str, base: str, base_equivalents: float) -> float:
    """Reagent cost of one Baumgartner C-N cross-coupling experiment (triflate-limited)."""
    return (
        TRIFLATE_MMOL * TRIFLATE_PRICE
        + ANILINE_EQUIVALENTS * TRIFLATE_MMOL * ANILINE_PRICE
        + CATALYST_EQUIVALENTS[catalyst] * TRIFLATE_MMOL * CATALYST_PRICE[catalyst]
        + base_equivalents * TRIFLATE_MMOL * BASE_PRICE[base]
    )


def suggest_emulator_inputs(trial: BaseTrial, domain: emulators.EmulatorDomain) -> dict[str, Any]:
    """Suggest an emulator's inputs: categoricals as level strings, floats within the bounds."""
    params: dict[str, Any] = {
        v.name: trial.suggest_categorical(v.name, list(v.levels)) for v in domain.categorical
    }
    params.update({v.name: trial.suggest_float(v.name, v.low, v.high) for v in domain.continuous})
    return params


# Scores a point: (the suggested inputs, the emulator's predictions) -> the objective value(s).
Score = Callable[[Mapping[str, Any], Mapping[str, float]], ObjectiveValue]


def _emulator_objective(emulator_name: str, score: Score) -> Objective:
    """An objective that suggests the emulator's inputs and scores (inputs, predictions)."""
    emulator = emulators.load_emulator(emulator_name)

    def objective(trial: BaseTrial) -> ObjectiveValue:
        params = suggest_emulator_inputs(trial, emulator.domain)
        return score(params, emulator.predict_one(params))

    return objective


def _yield_only(params: Mapping[str, Any], prediction: Mapping[str, float]) -> float:
    return prediction[YIELD]


def _yield_and_ton(params: Mapping[str, Any], prediction: Mapping[str, float]) -> tuple[float, float]:
    return prediction[YIELD], prediction[TURNOVER_NUMBER]


def _yield_and_cost(params: Mapping[str, Any], prediction: Mapping[str, float]) -> tuple[float, float]:
    return prediction[YIELD], baumgartner_cost(params["catalyst"], params["base"], params["base_equivalents"])


def _chemistry_problem(
    name: str,
    emulator_name: str,
    directions: tuple[Direction, ...],
    score: Score,
    optimum: float | None,
    description: str,
) -> Problem:
    """A problem over an emulator's domain; one combination per tuple of categorical levels."""
    domain = emulators.load_emulator(emulator_name).domain
    return Problem(
        name=name,
        directions=directions,
        optimum=optimum,
        n_combinations=math.prod(len(v.levels) for v in domain.categorical),
        objective=_emulator_objective(emulator_name, score),
        description=description,
    )


def _reizman_problem(case: int, multi_objective: bool) -> Problem:
    emulator_name = f"reizman_suzuki_case_{case}"
    directions: tuple[Direction, ...]
    score: Score
    if multi_objective:
        name, directions, score = f"reizman_suzuki_{case}_mo", (MAXIMIZE, MAXIMIZE), _yield_and_ton
        what = "maximise yield (%) and turnover number as in the paper (Summit's domain marks ton minimise)"
    else:
        name, directions, score = f"reizman_suzuki_{case}", (MAXIMIZE,), _yield_only
        what = "maximise yield (%)"
    description = f"Reizman-Suzuki case {case}, Summit 0.8.9 emulator: {what}"
    return _chemistry_problem(name, emulator_name, directions, score, None, description)


def _baumgartner_problem(multi_objective: bool) -> Problem:
    directions: tuple[Direction, ...]
    score: Score
    if multi_objective:
        name, directions, score = "baumgartner_mo", (MAXIMIZE, MINIMIZE), _yield_and_cost
        what = "maximise yield, minimise reagent cost ($)"
    else:
        name, directions, score = "baumgartner", (MAXIMIZE,), _yield_only
        what = "maximise yield (optimum: clip value 1.0, a plateau)"
    description = f"Baumgartner C-N cross-coupling, Summit 0.8.9 emulator: {what}"
    return _chemistry_problem(
        name, emulators.BAUMGARTNER_ANILINE, directions, score, BAUMGARTNER_YIELD_OPTIMUM, description
    )


REIZMAN_CASES = (1, 2, 3, 4)

PROBLEMS: Mapping[str, Callable[[], Problem]] = {
    **{f"reizman_suzuki_{case}": functools.partial(_reizman_problem, case, False) for case in REIZMAN_CASES},
    "reizman_suzuki_1_mo": functools.partial(_reizman_problem, 1, True),
    "baumgartner": functools.partial(_baumgartner_problem, False),
    "baumgartner_mo": functools.partial(_baumgartner_problem, True),
}
