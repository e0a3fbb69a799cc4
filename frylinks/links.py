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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .kinematics import Relative
from .params import Param
from .rotations import quat_multiply, quat_to_rotvec
from .signals import SignalArray, SignalSpec

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

    def constraints(self, rel: Relative, ctx: LinkContext) -> ConstraintBlock:
        """Constraint rows and velocity/acceleration targets of every link of the block."""
        raise NotImplementedError

    def residual(self, rel: Relative, ctx: LinkContext) -> Array:
        """Position-level constraint violation ``(n, nc)`` of every link of the block."""
        raise NotImplementedError

    def displacement(self, rel: Relative, ctx: LinkContext) -> Array:
        """Slave node relative to master node as ``(n, 6)`` over ``tx ... rz``.

        Translations are ``rel.d``; rotations are the unwrapped angle for a single free
        rotation, otherwise the rotation vector of ``rel.q_rel``.
        """
        raise NotImplementedError

    def free_basis(self, rel: Relative) -> Array:
        """``E`` of shape ``(n, 6, nf)`` with ``tau = E @ gvel`` on the manifold."""
        raise NotImplementedError

    def unwrap_angle(self, rel: Relative, ctx: LinkContext) -> Array | None:
        """The unwrapped angle ``(n,)`` of a single free rotation, or None."""
        return None

    def coordinates(self, rel: Relative, ctx: LinkContext) -> tuple[Array, Array]:
        """Joint coordinates ``gpos`` and velocities ``gvel``, each ``(n, nf)``."""
        index = [DOFS.index(d) for d in self.free_dofs]
        return self.displacement(rel, ctx)[:, index], rel.tau[:, index]


def wrap_to_pi(a: Array) -> Array:
    """Angles mapped to [-pi, pi)."""
    return (a + np.pi) % (2.0 * np.pi) - np.pi


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

    def coupling(self) -> Array:
        """Translation per radian of the single free rotation, ``(n, 3)``; zero here."""
        return np.zeros((self.nb_links, 3))

    def _twist(self, rel: Relative, ctx: LinkContext) -> tuple[Array, Array]:
        """Unwrapped angle about the free axis and the swing rotation vector."""
        # the engine asks for the angle and the residual at the same kinematics and
        # context: compute once per (rel, ctx)
        cached = getattr(rel, "_twist_cache", None)
        if (cached is not None and cached[0] is self and cached[1] is ctx
                and cached[2] is ctx.angle_ref and cached[3] is rel.q_rel):
            return cached[4]
        k = self._axis
        assert k is not None
        q = rel.q_rel
        raw = 2.0 * np.arctan2(q[:, 1 + k], q[:, 0])
        ref = np.where(np.isnan(ctx.angle_ref), 0.0, ctx.angle_ref)
        angle = ref + wrap_to_pi(raw - ref)
        half = 0.5 * angle
        untwist = np.zeros_like(q)  # conjugate of the twist about the free axis
        untwist[:, 0] = np.cos(half)
        untwist[:, 1 + k] = -np.sin(half)
        swing = quat_to_rotvec(quat_multiply(q, untwist))
        rel._twist_cache = (self, ctx, ctx.angle_ref, q, (angle, swing))  # type: ignore[attr-defined]
        return angle, swing

    def unwrap_angle(self, rel: Relative, ctx: LinkContext) -> Array | None:
        return None if self._axis is None else self._twist(rel, ctx)[0]

    def displacement(self, rel: Relative, ctx: LinkContext) -> Array:
        out = np.empty((self.nb_links, 6))
        out[:, :3] = rel.d
        if self._axis is None:
            out[:, 3:] = quat_to_rotvec(rel.q_rel)
        else:
            angle, swing = self._twist(rel, ctx)
            out[:, 3:] = swing
            out[:, 3 + self._axis] = angle
        return out

    def constraints(self, rel: Relative, ctx: LinkContext) -> ConstraintBlock:
        return ConstraintBlock(self._rows, self._zeros, self._zeros)

    def residual(self, rel: Relative, ctx: LinkContext) -> Array:
        disp = self.displacement(rel, ctx)
        out = np.empty((self.nb_links, self.nb_constraints))
        nt = len(self._locked_t)
        if self._axis is not None:
            np.subtract(disp[:, self._locked_t_idx],
                        self._coupling_t * disp[:, 3 + self._axis, None], out=out[:, :nt])
        else:
            out[:, :nt] = disp[:, self._locked_t_idx]
        out[:, nt:] = disp[:, self._locked_r_idx]
        return out

    def free_basis(self, rel: Relative) -> Array:
        return self._basis
