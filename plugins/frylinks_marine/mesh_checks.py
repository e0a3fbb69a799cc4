"""Whether a panel mesh bounds a volume: closed, manifold, consistently oriented, normals
outward. The wetted-surface integrals (:mod:`frylinks_marine.wetted`) close the wetted
part by the waterplane through the divergence theorem, which holds only for such a mesh.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.params import shown

#: How many offending edges a message shows.
SHOWN = 3


def _polygon_edges(faces: np.ndarray) -> np.ndarray:
    """Directed edges (a, b) of every panel, (ne, 2), a panel's repeated corner (a
    triangle stored as a quad) and so zero-length edges left out."""
    faces = np.asarray(faces, dtype=np.int64)
    edges = np.stack([faces, np.roll(faces, -1, axis=1)], axis=2).reshape(-1, 2)
    return edges[edges[:, 0] != edges[:, 1]]


def _merged(points: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coincident points (to 1e-9 of the mesh's size) made one: a latitude-longitude
    sphere repeats its poles, a mesh file a point per panel; what is checked is whether
    the panels close a surface, not how its points are numbered."""
    size = float(np.ptp(points, axis=0).max()) if len(points) else 1.0
    key = np.round(points / (size or 1.0), 9)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return points[first], inverse.reshape(-1)[faces]


def signed_volume(points: np.ndarray, faces: np.ndarray) -> float:
    """Volume enclosed by the panels, positive when their normals (counter-clockwise
    corners) point outward: the sum of the tetrahedra from the origin [m3]."""
    p = np.asarray(points, dtype=float)
    f = np.asarray(faces, dtype=np.int64)
    total = 0.0
    for a, b, c in ((0, 1, 2), (0, 2, 3)):
        total += float(np.einsum("ij,ij->i", p[f[:, a]],
                                 np.cross(p[f[:, b]], p[f[:, c]])).sum())
    return total / 6.0


def mesh_problems(points: np.ndarray, faces: np.ndarray) -> list[str]:
    """What keeps a mesh from bounding a volume, one sentence each (empty: none).

    Parameters
    ----------
    points : (nv, 3)
        Vertices [m].
    faces : (nf, 4) int
        Vertex indices of each panel (a triangle repeats its last index).

    Returns
    -------
    list of str
        Open edges (the mesh is not closed), edges shared by more than two panels (not
        manifold), edges run the same way by both their panels (orientation
        inconsistent), a negative enclosed volume (normals inward) or a zero one.
    """
    p, faces = _merged(np.asarray(points, dtype=float), np.asarray(faces, dtype=np.int64))
    edges = _polygon_edges(faces)
    key = np.sort(edges, axis=1)
    undirected, inverse, count = np.unique(key, axis=0, return_inverse=True,
                                           return_counts=True)
    inverse = inverse.reshape(-1)
    problems = []

    def where(rows: np.ndarray) -> str:
        shown = ", ".join(f"{a}-{b} at ({', '.join(f'{v:.3g}' for v in p[a])})"
                          for a, b in undirected[rows[:SHOWN]])
        return shown + (", ..." if len(rows) > SHOWN else "")

    open_edges = np.flatnonzero(count == 1)
    if len(open_edges):
        levels = np.unique(np.round(p[undirected[open_edges].ravel(), 2], 6))
        # a BEM code's mesh of the wetted hull alone is open along its waterline
        hint = (f"; all at z = {levels[0]:g}: a mesh of the wetted hull alone, open along "
                "its waterline, where hydrostatics needs the whole hull"
                if len(levels) == 1 else "")
        problems.append(f"not closed: {len(open_edges)} edges belong to one panel only "
                        f"(points {where(open_edges)}{hint})")
    many = np.flatnonzero(count > 2)
    if len(many):
        problems.append(f"not manifold: {len(many)} edges are shared by more than two "
                        f"panels (points {where(many)})")
    # a consistently oriented closed surface runs each shared edge once each way: the
    # sum of +1 (a < b) and -1 (a > b) over its uses is 0
    way = np.where(edges[:, 0] < edges[:, 1], 1, -1)
    balance = np.bincount(inverse, weights=way, minlength=len(undirected))
    flipped = np.flatnonzero((count == 2) & (balance != 0))
    if len(flipped):
        problems.append(f"inconsistently oriented: {len(flipped)} edges are run the same "
                        f"way by both their panels (points {where(flipped)})")
    if not problems:
        volume = signed_volume(p, np.asarray(faces))
        size = float(np.ptp(p, axis=0).max()) if len(p) else 0.0
        if volume < 0.0:
            problems.append(f"normals point inward (enclosed volume {volume:.6g} m3 < 0): "
                            "reverse the panels' corner order")
        elif volume <= 1e-12 * size ** 3:
            problems.append("encloses no volume")
    return problems


__all__ = ["mesh_problems", "signed_volume"]


def mesh_arrays(value: Any, where: str) -> tuple[np.ndarray, np.ndarray]:
    """``(points (nv, 3), faces (nf, 4))`` of a mesh object (``points``, ``faces``) or
    pair; ModelError at key ``where`` for anything else."""
    if hasattr(value, "points") and hasattr(value, "faces"):
        points, faces = value.points, value.faces
    elif isinstance(value, Sequence) and len(value) == 2:
        points, faces = value
    else:
        raise ModelError(f"expected a mesh (points, faces), got {shown(value)}", where)
    p = np.ascontiguousarray(points, dtype=float)
    f = np.asarray(faces, dtype=np.int64)
    if f.ndim == 2 and f.shape[1] == 3:
        f = np.column_stack([f, f[:, 2]])
    if p.ndim != 2 or p.shape[1] != 3 or f.ndim != 2 or f.shape[1] != 4 or len(f) == 0 \
            or f.min() < 0 or f.max() >= len(p):
        raise ModelError("expected points (nv, 3) and faces (nf, 3 or 4) indexing them", where)
    return p, np.ascontiguousarray(f)
