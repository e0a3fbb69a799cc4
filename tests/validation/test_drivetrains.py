"""Drivetrain PTOs and end stops against hand-solved circuits and closed forms.

* ``pto_generator`` on a sinusoidal stroke (a prescribed displacement): the current,
  force, copper and iron losses and electrical power of the closed form at every
  sample, and the mean powers over whole periods (the energies the run integrates);
  a controlled, reactive generator likewise.
* ``pto_hydraulic`` at constant piston speed and on the sinusoidal stroke: pressures,
  flows and shaft speed (through the check valves' reversals) against the circuit's
  equations solved independently
  (scipy's ``solve_ivp`` on the hand-written ODEs of PTO-Sim's non-compressible model);
  the energy balance ``E_mech = E_elec + E_loss + dE_stored`` to integration error.
* ``end_stop``: a mass at constant speed into a stop, the closed form of the damped
  oscillator until the unilateral contact opens: peak force, contact time, rebound
  speed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from frylinks_forces.drivetrain import HYDRAULIC_EXAMPLE
from scipy.integrate import solve_ivp

from frylinks import System

pytestmark = pytest.mark.compiled

AMP, PERIOD = 0.4, 5.0  # the stroke: x = AMP sin(OMEGA t) [m, s]
OMEGA = 2 * math.pi / PERIOD


#: The generator of the tests that do not look at it (the motion is prescribed: what a
#: drivetrain does changes no other's numbers)
GENERATOR = {"force_constant": 100.0, "coil_resistance": 1.0, "load_resistance": 1.0}


def driven(generator: dict | None = None, hydraulic: dict | None = None,
           mass: float = 50.0, amplitude: float = AMP, omega: float = OMEGA,
           impact: dict | None = None) -> System:
    """A body driven along z by a prescribed displacement, x = amplitude sin(omega t) (no
    gravity, so nothing moves it across), with a generator and a hydraulic PTO between
    the ground and it along z; and beside it a free mass on a slide below an end stop at
    z = 0 (``impact``: its ``velocity`` up, the stop's ``stiffness`` and ``damping``; at
    rest, it never reaches the stop). Every test here runs this one kind of model (one
    compile on a new machine; a slow sine of large amplitude is a stroke at nearly
    constant speed)."""
    s = System(gravity=[0, 0, 0])
    signal = {"type": "sine", "amplitude": amplitude, "omega": omega}
    v0 = amplitude * omega
    s.add_body("piston", mass=mass, inertia=[1.0, 1.0, 1.0], velocity=[0, 0, v0])
    s.ground.add_node("o")
    s.add_link("drive", "prescribed_displacement", master="ground.o", slave="piston",
               signal=signal)
    s.add_force("gen", "pto_generator", master="ground.o", slave="piston",
                **(generator or GENERATOR))
    s.add_force("hyd", "pto_hydraulic", master="ground.o", slave="piston",
                **(hydraulic or HYDRAULIC_EXAMPLE))
    hit = {"velocity": 0.0, "stiffness": 2.0e5, "damping": 800.0, "mass": 50.0,
           **(impact or {})}
    s.add_body("mass", mass=hit["mass"], inertia=[1.0, 1.0, 1.0], position=[0, 0, -0.1],
               velocity=[0, 0, hit["velocity"]])
    s.ground.add_node("stop")
    s.add_link("slide", "prismatic", master="ground.stop", slave="mass")
    s.add_force("stop", "end_stop", master="ground.stop", slave="mass", upper=0.0,
                stiffness=hit["stiffness"], damping=hit["damping"])
    return s


def test_generator_with_a_resistive_load() -> None:
    k, rc, rl, cfe = 800.0, 0.6, 2.4, 30.0
    ds = driven({"force_constant": k, "coil_resistance": rc, "load_resistance": rl,
                 "iron_loss": cfe, "mean_power_from": 0.25 * PERIOD}
                ).run(t_end=1.25 * PERIOD, dt=0.005)
    t = ds.time.values
    v = AMP * OMEGA * np.cos(OMEGA * t)
    current = k * v / (rc + rl)
    out = {name: ds[f"pto_generator_{name}"].isel(pto_generator_element=0).values
           for name in ("velocity", "current", "force", "copper_loss", "iron_loss",
                        "electrical_power", "mechanical_power", "mean_power",
                        "mean_electrical_power")}
    scale = k * AMP * OMEGA / (rc + rl)
    np.testing.assert_allclose(out["velocity"], v, atol=1e-9)
    np.testing.assert_allclose(out["current"], current, atol=1e-8 * scale)
    np.testing.assert_allclose(out["force"], k * current + cfe * v, atol=1e-8 * k * scale)
    np.testing.assert_allclose(out["copper_loss"], current**2 * rc, atol=1e-8 * scale**2)
    np.testing.assert_allclose(out["iron_loss"], cfe * v**2, atol=1e-8)
    np.testing.assert_allclose(out["electrical_power"], current**2 * rl,
                               atol=1e-8 * scale**2 * rl)
    np.testing.assert_allclose(out["mechanical_power"],
                               current**2 * (rc + rl) + cfe * v**2, rtol=1e-9, atol=1e-6)
    # over a whole period, from a time of zero velocity: the means of the closed form
    # (the run's energy integrals; a window starting at nonzero power inside a step
    # would count part of its last stage, an error up to P dt / 6)
    va = AMP * OMEGA
    mean_elec = 0.5 * (k * va) ** 2 * rl / (rc + rl) ** 2
    mean_mech = 0.5 * (k * va) ** 2 / (rc + rl) + 0.5 * cfe * va**2
    assert out["mean_electrical_power"][-1] == pytest.approx(mean_elec, rel=1e-7)
    assert out["mean_power"][-1] == pytest.approx(mean_mech, rel=1e-7)
    eff = ds.pto_generator_efficiency.isel(pto_generator_element=0).values
    assert eff[-1] == pytest.approx(mean_elec / mean_mech, rel=1e-7)
    # the shared PTO variables: each drivetrain's mechanical and electrical power over
    # pto (the prescribed_displacement link, without a spring-damper, is none)
    assert list(ds.pto.values) == ["gen", "hyd"]
    np.testing.assert_array_equal(ds.absorbed_power.sel(pto="gen"), out["mechanical_power"])
    np.testing.assert_array_equal(ds.electrical_power.sel(pto="gen"), out["electrical_power"])
    np.testing.assert_array_equal(
        ds.electrical_power.sel(pto="hyd"),
        ds.pto_hydraulic_electrical_power.isel(pto_hydraulic_element=0))


def test_generator_under_reactive_control() -> None:
    """f_em = K x + B v with K < 0: the converter draws power back in part of each cycle;
    over a period the electrical power is B v^2's mean less the copper loss."""
    k, rc, stiffness, damping = 500.0, 0.8, -2.0e3, 1.5e3
    ds = driven({"force_constant": k, "coil_resistance": rc, "damping": damping,
                 "stiffness": stiffness}).run(t_end=PERIOD, dt=0.005)
    t = ds.time.values
    x, v = AMP * np.sin(OMEGA * t), AMP * OMEGA * np.cos(OMEGA * t)
    em = stiffness * x + damping * v
    out = ds.pto_generator_electrical_power.isel(pto_generator_element=0).values
    np.testing.assert_allclose(out, em * v - (em / k) ** 2 * rc, atol=1e-6 * np.abs(em * v).max())
    assert out.min() < 0  # power drawn from the grid while the spring gives it back
    assert ds.pto_generator_force.isel(pto_generator_element=0).values == pytest.approx(
        em, abs=1e-8 * np.abs(em).max())


