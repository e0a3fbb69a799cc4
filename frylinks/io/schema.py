"""The JSON Schema of a case file (docs/reference/case-file.md), assembled from the plugin registry.

``frylinks schema`` prints it for editors (YAML language servers complete and check a
case file against it) and the documentation renders the case-file reference from it.
Nothing here is typed twice: the keys of the file, of bodies, nodes, the ground, the
solver and the output are the case reader's tuples (themselves read from the Python
API's signatures), and every link, force and signal type contributes the parameters it
declares (:class:`~frylinks.params.Param`), so a plugin's type appears in the schema as
soon as it is installed.

It is declared draft 2020-12 but uses only keywords that draft-07 shares with the same
meaning (``$defs`` is reached by plain JSON pointers), so editors whose YAML support
stops at draft-07 check case files the same way (tests/test_schema.py checks it).

The schema follows the reader, with two deliberate differences: it refuses an empty
(``null``) parameter, which the reader takes as the parameter's default, and it does not
check what only the model can know (that a node exists, that ``t_end`` is a whole number
of steps, that an inertia matrix is positive definite).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from frylinks.engine.assembly import DEFAULT_TOLERANCE
from frylinks.engine.integrators import INTEGRATORS
from frylinks.io.case import (
    BODY_KEYS,
    BODY_REQUIRED,
    GROUND_KEYS,
    LINK_KEYS,
    LINK_REQUIRED,
    NODE_KEYS,
    OUTPUT_KEYS,
    RUN_DEFAULTS,
    SCHEMA_VERSION,
    SOLVER_KEYS,
    TOP_KEYS,
)
from frylinks.io.loadcases import MAX_CASES, RANGE_KEYS, SWEEP_KEYS
from frylinks.model.registry import Registry
from frylinks.model.system import GROUND_NAMES, NAME_RE, SPRING_KEYS
from frylinks.params import Param

DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: Annotation keyword carrying a parameter's CF units (JSON Schema ignores unknown
#: keywords; the documentation reads it).
UNITS = "x-units"

_NAME = NAME_RE.pattern
_NAME_BODY = _NAME.removeprefix("^").removesuffix("$")
#: A node reference: ``body.node``, or a bare body name for its COG frame.
NODE_REF = f"^{_NAME_BODY}(\\.{_NAME_BODY})?$"


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _numbers(n: int, description: str = "", units: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": {"type": "number"},
                           "minItems": n, "maxItems": n}
    return _described(out, description, units)


def _described(schema: dict[str, Any], description: str, units: str = "") -> dict[str, Any]:
    text = f"{description} [{units}]" if units and units != "1" and description else description
    if text:
        schema["description"] = text
    if units:
        schema[UNITS] = units
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null (an empty YAML entry, which the reader takes as absent).

    A second ``type`` rather than an ``anyOf`` keeps validation errors precise: the
    other keywords apply only to values of their type.
    """
    if isinstance(schema.get("type"), str):
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}],
            **{k: v for k, v in schema.items() if k in ("description", UNITS, "default")}}


def _named(item: dict[str, Any], what: str, forbidden: tuple[str, ...] = ()) -> dict[str, Any]:
    """A mapping of names to ``item`` (bodies, nodes, links, forces); null is empty."""
    names: dict[str, Any] = {"pattern": _NAME}
    if forbidden:
        names = {"allOf": [names, {"not": {"enum": list(forbidden)}}]}
    return _nullable({"type": "object", "propertyNames": names,
                      "additionalProperties": item,
                      "description": f"{what}, keyed by name (letters, digits, '_' or '-', "
                                     "starting with a letter)"})


def _json_default(value: Any) -> tuple[bool, Any]:
    """``(True, value as JSON data)``, or ``(False, None)`` for no usable default."""
    if value is None or callable(value):
        return False, None
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, float) and not math.isfinite(value):
        return False, None
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False, None
    return True, value


def param_schema(p: Param) -> dict[str, Any] | None:
    """The JSON Schema of one declared parameter; None for Python-only ``callable``."""
    out: dict[str, Any]
    if p.kind == "callable":
        return None
    if p.kind == "float":
        out = {"type": "number"}
        if p.minimum is not None:
            out["minimum"] = p.minimum
        if p.positive:
            out["exclusiveMinimum"] = 0
    elif p.kind == "vector":
        item = _ref("number_or_signal") if p.signal else {"type": "number"}
        out = {"type": "array", "items": item, "minItems": 3, "maxItems": 3}
    elif p.kind == "signal":
        out = _ref("number_or_signal")
    elif p.kind == "choice":
        out = {"enum": list(p.choices)}
    elif p.kind == "points":
        out = {"type": "array", "minItems": 1, "items": _numbers(2, "[time, value]")}
    elif p.kind == "node":
        out = {"type": "string", "pattern": NODE_REF}
    elif p.kind == "body":
        out = {"type": "string", "pattern": _NAME}
    elif p.kind == "path":
        # x-file: an annotation for the reference page (a file path, not any text)
        out = {"type": "string", "minLength": 1, "x-file": True}
    else:  # "any": checked by the type itself
        out = {}
    _described(out, p.doc, p.units)
    ok, default = _json_default(p.default)
    if not p.required and ok:
        out["default"] = default
    return out


