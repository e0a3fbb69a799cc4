"""Body geometry: a body's ``geometry`` key (a mesh file or a simple shape), meshes, and
what a drawing of a model needs (:func:`scene_spec`).

A body's ``geometry`` in a case file (optional) is a mesh file or a simple shape::

    geometry: {mesh: ../geometry/rm3_float.dat, position: [0, 0, 0.72]}
    geometry: {shape: cylinder, radius: 5.0, height: 4.0}
    geometry: {shape: box, size: [4, 2, 1]}
    geometry: {shape: sphere, radius: 5.0}

``position`` and ``orientation`` place the geometry's own frame in body axes relative to
the COG (a Nemoh mesh is usually drawn about the still-water level, so its ``position``
is minus the COG's); ``scale`` multiplies a mesh's coordinates. A body without geometry
is drawn as a small sphere at its COG.

The results file carries what a drawing needs in its attribute ``scene`` (JSON written
by :func:`scene_spec` at the start of a run): each body's geometry with its mesh file made
absolute, then relative to the results file's folder where the run writes one
(:func:`relative_scene`: a results file moved with its meshes, to another machine, keeps
its geometry), every node's body, position and orientation, each link's type and node pair,
each force's type, nodes and the parameters that place it, and the system settings (the
sea). The ``case`` attribute keeps the text as the user wrote it; ``scene`` is the model
as the run read it, so a model built in Python is drawn as well as one from a file.
:mod:`frylinks.views.scene` draws from it.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.errors import FrylinksError, ModelError
from frylinks.model.orientation import parse_orientation
from frylinks.params import as_float, as_path, as_vector, check_keys, shown
from frylinks.rotations import quat_to_matrix

if TYPE_CHECKING:

    from frylinks.model.system import System

Array = np.ndarray

#: Keys of each simple shape besides ``shape``, ``position`` and ``orientation``.
SHAPES: dict[str, tuple[str, ...]] = {"box": ("size",), "cylinder": ("radius", "height"),
                                      "sphere": ("radius",)}
PLACEMENT = ("position", "orientation")
MESH_KEYS = ("mesh", "scale", *PLACEMENT)


class SceneError(FrylinksError):
    """A mesh that cannot be read, or a results file that cannot be drawn (no such
    variable, a mesh file missing)."""


def parse_geometry(value: Any, path: str) -> dict[str, Any] | None:
    """A body's ``geometry`` checked and made self-contained (mesh path absolute).

    Parameters
    ----------
    value
        None, ``{mesh: FILE, scale, position, orientation}`` or ``{shape: box | cylinder
        | sphere, <sizes>, position, orientation}``.
    path
        Key path of the value (``bodies.float.geometry``), for messages.

    Returns
    -------
    dict or None
        JSON-able: ``mesh`` (absolute path) or ``shape`` with its sizes, ``position``
        [m] and ``orientation`` (quaternion w x y z).

    Raises
    ------
    ModelError
        For an unknown shape, a missing or negative size, or a mesh file that does not
        exist or cannot be read, naming the key and the file.
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ModelError(f"expected {{mesh: FILE}} or {{shape: {' | '.join(SHAPES)}, ...}}, "
                         f"got {shown(value)}", path)
    out: dict[str, Any] = {
        "position": as_vector(value.get("position", (0.0, 0.0, 0.0)),
                              f"{path}.position").tolist(),
        "orientation": parse_orientation(value.get("orientation"),
                                         f"{path}.orientation").tolist()}
    if "mesh" in value:
        check_keys(value, MESH_KEYS, path)
        mesh = as_path(value["mesh"], f"{path}.mesh")
        out["mesh"] = str(mesh)
        out["scale"] = as_float(value.get("scale", 1.0), f"{path}.scale", positive=True)
        try:
            load_mesh(str(mesh))
        except SceneError as exc:
            raise ModelError(str(exc), f"{path}.mesh") from None
        return out
    shape = value.get("shape")
    if shape not in SHAPES:
        raise ModelError(f"unknown shape {shown(shape)}; known: {', '.join(SHAPES)} (or "
                         "a mesh file: {mesh: FILE})", f"{path}.shape" if "shape" in value
                         else path)
    check_keys(value, ("shape", *SHAPES[shape], *PLACEMENT), path)
    out["shape"] = shape
    for key in SHAPES[shape]:
        if key not in value:
            raise ModelError(f"a {shape} needs '{key}' ({', '.join(SHAPES[shape])})",
                             f"{path}.{key}")
        if key == "size":
            size = as_vector(value[key], f"{path}.size")
            if np.any(size <= 0):
                raise ModelError(f"sizes must be > 0 m, got {size.tolist()}", f"{path}.size")
            out[key] = size.tolist()
        else:
            out[key] = as_float(value[key], f"{path}.{key}", "m", positive=True)
    return out


