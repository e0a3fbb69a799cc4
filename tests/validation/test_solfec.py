"""Solfec's joints and drivers against exact solutions.

* ``prescribed_velocity`` on a linear spline along the vertical: the body's velocity is
  the spline, its height the spline's integral (piecewise quadratic: rk4 is exact when
  the kinks fall on steps), the reaction ``m (a + g)`` with ``a`` the spline's slope
  (piecewise constant); the free DOFs move freely (a sideways drift and a spin).
* ``prescribed_displacement`` on a sine along an inclined axis: ``d_z = s(t)``, the
  reaction ``m (s'' - g_z)`` along the axis only; a spring-damper on the free ``tx``
  makes a damped oscillator across it, ``ty`` slides on a parabola.
* ``prescribed_acceleration`` on a linear spline: velocity and position are the first
  and second integrals of the signal (piecewise quadratic and cubic), reaction
  ``m (a + g)``.
* ``rigid_link`` pendulum (the point at the COG): the simple pendulum's Jacobi elliptic
  solution, the compound pendulum of test_pendulum.py with ``I_p = m L^2``; rod tension
  ``m g (3 cos(theta) - 2 cos(theta0))``; the body's own spin is untouched. A conical
  pendulum checks the out-of-plane case: ``Omega^2 = g / (L cos(alpha))``, tension
  ``m g / cos(alpha)``.
* ``fix_direction``: a body held in an inclined plane slides on the exact parabola, the
  reaction is normal (``-m g_z``), tangential components zero.
* ``fix_point``: a compound pendulum held at a point swings exactly as the revolute one
  (planar motion in a principal plane): ``I_p theta'' = -m g L sin(theta)``.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import numpy as np
import pytest
import xarray as xr
from scipy.spatial.transform import Rotation
from scipy.special import ellipj, ellipk

import frylinks

G = 9.81
GRAVITY = np.array([0.0, 0.0, -G])


def wxyz(r: Rotation) -> list[float]:
    q = r.as_quat()
    return [float(q[3]), float(q[0]), float(q[1]), float(q[2])]


def spline(points: list[list[float]], t: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray, np.ndarray]:
    """A linear spline held constant outside its points: value, right-hand slope, first
    and second integrals from t = 0 (exact, piecewise quadratic and cubic)."""
    p = np.asarray(points, dtype=float)
    tt, vv = p[:, 0], p[:, 1]
    t = np.asarray(t, dtype=float)
    value = np.interp(t, tt, vv)
    k = np.searchsorted(tt, t, side="right") - 1
    inside = (k >= 0) & (k < len(tt) - 1)
    kk = np.clip(k, 0, len(tt) - 2)
    slope = np.where(inside, (vv[kk + 1] - vv[kk]) / (tt[kk + 1] - tt[kk]), 0.0)
    # integrals over [0, t] by exact quadrature of the piecewise linear value: on each
    # piece v(s) = v_a + c (s - a), so the integral and double integral are polynomial
    knots = np.unique(np.concatenate([[0.0], tt[(tt > 0.0)]]))
    first = np.zeros_like(t)
    second = np.zeros_like(t)
    for i, ti in enumerate(t):
        grid = np.concatenate([knots[knots < ti], [ti]])
        f1 = f2 = 0.0
        for a, b in pairwise(grid):
            h = b - a
            va = float(np.interp(a, tt, vv))
            c = float(np.interp(0.5 * (a + b), tt, vv) - va) / (0.5 * h) if h else 0.0
            f2 += f1 * h + va * h * h / 2.0 + c * h**3 / 6.0
            f1 += va * h + c * h * h / 2.0
        first[i], second[i] = f1, f2
    return value, slope, first, second


# ---------------------------------------------------------------------- velocity driver

VELOCITY_POINTS = [[0.0, 0.0], [0.3, 1.2], [0.6, 1.2], [0.9, -0.6], [1.2, 0.0]]
M_LIFT = 3.0
X0 = np.array([0.2, -0.1, 0.5])
SIDE = np.array([0.5, -0.25, 0.0])   # free sideways drift (no gravity across)
SPIN = np.array([0.0, 0.0, 2.0])     # about a principal axis: torque-free


def lift(kind: str, points: list[list[float]], v0: float = 0.0) -> frylinks.System:
    """A body driven along the world vertical by a ``kind`` driver from ground."""
    s = frylinks.System(gravity=GRAVITY, name=f"solfec-{kind}")
    s.ground.add_node("base", position=[0.0, 0.0, 0.0])
    s.add_body("cage", mass=M_LIFT, inertia=[0.5, 0.7, 0.9], position=X0,
               velocity=SIDE + np.array([0.0, 0.0, v0]), angular_velocity=SPIN)
    s.add_link("drive", kind, master="ground.base", slave="cage",
               signal={"type": "linear_spline", "points": points})
    return s


@pytest.fixture(scope="module")
def velocity_run() -> xr.Dataset:
    """1.4 s, 1400 rk4 steps of 1 ms (kinks on steps)."""
    return lift("prescribed_velocity", VELOCITY_POINTS).run(t_end=1.4, dt=1e-3)


def test_velocity_driver_follows_the_spline(velocity_run: xr.Dataset,
                                            record_property: Callable) -> None:
    """v_z = s(t), z = z0 + integral of s; the free DOFs are untouched: x, y drift at
    constant speed, the spin stays constant."""
    ds = velocity_run
    t = ds.time.values
    s, _, integral, _ = spline(VELOCITY_POINTS, t)
    v = ds.body_velocity.sel(body="cage").values
    x = ds.body_position.sel(body="cage").values
    v_err = float(np.abs(v[:, 2] - s).max())
    z_err = float(np.abs(x[:, 2] - (X0[2] + integral)).max())
    side_err = float(np.abs(x[:, :2] - (X0[:2] + np.outer(t, SIDE[:2]))).max())
    spin_err = float(np.abs(ds.body_angular_velocity.sel(body="cage").values - SPIN).max())
    for name, value in (("velocity_error_m_s", v_err), ("height_error_m", z_err),
                        ("sideways_error_m", side_err), ("spin_error_rad_s", spin_err)):
        record_property(name, value)
    assert v_err < 1e-12
    assert z_err < 1e-12
    assert side_err < 1e-12
    assert spin_err < 1e-12
    # the displacement reported is the same height (master node at the origin)
    np.testing.assert_allclose(ds.link_displacement.sel(link="drive", dof="tz"), x[:, 2],
                               atol=1e-14)


def test_velocity_driver_reaction_is_m_a_plus_g(velocity_run: xr.Dataset,
                                                record_property: Callable) -> None:
    """Reaction on the body along z = m (a + g), a the spline's slope (right-hand at a
    kink, as the acceleration reported there); no tangential reaction, no torque."""
    ds = velocity_run
    _, slope, _, _ = spline(VELOCITY_POINTS, ds.time.values)
    force = ds.link_reaction_force.sel(link="drive").values
    err = float(np.abs(force[:, 2] - M_LIFT * (slope + G)).max())
    record_property("reaction_error_N", err)
    assert err < 1e-10 * M_LIFT * G
    assert np.abs(force[:, :2]).max() < 1e-12
    assert np.abs(ds.link_reaction_torque.sel(link="drive").values).max() < 1e-12
    acc = ds.body_acceleration.sel(body="cage").values[:, 2]
    assert np.abs(acc - slope).max() < 1e-10
    assert set(np.round(slope, 12)) == {0.0, 4.0, -6.0, 2.0}  # every piece is exercised


# ------------------------------------------------------------------ displacement driver

R_SLOPE = Rotation.from_euler("xyz", [35.0, -20.0, 10.0], degrees=True)
ANCHOR = np.array([1.0, 0.5, -0.3])
SINE = {"type": "sine", "amplitude": 0.3, "omega": 2.0, "phase_deg": 30.0, "offset": 0.2}
M_SLED = 2.5
K_X, B_X, REST_X = 40.0, 1.5, 0.1
D0 = np.array([0.35, -0.2])          # initial tx, ty
V0 = np.array([-0.4, 0.3])           # initial tx', ty'


def sine(t: np.ndarray, order: int) -> np.ndarray:
    arg = SINE["omega"] * t + np.radians(SINE["phase_deg"])
    a, w = SINE["amplitude"], SINE["omega"]
    return [SINE["offset"] + a * np.sin(arg), a * w * np.cos(arg), -a * w * w * np.sin(arg)
            ][order]


def sled() -> frylinks.System:
    """A body on an inclined sine displacement driver with a spring-damper on tx."""
    s = frylinks.System(gravity=GRAVITY, name="solfec-displacement")
    s.ground.add_node("rail", position=ANCHOR, orientation={"quaternion": wxyz(R_SLOPE)})
    d0 = np.array([*D0, sine(np.array(0.0), 0)])
    v0 = np.array([*V0, sine(np.array(0.0), 1)])
    s.add_body("sled", mass=M_SLED, inertia=[0.3, 0.4, 0.5],
               position=ANCHOR + R_SLOPE.apply(d0), velocity=R_SLOPE.apply(v0))
    s.add_link("drive", "prescribed_displacement", master="ground.rail", slave="sled",
               signal=SINE,
               spring_damper={"tx": {"stiffness": K_X, "damping": B_X, "rest": REST_X}})
    return s


def test_displacement_driver_on_a_sine(oscillator: Callable, record_property: Callable
                                       ) -> None:
    """1.5 s (1500 steps): d_z = s(t); tx a damped oscillator about rest + m g_x / k; ty the
    free parabola under g_y; reaction (0, 0, m (s'' - g_z)) in master axes; the spring
    force reported is -k (x - rest) - b x'."""
    ds = sled().run(t_end=1.5, dt=1e-3)
    t = ds.time.values
    g = R_SLOPE.inv().apply(GRAVITY)      # gravity in master-node axes
    disp = ds.link_displacement.sel(link="drive").values
    vel = ds.link_velocity.sel(link="drive").values
    x, xv, _ = oscillator(t, M_SLED, K_X, B_X, K_X * REST_X + M_SLED * g[0], D0[0], V0[0])
    y = D0[1] + V0[1] * t + 0.5 * g[1] * t * t
    errors = {
        "driven_error_m": np.abs(disp[:, 2] - sine(t, 0)).max(),
        "driven_velocity_error_m_s": np.abs(vel[:, 2] - sine(t, 1)).max(),
        "oscillator_error_m": np.abs(disp[:, 0] - x).max(),
        "parabola_error_m": np.abs(disp[:, 1] - y).max(),
    }
    force = ds.link_reaction_force.sel(link="drive").values
    errors["reaction_error_N"] = np.abs(force[:, 2] - M_SLED * (sine(t, 2) - g[2])).max()
    errors["tangential_reaction_N"] = np.abs(force[:, :2]).max()
    spring = ds.link_spring_force.sel(link="drive", dof="tx").values
    errors["spring_force_error_N"] = np.abs(spring - (-K_X * (x - REST_X) - B_X * xv)).max()
    for name, value in errors.items():
        record_property(name, float(value))
    assert errors["driven_error_m"] < 1e-13
    assert errors["driven_velocity_error_m_s"] < 1e-13
    assert errors["oscillator_error_m"] < 1e-9
    assert errors["parabola_error_m"] < 1e-11
    assert errors["reaction_error_N"] < 1e-9
    assert errors["tangential_reaction_N"] < 1e-11
    assert errors["spring_force_error_N"] < 1e-7
    assert np.abs(disp[:, 3:] - disp[0, 3:]).max() < 1e-12  # no torque: no rotation


