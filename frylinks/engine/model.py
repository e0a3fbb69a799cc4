"""Assembly: a :class:`~frylinks.model.system.System` turned into arrays.

:class:`Model` is the immutable, array form of a system (pinocchio's ``Model``):
bodies as arrays, links and forces grouped by type into blocks. :class:`State` is the
dynamic state as plain arrays. What is computed at a state lives in
:mod:`frylinks.engine.evaluate` (Python) and in the model's compiled step
(:mod:`frylinks.engine.compose`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frylinks.engine.linalg import ConstraintSolver
from frylinks.errors import ElementError, ModelError
from frylinks.forces import ForceContext, ForceType
from frylinks.kinematics import BodyStates, NodeSet, body_states_kernel, node_frames
from frylinks.links import LinkType
from frylinks.model.registry import Registry, TypeInfo
from frylinks.model.system import Node, System
from frylinks.params import parse_params
from frylinks.rotations import quat_to_matrix
from frylinks.signals import SignalBank, SignalSpec

Array = np.ndarray


#: A step that leaves a constraint residual above this fraction of the model's size
#: (largest coordinate, at least 1 m) has diverged.
DIVERGED = 1e-2


@dataclass
class State:
    """The whole dynamic state as plain arrays (enough to resume a run).

    Attributes
    ----------
    t : float  time [s].
    x : (nb, 3) COG positions.  q : (nb, 4) quaternions body -> world.
    v : (nb, 3) COG velocities.  w : (nb, 3) angular velocities (world axes).
    angle_ref : (nl,) unwrapping reference of links with one free rotation.
    z : (nz,) states of force types (radiation memory), integrated with the bodies.
    """

    t: float
    x: Array
    q: Array
    v: Array
    w: Array
    angle_ref: Array
    z: Array = field(default_factory=lambda: np.zeros(0))

    def copy(self) -> State:
        return State(self.t, self.x.copy(), self.q.copy(), self.v.copy(), self.w.copy(),
                     self.angle_ref.copy(), self.z.copy())

    def pack(self) -> Array:
        """The ODE vector ``[x, q, v, w, z]`` (angle_ref is bookkeeping, not integrated)."""
        return np.concatenate([self.x.ravel(), self.q.ravel(), self.v.ravel(), self.w.ravel(),
                               self.z])

    def unpacked(self, y: Array, t: float) -> State:
        """A state with the ODE vector ``y`` and this state's bookkeeping."""
        nb = len(self.x)
        return State(t, y[: 3 * nb].reshape(nb, 3), y[3 * nb: 7 * nb].reshape(nb, 4),
                     y[7 * nb: 10 * nb].reshape(nb, 3), y[10 * nb: 13 * nb].reshape(nb, 3),
                     self.angle_ref, y[13 * nb:])

    def set(self, other: State) -> None:
        """Take ``other``'s time and integrated arrays (not its bookkeeping)."""
        self.t, self.x, self.q, self.v, self.w, self.z = (
            other.t, other.x, other.q, other.v, other.w, other.z)


def _node_set(nodes: Sequence[Node], index: dict[str, int], ground: int) -> NodeSet:
    body = np.array([ground if n.body.is_ground else index[n.body.name] for n in nodes],
                    dtype=int)
    offset = np.array([n.position for n in nodes]).reshape(-1, 3)
    rot = quat_to_matrix(np.array([n.orientation for n in nodes]).reshape(-1, 4))
    return NodeSet(body, offset, rot)


@dataclass
class LinkBlock:
    """All links of one type: the type object, their nodes and spring-dampers."""

    kind: LinkType
    names: list[str]
    index: Array          # positions of these links in the model's link order
    master: NodeSet
    slave: NodeSet
    K: Array              # (n, nf, nf)
    B: Array
    r0: Array             # (n, nf)
    has_spring: bool
    row_start: int
    value_mask: Array     # which of the (n, nc, 12) values go into G (ground dropped)


