"""Link types: the base class plugins derive from, and the generic axis link.

A link restrains the slave node relative to the master node. Its constraint rows act on
the relative twist ``tau = [d', w_rel]`` of :mod:`frylinks.kinematics` (master-node axes,
translations first, the ``dof`` order tx ty tz rx ry rz). A link type returns, for all
links of its type at once:

* from :meth:`LinkType.constraints`, the velocity and acceleration level:
  ``rows`` ``(n, nc, 6)`` with the velocity constraint ``rows @ tau = velocity``, and
  ``acceleration`` ``(n, nc)``, right-hand side of ``rows @ tau' = acceleration`` with
  any ``rows' @ tau`` term of configuration-dependent rows already moved into it;
* from :meth:`LinkType.residual`, the position level: ``(n, nc)``, zero on the
  constraint manifold, whose time derivative is ``rows @ tau - velocity`` there. It is
  asked for only when the engine projects onto the constraints (once per step), while
  ``constraints`` is called at every stage of the integrator.

The engine adds the link spring-damper on the free DOFs for every type, so a link type
only describes geometry. :class:`AxisLink` covers every type whose free DOFs are axes of
the master node (fixed, revolute, prismatic, cylindrical, spherical, screw, planar,
free): a subclass declares ``free_dofs`` and nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from frylinks.jit import (
    alive,
    copy_into,
    helper,
    kernel,
    quat_mul,
    quat_to_rotvec4,
    scratch,
    unwrap,
)
from frylinks.kinematics import Relative
from frylinks.params import Param
from frylinks.signals import SignalArray, SignalSpec

Array = np.ndarray

DOFS = ("tx", "ty", "tz", "rx", "ry", "rz")


@dataclass
class LinkContext:
    """What a link type may read at evaluation besides the kinematics.

    Attributes
    ----------
    t : float
        Time [s].
    signals : list of ndarray
        Bank values at ``t`` for orders 0, 1, 2 (value, rate, second derivative).
    angle_ref : (n,) ndarray
        Unwrapping reference of the block's single free rotation (the angle at the last
        accepted step), or NaN where none is kept yet.
    """

    t: float
    signals: list[Array]
    angle_ref: Array


@dataclass
class ConstraintBlock:
    """Velocity- and acceleration-level constraints of a block of links (module doc);
    shapes ``(n, nc, 6)`` and ``(n, nc)``."""

    rows: Array
    velocity: Array
    acceleration: Array


class LinkKernels(NamedTuple):
    """The compiled functions of a link type, each over every link of a block.

    Each is a :func:`frylinks.jit.kernel` at module level (the engine imports it by
    name into the model's compiled step). ``data`` is the type's
    :meth:`LinkType.kernel_data`; ``rel`` the block's :class:`~frylinks.kinematics.
    Relative`; ``t`` the time; ``s0, s1, s2`` the model's signal values and their first
    two time derivatives (:attr:`LinkContext.signals`); ``angle_ref`` the block's
    unwrapping references. Outputs are written into the arrays given last:

    * ``constraints(data, rel, t, s0, s1, s2, angle_ref, rows, velocity, acceleration)``
      with shapes ``(n, nc, 6)``, ``(n, nc)``, ``(n, nc)`` (:meth:`LinkType.constraints`);
    * ``residual(data, rel, t, s0, angle_ref, out)``, ``(n, nc)``;
    * ``displacement(data, rel, t, s0, angle_ref, out)``, ``(n, 6)``;
    * ``coordinates(data, rel, t, s0, angle_ref, gpos, gvel)``, each ``(n, nf)``;
    * ``free_basis(data, rel, out)``, ``(n, 6, nf)``;
    * ``unwrap_angle(data, rel, angle_ref, out)``, ``(n,)``: returns False (and writes
      nothing) when the type has no single free rotation;
    * ``accept(data, rel, t, s0, angle_ref)``, or None: called once at the start of a
      run and after every accepted step, at that state (``rel`` with its velocities),
      never at an intermediate one: a switch (:attr:`LinkType.switching`) decides there,
      in the type's ``memory``.
    """

    constraints: Callable[..., None]
    residual: Callable[..., None]
    displacement: Callable[..., None]
    coordinates: Callable[..., None]
    free_basis: Callable[..., None]
    unwrap_angle: Callable[..., bool]
    accept: Callable[..., None] | None = None


class LinkType:
    """Base class of link types: one object holds all links of one type.

    Class attributes
    ----------------
    name : str
        The case-file ``type``.
    free_dofs : tuple of str
        Names (from ``tx ty tz rx ry rz``) of the free DOFs, in the order of ``gpos``; a
        link spring-damper acts on them.
    parameters : dict[str, Param]
        Parameters beside ``type``, ``master``, ``slave`` and ``spring_damper``.
    description : str
        One line for ``frylinks plugins`` and the docs.
    constraint_level : str
        ``"position"`` (the default): the rows are the Jacobian of :meth:`residual`.
        ``"velocity"``: the rows constrain velocities only (Solfec's velocity driver);
        there is no position-level constraint, :meth:`residual` is zero and the position
        is the integral of the velocity target. ``"acceleration"``: only the acceleration
        is constrained; :meth:`residual` is zero and the velocity target is the current
        ``rows @ tau``, so the projection after a step leaves the motion alone.

    Parameters
    ----------
    instances
        Parsed parameters of each link of the block, in order (signal inputs are
        :class:`~frylinks.signals.SignalSpec`).
    signal_specs
        The model's signal list; :meth:`signal_array` registers signals in it. Their
        values and first and second derivatives reach the type as ``ctx.signals``.
    """

    name: ClassVar[str] = ""
    free_dofs: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[dict[str, Param]] = {}
    description: ClassVar[str] = ""
    constraint_level: ClassVar[str] = "position"
    #: The compiled functions (:class:`LinkKernels`), or None for a type written in plain
    #: numpy: such a type overrides the methods below, and a model that uses it runs on
    #: the engine's Python path.
    kernels: ClassVar[LinkKernels | None] = None
    #: Names of instance attributes (float arrays, one row per link) that carry
    #: information from one evaluation to the next (a length taken at the start): saved
    #: in checkpoints and restored in place when a run resumes, as a force type's.
    memory: ClassVar[tuple[str, ...]] = ()
    #: The rows switch on and off (a latch): a row is zero while off, and its kernel
    #: ``accept`` decides. The contract checks then do not ask the rows for full rank.
    switching: ClassVar[bool] = False

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        self.nb_links = len(instances)
        #: Constraint rows per link (set by subclasses).
        self.nb_constraints = 0
        self._signal_specs = signal_specs if signal_specs is not None else []

    def signal_array(self, entries: Sequence[Any]) -> SignalArray:
        """A :class:`SignalArray` over ``entries`` (numbers and signals), shape ``(n, ...)``;
        ``array.at(ctx.signals[k], k)`` gives its k-th time derivative."""
        return SignalArray(entries, self._signal_specs)

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        """Check parsed parameters of one instance beyond their declarations.

        Called when the instance is added (Python API or case file), so a mistake is
        reported where it was made. Raise :class:`~frylinks.errors.ModelError` with the
        parameter name as its path (``ModelError("must follow t_start", "t_end")``).
        """

    @property
    def nb_free(self) -> int:
        return len(self.free_dofs)

    @property
    def constraint_names(self) -> tuple[str, ...]:
        """Per constraint row, in order, what its residual measures, so that the
        initial residual of a link is reported in its own terms (``links.slide: ... tz
        0 m, rx -90 deg``): ``tx ty tz`` or another name for a length [m], ``rx ry rz``
        or a name starting ``r_`` for an angle [rad]. Empty by default: the engine then
        names each row after the DOF of the relative twist its row weighs most
        (:func:`frylinks.engine.assembly.constraint_names`)."""
        return ()

    def kernel_data(self) -> tuple[Any, ...]:
        """The arrays the type's kernels read (parameters of the block's links), given
        to each kernel as ``data``. Arrays a kernel writes (a length taken at the start)
        are memory shared with the Python methods."""
        return ()

    def _data(self) -> tuple[Any, ...]:
        data = self.__dict__.get("_kernel_data")
        if data is None:
            data = self._kernel_data = self.kernel_data()
        return data

    def compiled(self) -> str | None:
        """None when this block runs compiled, else why it cannot (named by the run)."""
        return why_not_compiled(self, "link", LINK_METHODS)

    def _kernels(self) -> LinkKernels:
        if self.kernels is None:
            raise NotImplementedError(f"link type '{self.name}' defines neither kernels nor "
                                      "this method")
        return self.kernels

    def constraints(self, rel: Relative, ctx: LinkContext) -> ConstraintBlock:
        """Constraint rows and velocity/acceleration targets of every link of the block."""
        n, nc = self.nb_links, self.nb_constraints
        out = ConstraintBlock(np.zeros((n, nc, 6)), np.zeros((n, nc)), np.zeros((n, nc)))
        s0, s1, s2 = ctx.signals
        self._kernels().constraints(self._data(), rel, ctx.t, s0, s1, s2,
                                    ctx.angle_ref, out.rows, out.velocity, out.acceleration)
        return out

    def residual(self, rel: Relative, ctx: LinkContext) -> Array:
        """Position-level constraint violation ``(n, nc)`` of every link of the block."""
        out = np.zeros((self.nb_links, self.nb_constraints))
        self._kernels().residual(self._data(), rel, ctx.t, ctx.signals[0],
                                 ctx.angle_ref, out)
        return out

    def displacement(self, rel: Relative, ctx: LinkContext) -> Array:
        """Slave node relative to master node as ``(n, 6)`` over ``tx ... rz``.

        Translations are ``rel.d``; rotations are the unwrapped angle for a single free
        rotation, otherwise the rotation vector of ``rel.q_rel``.
        """
        out = np.zeros((self.nb_links, 6))
        self._kernels().displacement(self._data(), rel, ctx.t, ctx.signals[0],
                                     ctx.angle_ref, out)
        return out

    def free_basis(self, rel: Relative) -> Array:
        """``E`` of shape ``(n, 6, nf)`` with ``tau = E @ gvel`` on the manifold."""
        out = np.zeros((self.nb_links, 6, self.nb_free))
        self._kernels().free_basis(self._data(), rel, out)
        return out

    def accept(self, rel: Relative, ctx: LinkContext) -> None:
        """At an accepted state (the start of a run, the end of each step): update the
        type's memory, e.g. a latch's switch (the kernel ``accept``; nothing by
        default)."""
        if self.kernels is not None and self.kernels.accept is not None:
            self.kernels.accept(self._data(), rel, ctx.t, ctx.signals[0], ctx.angle_ref)

    def linearisable(self) -> str | None:
        """None when the links have a linearisation about a state (a linear analysis,
        :mod:`frylinks.analysis`), else why not: by default a type that switches at
        accepted states (an ``accept`` kernel or method, a latch) has none."""
        if type(self).accept is not LinkType.accept or (
                self.kernels is not None and self.kernels.accept is not None):
            return "it switches its behaviour at accepted states (latching: its accept hook)"
        return None

    def unwrap_angle(self, rel: Relative, ctx: LinkContext) -> Array | None:
        """The unwrapped angle ``(n,)`` of a single free rotation, or None."""
        if self.kernels is None:
            return None
        out = np.zeros(self.nb_links)
        if self.kernels.unwrap_angle(self._data(), rel, ctx.angle_ref, out):
            return out
        return None

    def coordinates(self, rel: Relative, ctx: LinkContext) -> tuple[Array, Array]:
        """Joint coordinates ``gpos`` and velocities ``gvel``, each ``(n, nf)``."""
        if self.kernels is None:
            index = [DOFS.index(d) for d in self.free_dofs]
            return self.displacement(rel, ctx)[:, index], rel.tau[:, index]
        gpos = np.zeros((self.nb_links, self.nb_free))
        gvel = np.zeros((self.nb_links, self.nb_free))
        self.kernels.coordinates(self._data(), rel, ctx.t, ctx.signals[0],
                                 ctx.angle_ref, gpos, gvel)
        return gpos, gvel


#: The methods that a type's kernels stand for.
LINK_METHODS = ("constraints", "residual", "displacement", "coordinates", "free_basis",
                "unwrap_angle")


def why_not_compiled(obj: Any, kind: str, methods: Sequence[str]) -> str | None:
    """Why a type instance has no compiled evaluation, or None when it has one.

    Its kernels must be declared by its own class or by a base class that no class in
    between overrides one of ``methods`` of (a plain-numpy subclass of a compiled type
    inherits the kernels of its base, which are not its own evaluation)."""
    cls = type(obj)
    owner = next((c for c in cls.__mro__ if "kernels" in c.__dict__), None)
    if owner is None or owner.__dict__["kernels"] is None:
        return f"{kind} type '{obj.name}' ({cls.__module__}) has no compiled kernels"
    for c in cls.__mro__:
        if c is owner:
            break
        for m in methods:
            if m in c.__dict__:
                return (f"{kind} type '{obj.name}' ({cls.__module__}) overrides {m}() in "
                        "plain numpy without kernels of its own")
    return None


class AxisLink(LinkType):
    """A link whose free DOFs are axes of the master node.

    Subclasses set ``free_dofs``; a translation may follow the single free rotation
    through :meth:`coupling` (the screw link). Rotations: none free (locked by the
    rotation vector of ``q_rel``), one free (its unwrapped twist angle; the swing is
    locked), or all three free.
    """

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        super().__init__(instances, signal_specs)
        free = set(self.free_dofs)
        self._free_t = [i for i in range(3) if DOFS[i] in free]
        self._locked_t = [i for i in range(3) if DOFS[i] not in free]
        free_r = [i for i in range(3) if DOFS[3 + i] in free]
        if len(free_r) == 2:
            raise TypeError(f"{type(self).__name__}: AxisLink takes 0, 1 or 3 free rotations")
        self._axis = free_r[0] if len(free_r) == 1 else None
        self._locked_r = [] if len(free_r) == 3 else [i for i in range(3) if i not in free_r]
        self.nb_constraints = len(self._locked_t) + len(self._locked_r)
        n, nc = self.nb_links, self.nb_constraints
        c = self.coupling()
        rows = np.zeros((n, nc, 6))
        for k, i in enumerate(self._locked_t):
            rows[:, k, i] = 1.0
            if self._axis is not None:
                rows[:, k, 3 + self._axis] = -c[:, i]
        for k, i in enumerate(self._locked_r):
            rows[:, len(self._locked_t) + k, 3 + i] = 1.0
        self._rows = rows
        self._zeros = np.zeros((n, nc))
        basis = np.zeros((n, 6, self.nb_free))
        for k, dof in enumerate(self.free_dofs):
            j = DOFS.index(dof)
            basis[:, j, k] = 1.0
            if self._axis is not None and j == 3 + self._axis:
                basis[:, self._locked_t, k] = c[:, self._locked_t]
        self._basis = basis
        # constant per block: the residual's index lists and coupling as arrays
        self._locked_t_idx = np.array(self._locked_t, dtype=int)
        self._locked_r_idx = np.array([3 + i for i in self._locked_r], dtype=int)
        self._coupling_t = c[:, self._locked_t]

    @property
    def constraint_names(self) -> tuple[str, ...]:
        """The locked DOFs: translations, then rotations (the residual's order)."""
        return (tuple(DOFS[i] for i in self._locked_t)
                + tuple(DOFS[3 + i] for i in self._locked_r))

    def coupling(self) -> Array:
        """Translation per radian of the single free rotation, ``(n, 3)``; zero here."""
        return np.zeros((self.nb_links, 3))

    def kernel_data(self) -> tuple[Any, ...]:
        free = np.array([DOFS.index(d) for d in self.free_dofs], dtype=np.int64)
        return (self._rows, self._basis, self._locked_t_idx.astype(np.int64),
                self._locked_r_idx.astype(np.int64), np.ascontiguousarray(self._coupling_t),
                -1 if self._axis is None else self._axis, free)


@helper
def axis_twist(q: Array, ref: float, k: int, swing: Array) -> float:
    """Unwrapped angle about axis ``k`` of the rotation ``q`` (against ``ref``, NaN for
    none) and, in ``swing``, the rotation vector of what remains (locked)."""
    angle = unwrap(2.0 * math.atan2(q[1 + k], q[0]), ref)
    untwist = scratch(4)  # conjugate of the twist about the free axis
    for j in range(4):
        untwist[j] = 0.0
    untwist[0] = math.cos(0.5 * angle)
    untwist[1 + k] = -math.sin(0.5 * angle)
    rest = scratch(4)
    quat_mul(q, untwist, rest)
    quat_to_rotvec4(rest, swing)
    alive(q)
    alive(swing)
    return angle


@kernel
def rotvec_displacement(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                        angle_ref: Array, out: Array) -> None:
    """The displacement of a link whose rotations are not one free angle: ``d`` and the
    rotation vector of ``q_rel`` (a ``LinkKernels.displacement`` any type may use)."""
    rv = scratch(3)
    for i in range(len(out)):
        quat_to_rotvec4(rel.q_rel[i], rv)
        for j in range(3):
            out[i, j] = rel.d[i, j]
            out[i, 3 + j] = rv[j]


@helper
def axis_displacement_row(rel: Relative, i: int, ref: float, k: int, out: Array) -> None:
    """The displacement of link ``i`` of an axis block into ``out`` (6)."""
    rv = scratch(3)
    angle = 0.0
    if k < 0:
        quat_to_rotvec4(rel.q_rel[i], rv)
    else:
        angle = axis_twist(rel.q_rel[i], ref, k, rv)
    for j in range(3):
        out[j] = rel.d[i, j]
        out[3 + j] = rv[j]
    if k >= 0:
        out[3 + k] = angle
    alive(rel)
    alive(out)


@kernel
def axis_displacement(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                      angle_ref: Array, out: Array) -> None:
    for i in range(len(out)):
        axis_displacement_row(rel, i, angle_ref[i], data[5], out[i])
    alive(data)
    alive(rel)
    alive(angle_ref)
    alive(out)


@kernel
def axis_constraints(data: tuple[Any, ...], rel: Relative, t: float, s0: Array, s1: Array,
                     s2: Array, angle_ref: Array, rows: Array, velocity: Array,
                     acceleration: Array) -> None:
    copy_into(rows, data[0])
    velocity[...] = 0.0
    acceleration[...] = 0.0


@kernel
def axis_residual(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                  angle_ref: Array, out: Array) -> None:
    locked_t, locked_r, coupling, k = data[2], data[3], data[4], data[5]
    disp = scratch(6)
    nt = len(locked_t)
    for i in range(len(out)):
        axis_displacement_row(rel, i, angle_ref[i], k, disp)
        for c in range(nt):
            out[i, c] = disp[locked_t[c]]
            if k >= 0:
                out[i, c] -= coupling[i, c] * disp[3 + k]
        for c in range(len(locked_r)):
            out[i, nt + c] = disp[locked_r[c]]
    alive(locked_t)
    alive(locked_r)
    alive(coupling)
    alive(data)
    alive(rel)
    alive(angle_ref)
    alive(out)


@kernel
def axis_coordinates(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                     angle_ref: Array, gpos: Array, gvel: Array) -> None:
    free = data[6]
    disp = scratch(6)
    for i in range(len(gpos)):
        axis_displacement_row(rel, i, angle_ref[i], data[5], disp)
        for c in range(len(free)):
            gpos[i, c] = disp[free[c]]
            gvel[i, c] = rel.tau[i, free[c]]
    alive(free)
    alive(data)
    alive(rel)
    alive(angle_ref)
    alive(gpos)
    alive(gvel)


@kernel
def axis_free_basis(data: tuple[Any, ...], rel: Relative, out: Array) -> None:
    copy_into(out, data[1])


@kernel
def axis_unwrap_angle(data: tuple[Any, ...], rel: Relative, angle_ref: Array,
                      out: Array) -> bool:
    k = data[5]
    if k < 0:
        return False
    rv = scratch(3)
    for i in range(len(out)):
        out[i] = axis_twist(rel.q_rel[i], angle_ref[i], k, rv)
    return True


AxisLink.kernels = LinkKernels(axis_constraints, axis_residual, axis_displacement,
                               axis_coordinates, axis_free_basis, axis_unwrap_angle)
