"""Animation frames, drawn offscreen and checked for what they must show."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import h5py
import meshio
import numpy as np
import pytest
import xarray as xr
from PIL import Image

from frylinks.views.animate import animate, frame_images, parse_camera
from frylinks.views.reading import open_results
from frylinks.views.renderer import Renderer
from frylinks.views.scene import Scene, SceneError
from tests.test_cli import SHORT_CASE
from tests.visual import moving_box

SIZE = (400, 300)


def frylinks_cmd(*args: str) -> subprocess.CompletedProcess[str]:
    """test_cli's, with room for a cold compile and an animation (300 s, not 120)."""
    return subprocess.run([sys.executable, "-m", "frylinks", *args], capture_output=True,
                          text=True, timeout=300)


def body_pixels(image: np.ndarray) -> np.ndarray:
    """Pixels of the box (its shaded gold: red well above blue), as (row, column)."""
    rgb = image.astype(int)
    return np.argwhere((rgb[..., 0] - rgb[..., 2] > 60) & (rgb[..., 1] > 60))


def test_body_moves_with_its_position() -> None:
    ds = moving_box()
    # looking along +y (front): world x runs to the right of the image
    first, later = frame_images(ds, [0.0, 2.0], camera="front", size=SIZE)
    a, b = body_pixels(first), body_pixels(later)
    assert len(a) > 200 and len(b) > 200, "the box is drawn"
    shift = b[:, 1].mean() - a[:, 1].mean()
    # the box (2 m wide) moved 6 m along +x: its pixels move right by about 3 widths
    width = np.ptp(a[:, 1])
    assert 2.0 * width < shift < 4.0 * width
    assert abs(b[:, 0].mean() - a[:, 0].mean()) < 0.2 * width, "no vertical drift"


