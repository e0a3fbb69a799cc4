"""Seas as specified through the case file and Python: spreading, several wave systems,
spectrum tables, frequency discretisations, seeds, and their errors
(:mod:`frylinks_marine.sea_states`; the exact references are in
``tests/validation/test_seas.py``)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from frylinks_marine.environment import Environment
from frylinks_marine.sea_states import WaveSystem, irregular_sea
from frylinks_marine.spectrum_tables import SpectrumTable
from frylinks_marine.spreading import Spreading
from frylinks_marine.waves import WaveField, jonswap

import frylinks
from frylinks.errors import CaseError, ModelError
from frylinks.params import parse_params

ROOT = Path(__file__).resolve().parents[1]
GRAVITY = np.array([0.0, 0.0, -9.81])


def environment(waves: Any) -> Environment:
    params = parse_params(Environment.parameters, {"waves": waves}, "")
    Environment.validate(params)
    return Environment(params, GRAVITY)


def error_of(waves: Any) -> ModelError:
    with pytest.raises(ModelError) as info:
        environment(waves)
    return info.value


SWELL = {"spectrum": "jonswap", "hs": 1.5, "tp": 14.0, "gamma": 5.0, "heading_deg": -20,
         "spreading": {"type": "cos2s", "s": 40}, "nb_frequencies": 40}
WIND = {"spectrum": "pierson_moskowitz", "hs": 2.0, "tp": 7.0, "heading_deg": 45,
        "spreading": {"type": "wrapped_normal", "sigma_deg": 25}, "nb_frequencies": 60,
        "frequencies": "equal_energy"}


# ------------------------------------------------------------------- the same sea


def test_irregular_case_is_todays_sea_bit_for_bit() -> None:
    waves = {"type": "irregular", "spectrum": "jonswap", "hs": 2.0, "tp": 8.0,
             "nb_frequencies": 150, "seed": 7, "heading_deg": 10, "ramp": 20.0}
    got = environment(waves).waves
    want = WaveField.irregular("jonswap", 2.0, 8.0, 3.3, nb_frequencies=150, seed=7,
                               heading=math.radians(10), ramp=20.0)
    for name in ("amplitude", "omega", "heading", "phase", "k", "bin_width"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_seeds_and_streams() -> None:
    """Same inputs and seed, same sea; another seed, another; a system's draw does not
    depend on the systems after it (spawned streams)."""
    waves = {"type": "systems", "systems": [SWELL, WIND], "seed": 3}
    a, b = environment(waves).waves, environment(waves).waves
    c = environment({**waves, "seed": 4}).waves
    for name in ("amplitude", "omega", "heading", "phase"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
        assert not np.array_equal(getattr(a, name)[:40], getattr(c, name)[:40]) or \
            name == "amplitude"
    three = environment({**waves, "systems": [SWELL, WIND, SWELL]}).waves
    assert np.array_equal(three.phase[:100], a.phase)
    assert np.array_equal(three.heading[:100], a.heading)
    # the two systems' streams differ: the same system twice gets other phases
    twice = environment({**waves, "systems": [SWELL, SWELL]}).waves
    assert not np.array_equal(twice.phase[:40], twice.phase[40:])
    assert a.nb_components == 100


def test_python_api_builds_the_same_sea() -> None:
    swell = WaveSystem("jonswap", 1.5, 14.0, 5.0, heading=math.radians(-20),
                       spreading=Spreading("cos2s", 40), nb_frequencies=40)
    wind = WaveSystem("pierson_moskowitz", 2.0, 7.0, heading=math.radians(45),
                      spreading=Spreading("wrapped_normal", 25), nb_frequencies=60,
                      frequencies="equal_energy")
    py = irregular_sea([swell, wind], seed=3)
    case = environment({"type": "systems", "systems": [SWELL, WIND], "seed": 3}).waves
    for name in ("amplitude", "omega", "heading", "phase", "bin_width"):
        assert np.array_equal(getattr(py, name), getattr(case, name)), name


def test_frequency_discretisations() -> None:
    base = {"type": "irregular", "hs": 2.0, "tp": 8.0, "nb_frequencies": 30}
    equal = environment({**base, "frequencies": "equal"}).waves
    assert equal.bin_width is not None
    np.testing.assert_allclose(np.diff(equal.omega), equal.bin_width[0], rtol=1e-12)
    energy = environment({**base, "frequencies": "equal_energy"}).waves
    np.testing.assert_allclose(energy.amplitude, energy.amplitude[0], rtol=1e-15)
    s = energy.elevation_spectrum()[1]  # bins narrow where S is high
    assert energy.bin_width is not None
    assert energy.bin_width[np.argmax(s)] == energy.bin_width.min()
    np.testing.assert_allclose(s.max(), jonswap(2 * math.pi / 8.0, 2.0, 8.0), rtol=0.05)


# ------------------------------------------------------------------- spectrum tables


def test_table_csv_files(tmp_path: Path) -> None:
    one = tmp_path / "s.csv"
    one.write_text("# a swell\nf_hz,S_m2_per_hz\n0.05,0\n0.1,10\n0.15,0\n")
    table = SpectrumTable.read_csv(one)
    assert table.m0 == pytest.approx(0.5)
    bare = tmp_path / "bare.csv"
    bare.write_text("0.05,0\n0.1,10\n0.15,0\n")
    assert SpectrumTable.read_csv(bare).m0 == pytest.approx(0.5)
    grid = tmp_path / "grid.csv"
    # 4 directions, all the energy between 0 and 90 deg: 10 m^2/Hz/rad over pi/2 rad
    grid.write_text("f_hz\\dir_deg,0,90,180,270\n0.05,0,0,0,0\n0.1,10,10,0,0\n0.15,0,0,0,0\n")
    directional = SpectrumTable.read_csv(grid)
    assert directional.direction is not None
    # the row at 0.1 Hz integrates (linear between directions, round the circle) to
    # 10 * pi/2 (flat part) + 2 * 10 * pi/4 (ramps down to 0 at 180 and 270 = -90)
    assert directional.density_omega[1] * 2 * math.pi == pytest.approx(10 * math.pi)
    headings = directional.sample_directions(np.full(5, 2 * math.pi * 0.1),
                                             np.linspace(0.01, 0.99, 5))
    # none between 180 and 270 deg, where the table is 0; half the energy lies from 0 to 90
    within = np.degrees(headings) % 360.0
    assert not ((within > 180.0) & (within < 270.0)).any()
    assert math.degrees(headings[2]) == pytest.approx(90.0)


def test_netcdf_tables(tmp_path: Path) -> None:
    """A directional netCDF table (coordinates in rad s-1 and rad, converted) is the
    inline table; a 1-D one too; a missing variable is named."""
    import xarray as xr

    f = np.array([0.05, 0.1, 0.15])
    theta = np.array([-30.0, 0.0, 30.0])
    grid = np.array([[0, 0, 0], [1.0, 4.0, 2.0], [0, 0, 0]])
    ds = xr.Dataset({"efth": (("frequency", "direction"), grid),
                     "s1d": (("frequency",), grid.sum(1))},
                    coords={"frequency": ("frequency", 2 * np.pi * f, {"units": "rad s-1"}),
                            "direction": ("direction", np.radians(theta), {"units": "rad"})})
    ds.to_netcdf(tmp_path / "sea.nc")
    inline = SpectrumTable(f, grid, theta)
    read = SpectrumTable.from_mapping({"file": str(tmp_path / "sea.nc"), "variable": "efth"})
    assert read.direction is not None and inline.direction is not None
    np.testing.assert_allclose(read.direction, inline.direction, rtol=1e-14)
    np.testing.assert_allclose(read.density_omega, inline.density_omega, rtol=1e-14)
    one = SpectrumTable.from_mapping({"file": str(tmp_path / "sea.nc"), "variable": "s1d"})
    assert one.direction is None and one.m0 == pytest.approx(0.05 * 7.0)
    err = error_of({"type": "irregular", "spectrum": "table",
                    "table": {"file": str(tmp_path / "sea.nc")}})
    assert err.path == "waves.table.variable" and "efth, s1d" in err.message


def test_table_in_a_case_with_a_relative_file(tmp_path: Path) -> None:
    """A case names its table beside itself; the file is read from the case's directory."""
    f = np.arange(0.03, 0.6, 0.005)
    s = 2 * math.pi * jonswap(2 * math.pi * f, 2.0, 9.0)
    (tmp_path / "sea.csv").write_text("f,S\n" + "\n".join(f"{a},{b}" for a, b in zip(f, s,
                                                                                  strict=True)))
    case = _case(tmp_path, "{type: irregular, spectrum: table, table: {file: sea.csv}, "
                 "frequencies: equal_energy, nb_frequencies: 50}")
    ds = frylinks.load_case(str(case)).run(t_end=0.2, dt=0.05)
    assert np.isfinite(ds.environment_wave_elevation.values).all()


