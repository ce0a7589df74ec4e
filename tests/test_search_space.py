"""The (h, x) encoding of Optuna distributions (optuna_vpbo/search_space.py).

Whatever the GP proposes must come back as a value that Optuna accepts for the distribution:
on its grid, inside its bounds, of the native Python type. Optuna silently drops a relative
value that its distribution does not contain and samples the parameter independently instead.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from optuna.distributions import (
    BaseDistribution,
    CategoricalChoiceType,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from optuna_vpbo.search_space import BOUND_MARGIN, MixedSpaceEncoder, _NumericScale

# Units that probe the ends of [0, 1], outside it, and the inside.
EDGE_UNITS = [0.0, 1.0, 1e-16, 1.0 - 1e-16, -0.25, 1.5]
N_RANDOM_UNITS = 2000

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # Optuna's note that it adjusts ``high``
    _ODD_STEP = FloatDistribution(0.0, 1.0, step=0.3)  # high becomes 0.9

NUMERIC_CASES: dict[str, FloatDistribution | IntDistribution] = {
    "float": FloatDistribution(-3.0, 5.0),
    "float_log": FloatDistribution(1e-7, 1.0, log=True),
    "float_log_inexact_low": FloatDistribution(1e-3, 10.0, log=True),
    "float_step": FloatDistribution(-1.0, 1.0, step=0.25),
    "float_step_tenth": FloatDistribution(-10.0, 10.0, step=0.1),
    # Used by Optuna's own conformance suite; low + n * step = 10.200000000000003 > high.
    "float_step_over_high": FloatDistribution(-10.2, 10.2, step=0.1),
    "float_step_over_high_2": FloatDistribution(0.1, 3.4, step=0.1),
    # low + n * step = 0.8999999999999999 < high: inside, but high itself never comes back.
    "float_step_under_high": _ODD_STEP,
    "int": IntDistribution(-5, 7),
    "int_log": IntDistribution(1, 1000, log=True),
    "int_log_two": IntDistribution(1, 2, log=True),
    "int_step": IntDistribution(0, 18, step=3),
    "int_step_odd_bounds": IntDistribution(3, 9, step=2),
}


def numeric_cases(*, grid_only: bool = False) -> list[object]:
    return [
        pytest.param(dist, id=name)
        for name, dist in NUMERIC_CASES.items()
        if not grid_only or _on_grid(dist)
    ]


def _on_grid(dist: FloatDistribution | IntDistribution) -> bool:
    return isinstance(dist, IntDistribution) or dist.step is not None


def grid_values(dist: FloatDistribution | IntDistribution) -> list[int | float]:
    """Every value of a grid distribution as Optuna's own samplers produce it (clipped to high)."""
    if isinstance(dist, IntDistribution):
        return list(range(dist.low, dist.high + 1, 1 if dist.log else dist.step))
    assert dist.step is not None  # a grid
    n = int(round((dist.high - dist.low) / dist.step))
    return [min(dist.low + k * dist.step, dist.high) for k in range(n)] + [dist.high]


def native_type(dist: BaseDistribution) -> type:
    return int if isinstance(dist, IntDistribution) else float


def contains(dist: BaseDistribution, value: object) -> bool:
    return bool(dist._contains(dist.to_internal_repr(value)))


@pytest.mark.parametrize("dist", numeric_cases())
def test_numeric_decode_is_inside_and_native(dist: FloatDistribution | IntDistribution) -> None:
    scale = _NumericScale.of(dist)
    units = np.concatenate([EDGE_UNITS, np.random.default_rng(0).random(N_RANDOM_UNITS)])
    outside = []
    for unit in units:
        value = scale.decode(unit)
        assert type(value) is native_type(dist), (unit, value, type(value))
        if not contains(dist, value):
            outside.append((float(unit), value))
    assert not outside, f"decoded values outside {dist}: {outside[:5]}"


@pytest.mark.parametrize("dist", numeric_cases())
def test_numeric_decode_of_bounds(dist: FloatDistribution | IntDistribution) -> None:
    scale = _NumericScale.of(dist)
    if isinstance(dist, IntDistribution) or dist.step is not None:
        # Grids keep their bounds; units outside [0, 1] (a refinement that overshoots) clamp there.
        assert scale.decode(0.0) == scale.decode(-0.5) == dist.low
        assert scale.decode(1.0) == scale.decode(1.5) == dist.high
        return
    # Continuous floats stay strictly inside, within BOUND_MARGIN of the (log) range.
    to_scale = np.log if dist.log else (lambda v: v)
    span = to_scale(dist.high) - to_scale(dist.low)
    for unit in (0.0, -0.5):
        assert dist.low < scale.decode(unit) and to_scale(scale.decode(unit)) - to_scale(dist.low) <= 1.01 * BOUND_MARGIN * span
    for unit in (1.0, 1.5):
        assert scale.decode(unit) < dist.high and to_scale(dist.high) - to_scale(scale.decode(unit)) <= 1.01 * BOUND_MARGIN * span


@pytest.mark.parametrize("dist", numeric_cases(grid_only=True))
def test_numeric_grid_round_trip(dist: FloatDistribution | IntDistribution) -> None:
    scale = _NumericScale.of(dist)
    mismatches = [(v, scale.decode(scale.encode(v))) for v in grid_values(dist)]
    mismatches = [(v, back) for v, back in mismatches if back != v or type(back) is not type(v)]
    assert not mismatches, f"decode(encode(v)) != v on the grid of {dist}: {mismatches[:5]}"


