"""``wave_drift`` from case files: its outputs, and bad input told by file, key and what
is accepted (the physics: tests/validation/test_wave_drift.py)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import frylinks
from frylinks.errors import CaseError

ROOT = Path(__file__).resolve().parents[1]
OC4 = ROOT / "plugins" / "frylinks_marine" / "data" / "wamit" / "marin_semi.1.gz"
SPHERE = ROOT / "plugins" / "frylinks_marine" / "data" / "sphere_capytaine.nc"

CASE = """\
frylinks: 1
name: drift
gravity: [0, 0, -9.80665]
environment:
  water_density: 1025
  depth: 200
  waves: {waves}
ground:
  nodes: {{hold: {{position: [0, 0, -13.46]}}}}
bodies:
  platform: {{mass: 1.3473e7, inertia: [6.8e9, 6.8e9, 1.2e10], position: [0, 0, -13.46]}}
links:
  held: {{type: fixed, master: ground.hold, slave: platform}}
forces:
  drift: {{type: wave_drift, body: platform, hydrodynamics: {data}{extra}}}
solver: {{t_end: 4, dt: 0.1}}
"""
SEA = "{type: irregular, hs: 4, tp: 10, nb_frequencies: 30, seed: 1}"


def _case(tmp_path: Path, waves: str = SEA, extra: str = "", data: Path = OC4) -> Path:
    path = tmp_path / "drift.yaml"
    path.write_text(CASE.format(waves=waves, data=data, extra=extra))
    return path


def test_a_case_writes_the_parts_and_their_sum_is_the_force(tmp_path: Path) -> None:
    ds = frylinks.run(_case(tmp_path, extra=", sum_frequency: true, drift_damping: true"))
    parts = sum(ds[f"wave_drift_{p}_force"].sel(wave_drift_element="drift").values
                for p in ("mean", "slow", "sum", "damping"))
    force = ds.force_force.sel(force="drift").values
    torque = ds.force_torque.sel(force="drift").values
    np.testing.assert_allclose(parts[:, :3], force, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(parts[:, 3:], torque, rtol=1e-12, atol=1e-9)
    assert np.abs(ds.wave_drift_slow_force.values).max() > 0.0
    assert np.abs(ds.wave_drift_sum_force.values).max() > 0.0
    assert ds.wave_drift_mean_force.attrs["units"] == "1"  # N and N m: per-DOF units


@pytest.mark.parametrize("waves, extra, data, path, words", [
    ("{type: irregular, hs: 4, tp: 25, nb_frequencies: 30}", "", OC4,
     "forces.drift.hydrodynamics", "cover 0.25 to 3 rad/s"),
    (SEA, ", method: qtf", SPHERE, "forces.drift.method", "no difference-frequency QTF"),
    (SEA, ", mean_drift: momentum", OC4, "forces.drift.mean_drift", "no mean drift"),
    (SEA, ", dofs: [surge, drift]", OC4, "forces.drift.dofs", "list of DOFs among surge"),
    (SEA, ", sum_frequency: yes please", OC4, "forces.drift.sum_frequency", "true or false"),
    (SEA, ", method: slow", OC4, "forces.drift.method", "qtf"),
])
def test_bad_input_names_file_key_and_what_is_accepted(tmp_path: Path, waves: str, extra: str,
                                                      data: Path, path: str,
                                                      words: str) -> None:
    with pytest.raises(CaseError) as err:
        frylinks.run(_case(tmp_path, waves, extra, data))
    text = str(err.value)
    assert "drift.yaml" in text and path in text and words in text, text


def test_a_spread_sea_on_a_one_heading_qtf_says_so(tmp_path: Path) -> None:
    sea = ("{type: irregular, hs: 4, tp: 10, nb_frequencies: 30, seed: 1, "
           "spreading: {type: cos2s, s: 10}}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = frylinks.run(_case(tmp_path, sea))
    said = [str(w.message) for w in caught if "one heading" in str(w.message)]
    assert said and "serves every component" in said[0]
    assert ds.attrs["status"] == "completed"


def test_hydrodynamics_cog_moves_a_wamit_runs_moments_to_the_cog(tmp_path: Path) -> None:
    """WAMIT's coefficients are about the body origin (the OC4 semi's on the water line);
    about a COG 13.46 m below it, a drift moment gains ``r x F`` with ``r = (0, 0,
    13.46)`` from the COG to the origin: pitch ``+13.46 F_x``, roll ``-13.46 F_y``."""
    sea = "{type: regular, height: 4, period: 9}"
    runs = [frylinks.run(_case(tmp_path, sea, extra))
            .wave_drift_mean_force.sel(wave_drift_element="drift").values[-1]
            for extra in ("", ", hydrodynamics_cog: [0, 0, -13.46]")]
    about_origin, about_cog = runs
    np.testing.assert_allclose(about_cog[:3], about_origin[:3], rtol=1e-12)
    np.testing.assert_allclose(about_cog[4], about_origin[4] + 13.46 * about_origin[0],
                               rtol=1e-9)
    np.testing.assert_allclose(about_cog[3], about_origin[3] - 13.46 * about_origin[1],
                               rtol=1e-9, atol=1e-6 * abs(about_origin[4]))
    assert abs(about_cog[4] - about_origin[4]) > 0.1 * abs(about_origin[4])


def test_tables_interpolate_exactly_what_is_linear_in_frequency_and_heading() -> None:
    """A QTF and a mean drift table made of a function linear in each frequency and
    each heading are reproduced exactly between their points (bilinear interpolation
    over frequency pairs and heading pairs), and the mean drift's slope is that
    function's derivative."""
    from frylinks_marine.drift_loads import mean_drift_at, qtf_at
    from frylinks_marine.second_order import DriftTable

    w = np.linspace(0.3, 2.0, 6)
    b = np.radians([0.0, 90.0, 180.0, 270.0])

    def f(wi, wj, bi, bj):  # (linear in each argument, complex, a DOF apart)
        base = (1 + 2 * wi - wj + 1j * wi * wj) * (1 + 0.3 * bi) * (2 - 0.1 * bj)
        return base[..., None] * np.arange(1, 7)

    grid = f(*np.meshgrid(w, w, b, b, indexing="ij"))
    qtf = DriftTable(w, b, grid, "difference")
    rng = np.random.default_rng(4)
    om = rng.uniform(0.3, 2.0, 9)
    hd = rng.choice(np.radians([10.0, 45.0, 135.0, 200.0]), 9)
    got = qtf_at(qtf, om, hd, "test")
    exact = f(om[:, None], om[None, :], hd[:, None], hd[None, :])
    np.testing.assert_allclose(got, exact, rtol=1e-12)
    drift = DriftTable(w, b, (3 * w[:, None] + b[None, :])[..., None] * np.ones(6),
                       "mean_drift")
    np.testing.assert_allclose(mean_drift_at(drift, om, hd, "test")[:, 0], 3 * om + hd,
                               rtol=1e-12)
    np.testing.assert_allclose(mean_drift_at(drift, om, hd, "test", slope=True)[:, 0], 3.0,
                               rtol=1e-12)
