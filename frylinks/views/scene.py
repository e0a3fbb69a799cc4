"""The world poses of a results Dataset's bodies, nodes, links, force lines and free
surface at chosen times, from its ``scene`` attribute (:mod:`frylinks.model.geometry`).

:class:`Scene` turns a Dataset into world coordinates, vectorised over time: the
drawing (:mod:`frylinks.views.animate`) and the ParaView export (:mod:`frylinks.views.vtk`)
use the same numbers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.model.geometry import Mesh, SceneError, body_mesh, resolve_meshes
from frylinks.rotations import quat_to_matrix

if TYPE_CHECKING:
    import xarray as xr

Array = np.ndarray

#: Link types drawn as a slot along the master node's z axis (a sliding DOF).
SLIDING_LINKS = ("prismatic", "cylindrical", "screw", "latch")
#: Link types drawn as an axis along the master node's z axis (a turning DOF).
TURNING_LINKS = ("revolute",)
#: Points along a catenary line's drawn shape.
CATENARY_POINTS = 40
#: Points along each side of the free surface's grid (1.5 model sizes across): the sea's
#: elevation is summed over every wave component at every point and time, which was half
#: of an RM3 export's time with 41 in an irregular sea. 25 gives RM3 a 3.2 m spacing,
#: 8 points a wavelength of a 4 s wave (25 m).
SURFACE_POINTS = 25


# ---------------------------------------------------------------------- world poses

@dataclass
class Frames:
    """World geometry of a scene at ``nt`` times (arrays lead with time).

    Attributes
    ----------
    time : (nt,) [s]
    bodies : name -> (nt, np, 3) mesh points, with ``faces`` name -> (nf, 4)
    body_velocity : name -> (nt, np, 3) rigid-body velocity of each mesh point [m s-1]
    nodes : path -> (nt, 3) origin and ``node_axes`` path -> (nt, 3, 3) (columns x y z)
    links : name -> (nt, k, 3) polyline, with ``link_power`` name -> (nt,) [W] or None
    forces : name -> (nt, k, 3) polyline, with ``force_tension`` name -> (nt,) [N]
    surface : (nt, ny, nx) elevation on ``surface_x`` (nx,), ``surface_y`` (ny,) or None
    """

    time: Array
    bodies: dict[str, Array] = field(default_factory=dict)
    faces: dict[str, Array] = field(default_factory=dict)
    body_velocity: dict[str, Array] = field(default_factory=dict)
    nodes: dict[str, Array] = field(default_factory=dict)
    node_axes: dict[str, Array] = field(default_factory=dict)
    links: dict[str, Array] = field(default_factory=dict)
    link_power: dict[str, Array | None] = field(default_factory=dict)
    forces: dict[str, Array] = field(default_factory=dict)
    force_tension: dict[str, Array | None] = field(default_factory=dict)
    surface: Array | None = None
    surface_x: Array | None = None
    surface_y: Array | None = None
    size: float = 1.0
    axis_length: float = 0.05


class Scene:
    """The drawable model of a results Dataset (from its ``scene`` attribute).

    Parameters
    ----------
    ds
        Results of one run (a sweep's Dataset with one ``case`` selected); opened lazily
        is best: only the times asked for are read.
    source
        Name of the results file, for messages.
    """

    def __init__(self, ds: xr.Dataset, source: str = "the results") -> None:
        self.ds = ds
        self.source = source
        if "case" in ds.dims:
            raise SceneError(f"{source} is a sweep of {ds.sizes['case']} cases: choose one "
                             "(--case N, or ds.isel(case=N))")
        for var in ("body_position", "body_orientation"):
            if var not in ds:
                raise SceneError(f"{source} has no variable '{var}': not frylinks results")
        text = ds.attrs.get("scene")
        # results written before the scene attribute: the bodies alone, as spheres
        self.spec: dict[str, Any] = json.loads(text) if text else {
            "bodies": {}, "nodes": {}, "links": {}, "forces": {}, "settings": {}}
        # mesh paths relative to the results file: read beside it, wherever it now is
        where = ds.encoding.get("source")
        resolve_meshes(self.spec, Path(where).parent if where else None)
        self.body_names = [str(b) for b in np.atleast_1d(ds["body"].values)]
        self.size = self._size()
        self.meshes = {}
        for name in self.body_names:
            spec = self.spec["bodies"].get(name)
            try:
                self.meshes[name] = body_mesh(spec, 0.04 * self.size)
            except SceneError as exc:
                raise SceneError(f"{source}: bodies.{name}.geometry.mesh: {exc}") from None
        self._environment = self._sea()
        self._centre: Array | None = None
        # node frames: long enough to see, not longer than the hulls they sit on
        reaches = [float(np.abs(body_mesh(self.spec["bodies"][n], 0.0).points).max())
                   for n in self.body_names if self.spec["bodies"].get(n)]
        self.axis_length = min(0.05 * self.size, 0.6 * max(reaches)) if reaches \
            else 0.05 * self.size

    def _size(self) -> float:
        """A length that sets the drawing's scale: the model's extent at the start
        (COGs, ground nodes, anchors of lines, the reach of each body's geometry)."""
        first = np.asarray(self.ds["body_position"].isel(time=0).values,
                           dtype=float).reshape(-1, 3)
        points = [first]
        for node in self.spec["nodes"].values():
            if node["body"] == "ground":
                points.append(np.asarray([node["position"]], dtype=float))
        for force in self.spec["forces"].values():
            anchor = (force.get("params") or {}).get("anchor")
            if isinstance(anchor, list) and len(anchor) == 3:
                points.append(np.asarray([anchor], dtype=float))
        for var in self.ds.data_vars:  # lines a plugin writes node by node (MoorDyn's)
            if str(var).endswith("_node_position") and self.ds[var].dims[-1] == "xyz":
                nodes = np.asarray(self.ds[var].isel(time=0).values,
                                   dtype=float).reshape(-1, 3)
                points.append(nodes[~np.isnan(nodes).any(axis=1)])
        for name, centre in zip(self.body_names, first, strict=False):
            geometry = self.spec["bodies"].get(name)
            if geometry:
                try:
                    reach = float(np.abs(body_mesh(geometry, 0.0).points).max())
                except SceneError:
                    reach = 0.0  # said when the meshes are loaded
                points.append(centre + np.array([[-reach] * 3, [reach] * 3]))
        cloud = np.vstack(points)
        return float(max(np.ptp(cloud, axis=0).max(), 1.0))

    def _sea(self) -> Any:
        """The ``environment`` setting rebuilt through the registry (the core does not
        import the marine plugin), or None without waves."""
        params = self.spec.get("settings", {}).get("environment")
        waves = params.get("waves") if params else None
        if not waves or (isinstance(waves, Mapping) and waves.get("type") == "still"):
            return None
        from frylinks.model.registry import Registry

        info = Registry().get("setting", "environment")
        if info is None:
            return None
        gravity = np.array([0.0, 0.0, -9.81])
        try:
            setting = info.cls(params, gravity)
        except Exception:  # a sea that cannot be rebuilt is left undrawn
            return None
        # duck-typed: a setting whose waves give the elevation at points and a time
        return setting if callable(getattr(getattr(setting, "waves", None), "elevation",
                                           None)) else None

    def variable(self, name: str) -> xr.DataArray:
        """A variable of the results, or a :class:`SceneError` naming the file."""
        if name not in self.ds:
            known = ", ".join(sorted(str(v) for v in self.ds.data_vars))
            raise SceneError(f"{self.source} has no variable '{name}'; it holds: {known}")
        return self.ds[name]

    def times(self, start: float | None = None, end: float | None = None,
              rate: float | None = None) -> Array:
        """Indices of the samples in ``[start, end]``, at most ``rate`` per second."""
        t = np.asarray(self.ds["time"].values, dtype=float)
        lo = t[0] if start is None else start
        hi = t[-1] if end is None else end
        if hi < lo:
            raise SceneError(f"--end {hi:g} s is before --start {lo:g} s")
        inside = np.flatnonzero((t >= lo - 1e-9) & (t <= hi + 1e-9))
        if inside.size == 0:
            raise SceneError(f"{self.source} has no samples in [{lo:g}, {hi:g}] s (it "
                             f"covers {t[0]:g} to {t[-1]:g} s)")
        if rate is None:
            return inside
        wanted = np.arange(t[inside[0]], t[inside[-1]] + 1e-9, 1.0 / rate)
        picked = inside[0] + np.searchsorted(t[inside], wanted - 1e-9)
        return np.unique(np.clip(picked, inside[0], inside[-1]))

    def frames(self, index: Array) -> Frames:
        """World geometry at the samples ``index`` (reads only those)."""
        ds = self.ds.isel(time=np.asarray(index))
        out = Frames(np.asarray(ds["time"].values, dtype=float), size=self.size,
                     axis_length=self.axis_length)
        nt = len(out.time)
        pos = np.asarray(ds["body_position"].values, dtype=float).reshape(nt, -1, 3)
        rot = quat_to_matrix(np.asarray(ds["body_orientation"].values,
                                        dtype=float).reshape(nt, -1, 4))
        vel = _optional(ds, "body_velocity", (nt, len(self.body_names), 3))
        omega = _optional(ds, "body_angular_velocity", (nt, len(self.body_names), 3))
        pose = {"ground": (np.zeros((nt, 3)), np.broadcast_to(np.eye(3), (nt, 3, 3)))}
        for i, name in enumerate(self.body_names):
            pose[name] = (pos[:, i], rot[:, i])
            mesh = self.meshes[name]
            arm = np.einsum("tij,pj->tpi", rot[:, i], mesh.points)
            out.bodies[name] = arm + pos[:, i, None, :]
            out.faces[name] = mesh.faces
            out.body_velocity[name] = vel[:, i, None, :] + np.cross(omega[:, i, None, :], arm)
        for path, node in self.spec["nodes"].items():
            p, r = pose.get(node["body"], pose["ground"])
            out.nodes[path] = p + r @ np.asarray(node["position"])
            out.node_axes[path] = r @ quat_to_matrix(np.asarray(node["orientation"]))
        for name in self.body_names:  # a bare body name: its COG frame
            out.nodes[name], out.node_axes[name] = pose[name]
        self._links(ds, out)
        self._forces(ds, out)
        self._surface(out)
        return out

    def _node(self, out: Frames, path: str) -> tuple[Array, Array]:
        if path in out.nodes:
            return out.nodes[path], out.node_axes[path]
        body = path.split(".")[0]
        return out.nodes.get(body, np.zeros((len(out.time), 3))), np.broadcast_to(
            np.eye(3), (len(out.time), 3, 3))

    def _links(self, ds: xr.Dataset, out: Frames) -> None:
        names = [str(n) for n in np.atleast_1d(ds["link"].values)] if "link" in ds.dims \
            else []
        power = ds["link_power"] if "link_power" in ds else None
        reach = 0.15 * self.size
        for name, link in self.spec["links"].items():
            a, axes = self._node(out, link["master"])
            b, _ = self._node(out, link["slave"])
            z = axes[:, :, 2]
            if link["type"] in SLIDING_LINKS:
                # the slot: the master's z axis from behind the master node to past the
                # slave node's place along it
                along = np.einsum("ti,ti->t", b - a, z)
                lo = np.minimum(along, 0.0) - 0.05 * self.size
                hi = np.maximum(along, 0.0) + 0.05 * self.size
                line = np.stack([a + lo[:, None] * z, a + hi[:, None] * z, b], axis=1)
            elif link["type"] in TURNING_LINKS:
                line = np.stack([a - reach * z, a + reach * z, b], axis=1)
            else:
                line = np.stack([a, b], axis=1)
            out.links[name] = line
            out.link_power[name] = (np.asarray(power.isel(link=names.index(name)).values)
                                    if power is not None and name in names else None)

    def _forces(self, ds: xr.Dataset, out: Frames) -> None:
        names = [str(n) for n in np.atleast_1d(ds["force"].values)] if "force" in ds.dims \
            else []
        for name, force in self.spec["forces"].items():
            params = force.get("params") or {}
            if force["type"] == "catenary_line":
                line, tension = self._catenary(ds, out, name, force)
            elif "master" in params and "slave" in params and len(force["nodes"]) >= 2:
                a, _ = self._node(out, force["nodes"][0])
                b, _ = self._node(out, force["nodes"][1])
                line = np.stack([a, b], axis=1)
                tension = None
                if "force_force" in ds and name in names:
                    f = np.asarray(ds["force_force"].isel(force=names.index(name)).values)
                    # signed: positive when the force pulls the first node towards the
                    # second (a line in tension)
                    tension = np.einsum("ti,ti->t", f, b - a) / np.maximum(
                        np.linalg.norm(b - a, axis=1), 1e-12)
            else:
                continue
            out.forces[name] = line
            out.force_tension[name] = tension
        self._node_lines(ds, out)

    def _node_lines(self, ds: xr.Dataset, out: Frames) -> None:
        """Lines whose nodes' positions a plugin writes: a variable ``<prefix>_node_
        position`` over (time, ..., node, xyz), one polyline per index of its other
        dimensions, NaN padding left out (MoorDyn's lines); coloured by
        ``<prefix>_fairlead_tension`` over (time, ...) when the results hold it."""
        nt = len(out.time)
        for var in ds.data_vars:
            name = str(var)
            dims = ds[var].dims
            if not name.endswith("_node_position") or len(dims) < 3 or dims[-1] != "xyz" \
                    or dims[0] != "time":
                continue
            prefix = name.removesuffix("_node_position")
            values = np.asarray(ds[var].values, dtype=float)
            lead = values.shape[1:-2]
            lines = values.reshape(nt, -1, values.shape[-2], 3)
            tension = None
            if f"{prefix}_fairlead_tension" in ds and ds[f"{prefix}_fairlead_tension"].dims \
                    == dims[:-2]:
                tension = np.asarray(ds[f"{prefix}_fairlead_tension"].values,
                                     dtype=float).reshape(nt, -1)
            for j, index in enumerate(np.ndindex(*lead)):
                line = lines[:, j]
                kept = ~np.isnan(line).any(axis=(0, 2))  # a node padded at every time
                if kept.sum() < 2:
                    continue
                labels = [str(ds[d].values[i]) if d in ds.coords else str(i)
                          for d, i in zip(dims[1:-2], index, strict=True)]
                key = f"{prefix} line {'/'.join(labels)}"
                out.forces[key] = line[:, kept]
                out.force_tension[key] = None if tension is None else tension[:, j]

    def _catenary(self, ds: xr.Dataset, out: Frames, name: str, force: Mapping[str, Any]
                  ) -> tuple[Array, Array | None]:
        """A catenary line's shape from its outputs: the laid part on the seabed from the
        anchor, then a catenary of parameter H/w to the fairlead (the drawing neglects
        the line's stretch)."""
        params = force["params"]
        fairlead, _ = self._node(out, force["nodes"][0])
        anchor = np.asarray(params["anchor"], dtype=float)
        nt = len(out.time)
        idx = self._plugin_index(ds, "catenary_line", name)
        horizontal = laid = tension = None
        if idx is not None:
            horizontal, laid, tension = (
                np.asarray(ds[f"catenary_line_{v}"].isel({ds[f"catenary_line_{v}"].dims[1]:
                                                          idx}).values, dtype=float)
                if f"catenary_line_{v}" in ds else None
                for v in ("horizontal_tension", "laid_length", "tension"))
        if horizontal is None:
            return np.stack([np.broadcast_to(anchor, (nt, 3)), fairlead], axis=1), tension
        s = np.linspace(0.0, 1.0, CATENARY_POINTS)
        lines = np.empty((nt, CATENARY_POINTS + 1, 3))
        for k in range(nt):
            span = fairlead[k, :2] - anchor[:2]
            d = float(np.linalg.norm(span))
            u = span / d if d > 0 else np.array([1.0, 0.0])
            a = max(float(horizontal[k]), 1e-9) / float(params["weight"])
            lb = float(laid[k]) if laid is not None else 0.0
            dx = max(d - lb, 1e-9)
            dz = fairlead[k, 2] - anchor[2]
            # a catenary through both ends: x from the touchdown when it rests on the
            # seabed, else its vertex offset solved from the two heights
            x0 = 0.0 if lb > 0 else _vertex(dx, dz, a)
            x = x0 + s * dx
            z = a * (np.cosh(x / a) - np.cosh(x0 / a))
            z *= dz / z[-1] if abs(z[-1]) > 1e-12 else 1.0
            lines[k, 0] = anchor
            lines[k, 1:, :2] = anchor[:2] + (lb + s * dx)[:, None] * u
            lines[k, 1:, 2] = anchor[2] + z
        return lines, tension

    def _plugin_index(self, ds: xr.Dataset, prefix: str, name: str) -> int | None:
        """Index of force ``name`` along a plugin variable's own dimension."""
        for var in ds.data_vars:
            if str(var).startswith(prefix) and len(ds[var].dims) == 2:
                dim = ds[var].dims[1]
                names = [str(n) for n in np.atleast_1d(ds[dim].values)] \
                    if dim in ds.coords else []
                return names.index(name) if name in names else None
        return None

    def _surface(self, out: Frames) -> None:
        if self._environment is None:
            return
        centre = self._sea_centre()
        half = 0.75 * self.size
        x = np.linspace(centre[0] - half, centre[0] + half, SURFACE_POINTS)
        y = np.linspace(centre[1] - half, centre[1] + half, SURFACE_POINTS)
        gx, gy = np.meshgrid(x, y)
        xy = np.column_stack([gx.ravel(), gy.ravel()])
        out.surface = np.stack([self._environment.waves.elevation(xy, float(t)).reshape(gx.shape)
                                for t in out.time])
        out.surface_x, out.surface_y = x, y

    def _sea_centre(self) -> Array:
        """Centre of the free surface's grid: the middle of the bodies' meshes at the
        results' first sample. The same for every call of :meth:`frames` (it was the
        middle over the times asked for, so the grid moved from one chunk of an export
        or animation to the next, and no two chunks' points agreed)."""
        if self._centre is None:
            first = self.ds.isel(time=0)
            pos = np.asarray(first["body_position"].values, dtype=float).reshape(-1, 3)
            rot = quat_to_matrix(np.asarray(first["body_orientation"].values,
                                            dtype=float).reshape(-1, 4))
            middles = [rot[i] @ self.meshes[name].points.mean(axis=0) + pos[i]
                       for i, name in enumerate(self.body_names)]
            self._centre = np.mean(middles or [np.zeros(3)], axis=0)
        return self._centre


def _vertex(dx: float, dz: float, a: float) -> float:
    """Horizontal position x0 of the start of a catenary ``z = a (cosh(x/a) -
    cosh(x0/a))`` that rises ``dz`` over ``dx`` (the line clear of the seabed)."""
    # z(dx) - dz = 2 a sinh((2 x0 + dx) / 2a) sinh(dx / 2a) - dz = 0
    half = min(dx / (2.0 * a), 700.0)  # beyond, sinh overflows: a taut straight line
    k = dz / (2.0 * a * math.sinh(half)) if half > 0 else 0.0
    return a * math.asinh(k) - dx / 2.0


def _optional(ds: xr.Dataset, name: str, shape: tuple[int, ...]) -> Array:
    return (np.asarray(ds[name].values, dtype=float).reshape(shape) if name in ds
            else np.zeros(shape))


__all__ = ["Frames", "Mesh", "Scene", "SceneError"]
