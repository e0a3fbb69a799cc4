"""Every shipped case file runs, and its results meet a physical relation they must.

The test is parametrised over ``cases/*.yaml``: a new case file is picked up on its own,
and it fails until a check is registered for it in :data:`CHECKS`. Each case runs on a
short horizon (``frylinks.run(path, t_end=...)``, a few hundred steps at most) and its
results are held against a relation computed here, independently of the engine: an
exact solution, a kinematic relation from the bodies' states, or Newton's law with the
forces recomputed from the positions. Each tolerance is stated with the reason for it.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
from scipy.integrate import cumulative_simpson, solve_ivp
from scipy.special import ellipk

import frylinks
from frylinks import Body, System
from frylinks.signals import SignalSpec

ROOT = Path(__file__).resolve().parents[1]
CASE_FILES = sorted((ROOT / "cases").glob("*.yaml"))

Check = Callable[[xr.Dataset, System], None]

#: Case name -> (short horizon [s], check of the results against the case's system).
CHECKS: dict[str, tuple[float, Check]] = {}
#: Case name -> the warnings its run gives on purpose (regular expressions): what the
#: case's published data are known to be (a dataset's numerical asymmetry, say).
EXPECTED_WARNINGS: dict[str, tuple[str, ...]] = {}


def check(name: str, t_end: float, warns: tuple[str, ...] = ()) -> Callable[[Check], Check]:
    """Register ``fn`` as the physics check of ``cases/<name>.yaml``, run to ``t_end``;
    ``warns``: the warnings the case gives on purpose."""
    def register(fn: Check) -> Check:
        CHECKS[name] = (t_end, fn)
        EXPECTED_WARNINGS[name] = warns
        return fn
    return register


# --- helpers: rotations, node kinematics and signals, written out here ----------------

def rotation_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(..., 3, 3)`` of unit quaternions ``[w, x, y, z]`` ``(..., 4)``."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def node_motion(ds: xr.Dataset, system: System, ref: str) -> tuple[np.ndarray, np.ndarray]:
    """World position and velocity ``(nt, 3)`` of node ``ref`` (``body.node``; ``body.``
    or a bare body name for its COG; ``ground.node``) from the bodies' states."""
    body_name, _, node_name = ref.partition(".")
    nt = ds.sizes["time"]
    if body_name in ("ground", "world"):
        p = system.ground.nodes[node_name].position
        return np.tile(p, (nt, 1)), np.zeros((nt, 3))
    body = system.bodies[body_name]
    a = body.nodes[node_name].position if node_name else np.zeros(3)
    x = ds.body_position.sel(body=body_name).values
    r = rotation_matrix(ds.body_orientation.sel(body=body_name).values) @ a
    w = ds.body_angular_velocity.sel(body=body_name).values
    return x + r, ds.body_velocity.sel(body=body_name).values + np.cross(w, r)


def signal(value: Any, t: np.ndarray) -> np.ndarray:
    """A case-file input (number or signal) at times ``t``."""
    if not isinstance(value, SignalSpec):
        return np.full_like(t, float(value))
    p = value.params
    if value.type == "sine":
        return p["offset"] + p["amplitude"] * np.sin(p["omega"] * t + np.radians(p["phase_deg"]))
    if value.type == "ramp":
        s = np.clip((t - p["t_start"]) / (p["t_end"] - p["t_start"]), 0.0, 1.0)
        return p["initial"] + (p["final"] - p["initial"]) * s
    if value.type == "linear_spline":
        points = np.asarray(p["points"], dtype=float)
        return np.interp(t, points[:, 0], points[:, 1])
    raise NotImplementedError(f"signal type {value.type!r} in a case check")


def world_inertia(ds: xr.Dataset, body: Body) -> np.ndarray:
    """Inertia about the COG in world axes ``(nt, 3, 3)``."""
    r = rotation_matrix(ds.body_orientation.sel(body=body.name).values)
    return r @ body.inertia @ np.swapaxes(r, 1, 2)


