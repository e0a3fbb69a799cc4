"""Parameter specifications of plugin types, and the one parser every type's input goes through.

A link, force or signal type declares its parameters as a mapping of name to
:class:`Param` (kind, units, default, documentation). The same declarations check the
Python API's keyword arguments, the case file's keys and feed the JSON schema, so a
type's input is described once.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import math
import os
import reprlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ModelError


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

KINDS = ("float", "vector", "choice", "signal", "points", "callable", "node", "body", "path",
         "any")

#: Largest magnitude of an input number. No quantity of a marine model comes near it, and
#: products of larger ones (a position squared, a stiffness times a displacement) would
#: overflow the arithmetic before the run could report anything useful.
MAX_MAGNITUDE = 1.0e30


@dataclass(frozen=True)
class Param:
    """Declaration of one parameter of a plugin type.

    Parameters
    ----------
    kind
        ``float`` (a number), ``vector`` (3 numbers), ``choice`` (one of ``choices``),
        ``signal`` (a number or a signal mapping), ``points`` (list of ``[t, value]``),
        ``callable`` (Python API only), ``node``/``body`` (a reference), ``path`` (a
        file: a relative path is read from the case file's directory, see
        :func:`relative_to`), ``any``.
    units
        CF units string (``"N m-1"``); ``"1"`` for dimensionless, ``""`` for references
        and choices.
    doc
        One line for the documentation and the schema.
    default
        Value used when the key is absent; :data:`REQUIRED` if it must be given.
    minimum
        Smallest accepted value (inclusive) of a number, or None.
    positive
        Require numbers strictly greater than 0.
    signal
        For ``vector``: each component may also be a signal mapping.
    choices
        Accepted words for ``choice``.
    """

    kind: str
    units: str
    doc: str
    default: Any = REQUIRED
    minimum: float | None = None
    positive: bool = False
    signal: bool = False
    choices: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown parameter kind {self.kind!r}; known: {', '.join(KINDS)}")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


#: Directory relative ``path`` parameters are read from while a case file is read
#: (None: the working directory, as for a Python script).
_BASE_DIRECTORY: contextvars.ContextVar[Path | None] = contextvars.ContextVar(
    "frylinks_base_directory", default=None)


@contextlib.contextmanager
def relative_to(directory: str | os.PathLike[str] | None) -> Iterator[None]:
    """Read relative ``path`` parameters from ``directory`` within the block.

    The case reader reads a case file in this block with the file's directory, so that a
    case names its data files (hydrodynamic datasets, time series) beside itself and runs
    from any working directory, and on any machine of a cluster that sees the same files.
    """
    token = _BASE_DIRECTORY.set(None if directory is None else Path(directory).resolve())
    try:
        yield
    finally:
        _BASE_DIRECTORY.reset(token)


def as_path(value: Any, where: str) -> Path:
    """A file path parameter, made absolute: relative to the case file's directory while a
    case file is read (:func:`relative_to`), else to the working directory.

    Raises
    ------
    ModelError
        If ``value`` is not a non-empty text or path.
    """
    if not isinstance(value, str | os.PathLike) or not str(value).strip():
        raise ModelError(f"expected a file path, got {shown(value)}", where)
    path = Path(value).expanduser()
    base = _BASE_DIRECTORY.get()
    # normpath: messages show '/data/x.nc', not '/cases/../data/x.nc'
    return path if path.is_absolute() else Path(os.path.normpath((base or Path.cwd()) / path))


def did_you_mean(word: Any, known: list[str] | tuple[str, ...]) -> str:
    """A ``; did you mean 'x'?`` suffix for an unknown word, or ``""`` (also for a value
    that is not a word)."""
    if not isinstance(word, str):
        return ""
    # a word in other case is the likeliest slip (RK4 for rk4), then a close spelling
    same = [k for k in known if k.lower() == word.lower()]
    close = same or difflib.get_close_matches(word.lower(), [k.lower() for k in known],
                                              n=1, cutoff=0.6)
    if not close:
        return ""
    match = next(k for k in known if k.lower() == close[0].lower())
    return f"; did you mean {match!r}?"


def check_keys(given: Mapping[str, Any], known: list[str] | tuple[str, ...], path: str) -> None:
    """Raise for the first key of ``given`` not in ``known``, with a suggestion."""
    for key in given:
        if key not in known:
            raise ModelError(
                f"unknown key {key!r}{did_you_mean(str(key), known)} "
                f"(accepted: {', '.join(sorted(known)) or 'none'})",
                f"{path}.{key}" if path else str(key),
            )


_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = 8
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 60


def shown(value: Any) -> str:
    """``repr(value)`` cut to 60 characters, for error messages.

    Built piece by piece with :mod:`reprlib`: a YAML alias may nest one list nine times
    in nine others, nine levels deep (a "billion laughs"), whose full repr never ends.
    """
    text = _REPR.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float(value: Any, path: str, units: str = "", *, positive: bool = False,
             minimum: float | None = None) -> float:
    """Check and convert one number: not a bool, finite, of magnitude at most
    :data:`MAX_MAGNITUDE`."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        unit = f" [{units}]" if units and units != "1" else ""
        hint = " (a signal is not accepted here)" if is_signal_spec(value) else ""
        raise ModelError(f"expected a number{unit}{hint}, got {shown(value)}", path)
    try:
        x = float(value)
    except OverflowError:  # an integer beyond the float range (YAML reads 1 and 400 zeros)
        x = math.inf
    if not math.isfinite(x):
        raise ModelError(f"expected a finite number, got {shown(value)}", path)
    if abs(x) > MAX_MAGNITUDE:
        raise ModelError(f"{x:g} is out of range: numbers are accepted up to "
                         f"{MAX_MAGNITUDE:g} in magnitude", path)
    if positive and x <= 0:
        raise ModelError(f"must be > 0, got {x:g}", path)
    if minimum is not None and x < minimum:
        raise ModelError(f"must be >= {minimum:g}, got {x:g}", path)
    return x