# ------------------------------------------------------------------------ errors


@pytest.mark.parametrize(("waves", "path", "words"), [
    ({"type": "irregular", "hs": 2, "tp": 8, "spreading": {"type": "cos2s", "s": 0}},
     "waves.spreading.s", "> 0 and <= 1000"),
    ({"type": "irregular", "hs": 2, "tp": 8, "spreading": {"type": "cos2s", "s": 1e6}},
     "waves.spreading.s", "long-crested"),
    ({"type": "irregular", "hs": 2, "tp": 8, "spreading": {"type": "cosn", "n": -2}},
     "waves.spreading.n", "exponent n"),
    ({"type": "irregular", "hs": 2, "tp": 8,
      "spreading": {"type": "wrapped_normal", "sigma_deg": 400}},
     "waves.spreading.sigma_deg", "<= 90"),
    ({"type": "irregular", "hs": 2, "tp": 8, "spreading": {"type": "cos2s", "n": 4}},
     "waves.spreading.n", "accepted: type, s"),
    ({"type": "irregular", "hs": 2, "tp": 8, "spreading": {"type": "cos2s"}},
     "waves.spreading.s", "missing"),
    ({"type": "irregular", "hs": 2, "tp": 8, "spreading": {"type": "mitsuyasu", "s": 4}},
     "waves.spreading.type", "cos2s, cosn, wrapped_normal"),
    ({"type": "irregular", "hs": 2, "tp": 8, "spreading": 10},
     "waves.spreading", "mapping"),
    ({"type": "irregular", "hs": 2, "tp": 8, "frequencies": "log"},
     "waves.frequencies", "random, equal, equal_energy"),
    ({"type": "irregular", "tp": 8}, "waves.hs", "needs hs and tp"),
    ({"type": "irregular", "spectrum": "table"}, "waves.table", "needs table"),
    ({"type": "irregular", "hs": 2, "tp": 8, "table": {"file": "x.csv"}},
     "waves.table", "spectrum: table only"),
    ({"type": "irregular", "spectrum": "table", "hs": 2,
      "table": {"frequency_hz": [0.1, 0.2], "density": [1, 1]}}, "waves.hs", "leave hs out"),
    ({"type": "irregular", "spectrum": "table", "gamma": 2,
      "table": {"frequency_hz": [0.1, 0.2], "density": [1, 1]}}, "waves.gamma", "JONSWAP"),
    ({"type": "irregular", "spectrum": "table",
      "table": {"frequency_hz": [0.2, 0.1], "density": [1, 1]}},
     "waves.table.frequency_hz", "increasing"),
    ({"type": "irregular", "spectrum": "table",
      "table": {"frequency_hz": [0.1, 0.2], "density": [1, 1, 1]}},
     "waves.table.density", "one per frequency"),
    ({"type": "irregular", "spectrum": "table",
      "table": {"frequency_hz": [0.1, 0.2], "density": [0, 0]}},
     "waves.table.density", "no energy"),
    ({"type": "irregular", "spectrum": "table",
      "table": {"frequency_hz": [0.1, 0.2], "density": [1, -1]}},
     "waves.table.density", ">= 0"),
    ({"type": "irregular", "spectrum": "table",
      "table": {"frequency_hz": [0.1, 0.2], "direction_deg": [0, 90], "density": [1, 1]}},
     "waves.table.density", "rows"),
    ({"type": "irregular", "spectrum": "table",
      "table": {"frequency_hz": [0.1, 0.2], "direction_deg": [0, 360], "density": [[1, 1]] * 2}},
     "waves.table.direction_deg", "less than 360"),
    ({"type": "irregular", "spectrum": "table", "spreading": {"type": "cosn", "n": 2},
      "table": {"frequency_hz": [0.1, 0.2], "direction_deg": [0, 90], "density": [[1, 1]] * 2}},
     "waves.spreading", "its own spreading"),
    ({"type": "irregular", "spectrum": "table", "heading_deg": 30,
      "table": {"frequency_hz": [0.1, 0.2], "direction_deg": [0, 90], "density": [[1, 1]] * 2}},
     "waves.heading_deg", "absolute"),
    ({"type": "irregular", "spectrum": "table", "table": {"freq": [0.1, 0.2]}},
     "waves.table.freq", "accepted: file, variable, frequency_hz"),
    ({"type": "irregular", "spectrum": "table", "table": {"file": "nowhere.csv"}},
     "waves.table.file", "cannot read"),
    ({"type": "systems"}, "waves.systems", "missing"),
    ({"type": "systems", "systems": []}, "waves.systems", "one or more"),
    ({"type": "systems", "systems": {"hs": 1}}, "waves.systems", "a list"),
    ({"type": "systems", "systems": [SWELL, 3]}, "waves.systems[1]", "a mapping"),
    ({"type": "systems", "systems": [SWELL, {**WIND, "seed": 2}]}, "waves.systems[1].seed",
     "unknown key"),
    ({"type": "systems", "systems": [SWELL, {**WIND, "spreading": {"type": "cos2s", "s": -1}}]},
     "waves.systems[1].spreading.s", "> 0"),
    ({"type": "systems", "systems": [{**SWELL, "nb_frequencies": 0}]},
     "waves.systems[0].nb_frequencies", "whole number"),
    ({"type": "systems", "systems": [SWELL], "seed": -1}, "waves.seed", "whole number"),
])
def test_bad_seas_name_the_key(waves: dict[str, Any], path: str, words: str) -> None:
    err = error_of(waves)
    assert err.path == path, err
    assert words in err.message, err