def _circuit(p: dict, speed: Callable[[float], float], t_end: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """PTO-Sim's non-compressible circuit at the piston speed ``speed(t)``, by hand: the
    fluid volumes of the two accumulators and the shaft speed, solved by scipy."""
    n = p.get("polytropic_index", 1.4)

    def pressure(total: float, pre: float, fluid: float) -> float:
        return pre * (total / (total - fluid)) ** n

    def fluid(total: float, pre: float, at: float) -> float:
        return total * (1 - (pre / at) ** (1 / n))

    disp = p["motor_displacement"]

    def rates(t: float, y: np.ndarray) -> list[float]:
        vh, vl, w = y
        v = speed(t)
        q = p["piston_area"] * v * math.tanh(v / 0.01)   # rectified by the check valves
        dp = (pressure(p["high_volume"], p["high_precharge"], vh)
              - pressure(p["low_volume"], p["low_precharge"], vl))
        qm = disp * w
        return [q - qm, qm - q,
                (disp * dp - p["generator_damping"] * w - p["friction"] * w) / p["inertia"]]

    y0 = [fluid(p["high_volume"], p["high_precharge"], p["high_pressure"]),
          fluid(p["low_volume"], p["low_precharge"], p["low_pressure"]), 0.0]
    t = np.linspace(0.0, t_end, 201)
    # (max_step: the valves switch over a hundredth of a second at each reversal)
    sol = solve_ivp(rates, (0.0, t_end), y0, t_eval=t, rtol=1e-11, atol=1e-12,
                    method="DOP853", max_step=1e-3)
    vh, vl, w = sol.y
    ph = np.array([pressure(p["high_volume"], p["high_precharge"], x) for x in vh])
    pl = np.array([pressure(p["low_volume"], p["low_precharge"], x) for x in vl])
    return t, np.stack([ph, pl, w])


def test_hydraulic_circuit_at_constant_piston_speed() -> None:
    """A stroke at 0.5 m/s (a sine of period 2 pi / 1e-3 s: 2e-4 slower at the end of
    20 s, which the reference follows), against scipy's solution of the hand-written
    circuit: the high side charges through its check valve, the shaft spins up."""
    speed, omega, t_end = 0.5, 1.0e-3, 20.0
    ds = driven(amplitude=speed / omega, omega=omega).run(t_end=t_end, dt=0.01)
    t, (ph, pl, w) = _circuit(HYDRAULIC_EXAMPLE, lambda t: speed * math.cos(omega * t),
                              t_end)
    el = {"pto_hydraulic_element": 0}
    got = ds.sel(time=t, method="nearest")
    np.testing.assert_allclose(got.pto_hydraulic_high_pressure.isel(el), ph, rtol=TOL)
    np.testing.assert_allclose(got.pto_hydraulic_low_pressure.isel(el), pl, rtol=TOL)
    np.testing.assert_allclose(got.pto_hydraulic_motor_speed.isel(el), w, rtol=TOL,
                               atol=TOL * np.abs(w).max())
    area = HYDRAULIC_EXAMPLE["piston_area"]
    np.testing.assert_allclose(got.pto_hydraulic_force.isel(el), area * (ph - pl),
                               rtol=TOL)
    v = speed * np.cos(omega * t)
    np.testing.assert_allclose(got.pto_hydraulic_flow.isel(el), area * v, rtol=1e-9)
    assert w[-1] > 10.0 and ph[-1] > ph[0]  # the shaft spins up; the high side charges


def test_hydraulic_circuit_on_a_sinusoidal_stroke() -> None:
    """The circuit driven by the stroke of the other tests (one compiled kind of model
    for them all), against scipy's solution of the hand-written circuit at the same
    piston speed: the check valves rectify each reversal."""
    t_end = 20.0
    ds = driven().run(t_end=t_end, dt=0.005)
    t, (ph, pl, w) = _circuit(HYDRAULIC_EXAMPLE,
                              lambda t: AMP * OMEGA * math.cos(OMEGA * t), t_end)
    el = {"pto_hydraulic_element": 0}
    got = ds.sel(time=t, method="nearest")
    np.testing.assert_allclose(got.time, t, atol=1e-9)
    np.testing.assert_allclose(got.pto_hydraulic_high_pressure.isel(el), ph, rtol=TOL)
    np.testing.assert_allclose(got.pto_hydraulic_low_pressure.isel(el), pl, rtol=TOL)
    np.testing.assert_allclose(got.pto_hydraulic_motor_speed.isel(el), w, rtol=TOL,
                               atol=TOL * np.abs(w).max())
    area = HYDRAULIC_EXAMPLE["piston_area"]
    v = AMP * OMEGA * np.cos(OMEGA * t)
    np.testing.assert_allclose(got.pto_hydraulic_force.isel(el),
                               area * (ph - pl) * np.tanh(v / 0.01),
                               atol=TOL * area * np.abs(ph - pl).max())
    np.testing.assert_allclose(got.pto_hydraulic_flow.isel(el), area * v * np.tanh(v / 0.01),
                               atol=1e-9 * area * AMP * OMEGA)
    assert w[-1] > 10.0 and ph[-1] > ph[0]  # the shaft spins up; the high side charges


#: Agreement with scipy's circuit through the valves' reversals (rk4 at dt = 5 ms;
#: measured 3e-13 on the pressures, 8e-13 on the shaft speed)
TOL = 1e-9


def test_hydraulic_energy_balance() -> None:
    """On a sinusoidal stroke with motor and generator losses: the mechanical energy
    taken equals the electrical energy plus the losses plus the change of what the
    accumulators' gas and the shaft store, to the integration's error."""
    params = {**HYDRAULIC_EXAMPLE, "motor_efficiency": 0.9, "generator_efficiency": 0.93,
              "friction": 0.4}
    ds = driven(hydraulic=params).run(t_end=30.0, dt=0.01)
    el = {"pto_hydraulic_element": 0}
    mech = ds.pto_hydraulic_energy.isel(el).values
    elec = ds.pto_hydraulic_electrical_energy.isel(el).values
    loss = ds.pto_hydraulic_loss_energy.isel(el).values
    stored = ds.pto_hydraulic_stored_energy.isel(el).values
    balance = mech - elec - loss - (stored - stored[0])
    assert elec[-1] > 0.1 * mech[-1] > 0
    assert np.abs(balance).max() < 1e-7 * mech[-1], np.abs(balance).max() / mech[-1]
    # the losses by kind add up to the lost energy's rate
    rates = sum(ds[f"pto_hydraulic_{k}_loss"].isel(el).values
                for k in ("motor", "friction", "generator"))
    np.testing.assert_allclose(np.gradient(loss, ds.time.values)[5:-5], rates[5:-5],
                               rtol=2e-3, atol=1e-3 * rates.max())


def test_end_stop_impact() -> None:
    """A mass at constant speed hits the upper stop at x = 0: while in contact it is a
    damped oscillator ``m d'' + c d' + k d = 0`` from ``d = 0, d' = v0``; the contact
    opens where ``k d + c d'`` falls to zero (before ``d`` does), at the speed of the
    closed form."""
    m, k, c, v0 = 50.0, 2.0e5, 800.0, 1.2
    ds = driven(impact={"mass": m, "stiffness": k, "damping": c, "velocity": v0}
                ).run(t_end=0.25, dt=1e-5)
    wn = math.sqrt(k / m)
    zeta = c / (2 * math.sqrt(k * m))
    wd = wn * math.sqrt(1 - zeta**2)

    def contact(tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        e = np.exp(-zeta * wn * tau)
        d = v0 / wd * e * np.sin(wd * tau)
        rate = v0 * e * (np.cos(wd * tau) - zeta * wn / wd * np.sin(wd * tau))
        return d, rate

    # the contact opens where k d + c d' = 0: by bisection on the closed form
    lo, hi = 0.5 * math.pi / wd, math.pi / wd
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        d, rate = contact(np.array(mid))
        lo, hi = (mid, hi) if k * d + c * rate > 0 else (lo, mid)
    t_open = lo
    t_hit = 0.1 / v0
    tau = np.linspace(0, t_open, 2001)
    d, rate = contact(tau)
    peak = (k * d + c * rate).max()
    f = ds.end_stop_force.isel(end_stop_element=0).values
    assert f.max() == pytest.approx(peak, rel=2e-3)
    v = ds.body_velocity.sel(body="mass").values[:, 2]
    rebound = contact(np.array(t_open))[1]
    assert v[-1] == pytest.approx(float(rebound), rel=1e-3)
    touching = ds.time.values[f > 0]
    assert touching[0] - t_hit < 2e-5 and touching[-1] - (t_hit + t_open) == pytest.approx(
        0.0, abs=2e-5)
    depth = ds.end_stop_penetration.isel(end_stop_element=0).values
    assert depth.max() == pytest.approx(contact(tau)[0].max(), rel=1e-3)