@pytest.mark.parametrize("camera", ["iso", "top", "35,140,2"])
def test_camera_sits_on_the_axes_box(camera: str) -> None:
    """The numpy camera puts the view's cube where the 3D axes drawn behind the bodies
    put it: their own projection of the corners, to a hundredth of a pixel."""
    from mpl_toolkits.mplot3d import proj3d

    ds = moving_box()
    renderer = Renderer(Scene(ds), np.arange(ds.sizes["time"]), camera, SIZE)
    list(renderer.render(np.array([0])))
    cam = renderer.camera
    assert cam is not None
    corners = renderer.centre + renderer.half * np.array(
        [[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], dtype=float)
    x, y, _ = proj3d.proj_transform(*corners.T, renderer.axes.get_proj())
    theirs = renderer.axes.transData.transform(np.column_stack([x, y]))
    assert np.abs(cam.project(corners) - theirs).max() < 0.01


def test_body_drawn_where_its_pose_puts_it() -> None:
    """The box's pixels are centred on its COG's pixel (the camera's, rows counted from
    the top), at two poses: projection, transform and image rows agree."""
    ds = moving_box()
    renderer = Renderer(Scene(ds), np.arange(ds.sizes["time"]), "front", SIZE)
    for k in (0, 8):
        (image,) = renderer.render(np.array([k]))
        cam = renderer.camera
        assert cam is not None
        cog = ds["body_position"].isel(time=k, body=0).values
        x, y = cam.project(cog)
        rows, columns = body_pixels(image).T
        # the middle of the box's extent (the link drawn over it hides some of its
        # pixels); pixel i spans [i, i + 1)
        assert (columns.min() + columns.max() + 1) / 2 == pytest.approx(x, abs=0.6)
        assert SIZE[1] - (rows.min() + rows.max() + 1) / 2 == pytest.approx(y, abs=0.6)


def test_fast_frame_is_the_whole_figure_drawn() -> None:
    """A frame drawn over the kept background is the figure drawn whole (what a
    notebook's animation or ``savefig`` shows), pixel for pixel."""
    ds = moving_box()
    renderer = Renderer(Scene(ds), np.arange(ds.sizes["time"]), "iso", SIZE)
    (fast,) = renderer.render(np.array([6]))
    renderer.canvas.draw()
    whole = np.asarray(renderer.canvas.buffer_rgba())[..., :3]
    assert np.array_equal(fast, whole)


def test_not_blank_and_time_label_changes() -> None:
    ds = moving_box()
    first, later = frame_images(ds, [0.0, 2.0], size=SIZE)
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 50
    assert (first < 200).any(axis=-1).mean() > 0.02, "something drawn on the white"
    label = (slice(0, 20), slice(0, 160))  # the "t = ... s" corner
    assert (first[label] < 128).any(), "the time label is drawn"
    assert not np.array_equal(first[label], later[label]), "the time label changes"


def test_gif_frames(tmp_path: Path) -> None:
    done = animate(moving_box(), tmp_path / "box.gif", start=1.0, end=3.0, speed=2.0,
                   fps=4, size=SIZE)
    # 2 s of simulated time at 2 s per second of video, 4 frames a second: 0, 0.5, ... 2
    assert done["frames"] == 5
    with Image.open(done["output"]) as gif:
        assert gif.n_frames == 5
        gif.seek(4)
        assert len(body_pixels(np.asarray(gif.convert("RGB")))) > 100


def test_mp4(tmp_path: Path) -> None:
    done = animate(moving_box(), tmp_path / "box.mp4", end=1.0, fps=4, size=SIZE)
    assert done["frames"] == 5
    assert done["output"].stat().st_size > 1000


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(SceneError, match="camera 'under'"):
        parse_camera("under")
    assert parse_camera("10,-45,2") == (10.0, -45.0, 2.0)
    with pytest.raises(SceneError, match=r"expected a \.mp4 or \.gif"):
        animate(moving_box(), tmp_path / "box.avi", end=0.5)
    with pytest.raises(SceneError, match="has no variable 'body_orientation'"):
        animate(moving_box().drop_vars("body_orientation"), tmp_path / "x.gif")


#: test_cli's short pendulum, its bob given a ``geometry`` (GEOMETRY stands for it) and
#: a run long enough to animate
GEOMETRY_CASE = (SHORT_CASE.replace("name: short-pendulum", "name: box-pendulum")
                 .replace("    position: [0.6, 0, -0.8]\n",
                          "    position: [0.6, 0, -0.8]\n    geometry: GEOMETRY\n")
                 .replace("solver: {t_end: 0.1, dt: 0.01}\noutput: {every: 2}",
                          "solver: {t_end: 0.2, dt: 0.01}\noutput: {every: 5}"))
assert "geometry: GEOMETRY" in GEOMETRY_CASE and "every: 5" in GEOMETRY_CASE


def test_command_line(tmp_path: Path) -> None:
    case = tmp_path / "case.yaml"
    case.write_text(GEOMETRY_CASE.replace("GEOMETRY", "{shape: sphere, radius: 0.1}"))
    out = tmp_path / "out.nc"
    assert frylinks_cmd("run", str(case), "-o", str(out)).returncode == 0
    done = frylinks_cmd("animate", str(out), "-o", str(tmp_path / "m.gif"), "--fps", "10",
                        "--camera", "front", "--size", "320x240")
    assert done.returncode == 0, done.stderr
    assert "3 frames" in done.stdout  # 0, 0.1, 0.2 s
    done = frylinks_cmd("export", str(out), "--vtk", str(tmp_path / "vtk"))
    assert done.returncode == 0, done.stderr
    assert "5 time steps" in done.stdout
    assert (tmp_path / "vtk" / "box-pendulum.vtkhdf").is_file()
    done = frylinks_cmd("export", str(out), "--vtk", str(tmp_path / "vtk"), "--format", "pvd")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "vtk" / "box-pendulum.pvd").is_file()
    done = frylinks_cmd("export", str(out), "--vtk", str(tmp_path / "p.vtkhdf"),
                        "--precision", "-1")
    assert done.returncode == 2 and "--precision: expected a number >= 0" in done.stderr


@pytest.mark.parametrize(("geometry", "expected"), [
    ("{mesh: hull.stl}", r"case\.yaml.*bodies\.bob\.geometry\.mesh.*mesh file '.*hull\.stl' "
                         "not found"),
    ("{shape: cone, radius: 1}", r"bodies\.bob\.geometry\.shape.*unknown shape 'cone'; "
                                 "known: box, cylinder, sphere"),
    ("{shape: box}", r"bodies\.bob\.geometry\.size.*a box needs 'size'"),
])
def test_bad_geometry_named(tmp_path: Path, geometry: str, expected: str) -> None:
    case = tmp_path / "case.yaml"
    case.write_text(GEOMETRY_CASE.replace("GEOMETRY", geometry))
    done = frylinks_cmd("check", str(case))
    assert done.returncode == 2
    assert re.search(expected, done.stderr), done.stderr
    assert "Traceback" not in done.stderr


def test_command_line_errors(tmp_path: Path) -> None:
    done = frylinks_cmd("export", str(tmp_path / "none.nc"), "--vtk", str(tmp_path))
    assert done.returncode == 2
    assert "results file" in done.stderr and "none.nc' not found" in done.stderr
    box = tmp_path / "box.nc"
    moving_box().to_netcdf(box)
    done = frylinks_cmd("animate", str(box), "--case", "1")
    assert done.returncode == 2 and "is a single run, not a sweep" in done.stderr
    done = frylinks_cmd("animate", str(box), "--camera", "sideways")
    assert done.returncode == 2 and "camera 'sideways'" in done.stderr


