"""WEC-Sim BEMIO data against physics and against an independent BEM code.

The same body, the IEA OES Task 10 sphere (R 5 m, half submerged, COG 2 m below the
waterline), computed twice: by WAMIT, stored by BEMIO (``sphere_bemio.h5``, water depth
200 m, 240 frequencies up to 12 rad/s), and by Capytaine (``sphere_capytaine.nc``, deep
water, 130 frequencies up to 6.5 rad/s, lid against irregular frequencies). Nothing in
frylinks relates the two files, so where they agree the BEMIO reader has undone BEMIO's
scalings (added mass / rho, damping / (rho omega), excitation and stiffness / (rho g)) and
its time convention (``exp(+i omega t)``) right:

* conventions against physics: the long-wave heave excitation is the crest's hydrostatic
  push ``rho g pi R^2``, in phase; the surge excitation follows the fluid acceleration,
  a quarter period behind the crest (``-i`` in frylinks' ``exp(-i omega t)``);
  hydrostatics ``rho g pi R^2`` and ``m g GM``; ``A_inf`` about half the displaced mass
  (Hulme);
* the two codes on their common frequencies where 200 m is deep water (omega >= 0.4
  rad/s): added mass, damping and excitation (complex) within 2.5 % of each entry's peak
  (measured: up to 1.5 %, 2.2 % and 1.3 %);
* BEMIO's own impulse response against frylinks' transform of BEMIO's damping (within
  1 % of K(0)), and BEMIO's state-space realisation against it (WEC-Sim accepts
  R^2 >= 0.95);
* the heave decay from 1 m computed from each file agrees to the accuracy their heave
  coefficients differ by, and each meets the published codes' trough, peak and period.

Each test records the numbers it measured (``record_property``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from frylinks_marine.bemio import read_bemio
from frylinks_marine.capytaine_reader import read_capytaine
from frylinks_marine.hydrodb import HydroDatabase
from frylinks_marine.radiation import impulse_response

import frylinks

DATA = Path(__file__).parents[2] / "plugins" / "frylinks_marine" / "data"
BEMIO = DATA / "sphere_bemio.h5"
CAPYTAINE = DATA / "sphere_capytaine.nc"
R, RHO, G = 5.0, 1000.0, 9.81
MASS = RHO * 2.0 / 3.0 * np.pi * R**3
Record = Callable[[str, Any], None]
SURGE, HEAVE, PITCH = 0, 2, 4


@pytest.fixture(scope="module")
def bemio() -> HydroDatabase:
    return read_bemio(BEMIO)


@pytest.fixture(scope="module")
def capytaine() -> HydroDatabase:
    return read_capytaine(CAPYTAINE)


def common(a: HydroDatabase, b: HydroDatabase, low: float) -> tuple[np.ndarray, np.ndarray]:
    """Indices into ``a`` and ``b`` of their common frequencies at or above ``low``
    (BEMIO stores them in single precision: equal within 1e-4 rad/s)."""
    ia, ib = [], []
    for k, w in enumerate(b.omega):
        j = int(np.argmin(np.abs(a.omega - w)))
        if abs(a.omega[j] - w) < 1e-4 and w >= low:
            ia.append(j)
            ib.append(k)
    return np.array(ia), np.array(ib)


def test_bemio_conventions_against_physics(bemio: HydroDatabase, record_property: Record
                                           ) -> None:
    """Long waves (0.05 rad/s, kR = 0.0013): heave excitation = rho g pi R^2, real and
    positive (in phase with the crest); surge excitation = -i times a positive number
    (BEMIO stores +i: the conjugate is taken). Hydrostatics and A_inf in SI units."""
    x = bemio.excitation[0, 0]
    assert bemio.omega[0] == pytest.approx(0.05, abs=1e-6)
    heave = RHO * G * np.pi * R**2
    record_property("long_wave_heave_excitation_error_rel", abs(x[HEAVE] / heave - 1.0))
    assert abs(x[HEAVE] / heave - 1.0) < 0.01
    assert abs(x[HEAVE].imag) < 1e-3 * abs(x[HEAVE])
    assert x[SURGE].imag < 0 and abs(x[SURGE].real) < 0.05 * abs(x[SURGE].imag)
    # the pitch moment about the COG, 2 m below the centre the pressure passes through
    np.testing.assert_allclose(x[PITCH], 2.0 * x[SURGE], rtol=1e-3)
    k = bemio.hydrostatic_stiffness
    assert k is not None
    record_property("heave_stiffness_error_rel", k[2, 2] / heave - 1.0)
    assert k[2, 2] == pytest.approx(heave, rel=2e-3)
    assert k[4, 4] == pytest.approx(MASS * G * 2.0, rel=5e-3)
    record_property("heave_added_mass_inf", bemio.added_mass_inf[2, 2] / MASS)
    assert bemio.added_mass_inf[2, 2] / MASS == pytest.approx(0.5, rel=0.03)
    assert bemio.added_mass_inf_source == "dataset"
    assert bemio.rotation_center is not None
    np.testing.assert_allclose(bemio.rotation_center, [0.0, 0.0, -2.0])


def test_bemio_against_capytaine(bemio: HydroDatabase, capytaine: HydroDatabase,
                                 record_property: Record) -> None:
    """Common frequencies from 0.4 rad/s (where 200 m is deep water: tanh(kh) > 0.996):
    every heave, surge, pitch and surge-pitch coefficient within 2.5 % of its peak,
    the infinite-frequency added mass within 2.5 %, the hydrostatics within 0.5 %."""
    ib, ic = common(bemio, capytaine, 0.4)
    assert ib.size > 100
    entries = {"surge": (0, 0), "heave": (2, 2), "pitch": (4, 4), "surge_pitch": (0, 4)}
    worst = 0.0
    for kind in ("added_mass", "radiation_damping"):
        for name, (i, j) in entries.items():
            x = getattr(bemio, kind)[ib, i, j]
            y = getattr(capytaine, kind)[ic, i, j]
            diff = float(np.max(np.abs(x - y)) / np.abs(y).max())
            record_property(f"{kind}_{name}_difference_of_peak", diff)
            worst = max(worst, diff)
            assert diff < 0.025, (kind, name, diff)
    for name, i in (("surge", SURGE), ("heave", HEAVE), ("pitch", PITCH)):
        x, y = bemio.excitation[ib, 0, i], capytaine.excitation[ic, 0, i]
        diff = float(np.max(np.abs(x - y)) / np.abs(y).max())
        mag = float(np.max(np.abs(np.abs(x) - np.abs(y))) / np.abs(y).max())
        record_property(f"excitation_{name}_difference_of_peak", diff)
        record_property(f"excitation_{name}_magnitude_difference_of_peak", mag)
        assert diff < 0.025 and mag < 0.01, (name, diff, mag)
    for name, (i, j) in entries.items():
        diff = bemio.added_mass_inf[i, j] / capytaine.added_mass_inf[i, j] - 1.0
        record_property(f"added_mass_inf_{name}_difference_rel", diff)
        assert abs(diff) < 0.025
    kb, kc = bemio.hydrostatic_stiffness, capytaine.hydrostatic_stiffness
    assert kb is not None and kc is not None
    for i in (2, 3, 4):
        assert kb[i, i] == pytest.approx(kc[i, i], rel=5e-3)
    record_property("largest_radiation_difference_of_peak", worst)


def test_bemio_impulse_response_and_state_space(bemio: HydroDatabase,
                                                record_property: Record) -> None:
    """BEMIO's stored kernel (WEC-Sim's trapezoidal transform of its damping on 1001
    interpolated frequencies, times rho here) against frylinks' Filon transform of the
    same damping: heave and surge within 1 % of K(0) (measured 0.03 %). BEMIO's
    realisation is the rougher fit WEC-Sim accepts (R^2 >= 0.95, about 10-15 % RMS);
    frylinks' own meets 2 %."""
    assert bemio.kernel is not None and bemio.kernel_time is not None
    t = bemio.kernel_time
    mine = impulse_response(bemio, t)
    for name, i in (("heave", HEAVE), ("surge", SURGE)):
        diff = float(np.max(np.abs(bemio.kernel[:, i, i] - mine[:, i, i])) / mine[0, i, i])
        record_property(f"bemio_kernel_{name}_difference_of_peak", diff)
        assert diff < 0.01
    ss = bemio.state_space
    assert ss is not None
    record_property("bemio_state_space_states", ss.nb_states)
    for name, i in (("heave", HEAVE), ("surge", SURGE)):
        record_property(f"bemio_state_space_{name}_fit_error", ss.fit_error[i, i])
        assert 0.0 < ss.fit_error[i, i] < 0.25  # WEC-Sim's R^2 >= 0.95 in our measure
    assert np.all(np.linalg.eigvals(ss.A).real < 0)


