"""A universal (cardan) joint transmitting rotation between inclined shafts.

Two shafts turn in revolute bearings on ground, their axes meeting at ``O`` with an
angle ``beta``: the input along world z, the output along ``z1 = Ry(beta) z``. A
universal link (``axes: RzRy``) joins the input yoke (master node, z along the input
cross arm ``p``, normal to the input axis) to the output yoke (slave node, y along the
output cross arm ``q``, normal to the output axis); the link keeps ``p . q = 0``.

With ``phi1`` the input angle from the position where ``p`` is normal to the plane of
the shafts and ``phi2`` the output angle from the position where ``q`` lies in that
plane, ``p = (-sin phi1, cos phi1, 0)`` and ``q = cos phi2 (cos beta, 0, -sin beta) +
sin phi2 (0, 1, 0)``, and ``p . q = 0`` is the classic Cardan relation::

    tan(phi2) = tan(phi1) cos(beta),
    phi2' / phi1' = cos(beta) / (1 - sin(beta)^2 sin(phi1)^2).

The input shaft is a heavy flywheel spun up at the start; the relation is kinematic,
so it holds exactly whatever the speeds do. The loop ground - input - output - ground
has 14 constraint rows for 12 body DOFs and one mobility (three redundant rows).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr
from scipy.spatial.transform import Rotation

import frylinks
from frylinks.engine import assemble
from frylinks.engine.joints import link_joints
from frylinks.joints import RzRyJoint

BETA = np.radians(30.0)
OMEGA0 = 4.0 * np.pi          # input speed at the start [rad/s]
R_OUT = Rotation.from_rotvec([0.0, BETA, 0.0])


def wxyz(r: Rotation) -> list[float]:
    q = r.as_quat()
    return [float(q[3]), float(q[0]), float(q[1]), float(q[2])]


def driveline(beta: float = BETA) -> frylinks.System:
    """The two shafts and the universal joint, at phi1 = phi2 = 0."""
    r_out = Rotation.from_rotvec([0.0, beta, 0.0])
    z1 = r_out.apply([0.0, 0.0, 1.0])
    s = frylinks.System(gravity=[0.0, 0.0, -9.81], name="cardan-driveline")
    s.ground.add_node("in_bearing", position=[0.0, 0.0, -1.0])
    s.ground.add_node("out_bearing", position=z1, orientation={"quaternion": wxyz(r_out)})
    shaft_in = s.add_body("input", mass=20.0, inertia=[2.0, 2.0, 5.0], position=[0, 0, -0.5],
                          angular_velocity=[0.0, 0.0, OMEGA0])
    shaft_in.add_node("bearing", position=[0.0, 0.0, -0.5])
    # yoke: node z along the cross arm p = world y at phi1 = 0
    shaft_in.add_node("yoke", position=[0.0, 0.0, 0.5],
                      orientation={"axis": [1, 0, 0], "angle_deg": -90})
    shaft_out = s.add_body("output", mass=2.0, inertia=[0.05, 0.05, 0.02],
                           position=0.5 * z1, orientation={"quaternion": wxyz(r_out)},
                           angular_velocity=np.cos(beta) * OMEGA0 * z1)
    shaft_out.add_node("bearing", position=[0.0, 0.0, 0.5])
    # yoke: node y along the cross arm q = body x (in the plane of the shafts)
    shaft_out.add_node("yoke", position=[0.0, 0.0, -0.5],
                       orientation={"axis": [0, 0, 1], "angle_deg": -90})
    s.add_link("in", "revolute", master="ground.in_bearing", slave="input.bearing")
    s.add_link("out", "revolute", master="ground.out_bearing", slave="output.bearing")
    s.add_link("cardan", "universal", master="input.yoke", slave="output.yoke", axes="RzRy")
    return s


def cardan_output(phi1: np.ndarray, beta: float = BETA) -> np.ndarray:
    """``phi2`` with ``tan(phi2) = tan(phi1) cos(beta)``, on the branch following phi1
    over turns (the two never differ by more than a quarter turn)."""
    raw = np.arctan2(np.cos(beta) * np.sin(phi1), np.cos(phi1))
    return phi1 + (raw - phi1 + np.pi) % (2 * np.pi) - np.pi


def check_cardan(ds: xr.Dataset, record: Callable[[str, object], None]) -> None:
    phi1 = ds.link_displacement.sel(link="in", dof="rz").values
    phi2 = ds.link_displacement.sel(link="out", dof="rz").values
    rate1 = ds.link_velocity.sel(link="in", dof="rz").values
    rate2 = ds.link_velocity.sel(link="out", dof="rz").values
    angle_err = float(np.abs(phi2 - cardan_output(phi1)).max())
    ratio = np.cos(BETA) / (1.0 - np.sin(BETA) ** 2 * np.sin(phi1) ** 2)
    speed_err = float(np.abs(rate2 - ratio * rate1).max())
    record("output_angle_error_rad", angle_err)
    record("speed_ratio_error_rad_s", speed_err)
    assert phi1.max() > 2 * np.pi  # more than a turn: every quadrant
    # the output really lags and leads: the relation is not the identity
    assert np.abs(phi2 - phi1).max() > 0.9 * (np.arctan(1 / np.cos(BETA)) - np.pi / 4)
    assert angle_err < 1e-11
    assert speed_err < 1e-10


@pytest.fixture(scope="module")
def run() -> xr.Dataset:
    """0.6 s (600 rk4 steps of 1 ms): about 1.2 turns of the input."""
    return driveline().run(t_end=0.6, dt=1e-3)


def test_cardan_relation(run: xr.Dataset, record_property: Callable) -> None:
    """``tan(phi2) = tan(phi1) cos(beta)`` and the speed ratio, over more than a turn."""
    check_cardan(run, record_property)


def test_cross_stays_a_cross(run: xr.Dataset, record_property: Callable) -> None:
    """The universal link's nodes coincide and the cross arms stay normal (the locked
    rotation), at round-off; its joint coordinates are those of an Arboris RzRy joint
    whose pose is the relative pose of the yokes."""
    s = driveline()
    model = assemble(s)
    worst_t = worst_r = 0.0
    for k in range(0, run.sizes["time"], 40):
        j = link_joints(model, run.isel(time=k))["cardan"]
        worst_t = max(worst_t, float(np.abs(j.pose[:3, 3]).max()))
        worst_r = max(worst_r, abs(float(j.pose[2, 1])))   # e_z(master) . e_y(slave)
        ref = RzRyJoint(gpos=j.gpos, gvel=j.gvel)
        np.testing.assert_allclose(j.pose, ref.pose, atol=1e-12)
        np.testing.assert_allclose(j.twist, ref.twist, atol=1e-10)
    record_property("node_gap_m", worst_t)
    record_property("cross_angle_error", worst_r)
    assert worst_t < 1e-13
    assert worst_r < 1e-13
    disp = run.link_displacement.sel(link="cardan", dof=["tx", "ty", "tz"]).values
    assert np.abs(disp).max() < 1e-13


def test_power_through_the_joint(run: xr.Dataset, record_property: Callable) -> None:
    """No work is done by the ideal links: the kinetic energy of the two shafts is
    constant (no gravity work either: both turn about fixed axes through their COGs)."""
    energy = np.zeros(run.sizes["time"])
    for body, inertia in (("input", [2.0, 2.0, 5.0]), ("output", [0.05, 0.05, 0.02])):
        w = run.body_angular_velocity.sel(body=body).values
        q = run.body_orientation.sel(body=body).values
        r = Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix()
        wb = np.einsum("nji,nj->ni", r, w)
        energy += 0.5 * np.einsum("ni,i,ni->n", wb, inertia, wb)
        assert np.abs(run.body_velocity.sel(body=body).values).max() < 1e-12
    drift = float(np.abs(energy - energy[0]).max() / energy[0])
    record_property("relative_energy_drift", drift)
    assert drift < 1e-9


@pytest.mark.slow
def test_cardan_relation_ten_seconds(record_property: Callable) -> None:
    """Slow twin: 10 s, about 20 turns."""
    check_cardan(driveline().run(t_end=10.0, dt=1e-3, every=10), record_property)
