"""Frames of a scene drawn offscreen: the picture of each animation step.

What does not move (the 3D axes' panes, grid, ticks and labels, the title) is drawn once
by matplotlib's 3D axes on the Agg canvas and kept as the background. What moves (bodies,
the sea, node frames, links, force and mooring lines, the time) is projected by
:class:`frylinks.views.camera.Camera` onto that box in numpy, faces sorted by depth, and
drawn as 2D collections over a copy of the background. The 3D axes did the same work
polygon by polygon in Python and drew its ticks again every frame: 8 frames a second
for RM3, against 20 or more here (docs/visualisation.md).

What is drawn comes from :mod:`frylinks.views.scene`: bodies (their mesh or shape, shaded
by a light from above, or a small sphere), node frames (x red, y green, z blue), links
(grey; a slot along the sliding axis of a prismatic link, an axis for a revolute), force
lines (orange) and catenary lines along their shape (black), the free surface (blue)
where waves are defined. The simulated time is shown in the corner.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.views.camera import Camera, view_axes
from frylinks.views.scene import Frames, Scene, SceneError

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure

#: Preset views: name -> (elevation, azimuth) [deg] of the camera.
CAMERAS: dict[str, tuple[float, float]] = {
    "iso": (22.0, -50.0), "front": (0.0, -90.0), "side": (0.0, 0.0), "top": (90.0, -90.0)}
BODY_COLOURS = ("#d9a441", "#8fa6bf", "#b5655b", "#7fa67a", "#9c7fb3")
#: Frames drawn between two reads of the results (bounds memory on long windows).
CHUNK = 50
#: Direction of the light shading the bodies (from above, a little from the front).
LIGHT = np.array([0.3, -0.4, 0.87])


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

    Attributes
    ----------
    camera : Camera or None
        The projection, placed on the 3D axes' box at the first frame.
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
        # the box, panes, grid and ticks only: what moves is drawn over it in 2D
        self.axes: Any = self.figure.add_axes((0.0, 0.0, 1.0, 0.94), projection="3d")
        self.label = self.figure.text(0.02, 0.965, "", fontsize=12, family="monospace",
                                      va="center", zorder=3)
        title = str(scene.ds.attrs.get("title", ""))
        self.figure.text(0.98, 0.965, title, fontsize=11, ha="right", va="center")
        self.centre, self.half = self._bounds(index)
        self.camera: Camera | None = None
        #: What is drawn, made at the first frame (:meth:`draw`).
        self._artists: dict[str, Any] | None = None
        #: The artists that move, in drawing order, and the picture without them.
        self._moving: list[Artist] = []
        self._background: Any = None

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

    # ------------------------------------------------------------------ a frame

    def draw(self, frames: Frames, k: int) -> None:
        """Put the artists at step ``k`` of ``frames``: the axes and artists are made at
        the first frame, and later frames only move them."""
        if self._artists is None:
            self._artists = self._make_artists(frames)
        art = self._artists
        cam = self.camera
        assert cam is not None
        for i, (name, points) in enumerate(frames.bodies.items()):
            world = points[k]
            faces = frames.faces[name]
            polygons = world[faces]
            normal = _normals(polygons)
            base = np.array(_rgb(BODY_COLOURS[i % len(BODY_COLOURS)]))
            shade = 0.45 + 0.55 * np.abs(normal @ LIGHT)
            colours = np.clip(base[None, :] * shade[:, None], 0.0, 1.0)
            # painter's order: the farthest face first (by its points' mean depth, as
            # matplotlib's 3D collections sort)
            order = np.argsort(cam.depth(world)[faces].mean(axis=1))
            body = art["bodies"][name]
            body.polygons = cam.project(world)[faces[order]]
            body.collection.set_facecolor(colours[order])
            body.collection.set_edgecolor(colours[order] * 0.8)
        if art["surface"] is not None:
            assert frames.surface is not None
            x, y, quads = art["grid"]
            z = frames.surface[k]
            corners = [(0, 0), (0, 1), (1, 1), (1, 0)]
            verts = np.stack([np.stack([x[quads[:, 0] + di, quads[:, 1] + dj],
                                        y[quads[:, 0] + di, quads[:, 1] + dj],
                                        z[quads[:, 0] + di, quads[:, 1] + dj]], axis=-1)
                              for di, dj in corners], axis=1)
            order = np.argsort(cam.depth(verts).mean(axis=1))
            art["surface"].polygons = cam.project(verts[order])
        if art["arms"] is not None:
            arms = np.stack([np.stack([frames.nodes[path.split(".")[0]][k],
                                       frames.nodes[path][k]]) for path in art["arm_paths"]])
            art["arms"].set_segments(cam.project(arms))
        if art["node_axes"] is not None:
            origins = np.stack([origin[k] for origin in frames.nodes.values()])  # (n, 3)
            axes = np.stack([frames.node_axes[p][k] for p in frames.nodes])      # (n, 3, 3)
            tips = origins[:, None, :] + frames.axis_length * np.swapaxes(axes, 1, 2)
            # x, y, z of each node in turn: the colours' order
            segments = np.stack([np.broadcast_to(origins[:, None, :], tips.shape), tips],
                                axis=2).reshape(-1, 2, 3)
            art["node_axes"].set_segments(cam.project(segments))
        if art["links"] is not None:
            art["links"].set_segments([cam.project(self._clipped(line[k]))
                                       for line in frames.links.values()])
        for name, line in frames.forces.items():
            xy = cam.project(self._clipped(line[k]))
            art["forces"][name].set_data(xy[:, 0], xy[:, 1])
        self.label.set_text(f"t = {frames.time[k]:9.2f} s")

    def _make_artists(self, frames: Frames) -> dict[str, Any]:
        """The axes, set and drawn once as the background, the camera placed on their
        box, and one artist per thing drawn (:meth:`draw` moves them)."""
        from matplotlib.collections import LineCollection
        from matplotlib.lines import Line2D

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
        self.label.set_visible(False)
        self.canvas.draw()
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self.label.set_visible(True)
        self.camera = self._camera_on_axes()
        # pixels of the figure as first drawn: a figure saved at another dpi scales them
        # with its axes (a notebook's animation)
        from matplotlib.transforms import Affine2D

        width, height = self.figure.bbox.width, self.figure.bbox.height
        pixels = Affine2D().scale(1.0 / width, 1.0 / height) + self.figure.transFigure
        # clipped to the axes' box, as the 3D axes clip what they hold; drawn in the
        # order made (zorder 1, lines 2, as the 3D axes drew them): bodies, then the sea
        # over them, then links and lines on top (a link inside a hull stays visible)
        common = {"transform": pixels, "clip_box": ax.bbox, "zorder": 1}
        art: dict[str, Any] = {"bodies": {}, "forces": {}, "surface": None, "arms": None,
                               "node_axes": None, "links": None, "arm_paths": []}
        for name in frames.bodies:
            art["bodies"][name] = Polygons(frames.faces[name].shape, linewidths=0.2, **common)
        if frames.surface is not None:
            assert frames.surface_x is not None and frames.surface_y is not None
            gx, gy = np.meshgrid(frames.surface_x, frames.surface_y)
            inside = self._inside(gx, gy)
            # a quad of the grid is drawn when its four corners are in the view
            whole = inside[:-1, :-1] & inside[1:, :-1] & inside[1:, 1:] & inside[:-1, 1:]
            quads = np.argwhere(whole)
            art["grid"] = (gx, gy, quads)
            if len(quads):
                art["surface"] = Polygons((len(quads), 4), facecolors="#4f8fd6", alpha=0.35,
                                          linewidths=0, **common)
        art["arm_paths"] = [path for path in frames.nodes
                            if "." in path and path.split(".")[0] in frames.bodies]
        if art["arm_paths"]:  # a node is fixed on its body: a thin arm from the COG
            art["arms"] = LineCollection([], colors="#999999", linewidths=0.8,
                                         linestyles="dashed", **common)
        if frames.nodes:
            art["node_axes"] = LineCollection(
                [], colors=["#d62728", "#2ca02c", "#1f77b4"] * len(frames.nodes),
                linewidths=1.2, **common)
        if frames.links:
            art["links"] = LineCollection([], colors="#555555", linewidths=3.0, **common)
        for name, line in frames.forces.items():
            catenary = line.shape[1] > 2
            art["forces"][name] = Line2D([], [], color="#222222" if catenary else "#ff7f0e",
                                         linewidth=1.5, label=name,
                                         **{**common, "zorder": 2})
        sea = art["surface"].collection if art["surface"] is not None else None
        self._moving = [a for a in (*(b.collection for b in art["bodies"].values()), sea,
                                    art["arms"],
                                    art["node_axes"], art["links"],
                                    *art["forces"].values()) if a is not None]
        for artist in self._moving:
            self.figure.add_artist(artist)
        self._moving.append(self.label)
        return art

    def _camera_on_axes(self) -> Camera:
        """The camera placed where the 3D axes, just drawn, put the cube: the pixels of
        its centre and of a half side along the screen's x and y, asked of the axes'
        own projection (so the bodies sit in the drawn box at any size)."""
        from mpl_toolkits.mplot3d import proj3d

        u, v, _ = view_axes(self.elev, self.azim)
        points = np.stack([self.centre, self.centre + self.half * u,
                           self.centre + self.half * v])
        x, y, _ = proj3d.proj_transform(points[:, 0], points[:, 1], points[:, 2],
                                        self.axes.get_proj())
        pixels = self.axes.transData.transform(np.column_stack([x, y]))
        scale = np.array([pixels[1, 0] - pixels[0, 0], pixels[2, 1] - pixels[0, 1]])
        return Camera(self.elev, self.azim, self.centre.copy(), pixels[0],
                      scale / self.half)

    def _clipped(self, line: np.ndarray) -> np.ndarray:
        """A polyline without its points outside the view's cube (NaN breaks the line):
        a mooring line running out of a zoomed view would be drawn across the picture
        (and the box's ticks)."""
        outside = (np.abs(line - self.centre) > self.half * (1.0 + 1e-9)).any(axis=1)
        return np.where(outside[:, None], np.nan, line) if outside.any() else line

    def _inside(self, gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
        c, h = self.centre, self.half
        return (np.abs(gx - c[0]) <= h) & (np.abs(gy - c[1]) <= h)

    # ------------------------------------------------------------------ pictures

    def rgba(self) -> memoryview:
        """The picture of the frame last set by :meth:`draw`: the background, and the
        moving artists drawn over it. A view of the canvas's (height, width, 4) RGBA
        buffer, which the next frame overwrites."""
        self.canvas.restore_region(self._background)
        for artist in self._moving:
            self.figure.draw_artist(artist)
        return self.canvas.buffer_rgba()

    def image(self) -> np.ndarray:
        """The figure as an RGB array (height, width, 3)."""
        return np.asarray(self.rgba())[..., :3].copy()

    def rgba_frames(self, index: np.ndarray) -> Iterator[bytes]:
        """RGBA pictures (height x width x 4 bytes) of the samples ``index``, read from
        the results a chunk at a time. A sample shown by consecutive frames (a video's
        frames closer than the results' samples) is drawn once: its frames are the same
        bytes object."""
        for first in range(0, len(index), CHUNK):
            samples, which = np.unique(index[first:first + CHUNK], return_inverse=True)
            frames = self.scene.frames(samples)
            last, picture = -1, b""
            for k in which.ravel().tolist():
                if k != last:
                    self.draw(frames, k)
                    picture, last = bytes(self.rgba()), k
                yield picture

    def render(self, index: np.ndarray) -> Iterator[np.ndarray]:
        """Images of the samples ``index`` as RGB arrays (height, width, 3)."""
        width, height = self.canvas.get_width_height()
        for picture in self.rgba_frames(index):
            yield np.frombuffer(picture, np.uint8).reshape(height, width, 4)[..., :3].copy()


class Polygons:
    """Polygons of a fixed count and size drawn as one collection, moved by writing their
    pixels into :attr:`polygons` (no matplotlib object is made again frame after frame:
    making RM3's 5904 paths again took a third of a frame).

    Parameters
    ----------
    shape
        (number of polygons, corners of each).
    **style
        The collection's style, transform and clipping (``facecolors``, ``linewidths``,
        ...).

    Attributes
    ----------
    polygons : (n, corners, 2) array
        The corners' pixels, which the paths drawn are views of (each closed by its
        first corner).
    collection : matplotlib.collections.PathCollection
    """

    def __init__(self, shape: tuple[int, ...], **style: Any) -> None:
        from matplotlib.collections import PathCollection
        from matplotlib.path import Path

        count, corners = int(shape[0]), int(shape[1])
        self._closed = np.zeros((count, corners + 1, 2))
        codes = np.full(corners + 1, Path.LINETO, dtype=Path.code_type)
        codes[0], codes[-1] = Path.MOVETO, Path.CLOSEPOLY
        # a Path keeps the array it is given: these paths see every write to _closed
        self.collection = PathCollection([Path(xy, codes) for xy in self._closed], **style)

    @property
    def polygons(self) -> np.ndarray:
        return self._closed[:, :-1]

    @polygons.setter
    def polygons(self, value: np.ndarray) -> None:
        self._closed[:, :-1] = value
        self._closed[:, -1] = self._closed[:, 0]
        self.collection.stale = True


def _normals(polygons: np.ndarray) -> np.ndarray:
    """Unit normals of (n, 3 or 4, 3) polygons (a quad's from its diagonals)."""
    if polygons.shape[1] >= 4:
        normal = np.cross(polygons[:, 2] - polygons[:, 0], polygons[:, 3] - polygons[:, 1])
    else:
        normal = np.cross(polygons[:, 1] - polygons[:, 0], polygons[:, 2] - polygons[:, 0])
    return normal / np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)


def _rgb(colour: str) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    return to_rgb(colour)


__all__ = ["CAMERAS", "CHUNK", "Renderer", "parse_camera"]
