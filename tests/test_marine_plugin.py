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


def test_radiation_and_waves_resume_bit_for_bit(tmp_path: Path) -> None:
    """The radiation states are part of the checkpoint: a run interrupted and resumed
    equals the uninterrupted one, for the fixed-step and the adaptive integrator."""
    case = write(tmp_path, "{type: irregular, hs: 2.0, tp: 8.0, nb_frequencies: 40, seed: 3}")
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
        assert np.abs(resumed.radiation_memory_force.sel(force="rad").values).max() > 1.0
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
        assert f.radiation_memory_force.dims == ("time", "force", "dof")
    assert textwrap.dedent(ds.attrs["case"]).startswith("frylinks: 1")
