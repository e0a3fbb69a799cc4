"""Compound pendulum on a revolute link against its exact (Jacobi elliptic) solution.

A rigid body of mass ``m`` swings about a horizontal hinge (master node z axis = world
-y), its COG at distance ``L`` from the hinge, the hinge axis a principal direction
only up to products of inertia (``Ixy``, ``Iyz`` make a transverse reaction torque).
With ``theta`` measured from the downward vertical and ``I_p = I_axis + m L^2``::

    I_p theta'' = -m g L sin(theta)

released from rest at ``theta0`` the exact solution is, with ``k = sin(theta0 / 2)``,
``w0 = sqrt(m g L / I_p)`` and ``K = K(k^2)``::

    theta(t) = 2 arcsin(k sn(K - w0 t | k^2)),    period T = 4 K / w0.

The link angle ``rz`` is the rotation about world -y from the horizontal start, so
``theta = rz + pi / 2`` for a release from 90 degrees.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr
from scipy.interpolate import CubicHermiteSpline
from scipy.optimize import brentq
from scipy.special import ellipj, ellipk

import frylinks

G = 9.81
M = 2.0
L = 0.25
#: Ixx Iyy Izz Ixy Ixz Iyz about the COG, body axes; the hinge axis is body -y
INERTIA = [0.05, 0.01, 0.07, 0.004, 0.002, -0.003]
I_AXIS = INERTIA[1]
I_PIVOT = I_AXIS + M * L * L
PIVOT = np.array([0.3, -0.2, 1.0])
#: master node axes in world (columns): x = x, y = z, z = -y
R_MASTER = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def pendulum(phi0: float = 0.0, rate0: float = 0.0) -> frylinks.System:
    """The pendulum at link angle ``phi0`` [rad] (0: COG level with the hinge, towards
    +x) turning at ``rate0`` [rad/s] about the hinge axis (world -y)."""
    axis = np.array([0.0, -1.0, 0.0])
    radial = np.array([np.cos(phi0), 0.0, np.sin(phi0)])
    omega = rate0 * axis
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="compound-pendulum")
    s.ground.add_node("pivot", position=PIVOT, orientation={"axis": [1, 0, 0], "angle_deg": 90})
    body = s.add_body("rod", mass=M, inertia=INERTIA, position=PIVOT + L * radial,
                      orientation={"axis": axis, "angle_deg": np.degrees(phi0)},
                      velocity=np.cross(omega, L * radial), angular_velocity=omega)
    body.add_node("hinge", position=[-L, 0.0, 0.0],
                  orientation={"axis": [1, 0, 0], "angle_deg": 90})
    s.add_link("hinge", "revolute", master="ground.pivot", slave="rod.hinge")
    return s


def exact_theta(t: np.ndarray, theta0: float = np.pi / 2) -> np.ndarray:
    """Jacobi elliptic solution, released from rest at ``theta0``."""
    k2 = np.sin(theta0 / 2.0) ** 2
    w0 = np.sqrt(M * G * L / I_PIVOT)
    sn = ellipj(ellipk(k2) - w0 * t, k2)[0]
    return 2.0 * np.arcsin(np.sqrt(k2) * sn)


def exact_period(theta0: float = np.pi / 2) -> float:
    """``4 K(k^2) sqrt(I_p / (m g L))``."""
    return float(4.0 * ellipk(np.sin(theta0 / 2.0) ** 2) * np.sqrt(I_PIVOT / (M * G * L)))


def zero_crossings(ds: xr.Dataset) -> np.ndarray:
    """Times where ``theta`` crosses zero: roots of the cubic Hermite interpolant of the
    sampled angle and angular rate (error O(dt^4), far below the tolerance)."""
    t = ds.time.values
    theta = ds.link_displacement.sel(link="hinge", dof="rz").values + np.pi / 2
    rate = ds.link_velocity.sel(link="hinge", dof="rz").values
    spline = CubicHermiteSpline(t, theta, rate)
    idx = np.nonzero(np.sign(theta[1:]) != np.sign(theta[:-1]))[0]
    return np.array([brentq(spline, t[i], t[i + 1], xtol=1e-15) for i in idx])


@pytest.fixture(scope="module")
def short_run() -> xr.Dataset:
    """1.6 s (1600 rk4 steps of 1 ms): one full period plus a quarter."""
    return pendulum().run(t_end=1.6, dt=1e-3, every=1)


def check_angle(ds: xr.Dataset, tol: float, record: Callable[[str, object], None]) -> None:
    t = ds.time.values
    rz = ds.link_displacement.sel(link="hinge", dof="rz").values
    err = float(np.max(np.abs(rz + np.pi / 2 - exact_theta(t))))
    record("max_angle_error_rad", err)
    assert err < tol


def check_period(ds: xr.Dataset, tol: float, record: Callable[[str, object], None]) -> None:
    T = exact_period()
    roots = zero_crossings(ds)
    expected = (2 * np.arange(len(roots)) + 1) * T / 4.0
    assert len(roots) >= 3
    crossing_err = float(np.max(np.abs(roots - expected)))
    # period from crossings one period apart (first and third, ...)
    periods = roots[2:] - roots[:-2]
    period_err = float(np.max(np.abs(periods - T)))
    record("max_crossing_time_error_s", crossing_err)
    record("max_period_error_s", period_err)
    assert crossing_err < tol
    assert period_err < tol


def test_angle_matches_jacobi_elliptic_solution(short_run: xr.Dataset,
                                                record_property: Callable) -> None:
    """theta(t) = 2 arcsin(k sn(K - w0 t | k^2)) over 1.6 s, released from 90 degrees."""
    check_angle(short_run, 1e-8, record_property)


def test_period_from_zero_crossings(short_run: xr.Dataset, record_property: Callable) -> None:
    """Zero crossings at (2j + 1) T / 4 and period T = 4 K(k) sqrt(I_p / (m g L))."""
    check_period(short_run, 1e-9, record_property)


def test_hinge_stays_a_hinge(short_run: xr.Dataset, record_property: Callable) -> None:
    """Locked DOFs of the revolute link (tx ty tz rx ry) stay at round-off."""
    locked = short_run.link_displacement.sel(link="hinge", dof=["tx", "ty", "tz", "rx", "ry"])
    err = float(np.abs(locked).max())
    record_property("max_locked_dof", err)
    assert err < 1e-12


@pytest.mark.parametrize(("phi0_deg", "rate0"), [(0.0, 0.0), (-30.0, 3.0), (-120.0, -5.0)])
def test_reaction_at_start(phi0_deg: float, rate0: float, record_property: Callable) -> None:
    """Reaction at t = 0, exact from Newton-Euler about the COG.

    COG acceleration ``a = L phi'' t_hat - L phi'^2 r_hat`` (tangential and centripetal)
    with ``I_p phi'' = -m g L cos(phi)``; force on the slave body ``F = m a - m g``;
    torque about the hinge node ``T = I_w alpha + w x I_w w - r_n x F`` (the products of
    inertia give its transverse part). Both compared in master-node axes.
    """
    phi0 = np.radians(phi0_deg)
    ds = pendulum(phi0, rate0).run(t_end=1e-3, dt=1e-3)
    radial = np.array([np.cos(phi0), 0.0, np.sin(phi0)])
    tangent = np.array([-np.sin(phi0), 0.0, np.cos(phi0)])
    axis = np.array([0.0, -1.0, 0.0])
    phidd = -M * G * L * np.cos(phi0) / I_PIVOT
    accel = L * phidd * tangent - L * rate0**2 * radial
    force = M * accel - M * np.array([0.0, 0.0, -G])
    # world inertia: body rotated by phi0 about the axis
    c, s = np.cos(phi0), np.sin(phi0)
    rb = np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])  # rotation about -y by phi0
    xx, yy, zz, xy, xz, yz = INERTIA
    ib = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    iw = rb @ ib @ rb.T
    w, alpha = rate0 * axis, phidd * axis
    r_node = -L * radial
    torque = iw @ alpha + np.cross(w, iw @ w) - np.cross(r_node, force)
    f_num = ds.link_reaction_force.sel(link="hinge").values[0]
    t_num = ds.link_reaction_torque.sel(link="hinge").values[0]
    f_err = float(np.max(np.abs(f_num - R_MASTER.T @ force)))
    t_err = float(np.max(np.abs(t_num - R_MASTER.T @ torque)))
    record_property("reaction_force_error_N", f_err)
    record_property("reaction_torque_error_Nm", t_err)
    assert abs(t_num[2]) < 1e-12  # no constraint torque about the free axis
    assert abs(R_MASTER.T @ torque)[:2].max() > 1e-3  # the transverse torque is exercised
    assert f_err < 1e-8 * np.linalg.norm(force)
    assert t_err < 1e-8 * max(1.0, np.linalg.norm(torque))


@pytest.mark.slow
def test_pendulum_ten_seconds(record_property: Callable) -> None:
    """Slow twin: 10 s (1e4 rk4 steps, about eight periods), angle and period."""
    ds = pendulum().run(t_end=10.0, dt=1e-3, every=1)
    check_angle(ds, 1e-8, record_property)
    check_period(ds, 1e-9, record_property)
