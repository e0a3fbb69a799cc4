"""Mutated case files either run or raise a CaseError naming the file: nothing else.

Hypothesis starts from valid case files (every ``cases/*.yaml`` and a few small cases
here that use every registered link, force and signal type) and damages them: a key
deleted, renamed to a near-typo or added; a value replaced by another from a rich pool
(negative, zero, huge, ``.nan``, ``.inf``, booleans, null, text, typos, empty and nested
lists, wrong-length vectors, mappings, signals where numbers go and numbers where
signals go, dates, binary, sets, a shared or recursive YAML alias); a ``type`` changed
to another registered type; a node reference broken; or the YAML text itself cut (a
line deleted or duplicated, indentation broken, a tab, a ``!!python`` tag). Each mutant
is run for a few steps with :func:`frylinks.run`, on the Python path: what is tested is
the reading of the file, and a few steps of a model of several types do not repay
compiling its step (100 s for the seed with every axis link type on the CI machine;
``tests/test_compiled.py`` checks every type and shipped case compiled). It must return
a Dataset (completed or diverged: both are runs) or raise
:class:`~frylinks.errors.CaseError` whose message names the file and, when only keys and
values were changed, a key path and its line.
Any other exception, a numpy ``RuntimeWarning``, a hang or code run from the file is a
bug. The default profile is derandomised (the same examples in CI every time); the
``slow`` one draws many more at random.
"""

from __future__ import annotations

import copy
import datetime
import math
import re
import signal
import string
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import xarray as xr
import yaml
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

import frylinks
from frylinks.engine.compose import python_path
from frylinks.errors import CaseError
from frylinks.io.case import CaseLoader
from frylinks.model.registry import Registry
from frylinks.params import shown
from tests.test_cases import EXPECTED_WARNINGS

ROOT = Path(__file__).resolve().parents[1]
CASES = sorted((ROOT / "cases").glob("*.yaml"))
TABLE = str(ROOT / "tests" / "data" / "table.csv")

#: Overrides of every run: six steps, a whole number of dt * every for every = 1, 2, 3, 6.
DT = 0.005
T_END = 0.03
#: A run longer than this [s] is a hang. The slowest mutants take about 3 s once their
#: step is compiled; a mutant of a new kind of model (a type changed) first compiles its
#: step: the seeds with every link type take about 25 s on a quiet 2-core machine and
#: twice that on a loaded one (docs/compiled.md). A hang never ends, so three minutes
#: still tell one.
TIMEOUT = 180

SINE = {"type": "sine", "amplitude": 0.1, "omega": 2.0, "phase_deg": 0.0, "offset": 0.0}
RAMP = {"type": "ramp", "t_start": 0.0, "t_end": 1.0, "initial": 0.0, "final": 5.0}
CONSTANT = {"type": "constant", "value": 2.0}
SPLINE = {"type": "linear_spline", "points": [[0.0, 0.0], [0.5, 1.0], [2.0, -1.0]]}
TABLE_SIGNAL = {"type": "table", "file": TABLE, "column": "force"}


def _body(position: list[float], **extra: Any) -> dict[str, Any]:
    return {"mass": 2.0, "inertia": [1.0, 1.5, 2.0], "position": position, **extra}


