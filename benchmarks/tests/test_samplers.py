"""The lab's VPBO names: every one but ``vpbo`` is built from complete, explicit settings (the adaptation
work's protocol), and a variant can be spelt ``vpbo:key=value+...`` on the command line."""

from __future__ import annotations

import dataclasses

import pytest
from optuna.samplers import BaseSampler

from optuna_vpbo import VPBOSampler, VPBOSettings
from vpbo_benchmarks.oracle import default_oracle_sampler
from vpbo_benchmarks.samplers import SAMPLER_FACTORIES, make_sampler
from vpbo_benchmarks.vpbo_variants import REFERENCES, STORED_ONLY, V4_SETTINGS, VARIANTS, reference_settings


def vpbo_settings(sampler: BaseSampler) -> VPBOSettings:
    assert isinstance(sampler, VPBOSampler), sampler
    return sampler.settings


def test_the_pinned_reference_spells_out_every_field() -> None:
    assert set(V4_SETTINGS) == {f.name for f in dataclasses.fields(VPBOSettings) if f.init}
    assert VPBOSettings(**V4_SETTINGS) == reference_settings("v4")


def test_the_paper_reference_is_the_paper_preset() -> None:
    assert reference_settings("paper") == VPBOSettings.paper() and reference_settings("paper").is_paper
    assert set(REFERENCES) == {"v4", "paper"}


def test_stored_only_names_are_not_samplers() -> None:
    assert not set(STORED_ONLY) & set(SAMPLER_FACTORIES)
    assert not set(STORED_ONLY) & set(VARIANTS)


@pytest.mark.parametrize("name", [*VARIANTS, "vpbo-intersection"])
def test_every_named_variant_runs_its_pinned_settings(name: str) -> None:
    sampler = make_sampler(name, 0)
    assert isinstance(sampler, VPBOSampler)
    if name in VARIANTS:
        assert sampler.settings == VARIANTS[name].settings()
    else:
        assert sampler.settings == VPBOSettings(**V4_SETTINGS)


def test_vpbo_is_what_a_user_gets_and_the_oracle_runs_vpbo_v3() -> None:
    assert vpbo_settings(make_sampler("vpbo", 0)) == VPBOSampler().settings
    oracle = default_oracle_sampler(0)
    assert isinstance(oracle, VPBOSampler) and oracle.settings == VPBOSettings(**V4_SETTINGS)


def test_the_samplers_of_the_measured_and_not_adopted_settings_are_gone() -> None:
    assert not {"vpbo-gpsampler-prior", "vpbo-relevance", "vpbo-local", "vpbo-interleaved", "vpbo-balanced"} & set(
        SAMPLER_FACTORIES
    )


def test_benchmark_variants_spell_their_settings() -> None:
    settings = vpbo_settings(make_sampler("vpbo:n_startup_trials=12+output_transform=standardize", 0))
    assert (settings.n_startup_trials, settings.output_transform) == (12, "standardize")
    assert settings == VPBOSettings().replace(n_startup_trials=12, output_transform="standardize")
    on_paper = vpbo_settings(make_sampler("vpbo:preset=paper+n_refine=3", 0))
    assert on_paper == VPBOSettings.paper().replace(n_refine=3) and on_paper.is_paper
    with pytest.raises(ValueError, match="vpbo:key=value"):
        make_sampler("vpbo:n_startup_trials", 0)
    with pytest.raises(ValueError, match="Unknown preset"):
        make_sampler("vpbo:preset=v9", 0)
    with pytest.raises(TypeError, match="no field stall_trials"):
        make_sampler("vpbo:stall_trials=5", 0)
