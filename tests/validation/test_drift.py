"""Constraint drift over many steps, and a closed four-bar linkage (redundant constraints).

Exact references:

* an ideal joint keeps its nodes together and, for a revolute link, the master and slave
  node z axes parallel; quaternions are unit. Errors must stay at round-off (1e-10 m or
  rad, 1e-12 for the quaternion norm) however many steps are taken, and the energy of a
  conservative system stays constant (up to the integrator's truncation error);
* a four-bar (crank ``a``, coupler ``b``, rocker ``c``, ground ``d``; Grashof
  crank-rocker) has one DOF: given the crank angle ``t2`` the rocker angle is, in closed
  form, ``t4 = beta + acos((c^2 + e^2 - b^2) / (2 c e))`` with ``e``, ``beta`` the
  distance and direction from the rocker pivot D to the crank pin B, and the coupler
  angle ``t3`` the direction B -> C. Angular rates: ``w3 = -a w2 sin(t2 - t4) /
  (b sin(t3 - t4))``, ``w4 = a w2 sin(t2 - t3) / (c sin(t4 - t3))``. Its four revolute
  links give 20 constraint rows on 18 body DOFs for 1 mechanism DOF: 3 are redundant.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr

import frylinks

G = 9.81


class Probe:
    """Run observer (plugin hook) that sees the engine's raw state at every output."""

    def __init__(self) -> None:
        self.worst_norm = 0.0
        self.calls = 0

    @frylinks.hookimpl
    def frylinks_step_completed(self, system: object, t: float, state: object) -> None:
        q = state.q  # type: ignore[attr-defined]
        self.worst_norm = max(self.worst_norm, float(np.abs(np.linalg.norm(q, axis=1) - 1).max()))
        self.calls += 1


def observed(system: frylinks.System) -> Probe:
    probe = Probe()
    system.registry.register(probe, name="drift-probe", distribution="tests")
    return probe


def link_errors(ds: xr.Dataset, system: frylinks.System, frames: Callable
                ) -> tuple[float, float]:
    """Largest node gap [m] and, over revolute links, axis misalignment |z_m x z_s|."""
    gap = misalign = 0.0
    for link in system.links.values():
        pm, rm = frames(ds, link.master)
        ps, rs = frames(ds, link.slave)
        gap = max(gap, float(np.abs(ps - pm).max()))
        if link.type == "revolute":
            cross = np.cross(rm[:, :, 2], rs[:, :, 2])
            misalign = max(misalign, float(np.abs(cross).max()))
    return gap, misalign


# --- a pendulum on a tilted hinge ------------------------------------------------------

PIVOT = np.array([0.2, -0.1, 1.5])
HINGE_EULER = [30.0, 50.0, -20.0]
HINGE = np.array([-0.6, 0.2, 0.3])     # slave node relative to the COG (body axes = world)
INERTIA = [0.3, 0.2, 0.25, 0.02, -0.01, 0.03]
MASS = 2.0
SPIN = 4.0


def tilted_pendulum() -> tuple[frylinks.System, np.ndarray]:
    """Pendulum about a tilted hinge, started spinning at SPIN rad/s; and the hinge axis."""
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="tilted-pendulum")
    node = s.ground.add_node("pivot", position=PIVOT,
                             orientation={"euler_deg": HINGE_EULER, "sequence": "xyz"})
    w0 = SPIN * axis_of(node.orientation)
    cog = PIVOT - HINGE
    body = s.add_body("bob", mass=MASS, inertia=INERTIA, position=cog,
                      velocity=np.cross(w0, cog - PIVOT), angular_velocity=w0)
    body.add_node("hinge", position=HINGE, orientation={"quaternion": list(node.orientation)})
    s.add_link("hinge", "revolute", master="ground.pivot", slave="bob.hinge")
    return s, axis_of(node.orientation)


def axis_of(q: np.ndarray) -> np.ndarray:
    """The z axis of the frame of quaternion ``q`` = [w, x, y, z]."""
    w, x, y, z = q
    return np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])