#: The axis links, each from a ground node to its own body, with every spring-damper form.
AXIS_LINKS: dict[str, Any] = {
    "frylinks": 1,
    "name": "axis-links",
    "description": "one body per axis link type",
    "gravity": [0, 0, -9.81],
    "ground": {"nodes": {"o": {"position": [0, 0, 0]},
                         "tilted": {"position": [0, 0, 0],
                                    "orientation": {"axis": [1, 0, 0], "angle_deg": 90}}}},
    "bodies": {
        "fixed_b": _body([0, 0, 0]),
        "revolute_b": _body([0, 0, 0], angular_velocity=[0, 0, 1.0]),
        "prismatic_b": _body([0, 0, 0], velocity=[0, 0, 0.5]),
        "cylindrical_b": _body([0, 0, 0]),
        "spherical_b": {"mass": 1.0, "inertia": [1.0, 1.0, 1.0, 0.1, 0.0, 0.0],
                        "position": [0, 0, 0]},
        "screw_b": _body([0, 0, 0]),
        "planar_b": {"mass": 1.0, "inertia": [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]],
                     "position": [0, 0, 0],
                     "nodes": {"n": {"position": [0, 0, 0],
                                     "orientation": {"axis": [1, 0, 0], "angle_deg": 90}}},
                     "orientation": {"quaternion": [1, 0, 0, 0]}},
        "free_b": _body([0, 0, 0], orientation={"euler_deg": [0, 0, 0], "sequence": "zyx"}),
    },
    "links": {
        "fixed_l": {"type": "fixed", "master": "ground.o", "slave": "fixed_b"},
        "revolute_l": {"type": "revolute", "master": "ground.o", "slave": "revolute_b",
                       "spring_damper": {"stiffness": 10.0, "damping": 1.0, "rest": 0.0}},
        "prismatic_l": {"type": "prismatic", "master": "ground.o", "slave": "prismatic_b",
                        "spring_damper": {"stiffness": 100.0, "damping": 2.0}},
        "cylindrical_l": {"type": "cylindrical", "master": "ground.o",
                          "slave": "cylindrical_b",
                          "spring_damper": {"tz": {"stiffness": 50.0, "damping": 1.0},
                                            "rz": {"stiffness": 5.0, "rest": 0.1}}},
        "spherical_l": {"type": "spherical", "master": "ground.o", "slave": "spherical_b",
                        "spring_damper": {"stiffness": [1.0, 2.0, 3.0], "damping": 0.1,
                                          "rest": [0.0, 0.0, 0.0]}},
        "screw_l": {"type": "screw", "master": "ground.o", "slave": "screw_b", "pitch": 0.1},
        "planar_l": {"type": "planar", "master": "ground.tilted", "slave": "planar_b.n",
                     "spring_damper": {"stiffness": [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]],
                                       "damping": [0.1, 0.1, 0.1]}},
        "free_l": {"type": "free", "master": "world.o", "slave": "free_b",
                   "spring_damper": {"stiffness": 10.0, "damping": 0.5}},
        "latch_l": {"type": "latch", "master": "ground.o", "slave": "prismatic_b",
                    "latch_time": 0.05},
    },
    "solver": {"t_end": 1.0, "dt": 0.01, "integrator": "rk4"},
    "output": {"every": 1},
}

#: Solfec's links and drivers, the cardan link, and the adaptive integrator.
OTHER_LINKS: dict[str, Any] = {
    "frylinks": 1,
    "name": "other-links",
    "gravity": [0, 0, -9.81],
    "ground": {"nodes": {"o": {"position": [0, 0, 0]}}},
    "bodies": {
        "point_b": _body([0, 0, 0]),
        "direction_b": _body([0.5, 0, 0]),
        "rod_b": _body([0, 0, -1.0]),
        "cardan_b": _body([0, 0, 0]),
        "disp_b": _body([0, 0, 0]),
        "vel_b": _body([0, 0, 0]),
        "acc_b": _body([0, 0, 0]),
    },
    "links": {
        "point_l": {"type": "fix_point", "master": "ground.o", "slave": "point_b"},
        "direction_l": {"type": "fix_direction", "master": "ground.o", "slave": "direction_b"},
        "rod_l": {"type": "rigid_link", "master": "ground.o", "slave": "rod_b", "length": 1.0},
        "cardan_l": {"type": "universal", "master": "ground.o", "slave": "cardan_b",
                     "axes": "RyRx", "spring_damper": {"rz": {"stiffness": 1.0}}},
        "disp_l": {"type": "prescribed_displacement", "master": "ground.o", "slave": "disp_b",
                   "signal": copy.deepcopy(SINE)},
        "vel_l": {"type": "prescribed_velocity", "master": "ground.o", "slave": "vel_b",
                  "signal": copy.deepcopy(SPLINE)},
        "acc_l": {"type": "prescribed_acceleration", "master": "ground.o", "slave": "acc_b",
                  "signal": 1.5},
    },
    "solver": {"t_end": 1.0, "dt": 0.01, "integrator": "dop853", "rtol": 1.0e-6,
               "atol": 1.0e-9},
    "output": {"every": 1},
}

