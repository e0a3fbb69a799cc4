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
from typing import NamedTuple

import numpy as np

from frylinks.jit import (
    alive,
    cross3,
    helper,
    kernel,
    quat_conj_mul,
    quat_mul,
    quat_to_matrix3,
    rotate3,
    rotate_back3,
    scratch,
    scratch2,
)
from frylinks.rotations import matrix_to_quat, skew

Array = np.ndarray


class BodyStates(NamedTuple):
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
        self.body = np.ascontiguousarray(self.body, dtype=np.int64)
        self.offset = np.ascontiguousarray(self.offset, dtype=float).reshape(-1, 3)
        self.rot = np.ascontiguousarray(self.rot, dtype=float).reshape(-1, 3, 3)
        self.qrot = matrix_to_quat(self.rot) if len(self.body) else np.zeros((0, 4))

    def __len__(self) -> int:
        return len(self.body)

    def subset(self, index: Array) -> NodeSet:
        return NodeSet(self.body[index], self.offset[index], self.rot[index])

    def arrays(self) -> tuple[Array, Array, Array, Array]:
        """``(body, offset, rot, qrot)``: what the kernels take."""
        return self.body, self.offset, self.rot, self.qrot


class NodeFrames(NamedTuple):
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


@kernel(allocates=True)
def frames_room(n: int) -> NodeFrames:
    """Room for the frames of ``n`` nodes."""
    return NodeFrames(np.empty((n, 3)), np.empty((n, 3, 3)), np.empty((n, 4)),
                      np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3)))


@kernel
def frames_into(b: BodyStates, body: Array, offset: Array, rot: Array, qrot: Array,
                out: NodeFrames) -> None:
    """World frames of the nodes ``(body, offset, rot, qrot)`` at the body states ``b``,
    into ``out`` (:func:`frames_room`)."""
    frames_write(b, body, offset, rot, qrot, out)


@helper
def frames_write(b: BodyStates, body: Array, offset: Array, rot: Array, qrot: Array,
                 out: NodeFrames) -> None:
    """:func:`frames_into`, written into the kernel that calls it."""
    p, R, q, v, w, r = out
    wr = scratch(3)
    for i in range(len(body)):
        k = body[i]
        Rb = b.R[k]
        rotate3(Rb, offset[i], r[i])
        cross3(b.w[k], r[i], wr)
        for j in range(3):
            p[i, j] = b.x[k, j] + r[i, j]
            v[i, j] = b.v[k, j] + wr[j]
            w[i, j] = b.w[k, j]
            for c in range(3):
                R[i, j, c] = Rb[j, 0] * rot[i, 0, c] + Rb[j, 1] * rot[i, 1, c] \
                    + Rb[j, 2] * rot[i, 2, c]
        quat_mul(b.q[k], qrot[i], q[i])


@kernel(allocates=True)
def frames_kernel(b: BodyStates, body: Array, offset: Array, rot: Array, qrot: Array
                  ) -> NodeFrames:
    """World frames of the nodes ``(body, offset, rot, qrot)`` at the body states ``b``."""
    out = frames_room(len(body))
    frames_into(b, body, offset, rot, qrot, out)
    return out


def node_frames(b: BodyStates, nodes: NodeSet) -> NodeFrames:
    """World frames of ``nodes`` at the body states ``b``."""
    return frames_kernel(b, *nodes.arrays())


class Relative(NamedTuple):
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
        """``rows @ J`` for rows ``(n, nc, 6)`` over ``tau``: shape ``(n, nc, 12)``."""
        return jacobian_rows(self, np.ascontiguousarray(rows, dtype=float))

    def generalized(self, mu: Array) -> Array:
        """``J^T mu`` for generalised forces ``mu (n, 6)`` over ``tau``: ``(n, 12)``, the
        wrenches (force, torque about the COG; world) on body A then body B."""
        return generalized_kernel(self, np.ascontiguousarray(mu, dtype=float))


@kernel(allocates=True)
def relative_room(n: int) -> Relative:
    """Room for the relative kinematics of ``n`` node pairs."""
    fm = frames_room(n)
    fs = frames_room(n)
    return Relative(fm, fs, fm.R, np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 6)),
                    np.zeros((n, 6)), np.empty((n, 3)), fs.r)


