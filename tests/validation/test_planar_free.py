"""``free`` and ``planar`` links against exact free-body motions.

* ``free``: no constraint, so a body on a free link to ground flies exactly as a free
  body: its COG on the parabola ``x0 + v0 t + g t^2 / 2``, spinning steadily about a
  principal axis (``R(t) = exp(t [w]x) R0``). The link still measures the slave node
  relative to the master node (``d``, rotation vector, ``tau``) and reports no reaction.
  With a spring-damper on its ``tz`` the heave is a damped oscillator.
* ``planar``: a body with products of inertia slides and spins in an inclined plane:
  in-plane parabola under the in-plane gravity, constant spin ``rz = w t`` (no torque
  about the normal), ``tz``, ``rx``, ``ry`` at round-off. The reaction is the normal
  force ``-m g_z`` and the gyroscopic torque that keeps the spin axis fixed,
  ``w^2 Rz(w t) (-Iyz, Ixz, 0)`` in master axes (Euler: ``T = w x (I w)``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.spatial.transform import Rotation

import frylinks

GRAVITY = np.array([0.0, 0.0, -9.81])


def wxyz(r: Rotation) -> list[float]:
    q = r.as_quat()
    return [float(q[3]), float(q[0]), float(q[1]), float(q[2])]


# -------------------------------------------------------------------------------- free

R_WATCH = Rotation.from_euler("xyz", [20.0, -35.0, 50.0], degrees=True)   # master node
WATCH = np.array([1.0, -2.0, 0.5])
R0 = Rotation.from_euler("xyz", [10.0, 70.0, -30.0], degrees=True)       # body at t = 0
X0 = np.array([0.3, 0.2, 3.0])
V0 = np.array([1.2, -0.7, 4.0])
W0 = 5.0 * R0.apply([0.0, 0.0, 1.0])       # about the body's principal z axis
TAG = np.array([0.2, -0.1, 0.3])           # slave node, body axes
R_TAG = Rotation.from_rotvec([0.0, 0.0, 0.4])
M_FLY = 1.3


def test_free_link_measures_a_free_flight(record_property: Callable) -> None:
    """1 s of free flight: COG parabola, steady spin, and the link's displacement and
    velocity are the slave node's relative pose and twist (exact, master axes); no
    reaction."""
    s = frylinks.System(gravity=GRAVITY, name="free-flight")
    s.ground.add_node("watch", position=WATCH, orientation={"quaternion": wxyz(R_WATCH)})
    body = s.add_body("probe", mass=M_FLY, inertia=[0.4, 0.6, 0.9], position=X0,
                      orientation={"quaternion": wxyz(R0)}, velocity=V0, angular_velocity=W0)
    body.add_node("tag", position=TAG, orientation={"quaternion": wxyz(R_TAG)})
    s.add_link("track", "free", master="ground.watch", slave="probe.tag")
    ds = s.run(t_end=1.0, dt=1e-3)
    t = ds.time.values
    x = X0 + np.outer(t, V0) + 0.5 * np.outer(t * t, GRAVITY)
    rb = Rotation.from_rotvec(np.outer(t, W0)) * R0
    lever = rb.apply(TAG)
    d = R_WATCH.inv().apply(x + lever - WATCH)
    rel = R_WATCH.inv() * rb * R_TAG
    v_node = V0 + np.outer(t, GRAVITY) + np.cross(W0, lever)
    disp = ds.link_displacement.sel(link="track").values
    vel = ds.link_velocity.sel(link="track").values
    errors = {
        "cog_error_m": np.abs(ds.body_position.sel(body="probe").values - x).max(),
        "spin_error_rad_s": np.abs(ds.body_angular_velocity.sel(body="probe").values
                                   - W0).max(),
        "displacement_error_m": np.abs(disp[:, :3] - d).max(),
        "rotation_error_rad": np.abs(disp[:, 3:] - rel.as_rotvec()).max(),
        "velocity_error_m_s": np.abs(vel[:, :3] - R_WATCH.inv().apply(v_node)).max(),
        "angular_velocity_error_rad_s": np.abs(vel[:, 3:] - R_WATCH.inv().apply(W0)).max(),
    }
    for name, value in errors.items():
        record_property(name, float(value))
    assert errors["cog_error_m"] < 1e-12
    assert errors["spin_error_rad_s"] < 1e-12
    assert errors["displacement_error_m"] < 1e-11
    assert errors["rotation_error_rad"] < 1e-11
    assert errors["velocity_error_m_s"] < 1e-11
    assert errors["angular_velocity_error_rad_s"] < 1e-12
    assert np.abs(rel.magnitude()).max() > 2.0   # large relative rotations measured
    for var in ("link_reaction_force", "link_reaction_torque"):
        assert np.abs(ds[var].sel(link="track").values).max() == 0.0


K_HEAVE, B_HEAVE, REST_HEAVE, M_HEAVE = 300.0, 4.0, -1.5, 2.0


def test_free_link_spring_damper_heave(oscillator: Callable,
                                       record_property: Callable) -> None:
    """A body hanging on a free link with a spring-damper on tz: ``m z'' = -k (z - r0) -
    b z' - m g`` (exact damped oscillator), while it drifts sideways at constant speed;
    the spring force reported is ``-k (z - r0) - b z'``."""
    s = frylinks.System(gravity=GRAVITY, name="free-heave")
    s.ground.add_node("hook", position=[0.0, 0.0, 2.0])
    s.add_body("weight", mass=M_HEAVE, inertia=[0.1, 0.1, 0.1], position=[0.0, 0.0, 0.0],
               velocity=[0.3, -0.2, 0.5])
    s.add_link("line", "free", master="ground.hook", slave="weight",
               spring_damper={"tz": {"stiffness": K_HEAVE, "damping": B_HEAVE,
                                     "rest": REST_HEAVE}})
    ds = s.run(t_end=1.0, dt=1e-3)
    t = ds.time.values
    z, zv, _ = oscillator(t, M_HEAVE, K_HEAVE, B_HEAVE,
                          K_HEAVE * REST_HEAVE + M_HEAVE * GRAVITY[2], -2.0, 0.5)
    disp = ds.link_displacement.sel(link="line").values
    spring = ds.link_spring_force.sel(link="line", dof="tz").values
    z_err = float(np.abs(disp[:, 2] - z).max())
    f_err = float(np.abs(spring - (-K_HEAVE * (z - REST_HEAVE) - B_HEAVE * zv)).max())
    side_err = float(np.abs(disp[:, :2] - np.outer(t, [0.3, -0.2])).max())
    record_property("heave_error_m", z_err)
    record_property("spring_force_error_N", f_err)
    assert z_err < 1e-9
    assert f_err < 1e-6
    assert side_err < 1e-12