#: Every force type between two bodies and the ground, inputs from every signal type.
FORCES: dict[str, Any] = {
    "frylinks": 1,
    "name": "forces",
    "gravity": [0, 0, -9.81],
    "ground": {"nodes": {"anchor": {"position": [0, 0, 2.0]}}},
    "bodies": {
        "a": _body([0, 0, 0], nodes={"top": {"position": [0, 0, 0.5]},
                                     "bottom": {"position": [0, 0, -0.5]}}),
        "b": _body([0, 0, -2.0], nodes={"top": {"position": [0, 0, 0.5]}}),
    },
    "forces": {
        "push": {"type": "world_force", "node": "a.top", "force": [0, 0, copy.deepcopy(SINE)]},
        "turn": {"type": "world_torque", "node": "b", "torque": [copy.deepcopy(RAMP), 0, 0],
                 "resolve_frame": "node"},
        "pull": {"type": "force", "master": "a.bottom", "slave": "b.top",
                 "force": [0, copy.deepcopy(CONSTANT), 1.0], "resolve_frame": "master"},
        "twist": {"type": "torque", "master": "a", "slave": "b",
                  "torque": [0, 0, copy.deepcopy(TABLE_SIGNAL)]},
        "exudyn_linear": {"type": "linear_spring_damper", "master": "ground.anchor",
                          "slave": "a.top", "stiffness": 100.0, "damping": 1.0,
                          "axis": [0, 0, 1], "rest": -1.5, "velocity_offset": 0.0,
                          "preload": copy.deepcopy(SINE), "active": True},
        "exudyn_torsion": {"type": "torsional_spring_damper", "master": "a", "slave": "b",
                           "stiffness": 5.0, "damping": 0.1, "axis": [0, 0, 1],
                           "rest": copy.deepcopy(SPLINE), "active": False},
        "spring": {"type": "spring", "master": "ground.anchor", "slave": "a.top",
                   "stiffness": 50.0, "rest": 1.5, "mass": 0.5, "length_fraction": 0.5},
        "damper": {"type": "damper", "master": "a.bottom", "slave": "b.top", "damping": 3.0},
        "parallel": {"type": "spring_damper_parallel", "master": "a.bottom", "slave": "b.top",
                     "stiffness": 20.0, "damping": 1.0, "rest": copy.deepcopy(RAMP)},
        "solfec": {"type": "user_spring", "master": "ground.anchor", "slave": "b.top",
                   "rest": 3.0, "table": [[-1.0, -100.0], [0.0, 0.0], [1.0, 100.0]],
                   "damping": 0.5},
        "pto": {"type": "pto_damper", "master": "a.bottom", "slave": "b.top", "damping": 2.0},
        "pto_k": {"type": "pto_reactive", "master": "ground.anchor", "slave": "a",
                  "axis": [0, 0, 1], "stiffness": -5.0, "damping": 3.0, "rest": 0.1,
                  "mean_power_from": 0.5},
        "pto_c": {"type": "pto_coulomb", "master": "a", "slave": "b", "force": 2.0,
                  "smoothing_velocity": 0.05, "damping": 0.5},
        "rpto": {"type": "rotary_pto_damper", "master": "a", "slave": "b", "damping": 0.2},
        "rpto_k": {"type": "rotary_pto_reactive", "master": "ground.anchor", "slave": "b",
                   "axis": [1, 0, 0], "stiffness": 3.0, "damping": 0.1},
        "rpto_c": {"type": "rotary_pto_coulomb", "master": "a.top", "slave": "b.top",
                   "force": 0.5},
        "pto_d": {"type": "pto_declutch", "master": "a", "slave": "b", "damping": 1.0,
                  "declutch_time": 0.1},
        "rpto_d": {"type": "rotary_pto_declutch", "master": "a", "slave": "b",
                   "axis": [0, 1, 0], "damping": 0.1, "declutch_time": 0.05},
        "gen": {"type": "pto_generator", "master": "a", "slave": "b", "force_constant": 5.0,
                "coil_resistance": 0.2, "load_resistance": 1.0},
        "rgen": {"type": "rotary_pto_generator", "master": "a", "slave": "b",
                 "force_constant": 0.5, "coil_resistance": 0.2, "damping": 0.1},
        "hyd": {"type": "pto_hydraulic", "master": "a", "slave": "b", "piston_area": 1e-4,
                "high_volume": 0.01, "high_precharge": 1.0e6, "high_pressure": 1.2e6,
                "low_volume": 0.01, "low_precharge": 2.0e5, "low_pressure": 3.0e5,
                "motor_displacement": 1e-6, "inertia": 0.01, "generator_damping": 0.001},
        "stop": {"type": "end_stop", "master": "a", "slave": "b", "lower": -2.0,
                 "upper": 2.0, "stiffness": 1.0e3, "damping": 10.0},
        "rstop": {"type": "rotary_end_stop", "master": "a", "slave": "b", "upper": 3.0,
                  "stiffness": 100.0},
    },
    "solver": {"t_end": 1.0, "dt": 0.01},
    "output": {"every": 2},
}


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


