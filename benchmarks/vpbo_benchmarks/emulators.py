"""Numpy evaluation of Summit's experimental emulators (Summit 0.8.9, MIT licence).

Summit's ``ExperimentalEmulator`` is an ensemble of five one-hidden-layer ReLU networks
(``ANNRegressor``). Each member standardises the continuous inputs, appends one-hot codes of
the categorical inputs, applies ``relu(W1 x + b1)`` and ``W2 h + b2``, un-standardises the
outputs and clips them to the objective bounds of the domain; the prediction is the mean of
the five clipped member outputs. The weights ship as PyTorch zip archives; this module reads
them with a restricted unpickler and numpy, so torch is not needed.

The data files live in ``data/summit`` beside this module and are read through
:mod:`importlib.resources`, so they also work from an installed wheel.
"""

from __future__ import annotations

import collections
import csv
import dataclasses
import functools
import importlib.resources
import io
import json
import pickle
import sys
import zipfile
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # annotations only
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

REIZMAN_SUZUKI_CASES: tuple[str, ...] = tuple(f"reizman_suzuki_case_{case}" for case in range(1, 5))
BAUMGARTNER_ANILINE = "baumgartner_aniline_cn_crosscoupling"
EMULATOR_NAMES: tuple[str, ...] = (*REIZMAN_SUZUKI_CASES, BAUMGARTNER_ANILINE)

N_ENSEMBLE_MEMBERS = 5
# Storage keys of a member's state dict in the archive, in the order of the network's layers.
_WEIGHT_KEYS = (
    "input_layer.weight",
    "input_layer.bias",
    "output_layer.weight",
    "output_layer.bias",
)
_CSV_HEADER_ROWS = 2  # names, then types ("DATA"/"METADATA")


def _summit_root() -> Traversable:
    """Return the folder holding the shipped Summit files."""
    return importlib.resources.files(__package__) / "data" / "summit"


@dataclasses.dataclass(frozen=True)
class CategoricalInput:
    """A categorical input of an emulator domain, with its levels in one-hot order."""

    name: str
    levels: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class ContinuousInput:
    """A continuous input of an emulator domain, with its bounds."""

    name: str
    low: float
    high: float


@dataclasses.dataclass(frozen=True)
class Output:
    """An objective of an emulator domain: the predictions are clipped to its bounds."""

    name: str
    low: float
    high: float
    maximize: bool


@dataclasses.dataclass(frozen=True)
class EmulatorDomain:
    """Inputs and outputs of an emulator, in the order the Summit domain lists them."""

    categorical: tuple[CategoricalInput, ...]
    continuous: tuple[ContinuousInput, ...]
    outputs: tuple[Output, ...]

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.categorical) + tuple(v.name for v in self.continuous)


@dataclasses.dataclass(frozen=True)
class _Member:
    """One ensemble member: scalers and the weights of its two layers."""

    input_mean: np.ndarray
    input_scale: np.ndarray
    output_mean: np.ndarray
    output_scale: np.ndarray
    hidden_weight: np.ndarray  # [n_hidden, n_features]
    hidden_bias: np.ndarray  # [n_hidden]
    output_weight: np.ndarray  # [n_outputs, n_hidden]
    output_bias: np.ndarray  # [n_outputs]

    def predict_scaled(self, continuous: np.ndarray, one_hot: np.ndarray) -> np.ndarray:
        """Return the un-standardised (not yet clipped) outputs for a batch of inputs."""
        features = np.hstack([(continuous - self.input_mean) / self.input_scale, one_hot])
        hidden = np.maximum(features @ self.hidden_weight.T + self.hidden_bias, 0.0)
        out = hidden @ self.output_weight.T + self.output_bias
        return out * self.output_scale + self.output_mean


def _rebuild_tensor(
    storage: np.ndarray,
    storage_offset: int,
    size: Sequence[int],
    stride: Sequence[int],
    *_ignored: Any,
) -> np.ndarray:
    """Stand-in for ``torch._utils._rebuild_tensor_v2``: a strided view copied to an array."""
    view = np.lib.stride_tricks.as_strided(
        storage[storage_offset:],
        shape=tuple(size),
        strides=tuple(step * storage.itemsize for step in stride),
        writeable=False,
    )
    return np.array(view, dtype=np.float64)


class _StateDictUnpickler(pickle.Unpickler):
    """Unpickle a PyTorch state dict of float32 tensors without torch.

    Only the three globals such a file needs are allowed; anything else is refused, so a
    crafted file cannot run code.
    """

    _ALLOWED_GLOBALS: Mapping[tuple[str, str], Any] = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
        ("torch", "FloatStorage"): np.dtype("<f4"),
    }

    def __init__(self, archive: zipfile.ZipFile, prefix: str) -> None:
        super().__init__(io.BytesIO(archive.read(f"{prefix}/data.pkl")))
        self._archive = archive
        self._prefix = prefix

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self._ALLOWED_GLOBALS[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"refusing to load global {module}.{name}") from None

    def persistent_load(self, pid: Any) -> np.ndarray:
        _kind, dtype, key, _location, numel = pid
        raw = self._archive.read(f"{self._prefix}/data/{key}")
        return np.frombuffer(raw, dtype=dtype, count=numel)