# ------------------------------------------------------------------ acceleration driver

ACCEL_POINTS = [[0.0, 0.0], [0.4, 4.0], [0.8, -2.0], [1.2, 0.0]]
V_START = 0.8


def test_acceleration_driver_integrates_the_signal(record_property: Callable) -> None:
    """1.4 s: velocity v0 + integral of a, height z0 + v0 t + double integral (piecewise
    quadratic and cubic: exact for rk4 with kinks on steps); reaction m (a + g)."""
    ds = lift("prescribed_acceleration", ACCEL_POINTS, V_START).run(t_end=1.4, dt=1e-3)
    t = ds.time.values
    a, _, first, second = spline(ACCEL_POINTS, t)
    v = ds.body_velocity.sel(body="cage").values[:, 2]
    z = ds.body_position.sel(body="cage").values[:, 2]
    force = ds.link_reaction_force.sel(link="drive").values
    errors = {
        "velocity_error_m_s": np.abs(v - (V_START + first)).max(),
        "height_error_m": np.abs(z - (X0[2] + V_START * t + second)).max(),
        "reaction_error_N": np.abs(force[:, 2] - M_LIFT * (a + G)).max(),
    }
    for name, value in errors.items():
        record_property(name, float(value))
    assert errors["velocity_error_m_s"] < 1e-12
    assert errors["height_error_m"] < 1e-12
    assert errors["reaction_error_N"] < 1e-10
    assert np.abs(force[:, :2]).max() < 1e-12
    assert z.max() - z.min() > 1.0  # it really moved


