"""The case file's JSON Schema: valid, assembled from the registry, and in step with the
case reader (what one accepts the other accepts, what one refuses the other refuses)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import frylinks_forces
import frylinks_signals
import numpy as np
import pytest
import yaml
from jsonschema import Draft7Validator, Draft202012Validator

from frylinks import hookimpl
from frylinks.errors import CaseError
from frylinks.forces import ForceType
from frylinks.io.case import CaseLoader, load_case
from frylinks.io.schema import case_schema
from frylinks.links import AxisLink
from frylinks.model.registry import Registry
from frylinks.params import Param
from frylinks.signals import SignalType

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted((ROOT / "cases").glob("*.yaml"))


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry()


@pytest.fixture(scope="module")
def schema(registry: Registry) -> dict[str, Any]:
    return case_schema(registry)


@pytest.fixture(scope="module")
def validator(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(schema)


def errors(validator: Draft202012Validator, data: Any) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(data)]


def plain(value: Any) -> Any:
    """A parameter set as a case file holds it (lists, not tuples or arrays)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [plain(v) for v in value]
    return value


def test_schema_is_a_valid_draft_2020_12_schema(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    json.dumps(schema)  # plain JSON data


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_shipped_cases_validate(path: Path, validator: Draft202012Validator) -> None:
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=CaseLoader)
    assert errors(validator, data) == []


def test_every_registered_type_is_described(schema: dict[str, Any], registry: Registry
                                            ) -> None:
    """Each type's definition holds its declared parameters (callables left out, as the
    Python API alone takes them) with doc, units and default; ``type`` is its const."""
    defs = schema["$defs"]
    for info in registry.all():
        d = defs[f"{info.kind}.{info.name}"]
        if info.kind == "setting":  # a top-level section of the case, without 'type'
            assert "type" not in d["properties"]
            ref = {"$ref": f"#/$defs/setting.{info.name}"}
            assert ref in schema["properties"][info.name]["anyOf"]
        else:
            assert d["properties"]["type"] == {"const": info.name,
                                               "description": f"the {info.kind} type"}
        assert d["additionalProperties"] is False
        for name, p in info.cls.parameters.items():
            if p.kind == "callable":
                assert name not in d["properties"]
                continue
            prop = d["properties"][name]
            assert prop["description"].startswith(p.doc)
            if p.units not in ("", "1"):
                assert prop["description"].endswith(f"[{p.units}]")
            assert (name in d["required"]) == p.required
            if not p.required and p.default is not None:
                assert prop["default"] == plain(p.default)
        if info.kind != "setting":
            assert set(defs[info.kind]["properties"]["type"]["enum"]) == set(registry.names(
                info.kind))


def test_link_keys_and_spring_damper_forms(schema: dict[str, Any]) -> None:
    defs = schema["$defs"]
    assert set(defs["link.prismatic"]["properties"]) == {"type", "master", "slave",
                                                         "spring_damper"}
    assert "pitch" in defs["link.screw"]["required"]
    assert "spring_damper" not in defs["link.fixed"]["properties"]  # no free DOF
    keyed = defs["link.cylindrical"]["properties"]["spring_damper"]["anyOf"][1]
    assert set(keyed["properties"]) == {"tz", "rz"}


def test_type_examples_validate(registry: Registry, validator: Draft202012Validator) -> None:
    """Every declared example of every installed type, written into a case file, passes
    (examples with a Python callable are for the Python API only; a type that declares
    none is checked with its defaults when it has no required parameter)."""
    base = yaml.load(BASE, Loader=CaseLoader)
    ends = {"node": "buoy.pto", "body": "buoy", "master": "ground.seabed", "slave": "buoy.pto",
            "fairlead": "buoy.pto"}
    checked = 0
    for info in registry.all():
        examples = getattr(info.cls, "examples", None)
        if examples is None:
            if any(p.required for p in info.cls.parameters.values()):
                continue
            examples = [{}]
        for i, example in enumerate(examples):
            if any(callable(v) for v in example.values()):
                continue
            entry: dict[str, Any] = {"type": info.name, **plain(example)}
            case = copy.deepcopy(base)
            if info.kind == "link":
                case["links"] = {"l": {"master": "ground.seabed", "slave": "buoy.pto",
                                       **entry}}
            elif info.kind == "setting":
                case[info.name] = plain(example)
                entry = {}
            elif info.kind == "force":
                case["forces"] = {"f": {**{a: ends[a] for a in info.cls.attachments},
                                        **entry}}
            else:
                case["forces"]["waves"]["force"][2] = entry
            assert errors(validator, case) == [], f"{info.kind} {info.name} example {i}"
            checked += 1
    assert checked >= 30


