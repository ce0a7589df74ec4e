"""The lab's sampler names: a VPBO variant spelt ``vpbo:key=value+...`` on the command line."""

from __future__ import annotations

import pytest

from vpbo_benchmarks.samplers import make_sampler


def test_benchmark_variants_spell_their_settings() -> None:
    settings = make_sampler("vpbo:n_startup_trials=12+search_initialization=false+output_transform=standardize", 0).settings
    assert (settings.n_startup_trials, settings.search_initialization, settings.output_transform) == (12, False, "standardize")
    with pytest.raises(ValueError, match="vpbo:key=value"):
        make_sampler("vpbo:n_startup_trials", 0)
    with pytest.raises(TypeError):
        make_sampler("vpbo:no_such_setting=1", 0)
