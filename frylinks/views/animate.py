"""Animations of a results Dataset (``frylinks animate OUT.nc -o motion.mp4``).

Frames are drawn with matplotlib's 3D axes on the Agg canvas: no display, GPU or system
library is needed, so the same code runs on a laptop, a headless server and CI (the
choice is measured in pyproject.toml). GIF files are written through Pillow, MP4 through
the ffmpeg binary bundled in the ``imageio-ffmpeg`` wheel.

What is drawn comes from :mod:`frylinks.views.scene`: bodies (their mesh or shape, shaded by a
light from above, or a small sphere), node frames (x red, y green, z blue), links (grey;
a slot along the sliding axis of a prismatic link, an axis for a revolute), force lines
(orange) and catenary lines along their shape (black), the free surface (blue) where
waves are defined. The simulated time is shown in the corner.
"""

from __future__ import annotations

import time as clock
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.views.scene import Frames, Scene, SceneError

if TYPE_CHECKING:
    import xarray as xr
    from matplotlib.figure import Figure

#: Preset views: name -> (elevation, azimuth) [deg] of matplotlib's camera.
CAMERAS: dict[str, tuple[float, float]] = {
    "iso": (22.0, -50.0), "front": (0.0, -90.0), "side": (0.0, 0.0), "top": (90.0, -90.0)}
BODY_COLOURS = ("#d9a441", "#8fa6bf", "#b5655b", "#7fa67a", "#9c7fb3")
#: Frames drawn between two reads of the results (bounds memory on long windows).
CHUNK = 50


def parse_camera(text: str | Sequence[float]) -> tuple[float, float, float]:
    """A camera: a preset name (:data:`CAMERAS`) or ``ELEV,AZIM[,ZOOM]`` in degrees.

    Returns
    -------
    (elevation, azimuth, zoom)

    Raises
    ------
    SceneError
        For an unknown name or a malformed list.
    """
    if isinstance(text, str) and text in CAMERAS:
        return (*CAMERAS[text], 1.0)
    try:
        values = [float(v) for v in (text.split(",") if isinstance(text, str) else text)]
    except ValueError:
        values = []
    if len(values) not in (2, 3) or not np.all(np.isfinite(values)) or (
            len(values) == 3 and values[2] <= 0):
        raise SceneError(f"camera {text!r}: expected one of {', '.join(CAMERAS)} or "
                         "ELEV,AZIM[,ZOOM] in degrees (zoom > 0), e.g. 20,-60,1.5")
    return values[0], values[1], values[2] if len(values) == 3 else 1.0


