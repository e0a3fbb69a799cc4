"""``frylinks rao`` reports the mean wave drift per regular wave
(:meth:`frylinks.forces.ForceType.mean_wave_drift`, ``wave_drift``'s
:mod:`frylinks_marine.drift_rao`): the values of the data's tables, read here
independently of frylinks' readers, at the case's water density."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import frylinks
from frylinks.analysis.rao import rao
from frylinks.cli import main

DATA = Path(__file__).parents[1] / "plugins" / "frylinks_marine" / "data"
SEMI = DATA / "wamit" / "marin_semi.1.gz"
SPHERE = DATA / "sphere_capytaine.nc"
RHO = 1000.0  # the cases' water; WAMIT's data are non-dimensional, Capytaine's at 1000
G_WAMIT = 9.80665  # the WAMIT reader's gravity of the dimensional values


def semi_surge_diagonal() -> dict[float, float]:
    """Surge of the OC4 semi's ``.12d`` on its diagonal at heading 0, non-dimensional
    (``F / (rho g A^2 ULEN)``, ULEN = 1), by period [s]: the file's own lines."""
    out = {}
    with gzip.open(SEMI.with_name("marin_semi.12d.gz"), "rt") as f:
        next(f)
        for line in f:
            per1, per2, b1, b2, dof, _mod, _phs, re, _im = (float(v) for v in line.split())
            if per1 == per2 and b1 == b2 == 0.0 and dof == 1:
                out[per1] = re
    return out


def semi(drift: bool = True) -> frylinks.System:
    s = frylinks.System()
    s.configure("environment", water_density=RHO)
    s.add_body("semi", mass=1.35e7, inertia=[6.8e9, 6.8e9, 1.2e10], position=[0, 0, -10])
    s.add_force("hs", "linear_hydrostatics", body="semi", hydrodynamics=str(SEMI))
    s.add_force("moor", "mooring_matrix", body="semi",
                stiffness={"surge": 7e4, "sway": 7e4, "yaw": 1e8})
    if drift:
        s.add_force("drift", "wave_drift", body="semi", hydrodynamics=str(SEMI))
    return s


def test_rao_mean_drift_is_the_qtf_diagonal_at_the_case_density() -> None:
    table = semi_surge_diagonal()
    periods = sorted(table)[::11]  # a few of the 56, 3.1 to 25 s
    ds = rao(semi(), periods=periods, headings_deg=[0.0], equilibrium=False)
    drift = ds["body_mean_drift"].sel(heading=0.0, body="semi")
    assert drift.attrs["long_name"].startswith("mean wave drift load")
    assert list(ds["mean_drift_units"].values) == ["N m-2"] * 3 + ["N m m-2"] * 3
    for per in periods:
        w = 2 * math.pi / per
        got = float(drift.sel(omega=w, method="nearest").isel(dof=0))
        assert got == pytest.approx(RHO * G_WAMIT * table[per], rel=1e-6), per
    # one frequency beyond the QTF's (0.25 to 3 rad/s): NaN, not an error
    far = rao(semi(), omega=[1.0, 4.0], equilibrium=False)["body_mean_drift"]
    assert np.isfinite(far.sel(omega=1.0)).all()
    assert np.isnan(far.sel(omega=4.0)).all()


def test_rao_mean_drift_of_the_capytaine_sphere() -> None:
    """The far-field drift Capytaine wrote, read with xarray, is what the RAO reports;
    sway at heading 90 deg is surge at 0 (the sphere's symmetry)."""
    s = frylinks.System()
    s.configure("environment", water_density=RHO)
    s.add_body("buoy", mass=2.618e5, inertia=[1.5e6, 1.5e6, 2.6e6], position=[0, 0, -2])
    s.add_force("hs", "linear_hydrostatics", body="buoy", hydrodynamics=str(SPHERE))
    s.add_force("cable", "mooring_matrix", body="buoy",
                stiffness={"surge": 2e3, "sway": 2e3, "yaw": 1e5})
    s.add_force("drift", "wave_drift", body="buoy", hydrodynamics=str(SPHERE),
                method="newman")
    with xr.open_dataset(SPHERE) as file:
        surge = file["drift_force_surge"].sel(complex="re").isel(wave_direction_k=0,
                                                                 wave_direction_l=0)
        w = surge["omega"].values[[20, 30, 40, 80]]  # 1.05 to 4.05 rad/s
        expected = surge.sel(omega=w).values
    ds = rao(s, omega=w, headings_deg=[0.0, 90.0], equilibrium=False)
    d = ds["body_mean_drift"].sel(body="buoy")
    np.testing.assert_allclose(d.sel(heading=0.0).isel(dof=0), expected, rtol=1e-9)
    np.testing.assert_allclose(d.sel(heading=90.0).isel(dof=1), expected, rtol=1e-6)
    # heave, roll and pitch: the far field gives none
    assert np.all(d.isel(dof=[2, 3, 4]) == 0.0)


def test_rao_without_wave_drift_has_no_mean_drift() -> None:
    ds = rao(semi(drift=False), omega=[0.5, 1.0], equilibrium=False)
    assert "body_mean_drift" not in ds and "mean_drift_units" not in ds.coords


def test_cli_rao_prints_the_mean_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    case = Path(__file__).parents[1] / "cases" / "moored_buoy_drift.yaml"
    out = tmp_path / "rao.nc"
    assert main(["rao", str(case), "--periods", "5:10:6", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "body buoy: mean wave drift up to" in printed and "(body_mean_drift)" in printed
    with xr.open_dataset(out) as ds:
        assert ds["body_mean_drift"].sizes == {"heading": 1, "omega": 6, "body": 1,
                                               "dof": 6}
