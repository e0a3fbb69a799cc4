"""ParaView files of a results Dataset (``frylinks export OUT.nc --vtk DIR``): one
VTKHDF file whose cells are written once and whose points and data are appended step by
step (:mod:`frylinks.views.vtkhdf`), or a ``.pvd`` time collection of ``.vtu`` files
(``--format pvd``), each repeating the cells.

Each time step is one unstructured grid holding the whole scene (:mod:`frylinks.views.scene`):
the bodies' surfaces, each node's frame as three short lines, the links and force lines,
and the free surface. A user colours by the cell data ``kind`` (0 body, 1 node frame, 2
link, 3 force line, 4 free surface), ``body`` (index in the results' ``body``, -1
elsewhere), ``tension [N]`` (force lines, catenary tension at the fairlead) and ``link
power [W]``, or the point data ``velocity [m s-1]`` (rigid-body velocity of each body
point) and ``elevation [m]`` (the free surface). Array names carry their units in
brackets, as ParaView shows them. NaN marks where a quantity does not apply.

h5py writes the VTKHDF file. meshio writes the ``.vtu`` files; the ``.pvd`` index is a
three-element XML file written with :mod:`xml.etree.ElementTree`. The connectivity is the
same at every step: it is built once, and the points and data of many steps are computed
together (numpy over time), a chunk of steps at a time (bounded memory).
"""

from __future__ import annotations

import sys
import time as clock
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.version import __version__
from frylinks.views.scene import Frames, Scene, SceneError
from frylinks.views.vtkhdf import VTK_LINE, VTK_QUAD, TemporalGridWriter, quantised

if TYPE_CHECKING:
    import xarray as xr

#: Steps computed together (bounds memory: a 10 000-point scene holds 24 MB of them).
CHUNK = 100
#: The default rounding of a VTKHDF export's points, velocity and elevation [m, m s-1]:
#: to 2^-14 (0.061 mm; an error of at most 0.031 mm, far below what a picture of a
#: marine structure shows), which takes a 3-hour RM3 export at 2 Hz from 1.39 to 0.84 GB.
DEFAULT_PRECISION = 1e-4
KIND = {"body": 0, "node": 1, "link": 2, "force": 3, "surface": 4}
#: What ``export_vtk(format=...)`` writes.
FORMATS = ("vtkhdf", "pvd")
#: File name endings taken for a VTKHDF file (else the target is a folder).
VTKHDF_SUFFIXES = (".vtkhdf", ".hdf")


@dataclass
class Export:
    """What :func:`export_vtk` wrote.

    Attributes
    ----------
    path : the ``.vtkhdf`` file, or the ``.pvd`` collection
    nb_steps : time steps
    seconds : wall time [s]
    nb_points : points a step
    nbytes : bytes written (all the ``.vtu`` files with the ``.pvd``)
    """

    path: Path
    nb_steps: int
    seconds: float
    nb_points: int = 0
    nbytes: int = 0

    @property
    def pvd(self) -> Path:
        """The file written: ``path`` under its name from when the export wrote a
        ``.pvd`` only."""
        return self.path


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

    def cell_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The cells in VTK's layout: connectivity, offsets (nb_cells + 1), types."""
        connectivity, types = [], []
        for kind, block in self.cells:
            connectivity.append(block.ravel())
            types.append(np.full(len(block), VTK_QUAD if kind == "quad" else VTK_LINE))
        sizes = np.concatenate([np.full(len(b), b.shape[1]) for _, b in self.cells])
        return (np.concatenate(connectivity), np.concatenate([[0], np.cumsum(sizes)]),
                np.concatenate(types))

    def cell_series(self, frames: Frames) -> dict[str, np.ndarray]:
        """The cell data of every step of ``frames``, name -> (nt, nb_cells), the cells
        in the order of :meth:`cell_arrays` (:meth:`cell_data` for one step, by block)."""
        nt = len(frames.time)
        kinds = np.concatenate(self.quad_kind + self.line_kind)
        nb_quads = sum(len(q) for q in self.quad_kind)
        body = np.full(len(kinds), -1, dtype=np.int32)
        if self.quad_body:
            body[:nb_quads] = np.concatenate(self.quad_body)
        tension = np.full((nt, len(kinds)), np.nan, dtype=np.float32)
        power = np.full((nt, len(kinds)), np.nan, dtype=np.float32)
        start = nb_quads + 3 * len(self.node_names)
        for kind, name, count in self.line_owner:
            source = frames.force_tension if kind == "force" else frames.link_power
            value = source.get(name)
            if value is not None:
                (tension if kind == "force" else power)[:, start:start + count] = \
                    np.asarray(value, dtype=float)[:, None]
            start += count
        return {"kind": np.broadcast_to(kinds.astype(np.int32), (nt, len(kinds))),
                "body": np.broadcast_to(body, (nt, len(kinds))),
                "tension [N]": tension, "link power [W]": power}

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