class Renderer:
    """Draws frames of a scene on one figure (reused frame after frame).

    Parameters
    ----------
    scene
        The scene to draw.
    index
        The samples that will be drawn (they set the fixed axes' limits).
    camera
        A preset name or ``(elevation, azimuth, zoom)``.
    size
        Image size in pixels (width, height).
    """

    def __init__(self, scene: Scene, index: np.ndarray, camera: str | Sequence[float] = "iso",
                 size: tuple[int, int] = (800, 600)) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.scene = scene
        self.elev, self.azim, self.zoom = parse_camera(camera)
        dpi = 100
        self.figure: Figure = Figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
        # the Agg canvas: offscreen, whatever backend pyplot would pick
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes: Any = self.figure.add_axes((0.0, 0.0, 1.0, 0.94), projection="3d",
                                           # drawn in the order added: bodies, then the
                                           # sea over them, then links and lines on top
                                           # (a link inside a hull stays visible)
                                           computed_zorder=False)
        self.label = self.figure.text(0.02, 0.965, "", fontsize=12, family="monospace",
                                      va="center")
        title = str(scene.ds.attrs.get("title", ""))
        self.figure.text(0.98, 0.965, title, fontsize=11, ha="right", va="center")
        self.centre, self.half = self._bounds(index)
        #: What is drawn, made at the first frame (:meth:`draw`).
        self._artists: dict[str, Any] | None = None

    def _bounds(self, index: np.ndarray) -> tuple[np.ndarray, float]:
        """A cube holding the model over the window: every body's COG at the drawn
        samples (read once, small), its mesh's reach, and the first frame's lines."""
        pos = np.asarray(self.scene.ds["body_position"].isel(time=index).values,
                         dtype=float).reshape(-1, 3)
        reach = max((float(np.linalg.norm(m.points, axis=1).max())
                     for m in self.scene.meshes.values()), default=0.0)
        first = self.scene.frames(index[:1])
        cloud = [pos - reach, pos + reach, *(v[0] for v in first.nodes.values()),
                 *(v[0] for v in first.links.values()), *(v[0] for v in first.forces.values())]
        points = np.vstack(cloud)
        lo, hi = points.min(axis=0), points.max(axis=0)
        # zoomed in, the view centres on the bodies (not on a mooring spread's middle)
        centre = (lo + hi) / 2.0 if self.zoom <= 1.0 else pos.mean(axis=0)
        half = 0.55 * float(max(np.max(hi - lo), 1e-3)) / self.zoom
        return centre, half

    def draw(self, frames: Frames, k: int) -> None:
        """Draw step ``k`` of ``frames`` on the figure: the axes and artists are made at
        the first frame, and later frames only move them (clearing the 3D axes and making
        every artist again cost most of a frame: 6 frames a second for RM3)."""
        if self._artists is None:
            self._artists = self._make_artists(frames)
        art = self._artists
        light = np.array([0.3, -0.4, 0.87])
        for i, (name, points) in enumerate(frames.bodies.items()):
            polygons = points[k][frames.faces[name]]
            normal = np.cross(polygons[:, 2] - polygons[:, 0], polygons[:, 3] - polygons[:, 1])
            normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
            base = np.array(_rgb(BODY_COLOURS[i % len(BODY_COLOURS)]))
            shade = 0.45 + 0.55 * np.abs(normal @ light)
            colours = np.clip(base[None, :] * shade[:, None], 0.0, 1.0)
            body = art["bodies"][name]
            body.set_verts(polygons)
            body.set_facecolor(colours)
            body.set_edgecolor(colours * 0.8)
        if art["surface"] is not None:
            assert frames.surface is not None
            x, y, quads = art["grid"]
            z = frames.surface[k]
            corners = [(0, 0), (0, 1), (1, 1), (1, 0)]
            verts = np.stack([np.stack([x[quads[:, 0] + di, quads[:, 1] + dj],
                                        y[quads[:, 0] + di, quads[:, 1] + dj],
                                        z[quads[:, 0] + di, quads[:, 1] + dj]], axis=-1)
                              for di, dj in corners], axis=1)
            art["surface"].set_verts(verts)
        if art["arms"] is not None:
            art["arms"].set_segments(
                [np.stack([frames.nodes[path.split(".")[0]][k], frames.nodes[path][k]])
                 for path in art["arm_paths"]])
        reach = frames.axis_length
        segments = []
        for path, origin in frames.nodes.items():
            axes = frames.node_axes[path][k]
            segments += [np.stack([origin[k], origin[k] + reach * axes[:, j]])
                         for j in range(3)]
        if art["node_axes"] is not None:
            art["node_axes"].set_segments(segments)
        if art["links"] is not None:
            art["links"].set_segments([self._clipped(line[k])
                                       for line in frames.links.values()])
        for name, line in frames.forces.items():
            clipped = self._clipped(line[k])
            art["forces"][name].set_data_3d(clipped[:, 0], clipped[:, 1], clipped[:, 2])
        self.label.set_text(f"t = {frames.time[k]:9.2f} s")

    def _make_artists(self, frames: Frames) -> dict[str, Any]:
        """The axes, set once, and one artist per thing drawn, at their first frame's
        place (:meth:`draw` moves them)."""
        from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

        ax = self.axes
        ax.view_init(elev=self.elev, azim=self.azim)
        # orthographic: lengths read the same everywhere, as on an engineering drawing
        ax.set_proj_type("ortho")
        for lim, c in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), self.centre, strict=True):
            lim(c - self.half, c + self.half)
        ax.set_box_aspect((1, 1, 1))
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.set_zlabel("z [m]")
        art: dict[str, Any] = {"bodies": {}, "forces": {}, "surface": None, "arms": None,
                               "node_axes": None, "links": None, "arm_paths": []}
        for name, points in frames.bodies.items():
            art["bodies"][name] = ax.add_collection3d(Poly3DCollection(
                points[0][frames.faces[name]], linewidths=0.2), autolim=False)
        if frames.surface is not None:
            assert frames.surface_x is not None and frames.surface_y is not None
            gx, gy = np.meshgrid(frames.surface_x, frames.surface_y)
            inside = self._inside(gx, gy)
            # a quad of the grid is drawn when its four corners are in the view
            whole = inside[:-1, :-1] & inside[1:, :-1] & inside[1:, 1:] & inside[:-1, 1:]
            quads = np.argwhere(whole)
            art["grid"] = (gx, gy, quads)
            if len(quads):
                art["surface"] = ax.add_collection3d(Poly3DCollection(
                    np.zeros((len(quads), 4, 3)), facecolors="#4f8fd6", alpha=0.35,
                    linewidths=0), autolim=False)
        nowhere = [np.zeros((2, 3))]   # (the first draw puts each segment in place)
        art["arm_paths"] = [path for path in frames.nodes
                            if "." in path and path.split(".")[0] in frames.bodies]
        if art["arm_paths"]:  # a node is fixed on its body: a thin arm from the COG
            art["arms"] = ax.add_collection3d(Line3DCollection(
                nowhere, colors="#999999", linewidths=0.8, linestyles="dashed"),
                autolim=False)
        if frames.nodes:
            art["node_axes"] = ax.add_collection3d(Line3DCollection(
                nowhere, colors=["#d62728", "#2ca02c", "#1f77b4"] * len(frames.nodes),
                linewidths=1.2), autolim=False)
        if frames.links:
            art["links"] = ax.add_collection3d(Line3DCollection(
                nowhere, colors="#555555", linewidths=3.0), autolim=False)
        for name, line in frames.forces.items():
            catenary = line.shape[1] > 2
            (art["forces"][name],) = ax.plot([0.0], [0.0], [0.0], scalex=False,
                                             scaley=False,
                                             color="#222222" if catenary else "#ff7f0e",
                                             linewidth=1.5, label=name)
        return art

    def _clipped(self, line: np.ndarray) -> np.ndarray:
        """A polyline without its points outside the view's cube (NaN breaks the line):
        matplotlib's 3D axes do not clip, and a mooring line running out of a zoomed view
        would be drawn across the picture."""
        outside = (np.abs(line - self.centre) > self.half * (1.0 + 1e-9)).any(axis=1)
        return np.where(outside[:, None], np.nan, line) if outside.any() else line

    def _inside(self, gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
        c, h = self.centre, self.half
        return (np.abs(gx - c[0]) <= h) & (np.abs(gy - c[1]) <= h)

    def image(self) -> np.ndarray:
        """The figure as an RGB array (height, width, 3)."""
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba())[..., :3].copy()

    def render(self, index: np.ndarray) -> Iterator[np.ndarray]:
        """Images of the samples ``index``, read from the results a chunk at a time."""
        for first in range(0, len(index), CHUNK):
            frames = self.scene.frames(index[first:first + CHUNK])
            for k in range(len(frames.time)):
                self.draw(frames, k)
                yield self.image()


