"""The radiation memory's two methods against exact answers and each other.

* A kernel with a known exact state space (a damped cosine, two states): the direct
  convolution's memory force for a prescribed velocity converges to the exact integral
  at second order in the time step (the trapezoidal rule), the fit reproduces it to
  its tolerance, and the fit's error (:func:`frylinks_marine.radiation.fit_errors`)
  bounds what is measured.
* The IEA Task 10 sphere's heave decay (tests/validation/test_marine.py) with the
  convolution: the published codes' trough, peak and period, and the state space's
  motion within the fit tolerance.
* RM3 with body-to-body interaction: convolution against state space, both bodies' heave
  and the mean absorbed power within 0.5 %.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from frylinks_marine.bem import EXAMPLE_DATA
from frylinks_marine.radiation import RadiationStateSpace, fit_errors
from frylinks_marine.radiation_kernels import (
    RadiationMemory,
    convolution_memory,
    radiation_accept,
)
from scipy.integrate import quad

import frylinks
from frylinks.kinematics import NodeFrames

CASES = Path(__file__).resolve().parents[2] / "cases"

# K(t) = a exp(-alpha t) cos(beta t): the memory of a heaving body in miniature
AMP, ALPHA, BETA = 4.0e4, 0.6, 1.9
OMEGA = 1.3  # the prescribed velocity u(t) = sin(OMEGA t) [m/s]


def kernel(t: np.ndarray) -> np.ndarray:
    return AMP * np.exp(-ALPHA * t) * np.cos(BETA * t)


def exact_memory(t: float) -> float:
    """int_0^t K(t - s) u(s) ds by adaptive quadrature (to 1e-10 relative)."""
    return quad(lambda s: float(kernel(np.array(t - s))) * math.sin(OMEGA * s), 0.0, t,
                epsabs=0.0, epsrel=1e-10, limit=200)[0]


class _Probe(RadiationMemory):
    """One element, no state space: the convolution's kernels on their own."""

    name = "probe"

    def __init__(self) -> None:
        super().__init__([{}], [])
        self.A, self.B, self.C = np.zeros((0, 0)), np.zeros((0, 6)), np.zeros((6, 0))
        self.units = []
        self._ratio = np.ones(1)


def _frames(u: float) -> NodeFrames:
    z = np.zeros((1, 3))
    v = np.array([[0.0, 0.0, u]])
    return NodeFrames(z, np.eye(3)[None], np.array([[1.0, 0, 0, 0]]), v, z.copy(), z.copy())


def convolution_errors(dt: float, t_end: float = 12.0) -> tuple[float, float]:
    """The largest error of the convolution (heave on heave) against the exact integral:
    at the accepted times, and at rk4's mid-step stages (the stage's own velocity)."""
    probe = _Probe()
    length = 40.0  # exp(-0.6 * 40): far below round-off of the peak
    table = kernel(np.arange(int(2 * length / dt) + 1) * dt / 2)
    probe.set_convolution(np.array([2]), np.array([2]), [table], dt)
    data = probe.kernel_data()
    y = np.zeros(6)
    scale = AMP / ALPHA
    at_steps = mid = 0.0
    for n in range(round(t_end / dt) + 1):
        t = n * dt
        radiation_accept(data, (_frames(math.sin(OMEGA * t)),), t, np.zeros(0), np.zeros(0))
        if n % 10 == 5:
            y[:] = 0.0
            convolution_memory(data, (_frames(math.sin(OMEGA * t)),), t, y)
            at_steps = max(at_steps, abs(y[2] - exact_memory(t)) / scale)
            tm = t + dt / 2
            y[:] = 0.0
            convolution_memory(data, (_frames(math.sin(OMEGA * tm)),), tm, y)
            mid = max(mid, abs(y[2] - exact_memory(tm)) / scale)
    return at_steps, mid


def test_convolution_converges_at_second_order_to_the_exact_memory(record_property) -> None:
    coarse, coarse_mid = convolution_errors(0.05)
    fine, fine_mid = convolution_errors(0.025)
    record_property("convolution_error_dt_0.05", coarse)
    record_property("convolution_error_dt_0.025", fine)
    assert coarse < 2e-4 and coarse_mid < 2e-4
    # the trapezoidal rule: a quarter of the error for half the step
    assert 3.5 < coarse / fine < 4.5 and 3.0 < coarse_mid / fine_mid < 5.0