# -- the schema and the reader agree -------------------------------------------------------

BASE = """\
frylinks: 1
name: agree
ground:
  nodes:
    seabed: {position: [0, 0, -10]}
bodies:
  buoy:
    mass: 1000.0
    inertia: [800.0, 800.0, 1200.0]
    nodes:
      pto: {position: [0, 0, -1]}
links:
  pto:
    type: prismatic
    master: ground.seabed
    slave: buoy.pto
    spring_damper: {stiffness: 4.0e4, damping: 2.0e3, rest: 9.0}
forces:
  waves:
    type: world_force
    node: buoy
    force: [0, 0, {type: sine, amplitude: 5.0e3, omega: 5.0}]
solver: {t_end: 1.0, dt: 0.01, integrator: rk4}
output: {every: 2}
"""

Edit = Callable[[dict[str, Any]], None]


def setter(*path: Any, value: Any) -> Edit:
    def edit(case: dict[str, Any]) -> None:
        where = case
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = copy.deepcopy(value)
    return edit


def deleter(*path: Any) -> Edit:
    def edit(case: dict[str, Any]) -> None:
        where = case
        for key in path[:-1]:
            where = where[key]
        del where[path[-1]]
    return edit


CYLINDRICAL = {"type": "cylindrical", "master": "ground.seabed", "slave": "buoy.pto"}
PTO = ("links", "pto")
NODE = ("bodies", "buoy", "nodes", "pto")

ACCEPTED: dict[str, Edit] = {
    "euler extrinsic": setter(*NODE, "orientation", value={"euler_deg": [0, 0, 30],
                                                           "sequence": "ZYX"}),
    "quaternion": setter(*NODE, "orientation", value={"quaternion": [1, 0, 0, 0]}),
    "axis angle": setter(*NODE, "orientation", value={"axis": [0, 0, 1], "angle_deg": 45}),
    "quaternion list": setter(*NODE, "orientation", value=[1, 0, 0, 0]),
    "null orientation": setter(*NODE, "orientation", value=None),
    "inertia 6 values": setter("bodies", "buoy", "inertia", value=[8, 8, 12, 0.1, 0, 0]),
    "inertia matrix": setter("bodies", "buoy", "inertia",
                             value=[[8, 0, 0], [0, 8, 0], [0, 0, 12]]),
    "spring keyed by dof": setter(*PTO, value={**CYLINDRICAL, "spring_damper": {
        "tz": {"stiffness": 4e4, "rest": 9.0}, "rz": {"damping": 1.0}}}),
    "spring matrices": setter(*PTO, value={**CYLINDRICAL, "spring_damper": {
        "stiffness": [[4e4, 0], [0, 1.0]], "damping": [1.0, 2.0], "rest": [9.0, 0.0]}}),
    "spring scalar on two dofs": setter(*PTO, value={**CYLINDRICAL,
                                                     "spring_damper": {"damping": 3.0}}),
    "screw pitch": setter(*PTO, value={"type": "screw", "master": "ground.seabed",
                                       "slave": "buoy.pto", "pitch": 0.1}),
    "bare body node": setter(*PTO, "slave", value="buoy"),
    "empty sections": lambda c: c.update(forces=None, output=None, gravity=None),
    "spline signal": setter("forces", "waves", "force", 2,
                            value={"type": "linear_spline", "points": [[0, 0], [1, 5.0]]}),
    "driver on a signal": setter(*PTO, value={
        "type": "prescribed_displacement", "master": "ground.seabed", "slave": "buoy.pto",
        "signal": {"type": "ramp", "t_end": 1.0, "final": 0.1}}),
    "line force": setter("forces", "line", value={
        "type": "spring", "master": "ground.seabed", "slave": "buoy.pto", "stiffness": 10.0,
        "rest": 9.0}),
    "dop853": setter("solver", value={"t_end": 1.0, "dt": 0.02, "integrator": "dop853",
                                      "rtol": 1e-8, "atol": 1e-10}),
}

