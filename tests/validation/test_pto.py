"""Power take-off types (:mod:`frylinks_forces.pto`) against exact solutions.

* complex-conjugate (reactive) control of a heaving sphere with constant hydrodynamic
  coefficients in regular waves absorbs the theoretical maximum ``|F_ex|^2 / (8 B)``;
* a passive PTO damper absorbs ``B w^2 |X|^2 / 2`` with the exact linear amplitude;
* the absorbed energy of a damped oscillator closes the energy balance of the exact
  solution (linear and rotary PTOs);
* a Coulomb PTO decelerates a slider at ``F / m`` and brings it to rest without chatter.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from frylinks_marine.bem import EXAMPLE_DATA, load_database

import frylinks

RHO, G, R = 1000.0, 9.81, 5.0
MASS = 261.8e3
K33 = RHO * G * math.pi * R**2


def first(ds: frylinks.Any, name: str) -> np.ndarray:
    """The values of a PTO output of the model's only PTO (over time)."""
    return ds[name].values[:, 0]


def _absorber(pto: str, period: float, t_end: float, dt: float, **law: float
              ) -> tuple[frylinks.Any, complex, float, float, complex]:
    """The sphere heaving on a prismatic link with a PTO of type ``pto`` in regular waves
    of 1 m height, with A(w) and B(w) constant (their values at the wave frequency):
    the system is exactly linear. Returns the results, the exact complex heave, m + A,
    B and the excitation amplitude."""
    db = load_database(EXAMPLE_DATA)
    w = 2 * math.pi / period
    A = float(np.interp(w, db.omega, db.added_mass[:, 2, 2]))
    B = float(np.interp(w, db.omega, db.radiation_damping[:, 2, 2]))
    F = complex(db.excitation_at(np.array([w]), 0.0)[0, 2]) * 0.5
    s = frylinks.System()
    s.ground.add_node("seabed", position=[0, 0, -2.0])
    s.add_body("b", mass=MASS, inertia=[1e7, 1e7, 1e7], position=[0, 0, -2.0])
    s.configure("environment", water_density=RHO,
                waves={"type": "regular", "height": 1.0, "period": period})
    s.add_link("slide", "prismatic", master="ground.seabed", slave="b")
    s.add_force("pto", pto, master="ground.seabed", slave="b", **law)
    s.add_force("hs", "linear_hydrostatics", body="b", stiffness={"heave": K33})
    s.add_force("am", "added_mass", body="b", matrix={"heave": A})
    s.add_force("bd", "linear_damping", body="b", damping={"heave": B})
    s.add_force("fk", "wave_excitation", body="b", hydrodynamics=EXAMPLE_DATA)
    ds = s.run(t_end=t_end, dt=dt)
    k, b = law.get("stiffness", 0.0), law.get("damping", 0.0)
    X = F / (K33 + k - (MASS + A) * w**2 - 1j * w * (B + b))
    return ds, X, MASS + A, B, F


def test_reactive_control_absorbs_the_theoretical_maximum(record_property: object) -> None:
    """Complex-conjugate control K_pto = w^2 (m + A) - K, B_pto = B (a negative stiffness
    at T = 7 s) absorbs |F_ex|^2 / (8 B), the most a heaving body can; the type's mean
    power over whole periods says the same."""
    period = 7.0
    w = 2 * math.pi / period
    _, _, mA, B, _ = _absorber("pto_damper", period, 0.05, 0.025, damping=1.0)
    k_opt = w**2 * mA - K33
    assert k_opt < 0
    # the transient decays as exp(-B t / (m + A)): below 1e-6 of the steady motion by 100 s
    t0 = 7.0 * 15
    ds, X, _, _, F = _absorber("pto_reactive", period, t0 + 4 * period, 0.05,
                               stiffness=k_opt, damping=B, mean_power_from=t0)
    best = abs(F) ** 2 / (8 * B)
    mean = float(first(ds, "pto_reactive_mean_power")[-1])
    record_property("mean_power_over_maximum", mean / best)
    assert abs(mean - best) / best < 2e-3, (mean, best)
    t = ds.time.values
    keep = t >= t0 - 1e-9
    power = first(ds, "pto_reactive_power")[keep]
    assert abs(np.trapezoid(power, t[keep]) / (t[-1] - t0) - best) / best < 2e-3
    # the absorbed power excludes the spring's: B v^2, not -f v
    v = first(ds, "pto_reactive_velocity")
    np.testing.assert_allclose(first(ds, "pto_reactive_power"), B * v**2,
                               rtol=1e-12, atol=1e-9 * best)
    z = ds.body_position.sel(body="b", xyz="z").values[keep] + 2.0
    proj = 2 * np.mean(z[:-1] * np.exp(1j * w * t[keep][:-1]))
    assert abs(proj - X) / abs(X) < 2e-3, (proj, X)


