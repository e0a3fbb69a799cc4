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
    quat_conj_multiply,
    quat_multiply,
    rotate,
    rotate_back,
    skew,
)

#: Blocks of at most this many links take the fused paths below (fewer, larger numpy
#: calls); larger ones one call per quantity, which touches less memory.
SMALL_BLOCK = 32

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
        # nodes along their body's axes (the default) need no rotation per evaluation
        self.aligned = bool(np.all(self.rot == np.eye(3)))
        self.at_origin = not np.any(self.offset)  # nodes at their COG (``body`` attachments)
        self._pairs: list[tuple[NodeSet, NodeSet]] = []

    def __len__(self) -> int:
        return len(self.body)

    def subset(self, index: Array) -> NodeSet:
        return NodeSet(self.body[index], self.offset[index], self.rot[index])

    def joined(self, other: NodeSet) -> NodeSet:
        """These nodes then ``other``'s, as one set (kept, so built once per pair)."""
        for partner, both in self._pairs:
            if partner is other:
                return both
        both = NodeSet(np.concatenate([self.body, other.body]),
                       np.concatenate([self.offset, other.offset]),
                       np.concatenate([self.rot, other.rot]))
        self._pairs.append((other, both))
        return both


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
    if len(nodes) <= SMALL_BLOCK:
        p, v, w, r, R, q = _frames(b, nodes)
        return NodeFrames(p=p, R=R, q=q, v=v, w=w, r=r)
    body = nodes.body
    Rb = b.R[body]
    r = rotate(Rb, nodes.offset)
    w = b.w[body]
    if nodes.aligned:
        R, q = Rb, b.q[body]
    else:
        R, q = Rb @ nodes.rot, quat_multiply(b.q[body], nodes.qrot)
    return NodeFrames(p=b.x[body] + r, R=R, q=q, v=b.v[body] + cross(w, r), w=w, r=r)


def _frames(b: BodyStates, nodes: NodeSet) -> tuple[Array, ...]:
    """``p, v, w, r, R, q`` of ``nodes``; ``p, v, w`` are the rows of one ``(n, 3, 3)``
    array, so the differences of two sets take one subtraction."""
    body = nodes.body
    Rb = b.R[body]
    pvw = np.empty((len(body), 3, 3))
    w = pvw[:, 2]
    w[...] = b.w[body]
    if nodes.at_origin:
        r = np.zeros((len(body), 3))
        pvw[:, 0] = b.x[body]
        pvw[:, 1] = b.v[body]
    else:
        r = rotate(Rb, nodes.offset)
        np.add(b.x[body], r, out=pvw[:, 0])
        np.add(b.v[body], cross(w, r), out=pvw[:, 1])
    if nodes.aligned:
        R, q = Rb, b.q[body]
    else:
        R, q = Rb @ nodes.rot, quat_multiply(b.q[body], nodes.qrot)
    return pvw[:, 0], pvw[:, 1], w, r, R, q


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

    def _levers(self) -> Array:
        """``[lever_A, lever_B]`` as one ``(n, 2, 3)`` array."""
        levers = getattr(self, "_lever_pair", None)
        if levers is None or levers[0] is not self.lever_A or levers[1] is not self.lever_B:
            both = np.stack([self.lever_A, self.lever_B], axis=1)
            levers = (self.lever_A, self.lever_B, both)
            self._lever_pair = levers
        return levers[2]

    def constraint_jacobian(self, rows: Array) -> Array:
        """``rows @ J`` for rows ``(n, nc, 6)`` over ``tau``: shape ``(n, nc, 12)``.

        A row ``s = [s_lin, s_ang]`` in master axes is ``w = Rm s`` in world; then
        ``s^T J = [-w_lin, w_lin x lever_A - w_ang, w_lin, -w_lin x lever_B + w_ang]``.
        """
        n, nc = rows.shape[:2]
        if n > SMALL_BLOCK:
            wl = np.einsum("nij,ncj->nci", self.Rm, rows[..., :3])
            wa = np.einsum("nij,ncj->nci", self.Rm, rows[..., 3:])
            return np.concatenate([-wl, cross(wl, self.lever_A[:, None]) - wa, wl,
                                   wa - cross(wl, self.lever_B[:, None])], axis=2)
        # few links: numpy's per-call overhead dominates, so rotate every row half
        # [s_lin, s_ang] to world at once and take both lever moments in one product
        world = (rows.reshape(n, 2 * nc, 3) @ np.swapaxes(self.Rm, 1, 2)).reshape(n, nc, 2, 3)
        wl, wa = world[:, :, 0], world[:, :, 1]
        lever = cross(wl[:, :, None], self._levers()[:, None])  # (n, nc, 2, 3)
        out = np.empty((n, nc, 12))
        np.negative(wl, out=out[..., 0:3])
        np.subtract(lever[:, :, 0], wa, out=out[..., 3:6])
        out[..., 6:9] = wl
        np.subtract(wa, lever[:, :, 1], out=out[..., 9:12])
        return out

    def generalized(self, mu: Array) -> Array:
        """``J^T mu`` for generalised forces ``mu (n, 6)`` over ``tau``: ``(n, 12)``, the
        wrenches (force, torque about the COG; world) on body A then body B."""
        n = len(mu)
        if n > SMALL_BLOCK:
            f = rotate(self.Rm, mu[:, :3])
            t = rotate(self.Rm, mu[:, 3:])
            return np.concatenate([-f, -cross(self.lever_A, f) - t, f,
                                   cross(self.lever_B, f) + t], axis=1)
        ft = mu.reshape(n, 2, 3) @ np.swapaxes(self.Rm, 1, 2)  # world force, torque
        f, t = ft[:, 0], ft[:, 1]
        moment = cross(self._levers(), f[:, None])  # lever_A x f, lever_B x f
        out = np.empty((n, 12))
        np.negative(f, out=out[:, 0:3])
        np.add(moment[:, 0], t, out=out[:, 3:6])
        np.negative(out[:, 3:6], out=out[:, 3:6])
        out[:, 6:9] = f
        np.add(moment[:, 1], t, out=out[:, 9:12])
        return out


