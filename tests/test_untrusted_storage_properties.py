"""Property-based tests of untrusted storage: arbitrary values -- any JSON type, NaN
and infinities, huge and negative numbers, huge counts, truncated or missing chunks, stored fits
of other layouts -- written into every attribute the sampler reads, on the in-memory and SQLite
storages; then a trial runs as another worker's would. No exception may escape ``optimize``, no
trial take more than ``TRIAL_SECONDS``, and every value must lie inside the space.

The attribute kinds (``KINDS``): a publication's chunk count, a publication's chunks and JSON
(on running and finished trials: the pending points and ``reserve`` read both), a stored fit,
the objective-failure mark, RetryFailedTrialCallback's ``failed_trial``, constraint values (both
of Optuna's formats) and the dashboard note version (``record_proposals``).

Each test runs in two tiers (``EXAMPLES``): the default one a few cases per kind and storage
(derandomised, so that CI sees the same cases every run), the ``long`` one (``pytest -m long``)
ten times more, random, or as many as ``$VPBO_PROPERTY_EXAMPLES`` says (``memory:1200,sqlite:250``,
or one number for both).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import logging
import math
import os
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import optuna
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optuna.trial import TrialState

from conftest import make_sampler, mixed_objective, value_of
from optuna_vpbo import _fit, _optuna_compat, _stored
from optuna_vpbo._fit_store import FIT_KEY_PREFIX
from optuna_vpbo._pending import RELATIVE_PARAMS_KEY, SYSTEM_ATTR_MAX_LENGTH
from optuna_vpbo._trial_states import OBJECTIVE_FAILURE_KEY
from test_untrusted_storage import N_BASE_TRIALS, SPACE, run_trials

# Cases per kind in each tier and storage: a case takes ~0.1 s in memory and ~0.5 s on SQLite (a
# few hundred rows through SQLAlchemy); the default tier's ~240 cases take ~30 s.
EXAMPLES = {"default": {"memory": 30, "sqlite": 4}, "long": {"memory": 300, "sqlite": 40}}
# A cheaper model than the defaults (each case runs a trial): the storage paths are the same.
SAMPLER_SETTINGS = {"n_candidates": 128, "n_restarts": 2}
STUDY_NAME = "vpbo-untrusted"

# --- Arbitrary JSON ----------------------------------------------------------------------------

# Text that every storage can hold (no lone surrogates, no NUL).
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12)
EXTREMES = st.sampled_from(
    [1e308, -1e308, math.inf, -math.inf, math.nan, 5e-324, 10**400, -(10**400), 2**63, -(2**63), 10**9, -1, 0, 1, True, ""]
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | TEXT | EXTREMES
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=8
)
# A count: small, huge, negative, or any JSON value.
COUNTS = st.integers(-3, 8) | st.sampled_from([10**6, 10**9, 10**12, 2**63]) | JSON_VALUES


def near_valid_value(name: str) -> st.SearchStrategy[Any]:
    """A value of parameter ``name``: one of its own, one just outside it, or anything."""
    distribution = SPACE[name]
    if isinstance(distribution, optuna.distributions.CategoricalDistribution):
        return st.sampled_from(distribution.choices) | JSON_VALUES
    own: st.SearchStrategy[Any]
    if isinstance(distribution, optuna.distributions.IntDistribution):
        own = st.integers(distribution.low, distribution.high)
    else:
        assert isinstance(distribution, optuna.distributions.FloatDistribution)
        own = st.floats(distribution.low, distribution.high)
    low, high = distribution.low, distribution.high
    return own | st.sampled_from([low - 1, high + 1, high * 10, -high]) | JSON_VALUES


PARAMS = st.fixed_dictionaries({}, optional={name: near_valid_value(name) for name in SPACE}) | st.dictionaries(
    TEXT, JSON_VALUES, max_size=4
)

# --- What a case writes --------------------------------------------------------------------------

STATES = st.sampled_from([TrialState.RUNNING, TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED])


@dataclasses.dataclass
class Damage:
    """What one case writes: trials (state, system attributes) added to the study, study system
    attributes, what replaces the study's stored fit (``fit``), and whether the
    sampler records diagnostics (then the dashboard note versions of the next trials are read)."""

    trials: list[tuple[TrialState, dict[str, Any]]] = dataclasses.field(default_factory=list)
    fit: tuple[Any] | None = None  # (the value that replaces the stored fit,)
    note_versions: list[Any] = dataclasses.field(default_factory=list)


@st.composite
def publication_counts(draw: st.DrawFn) -> Damage:
    """A valid publication whose chunk count is anything."""
    text = json.dumps({"kind": "a", "flag": True, "x": 0.5, "lr": 0.01, "n": 3})
    attrs = {f"{RELATIVE_PARAMS_KEY}:0": text, f"{RELATIVE_PARAMS_KEY}:count": draw(COUNTS)}
    return Damage([(draw(STATES), attrs)])


@st.composite
def publication_chunks(draw: st.DrawFn) -> Damage:
    """Publications of arbitrary parameters, NaN and infinities included, cut into chunks of any
    size, some truncated, dropped or replaced by any JSON value, with a count that may lie."""
    trials = []
    for _ in range(draw(st.integers(1, 3))):
        text = json.dumps(draw(PARAMS))  # NaN and Infinity become JSON's non-standard tokens
        if draw(st.booleans()):
            text = text[: draw(st.integers(0, len(text)))]
        size = draw(st.integers(1, SYSTEM_ATTR_MAX_LENGTH + 10))
        chunks: list[Any] = [text[i : i + size] for i in range(0, len(text), size)] or [""]
        for i in draw(st.sets(st.integers(0, len(chunks) - 1), max_size=2)):
            chunks[i] = draw(JSON_VALUES)
        attrs = {f"{RELATIVE_PARAMS_KEY}:{i}": chunk for i, chunk in enumerate(chunks)}
        for i in draw(st.sets(st.integers(0, len(chunks) - 1), max_size=1)):
            del attrs[f"{RELATIVE_PARAMS_KEY}:{i}"]
        attrs[f"{RELATIVE_PARAMS_KEY}:count"] = draw(st.just(len(chunks)) | st.integers(0, len(chunks) + 2))
        trials.append((draw(STATES), attrs))
    return Damage(trials)


@st.composite
def stored_fits(draw: st.DrawFn, template: dict[str, Any]) -> Damage:
    """The study's stored fit replaced: any JSON value or text, or ``template`` (a valid record)
    with any of its fields changed (another version or layout, theta entries anything)."""
    record = dict(template)
    for field in draw(st.sets(st.sampled_from(["version", "n", "n_numeric", "n_relevances", "theta"]), min_size=1)):
        record[field] = draw(
            {
                "version": st.sampled_from(["layout-0/priors-1", "layout-1/priors-2"]) | JSON_VALUES,
                "n": st.sampled_from([template["n"], template["n"] - 1, 0, 10**12]) | COUNTS,
                "n_numeric": st.integers(0, 6) | COUNTS,
                "n_relevances": st.integers(0, 3) | COUNTS,
                "theta": theta_values(template["theta"]),
            }[field]
        )
    text = json.dumps(record)
    if draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return Damage(fit=(text if draw(st.integers(0, 4)) else draw(JSON_VALUES | TEXT),))


def theta_values(template: list[float]) -> st.SearchStrategy[Any]:
    """A theta: the template's with some entries anything (extremes, NaN, beyond the bounds), of
    another length, or any JSON value."""
    entries = st.floats() | EXTREMES | st.floats(-50, 50) | JSON_VALUES
    changed = st.lists(st.tuples(st.integers(0, len(template) - 1), entries), min_size=1, max_size=3).map(
        lambda changes: [dict(changes).get(i, value) for i, value in enumerate(template)]
    )
    return changed | st.lists(st.floats(-5, 3), max_size=len(template) + 3) | JSON_VALUES


@st.composite
def failure_marks(draw: st.DrawFn) -> Damage:
    marks = st.lists(st.tuples(STATES, JSON_VALUES), min_size=1, max_size=3)
    return Damage([(state, {OBJECTIVE_FAILURE_KEY: value}) for state, value in draw(marks)])


@st.composite
def retried_trials(draw: st.DrawFn) -> Damage:
    numbers = st.integers(-2, N_BASE_TRIALS + 4) | COUNTS
    marks = st.lists(st.tuples(STATES, numbers, st.booleans()), min_size=1, max_size=3)
    return Damage([
        (state, {"failed_trial": number, **({OBJECTIVE_FAILURE_KEY: True} if failed else {})})
        for state, number, failed in draw(marks)
    ])


@st.composite
def constraint_values(draw: st.DrawFn) -> Damage:
    """Constraints of complete trials: Optuna 4's list and Optuna 5's named values, anything."""
    old_format = st.lists(st.floats() | EXTREMES, max_size=3) | JSON_VALUES
    named = st.dictionaries(st.sampled_from(["c0", "c1"]), st.floats() | EXTREMES | JSON_VALUES, max_size=2)
    trials = []
    for _ in range(draw(st.integers(1, 4))):
        attrs: dict[str, Any] = {f"constraints:{name}": value for name, value in draw(named).items()}
        if draw(st.booleans()) or not _optuna_compat.HAS_NAMED_CONSTRAINTS:
            attrs["constraints"] = draw(old_format)
        trials.append((TrialState.COMPLETE, attrs))
    return Damage(trials)


@st.composite
def note_versions(draw: st.DrawFn) -> Damage:
    return Damage(note_versions=draw(st.lists(COUNTS, min_size=1, max_size=2)))


# --- Running a case ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base_trials() -> list[optuna.trial.FrozenTrial]:
    """The complete trials of a short study past its initial design."""
    study = optuna.create_study(sampler=make_sampler(seed=0))
    study.optimize(mixed_objective, n_trials=N_BASE_TRIALS)
    return study.trials


@pytest.fixture(scope="module")
def sqlite_storage() -> Iterator[optuna.storages.BaseStorage]:
    """One SQLite file for every case (each case its own study), in memory-backed /dev/shm where
    there is one: a case writes a few dozen rows, and a disk's syncs made a case 10x slower."""
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as folder:
        yield optuna.storages.get_storage(optuna.storages.RDBStorage(f"sqlite:///{Path(folder) / 'study.db'}"))