def frame_times(scene: Scene, start: float | None, end: float | None, speed: float,
                fps: float) -> np.ndarray:
    """Sample index of each video frame: frames ``speed / fps`` seconds of simulated
    time apart in ``[start, end]``, each showing the nearest earlier-or-equal sample."""
    if speed <= 0 or fps <= 0:
        raise SceneError(f"--speed and --fps must be > 0, got {speed:g} and {fps:g}")
    window = scene.times(start, end)
    t = np.asarray(scene.ds["time"].values, dtype=float)
    wanted = np.arange(t[window[0]], t[window[-1]] + 1e-9, speed / fps)
    picked = np.searchsorted(t, wanted + 1e-9) - 1
    return np.clip(picked, window[0], window[-1])


def frame_images(ds: xr.Dataset, times: Sequence[float], *,
                 camera: str | Sequence[float] = "iso", size: tuple[int, int] = (800, 600),
                 source: str = "the results") -> list[np.ndarray]:
    """Pictures of the model at the samples nearest ``times`` [s], as RGB arrays (h, w,
    3), all with the same view (for a notebook, docs, or comparing two instants)."""
    scene = Scene(ds, source)
    t = np.asarray(ds["time"].values, dtype=float)
    index = np.array([int(np.argmin(np.abs(t - time))) for time in times])
    renderer = Renderer(scene, index, camera, size)
    return list(renderer.render(index))