@pytest.mark.parametrize(("make", "path"), [
    (lambda: Spreading("cos2s", "10"), "spreading.s"),  # type: ignore[arg-type]
    (lambda: Spreading("cos2s", math.nan), "spreading.s"),
    (lambda: Spreading("cardioid", 3.0), "spreading.type"),
    (lambda: WaveSystem("jonswap", 2.0, 8.0, heading=math.inf), "heading"),
    (lambda: WaveSystem("jonswap", 2.0, 8.0, frequencies="log"), "frequencies"),
    (lambda: WaveSystem("jonswap", 2.0, 8.0, omega_range=(1.0, 0.5)), "omega_range"),
    (lambda: WaveSystem("jonswap", 2.0, 8.0, spreading=3.0), "spreading"),  # type: ignore[arg-type]
    (lambda: irregular_sea([]), "systems"),
    (lambda: irregular_sea([WaveSystem("jonswap", 2.0, 8.0)], seed=-1), "seed"),
])
def test_bad_python_arguments_name_the_parameter(make: Any, path: str) -> None:
    with pytest.raises(ModelError) as info:
        make()
    assert info.value.path == path


def test_bad_table_file_content(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("f,S\n0.1,abc\n")
    err = error_of({"type": "irregular", "spectrum": "table", "table": {"file": str(bad)}})
    assert err.path == "waves.table.file"
    assert "bad.csv" in err.message and "not a table of numbers" in err.message


# -------------------------------------------------------------------- case files


def _case(tmp_path: Path, waves: str) -> Path:
    text = (ROOT / "cases" / "oswec_waves.yaml").read_text()
    old = "  waves: {type: regular, height: 2.0, period: 8.0, heading_deg: 0, ramp: 16.0}"
    assert old in text
    path = tmp_path / "spread.yaml"
    path.write_text(text.replace(old, f"  waves: {waves}"))
    return path


SPREAD_SEA = """
    type: systems
    seed: 5
    ramp: 1.0
    systems:
      - {spectrum: jonswap, hs: 1.0, tp: 12.0, gamma: 5.0, heading_deg: -20,
         spreading: {type: cos2s, s: 40}, nb_frequencies: 30}
      - {spectrum: pierson_moskowitz, hs: 1.5, tp: 6.0, heading_deg: 30,
         spreading: {type: wrapped_normal, sigma_deg: 25}, nb_frequencies: 40,
         frequencies: equal_energy}"""


def test_spread_two_system_case_runs(tmp_path: Path) -> None:
    """A case with swell and wind sea, each spread, loads and runs: the elevation at the
    probe is the field's, and the Morison forces see the same components."""
    system = frylinks.load_case(str(_case(tmp_path, SPREAD_SEA)))
    ds = system.run(t_end=2.0, dt=0.05)
    eta = ds.environment_wave_elevation.sel(wave_probe="flap").values
    field = irregular_sea([
        WaveSystem("jonswap", 1.0, 12.0, 5.0, heading=math.radians(-20),
                   spreading=Spreading("cos2s", 40), nb_frequencies=30),
        WaveSystem("pierson_moskowitz", 1.5, 6.0, heading=math.radians(30),
                   spreading=Spreading("wrapped_normal", 25), nb_frequencies=40,
                   frequencies="equal_energy")], 5, ramp=1.0, depth=10.9)
    t = ds.time.values
    np.testing.assert_allclose(eta, field.elevation(np.zeros((t.size, 2)), t), atol=1e-12)
    assert np.abs(eta).max() > 0.01
    assert np.isfinite(ds.body_position.values).all()


def test_bad_sea_in_a_case_names_file_key_and_line(tmp_path: Path) -> None:
    bad = SPREAD_SEA.replace("sigma_deg: 25", "sigma_deg: 0")
    with pytest.raises(CaseError) as err:
        frylinks.load_case(str(_case(tmp_path, bad)))
    text = str(err.value)
    assert "spread.yaml" in text and "line" in text
    assert "environment.waves.systems[1].spreading.sigma_deg" in text
    assert "> 0 and <= 90" in text


def test_a_spread_sea_beyond_the_excitation_datas_headings_names_both(tmp_path: Path) -> None:
    text = (ROOT / "cases" / "point_absorber.yaml").read_text()
    start = text.index("  waves: {type: irregular")
    end = text.index("ramp: 20.0}", start) + len("ramp: 20.0}")
    sea = ("  waves: {type: irregular, hs: 2.0, tp: 8.0, nb_frequencies: 20, seed: 1, "
           "spreading: {type: cos2s, s: 4}}")
    path = tmp_path / "spread.yaml"
    path.write_text(text[:start] + sea + text[end:])
    data = ROOT / "plugins" / "frylinks_marine" / "data"
    path.write_text(path.read_text().replace("../plugins/frylinks_marine/data", str(data)))
    with pytest.raises(CaseError) as err:
        frylinks.run(path, t_end=0.5)
    text = str(err.value)
    assert "forces.excitation.hydrodynamics" in text and "headings are 0, 90 deg" in text
    assert "environment.waves" in text and "spreading" in text