REFUSED: dict[str, Edit] = {
    "unknown top key": setter("solvr", value={}),
    "unknown link type": setter(*PTO, "type", value="hinge"),
    "mass is text": setter("bodies", "buoy", "mass", value="heavy"),
    "mass zero": setter("bodies", "buoy", "mass", value=0.0),
    "missing mass": deleter("bodies", "buoy", "mass"),
    "unknown body key": setter("bodies", "buoy", "colour", value="red"),
    "unknown node key": setter(*NODE, "orientaton", value=None),
    "parameter of another type": setter(*PTO, "pitch", value=0.1),
    "missing slave": deleter(*PTO, "slave"),
    "spring on a locked dof": setter(*PTO, "spring_damper", value={"rz": {"stiffness": 1}}),
    "unknown spring key": setter(*PTO, "spring_damper", value={"stifness": 1.0}),
    "spring on a fixed link": setter(*PTO, value={"type": "fixed", "master": "ground.seabed",
                                                  "slave": "buoy.pto",
                                                  "spring_damper": {"stiffness": 1.0}}),
    "two orientation forms": setter(*NODE, "orientation", value={"quaternion": [1, 0, 0, 0],
                                                                 "axis": [0, 0, 1]}),
    "mixed-case sequence": setter(*NODE, "orientation", value={"euler_deg": [0, 0, 30],
                                                               "sequence": "xYz"}),
    "position of 2": setter(*NODE, "position", value=[0, 0]),
    "missing dt": deleter("solver", "dt"),
    "unknown integrator": setter("solver", "integrator", value="euler"),
    "every zero": setter("output", "every", value=0),
    "unknown signal type": setter("forces", "waves", "force", 2, value={"type": "cosine"}),
    "signal missing omega": setter("forces", "waves", "force", 2,
                                   value={"type": "sine", "amplitude": 1.0}),
    "bad choice": setter("forces", "waves", "resolve_frame", value="body"),
    "unknown force key": setter("forces", "waves", "gain", value=2.0),
    "body called ground": lambda c: c["bodies"].update(ground=c["bodies"]["buoy"]),
    "version 2": setter("frylinks", value=2),
    "missing version": deleter("frylinks"),
    "negative stiffness": setter("forces", "line", value={
        "type": "spring", "master": "ground.seabed", "slave": "buoy.pto",
        "stiffness": -1.0}),
}


def _edited(edit: Edit) -> dict[str, Any]:
    case = yaml.load(BASE, Loader=CaseLoader)
    edit(case)
    return case


def _reader_error(case: dict[str, Any], tmp_path: Path) -> str | None:
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(case, sort_keys=False))
    try:
        load_case(path)
    except CaseError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", ACCEPTED)
def test_schema_and_reader_both_accept(name: str, tmp_path: Path,
                                       validator: Draft202012Validator) -> None:
    case = _edited(ACCEPTED[name])
    assert _reader_error(case, tmp_path) is None
    assert errors(validator, case) == []


@pytest.mark.parametrize("name", REFUSED)
def test_schema_and_reader_both_refuse(name: str, tmp_path: Path,
                                       validator: Draft202012Validator) -> None:
    case = _edited(REFUSED[name])
    assert _reader_error(case, tmp_path) is not None
    assert errors(validator, case) != []


def test_draft_07_validators_agree(schema: dict[str, Any]) -> None:
    """Only keywords draft-07 shares are used, so editors whose YAML support stops at
    draft-07 (VS Code's YAML extension) check case files the same way."""
    draft7 = Draft7Validator({**schema, "$schema": "http://json-schema.org/draft-07/schema#"})
    Draft7Validator.check_schema(draft7.schema)
    for name, edit in {**ACCEPTED, **REFUSED}.items():
        case = _edited(edit)
        assert draft7.is_valid(case) == (name in ACCEPTED), name
    for path in CASES:
        assert draft7.is_valid(yaml.load(path.read_text(encoding="utf-8"), Loader=CaseLoader))


def test_errors_point_at_the_key(validator: Draft202012Validator) -> None:
    """The discriminated types give the error at the offending key, not a failure of
    every alternative."""
    assert errors(validator, _edited(REFUSED["unknown link type"]))[0].startswith(
        "links.pto.type: 'hinge' is not one of")
    assert errors(validator, _edited(REFUSED["mass is text"])) == [
        "bodies.buoy.mass: 'heavy' is not of type 'number'"]
    assert errors(validator, _edited(REFUSED["parameter of another type"])) == [
        "links.pto: Additional properties are not allowed ('pitch' was unexpected)"]


# -- plugins -------------------------------------------------------------------------------


class Slider(AxisLink):
    name = "test_slider"
    free_dofs = ("tx", "rz")
    parameters = {"travel": Param("float", "m", "end stop distance", default=1.0,
                                  positive=True)}
    description = "a test slider"


class Push(ForceType):
    name = "test_push"
    attachments = ("body",)
    parameters = {
        "body": Param("body", "", "body pushed"),
        "force": Param("vector", "N", "push", signal=True),
        "gain": Param("signal", "1", "gain", default=1.0),
        "mode": Param("choice", "", "how", default="soft", choices=("soft", "hard")),
        "curve": Param("points", "N", "curve", default=None),
        "label": Param("any", "", "free text", default="push"),
        "law": Param("callable", "", "Python law", default=None),
        "minimum": Param("float", "N", "floor", default=0.0, minimum=0.0),
    }
    description = "a test push"


