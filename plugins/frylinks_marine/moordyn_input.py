"""MoorDyn input files: what frylinks reads of one (:func:`read_input`), the case-file
keys ``line_types`` and ``lines`` (:data:`LINE_TYPE_KEYS`, :data:`LINE_KEYS`,
:func:`case_lines`) written into one (:func:`write_input`), and the options frylinks
sets in a user's file (:func:`with_options`).

The force type :class:`~frylinks_marine.moordyn_lines.MoorDynLines` hands MoorDyn the
file's text; the fields read here are those frylinks itself needs (the coupled points,
the lines' static catenaries, the messages).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ModelError

Array = np.ndarray


@dataclass
class MoorDynInput:
    """What frylinks reads of a MoorDyn input file (MoorDyn reads all of it)."""

    #: line type name -> ``(diameter, mass per length, EA)`` (EA NaN when not a number)
    line_types: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    #: point id -> ``(attachment, position)``; attachment ``fixed``, ``coupled``, ``free``
    points: dict[int, tuple[str, Array]] = field(default_factory=dict)
    #: ``(id, line type, end A point, end B point, unstretched length, segments)``
    lines: list[tuple[int, str, int, int, float, int]] = field(default_factory=list)
    #: option name (lower case) -> value text
    options: dict[str, str] = field(default_factory=dict)
    #: option name (lower case) -> the name as the file spells it
    option_names: dict[str, str] = field(default_factory=dict)
    #: bodies or rods in the file (not coupled to frylinks)
    others: list[str] = field(default_factory=list)

    @property
    def coupled(self) -> list[int]:
        """Coupled point ids in MoorDyn's order (the file's)."""
        return [i for i, (kind, _) in self.points.items() if kind == "coupled"]


_SECTIONS = (("LINE TYPE", "types"), ("LINE DICTIONARY", "types"), ("ROD TYPE", "skip"),
             ("ROD DICTIONARY", "skip"), ("BODIES", "bodies"), ("BODY LIST", "bodies"),
             ("RODS", "rods"), ("ROD LIST", "rods"), ("POINT", "points"),
             ("CONNECTION", "points"), ("NODE", "points"), ("LINE", "lines"),
             ("OPTIONS", "options"), ("OUTPUT", "outputs"))
_ATTACHMENTS = {"fixed": "fixed", "fix": "fixed", "anchor": "fixed", "coupled": "coupled",
                "vessel": "coupled", "vel": "coupled", "cpld": "coupled", "free": "free",
                "connect": "free", "con": "free"}


def _number(text: str, what: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ModelError(f"{what}: expected a number, got {text!r}", where) from None
    if not math.isfinite(value):
        raise ModelError(f"{what}: expected a finite number, got {text!r}", where)
    return value


def read_input(text: str, where: str) -> MoorDynInput:
    """The lines, points, line types and options of a MoorDyn input file's ``text``
    (``where`` names the file in errors). Raises ModelError for a row it cannot read."""
    out = MoorDynInput()
    section = None
    header = 0
    for number, raw in enumerate(text.splitlines(), 1):
        row = raw.strip()
        if row.startswith("---"):
            upper = row.upper()
            section = next((s for key, s in _SECTIONS if key in upper), None)
            header = 2 if section in ("types", "bodies", "rods", "points", "lines") else 0
            continue
        if not row or section in (None, "skip", "outputs"):
            continue
        if header:
            header -= 1
            continue
        cols = row.split()
        here = f"{where}, line {number}"
        if section == "options":
            if len(cols) >= 2:
                out.options[cols[1].lower()] = cols[0]
                out.option_names[cols[1].lower()] = cols[1]
        elif section == "types":
            if len(cols) < 4:
                raise ModelError(f"a line type needs name, diameter, mass and EA: {row!r}",
                                 here)
            ea = cols[3]
            try:
                ea_value = float(ea)
            except ValueError:
                ea_value = math.nan  # a table of tension against strain
            out.line_types[cols[0]] = (_number(cols[1], "diameter", here),
                                       _number(cols[2], "mass per length", here), ea_value)
        elif section in ("bodies", "rods"):
            out.others.append(f"{section[:-1]} {cols[0]}")
        elif section == "points":
            if len(cols) < 5:
                raise ModelError(f"a point needs id, attachment, x, y, z: {row!r}", here)
            kind = cols[1].lower()
            kind = _ATTACHMENTS.get(kind, "body" if kind.startswith(("body", "turbine"))
                                    else kind)
            pos = np.array([_number(c, "point position", here) for c in cols[2:5]])
            out.points[int(_number(cols[0], "point id", here))] = (kind, pos)
        elif section == "lines":
            if len(cols) < 6:
                raise ModelError("a line needs id, line type, attach A, attach B, length, "
                                 f"segments: {row!r}", here)
            ends = []
            for c in cols[2:4]:
                digits = "".join(ch for ch in c if ch.isdigit())
                ends.append(int(digits) if digits and c[0] not in "RrBb" else -1)
            out.lines.append((int(_number(cols[0], "line id", here)), cols[1], ends[0],
                              ends[1], _number(cols[4], "length", here),
                              int(_number(cols[5], "segments", here))))
    if not out.lines:
        raise ModelError("holds no LINES section with a line (is it a MoorDyn v2 input "
                         "file?)", where)
    return out


#: Keys of a line type in a case file: MoorDyn's column, units, default (None: required).
LINE_TYPE_KEYS: dict[str, tuple[str, str, float | None, str]] = {
    "diameter": ("Diam", "m", None, "volume-equivalent diameter d"),
    "mass": ("Mass/m", "kg m-1", None, "mass per unit length in air"),
    "axial_stiffness": ("EA", "N", None, "axial stiffness EA"),
    "axial_damping": ("BA/-zeta", "N s", -1.0,
                      "internal axial damping BA; negative: minus the damping ratio of each "
                      "segment's axial mode (MoorDyn's -zeta; -1 critical)"),
    "bending_stiffness": ("EI", "N m2", 0.0, "bending stiffness EI"),
    "drag": ("Cd", "1", 1.2, "transverse drag coefficient"),
    "added_mass": ("Ca", "1", 1.0, "transverse added-mass coefficient"),
    "axial_drag": ("CdAx", "1", 0.05, "tangential drag coefficient"),
    "axial_added_mass": ("CaAx", "1", 0.0, "tangential added-mass coefficient"),
}
#: Keys of a line in a case file: units, default, meaning.
LINE_KEYS: dict[str, tuple[str, Any, str]] = {
    "line_type": ("", None, "a key of line_types"),
    "anchor": ("m", None, "anchor position, world axes (a fixed point)"),
    "fairlead": ("m", None, "fairlead position on the body, body axes from the COG"),
    "length": ("m", None, "unstretched length"),
    "segments": ("1", 20, "number of segments (lumped masses: segments + 1 nodes)"),
}


def case_lines(params: Mapping[str, Any]) -> tuple[dict[str, dict[str, float]],
                                                   list[dict[str, Any]]]:
    """The ``line_types`` and ``lines`` keys checked, with defaults filled in."""
    given = params["line_types"]
    if not isinstance(given, Mapping) or not given:
        raise ModelError("expected a mapping of line type names to {diameter, mass, "
                         "axial_stiffness, ...}", "line_types")
    types_: dict[str, dict[str, float]] = {}
    for name, lt in given.items():
        where = f"line_types.{name}"
        if not isinstance(lt, Mapping):
            raise ModelError("expected a mapping of " + ", ".join(LINE_TYPE_KEYS), where)
        unknown = sorted(set(lt) - set(LINE_TYPE_KEYS))
        if unknown:
            raise ModelError(f"unknown key {unknown[0]!r}; accepted: "
                             + ", ".join(LINE_TYPE_KEYS), where)
        entry: dict[str, float] = {}
        for key, (_, units, default, _doc) in LINE_TYPE_KEYS.items():
            value = lt.get(key, default)
            if value is None:
                raise ModelError(f"missing {key} [{units}]", where)
            v = _number(str(value), key, f"{where}.{key}")
            if key in ("diameter", "mass", "axial_stiffness") and not v > 0:
                raise ModelError(f"expected a number > 0, got {value!r}", f"{where}.{key}")
            entry[key] = v
        types_[str(name)] = entry
    lines = params["lines"]
    if not isinstance(lines, Sequence) or isinstance(lines, str) or not lines:
        raise ModelError("expected a list of lines, each {line_type, anchor, fairlead, "
                         "length, segments}", "lines")
    out = []
    for i, line in enumerate(lines):
        where = f"lines[{i}]"
        if not isinstance(line, Mapping):
            raise ModelError("expected a mapping of " + ", ".join(LINE_KEYS), where)
        unknown = sorted(set(line) - set(LINE_KEYS))
        if unknown:
            raise ModelError(f"unknown key {unknown[0]!r}; accepted: " + ", ".join(LINE_KEYS),
                             where)
        row: dict[str, Any] = {}
        for key, (units, default, _doc) in LINE_KEYS.items():
            value = line.get(key, default)
            if value is None:
                raise ModelError(f"missing {key}" + (f" [{units}]" if units else ""), where)
            row[key] = value
        if row["line_type"] not in types_:
            raise ModelError(f"unknown line type {row['line_type']!r}; known: "
                             + ", ".join(types_), f"{where}.line_type")
        for key in ("anchor", "fairlead"):
            given_v = row[key]
            if not (isinstance(given_v, Sequence) and not isinstance(given_v, str)
                    and len(given_v) == 3):
                raise ModelError(f"expected 3 numbers [m], got {given_v!r}", f"{where}.{key}")
            row[key] = np.array([_number(str(c), key, f"{where}.{key}") for c in given_v])
        row["length"] = _number(str(row["length"]), "length", f"{where}.length")
        if not row["length"] > 0:
            raise ModelError("expected a length > 0 [m]", f"{where}.length")
        seg = row["segments"]
        if isinstance(seg, bool) or not isinstance(seg, int | np.integer) or seg < 1:
            raise ModelError(f"expected a whole number >= 1, got {seg!r}", f"{where}.segments")
        out.append(row)
    return types_, out


def _num(value: Any) -> str:
    """A number as MoorDyn reads it back exactly (Python's shortest round-trip form; a
    whole number as an integer, as MoorDyn's flags want)."""
    v = float(value)
    return str(int(v)) if v.is_integer() and abs(v) < 2**53 else repr(v)


def write_input(line_types: Mapping[str, Mapping[str, float]],
                lines: Sequence[Mapping[str, Any]], fairleads_world: Array,
                options: Mapping[str, float]) -> str:
    """A MoorDyn input file: each line from a fixed anchor to a coupled fairlead at
    ``fairleads_world (n, 3)``."""
    rows = ["--------------------- MoorDyn Input File (written by frylinks) ---------",
            "frylinks moordyn force: lines from the case file",
            "----------------------- LINE TYPES -----------------------------------"]
    rows.append("TypeName " + " ".join(col for col, *_ in LINE_TYPE_KEYS.values()))
    rows.append("(name) " + " ".join(f"({u})" for _, u, *_ in LINE_TYPE_KEYS.values()))
    for name, lt in line_types.items():
        rows.append(f"{name} " + " ".join(repr(float(lt[k])) for k in LINE_TYPE_KEYS))
    rows += ["---------------------- POINTS ----------------------------------------",
             "ID Attachment X Y Z Mass Volume CdA Ca",
             "(#) (-) (m) (m) (m) (kg) (m^3) (m^2) (-)"]
    n = len(lines)
    for i, line in enumerate(lines):
        a = line["anchor"]
        rows.append(f"{i + 1} Fixed {_num(a[0])} {_num(a[1])} {_num(a[2])} 0 0 0 0")
    for i in range(n):
        f = fairleads_world[i]
        rows.append(f"{n + i + 1} Coupled {_num(f[0])} {_num(f[1])} {_num(f[2])} 0 0 0 0")
    rows += ["---------------------- LINES -----------------------------------------",
             "ID LineType AttachA AttachB UnstrLen NumSegs Outputs",
             "(#) (name) (#) (#) (m) (-) (-)"]
    for i, line in enumerate(lines):
        rows.append(f"{i + 1} {line['line_type']} {i + 1} {n + i + 1} {_num(line['length'])} "
                    f"{int(line['segments'])} -")
    rows.append("---------------------- OPTIONS ---------------------------------------")
    rows += [f"{_num(value)} {name}" for name, value in options.items()]
    rows += ["---------------------- OUTPUTS ---------------------------------------",
             "END", "------------------------- need this line ----------------------------"]
    return "\n".join(rows) + "\n"


def side_files(inp: MoorDynInput, folder: Path, where: str) -> dict[str, str]:
    """The options of ``inp`` that name a file (a value with a path separator or a file
    extension, not a number), each made absolute from ``folder``, where MoorDyn looks for
    it beside its input file: frylinks hands MoorDyn a copy of the file written elsewhere.

    Raises
    ------
    ModelError
        Naming the option and the file it does not find.
    """
    out = {}
    for key, value in inp.options.items():
        try:
            float(value)
            continue
        except ValueError:
            pass
        if not ("/" in value or "\\" in value or Path(value).suffix):
            continue   # a word (tScheme RK4)
        path = Path(value) if Path(value).is_absolute() else folder / value
        if not path.is_file():
            raise ModelError(f"{where}: its option {inp.option_names.get(key, key)} names "
                             f"the file '{value}', not found (looked for '{path}')", "file")
        out[inp.option_names.get(key, key)] = str(path.resolve())
    return out


def with_options(text: str, options: Mapping[str, str]) -> str:
    """``text`` with ``options`` set in its OPTIONS section (replaced or added)."""
    out = []
    inside = False
    done: set[str] = set()
    for raw in text.splitlines():
        row = raw.strip()
        if row.startswith("---"):
            if inside:
                out += [f"{v} {k}" for k, v in options.items() if k.lower() not in done]
                done.update(k.lower() for k in options)
            inside = "OPTIONS" in row.upper()
            out.append(raw)
            continue
        cols = row.split()
        if inside and len(cols) >= 2 and cols[1].lower() in {k.lower() for k in options}:
            key = next(k for k in options if k.lower() == cols[1].lower())
            out.append(f"{options[key]} {key}")
            done.add(key.lower())
            continue
        out.append(raw)
    if not done:
        raise ModelError("has no OPTIONS section (frylinks sets dtM and silences MoorDyn's "
                         "progress there)")
    return "\n".join(out) + "\n"