def _type_object(kind: str, name: str, cls: type[Any], common: Mapping[str, Any],
                 required: tuple[str, ...]) -> dict[str, Any]:
    """One link, force or signal type: ``type`` (a const), common keys, its parameters."""
    props: dict[str, Any] = {"type": {"const": name, "description": f"the {kind} type"}}
    props.update(common)
    req = list(required)
    for pname, p in cls.parameters.items():
        sub = param_schema(p)
        if sub is None:
            continue
        props[pname] = sub
        if p.required and pname not in req:
            req.append(pname)
    out: dict[str, Any] = {"title": f"{kind} type {name}", "type": "object",
                           "properties": props, "required": req,
                           "additionalProperties": False}
    description = str(getattr(cls, "description", "") or "")
    if description:
        out["description"] = description
    return out


def _discriminated(kind: str, names: list[str]) -> dict[str, Any]:
    """Any registered type of ``kind``: ``type`` picks the definition (if/then, so an
    unknown type is reported as one, not as a failure of every alternative)."""
    return {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": names, "description": f"a registered {kind} type"}},
        "allOf": [{"if": {"properties": {"type": {"const": n}}, "required": ["type"]},
                   "then": _ref(f"{kind}.{n}")} for n in names],
    }


def spring_units(dofs: tuple[str, ...]) -> tuple[str, str, str]:
    """Units of stiffness, damping and rest over ``dofs`` (translations ``t*``, rotations
    ``r*``)."""
    kinds = {d[0] for d in dofs}
    table = {"t": ("N m-1", "N s m-1", "m"), "r": ("N m rad-1", "N m s rad-1", "rad")}
    if len(kinds) == 1:
        return table[kinds.pop()]
    t, r = table["t"], table["r"]
    return (f"{t[0]} or {r[0]}", f"{t[1]} or {r[1]}", f"{t[2]} or {r[2]}")


def spring_damper_schema(free: tuple[str, ...]) -> dict[str, Any]:
    """The accepted forms of a link spring-damper over the free DOFs ``free``."""
    nf = len(free)
    scalar: dict[str, Any] = {"type": "number"}

    def per_dof(dof: str) -> dict[str, Any]:
        k, b, r = spring_units((dof,))
        return {"type": "object", "additionalProperties": False,
                "properties": _properties(SPRING_KEYS, {
                    "stiffness": _described({"type": "number", "default": 0.0},
                                            "stiffness K", k),
                    "damping": _described({"type": "number", "default": 0.0}, "damping B", b),
                    "rest": _described({"type": "number", "default": 0.0}, "rest position r0",
                                       r),
                }, "spring_damper.<dof>")}

    keyed = {"type": "object", "additionalProperties": False,
             "properties": {d: per_dof(d) for d in free}, "minProperties": 1,
             "description": f"keyed by free DOF ({', '.join(free)})"}
    matrix = [scalar, _numbers(nf),
              {"type": "array", "minItems": nf, "maxItems": nf, "items": _numbers(nf)}]
    several = ": a number (the same on each free DOF), one per free DOF (diagonal) or a " \
              "matrix over the free DOFs" if nf > 1 else ""
    k, b, r = spring_units(free)
    whole_props = {
        "stiffness": _described({"anyOf": matrix, "default": 0.0}, f"stiffness K{several}", k),
        "damping": _described({"anyOf": matrix, "default": 0.0}, f"damping B{several}", b),
        "rest": _described({"anyOf": [scalar, _numbers(nf)] if nf > 1 else [scalar],
                            "default": 0.0},
                           "rest position r0" + (": a number or one per free DOF" if nf > 1
                                                 else ""), r),
    }
    whole = {"type": "object", "additionalProperties": False,
             "properties": _properties(SPRING_KEYS, whole_props, "spring_damper")}
    return {"description": f"F = -K (dx - r0) - B dx' on the free DOFs ({', '.join(free)})",
            "anyOf": [whole, keyed, {"type": "null"}]}


