"""IEC TS 62600-100 power performance (frylinks_marine.performance, frylinks.performance)
against MHKiT-Python's ``wave.performance`` and ``wave.resource`` on the same arrays.

* The capture width matrices (mean, std, count, min, max), the energy flux matrix, the
  power matrix and the mean annual energy production equal MHKiT's to round-off.
* A sea's Hm0, Te and energy flux from its components equal MHKiT's from the same
  spectrum (finite depth), and the deep-water identity ``J = rho g^2 Hm0^2 Te / (64 pi)``.
* On a sweep's results (the shipped PacWave case's text and sweep, each case's power
  given): each case's sea is rebuilt from the file, the annual energy weighted by the
  site's occurrences is ``8766 h sum f_i P_i``, and ``frylinks performance`` gives the
  Python function's numbers, its figure and its Dataset.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from frylinks_marine.performance import (
    HOURS_PER_YEAR,
    MATRIX_STATISTICS,
    mean_annual_energy,
    performance_matrix,
    read_scatter,
    sea_state,
)
from frylinks_marine.waves import WaveField
from mhkit.wave import performance as mhkit_performance
from mhkit.wave import resource as mhkit_resource

from frylinks.performance import power_performance

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "cases" / "point_absorber_pacwave.yaml"
SCATTER = ROOT / "cases" / "sites" / "pacwave_south.csv"
RHO, G = 1025.0, 9.81


@pytest.fixture(scope="module")
def states() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(5)
    n = 300
    hm0 = rng.uniform(0.3, 6.0, n)
    te = rng.uniform(4.0, 15.0, n)
    flux = RHO * G**2 * hm0**2 * te / (64 * np.pi)
    power = 1e3 * hm0**2 * np.exp(-((te - 8.0) / 3.0) ** 2) * rng.uniform(0.8, 1.2, n)
    return hm0, te, flux, power


def test_matrices_and_annual_energy_equal_mhkit(states: tuple[np.ndarray, ...]) -> None:
    hm0, te, flux, power = states
    cw = power / flux
    hb, tb = np.arange(0.25, 6.5, 0.5), np.arange(0.5, 16.0, 1.0)
    for stat in MATRIX_STATISTICS:
        ours = performance_matrix(hm0, te, cw, stat, hb, tb)
        theirs = mhkit_performance.capture_width_matrix(hm0, te, cw, stat, hb, tb,
                                                        to_pandas=False).values
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=0, equal_nan=True,
                                   err_msg=stat)
    jm = performance_matrix(hm0, te, flux, "mean", hb, tb)
    theirs_j = mhkit_performance.wave_energy_flux_matrix(hm0, te, flux, "mean", hb, tb,
                                                         to_pandas=False)
    np.testing.assert_allclose(jm, theirs_j.values, rtol=1e-13, equal_nan=True)
    cwm = performance_matrix(hm0, te, cw, "mean", hb, tb)
    theirs_cwm = mhkit_performance.capture_width_matrix(hm0, te, cw, "mean", hb, tb,
                                                        to_pandas=False)
    pm = mhkit_performance.power_matrix(theirs_cwm, theirs_j)
    np.testing.assert_allclose(cwm * jm, pm.values, rtol=1e-13, equal_nan=True)
    frequency = performance_matrix(hm0, te, cw, "frequency", hb, tb)
    ours = mean_annual_energy(cwm, jm, frequency)
    theirs = mhkit_performance.mean_annual_energy_production_matrix(
        theirs_cwm, theirs_j, xr.DataArray(frequency, dims=theirs_cwm.dims,
                                           coords=theirs_cwm.coords))
    assert ours == pytest.approx(float(theirs), rel=1e-13)
    assert HOURS_PER_YEAR == 8766


def test_sea_state_from_components_equals_mhkit() -> None:
    """A JONSWAP sea in 30 m of water on equally spaced frequencies, the spectrum padded
    with zeros at both ends (so MHKiT's trapezium integrals equal the components'
    sums): Hm0, Te and the finite-depth energy flux."""
    depth = 30.0
    f = np.arange(0.02, 0.6, 0.004)
    df = f[1] - f[0]
    s = np.asarray(mhkit_resource.jonswap_spectrum(f, 9.0, 2.5, gamma=3.3).to_numpy(),
                   dtype=float).ravel()
    s[0] = s[-1] = 0.0
    amplitude = np.sqrt(2 * s * df)
    field = WaveField(amplitude, 2 * np.pi * f, depth=depth, g=G)
    hm0, te, flux = sea_state(field, RHO, G)
    spectrum = pd.DataFrame({"S": s}, index=pd.Index(f, name="Frequency"))
    assert hm0 == pytest.approx(float(np.squeeze(
        mhkit_resource.significant_wave_height(spectrum, to_pandas=False))), rel=1e-12)
    assert te == pytest.approx(float(np.squeeze(
        mhkit_resource.energy_period(spectrum, to_pandas=False))), rel=1e-12)
    theirs = float(np.squeeze(mhkit_resource.energy_flux(spectrum, depth, deep=False,
                                                          rho=RHO, g=G, to_pandas=False)))
    assert flux == pytest.approx(theirs, rel=1e-9)
    deep = WaveField(amplitude, 2 * np.pi * f, g=G)
    hm0, te, flux = sea_state(deep, RHO, G)
    assert flux == pytest.approx(RHO * G**2 * hm0**2 * te / (64 * np.pi), rel=1e-12)


def _sweep_results() -> xr.Dataset:
    """A sweep's results file as frylinks sweep writes it for the shipped PacWave case
    (its case text and sweep; a PTO power per case and sample, made up): what the power
    performance reads."""
    import yaml

    text = CASE.read_text()
    spec = yaml.safe_load(text)["sweep"]
    n = len(spec["set"]["environment.waves.hs"])
    t = np.arange(0.0, 100.0, 0.5)
    power = 1e3 * (1.0 + np.arange(n))[:, None, None] * (1.0 + np.sin(t))[None, :, None]
    two = np.concatenate([power, 0.5 * power], axis=2)
    electrical = np.concatenate([0.8 * power, np.full_like(power, np.nan)], axis=2)
    ds = xr.Dataset({"link_power": (("case", "time", "link"), power, {"units": "W"}),
                     "absorbed_power": (("case", "time", "pto"), two, {"units": "W"}),
                     "electrical_power": (("case", "time", "pto"), electrical,
                                          {"units": "W"})},
                    coords={"case": np.arange(n), "time": t, "link": ["pto"],
                            "pto": ["pto", "damper"],
                            "environment.waves.hs": ("case", spec["set"]["environment.waves.hs"]),
                            "environment.waves.tp": ("case", spec["set"]["environment.waves.tp"])})
    ds.attrs.update(case=text, sweep=json.dumps({"set": spec["set"], "zip": True}),
                    title="point-absorber-pacwave")
    return ds


def test_a_sweep_carried_to_annual_energy(tmp_path: Path) -> None:
    results = _sweep_results()
    ds = power_performance(results, "link_power", {"link": "pto"}, after=10.0,
                           scatter=SCATTER, width=10.0)
    hm0, te, weight = read_scatter(SCATTER)
    # each case's sea, rebuilt from the file: the cluster's Hm0 and Te, within what 150
    # components of a Pierson-Moskowitz spectrum give
    np.testing.assert_allclose(ds.hm0.values, hm0, rtol=0.01)
    np.testing.assert_allclose(ds.te.values, te, rtol=0.01)
    mean = results.link_power.sel(link="pto").where(results.time >= 10.0).mean("time")
    np.testing.assert_allclose(ds["power"].values, mean.values, rtol=1e-12)
    expected = HOURS_PER_YEAR * float(np.sum(weight * mean.values))
    assert float(ds.maep_sea_states) == pytest.approx(expected, rel=1e-12)
    assert 0.9 < float(ds.coverage) <= 1.0
    occ = ds.occurrence.values
    annual = HOURS_PER_YEAR * np.nan_to_num(ds.power_matrix.values) * occ / occ.sum()
    assert float(ds.maep) == pytest.approx(float(np.sum(annual)), rel=1e-12)
    np.testing.assert_allclose(ds.capture_width_ratio.values, ds.capture_width.values / 10.0)
    # the command: the same numbers, its Dataset and figure
    path = tmp_path / "sweep.nc"
    results.to_netcdf(path)
    out, fig = tmp_path / "perf.nc", tmp_path / "perf.png"
    done = subprocess.run([sys.executable, "-m", "frylinks", "performance", str(path),
                           "--power", "link_power", "--select", "link=pto", "--after", "10",
                           "--scatter", str(SCATTER), "--width", "10", "-o", str(out),
                           "--plot", str(fig)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"{float(ds.maep_sea_states) / 1e6:.4g} MWh" in done.stdout
    assert fig.stat().st_size > 10_000
    with xr.open_dataset(out) as cli:
        np.testing.assert_allclose(cli.maep.values, ds.maep.values, rtol=1e-12)
        np.testing.assert_allclose(cli.capture_width_mean.values,
                                   ds.capture_width_mean.values, rtol=1e-12, equal_nan=True)


def test_absorbed_and_electrical_power_by_default() -> None:
    """The shared absorbed_power, and electrical_power where the PTO has a drivetrain,
    without naming them; a PTO without one gives no electrical numbers."""
    results = _sweep_results()
    ds = power_performance(results, select={"pto": "pto"}, after=10.0, scatter=SCATTER)
    mean = results.link_power.sel(link="pto").where(results.time >= 10.0).mean("time")
    np.testing.assert_allclose(ds["power"].values, mean.values, rtol=1e-12)
    np.testing.assert_allclose(ds["electrical_power"].values, 0.8 * mean.values, rtol=1e-12)
    assert float(ds.electrical_maep) == pytest.approx(0.8 * float(ds.maep), rel=1e-12)
    other = power_performance(results, select={"pto": "damper"}, after=10.0)
    np.testing.assert_allclose(other["power"].values, 0.5 * mean.values, rtol=1e-12)
    assert "electrical_power" not in other
    one = power_performance(results.sel(pto=["damper"]), after=10.0)   # no select needed
    np.testing.assert_allclose(one["power"].values, other["power"].values, rtol=1e-12)


def test_bad_scatter_and_power(tmp_path: Path) -> None:
    path = tmp_path / "sweep.nc"
    _sweep_results().to_netcdf(path)
    bad = tmp_path / "bad.csv"
    bad.write_text("# a site\nhs,tp,weight\n1,8,1\n")
    for args, message in (
            (["--select", "link=pto", "--scatter", str(bad)],
             "lacks hm0, te; expected columns hm0, te and frequency"),
            (["--select", "link=pto", "--hm0-bins", "1,x"], "--hm0-bins: expected numbers"),
            (["--power", "absorbed_power"],   # two PTOs: which one
             "one value per case is needed, but it still has pto: select one, e.g. "
             "--select pto=pto")):
        done = subprocess.run([sys.executable, "-m", "frylinks", "performance", str(path),
                               "--power", "link_power", *args], capture_output=True,
                              text=True)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert math.isfinite(read_scatter(SCATTER)[2].sum())
