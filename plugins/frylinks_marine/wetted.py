"""The wetted surface of a panel mesh: each panel cut at the free surface and the
pressure, area and volume integrals of its wetted part, compiled.

The mesh is a vertex array ``points`` (nv, 3) in world coordinates and a face array
``faces`` (nf, 4) of vertex indices, counter-clockwise seen from outside (outward
normals); a triangle repeats its last index, as :class:`frylinks.model.geometry.Mesh`
stores it. The free surface is given by its elevation ``eta`` (nv,) above each vertex, so
a wave surface serves as well as the still-water plane. A quad is split into the
triangles (0, 1, 2) and (0, 2, 3); each triangle is cut where ``z - eta`` (linear over it:
the panel's linear interpolation of the surface) changes sign, and its part with
``z <= eta`` is integrated exactly: every integrand is a product of at most two fields
linear over the triangle.

:func:`wetted_integrals` is a kernel under the rules of :mod:`frylinks.jit` (it allocates
nothing, raises nothing, its temporaries on the stack), so a per-step force can call it
with room it made once: the body-frame mesh posed by :func:`posed_points` into a
``(nv, 3)`` array, the surface elevation and any further pressure (Froude-Krylov) into
``(nv,)`` arrays, and the sums into an ``(NOUT,)`` array.
"""

from __future__ import annotations

import math

import numpy as np

from frylinks.jit import alive, helper, kernel, scratch, scratch2

# The sums :func:`wetted_integrals` writes, by index into its ``out`` (NOUT,).
#: pressure force -int p n dA [N] (3)
FORCE = 0
#: its moment about the reference point [N m] (3)
MOMENT = 3
#: wetted area [m2]
AREA = 6
#: volume under the surface, int (z - eta) n_z dA over the wetted part [m3]
VOLUME = 7
#: first moments of that volume, int x dV, int y dV, int z dV [m4] (3)
VOLUME_MOMENT = 8
#: waterplane area [m2] (the still-water plane only: a horizontal ``eta``)
WATERPLANE = 11
#: its first moments int x dA, int y dA [m3] (2)
WATERPLANE_MOMENT = 12
#: its second moments int x^2 dA, int y^2 dA, int x y dA [m4] (3)
WATERPLANE_SECOND = 14
#: length of ``out``
NOUT = 17


@helper
def _pair(a: np.ndarray, b: np.ndarray) -> float:
    """12/A times the integral of the product of two fields linear over a triangle,
    given at its corners: ``sum a_i b_i + sum a sum b`` (exact)."""
    return (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
            + (a[0] + a[1] + a[2]) * (b[0] + b[1] + b[2]))


@helper
def _add_triangle(x: np.ndarray, d: np.ndarray, p: np.ndarray, s: np.ndarray,
                  ref: np.ndarray, col: np.ndarray, col2: np.ndarray,
                  out: np.ndarray) -> None:
    """Add a wholly wetted triangle's integrals to ``out``.

    ``x`` (3, 3) its corners (rows), ``d = z - eta``, ``p`` the pressure and
    ``s = z + eta`` at them; ``col``, ``col2`` (3,) room for a field at the corners.
    """
    e1x, e1y, e1z = x[1, 0] - x[0, 0], x[1, 1] - x[0, 1], x[1, 2] - x[0, 2]
    e2x, e2y, e2z = x[2, 0] - x[0, 0], x[2, 1] - x[0, 1], x[2, 2] - x[0, 2]
    # area vector A n (outward normal times area)
    ax = 0.5 * (e1y * e2z - e1z * e2y)
    ay = 0.5 * (e1z * e2x - e1x * e2z)
    az = 0.5 * (e1x * e2y - e1y * e2x)
    out[AREA] += math.sqrt(ax * ax + ay * ay + az * az)
    pm = (p[0] + p[1] + p[2]) / 3.0
    out[FORCE] -= pm * ax
    out[FORCE + 1] -= pm * ay
    out[FORCE + 2] -= pm * az
    # int p (x - ref) dA = A q: the moment -int (x - ref) x p n dA = -q x (A n)
    for k in range(3):
        col[k] = x[k, 0] - ref[0]
    qx = _pair(p, col) / 12.0
    for k in range(3):
        col[k] = x[k, 1] - ref[1]
    qy = _pair(p, col) / 12.0
    for k in range(3):
        col[k] = x[k, 2] - ref[2]
    qz = _pair(p, col) / 12.0
    out[MOMENT] -= qy * az - qz * ay
    out[MOMENT + 1] -= qz * ax - qx * az
    out[MOMENT + 2] -= qx * ay - qy * ax
    # divergence theorem with fields that vanish on the free surface, so the cut needs
    # no lid: div((z - eta) e_z) = 1, div(x (z - eta) e_z) = x,
    # div((z^2 - eta^2)/2 e_z) = z (eta depends on x, y only)
    out[VOLUME] += az * (d[0] + d[1] + d[2]) / 3.0
    for i in range(2):
        for k in range(3):
            col[k] = x[k, i]
        out[VOLUME_MOMENT + i] += az * _pair(col, d) / 12.0
    out[VOLUME_MOMENT + 2] += az * 0.5 * _pair(d, s) / 12.0
    # the waterplane closes the wetted surface: its integrals of 1, x, y, x^2, y^2, xy
    # are minus those of n_z times them over the wetted part (div(f e_z) = 0 for f(x, y))
    out[WATERPLANE] -= az
    for i in range(2):
        for k in range(3):
            col[k] = x[k, i]
        out[WATERPLANE_MOMENT + i] -= az * (col[0] + col[1] + col[2]) / 3.0
        out[WATERPLANE_SECOND + i] -= az * _pair(col, col) / 12.0
    for k in range(3):
        col[k] = x[k, 0]
        col2[k] = x[k, 1]
    out[WATERPLANE_SECOND + 2] -= az * _pair(col, col2) / 12.0
    alive(x)
    alive(d)
    alive(p)
    alive(s)
    alive(ref)
    alive(col)
    alive(col2)
    alive(out)