class Square(SignalType):
    name = "test_square"
    parameters = {"period": Param("float", "s", "period", positive=True)}


class FakePlugin:
    @staticmethod
    @hookimpl
    def frylinks_link_types() -> list[type]:
        return [Slider]

    @staticmethod
    @hookimpl
    def frylinks_force_types() -> list[type]:
        return [Push]

    @staticmethod
    @hookimpl
    def frylinks_signal_types() -> list[type]:
        return [Square]


def test_plugin_types_appear_with_their_parameters() -> None:
    """Types of a test plugin are in the schema, each parameter kind mapped to JSON."""
    reg = Registry(autoload=False)
    reg.register(frylinks_signals, name="signals")
    reg.register(frylinks_forces, name="forces")
    reg.register(FakePlugin, name="fake", distribution="fakeplug", version="1.0")
    schema = case_schema(reg)
    Draft202012Validator.check_schema(schema)
    defs = schema["$defs"]
    assert defs["link"]["properties"]["type"]["enum"] == ["test_slider"]
    assert "test_push" in defs["force"]["properties"]["type"]["enum"]
    assert "test_square" in defs["signal"]["properties"]["type"]["enum"]

    slider = defs["link.test_slider"]["properties"]
    assert slider["travel"] == {"type": "number", "exclusiveMinimum": 0,
                                "description": "end stop distance [m]", "x-units": "m",
                                "default": 1.0}
    assert set(slider["spring_damper"]["anyOf"][1]["properties"]) == {"tx", "rz"}

    push = defs["force.test_push"]
    props = push["properties"]
    assert push["required"] == ["type", "body", "force"]
    assert "law" not in props
    assert props["body"]["type"] == "string"
    assert props["force"]["items"] == {"$ref": "#/$defs/number_or_signal"}
    assert props["force"]["minItems"] == props["force"]["maxItems"] == 3
    assert props["gain"]["$ref"] == "#/$defs/number_or_signal"
    assert props["mode"]["enum"] == ["soft", "hard"]
    assert props["mode"]["default"] == "soft"
    assert props["curve"]["items"]["minItems"] == 2
    assert "default" not in props["curve"]
    assert props["label"] == {"description": "free text", "default": "push"}
    assert props["minimum"]["minimum"] == 0.0

    validator = Draft202012Validator(schema)
    case: dict[str, Any] = {
        "frylinks": 1,
        "bodies": {"b": {"mass": 1.0, "inertia": [1, 1, 1]}},
        "links": {"s": {"type": "test_slider", "master": "ground", "slave": "b", "travel": 2.0,
                        "spring_damper": {"tx": {"stiffness": 1.0}}}},
        "forces": {"p": {"type": "test_push", "body": "b",
                         "force": [0, {"type": "test_square", "period": 2.0}, 1.0],
                         "mode": "hard", "curve": [[0, 1], [1, 2]]}},
        "solver": {"t_end": 1.0, "dt": 0.1},
    }
    assert errors(validator, case) == []
    case["forces"]["p"]["mode"] = "medium"
    case["links"]["s"]["travel"] = 0.0
    assert len(errors(validator, case)) == 2


def test_installed_plugin_is_in_the_default_schema(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A distribution's entry point is enough: case_schema() with no registry sees it."""
    info = tmp_path / "schemaplug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: schemaplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[frylinks]\nschemaplug = schemaplug_mod\n")
    (tmp_path / "schemaplug_mod.py").write_text(
        "from frylinks import hookimpl\nfrom frylinks.links import AxisLink\n\n\n"
        "class Hinge2(AxisLink):\n    name = 'schemaplug_hinge'\n"
        "    free_dofs = ('rz',)\n\n\n"
        "@hookimpl\ndef frylinks_link_types():\n    return [Hinge2]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "schemaplug_mod", raising=False)
    schema = case_schema()
    assert "link.schemaplug_hinge" in schema["$defs"]
    assert "schemaplug_hinge" in schema["$defs"]["link"]["properties"]["type"]["enum"]


# -- command line --------------------------------------------------------------------------


def test_frylinks_schema_command(tmp_path: Path, schema: dict[str, Any]) -> None:
    proc = subprocess.run([sys.executable, "-m", "frylinks", "schema"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('{\n  "$schema"')  # indent 2
    assert json.loads(proc.stdout) == schema
    out = tmp_path / "case.schema.json"
    proc = subprocess.run([sys.executable, "-m", "frylinks", "schema", "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert json.loads(out.read_text()) == schema
