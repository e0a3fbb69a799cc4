"""``nonlinear_hydrostatics``: the pressure on the body's mesh at its pose each step.

* free-floating equilibrium: a sphere released from the wrong draft, damped, settles
  where its weight equals the buoyancy of its mesh (found here by bisection on the
  mesh's displaced volume, independently of the run);
* small-amplitude limit: the heave period with the nonlinear force equals the one with
  ``linear_hydrostatics`` at the mesh's waterplane stiffness ``rho g A_wp``;
* Froude-Krylov in a regular wave on a fixed submerged sphere: the force equals the
  incident pressure integrated by Gauss quadrature on the exact sphere;
* ``wave_interval``: the incident wave's sums made once per interval and interpolated
  give the force of the sums made at every evaluation, within the interpolation's
  error bound, and the heaving sphere's motion in an irregular sea within 0.5 %.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from frylinks_marine.hydrostatics import wetted_part
from scipy.optimize import brentq

from frylinks import System
from frylinks.model.geometry import body_mesh

pytestmark = pytest.mark.compiled

RHO, G, R = 1025.0, 9.81, 1.0
RES = 48


def sphere_system(mass: float, z0: float, damping: float = 0.0, *, linear_k: float | None = None,
                  waves: dict | None = None, fixed: bool = False,
                  froude_krylov: bool = False, wave_interval: float = 0.0) -> System:
    s = System(gravity=[0, 0, -G])
    s.configure("environment", water_density=RHO, waves=waves)
    s.add_body("ball", mass=mass, inertia=[1.0, 1.0, 1.0], position=[0, 0, z0],
               geometry={"shape": "sphere", "radius": R})
    # the ball held or heaving, and an idle body on the other link type: every model here
    # uses both types, so the tests share one compiled kind of model
    # (turned as its link's master node: the run used to turn it silently to assemble it)
    s.add_body("idle", mass=1.0, inertia=[1.0, 1.0, 1.0], position=[5.0, 0, 0],
               orientation={"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0})
    s.ground.add_node("hold", position=[0, 0, z0])
    s.ground.add_node("idle", position=[5.0, 0, 0],  # (a slide along x: it stays put)
                      orientation={"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0})
    held, free = ("ball", "idle") if fixed else ("idle", "ball")
    s.add_link("hold", "fixed", master=f"ground.{'hold' if fixed else 'idle'}", slave=held)
    s.add_link("heave", "prismatic", master="ground" if free == "ball" else "ground.idle",
               slave=free)
    if linear_k is None:
        s.add_force("hydro", "nonlinear_hydrostatics", body="ball", mesh_resolution=RES,
                    froude_krylov=froude_krylov, wave_interval=wave_interval)
    else:
        s.add_force("hydro", "linear_hydrostatics", body="ball",
                    stiffness={"heave": linear_k}, equilibrium=[0, 0, 0.0])
    # (always, zero or not: the floating tests then share one compiled kind of model)
    s.add_force("damp", "linear_damping", body="ball", damping={"heave": damping})
    return s


MESH = body_mesh({"shape": "sphere", "radius": R}, 0.0, RES)


def mesh_volume(z: float) -> float:
    """Displaced volume of the mesh with its centre at height ``z``."""
    return wetted_part(MESH.points + np.array([0.0, 0.0, z]), MESH.faces, RHO, G).volume


def test_free_floating_equilibrium() -> None:
    mass = RHO * 0.35 * 4.0 / 3.0 * math.pi * R**3    # floats 35 % submerged
    z_eq = brentq(lambda z: RHO * mesh_volume(z) - mass, -R, R, xtol=1e-12)
    k = RHO * G * math.pi * (R**2 - z_eq**2)
    crit = 2.0 * math.sqrt(k * mass)
    ds = sphere_system(mass, z_eq + 0.4, damping=0.7 * crit).run(t_end=10.0, dt=0.01)
    z = ds.body_position.sel(body="ball").values[:, 2]
    assert abs(z[0] - (z_eq + 0.4)) < 1e-12
    # settled: at 70 % of critical damping the motion decays as exp(-0.7 w t), w = 4.4
    # rad/s here, to 1e-13 of its start in 10 s
    assert abs(z[-1] - z_eq) < 1e-6, (z[-1], z_eq)
    # the exact sphere's draft differs from the mesh's by more than the tolerance:
    # the test sees the mesh
    f = ds.force_force.sel(force="hydro").values[-1]
    assert abs(f[2] - mass * G) < 1e-3 * mass * G


def heave_period(z: np.ndarray, t: np.ndarray) -> float:
    """Mean period between upward zero crossings of ``z`` (linear interpolation)."""
    up = np.nonzero((z[:-1] < 0) & (z[1:] >= 0))[0]
    tc = t[up] - z[up] * (t[up + 1] - t[up]) / (z[up + 1] - z[up])
    return float(np.mean(np.diff(tc)))


def test_small_amplitude_limit() -> None:
    mass = RHO * 0.5 * 4.0 / 3.0 * math.pi * R**3       # half submerged
    z_eq = brentq(lambda z: RHO * mesh_volume(z) - mass, -R, R, xtol=1e-12)
    wp = wetted_part(MESH.points + np.array([0.0, 0.0, z_eq]), MESH.faces, RHO, G).waterplane_area
    k_mesh = RHO * G * wp
    a = 1e-3
    ds = sphere_system(mass, z_eq + a).run(t_end=12.0, dt=0.005)
    nonlinear = heave_period(ds.body_position.sel(body="ball").values[:, 2] - z_eq,
                             ds.time.values)
    # the linear run's period: 2 pi sqrt(m / k) with the mesh's waterplane stiffness
    # (a run with linear_hydrostatics meets it to 1e-4; not run here, as it would compile
    # a kind of model for this test alone)
    linear = 2 * math.pi * math.sqrt(mass / k_mesh)
    # the nonlinear stiffness at amplitude a differs from the tangent by O(a / R)
    assert nonlinear == pytest.approx(linear, rel=2e-3), (nonlinear, linear)


def incident_pressure_force(t: float, zc: float, amp: float, omega: float, k: float
                            ) -> np.ndarray:
    """Deep-water Froude-Krylov force (Wheeler-stretched) on a sphere of radius R at
    (0, 0, zc),
    by Gauss-Legendre quadrature in cos(polar angle) and the trapezium rule in azimuth
    (exact for the periodic integrand), on the exact surface."""
    mu, wmu = np.polynomial.legendre.leggauss(60)
    phi = np.linspace(0, 2 * np.pi, 120, endpoint=False)
    M, P = np.meshgrid(mu, phi, indexing="ij")
    s = np.sqrt(1 - M**2)
    n = np.stack([s * np.cos(P), s * np.sin(P), M], -1)
    x = R * n
    x[..., 2] += zc
    eta = amp * np.cos(k * x[..., 0] - omega * t)
    # deep-water Wheeler stretching: the attenuation at z - eta
    p = RHO * G * eta * np.exp(k * (x[..., 2] - eta)) - RHO * G * x[..., 2]
    dA = R**2 * wmu[:, None] * (2 * np.pi / len(phi))
    return -np.einsum("ij,ijk,ij->k", p, n, np.broadcast_to(dA, p.shape))


def test_froude_krylov_on_submerged_sphere() -> None:
    height, period, zc = 0.4, 3.0, -2.5
    omega = 2 * math.pi / period
    k = omega**2 / G
    ds = sphere_system(500.0, zc, fixed=True, froude_krylov=True,
                       waves={"type": "regular", "height": height, "period": period,
                              "ramp": 0.0}).run(t_end=3.0, dt=0.01)
    f = ds.force_force.sel(force="hydro").values
    ref = np.array([incident_pressure_force(t, zc, height / 2, omega, k)
                    for t in ds.time.values])
    scale = RHO * G * height / 2 * 4 / 3 * math.pi * R**3 * k * math.exp(k * zc)
    # wave force amplitude (about 1.5 kN); the buoyancy (43 kN) is there too
    err = np.abs(f - ref).max(axis=0)
    buoyancy = RHO * G * 4 / 3 * math.pi * R**3
    # the 48 x 24 mesh's volume is 0.5 % short of the sphere's (its buoyancy); the
    # wave part within 1.5 % of its amplitude
    assert err[0] < 0.015 * scale and err[1] < 1e-3 * scale, (err, scale)
    assert err[2] < 0.007 * buoyancy + 0.015 * scale, (err, scale)
    wave_z = f[:, 2] - f[:, 2].mean()
    assert np.abs(wave_z - (ref[:, 2] - ref[:, 2].mean())).max() < 0.015 * scale
    # the wave part is there: its amplitude in x matches
    assert np.ptp(f[:, 0]) == pytest.approx(np.ptp(ref[:, 0]), rel=0.01)


def test_not_beside_linear_hydrostatics() -> None:
    """The two buoyancies on one body are an error naming both, in either order."""
    from frylinks.errors import ModelError

    for first, second in (("nonlinear_hydrostatics", "linear_hydrostatics"),
                          ("linear_hydrostatics", "nonlinear_hydrostatics")):
        s = System(gravity=[0, 0, -G])
        s.add_body("ball", mass=100.0, inertia=[1.0, 1.0, 1.0],
                   geometry={"shape": "sphere", "radius": R})
        params = {"linear_hydrostatics": {"stiffness": {"heave": 1e4}},
                  "nonlinear_hydrostatics": {}}
        s.add_force("a", first, body="ball", **params[first])
        with pytest.raises(ModelError, match="buoyancy and hydrostatic restoring, "
                                             "which would count twice") as err:
            s.add_force("b", second, body="ball", **params[second])
        assert "'a'" in str(err.value) and "forces.b" in str(err.value)


def test_wave_interval_on_a_held_sphere() -> None:
    """A sphere held half submerged in a regular wave: the force with the wave's sums
    made once per interval (0.25 s, 1/12 of the period) and interpolated in time equals
    the force with the sums at every evaluation at each interval's ends (to round-off).
    In between, the cubic's error in the elevation at the waterline, at most
    ``(w T)^4 / 384`` of the amplitude ``a``, moves the cut: the force errs by up to
    ``rho g A_wp`` times it (measured: at that bound, 1.24 N against 1.24 N; the wave
    force's amplitude is 5.4 kN)."""
    height, period, interval = 0.4, 3.0, 0.25
    omega = 2 * math.pi / period
    waves = {"type": "regular", "height": height, "period": period, "ramp": 0.0}
    mass = RHO * 0.5 * 4.0 / 3.0 * math.pi * R**3
    runs = [sphere_system(mass, 0.0, fixed=True, froude_krylov=True, waves=waves,
                          wave_interval=each).run(t_end=3.0, dt=0.05)
            for each in (0.0, interval)]
    every, held = (ds.force_force.sel(force="hydro").values for ds in runs)
    t = runs[0].time.values
    ends = np.isclose(np.mod(t + 1e-9, interval), 0.0, atol=1e-6)
    assert ends.sum() == 13
    scale = np.ptp(every, axis=0).max() / 2  # the wave force's amplitude [N]
    np.testing.assert_allclose(held[ends], every[ends], rtol=0, atol=1e-9 * scale)
    bound = (omega * interval) ** 4 / 384 * RHO * G * math.pi * R**2 * height / 2
    err = np.abs(held - every).max()
    assert 0.5 * bound < err < 1.2 * bound, (err, bound)
    assert err < 3e-4 * scale


def test_wave_interval_in_an_irregular_sea() -> None:
    """The heaving sphere in a JONSWAP sea (Hs 0.3 m, Tp 3 s, 30 components): its heave
    with the wave's sums made every 0.2 s (10 steps) against every evaluation, within
    0.5 % of its range (measured 0.03 %, in an eighth of the time)."""
    mass = RHO * 0.5 * 4.0 / 3.0 * math.pi * R**3
    waves = {"type": "irregular", "spectrum": "jonswap", "hs": 0.3, "tp": 3.0,
             "nb_frequencies": 30, "seed": 3, "ramp": 3.0}
    runs = [sphere_system(mass, 0.0, damping=2000.0, froude_krylov=True, waves=waves,
                          wave_interval=each).run(t_end=15.0, dt=0.02)
            for each in (0.0, 0.2)]
    every, held = (ds.body_position.sel(body="ball").values[:, 2] for ds in runs)
    assert np.ptp(every) > 0.1
    assert np.abs(held - every).max() < 5e-3 * np.ptp(every), \
        np.abs(held - every).max() / np.ptp(every)