def relative(b: BodyStates, master: NodeSet, slave: NodeSet, need_bias: bool = True
             ) -> Relative:
    """Relative kinematics of ``slave`` nodes with respect to ``master`` nodes
    (``kappa`` left zero unless ``need_bias``)."""
    n = len(master)
    if n > SMALL_BLOCK:
        return _relative_large(b, master, slave, need_bias)
    # few links: numpy's per-call overhead dominates, so both node sets go through one
    # pass and the vectors to rotate to master axes through one product
    p, v, w, r, R, q = _frames(b, master.joined(slave))
    fm = NodeFrames(p[:n], R[:n], q[:n], v[:n], w[:n], r[:n])
    fs = NodeFrames(p[n:], R[n:], q[n:], v[n:], w[n:], r[n:])
    Rm = fm.R
    wA = fm.w
    pvw = p.base if p.base is not None and p.base.shape == (2 * n, 3, 3) else None
    if pvw is not None:
        diff = pvw[n:] - pvw[:n]                     # delta, ddelta, wB - wA
    else:
        diff = np.stack([fs.p - fm.p, fs.v - fm.v, fs.w - wA], axis=1)
    delta, ddelta = diff[:, 0], diff[:, 1]
    # vectors rotated back to master axes together: lin_world, w_rel, delta, acc, wA x wB
    k = 5 if need_bias and n else 3
    vec = np.empty((n, k, 3))
    wx = cross(wA[:, None], diff)                    # wA x delta, wA x ddelta, wA x wB
    np.subtract(ddelta, wx[:, 0], out=vec[:, 0])
    vec[:, 1] = diff[:, 2]
    vec[:, 2] = delta
    if k == 5:
        wwr = cross(w, v - np.concatenate([b.v[master.body], b.v[slave.body]]))
        acc = vec[:, 3]
        np.subtract(wwr[n:], wwr[:n], out=acc)       # wB x (wB x rs) - wA x (wA x rm)
        acc -= 2.0 * wx[:, 1]
        acc += cross(wA, wx[:, 0])
        vec[:, 4] = wx[:, 2]
    local = vec @ Rm
    tau = local[:, :2].reshape(n, 6)
    d = local[:, 2]
    kappa = np.zeros((n, 6))
    if k == 5:
        kappa[:, :3] = local[:, 3]
        np.negative(local[:, 4], out=kappa[:, 3:])
    q_rel = quat_conj_multiply(fm.q, fs.q)
    levers = np.empty((n, 2, 3))
    np.subtract(fs.p, b.x[master.body], out=levers[:, 0])
    levers[:, 1] = fs.r
    rel = Relative(fm, fs, Rm, d, q_rel, tau, kappa, levers[:, 0], levers[:, 1])
    rel._lever_pair = (rel.lever_A, rel.lever_B, levers)
    return rel


def _relative_large(b: BodyStates, master: NodeSet, slave: NodeSet, need_bias: bool
                    ) -> Relative:
    """:func:`relative` for many links: one vectorised call per quantity."""
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
    q_rel = quat_conj_multiply(fm.q, fs.q)
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
