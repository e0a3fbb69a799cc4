"""Load cases of a sweep: key paths into a case file, swept values, their combinations.

A load case is the base case file with some values replaced, each named by its key
path as error messages spell it (``links.pto.spring_damper.damping``,
``environment.waves.hs``, ``forces.push.force[0].amplitude``). The values of a key are
given as a list or as an inclusive range (``start:stop:count`` on the command line,
``{start, stop, count}`` in a case file's ``sweep`` section), and the keys are
combined as a Cartesian product (the last key varying fastest) or paired (``zip``).

This module knows nothing of runs or clusters (see :mod:`frylinks.io.sweeps`): the case
reader uses it to check a ``sweep`` section and to apply one case's values.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import yaml

from frylinks.errors import FrylinksError
from frylinks.io.yaml_reading import CaseLoader
from frylinks.params import MAX_MAGNITUDE, did_you_mean, shown

#: Most load cases in one sweep (a product of a few long lists grows fast).
MAX_CASES = 100_000
#: Keys of a case file's ``sweep`` section and of a range of values.
SWEEP_KEYS = ("set", "zip")
RANGE_KEYS = ("start", "stop", "count")

_NAME = r"[^.\[\]\s]+"
_KEY_PATH = re.compile(rf"{_NAME}(\[\d+\])*(\.{_NAME}(\[\d+\])*)*")
_TOKEN = re.compile(rf"({_NAME})|\[(\d+)\]")


class LoadCaseError(FrylinksError):
    """A swept key or its values are wrong; ``where`` says where they were given."""


@dataclass(frozen=True)
class Sweep:
    """The definition of a sweep: values per key path, and how to combine them.

    Parameters
    ----------
    values
        Key path -> its values, in the order given (the order of the coordinates).
    zip
        Pair the i-th values of every key instead of taking every combination.
    """

    values: dict[str, list[Any]]
    zip: bool = False

    def cases(self) -> list[dict[str, Any]]:
        """Every load case: key path -> value.

        A Cartesian product varies the last key fastest (C order), so a sweep over
        ``a`` then ``b`` reshapes to an array of shape ``(len(a), len(b))``.

        Raises
        ------
        LoadCaseError
            For zipped lists of different lengths, or more than :data:`MAX_CASES` cases.
        """
        keys = list(self.values)
        lists = [self.values[k] for k in keys]
        if self.zip:
            lengths = {k: len(v) for k, v in self.values.items()}
            if len(set(lengths.values())) > 1:
                given = ", ".join(f"{k} has {n}" for k, n in lengths.items())
                raise LoadCaseError(f"zip pairs the values of every key, so each needs as "
                                    f"many: {given}")
            combos: Sequence[tuple[Any, ...]] = list(zip(*lists, strict=True))
        else:
            n = math.prod(len(v) for v in lists)
            if n > MAX_CASES:
                raise LoadCaseError(f"{n} load cases (the product of "
                                    f"{' x '.join(str(len(v)) for v in lists)}); at most "
                                    f"{MAX_CASES} in one sweep")
            combos = list(itertools.product(*lists))
        return [dict(zip(keys, combo, strict=True)) for combo in combos]

    def to_json(self) -> dict[str, Any]:
        """Plain data (stored in a sweep's results file to recognise it on resume)."""
        return {"set": {k: [_plain(v) for v in vals] for k, vals in self.values.items()},
                "zip": self.zip}


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def split_key(key: str) -> list[str | int]:
    """The steps of a key path: ``"forces.w.force[2].omega"`` -> ``["forces", "w",
    "force", 2, "omega"]``.

    Raises
    ------
    LoadCaseError
        For an empty path or one that is not dotted names with ``[index]`` suffixes.
    """
    if not isinstance(key, str) or not key.strip():
        raise LoadCaseError(f"expected a key path such as links.pto.spring_damper.damping, "
                            f"got {shown(key)}")
    if not _KEY_PATH.fullmatch(key):
        raise LoadCaseError(f"{key!r} is not a key path: names joined by dots, with [index] "
                            "for an item of a list (e.g. forces.push.force[0].amplitude)")
    return [name if name else int(index) for name, index in _TOKEN.findall(key)]


def check_key(data: Any, key: str) -> None:
    """Check that ``key`` can be set in a case's ``data``: every step but the last must
    exist; the last may be a key the case does not give yet (a default).

    Raises
    ------
    LoadCaseError
        Naming the first step that does not exist and what exists there.
    """
    _parent(data, key)


def set_value(data: Any, key: str, value: Any) -> None:
    """Set ``key`` in a case's ``data`` (the loaded YAML) to ``value``, in place.

    Raises
    ------
    LoadCaseError
        As :func:`check_key`.
    """
    parent, last = _parent(data, key)
    parent[last] = value


def _parent(data: Any, key: str) -> tuple[Any, str | int]:
    steps = split_key(key)
    node = data
    for i, step in enumerate(steps):
        here = _joined(steps[:i]) or "the top level"
        last = i == len(steps) - 1
        if isinstance(step, int):
            if not isinstance(node, list):
                raise LoadCaseError(f"{key}: {here} is not a list, so [{step}] names nothing")
            if step >= len(node):
                raise LoadCaseError(f"{key}: {here} has {len(node)} items (from [0])")
        else:
            if not isinstance(node, MutableMapping):
                raise LoadCaseError(f"{key}: {here} holds {shown(node)}, not keys")
            if step not in node and not last:
                known = [str(k) for k in node]
                raise LoadCaseError(f"{key}: the case has no {step!r} in {here}"
                                    f"{did_you_mean(step, known)} (there: "
                                    f"{', '.join(known) or 'nothing'})")
        if last:
            return node, step
        node = node[step]
    raise AssertionError("unreachable")  # split_key returns at least one step


def _joined(steps: Sequence[str | int]) -> str:
    out = ""
    for step in steps:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def parse_values(text: str) -> list[Any]:
    """The values of ``--set KEY=VALUES``.

    ``VALUES`` is ``start:stop:count`` (``count`` values from ``start`` to ``stop``
    inclusive, as ``numpy.linspace``), a comma-separated list (``1e5,2e5,4e5``;
    ``jonswap,pierson_moskowitz``) or a YAML flow list (``[[0, 0, 1], [0, 0, 2]]``).
    Each item is read as a case file reads a value (numbers, true/false, text).

    Raises
    ------
    LoadCaseError
        For an empty list, a malformed range or an item YAML cannot read.
    """
    text = text.strip()
    parts = text.split(":")
    # YAML 1.1 would read 1:2 as the sexagesimal 62: a colon outside a list is a range
    if len(parts) > 1 and not text.startswith("["):
        try:
            if len(parts) != 3:
                raise ValueError
            start, stop = float(parts[0]), float(parts[1])
            count = int(parts[2])
        except ValueError:
            raise LoadCaseError(f"{text!r}: a range is start:stop:count, e.g. 1e5:4e5:4 "
                                "(count values, both ends included)") from None
        return expand_range({"start": start, "stop": stop, "count": count}, text)
    try:
        if text.startswith("["):
            values = yaml.load(text, Loader=CaseLoader)
        else:
            values = [yaml.load(item, Loader=CaseLoader) if item.strip() else None
                      for item in text.split(",")]
    except yaml.YAMLError as exc:
        raise LoadCaseError(f"{text!r}: cannot read the values ({exc})") from None
    return check_list(values, text)


def expand(spec: Any, where: str) -> list[Any]:
    """The values of one key of a case file's ``sweep.set``: a list, or a mapping
    ``{start, stop, count}`` (inclusive range).

    Raises
    ------
    LoadCaseError
        For anything else, an empty list or a malformed range.
    """
    if isinstance(spec, Mapping):
        return expand_range(spec, where)
    return check_list(spec, where)


def check_list(values: Any, where: str) -> list[Any]:
    """A non-empty list of values, none of them empty (``1,,2``) or non-finite."""
    if not isinstance(values, list) or not values:
        raise LoadCaseError(f"{where}: expected a list of values or a range "
                            f"(start:stop:count), got {shown(values)}")
    if len(values) > MAX_CASES:
        raise LoadCaseError(f"{where}: {len(values)} values; at most {MAX_CASES}")
    for i, v in enumerate(values):
        if v is None:
            raise LoadCaseError(f"{where}: value {i + 1} is empty")
        if isinstance(v, float) and not math.isfinite(v):
            raise LoadCaseError(f"{where}: value {i + 1} is {v}; expected finite numbers")
    return list(values)


def expand_range(spec: Mapping[str, Any], where: str) -> list[float]:
    """``count`` numbers from ``start`` to ``stop``, both included (numpy.linspace)."""
    unknown = [k for k in spec if k not in RANGE_KEYS]
    missing = [k for k in RANGE_KEYS if k not in spec]
    if unknown or missing:
        raise LoadCaseError(f"{where}: a range has the keys start, stop and count"
                            + (f"; unknown: {', '.join(map(str, unknown))}" if unknown else "")
                            + (f"; missing: {', '.join(missing)}" if missing else ""))
    bounds = []
    for k in ("start", "stop"):
        v = spec[k]
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) \
                or abs(v) > MAX_MAGNITUDE:
            raise LoadCaseError(f"{where}: {k} must be a finite number, got {shown(v)}")
        bounds.append(float(v))
    count = spec["count"]
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_CASES:
        raise LoadCaseError(f"{where}: count must be a whole number from 1 to {MAX_CASES}, "
                            f"got {shown(count)}")
    if count == 1 and bounds[0] != bounds[1]:
        raise LoadCaseError(f"{where}: one value cannot span {bounds[0]:g} to {bounds[1]:g}; "
                            "give count >= 2 (both ends are included)")
    return [float(v) for v in np.linspace(bounds[0], bounds[1], count)]