def _orientation() -> dict[str, Any]:
    forms = [
        {"title": "quaternion", "type": "object", "additionalProperties": False,
         "required": ["quaternion"],
         "properties": {"quaternion": _numbers(4, "[w, x, y, z], normalised when read")}},
        {"title": "Euler angles", "type": "object", "additionalProperties": False,
         "required": ["euler_deg"],
         "properties": {
             "euler_deg": _numbers(3, "three angles", "degree"),
             "sequence": {"type": "string", "pattern": "^([xyz]{3}|[XYZ]{3})$",
                          "default": "xyz",
                          "description": "axis letters: lower case intrinsic (rotating "
                                         "axes), upper case extrinsic"}}},
        {"title": "axis and angle", "type": "object", "additionalProperties": False,
         "required": ["axis"],
         "properties": {"axis": _numbers(3, "rotation axis (normalised)"),
                        "angle_deg": _described({"type": "number", "default": 0.0},
                                                "angle about the axis", "degree")}},
        _numbers(4, "quaternion [w, x, y, z]"),
        {"type": "array", "minItems": 3, "maxItems": 3, "items": _numbers(3),
         "description": "3x3 rotation matrix (orthonormal, right-handed)"},
        {"type": "null", "description": "identity"},
    ]
    return {"description": "orientation: {quaternion: [w, x, y, z]}, {euler_deg: [a, b, c], "
                           "sequence: xyz} or {axis: [x, y, z], angle_deg: a}",
            "anyOf": forms}


def _inertia() -> dict[str, Any]:
    return _described(
        {"anyOf": [_numbers(3), _numbers(6),
                   {"type": "array", "minItems": 3, "maxItems": 3, "items": _numbers(3)}]},
        "about the COG in body axes: 3 principal values, 6 values [Ixx, Iyy, Izz, Ixy, Ixz, "
        "Iyz] or a 3x3 symmetric positive definite matrix", "kg m2")


def _geometry() -> dict[str, Any]:
    """A body's ``geometry`` (frylinks.model.geometry.parse_geometry): a mesh file or a shape."""
    from frylinks.model.geometry import SHAPES

    place = {"position": _described(_numbers(3), "geometry frame origin from the COG, "
                                                 "body axes", "m"),
             "orientation": {**_ref("orientation"),
                             "description": "geometry frame axes relative to body axes"}}
    size = {"type": "number", "exclusiveMinimum": 0}
    mesh = {"type": "object", "additionalProperties": False, "required": ["mesh"],
            "properties": {"mesh": {"type": "string", "description": "mesh file (Nemoh "
                                    ".dat, STL, OBJ, any meshio format), relative to the "
                                    "case file"},
                           "scale": {**size, "description": "factor on the mesh's "
                                     "coordinates"}, **place}}
    shapes = [{"type": "object", "additionalProperties": False,
               "required": ["shape", *keys],
               "properties": {"shape": {"const": shape},
                              **{k: (_numbers(3) if k == "size" else size) for k in keys},
                              **place}}
              for shape, keys in SHAPES.items()]
    return {"oneOf": [{"type": "null"}, mesh, *shapes],
            "description": "what draws the body (frylinks animate, export); a small "
                           "sphere if absent"}