def pendulum_energy(ds: xr.Dataset, axis: np.ndarray) -> np.ndarray:
    """Exact invariant of the hinge: I_p w^2 / 2 + m g z, I_p about the hinge axis."""
    xx, yy, zz, xy, xz, yz = INERTIA
    ib = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    # the body turns about the fixed axis, so axis^T I_w axis is constant: use t = 0
    r_perp = -HINGE - np.dot(-HINGE, axis) * axis
    i_p = axis @ ib @ axis + MASS * r_perp @ r_perp
    w = ds.body_angular_velocity.sel(body="bob").values @ axis
    z = ds.body_position.sel(body="bob").values[:, 2]
    return 0.5 * i_p * w * w + MASS * G * z


def check_pendulum_drift(steps: int, frames: Callable, record: Callable) -> None:
    system, axis = tilted_pendulum()
    probe = observed(system)
    ds = system.run(t_end=steps * 1e-3, dt=1e-3, every=100)
    assert ds.attrs["status"] == "completed"
    assert probe.calls == steps // 100 + 1
    gap, misalign = link_errors(ds, system, frames)
    energy = pendulum_energy(ds, axis)
    e_rel = float(np.abs(energy - energy[0]).max() / np.abs(energy).max())
    for name, value in [("max_node_gap_m", gap), ("max_axis_misalignment", misalign),
                        ("max_quaternion_norm_error", probe.worst_norm),
                        ("max_energy_error_rel", e_rel), ("steps", steps)]:
        record(name, value)
    assert gap < 1e-10
    assert misalign < 1e-10
    assert probe.worst_norm < 1e-12
    assert e_rel < 1e-8


def test_pendulum_drift(frames: Callable, record_property: Callable) -> None:
    """1e4 rk4 steps (10 s) on a tilted hinge: joint at round-off, energy exact."""
    check_pendulum_drift(10_000, frames, record_property)


@pytest.mark.slow
def test_pendulum_drift_long(frames: Callable, record_property: Callable) -> None:
    """Slow twin: 1e5 rk4 steps (100 s)."""
    check_pendulum_drift(100_000, frames, record_property)


# --- a closed four-bar linkage ---------------------------------------------------------

A, B, C, D = 0.2, 0.6, 0.5, 0.7        # crank, coupler, rocker, ground
MASSES = {"crank": 1.0, "coupler": 2.0, "rocker": 1.5}
LENGTHS = {"crank": A, "coupler": B, "rocker": C}
T2_0, W2_0 = np.radians(60.0), 8.0


