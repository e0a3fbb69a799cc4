"""The user's model: a System of bodies, nodes, links and forces (docs/architecture.md,
docs/reference/case-file.md).

This is the Python API of the case file, one call per key. Every input is checked
here, so a mistake is reported where it was made, with its key path; the assembled
arrays the engine works on are built later by :mod:`frylinks.engine.model`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.forces import ForceType
from frylinks.links import DOFS
from frylinks.model.geometry import body_mesh, parse_geometry
from frylinks.model.orientation import in_range, parse_orientation
from frylinks.model.registry import Registry, TypeInfo
from frylinks.params import (
    MAX_MAGNITUDE,
    Param,
    as_float,
    as_vector,
    check_keys,
    did_you_mean,
    parse_params,
    shown,
    try_array,
)
from frylinks.signals import SignalSpec

if TYPE_CHECKING:
    pass

GROUND_NAMES = ("ground", "world")
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def parse_inertia(value: Any, path: str) -> np.ndarray:
    """3x3 inertia tensor about the COG from 3 principal values, 6 values or a 3x3 matrix.

    Six values are ``Ixx Iyy Izz Ixy Ixz Iyz``, the tensor's components (so the
    off-diagonal entries of the matrix are ``Ixy`` etc., not their negatives).
    """
    arr = try_array(value)
    if arr is None or arr.shape not in ((3,), (6,), (3, 3)):
        raise ModelError("expected 3 principal values [kg m2], 6 values "
                         f"[Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or a 3x3 matrix, got {shown(value)}",
                         path)
    if not in_range(arr):
        raise ModelError(f"expected finite numbers up to {MAX_MAGNITUDE:g} in magnitude, got "
                         f"{shown(value)}", path)
    if arr.shape == (3,):
        m = np.diag(arr)
    elif arr.shape == (6,):
        xx, yy, zz, xy, xz, yz = arr
        m = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    else:
        m = arr
        if not np.allclose(m, m.T, rtol=1e-10, atol=1e-12 * np.abs(m).max()):
            raise ModelError("inertia matrix must be symmetric", path)
    eig = np.linalg.eigvalsh(m)
    if eig.min() <= 0:
        raise ModelError(f"inertia must be positive definite (eigenvalues {eig})", path)
    with np.errstate(all="ignore"):
        invertible = bool(np.isfinite(np.linalg.inv(m)).all())
    if not invertible:  # a subnormal moment: its inverse overflows
        raise ModelError(f"inertia is too small to invert (eigenvalues {eig})", path)
    return m


@dataclass
class Node:
    """A frame fixed on a body: ``position`` relative to the COG and ``orientation``
    (quaternion node axes -> body axes), both in body axes."""

    name: str
    body: Body
    position: np.ndarray
    orientation: np.ndarray

    @property
    def path(self) -> str:
        return f"{self.body.name}.{self.name}"


@dataclass
class Body:
    """A rigid body; :attr:`is_ground` for the fixed ``ground``."""

    name: str
    mass: float = 0.0
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    orientation: np.ndarray = field(default_factory=lambda: np.array([1.0, 0, 0, 0]))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    nodes: dict[str, Node] = field(default_factory=dict)
    is_ground: bool = False
    #: What draws the body (:func:`frylinks.model.geometry.parse_geometry`); None: a small sphere.
    geometry: dict[str, Any] | None = None

    def add_node(self, name: str, position: Any = (0.0, 0.0, 0.0), orientation: Any = None,
                 ) -> Node:
        """Add a frame fixed on this body.

        Parameters
        ----------
        name
            Node name, unique on this body.
        position
            Node origin relative to the COG, body axes [m] (ground: world position).
        orientation
            Node axes relative to body axes (any form of :func:`parse_orientation`).
        """
        path = f"{'ground' if self.is_ground else 'bodies.' + self.name}.nodes.{name}"
        _check_name(name, path)
        if name in self.nodes:
            raise ModelError(f"node '{name}' is defined twice on '{self.name}'", path)
        node = Node(name, self, as_vector(position, f"{path}.position"),
                    parse_orientation(orientation, f"{path}.orientation"))
        self.nodes[name] = node
        return node

    @property
    def cog(self) -> Node:
        """The frame at the COG with body axes."""
        return Node("", self, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))


@dataclass
class LinkDef:
    """A link as given: type name, master and slave nodes, parsed parameters."""

    name: str
    type: str
    master: Node
    slave: Node
    params: dict[str, Any]
    stiffness: np.ndarray
    damping: np.ndarray
    rest: np.ndarray
    has_spring: bool


@dataclass
class ForceDef:
    """A force element as given: type name and parsed parameters (references resolved)."""

    name: str
    type: str
    params: dict[str, Any]
    nodes: list[Node]


def _validate(cls: Any, params: Mapping[str, Any], path: str) -> None:
    try:
        cls.validate(params)
    except ModelError as exc:
        raise exc.under(path) from None


def _check_name(name: Any, path: str) -> None:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ModelError(f"invalid name {shown(name)}: use letters, digits, '_' or '-', "
                         "starting with a letter (no dots)", path)


class System:
    """A multibody system: gravity, bodies, links and forces.

    This is the model as a user builds it; running it is the I/O layer's
    (:class:`frylinks.System`, :class:`frylinks.io.runner.System`, adds ``run``), so the
    model knows nothing of the engine that steps it.

    Parameters
    ----------
    gravity
        Gravity acceleration in world axes [m s-2].
    name
        Case name (the results' ``title``).
    registry
        Plugin registry; a fresh one loading every installed plugin by default.
    """

    def __init__(self, gravity: Any = (0.0, 0.0, -9.81), name: str = "frylinks",
                 registry: Registry | None = None) -> None:
        self.gravity = as_vector(gravity, "gravity")
        self.name = name
        self.description = ""
        self.case_text = ""
        self.registry = registry if registry is not None else Registry()
        self.ground = Body("ground", is_ground=True)
        self.bodies: dict[str, Body] = {}
        self.links: dict[str, LinkDef] = {}
        self.forces: dict[str, ForceDef] = {}
        #: parsed parameters of the system-level settings given, by setting name
        self.settings: dict[str, dict[str, Any]] = {}

    # pickling: the plugin manager holds modules; rebuild the registry on the other side
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["registry"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.registry = Registry()

    def add_body(self, name: str, mass: float, inertia: Any, position: Any = (0.0, 0.0, 0.0),
                 orientation: Any = None, velocity: Any = (0.0, 0.0, 0.0),
                 angular_velocity: Any = (0.0, 0.0, 0.0), geometry: Any = None) -> Body:
        """Add a rigid body.

        Parameters
        ----------
        name
            Unique body name (not ``ground`` or ``world``).
        mass
            Mass [kg], > 0.
        inertia
            About the COG in body axes [kg m2]: 3 principal values, 6 values
            ``Ixx Iyy Izz Ixy Ixz Iyz`` or a 3x3 symmetric positive definite matrix.
        position
            COG in world [m].
        orientation
            Body axes -> world (see :func:`parse_orientation`).
        velocity, angular_velocity
            Initial COG velocity [m s-1] and angular velocity [rad s-1], world axes.
        geometry
            What draws the body (``frylinks animate``, ``frylinks export``), optional:
            ``{mesh: FILE}`` or ``{shape: box | cylinder | sphere, ...}``, see
            :func:`frylinks.model.geometry.parse_geometry`.
        """
        path = f"bodies.{name}"
        _check_name(name, path)
        if name in GROUND_NAMES:
            raise ModelError(f"'{name}' is the fixed ground; choose another body name", path)
        if name in self.bodies:
            raise ModelError(f"body '{name}' is defined twice", path)
        mass = as_float(mass, f"{path}.mass", "kg", positive=True)
        if not np.isfinite(1.0 / mass):  # a subnormal number: its inverse overflows
            raise ModelError(f"mass {mass:g} kg is too small to invert", f"{path}.mass")
        body = Body(
            name,
            mass=mass,
            inertia=parse_inertia(inertia, f"{path}.inertia"),
            position=as_vector(position, f"{path}.position"),
            orientation=parse_orientation(orientation, f"{path}.orientation"),
            velocity=as_vector(velocity, f"{path}.velocity"),
            angular_velocity=as_vector(angular_velocity, f"{path}.angular_velocity"),
            geometry=parse_geometry(geometry, f"{path}.geometry"),
        )
        self.bodies[name] = body
        return body

    def body(self, name: str, path: str = "") -> Body:
        """The body called ``name`` (``ground``/``world`` for the ground)."""
        if name in GROUND_NAMES:
            return self.ground
        if name not in self.bodies:
            known = ["ground", *self.bodies]
            raise ModelError(f"unknown body '{name}'{did_you_mean(name, known)} "
                             f"(bodies: {', '.join(known)})", path)
        return self.bodies[name]

    def node(self, ref: Any, path: str = "") -> Node:
        """Resolve a node reference: ``body.node``, a bare body name (its COG frame), or
        a :class:`Node` / :class:`Body` object."""
        if isinstance(ref, Node):
            return ref
        if isinstance(ref, Body):
            return ref.cog
        if not isinstance(ref, str):
            raise ModelError(f"expected a node reference 'body.node' or 'body', got "
                             f"{shown(ref)}", path)
        body_name, _, node_name = ref.partition(".")
        body = self.body(body_name, path)
        if not node_name:
            return body.cog
        if node_name not in body.nodes:
            known = list(body.nodes)
            raise ModelError(
                f"unknown node '{node_name}' on '{body_name}'{did_you_mean(node_name, known)} "
                f"(nodes: {', '.join(known) or 'none'})", path)
        return body.nodes[node_name]

    def _check_signal(self, value: Any, path: str) -> SignalSpec:
        if isinstance(value, SignalSpec):
            return value
        kind = value.get("type")
        info = self.registry.get("signal", kind) if isinstance(kind, str) else None
        if info is None:
            names = self.registry.names("signal")
            raise ModelError(f"unknown signal type {shown(kind)}{did_you_mean(kind, names)}; "
                             f"known: {', '.join(names)}", f"{path}.type")
        given = {k: v for k, v in value.items() if k != "type"}
        params = parse_params(info.cls.parameters, given, path)
        _validate(info.cls, params, path)
        return SignalSpec(kind, params)

    def _new_element(self, kind: str, name: str, type: Any, table: Mapping[str, Any]
                     ) -> tuple[str, TypeInfo]:
        """Key path and registered type of a new link or force; checks name and type."""
        path = f"{kind}s.{name}"
        _check_name(name, path)
        if name in table:
            raise ModelError(f"{kind} '{name}' is defined twice", path)
        info = self.registry.get(kind, type) if isinstance(type, str) else None
        if info is None:
            names = self.registry.names(kind)
            raise ModelError(f"unknown {kind} type {shown(type)}{did_you_mean(type, names)}; "
                             f"known: {', '.join(names)}", f"{path}.type")
        return path, info

    def add_link(self, name: str, type: str, master: Any, slave: Any,
                 spring_damper: Any = None, **params: Any) -> LinkDef:
        """Add a link restraining ``slave`` relative to ``master``.

        Parameters
        ----------
        name
            Unique link name.
        type
            A registered link type (``frylinks plugins`` lists them).
        master, slave
            Node references (``body.node``, a body name, or objects).
        spring_damper
            ``{stiffness, damping, rest}`` for one free DOF; keyed by DOF name or
            matrices over the free DOFs for several (docs/reference/case-file.md).
        **params
            The type's own parameters (``pitch`` for a screw).
        """
        path, info = self._new_element("link", name, type, self.links)
        m = self.node(master, f"{path}.master")
        s = self.node(slave, f"{path}.slave")
        if m.body is s.body:
            raise ModelError(f"master and slave are both on '{m.body.name}'; a link joins two "
                             "distinct bodies", path)
        parsed = parse_params(info.cls.parameters, params, path, self._check_signal)
        _validate(info.cls, parsed, path)
        free = info.cls.free_dofs
        k, b, r0, has = parse_spring_damper(spring_damper, free, f"{path}.spring_damper")
        link = LinkDef(name, type, m, s, parsed, k, b, r0, has)
        self.links[name] = link
        return link

    def add_force(self, name: str, type: str, **params: Any) -> ForceDef:
        """Add a force element of a registered type with its parameters."""
        path, info = self._new_element("force", name, type, self.forces)
        parsed = parse_params(info.cls.parameters, params, path, self._check_signal)
        _validate(info.cls, parsed, path)
        nodes = []
        for att in info.cls.attachments:
            ref = parsed[att]
            kind = info.cls.parameters[att].kind
            if kind == "body":
                node = self.body(ref, f"{path}.{att}").cog if isinstance(ref, str) \
                    else self.node(ref, f"{path}.{att}")
            else:
                node = self.node(ref, f"{path}.{att}")
            nodes.append(node)
        if len(nodes) == 2 and nodes[0].body is nodes[1].body:
            raise ModelError(f"both ends are on '{nodes[0].body.name}'; a force between two "
                             "nodes joins two distinct bodies", path)
        if nodes:
            _check_exclusive(self, info.cls, parsed, nodes[0].body, path)
        key = info.cls.body_mesh
        if key is not None and parsed.get(key) is None and nodes \
                and info.cls.needs_body_mesh(parsed):
            parsed[key] = _body_mesh(nodes[0].body, parsed.get("mesh_resolution"),
                                     f"{path}.{key}")
        force = ForceDef(name, type, parsed, nodes)
        self.forces[name] = force
        return force

    def configure(self, name: str, **params: Any) -> dict[str, Any]:
        """Set a system-level setting contributed by a plugin (the case file's top-level
        key of the same name), such as ``configure("environment", waves={...})``.

        Parameters
        ----------
        name
            A registered setting type (``frylinks plugins`` lists them).
        **params
            Its parameters; those not given take their defaults. Configuring a
            setting again replaces it.
        """
        info = self.registry.get("setting", name) if isinstance(name, str) else None
        if info is None:
            names = self.registry.names("setting")
            raise ModelError(f"unknown setting {shown(name)}{did_you_mean(name, names)}; "
                             f"known: {', '.join(names) or 'none installed'}", str(name))
        parsed = parse_params(info.cls.parameters, params, name, self._check_signal)
        try:
            parsed = info.cls.normalise(parsed)
        except ModelError as exc:
            raise exc.under(name) from None
        _validate(info.cls, parsed, name)
        self.settings[name] = parsed
        return parsed


def _check_exclusive(system: System, cls: Any, params: Mapping[str, Any], body: Body,
                     path: str) -> None:
    """Raise when a force of type ``cls`` with ``params`` would supply on ``body`` a load
    a force of another type there supplies already
    (:meth:`~frylinks.forces.ForceType.supplies`): it would count twice."""
    if body.is_ground:
        return
    mine = set(cls.supplies(params))
    if not mine:
        return
    for other in system.forces.values():
        if not other.nodes or other.nodes[0].body is not body or other.type == cls.name:
            continue
        info = system.registry.get("force", other.type)
        if info is None:
            continue
        both = sorted(mine & set(info.cls.supplies(other.params)))
        if both:
            # (the hint of the type that says more than the base class's)
            default = ForceType.supplies_hint
            hint = cls.supplies_hint if cls.supplies_hint != default else info.cls.supplies_hint
            raise ModelError(f"a '{cls.name}' force on body '{body.name}' beside the "
                             f"'{other.type}' force '{other.name}': both supply its "
                             f"{' and '.join(both)}, which would count twice; {hint}", path)


def _body_mesh(body: Body, resolution: Any, path: str) -> Any:
    """The mesh of ``body``'s geometry in body axes about its COG (for a force type's
    :attr:`~frylinks.forces.ForceType.body_mesh`)."""
    if body.is_ground or body.geometry is None:
        raise ModelError(f"body '{body.name}' has no geometry (a mesh file or a shape: "
                         f"bodies.{body.name}.geometry) to take the mesh from; give one "
                         "or this parameter", path)
    return body_mesh(body.geometry, 0.0,
                     24 if resolution is None else max(4, int(resolution)))


SPRING_KEYS = ("stiffness", "damping", "rest")


def parse_spring_damper(value: Any, free: tuple[str, ...], path: str
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Stiffness, damping matrices ``(nf, nf)`` and rest ``(nf,)`` of a link spring-damper.

    Accepted: ``{stiffness, damping, rest}`` with scalars (one free DOF, or the same on
    each), lists of ``nf`` values (diagonal) or ``nf x nf`` matrices; or a mapping keyed
    by free-DOF name, each ``{stiffness, damping, rest}`` with scalars.
    """
    nf = len(free)
    zeros = (np.zeros((nf, nf)), np.zeros((nf, nf)), np.zeros(nf), False)
    if value is None:
        return zeros
    if not isinstance(value, Mapping):
        raise ModelError("expected a mapping {stiffness, damping, rest}", path)
    if nf == 0:
        raise ModelError("this link type has no free DOF to carry a spring-damper", path)
    if any(k in DOFS for k in value):
        check_keys(value, free, path)
        k = np.zeros((nf, nf))
        b = np.zeros((nf, nf))
        r = np.zeros(nf)
        for dof, sub in value.items():
            where = f"{path}.{dof}"
            if not isinstance(sub, Mapping):
                raise ModelError("expected a mapping {stiffness, damping, rest}", where)
            check_keys(sub, SPRING_KEYS, where)
            i = free.index(dof)
            k[i, i] = as_float(sub.get("stiffness", 0.0), f"{where}.stiffness")
            b[i, i] = as_float(sub.get("damping", 0.0), f"{where}.damping")
            r[i] = as_float(sub.get("rest", 0.0), f"{where}.rest")
        return k, b, r, True
    check_keys(value, SPRING_KEYS, path)
    k = _matrix(value.get("stiffness", 0.0), nf, f"{path}.stiffness")
    b = _matrix(value.get("damping", 0.0), nf, f"{path}.damping")
    rest = value.get("rest", 0.0)
    if nf == 1 or isinstance(rest, int | float):
        r = np.full(nf, as_float(rest, f"{path}.rest"))
    else:
        r = as_vector(rest, f"{path}.rest", nf)
    return k, b, r, True


def _matrix(value: Any, nf: int, path: str) -> np.ndarray:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return np.eye(nf) * as_float(value, path)
    arr = try_array(value)
    if arr is not None and in_range(arr):
        if arr.shape == (nf,):
            return np.diag(arr)
        if arr.shape == (nf, nf):
            return arr
    raise ModelError(f"expected a number, {nf} numbers (diagonal) or a {nf}x{nf} matrix over "
                     f"the free DOFs (finite, up to {MAX_MAGNITUDE:g} in magnitude), got "
                     f"{shown(value)}", path)


__all__ = ["Body", "ForceDef", "LinkDef", "Node", "Param", "System"]