def as_vector(value: Any, path: str, n: int = 3) -> np.ndarray:
    """Check and convert a list of ``n`` finite numbers."""
    if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__len__"):
        raise ModelError(f"expected a list of {n} numbers, got {shown(value)}", path)
    if len(value) != n:
        raise ModelError(f"expected {n} numbers, got {len(value)}", path)
    return np.array([as_float(v, f"{path}[{i}]") for i, v in enumerate(value)])


#: Most numbers :func:`try_array` converts (inertia and spring-damper matrices are small).
MAX_ARRAY_SIZE = 10_000


def try_array(value: Any) -> np.ndarray | None:
    """``value`` as a float array, or None if it is text, a mapping, not numeric or
    nested lists of more than :data:`MAX_ARRAY_SIZE` items."""
    if isinstance(value, str | bytes | Mapping) or not _small(value):
        return None
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    except OverflowError:  # an integer beyond the float range: as inf, refused as such
        return _huge_ints_as_inf(value)


def _small(value: Any) -> bool:
    """Nested lists hold at most :data:`MAX_ARRAY_SIZE` items in all (counted without
    expanding YAML aliases, which may share one list a billion times)."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            count += len(item)
            if count > MAX_ARRAY_SIZE:
                return False
            stack.extend(item)
    return True


def _huge_ints_as_inf(value: Any) -> np.ndarray | None:
    def convert(v: Any) -> Any:
        if isinstance(v, list | tuple):
            return [convert(x) for x in v]
        if isinstance(v, int) and not isinstance(v, bool):
            try:
                return float(v)
            except OverflowError:
                return math.inf if v > 0 else -math.inf
        return v

    try:
        return np.asarray(convert(value), dtype=float)
    except (TypeError, ValueError, OverflowError):
        return None


def is_signal_spec(value: Any) -> bool:
    """True for a signal given in place of a number: a mapping with a ``type``."""
    return isinstance(value, Mapping) and "type" in value


def parse_params(
    spec: Mapping[str, Param],
    given: Mapping[str, Any],
    path: str,
    check_signal: Callable[[Any, str], Any] | None = None,
) -> dict[str, Any]:
    """Check ``given`` against ``spec`` and return every parameter's value.

    Parameters
    ----------
    spec
        The type's parameter declarations.
    given
        The values supplied (case-file mapping or keyword arguments).
    path
        Key path of ``given``, for error messages.
    check_signal
        Called as ``check_signal(mapping, path)`` on each signal mapping found; returns
        the checked signal (raises :class:`ModelError` if it is not a valid signal).

    Returns
    -------
    dict
        One entry per declared parameter; vectors are float arrays (or lists holding
        numbers and checked signals where signals are allowed).
    """
    check_keys(given, tuple(spec), path)
    out: dict[str, Any] = {}
    for name, p in spec.items():
        where = f"{path}.{name}" if path else name
        if name not in given or given[name] is None:
            if p.required:
                raise ModelError(f"missing required parameter ({p.doc})", where)
            out[name] = p.default
            continue
        out[name] = _parse_one(p, given[name], where, check_signal)
    return out


def _parse_one(p: Param, value: Any, where: str, check_signal: Callable[[Any, str], Any] | None
               ) -> Any:
    if p.kind == "float":
        return as_float(value, where, p.units, positive=p.positive, minimum=p.minimum)
    if p.kind == "vector":
        if not p.signal or not any(is_signal_spec(v) for v in _items(value)):
            return as_vector(value, where)
        if len(value) != 3:
            raise ModelError(f"expected 3 components, got {len(value)}", where)
        return [
            _signal_or_number(v, f"{where}[{i}]", p, check_signal) for i, v in enumerate(value)
        ]
    if p.kind == "signal":
        return _signal_or_number(value, where, p, check_signal)
    if p.kind == "choice":
        if value not in p.choices:
            raise ModelError(
                f"unknown value {shown(value)}{did_you_mean(value, p.choices)}; "
                f"accepted: {', '.join(p.choices)}", where)
        return value
    if p.kind == "points":
        if isinstance(value, str | Mapping) or not hasattr(value, "__len__") or len(value) < 1:
            raise ModelError("expected a list of [time, value] pairs", where)
        pts = np.array([as_vector(v, f"{where}[{i}]", 2) for i, v in enumerate(value)])
        if np.any(np.diff(pts[:, 0]) <= 0):
            raise ModelError("times must increase strictly", where)
        return pts
    if p.kind == "callable":
        if not callable(value):
            raise ModelError(f"expected a Python callable, got {shown(value)}", where)
        return value
    if p.kind == "path":
        return as_path(value, where)
    if p.kind in ("node", "body"):
        if not isinstance(value, str) and not hasattr(value, "name"):
            raise ModelError(f"expected a {p.kind} name, got {shown(value)}", where)
        return value
    return value


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _signal_or_number(value: Any, where: str, p: Param,
                      check_signal: Callable[[Any, str], Any] | None) -> Any:
    if is_signal_spec(value):
        if check_signal is None:
            raise ModelError("a signal is not accepted here", where)
        return check_signal(value, where)
    return as_float(value, where, p.units)
