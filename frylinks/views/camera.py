"""The orthographic camera of the animations: world points to pixels and depths, in numpy.

An animation frame projects every mesh point, line point and sea point once per frame,
vectorised, and sorts the faces by depth itself (painter's order), instead of asking
matplotlib's 3D axes to do it polygon by polygon in Python (most of a frame's time).
The camera looks from ``elevation`` degrees above the horizon and ``azimuth`` degrees
about z, as matplotlib's ``view_init(elev, azim)`` with ``roll = 0``, so the pictures
are those the 3D axes drew (:class:`frylinks.views.renderer.Renderer` places it on the
3D axes' own box).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

Array = np.ndarray


def view_axes(elevation: float, azimuth: float) -> Array:
    """The screen's axes in world coordinates: rows ``u`` (to the right of the picture),
    ``v`` (up the picture) and ``w`` (out of the picture, towards the viewer).

    Parameters
    ----------
    elevation, azimuth
        Degrees, as matplotlib's ``view_init``: the viewer is in the direction
        ``(cos e cos a, cos e sin a, sin e)`` from what it looks at.

    Returns
    -------
    (3, 3) array, orthonormal rows u, v, w
    """
    e, a = np.deg2rad(elevation), np.deg2rad(azimuth)
    w = np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    # matplotlib's "up" is +z, flipped once the view passes over the top (|elev| > 90)
    wrapped = (elevation + 180.0) % 360.0 - 180.0
    up = np.array([0.0, 0.0, -1.0 if abs(wrapped) > 90.0 else 1.0])
    u = np.cross(up, w)
    u /= np.linalg.norm(u)
    return np.stack([u, np.cross(w, u), w])


@dataclass(frozen=True)
class Camera:
    """An orthographic view placed on the picture.

    Parameters
    ----------
    elevation, azimuth
        Direction of the viewer [deg] (:func:`view_axes`).
    centre
        (3,) world point [m] drawn at pixel ``origin``.
    origin
        (2,) pixel of ``centre``: x from the picture's left edge, y from its bottom edge
        (matplotlib's display coordinates).
    scale
        (2,) pixels per metre along the picture's x and y.
    """

    elevation: float
    azimuth: float
    centre: Array
    origin: Array
    scale: Array

    @cached_property
    def axes(self) -> Array:
        """(3, 3) rows u, v, w (:func:`view_axes`)."""
        return view_axes(self.elevation, self.azimuth)

    def project(self, points: Array) -> Array:
        """Pixels of world points: (..., 3) [m] -> (..., 2) (x right, y up; NaN stays
        NaN, which breaks a drawn line there)."""
        uv = (np.asarray(points, dtype=float) - self.centre) @ self.axes[:2].T
        return self.origin + uv * self.scale

    def depth(self, points: Array) -> Array:
        """Distance of world points towards the viewer: (..., 3) [m] -> (...) [m] (the
        larger, the nearer; the farthest are drawn first)."""
        return (np.asarray(points, dtype=float) - self.centre) @ self.axes[2]


__all__ = ["Camera", "view_axes"]