# ---------------------------------------------------------------------------- meshes

@dataclass(frozen=True)
class Mesh:
    """Surface polygons: ``points`` (n, 3) and ``faces`` (m, 3) or (m, 4) point indices
    (a triangle in a quad block repeats its last point)."""

    points: Array
    faces: Array


def _nemoh(path: Path) -> Mesh:
    """A Nemoh ``.dat`` mesh: header ``2 isym``, nodes ``id x y z`` to a ``0`` line,
    quads ``a b c d`` (1-based) to ``0 0 0 0``; ``isym = 1`` stores the half y >= 0,
    mirrored here about the xz plane."""
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    isym = int(rows[0][1])
    end = next(i for i in range(1, len(rows)) if int(float(rows[i][0])) == 0)
    points = np.array([[float(v) for v in r[1:4]] for r in rows[1:end]])
    faces = []
    for r in rows[end + 1:]:
        quad = [int(v) for v in r[:4]]
        if not any(quad):
            break
        faces.append(quad)
    quads = np.array(faces, dtype=np.int64) - 1
    if isym == 1:
        mirror = points * [1.0, -1.0, 1.0]
        # reversed order keeps the panels' normals pointing out of the mirrored half
        quads = np.vstack([quads, quads[:, ::-1] + len(points)])
        points = np.vstack([points, mirror])
    return merged(Mesh(points, quads))


def merged(mesh: Mesh, decimals: int = 6) -> Mesh:
    """The mesh with coincident points made one (Nemoh files repeat a point for each
    panel, and mirroring repeats the symmetry plane's): half the points to draw and
    export for RM3's meshes."""
    unique, inverse = np.unique(mesh.points.round(decimals), axis=0, return_inverse=True)
    return Mesh(unique, inverse.reshape(-1)[mesh.faces])


@functools.lru_cache(maxsize=16)
def load_mesh(path: str) -> Mesh:
    """Read a mesh file: Nemoh ``.dat``, or any format meshio reads (STL, OBJ, VTK, ...).

    Raises
    ------
    SceneError
        Naming the file when it is missing, unreadable or holds no surface polygons.
    """
    file = Path(path)
    if not file.is_file():
        raise SceneError(f"mesh file '{file}' not found")
    try:
        if file.suffix.lower() == ".dat":
            return _nemoh(file)
        import meshio

        mesh = meshio.read(file)
    except Exception as exc:  # any reader's failure is the file's problem
        raise SceneError(f"cannot read mesh file '{file}': {exc}") from None
    blocks = []
    for cells in mesh.cells:
        if cells.type == "triangle":
            blocks.append(np.column_stack([cells.data, cells.data[:, 2]]))
        elif cells.type == "quad":
            blocks.append(cells.data)
    if not blocks:
        raise SceneError(f"mesh file '{file}' holds no triangles or quads")
    return merged(Mesh(np.asarray(mesh.points, dtype=float)[:, :3], np.vstack(blocks)))


def shape_mesh(spec: Mapping[str, Any], resolution: int = 24) -> Mesh:
    """Quads of a simple shape about its own frame (a cylinder's axis is z)."""
    shape = spec["shape"]
    if shape == "box":
        half = np.asarray(spec["size"]) / 2.0
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
        faces = np.array([[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6],
                          [0, 2, 6, 4], [1, 5, 7, 3]])
        return Mesh(corners * half, faces)
    n = resolution
    theta = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    if shape == "cylinder":
        r, h = spec["radius"], spec["height"] / 2.0
        ring = np.column_stack([r * np.cos(theta), r * np.sin(theta)])
        points = np.vstack([np.column_stack([ring, np.full(n, -h)]),
                            np.column_stack([ring, np.full(n, h)]),
                            [[0.0, 0.0, -h], [0.0, 0.0, h]]])
        i = np.arange(n)
        j = (i + 1) % n
        side = np.column_stack([i, j, j + n, i + n])
        bottom = np.column_stack([np.full(n, 2 * n), j, i, i])
        top = np.column_stack([np.full(n, 2 * n + 1), i + n, j + n, j + n])
        return Mesh(points, np.vstack([side, bottom, top]))
    # sphere: latitude-longitude quads
    m = n // 2
    phi = np.linspace(0.0, np.pi, m + 1)
    r = spec["radius"]
    points = np.array([[r * np.sin(p) * np.cos(t), r * np.sin(p) * np.sin(t), r * np.cos(p)]
                       for p in phi for t in theta])
    faces = np.array([[a * n + b, (a + 1) * n + b, (a + 1) * n + (b + 1) % n,
                       a * n + (b + 1) % n] for a in range(m) for b in range(n)])
    return Mesh(points, faces)


