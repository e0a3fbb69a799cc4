"""The one relative-kinematics core every link type uses, and node frames for forces.

For a pair of nodes (master node ``m`` on body A, slave node ``s`` on body B) it gives
the slave node's pose and twist relative to the master node in **master-node axes**:

* ``d = Rm^T (p_s - p_m)``, the relative position;
* ``q_rel``, the rotation master node -> slave node;
* ``tau = [d', w_rel]`` with ``w_rel = Rm^T (w_B - w_A)``, the relative twist;
* ``J`` with ``tau = J @ [v_A, w_A, v_B, w_B]`` (world velocities of the COGs);
* ``kappa``, the part of ``tau'`` quadratic in velocities: ``tau' = J @ u' + kappa``.

Link types only choose rows of ``tau`` (and residuals of the pose); the engine turns
them into constraint Jacobians with ``rows @ J``. The derivation is in docs/theory.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rotations import (
    cross,
    matrix_to_quat,
    quat_conjugate,
    quat_multiply,
    rotate,
    rotate_back,
    skew,
)

Array = np.ndarray


@dataclass
class BodyStates:
    """Pose and velocity of every body plus ground (last row), world axes.

    Attributes
    ----------
    x : (nb + 1, 3) COG positions.
    q : (nb + 1, 4) unit quaternions body -> world.
    R : (nb + 1, 3, 3) rotation matrices body -> world.
    v : (nb + 1, 3) COG velocities.
    w : (nb + 1, 3) angular velocities.
    """

    x: Array
    q: Array
    R: Array
    v: Array
    w: Array


@dataclass
class NodeSet:
    """Nodes referred to by index: body index (ground = nb), offset and axes on the body.

    Attributes
    ----------
    body : (n,) int body index.
    offset : (n, 3) node position relative to the COG, body axes.
    rot : (n, 3, 3) node axes -> body axes.
    qrot : (n, 4) the same rotation as a quaternion.
    """

    body: Array
    offset: Array
    rot: Array

    def __post_init__(self) -> None:
        self.qrot = matrix_to_quat(self.rot) if len(self.body) else np.zeros((0, 4))

    def __len__(self) -> int:
        return len(self.body)

    def subset(self, index: Array) -> NodeSet:
        return NodeSet(self.body[index], self.offset[index], self.rot[index])


@dataclass
class NodeFrames:
    """World pose and velocity of a set of nodes.

    Attributes
    ----------
    p : (n, 3) position.  R : (n, 3, 3) node axes -> world.  q : (n, 4) quaternion.
    v : (n, 3) velocity of the node point.  w : (n, 3) angular velocity.
    r : (n, 3) lever arm COG -> node, world axes.
    """

    p: Array
    R: Array
    q: Array
    v: Array
    w: Array
    r: Array


def node_frames(b: BodyStates, nodes: NodeSet) -> NodeFrames:
    """World frames of ``nodes`` at the body states ``b``."""
    Rb = b.R[nodes.body]
    r = rotate(Rb, nodes.offset)
    w = b.w[nodes.body]
    return NodeFrames(
        p=b.x[nodes.body] + r,
        R=Rb @ nodes.rot,
        q=quat_multiply(b.q[nodes.body], nodes.qrot),
        v=b.v[nodes.body] + cross(w, r),
        w=w,
        r=r,
    )


@dataclass
class Relative:
    """Relative kinematics of slave nodes with respect to master nodes (see module doc).

    Attributes
    ----------
    master, slave : NodeFrames
    Rm : (n, 3, 3) master node axes -> world.
    d : (n, 3) relative position, master-node axes.
    q_rel : (n, 4) rotation master node -> slave node (w >= 0 not enforced).
    tau : (n, 6) relative twist [d', w_rel], master-node axes.
    kappa : (n, 6) velocity-product part of ``tau'``.
    lever_A : (n, 3) master COG -> slave node, world axes (``p_s - x_A``).
    lever_B : (n, 3) slave COG -> slave node, world axes.

    The engine never forms ``J`` itself: :meth:`constraint_jacobian` and
    :meth:`generalized` apply it in closed form; :attr:`J` builds it on demand.
    """

    master: NodeFrames
    slave: NodeFrames
    Rm: Array
    d: Array
    q_rel: Array
    tau: Array
    kappa: Array
    lever_A: Array
    lever_B: Array

    @property
    def J(self) -> Array:
        """``(n, 6, 12)`` with ``tau = J @ [v_A, w_A, v_B, w_B]`` (world velocities)."""
        n = len(self.d)
        RmT = np.swapaxes(self.Rm, 1, 2)
        J = np.zeros((n, 6, 12))
        J[:, :3, 0:3] = -RmT
        J[:, :3, 3:6] = RmT @ skew(self.lever_A)
        J[:, :3, 6:9] = RmT
        J[:, :3, 9:12] = -RmT @ skew(self.lever_B)
        J[:, 3:, 3:6] = -RmT
        J[:, 3:, 9:12] = RmT
        return J

    def constraint_jacobian(self, rows: Array) -> Array:
        """``rows @ J`` for rows ``(n, nc, 6)`` over ``tau``: shape ``(n, nc, 12)``.

        A row ``s = [s_lin, s_ang]`` in master axes is ``w = Rm s`` in world; then
        ``s^T J = [-w_lin, w_lin x lever_A - w_ang, w_lin, -w_lin x lever_B + w_ang]``.
        """
        wl = np.einsum("nij,ncj->nci", self.Rm, rows[..., :3])
        wa = np.einsum("nij,ncj->nci", self.Rm, rows[..., 3:])
        return np.concatenate([-wl, cross(wl, self.lever_A[:, None]) - wa, wl,
                               wa - cross(wl, self.lever_B[:, None])], axis=2)

    def generalized(self, mu: Array) -> Array:
        """``J^T mu`` for generalised forces ``mu (n, 6)`` over ``tau``: ``(n, 12)``, the
        wrenches (force, torque about the COG; world) on body A then body B."""
        f = rotate(self.Rm, mu[:, :3])
        t = rotate(self.Rm, mu[:, 3:])
        return np.concatenate([-f, -cross(self.lever_A, f) - t, f,
                               cross(self.lever_B, f) + t], axis=1)


def relative(b: BodyStates, master: NodeSet, slave: NodeSet, need_bias: bool = True
             ) -> Relative:
    """Relative kinematics of ``slave`` nodes with respect to ``master`` nodes
    (``kappa`` left zero unless ``need_bias``)."""
    fm = node_frames(b, master)
    fs = node_frames(b, slave)
    n = len(master)
    Rm = fm.R
    delta = fs.p - fm.p
    wA = fm.w
    wB = fs.w
    ddelta = fs.v - fm.v
    lin_world = ddelta - cross(wA, delta)
    tau = np.concatenate([rotate_back(Rm, lin_world), rotate_back(Rm, wB - wA)], axis=1)
    d = rotate_back(Rm, delta)
    q_rel = quat_multiply(quat_conjugate(fm.q), fs.q)
    kappa = np.zeros((n, 6))
    if need_bias and n:
        acc = (
            cross(wB, cross(wB, fs.r))
            - cross(wA, cross(wA, fm.r))
            - 2.0 * cross(wA, ddelta)
            + cross(wA, cross(wA, delta))
        )
        kappa[:, :3] = rotate_back(Rm, acc)
        kappa[:, 3:] = -rotate_back(Rm, cross(wA, wB))
    return Relative(fm, fs, Rm, d, q_rel, tau, kappa, fs.p - b.x[master.body], fs.r)
