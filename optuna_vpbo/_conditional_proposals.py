"""Value proposals and search initialisation over the leaves of a conditional search space.

A leaf (the choices of the active categoricals and the numeric parameters they activate) is the
conditional counterpart of the VPBO paper's categorical combination: its value proposal is the
maximum of the acquisition over its active numeric parameters, the inactive ones held at their
imputed value (``_conditional_encoder``). Leaves that activate the same numeric parameters share
one native ``value_proposals`` call; all leaves share one set of Sobol points, each seeing it on
its own active dimensions. As in ``_proposals.propose``, the leaf is chosen on the candidates
alone, then its point is refined by L-BFGS-B, here within its active dimensions only.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from optuna_vpbo import _core
from optuna_vpbo._conditional_encoder import INACTIVE_FILL, ConditionalEncoder
from optuna_vpbo._init_design import N_MAX_VALUE_POINTS, N_MAX_VALUE_SAMPLES
from optuna_vpbo._proposals import Acquisition, is_taken, refine
from optuna_vpbo._search_tree import Leaf

# How many of the best observed trials' leaves join a random sample of leaves when the tree has
# too many leaves to enumerate (as ``_combinations.N_SEED_TRIALS`` for combinations).
N_SEED_TRIALS = 5


@dataclasses.dataclass(frozen=True)
class LeafProposal:
    leaf: Leaf
    x: np.ndarray  # the numeric point, INACTIVE_FILL in the leaf's inactive dimensions
    x_candidate: np.ndarray  # the leaf's best candidate, before refinement
    value: float
    ranking: list[tuple[Leaf, float]]  # best leaves with their proposal values


@dataclasses.dataclass(frozen=True)
class _ActiveSubspace:
    """The acquisition as a function of one leaf's active dimensions, for ``_proposals.refine``."""

    acquisition: Acquisition
    template: np.ndarray  # a full point of the leaf
    active: np.ndarray  # indices of the active dimensions

    def embed(self, z: np.ndarray) -> np.ndarray:
        x = self.template.copy()
        x[self.active] = z
        return x

    def with_gradient(self, h_row: np.ndarray, z: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = self.acquisition.with_gradient(h_row, self.embed(z))
        return value, gradient[self.active]


def candidate_leaves(
    encoder: ConditionalEncoder, limit: int, rng: np.random.Generator, best_observed: list[Leaf]
) -> list[Leaf]:
    """Every leaf up to ``limit`` leaves; beyond, the leaves of the best observed trials
    (``best_observed``, best first) and ``limit`` leaves drawn as random sampling would."""
    leaves = encoder.tree.leaves(limit)
    if leaves is not None:
        return leaves
    sampled = [encoder.tree.random_leaf(rng) for _ in range(limit)]
    return list(dict.fromkeys([*best_observed[:N_SEED_TRIALS], *sampled]))


def propose_leaf(
    acquisition: Acquisition,
    encoder: ConditionalEncoder,
    leaves: list[Leaf],
    candidates: np.ndarray,
    *,
    n_refine: int,
    observed_h: np.ndarray,
    observed_x: np.ndarray,
    taken_h: np.ndarray,
    taken_x: np.ndarray,
    n_ranking: int,
) -> LeafProposal:
    """Value proposals for all ``leaves`` on the Sobol ``candidates`` (m x d, in [0, 1]) and the
    chosen point, refined as ``_proposals.propose`` refines (observed points best first; a
    refined point that is already evaluated or pending is not taken). Ties go to the earlier leaf."""
    values = np.full(len(leaves), -math.inf)
    best_x = np.zeros((len(leaves), encoder.n_numeric))
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, leaf in enumerate(leaves):
        groups.setdefault(leaf.numerics, []).append(i)
    for members in groups.values():
        active = encoder.active_numerics(leaves[members[0]])
        group_candidates = encoder.snap(candidates, active)
        rows = np.array([encoder.leaf_codes(leaves[i]) for i in members], dtype=np.int32)
        best_index, group_values = _core.value_proposals(
            acquisition.objective, rows, group_candidates, acquisition.best, acquisition.constraints
        )
        values[members] = group_values
        best_x[members] = group_candidates[best_index]
    order = np.argsort(-values, kind="stable")
    chosen = int(order[0])
    leaf, x, value = leaves[chosen], best_x[chosen], float(values[chosen])
    x_candidate = x
    mask = encoder.active_numerics(leaf)
    active = np.flatnonzero(mask)
    if len(active) and n_refine > 0 and math.isfinite(value):
        h = encoder.leaf_codes(leaf)
        same_leaf = np.all(observed_h == h, axis=1)
        taken = taken_x[np.all(taken_h == h, axis=1)]
        subspace = _ActiveSubspace(acquisition, x.copy(), active)

        def snap(z: np.ndarray) -> np.ndarray:
            return encoder.snap(subspace.embed(z[0]).reshape(1, -1), mask)[:, active]

        for x0 in [x, *observed_x[same_leaf][: n_refine - 1]]:
            # ``refine`` only calls ``with_gradient``, which the subspace provides.
            z, value_refined = refine(subspace, h, x0[active], snap)  # type: ignore[arg-type]
            x_refined = subspace.embed(z)
            if value_refined > value and not is_taken(taken, x_refined):
                x, value = x_refined, value_refined
    ranking = [(leaves[i], float(values[i])) for i in order[:n_ranking]]
    return LeafProposal(leaf, np.asarray(x, dtype=np.float64), x_candidate, value, ranking)


def leaf_max_value_samples(
    gp: _core.MixedGP,
    encoder: ConditionalEncoder,
    observed_h: np.ndarray,
    observed_x: np.ndarray,
    max_observed: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Gumbel samples of the maximum of f (``_init_design.max_value_samples``) over random points
    of random leaves and the data."""
    leaves = [encoder.tree.random_leaf(rng) for _ in range(N_MAX_VALUE_POINTS)]
    h = np.array([encoder.leaf_codes(leaf) for leaf in leaves], dtype=np.int32).reshape(-1, encoder.n_categorical)
    x = rng.random((N_MAX_VALUE_POINTS, encoder.n_numeric))
    active = np.array([encoder.active_numerics(leaf) for leaf in leaves], dtype=bool).reshape(x.shape)
    x[~active] = INACTIVE_FILL
    mean, variance = gp.predict(np.vstack([h, observed_h]), np.vstack([x, observed_x]))
    uniforms = rng.random(N_MAX_VALUE_SAMPLES)
    return _core.sample_max_values_gumbel(mean, np.sqrt(variance), uniforms, max_observed)
