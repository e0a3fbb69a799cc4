"""The VTKHDF export, checked against the format's specification with h5py (VTKHDF 2.x,
a temporal UnstructuredGrid: docs.vtk.org, vtk_file_formats/vtkhdf_file_format): the
attributes, the ``Steps`` offsets, each step's points equal to the scene's, the cells
written once, and a file that grows by the changing data alone."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pytest
import xarray as xr

from frylinks.views.scene import Scene, SceneError
from frylinks.views.vtk import KIND, _Layout, export_vtk
from frylinks.views.vtkhdf import VTK_LINE, VTK_QUAD, quantised
from tests.visual import moving_box

SEA = {"water_density": 1000.0, "depth": "infinite", "current": None, "wave_probes": {},
       "waves": {"type": "regular", "height": 1.0, "period": 4.0, "heading_deg": 0}}


def box_at_sea(nb_times: int = 11) -> xr.Dataset:
    """tests.visual's moving box, in regular waves (a free surface drawn)."""
    ds = moving_box(nb_times)
    scene = json.loads(ds.attrs["scene"])
    scene["settings"] = {"environment": SEA}
    ds.attrs["scene"] = json.dumps(scene)
    return ds


def step(file: Path, k: int) -> dict[str, np.ndarray]:
    """Step ``k`` of a VTKHDF file, read by the specification: the points and each
    array from its offset in ``Steps``, the one part's sizes from ``PartOffsets``."""
    with h5py.File(file) as f:
        g, steps = f["VTKHDF"], f["VTKHDF/Steps"]
        part = steps["PartOffsets"][k]
        n = g["NumberOfPoints"][part]
        c = g["NumberOfCells"][part]
        out = {"time": steps["Values"][k]}
        start = steps["PointOffsets"][k]
        out["points"] = g["Points"][start:start + n]
        for group, size in (("PointData", n), ("CellData", c)):
            for name, data in g[group].items():
                first = steps[f"{group}Offsets"][name][k]
                out[name] = data[first:first + size]
        return out


def test_by_the_specification(tmp_path: Path) -> None:
    ds = box_at_sea()
    done = export_vtk(ds, tmp_path / "vtk", rate=1.0, precision=0)
    assert done.path == tmp_path / "vtk" / "moving-box.vtkhdf"
    with h5py.File(done.path) as f:
        g = f["VTKHDF"]
        assert list(g.attrs["Version"]) == [2, 0]
        assert g.attrs["Type"] == b"UnstructuredGrid"
        assert g.attrs["Type"].dtype.kind == "S"  # fixed length: VTK's reader needs it
        steps = g["Steps"]
        nt = int(steps.attrs["NSteps"])
        assert nt == done.nb_steps == 6
        np.testing.assert_allclose(steps["Values"][:], [0, 1, 2, 3, 4, 5])
        for name in ("PartOffsets", "NumberOfParts", "PointOffsets", "CellOffsets",
                     "ConnectivityIdOffsets", *(f"{group}/{name}" for group in (
                         "PointDataOffsets", "CellDataOffsets") for name in steps[group])):
            assert steps[name].shape == (nt,), name
        # one part, the cells written once: every step points at them
        assert list(steps["NumberOfParts"][:]) == [1] * nt
        for name in ("PartOffsets", "CellOffsets", "ConnectivityIdOffsets"):
            assert not steps[name][:].any()
        nb_points, nb_cells, nb_ids = (int(g[name][0]) for name in (
            "NumberOfPoints", "NumberOfCells", "NumberOfConnectivityIds"))
        assert nb_points == done.nb_points
        assert g["Connectivity"].shape == (nb_ids,)
        offsets = g["Offsets"][:]
        assert offsets.shape == (nb_cells + 1,) and offsets[0] == 0 and offsets[-1] == nb_ids
        types = g["Types"][:]
        assert types.shape == (nb_cells,) and set(types) == {VTK_QUAD, VTK_LINE}
        assert np.array_equal(np.diff(offsets), np.where(types == VTK_QUAD, 4, 2))
        assert 0 <= g["Connectivity"][:].min() and g["Connectivity"][:].max() < nb_points
        # every step's points written: the box moves, the sea too
        assert list(steps["PointOffsets"][:]) == [k * nb_points for k in range(nt)]
        assert g["Points"].shape == (nt * nb_points, 3) and g["Points"].dtype == np.float32
        # kind and body do not change: written once
        assert g["CellData/kind"].shape == g["CellData/body"].shape == (nb_cells,)
    scene = Scene(ds)
    index = scene.times(rate=1.0)
    for k in range(nt):
        # the scene one step at a time (the export computed them in a chunk)
        frames = scene.frames(index[k:k + 1])
        layout = _Layout(frames)
        points, velocity, elevation = layout.points(frames)
        read = step(done.path, k)
        assert read["time"] == frames.time[0]
        np.testing.assert_array_equal(read["points"], points[0].astype(np.float32))
        np.testing.assert_array_equal(read["velocity [m s-1]"], velocity[0])
        np.testing.assert_array_equal(read["elevation [m]"], elevation[0])
        series = layout.cell_series(frames)
        by_block = layout.cell_data(frames, 0)  # what the .vtu files hold
        for name, values in series.items():
            np.testing.assert_array_equal(read[name], values[0])
            np.testing.assert_array_equal(values[0], np.concatenate(by_block[name]))
        assert set(read["kind"]) == {KIND["body"], KIND["node"], KIND["link"],
                                     KIND["surface"]}
        assert np.nanmax(read["link power [W]"]) == pytest.approx(5.0)
        sea = read["kind"] == KIND["surface"]
        assert np.isfinite(read["elevation [m]"]).sum() == 25 * 25 and sea.sum() == 24 * 24


