"""Exudyn's ``linear_spring_damper`` and ``torsional_spring_damper`` against exact solutions.

**Mini example** (Exudyn's ``ObjectConnectorLinearSpringDamper`` documentation): a body of
mass 1 on a prismatic link along ground x, a spring-damper ``k = 2000``, ``d = 0.01 k``
along ground x, a unit force along +x. From rest at 0 the motion is the classical damped
oscillator towards ``dx = 1 / k = 5e-4``, which Exudyn checks at its default end time,
1 s. Started at the exact equilibrium ``dx = rest + (1 + d v_off - preload) / k`` (all
parameters on, the axis given in ground axes or as the z axis of the rail's rotated
node), the body stays. Switched off (``active: false``) the body accelerates freely:
``x = t^2 / 2``.

**Cubic user function** (the documentation's ``UFforce``, ``f = k x + 0.1 k x^3``): from
rest at ``x = A`` the Duffing oscillator ``x'' + w0^2 x + e x^3 = 0`` (``w0^2 = k / m``,
``e = 0.1 k / m``) has the exact solution ``x = A cn(w t, kappa)`` with ``w^2 = w0^2 + e
A^2`` and ``kappa = e A^2 / (2 w^2)``, and the period ``T = 4 int_0^A dx / sqrt(2 (V(A) -
V(x)) / m)`` (``V = k x^2 / 2 + 0.1 k x^4 / 4``), computed here by quadrature and
cross-checked against ``4 K(kappa) / w``.

**Torsional spring-damper**: on a revolute link, ``Izz th'' + d th' + k (th - rest) = 0``,
the exact damped oscillator; with only damping and a ``preload`` torque ``P`` the rotor
spins up, ``th' = -P / d (1 - exp(-t / tau))``, ``tau = Izz / d``, through several turns,
which the angle output counts. On a spherical link (a swing as well as the twist) the
spring is conservative: kinetic plus spring energy stays constant.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr
from scipy.integrate import quad
from scipy.spatial.transform import Rotation
from scipy.special import ellipj, ellipk

import frylinks

K, D, F = 2.0e3, 2.0e1, 1.0


def rk4_bound(w: float, amplitude: float, t_end: float, h: float = 1e-3) -> float:
    """Twice rk4's phase error on an oscillator of frequency ``w`` (``(w h)^5 / 120`` per
    step) as a displacement at ``amplitude`` after ``t_end``."""
    return 2.0 * amplitude * (t_end / h) * (w * h) ** 5 / 120.0


def mini(x0: float = 0.0, rail_axes: bool = False, **spring: object) -> frylinks.System:
    """Exudyn's mini example; with ``rail_axes`` the spring's axis is the z axis of the
    rail's node (turned so that z is ground x) instead of x of a ground-aligned node."""
    s = frylinks.System(gravity=[0.0, 0.0, 0.0], name="exudyn-mini-example")
    s.ground.add_node("rail", orientation={"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0})
    s.ground.add_node("origin")
    # the body's axes as the rail node's: a prismatic link keeps them equal
    s.add_body("body", mass=1.0, inertia=[1.0, 1.0, 1.0], position=[x0, 0.0, 0.0],
               orientation={"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0})
    s.add_link("rail", "prismatic", master="ground.rail", slave="body")
    master, axis = ("ground.rail", [0.0, 0.0, 1.0]) if rail_axes else ("ground.origin",
                                                                      [1.0, 0.0, 0.0])
    s.add_force("spring", "linear_spring_damper", master=master, slave="body", axis=axis,
                **({"stiffness": K, "damping": D} | spring))
    s.add_force("load", "world_force", node="body", force=[F, 0.0, 0.0])
    return s


def test_mini_example_dynamic_response(oscillator: Callable, record_property: Callable
                                       ) -> None:
    """x(t) and the three outputs vs the exact damped oscillator over Exudyn's default
    1 s; x(1 s) is 1 / k up to the decayed transient."""
    ds = mini().run(t_end=1.0, dt=1e-3, every=5)
    t = ds.time.values
    x, v, _ = oscillator(t, 1.0, K, D, F, 0.0, 0.0)
    xs = ds.body_position.sel(body="body", xyz="x").values
    out = {k: ds[f"linear_spring_damper_{k}"].sel(linear_spring_damper_element="spring").values
           for k in ("displacement", "velocity", "force")}
    bound = rk4_bound(np.sqrt(K), F / K, 1.0)
    ex = float(np.abs(xs - x).max())
    record_property("max_displacement_error_m", ex)
    record_property("displacement_at_1s_m", float(xs[-1]))
    record_property("rk4_bound_m", bound)
    assert ex < bound
    assert float(np.abs(out["displacement"] - x).max()) < bound
    assert float(np.abs(out["velocity"] - v).max()) < np.sqrt(K) * bound
    assert float(np.abs(out["force"] - (K * x + D * v)).max()) < 2 * K * bound
    assert abs(xs[-1] - 1.0 / K) < 1e-7  # Exudyn's check: Delta x = 1/k = 0.0005
    # the spring acts on the body (force_force is on the first attachment: the ground)
    np.testing.assert_allclose(ds.force_force.sel(force="spring", xyz="x").values,
                               out["force"], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("rail_axes", [False, True], ids=["ground-x", "rail-node-z"])
def test_mini_example_static_equilibrium(rail_axes: bool, record_property: Callable) -> None:
    """At dx = rest + (F + d v_off - preload) / k the body stays and f = F."""
    rest, preload, v_off = 1.0e-3, 0.4, 2.0e-3
    x_eq = rest + (F + D * v_off - preload) / K
    ds = mini(x_eq, rail_axes, rest=rest, preload=preload,
              velocity_offset=v_off).run(t_end=0.05, dt=1e-3, every=10)
    xs = ds.body_position.sel(body="body", xyz="x").values
    err = float(np.abs(xs - x_eq).max())
    record_property("max_static_error_m", err)
    assert err < 1e-15
    f = ds.linear_spring_damper_force.sel(linear_spring_damper_element="spring").values
    assert float(np.abs(f - F).max()) < 1e-12


def test_inactive_spring_lets_the_body_go() -> None:
    ds = mini(active=False).run(t_end=0.2, dt=1e-3, every=10)
    t = ds.time.values
    xs = ds.body_position.sel(body="body", xyz="x").values
    assert float(np.abs(xs - F * t**2 / 2).max()) < 1e-14
    assert not ds.linear_spring_damper_force.sel(linear_spring_damper_element="spring").values.any()


# -- cubic user function -----------------------------------------------------------------

KC, A = 100.0, 3.0


def uf_force(t: float, displacement: np.ndarray, velocity: np.ndarray, stiffness: np.ndarray,
             damping: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Exudyn's ``UFforce`` example (the damping passed in is not used)."""
    k = stiffness
    return k * displacement + 0.1 * k * displacement**3


def duffing_period() -> float:
    """T = 4 int_0^A dx / sqrt(2 (V(A) - V(x)) / m) (m = 1), with x = A sin(phi): the
    integrand A / sqrt(2 c(phi)) is smooth, c = V(A)-V(x) over cos^2(phi)."""
    def integrand(phi: float) -> float:
        c = KC / 2 * A**2 + 0.1 * KC / 4 * A**4 * (1.0 + np.sin(phi) ** 2)
        return A / np.sqrt(2.0 * c)

    return 4.0 * quad(integrand, 0.0, np.pi / 2, epsabs=1e-14, epsrel=1e-14)[0]


def test_cubic_user_function_period_and_motion(record_property: Callable) -> None:
    s = frylinks.System(gravity=[0.0, 0.0, 0.0], name="exudyn-cubic-spring")
    s.ground.add_node("rail", orientation={"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0})
    s.add_body("body", mass=1.0, inertia=[1.0, 1.0, 1.0], position=[A, 0.0, 0.0],
               orientation={"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0})
    s.add_link("rail", "prismatic", master="ground.rail", slave="body")
    s.add_force("spring", "linear_spring_damper", master="ground", slave="body",
                stiffness=KC, damping=KC * 0.01, user_function=uf_force)
    ds = s.run(t_end=1.0, dt=1e-3)
    t = ds.time.values
    x = ds.body_position.sel(body="body", xyz="x").values
    v = ds.body_velocity.sel(body="body", xyz="x").values
    w = np.sqrt(KC + 0.1 * KC * A**2)
    kappa = 0.1 * KC * A**2 / (2.0 * w**2)
    period = duffing_period()
    assert period == pytest.approx(4.0 * ellipk(kappa) / w, rel=1e-12)
    # the period from the downward zero crossings (x'' = 0 there: linear interpolation
    # between samples is exact to O(h^3))
    down = np.nonzero((x[:-1] > 0.0) & (x[1:] <= 0.0))[0]
    crossings = t[down] + x[down] * (t[down + 1] - t[down]) / (x[down] - x[down + 1])
    eperiod = float(np.abs(np.diff(crossings) - period).max())
    exact = A * ellipj(w * t, kappa)[1]
    ex = float(np.abs(x - exact).max())
    energy = 0.5 * v**2 + KC * x**2 / 2 + 0.1 * KC * x**4 / 4
    e0 = KC * A**2 / 2 + 0.1 * KC * A**4 / 4
    ee = float(np.abs(energy / e0 - 1.0).max())
    record_property("period_s", period)
    record_property("period_error_s", eperiod)
    record_property("max_displacement_error_m", ex)
    record_property("max_relative_energy_error", ee)
    assert len(crossings) >= 2
    # stiffest at x = A: w_max^2 = k (1 + 0.3 A^2)
    bound = rk4_bound(np.sqrt(KC * (1.0 + 0.3 * A**2)), A, 1.0)
    assert eperiod < 1e-7
    assert ex < bound
    assert ee < 1e-8
    spring = ds.linear_spring_damper_force.sel(linear_spring_damper_element="spring").values
    assert float(np.abs(spring
                        - (KC * x + 0.1 * KC * x**3)).max()) < 1e-9 * KC * A**3


# -- torsional spring-damper ---------------------------------------------------------------

ROTOR = {"Izz": 0.5, "k": 50.0, "d": 0.3, "rest": 0.5, "th0": 0.2, "w0": 3.0}
SPINNER = {"Izz": 0.05, "d": 0.2, "preload": -6.0}
AXLE = Rotation.from_euler("xyz", [30.0, -20.0, 50.0], degrees=True)


def wxyz(r: Rotation) -> list[float]:
    q = r.as_quat()
    return [float(q[3]), float(q[0]), float(q[1]), float(q[2])]


def rotors() -> frylinks.System:
    """An oscillating rotor and a spinning one, each on a revolute link about the z axis
    of a turned ground node; COGs on the axes."""
    s = frylinks.System(name="torsional-spring-dampers")
    e = AXLE.apply([0.0, 0.0, 1.0])
    for name, p, th0, w0 in (("rotor", ROTOR, ROTOR["th0"], ROTOR["w0"]),
                             ("spinner", SPINNER, 0.0, 0.0)):
        origin = [0.0, 0.0, 0.0] if name == "rotor" else [2.0, 0.0, 0.0]
        s.ground.add_node(f"axle_{name}", position=origin,
                          orientation={"quaternion": wxyz(AXLE)})
        body = AXLE * Rotation.from_rotvec([0.0, 0.0, th0])
        s.add_body(name, mass=2.0, inertia=[0.4 * p["Izz"] / 0.5, 0.45 * p["Izz"] / 0.5,
                                            p["Izz"]],
                   position=origin, orientation={"quaternion": wxyz(body)},
                   angular_velocity=list(w0 * e))
        s.add_link(f"axle_{name}", "revolute", master=f"ground.axle_{name}", slave=name)
    s.add_force("rotor", "torsional_spring_damper", master="ground.axle_rotor", slave="rotor",
                stiffness=ROTOR["k"], damping=ROTOR["d"], rest=ROTOR["rest"])
    s.add_force("spinner", "torsional_spring_damper", master="ground.axle_spinner",
                slave="spinner", damping=SPINNER["d"], preload=SPINNER["preload"])
    return s


@pytest.fixture(scope="module")
def spun() -> xr.Dataset:
    """1 s (1000 rk4 steps of 1 ms) of both rotors."""
    return rotors().run(t_end=1.0, dt=1e-3, every=5)


def test_torsional_oscillator(spun: xr.Dataset, oscillator: Callable,
                              record_property: Callable) -> None:
    """Angle, rate and torque vs ``Izz th'' + d th' + k th = k rest``."""
    p = ROTOR
    t = spun.time.values
    th, w, _ = oscillator(t, p["Izz"], p["k"], p["d"], p["k"] * p["rest"], p["th0"], p["w0"])
    rotor = {"torsional_spring_damper_element": "rotor"}
    angle = spun.torsional_spring_damper_angle.sel(rotor).values
    rate = spun.torsional_spring_damper_angular_velocity.sel(rotor).values
    torque = spun.torsional_spring_damper_torque.sel(rotor).values
    bound = rk4_bound(np.sqrt(p["k"] / p["Izz"]), 1.0, 1.0)
    ea, ew = float(np.abs(angle - th).max()), float(np.abs(rate - w).max())
    record_property("max_angle_error_rad", ea)
    record_property("max_rate_error_rad_s", ew)
    assert ea < bound
    assert ew < np.sqrt(p["k"] / p["Izz"]) * bound
    assert float(np.abs(torque - (p["k"] * (th - p["rest"]) + p["d"] * w)).max()) < 1e-7
    link = spun.link_displacement.sel(link="axle_rotor", dof="rz").values
    assert float(np.abs(link - angle).max()) < 1e-12


def test_torsional_spin_up_counts_turns(spun: xr.Dataset, record_property: Callable) -> None:
    """th = w_inf (t - tau (1 - exp(-t/tau))), w_inf = -P/d: more than three turns."""
    p = SPINNER
    t = spun.time.values
    tau, w_inf = p["Izz"] / p["d"], -p["preload"] / p["d"]
    th = w_inf * (t - tau * (1.0 - np.exp(-t / tau)))
    spinner = {"torsional_spring_damper_element": "spinner"}
    angle = spun.torsional_spring_damper_angle.sel(spinner).values
    rate = spun.torsional_spring_damper_angular_velocity.sel(spinner).values
    ea = float(np.abs(angle - th).max())
    record_property("max_angle_error_rad", ea)
    record_property("turns", float(angle[-1] / (2 * np.pi)))
    assert angle[-1] > 3 * 2 * np.pi
    # the attitude turns by up to w_inf h = 0.03 rad a step: rk4's error is that of the
    # quaternion's rotation at w_inf, within the phase bound at that rate
    assert ea < rk4_bound(w_inf, 1.0, 1.0)
    assert float(np.abs(rate - w_inf * (1.0 - np.exp(-t / tau))).max()) < 1e-9
    link = spun.link_displacement.sel(link="axle_spinner", dof="rz").values
    assert float(np.abs(link - angle).max()) < 1e-12


def test_torsional_spring_is_conservative_with_swing(record_property: Callable) -> None:
    """A body on a spherical link at its COG, a torsional spring about a tilted axis:
    ``(w . I w) / 2 + k th^2 / 2`` stays constant while the swing exceeds 0.5 rad."""
    k = 5.0
    axis = np.array([0.2, 0.3, 1.0])
    master = Rotation.from_euler("xyz", [10.0, 25.0, -40.0], degrees=True)
    inertia = np.array([[0.4, 0.05, -0.02], [0.05, 0.6, 0.03], [-0.02, 0.03, 0.9]])
    s = frylinks.System(name="torsional-swing")
    s.ground.add_node("pivot", position=[0.0, 0.0, 1.0], orientation={"quaternion":
                                                                      wxyz(master)})
    s.add_body("top", mass=3.0, inertia=[0.4, 0.6, 0.9, 0.05, -0.02, 0.03],
               position=[0.0, 0.0, 1.0], orientation={"quaternion": wxyz(master)},
               angular_velocity=[3.0, -2.0, 4.0])
    s.add_link("pivot", "spherical", master="ground.pivot", slave="top")
    s.add_force("spring", "torsional_spring_damper", master="ground.pivot", slave="top",
                stiffness=k, axis=list(axis))
    ds = s.run(t_end=1.0, dt=1e-3, every=5)
    q = ds.body_orientation.sel(body="top").values
    rb = Rotation.from_quat(q[:, [1, 2, 3, 0]])
    w = ds.body_angular_velocity.sel(body="top").values
    iw = np.einsum("nij,jk,nlk->nil", rb.as_matrix(), inertia, rb.as_matrix())
    angle = ds.torsional_spring_damper_angle.sel(torsional_spring_damper_element="spring").values
    energy = 0.5 * np.einsum("ni,nij,nj->n", w, iw, w) + 0.5 * k * angle**2
    drift = float(np.abs(energy / energy[0] - 1.0).max())
    rel = master.inv() * rb
    a = axis / np.linalg.norm(axis)
    qr = rel.as_quat()  # x y z w
    twist = 2.0 * np.arctan2(qr[:, :3] @ a, qr[:, 3])
    swing = rel * Rotation.from_rotvec(-twist[:, None] * a)
    swing_angle = np.linalg.norm(swing.as_rotvec(), axis=1)
    record_property("max_relative_energy_drift", drift)
    record_property("max_swing_rad", float(swing_angle.max()))
    assert swing_angle.max() > 0.5
    assert float(np.abs(np.sin(0.5 * (twist - angle))).max()) < 1e-12  # angle mod 2 pi
    assert drift < 1e-8


@pytest.mark.slow
def test_cubic_user_function_ten_periods(record_property: Callable) -> None:
    """Slow twin: 5 s (about ten periods): every period and the energy stay exact."""
    s = frylinks.System(gravity=[0.0, 0.0, 0.0], name="exudyn-cubic-spring")
    s.ground.add_node("rail", orientation={"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0})
    s.add_body("body", mass=1.0, inertia=[1.0, 1.0, 1.0], position=[A, 0.0, 0.0],
               orientation={"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0})
    s.add_link("rail", "prismatic", master="ground.rail", slave="body")
    s.add_force("spring", "linear_spring_damper", master="ground", slave="body",
                stiffness=KC, user_function=uf_force)
    ds = s.run(t_end=5.0, dt=1e-3)
    t = ds.time.values
    x = ds.body_position.sel(body="body", xyz="x").values
    v = ds.body_velocity.sel(body="body", xyz="x").values
    down = np.nonzero((x[:-1] > 0.0) & (x[1:] <= 0.0))[0]
    crossings = t[down] + x[down] * (t[down + 1] - t[down]) / (x[down] - x[down + 1])
    eperiod = float(np.abs(np.diff(crossings) - duffing_period()).max())
    energy = 0.5 * v**2 + KC * x**2 / 2 + 0.1 * KC * x**4 / 4
    ee = float(np.abs(energy / (KC * A**2 / 2 + 0.1 * KC * A**4 / 4) - 1.0).max())
    record_property("period_error_s", eperiod)
    record_property("max_relative_energy_error", ee)
    assert len(crossings) >= 10
    assert eperiod < 1e-7
    assert ee < 1e-8


@pytest.mark.slow
def test_torsional_spin_up_many_turns(record_property: Callable) -> None:
    """Slow twin: 5 s of the spinner, about 23 turns, against the exact angle."""
    ds = rotors().run(t_end=5.0, dt=1e-3, every=50)
    p = SPINNER
    t = ds.time.values
    tau, w_inf = p["Izz"] / p["d"], -p["preload"] / p["d"]
    th = w_inf * (t - tau * (1.0 - np.exp(-t / tau)))
    angle = ds.torsional_spring_damper_angle.sel(torsional_spring_damper_element="spinner").values
    ea = float(np.abs(angle - th).max())
    record_property("max_angle_error_rad", ea)
    assert angle[-1] > 20 * 2 * np.pi
    assert ea < rk4_bound(w_inf, 1.0, 5.0)
    link = ds.link_displacement.sel(link="axle_spinner", dof="rz").values
    assert float(np.abs(link - angle).max()) < 1e-10
