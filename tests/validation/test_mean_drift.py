"""Mean drift force on a fixed bottom-mounted vertical circular cylinder: the closed form
of the MacCamy-Fuchs diffraction solution against Capytaine 3.0's far-field drift, read
by frylinks' Capytaine reader from ``cylinder_drift_capytaine.nc``.

The closed form. A cylinder of radius ``a`` stands on the seabed in water of depth
``h``; regular waves of amplitude ``A``, wavenumber ``k`` (``omega^2 = g k tanh kh``)
travel towards ``+x``. MacCamy and Fuchs (1954) give the elevation (``exp(-i omega t)``,
``H_m = H_m^(1)``)::

    eta = A sum_m eps_m i^m [J_m(kr) - J_m'(ka) / H_m'(ka) H_m(kr)] cos(m theta),

``eps_0 = 1``, ``eps_m = 2``; on the cylinder (Wronskian) ``eta(a, theta) = A 2i / (pi ka)
sum_m eps_m i^m cos(m theta) / H_m'(ka)``. The mean horizontal drift force is
(Pinkster's near-field pressure integration: the mean of ``-rho |grad phi|^2 / 2`` over
the wetted wall, ``u_r = 0`` there, plus the waterline term ``-rho g mean(eta^2) / 2``
per unit length; the depth integrals of ``cosh^2`` and ``sinh^2`` done in closed form)::

    F = rho g a (1 + G) / 8  int_0^2pi cos(theta) [|d eta/d theta|^2 / (ka)^2 - |eta|^2] dtheta

    F / (rho g A^2 a) = -2 (1 + G) / (pi (ka)^2)  sum_{m >= 0} (1 - m (m + 1) / (ka)^2)
                                                  Im[1 / (H_m'(ka) conj(H_{m+1}'(ka)))]

with ``G = 2kh / sinh(2kh)`` (the series: the Fourier modes ``m`` and ``m + 1`` couple
through ``cos theta``). This is the form of Mei, Stiassnie and Yue (2005), *Theory and
Applications of Ocean Surface Waves*, ch. 7, and, in deep water (``G = 0``), of
Havelock (1940); Faltinsen (1990) gives its short-wave limit. The tests check it three
ways, independently of the derivation: against the direct numerical integration of the
near-field pressure of the MacCamy-Fuchs potential on the wall; against the far-field
(momentum conservation) integral of the mean momentum flux through control cylinders of
radius ``1.7 a`` and ``4 a`` (Maruo's approach, which must give the same force since
the fluid between holds no body); and against the geometric-optics short-wave limit
``(2/3) rho g A^2 a (1 + G)`` (a half-wall reflecting fully). Measured: the three agree
with the series to 1e-13 relative; the short-wave ratio is 0.995 at ka = 30.

Capytaine. ``make_cylinder_drift.py`` (data folder) solves the cylinder's side wall
(48 x 50 panels, a = 5 m, h = 50 m, rho = 1025, kh = 2 to 20) and computes
``cpt.post_pro.far_field_mean_drift_force`` with the motion zero. Measured error of
that far-field drift against the closed form, ka = 0.2 ... 2.0: at most 4.0 % (at
ka = 0.4; -1.0 % at ka = 0.2, under 2 % for ka >= 1); with 32 x 25 panels at most 5.2 %,
with 64 x 80 at most 3.1 % (the discretisation error, shrinking with the panels).
Shallower water is left out: with h = 2 a, Capytaine 3.0.0's far-field formula is off
by -70 % at kh = 0.4, -28 % at kh = 1 and -3 % at kh = 2 while its first-order
excitation agrees with MacCamy-Fuchs within 1 % (the make-script's docstring).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from frylinks_marine.capytaine_reader import read_capytaine
from frylinks_marine.hydro_files import read_hydrodynamics
from scipy.special import h1vp, hankel1, jv, jvp

DATA = Path(__file__).parents[2] / "plugins" / "frylinks_marine" / "data"
DATASET = DATA / "cylinder_drift_capytaine.nc"
RADIUS, DEPTH, RHO, G = 5.0, 50.0, 1025.0, 9.81
TOLERANCE = 0.05  # the BEM discretisation error measured above is at most 4.0 %


def depth_factor(kh: float) -> float:
    """``1 + 2kh / sinh(2kh)``: the depth integral of the kinetic energy terms."""
    return 1.0 + (2 * kh / np.sinh(2 * kh) if kh < 300 else 0.0)


def drift_series(ka: float, kh: float, terms: int | None = None) -> float:
    """The closed form ``F / (rho g A^2 a)`` (the module docstring)."""
    m = np.arange(terms or int(ka) + 40)
    coupling = np.imag(1.0 / (h1vp(m, ka) * np.conj(h1vp(m + 1, ka))))
    return float(-2 * depth_factor(kh) / (np.pi * ka**2)
                 * np.sum((1 - m * (m + 1) / ka**2) * coupling))


def elevation(ka: float, r: float, theta: np.ndarray) -> tuple[np.ndarray, ...]:
    """MacCamy-Fuchs ``eta``, ``a d eta/dr`` and ``d eta/d theta`` at ``r`` (in radii)
    for ``A = 1``."""
    m = np.arange(int(ka * r) + 40)[:, None]
    weight = np.where(m == 0, 1.0, 2.0) * 1j**m
    scattered = -jvp(m, ka) / h1vp(m, ka)
    kr = ka * r
    radial = jv(m, kr) + scattered * hankel1(m, kr)
    slope = ka * (jvp(m, kr) + scattered * h1vp(m, kr))
    return ((weight * radial * np.cos(m * theta)).sum(0),
            (weight * slope * np.cos(m * theta)).sum(0),
            (weight * radial * -m * np.sin(m * theta)).sum(0))


def drift_by_momentum_flux(ka: float, kh: float, r: float, n: int = 1024) -> float:
    """``F / (rho g A^2 a)`` from the mean momentum flux through a vertical cylinder of
    radius ``r >= 1`` (in radii) around the body, free-surface term included:
    ``F_x = -int [ -rho mean|grad phi|^2 / 2 n_x + rho mean(u_x u_r) ] dS
    - int rho g mean(eta^2) / 2 n_x dl`` (at ``r = 1``, ``u_r = 0``: the near-field
    pressure integration). Units: ``a = rho = g = 1``, so ``k = ka``."""
    theta = np.arange(n) * 2 * np.pi / n
    eta, eta_r, eta_t = elevation(ka, r, theta)
    k, gk = ka, 2 * kh / np.sinh(2 * kh) if kh < 300 else 0.0
    horizontal = (1 + gk) / (2 * k**2)  # (g/omega)^2 int Z^2 dz, Z = cosh k(z+h)/cosh kh
    vertical = (1 - gk) / 2  # (g/omega)^2 int Z'^2 dz
    speed2 = 0.5 * ((abs(eta_r)**2 + abs(eta_t)**2 / r**2) * horizontal
                    + abs(eta)**2 * vertical)
    eta_x = np.cos(theta) * eta_r - np.sin(theta) * eta_t / r
    flux_x = 0.5 * np.real(eta_x * np.conj(eta_r)) * horizontal
    density = 0.5 * speed2 * np.cos(theta) - flux_x - 0.25 * abs(eta)**2 * np.cos(theta)
    return float(density.sum() * (2 * np.pi / n) * r)


@pytest.mark.parametrize("ka", [0.2, 0.5, 1.0, 2.0, 5.0])
def test_closed_form_against_pressure_and_momentum(ka: float,
                                                   record_property: object) -> None:
    """The series equals the near-field pressure integral (r = a) and the far-field
    momentum flux through r = 1.7 a and 4 a, in finite depth (kh = 2 ka)."""
    kh = 2 * ka
    series = drift_series(ka, kh)
    worst = 0.0
    for r in (1.0, 1.7, 4.0):
        flux = drift_by_momentum_flux(ka, kh, r)
        worst = max(worst, abs(flux / series - 1))
    record_property("relative_difference", worst)  # type: ignore[operator]
    assert series > 0  # pushed the way the waves travel
    assert worst < 1e-10


def test_short_wave_limit() -> None:
    """ka -> inf: the lit half reflects like a wall, F -> (2/3) rho g A^2 a (1 + G)."""
    ratio = drift_series(30.0, 60.0) / (2.0 / 3.0 * depth_factor(60.0))
    assert ratio == pytest.approx(1.0, abs=0.006)  # measured 0.995


def test_capytaine_far_field_drift_against_closed_form(record_property: object) -> None:
    """Capytaine 3.0's far-field mean drift in the shipped dataset, read by frylinks
    (``mean_drift_momentum``, N/m^2 per m^2 of amplitude), against the closed form over
    ka = 0.2 ... 2.0 at both headings (0: surge; 90 deg: sway): within 5 % (measured
    at most 4.0 %)."""
    db = read_hydrodynamics(DATASET)
    so = db.second_order
    assert so is not None and so.mean_drift_pressure is None
    table = so.mean_drift_momentum
    assert table is not None and table.kind == "mean_drift"
    assert np.allclose(np.degrees(table.headings), [0.0, 90.0])
    assert table.values.shape == (10, 2, 6)
    k = np.array([brentq_wavenumber(w) for w in table.omega])
    ka = k * RADIUS
    assert np.allclose(ka, np.arange(1, 11) * 0.2, rtol=1e-9)
    exact = np.array([drift_series(x, x * DEPTH / RADIUS) for x in ka]) * RHO * G * RADIUS
    surge, sway = table.values[:, 0, 0], table.values[:, 1, 1]
    error = np.abs(surge.real / exact - 1)
    record_property("max_relative_error", float(error.max()))  # type: ignore[operator]
    assert error.max() < TOLERANCE
    assert np.allclose(sway, surge, rtol=1e-9)  # axial symmetry: the heading mapping
    assert np.all(np.abs(surge.imag) < 1e-9 * np.abs(surge.real))  # real, as in theory
    # across the waves: no sway force at heading 0, no surge at 90 deg, no yaw moment
    scale = np.abs(surge).max()
    assert np.abs(table.values[:, 0, 1]).max() < 1e-9 * scale
    assert np.abs(table.values[:, 1, 0]).max() < 1e-9 * scale
    assert np.abs(table.values[:, :, 5]).max() < 1e-9 * scale * RADIUS
    # heave, roll, pitch: the far field gives none; NaN, not zero
    assert np.isnan(table.values[:, :, 2:5]).all()


def test_reader_units_and_conventions() -> None:
    """The table is the file's ``drift_force_surge`` itself (SI, per m^2, Capytaine's
    exp(-i omega t) is frylinks'), on ascending omega; another density scales it."""
    import xarray as xr

    with xr.open_dataset(DATASET) as raw:
        re = raw["drift_force_surge"].sel(complex="re").values
        omega = raw["omega"].values
    db = read_capytaine(DATASET)
    table = db.second_order.mean_drift_momentum
    order = np.argsort(omega)
    assert np.array_equal(table.omega, omega[order])
    assert np.array_equal(table.values[:, 0, 0].real, re[order, 0, 0])
    assert np.array_equal(table.values[:, 1, 1].real,
                          xr.open_dataset(DATASET)["drift_force_sway"]
                          .sel(complex="re").values[order, 1, 1])
    scaled = db.second_order.scaled(1000.0 / RHO).mean_drift_momentum
    assert scaled.values[3, 0, 0] == pytest.approx(table.values[3, 0, 0] * 1000.0 / RHO)


def brentq_wavenumber(omega: float) -> float:
    """The wavenumber [1/m] of ``omega`` at ``DEPTH`` (``omega^2 = g k tanh kh``)."""
    from scipy.optimize import brentq

    return float(brentq(lambda k: G * k * np.tanh(k * DEPTH) - omega**2, 1e-9, 10.0))


@pytest.mark.slow
def test_rerun_capytaine(tmp_path: Path) -> None:
    """Rerun the make-script's BEM (about 15-20 s) and check the shipped file is what it
    gives."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_cylinder_drift",
                                                  DATA / "make_cylinder_drift.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.OUT = tmp_path / "cylinder.nc"
    module.main()
    fresh = read_capytaine(module.OUT).second_order.mean_drift_momentum
    shipped = read_capytaine(DATASET).second_order.mean_drift_momentum
    assert np.allclose(fresh.values[:, 0, 0], shipped.values[:, 0, 0], rtol=1e-6)