def export_vtk(ds: xr.Dataset, target: str | Path, *, start: float | None = None,
               end: float | None = None, rate: float | None = None,
               source: str = "the results", name: str | None = None,
               format: str = "vtkhdf", precision: float | None = None,
               progress: bool = False) -> Export:
    """Write ParaView files of a results Dataset (module doc for the arrays): one VTKHDF
    file, or a ``.pvd`` collection of one ``.vtu`` file per time step.

    Parameters
    ----------
    ds
        Results of one run (select one case of a sweep first); best opened lazily, only
        the exported samples are read.
    target
        A folder (created if needed) for ``NAME.vtkhdf`` or ``NAME.pvd`` and its ``.vtu``
        files; or, for VTKHDF, the file itself (``.vtkhdf`` or ``.hdf``).
    start, end
        Window [s] (default: the whole run).
    rate
        Steps per second of simulated time, at most (``2.0``: a 3-hour run gives
        21 600 steps); default every sample in the window.
    source
        Name of the results file, for messages.
    name
        Stem of the files (default: the results' ``title``).
    format
        ``"vtkhdf"`` (default): the cells once, each step's points and data appended,
        compressed; ``"pvd"``: every step a whole ``.vtu`` file, uncompressed.
    precision
        VTKHDF only, lossy: the points, the velocity and the elevation rounded to a
        multiple of the largest power of two not above ``precision`` (in m, and m s-1
        for the velocity; the error is at most half of it), which compresses them
        nearly twice better. Default :data:`DEFAULT_PRECISION` (1e-4: an error of at
        most 0.031 mm, what a 3-hour RM3 export at 2 Hz needs to stay under 1 GB); 0:
        float32 as computed (lossless).
    progress
        Show a progress bar (steps, rate and ETA) on a terminal.

    Returns
    -------
    Export
        The file written, the number of steps and points, its size and the wall time.

    Raises
    ------
    SceneError
        For a Dataset that is not frylinks results, a missing mesh file, an empty window,
        an unknown format, a precision that is not a number >= 0.
    """
    begin = clock.perf_counter()
    if format not in FORMATS:
        raise SceneError(f"unknown VTK format {format!r}; known: {', '.join(FORMATS)}")
    if precision is not None:
        if format != "vtkhdf":
            raise SceneError("--precision applies to the VTKHDF format only")
        if not (np.isfinite(precision) and precision >= 0):
            raise SceneError(f"--precision {precision!r}: expected a length >= 0 in m "
                             "(0: lossless)")
    elif format == "vtkhdf":
        precision = DEFAULT_PRECISION
    if precision == 0:
        precision = None  # (float32 as computed)
    scene = Scene(ds, source)
    index = scene.times(start, end, rate)
    stem = name or _safe(str(ds.attrs.get("title", "frylinks")))
    target = Path(target)
    if target.suffix.lower() in VTKHDF_SUFFIXES:
        if format != "vtkhdf":
            raise SceneError(f"'{target}': a {format} export goes to a folder")
        folder, file = target.parent, target
    else:
        folder = target
        file = folder / f"{stem}.{format}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SceneError(f"cannot create '{folder}': {exc.strerror or exc}") from None
    bar = _progress(progress, len(index))
    try:
        if format == "pvd":
            count, nb_points, nbytes = _write_pvd(scene, index, folder, stem, bar)
        else:
            count, nb_points = _write_vtkhdf(scene, index, file, source, precision, bar)
            nbytes = file.stat().st_size
    finally:
        if bar is not None:
            bar.close()
    return Export(file, count, clock.perf_counter() - begin, nb_points, nbytes)


