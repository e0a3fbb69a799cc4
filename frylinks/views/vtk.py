"""ParaView files of a results Dataset: a ``.pvd`` time collection of ``.vtu`` files
(``frylinks export OUT.nc --vtk DIR``).

Each time step is one unstructured grid holding the whole scene (:mod:`frylinks.views.scene`):
the bodies' surfaces, each node's frame as three short lines, the links and force lines,
and the free surface. A user colours by the cell data ``kind`` (0 body, 1 node frame, 2
link, 3 force line, 4 free surface), ``body`` (index in the results' ``body``, -1
elsewhere), ``tension [N]`` (force lines, catenary tension at the fairlead) and ``link
power [W]``, or the point data ``velocity [m s-1]`` (rigid-body velocity of each body
point) and ``elevation [m]`` (the free surface). Array names carry their units in
brackets, as ParaView shows them. NaN marks where a quantity does not apply.

meshio writes the ``.vtu`` files; the ``.pvd`` index is a three-element XML file written
with :mod:`xml.etree.ElementTree`. The connectivity is the same at every step: it is built
once, and the points and data of many steps are computed together (numpy over time).
"""

from __future__ import annotations

import time as clock
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from frylinks.views.scene import Frames, Scene, SceneError

if TYPE_CHECKING:
    import xarray as xr

#: Steps computed together (bounds memory: a 10 000-point scene holds 24 MB of them).
CHUNK = 100
KIND = {"body": 0, "node": 1, "link": 2, "force": 3, "surface": 4}


@dataclass
class Export:
    """What :func:`export_vtk` wrote: the ``.pvd`` file, the number of steps, the wall
    time [s]."""

    pvd: Path
    nb_steps: int
    seconds: float


