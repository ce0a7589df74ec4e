"""The lab's VPBO names: every one but ``vpbo`` is built from complete, explicit settings (issue 27's
protocol), and a variant can be spelt ``vpbo:key=value+...`` on the command line."""

from __future__ import annotations

import dataclasses

import pytest
from optuna.samplers import BaseSampler

from optuna_vpbo import VPBOSampler, VPBOSettings
from vpbo_benchmarks.oracle import default_oracle_sampler
from vpbo_benchmarks.samplers import SAMPLER_FACTORIES, make_sampler
from vpbo_benchmarks.vpbo_variants import REFERENCES, V1_SETTINGS, V2_SETTINGS, VARIANTS


def vpbo_settings(sampler: BaseSampler) -> VPBOSettings:
    assert isinstance(sampler, VPBOSampler), sampler
    return sampler.settings


@pytest.mark.parametrize("reference", list(REFERENCES))
def test_every_pinned_reference_spells_out_every_field(reference: str) -> None:
    fields = {f.name for f in dataclasses.fields(VPBOSettings)}
    assert set(REFERENCES[reference]) == fields
    VPBOSettings(**REFERENCES[reference])  # valid settings


def test_vpbo_v1_is_vpbo_v2_with_issue_13_s_design_and_no_stall_safeguard() -> None:
    changed = {k for k in V2_SETTINGS if V1_SETTINGS[k] != V2_SETTINGS[k]}
    assert changed == {"n_startup_trials", "stall_trials"}
    assert (V1_SETTINGS["n_startup_trials"], V1_SETTINGS["stall_trials"]) == (10, 0)


def test_the_paper_reference_is_the_paper_preset() -> None:
    # The paper's algorithm must not change: a new field with a default that the preset does not
    # set fails here (and the spelling test above).
    assert VPBOSettings(**REFERENCES["paper"]) == VPBOSettings.paper()


@pytest.mark.parametrize("name", [*VARIANTS, "vpbo-intersection"])
def test_every_named_variant_runs_its_pinned_settings(name: str) -> None:
    sampler = make_sampler(name, 0)
    assert isinstance(sampler, VPBOSampler)
    if name in VARIANTS:
        assert sampler.settings == VARIANTS[name].settings()
    else:
        assert sampler.settings == VPBOSettings(**V2_SETTINGS)


def test_vpbo_is_what_a_user_gets_and_the_oracle_runs_vpbo_v2() -> None:
    assert vpbo_settings(make_sampler("vpbo", 0)) == VPBOSampler().settings
    oracle = default_oracle_sampler(0)
    assert isinstance(oracle, VPBOSampler) and oracle.settings == VPBOSettings(**V2_SETTINGS)


def test_the_samplers_of_the_measured_and_not_adopted_settings_are_gone() -> None:
    assert not {"vpbo-gpsampler-prior", "vpbo-relevance", "vpbo-local"} & set(SAMPLER_FACTORIES)


def test_benchmark_variants_spell_their_settings() -> None:
    settings = vpbo_settings(make_sampler("vpbo:n_startup_trials=12+search_initialization=false+output_transform=standardize", 0))
    assert (settings.n_startup_trials, settings.search_initialization, settings.output_transform) == (12, False, "standardize")
    assert settings == VPBOSettings().replace(n_startup_trials=12, search_initialization=False, output_transform="standardize")
    on_v1 = vpbo_settings(make_sampler("vpbo:preset=v1+stall_trials=5", 0))
    assert on_v1 == VPBOSettings(**{**V1_SETTINGS, "stall_trials": 5})
    with pytest.raises(ValueError, match="vpbo:key=value"):
        make_sampler("vpbo:n_startup_trials", 0)
    with pytest.raises(ValueError, match="Unknown preset"):
        make_sampler("vpbo:preset=v9", 0)
    with pytest.raises(TypeError):
        make_sampler("vpbo:no_such_setting=1", 0)