def animate(ds: xr.Dataset, output: str | Path | None = None, *, start: float | None = None,
            end: float | None = None, speed: float = 1.0, fps: int = 20,
            camera: str | Sequence[float] = "iso", size: tuple[int, int] = (800, 600),
            source: str = "the results", workers: int | None = None) -> Any:
    """Animate a results Dataset: a file (``.mp4``, ``.gif``), or in a notebook.

    Parameters
    ----------
    ds
        Results of one run (select one case of a sweep first); open it lazily
        (``xr.open_dataset``) and only the drawn samples are read.
    output
        ``.mp4`` or ``.gif`` file; None returns a matplotlib ``FuncAnimation`` for a
        notebook (``IPython.display.HTML(anim.to_jshtml())``).
    start, end
        Window of simulated time [s] (default: the whole run).
    speed
        Simulated seconds per second of video.
    fps
        Frames per second of video.
    camera
        A preset (:data:`CAMERAS`: iso, front, side, top) or ``(elevation, azimuth[,
        zoom])`` [deg].
    size
        Width and height [pixels].
    source
        Name of the results file, for messages.
    workers
        Processes drawing the frames of an MP4 (each its chunks, in order; default one a
        core for :data:`PARALLEL_FRAMES` frames or more, else one): the Dataset must be a
        whole results file opened from disk (``ds.encoding["source"]``), which each
        process opens again.

    Returns
    -------
    dict or matplotlib.animation.FuncAnimation
        With a file: ``{"output": path, "frames": n, "seconds": wall time}``.

    Raises
    ------
    SceneError
        For a bad window, camera or file type, or results that cannot be drawn.
    """
    begin = clock.perf_counter()
    scene = Scene(ds, source)
    index = frame_times(scene, start, end, speed, fps)
    renderer = Renderer(scene, index, camera, size)
    if output is None:
        from matplotlib.animation import FuncAnimation

        chunk: dict[str, Any] = {}

        def update(i: int) -> list[Any]:
            first = (i // CHUNK) * CHUNK
            if chunk.get("first") != first:
                chunk.update(first=first, frames=scene.frames(index[first:first + CHUNK]))
            renderer.draw(chunk["frames"], i - first)
            return []

        return FuncAnimation(renderer.figure, update, frames=len(index),
                             interval=1000.0 / fps)
    path = Path(output)
    suffix = path.suffix.lower()
    if suffix not in (".mp4", ".gif"):
        raise SceneError(f"animation file '{path}': expected a .mp4 or .gif name")
    n = _workers(ds, workers, len(index)) if suffix == ".mp4" else 1
    if n > 1:
        _mp4_in_parallel(ds, path, index, fps, camera, size, source, renderer, n)
        return {"output": path, "frames": len(index), "seconds": clock.perf_counter() - begin}
    writer = _writer(suffix, fps)
    try:
        with writer.saving(renderer.figure, str(path), dpi=renderer.figure.dpi):
            for first in range(0, len(index), CHUNK):
                frames = scene.frames(index[first:first + CHUNK])
                for k in range(len(frames.time)):
                    renderer.draw(frames, k)
                    writer.grab_frame()
    except OSError as exc:
        raise SceneError(f"cannot write '{path}': {exc.strerror or exc}") from None
    return {"output": path, "frames": len(index), "seconds": clock.perf_counter() - begin}


#: Frames from which an MP4 is drawn by one process a core (starting them costs seconds).
PARALLEL_FRAMES = 200


def _workers(ds: xr.Dataset, workers: int | None, frames: int) -> int:
    """How many processes draw the frames: ``workers``, or one a core for a long video;
    one when the Dataset is not a whole file on disk the processes can open again."""
    import os

    import xarray as xr

    source = ds.encoding.get("source")
    if workers is None:
        workers = (os.cpu_count() or 1) if frames >= PARALLEL_FRAMES else 1
    if workers <= 1 or not source or not Path(source).is_file():
        return 1
    with xr.open_dataset(source) as whole:   # (a case picked from a sweep is not whole)
        if dict(whole.sizes) != dict(ds.sizes):
            return 1
    return max(1, min(int(workers), frames))


#: In a drawing process: its scene and renderer (:func:`_start_drawing`).
_DRAWING: dict[str, Any] = {}


def _start_drawing(source: str, index: np.ndarray, camera: Any, size: tuple[int, int],
                   name: str, centre: np.ndarray, half: float) -> None:
    """A drawing process opens the results again (a file handle is not shared across
    processes) and makes its renderer, with the view of the whole window."""
    import xarray as xr

    ds = xr.open_dataset(source)
    scene = Scene(ds, name)
    renderer = Renderer(scene, index[:1], camera, size)
    renderer.centre, renderer.half = centre, half
    _DRAWING.update(scene=scene, renderer=renderer)


def _draw_chunk(part: np.ndarray) -> list[bytes]:
    renderer = _DRAWING["renderer"]
    return [image.tobytes() for image in renderer.render(part)]


def _mp4_in_parallel(ds: xr.Dataset, path: Path, index: np.ndarray, fps: int, camera: Any,
                     size: tuple[int, int], source: str, renderer: Renderer,
                     workers: int) -> None:
    """The MP4 of the frames ``index``, drawn by ``workers`` processes a chunk at a time
    and written in order through ffmpeg (the same pictures as one process draws)."""
    import multiprocessing

    import imageio_ffmpeg

    # spawned, not forked: a netCDF file handle must not cross a fork
    context = multiprocessing.get_context("spawn")
    step = max(1, min(CHUNK, -(-len(index) // workers)))
    parts = [index[i:i + step] for i in range(0, len(index), step)]
    width, height = size
    try:
        out = imageio_ffmpeg.write_frames(str(path), (width, height), fps=fps,
                                          codec="libx264", pix_fmt_out="yuv420p",
                                          macro_block_size=1)
        out.send(None)
        with context.Pool(workers, _start_drawing,
                          (ds.encoding["source"], index, camera, size, source,
                           renderer.centre, renderer.half)) as pool:
            for images in pool.imap(_draw_chunk, parts):
                for image in images:
                    out.send(image)
        out.close()
    except OSError as exc:
        raise SceneError(f"cannot write '{path}': {exc.strerror or exc}") from None


def _writer(suffix: str, fps: int) -> Any:
    import matplotlib
    from matplotlib import animation

    if suffix == ".gif":
        return animation.PillowWriter(fps=fps)
    import imageio_ffmpeg

    # the binary in the imageio-ffmpeg wheel: no system ffmpeg needed
    matplotlib.rcParams["animation.ffmpeg_path"] = imageio_ffmpeg.get_ffmpeg_exe()
    return animation.FFMpegWriter(fps=fps, codec="libx264",
                                  extra_args=["-pix_fmt", "yuv420p"])


def _rgb(colour: str) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    return to_rgb(colour)


__all__ = ["CAMERAS", "Renderer", "animate", "frame_images", "frame_times", "parse_camera"]