def body_mesh(spec: Mapping[str, Any] | None, default_radius: float,
              resolution: int = 24) -> Mesh:
    """A body's mesh in body axes (about its COG): its geometry placed by its
    ``position``/``orientation``, or a small sphere when it has none; a shape's
    ``resolution`` as :func:`shape_mesh` (24 draws; hydrostatics needs finer)."""
    if spec is None:
        return shape_mesh({"shape": "sphere", "radius": default_radius}, resolution=12)
    if "mesh" in spec:
        raw = load_mesh(spec["mesh"])
        mesh = Mesh(raw.points * spec.get("scale", 1.0), raw.faces)
    else:
        mesh = shape_mesh(spec, resolution)
    rot = quat_to_matrix(np.asarray(spec.get("orientation", (1.0, 0, 0, 0)), dtype=float))
    return Mesh(mesh.points @ rot.T + np.asarray(spec.get("position", (0.0, 0, 0))),
                mesh.faces)


# ---------------------------------------------------------------------- scene spec

def _jsonable(value: Any) -> Any:
    """Numbers, text and lists of them; None for what a drawing cannot use (signals,
    callables)."""
    if isinstance(value, str | bool | int | float) or value is None:
        return value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
        return value.tolist()
    if isinstance(value, list | tuple):
        items = [_jsonable(v) for v in value]
        return items
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return None


def _node_path(node: Any) -> str:
    return node.body.name if not node.name else node.path


def scene_spec(system: System) -> dict[str, Any]:
    """What a drawing of ``system`` needs, JSON-able (the results' ``scene`` attribute)."""
    nodes: dict[str, Any] = {}
    for body in [system.ground, *system.bodies.values()]:
        for node in body.nodes.values():
            nodes[node.path] = {"body": "ground" if body.is_ground else body.name,
                                "position": node.position.tolist(),
                                "orientation": node.orientation.tolist()}
    return {
        "version": 1,
        "bodies": {name: getattr(b, "geometry", None) for name, b in system.bodies.items()},
        "nodes": nodes,
        "links": {name: {"type": link.type, "master": _node_path(link.master),
                         "slave": _node_path(link.slave)}
                  for name, link in system.links.items()},
        "forces": {name: {"type": f.type, "nodes": [_node_path(n) for n in f.nodes],
                          "params": _jsonable(f.params)}
                   for name, f in system.forces.items()},
        "settings": _jsonable(system.settings),
    }


def relative_scene(scene: str, folder: Path) -> str:
    """The ``scene`` JSON text with each mesh path made relative to ``folder`` (the
    results file's), its absolute path kept as ``mesh_absolute`` (what
    :func:`resolve_meshes` falls back on when the relative one leads nowhere)."""
    spec = json.loads(scene)
    for geometry in spec.get("bodies", {}).values():
        if geometry and "mesh" in geometry and Path(geometry["mesh"]).is_absolute():
            geometry["mesh_absolute"] = geometry["mesh"]
            geometry["mesh"] = os.path.relpath(geometry["mesh"], Path(folder).resolve())
    return json.dumps(spec)


def resolve_meshes(spec: dict[str, Any], folder: Path | None) -> None:
    """Make the mesh paths of a ``scene`` spec usable here, in place: a relative one is
    read from ``folder`` (the results file's; the working folder when None), or from its
    ``mesh_absolute`` when not found there."""
    for geometry in spec.get("bodies", {}).values():
        if not geometry or "mesh" not in geometry or Path(geometry["mesh"]).is_absolute():
            continue
        here = (folder or Path.cwd()) / geometry["mesh"]
        if here.is_file() or "mesh_absolute" not in geometry:
            geometry["mesh"] = str(here)
        else:
            geometry["mesh"] = geometry["mesh_absolute"]


__all__ = ["Mesh", "SceneError", "body_mesh", "load_mesh", "merged", "parse_geometry",
           "relative_scene", "resolve_meshes", "scene_spec", "shape_mesh"]