def test_passive_damper_power_is_the_linear_solutions() -> None:
    period, b_pto = 7.0, 4.0e5
    w = 2 * math.pi / period
    t0 = 40.0
    ds, X, *_ = _absorber("pto_damper", period, t0 + 3 * period, 0.05, damping=b_pto,
                          mean_power_from=t0)
    exact = 0.5 * b_pto * w**2 * abs(X) ** 2
    mean = float(first(ds, "pto_damper_mean_power")[-1])
    assert abs(mean - exact) / exact < 2e-3, (mean, exact)
    # position and velocity are the heave and its rate (the PTO axis is the node's z)
    np.testing.assert_allclose(first(ds, "pto_damper_position"),
                               ds.body_position.sel(body="b", xyz="z").values + 2.0,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(first(ds, "pto_damper_force"),
                               b_pto * first(ds, "pto_damper_velocity"),
                               rtol=1e-12, atol=1e-6)


@pytest.mark.parametrize("rotary", [False, True])
def test_absorbed_energy_closes_the_energy_balance(rotary: bool) -> None:
    """Released with a speed, a spring-mass oscillator with a PTO damper: the absorbed
    energy equals the exact solution's lost energy (1/2 v0^2 m minus the energy left)."""
    m, k, c, v0 = 2.0, 50.0, 1.5, 1.0
    s = frylinks.System(gravity=[0, 0, 0])
    if rotary:
        s.ground.add_node("hinge")
        s.add_body("b", mass=1.0, inertia=[1.0, 1.0, m], angular_velocity=[0, 0, v0])
        s.add_link("l", "revolute", master="ground.hinge", slave="b",
                   spring_damper={"stiffness": k})
        s.add_force("pto", "rotary_pto_damper", master="ground.hinge", slave="b", damping=c)
    else:
        s.ground.add_node("rail")
        s.add_body("b", mass=m, inertia=[1.0, 1.0, 1.0], velocity=[0, 0, v0])
        s.add_link("l", "prismatic", master="ground.rail", slave="b",
                   spring_damper={"stiffness": k})
        s.add_force("pto", "pto_damper", master="ground.rail", slave="b", damping=c)
    name = "rotary_pto_damper" if rotary else "pto_damper"
    for integrator in ("rk4", "generalized_alpha"):
        ds = s.run(t_end=4.0, dt=0.002, integrator=integrator)
        t = ds.time.values
        wn = math.sqrt(k / m)
        zeta = c / (2 * math.sqrt(k * m))
        wd = wn * math.sqrt(1 - zeta**2)
        x = v0 / wd * np.exp(-zeta * wn * t) * np.sin(wd * t)
        xdot = v0 * np.exp(-zeta * wn * t) * (np.cos(wd * t) - zeta * wn / wd * np.sin(wd * t))
        lost = 0.5 * m * v0**2 - (0.5 * m * xdot**2 + 0.5 * k * x**2)
        energy = first(ds, f"{name}_energy")
        tol = 1e-8 if integrator == "rk4" else 2e-4
        assert np.max(np.abs(energy - lost)) < tol * 0.5 * m * v0**2, integrator
        assert np.allclose(first(ds, f"{name}_position"), x,
                           rtol=0, atol=10 * tol)


def test_coulomb_pto_decelerates_at_f_over_m_and_stops_without_chatter() -> None:
    """F = 10 N on 2 kg sliding at 3 m/s: v = 3 - 5 t until about 0.6 s, then rest."""
    m, force, v0, vs = 2.0, 10.0, 3.0, 1e-3
    s = frylinks.System(gravity=[0, 0, 0])
    s.ground.add_node("rail")
    s.add_body("b", mass=m, inertia=[1.0, 1.0, 1.0], velocity=[0, 0, v0])
    s.add_link("l", "prismatic", master="ground.rail", slave="b")
    s.add_force("pto", "pto_coulomb", master="ground.rail", slave="b", force=force,
                smoothing_velocity=vs)
    ds = s.run(t_end=1.2, dt=0.005, integrator="generalized_alpha")
    t = ds.time.values
    v = first(ds, "pto_coulomb_velocity")
    sliding = t < 0.55
    np.testing.assert_allclose(v[sliding], v0 - force / m * t[sliding], rtol=0, atol=1e-6)
    after = t > 0.65
    # at rest: the velocity within the Newton tolerance of 0 and the force a thousandth
    # of F, not flipping between +F and -F from step to step (chatter)
    assert np.all(np.abs(v[after]) < 1e-3 * vs)
    assert np.all(np.abs(first(ds, "pto_coulomb_force")[after]) < 1e-3 * force)
    energy = first(ds, "pto_coulomb_energy")[-1]
    assert energy == pytest.approx(0.5 * m * v0**2, rel=1e-4)


def test_a_python_control_law_replaces_the_law_on_the_python_path() -> None:
    """``function`` gives the force (here the damper's own law, f = B v): the same motion
    as the compiled damper, on the Python path, which the model says why it takes."""
    runs = {}
    for name, law in (("compiled", {"damping": 3.0}),
                      ("python", {"damping": 0.0, "function": lambda t, x, v: 3.0 * v})):
        s = frylinks.System(gravity=[0, 0, 0])
        s.ground.add_node("rail")
        s.add_body("b", mass=2.0, inertia=[1.0, 1.0, 1.0], velocity=[0, 0, 1.0])
        s.add_link("l", "prismatic", master="ground.rail", slave="b",
                   spring_damper={"stiffness": 50.0})
        s.add_force("pto", "pto_damper", master="ground.rail", slave="b", **law)
        if name == "python":
            with pytest.warns(UserWarning, match="control law is a Python function"):
                runs[name] = s.run(t_end=1.0, dt=0.01)
        else:
            runs[name] = s.run(t_end=1.0, dt=0.01)
    for var in ("body_position", "pto_damper_power", "pto_damper_energy"):
        np.testing.assert_allclose(runs["python"][var].values, runs["compiled"][var].values,
                                   rtol=1e-12, atol=1e-14)