# ---------------------------------------------------------------------------- rigid link

L_ROD = 0.8
M_BOB = 1.5
PIVOT = np.array([0.2, -0.4, 2.0])
#: master node z axis down (along the rod at rest): the chart of the free DOFs is regular
R_PIVOT = Rotation.from_rotvec([np.pi, 0.0, 0.0])
BOB_SPIN = np.array([0.0, 3.0, 0.0])  # about a principal axis of the bob


def exact_theta(t: np.ndarray, theta0: float, w0: float) -> np.ndarray:
    """``theta(t) = 2 arcsin(k sn(K - w0 t | k^2))``, released from rest at ``theta0``
    (the helper of test_pendulum.py with ``w0`` as an argument)."""
    k2 = np.sin(theta0 / 2.0) ** 2
    sn = ellipj(ellipk(k2) - w0 * t, k2)[0]
    return 2.0 * np.arcsin(np.sqrt(k2) * sn)


def rod_pendulum(theta0: float = np.pi / 2) -> frylinks.System:
    """A bob on a rigid link from ``PIVOT``, released from rest at ``theta0`` from the
    downward vertical in the xz plane, spinning about its own y axis."""
    s = frylinks.System(gravity=GRAVITY, name="rigid-link-pendulum")
    s.ground.add_node("pivot", position=PIVOT, orientation={"quaternion": wxyz(R_PIVOT)})
    start = PIVOT + L_ROD * np.array([np.sin(theta0), 0.0, -np.cos(theta0)])
    s.add_body("bob", mass=M_BOB, inertia=[0.01, 0.02, 0.03], position=start,
               angular_velocity=BOB_SPIN)
    s.add_link("rod", "rigid_link", master="ground.pivot", slave="bob")
    return s