# ------------------------------------------------------------------------------ planar

R_PLANE = Rotation.from_euler("xyz", [60.0, 20.0, 0.0], degrees=True)
ORIGIN = np.array([0.5, 0.0, 1.0])
P0 = np.array([0.2, -0.3])
U0 = np.array([-0.8, 1.1])
OMEGA = 6.0
M_DISC = 3.0
#: Ixx Iyy Izz Ixy Ixz Iyz: the spin axis (body z) is not principal
INERTIA = [0.4, 0.5, 0.8, 0.03, 0.06, -0.05]


def test_planar_link_slides_and_spins_in_an_inclined_plane(record_property: Callable
                                                           ) -> None:
    """1 s: in-plane parabola, spin ``rz = w t``, ``tz rx ry`` at round-off; reaction
    force ``(0, 0, -m g_z)`` and torque ``w^2 Rz(w t) (-Iyz, Ixz, 0)`` (master axes)."""
    s = frylinks.System(gravity=GRAVITY, name="planar-disc")
    s.ground.add_node("plane", position=ORIGIN, orientation={"quaternion": wxyz(R_PLANE)})
    s.add_body("disc", mass=M_DISC, inertia=INERTIA,
               position=ORIGIN + R_PLANE.apply([*P0, 0.0]),
               orientation={"quaternion": wxyz(R_PLANE)},
               velocity=R_PLANE.apply([*U0, 0.0]),
               angular_velocity=R_PLANE.apply([0.0, 0.0, OMEGA]))
    s.add_link("plane", "planar", master="ground.plane", slave="disc")
    ds = s.run(t_end=1.0, dt=1e-3)
    t = ds.time.values
    g = R_PLANE.inv().apply(GRAVITY)
    disp = ds.link_displacement.sel(link="plane").values
    exact = P0 + np.outer(t, U0) + 0.5 * np.outer(t * t, g[:2])
    force = ds.link_reaction_force.sel(link="plane").values
    torque = ds.link_reaction_torque.sel(link="plane").values
    ixz, iyz = INERTIA[4], INERTIA[5]
    gyro = OMEGA**2 * Rotation.from_rotvec(np.outer(t, [0.0, 0.0, OMEGA])).apply(
        [-iyz, ixz, 0.0])
    errors = {
        "in_plane_error_m": np.abs(disp[:, :2] - exact).max(),
        "spin_angle_error_rad": np.abs(disp[:, 5] - OMEGA * t).max(),
        "locked_dofs": np.abs(disp[:, 2:5]).max(),
        "normal_force_error_N": np.abs(force - [0.0, 0.0, -M_DISC * g[2]]).max(),
        "torque_error_Nm": np.abs(torque - gyro).max(),
    }
    for name, value in errors.items():
        record_property(name, float(value))
    assert OMEGA * t[-1] > np.pi     # the spin angle is unwrapped past pi
    assert errors["in_plane_error_m"] < 1e-12
    assert errors["spin_angle_error_rad"] < 1e-10
    assert errors["locked_dofs"] < 1e-13
    assert errors["normal_force_error_N"] < 1e-11
    assert errors["torque_error_Nm"] < 1e-10
    assert np.abs(gyro).max() > 1.0   # the gyroscopic torque is exercised
