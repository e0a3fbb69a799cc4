"""Prismatic link with a spring-damper and a constant push: exact damped oscillator.

The slider (mass ``m``) moves along the master node's z axis ``e`` (vertical or inclined),
pushed by a constant world force ``F e`` at the slave node, pulled by gravity, restrained
by the link spring-damper ``Q = -k (x - r0) - b x'``. Along the axis::

    m x'' + b x' + k x = k r0 + F + m g.e

so from rest at ``x0`` the exact underdamped response is the classical one, around the
static deflection ``x_eq = r0 + (F + m g.e) / k``. The outputs checked against it:
``link_displacement`` / ``link_velocity`` tz, ``link_spring_force`` tz ``= Q`` and
``link_power = -Q x'`` (``= k (x - r0) x' + b x'^2``: rate of spring energy plus damper
dissipation). The reaction (master-node axes) balances gravity's transverse component,
and its torque about the slave node balances the moment of gravity and of the inertia
force at the offset COG: ``T = -(r_cog - r_node) x m (g - a)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr

import frylinks

G = 9.81
M = 3.0
K = 400.0
B = 6.0
R0 = 0.2
F = 5.0
X0 = 0.05
NODE = np.array([0.1, -0.2, 0.3])  # slave node relative to the COG (body axes = world)
RAIL = np.array([1.0, 2.0, -3.0])

CASES = {
    "vertical": {"axis": [1.0, 0.0, 0.0], "angle_deg": 0.0},
    "inclined": {"axis": [1.0, 1.0, 0.0], "angle_deg": 35.0},
}


def slider(orientation: dict, x0: float = X0) -> frylinks.System:
    """Slider on a rail whose master node has ``orientation``, at rest, slave node at
    ``tz = x0``."""
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="prismatic-oscillator")
    s.ground.add_node("rail", position=RAIL, orientation=orientation)
    e = master_axes(orientation)[:, 2]
    body = s.add_body("slider", mass=M, inertia=[0.4, 0.5, 0.6],
                      position=RAIL + x0 * e - NODE)
    body.add_node("pto", position=NODE, orientation=orientation)
    s.add_link("pto", "prismatic", master="ground.rail", slave="slider.pto",
               spring_damper={"stiffness": K, "damping": B, "rest": R0})
    s.add_force("push", "world_force", node="slider.pto", force=list(F * e))
    return s


def master_axes(orientation: dict) -> np.ndarray:
    """Master node axes in world (columns), by Rodrigues' formula."""
    n = np.asarray(orientation["axis"], dtype=float)
    n /= np.linalg.norm(n)
    a = np.radians(orientation["angle_deg"])
    nx = np.array([[0.0, -n[2], n[1]], [n[2], 0.0, -n[0]], [-n[1], n[0], 0.0]])
    return np.eye(3) + np.sin(a) * nx + (1.0 - np.cos(a)) * nx @ nx


@pytest.fixture(scope="module", params=list(CASES))
def case(request: pytest.FixtureRequest) -> tuple[np.ndarray, xr.Dataset]:
    """(master axes, results of 1 s = 1000 rk4 steps of 1 ms), vertical and inclined."""
    orientation = CASES[request.param]
    return master_axes(orientation), slider(orientation).run(t_end=1.0, dt=1e-3, every=1)


