"""``frylinks hydrostatics CASE``: the table of a box body against its closed forms, and
the one-line errors of a body without geometry and of a mesh that is not closed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from frylinks.cli import main

pytestmark = pytest.mark.compiled

CASE = """\
frylinks: 1
name: barge
solver: {{t_end: 1.0, dt: 0.01}}
gravity: [0, 0, -9.81]
environment: {{water_density: 1000.0}}
bodies:
  barge:
    mass: {mass}
    inertia: [1.0e6, 1.0e6, 1.0e6]
    position: [0, 0, 0.5]
    geometry: {geometry}
  weight:
    mass: 10.0
    inertia: [1.0, 1.0, 1.0]
    position: [0, 0, 5]
"""


def write_case(tmp_path: Path, geometry: str, mass: float = 80000.0) -> Path:
    case = tmp_path / "barge.yaml"
    case.write_text(CASE.format(geometry=geometry, mass=mass))
    return case


def test_box_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 20 x 4 x 3 m box, COG at z = 0.5 and the box centred on it (draft 1 m): V = 80
    m3, KB at -0.5, BM_T = B^2 / 12 T, GM_T = -0.5 + 4/3 - 0.5; upright GZ 0."""
    case = write_case(tmp_path, "{shape: box, size: [20, 4, 3]}")
    assert main(["hydrostatics", str(case), "--heel-step", "20"]) == 0
    out = capsys.readouterr().out
    assert "body 'weight': no geometry, skipped" in out
    assert "displaced volume          80 m3" in out
    assert "centre of buoyancy        0.0000  0.0000  -0.5000 m" in out
    gm_t = -0.5 + 16.0 / 12.0 - 0.5
    assert f"GM transverse, longit.    {gm_t:.4f}" in out
    heave = next(line for line in out.splitlines() if line.startswith("           8e+05")
                 or line.strip().startswith(f"{1000 * 9.81 * 80:.5g}"))
    assert float(heave.split()[0]) == pytest.approx(1000 * 9.81 * 80, rel=1e-5)
    rows = out.split("heel [deg]")[1].splitlines()[1:3]
    heel, gz, sinkage = (float(v) for v in rows[0].split())
    assert (heel, gz, sinkage) == (0.0, 0.0, 0.0)
    heel, gz, _ = (float(v) for v in rows[1].split())
    # wall-sided until the bilge emerges (tan = T / (B/2) = 1/2): sin(phi) (GM + BM tan^2 / 2)
    phi = np.radians(heel)
    assert gz == pytest.approx(np.sin(phi) * (gm_t + 4 / 3 * np.tan(phi) ** 2 / 2), abs=1e-4)


def test_body_without_geometry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = write_case(tmp_path, "{shape: box, size: [20, 4, 3]}")
    assert main(["hydrostatics", str(case), "--body", "weight"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "barge.yaml" in err and "bodies.weight.geometry" in err
    assert "no geometry" in err


def test_open_mesh_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    meshio = pytest.importorskip("meshio")
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)],
                       dtype=float)
    quads = np.array([[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4]])
    mesh_file = tmp_path / "open.vtk"
    meshio.write(mesh_file, meshio.Mesh(corners, [("quad", quads)]))
    case = write_case(tmp_path, f"{{mesh: {mesh_file.name}}}", mass=4000.0)
    assert main(["hydrostatics", str(case)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "barge.yaml" in err and "bodies.barge.geometry" in err and "open.vtk" in err
    assert "not closed: 4 edges" in err


def test_a_body_that_sinks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Heavier than its whole volume of water: the table, and no GZ curve, saying why."""
    case = write_case(tmp_path, "{shape: box, size: [20, 4, 3]}", mass=300000.0)
    assert main(["hydrostatics", str(case), "--body", "barge"]) == 0
    assert "GZ curve: none, cannot float" in capsys.readouterr().out
