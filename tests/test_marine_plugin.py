"""The marine plugin through the case file and the run machinery: the environment
section's errors, radiation states in checkpoints, outputs and statics."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from frylinks_marine.bem import EXAMPLE_DATA

import frylinks
from frylinks.errors import CaseError, ModelError
from tests.test_resume import StopAt, assert_same_run

CASE = """\
frylinks: 1
name: buoy
environment:
  water_density: 1000.0
  waves: {WAVES}
  wave_probes: {{p: [0, 0]}}
bodies:
  b: {{mass: 2.618e5, inertia: [1.0e6, 1.0e6, 1.0e6], position: [0, 0, -1.5]}}
forces:
  hs: {{type: linear_hydrostatics, body: b, hydrodynamics: {DATA}, equilibrium: [0, 0, -2]}}
  rad: {{type: radiation, body: b, hydrodynamics: {DATA}}}
  exc: {{type: wave_excitation, body: b, hydrodynamics: {DATA}}}
solver: {{t_end: 1.0, dt: 0.05}}
"""


def write(tmp_path: Path, waves: str) -> Path:
    path = tmp_path / "buoy.yaml"
    path.write_text(CASE.format(WAVES=waves, DATA=EXAMPLE_DATA))
    return path


@pytest.mark.parametrize(("waves", "key", "words"), [
    ("{type: regular, height: 1.0}", "environment.waves.period", "missing"),
    ("{type: regular, height: -1.0, period: 8}", "environment.waves.height", ">= 0"),
    ("{type: irregular, hs: 2.0, tp: 8.0, spectrum: bretschneider}",
     "environment.waves.spectrum", "jonswap"),
    ("{type: irregular, hs: 2.0, tp: 8.0, nb_frequencies: 2.5}",
     "environment.waves.nb_frequencies", "whole number"),
    ("{type: swell}", "environment.waves.type", "regular"),
    ("{type: regular, height: 1.0, period: 8, heading: 30}", "environment.waves", "heading"),
    ("{type: regular, height: 1.0, period: 8, ramp: 5, ramp_shape: cosine}",
     "environment.waves.ramp_shape", "half_cosine, linear"),
    ("{type: components, amplitude: [0.5, 0.2], period: [8.0]}", "environment.waves.period",
     "a list of 2 numbers"),
    ("{type: components, amplitude: [0.5], period: [8.0], phase_deg: [0, 1]}",
     "environment.waves.phase_deg", "a list of 1 numbers"),
    ("{type: record, file: missing.csv}", "environment.waves.file", "no such file"),
])
def test_environment_errors_name_the_key(tmp_path: Path, waves: str, key: str,
                                         words: str) -> None:
    with pytest.raises(CaseError) as err:
        frylinks.load_case(write(tmp_path, waves))
    text = str(err.value)
    assert key in text and words in text and "buoy.yaml" in text and "line" in text


def test_unknown_setting_and_bad_dataset_in_python() -> None:
    s = frylinks.System()
    with pytest.raises(ModelError, match=r"unknown setting 'enviroment'.*environment"):
        s.configure("enviroment", depth=10)
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    with pytest.raises(ModelError, match="no file") as err:
        s.add_force("r", "radiation", body="b", hydrodynamics="nowhere.nc")
    assert err.value.path == "forces.r.hydrodynamics"


@pytest.mark.parametrize("method", ["state_space", "convolution"])
def test_radiation_and_waves_resume_bit_for_bit(tmp_path: Path, method: str) -> None:
    """The radiation states, or the convolution's velocity history, are part of the
    checkpoint: a run interrupted and resumed equals the uninterrupted one, for the
    fixed-step and the adaptive integrator."""
    case = write(tmp_path, "{type: irregular, hs: 2.0, tp: 8.0, nb_frequencies: 40, seed: 3}")
    case.write_text(case.read_text().replace(
        "rad: {type: radiation, body: b,", f"rad: {{type: radiation, method: {method}, body: b,"))
    assert f"method: {method}" in case.read_text()
    for solver in ({"integrator": "rk4", "dt": 0.05}, {"integrator": "dop853", "dt": 0.1,
                                                        "rtol": 1e-7, "atol": 1e-9}):
        whole = frylinks.load_case(case).run(t_end=1.0, output=tmp_path / "w.nc", **solver)
        system = frylinks.load_case(case)
        system.registry.register(StopAt(0.42), name="ctrl-c")
        path = tmp_path / "r.nc"
        first = system.run(t_end=1.0, output=path, **solver)
        assert first.attrs["status"].startswith("interrupted")
        resumed = frylinks.load_case(case).run(t_end=1.0, output=path, resume=True,
                                                   **solver)
        memory = resumed.radiation_memory_force.sel(radiation_element="rad").values
        assert np.abs(memory).max() > 1.0
        assert_same_run(resumed, whole)


def test_initial_equilibrium_from_a_case(tmp_path: Path) -> None:
    """solver.initial_equilibrium moves the buoy (released 0.5 m high) to where buoyancy
    balances weight, and it stays there in still water."""
    path = write(tmp_path, "{type: still}")
    text = path.read_text().replace("solver: {t_end: 1.0, dt: 0.05}",
                                    "solver: {t_end: 1.0, dt: 0.05, initial_equilibrium: true}")
    path.write_text(text)
    ds = frylinks.run(path)
    z = ds.body_position.sel(body="b", xyz="z").values
    np.testing.assert_allclose(z, -2.0, atol=1e-9)
    assert np.abs(ds.environment_wave_elevation.values).max() == 0.0


def test_no_equilibrium_is_a_clear_error(tmp_path: Path) -> None:
    s = frylinks.System()
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    with pytest.raises(frylinks.FrylinksError, match=r"no static equilibrium.*'b'"):
        s.run(t_end=0.1, dt=0.05, initial_equilibrium=True)


def test_outputs_have_units(tmp_path: Path) -> None:
    ds = frylinks.run(write(tmp_path, "{type: regular, height: 1.0, period: 6.0}"),
                      tmp_path / "o.nc")
    with xr.open_dataset(tmp_path / "o.nc") as f:
        assert f.environment_wave_elevation.attrs["units"] == "m"
        assert f.environment_wave_elevation.dims == ("time", "wave_probe")
        # over the radiation elements only, N for tx ty tz and N m for rx ry rz
        assert f.radiation_memory_force.dims == ("time", "radiation_element", "dof")
        assert f.radiation_memory_force.attrs["units"] == "1"
        assert list(f.radiation_memory_force_units.values) == ["N"] * 3 + ["N m"] * 3
    assert textwrap.dedent(ds.attrs["case"]).startswith("frylinks: 1")


def test_waves_from_components_and_from_a_record(tmp_path: Path) -> None:
    """Explicit components give the elevation a cos(w t - phi) at the origin (exp(-i w t)
    convention); a record (a CSV named relative to the case file) gives back its samples,
    and the excitation of the record's sea equals that of the same components given
    explicitly."""
    t = 0.5 * np.arange(256)
    w1, w2 = 2 * np.pi * 10 / 128.0, 2 * np.pi * 17 / 128.0  # on the record's DFT grid
    eta = 0.8 * np.cos(w1 * t - 0.3) + 0.3 * np.cos(w2 * t + 1.1)
    data = tmp_path / "data"
    data.mkdir()
    (data / "eta.csv").write_text("time,eta\n" + "".join(f"{float(a)!r},{float(b)!r}\n"
                                                          for a, b in zip(t, eta, strict=True)))
    explicit = (f"{{type: components, amplitude: [0.8, 0.3], period: [{2 * np.pi / w1}, "
                f"{2 * np.pi / w2}], phase_deg: [{np.degrees(0.3)}, "
                f"{np.degrees(-1.1)}], heading_deg: 20}}")
    runs = {}
    for name, waves in (("components", explicit),
                        ("record", "{type: record, file: data/eta.csv, heading_deg: 20}")):
        case = write(tmp_path, waves)
        runs[name] = frylinks.load_case(str(case)).run(t_end=10.0, dt=0.5)
    got = runs["record"]["environment_wave_elevation"].sel(wave_probe="p").values
    assert np.max(np.abs(got - eta[:21])) < 1e-12
    got = runs["components"]["environment_wave_elevation"].sel(wave_probe="p").values
    assert np.max(np.abs(got - eta[:21])) < 1e-12
    a, b = (runs[k]["force_force"].sel(force="exc").values for k in ("components", "record"))
    assert np.abs(a).max() > 1e4
    assert np.max(np.abs(a - b)) < 1e-9 * np.abs(a).max()


def test_bem_round_off_is_recorded_as_zero_and_does_not_set_the_record_step() -> None:
    """A load series far below the largest of its kind on its body (a BEM's round-off
    where symmetry makes the load zero) is recorded as zero; a small real load is kept;
    the noise, rich in high frequencies, no longer sets the record's step."""
    from frylinks_marine.force_records import harmonic, record_step, without_noise

    rng = np.random.default_rng(3)
    omega = np.linspace(0.3, 3.0, 40)
    spectrum = np.exp(-((omega - 0.8) / 0.3) ** 2)  # a sea's loads: low frequencies
    phasors = np.zeros((12, omega.size), dtype=complex)
    phasors[0] = 4e4 * spectrum  # surge
    phasors[2] = 9e4 * spectrum  # heave
    phasors[4] = 8e4 * spectrum  # pitch
    noise = rng.standard_normal((3, omega.size)) + 1j * rng.standard_normal((3, omega.size))
    phasors[[1, 3, 5]] = 1e-11 * noise  # sway, roll, yaw: round-off, flat in frequency
    phasors[6:] = 1e-3 * phasors[:6]  # a second body, 1000 times smaller: its own scale
    phasors[7] = 2e-6 * 4e1 * spectrum  # a small real sway load of its own (kept)
    cleaned = without_noise(phasors)
    zeroed = ~np.any(cleaned != 0, axis=1)
    assert zeroed.tolist() == [False, True, False, True, False, True,
                               False, False, False, True, False, True]
    np.testing.assert_array_equal(cleaned[~zeroed], phasors[~zeroed])
    # the noise alone asks for a finer record than the loads
    assert record_step(np.abs(cleaned), omega) > 1.5 * record_step(np.abs(phasors), omega)
    record = harmonic(cleaned, omega, (0.0, 100.0))
    grid, values, rates = record.kernel_data()
    assert not np.any(values[:, zeroed]) and not np.any(rates[:, zeroed])
    # the loads kept are recorded as before: heave at a sample, against the plain sum
    k = 371
    exact = np.real(phasors[2] @ np.exp(-1j * omega * (grid[0] + k * grid[1])))
    assert abs(values[k, 2] - exact) < 1e-12 * np.abs(phasors[2]).sum()