#: The valid starting points: name -> YAML text.
#: (The mutants are written elsewhere: the cases' paths relative to cases/ made absolute.)
SEEDS: dict[str, str] = {
    **{p.stem: p.read_text(encoding="utf-8").replace(
        " ../plugins/", f" {ROOT.as_posix()}/plugins/").replace(
        " geometry/", f" {ROOT.as_posix()}/cases/geometry/") for p in CASES},
    "axis_links": _dump(AXIS_LINKS),
    "other_links": _dump(OTHER_LINKS),
    "forces": _dump(FORCES),
}
SEED_DATA = {name: yaml.load(text, Loader=CaseLoader) for name, text in SEEDS.items()}

REGISTERED = {kind: Registry().names(kind) for kind in ("link", "force", "signal")}


def _types_used(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        if isinstance(data.get("type"), str):
            yield data["type"]
        for value in data.values():
            yield from _types_used(value)
    elif isinstance(data, list):
        for value in data:
            yield from _types_used(value)


def _words(data: Any) -> Iterator[str]:
    """Every key and text value of a case: the vocabulary typos are made of."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield str(key)
            yield from _words(value)
    elif isinstance(data, list):
        for value in data:
            yield from _words(value)
    elif isinstance(data, str):
        yield data


VOCABULARY = sorted(
    {w for d in SEED_DATA.values() for w in _words(d) if 0 < len(w) < 40 and "/" not in w}
    | {n for names in REGISTERED.values() for n in names}
    | {"quaternion", "euler_deg", "sequence", "axis", "angle_deg", "velocity",
       "angular_velocity", "tx", "ty", "tz", "rx", "ry", "rz", "RzRy", "RzRx", "world",
       "node", "master", "slave", "dop853", "rtol", "atol", "every", "function", "column",
       "variable", "file", "points", "value"})


# --------------------------------------------------------------------------- values

def pick(seq: list[Any]) -> st.SearchStrategy[Any]:
    """One entry of ``seq``, about uniformly: a Random seeded by Hypothesis (so still
    reproducible). With ``sampled_from`` the derandomised run kept drawing the same few
    keys and values (``10**400`` never came up in 150 numbers)."""
    return st.randoms(use_true_random=True).map(lambda r: r.choice(seq))


def typo(word: str) -> st.SearchStrategy[str]:
    """Near-typos of ``word``: a letter dropped, doubled, swapped, changed or added,
    or the case changed."""
    if not word:
        return st.just("x")
    i = st.integers(0, len(word) - 1)
    letter = st.sampled_from(string.ascii_lowercase + "_")
    return st.one_of(
        i.map(lambda k: word[:k] + word[k + 1:] or "x"),
        i.map(lambda k: word[:k] + word[k] + word[k:]),
        i.map(lambda k: word[:k] + word[k + 1:k + 2] + word[k] + word[k + 2:]),
        st.tuples(i, letter).map(lambda a: word[:a[0]] + a[1] + word[a[0] + 1:]),
        st.tuples(i, letter).map(lambda a: word[:a[0]] + a[1] + word[a[0]:]),
        st.just(word.upper()),
        st.just(word.capitalize()),
    )


typos = pick(VOCABULARY).flatmap(typo)

NUMBERS = pick([
    10**400, 1.0e300, 5.0e-324, math.nan, -(10**400), 1.7e308, 0, -1.0e300, math.inf, -1,
    1.0e-300, 1.0e30, 1.0001e30, -math.inf, 2**63, 10**30, 0.0, -0.0, 1, 2, 3, 7, 0.5, -2.5,
    -1.0e-300, 1.0e15, -1.0e15, 1.0e-15, -1.0e30, 1.0e-30,
])
SIGNALS = pick([
    SINE, RAMP, CONSTANT, SPLINE, TABLE_SIGNAL,
    {"type": "sine", "amplitude": math.nan, "omega": 1.0},
    {"type": "ramp", "t_end": 0.0},
    {"type": "linear_spline", "points": [[1.0, 0.0], [0.0, 1.0]]},
    {"type": "linear_spline", "points": []},
    {"type": "table", "file": "nowhere.csv"},
    {"type": "table", "file": TABLE, "column": 9},
    {"type": "sinus", "amplitude": 1.0},
    {"type": None},
    {"type": ["sine"]},
    {"type": "sine"},
]).map(copy.deepcopy)
SCALARS = st.one_of(
    NUMBERS,
    st.booleans(),
    st.none(),
    st.sampled_from(["", "x", "1e5", "0x10", "yes", "null", "~", "ground", "world",
                     "ground.nowhere", ".", "a.b.c", "é", "-", "bodies"]),
    typos,
    pick(VOCABULARY),
    st.just(datetime.date(2020, 1, 1)),
    st.just(b"\x00binary"),
)
CONTAINERS = pick([
    [], {}, [1.0], [1.0, 2.0], [0, 0, 0], [1.0, 2.0, 3.0, 4.0], [1, 2, 3, 4, 5, 6],
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[1, 2], [3]], [[[1]]], [None, 1, 2],
    ["a", "b", "c"], [True, False, True], [math.nan, 0, 0], [math.inf, 1, 1],
    [[0, 0], [0, 0]], {"a": 1}, {"stiffness": 1.0}, {"x": {"y": {"z": []}}},
    {"quaternion": [0, 0, 0, 0]}, {"euler_deg": [0, 0, 0], "sequence": "xyx"},
    {"axis": [0, 0, 0], "angle_deg": 10}, {1: 2}, {None: 1}, {True: 1},
    {1, 2}, [[1.0, 2.0], [1.0, 3.0]], [[0.0, 1.0]],
    [0, 0, {"type": "sine", "amplitude": 1.0, "omega": 1.0}],
]).map(copy.deepcopy)


def laughs() -> list[Any]:
    """A "billion laughs": one list nine times in nine others, nine levels deep (9**9
    numbers, a few lines of YAML aliases): a check that walks or prints it all hangs."""
    x: list[Any] = [1.0] * 9
    for _ in range(8):
        x = [x] * 9
    return x


VALUES = st.one_of(CONTAINERS, SCALARS, st.builds(laughs), SIGNALS,
                   st.lists(st.one_of(NUMBERS, SIGNALS), min_size=0, max_size=7))


def like(value: Any) -> st.SearchStrategy[Any]:
    """Values to put in place of ``value``: often of its own kind (a number for a number,
    a near-typo for a word), so the mutant gets past the first check more often."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return st.one_of(NUMBERS, NUMBERS, SIGNALS, VALUES)
    if isinstance(value, str):
        return st.one_of(typo(value), pick(VOCABULARY), VALUES)
    if isinstance(value, dict) and "type" in value:
        return st.one_of(NUMBERS, SIGNALS, VALUES)
    if isinstance(value, list) and value and all(isinstance(v, int | float) for v in value):
        return st.one_of(st.lists(NUMBERS, min_size=len(value), max_size=len(value)),
                         st.lists(NUMBERS, max_size=len(value) + 2), VALUES)
    return VALUES


# --------------------------------------------------------------------------- mutations

Path_ = tuple[Any, ...]

#: Deepest path walked: a value that holds itself (a recursive YAML alias) never ends.
MAX_DEPTH = 12


def positions(data: Any, here: Path_ = ()) -> Iterator[Path_]:
    """Path (keys and indices) of every value under the root."""
    if isinstance(data, dict):
        items: Any = list(data.items())
    elif isinstance(data, list):
        items = list(enumerate(data))
    else:
        return
    for key, value in items:
        yield (*here, key)
        if len(here) < MAX_DEPTH:
            yield from positions(value, (*here, key))


def get(data: Any, path: Path_) -> Any:
    for key in path:
        data = data[key]
    return data


def key_path(path: Path_) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) and not isinstance(key, bool) else (
            f".{key}" if out else str(key))
    return out


