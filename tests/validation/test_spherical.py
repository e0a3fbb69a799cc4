"""Spherical double pendulum in 3-D: exact conservation of energy and of the joints.

Two bodies hang from ground and from each other by spherical links (master nodes with
rotated axes), start with 3-D angular velocities (consistent COG velocities), and move
chaotically. No force does work but gravity, and ideal joints do none, so the exact
total energy (computed from the Dataset)::

    E = sum_i  m_i |v_i|^2 / 2 + w_i^T R_i I_i R_i^T w_i / 2 - m_i g.x_i

is constant, and the joined nodes coincide exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr

import frylinks

G = 9.81
M1, M2 = 1.0, 0.7
I1 = [0.02, 0.03, 0.01, 0.002, 0.0, -0.001]
I2 = [0.01, 0.015, 0.02, 0.0, 0.003, 0.0]
TOP = np.array([0.0, 0.0, 2.0])
R1 = np.array([0.5, 0.0, 0.0])    # pivot -> COG 1 (world; bodies start unrotated)
C1 = np.array([1.0, 0.0, 0.0])    # pivot -> joint 2
R2 = np.array([0.3, 0.4, -0.1])   # joint 2 -> COG 2
W1 = np.array([0.5, 2.0, 1.0])
W2 = np.array([-1.0, 0.5, 3.0])


def double_pendulum() -> frylinks.System:
    """The chain ground - upper - lower with spherical joints."""
    v1 = np.cross(W1, R1)
    v2 = np.cross(W1, C1) + np.cross(W2, R2)
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="spherical-double-pendulum")
    s.ground.add_node("top", position=TOP, orientation={"euler_deg": [10, 20, 30]})
    upper = s.add_body("upper", mass=M1, inertia=I1, position=TOP + R1, velocity=v1,
                       angular_velocity=W1)
    upper.add_node("a", position=-R1)
    upper.add_node("b", position=C1 - R1, orientation={"axis": [1, 1, 1], "angle_deg": 40})
    lower = s.add_body("lower", mass=M2, inertia=I2, position=TOP + C1 + R2, velocity=v2,
                       angular_velocity=W2)
    lower.add_node("a", position=-R2)
    s.add_link("j1", "spherical", master="ground.top", slave="upper.a")
    s.add_link("j2", "spherical", master="upper.b", slave="lower.a")
    return s


def tensor(i6: list[float]) -> np.ndarray:
    xx, yy, zz, xy, xz, yz = i6
    return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])


def energy(ds: xr.Dataset, rotation: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Total and kinetic energy over time from the Dataset's body variables."""
    quat_matrix, _ = rotation
    kinetic = np.zeros(ds.sizes["time"])
    potential = np.zeros(ds.sizes["time"])
    for name, m, i6 in [("upper", M1, I1), ("lower", M2, I2)]:
        v = ds.body_velocity.sel(body=name).values
        w = ds.body_angular_velocity.sel(body=name).values
        r = quat_matrix(ds.body_orientation.sel(body=name).values)
        wb = np.einsum("tji,tj->ti", r, w)  # body axes
        kinetic += 0.5 * m * np.sum(v * v, axis=1)
        kinetic += 0.5 * np.einsum("ti,ij,tj->t", wb, tensor(i6), wb)
        potential += m * G * ds.body_position.sel(body=name).values[:, 2]
    return kinetic + potential, kinetic


@pytest.fixture(scope="module")
def run() -> xr.Dataset:
    """2 s, 2000 rk4 steps of 1 ms."""
    return double_pendulum().run(t_end=2.0, dt=1e-3, every=10)


def check_energy(ds: xr.Dataset, rotation: tuple, tol: float, record: Callable) -> None:
    total, kinetic = energy(ds, rotation)
    rel = float(np.abs(total - total[0]).max() / kinetic.max())
    record("max_energy_error_rel_to_max_kinetic", rel)
    record("max_energy_error_J", float(np.abs(total - total[0]).max()))
    assert rel < tol


def check_joints(ds: xr.Dataset, system: frylinks.System, frames: Callable, record: Callable
                 ) -> None:
    worst = 0.0
    for link in system.links.values():
        pm, _ = frames(ds, link.master)
        ps, _ = frames(ds, link.slave)
        worst = max(worst, float(np.abs(ps - pm).max()))
    record("max_node_gap_m", worst)
    assert worst < 1e-12
    assert float(np.abs(ds.link_displacement.sel(dof=["tx", "ty", "tz"])).max()) < 1e-12


def test_energy_conserved(run: xr.Dataset, rotation: tuple, record_property: Callable) -> None:
    """Total energy constant to 1e-8 of the largest kinetic energy over 2 s."""
    check_energy(run, rotation, 1e-8, record_property)


def test_joints_coincide(run: xr.Dataset, frames: Callable, record_property: Callable) -> None:
    """Master and slave nodes of both spherical links coincide at round-off."""
    check_joints(run, double_pendulum(), frames, record_property)


def test_motion_is_three_dimensional(run: xr.Dataset) -> None:
    """Guard: the lower body really swings in 3-D (the test exercises all rotations)."""
    x = run.body_position.sel(body="lower").values
    assert np.ptp(x, axis=0).min() > 0.1


@pytest.mark.slow
def test_spherical_ten_seconds(rotation: tuple, frames: Callable,
                               record_property: Callable) -> None:
    """Slow twin: 10 s (1e4 rk4 steps)."""
    ds = double_pendulum().run(t_end=10.0, dt=1e-3, every=10)
    check_energy(ds, rotation, 1e-7, record_property)
    check_joints(ds, double_pendulum(), frames, record_property)