def add_trial(study: optuna.Study, base: optuna.trial.FrozenTrial, state: TrialState, attrs: dict[str, Any]) -> None:
    """A trial with ``base``'s parameters (none while running) and the system attributes
    ``attrs``, finished in ``state`` at the storage (no sampler's ``after_trial``)."""
    storage = study._storage
    trial_id = storage.create_new_trial(study._study_id)
    for key, value in attrs.items():
        storage.set_trial_system_attr(trial_id, key, value)
    if state == TrialState.RUNNING:
        return
    for name, value in base.params.items():
        distribution = base.distributions[name]
        storage.set_trial_param(trial_id, name, distribution.to_internal_repr(value), distribution)
    values = [value_of(base) + 0.01 * trial_id] if state == TrialState.COMPLETE else None
    storage.set_trial_state_values(trial_id, state, values)


def new_study(storage: optuna.storages.BaseStorage | None, base: list[optuna.trial.FrozenTrial], **kwargs: Any) -> optuna.Study:
    sampler = make_sampler(seed=1, **SAMPLER_SETTINGS, **kwargs)
    study = optuna.create_study(storage=storage, study_name=f"{STUDY_NAME}-{uuid.uuid4().hex[:8]}", sampler=sampler)
    study.add_trials(base)
    return study


@contextlib.contextmanager
def stored_fits_read() -> Iterator[None]:
    """Stored fits are read from the base study's size on (as a long study's beyond 300 trials)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_fit, "LONG_STUDY", N_BASE_TRIALS)
        yield


def run_case(storage: optuna.storages.BaseStorage | None, base: list[optuna.trial.FrozenTrial], damage: Damage) -> None:
    """Write ``damage`` into a new study of the base trials, then run a trial (two when a stored
    fit was replaced: the second reuses or refits after the first)."""
    study = new_study(storage, base, record_proposals=bool(damage.note_versions))
    try:
        for i, (state, attrs) in enumerate(damage.trials):
            add_trial(study, base[i % len(base)], state, attrs)
        with stored_fits_read() if damage.fit is not None else contextlib.nullcontext():
            if damage.fit is not None:
                run_trials(study)  # stores a fit, which the damage then replaces
                (name,) = [k for k in _optuna_compat.get_study_system_attrs(study) if k.startswith(FIT_KEY_PREFIX)]
                _optuna_compat.set_study_system_attr(study, name, damage.fit[0])
                study.sampler = make_sampler(seed=2, **SAMPLER_SETTINGS)  # a new process reads it
            next_id = max(t._trial_id for t in study.get_trials(deepcopy=False)) + 1
            for offset, version in enumerate(damage.note_versions):
                _optuna_compat.set_study_system_attr(study, f"dashboard:{next_id + offset}:note_ver", version)
            run_trials(study)
    finally:
        if storage is not None:
            optuna.delete_study(study_name=study.study_name, storage=storage)


@pytest.fixture(scope="module")
def fit_template(base_trials: list[optuna.trial.FrozenTrial]) -> dict[str, Any]:
    """A valid stored record of the base study's model, as the sampler writes it."""
    study = new_study(None, base_trials)
    with stored_fits_read():
        run_trials(study)
    (text,) = [v for k, v in _optuna_compat.get_study_system_attrs(study).items() if k.startswith(FIT_KEY_PREFIX)]
    return dict(json.loads(text))