@dataclass
class Mutant:
    """A case being damaged: its data, what was done, and the YAML text to run."""

    seed: str
    data: Any
    steps: list[str] = field(default_factory=list)
    raw: bool = False
    text: str = ""


def _capped(paths: Iterator[Path_]) -> list[Path_]:
    # a recursive alias would list forever; keep the first few thousand
    out = []
    for p in paths:
        out.append(p)
        if len(out) > 5000:
            break
    return out


def _positions(data: Any) -> list[Path_]:
    return _capped(positions(data))


def _mappings(data: Any) -> list[Path_]:
    """Path of every mapping, the root included (among the first few thousand values:
    a billion laughs holds no mapping, and walking it all would never end)."""
    return [()] + [p for p in _positions(data) if isinstance(get(data, p), dict)]


@st.composite
def delete_key(draw: st.DrawFn, m: Mutant) -> None:
    if not m.data:
        return
    where = draw(pick(_positions(m.data)))
    del get(m.data, where[:-1])[where[-1]]
    m.steps.append(f"delete {key_path(where)}")


@st.composite
def replace_value(draw: st.DrawFn, m: Mutant) -> None:
    if not m.data:
        return
    where = draw(pick(_positions(m.data)))
    value = draw(like(get(m.data, where)))
    get(m.data, where[:-1])[where[-1]] = value
    m.steps.append(f"replace {key_path(where)} by {shown(value)}")


