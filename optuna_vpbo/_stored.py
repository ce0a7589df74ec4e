"""The one validating reader of what VPBOSampler reads back from a study's storage.

A storage is shared: other workers, other versions of this package and a damaged database write
into it, so nothing read back is trusted. Every attribute the sampler reads passes the checks of
this module: bounded (counts, lengths, digits), typed, finite, inside its domain, and checked
again after decoding (``_fit_store`` checks a stored fit's hyperparameters against the fit's
bounds with them; ``TreeEncoder.active_params`` keeps a published suggestion inside the search
space). What fails is ignored -- a fit is refitted, a publication skipped, a mark not read -- with
one logged warning naming the attribute and the reason (``ignore``). docs/many-workers.md lists
what the sampler trusts and what it ignores.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

import optuna

from optuna_vpbo._once import FirstTime
from optuna_vpbo._trial_record import TrialRecord

# Running trials publish their suggestion under this system-attribute prefix (``_pending``).
RELATIVE_PARAMS_KEY = "vpbo:relative_params"
# Optuna's RDB storage keeps system attributes under 2046 characters.
SYSTEM_ATTR_MAX_LENGTH = 2045
# Chunks of one published suggestion at most: 512 kB of JSON, thousands of parameters.
MAX_PUBLISHED_CHUNKS = 256
# System attribute of a trial that failed in the objective (written by the sampler, read by ``_trial_states``).
OBJECTIVE_FAILURE_KEY = "vpbo:objective_failure"
# System attribute of a trial's search-policy move: [kind, whether the study was stalled] (``_search_policy``).
MOVE_KEY = "vpbo:move"
# Characters of a stored move's kind at most.
MAX_MOVE_KIND_LENGTH = 40
# RetryFailedTrialCallback's system attribute on the retry: the number of the failed trial.
RETRIED_TRIAL_KEY = "failed_trial"
# Digits of an integer in stored JSON (an int64 has 19): a longer one is no value this package
# wrote, and converting very long ones costs quadratic time.
MAX_INTEGER_DIGITS = 20
# Constraints of one trial at most.
MAX_CONSTRAINTS = 1024
# Characters of a stored value quoted in a warning.
MAX_QUOTED = 80

_logger = optuna.logging.get_logger(__name__)
# Attributes already reported as ignored (and why).
_REPORTED = FirstTime()


class Invalid(ValueError):
    """A stored value that fails its check; the message says why, ``attribute`` names it when
    the check knows better than its caller (one chunk of a publication)."""

    def __init__(self, reason: str, attribute: str | None = None) -> None:
        super().__init__(reason)
        self.attribute = attribute


class Expected(Invalid):
    """A value that is no damage: what a reader may see of a publication while it is rewritten
    (no JSON), or a fit stored by another version of this package. Logged at debug level."""


def ignore(attribute: str, reason: str, owner: str, owner_key: Hashable, *, expected: bool = False) -> None:
    """Say once per (owner, attribute, reason) that a stored attribute is ignored and why: a
    warning, or a debug message for what is no damage (``expected``: ``Expected``). ``owner``
    is "the study" or "Trial#n"; ``owner_key`` tells owners of one name apart."""
    if _REPORTED.first((owner_key, attribute, reason)):
        log = _logger.debug if expected else _logger.warning
        log(f"VPBOSampler ignores the system attribute {attribute!r} of {owner}: {reason}.")


def quoted(value: Any) -> str:
    """A stored value for a message: its repr, cut to ``MAX_QUOTED`` characters."""
    try:
        text = repr(value)
    except ValueError:  # an int too long for its decimal representation
        return f"an {type(value).__name__} too long to show"
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 3] + "..."


def integer(value: Any, low: int, high: int, what: str) -> int:
    """``value`` as an int in [low, high] (a bool is no integer here)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise Invalid(f"{what} must be an integer, got {quoted(value)}")
    number = int(value)
    if not low <= number <= high:
        raise Invalid(f"{what} must be in [{low}, {high}], got {quoted(value)}")
    return number


