"""``frylinks import wecsim``: WEC-Sim input files (tests/data/wecsim, written in
WEC-Sim's syntax after its examples: RM3 regular and irregular, OSWEC, a sphere's decay, a
mooring matrix) written as case files that read, say what they guessed and what they
did not translate line by line, and for RM3 run as ``cases/rm3.yaml`` runs."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from frylinks_marine.matlab_assignments import MatlabError, read_assignments
from frylinks_marine.wecsim_import import import_wecsim

import frylinks
from frylinks.errors import ModelError

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "plugins" / "frylinks_marine" / "data"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A WEC-Sim case folder: the input files, hydroData/ and geometry/. RM3's data is
    the Capytaine dataset frylinks ships (WEC-Sim's rm3.h5 is not here); OSWEC's is a
    stand-in two-body dataset (RM3's: only the joints are under test there)."""
    out = tmp_path_factory.mktemp("wecsim")
    for m in (ROOT / "tests" / "data" / "wecsim").glob("*.m"):
        shutil.copy(m, out)
    (out / "hydroData").mkdir()
    (out / "geometry").mkdir()
    shutil.copy(DATA / "rm3_hydrodynamics.nc", out / "hydroData" / "rm3.nc")
    shutil.copy(DATA / "rm3_hydrodynamics.nc", out / "hydroData" / "oswec.nc")
    shutil.copy(DATA / "sphere_bemio.h5", out / "hydroData" / "sphere.h5")
    shutil.copy(ROOT / "cases" / "geometry" / "rm3_float.dat", out / "geometry" / "float.dat")
    shutil.copy(ROOT / "cases" / "geometry" / "rm3_spar.dat", out / "geometry" / "plate.dat")
    return out


def convert(folder: Path, name: str) -> tuple[Path, dict, list[str], list[str]]:
    case = folder / f"{name}.yaml"
    conv = import_wecsim(folder / f"{name}.m", case)
    case.write_text(conv.text)
    return case, yaml.safe_load(conv.text), conv.guesses, conv.untranslated


def test_rm3_runs_as_the_shipped_case(folder: Path) -> None:
    """WEC-Sim's RM3 input: two bodies from the dataset ('equilibrium' masses its rigid-body
    masses), a planar link (Floating (3DOF)) to the seabed and a prismatic PTO link damped
    at 1.2e6 N s/m, no body-to-body interaction (b2b off): the same motions and absorbed
    power as cases/rm3.yaml over the first 6 s, to the rounding of that case's masses and
    inertias (1e-5)."""
    case, data, guesses, untranslated = convert(folder, "rm3_regular")
    assert data["links"]["constraint1"]["type"] == "planar"
    assert data["links"]["pto1"]["spring_damper"] == {"stiffness": 0.0, "damping": 1.2e6}
    assert all(f["interaction"] is False for n, f in data["forces"].items()
               if f["type"] == "radiation")
    assert data["solver"] == {"t_end": 400.0, "dt": 0.1, "integrator": "rk4"}
    assert any("constraint(1) 'Constraint1': planar (from its comment)" in g for g in guesses)
    assert [u.split(":")[0] for u in untranslated] == ["line 3", "line 4", "line 5",
                                                      "line 11"]
    assert "# Not translated:\n#   line 3: simu.simMechanicsFile = 'RM3.slx'" in \
        case.read_text()
    mine = frylinks.run(case, t_end=6.0, dt=0.05).isel(time=slice(None, None, 2))
    theirs = frylinks.run(ROOT / "cases" / "rm3.yaml", t_end=6.0)   # (a sample every 2)
    for a, b in (("rm3_float", "float"), ("rm3_spar", "spar")):
        np.testing.assert_allclose(mine.body_position.sel(body=a).values,
                                   theirs.body_position.sel(body=b).values,
                                   rtol=0, atol=1e-5)
    p_mine = mine.absorbed_power.sel(pto="pto1").values
    p_theirs = theirs.absorbed_power.sel(pto="pto").values
    assert np.abs(p_mine - p_theirs).max() < 1e-4 * np.abs(p_theirs).max()


def test_rm3_irregular_sea(folder: Path) -> None:
    _, data, guesses, _ = convert(folder, "rm3_irregular")
    waves = data["environment"]["waves"]
    assert waves == {"type": "irregular", "spectrum": "jonswap", "hs": 2.5, "tp": 8.0,
                     "frequencies": "equal_energy", "seed": 1, "heading_deg": 0.0,
                     "ramp": 100.0, "ramp_shape": "half_cosine"}
    assert any("phaseSeed" in g for g in guesses)