@st.composite
def retune_number(draw: st.DrawFn, m: Mutant) -> None:
    """A number replaced by another (tiny, huge, zero, negative, non-finite): the mutant
    often gets past the reader, so the model's own checks and the run are exercised."""
    numeric = [p for p in _positions(m.data) if isinstance(get(m.data, p), int | float)
               and not isinstance(get(m.data, p), bool)]
    if not numeric:
        return
    where = draw(pick(numeric))
    value = draw(NUMBERS)
    get(m.data, where[:-1])[where[-1]] = value
    m.steps.append(f"number {key_path(where)} -> {shown(value)}")


@st.composite
def rename_key(draw: st.DrawFn, m: Mutant) -> None:
    keyed = [p for p in _positions(m.data) if isinstance(get(m.data, p[:-1]), dict)]
    if not keyed:
        return
    where = draw(pick(keyed))
    parent = get(m.data, where[:-1])
    new = draw(typo(str(where[-1])))
    if new in parent:
        return
    # keep the order of the keys: the line numbers stay meaningful
    items = [(new if k == where[-1] else k, v) for k, v in parent.items()]
    parent.clear()
    parent.update(items)
    m.steps.append(f"rename {key_path(where)} to {new!r}")


@st.composite
def add_key(draw: st.DrawFn, m: Mutant) -> None:
    where = draw(pick(_mappings(m.data)))
    parent = get(m.data, where)
    key = draw(st.one_of(typos, st.sampled_from(VOCABULARY), st.sampled_from(
        ["unknown", "type", "nodes", "spring_damper", "<<", "", 1, 2.5, True, None])))
    if key in parent:
        return
    parent[key] = draw(VALUES)
    m.steps.append(f"add {key_path((*where, key))}")