@kernel
def relative_into(b: BodyStates, mbody: Array, moffset: Array, mrot: Array, mqrot: Array,
                  sbody: Array, soffset: Array, srot: Array, sqrot: Array, need_bias: bool,
                  out: Relative) -> None:
    """:func:`relative` on the node arrays, into ``out`` (:func:`relative_room`)."""
    fm, fs = out.master, out.slave
    frames_write(b, mbody, moffset, mrot, mqrot, fm)
    frames_write(b, sbody, soffset, srot, sqrot, fs)
    d, q_rel, tau, kappa, lever_A = out.d, out.q_rel, out.tau, out.kappa, out.lever_A
    work = scratch2(7, 3)
    delta, ddelta, dw, tmp, tmp2, acc, vec = (work[0], work[1], work[2], work[3], work[4],
                                              work[5], work[6])
    for i in range(len(mbody)):
        Rm = fm.R[i]
        wA = fm.w[i]
        wB = fs.w[i]
        for j in range(3):
            delta[j] = fs.p[i, j] - fm.p[i, j]
            ddelta[j] = fs.v[i, j] - fm.v[i, j]
            dw[j] = wB[j] - wA[j]
            lever_A[i, j] = fs.p[i, j] - b.x[mbody[i], j]
        cross3(wA, delta, tmp)
        for j in range(3):
            tmp[j] = ddelta[j] - tmp[j]
        rotate_back3(Rm, tmp, vec)
        for j in range(3):
            tau[i, j] = vec[j]
        rotate_back3(Rm, dw, vec)
        for j in range(3):
            tau[i, 3 + j] = vec[j]
        rotate_back3(Rm, delta, vec)
        for j in range(3):
            d[i, j] = vec[j]
        quat_conj_mul(fm.q[i], fs.q[i], q_rel[i])
        if need_bias:
            # wB x (wB x rs) - wA x (wA x rm) - 2 wA x ddelta + wA x (wA x delta)
            cross3(wB, fs.r[i], tmp)
            cross3(wB, tmp, acc)
            cross3(wA, fm.r[i], tmp)
            cross3(wA, tmp, tmp2)
            for j in range(3):
                acc[j] -= tmp2[j]
            cross3(wA, ddelta, tmp)
            for j in range(3):
                acc[j] -= 2.0 * tmp[j]
            cross3(wA, delta, tmp)
            cross3(wA, tmp, tmp2)
            for j in range(3):
                acc[j] += tmp2[j]
            rotate_back3(Rm, acc, vec)
            for j in range(3):
                kappa[i, j] = vec[j]
            cross3(wA, wB, tmp)
            rotate_back3(Rm, tmp, vec)
            for j in range(3):
                kappa[i, 3 + j] = -vec[j]
        else:
            for j in range(6):
                kappa[i, j] = 0.0


@kernel(allocates=True)
def relative_kernel(b: BodyStates, mbody: Array, moffset: Array, mrot: Array, mqrot: Array,
                    sbody: Array, soffset: Array, srot: Array, sqrot: Array,
                    need_bias: bool) -> Relative:
    """:func:`relative` on the node arrays."""
    out = relative_room(len(mbody))
    relative_into(b, mbody, moffset, mrot, mqrot, sbody, soffset, srot, sqrot, need_bias,
                  out)
    return out


def relative(b: BodyStates, master: NodeSet, slave: NodeSet, need_bias: bool = True
             ) -> Relative:
    """Relative kinematics of ``slave`` nodes with respect to ``master`` nodes
    (``kappa`` left zero unless ``need_bias``)."""
    return relative_kernel(b, *master.arrays(), *slave.arrays(), need_bias)