def _progress(enabled: bool, total: int) -> Any:
    """A progress bar over ``total`` steps on a terminal's stderr, else None."""
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="step", desc="export")


def _write_vtkhdf(scene: Scene, index: np.ndarray, file: Path, source: str,
                  precision: float | None, bar: Any) -> tuple[int, int]:
    """Write the steps ``index`` of ``scene`` to the VTKHDF ``file``: (steps, points)."""
    writer: TemporalGridWriter | None = None
    nb_points = 0
    try:
        for first in range(0, len(index), CHUNK):
            frames = scene.frames(index[first:first + CHUNK])
            if writer is None:
                layout = _Layout(frames)
                nb_points = layout.nb_points
                attrs = {"frylinks_version": __version__,
                         "source": source.strip("'"),
                         "title": str(scene.ds.attrs.get("title", "")),
                         "precision": "float32" if precision is None else
                         f"rounded to {2.0 ** np.floor(np.log2(precision)):.3g} "
                         "(points, elevation [m], velocity [m s-1])"}
                try:
                    writer = TemporalGridWriter(file, *layout.cell_arrays(), layout.nb_points,
                                                attrs=attrs)
                except OSError as exc:
                    raise SceneError(f"cannot write '{file}': {exc}") from None
            pts, vel, eta = layout.points(frames)
            if precision is not None:
                pts, vel, eta = (quantised(a, precision) for a in (pts, vel, eta))
            writer.append(frames.time, pts,
                          point_data={"velocity [m s-1]": vel, "elevation [m]": eta},
                          cell_data=layout.cell_series(frames))
            if bar is not None:
                bar.update(len(frames.time))
    finally:
        if writer is not None:
            writer.close()
    return (writer.nb_steps if writer is not None else 0), nb_points


def _write_pvd(scene: Scene, index: np.ndarray, folder: Path, stem: str,
               bar: Any) -> tuple[int, int, int]:
    """Write ``folder/stem.pvd`` and a ``.vtu`` file a step: (steps, points, bytes)."""
    import meshio

    collection = ET.Element("VTKFile", type="Collection", version="0.1")
    steps = ET.SubElement(collection, "Collection")
    layout: _Layout | None = None
    count = nbytes = 0
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
            nbytes += (folder / file).stat().st_size
            ET.SubElement(steps, "DataSet", timestep=repr(float(t)), part="0", file=file)
            count += 1
        if bar is not None:
            bar.update(len(frames.time))
    pvd = folder / f"{stem}.pvd"
    ET.ElementTree(collection).write(pvd, xml_declaration=True, encoding="utf-8")
    return count, layout.nb_points if layout else 0, nbytes + pvd.stat().st_size


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text) or "frylinks"


def read_pvd(pvd: str | Path) -> list[tuple[float, Path]]:
    """The (time, file) steps of a ``.pvd`` collection, files made absolute."""
    root = ET.parse(pvd).getroot()
    base = Path(pvd).parent
    return [(float(d.attrib["timestep"]), base / d.attrib["file"])
            for d in root.iter("DataSet")]


__all__ = ["FORMATS", "KIND", "Export", "export_vtk", "read_pvd"]