@st.composite
def change_type(draw: st.DrawFn, m: Mutant) -> None:
    typed = [p for p in _mappings(m.data) if "type" in get(m.data, p)]
    if not typed:
        return
    where = draw(pick(typed))
    kind = "link" if where[:1] == ("links",) and len(where) == 2 else (
        "force" if where[:1] == ("forces",) and len(where) == 2 else "signal")
    # mostly a type of the same kind, sometimes of another kind
    names = draw(st.sampled_from([REGISTERED[kind]] * 3 + list(REGISTERED.values())))
    new = draw(pick(names))
    get(m.data, where)["type"] = new
    m.steps.append(f"type of {key_path(where)} -> {new}")


REFERENCE_KEYS = ("master", "slave", "node", "body")


@st.composite
def change_reference(draw: st.DrawFn, m: Mutant) -> None:
    refs = [p for p in _positions(m.data) if p[-1] in REFERENCE_KEYS]
    if not refs:
        return
    where = draw(pick(refs))
    bodies = list(m.data.get("bodies") or {}) if isinstance(m.data, dict) else []
    value = draw(st.one_of(
        st.sampled_from(["ground.nowhere", "nowhere", "ground", "world", "ground.", ".o",
                         "a.b.c", "", " ", "ground.o.x", "world.anchor"]),
        st.sampled_from(bodies or ["x"]),
        st.sampled_from(bodies or ["x"]).map(lambda b: f"{b}.nowhere"),
        typos,
    ))
    get(m.data, where[:-1])[where[-1]] = value
    m.steps.append(f"reference {key_path(where)} -> {value!r}")


@st.composite
def alias_value(draw: st.DrawFn, m: Mutant) -> None:
    """One value shared at two places (the dump writes a YAML anchor and alias); it may
    contain itself."""
    places = _positions(m.data)
    if not places:
        return
    where = draw(pick(places))
    source = get(m.data, draw(pick(places)))
    if not isinstance(source, dict | list):
        return
    get(m.data, where[:-1])[where[-1]] = source
    m.steps.append(f"alias at {key_path(where)}")


TREE_MUTATIONS: list[Callable[[Mutant], st.SearchStrategy[None]]] = [
    retune_number, delete_key, replace_value, retune_number, rename_key, add_key,
    change_type, change_reference, alias_value,
]

MARKER = "frylinks-mutation-marker"
TAGS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/apply:pathlib.Path.touch ['{marker}']",
    "!!python/object:frylinks.System {}",
    "!!python/name:os.system",
    "!!binary aGVsbG8=",
    "!!set {a, b}",
    "!!timestamp 2001-12-14",
    "!!int 0b101",
    "!!float '.5'",
    "!!str 1",
    "!!omap [a: 1]",
    "!unknown 3",
    "&anchor 3",
    "*undefined",
    "[unclosed",
    "{a: 1",
    "'quote",
]


@st.composite
def raw_mutation(draw: st.DrawFn, text: str, marker: Path) -> tuple[str, str]:
    lines = text.splitlines()
    if not lines:
        return text, "nothing"
    k = draw(pick(list(range(len(lines)))))
    what = draw(pick(["delete", "duplicate", "indent", "dedent", "tab", "tag", "truncate",
                      "nest"]))
    line = lines[k]
    if what == "delete":
        del lines[k]
    elif what == "duplicate":
        lines.insert(k, line)
    elif what == "indent":
        lines[k] = " " * draw(st.integers(1, 3)) + line
    elif what == "dedent":
        lines[k] = line[draw(st.integers(1, 3)):]
    elif what == "tab":
        col = draw(st.integers(0, len(line)))
        lines[k] = line[:col] + "\t" + line[col:]
    elif what == "nest":  # deeper than PyYAML's recursive composer can go
        head, sep, _ = line.partition(": ")
        depth = draw(pick([10, 300, 1000]))
        lines[k] = f"{head}: {'[' * depth}1{']' * depth}" if sep else line
    elif what == "tag":
        tag = draw(pick(TAGS)).replace("{marker}", str(marker))
        head, sep, _ = line.partition(": ")
        lines[k] = f"{head}: {tag}" if sep else f"{line} {tag}"
    else:
        return text[:draw(st.integers(0, len(text)))], "truncate"
    return "\n".join(lines) + "\n", f"{what} line {k + 1}"