@kernel
def jacobian_rows_into(rel: Relative, rows: Array, out: Array) -> None:
    """``rows @ J`` for rows ``(n, nc, 6)`` over ``tau``, into ``out`` ``(n, nc, 12)``.

    A row ``s = [s_lin, s_ang]`` in master axes is ``w = Rm s`` in world; then
    ``s^T J = [-w_lin, w_lin x lever_A - w_ang, w_lin, -w_lin x lever_B + w_ang]``.
    """
    n, nc = rows.shape[0], rows.shape[1]
    work = scratch2(4, 3)
    wl, wa, ma, mb = work[0], work[1], work[2], work[3]
    for i in range(n):
        for c in range(nc):
            rotate3(rel.Rm[i], rows[i, c, 0:3], wl)
            rotate3(rel.Rm[i], rows[i, c, 3:6], wa)
            cross3(wl, rel.lever_A[i], ma)
            cross3(wl, rel.lever_B[i], mb)
            for j in range(3):
                out[i, c, j] = -wl[j]
                out[i, c, 3 + j] = ma[j] - wa[j]
                out[i, c, 6 + j] = wl[j]
                out[i, c, 9 + j] = wa[j] - mb[j]


@kernel(allocates=True)
def jacobian_rows(rel: Relative, rows: Array) -> Array:
    """``rows @ J`` for rows ``(n, nc, 6)`` over ``tau``: ``(n, nc, 12)``."""
    out = np.empty((rows.shape[0], rows.shape[1], 12))
    jacobian_rows_into(rel, rows, out)
    return out


@helper
def generalized_into(rel: Relative, mu: Array, out: Array) -> None:
    """``J^T mu`` for ``mu (n, 6)``: wrenches (force, torque about the COG; world) on
    body A then body B, into ``out`` ``(n, 12)``."""
    work = scratch2(4, 3)
    f, t, ma, mb = work[0], work[1], work[2], work[3]
    for i in range(mu.shape[0]):
        rotate3(rel.Rm[i], mu[i, 0:3], f)
        rotate3(rel.Rm[i], mu[i, 3:6], t)
        cross3(rel.lever_A[i], f, ma)
        cross3(rel.lever_B[i], f, mb)
        for j in range(3):
            out[i, j] = -f[j]
            out[i, 3 + j] = -(ma[j] + t[j])
            out[i, 6 + j] = f[j]
            out[i, 9 + j] = mb[j] + t[j]
    alive(rel)
    alive(mu)
    alive(out)


@kernel(allocates=True)
def generalized_kernel(rel: Relative, mu: Array) -> Array:
    """``J^T mu`` for ``mu (n, 6)``: ``(n, 12)`` (:func:`generalized_into`)."""
    out = np.empty((mu.shape[0], 12))
    generalized_into(rel, mu, out)
    return out


@kernel(allocates=True)
def body_states_room(nb: int) -> BodyStates:
    """Room for the states of ``nb`` bodies and ground."""
    return BodyStates(np.empty((nb + 1, 3)), np.empty((nb + 1, 4)), np.empty((nb + 1, 3, 3)),
                      np.empty((nb + 1, 3)), np.empty((nb + 1, 3)))


@kernel
def body_states_into(x: Array, q: Array, v: Array, w: Array, out: BodyStates) -> None:
    """Bodies plus ground (last row), into ``out`` (:func:`body_states_room`):
    quaternions normalised, rotation matrices."""
    xg, qg, Rg, vg, wg = out
    nb = x.shape[0]
    for i in range(nb):
        norm = np.sqrt(q[i, 0] ** 2 + q[i, 1] ** 2 + q[i, 2] ** 2 + q[i, 3] ** 2)
        for j in range(4):
            qg[i, j] = q[i, j] / norm
        for j in range(3):
            xg[i, j] = x[i, j]
            vg[i, j] = v[i, j]
            wg[i, j] = w[i, j]
        quat_to_matrix3(qg[i], Rg[i])
    for j in range(4):
        qg[nb, j] = 0.0
    qg[nb, 0] = 1.0
    for j in range(3):
        xg[nb, j] = 0.0
        vg[nb, j] = 0.0
        wg[nb, j] = 0.0
        for c in range(3):
            Rg[nb, j, c] = 1.0 if j == c else 0.0


@kernel(allocates=True)
def body_states_kernel(x: Array, q: Array, v: Array, w: Array) -> BodyStates:
    """Bodies plus ground (last row): quaternions normalised, rotation matrices."""
    out = body_states_room(x.shape[0])
    body_states_into(x, q, v, w, out)
    return out