@dataclass
class ForceBlock:
    """All force elements of one type and their attachment nodes."""

    kind: ForceType
    names: list[str]
    index: Array
    attachments: list[NodeSet]
    has_point_masses: bool = False
    states: slice = field(default_factory=lambda: slice(0, 0))  # its part of State.z
    added: Array | None = None    # (n, 6, 6) added mass on the first attachment's body
    coupled: Array | None = None  # (6 n, 6 n) added mass between the elements' bodies


@dataclass
class Model:
    """A system assembled into arrays; built once per run by :func:`assemble`."""

    body_names: list[str]
    link_names: list[str]
    force_names: list[str]
    mass: Array                  # (nb,)
    inertia: Array               # (nb, 3, 3) body axes
    inertia_inv: Array
    gravity: Array
    link_blocks: list[LinkBlock]
    force_blocks: list[ForceBlock]
    signals: SignalBank
    solver: ConstraintSolver
    nb_rows: int
    initial: State
    length_scale: float = 1.0
    row_link: Array = field(default_factory=lambda: np.zeros(0, dtype=int))
    settings: dict[str, Any] = field(default_factory=dict)
    added_mass: Array | None = None  # (nb, 6, 6) world-aligned, about the COGs
    #: The added mass between bodies: the coupled bodies ``(ng,)`` and the ``(6 ng, 6 ng)``
    #: matrix (their own blocks zero: those are in ``added_mass``), or None.
    mass_coupling: tuple[Array, Array] | None = None

    @property
    def nb_bodies(self) -> int:
        return len(self.body_names)


def _registered(registry: Registry, kind: str, name: str) -> TypeInfo:
    info = registry.get(kind, name)
    if info is None:  # e.g. a system unpickled where the plugin is not installed
        raise ModelError(f"{kind} type '{name}' is not registered here; installed {kind} "
                         f"types: {', '.join(registry.names(kind))}")
    return info