def read_state_dict(data: bytes) -> dict[str, np.ndarray]:
    """Read a PyTorch zip-format state dict of float32 tensors into numpy arrays."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        pickle_name = next(n for n in archive.namelist() if n.endswith("/data.pkl"))
        prefix = pickle_name.rpartition("/")[0]
        return dict(_StateDictUnpickler(archive, prefix).load())


def _parse_domain(variables: Sequence[Mapping[str, Any]]) -> EmulatorDomain:
    """Split a Summit domain (JSON list of variables) into inputs and outputs."""
    categorical: list[CategoricalInput] = []
    continuous: list[ContinuousInput] = []
    outputs: list[Output] = []
    for var in variables:
        if var["type"] == "CategoricalVariable":
            categorical.append(CategoricalInput(var["name"], tuple(var["levels"])))
        elif var["is_objective"]:
            low, high = var["bounds"]
            outputs.append(Output(var["name"], float(low), float(high), bool(var["maximize"])))
        else:
            low, high = var["bounds"]
            continuous.append(ContinuousInput(var["name"], float(low), float(high)))
    return EmulatorDomain(tuple(categorical), tuple(continuous), tuple(outputs))


def _as_array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


def _load_member(folder: Traversable, name: str, k: int, scalers: Mapping[str, Any]) -> _Member:
    weights = read_state_dict((folder / f"{name}_predictor_{k}.pt").read_bytes())
    hidden_weight, hidden_bias, output_weight, output_bias = (weights[key] for key in _WEIGHT_KEYS)
    return _Member(
        input_mean=_as_array(scalers["input_preprocessor"]["num"]["mean_"]),
        input_scale=_as_array(scalers["input_preprocessor"]["num"]["scale_"]),
        output_mean=_as_array(scalers["output_preprocessor"]["mean_"]),
        output_scale=_as_array(scalers["output_preprocessor"]["scale_"]),
        hidden_weight=hidden_weight,
        hidden_bias=hidden_bias,
        output_weight=output_weight,
        output_bias=output_bias,
    )


class SummitEmulator:
    """A Summit experimental emulator evaluated with numpy (ensemble mean of clipped members)."""

    def __init__(
        self, name: str, domain: EmulatorDomain, output_order: Sequence[str], members: Sequence[_Member]
    ) -> None:
        self.name = name
        self.domain = domain
        by_name = {out.name: out for out in domain.outputs}
        self.outputs: tuple[Output, ...] = tuple(by_name[n] for n in output_order)
        self._members = tuple(members)
        self._low = np.array([out.low for out in self.outputs])
        self._high = np.array([out.high for out in self.outputs])

    def _encode(self, inputs: Mapping[str, Sequence[Any] | np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Return the continuous block and the one-hot block for a batch of inputs."""
        continuous = np.column_stack([_as_array(inputs[v.name]) for v in self.domain.continuous])
        blocks = []
        for var in self.domain.categorical:
            codes = np.array([var.levels.index(str(level)) for level in inputs[var.name]])
            blocks.append(np.eye(len(var.levels))[codes])
        return continuous, np.hstack(blocks)

    def predict(self, inputs: Mapping[str, Sequence[Any] | np.ndarray]) -> dict[str, np.ndarray]:
        """Predict every output for a batch: ``inputs`` maps each input name to a sequence.

        Categorical inputs take level strings; returns output name -> array of predictions.
        """
        continuous, one_hot = self._encode(inputs)
        clipped = [
            np.clip(member.predict_scaled(continuous, one_hot), self._low, self._high)
            for member in self._members
        ]
        mean = np.mean(clipped, axis=0)
        return {out.name: mean[:, j] for j, out in enumerate(self.outputs)}

    def predict_one(self, params: Mapping[str, Any]) -> dict[str, float]:
        """Predict every output for one point given as input name -> value."""
        batch = {name: [params[name]] for name in self.domain.input_names}
        return {name: float(values[0]) for name, values in self.predict(batch).items()}


@functools.cache
def load_emulator(name: str) -> SummitEmulator:
    """Load one of :data:`EMULATOR_NAMES` from the shipped files (cached)."""
    if name not in EMULATOR_NAMES:
        raise ValueError(f"unknown emulator {name!r}; valid names: {', '.join(EMULATOR_NAMES)}")
    folder = _summit_root() / "models" / name
    spec = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    params = spec["experiment_params"]
    members = [_load_member(folder, name, k, scalers) for k, scalers in enumerate(params["predictors"])]
    if len(members) != N_ENSEMBLE_MEMBERS:
        raise ValueError(f"{name}: expected {N_ENSEMBLE_MEMBERS} ensemble members, found {len(members)}")
    return SummitEmulator(name, _parse_domain(spec["domain"]), params["output_variable_names"], members)


def load_experiments(name: str) -> dict[str, list[str]]:
    """Return the experiments an emulator was trained on, as column name -> raw strings.

    Reads ``data/summit/data/<name>.csv`` (two header rows: names, then types; the first
    column is the row index and is dropped).
    """
    text = (_summit_root() / "data" / f"{name}.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    names = rows[0][1:]
    body = [row[1:] for row in rows[_CSV_HEADER_ROWS:] if row]
    return {col: [row[j] for row in body] for j, col in enumerate(names)}
