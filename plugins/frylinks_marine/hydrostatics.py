"""Hydrostatics from a body's geometry: displaced volume, centre of buoyancy, waterplane,
the 6x6 hydrostatic stiffness, metacentric heights and the righting-arm curve GZ(heel),
all from the panel mesh cut at the still-water plane z = 0 (:mod:`frylinks_marine.wetted`).

The functions take plain arrays (a mesh in world coordinates, the mass and COG), so the
command line and a later force can call them with a body's mesh however it was read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq

from frylinks.errors import FrylinksError

from . import wetted as W
from .mesh_checks import mesh_problems

Array = np.ndarray


class HydrostaticsError(FrylinksError):
    """A mesh that does not bound a volume, or a body that cannot float."""


@dataclass(frozen=True)
class WettedPart:
    """Integrals over the part of a mesh under the still-water plane z = 0."""

    #: pressure force [N] (3,) and its moment about the reference point [N m] (3,)
    force: Array
    moment: Array
    #: wetted area [m2], displaced volume [m3], centre of buoyancy [m] (3,)
    wetted_area: float
    volume: float
    buoyancy_centre: Array
    #: waterplane area [m2], centre of flotation (x, y) [m], and the waterplane's
    #: integrals of x^2, y^2 and x y [m4] (about the world origin)
    waterplane_area: float
    flotation_centre: Array
    waterplane_second: Array


def wetted_part(points: Array, faces: Array, rho: float = 1025.0, g: float = 9.81,
                ref: Array | None = None) -> WettedPart:
    """The integrals of :func:`frylinks_marine.wetted.wetted_integrals` at still water.

    Parameters
    ----------
    points : (nv, 3)
        Vertices in world coordinates [m].
    faces : (nf, 4) int
        Panels, outward normals (a triangle repeats its last index).
    rho, g
        Water density [kg m-3], gravity [m s-2].
    ref : (3,), optional
        Point of the moment (default: the origin) [m].
    """
    pts = np.ascontiguousarray(points, dtype=float)
    out = np.zeros(W.NOUT)
    W.wetted_integrals(pts, np.ascontiguousarray(faces, dtype=np.int64),
                       np.zeros(len(pts)), np.zeros(len(pts)), float(rho), float(g),
                       np.zeros(3) if ref is None else np.asarray(ref, dtype=float), out)
    volume = out[W.VOLUME]
    wp = out[W.WATERPLANE]
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = out[W.VOLUME_MOMENT:W.VOLUME_MOMENT + 3] / volume
        flotation = out[W.WATERPLANE_MOMENT:W.WATERPLANE_MOMENT + 2] / wp
    return WettedPart(out[W.FORCE:W.FORCE + 3].copy(), out[W.MOMENT:W.MOMENT + 3].copy(),
                      float(out[W.AREA]), float(volume), centre, float(wp), flotation,
                      out[W.WATERPLANE_SECOND:W.WATERPLANE_SECOND + 3].copy())


@dataclass(frozen=True)
class Hydrostatics:
    """A floating body's hydrostatics at one pose (still water at z = 0)."""

    #: the :class:`WettedPart` at that pose
    wetted: WettedPart
    #: body mass [kg], COG [m] (3,), water density, gravity
    mass: float
    cog: Array
    rho: float
    g: float
    #: point the stiffness is taken about [m] (3,)
    ref: Array
    #: 6x6 hydrostatic and gravity stiffness about ``ref`` [N m-1, N, N m rad-1]
    stiffness: Array
    #: waterplane moments of inertia about the centre of flotation, transverse (about x)
    #: and longitudinal (about y) [m4]
    inertia_transverse: float
    inertia_longitudinal: float
    #: metacentric radii BM and heights GM, transverse and longitudinal [m]
    bm_transverse: float
    bm_longitudinal: float
    gm_transverse: float
    gm_longitudinal: float