def check_rod(ds: xr.Dataset, theta0: float, record: Callable[[str, object], None]) -> None:
    t = ds.time.values
    w0 = np.sqrt(G / L_ROD)
    theta = exact_theta(t, theta0, w0)
    x = ds.body_position.sel(body="bob").values - PIVOT
    exact = L_ROD * np.stack([np.sin(theta), np.zeros_like(t), -np.cos(theta)], axis=1)
    pos_err = float(np.abs(x - exact).max())
    tension = M_BOB * G * (3.0 * np.cos(theta) - 2.0 * np.cos(theta0))
    force = ds.link_reaction_force.sel(link="rod").values   # master axes
    expected = R_PIVOT.inv().apply(-tension[:, None] * exact / L_ROD)
    force_err = float(np.abs(force - expected).max())
    spin_err = float(np.abs(ds.body_angular_velocity.sel(body="bob").values - BOB_SPIN).max())
    record("position_error_m", pos_err)
    record("tension_error_N", force_err)
    record("spin_error_rad_s", spin_err)
    assert pos_err < 1e-8
    assert force_err < 1e-7 * M_BOB * G
    assert spin_err < 1e-12


def test_rigid_link_pendulum_is_the_simple_pendulum(record_property: Callable) -> None:
    """1.6 s from 90 degrees (more than half a period): the bob's position on the exact
    elliptic solution with ``w0 = sqrt(g / L)``, the reaction the rod tension along the
    rod; the length (default: the distance at the start) is kept at round-off."""
    ds = rod_pendulum().run(t_end=1.6, dt=1e-3)
    check_rod(ds, np.pi / 2, record_property)
    length = np.linalg.norm(ds.body_position.sel(body="bob").values - PIVOT, axis=1)
    assert np.abs(length - L_ROD).max() < 1e-13


