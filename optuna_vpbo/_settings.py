"""The algorithm's settings (``VPBOSampler(settings=...)``), validated, and the named presets."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from optuna_vpbo._flat_dimensions import FLAT_DIMENSIONS
from optuna_vpbo._init_design import DESIGN_ROWS
from optuna_vpbo._output_transforms import validate_output_transform
from optuna_vpbo._priors import negative_log_prior
from optuna_vpbo._repeat_policy import COMPLETE_REPEATS
from optuna_vpbo._trial_states import FAILED_TRIALS, PRUNED_TRIALS
from optuna_vpbo.search_space import SAME_VALUE_FRACTION

MULTI_OBJECTIVE_METHODS = ("ehvi", "parego")


@dataclasses.dataclass(frozen=True)
class VPBOSettings:
    """The settings of the algorithm, given as ``VPBOSampler(settings=VPBOSettings(...))``.

    ``VPBOSettings()`` holds the defaults (chosen on the tuning half of the broad suite and the
    paper suite: docs/decisions.md, "Robust defaults" and "Every seed");
    ``VPBOSettings.paper()`` the paper's algorithm (Zuo et al., sec. 5). Change some fields of
    either with ``replace``, e.g. ``VPBOSettings.paper().replace(n_refine=3)``. Every field is
    checked when the object is made: a value of the wrong type raises TypeError, a value out of
    range or an unknown name ValueError.

    Attributes:
        n_startup_trials: Size of the initial design: value proposals start once this many trials
            are finished (complete, and pruned or failed unless ``pruned_trials`` /
            ``failed_trials`` ignore them). Its first ``n_startup_trials // 2`` trials (all of them without
            ``search_initialization``) come from the independent sampler. The constructor's
            ``n_startup_trials``, when given, replaces this value.
        search_initialization: Choose the numeric part of the second half of the initial design by
            Max-value Entropy Search on a random combination; False: the whole initial design is
            random.
        n_candidates: Scrambled Sobol numeric candidates drawn per trial and shared by all
            combinations: a combination's value proposal is the best acquisition value among them.
        n_refine: L-BFGS-B refinement of the numeric point of the chosen combination (0: none).
            With one objective (and with ParEGO) up to ``n_refine`` runs: from the best candidate
            and from up to ``n_refine - 1`` observed points of that combination, best first. With
            log EHVI any positive value gives up to 17 runs: from the best candidate and from up to
            16 of the combination's points on the observed Pareto front.
        discrete_line_search: After the L-BFGS-B refinement (``n_refine`` > 0), search each int
            and stepped dimension of the refined point on its grid in turn, the others fixed,
            until no dimension moves (``_proposals.line_search``): the rounded optimum of the
            continuous relaxation is not always the best grid point of the acquisition. Off by
            default: on 19 problems with ints it found better grid points and no better results
            (docs/decisions.md, "A discrete line search, flat dimensions, and what a stuck seed
            costs").
        flat_dimensions: ``"draw"``: a numeric dimension of the chosen point whose lengthscale
            is at least 2 (the unit box is 1 wide) and along which the posterior mean moves less
            than the fitted noise's standard deviation is drawn uniformly instead of optimised
            (``_flat_dimensions``): the model has no evidence that it matters, and the
            acquisition's maximiser along it is an extrapolation to the box's faces. With one
            objective or ParEGO and no feasibility model (constraints, or the success model of
            failed trials). Off by default: it helps where a study keeps proposing a
            parameter's bounds and was no better on problems it was not chosen on
            (docs/decisions.md, "Flat dimensions drawn, not optimised"). ``"optimise"`` (the
            paper's): every dimension is optimised.
        refit_interval: Refit the GP hyperparameters every this many complete trials; beyond 300
            trials once the data grew by 5 % since the last fit, and at least this many apart.
        early_refits: While n / 10 is below ``refit_interval``, refit every n / 10 complete
            trials (every trial up to 20), as fits on few points say little about later ones.
        hyperparameter_prior: The fit maximises the likelihood times this prior:
            ``"dimension-scaled"`` (LogNormal lengthscales scaled with the dimension, Hvarfner et
            al. 2024) or ``"none"`` (maximum likelihood, the paper's; try it when the optimum is a
            narrow basin in a flat region).
        stall_trials: Stall safeguard (0: off): once the best trial is at least this many
            complete trials old, every odd-numbered trial (fewer with ``stall_backoff``, none
            in a covered flat space: ``stall_coverage``) proposes only among the combinations
            (leaves) observed least, so that a branch the model wrote off early is tried again.
            Has no effect on studies that use log EHVI (2-3 objectives).
        stall_backoff: In a flat space (no conditional parameters) the stall safeguard reads its
            own record (0: it does not): each run of this many exploring trials in a row that did
            not beat the best trial before them halves how often a stalled study explores (every
            2nd, 4th, 8th ... trial), and an exploring trial that beat it restores every other
            trial (``_stall``). A conditional space keeps every other trial: its least observed
            leaves are branches the model may have written off on a few points. Try 10 where the
            best combination is found early and its numeric part is what is left to refine
            (docs/decisions.md, "The stall safeguard reads its own record").
        stall_coverage: In a flat space (no conditional parameters) the stall safeguard stops
            exploring once the space is covered (0: never): when every combination has at least
            ``stall_coverage * (d + 1)`` observed trials (d numeric dimensions), no combination
            is left that the model has seen on only a few points, and a stalled study's
            exploring trials propose among all combinations (``_stall.covered``). It acts on
            small spaces late in a study (the paper suite's Func2C and Reizman-Suzuki problems),
            where the exploring trials take every other trial from refining the incumbent and
            almost never pay: there it halved the failing envelope cells of the paper suite, and
            on no problem it acted on was it worse by two standard errors (docs/decisions.md,
            "The stall safeguard stops where the space is covered").
        stall_tolerance: In a conditional space, an improvement of the best trial smaller than
            this fraction of the range of the complete trials' targets does not make the study
            less stalled (0: every improvement does): a study that refines one leaf's optimum in
            the last digits is as stalled as one that repeats it (``_stall.stall_age``). Without
            it, a deterministic study that never proposes a complete point again
            (``complete_repeats``) refined conditional_trap's flat trap by steps of a millionth
            and never explored the other branches (docs/decisions.md, "A stall that ignores the
            last digits"). A flat space counts every improvement: its stalled trials perturb the
            incumbent and stop exploring once it is covered.
        stall_perturbation: In a flat space, a stalled study (as for ``stall_trials``) proposes on
            every trial whose number is a multiple of 4 (with ``perturbation_spent_z``, only once
            the model's own proposal for it has no chance left) its incumbent with one active
            numeric coordinate drawn uniformly: a float or int stuck in a local minimum the model
            believes in (a face of the box) is tried elsewhere (``_stall``; docs/decisions.md,
            "Stalled trials perturb the incumbent"). A conditional space, and a study that uses
            log EHVI, do not; the draw reads no feasibility model (constraints, failed trials).
        perturbation_spent_z: Opt-in gate on ``stall_perturbation`` (``math.inf``, the default:
            no gate): a stalled trial perturbs only when the model's own expected improvement is
            spent, its proposal's predicted mean more than ``-z`` of its standard deviations
            below the incumbent's target (z below this). Where the model still sees a chance (a
            found basin refined in small steps, a curved valley) the trial proposes as usual. Try
            -2.0 on smooth problems whose last digits matter; it gives back part of the
            perturbation's gains on plateaus and rugged landscapes (docs/decisions.md, "A
            perturbation that waits until the model's improvement is spent").
        perturbation_backoff: The stall perturbation reads its own record (0: off): each run of
            this many perturbing trials in a row that did not beat the best trial before them
            doubles the perturbation's period (every 4th trial, then 8th, ...), and a perturbing
            trial that did resets it: where the model refines the incumbent and a draw of one
            coordinate no longer pays (a paper-suite study late on), the trial returns to the
            model (``_stall``; docs/decisions.md, "Perturbations that do not pay back off").
        random_interval: Opt-in (0, the default: none): one trial in this many is random after
            the initial design: on every trial whose number is ``random_interval - 1`` modulo
            ``random_interval`` the independent sampler draws every parameter, as SMAC interleaves
            random configurations with its model's (``_interleaving``). A model that believes in a
            wrong basin still receives points from the whole space, at a known price. Try 8 where
            a run that settles on a wrong combination costs more than a slower start: on the
            lab's mixed problems it left fewer runs stuck, but started slower and lost on a
            rugged numeric landscape (docs/decisions.md, "Random trials interleaved with the
            model's").
        design_rows: How the second half of the initial design chooses its categorical rows:
            ``"random"`` (the paper's: a uniform random combination), or ``"balanced"``: among
            random rows, the one whose categorical values the study has taken least often
            (``_init_design.design_row``), so that the design sees every value of a small
            categorical before the value proposals start. Opt-in: it found conditional_trap's
            branch more often (40 seeds) and left fewer target cells failing on the paper suite;
            its other gains on the lab's tuning set did not hold on 20 more seeds, it was even on
            the held-out sets and a few per cent behind on the rest of the tuning half
            (docs/decisions.md, "Balanced design rows" and "The ledger, and three more ways out
            of a wrong combination").
        n_restarts: L-BFGS-B starts per hyperparameter fit, one of them warm-started from the
            previous fit; beyond 300 trials a refit starts from the previous fit alone.
        max_enumerated_combinations: Up to this many categorical combinations (leaves of a
            conditional space), every one is a candidate for a value proposal; above, a random
            sample of this many plus the combinations of the 5 best trials and, in a flat space,
            their one-change neighbours. A flat space's set of more than 512 combinations is
            screened first: each is scored on 64 of the candidates, and the 128 best plus the
            one-change neighbours of the 4 best get full value proposals. Log EHVI is used up to
            ``min(512, max_enumerated_combinations)`` combinations.
        output_transform: How objective values become the GP's targets: ``"yeo-johnson"``
            (standardise, a Yeo-Johnson power transform with its exponent fitted by maximum
            likelihood, standardise again) or ``"standardize"`` (the paper's).
        multi_objective: ``"ehvi"``: a study with 2 or 3 objectives gets one GP per objective and
            value proposals by log expected hypervolume improvement, when the space has at most
            ``min(512, max_enumerated_combinations)`` combinations or leaves; more objectives,
            larger spaces and the MES half of the initial design use ParEGO (a random augmented
            Chebyshev scalarisation per trial, one GP on it). ``"parego"``: ParEGO always.
        pruned_trials: ``"impute"``: a pruned trial joins the objective GP at a pessimistic final
            value imputed from its last intermediate value (single objective), and counts toward
            the initial design; ``"curve-<map>[-bound]"`` (``map`` linear or rank): at the final
            value its curve predicts, with the prediction's variance as extra noise of its
            observation, truncated at the pruner's bar with ``-bound``; ``"ignore"`` (the
            paper's): complete trials only (docs/pruning-and-failures.md).
        failed_trials: What a trial that failed in the objective (an exception, a NaN) teaches:
            ``"both"``: it joins the objective GP at the upper quartile of the complete values and
            a success GP adds log P(success) to the acquisition; ``"impute"`` or ``"classify"``:
            one of the two; ``"ignore"`` (the paper's): nothing. Failed trials count toward the
            initial design unless ignored. Either way, a pruned or failed configuration is not
            proposed again while the space has other points.
        complete_repeats: ``"when-noisy"``: a complete configuration is proposed again only when
            the study shows a noisy objective (no configuration evaluated twice gave the same value
            twice, and the fitted noise is at least a tenth of the GP's variance) and its
            acquisition is the best; else, after the random part of the initial design, not while
            the candidates hold another point (``_repeat_policy``; the diagnostics' ``repeats_trial``
            names the trial a repeat repeats). ``"allowed"`` (the paper's): as any other point.
        complete_repeat_fraction: In a flat space, a point repeats a complete trial when its
            continuous floats are within this fraction of their (log) range of the trial's and
            its other parameters equal (the refinement near an incumbent at a bound needs a
            fine one); a conditional space, and every pruned or failed trial, take
            ``search_space.SAME_VALUE_FRACTION`` (1e-4: refining one leaf's optimum there kept
            resetting the stall safeguard's age; docs/decisions.md, "A complete trial's
            tolerance").
    """

    n_startup_trials: int = 16
    search_initialization: bool = True
    n_candidates: int = 512
    n_refine: int = 3
    discrete_line_search: bool = False
    flat_dimensions: str = "optimise"
    refit_interval: int = 10
    early_refits: bool = True
    hyperparameter_prior: str = "dimension-scaled"
    stall_trials: int = 10
    stall_backoff: int = 0
    stall_coverage: int = 1
    stall_tolerance: float = 1e-6
    stall_perturbation: bool = True
    perturbation_spent_z: float = math.inf
    perturbation_backoff: int = 4
    random_interval: int = 0
    design_rows: str = "random"
    n_restarts: int = 3
    max_enumerated_combinations: int = 4096
    output_transform: str = "yeo-johnson"
    multi_objective: str = "ehvi"
    pruned_trials: str = "impute"
    failed_trials: str = "both"
    complete_repeats: str = "when-noisy"
    complete_repeat_fraction: float = 1e-9

    @classmethod
    def paper(cls) -> VPBOSettings:
        """The paper's algorithm (sec. 5): 24 initial points (12 random, 12 MES), 200 candidates,
        no refinement of x, maximum-likelihood refits every 10 trials from 5 starts, standardised
        objective values."""
        return PRESETS["paper"]

    def replace(self, **changes: Any) -> VPBOSettings:
        """A copy with ``changes`` (field names), validated like a new object."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise TypeError(f"VPBOSettings has no field {', '.join(unknown)}; its fields: {', '.join(field_names())}.")
        return dataclasses.replace(self, **changes)

    @property
    def n_random_startup_trials(self) -> int:
        """The random part of the initial design: half of it with search initialisation."""
        return self.n_startup_trials // 2 if self.search_initialization else self.n_startup_trials

    def __post_init__(self) -> None:
        for name in ("n_candidates", "refit_interval", "n_restarts", "max_enumerated_combinations"):
            _check_int(name, getattr(self, name), minimum=1)
        for name in (
            "n_startup_trials", "n_refine", "stall_trials", "stall_backoff", "stall_coverage", "perturbation_backoff",
            "random_interval",
        ):
            _check_int(name, getattr(self, name), minimum=0)
        for name in ("search_initialization", "early_refits", "discrete_line_search", "stall_perturbation"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool, got {getattr(self, name)!r}.")
        for name in (
            "flat_dimensions",
            "hyperparameter_prior",
            "output_transform",
            "multi_objective",
            "pruned_trials",
            "failed_trials",
            "complete_repeats",
            "design_rows",
        ):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str, got {getattr(self, name)!r}.")
        spent_z = self.perturbation_spent_z
        if isinstance(spent_z, bool) or not isinstance(spent_z, (int, float)) or math.isnan(spent_z):
            raise TypeError(f"perturbation_spent_z must be a number (math.inf: no gate), got {spent_z!r}.")
        object.__setattr__(self, "perturbation_spent_z", float(spent_z))
        for name in ("stall_tolerance", "complete_repeat_fraction"):
            fraction = getattr(self, name)
            if isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
                raise TypeError(f"{name} must be a number, got {fraction!r}.")
            if not 0.0 <= fraction < 1.0:
                raise ValueError(f"{name} must be in [0, 1), got {fraction!r}.")
            object.__setattr__(self, name, float(fraction))
        validate_output_transform(self.output_transform)
        negative_log_prior(self.hyperparameter_prior)
        if self.multi_objective not in MULTI_OBJECTIVE_METHODS:
            raise ValueError(
                f"multi_objective must be one of {MULTI_OBJECTIVE_METHODS}, got {self.multi_objective!r}."
            )
        for name, choices in (
            ("flat_dimensions", FLAT_DIMENSIONS),
            ("pruned_trials", PRUNED_TRIALS),
            ("failed_trials", FAILED_TRIALS),
            ("complete_repeats", COMPLETE_REPEATS),
            ("design_rows", DESIGN_ROWS),
        ):
            if getattr(self, name) not in choices:
                raise ValueError(f"{name} must be one of {choices}, got {getattr(self, name)!r}.")


def field_names() -> list[str]:
    return [f.name for f in dataclasses.fields(VPBOSettings)]


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}.")
    if value < minimum:
        kind = "a positive integer" if minimum == 1 else "a non-negative integer"
        raise ValueError(f"{name} must be {kind}, got {value!r}.")


PRESETS: dict[str, VPBOSettings] = {
    # The paper's settings (sec. 5): 24 initial points (12 random + 12 MES), 200 uniform
    # candidates per combination with no local refinement, maximum-likelihood refits every 10
    # trials from 5 starts.
    "paper": VPBOSettings(
        n_startup_trials=24,
        n_candidates=200,
        n_refine=0,
        discrete_line_search=False,
        flat_dimensions="optimise",
        early_refits=False,
        hyperparameter_prior="none",
        n_restarts=5,
        output_transform="standardize",
        stall_trials=0,
        stall_backoff=0,
        stall_coverage=0,
        stall_tolerance=0.0,
        stall_perturbation=False,
        perturbation_backoff=0,
        random_interval=0,
        design_rows="random",
        pruned_trials="ignore",
        failed_trials="ignore",
        complete_repeats="allowed",
        complete_repeat_fraction=SAME_VALUE_FRACTION,
    ),
    "default": VPBOSettings(),
}