def decay(path: Path, state_space: str = "fit") -> np.ndarray:
    s = frylinks.System()
    s.add_body("b", mass=MASS, inertia=[1e6, 1e6, 1e6], position=[0, 0, -2.0 + 1.0])
    s.configure("environment", water_density=RHO)
    s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=str(path),
                equilibrium=[0, 0, -2.0])
    s.add_force("rad", "radiation", body="b", hydrodynamics=str(path),
                state_space=state_space)
    ds = s.run(t_end=9.0, dt=0.01)
    return np.stack([ds.time.values, ds.body_position.sel(body="b", xyz="z").values + 2.0])


def test_heave_decay_from_each_file_agrees(bemio: HydroDatabase, capytaine: HydroDatabase,
                                           record_property: Record) -> None:
    """The 1 m heave decay of the sphere from the BEMIO file and from the Capytaine
    dataset: the curves differ by less than the two files' heave coefficients do (the
    largest difference of A33, B33 over the common frequencies, of their peaks, and of
    A_inf and K33), and each meets the published codes (trough -0.87 +- 0.02 m at
    2.2 +- 0.1 s, peak 0.64 +- 0.02 m at 4.4 +- 0.1 s)."""
    ib, ic = common(bemio, capytaine, 0.4)
    coefficient = max(
        float(np.max(np.abs(bemio.added_mass[ib, 2, 2] - capytaine.added_mass[ic, 2, 2]))
              / np.abs(capytaine.added_mass[ic, 2, 2]).max()),
        float(np.max(np.abs(bemio.radiation_damping[ib, 2, 2]
                            - capytaine.radiation_damping[ic, 2, 2]))
              / np.abs(capytaine.radiation_damping[ic, 2, 2]).max()),
        abs(bemio.added_mass_inf[2, 2] / capytaine.added_mass_inf[2, 2] - 1.0))
    curves = {"bemio": decay(BEMIO), "capytaine": decay(CAPYTAINE),
              "bemio_state_space": decay(BEMIO, "dataset")}
    for name, (t, z) in curves.items():
        i = int(np.argmin(z[t < 3.5]))
        j = i + int(np.argmax(z[i:][t[i:] < 6.0]))
        record_property(f"{name}_trough", z[i])
        record_property(f"{name}_peak", z[j])
        assert z[i] == pytest.approx(-0.87, abs=0.02) and t[i] == pytest.approx(2.2, abs=0.1)
        assert z[j] == pytest.approx(0.64, abs=0.02) and t[j] == pytest.approx(4.4, abs=0.1)
    gap = float(np.max(np.abs(curves["bemio"][1] - curves["capytaine"][1])))  # of 1 m
    file_fit = float(np.max(np.abs(curves["bemio_state_space"][1] - curves["bemio"][1])))
    record_property("heave_coefficient_difference", coefficient)
    record_property("decay_difference_bemio_capytaine_m", gap)
    record_property("decay_difference_bemio_realisation_m", file_fit)
    assert gap < coefficient
    assert math.isfinite(file_fit) and file_fit < 0.05