def test_oswec_fixed_base_and_rotational_pto(folder: Path) -> None:
    case, data, guesses, _ = convert(folder, "oswec")
    base, flap = list(data["bodies"])[1], next(iter(data["bodies"]))
    assert data["links"]["constraint1"] == {"type": "fixed", "master": "ground.constraint1",
                                            "slave": f"{base}.constraint1"}
    pto = data["links"]["pto1"]
    assert (pto["type"], pto["master"], pto["slave"]) == ("revolute", f"{base}.pto1",
                                                          f"{flap}.pto1")
    # the hinge turns about world y: the node's z axis is turned onto it
    node = data["bodies"][flap]["nodes"]["pto1"]
    assert node["orientation"] == {"axis": [-1.0, 0.0, 0.0], "angle_deg": 90.0}
    assert any("rotation axis world y" in g for g in guesses)
    system = frylinks.load_case(str(case))
    assert set(system.links) == {"constraint1", "pto1"}


def test_sphere_decay(folder: Path) -> None:
    """'equilibrium' from the BEMIO file's displaced volume; the initial displacement; the
    quadratic drag from cd and area; output every dtOut / dt steps; no waves."""
    _, data, guesses, _ = convert(folder, "sphere_decay")
    body = data["bodies"]["sphere"]
    assert body["mass"] == pytest.approx(1000.0 * 261.724)
    assert body["position"] == pytest.approx([0.0, 0.0, -2.5])
    assert data["forces"]["sphere_drag"]["damping"] == {
        "heave": pytest.approx(0.5 * 1000.0 * 0.5 * math.pi * 25.0)}
    assert "waves" not in data["environment"]
    assert data["output"] == {"every": 5}
    assert data["links"]["constraint1"]["type"] == "prismatic"
    assert any("displaced volume 261.724 m3" in g for g in guesses)


def test_mooring_matrix_and_an_untranslated_object(folder: Path) -> None:
    """The stiffness matrix built element by element (K = zeros(6); K(1,1) = ...); a
    cable, which frylinks has no counterpart for, named with its line."""
    case, data, _, untranslated = convert(folder, "mooring_matrix")
    mooring = data["forces"]["mooring1"]
    assert mooring["type"] == "mooring_matrix" and mooring["body"] == "sphere"
    assert mooring["stiffness"] == {"surge": 5e4, "sway": 5e4, "yaw": 1e6}
    assert data["forces"]["sphere_linear_damping"]["damping"] == {"surge": 1e4, "sway": 1e4}
    assert data["environment"]["waves"]["spectrum"] == "pierson_moskowitz"
    assert any(u.startswith("line 29: cable(1) = cableClass(") for u in untranslated)
    frylinks.load_case(str(case))


@pytest.mark.parametrize(("text", "message"), [
    ("simu.dt = load('dt.mat');", r"line 1: load\(...\) is not a function frylinks "
                                  r"evaluates \(zeros, ones"),
    ("for k = 1:3\n simu.dt = k;\nend", "line 1: "),
    ("simu.dt = [1 2; 3];", "line 1: rows of a matrix differ in length"),
    ("waves.period = Tp;", "line 1: Tp is not a value assigned before"),
])
def test_what_is_not_arithmetic_is_named(text: str, message: str) -> None:
    with pytest.raises(MatlabError, match=message):
        read_assignments(text)


def test_the_command(folder: Path) -> None:
    out = folder / "converted.yaml"
    done = subprocess.run([sys.executable, "-m", "frylinks", "import", "wecsim",
                           str(folder / "rm3_regular.m"), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "guessed: pto(1) 'PTO1': prismatic" in done.stdout
    assert "not translated: line 4: simu.mode = 'normal'" in done.stdout
    again = subprocess.run([sys.executable, "-m", "frylinks", "import", "wecsim",
                            str(folder / "rm3_regular.m"), "-o", str(out)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "exists: give another -o, or --force" in again.stderr
    bad = folder / "bad.m"
    bad.write_text("simu = simulationClass();\nsimu.dt = rand(1);\n")
    fail = subprocess.run([sys.executable, "-m", "frylinks", "import", "wecsim", str(bad),
                           "-o", str(folder / "bad.yaml")], capture_output=True, text=True,
                          timeout=120)
    assert fail.returncode == 2 and "Traceback" not in fail.stderr
    assert "bad.m', line 2: rand(...) is not a function frylinks evaluates" in fail.stderr
    with pytest.raises(ModelError, match="no body"):
        import_wecsim(_only(folder, "simu = simulationClass();\nsimu.endTime = 1;\n"),
                      folder / "x.yaml")


def _only(folder: Path, text: str) -> Path:
    path = folder / "only.m"
    path.write_text(text)
    return path
