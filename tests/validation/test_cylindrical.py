"""Cylindrical link with translational and rotational spring-dampers at once.

A spool (mass ``m``, full inertia tensor with products, its body z axis on the link axis)
slides along and turns about an inclined master node z axis ``e``; its COG lies on the
axis, so translation and rotation decouple into two exact damped oscillators::

    m   x'' + b_t x' + k_t x = k_t r_t + m g.e        (tz, from x0, v0)
    Izz th'' + b_r th' + k_r th = k_r r_r              (rz, from th0, w0)

with ``Izz = e^T I e`` the inertia about the axis (here the body's ``Izz``). The
spring-dampers are given per DOF: ``spring_damper: {tz: {...}, rz: {...}}``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr

import frylinks

G = 9.81
M = 4.0
INERTIA = [0.9, 0.8, 0.5, 0.05, -0.03, 0.02]  # Ixx Iyy Izz Ixy Ixz Iyz; axis = body z
IZZ = INERTIA[2]
KT, BT, RT = 900.0, 12.0, 0.1
KR, BR, RR = 20.0, 0.3, 0.5
X0, V0, TH0, W0 = -0.05, 0.4, 0.2, -3.0
AXIS = np.array([0.3, -1.0, 0.2]) / np.linalg.norm([0.3, -1.0, 0.2])
ANGLE = np.radians(50.0)
GUIDE = np.array([0.5, 0.0, 2.0])
H_COG = 0.4  # COG above the slave node along the axis


def quat(axis: np.ndarray, angle: float) -> np.ndarray:
    """Quaternion [w, x, y, z] of a rotation by ``angle`` about unit ``axis``."""
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * np.asarray(axis)])


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product."""
    w1, v1, w2, v2 = a[0], a[1:], b[0], b[1:]
    return np.concatenate([[w1 * w2 - v1 @ v2], w1 * v2 + w2 * v1 + np.cross(v1, v2)])


def spool() -> frylinks.System:
    """The spool at tz = x0, rz = th0, moving at x' = v0, th' = w0."""
    qm = quat(AXIS, ANGLE)
    e = rotate(qm, np.array([0.0, 0.0, 1.0]))
    qb = quat_mul(qm, quat(np.array([0.0, 0.0, 1.0]), TH0))
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="cylindrical-oscillators")
    s.ground.add_node("guide", position=GUIDE, orientation={"quaternion": list(qm)})
    body = s.add_body("spool", mass=M, inertia=INERTIA, position=GUIDE + (X0 + H_COG) * e,
                      orientation={"quaternion": list(qb)}, velocity=V0 * e,
                      angular_velocity=W0 * e)
    body.add_node("bore", position=[0.0, 0.0, -H_COG])
    s.add_link("cyl", "cylindrical", master="ground.guide", slave="spool.bore",
               spring_damper={"tz": {"stiffness": KT, "damping": BT, "rest": RT},
                              "rz": {"stiffness": KR, "damping": BR, "rest": RR}})
    return s


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v`` rotated by the unit quaternion ``q``."""
    p = quat_mul(quat_mul(q, np.concatenate([[0.0], v])), q * np.array([1, -1, -1, -1]))
    return p[1:]


@pytest.fixture(scope="module")
def run() -> xr.Dataset:
    """1 s, 1000 rk4 steps of 1 ms."""
    return spool().run(t_end=1.0, dt=1e-3, every=1)


def exact(t: np.ndarray, oscillator: Callable) -> tuple[tuple, tuple]:
    """(x, x', x''), (th, th', th'') of the two independent oscillators."""
    e = rotate(quat(AXIS, ANGLE), np.array([0.0, 0.0, 1.0]))
    trans = oscillator(t, M, KT, BT, KT * RT + M * G * (-e[2]), X0, V0)
    rot = oscillator(t, IZZ, KR, BR, KR * RR, TH0, W0)
    return trans, rot


def test_translation(run: xr.Dataset, oscillator: Callable, record_property: Callable) -> None:
    """tz and its rate vs the exact translational oscillator (mass m, gravity along e)."""
    (x, v, _), _ = exact(run.time.values, oscillator)
    tz = run.link_displacement.sel(link="cyl", dof="tz").values
    vz = run.link_velocity.sel(link="cyl", dof="tz").values
    ex, ev = float(np.abs(tz - x).max()), float(np.abs(vz - v).max())
    record_property("max_tz_error_m", ex)
    record_property("max_tz_rate_error_m_s", ev)
    assert ex < 1e-9
    assert ev < 1e-8


def test_rotation(run: xr.Dataset, oscillator: Callable, record_property: Callable) -> None:
    """rz and its rate vs the exact torsional oscillator (inertia Izz about the axis)."""
    _, (th, w, _) = exact(run.time.values, oscillator)
    rz = run.link_displacement.sel(link="cyl", dof="rz").values
    wz = run.link_velocity.sel(link="cyl", dof="rz").values
    eth, ew = float(np.abs(rz - th).max()), float(np.abs(wz - w).max())
    record_property("max_rz_error_rad", eth)
    record_property("max_rz_rate_error_rad_s", ew)
    assert eth < 1e-9
    assert ew < 1e-8


def test_spring_forces_and_power(run: xr.Dataset, oscillator: Callable,
                                 record_property: Callable) -> None:
    """link_spring_force tz and rz per DOF, link_power = -(Q_t x' + Q_r th')."""
    (x, v, _), (th, w, _) = exact(run.time.values, oscillator)
    qt = -KT * (x - RT) - BT * v
    qr = -KR * (th - RR) - BR * w
    sf = run.link_spring_force.sel(link="cyl")
    et = float(np.abs(sf.sel(dof="tz").values - qt).max())
    er = float(np.abs(sf.sel(dof="rz").values - qr).max())
    ep = float(np.abs(run.link_power.sel(link="cyl").values + qt * v + qr * w).max())
    record_property("max_tz_spring_force_error_N", et)
    record_property("max_rz_spring_torque_error_Nm", er)
    record_property("max_power_error_W", ep)
    assert et < 1e-8 * np.abs(qt).max()
    assert er < 1e-8 * np.abs(qr).max()
    assert ep < 1e-8 * np.abs(qt * v + qr * w).max()


def test_locked_dofs(run: xr.Dataset, record_property: Callable) -> None:
    """tx ty rx ry stay at round-off."""
    locked = run.link_displacement.sel(link="cyl", dof=["tx", "ty", "rx", "ry"])
    err = float(np.abs(locked).max())
    record_property("max_locked_dof", err)
    assert err < 1e-12


@pytest.mark.slow
def test_cylindrical_ten_seconds(oscillator: Callable, record_property: Callable) -> None:
    """Slow twin: 10 s (1e4 rk4 steps), both oscillators."""
    ds = spool().run(t_end=10.0, dt=1e-3, every=10)
    (x, _, _), (th, _, _) = exact(ds.time.values, oscillator)
    ex = float(np.abs(ds.link_displacement.sel(link="cyl", dof="tz").values - x).max())
    eth = float(np.abs(ds.link_displacement.sel(link="cyl", dof="rz").values - th).max())
    record_property("max_tz_error_m", ex)
    record_property("max_rz_error_rad", eth)
    assert ex < 1e-9
    assert eth < 1e-9