def assemble(system: System, span: tuple[float, float] | None = None,
             step: float | None = None) -> Model:
    """Group links and forces by type into blocks and build every array.

    Parameters
    ----------
    system
        The model.
    span
        The times ``(t_start, t_end)`` [s] a run of the model will cover, given to the
        force types' ``prepare`` (:attr:`~frylinks.forces.ForceContext.span`), so that a
        type may precompute a record of a load known in advance; None if unknown.
    """
    bodies = list(system.bodies.values())
    if not bodies:
        raise ModelError("the system has no body to move: add one (add_body, or the case's "
                         "bodies)", "bodies")
    names = [b.name for b in bodies]
    index = {n: i for i, n in enumerate(names)}
    nb = len(bodies)
    ground = nb
    specs: list[SignalSpec] = []
    registry = system.registry

    link_blocks: list[LinkBlock] = []
    link_names = list(system.links)
    by_type: dict[str, list[int]] = {}
    for i, link in enumerate(system.links.values()):
        by_type.setdefault(link.type, []).append(i)
    defs = list(system.links.values())
    rows_all: list[Array] = []
    cols_all: list[Array] = []
    row = 0
    for type_name, members in by_type.items():
        info = _registered(registry, "link", type_name)
        ds = [defs[i] for i in members]
        try:
            kind = info.cls([d.params for d in ds], specs)
        except ElementError as exc:
            raise _named(exc, "links", ds) from None
        master = _node_set([d.master for d in ds], index, ground)
        slave = _node_set([d.slave for d in ds], index, ground)
        n, nc = len(ds), kind.nb_constraints
        r = row + np.repeat(np.arange(n * nc), 12)
        cols = np.concatenate([6 * master.body[:, None] + np.arange(6),
                               6 * slave.body[:, None] + np.arange(6)], axis=1)  # (n, 12)
        c = np.broadcast_to(cols[:, None, :], (n, nc, 12)).reshape(-1)
        body_of_col = c // 6
        mask = body_of_col != ground
        rows_all.append(r[mask])
        cols_all.append(c[mask])
        link_blocks.append(LinkBlock(
            kind, [d.name for d in ds], np.array(members, dtype=int), master, slave,
            np.array([d.stiffness for d in ds]), np.array([d.damping for d in ds]),
            np.array([d.rest for d in ds]), any(d.has_spring for d in ds), row, mask))
        row += n * nc

    force_blocks: list[ForceBlock] = []
    fdefs = list(system.forces.values())
    fby_type: dict[str, list[int]] = {}
    for i, f in enumerate(fdefs):
        fby_type.setdefault(f.type, []).append(i)
    for type_name, members in fby_type.items():
        info = _registered(registry, "force", type_name)
        fds = [fdefs[i] for i in members]
        try:
            fkind = info.cls([d.params for d in fds], specs)
        except ElementError as exc:
            raise _named(exc, "forces", fds) from None
        atts = [_node_set([d.nodes[k] for d in fds], index, ground)
                for k in range(len(info.cls.attachments))]
        force_blocks.append(ForceBlock(
            fkind, [d.name for d in fds], np.array(members, dtype=int), atts,
            type(fkind).point_masses is not ForceType.point_masses
            or (fkind.kernels is not None and fkind.kernels.point_masses is not None)))

    signal_classes = {n: _registered(registry, "signal", n).cls for n in {x.type for x in specs}}
    bank = SignalBank(signal_classes, specs)
    rows = np.concatenate(rows_all) if rows_all else np.zeros(0, dtype=int)
    cols = np.concatenate(cols_all) if cols_all else np.zeros(0, dtype=int)
    solver = ConstraintSolver(nb, row, rows, cols)
    inertia = np.array([b.inertia for b in bodies])
    initial = State(
        0.0,
        np.array([b.position for b in bodies]),
        np.array([b.orientation for b in bodies]),
        np.array([b.velocity for b in bodies]),
        np.array([b.angular_velocity for b in bodies]),
        np.full(len(link_names), np.nan),
    )
    positions = [b.position for b in bodies] + [n.position for b in bodies
                                                 for n in b.nodes.values()]
    scale = max(1.0, float(np.max(np.abs(positions))))
    row_link = np.concatenate(
        [np.repeat(blk.index, blk.kind.nb_constraints) for blk in link_blocks]
    ) if link_blocks else np.zeros(0, dtype=int)
    model = Model(names, link_names, list(system.forces), np.array([b.mass for b in bodies]),
                  inertia, np.linalg.inv(inertia), system.gravity.copy(), link_blocks,
                  force_blocks, bank, solver, row, initial, scale, row_link,
                  _settings(system))
    _prepare_forces(model, span, step)
    return model


def _settings(system: System) -> dict[str, Any]:
    """One object per registered setting type: from the system's parameters, or from
    the defaults when the system does not configure it (and they are all optional)."""
    out: dict[str, Any] = {}
    for name in system.registry.names("setting"):
        cls = system.registry.types["setting"][name].cls
        params = system.settings.get(name)
        if params is None:
            if any(p.required for p in cls.parameters.values()):
                continue
            params = parse_params(cls.parameters, {}, name)
        out[name] = cls(params, system.gravity.copy())
    return out


