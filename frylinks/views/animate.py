"""Animations of a results Dataset (``frylinks animate OUT.nc -o motion.mp4``).

Frames are drawn offscreen on matplotlib's Agg canvas (:mod:`frylinks.views.renderer`):
no display, GPU or system library is needed, so the same code runs on a laptop, a
headless server and CI (the choice is measured in pyproject.toml). MP4 goes through the
ffmpeg binary bundled in the ``imageio-ffmpeg`` wheel, the canvas's RGBA bytes straight
into its input; a long MP4 is drawn by one process a core. GIF goes through Pillow.
"""

from __future__ import annotations

import time as clock
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.views.renderer import CAMERAS, CHUNK, Renderer, parse_camera
from frylinks.views.scene import Scene, SceneError

if TYPE_CHECKING:
    import xarray as xr


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
        Processes drawing the frames of an MP4, this one included (each its chunks, in
        order; default one a core for :data:`PARALLEL_FRAMES` frames or more, else one):
        the Dataset must be a whole results file opened from disk
        (``ds.encoding["source"]``), which each other process opens again.

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
    width, height = renderer.canvas.get_width_height()
    try:
        if suffix == ".gif":
            _gif(path, renderer.rgba_frames(index), (width, height), fps)
        else:
            n = _workers(ds, workers, len(index))
            pictures = (_in_parallel(ds, index, camera, size, source, renderer, n) if n > 1
                        else renderer.rgba_frames(index))
            _mp4(path, pictures, (width, height), fps)
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
    # a sample shown twice is one bytes object, which pickle sends once
    return list(_DRAWING["renderer"].rgba_frames(part))


def _in_parallel(ds: xr.Dataset, index: np.ndarray, camera: Any, size: tuple[int, int],
                 source: str, renderer: Renderer, workers: int) -> Iterable[bytes]:
    """The RGBA pictures of the frames ``index``, drawn a chunk at a time by this process
    (every ``workers``-th chunk, with ``renderer``) and ``workers - 1`` others, and given
    in order (the pictures one process draws). This process drawing too saves starting
    one (3 s of CPU: imports, the results opened, the background drawn)."""
    import multiprocessing

    # spawned, not forked: a netCDF file handle must not cross a fork
    context = multiprocessing.get_context("spawn")
    step = max(1, min(CHUNK, -(-len(index) // workers)))
    parts = [index[i:i + step] for i in range(0, len(index), step)]
    theirs = [part for i, part in enumerate(parts) if i % workers]
    with context.Pool(workers - 1, _start_drawing,
                      (ds.encoding["source"], index, camera, size, source,
                       renderer.centre, renderer.half)) as pool:
        drawn = pool.imap(_draw_chunk, theirs)
        for i, part in enumerate(parts):
            yield from (next(drawn) if i % workers else renderer.rgba_frames(part))


#: ffmpeg's x264 settings: "veryfast" encoded RM3's 1201 frames in 7.7 s of CPU against
#: 13.4 s for the default "medium"; "superfast" less again (the README window in 34-36 s wall
#: instead of 38-41 s on 2 cores, a 1.7 MB file) at this quality (crf
#: 23, x264's default, which the matplotlib writer used)
X264 = ["-preset", "superfast", "-crf", "23"]


def _mp4(path: Path, pictures: Iterable[bytes], size: tuple[int, int], fps: int) -> None:
    """Write RGBA pictures of ``size`` (width, height) as an H.264 MP4 (yuv420p, which
    every player reads) through the ffmpeg binary of the imageio-ffmpeg wheel."""
    import imageio_ffmpeg

    out = imageio_ffmpeg.write_frames(str(path), size, pix_fmt_in="rgba", fps=fps,
                                      codec="libx264", pix_fmt_out="yuv420p", quality=None,
                                      output_params=X264, macro_block_size=1)
    out.send(None)
    try:
        for picture in pictures:
            out.send(picture)
    finally:
        out.close()


def _gif(path: Path, pictures: Iterable[bytes], size: tuple[int, int], fps: int) -> None:
    """Write RGBA pictures of ``size`` (width, height) as a looping GIF (Pillow)."""
    from PIL import Image

    images = [Image.frombuffer("RGBA", size, picture, "raw", "RGBA", 0, 1)
              for picture in pictures]
    # as matplotlib's PillowWriter: Pillow picks each frame's palette
    images[0].save(path, save_all=True, append_images=images[1:],
                   duration=int(1000 / fps), loop=0)


__all__ = ["CAMERAS", "Renderer", "animate", "frame_images", "frame_times", "parse_camera"]
