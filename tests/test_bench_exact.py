"""The exact solutions of benchmarks/exact.py, used by the peer and frylinks benchmarks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ellipj, ellipk

#: Compiled, not on the interpreted tier of the rest of the suite (tests/conftest.py).
pytestmark = pytest.mark.compiled

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "exact.py"
_spec = importlib.util.spec_from_file_location("bench_exact", _PATH)
exact = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(exact)

EPS = np.finfo(float).eps


def _second_difference(f, t, h):
    return (f(t + h) - 2.0 * f(t) + f(t - h)) / h**2


def _first_difference(f, t, h):
    return (f(t + h) - f(t - h)) / (2.0 * h)


@pytest.mark.parametrize("theta0", [0.01, 0.02])
def test_pendulum_small_amplitude(theta0):
    # phi = theta0 cos(omega0 t) + O(theta0^3): the frequency is lowered by theta0^2/16
    # (a phase error theta0^3 omega0 t / 16) plus a third harmonic of amplitude theta0^3/192
    omega0 = 3.0
    t = np.linspace(0.0, 4 * np.pi / omega0, 2001)  # two periods
    err = np.abs(exact.pendulum_angle(t, theta0, omega0) - theta0 * np.cos(omega0 * t)).max()
    bound = theta0**3 * (omega0 * t[-1] / 16 + 1 / 192)
    assert err < bound
    assert err > 0.1 * bound  # the O(theta0^3) term is there, not a smaller one


def test_pendulum_small_amplitude_error_is_cubic():
    omega0, t = 3.0, np.linspace(0.0, 5.0, 1001)

    def err(theta0):
        phi = exact.pendulum_angle(t, theta0, omega0)
        return np.abs(phi - theta0 * np.cos(omega0 * t)).max()

    assert err(0.02) / err(0.01) == pytest.approx(8.0, rel=0.01)


def test_pendulum_large_amplitude_period_and_start():
    theta0, omega0 = np.pi / 2, np.sqrt(9.81 / 1.001)
    period = 4 * ellipk(np.sin(theta0 / 2) ** 2) / omega0
    phi = exact.pendulum_angle(np.array([0.0, period / 4, period / 2, 3 * period / 4, period,
                                         3 * period]), theta0, omega0)
    np.testing.assert_allclose(phi, [theta0, 0.0, -theta0, 0.0, theta0, theta0], atol=1e-12)
    # decreasing first, and the period is longer than the small-amplitude one (1.18 times)
    assert exact.pendulum_angle(1e-3, theta0, omega0) < theta0
    assert period * omega0 / (2 * np.pi) == pytest.approx(1.18034060, rel=1e-8)


def test_pendulum_satisfies_ode():
    # central second difference: truncation h^2/12 max|phi''''| with
    # phi'''' = omega0^2 (sin(phi) phi'^2 - cos(phi) phi''), |phi'| <= 2 omega0,
    # |phi''| <= omega0^2, so |phi''''| <= 5 omega0^4; round-off 4 eps pi / h^2
    theta0, omega0, h = np.pi / 2, 3.0, 1e-3
    t = np.linspace(0.0, 10.0, 5001)

    def phi(s):
        return exact.pendulum_angle(s, theta0, omega0)

    residual = _second_difference(phi, t, h) + omega0**2 * np.sin(phi(t))
    tol = 5 * omega0**4 * h**2 / 12 + 4 * EPS * np.pi / h**2
    assert np.abs(residual).max() < tol


def test_pendulum_energy_conserved():
    # phi' from the chain rule of sin(phi/2) = k sn(K - omega0 t), independent of
    # pendulum_angle's own code path: phi' = -2 k omega0 cn dn / cos(phi/2)
    theta0, omega0 = np.pi / 2, 3.0
    k = np.sin(theta0 / 2)
    t = np.linspace(0.0, 10.0, 5001)
    phi = exact.pendulum_angle(t, theta0, omega0)
    _, cn, dn, _ = ellipj(ellipk(k * k) - omega0 * t, k * k)
    rate = -2 * k * omega0 * cn * dn / np.cos(phi / 2)
    energy = 0.5 * rate**2 - omega0**2 * np.cos(phi)
    np.testing.assert_allclose(energy, -omega0**2 * np.cos(theta0), atol=1e-12 * omega0**2)
    # and the rate agrees with a finite difference (error h^2/6 max|phi'''| <= h^2 omega0^3)
    h = 1e-4
    fd = _first_difference(lambda s: exact.pendulum_angle(s, theta0, omega0), t, h)
    assert np.abs(fd - rate).max() < omega0**3 * h**2 + 4 * EPS * np.pi / h


@pytest.mark.parametrize("zeta", [0.1, 1.0, 2.0])
def test_oscillator_step_satisfies_ode(zeta):
    m, k, force = 1.0, 100.0, 10.0
    c = 2 * zeta * np.sqrt(k * m)
    wn, h = np.sqrt(k / m), 1e-4
    t = np.linspace(h, 10.0, 4001)

    def x(s):
        return exact.oscillator_step(s, m, k, c, force)

    residual = m * _second_difference(x, t, h) + c * _first_difference(x, t, h) + k * x(t)
    # x's derivatives are at most about (F/k) (2 wn)^n: truncation m h^2/12 x'''' + c h^2/6
    # x''' plus round-off 4 eps (F/k) / h^2, in units of F
    scale = force / k
    tol = scale * (m * h**2 / 12 * (2 * wn) ** 4 + c * h**2 / 6 * (2 * wn) ** 3
                   + 4 * m * EPS / h**2)
    assert np.abs(residual - force).max() < tol
    # initial conditions: x(0) = 0, x'(0) = 0 (so x(h) = F h^2 / (2 m) + O(h^3))
    assert x(0.0) == 0.0
    assert x(h) == pytest.approx(force * h**2 / (2 * m), rel=10 * wn * h)
    # the static deflection once the slowest decay (exp(-t) for zeta = 0.1) is gone
    assert x(60.0) == pytest.approx(force / k, rel=1e-12)


def test_oscillator_step_continuous_at_critical_damping():
    m, k, force = 1.0, 100.0, 10.0
    t = np.linspace(0.0, 3.0, 301)
    critical = exact.oscillator_step(t, m, k, 20.0, force)
    for c in (20.0 * (1 - 1e-6), 20.0 * (1 + 1e-6)):
        np.testing.assert_allclose(exact.oscillator_step(t, m, k, c, force), critical,
                                   atol=1e-6 * force / k)


def test_oscillator_step_underdamped_overshoot():
    # peak overshoot exp(-pi zeta / sqrt(1 - zeta^2)) at t = pi / wd
    m, k, c, force = 1.0, 100.0, 2.0, 10.0
    zeta, wn = 0.1, 10.0
    t_peak = np.pi / (wn * np.sqrt(1 - zeta**2))
    peak = exact.oscillator_step(t_peak, m, k, c, force)
    assert peak == pytest.approx(force / k * (1 + np.exp(-np.pi * zeta / np.sqrt(1 - zeta**2))),
                                 rel=1e-12)


def test_rigid_energy():
    mass = [1.0, 2.0]
    inertia = [[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]]
    position = [[0.0, 0.0, 1.0], [5.0, 0.0, -2.0]]
    velocity = [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    omega = [[1.0, 1.0, 1.0], [0.0, 0.0, 2.0]]
    expected = (0.5 * 1 + 0.5 * 2 * 4) + 0.5 * (1 + 2 + 3) + 0.5 * 0.5 * 4 + 9.81 * (1 - 4)
    assert exact.rigid_energy(mass, inertia, position, velocity, omega) == pytest.approx(expected)