def test_fit_of_a_known_kernel_and_its_error_bound(record_property) -> None:
    """The damped cosine has an exact two-state realisation: the fit finds it, to far
    below the tolerance, and the memory force of the fitted system (integrated exactly)
    equals the exact integral within the error the fit reports."""
    dt = math.pi / (4 * 8.0)
    t = np.arange(int(40.0 / dt) + 1) * dt
    samples = np.zeros((t.size, 1, 1))
    samples[:, 0, 0] = kernel(t)
    ss = RadiationStateSpace.from_impulse_response(t, samples, tol=0.02)
    assert ss.order[0, 0] == 2 and ss.fit_error[0, 0] < 1e-6
    assert fit_errors(ss, t, samples)[0, 0] == pytest.approx(ss.fit_error[0, 0], rel=1e-3,
                                                               abs=1e-9)
    # a fit held to one state misses: its reported error bounds the memory force's
    coarse = RadiationStateSpace.from_impulse_response(t, samples, tol=0.02, max_order=1,
                                                       warn=False)
    bound = float(coarse.fit_error[0, 0])
    assert 0.02 < bound < 1.0
    a, b, c = coarse.A, coarse.B[:, 0], coarse.C[0]
    # steady harmonic response of the one-state system: |C (i w - A)^-1 B - K^(w)| U
    w = OMEGA
    fitted = complex(c @ np.linalg.solve(1j * w * np.eye(a.shape[0]) - a, b))
    exact = AMP * (ALPHA + 1j * w) / ((ALPHA + 1j * w) ** 2 + BETA**2)
    x = np.linspace(0.0, 8.0, 4001)
    b_max = float(np.max((AMP * (ALPHA + 1j * x) / ((ALPHA + 1j * x) ** 2 + BETA**2)).real))
    error = abs(fitted - exact) / b_max
    record_property("one_state_harmonic_error", error)
    record_property("one_state_reported_error", bound)
    assert error <= bound * 1.02


def _sphere(method: str) -> frylinks.System:
    s = frylinks.System()
    s.add_body("b", mass=2.618e5, inertia=[1e6, 1e6, 1e6], position=[0, 0, -1.0])
    s.configure("environment", water_density=1000.0)
    s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=EXAMPLE_DATA,
                equilibrium=[0, 0, -2.0])
    s.add_force("rad", "radiation", body="b", hydrodynamics=EXAMPLE_DATA, method=method)
    return s


def test_sphere_decay_convolution_against_state_space(record_property) -> None:
    """Task 10's heave decay: the convolution meets the published codes (trough -0.87 m
    at 2.2 s, peak 0.64 m at 4.4 s), and the state space's motion lies within its fit
    tolerance of it."""
    runs = {m: _sphere(m).run(t_end=9.0, dt=0.01) for m in ("convolution", "state_space")}
    z = {m: ds.body_position.sel(body="b", xyz="z").values + 2.0 for m, ds in runs.items()}
    t = runs["convolution"].time.values
    zc = z["convolution"]
    i = int(np.argmin(zc[t < 3.5]))
    j = i + int(np.argmax(zc[i:][t[i:] < 6.0]))
    assert zc[i] == pytest.approx(-0.87, abs=0.02) and t[i] == pytest.approx(2.2, abs=0.1)
    assert zc[j] == pytest.approx(0.64, abs=0.02) and t[j] == pytest.approx(4.4, abs=0.1)
    gap = float(np.abs(z["state_space"] - zc).max())
    record_property("sphere_decay_heave_gap_m", gap)
    assert gap < 0.02 * 1.0  # (1 m drop)
    memory = {m: ds.radiation_memory_force.sel(radiation_element="rad", dof="tz").values
              for m, ds in runs.items()}
    peak = float(np.abs(memory["convolution"]).max())
    record_property("sphere_decay_memory_gap", float(
        np.abs(memory["state_space"] - memory["convolution"]).max()) / peak)
    assert np.abs(memory["state_space"] - memory["convolution"]).max() < 0.02 * peak
    entries = json.loads(runs["convolution"].attrs["radiation_memory"])
    assert {e["method"] for e in entries} == {"convolution"}
    assert any(e["row"] == "b heave" and e["column"] == "b heave" for e in entries)


def test_rm3_with_interaction_convolution_against_state_space(record_property) -> None:
    """RM3 in WEC-Sim's regular wave with body-to-body interaction: both methods give
    the float's and the spar's heave and the mean absorbed power within 0.5 %."""
    out = {}
    for method in ("convolution", "state_space"):
        overrides = {f"forces.{f}.{key}": value for f in ("float_radiation", "spar_radiation")
                     for key, value in (("method", method), ("interaction", True))}
        out[method] = frylinks.run(CASES / "rm3.yaml", t_end=120.0, overrides=overrides)
    conv, ss = out["convolution"], out["state_space"]
    keep = conv.time.values >= 60.0
    for body in ("float", "spar"):
        zc = conv.body_position.sel(body=body, xyz="z").values[keep]
        zs = ss.body_position.sel(body=body, xyz="z").values[keep]
        rng = float(zc.max() - zc.min())
        record_property(f"rm3_{body}_heave_gap", float(np.abs(zs - zc).max()) / rng)
        assert np.abs(zs - zc).max() < 0.005 * rng
    pc = float(conv.absorbed_power.values[keep].mean())
    ps = float(ss.absorbed_power.values[keep].mean())
    record_property("rm3_power_convolution_kw", pc / 1e3)
    record_property("rm3_power_state_space_kw", ps / 1e3)
    assert abs(pc - ps) < 0.005 * abs(pc)