@st.composite
def mutants(draw: st.DrawFn, marker: Path) -> Mutant:
    seed = draw(pick(sorted(SEEDS)))
    m = Mutant(seed, copy.deepcopy(SEED_DATA[seed]))
    for _ in range(draw(pick([1, 1, 1, 2, 3]))):
        draw(draw(pick(TREE_MUTATIONS))(m))
    try:
        m.text = _dump(m.data)
    except RecursionError:  # a list holding itself, as the sole content of a sequence
        m.text = SEEDS[seed]
        m.steps.clear()
    if draw(pick([False, False, True])) or not m.steps:
        m.text, step = draw(raw_mutation(m.text, marker))
        m.steps.append(f"raw: {step}")
        m.raw = True
    return m


# --------------------------------------------------------------------------- the check

class Hang(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang(f"the run took more than {TIMEOUT} s")


def check(m: Mutant, path: Path) -> None:
    path.write_text(m.text, encoding="utf-8")
    note(f"seed {m.seed}: {'; '.join(m.steps)}\n--- mutant ---\n{m.text}")
    marker = path.parent / MARKER
    timed = threading.current_thread() is threading.main_thread()  # signals need it
    if timed:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            # a mutant moved a body or a node: the run says so, and that is right
            warnings.filterwarnings("ignore", "initial positions do not satisfy", UserWarning)
            with python_path():
                ds = frylinks.run(path, t_end=T_END, dt=DT)
    except CaseError as exc:
        msg = str(exc)
        note(f"CaseError: {msg}")
        assert msg.startswith(f"case '{path}'"), msg
        assert "Traceback" not in msg
        if not m.raw:
            assert exc.path, f"no key path in {msg!r}"
            top = re.split(r"[.\[]", exc.path, maxsplit=1)[0]
            if isinstance(m.data, dict) and top in map(str, m.data):
                assert re.search(r"\(line \d+\)|lines \d+ and \d+", msg), f"no line in {msg!r}"
    else:
        assert isinstance(ds, xr.Dataset)
        status = ds.attrs["status"]
        assert status == "completed" or status.startswith("diverged"), status
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    assert not marker.exists(), "a case file ran code"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mutants")


def test_seeds_cover_every_registered_type() -> None:
    used = {t for data in SEED_DATA.values() for t in _types_used(data)}
    missing = sorted({n for names in REGISTERED.values() for n in names} - used)
    assert not missing, f"add a use of {missing} to the seeds of this test"


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seeds_run(seed: str, workdir: Path) -> None:
    path = workdir / f"{seed}.yaml"
    path.write_text(SEEDS[seed], encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for expected in EXPECTED_WARNINGS.get(seed, ()):  # a shipped case's, on purpose
            warnings.filterwarnings("ignore", message=expected)
        with python_path():
            ds = frylinks.run(path, t_end=T_END, dt=DT)
    assert ds.attrs["status"] == "completed"


#: Both profiles: runs take their time (no deadline), and no example database, so a CI
#: run draws exactly what a local run draws. No shrinking: a failure prints its mutant
#: (one to three changes, listed) in full, and shrinking a hang takes a timeout per try.
COMMON = settings(deadline=None, database=None,
                  phases=(Phase.explicit, Phase.reuse, Phase.generate),
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.function_scoped_fixture])


@settings(COMMON, max_examples=150, derandomize=True)
@given(data=st.data())
def test_mutated_case_runs_or_raises_case_error(data: st.DataObject, workdir: Path) -> None:
    check(data.draw(mutants(workdir / MARKER)), workdir / "mutant.yaml")


@pytest.mark.slow
@settings(COMMON, max_examples=3000)
@given(data=st.data())
def test_mutated_case_runs_or_raises_case_error_many(data: st.DataObject,
                                                      workdir: Path) -> None:
    """Random examples, new ones each run: run it after changing the reader or a type."""
    check(data.draw(mutants(workdir / MARKER)), workdir / "mutant.yaml")