def read_sweep(section: Any, data: Any) -> Sweep:
    """A case file's ``sweep`` section, checked against the case's ``data``.

    Raises
    ------
    LoadCaseError
        With the key path inside the section (``sweep.set.<key>``) in front.
    """
    if not isinstance(section, Mapping):
        raise LoadCaseError(f"sweep: expected the keys set and zip, got {shown(section)}")
    for key in section:
        if key not in SWEEP_KEYS:
            raise LoadCaseError(f"sweep.{key}: unknown key{did_you_mean(str(key), SWEEP_KEYS)}"
                                f" (accepted: {', '.join(SWEEP_KEYS)})")
    zipped = section.get("zip", False)
    if not isinstance(zipped, bool):
        raise LoadCaseError(f"sweep.zip: expected true or false, got {shown(zipped)}")
    given = section.get("set")
    if not isinstance(given, Mapping) or not given:
        raise LoadCaseError("sweep.set: expected a mapping of key paths to their values, "
                            "e.g. 'environment.waves.hs: [1.0, 2.0]', got "
                            f"{shown(given)}")
    values: dict[str, list[Any]] = {}
    for key, spec in given.items():
        where = f"sweep.set.{key}"
        if not isinstance(key, str):
            raise LoadCaseError(f"{where}: a key path is text, got {shown(key)}")
        try:
            check_key(data, key)
        except LoadCaseError as exc:
            raise LoadCaseError(f"{where}: {exc}") from None
        values[key] = expand(spec, where)
    sweep = Sweep(values, zipped)
    sweep.cases()  # the count and zip lengths
    return sweep


__all__ = ["MAX_CASES", "LoadCaseError", "Sweep", "check_key", "expand", "parse_values",
           "read_sweep", "set_value", "split_key"]
