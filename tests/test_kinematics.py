"""Relative kinematics against finite differences along exact rigid-body trajectories.

Each body follows a trajectory known in closed form: ``x(t) = x0 + v0 t + a t^2 / 2`` and
``R(t) = exp([phi(t)]x) R0`` with ``phi(t) = w0 t + alpha t^2 / 2``, whose world angular
velocity is exactly ``w(t) = J_l(phi) phi'`` (``J_l`` the left Jacobian of SO(3)), so
``w(0) = w0`` and ``w'(0) = alpha``. Central differences of step ``h`` then have an error
``O(h^2)``: with states of order one, ``h = 2e-5`` gives errors below 5e-9 (measured:
they fall 100-fold per decade of ``h`` from 1e-3 to 1e-4, the O(h^2) signature of exact
formulas), so ``TOL = 1e-7`` is a 20-fold margin, while a wrong or missing term would
make an error of order one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from frylinks.kinematics import BodyStates, NodeSet, node_frames, relative
from frylinks.rotations import (
    quat_conjugate,
    quat_multiply,
    quat_to_matrix,
    quat_to_rotvec,
    rotvec_to_quat,
    skew,
)

H = 2e-5
#: tolerance of the O(h^2) central differences (measured errors are below 5e-9)
TOL = 1e-7
NB = 5       # bodies (ground is index NB)
NPAIRS = 60  # node pairs per case


def left_jacobian(phi: np.ndarray) -> np.ndarray:
    """Left Jacobian of SO(3), ``(n, 3) -> (n, 3, 3)``: ``d exp(phi) exp(-phi) = J_l dphi``."""
    theta = np.linalg.norm(phi, axis=1)[:, None, None]
    k = skew(phi)
    small = theta < 1e-3
    safe = np.where(small, 1.0, theta)
    a = np.where(small, 0.5 - theta**2 / 24.0, 2.0 * np.sin(0.5 * safe) ** 2 / safe**2)
    b = np.where(small, 1.0 / 6.0 - theta**2 / 120.0, (safe - np.sin(safe)) / safe**3)
    return np.eye(3) + a * k + b * (k @ k)


@dataclass
class Trajectory:
    """Closed-form motion of ``NB`` bodies (see module doc); ground appended as last row."""

    x0: np.ndarray
    v0: np.ndarray
    a: np.ndarray
    q0: np.ndarray
    w0: np.ndarray
    alpha: np.ndarray

    @classmethod
    def random(cls, rng: np.random.Generator) -> Trajectory:
        q0 = rng.normal(size=(NB, 4))
        return cls(rng.uniform(-2, 2, (NB, 3)), rng.uniform(-1, 1, (NB, 3)),
                   rng.uniform(-1, 1, (NB, 3)), q0 / np.linalg.norm(q0, axis=1, keepdims=True),
                   rng.uniform(-1, 1, (NB, 3)), rng.uniform(-1, 1, (NB, 3)))

    def at(self, t: float) -> BodyStates:
        phi = self.w0 * t + 0.5 * self.alpha * t**2
        dphi = self.w0 + self.alpha * t
        q = quat_multiply(rotvec_to_quat(phi), self.q0)
        w = np.einsum("nij,nj->ni", left_jacobian(phi), dphi)
        x = np.vstack([self.x0 + self.v0 * t + 0.5 * self.a * t**2, np.zeros(3)])
        v = np.vstack([self.v0 + self.a * t, np.zeros(3)])
        qq = np.vstack([q, [1.0, 0.0, 0.0, 0.0]])
        return BodyStates(x, qq, quat_to_matrix(qq), v, np.vstack([w, np.zeros(3)]))

    def u(self, t: float, body: np.ndarray) -> np.ndarray:
        """World velocities ``[v, w]`` of ``body`` (ground is zero), ``(n, 6)``."""
        b = self.at(t)
        return np.concatenate([b.v[body], b.w[body]], axis=1)

    def udot(self, body: np.ndarray) -> np.ndarray:
        """World accelerations ``[a, alpha]`` at t = 0 of ``body`` (ground is zero)."""
        a = np.vstack([self.a, np.zeros(3)])
        alpha = np.vstack([self.alpha, np.zeros(3)])
        return np.concatenate([a[body], alpha[body]], axis=1)


def random_nodes(rng: np.random.Generator, body: np.ndarray) -> NodeSet:
    q = rng.normal(size=(len(body), 4))
    return NodeSet(body, rng.uniform(-1.5, 1.5, (len(body), 3)), quat_to_matrix(q))


def random_pairs(rng: np.random.Generator, where: str) -> tuple[NodeSet, NodeSet]:
    """Master/slave node sets on distinct bodies; ``where`` puts the master (or the slave)
    on ground, or both on moving bodies."""
    a = rng.integers(0, NB, NPAIRS)
    b = (a + rng.integers(1, NB, NPAIRS)) % NB
    if where == "master_on_ground":
        a[:] = NB
    elif where == "slave_on_ground":
        b[:] = NB
    assert np.all(a != b)
    return random_nodes(rng, a), random_nodes(rng, b)


WHERE = ["master_on_body", "master_on_ground", "slave_on_ground"]


@pytest.fixture(params=WHERE)
def case(request: pytest.FixtureRequest) -> tuple[Trajectory, NodeSet, NodeSet]:
    rng = np.random.default_rng(WHERE.index(request.param) + 7)
    master, slave = random_pairs(rng, request.param)
    return Trajectory.random(rng), master, slave


def test_trajectory_helper_is_exact() -> None:
    """The test's own trajectory: its angular velocity is the finite-difference rate of
    its rotation (so the checks below compare frylinks with a correct reference)."""
    traj = Trajectory.random(np.random.default_rng(1))
    t = 0.7
    qp, qm = traj.at(t + H).q[:NB], traj.at(t - H).q[:NB]
    w_fd = quat_to_rotvec(quat_multiply(qp, quat_conjugate(qm))) / (2 * H)
    np.testing.assert_allclose(w_fd, traj.at(t).w[:NB], atol=TOL)
    v_fd = (traj.at(t + H).x - traj.at(t - H).x) / (2 * H)
    np.testing.assert_allclose(v_fd, traj.at(t).v, atol=TOL)


def test_node_frames_velocity(case: tuple[Trajectory, NodeSet, NodeSet]) -> None:
    """A node's velocity and angular velocity are the time derivatives of its world
    position and axes."""
    traj, master, _ = case
    f0 = node_frames(traj.at(0.0), master)
    fp, fm = node_frames(traj.at(H), master), node_frames(traj.at(-H), master)
    np.testing.assert_allclose((fp.p - fm.p) / (2 * H), f0.v, atol=TOL)
    w_fd = quat_to_rotvec(quat_multiply(fp.q, quat_conjugate(fm.q))) / (2 * H)
    np.testing.assert_allclose(w_fd, f0.w, atol=TOL)
    np.testing.assert_allclose(quat_to_matrix(f0.q), f0.R, atol=1e-14)


def test_tau_is_time_derivative_of_relative_pose(case: tuple[Trajectory, NodeSet, NodeSet]
                                                 ) -> None:
    """tau = [d', w_rel]: d' by central differences of d, and w_rel (master-node axes) by
    the rotation vector of q_rel(+h) q_rel(-h)^-1 / 2h, since R_rel' = [w_rel]x R_rel."""
    traj, master, slave = case
    r0 = relative(traj.at(0.0), master, slave)
    rp = relative(traj.at(H), master, slave)
    rm = relative(traj.at(-H), master, slave)
    d_fd = (rp.d - rm.d) / (2 * H)
    w_fd = quat_to_rotvec(quat_multiply(rp.q_rel, quat_conjugate(rm.q_rel))) / (2 * H)
    np.testing.assert_allclose(r0.tau[:, :3], d_fd, atol=TOL)
    np.testing.assert_allclose(r0.tau[:, 3:], w_fd, atol=TOL)
    # and the pose itself: d = Rm^T (p_s - p_m), R(q_rel) = Rm^T Rs
    np.testing.assert_allclose(
        r0.d, np.einsum("nji,nj->ni", r0.Rm, r0.slave.p - r0.master.p), atol=1e-13)
    np.testing.assert_allclose(quat_to_matrix(r0.q_rel),
                               np.swapaxes(r0.Rm, 1, 2) @ r0.slave.R, atol=1e-13)


def test_jacobian_maps_body_velocities_to_tau(case: tuple[Trajectory, NodeSet, NodeSet]
                                              ) -> None:
    """J @ [v_A, w_A, v_B, w_B] == tau, and J is linear in u (checked at two times)."""
    traj, master, slave = case
    for t in (0.0, 0.45):
        rel = relative(traj.at(t), master, slave)
        u = np.concatenate([traj.u(t, master.body), traj.u(t, slave.body)], axis=1)
        np.testing.assert_allclose(np.einsum("nij,nj->ni", rel.J, u), rel.tau, atol=1e-13)


def test_kappa_is_velocity_product_part_of_tau_dot(case: tuple[Trajectory, NodeSet, NodeSet]
                                                   ) -> None:
    """tau' by central differences of tau along the trajectory equals J u' + kappa, with
    u' = [a_A, alpha_A, a_B, alpha_B] the trajectory's accelerations at t = 0."""
    traj, master, slave = case
    r0 = relative(traj.at(0.0), master, slave)
    tau_dot = (relative(traj.at(H), master, slave).tau
               - relative(traj.at(-H), master, slave).tau) / (2 * H)
    udot = np.concatenate([traj.udot(master.body), traj.udot(slave.body)], axis=1)
    predicted = np.einsum("nij,nj->ni", r0.J, udot) + r0.kappa
    np.testing.assert_allclose(predicted, tau_dot, atol=TOL)
    # kappa is not trivially zero here: the check has teeth
    assert np.abs(r0.kappa).max() > 0.1


def test_no_bias_requested_gives_same_pose_and_tau(
        case: tuple[Trajectory, NodeSet, NodeSet]) -> None:
    """need_bias=False skips kappa but leaves d, q_rel, tau and J unchanged."""
    traj, master, slave = case
    b = traj.at(0.3)
    full, light = relative(b, master, slave), relative(b, master, slave, need_bias=False)
    np.testing.assert_array_equal(full.d, light.d)
    np.testing.assert_array_equal(full.q_rel, light.q_rel)
    np.testing.assert_array_equal(full.tau, light.tau)
    np.testing.assert_array_equal(full.J, light.J)


def test_closed_forms_apply_j(case: tuple[Trajectory, NodeSet, NodeSet]) -> None:
    """constraint_jacobian(rows) == rows @ J and generalized(mu) == J^T mu (the engine
    uses the closed forms and never builds J)."""
    traj, master, slave = case
    rel = relative(traj.at(0.7), master, slave)
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(len(rel.d), 4, 6))
    mu = rng.normal(size=(len(rel.d), 6))
    np.testing.assert_allclose(rel.constraint_jacobian(rows),
                               np.einsum("nci,nij->ncj", rows, rel.J), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(rel.generalized(mu), np.einsum("nij,ni->nj", rel.J, mu),
                               rtol=1e-13, atol=1e-13)