def newton_euler_residual(ds: xr.Dataset, body: Body, force: np.ndarray,
                          torque: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``m a - (F + m g)`` and ``I alpha + w x I w - T`` ``(nt, 3)`` of a body, with the
    external force ``F`` and torque ``T`` about its COG given in world axes."""
    a = ds.body_acceleration.sel(body=body.name).values
    alpha = ds.body_angular_acceleration.sel(body=body.name).values
    w = ds.body_angular_velocity.sel(body=body.name).values
    inertia = world_inertia(ds, body)
    iw = np.einsum("nij,nj->ni", inertia, w)
    return (body.mass * a - force - body.mass * g,
            np.einsum("nij,nj->ni", inertia, alpha) + np.cross(w, iw) - torque)


def forced_oscillator(t: np.ndarray, m: float, c: float, k: float, f0: float,
                      omega: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``x`` and ``x'`` of ``m x'' + c x' + k x = f0 sin(omega t)`` from rest at 0
    (underdamped): the steady response plus the free oscillation that cancels it at 0."""
    wn = np.sqrt(k / m)
    zeta = c / (2.0 * np.sqrt(k * m))
    wd = wn * np.sqrt(1.0 - zeta**2)
    amp = f0 / np.hypot(k - m * omega**2, c * omega)
    lag = np.arctan2(c * omega, k - m * omega**2)
    c1 = amp * np.sin(lag)
    c2 = (zeta * wn * c1 - amp * omega * np.cos(lag)) / wd
    decay = np.exp(-zeta * wn * t)
    free = decay * (c1 * np.cos(wd * t) + c2 * np.sin(wd * t))
    free_rate = decay * ((c2 * wd - zeta * wn * c1) * np.cos(wd * t)
                         - (c1 * wd + zeta * wn * c2) * np.sin(wd * t))
    return (amp * np.sin(omega * t - lag) + free,
            amp * omega * np.cos(omega * t - lag) + free_rate)


def line_tensions(ds: xr.Dataset, system: System, name: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Tension ``f = k (L - rest) + c L'`` ``(nt,)`` and unit vector ``e`` master node ->
    slave node ``(nt, 3)`` of line force ``name``, from the bodies' states."""
    f = system.forces[name]
    pm, vm = node_motion(ds, system, f.nodes[0].path)
    ps, vs = node_motion(ds, system, f.nodes[1].path)
    d = ps - pm
    length = np.linalg.norm(d, axis=1)
    e = d / length[:, None]
    rate = np.einsum("ni,ni->n", e, vs - vm)
    tension = (f.params.get("stiffness", 0.0) * (length - f.params.get("rest", 0.0))
               + f.params.get("damping", 0.0) * rate)
    return tension, e


def assert_line_forces(ds: xr.Dataset, system: System, names: list[str], scale: float) -> None:
    """The reported ``force_force`` of each line (on its master node) is ``+f e`` and its
    tension output is ``f``, with ``f`` and ``e`` recomputed from the positions.

    Tolerance ``1e-9 scale``: the same arithmetic in another order (round-off).
    """
    for name in names:
        tension, e = line_tensions(ds, system, name)
        np.testing.assert_allclose(ds.force_force.sel(force=name).values, tension[:, None] * e,
                                   rtol=0, atol=1e-9 * scale, err_msg=name)
        kind = system.forces[name].type
        own = ds[f"{kind}_force"].sel({f"{kind}_element": name}).values
        np.testing.assert_allclose(own, tension, rtol=0, atol=1e-9 * scale, err_msg=name)


# --- one check per case -----------------------------------------------------------------

@check("pendulum", t_end=1.1)
def pendulum(ds: xr.Dataset, system: System) -> None:
    """Half a swing takes the exact large-amplitude half period, and energy is conserved."""
    bob = system.bodies["bob"]
    pivot = system.ground.nodes["pivot"].position
    arm = bob.position - pivot
    length = float(np.linalg.norm(arm))
    g = float(np.linalg.norm(system.gravity))
    axis = rotation_matrix(system.ground.nodes["pivot"].orientation)[:, 2]
    # compound pendulum: inertia about the hinge axis; amplitude from the start position
    i_hinge = axis @ bob.inertia @ axis + bob.mass * length**2
    theta0 = np.arccos(-arm[2] / length)
    half_period = (2.0 * np.sqrt(i_hinge / (bob.mass * g * length))
                   * ellipk(np.sin(theta0 / 2.0) ** 2))  # 4 sqrt(I/mgL) K(k) / 2
    # the swing reverses where the angular velocity about the hinge axis crosses zero;
    # its second derivative vanishes there, so linear interpolation between samples
    # 0.01 s apart places it to O(dt^3) (measured: 7e-8 s off the exact time)
    t = ds.time.values
    omega = ds.body_angular_velocity.sel(body="bob").values
    w = omega @ axis
    i = np.flatnonzero(w[1:-1] * w[2:] <= 0.0)[0] + 1
    t_turn = t[i] - w[i] * (t[i + 1] - t[i]) / (w[i + 1] - w[i])
    assert abs(t_turn - half_period) < 1e-5, (t_turn, half_period)
    # energy: rk4 at dt = 0.01 s drifts by ~1e-9 of m g L over 110 steps (measured)
    v = ds.body_velocity.sel(body="bob").values
    iw = np.einsum("nij,nj->ni", world_inertia(ds, bob), omega)
    energy = (0.5 * bob.mass * np.einsum("ni,ni->n", v, v)
              + 0.5 * np.einsum("ni,ni->n", omega, iw)
              - bob.mass * ds.body_position.sel(body="bob").values @ system.gravity)
    np.testing.assert_allclose(energy, energy[0], rtol=0, atol=1e-8 * bob.mass * g * length)


def _pto_power(ds: xr.Dataset, system: System, link: str, dof: str) -> None:
    """``link_power`` is ``(K (g - r0) + B g') g'`` and ``link_spring_force`` is
    ``-(K (g - r0) + B g')`` on the PTO's one free DOF, at every sample (round-off)."""
    pto = system.links[link]
    k, b, r0 = pto.stiffness[0, 0], pto.damping[0, 0], pto.rest[0]
    g = ds.link_displacement.sel(link=link, dof=dof).values
    rate = ds.link_velocity.sel(link=link, dof=dof).values
    load = k * (g - r0) + b * rate
    scale = np.abs(load * rate).max()
    np.testing.assert_allclose(ds.link_power.sel(link=link).values, load * rate,
                               rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(ds.link_spring_force.sel(link=link, dof=dof).values, -load,
                               rtol=0, atol=1e-10 * np.abs(load).max())
    # the shared PTO power is the link's, the link a PTO as its spring-damper damps
    assert pto.damping[0, 0] > 0
    np.testing.assert_array_equal(ds.absorbed_power.sel(pto=link).values,
                                  ds.link_power.sel(link=link).values)


@check("heaving_buoy", t_end=3.0)
def heaving_buoy(ds: xr.Dataset, system: System) -> None:
    """Buoyancy cancels the weight, so the heave is the exact forced oscillation from
    rest of m z'' + B z' + K z = F sin(w t); the PTO power is the spring-damper's."""
    buoy = system.bodies["buoy"]
    pto = system.links["pto"]
    wave = system.forces["waves"].params["force"][2]
    t = ds.time.values
    z, _ = forced_oscillator(t, buoy.mass, pto.damping[0, 0], pto.stiffness[0, 0],
                             wave.params["amplitude"], wave.params["omega"])
    heave = ds.body_position.sel(body="buoy", xyz="z").values - buoy.position[2]
    # rk4 at w_n dt = 0.063: a global error of ~1e-7 m on a 0.3 m motion (measured)
    np.testing.assert_allclose(heave, z, rtol=0, atol=1e-6)
    _pto_power(ds, system, "pto", "tz")


@check("screw_jack", t_end=2.0)
def screw_jack(ds: xr.Dataset, system: System) -> None:
    """The nut rises pitch / 2 pi per radian of its turn (from its own orientation), and
    its turn follows the one-DOF equation (I_z + m h^2) th'' = T(t) - m g h - B th',
    h = pitch / 2 pi, solved here by scipy's adaptive integrator."""
    nut = system.bodies["nut"]
    thread = system.links["thread"]
    h = thread.params["pitch"] / (2.0 * np.pi)
    q = ds.body_orientation.sel(body="nut").values
    turn = np.unwrap(2.0 * np.arctan2(q[:, 3], q[:, 0]))
    rise = ds.body_position.sel(body="nut", xyz="z").values - nut.position[2]
    np.testing.assert_allclose(q[:, 1:3], 0.0, atol=1e-12)  # it turns about z only
    np.testing.assert_allclose(rise, h * turn, rtol=0, atol=1e-10)  # projection: round-off
    drive = system.forces["drive"].params["torque"][2]
    m, g, b = nut.mass, float(np.linalg.norm(system.gravity)), thread.damping[0, 0]
    inertia = nut.inertia[2, 2] + m * h * h

    def rhs(t: float, y: np.ndarray) -> list[float]:
        return [y[1], (signal(drive, np.array([t]))[0] - m * g * h - b * y[1]) / inertia]

    t = ds.time.values
    exact = solve_ivp(rhs, (0.0, t[-1]), [0.0, 0.0], t_eval=t, rtol=1e-11, atol=1e-13,
                      method="DOP853", max_step=0.05).y[0]
    # rk4's error, which goes as dt^4 and grows with the spin (0.24 rad a step at the end):
    # measured 2e-7 rad at 2 s (on 6.6 rad) and 1.3e-5 rad at 4 s (on 38 rad)
    np.testing.assert_allclose(turn, exact, rtol=1e-6, atol=1e-6)


@check("oswec_flap", t_end=6.0)
def oswec_flap(ds: xr.Dataset, system: System) -> None:
    """Buoyancy at the COG cancels the weight and its moment, so the pitch is the exact
    forced oscillation from rest of I th'' + B th' + K th = T sin(w t), I the inertia
    about the hinge axis (parallel axes); the PTO power is the spring-damper's."""
    flap = system.bodies["flap"]
    pto = system.links["pto"]
    hinge = pto.master
    axis = rotation_matrix(hinge.orientation)[:, 2]  # ground node: world axes
    arm = flap.position - hinge.position
    arm_normal = arm - (arm @ axis) * axis
    i_hinge = axis @ flap.inertia @ axis + flap.mass * arm_normal @ arm_normal
    torque = system.forces["waves"].params["torque"]
    (wave,) = [c for c in torque if isinstance(c, SignalSpec)]
    amplitude = np.array([wave.params["amplitude"] if c is wave else c for c in torque]) @ axis
    t = ds.time.values
    pitch, rate = forced_oscillator(t, i_hinge, pto.damping[0, 0], pto.stiffness[0, 0],
                                    amplitude, wave.params["omega"])
    # rk4 at w_n dt = 0.063: ~4e-8 rad on a 0.3 rad motion (measured)
    np.testing.assert_allclose(ds.link_displacement.sel(link="pto", dof="rz").values, pitch,
                               rtol=0, atol=1e-6)
    np.testing.assert_allclose(ds.link_velocity.sel(link="pto", dof="rz").values, rate,
                               rtol=0, atol=1e-6)
    _pto_power(ds, system, "pto", "rz")


@check("floater_lines", t_end=6.0)
def floater_lines(ds: xr.Dataset, system: System) -> None:
    """Line forces are k (L - rest) + c L' along the lines, from the positions; with them,
    buoyancy, the wave load and gravity, the buoy obeys Newton and Euler."""
    lines = ["line1", "line2", "line3"]
    buoy = system.bodies["buoy"]
    weight = buoy.mass * float(np.linalg.norm(system.gravity))
    assert_line_forces(ds, system, lines, scale=weight)
    t = ds.time.values
    force = np.zeros((t.size, 3))
    torque = np.zeros((t.size, 3))
    x = ds.body_position.sel(body="buoy").values
    for name in lines:
        tension, e = line_tensions(ds, system, name)
        fairlead, _ = node_motion(ds, system, system.forces[name].nodes[1].path)
        on_buoy = -tension[:, None] * e  # the line pulls the fairlead towards the anchor
        force += on_buoy
        torque += np.cross(fairlead - x, on_buoy)
    taut = ds.spring_damper_parallel_force.sel(spring_damper_parallel_element=lines)
    assert (taut > 0).all()  # taut throughout
    for name in ("buoyancy", "waves"):  # both on the COG: no moment
        f = system.forces[name].params["force"]
        force += np.stack([signal(c, t) for c in f], axis=1)
    lin, ang = newton_euler_residual(ds, buoy, force, torque, system.gravity)
    # round-off on forces of ~3e6 N and moments of ~1e7 N m
    np.testing.assert_allclose(lin, 0.0, atol=1e-8 * weight)
    np.testing.assert_allclose(ang, 0.0, atol=1e-8 * weight * 10.0)


@check("crane_vessel", t_end=4.0)
def crane_vessel(ds: xr.Dataset, system: System) -> None:
    """The vessel follows its prescribed motions exactly (driver points on their signals,
    no surge, pitch or yaw), the rope keeps its length, its tension lies along it, and
    the load obeys Newton and Euler under the rope tension and its weight."""
    t = ds.time.values
    for name in ("port", "starboard", "sway"):
        link = system.links[name]
        p, _ = node_motion(ds, system, link.slave.path)
        along = rotation_matrix(link.master.orientation)[:, 2]  # ground node: world axes
        np.testing.assert_allclose((p - link.master.position) @ along,
                                   signal(link.params["signal"], t), rtol=0, atol=1e-9,
                                   err_msg=name)
        np.testing.assert_allclose(ds.link_displacement.sel(link=name, dof="tz").values,
                                   signal(link.params["signal"], t), rtol=0, atol=1e-9)
    normal = rotation_matrix(system.links["beam_plane"].master.orientation)[:, 2]  # world x
    np.testing.assert_allclose(ds.body_position.sel(body="vessel").values @ normal, 0.0,
                               atol=1e-9)
    q = ds.body_orientation.sel(body="vessel").values
    np.testing.assert_allclose(np.cross(q[:, 1:], normal), 0.0, atol=1e-12)  # roll only
    assert np.abs(q[:, 1]).max() > 0.01  # ...and it does roll

    rope = system.links["rope"]
    tip, _ = node_motion(ds, system, rope.master.path)
    hook, _ = node_motion(ds, system, rope.slave.path)
    span = hook - tip
    length = np.linalg.norm(span, axis=1)
    np.testing.assert_allclose(length, length[0], rtol=0, atol=1e-9)  # projected: round-off
    # the reaction is reported in the tip node's axes: into world axes
    axes = rotation_matrix(q) @ rotation_matrix(rope.master.orientation)
    pull = np.einsum("nij,nj->ni", axes, ds.link_reaction_force.sel(link="rope").values)
    load = system.bodies["load"]
    weight = load.mass * float(np.linalg.norm(system.gravity))
    np.testing.assert_allclose(np.cross(pull, span / length[:, None]), 0.0, atol=1e-8 * weight)
    assert (np.einsum("ni,ni->n", pull, span) < 0).all()  # a tension: towards the tip
    arm = hook - ds.body_position.sel(body="load").values
    lin, ang = newton_euler_residual(ds, load, pull, np.cross(arm, pull), system.gravity)
    np.testing.assert_allclose(lin, 0.0, atol=1e-8 * weight)
    np.testing.assert_allclose(ang, 0.0, atol=1e-8 * weight)


@check("chain", t_end=3.0)
def chain(ds: xr.Dataset, system: System) -> None:
    """The chain starts in static equilibrium and hangs still until the clump weight
    comes (each mass's segment forces balance its weight, and the pulls on the two ends
    carry the chain's weight); throughout, segment forces are k (L - rest) + c L' from the
    positions, and every mass obeys Newton under them, gravity and the clump weight."""
    t = ds.time.values
    segments = sorted((n for n in system.forces if n.startswith("seg")), key=lambda n: int(n[3:]))
    masses = [system.forces[n].nodes[1].body for n in segments[:-1]]
    g = system.gravity
    total_weight = -sum(b.mass for b in masses) * g[2]
    assert_line_forces(ds, system, segments, scale=total_weight)
    clump = system.forces["clump"]
    clump_force = np.stack([signal(c, t) for c in clump.params["force"]], axis=1)
    tensions = [line_tensions(ds, system, n) for n in segments]
    for j, body in enumerate(masses):  # segment j ends on mass j, segment j + 1 starts there
        force = -tensions[j][0][:, None] * tensions[j][1] + tensions[j + 1][0][:, None] * \
            tensions[j + 1][1]
        if body is clump.nodes[0].body:
            force += clump_force
        lin, _ = newton_euler_residual(ds, body, force, np.zeros_like(force), g)
        # round-off on segment tensions of ~4e4 N
        np.testing.assert_allclose(lin, 0.0, atol=1e-8 * total_weight, err_msg=body.name)

    still = t < clump.params["force"][2].params["points"][1][0]  # before the clump comes
    assert still.sum() >= 10
    x = ds.body_position.sel(time=still).values
    # the start positions are the elastic catenary rounded to 1e-7 m: a segment's length
    # is off by up to ~2e-7 m, its tension by k 2e-7 = 0.4 N (measured: forces off by up
    # to 0.23 N on 5.4e3 N weights), so the masses move by less than 1e-6 m
    np.testing.assert_allclose(x, np.broadcast_to(x[0], x.shape), rtol=0, atol=1e-6)
    for j, body in enumerate(masses):
        balance = (-tensions[j][0][still, None] * tensions[j][1][still]
                   + tensions[j + 1][0][still, None] * tensions[j + 1][1][still]
                   + body.mass * g)
        np.testing.assert_allclose(balance, 0.0, atol=1.0, err_msg=body.name)  # N
    # pulls of the chain on its ends (force_force is on each segment's master node)
    on_bottom = ds.force_force.sel(force=segments[0]).values[still]
    on_top = -ds.force_force.sel(force=segments[-1]).values[still]
    np.testing.assert_allclose(-(on_bottom[:, 2] + on_top[:, 2]), total_weight,
                               rtol=0, atol=1.0)  # N
    horizontal = np.stack([ds.force_force.sel(force=n).values[still, 0] for n in segments])
    np.testing.assert_allclose(horizontal, horizontal[0, 0], rtol=0, atol=1.0)  # same in all


@check("power_matrix", t_end=10.0)  # its base case; the sweep: test_power_matrix_*
@check("point_absorber", t_end=10.0)
@check("point_absorber_pacwave", t_end=10.0)  # (its base case: PacWave's first sea state)
def point_absorber(ds: xr.Dataset, system: System) -> None:
    """Newton in heave with the hydrostatic and PTO forces recomputed from the positions,
    the excitation from the wave components and the dataset (the run interpolates its
    record: within the record's bound, 1e-6 of the sum of moduli), and the radiation force
    -A_inf a - conv; the memory part is the direct convolution of the impulse response
    with the velocity history (within the state-space fit); the probe's elevation is
    the sum of the components; the PTO power is the spring-damper's."""
    from frylinks_marine.datasets import load_database
    from frylinks_marine.radiation import impulse_response

    buoy = system.bodies["buoy"]
    params = system.forces["excitation"].params
    db = load_database(params["hydrodynamics"])
    env = system.settings["environment"]
    from frylinks_marine.environment import Environment

    waves = Environment(env, system.gravity).waves
    t = ds.time.values
    z = ds.body_position.sel(body="buoy", xyz="z").values
    v = ds.body_velocity.sel(body="buoy", xyz="z").values
    a = ds.body_acceleration.sel(body="buoy", xyz="z").values
    m, g = buoy.mass, float(np.linalg.norm(system.gravity))
    ramp = waves.ramp_factor(t)
    phases = np.exp(1j * (waves.phase[None, :] - np.outer(t, waves.omega)))
    elevation = ramp * (phases.real @ waves.amplitude)
    np.testing.assert_allclose(ds.environment_wave_elevation.sel(wave_probe="buoy").values,
                               elevation, rtol=0, atol=1e-12)
    X = db.excitation_at(waves.omega, 0.0)[:, 2]
    exact = ramp * np.real(phases @ (waves.amplitude * X))
    # the run interpolates the sum's record: within 1e-6 of the sum of the moduli
    excitation = ds.force_force.sel(force="excitation", xyz="z").values
    np.testing.assert_allclose(excitation, exact, rtol=0,
                               atol=1e-6 * np.abs(waves.amplitude * X).sum())
    pto = system.links["pto"]
    z0 = buoy.position[2]
    f_pto = -pto.stiffness[0, 0] * (z - z0) - pto.damping[0, 0] * v
    f_hs = m * g - db.hydrostatic_stiffness[2, 2] * (z - z0)
    f_rad = ds.force_force.sel(force="radiation", xyz="z").values
    residual = m * a - (f_hs + f_pto + excitation + f_rad - m * g)
    np.testing.assert_allclose(residual, 0.0, atol=1e-8 * m * g)
    # the radiation force: -A_inf a minus the convolution of K with the velocity
    dt = t[1] - t[0]
    K = impulse_response(db, t)[:, 2, 2]
    conv = np.array([np.trapezoid(K[: i + 1][::-1] * v[: i + 1], dx=dt) for i in range(len(t))])
    memory = ds.radiation_memory_force.sel(radiation_element="radiation", dof="tz").values
    np.testing.assert_allclose(f_rad, -db.added_mass_inf[2, 2] * a + memory,
                               rtol=1e-9, atol=1e-6 * m * g)
    # trapezoid on the 0.1 s samples and the 2 % state-space fit: a few % of the peak
    assert np.abs(memory + conv).max() < 0.04 * np.abs(conv).max()
    _pto_power(ds, system, "pto", "tz")


def _airy(a: float, period: float, depth: float, phase: float, p: np.ndarray,
          t: np.ndarray, ramp: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Finite-depth Airy velocity, acceleration ``(nt, 3)`` and elevation above ``p``
    ``(nt, 3)`` points, waves towards +x, written out here (dispersion by brentq)."""
    from scipy.optimize import brentq

    w = 2 * np.pi / period
    k = brentq(lambda k: 9.81 * k * np.tanh(k * depth) - w**2, 1e-9, 10.0, xtol=1e-15)
    r = np.where(t < ramp, 0.5 * (1 - np.cos(np.pi * t / ramp)), 1.0)
    dr = np.where(t < ramp, 0.5 * np.pi / ramp * np.sin(np.pi * t / ramp), 0.0)
    theta = k * p[:, 0] - w * t + phase
    z = np.minimum(p[:, 2], 0.0)
    ch = np.cosh(k * (z + depth)) / np.sinh(k * depth)
    sh = np.sinh(k * (z + depth)) / np.sinh(k * depth)
    u = np.stack([a * w * ch * np.cos(theta), 0 * t, a * w * sh * np.sin(theta)], axis=1)
    du = np.stack([a * w**2 * ch * np.sin(theta), 0 * t, -a * w**2 * sh * np.cos(theta)],
                  axis=1)
    return r[:, None] * u, r[:, None] * du + dr[:, None] * u, r * a * np.cos(theta)


#: The warnings of the Capytaine RM3 data as published: A_inf's float surge-pitch terms
#: 15 % apart, the spar's heave damping coarse near 0.64 rad/s; and the note that its
#: memory (no fit within 2 % up to 30 states) is convolved directly.
RM3_DATA = (".*infinite-frequency added mass is not symmetric", ".*changes too fast",
            ".*convolved directly")


@check("point_absorber_nonlinear", t_end=2.5)
def point_absorber_nonlinear(ds: xr.Dataset, system: System) -> None:
    """The buoyancy from the mesh, at each sample, is the exact sphere cap's
    ``rho g pi h^2 (3 R - h) / 3`` (``h`` the sphere's immersion, from the body's
    position), within 1 % of the half sphere's: the 48 x 24 mesh is 0.5 % short of the
    sphere's volume; no torque about the COG (the sphere's centre is on its axis)."""
    rho, g, radius = 1000.0, 9.81, 5.0
    z_centre = ds.body_position.sel(body="buoy").values[:, 2] + 2.0
    h = np.clip(radius - z_centre, 0.0, 2 * radius)
    exact = rho * g * np.pi * h**2 * (3 * radius - h) / 3
    f = ds.force_force.sel(force="hydrostatics").values
    half = rho * g * 2 / 3 * np.pi * radius**3
    assert np.abs(f[:, 2] - exact).max() < 0.01 * half
    assert np.abs(f[:, :2]).max() < 1e-6 * half
    assert np.abs(ds.force_torque.sel(force="hydrostatics").values).max() < 1e-6 * half * radius
    # it moves: the steep wave heaves it (6 cm in the first 2.5 s of the ramp)
    assert np.ptp(z_centre) > 0.02


@check("rm3", t_end=6.0, warns=RM3_DATA)
@check("rm3_irregular", t_end=6.0, warns=RM3_DATA)
def rm3(ds: xr.Dataset, system: System) -> None:
    """The links hold: the spar stays in the x-z plane (no sway, roll or yaw) and the
    float slides along the spar's axis, turned as the spar is; the PTO slide is the
    float's displacement along that axis from where it started; the PTO force is B v,
    its power B v^2 and its energy the integral of the power; the probe's elevation is
    the regular wave with WEC-Sim's half-cosine ramp."""
    x_f = ds.body_position.sel(body="float").values
    x_s = ds.body_position.sel(body="spar").values
    q_f = ds.body_orientation.sel(body="float").values
    q_s = ds.body_orientation.sel(body="spar").values
    np.testing.assert_allclose(x_s[:, 1], 0.0, atol=1e-12)
    att = ds.body_attitude.sel(body="spar").values
    np.testing.assert_allclose(att[:, [0, 2]], 0.0, atol=1e-9)
    np.testing.assert_allclose(np.abs(np.sum(q_f * q_s, axis=1)), 1.0, rtol=0, atol=1e-12)
    axis = rotation_matrix(q_s)[:, :, 2]                      # spar z axis, world
    d = x_f - x_s - (rotation_matrix(q_s) @ np.array([0.0, 0.0, 21.29 - 0.72]))
    slide = np.sum(d * axis, axis=1)
    np.testing.assert_allclose(d, slide[:, None] * axis, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ds.pto_damper_position.values[:, 0], slide, rtol=0,
                               atol=1e-9)
    v = ds.pto_damper_velocity.values[:, 0]
    b = system.forces["pto"].params["damping"]
    np.testing.assert_allclose(ds.pto_damper_force.values[:, 0], b * v, rtol=1e-12,
                               atol=1e-6)
    p = ds.pto_damper_power.values[:, 0]
    np.testing.assert_allclose(p, b * v**2, rtol=1e-12, atol=1e-6)
    # the one place power is read, whatever supplies it: the pto_damper force here, the
    # prismatic slide (no spring-damper) no PTO
    assert list(ds.pto.values) == ["pto"] and "electrical_power" not in ds
    np.testing.assert_array_equal(ds.absorbed_power.sel(pto="pto").values, p)
    t = ds.time.values
    energy = cumulative_simpson(p, x=t, initial=0.0)
    np.testing.assert_allclose(ds.pto_damper_energy.values[:, 0], energy, rtol=1e-3,
                               atol=1e-4 * energy[-1])
    ramp = np.where(t < 100.0, (1 - np.cos(np.pi * t / 100.0)) / 2, 1.0)
    waves = system.settings["environment"]["waves"]
    if waves["type"] == "regular":
        eta = 1.25 * np.cos(2 * np.pi * t / 8.0)
    else:  # the components' sum at the origin
        from frylinks_marine.environment import Environment

        field = Environment(system.settings["environment"], system.gravity).waves
        eta = np.cos(np.outer(t, field.omega) - field.phase) @ field.amplitude
    np.testing.assert_allclose(ds.environment_wave_elevation.sel(wave_probe="rm3").values,
                               ramp * eta, rtol=0, atol=1e-12)
    assert np.abs(slide).max() > 1e-4  # the float moves on the spar


@check("rm3_hydraulic", t_end=6.0, warns=RM3_DATA)
def rm3_hydraulic(ds: xr.Dataset, system: System) -> None:
    """The hydraulic PTO's force is A (p_h - p_l) tanh(v / v_s) from its own pressures,
    each pressure the polytropic gas law at its fluid volume, the pumped flow A v
    tanh(v / v_s); the energy taken equals the electrical energy, the losses and the
    change of the stored energy (gas and shaft) to the integration's error."""
    prm = system.forces["pto"].params
    el = {"pto_hydraulic_element": 0}
    out = {k[len("pto_hydraulic_"):]: ds[k].isel(el).values for k in ds.data_vars
           if k.startswith("pto_hydraulic_")}
    n = prm["polytropic_index"]
    for side in ("high", "low"):
        total, pre = prm[f"{side}_volume"], prm[f"{side}_precharge"]
        np.testing.assert_allclose(out[f"{side}_pressure"],
                                   pre * (total / (total - out[f"{side}_fluid"])) ** n,
                                   rtol=1e-12)
    assert out["high_pressure"][0] == pytest.approx(prm["high_pressure"], rel=1e-12)
    smooth = np.tanh(out["velocity"] / prm["smoothing_velocity"])
    area = prm["piston_area"]
    np.testing.assert_allclose(out["force"], area * (out["high_pressure"]
                                                      - out["low_pressure"]) * smooth,
                               rtol=1e-12, atol=1e-6)
    np.testing.assert_allclose(out["flow"], area * out["velocity"] * smooth, rtol=1e-12,
                               atol=1e-15)
    balance = (out["energy"] - out["electrical_energy"] - out["loss_energy"]
               - (out["stored_energy"] - out["stored_energy"][0]))
    assert np.abs(balance).max() < 1e-6 * max(out["energy"][-1], 1.0) + 1e-3
    assert out["electrical_energy"][-1] > 0 and np.ptp(out["position"]) > 1e-4


@check("point_absorber_storm", t_end=20.0)
def point_absorber_storm(ds: xr.Dataset, system: System) -> None:
    """The end stops: beyond a limit the contact force is max(0, k d + c d') (pushing
    back, never pulling), zero inside the stroke; the penetration is the PTO's stroke
    beyond the limit; the storm reaches a stop within 20 s."""
    prm = system.forces["stops"].params
    el = {"end_stop_element": 0}
    x = ds.end_stop_position.isel(el).values
    v = ds.end_stop_velocity.isel(el).values
    f = ds.end_stop_force.isel(el).values
    depth = np.maximum(x - prm["upper"], 0.0) + np.maximum(prm["lower"] - x, 0.0)
    np.testing.assert_allclose(ds.end_stop_penetration.isel(el).values, depth, atol=1e-12)
    k, c = prm["stiffness"], prm["damping"]
    expected = np.where(x > prm["upper"], np.maximum(0.0, k * depth + c * v),
                        np.where(x < prm["lower"], -np.maximum(0.0, k * depth - c * v), 0.0))
    np.testing.assert_allclose(f, expected, rtol=1e-12, atol=1e-6)
    assert np.abs(f).max() > 1e5  # an impact
    # the stop's position is the PTO link's stroke
    np.testing.assert_allclose(x, ds.link_displacement.sel(link="pto").values[:, 2],
                               atol=1e-9)


@check("oswec_waves", t_end=6.0)
def oswec_waves(ds: xr.Dataset, system: System) -> None:
    """Each Morison element's force is rho V a_n + 1/2 rho cd D L |u_r,n| u_r,n with the
    Airy kinematics written out here; with them, the added-mass force -A u' and the PTO
    torque, the moment about the hinge axis obeys I_hinge th'' (no reaction enters)."""
    flap = system.bodies["flap"]
    env = system.settings["environment"]
    waves = env["waves"]
    rho = env["water_density"]
    t = ds.time.values
    x = ds.body_position.sel(body="flap").values
    hinge = system.links["pto"].master
    axis = rotation_matrix(hinge.orientation)[:, 2]
    moment = np.zeros(t.size)
    for name in ("e1", "e2", "e3", "e4"):
        element = system.forces[name]
        prm = element.params
        p, v = node_motion(ds, system, element.nodes[0].path)
        u, du, eta = _airy(waves["height"] / 2, waves["period"], env["depth"],
                           np.radians(waves.get("phase_deg", 0.0)), p, t, waves["ramp"])
        e = axis  # the elements lie along the hinge axis, which the flap turns about
        ur = u - v
        urn = ur - np.outer(ur @ e, e)
        an = du - np.outer(du @ e, e)
        volume = np.pi * prm["diameter"] ** 2 / 4 * prm["length"]
        speed = np.linalg.norm(urn, axis=1)
        force = rho * volume * an + 0.5 * rho * prm["cd"] * prm["diameter"] * prm["length"] \
            * speed[:, None] * urn
        force *= (p[:, 2] <= eta)[:, None]
        np.testing.assert_allclose(ds.force_force.sel(force=name).values, force, rtol=1e-9,
                                   atol=1e-9 * np.abs(force).max())
        moment += np.cross(p - hinge.position, force) @ axis
    A = system.forces["added"].params["matrix"]
    acc = ds.body_acceleration.sel(body="flap").values
    alpha = ds.body_angular_acceleration.sel(body="flap").values
    Am = np.diag([A.get(k, 0.0) for k in ("surge", "sway", "heave", "roll", "pitch", "yaw")])
    am = -np.concatenate([acc, alpha], axis=1) @ Am.T
    moment += (np.cross(x - hinge.position, am[:, :3]) + am[:, 3:]) @ axis
    pto = system.links["pto"]
    th = ds.link_displacement.sel(link="pto", dof="rz").values
    thd = ds.link_velocity.sel(link="pto", dof="rz").values
    moment += -pto.stiffness[0, 0] * th - pto.damping[0, 0] * thd
    arm = flap.position - hinge.position
    arm_normal = arm - (arm @ axis) * axis
    i_hinge = axis @ flap.inertia @ axis + flap.mass * arm_normal @ arm_normal
    # buoyancy at the COG cancels the weight and its moment; rotation about a fixed axis
    th_dd = alpha @ axis
    np.testing.assert_allclose(i_hinge * th_dd, moment, rtol=0,
                               atol=1e-8 * np.abs(moment).max())
    _pto_power(ds, system, "pto", "rz")


@check("moored_buoy", t_end=4.0)
def moored_buoy(ds: xr.Dataset, system: System) -> None:
    """The run starts at rest in static equilibrium (the waves ramp on from zero), and
    each line's tensions meet the inextensible catenary with a grounded part, written
    out here: with laid length Lb, suspended length Ls = L - Lb, V = w Ls, the fairlead
    lies X = Lb + (H/w) asinh(V/H) from the anchor horizontally and
    h = (H/w) (sqrt(1 + (V/H)^2) - 1) above it; the fairlead tension is |(H, V)|, and
    the anchor's H (no seabed friction)."""
    _at_rest_in_equilibrium(ds, system)
    for name in ("line1", "line2", "line3"):
        H, _ = _catenary_meets_its_equations(ds, system, name, elastic=False)
        # no seabed friction: the grounded part pulls the anchor horizontally, by H
        np.testing.assert_allclose(
            ds.catenary_line_anchor_tension.sel(catenary_line_element=name).values, H,
            rtol=1e-12)


def _at_rest_in_equilibrium(ds: xr.Dataset, system: System) -> None:
    """The run starts at rest in its static equilibrium."""
    g = float(np.linalg.norm(system.gravity))
    assert np.abs(ds.body_velocity.values[0]).max() == 0.0
    assert np.abs(ds.body_acceleration.values[0]).max() < 1e-9 * g
    assert np.abs(ds.body_angular_acceleration.values[0]).max() < 1e-9


def _catenary_meets_its_equations(ds: xr.Dataset, system: System, name: str,
                                  elastic: bool) -> tuple[np.ndarray, np.ndarray]:
    """A ``catenary_line``'s outputs against the catenary with a grounded part written
    out: laid length Lb, V = w (L - Lb); the fairlead lies X = Lb + (H/w) asinh(V/H)
    (+ H L / EA, elastic) from the anchor and h = (H/w) (sqrt(1 + (V/H)^2) - 1)
    (+ V^2 / (2 w EA)) above it; the tension is |(H, V)|. Returns H and V."""
    prm = system.forces[name].params
    p, _ = node_motion(ds, system, system.forces[name].nodes[0].path)
    anchor = np.asarray(prm["anchor"], dtype=float)
    X = np.linalg.norm(p[:, :2] - anchor[:2], axis=1)
    h = p[:, 2] - anchor[2]
    w, L = prm["weight"], prm["length"]
    stretch = 1.0 / prm["axial_stiffness"] if elastic else 0.0  # 1 / EA
    H = ds.catenary_line_horizontal_tension.sel(catenary_line_element=name).values
    laid = ds.catenary_line_laid_length.sel(catenary_line_element=name).values
    assert (laid > 0).all() and (laid < L).all()  # a grounded part, as designed
    V = w * (L - laid)
    np.testing.assert_allclose(laid + H / w * np.arcsinh(V / H) + H * L * stretch, X,
                               rtol=1e-8)
    np.testing.assert_allclose(H / w * (np.sqrt(1 + (V / H) ** 2) - 1)
                               + V**2 / (2 * w) * stretch, h, rtol=1e-8)
    np.testing.assert_allclose(ds.catenary_line_tension.sel(catenary_line_element=name).values,
                               np.hypot(H, V), rtol=1e-10)
    return H, V


@check("moored_buoy_drift", t_end=12.0)
def moored_buoy_drift(ds: xr.Dataset, system: System) -> None:
    """The second-order loads against Newman's formula written out here, from the sea's
    components and the sphere's far-field mean drift read with xarray from the file
    (linear in frequency): with ``a_c`` the components' complex amplitudes at the buoy,
    ``D_c`` the surge drift at their frequencies and ``r`` the ramp, the mean drift is
    ``r^2 sum |a_c|^2 D_c``, mean plus slow drift ``r^2 Re(P conj(Q))`` with ``P = sum
    a_c D_c u_c``, ``Q = sum a_c u_c``, ``u_c = exp(-i w_c t)`` (the run interpolates its
    record: within 1e-6 of the moduli's sum), and Aranha's damping ``-r^2 B v`` with
    ``B = sum |a_c|^2 (w_c / g) (4 D_c + w_c D'_c)`` (``D'`` the slope of the linear
    interpolant, the derivative of the ``D`` used). The
    lines meet the catenary as in moored_buoy; the surge force balance holds."""
    from frylinks_marine.environment import Environment

    moored_buoy(ds, system)
    g = float(np.linalg.norm(system.gravity))
    waves = Environment(system.settings["environment"], system.gravity).waves
    with xr.open_dataset(ROOT / "cases" / system.forces["drift"].params["hydrodynamics"]
                         ) as data:
        table = data["drift_force_surge"].sel(complex="re").isel(
            wave_direction_k=0, wave_direction_l=0).dropna("omega")
        omega, D_table = table["omega"].values, table.values
    assert data.attrs["mean_drift"].startswith("drift_force_surge")
    w = np.asarray(waves.omega)
    D = np.interp(w, omega, D_table)
    # D' of the linear interpolant: the slope of the table's interval holding w
    k = np.clip(np.searchsorted(omega, w), 1, omega.size - 1)
    slope = (D_table[k] - D_table[k - 1]) / (omega[k] - omega[k - 1])
    x0 = ds.body_position.sel(body="buoy", xyz="x").values[0]
    a = waves.amplitude * np.exp(1j * (waves.phase + np.asarray(waves.k) * x0))
    t = ds.time.values
    r2 = waves.ramp_factor(t) ** 2
    u = np.exp(-1j * np.outer(t, w))
    mean = ds.wave_drift_mean_force.sel(wave_drift_element="drift", dof="tx").values
    np.testing.assert_allclose(mean, r2 * np.sum(np.abs(a) ** 2 * D), rtol=1e-9)
    slow = ds.wave_drift_slow_force.sel(wave_drift_element="drift", dof="tx").values
    newman = r2 * np.real((u @ (a * D)) * np.conj(u @ a))
    bound = 1e-6 * np.sum(np.abs(a) ** 2 * np.abs(D)) * 2
    np.testing.assert_allclose(mean + slow, newman, rtol=0, atol=bound)
    assert np.abs(slow).max() > 100 * bound  # (the slow drift is there, well above it)
    B = np.sum(np.abs(a) ** 2 * w / g * (4 * D + w * slope))
    vx = ds.body_velocity.sel(body="buoy", xyz="x").values
    damped = ds.wave_drift_damping_force.sel(wave_drift_element="drift", dof="tx").values
    np.testing.assert_allclose(damped, -r2 * B * vx, rtol=1e-9, atol=1e-12 * B)
    # the drift's total on the body is the force the engine applied
    total = ds.force_force.sel(force="drift", xyz="x").values
    np.testing.assert_allclose(total, mean + slow + damped, rtol=1e-12, atol=1e-9)


@check("moored_buoy_dynamic", t_end=2.0)
def moored_buoy_dynamic(ds: xr.Dataset, system: System) -> None:
    """MoorDyn's lines: the run starts nearly at rest (MoorDyn's lumped-mass statics
    against the catenaries the equilibrium was found with), each line's end nodes sit on
    its anchor and on its fairlead node, and the fairlead tensions at the start are the
    quasi-static catenary's within 1 % (40 segments of 5.75 m; the same line gives -1.1,
    +2.7, 0.007 and 0.24 % with 10, 20, 40 and 80 segments, as the touchdown falls)."""
    from frylinks_marine.catenary import solve

    g = float(np.linalg.norm(system.gravity))
    assert np.abs(ds.body_velocity.values[0]).max() == 0.0
    assert np.abs(ds.body_acceleration.values[0]).max() < 2e-3 * g
    prm = system.forces["lines"].params
    x = ds.body_position.sel(body="buoy").values
    R = rotation_matrix(ds.body_orientation.sel(body="buoy").values)
    nodes = ds.moordyn_node_position.sel(moordyn_element="lines").values
    w = 1000.0  # N m-1: the line type's submerged weight in the case's water
    for k, line in enumerate(prm["lines"]):
        fair = x + R @ np.asarray(line["fairlead"], dtype=float)
        np.testing.assert_allclose(nodes[:, k, -1], fair, atol=1e-9)
        np.testing.assert_allclose(nodes[:, k, 0], np.tile(line["anchor"], (len(x), 1)),
                                   atol=1e-9)
        d = fair[0] - np.asarray(line["anchor"], dtype=float)
        sol = solve(np.hypot(d[0], d[1]), d[2], line["length"], w,
                    prm["line_types"]["chain"]["axial_stiffness"])
        tension = ds.moordyn_fairlead_tension.sel(moordyn_element="lines").values[0, k]
        assert abs(tension / float(sol.tension[0]) - 1) < 0.01, (k, tension, sol.tension)


#: What the radiation type reports of the Capytaine OC4 dataset (its README's known
#: defects): A_inf symmetric to 3e-4 only (Capytaine's numerical asymmetry), and the
#: roll and pitch damping's wiggle near 2.05 rad/s (a 2.2 % midpoint error, above 2 %).
OC4_DATA = (".*infinite-frequency added mass is not symmetric", ".*changes too fast")


@check("oc4_semi", t_end=3.0, warns=OC4_DATA)
def oc4_semi(ds: xr.Dataset, system: System) -> None:
    """The run starts at rest in static equilibrium; each line's tensions meet the
    elastic catenary with a grounded part (Jonkman 2007, eqs. 2-38 and 2-55 with no
    seabed friction), written out here: with the laid length Lb and V = w (L - Lb), the
    fairlead lies X = Lb + (H/w) asinh(V/H) + H L / EA from the anchor horizontally and
    h = (H/w) (sqrt(1 + (V/H)^2) - 1) + V^2 / (2 w EA) above it; and at the start the
    lines' vertical pull balances the hydrostatic spring: K33 (z - z_eq) + sum V = 0."""
    _at_rest_in_equilibrium(ds, system)
    pull = 0.0
    for name in ("line1", "line2", "line3"):
        pull += _catenary_meets_its_equations(ds, system, name, elastic=True)[1][0]
    hydrostatics = system.forces["hydrostatics"].params
    k33 = hydrostatics["stiffness"]["heave"]
    z = float(ds.body_position.sel(body="platform", xyz="z").values[0])
    np.testing.assert_allclose(k33 * (z - hydrostatics["equilibrium"][2]), -pull,
                               rtol=1e-8)


# --- the tests ------------------------------------------------------------------------

def assert_udunits(ds: xr.Dataset, where: str) -> None:
    """Every ``units`` attribute of ``ds`` (variables and coordinates), and every unit a
    per-DOF units coordinate names, is a unit UDUNITS-2 parses (cf_units wraps the
    UDUNITS-2 library itself, as CF readers use it)."""
    import cf_units

    found = {f"{name}.units": str(var.attrs["units"])
             for name, var in ds.variables.items() if "units" in var.attrs}
    for name, coord in ds.coords.items():
        if str(name).endswith("_units"):  # the units of each DOF of a mixed variable
            found.update({f"{name}[{i}]": str(u) for i, u in enumerate(coord.values)})
    assert found["time.units"] == "s"
    for key, units in found.items():
        try:
            cf_units.Unit(units)
        except ValueError as exc:
            pytest.fail(f"{where}: {key} = {units!r} is not a UDUNITS unit ({exc})")


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_case_runs_and_meets_its_physics(path: Path, tmp_path: Path) -> None:
    """The case runs to its short horizon, passes its check, and every units attribute
    of its results (returned and written) is a valid UDUNITS string."""
    if path.stem not in CHECKS:
        pytest.fail(f"cases/{path.name} has no physics check: register one in CHECKS "
                    f"({Path(__file__).name})")
    t_end, physics = CHECKS[path.stem]
    system = frylinks.load_case(str(path))
    out = tmp_path / f"{path.stem}.nc"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. initial positions that miss their links
        for expected in EXPECTED_WARNINGS[path.stem]:
            warnings.filterwarnings("ignore", message=expected)
        ds = frylinks.run(path, output=out, t_end=t_end)
    assert ds.attrs["status"] == "completed"
    assert ds.time.values[-1] == pytest.approx(t_end)
    assert np.isfinite(ds.body_position.values).all()
    physics(ds, system)
    assert_udunits(ds, path.name)
    with xr.open_dataset(out) as written:
        assert_udunits(written, out.name)


@pytest.mark.slow
@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_case_full_length_meets_its_physics(path: Path) -> None:
    """The slow twin: the case's own horizon, the same check."""
    if path.stem not in CHECKS:
        pytest.fail(f"cases/{path.name} has no physics check")
    system = frylinks.load_case(str(path))
    ds = frylinks.run(path)
    assert ds.attrs["status"] == "completed"
    CHECKS[path.stem][1](ds, system)


def _power_matrix_sweep(t_end: float | None) -> xr.Dataset:
    return frylinks.sweep(ROOT / "cases" / "power_matrix.yaml", workers=2, t_end=t_end)


def test_power_matrix_sweep_is_linear_in_the_wave_height() -> None:
    """The 12 cases of the case's own sweep section, on a short horizon: the model is
    linear, so at each period the heave of the 2 m and 3 m waves is 2 and 3 times that
    of the 1 m wave, sample by sample, and the PTO power 4 and 9 times."""
    ds = _power_matrix_sweep(t_end=6.0)
    assert list(ds["status"].values) == ["completed"] * 12
    heights = ds["environment.waves.height"].values.reshape(3, 4)
    periods = ds["environment.waves.period"].values.reshape(3, 4)
    np.testing.assert_array_equal(heights[:, 0], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(periods[0], [6.0, 8.0, 10.0, 12.0])
    assert ds["environment.waves.height"].attrs["units"] == "m"
    heave = (ds.body_position.sel(body="buoy", xyz="z").values + 2.0).reshape(3, 4, -1)
    power = ds.link_power.sel(link="pto").values.reshape(3, 4, -1)
    assert np.abs(heave[0]).max() > 1e-3  # the waves move the buoy
    for h in (1, 2):
        scale = heights[h, 0] / heights[0, 0]
        np.testing.assert_allclose(heave[h], scale * heave[0], rtol=0,
                                   atol=1e-9 * np.abs(heave[h]).max())
        np.testing.assert_allclose(power[h], scale**2 * power[0], rtol=0,
                                   atol=1e-9 * np.abs(power[h]).max())


@pytest.mark.slow
def test_power_matrix_full_sweep_meets_the_frequency_domain_power() -> None:
    """The full sweep: the mean power over whole periods after 60 s against the
    frequency-domain steady state with A(w), B(w) of the dataset: within 0.5 % (measured:
    0.02 to 0.12 %; the state-space fit of the memory is within 2 % of its peak)."""
    from frylinks_marine.bem import EXAMPLE_DATA
    from frylinks_marine.datasets import load_database

    ds = _power_matrix_sweep(t_end=None)
    system = frylinks.load_case(str(ROOT / "cases" / "power_matrix.yaml"))
    db = load_database(EXAMPLE_DATA)
    buoy, pto = system.bodies["buoy"], system.links["pto"]
    k_hs = db.hydrostatic_stiffness[2, 2]
    t = ds.time.values
    for i in range(ds.sizes["case"]):
        height = float(ds["environment.waves.height"][i])
        period = float(ds["environment.waves.period"][i])
        w = 2 * np.pi / period
        A = float(np.interp(w, db.omega, db.added_mass[:, 2, 2]))
        B = float(np.interp(w, db.omega, db.radiation_damping[:, 2, 2]))
        F = complex(db.excitation_at(np.array([w]), 0.0)[0, 2]) * height / 2
        X = F / (k_hs + pto.stiffness[0, 0] - (buoy.mass + A) * w**2
                 - 1j * w * (B + pto.damping[0, 0]))
        exact = 0.5 * pto.damping[0, 0] * w**2 * abs(X) ** 2
        n = int((t[-1] - 60.0) // period)
        keep = t >= t[-1] - n * period - 1e-9
        mean = float(np.mean(ds.link_power.sel(link="pto").values[i][keep][:-1]))
        assert abs(mean - exact) / exact < 5e-3, (height, period, mean, exact)


def test_every_check_has_its_case() -> None:
    """A check left behind by a renamed or removed case is an error too."""
    assert set(CHECKS) == {p.stem for p in CASE_FILES}


def test_command_line_run_of_a_case(tmp_path: Path) -> None:
    """The full pendulum case (400 steps) through ``python -m frylinks run``: the file it
    writes is complete and passes the same check."""
    path = ROOT / "cases" / "pendulum.yaml"
    out = tmp_path / "pendulum.nc"
    proc = subprocess.run([sys.executable, "-m", "frylinks", "run", str(path), "-o", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    system = frylinks.load_case(str(path))
    with xr.open_dataset(out) as ds:
        assert ds.attrs["status"] == "completed"
        assert ds.time.values[-1] == pytest.approx(4.0)
        CHECKS["pendulum"][1](ds.load(), system)