def real(value: Any, what: str, *, allow_infinite: bool = False) -> float:
    """``value`` as a float: a real number (no bool), not NaN, finite unless allowed otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise Invalid(f"{what} must be a number, got {quoted(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise Invalid(f"{what} {quoted(value)} is beyond the range of a float") from None
    if math.isnan(number):
        raise Invalid(f"{what} is NaN")
    if math.isinf(number) and not allow_infinite:
        raise Invalid(f"{what} is infinite ({number})")
    return number


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise Invalid(f"the number {quoted(text)} overflows a float")
    return number


def _short_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise Invalid(f"an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _no_constant(name: str) -> Any:
    raise Invalid(f"{name} is not a finite number")


def decode_json(text: Any, max_length: int) -> Any:
    """The value of JSON ``text`` of at most ``max_length`` characters, strictly: no NaN or
    infinity (written or overflowing), no integer longer than ``MAX_INTEGER_DIGITS`` digits."""
    if not isinstance(text, str):
        raise Invalid(f"JSON text must be a str, got {quoted(text)}")
    if len(text) > max_length:
        raise Invalid(f"{len(text)} characters, more than {max_length}")
    try:
        return json.loads(text, parse_float=_finite_float, parse_int=_short_int, parse_constant=_no_constant)
    except Invalid:
        raise
    except RecursionError:
        raise Invalid("JSON nested too deeply") from None
    except ValueError as error:
        raise Expected(f"not JSON ({error})") from None


def is_json_scalar(value: Any) -> bool:
    """Whether ``value`` is one JSON value that a parameter may take (no list or object)."""
    return value is None or isinstance(value, (bool, int, float, str))


# --- Trial system attributes -------------------------------------------------------------------

# A trial record of one kind (what ``constraint_values`` reads with the reader it is given).
T = TypeVar("T", bound=TrialRecord)


def _trial_owner(trial: TrialRecord) -> tuple[str, Hashable]:
    return f"Trial#{trial.number}", ("trial", trial.number, trial.datetime_start)


def trial_attribute(trial: TrialRecord, attribute: str, check: Callable[[Any], Any], default: Any = None) -> Any:
    """``check(value)`` of the trial's system attribute ``attribute``; ``default`` if it is
    absent, or ignored because ``check`` raised ``Invalid``."""
    if attribute not in trial.system_attrs:
        return default
    try:
        return check(trial.system_attrs[attribute])
    except Invalid as error:
        ignore(attribute, str(error), *_trial_owner(trial))
        return default


def published_params(trial: TrialRecord) -> dict[str, Any] | None:
    """The suggestion a trial published (``_pending.publish``), or None: none published, or not
    a whole valid one (text that is no JSON, as a rewrite in progress shows, is logged at debug
    level only). Values are JSON scalars, numbers finite; the reader of the values checks the
    search space (``TreeEncoder.active_params``)."""
    attrs = trial.system_attrs
    count_key = f"{RELATIVE_PARAMS_KEY}:count"
    if count_key not in attrs:
        return None
    try:
        count = integer(attrs[count_key], 1, MAX_PUBLISHED_CHUNKS, "the chunk count")
        text = "".join(_chunk(attrs, i) for i in range(count))
        params = decode_json(text, count * SYSTEM_ATTR_MAX_LENGTH)
        if not isinstance(params, dict):
            raise Invalid(f"the suggestion must be a JSON object, got {quoted(params)}")
        nested = [name for name, value in params.items() if not is_json_scalar(value)]
        if nested:
            raise Invalid(f"the value of {quoted(nested[0])} must be one JSON scalar, got {quoted(params[nested[0]])}")
    except Invalid as error:
        ignore(error.attribute or count_key, str(error), *_trial_owner(trial), expected=isinstance(error, Expected))
        return None
    return params


def _chunk(attrs: Mapping[str, Any], i: int) -> str:
    """Chunk ``i`` of a publication: a str of at most ``SYSTEM_ATTR_MAX_LENGTH`` characters."""
    key = f"{RELATIVE_PARAMS_KEY}:{i}"
    if key not in attrs:
        raise Invalid("missing (the chunk count promises it)", key)
    chunk = attrs[key]
    if not isinstance(chunk, str) or len(chunk) > SYSTEM_ATTR_MAX_LENGTH:
        raise Invalid(f"a chunk must be a str of at most {SYSTEM_ATTR_MAX_LENGTH} characters, got {quoted(chunk)}", key)
    return chunk


def objective_failure_mark(trial: TrialRecord) -> bool:
    """Whether the trial carries the mark of a failure in the objective (``True``)."""
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise Invalid(f"the mark must be true or false, got {quoted(value)}")
        return value

    return bool(trial_attribute(trial, OBJECTIVE_FAILURE_KEY, check, default=False))


def stored_move(trial: TrialRecord) -> tuple[str, bool] | None:
    """The search-policy move a trial stored (``MOVE_KEY``): its kind, a str of at most
    ``MAX_MOVE_KIND_LENGTH`` characters, and whether the study was stalled; None if absent or
    ignored. The policy compares the kind with its own moves: an unknown one matches none."""
    def check(value: Any) -> tuple[str, bool]:
        if not (isinstance(value, list) and len(value) == 2):
            raise Invalid(f"the move must be a list [kind, stalled], got {quoted(value)}")
        kind, stalled = value
        if not isinstance(kind, str) or len(kind) > MAX_MOVE_KIND_LENGTH or not isinstance(stalled, bool):
            raise Invalid(f"the move must be [a short str, true or false], got {quoted(value)}")
        return kind, stalled

    move: tuple[str, bool] | None = trial_attribute(trial, MOVE_KEY, check)
    return move


def stored_moves(trials: Sequence[TrialRecord], trial: TrialRecord) -> dict[int, tuple[str, bool]]:
    """The moves stored by ``trials`` other than ``trial`` (``stored_move``), by trial number."""
    moves = {}
    for other in trials:
        move = stored_move(other) if other.number != trial.number else None
        if move is not None:
            moves[other.number] = move
    return moves


def retried_trial(trial: TrialRecord) -> int | None:
    """The number of the failed trial that ``trial`` retries (RetryFailedTrialCallback), or None:
    an earlier trial's number, or ignored."""
    def check(value: Any) -> int:
        return integer(value, 0, trial.number - 1, "the retried trial's number (an earlier trial)")

    retried: int | None = trial_attribute(trial, RETRIED_TRIAL_KEY, check)
    return retried