def _prepare_forces(model: Model, span: tuple[float, float] | None,
                    step: float | None = None) -> None:
    """Let force types prepare at the initial state; gather added mass and states."""
    s = model.initial
    b = body_states(model, s)
    ctx = ForceContext(0.0, model.signals.evaluate(0.0, 0) if model.signals.nb_slots
                       else np.zeros(0), model.gravity, model.settings, span=span,
                       step=step)
    nb = model.nb_bodies
    added = np.zeros((nb + 1, 6, 6))
    couplings: list[tuple[Array, Array]] = []  # (bodies, their (6 n, 6 n) added mass)
    start = 0
    z0: list[Array] = []
    mass = np.append(model.mass, 0.0)  # ground last
    for fblk in model.force_blocks:
        ctx.masses = [mass[att.body] for att in fblk.attachments]
        frames = [node_frames(b, att) for att in fblk.attachments]
        try:
            fblk.kind.prepare(frames, ctx)
        except ElementError as exc:
            raise ModelError(exc.message,
                             f"forces.{fblk.names[exc.element]}.{exc.path}") from None
        except ModelError as exc:  # (of the block: keyed by its element when it has one)
            if len(fblk.names) != 1 or exc.path.startswith("forces."):
                raise
            raise ModelError(exc.message, f"forces.{fblk.names[0]}.{exc.path}") from None
        if fblk.has_point_masses:
            # a type that can carry point masses, whose elements here carry none (a
            # spring without mass): nothing to couple
            pm = fblk.kind.point_masses(frames, ctx)
            fblk.has_point_masses = pm is not None and bool(np.any(pm[0] > 0))
        fblk.added = fblk.kind.added_mass()
        body = fblk.attachments[0].body
        if fblk.added is not None:
            if np.any(body == nb):
                raise _on_ground(fblk, body == nb)
            np.add.at(added, body, fblk.added)
        fblk.coupled = fblk.kind.coupled_added_mass()
        if fblk.coupled is not None:
            if np.any(body == nb):
                raise _on_ground(fblk, body == nb)
            n = len(body)
            couplings.append((body, np.asarray(fblk.coupled, dtype=float).reshape(6 * n,
                                                                                 6 * n)))
        n = int(fblk.kind.nb_states)
        fblk.states = slice(start, start + n)
        start += n
        if n:
            z0.append(np.asarray(fblk.kind.initial_states(), dtype=float).reshape(n))
    ctx.masses = []
    _couple(model, added, couplings)
    if np.any(added[:nb]):
        model.added_mass = added[:nb]
    s.z = np.concatenate(z0) if z0 else np.zeros(0)


def _on_ground(fblk: ForceBlock, grounded: Array) -> ModelError:
    """The error of a force type adding mass whose element acts on ground, keyed by the
    first such element's attachment (a case error then names its line)."""
    element = fblk.names[int(np.flatnonzero(grounded)[0])]
    key = fblk.kind.attachments[0] if fblk.kind.attachments else ""
    return ModelError(f"force type '{fblk.kind.name}' adds mass, so its elements cannot "
                      "act on ground", f"forces.{element}.{key}".rstrip("."))


def _named(exc: ElementError, section: str, defs: Sequence[Any]) -> ModelError:
    """A type's error about one of its elements, keyed by the element's name."""
    return ModelError(exc.message, f"{section}.{defs[exc.element].name}.{exc.path}")


def _couple(model: Model, added: Array, couplings: list[tuple[Array, Array]]) -> None:
    """Split the added mass between bodies (each of ``couplings``: the bodies of a force
    block's elements and their ``(6 n, 6 n)`` matrix): what lands on a body's own block
    (two elements on one body) joins its ``added``; the rest, over the bodies it couples,
    is :attr:`Model.mass_coupling`. Only the bodies the couplings name are laid out (a
    chain of 10,000 bodies would otherwise make a 60,000-square matrix)."""
    if not couplings:
        return
    bodies = np.unique(np.concatenate([body for body, _ in couplings]))
    m = len(bodies)
    between = np.zeros((6 * m, 6 * m))
    for body, matrix in couplings:
        cols = (6 * np.searchsorted(bodies, body)[:, None] + np.arange(6)).reshape(-1)
        between[np.ix_(cols, cols)] += matrix
    blocks = between.reshape(m, 6, m, 6)
    for i in range(m):
        added[bodies[i]] += blocks[i, :, i, :]
        blocks[i, :, i, :] = 0.0
    keep = np.flatnonzero(np.any(blocks != 0.0, axis=(1, 2, 3)))
    if len(keep):
        cols = (6 * keep[:, None] + np.arange(6)).reshape(-1)
        model.mass_coupling = (bodies[keep].astype(np.int64),
                               np.ascontiguousarray(between[np.ix_(cols, cols)]))


def body_states(model: Model, s: State) -> BodyStates:
    """Bodies plus ground (last row) at state ``s``."""
    return body_states_kernel(s.x, s.q, s.v, s.w)