def test_rigid_link_matches_the_revolute_pendulum(record_property: Callable) -> None:
    """The same point-mass pendulum on a revolute link (bob welded to a hinge at the
    pivot, its inertia about the hinge axis made negligible) and on a rigid link follow
    the same curve: the rigid link is the revolute pendulum with ``I_p = m L^2``. The
    revolute body's own inertia ``I_axis`` enlarges its ``I_p``; the exact solution with
    each ``I_p`` is met by each run."""
    i_axis = 1e-3
    s = frylinks.System(gravity=GRAVITY, name="revolute-twin")
    s.ground.add_node("hinge", position=PIVOT, orientation={"axis": [1, 0, 0],
                                                           "angle_deg": 90})
    body = s.add_body("bob", mass=M_BOB, inertia=[i_axis, i_axis, i_axis],
                      position=PIVOT + np.array([L_ROD, 0.0, 0.0]))
    body.add_node("hinge", position=[-L_ROD, 0.0, 0.0],
                  orientation={"axis": [1, 0, 0], "angle_deg": 90})
    s.add_link("hinge", "revolute", master="ground.hinge", slave="bob.hinge")
    t_end = 0.8
    rev = s.run(t_end=t_end, dt=1e-3)
    rod = rod_pendulum().run(t_end=t_end, dt=1e-3)
    t = rev.time.values
    i_p = i_axis + M_BOB * L_ROD**2
    for ds, ip in ((rev, i_p), (rod, M_BOB * L_ROD**2)):
        theta = exact_theta(t, np.pi / 2, np.sqrt(M_BOB * G * L_ROD / ip))
        x = ds.body_position.sel(body="bob").values - PIVOT
        err = float(np.abs(np.arctan2(x[:, 0], -x[:, 2]) - theta).max())
        record_property(f"{ds.attrs['title']}_angle_error_rad", err)
        assert err < 1e-8


def test_conical_pendulum(record_property: Callable) -> None:
    """Steady conical motion at cone angle alpha: ``Omega^2 = g / (L cos(alpha))``, the
    bob on its circle at constant height, tension ``m g / cos(alpha)``."""
    alpha = np.radians(40.0)
    omega = np.sqrt(G / (L_ROD * np.cos(alpha)))
    radius = L_ROD * np.sin(alpha)
    s = frylinks.System(gravity=GRAVITY, name="conical-pendulum")
    s.ground.add_node("pivot", position=PIVOT, orientation={"quaternion": wxyz(R_PIVOT)})
    s.add_body("bob", mass=M_BOB, inertia=[0.01, 0.01, 0.01],
               position=PIVOT + np.array([radius, 0.0, -L_ROD * np.cos(alpha)]),
               velocity=[0.0, omega * radius, 0.0])
    s.add_link("rod", "rigid_link", master="ground.pivot", slave="bob", length=L_ROD)
    ds = s.run(t_end=round(np.pi / omega, 3), dt=1e-3)  # half a turn
    t = ds.time.values
    x = ds.body_position.sel(body="bob").values - PIVOT
    exact = np.stack([radius * np.cos(omega * t), radius * np.sin(omega * t),
                      np.full_like(t, -L_ROD * np.cos(alpha))], axis=1)
    pos_err = float(np.abs(x - exact).max())
    tension = np.linalg.norm(ds.link_reaction_force.sel(link="rod").values, axis=1)
    t_err = float(np.abs(tension - M_BOB * G / np.cos(alpha)).max())
    record_property("position_error_m", pos_err)
    record_property("tension_error_N", t_err)
    assert pos_err < 1e-9
    assert t_err < 1e-9


@pytest.mark.slow
def test_rigid_link_pendulum_ten_seconds(record_property: Callable) -> None:
    """Slow twin: 10 s (about 5.5 periods)."""
    ds = rod_pendulum().run(t_end=10.0, dt=1e-3, every=10)
    check_rod(ds, np.pi / 2, record_property)


# ------------------------------------------------------------------------- fix_direction

R_PLANE = Rotation.from_euler("xyz", [25.0, 15.0, 0.0], degrees=True)
ORIGIN = np.array([0.0, 1.0, 0.5])
P0 = np.array([0.3, -0.4])
U0 = np.array([1.5, 0.7])
OMEGA_BALL = np.array([1.0, -2.0, 0.5])   # isotropic inertia: any axis is principal
M_BALL = 0.7


