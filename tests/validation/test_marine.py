"""Marine forces against exact solutions and published numbers.

* heave decay with constant coefficients (mass, added mass, stiffness, damping) against
  the exact damped oscillator;
* a heaving point absorber on a prismatic link with a PTO spring-damper in regular
  waves: steady amplitude, mean PTO power, and the optimal passive damping;
* the IEA OES Task 10 sphere decay with Capytaine coefficients and the radiation
  convolution against the published codes' trough, peak and period;
* Morison forces on a fixed cylinder against closed-form Airy kinematics;
* static equilibrium under a constant load against the stiffness.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from frylinks_marine.bem import EXAMPLE_DATA
from frylinks_marine.datasets import load_database
from scipy.optimize import brentq

import frylinks

RHO = 1000.0
G = 9.81
R = 5.0  # the sphere's radius [m]
MASS = 261.8e3  # rho * 2/3 pi R^3, as in IEA OES Task 10
K33 = RHO * G * math.pi * R**2


def heave(ds: frylinks.Any, body: str = "b") -> np.ndarray:
    return ds.body_position.sel(body=body, xyz="z").values


def test_heave_decay_with_constant_coefficients_is_the_exact_damped_oscillator() -> None:
    m, a, k, b, x0 = 2.0e5, 1.2e5, 1.974e5, 6.0e4, 0.8
    s = frylinks.System()
    s.add_body("b", mass=m, inertia=[1e6, 1e6, 1e6], position=[0, 0, x0])
    s.add_force("hs", "linear_hydrostatics", body="b", stiffness={"heave": k},
                equilibrium=[0, 0, 0])
    s.add_force("am", "added_mass", body="b", matrix={"heave": a})
    s.add_force("bd", "linear_damping", body="b", damping={"heave": b})
    ds = s.run(t_end=12.0, dt=0.02, every=5)
    t = ds.time.values
    wn = math.sqrt(k / (m + a))
    zeta = b / (2 * math.sqrt(k * (m + a)))
    wd = wn * math.sqrt(1 - zeta**2)
    exact = x0 * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))
    err = np.abs(heave(ds) - exact).max()
    assert err < 1e-8, err
    # the added-mass element reports its force -A z''
    acc = ds.body_acceleration.sel(body="b", xyz="z").values
    np.testing.assert_allclose(ds.force_force.sel(force="am", xyz="z").values, -a * acc,
                               rtol=1e-12, atol=1e-9)


def _absorber(b_pto: float, k_pto: float, period: float, t_end: float, dt: float
              ) -> tuple[frylinks.Any, complex, float, float, float]:
    """The sphere on a vertical prismatic PTO in regular waves of unit height; constant
    A(w), B(w) from the Capytaine dataset at the wave frequency. Returns the results,
    the exact complex amplitude and m + A, B, |F|."""
    db = load_database(EXAMPLE_DATA)
    w = 2 * math.pi / period
    A = float(np.interp(w, db.omega, db.added_mass[:, 2, 2]))
    B = float(np.interp(w, db.omega, db.radiation_damping[:, 2, 2]))
    F = complex(db.excitation_at(np.array([w]), 0.0)[0, 2]) * 0.5  # height 1 m
    s = frylinks.System()
    s.ground.add_node("seabed", position=[0, 0, -2.0])
    s.add_body("b", mass=MASS, inertia=[1e7, 1e7, 1e7], position=[0, 0, -2.0])
    s.configure("environment", water_density=RHO,
                waves={"type": "regular", "height": 1.0, "period": period})
    s.add_link("pto", "prismatic", master="ground.seabed", slave="b",
               spring_damper={"stiffness": k_pto, "damping": b_pto, "rest": 0.0})
    s.add_force("hs", "linear_hydrostatics", body="b", stiffness={"heave": K33})
    s.add_force("am", "added_mass", body="b", matrix={"heave": A})
    s.add_force("bd", "linear_damping", body="b", damping={"heave": B})
    s.add_force("fk", "wave_excitation", body="b", hydrodynamics=EXAMPLE_DATA)
    ds = s.run(t_end=t_end, dt=dt, every=1)
    X = F / (K33 + k_pto - (MASS + A) * w**2 - 1j * w * (B + b_pto))
    return ds, X, MASS + A, B, abs(F)


def _last_periods(ds: frylinks.Any, period: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = ds.time.values
    keep = t >= t[-1] - n * period - 1e-9
    return t[keep], keep


def test_point_absorber_steady_amplitude_and_mean_power() -> None:
    period, k_pto, b_pto = 7.0, 2.0e5, 4.0e5
    # the transient decays as exp(-(B + b_pto) t / (2 (m + A))): below 1e-7 after 35 s
    ds, X, _, _, _ = _absorber(b_pto, k_pto, period, t_end=42.0, dt=0.05)
    w = 2 * math.pi / period
    t, keep = _last_periods(ds, period, 3)
    z = heave(ds)[keep] + 2.0
    # complex amplitude by projection on exp(-i w t) over whole periods (trapezoid is
    # exact for trigonometric polynomials on a uniform periodic grid)
    proj = 2 * np.mean(z[:-1] * np.exp(1j * w * t[:-1]))
    assert abs(proj - X) / abs(X) < 2e-4, (proj, X)
    power = ds.link_power.sel(link="pto").values[keep]
    mean = float(np.mean(power[:-1]))
    exact = 0.5 * b_pto * w**2 * abs(X) ** 2
    assert abs(mean - exact) / exact < 5e-4, (mean, exact)


def test_optimal_passive_damping_gives_the_most_power() -> None:
    period = 7.0
    w = 2 * math.pi / period
    _, _, mA, B, _ = _absorber(1.0, 0.0, period, t_end=0.05, dt=0.025)
    b_opt = math.sqrt(B**2 + (K33 / w - w * mA) ** 2)
    powers = []
    for factor in (0.6, 1.0, 1.6):
        ds, X, *_ = _absorber(factor * b_opt, 0.0, period, t_end=49.0, dt=0.1)
        _, keep = _last_periods(ds, period, 2)
        powers.append(float(np.mean(ds.link_power.sel(link="pto").values[keep][:-1])))
        exact = 0.5 * factor * b_opt * w**2 * abs(X) ** 2
        assert abs(powers[-1] - exact) / exact < 5e-3
    assert powers[1] > powers[0] and powers[1] > powers[2], powers


def test_iea_task10_sphere_decay_with_radiation_memory() -> None:
    """Published codes agree on a first trough near -0.87 m at 2.2 s, a peak near
    0.64 m at 4.4 s and a damped period near 4.35 s (1 m drop)."""
    s = frylinks.System()
    s.add_body("b", mass=MASS, inertia=[1e6, 1e6, 1e6], position=[0, 0, -2.0 + 1.0])
    s.configure("environment", water_density=RHO)
    s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=EXAMPLE_DATA,
                equilibrium=[0, 0, -2.0])
    s.add_force("rad", "radiation", body="b", hydrodynamics=EXAMPLE_DATA)
    ds = s.run(t_end=9.0, dt=0.01)
    t, z = ds.time.values, heave(ds) + 2.0
    i = int(np.argmin(z[t < 3.5]))
    j = i + int(np.argmax(z[i:][t[i:] < 6.0]))
    assert z[i] == pytest.approx(-0.87, abs=0.02) and t[i] == pytest.approx(2.2, abs=0.1)
    assert z[j] == pytest.approx(0.64, abs=0.02) and t[j] == pytest.approx(4.4, abs=0.1)
    up = t[1:][(z[:-1] < 0) & (z[1:] >= 0)]
    period = float(up[1] - up[0])  # (the first half cycle is not yet the damped one)
    assert period == pytest.approx(4.35, abs=0.05)
    # without the memory the sphere would not lose energy: the radiation force did
    memory = ds.radiation_memory_force.sel(radiation_element="rad", dof="tz").values
    assert np.abs(memory).max() > 0.05 * K33


def _airy_deep(a: float, w: float, p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, ...]:
    k = w**2 / G
    theta = k * p[0] - w * t
    decay = math.exp(k * p[2])
    u = np.stack([a * w * decay * np.cos(theta), 0 * t, a * w * decay * np.sin(theta)])
    acc = np.stack([a * w**2 * decay * np.sin(theta), 0 * t,
                    -a * w**2 * decay * np.cos(theta)])
    return u, acc


def test_morison_on_a_fixed_vertical_cylinder_in_waves_and_current() -> None:
    D, L, cd, ca, a, T = 2.0, 4.0, 1.1, 0.9, 1.5, 9.0
    w = 2 * math.pi / T
    p = np.array([3.0, 0.0, -8.0])
    s = frylinks.System()
    s.add_body("pile", mass=1e4, inertia=[1e4, 1e4, 1e4], position=list(p))
    s.ground.add_node("site", position=list(p))
    s.add_link("fix", "fixed", master="ground.site", slave="pile")
    s.configure("environment", water_density=RHO,
                waves={"type": "regular", "height": 2 * a, "period": T},
                current={"speed": 0.7, "heading_deg": 90.0})
    s.add_force("m", "morison", node="pile", diameter=D, length=L, cd=cd, ca=ca)
    ds = s.run(t_end=T, dt=0.05, every=4)
    t = ds.time.values
    u, acc = _airy_deep(a, w, p, t)
    u[1] += 0.7  # current along +y
    # the axis is z (vertical): only x and y count
    un = u.copy()
    un[2] = 0.0
    an = acc.copy()
    an[2] = 0.0
    V = math.pi * D**2 / 4 * L
    speed = np.sqrt(un[0] ** 2 + un[1] ** 2)
    exact = RHO * (1 + ca) * V * an + 0.5 * RHO * cd * D * L * speed * un
    got = ds.force_force.sel(force="m").values.T
    np.testing.assert_allclose(got, exact, rtol=1e-10, atol=1e-6 * np.abs(exact).max())


def test_static_equilibrium_under_a_constant_load() -> None:
    k = {"surge": 0.0, "heave": 4.0e5, "roll": 3.0e7, "pitch": 3.0e7}
    load = np.array([0.0, 0.0, -6.0e4])
    s = frylinks.System()
    b = s.add_body("b", mass=1e5, inertia=[1e6, 1e6, 1e6], position=[0, 0, 0])
    b.add_node("arm", position=[5.0, 0, 0])
    s.add_force("hs", "linear_hydrostatics", body="b", stiffness=k)
    s.add_force("damping", "linear_damping", body="b", damping={"heave": 1.0e4})
    s.add_force("load", "world_force", node="b.arm", force=list(load))
    ds = s.run(t_end=1.0, dt=0.01, initial_equilibrium=True)
    # heave: K33 z = F_z (a vertical force, wherever it acts); pitch: the arm turns with
    # the body to (5 cos th, 0, -5 sin th), so K55 th = M_y = -5 cos(th) F_z exactly
    z_exact = load[2] / k["heave"]
    pitch_exact = brentq(lambda th: k["pitch"] * th + 5.0 * math.cos(th) * load[2], 0.0, 1.0,
                         xtol=1e-15)
    x = ds.body_position.sel(body="b").values
    assert x[0, 2] == pytest.approx(z_exact, rel=1e-9)
    q = ds.body_orientation.sel(body="b").values[0]
    theta = 2 * math.atan2(q[2], q[0])
    assert theta == pytest.approx(pitch_exact, rel=1e-9)
    # it stays there
    assert np.abs(ds.body_velocity.values).max() < 1e-9
