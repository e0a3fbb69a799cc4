"""ParaView export as a .pvd series (``format="pvd"``): the files read back with meshio hold
the poses, steps and arrays (tests/test_vtkhdf.py checks the VTKHDF file)."""

from __future__ import annotations

import json
from pathlib import Path

import meshio
import numpy as np
import pytest
import xarray as xr

from frylinks.model.geometry import SceneError, shape_mesh
from frylinks.rotations import quat_to_matrix
from frylinks.views.scene import Scene
from frylinks.views.vtk import KIND, export_vtk, read_pvd
from tests.visual import BOX, SPEED, SPIN, moving_box


def test_steps_points_and_arrays(tmp_path: Path) -> None:
    ds = moving_box()
    done = export_vtk(ds, tmp_path / "vtk", rate=1.0, format="pvd")
    steps = read_pvd(done.path)
    # 0 to 5 s at most one step per second: 6 of the 11 samples
    assert done.nb_steps == len(steps) == 6
    assert [t for t, _ in steps] == pytest.approx([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    corners = shape_mesh({"shape": "box", "size": BOX}).points
    for t, file in steps:
        mesh = meshio.read(file)
        quads = next(c for c in mesh.cells if c.type == "quad")
        kind = mesh.cell_data["kind"][0]
        body_points = np.unique(quads.data[kind == KIND["body"]])
        rot = quat_to_matrix(np.array([np.cos(SPIN * t / 2), 0, 0, np.sin(SPIN * t / 2)]))
        expected = corners @ rot.T + [SPEED * t, 0.0, 0.0]
        np.testing.assert_allclose(mesh.points[body_points], expected, atol=1e-5)
        # rigid-body velocity v + omega x r at each corner
        velocity = mesh.point_data["velocity [m s-1]"][body_points]
        arm = expected - [SPEED * t, 0.0, 0.0]
        expected_velocity = np.array([SPEED, 0, 0]) + np.cross([0, 0, SPIN], arm)
        np.testing.assert_allclose(velocity, expected_velocity, atol=1e-5)
        lines = mesh.cell_data["link power [W]"][1]
        assert np.nanmax(lines) == pytest.approx(5.0)
    names = set(meshio.read(steps[0][1]).cell_data) | set(meshio.read(steps[0][1]).point_data)
    assert {"velocity [m s-1]", "elevation [m]", "tension [N]", "link power [W]",
            "kind", "body"} <= names


def test_window(tmp_path: Path) -> None:
    done = export_vtk(moving_box(), tmp_path, start=2.0, end=3.0, format="pvd")
    assert [t for t, _ in read_pvd(done.pvd)] == pytest.approx([2.0, 2.5, 3.0])
    with pytest.raises(SceneError, match=r"no samples in \[9, 10\] s"):
        export_vtk(moving_box(), tmp_path, start=9.0, end=10.0)


def test_missing_mesh_named(tmp_path: Path) -> None:
    ds = moving_box()
    ds.attrs["scene"] = ds.attrs["scene"].replace(
        '"shape": "box"', f'"mesh": "{tmp_path / "gone.stl"}"')
    with pytest.raises(SceneError, match=r"bodies\.box\.geometry\.mesh: mesh file '.*gone"
                                         r"\.stl' not found"):
        export_vtk(ds, tmp_path, source="'out.nc'")


def test_not_results(tmp_path: Path) -> None:
    ds = moving_box().drop_vars("body_position")
    with pytest.raises(SceneError, match=r"'out\.nc' has no variable 'body_position'"):
        export_vtk(ds, tmp_path, source="'out.nc'")


def catenary_dataset(laid: float, x0: float) -> tuple[xr.Dataset, float, np.ndarray]:
    """A buoy held by one inextensible catenary_line (weight w, horizontal tension H),
    from its anchor at the origin on a 50 m deep seabed: ``laid`` metres resting on the
    seabed, then a catenary of parameter a = H / w over 60 m whose vertex is ``x0`` from
    its start (0 at a touchdown; > 0: the line leaves the anchor rising). Returns the
    Dataset, the line's length and the fairlead."""
    w, h = 1000.0, 2.0e4
    a = h / w
    span = 60.0
    rise = a * (np.cosh((x0 + span) / a) - np.cosh(x0 / a))
    length = laid + a * (np.sinh((x0 + span) / a) - np.sinh(x0 / a))
    anchor = np.array([0.0, 0.0, -50.0])
    fairlead = anchor + np.array([laid + span, 0.0, rise])
    ds = moving_box(nb_times=1)
    scene = json.loads(ds.attrs["scene"])
    scene["nodes"] = {"box.fairlead": {"body": "box", "position": list(fairlead),
                                       "orientation": [1.0, 0, 0, 0]}}
    scene["links"] = {}
    scene["forces"] = {"line": {"type": "catenary_line", "nodes": ["box.fairlead"],
                                "params": {"anchor": list(anchor), "length": length,
                                           "weight": w}}}
    ds.attrs["scene"] = json.dumps(scene)
    dims = ("time", "catenary_line_element")
    ds = ds.assign(catenary_line_horizontal_tension=(dims, [[h]]),
                   catenary_line_laid_length=(dims, [[laid]]),
                   catenary_line_tension=(dims, [[np.hypot(h, w * (length - laid))]]))
    return ds.assign_coords(catenary_line_element=["line"]), length, fairlead


@pytest.mark.parametrize(("laid", "x0"), [(120.0, 0.0), (0.0, 15.0)])
def test_catenary_shape(laid: float, x0: float) -> None:
    ds, length, fairlead = catenary_dataset(laid, x0)
    line = Scene(ds).frames(np.array([0])).forces["line"][0]
    np.testing.assert_allclose(line[0], [0.0, 0.0, -50.0])
    np.testing.assert_allclose(line[-1], fairlead, atol=1e-9)
    # the drawn shape is the line: its length (40 chords: within 0.1 %), on the seabed
    # for the laid part, never below it
    drawn = np.linalg.norm(np.diff(line, axis=0), axis=1).sum()
    assert drawn == pytest.approx(length, rel=1e-3)
    assert line[:, 2].min() >= -50.0 - 1e-9
    on_seabed = line[:, 0] <= laid + 1e-9
    np.testing.assert_allclose(line[on_seabed, 2], -50.0, atol=1e-9)