def test_fix_direction_free_sliding_in_an_inclined_plane(record_property: Callable) -> None:
    """1 s: the point stays in the master node's xy plane and slides on the exact
    parabola ``p0 + u0 t + g_t t^2 / 2``; the reaction is normal, ``-m g_z``, with zero
    tangential components; the ball spins freely."""
    s = frylinks.System(gravity=GRAVITY, name="fix-direction")
    s.ground.add_node("plane", position=ORIGIN, orientation={"quaternion": wxyz(R_PLANE)})
    s.add_body("ball", mass=M_BALL, inertia=[0.02, 0.02, 0.02],
               position=ORIGIN + R_PLANE.apply([*P0, 0.0]),
               velocity=R_PLANE.apply([*U0, 0.0]), angular_velocity=OMEGA_BALL)
    s.add_link("plane", "fix_direction", master="ground.plane", slave="ball")
    ds = s.run(t_end=1.0, dt=1e-3)
    t = ds.time.values
    g = R_PLANE.inv().apply(GRAVITY)
    d = ds.link_displacement.sel(link="plane").values
    exact = P0 + np.outer(t, U0) + 0.5 * np.outer(t * t, g[:2])
    force = ds.link_reaction_force.sel(link="plane").values
    errors = {
        "in_plane_error_m": np.abs(d[:, :2] - exact).max(),
        "normal_offset_m": np.abs(d[:, 2]).max(),
        "normal_reaction_error_N": np.abs(force[:, 2] + M_BALL * g[2]).max(),
        "tangential_reaction_N": np.abs(force[:, :2]).max(),
        "spin_error_rad_s": np.abs(ds.body_angular_velocity.sel(body="ball").values
                                   - OMEGA_BALL).max(),
    }
    for name, value in errors.items():
        record_property(name, float(value))
    assert errors["in_plane_error_m"] < 1e-12
    assert errors["normal_offset_m"] < 1e-14
    assert errors["normal_reaction_error_N"] < 1e-12
    assert errors["tangential_reaction_N"] < 1e-13
    assert errors["spin_error_rad_s"] < 1e-12
    assert abs(g[2]) > 1.0 and np.abs(g[:2]).min() > 1.0  # the incline is exercised


# ----------------------------------------------------------------------------- fix_point

L_ARM = 0.4
M_ARM = 2.0
I_ARM = [0.03, 0.05, 0.04]   # principal; the swing is about body y


def test_fix_point_compound_pendulum(record_property: Callable) -> None:
    """A body held at a point ``L`` from its COG, released from rest with the COG level
    with the point: it swings in a principal plane exactly as the revolute compound
    pendulum, ``theta(t) = 2 arcsin(k sn(K - w0 t))`` with ``w0^2 = m g L / I_p``,
    ``I_p = I_y + m L^2``; the point stays put (the reaction holds it)."""
    s = frylinks.System(gravity=GRAVITY, name="fix-point")
    s.ground.add_node("nail", position=PIVOT)
    body = s.add_body("arm", mass=M_ARM, inertia=I_ARM,
                      position=PIVOT + np.array([L_ARM, 0.0, 0.0]))
    body.add_node("hole", position=[-L_ARM, 0.0, 0.0])
    s.add_link("nail", "fix_point", master="ground.nail", slave="arm.hole")
    ds = s.run(t_end=1.2, dt=1e-3)
    t = ds.time.values
    i_p = I_ARM[1] + M_ARM * L_ARM**2
    theta = exact_theta(t, np.pi / 2, np.sqrt(M_ARM * G * L_ARM / i_p))
    x = ds.body_position.sel(body="arm").values - PIVOT
    exact = L_ARM * np.stack([np.sin(theta), np.zeros_like(t), -np.cos(theta)], axis=1)
    pos_err = float(np.abs(x - exact).max())
    point_err = float(np.abs(ds.link_displacement.sel(link="nail", dof=["tx", "ty", "tz"])
                             ).max())
    record_property("position_error_m", pos_err)
    record_property("point_drift_m", point_err)
    assert pos_err < 1e-8
    assert point_err < 1e-13