def test_sweep_case_chosen(tmp_path: Path) -> None:
    sweep = xr.concat([moving_box(), moving_box().assign(
        body_position=moving_box()["body_position"] * 2.0)], dim="case")
    file = tmp_path / "sweep.nc"
    sweep.to_netcdf(file)
    with pytest.raises(SceneError, match=r"sweep\.nc' is a sweep of 2 cases: choose one "
                                         r"with --case N \(0 to 1\)"):
        with open_results(file):
            pass
    with pytest.raises(SceneError, match=r"--case 2: .* holds cases 0 to 1"):
        with open_results(file, 2):
            pass
    with open_results(file, 1) as ds:
        assert float(ds["body_position"].isel(time=-1, body=0, xyz=0)) == pytest.approx(
            2.0 * 3.0 * 5.0)
        first, = frame_images(ds, [5.0], size=SIZE)
        assert len(body_pixels(first)) > 10  # small: the view holds the pivot 30 m away


def test_a_results_file_moved_with_its_mesh_keeps_its_geometry(tmp_path: Path) -> None:
    """The ``scene`` attribute names the mesh relative to the results file: the two moved
    together (to another machine) still draw; the absolute path is the fallback."""
    import json
    import shutil

    from frylinks.views.scene import Scene

    first, second = tmp_path / "here", tmp_path / "there"
    (first / "meshes").mkdir(parents=True)
    meshio.write(first / "meshes" / "hull.stl", meshio.Mesh(
        np.array([[0, 0, 0], [0.2, 0, 0], [0, 0.2, 0], [0, 0, 0.2]], dtype=float),
        [("triangle", np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]))]))
    case = first / "case.yaml"
    case.write_text(GEOMETRY_CASE.replace("GEOMETRY", "{mesh: meshes/hull.stl}"))
    assert frylinks_cmd("run", str(case), "-o", str(first / "runs" / "out.nc")
                        ).returncode == 2   # no runs/ folder: named, before any run
    (first / "runs").mkdir()
    assert frylinks_cmd("run", str(case), "-o", str(first / "runs" / "out.nc")
                        ).returncode == 0
    shutil.copytree(first, second)
    shutil.rmtree(first)
    with open_results(second / "runs" / "out.nc") as ds:
        spec = json.loads(ds.attrs["scene"])
        assert spec["bodies"]["bob"]["mesh"] == str(Path("..") / "meshes" / "hull.stl")
        scene = Scene(ds)
        assert len(scene.meshes["bob"].points) == 4
        # and the export draws it too: its 4 points in the VTKHDF file
        from frylinks.views.vtk import export_vtk

        done = export_vtk(ds, tmp_path / "moved.vtkhdf")
        with h5py.File(done.path) as f:
            assert f["VTKHDF/CellData/kind"][:].tolist().count(0) == 4  # its 4 faces


def test_frames_drawn_in_parallel_are_the_same_video(tmp_path: Path) -> None:
    """An MP4 drawn by two processes (each opening the results again, chunks written in
    order) holds the frames one process draws: the same count, the same pictures to the
    codec's rounding."""
    import imageio_ffmpeg

    case = tmp_path / "case.yaml"
    case.write_text(GEOMETRY_CASE.replace("GEOMETRY", "{shape: box, size: [0.2, 0.1, 0.1]}"))
    out = tmp_path / "out.nc"
    assert frylinks_cmd("run", str(case), "-o", str(out)).returncode == 0
    movies = []
    for workers in (1, 2):
        movie = tmp_path / f"m{workers}.mp4"
        with open_results(out) as ds:
            from frylinks.views.animate import _workers

            assert _workers(ds, workers, 101) == workers   # (two: the parallel path)
            done = animate(ds, movie, speed=0.02, fps=10, size=(160, 120), workers=workers)
        assert done["frames"] == 101
        reader = imageio_ffmpeg.read_frames(str(movie))
        meta = next(reader)
        frames = [np.frombuffer(f, np.uint8).reshape(meta["size"][1], meta["size"][0], 3)
                  for f in reader]
        movies.append(np.stack(frames).astype(float))
    assert movies[0].shape == movies[1].shape and len(movies[0]) == 101
    assert np.abs(movies[0] - movies[1]).mean() < 1.0    # (of 255)
    # the pictures change over the video: the pendulum swings
    assert np.abs(movies[1][0] - movies[1][-1]).mean() > 1.0