def rocker_and_coupler(t2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact t3 (coupler) and t4 (rocker) for the crank angle t2 (the assembly branch
    of the initial state; a crank-rocker never leaves it)."""
    bx, by = A * np.cos(t2), A * np.sin(t2)
    e = np.hypot(bx - D, by)
    beta = np.arctan2(by, bx - D)
    t4 = beta + np.arccos((C * C + e * e - B * B) / (2 * C * e))
    t3 = np.arctan2(C * np.sin(t4) - by, D + C * np.cos(t4) - bx)
    return t3, t4


def coupler_rocker_rates(t2: np.ndarray, t3: np.ndarray, t4: np.ndarray, w2: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Exact w3, w4 from the derivative of the loop closure."""
    w3 = -A * w2 * np.sin(t2 - t4) / (B * np.sin(t3 - t4))
    w4 = A * w2 * np.sin(t2 - t3) / (C * np.sin(t4 - t3))
    return w3, w4


def four_bar() -> frylinks.System:
    """Four-bar in the x-y plane (gravity -y), hinges along z, crank spun at W2_0."""
    assert min(A, B, C, D) + max(A, B, C, D) < sum((A, B, C, D)) - min(A, B, C, D) - max(
        A, B, C, D), "Grashof"
    t3, t4 = rocker_and_coupler(np.array(T2_0))
    w3, w4 = coupler_rocker_rates(np.array(T2_0), t3, t4, np.array(W2_0))
    s = frylinks.System(gravity=[0.0, -G, 0.0], name="four-bar")
    s.ground.add_node("A")
    s.ground.add_node("D", position=[D, 0.0, 0.0])
    pin_b = A * np.array([np.cos(T2_0), np.sin(T2_0), 0.0])
    starts = {"crank": (np.zeros(3), T2_0, W2_0, np.zeros(3)),
              "coupler": (pin_b, float(t3), float(w3), W2_0 * A * perp(T2_0)),
              "rocker": (np.array([D, 0.0, 0.0]), float(t4), float(w4), np.zeros(3))}
    for name, (start, angle, rate, v_start) in starts.items():
        length, m = LENGTHS[name], MASSES[name]
        half = 0.5 * length * np.array([np.cos(angle), np.sin(angle), 0.0])
        body = s.add_body(name, mass=m, inertia=[1e-3 * m * length**2, m * length**2 / 12,
                                                 m * length**2 / 12],
                          position=start + half,
                          orientation={"axis": [0, 0, 1], "angle_deg": np.degrees(angle)},
                          velocity=v_start + 0.5 * length * rate * perp(angle),
                          angular_velocity=[0.0, 0.0, rate])
        body.add_node("p", position=[-0.5 * length, 0.0, 0.0])
        body.add_node("q", position=[0.5 * length, 0.0, 0.0])
    s.add_link("A", "revolute", master="ground.A", slave="crank.p")
    s.add_link("B", "revolute", master="crank.q", slave="coupler.p")
    s.add_link("C", "revolute", master="rocker.q", slave="coupler.q")
    s.add_link("D", "revolute", master="ground.D", slave="rocker.p")
    return s


def perp(angle: float) -> np.ndarray:
    return np.array([-np.sin(angle), np.cos(angle), 0.0])


def wrap(a: np.ndarray) -> np.ndarray:
    return (a + np.pi) % (2 * np.pi) - np.pi


def four_bar_energy(ds: xr.Dataset) -> np.ndarray:
    """Kinetic plus potential energy (planar motion: rotation about z only)."""
    total = np.zeros(ds.sizes["time"])
    for name, m in MASSES.items():
        v = ds.body_velocity.sel(body=name).values
        wz = ds.body_angular_velocity.sel(body=name, xyz="z").values
        izz = m * LENGTHS[name] ** 2 / 12
        y = ds.body_position.sel(body=name, xyz="y").values
        total += 0.5 * m * np.sum(v * v, axis=1) + 0.5 * izz * wz**2 + m * G * y
    return total


def check_four_bar(ds: xr.Dataset, record: Callable, energy_tol: float = 1e-6) -> None:
    """Positions, angles and rates of coupler and rocker vs the exact kinematics of the
    measured crank angle; energy constant.

    Tolerances: positions, angles and rates at round-off. Energy to ``energy_tol``:
    rk4's own truncation error, ~9e-7 at dt = 1 ms in the fast swing of the rocker
    (about 22 rad/s), 5e-8 at dt = 0.5 ms (fourth order).
    """
    t2 = ds.link_displacement.sel(link="A", dof="rz").values
    w2 = ds.body_angular_velocity.sel(body="crank", xyz="z").values
    t3, t4 = rocker_and_coupler(t2)
    w3, w4 = coupler_rocker_rates(t2, t3, t4, w2)
    e_t4 = float(np.abs(wrap(ds.link_displacement.sel(link="D", dof="rz").values - t4)).max())
    q = ds.body_orientation.values
    angle = dict(zip(ds.body.values, 2 * np.arctan2(q[..., 3], q[..., 0]).T, strict=True))
    e_t3 = float(np.abs(wrap(angle["coupler"] - t3)).max())
    pos = ds.body_position
    pin_b = A * np.stack([np.cos(t2), np.sin(t2)], axis=1)
    exact = {"crank": 0.5 * pin_b,
             "coupler": pin_b + 0.5 * B * np.stack([np.cos(t3), np.sin(t3)], axis=1),
             "rocker": np.array([D, 0.0]) + 0.5 * C * np.stack([np.cos(t4), np.sin(t4)], 1)}
    e_pos = max(float(np.abs(pos.sel(body=n, xyz=["x", "y"]).values - exact[n]).max())
                for n in exact)
    e_out = float(np.abs(pos.sel(xyz="z")).max())
    wz = ds.body_angular_velocity.sel(xyz="z")
    e_w = max(float(np.abs(wz.sel(body="coupler").values - w3).max()),
              float(np.abs(wz.sel(body="rocker").values - w4).max()))
    energy = four_bar_energy(ds)
    e_energy = float(np.abs(energy - energy[0]).max() / np.abs(energy).max())
    turns = float((t2[-1] - t2[0]) / (2 * np.pi))
    for name, value in [("max_rocker_angle_error_rad", e_t4),
                        ("max_coupler_angle_error_rad", e_t3),
                        ("max_cog_position_error_m", e_pos), ("max_out_of_plane_m", e_out),
                        ("max_rate_error_rad_s", e_w), ("max_energy_error_rel", e_energy),
                        ("crank_turns", turns)]:
        record(name, value)
    assert ds.attrs["status"] == "completed"
    assert abs(turns) > 0.9  # the crank goes round
    assert e_t4 < 1e-12
    assert e_t3 < 1e-12
    assert e_pos < 1e-12
    assert e_out < 1e-12
    assert e_w < 1e-11
    assert e_energy < energy_tol


def test_four_bar_kinematics(frames: Callable, record_property: Callable) -> None:
    """1 s (1000 rk4 steps): runs despite 3 redundant rows, exact one-DOF kinematics."""
    system = four_bar()
    probe = observed(system)
    ds = system.run(t_end=1.0, dt=1e-3, every=10)
    check_four_bar(ds, record_property)
    gap, misalign = link_errors(ds, system, frames)
    record_property("max_node_gap_m", gap)
    record_property("max_axis_misalignment", misalign)
    assert gap < 1e-12
    assert misalign < 1e-12
    assert probe.worst_norm < 1e-12


@pytest.mark.slow
def test_four_bar_drift_long(frames: Callable, record_property: Callable) -> None:
    """Slow: 1e5 rk4 steps (100 s, about 180 crank turns): no drift, exact kinematics.

    The energy is only checked to 1e-4: rk4 is not symplectic and its truncation error
    accumulates, ~2.5e-7 per crank turn at dt = 1 ms (measured 4.6e-5 after 100 s;
    5.4e-6 after 10 s, 3.1e-7 at dt = 0.5 ms: fourth order, so not a constraint effect).
    """
    system = four_bar()
    probe = observed(system)
    ds = system.run(t_end=100.0, dt=1e-3, every=100)
    check_four_bar(ds, record_property, energy_tol=1e-4)
    gap, misalign = link_errors(ds, system, frames)
    record_property("max_node_gap_m", gap)
    record_property("max_axis_misalignment", misalign)
    record_property("max_quaternion_norm_error", probe.worst_norm)
    assert gap < 1e-10
    assert misalign < 1e-10
    assert probe.worst_norm < 1e-12


def test_four_bar_velocity_constraints_at_round_off(record_property: Callable) -> None:
    """After each step's projection the velocities satisfy the constraints exactly, so
    the locked components of ``link_velocity`` (tx ty tz rx ry of each revolute link)
    are at round-off (a projection with the Jacobian of the positions before the last
    Newton correction left ~2e-9 here)."""
    ds = four_bar().run(t_end=0.5, dt=1e-3, every=10)
    locked = float(np.abs(ds.link_velocity.sel(dof=["tx", "ty", "tz", "rx", "ry"])).max())
    record_property("max_locked_velocity", locked)
    assert locked < 1e-12


def test_four_bar_energy_reference_integrator(record_property: Callable) -> None:
    """With the adaptive reference integrator (dop853, rtol 1e-12) truncation error is
    negligible, so the exact invariant (energy) must hold to 1e-9 over 1 s."""
    ds = four_bar().run(t_end=1.0, dt=1e-2, integrator="dop853", rtol=1e-12, atol=1e-14)
    energy = four_bar_energy(ds)
    err = float(np.abs(energy - energy[0]).max() / np.abs(energy).max())
    record_property("max_energy_error_rel", err)
    assert err < 1e-9