def constraint_values(trial: T, read: Callable[[T], Any], attribute: str) -> dict[str, float]:
    """A finished trial's constraint values by name, from ``read(trial)`` (Optuna's format, read
    by ``_optuna_compat``): numbers, not NaN (Optuna refuses it; infinite values stay, the output
    transform bounds them). A value that is none is left out (the trial then counts as
    infeasible for that constraint), all of them if ``read`` fails; ``attribute`` names them in
    warnings."""
    owner = _trial_owner(trial)
    try:
        values = read(trial)
    except (TypeError, ValueError, AttributeError, KeyError) as error:  # Optuna's own reader on garbage
        ignore(attribute, f"no list or mapping of constraint values ({type(error).__name__}: {error})", *owner)
        return {}
    if not isinstance(values, Mapping) or len(values) > MAX_CONSTRAINTS:
        ignore(attribute, f"no mapping of at most {MAX_CONSTRAINTS} constraint values: {quoted(values)}", *owner)
        return {}
    checked = {}
    for name, value in values.items():
        try:
            checked[str(name)] = real(value, f"the constraint {quoted(name)}", allow_infinite=True)
        except Invalid as error:
            ignore(attribute, str(error), *owner)
    return checked


# --- Study system attributes -------------------------------------------------------------------


def study_owner(study_name: str) -> tuple[str, Hashable]:
    """The owner of a study's attributes for ``ignore``."""
    return "the study", ("study", study_name)


def note_version(value: Any, attribute: str, study_name: str) -> int | None:
    """The version of a dashboard note (``_optuna_compat.save_dashboard_note``): 0 when absent
    (None), a non-negative int; None when ignored (the note is then not written)."""
    if value is None:
        return 0
    try:
        return integer(value, 0, 2**31 - 1, "the note version")
    except Invalid as error:
        ignore(attribute, str(error), *study_owner(study_name))
        return None