def test_what_does_not_change_is_written_once(tmp_path: Path) -> None:
    ds = moving_box()
    for var in ("body_position", "body_orientation"):
        ds[var].values[:] = ds[var].values[:1]
    for var in ("body_velocity", "body_angular_velocity"):
        ds[var].values[:] = 0.0
    done = export_vtk(ds, tmp_path / "still.vtkhdf")
    assert done.nb_steps == 11
    with h5py.File(done.path) as f:
        g, steps = f["VTKHDF"], f["VTKHDF/Steps"]
        assert g["Points"].shape == (done.nb_points, 3)
        assert not steps["PointOffsets"][:].any()
        for group in ("PointData", "CellData"):
            for name, data in g[group].items():
                assert data.shape[0] == g[f"NumberOf{group[:-4]}s"][0], name
                assert not steps[f"{group}Offsets"][name][:].any(), name
    # a body that stops: the steps after the first still one point at it
    ds = moving_box()
    for var in ("body_position", "body_orientation"):
        ds[var].values[6:] = ds[var].values[5]
    done = export_vtk(ds, tmp_path / "stops.vtkhdf")
    with h5py.File(done.path) as f:
        offsets = f["VTKHDF/Steps/PointOffsets"][:]
        assert f["VTKHDF/Points"].shape == (6 * done.nb_points, 3)
        assert list(offsets // done.nb_points) == [0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 5]
    for k in (5, 10):
        np.testing.assert_array_equal(step(done.path, k)["points"], step(done.path, 5)["points"])


def test_grows_by_the_changing_data_alone(tmp_path: Path) -> None:
    """Steps added to a file add their points and point data (float32: 3 + 3 + 1 numbers
    a point at most), never the cells again."""
    sizes = {}
    for nt in (41, 241):
        done = export_vtk(box_at_sea(nt), tmp_path / f"box{nt}.vtkhdf")
        sizes[nt] = done.nbytes
        with h5py.File(done.path) as f:
            nb_cells = f["VTKHDF/NumberOfCells"][0]
            assert f["VTKHDF/Connectivity"].shape == (f["VTKHDF/NumberOfConnectivityIds"][0],)
            assert f["VTKHDF/Types"].shape == f["VTKHDF/CellData/kind"].shape == (nb_cells,)
    per_step = (sizes[241] - sizes[41]) / 200
    changing = 4 * 7 * done.nb_points  # points, velocity, elevation as float32
    cells = 8 * (len(step(done.path, 0)["kind"]) * 5 + 1)  # what repeating the cells costs
    assert per_step < changing + 100 < changing + cells
    with h5py.File(done.path) as f:  # (every step is there; gzip finds the sea's period)
        assert f["VTKHDF/Points"].shape == (241 * done.nb_points, 3)


def test_precision(tmp_path: Path) -> None:
    exact = export_vtk(box_at_sea(), tmp_path / "exact.vtkhdf", precision=0)
    rounded = export_vtk(box_at_sea(), tmp_path / "rounded.vtkhdf", precision=1e-3)
    for k in (0, 7):
        a, b = step(exact.path, k), step(rounded.path, k)
        for name in ("points", "velocity [m s-1]", "elevation [m]"):
            error = np.abs(a[name] - b[name])
            assert np.nanmax(error) <= 2.0 ** -10 / 2 * 1.0001, name
            assert np.array_equal(np.isnan(a[name]), np.isnan(b[name]))
        np.testing.assert_array_equal(a["link power [W]"], b["link power [W]"])
    # multiples of 2^-10 (<= 1e-3): their low mantissa bits are zero
    assert np.array_equal(quantised(np.array([0.1, -3.7, np.nan]), 1e-3),
                          np.array([102, -3789, np.nan]) / 1024, equal_nan=True)
    with h5py.File(rounded.path) as f:
        assert "rounded to 0.000977" in f.attrs["precision"]
    # by default 1e-4 (2^-14 m: 0.031 mm at most); 0 is float32 as computed
    default = export_vtk(box_at_sea(), tmp_path / "default.vtkhdf")
    a, b = step(exact.path, 7), step(default.path, 7)
    error = np.nanmax(np.abs(a["points"] - b["points"]))
    assert 0.0 < error <= 2.0 ** -14 / 2 * 1.0001
    with h5py.File(default.path) as f, h5py.File(exact.path) as g:
        assert "rounded to 6.1e-05" in f.attrs["precision"]
        assert g.attrs["precision"] == "float32"
    for bad in (-1.0, float("nan")):
        with pytest.raises(SceneError, match=r"--precision .*: expected a length >= 0 in m"):
            export_vtk(moving_box(), tmp_path, precision=bad)
    with pytest.raises(SceneError, match="--precision applies to the VTKHDF format only"):
        export_vtk(moving_box(), tmp_path, format="pvd", precision=1e-3)
    with pytest.raises(SceneError, match="unknown VTK format 'vtu'; known: vtkhdf, pvd"):
        export_vtk(moving_box(), tmp_path, format="vtu")
    with pytest.raises(SceneError, match=r"'.*x\.vtkhdf': a pvd export goes to a folder"):
        export_vtk(moving_box(), tmp_path / "x.vtkhdf", format="pvd")


def test_window(tmp_path: Path) -> None:
    done = export_vtk(moving_box(), tmp_path, start=2.0, end=3.0)
    with h5py.File(done.path) as f:
        np.testing.assert_allclose(f["VTKHDF/Steps/Values"][:], [2.0, 2.5, 3.0])


def test_read_by_vtk(tmp_path: Path) -> None:
    """VTK's own reader (vtkHDFReader), where the vtk package is installed (it is not a
    dependency: 565 MB): its steps, times, points and arrays are the ones written."""
    vtk = pytest.importorskip("vtk")
    from vtk.util.numpy_support import vtk_to_numpy

    done = export_vtk(box_at_sea(), tmp_path / "box.vtkhdf", rate=1.0, precision=0)
    reader = vtk.vtkHDFReader()
    reader.SetFileName(str(done.path))
    reader.UpdateInformation()
    assert reader.GetNumberOfSteps() == done.nb_steps
    for k in (0, 3, 5):
        reader.SetStep(k)
        reader.Update()
        grid = reader.GetOutput()
        read = step(done.path, k)
        assert reader.GetTimeValue() == read["time"]
        np.testing.assert_array_equal(vtk_to_numpy(grid.GetPoints().GetData()), read["points"])
        for name in ("velocity [m s-1]", "elevation [m]"):
            np.testing.assert_array_equal(
                vtk_to_numpy(grid.GetPointData().GetArray(name)), read[name])
        for name in ("kind", "link power [W]"):
            np.testing.assert_array_equal(
                vtk_to_numpy(grid.GetCellData().GetArray(name)), read[name])