def exact(rm: np.ndarray, t: np.ndarray, oscillator: Callable
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, x', x'' of the exact damped oscillator along the axis."""
    e = rm[:, 2]
    force = K * R0 + F + M * G * (-e[2])
    return oscillator(t, M, K, B, force, X0, 0.0)


def test_displacement_and_velocity(case: tuple[np.ndarray, xr.Dataset], oscillator: Callable,
                                   record_property: Callable) -> None:
    """tz and its rate vs the exact underdamped response from rest."""
    rm, ds = case
    x, v, _ = exact(rm, ds.time.values, oscillator)
    tz = ds.link_displacement.sel(link="pto", dof="tz").values
    vz = ds.link_velocity.sel(link="pto", dof="tz").values
    ex, ev = float(np.abs(tz - x).max()), float(np.abs(vz - v).max())
    record_property("max_tz_error_m", ex)
    record_property("max_velocity_error_m_s", ev)
    assert ex < 1e-9
    assert ev < 1e-8
    others = ds.link_displacement.sel(link="pto", dof=["tx", "ty", "rx", "ry", "rz"])
    assert float(np.abs(others).max()) < 1e-12


@pytest.mark.parametrize("name", list(CASES))
def test_static_deflection(name: str, record_property: Callable) -> None:
    """Started at rest at the exact static deflection x_eq = r0 + (F + m g.e) / k, the
    slider stays there; the spring force balances the push and gravity along the axis,
    ``Q = -(F + m g.e)``, and absorbs no power."""
    orientation = CASES[name]
    e = master_axes(orientation)[:, 2]
    load = F + M * G * (-e[2])
    x_eq = R0 + load / K
    ds = slider(orientation, x0=x_eq).run(t_end=0.05, dt=1e-3, every=10)
    tz = ds.link_displacement.sel(link="pto", dof="tz").values
    q = ds.link_spring_force.sel(link="pto", dof="tz").values
    ex = float(np.abs(tz - x_eq).max())
    eq = float(np.abs(q + load).max())
    record_property("max_static_deflection_error_m", ex)
    record_property("max_static_spring_force_error_N", eq)
    assert ex < 1e-12
    assert eq < 1e-9 * abs(load)
    assert float(np.abs(ds.link_power.sel(link="pto")).max()) < 1e-9


def test_spring_force_and_power(case: tuple[np.ndarray, xr.Dataset], oscillator: Callable,
                                record_property: Callable) -> None:
    """link_spring_force tz = -k (x - r0) - b x' and link_power = -Q x' (exact x, x')."""
    rm, ds = case
    x, v, _ = exact(rm, ds.time.values, oscillator)
    q = -K * (x - R0) - B * v
    q_num = ds.link_spring_force.sel(link="pto", dof="tz").values
    p_num = ds.link_power.sel(link="pto").values
    eq = float(np.abs(q_num - q).max())
    ep = float(np.abs(p_num - (K * (x - R0) * v + B * v * v)).max())
    record_property("max_spring_force_error_N", eq)
    record_property("max_power_error_W", ep)
    assert eq < 1e-8 * np.abs(q).max()
    assert ep < 1e-8 * np.abs(q * v).max()
    others = ds.link_spring_force.sel(link="pto", dof=["tx", "ty", "rx", "ry", "rz"])
    assert float(np.abs(others).max()) == 0.0


def test_reaction_balances_transverse_gravity(case: tuple[np.ndarray, xr.Dataset],
                                              oscillator: Callable,
                                              record_property: Callable) -> None:
    """Reaction force (master axes) = -m g's transverse components, none along the axis;
    torque about the slave node = -(r_cog - r_node) x m (g - a), a = x'' e."""
    rm, ds = case
    e = rm[:, 2]
    g = np.array([0.0, 0.0, -G])
    _, _, a = exact(rm, ds.time.values, oscillator)
    f_num = ds.link_reaction_force.sel(link="pto").values
    f_exact = -M * (rm.T @ g) * np.array([1.0, 1.0, 0.0])
    inertial = M * (g[None, :] - a[:, None] * e[None, :])
    t_exact = -np.cross(-NODE, inertial) @ rm
    t_num = ds.link_reaction_torque.sel(link="pto").values
    ef = float(np.abs(f_num - f_exact).max())
    et = float(np.abs(t_num - t_exact).max())
    record_property("max_reaction_force_error_N", ef)
    record_property("max_reaction_torque_error_Nm", et)
    assert ef < 1e-8 * M * G
    assert et < 1e-8 * M * G
    body_acc = ds.body_acceleration.sel(body="slider").values
    assert float(np.abs(body_acc - a[:, None] * e).max()) < 1e-7


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_prismatic_ten_seconds(name: str, oscillator: Callable,
                               record_property: Callable) -> None:
    """Slow twin: 10 s (1e4 rk4 steps): tz, rate and spring force vs the exact response."""
    rm = master_axes(CASES[name])
    ds = slider(CASES[name]).run(t_end=10.0, dt=1e-3, every=10)
    x, v, _ = exact(rm, ds.time.values, oscillator)
    tz = ds.link_displacement.sel(link="pto", dof="tz").values
    vz = ds.link_velocity.sel(link="pto", dof="tz").values
    q_num = ds.link_spring_force.sel(link="pto", dof="tz").values
    ex, ev = float(np.abs(tz - x).max()), float(np.abs(vz - v).max())
    record_property("max_tz_error_m", ex)
    record_property("max_velocity_error_m_s", ev)
    assert ex < 1e-9
    assert ev < 1e-8
    assert float(np.abs(q_num - (-K * (x - R0) - B * v)).max()) < 1e-6