class _Layout:
    """The fixed connectivity of one scene and how to fill its points and data."""

    def __init__(self, frames: Frames) -> None:
        quads: list[np.ndarray] = []
        lines: list[np.ndarray] = []
        self.quad_kind: list[np.ndarray] = []
        self.quad_body: list[np.ndarray] = []
        self.line_kind: list[np.ndarray] = []
        self.line_owner: list[tuple[str, str, int]] = []  # (kind, name, count)
        n = 0
        self.body_names = list(frames.bodies)
        for i, name in enumerate(self.body_names):
            faces = frames.faces[name]
            quads.append(faces + n)
            self.quad_kind.append(np.full(len(faces), KIND["body"]))
            self.quad_body.append(np.full(len(faces), i))
            n += frames.bodies[name].shape[1]
        self.node_names = list(frames.nodes)
        for _ in self.node_names:  # origin, then the tips of x, y, z
            lines.append(np.array([[n, n + 1], [n, n + 2], [n, n + 3]]))
            self.line_kind.append(np.full(3, KIND["node"]))
            n += 4
        for kind, polylines in (("link", frames.links), ("force", frames.forces)):
            for name, line in polylines.items():
                k = line.shape[1]
                lines.append(np.column_stack([np.arange(n, n + k - 1), np.arange(n + 1, n + k)]))
                self.line_kind.append(np.full(k - 1, KIND[kind]))
                self.line_owner.append((kind, name, k - 1))
                n += k
        self.surface_start = n
        if frames.surface is not None:
            ny, nx = frames.surface.shape[1:]
            g = np.arange(nx * ny).reshape(ny, nx) + n
            quads.append(np.column_stack([g[:-1, :-1].ravel(), g[:-1, 1:].ravel(),
                                          g[1:, 1:].ravel(), g[1:, :-1].ravel()]))
            self.quad_kind.append(np.full((ny - 1) * (nx - 1), KIND["surface"]))
            self.quad_body.append(np.full((ny - 1) * (nx - 1), -1))
            n += nx * ny
        self.nb_points = n
        self.cells = []
        if quads:
            self.cells.append(("quad", np.vstack(quads).astype(np.int32)))
        if lines:
            self.cells.append(("line", np.vstack(lines).astype(np.int32)))

    def cell_data(self, frames: Frames, k: int) -> dict[str, list[np.ndarray]]:
        """Cell data of step ``k``, one array per cell block (quads, then lines)."""
        kinds, bodies, tension, power = [], [], [], []
        if self.quad_kind:
            q = np.concatenate(self.quad_kind)
            kinds.append(q)
            bodies.append(np.concatenate(self.quad_body))
            tension.append(np.full(len(q), np.nan))
            power.append(np.full(len(q), np.nan))
        if self.line_kind:
            kinds.append(np.concatenate(self.line_kind))
            bodies.append(np.full(len(kinds[-1]), -1))
            t = np.full(3 * len(self.node_names), np.nan).tolist()
            p = list(t)
            for kind, name, count in self.line_owner:
                source = frames.force_tension if kind == "force" else frames.link_power
                value = source.get(name)
                v = np.nan if value is None else float(value[k])
                t += [v if kind == "force" else np.nan] * count
                p += [v if kind == "link" else np.nan] * count
            tension.append(np.array(t))
            power.append(np.array(p))
        return {"kind": [a.astype(np.int32) for a in kinds],
                "body": [a.astype(np.int32) for a in bodies],
                "tension [N]": [a.astype(np.float32) for a in tension],
                "link power [W]": [a.astype(np.float32) for a in power]}

    def points(self, frames: Frames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Points, velocity and elevation of every step of ``frames``: (nt, n, 3),
        (nt, n, 3), (nt, n)."""
        nt = len(frames.time)
        pts = np.empty((nt, self.nb_points, 3), dtype=np.float32)
        vel = np.full((nt, self.nb_points, 3), np.nan, dtype=np.float32)
        eta = np.full((nt, self.nb_points), np.nan, dtype=np.float32)
        n = 0
        for name in self.body_names:
            m = frames.bodies[name].shape[1]
            pts[:, n:n + m] = frames.bodies[name]
            vel[:, n:n + m] = frames.body_velocity[name]
            n += m
        reach = frames.axis_length
        for name in self.node_names:
            origin = frames.nodes[name]
            pts[:, n] = origin
            pts[:, n + 1:n + 4] = origin[:, None, :] + reach * np.swapaxes(
                frames.node_axes[name], 1, 2)
            n += 4
        for polylines in (frames.links, frames.forces):
            for line in polylines.values():
                pts[:, n:n + line.shape[1]] = line
                n += line.shape[1]
        if frames.surface is not None:
            assert frames.surface_x is not None and frames.surface_y is not None
            gx, gy = np.meshgrid(frames.surface_x, frames.surface_y)
            m = gx.size
            pts[:, n:n + m, 0] = gx.ravel()
            pts[:, n:n + m, 1] = gy.ravel()
            pts[:, n:n + m, 2] = frames.surface.reshape(nt, m)
            eta[:, n:n + m] = frames.surface.reshape(nt, m)
        return pts, vel, eta


def export_vtk(ds: xr.Dataset, directory: str | Path, *, start: float | None = None,
               end: float | None = None, rate: float | None = None,
               source: str = "the results", name: str | None = None) -> Export:
    """Write ParaView files of a results Dataset: ``DIR/NAME.pvd`` and one ``.vtu`` per
    time step (module doc for the arrays).

    Parameters
    ----------
    ds
        Results of one run (select one case of a sweep first); best opened lazily, only
        the exported samples are read.
    directory
        Folder for the files, created if needed.
    start, end
        Window [s] (default: the whole run).
    rate
        Steps per second of simulated time, at most (``2.0``: a 3-hour run gives
        21 600 steps); default every sample in the window.
    source
        Name of the results file, for messages.
    name
        Stem of the files (default: the results' ``title``).

    Returns
    -------
    Export
        The ``.pvd`` path, the number of steps and the wall time.

    Raises
    ------
    SceneError
        For a Dataset that is not frylinks results, a missing mesh file, an empty window.
    """
    import meshio

    begin = clock.perf_counter()
    scene = Scene(ds, source)
    index = scene.times(start, end, rate)
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SceneError(f"cannot create '{folder}': {exc.strerror or exc}") from None
    stem = name or _safe(str(ds.attrs.get("title", "frylinks")))
    collection = ET.Element("VTKFile", type="Collection", version="0.1")
    steps = ET.SubElement(collection, "Collection")
    layout: _Layout | None = None
    count = 0
    for first in range(0, len(index), CHUNK):
        frames = scene.frames(index[first:first + CHUNK])
        layout = layout or _Layout(frames)
        pts, vel, eta = layout.points(frames)
        for k, t in enumerate(frames.time):
            file = f"{stem}_{count:06d}.vtu"
            mesh = meshio.Mesh(pts[k], layout.cells,
                               point_data={"velocity [m s-1]": vel[k], "elevation [m]": eta[k]},
                               cell_data=layout.cell_data(frames, k))
            # uncompressed: zlib made each step 7 times slower for half the size
            meshio.vtu.write(folder / file, mesh, binary=True, compression=None)
            ET.SubElement(steps, "DataSet", timestep=repr(float(t)), part="0", file=file)
            count += 1
    pvd = folder / f"{stem}.pvd"
    ET.ElementTree(collection).write(pvd, xml_declaration=True, encoding="utf-8")
    return Export(pvd, count, clock.perf_counter() - begin)


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text) or "frylinks"


def read_pvd(pvd: str | Path) -> list[tuple[float, Path]]:
    """The (time, file) steps of a ``.pvd`` collection, files made absolute."""
    root = ET.parse(pvd).getroot()
    base = Path(pvd).parent
    return [(float(d.attrib["timestep"]), base / d.attrib["file"])
            for d in root.iter("DataSet")]


__all__ = ["Export", "export_vtk", "read_pvd"]
