"""Fixed link holding a loaded body: exact statics, single and doubled (redundant).

A box (COG offset from the slave node, full inertia tensor) is welded to ground through
a master node with rotated axes, loaded by gravity, a world force at another node and a
world torque. It must not move, and the constraint wrench on the box (master-node axes,
torque about the slave node) is the exact static balance::

    F = -Rm^T (m g + F_ext)
    T = -Rm^T ((x_cog - p_node) x m g + (p_hook - p_node) x F_ext + T_ext)

Two identical fixed links (six redundant rows) must still run, and their reactions sum
to the same total.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import pytest
import xarray as xr
from scipy.spatial.transform import Rotation

import frylinks

G = np.array([0.0, 0.0, -9.81])
M = 12.0
CLAMP = np.array([1.0, -2.0, 0.5])
EULER = [25.0, -40.0, 70.0]          # master node, intrinsic xyz, degrees
WELD = np.array([0.4, -0.3, 0.25])   # slave node relative to the COG, body axes
WELD_TILT = 0.3                      # slave node axes: about body y [rad]
HOOK = np.array([-0.2, 0.1, 0.6])    # where the world force acts, body axes
F_EXT = np.array([3.0, -1.0, 2.0])
T_EXT = np.array([0.5, 0.2, -0.7])


def wxyz(r: Rotation) -> list[float]:
    q = r.as_quat()
    return [q[3], q[0], q[1], q[2]]


R_MASTER = Rotation.from_euler("XYZ", EULER, degrees=True)  # intrinsic
R_NODE = Rotation.from_rotvec([0.0, WELD_TILT, 0.0])
R_BODY = R_MASTER * R_NODE.inv()     # so that the slave node axes = master node axes
X_COG = CLAMP - R_BODY.apply(WELD)


def welded(nb_links: int) -> frylinks.System:
    """The box held by ``nb_links`` identical fixed links."""
    s = frylinks.System(gravity=G, name="fixed-statics")
    s.ground.add_node("clamp", position=CLAMP, orientation={"euler_deg": EULER, "sequence": "xyz"})
    box = s.add_body("box", mass=M, inertia=[1.0, 2.0, 1.5, 0.1, 0.05, -0.2], position=X_COG,
                     orientation={"quaternion": wxyz(R_BODY)})
    box.add_node("weld", position=WELD, orientation={"axis": [0, 1, 0],
                                                    "angle_deg": np.degrees(WELD_TILT)})
    box.add_node("hook", position=HOOK)
    for i in range(nb_links):
        s.add_link(f"weld{i}", "fixed", master="ground.clamp", slave="box.weld")
    s.add_force("pull", "world_force", node="box.hook", force=list(F_EXT))
    s.add_force("twist", "world_torque", node="box", torque=list(T_EXT))
    return s


def exact_wrench() -> tuple[np.ndarray, np.ndarray]:
    """Static reaction force and torque about the slave node, master-node axes."""
    rm = R_MASTER.as_matrix()
    r_cog = -R_BODY.apply(WELD)
    r_hook = R_BODY.apply(HOOK - WELD)
    force = -rm.T @ (M * G + F_EXT)
    torque = -rm.T @ (np.cross(r_cog, M * G) + np.cross(r_hook, F_EXT) + T_EXT)
    return force, torque


@cache
def held(nb_links: int) -> xr.Dataset:
    """0.1 s (100 rk4 steps) of the box held by ``nb_links`` links."""
    return welded(nb_links).run(t_end=0.1, dt=1e-3, every=10)


@pytest.fixture(params=[1, 2], ids=["single", "doubled"])
def run(request: pytest.FixtureRequest) -> xr.Dataset:
    """Results with one link, then with two identical links."""
    return held(request.param)


def test_body_stays_put(run: xr.Dataset, record_property: Callable) -> None:
    """Position, orientation and velocities stay at their initial values."""
    ds = run
    x = ds.body_position.sel(body="box").values
    q = ds.body_orientation.sel(body="box").values
    q0 = np.array(wxyz(R_BODY))
    ex = float(np.abs(x - X_COG).max())
    eq = float(np.abs(q * np.sign(q[:, :1] * q0[0]) - q0).max())
    ev = float(max(np.abs(ds.body_velocity).max(), np.abs(ds.body_angular_velocity).max()))
    record_property("max_position_error_m", ex)
    record_property("max_quaternion_error", eq)
    record_property("max_velocity", ev)
    assert ex < 1e-12
    assert eq < 1e-12
    assert ev < 1e-12
    assert ds.attrs["status"] == "completed"


def test_static_reaction(run: xr.Dataset, record_property: Callable) -> None:
    """Sum of the links' reactions = the exact static wrench (each in master-node axes)."""
    ds = run
    force, torque = exact_wrench()
    f = ds.link_reaction_force.sum("link").values
    t = ds.link_reaction_torque.sum("link").values
    ef = float(np.abs(f - force).max())
    et = float(np.abs(t - torque).max())
    record_property("max_reaction_force_error_N", ef)
    record_property("max_reaction_torque_error_Nm", et)
    assert ef < 1e-9 * np.linalg.norm(force)
    assert et < 1e-9 * np.linalg.norm(force)


def test_redundant_share(record_property: Callable) -> None:
    """Doubled link: the regularised solve splits the wrench about equally between the
    two identical links (the split itself is not determined by physics: round-off in the
    null space of the constraint rows is amplified by 1 / EPS, hence the loose bound)."""
    ds = held(2)
    force, _ = exact_wrench()
    f = ds.link_reaction_force.values
    dev = float(np.abs(f - force / 2).max() / np.linalg.norm(force))
    record_property("max_share_deviation_rel", dev)
    assert dev < 1e-4