def stiffness_matrix(part: WettedPart, mass: float, cog: Array, rho: float, g: float,
                     ref: Array) -> Array:
    """The 6x6 hydrostatic stiffness about ``ref``: buoyancy's (waterplane and centre of
    buoyancy) and gravity's (the COG's height, for rotations) parts.

    The heave, roll and pitch block is symmetric; (roll, yaw) and (pitch, yaw) carry the
    horizontal offsets of B and G from ``ref`` (zero at equilibrium with ``ref`` on the
    vertical through them), as in WAMIT's and Capytaine's convention.
    """
    xr, yr, zr = np.asarray(ref, dtype=float)
    xg, yg, zg = np.asarray(cog, dtype=float)
    xb, yb, zb = part.buoyancy_centre
    a = part.waterplane_area
    sx, sy = part.flotation_centre * a
    sxx, syy, sxy = part.waterplane_second
    # waterplane integrals about ref: int (x - xr)^2 = sxx - 2 xr sx + xr^2 a, ...
    ixx = syy - 2 * yr * sy + yr * yr * a
    iyy = sxx - 2 * xr * sx + xr * xr * a
    ixy = sxy - xr * sy - yr * sx + xr * yr * a
    rg, mg, v = rho * g, mass * g, part.volume
    k = np.zeros((6, 6))
    k[2, 2] = rg * a
    k[2, 3] = k[3, 2] = rg * (sy - yr * a)
    k[2, 4] = k[4, 2] = -rg * (sx - xr * a)
    k[3, 3] = rg * (ixx + v * (zb - zr)) - mg * (zg - zr)
    k[4, 4] = rg * (iyy + v * (zb - zr)) - mg * (zg - zr)
    k[3, 4] = k[4, 3] = -rg * ixy
    k[3, 5] = -rg * v * (xb - xr) + mg * (xg - xr)
    k[4, 5] = -rg * v * (yb - yr) + mg * (yg - yr)
    return k


def checked_mesh(points: Array, faces: Array, what: str) -> None:
    """Raise :class:`HydrostaticsError` naming ``what`` (the body, the file) when the
    mesh does not bound a volume (:func:`frylinks_marine.mesh_checks.mesh_problems`)."""
    problems = mesh_problems(points, faces)
    if problems:
        raise HydrostaticsError(f"{what}: mesh {'; '.join(problems)}")


def hydrostatics(points: Array, faces: Array, mass: float, cog: npt.ArrayLike,
                 rho: float = 1025.0, g: float = 9.81, ref: npt.ArrayLike | None = None,
                 ) -> Hydrostatics:
    """Hydrostatics of a body at the pose its mesh is given in.

    Parameters
    ----------
    points : (nv, 3)
        Vertices in world coordinates (still water at z = 0) [m].
    faces : (nf, 4) int
        Panels, outward normals.
    mass
        Body mass [kg] (gravity's part of the stiffness and GM).
    cog : (3,)
        Centre of gravity, world [m].
    rho, g
        Water density [kg m-3], gravity [m s-2].
    ref : (3,), optional
        Point the stiffness is taken about (default: the COG) [m].

    Returns
    -------
    Hydrostatics
        GM = KB + BM - KG with BM = I / V, I the waterplane's inertia about the centre of
        flotation; NaN where the body is not afloat (no waterplane or no volume).
    """
    cog = np.asarray(cog, dtype=float)
    ref = cog.copy() if ref is None else np.asarray(ref, dtype=float)
    part = wetted_part(points, faces, rho, g, ref)
    a = part.waterplane_area
    xf, yf = part.flotation_centre if a > 0 else (0.0, 0.0)
    sxx, syy, _ = part.waterplane_second
    it = float(syy - a * yf * yf)
    il = float(sxx - a * xf * xf)
    v = part.volume
    with np.errstate(invalid="ignore", divide="ignore"):
        bmt, bml = (it / v, il / v) if v > 0 else (np.nan, np.nan)
    zb = part.buoyancy_centre[2]
    return Hydrostatics(part, float(mass), cog, float(rho), float(g), ref,
                        stiffness_matrix(part, mass, cog, rho, g, ref), it, il,
                        float(bmt), float(bml), float(zb + bmt - cog[2]),
                        float(zb + bml - cog[2]))


def _heeled(points: Array, centre: Array, heel: float, trim: float) -> Array:
    """``points`` turned by ``heel`` about the x axis, then ``trim`` about the y axis,
    both through ``centre``."""
    c, s = np.cos(heel), np.sin(heel)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    c, s = np.cos(trim), np.sin(trim)
    ry = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    return (np.asarray(points, dtype=float) - centre) @ (ry @ rx).T + centre