@pytest.mark.parametrize("dist", numeric_cases())
def test_numeric_encoding_is_monotone_in_unit_interval(dist: FloatDistribution | IntDistribution) -> None:
    scale = _NumericScale.of(dist)
    if _on_grid(dist):
        values = grid_values(dist)
    else:
        values = sorted(scale.decode(u) for u in np.linspace(0.0, 1.0, 101))
    units = [scale.encode(v) for v in values]
    assert all(0.0 <= u <= 1.0 for u in units)
    assert all(a < b for a, b in zip(units, units[1:])), "encode must be strictly increasing"
    if not _on_grid(dist):
        assert [scale.decode(u) for u in units] == pytest.approx(values, rel=1e-12, abs=0.0)


CATEGORICAL_CHOICES = {
    "str": ("a", "b", "c"),
    "int": (1, 2, 3),
    "float": (0.5, 1.5, -2.25),
    "bool": (True, False),
    "none": (None, "x"),
    "mixed": ("a", 7, 2.5, False, None),
}


@pytest.mark.parametrize("choices", CATEGORICAL_CHOICES.values(), ids=CATEGORICAL_CHOICES.keys())
def test_categorical_round_trip(choices: tuple[CategoricalChoiceType, ...]) -> None:
    dist = CategoricalDistribution(choices)
    encoder = MixedSpaceEncoder({"c": dist})
    assert encoder.n_levels.tolist() == [len(choices)]
    assert encoder.n_combinations == len(choices)
    h, x = encoder.encode([{"c": choice} for choice in choices])
    assert h.dtype == np.int32 and x.shape == (len(choices), 0)
    assert h[:, 0].tolist() == list(range(len(choices)))
    for row, choice in zip(h, choices):
        decoded = encoder.decode(row, np.zeros(0))["c"]
        assert decoded == choice and type(decoded) is type(choice)
        assert contains(dist, decoded)


MIXED_SPACE: dict[str, BaseDistribution] = {
    "z_float": FloatDistribution(-1.0, 1.0),
    "b_cat": CategoricalDistribution([None, 3, "x"]),
    "m_int_step": IntDistribution(0, 10, step=2),
    "a_cat": CategoricalDistribution([True, False]),
    "lr": FloatDistribution(1e-5, 1e-1, log=True),
    "k_int_log": IntDistribution(1, 64, log=True),
    "s_float_step": FloatDistribution(0.0, 2.0, step=0.5),
}


def test_mixed_encoder_layout_and_order_independence() -> None:
    encoder = MixedSpaceEncoder(MIXED_SPACE)
    assert encoder.categorical_names == ["a_cat", "b_cat"]
    assert encoder.numeric_names == ["k_int_log", "lr", "m_int_step", "s_float_step", "z_float"]
    assert encoder.n_levels.tolist() == [2, 3]
    assert encoder.n_combinations == 6
    params = {"z_float": 0.25, "b_cat": "x", "m_int_step": 4, "a_cat": False, "lr": 1e-3,
              "k_int_log": 8, "s_float_step": 1.5}
    reordered = MixedSpaceEncoder(dict(reversed(list(MIXED_SPACE.items()))))
    h1, x1 = encoder.encode([params])
    h2, x2 = reordered.encode([params])
    assert h1.tolist() == h2.tolist() == [[1, 2]]
    np.testing.assert_array_equal(x1, x2)


def test_mixed_encoder_round_trip_and_random_points() -> None:
    encoder = MixedSpaceEncoder(MIXED_SPACE)
    rng = np.random.default_rng(1)
    h = np.column_stack([rng.integers(0, n, size=200) for n in encoder.n_levels]).astype(np.int32)
    x = rng.random((200, encoder.n_numeric))
    decoded = [encoder.decode(hi, xi) for hi, xi in zip(h, x)]
    for params in decoded:
        assert set(params) == set(MIXED_SPACE)
        for name, value in params.items():
            assert contains(MIXED_SPACE[name], value), (name, value)
    h_back, x_back = encoder.encode(decoded)
    assert h_back.dtype == np.int32 and x_back.dtype == np.float64
    assert h_back.tolist() == h.tolist()
    assert np.all((x_back >= 0.0) & (x_back <= 1.0))
    for params, hi, xi in zip(decoded, h_back, x_back):
        again = encoder.decode(hi, xi)
        for name, value in params.items():
            if name == "z_float" or name == "lr":
                assert again[name] == pytest.approx(value, rel=1e-12)
            else:
                assert again[name] == value and type(again[name]) is type(value)


def test_round_to_grid_snaps_grid_columns_only() -> None:
    encoder = MixedSpaceEncoder(MIXED_SPACE)
    x = np.random.default_rng(2).random((50, encoder.n_numeric))
    snapped = encoder.round_to_grid(x)
    for j, name in enumerate(encoder.numeric_names):
        dist = MIXED_SPACE[name]
        assert isinstance(dist, (FloatDistribution, IntDistribution))  # a numeric column
        if _on_grid(dist):
            scale = _NumericScale.of(dist)
            expected = [scale.encode(scale.decode(u)) for u in x[:, j]]
            np.testing.assert_array_equal(snapped[:, j], expected)
        else:
            np.testing.assert_array_equal(snapped[:, j], x[:, j])
    np.testing.assert_array_equal(encoder.round_to_grid(snapped), snapped)
    assert not np.shares_memory(snapped, x)


def test_unsupported_distribution_is_rejected() -> None:
    class OtherDistribution(BaseDistribution):
        def to_external_repr(self, param_value_in_internal_repr: float) -> float:
            return param_value_in_internal_repr

        def to_internal_repr(self, param_value_in_external_repr: float) -> float:
            return param_value_in_external_repr

        def single(self) -> bool:
            return False

        def _contains(self, param_value_in_internal_repr: float) -> bool:
            return True

    with pytest.raises(ValueError, match="does not support the distribution"):
        MixedSpaceEncoder({"odd": OtherDistribution()})
