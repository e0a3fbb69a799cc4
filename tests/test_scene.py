"""Body geometry: meshes read (Nemoh mirrored, meshio formats), shapes sized, mistakes
named by key and file."""

from __future__ import annotations

from pathlib import Path

import meshio
import numpy as np
import pytest

from frylinks.errors import ModelError
from frylinks.model.geometry import load_mesh, parse_geometry, shape_mesh

GEOMETRY = Path(__file__).resolve().parent.parent / "cases" / "geometry"


def test_nemoh_half_mesh_mirrored() -> None:
    mesh = load_mesh(str(GEOMETRY / "rm3_float.dat"))
    # the file holds the half y >= 0: mirrored, the float is whole and symmetric
    mirrored = mesh.points * [1.0, -1.0, 1.0]
    assert {tuple(p) for p in mirrored.round(6)} == {tuple(p) for p in mesh.points.round(6)}
    # RM3's float: 20 m across, from its 3 m draft up to 2 m above the waterline
    assert np.ptp(mesh.points[:, 0]) == pytest.approx(20.0, abs=0.05)
    assert mesh.points[:, 2].min() == pytest.approx(-3.0)
    assert mesh.faces.max() < len(mesh.points)
    assert len(np.unique(mesh.points.round(6), axis=0)) == len(mesh.points), "merged"


def test_meshio_formats(tmp_path: Path) -> None:
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    cells = [("triangle", np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]))]
    meshio.write(tmp_path / "t.stl", meshio.Mesh(points, cells), binary=True)
    mesh = load_mesh(str(tmp_path / "t.stl"))
    assert len(mesh.points) == 4 and mesh.faces.shape == (4, 4)


def test_shapes_sized() -> None:
    box = shape_mesh({"shape": "box", "size": [4.0, 2.0, 1.0]})
    np.testing.assert_allclose(np.ptp(box.points, axis=0), [4.0, 2.0, 1.0])
    cylinder = shape_mesh({"shape": "cylinder", "radius": 3.0, "height": 12.0})
    assert np.linalg.norm(cylinder.points[:, :2], axis=1).max() == pytest.approx(3.0)
    assert np.ptp(cylinder.points[:, 2]) == pytest.approx(12.0)
    sphere = shape_mesh({"shape": "sphere", "radius": 5.0})
    np.testing.assert_allclose(np.linalg.norm(sphere.points, axis=1), 5.0)


def test_geometry_placed() -> None:
    spec = parse_geometry({"shape": "sphere", "radius": 1.0, "position": [0, 0, 2.0],
                           "orientation": {"axis": [1, 0, 0], "angle_deg": 90}}, "g")
    assert spec == {"shape": "sphere", "radius": 1.0, "position": [0.0, 0.0, 2.0],
                    "orientation": pytest.approx([2**-0.5, 2**-0.5, 0.0, 0.0])}


@pytest.mark.parametrize(("value", "path", "message"), [
    ({"mesh": "nowhere.stl"}, "b.geometry.mesh", "mesh file '.*nowhere.stl' not found"),
    ({"shape": "cone"}, "b.geometry.shape", "unknown shape 'cone'"),
    ({"shape": "box", "size": [1, 0, 1]}, "b.geometry.size", "sizes must be > 0"),
    ({"shape": "sphere", "radius": 1.0, "colour": "red"}, "b.geometry.colour", "colour"),
    ("sphere", "b.geometry", "expected {mesh: FILE}"),
])
def test_mistakes_named(value: object, path: str, message: str) -> None:
    with pytest.raises(ModelError, match=message) as info:
        parse_geometry(value, "b.geometry")
    assert info.value.path == path


def test_unreadable_mesh(tmp_path: Path) -> None:
    bad = tmp_path / "hull.obj"
    bad.write_text("this is not a mesh\n")
    with pytest.raises(ModelError, match=r"hull\.obj"):
        parse_geometry({"mesh": str(bad)}, "b.geometry")