def equilibrium_sinkage(points: Array, faces: Array, volume: float) -> float:
    """The vertical shift [m] (up positive) that makes the mesh displace ``volume``.

    Raises
    ------
    HydrostaticsError
        When ``volume`` is more than the whole mesh's (the body sinks) or not positive.
    """
    pts = np.ascontiguousarray(points, dtype=float)
    f = np.ascontiguousarray(faces, dtype=np.int64)
    out = np.zeros(W.NOUT)
    zero, ref = np.zeros(len(pts)), np.zeros(3)
    low, high = float(pts[:, 2].min()), float(pts[:, 2].max())
    moved = pts.copy()

    def excess(dz: float) -> float:
        moved[:, 2] = pts[:, 2] + dz
        W.wetted_integrals(moved, f, zero, zero, 1.0, 1.0, ref, out)
        return float(out[W.VOLUME]) - volume

    whole = excess(-high) + volume
    if not 0.0 < volume < whole:
        raise HydrostaticsError(f"cannot float: {volume:.6g} m3 to displace, the mesh "
                                f"encloses {whole:.6g} m3")
    # the displaced volume falls monotonically as the body rises: one root between the
    # shifts that put its top and its bottom at the surface
    return float(brentq(excess, -high, -low, xtol=1e-12 * max(1.0, high - low),
                        rtol=1e-14, maxiter=200))


@dataclass(frozen=True)
class RightingArms:
    """The righting-arm curve: heel fixed, sinkage free, trim fixed."""

    #: heel angles [rad] (turns about the x axis through the COG)
    heel: Array
    #: righting arm GZ [m]: minus the buoyancy's moment about the COG over rho g V
    #: (positive: it turns the body back upright)
    gz: Array
    #: vertical shift of the body from its given pose at each heel [m]
    sinkage: Array
    #: centre of buoyancy at each heel (world, shifted pose) [m] (nheel, 3)
    buoyancy_centre: Array


def righting_arms(points: Array, faces: Array, mass: float, cog: npt.ArrayLike,
                  rho: float, heels: npt.ArrayLike, trim: float = 0.0) -> RightingArms:
    """GZ(heel): at each heel the body is sunk or raised until it displaces its mass
    (free sinkage, trim held at ``trim``), and GZ is the horizontal arm between the COG
    and the line of the buoyancy.

    Parameters
    ----------
    points : (nv, 3)
        Vertices in world coordinates at zero heel [m].
    faces : (nf, 4) int
        Panels, outward normals.
    mass
        Body mass [kg]: the volume displaced is ``mass / rho``.
    cog : (3,)
        COG at zero heel, world [m]; the heel turns about the x axis through it.
    rho
        Water density [kg m-3].
    heels : (n,)
        Heel angles [rad].
    trim
        Trim held fixed [rad] (a turn about the y axis, after the heel).

    Notes
    -----
    The trim is held, not freed: a body whose centre of flotation moves along x as it
    heels (not fore-aft symmetric) would trim as well; its GZ here is the one at the
    fixed trim (the usual convention of a cross curve at fixed trim).
    """
    cog = np.asarray(cog, dtype=float)
    heels = np.atleast_1d(np.asarray(heels, dtype=float))
    volume = mass / rho
    gz = np.empty(len(heels))
    dz = np.empty(len(heels))
    centres = np.empty((len(heels), 3))
    for i, heel in enumerate(heels):
        turned = _heeled(points, cog, float(heel), trim)
        dz[i] = equilibrium_sinkage(turned, faces, volume)
        turned[:, 2] += dz[i]
        part = wetted_part(turned, faces, rho, 1.0)
        centres[i] = part.buoyancy_centre
        # buoyancy's moment about the COG, x component: (yB - yG) rho g V; a stable body
        # heeled to +x rolls its +y side up, B moves to -y and the moment is negative
        gz[i] = -(part.buoyancy_centre[1] - cog[1])
    return RightingArms(heels, gz, dz, centres)


__all__ = ["Hydrostatics", "HydrostaticsError", "RightingArms", "WettedPart",
           "checked_mesh", "equilibrium_sinkage", "hydrostatics", "righting_arms",
           "stiffness_matrix", "wetted_part"]