KINDS: dict[str, Callable[[dict[str, Any]], st.SearchStrategy[Damage]]] = {
    "publication count": lambda template: publication_counts(),
    "publication chunks": lambda template: publication_chunks(),
    "stored fit": stored_fits,
    "failure mark": lambda template: failure_marks(),
    "retried trial": lambda template: retried_trials(),
    "constraints": lambda template: constraint_values(),
    "note version": lambda template: note_versions(),
}
TIERS = [pytest.param("default", id="default"), pytest.param("long", id="long", marks=pytest.mark.long)]


def examples(tier: str, storage_kind: str) -> int:
    """Cases per kind: ``EXAMPLES``, or in the long tier ``$VPBO_PROPERTY_EXAMPLES``."""
    wanted = os.environ.get("VPBO_PROPERTY_EXAMPLES", "") if tier == "long" else ""
    if not wanted:
        return EXAMPLES[tier][storage_kind]
    if ":" not in wanted:
        return int(wanted)
    return int(dict(item.split(":") for item in wanted.split(","))[storage_kind])


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("storage_kind", ["memory", "sqlite"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_nothing_written_into_an_attribute_stops_a_study(
    kind: str,
    storage_kind: str,
    tier: str,
    base_trials: list[optuna.trial.FrozenTrial],
    fit_template: dict[str, Any],
    request: pytest.FixtureRequest,
) -> None:
    if kind == "note version":
        pytest.importorskip("optuna_dashboard")
    storage = request.getfixturevalue("sqlite_storage") if storage_kind == "sqlite" else None

    @settings(
        max_examples=examples(tier, storage_kind),
        deadline=None,  # run_trials bounds every trial
        derandomize=tier == "default",
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(damage=KINDS[kind](fit_template))
    def case(damage: Damage) -> None:
        with ignored_logged() as ignored:
            run_case(storage, base_trials, damage)
        tally["cases"] += 1
        tally["warned"] += any(r.levelno >= logging.WARNING for r in ignored)
        tally["debug only"] += bool(ignored) and all(r.levelno < logging.WARNING for r in ignored)

    tally: collections.Counter[str] = collections.Counter()
    case()
    print(f"{kind} on {storage_kind} ({tier}): {dict(tally)}")  # the counts of the closing note (pytest -s)


class RecordingHandler(logging.Handler):
    """Appends every record, from debug level up, to a list."""

    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def ignored_logged() -> Iterator[list[logging.LogRecord]]:
    """What ``_stored`` logged in the block: attributes ignored, with a warning or (another
    version's fit, a publication that is no JSON) at debug level."""
    records: list[logging.LogRecord] = []
    handler = RecordingHandler(records)
    logger = logging.getLogger(_stored.__name__)
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        logger.setLevel(level)
        logger.removeHandler(handler)

