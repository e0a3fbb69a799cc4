"""Screw link with a vertical axis: a bolt turning down its thread under gravity.

With ``h = pitch / (2 pi)`` the link keeps ``tz = h rz``. The bolt's energy in the one
coordinate ``th = rz`` is ``T = (m h^2 + Izz) th'^2 / 2``, ``V = m g h th`` (+ const), so
with an optional rotational damper ``b`` on the link::

    (m h^2 + Izz) th'' = -m g h - b th'

Without damper (exact, a polynomial): ``th = w0 t - alpha t^2 / 2`` with
``alpha = m g h / (m h^2 + Izz)``, the COG falling with ``a = h alpha =
m g h / (m h + Izz / h)``. With damper: ``th' = w_inf + (w0 - w_inf) exp(-t / tau)``,
``w_inf = -m g h / b``, ``tau = (m h^2 + Izz) / b``, many turns at a bounded rate (the
unwrapping of ``rz`` over whole turns is checked).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr

import frylinks

G = 9.81
M = 1.0
INERTIA = [0.02, 0.03, 0.01]
IZZ = INERTIA[2]
NUT = np.array([0.2, 0.1, 1.0])
OFFSET = 0.3  # COG above the slave node


def bolt(pitch: float, w0: float, damping: float = 0.0) -> frylinks.System:
    """The bolt at rz = 0, turning at ``w0`` (and advancing at ``h w0``)."""
    h = pitch / (2 * np.pi)
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="screw")
    s.ground.add_node("nut", position=NUT)
    body = s.add_body("bolt", mass=M, inertia=INERTIA, position=NUT + np.array([0.0, 0.0, OFFSET]),
                      velocity=[0.0, 0.0, h * w0], angular_velocity=[0.0, 0.0, w0])
    body.add_node("thread", position=[0.0, 0.0, -OFFSET])
    spring = {"stiffness": 0.0, "damping": damping} if damping else None
    s.add_link("screw", "screw", master="ground.nut", slave="bolt.thread", pitch=pitch,
               spring_damper=spring)
    return s


def free_fall(t: np.ndarray, pitch: float, w0: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact angle and rate without damper."""
    h = pitch / (2 * np.pi)
    alpha = M * G * h / (M * h * h + IZZ)
    return w0 * t - 0.5 * alpha * t * t, w0 - alpha * t


def damped(t: np.ndarray, pitch: float, w0: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact angle and rate with a rotational damper ``b`` on the link."""
    h = pitch / (2 * np.pi)
    tau = (M * h * h + IZZ) / b
    w_inf = -M * G * h / b
    decay = np.exp(-t / tau)
    return w_inf * t + (w0 - w_inf) * tau * (1.0 - decay), w_inf + (w0 - w_inf) * decay


def check(ds: xr.Dataset, pitch: float, theta: np.ndarray, rate: np.ndarray, tol: float,
          record: Callable) -> None:
    """rz, tz, the coupling, the COG height and the body's turn vs the exact solution."""
    h = pitch / (2 * np.pi)
    disp = ds.link_displacement.sel(link="screw")
    rz, tz = disp.sel(dof="rz").values, disp.sel(dof="tz").values
    e_rz = float(np.abs(rz - theta).max())
    e_rate = float(np.abs(ds.link_velocity.sel(link="screw", dof="rz").values - rate).max())
    e_tz = float(np.abs(tz - h * theta).max())
    e_couple = float(np.abs(tz - pitch * rz / (2 * np.pi)).max())
    z = ds.body_position.sel(body="bolt").values
    e_z = float(np.abs(z[:, 2] - (NUT[2] + OFFSET + h * theta)).max())
    e_xy = float(np.abs(z[:, :2] - NUT[:2]).max())
    q = ds.body_orientation.sel(body="bolt").values
    # the body turns about z by theta: compare the rotation (sign-free) cos and sin
    c = q[:, 0] ** 2 - q[:, 3] ** 2
    s = 2.0 * q[:, 0] * q[:, 3]
    e_turn = float(max(np.abs(c - np.cos(theta)).max(), np.abs(s - np.sin(theta)).max()))
    for name, value in [("max_rz_error_rad", e_rz), ("max_rz_rate_error_rad_s", e_rate),
                        ("max_tz_error_m", e_tz), ("max_coupling_error_m", e_couple),
                        ("max_cog_height_error_m", e_z), ("max_body_turn_error", e_turn),
                        ("turns", float(np.abs(theta).max() / (2 * np.pi)))]:
        record(name, value)
    assert e_rz < tol
    assert e_rate < tol
    assert e_tz < tol * abs(h)
    assert e_z < tol * abs(h)
    assert e_turn < tol
    assert e_couple < 1e-12 * max(1.0, np.abs(tz).max())
    assert e_xy < 1e-12
    locked = disp.sel(dof=["tx", "ty", "rx", "ry"])
    assert float(np.abs(locked).max()) < 1e-12


@pytest.mark.parametrize("pitch", [0.5, -0.5])
def test_free_fall(pitch: float, record_property: Callable) -> None:
    """1 s (1000 rk4 steps): spun up at 10 rad/s (rising for a positive pitch), then turns
    down the thread: th = w0 t - alpha t^2 / 2 over more than two turns, both signs."""
    w0 = 10.0 if pitch > 0 else -10.0
    ds = bolt(pitch, w0).run(t_end=1.0, dt=1e-3, every=10)
    theta, rate = free_fall(ds.time.values, pitch, w0)
    assert np.abs(theta).max() > 4 * np.pi
    check(ds, pitch, theta, rate, 1e-8, record_property)


def test_fall_acceleration(record_property: Callable) -> None:
    """COG acceleration a = m g h / (m h + Izz / h), downwards, from the first samples."""
    pitch = 0.5
    h = pitch / (2 * np.pi)
    ds = bolt(pitch, 0.0).run(t_end=0.01, dt=1e-3, every=1)
    acc = ds.body_acceleration.sel(body="bolt").values
    a = M * G * h / (M * h + IZZ / h)
    err = float(np.abs(acc[:, 2] + a).max())
    record_property("max_cog_acceleration_error_m_s2", err)
    assert err < 1e-9 * a
    assert float(np.abs(acc[:, :2]).max()) < 1e-12


def test_damped_terminal_rate(record_property: Callable) -> None:
    """1 s (1000 rk4 steps) with a rotational damper: exponential approach to the
    terminal rate w_inf = -m g h / b (-20 rad/s)."""
    pitch = 0.5
    b = M * G * pitch / (2 * np.pi) / 20.0
    ds = bolt(pitch, 5.0, b).run(t_end=1.0, dt=1e-3, every=10)
    theta, rate = damped(ds.time.values, pitch, 5.0, b)
    check(ds, pitch, theta, rate, 1e-8, record_property)
    q = -b * rate
    e_q = float(np.abs(ds.link_spring_force.sel(link="screw", dof="rz").values - q).max())
    record_property("max_damper_torque_error_Nm", e_q)
    assert e_q < 1e-8 * np.abs(q).max()


@pytest.mark.slow
def test_damped_ten_seconds(record_property: Callable) -> None:
    """Slow twin: 10 s (1e4 rk4 steps), about 30 turns at up to 20 rad/s."""
    pitch = 0.5
    b = M * G * pitch / (2 * np.pi) / 20.0
    ds = bolt(pitch, 5.0, b).run(t_end=10.0, dt=1e-3, every=10)
    theta, rate = damped(ds.time.values, pitch, 5.0, b)
    assert np.abs(theta).max() > 25 * 2 * np.pi
    check(ds, pitch, theta, rate, 1e-7, record_property)
