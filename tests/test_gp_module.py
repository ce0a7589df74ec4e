"""``optuna_vpbo.gp``: the public names of the sampler's GP machinery are the very objects the
sampler uses (re-exports, no logic of their own), each documented in the module's docstring, and
they compose as the docstring shows."""

from __future__ import annotations

import numpy as np
from optuna.study import StudyDirection

import optuna_vpbo.gp as gp
from optuna_vpbo import _blas_threads, _combinations, _core, _fit, _init_design, _output_transforms, _proposals, _targets


def test_every_public_name_is_a_re_export_of_the_sampler_s_own() -> None:
    sources = [_blas_threads, _combinations, _core, _fit, _init_design, _output_transforms, _proposals, _targets]
    for name in gp.__all__:
        owners = [module for module in sources if getattr(module, name, None) is getattr(gp, name)]
        assert owners, f"optuna_vpbo.gp.{name} is not the sampler's own object"


def test_every_public_name_is_documented_in_the_module_docstring() -> None:
    assert gp.__doc__ is not None
    assert [name for name in gp.__all__ if f"``{name}``" not in gp.__doc__] == []


def test_the_documented_recipe_fits_and_predicts() -> None:
    rng = np.random.default_rng(0)
    h = rng.integers(0, 3, size=(20, 1)).astype(np.int32)
    x = rng.random((20, 2))
    values = np.sin(6 * x[:, 0]) + h[:, 0]
    y = gp.Standardize(StudyDirection.MINIMIZE).fit(values)(values)
    np.testing.assert_allclose(y, -(values - values.mean()) / values.std())
    hyperparameters = gp.fit_hyperparameters(h, x, y, rng=rng, n_restarts=2)
    model = hyperparameters.make_gp(h, x, y)
    mean, variance = model.predict(h, x)
    assert isinstance(model, gp.MixedGP)
    # With a small fitted noise the posterior mean is close to the targets at the training points.
    assert np.all(variance >= 0) and np.corrcoef(mean, y)[0, 1] > 0.9
