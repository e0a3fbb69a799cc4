"""Joint kinematics in Arboris' conventions: standalone joints and those of every link.

A joint parametrises the pose of a frame 1 (the slave node) relative to a frame 0 (the
master node) by generalised coordinates ``gpos`` and velocities ``gvel`` (Arboris,
*Rigid Mechanisms*):

* ``pose``: the 4x4 homogeneous matrix ``H_01`` (frame 1 in frame 0), ``ipose`` its
  inverse;
* ``twist``: the twist of frame 1 relative to frame 0 expressed in frame 1, angular
  part first, ``[w, v]`` with ``H_01^-1 dH_01/dt = [[w]x, v], [0, 0]]``; ``itwist``: the
  twist of frame 0 relative to frame 1 expressed in frame 0, ``-Ad(H_01) twist``;
* ``jacobian``: ``X(gpos)`` of shape ``(6, ndof)`` with ``twist = jacobian @ gvel``.

Standalone joints are built from ``gpos`` and ``gvel`` without a system, as in Arboris:
:class:`RzJoint` ``(gpos=..., gvel=...)``, its siblings for x and y, the cardan joints
:class:`RzRyJoint`, :class:`RyRxJoint`, :class:`RzRxJoint` (``pose = R_first(a)
R_second(b)``), the ball :class:`RzRyRxJoint` and :class:`FreeJoint` (``gpos`` a 4x4
pose, ``gvel`` a twist). For these ``gvel`` is the time derivative of ``gpos``.

Every link of a system exposes the same quantities at a state through
:func:`frylinks.engine.joints.link_joints`, computed from the relative kinematics of
:mod:`frylinks.kinematics` and the link type's ``coordinates`` and ``free_basis``: a
revolute link is an :class:`RzJoint`, a universal link the cardan joint of its
``axes``. For links whose free rotations are described by a rotation vector
(spherical, free, ...) ``gvel`` is the relative angular velocity, not the rate of
``gpos`` (Arboris' ``nu = V(gpos) dgpos/dt``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

Array = np.ndarray

__all__ = [
    "FreeJoint",
    "Joint",
    "LinkJoint",
    "RotationsJoint",
    "RxJoint",
    "RyJoint",
    "RyRxJoint",
    "RzJoint",
    "RzRxJoint",
    "RzRyJoint",
    "RzRyRxJoint",
    "adjoint",
    "homogeneous",
    "inverse_pose",
    "rotation",
]


# ----------------------------------------------------------------------------- algebra

def rotation(axis: int, angle: float) -> Array:
    """The 3x3 rotation by ``angle`` [rad] about the unit axis ``axis`` (0 x, 1 y, 2 z)."""
    c, s = np.cos(angle), np.sin(angle)
    i, j = (axis + 1) % 3, (axis + 2) % 3
    r = np.zeros((3, 3))
    r[axis, axis] = 1.0
    r[i, i] = r[j, j] = c
    r[i, j], r[j, i] = -s, s
    return r


def homogeneous(r: Array, p: ArrayLike | None = None) -> Array:
    """The 4x4 homogeneous matrix of a rotation ``r`` and a translation ``p``."""
    h = np.zeros((4, 4))
    h[:3, :3] = r
    if p is not None:
        h[:3, 3] = p
    h[3, 3] = 1.0
    return h


def inverse_pose(h: Array) -> Array:
    """Inverse of a homogeneous matrix: ``[[R^T, -R^T p], [0, 1]]``."""
    r = h[:3, :3]
    # + 0.0 turns the -0.0 of a zero translation into 0.0 (printed as Arboris does)
    return homogeneous(r.T, -(r.T @ h[:3, 3]) + 0.0)


def adjoint(h: Array) -> Array:
    """The 6x6 adjoint of ``h = H_01``: maps a twist ``[w, v]`` expressed in frame 1 to
    frame 0, ``[[R, 0], [[p]x R, R]]``."""
    r, p = h[:3, :3], h[:3, 3]
    px = np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])
    ad = np.zeros((6, 6))
    ad[:3, :3] = ad[3:, 3:] = r
    ad[3:, :3] = px @ r
    return ad


# ------------------------------------------------------------------------------ joints

class Joint:
    """Base of the joints: ``ndof``, ``gpos``, ``gvel``, ``pose``, ``jacobian``, and what
    follows from them (``ipose``, ``twist``, ``itwist``); see the module doc."""

    gpos: Array
    gvel: Array

    @property
    def ndof(self) -> int:
        """Number of degrees of freedom."""
        raise NotImplementedError

    @property
    def pose(self) -> Array:
        """``H_01``, the 4x4 pose of frame 1 (slave node) in frame 0 (master node)."""
        raise NotImplementedError

    @property
    def jacobian(self) -> Array:
        """``X(gpos)``, shape ``(6, ndof)``: ``twist = jacobian @ gvel``."""
        raise NotImplementedError

    @property
    def ipose(self) -> Array:
        """``H_10``, the inverse of :attr:`pose`."""
        return inverse_pose(self.pose)

    @property
    def twist(self) -> Array:
        """Twist of frame 1 relative to frame 0 in frame 1, ``[w, v]`` (6,)."""
        return np.asarray(self.jacobian @ self.gvel)

    @property
    def itwist(self) -> Array:
        """Twist of frame 0 relative to frame 1 in frame 0: ``-Ad(pose) @ twist``."""
        return -(adjoint(self.pose) @ self.twist)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(gpos={self.gpos!r}, gvel={self.gvel!r})"


class RotationsJoint(Joint):
    """Serial rotations about the axes ``axes`` (0 x, 1 y, 2 z) of the turning frame:
    ``pose = R_axes[0](gpos[0]) R_axes[1](gpos[1]) ...`` (Arboris'
    ``LinearConfigurationSpaceJoint``; ``gvel`` is the rate of ``gpos``).

    Parameters
    ----------
    gpos
        Angles [rad], one per axis (default zeros).
    gvel
        Their rates [rad s-1] (default zeros).
    """

    axes: ClassVar[tuple[int, ...]] = ()

    def __init__(self, gpos: ArrayLike | None = None, gvel: ArrayLike | None = None) -> None:
        n = self.ndof
        self.gpos = np.zeros(n) if gpos is None else np.array(gpos, dtype=float).reshape(n)
        self.gvel = np.zeros(n) if gvel is None else np.array(gvel, dtype=float).reshape(n)

    @property
    def ndof(self) -> int:
        return len(self.axes)

    def _rotations(self) -> list[Array]:
        return [rotation(a, q) for a, q in zip(self.axes, self.gpos, strict=True)]

    @property
    def pose(self) -> Array:
        rots = self._rotations()
        r = rots[0]
        for step in rots[1:]:
            r = r @ step
        return homogeneous(r)

    @property
    def jacobian(self) -> Array:
        # column k: axis k seen from frame 1, (R_k+1 ... R_n)^T e_k
        rots = self._rotations()
        jac = np.zeros((6, self.ndof))
        after = np.eye(3)
        for k in range(self.ndof - 1, -1, -1):
            jac[:3, k] = after.T[:, self.axes[k]]
            after = rots[k] @ after
        return jac


class RxJoint(RotationsJoint):
    """Hinge about the x axis (1 DOF)."""

    axes = (0,)


class RyJoint(RotationsJoint):
    """Hinge about the y axis (1 DOF)."""

    axes = (1,)


class RzJoint(RotationsJoint):
    """Hinge about the z axis (1 DOF): ``pose = Rz(q)``."""

    axes = (2,)


class RzRyJoint(RotationsJoint):
    """Cardan joint ``pose = Rz(a) Ry(b)`` (2 DOF)."""

    axes = (2, 1)


class RyRxJoint(RotationsJoint):
    """Cardan joint ``pose = Ry(a) Rx(b)`` (2 DOF)."""

    axes = (1, 0)


class RzRxJoint(RotationsJoint):
    """Cardan joint ``pose = Rz(a) Rx(b)`` (2 DOF)."""

    axes = (2, 0)


class RzRyRxJoint(RotationsJoint):
    """Ball and socket as three serial hinges, ``pose = Rz(a) Ry(b) Rx(c)`` (3 DOF)."""

    axes = (2, 1, 0)


class FreeJoint(Joint):
    """No restriction (6 DOF): ``gpos`` is the 4x4 pose itself, ``gvel`` the twist.

    Parameters
    ----------
    gpos
        Homogeneous matrix ``H_01`` (default identity).
    gvel
        Twist ``[w, v]`` of frame 1 relative to frame 0 in frame 1 (default zeros).
    """

    def __init__(self, gpos: ArrayLike | None = None, gvel: ArrayLike | None = None) -> None:
        self.gpos = np.eye(4) if gpos is None else np.array(gpos, dtype=float).reshape(4, 4)
        self.gvel = np.zeros(6) if gvel is None else np.array(gvel, dtype=float).reshape(6)

    @property
    def ndof(self) -> int:
        return 6

    @property
    def pose(self) -> Array:
        return self.gpos.copy()

    @property
    def jacobian(self) -> Array:
        return np.eye(6)


# ------------------------------------------------------------------------ link joints

class LinkJoint(Joint):
    """The joint of a link at one state (built by :func:`link_joints`).

    Attributes
    ----------
    name, type : str
        The link's name and type.
    gpos, gvel : (ndof,) ndarray
        The link type's joint coordinates and velocities (``coordinates``), in the order
        of its ``free_dofs``; ``ndof`` is their number.
    pose : (4, 4) ndarray
        The slave node in the master node, from the state.
    jacobian : (6, ndof) ndarray
        ``X`` from the link's free basis ``E`` (``tau = E @ gvel``): the twist of a free
        motion is ``jacobian @ gvel``.
    twist : (6,) ndarray
        The relative twist measured at the state. It equals ``jacobian @ gvel`` to the
        constraint tolerance, except for drivers, whose prescribed motion along the
        master z axis is not a free motion (``twist - jacobian @ gvel`` is that motion).
    """

    def __init__(self, name: str, type: str, gpos: Array, gvel: Array, pose: Array,
                 jacobian: Array, twist: Array) -> None:
        self.name = name
        self.type = type
        self.gpos = gpos
        self.gvel = gvel
        self._pose = pose
        self._jacobian = jacobian
        self._twist = twist

    @property
    def ndof(self) -> int:
        return len(self.gvel)

    @property
    def pose(self) -> Array:
        return self._pose.copy()

    @property
    def jacobian(self) -> Array:
        return self._jacobian.copy()

    @property
    def twist(self) -> Array:
        return self._twist.copy()

    def __repr__(self) -> str:
        return (f"LinkJoint(name={self.name!r}, type={self.type!r}, gpos={self.gpos!r}, "
                f"gvel={self.gvel!r})")