@kernel
def wetted_integrals(points: np.ndarray, faces: np.ndarray, eta: np.ndarray,
                     pressure: np.ndarray, rho: float, g: float, ref: np.ndarray,
                     out: np.ndarray) -> None:
    """Integrals over the wetted part of a closed panel mesh (exact on its panels).

    Parameters
    ----------
    points : (nv, 3)
        Vertices in world coordinates [m] (z up).
    faces : (nf, 4) int
        Vertex indices of each panel, counter-clockwise seen from outside; a triangle
        repeats its last index.
    eta : (nv,)
        Free-surface elevation above each vertex [m] (0: the still-water plane).
    pressure : (nv,)
        A pressure added to the hydrostatic ``rho g (eta - z)`` at each vertex [Pa]
        (the incident wave's dynamic pressure; zeros for hydrostatics), interpolated
        along an edge where the panel is cut.
    rho, g
        Water density [kg m-3] and gravity [m s-2].
    ref : (3,)
        Point the moment is taken about [m].
    out : (NOUT,)
        Filled with the sums indexed by :data:`FORCE`, :data:`MOMENT`, :data:`AREA`,
        :data:`VOLUME`, :data:`VOLUME_MOMENT`, :data:`WATERPLANE`,
        :data:`WATERPLANE_MOMENT`, :data:`WATERPLANE_SECOND`. The volume and its moments
        hold for any surface (the volume under the panels' linear surface); the
        waterplane's integrals only for a horizontal one.
    """
    for k in range(out.shape[0]):
        out[k] = 0.0
    tx = scratch2(3, 3)     # a triangle of the mesh
    td = scratch(3)
    tp = scratch(3)
    ts = scratch(3)
    cx = scratch2(4, 3)     # its wetted part (a cut triangle: 3 or 4 corners)
    cd = scratch(4)
    cp = scratch(4)
    cs = scratch(4)
    fx = scratch2(3, 3)     # a triangle of that part's fan
    fd = scratch(3)
    fp = scratch(3)
    fs = scratch(3)
    col = scratch(3)
    col2 = scratch(3)
    for f in range(faces.shape[0]):
        n_tri = 1 if faces[f, 3] == faces[f, 2] or faces[f, 3] == faces[f, 0] else 2
        for t in range(n_tri):
            n_wet = 0
            for k in range(3):
                v = faces[f, 0] if k == 0 else faces[f, k + t]
                for i in range(3):
                    tx[k, i] = points[v, i]
                td[k] = points[v, 2] - eta[v]
                tp[k] = -rho * g * td[k] + pressure[v]
                ts[k] = points[v, 2] + eta[v]
                if td[k] <= 0.0:
                    n_wet += 1
            if n_wet == 3:
                _add_triangle(tx, td, tp, ts, ref, col, col2, out)
            elif n_wet > 0:
                # Sutherland-Hodgman against d <= 0: a corner on the surface (d = 0) is
                # kept and makes no cut point, so a panel touching the surface at a
                # corner or along an edge gives no sliver
                n = 0
                for k in range(3):
                    j = (k + 1) % 3
                    if td[k] <= 0.0:
                        for i in range(3):
                            cx[n, i] = tx[k, i]
                        cd[n] = td[k]
                        cp[n] = tp[k]
                        cs[n] = ts[k]
                        n += 1
                    if (td[k] < 0.0 < td[j]) or (td[j] < 0.0 < td[k]):
                        w = td[k] / (td[k] - td[j])
                        for i in range(3):
                            cx[n, i] = tx[k, i] + w * (tx[j, i] - tx[k, i])
                        cd[n] = 0.0
                        cp[n] = tp[k] + w * (tp[j] - tp[k])
                        cs[n] = ts[k] + w * (ts[j] - ts[k])
                        n += 1
                for m in range(1, n - 1):
                    for k in range(3):
                        c = 0 if k == 0 else m + k - 1
                        for i in range(3):
                            fx[k, i] = cx[c, i]
                        fd[k] = cd[c]
                        fp[k] = cp[c]
                        fs[k] = cs[c]
                    _add_triangle(fx, fd, fp, fs, ref, col, col2, out)
    alive(points)
    alive(faces)
    alive(eta)
    alive(pressure)
    alive(ref)
    alive(out)


@kernel
def posed_points(local: np.ndarray, R: np.ndarray, position: np.ndarray,
                 out: np.ndarray) -> None:
    """World coordinates of body-frame vertices: ``out = position + R local``.

    Parameters
    ----------
    local : (nv, 3)
        Vertices in body axes about the body's reference point [m].
    R : (3, 3)
        Body axes -> world rotation.
    position : (3,)
        The reference point in the world [m].
    out : (nv, 3)
        Room for the world vertices.
    """
    for v in range(local.shape[0]):
        for i in range(3):
            out[v, i] = (position[i] + R[i, 0] * local[v, 0] + R[i, 1] * local[v, 1]
                         + R[i, 2] * local[v, 2])
    alive(local)
    alive(R)
    alive(position)
    alive(out)


__all__ = ["AREA", "FORCE", "MOMENT", "NOUT", "VOLUME", "VOLUME_MOMENT", "WATERPLANE",
           "WATERPLANE_MOMENT", "WATERPLANE_SECOND", "posed_points", "wetted_integrals"]