def _properties(keys: tuple[str, ...], known: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The schemas of ``keys`` (the reader's tuple) from ``known``; a key the reader
    accepts without a schema here is a bug, said at once rather than left out."""
    missing = [k for k in keys if k not in known]
    if missing:
        raise RuntimeError(f"frylinks.io.schema: no schema for the {where} key(s) "
                           f"{', '.join(missing)} accepted by frylinks.io.case")
    return {k: known[k] for k in keys}


def case_schema(registry: Registry | None = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a case file.

    Parameters
    ----------
    registry
        Types to describe; a fresh :class:`~frylinks.model.registry.Registry` loading every
        installed plugin by default.

    Returns
    -------
    dict
        JSON data: the schema of one case file. Link and force types are in ``$defs`` as
        ``link.<name>`` and ``force.<name>``, signal types as ``signal.<name>``; each
        parameter carries its ``description`` (doc line and units), ``default`` and
        ``x-units`` (its CF units).
    """
    reg = registry if registry is not None else Registry()
    defs: dict[str, Any] = {}

    signal_names = reg.names("signal")
    for name in signal_names:
        defs[f"signal.{name}"] = _type_object("signal", name, reg.types["signal"][name].cls,
                                              {}, ())
    defs["signal"] = {**_discriminated("signal", signal_names),
                      "description": "a signal: a function of time given in place of a "
                                     "number, {type: <signal type>, ...}"}
    defs["number_or_signal"] = {"anyOf": [{"type": "number"}, _ref("signal")]}

    node_ref = {"type": "string", "pattern": NODE_REF,
                "description": "node reference: 'body.node', or a body name for a frame at "
                               "its COG with body axes ('ground' or 'world' for the ground)"}
    link_names = reg.names("link")
    for name in link_names:
        cls = reg.types["link"][name].cls
        free = tuple(cls.free_dofs)
        common = _properties(LINK_KEYS, {
            "type": {},  # the type's const, set by _type_object
            "master": {**node_ref, "description": "master node: its axes are the link's "
                       "axes; " + node_ref["description"]},
            "slave": {**node_ref, "description": "slave node, restrained relative to the "
                      "master node; " + node_ref["description"]},
            # a link without free DOF takes no spring-damper
            "spring_damper": spring_damper_schema(free) if free else None,
        }, "link")
        common = {k: v for k, v in common.items() if k != "type" and v is not None}
        defs[f"link.{name}"] = _type_object("link", name, cls, common, LINK_REQUIRED)
    defs["link"] = _discriminated("link", link_names)

    force_names = reg.names("force")
    for name in force_names:
        defs[f"force.{name}"] = _type_object("force", name, reg.types["force"][name].cls, {},
                                             ("type",))
    defs["force"] = _discriminated("force", force_names)

    defs["orientation"] = _orientation()
    node_props = {
        "position": _described({**_numbers(3), "default": [0.0, 0.0, 0.0]},
                               "node origin relative to the COG, body axes (ground: world)",
                               "m"),
        "orientation": {**_ref("orientation"),
                        "description": "node axes relative to body axes (identity if absent)"},
    }
    defs["node"] = _nullable({"type": "object", "additionalProperties": False,
                              "properties": _properties(NODE_KEYS, node_props, "node"),
                              "description": "a frame fixed on a body"})
    nodes = _named(_ref("node"), "nodes (frames fixed on the body)")

    body_props = {
        "mass": _described({"type": "number", "exclusiveMinimum": 0}, "mass", "kg"),
        "inertia": _inertia(),
        "position": _described({**_numbers(3), "default": [0.0, 0.0, 0.0]}, "COG in world",
                               "m"),
        "orientation": {**_ref("orientation"),
                        "description": "body axes to world axes (identity if absent)"},
        "velocity": _described({**_numbers(3), "default": [0.0, 0.0, 0.0]},
                               "initial COG velocity, world axes", "m s-1"),
        "angular_velocity": _described({**_numbers(3), "default": [0.0, 0.0, 0.0]},
                                       "initial angular velocity, world axes", "rad s-1"),
        "geometry": _geometry(),
    }
    defs["body"] = {"type": "object", "additionalProperties": False,
                    "required": list(BODY_REQUIRED),
                    "properties": {**_properties(BODY_KEYS, body_props, "body"),
                                   "nodes": nodes},
                    "description": "a rigid body"}

    solver_props = {
        "t_end": _described({"type": "number", "exclusiveMinimum": 0},
                            "end time (a whole number of steps)", "s"),
        "dt": _described({"type": "number", "exclusiveMinimum": 0},
                         "time step (rk4, generalized_alpha), or the output interval of "
                         "dop853", "s"),
        "integrator": {"enum": list(INTEGRATORS), "default": RUN_DEFAULTS["integrator"],
                       "description": "rk4 (explicit, fixed step), dop853 (adaptive, rtol "
                                      "and atol) or generalized_alpha (implicit, fixed "
                                      "step, for stiff models; rho_inf)"},
        "rho_inf": {"type": "number", "minimum": 0, "maximum": 1,
                    "default": RUN_DEFAULTS["rho_inf"],
                    "description": "spectral radius of generalized_alpha at infinite "
                                   "frequency: 1 no numerical damping, 0 the most"},
        "rtol": {"type": "number", "exclusiveMinimum": 0, "default": RUN_DEFAULTS["rtol"],
                 "description": "relative tolerance of dop853"},
        "atol": {"type": "number", "exclusiveMinimum": 0, "default": RUN_DEFAULTS["atol"],
                 "description": "absolute tolerance of dop853"},
        "initial_equilibrium": {"type": "boolean", "default": False,
                                "description": "start from the static equilibrium pose "
                                               "(still water, zero velocities)"},
        "assembly_tolerance": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "length": _described({"type": "number", "exclusiveMinimum": 0,
                                      "default": DEFAULT_TOLERANCE.length},
                                     "largest initial residual of a link's translation",
                                     "m"),
                "angle_deg": _described({"type": "number", "exclusiveMinimum": 0,
                                         "default": DEFAULT_TOLERANCE.angle_deg},
                                        "largest initial residual of a link's rotation",
                                        "deg")},
            "default": {"length": DEFAULT_TOLERANCE.length,
                        "angle_deg": DEFAULT_TOLERANCE.angle_deg},
            "description": "{length: m, angle_deg: deg}: a link whose initial residual in "
                           "a translation or a rotation exceeds these is refused (its nodes "
                           "or the bodies' poses are wrong); a smaller one is assembled "
                           "before the first step. Large values assemble from anywhere"},
        "equilibrium_max_turn_deg": _described(
            {"type": "number", "exclusiveMinimum": 0,
             "default": RUN_DEFAULTS["equilibrium_max_turn_deg"]},
            "with initial_equilibrium, the largest turn of a body from its initial "
            "orientation that the equilibrium may make", "deg"),
    }
    output_props = {
        "every": {"type": "integer", "minimum": 1, "default": RUN_DEFAULTS["every"],
                  "description": "keep one sample every that many steps"},
    }
    ground_props = {"nodes": _named(_ref("node"), "nodes of the ground (world positions)")}
    value_range = {"type": "object", "additionalProperties": False,
                   "required": list(RANGE_KEYS),
                   "properties": _properties(RANGE_KEYS, {
                       "start": {"type": "number", "description": "first value"},
                       "stop": {"type": "number", "description": "last value (included)"},
                       "count": {"type": "integer", "minimum": 1, "maximum": MAX_CASES,
                                 "description": "number of values"}}, "sweep range"),
                   "description": "count values from start to stop, both included"}
    sweep_props = {
        "set": {"type": "object", "minProperties": 1,
                "additionalProperties": {"anyOf": [
                    {"type": "array", "minItems": 1, "description": "the values"},
                    value_range]},
                "description": "key path in this case (links.pto.spring_damper.damping) -> "
                               "its values: a list or {start, stop, count}"},
        "zip": {"type": "boolean", "default": False,
                "description": "pair the i-th values of every key instead of taking every "
                               "combination"},
    }
    top = {
        "frylinks": {"const": SCHEMA_VERSION,
                     "description": f"case-file schema version ({SCHEMA_VERSION})"},
        "name": _nullable({"type": "string", "description": "case name, the results' title "
                           "(default: the file name without extension)"}),
        "description": _nullable({"type": "string", "description": "one line about the case"}),
        "gravity": _nullable(_described({**_numbers(3), "default": [0.0, 0.0, -9.81]},
                                        "gravity acceleration, world axes", "m s-2")),
        "ground": _nullable({"type": "object", "additionalProperties": False,
                             "properties": _properties(GROUND_KEYS, ground_props, "ground"),
                             "description": "the fixed body ground (also 'world'): nodes only"}),
        "bodies": _named(_ref("body"), "rigid bodies", GROUND_NAMES),
        "links": _named(_ref("link"), "links, each restraining a slave node relative to a "
                        "master node"),
        "forces": _named(_ref("force"), "force elements"),
        "solver": {"type": "object", "additionalProperties": False,
                   "required": ["t_end", "dt"],
                   "properties": _properties(SOLVER_KEYS, solver_props, "solver"),
                   "description": "time integration"},
        "output": _nullable({"type": "object", "additionalProperties": False,
                             "properties": _properties(OUTPUT_KEYS, output_props, "output"),
                             "description": "what the results keep"}),
        "sweep": _nullable({"type": "object", "additionalProperties": False,
                            "required": ["set"],
                            "properties": _properties(SWEEP_KEYS, sweep_props, "sweep"),
                            "description": "load cases run by 'frylinks sweep' (ignored by "
                                           "'frylinks run')"}),
    }
    setting_names = reg.names("setting")
    for name in setting_names:
        obj = _type_object("setting", name, reg.types["setting"][name].cls, {}, ())
        del obj["properties"]["type"]  # a section, not a typed element
        defs[f"setting.{name}"] = obj
        top[name] = _nullable(_ref(f"setting.{name}"))
    return {
        "$schema": DIALECT,
        "title": "frylinks case file",
        "description": f"A frylinks case file, schema version {SCHEMA_VERSION} (YAML).",
        "type": "object",
        "required": ["frylinks", "solver"],
        "additionalProperties": False,
        "properties": _properties((*TOP_KEYS, *setting_names), top, "top-level"),
        "$defs": defs,
    }


__all__ = ["case_schema", "param_schema", "spring_damper_schema"]
