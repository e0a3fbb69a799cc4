"""Solfec's ``rigid_link``: the distance between two points is fixed.

One row, along the unit vector ``n = d / |d|`` (master-node axes) on the linear part of
the relative twist: ``n . d' = 0``, residual ``|d| - length``. The row turns with ``d``,
so the acceleration target carries ``-(dn/dt) . d' = -(|d'|^2 - (n . d')^2) / |d|`` (the
centripetal term of a pendulum). The reaction is a force along the line of the two
points (Solfec's zero tangential reaction).

Free DOFs ``tx ty rx ry rz``: the slave point moves on the sphere of radius ``|d|``
about the master node and the slave turns freely. ``tx``, ``ty`` are its arc
coordinates about the master node's z axis: ``|d| theta (n_x, n_y) / sin(theta)`` with
``theta`` the angle between ``n`` and z (so ``(d_x, d_y)`` near the z axis); their rates
are the components of ``d'`` on the tangent frame carried from z to ``n`` by the
shortest rotation (as for the rotation vector of a spherical link, exact for an
isotropic spring). Orient the master node's z axis along the link at rest: the tangent
frame is singular when the link points along -z (it is then kept finite, not smooth).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.kinematics import Relative
from frylinks.links import ConstraintBlock, LinkContext, LinkType
from frylinks.params import Param
from frylinks.rotations import quat_to_rotvec
from frylinks.signals import SignalSpec

Array = np.ndarray

#: Below this distance [m] the direction of the link is undefined: the master node's z
#: axis stands in for it (a link assembled from coincident nodes opens along z).
TINY = 1e-12


def _direction(d: Array) -> tuple[Array, Array]:
    """``|d|`` (n,) and the unit vector ``n`` (n, 3); z where ``|d|`` vanishes."""
    r = np.linalg.norm(d, axis=1)
    small = r < TINY
    n = d / np.where(small, 1.0, r)[:, None]
    n[small] = (0.0, 0.0, 1.0)
    return r, n


def _tangents(n: Array) -> tuple[Array, Array]:
    """Master x and y axes carried onto the plane normal to ``n`` by the shortest rotation
    taking z to ``n`` (Rodrigues' formula); a half turn about y where ``n = -z``."""
    nx, ny, c = n[:, 0], n[:, 1], n[:, 2]
    flip = 1.0 + c < 1e-12
    k = 1.0 / np.where(flip, 1.0, 1.0 + c)
    t1 = np.stack([1.0 - nx * nx * k, -nx * ny * k, -nx], axis=1)
    t2 = np.stack([-nx * ny * k, 1.0 - ny * ny * k, -ny], axis=1)
    t1[flip] = (-1.0, 0.0, 0.0)
    t2[flip] = (0.0, 1.0, 0.0)
    return t1, t2


class RigidLink(LinkType):
    """Fixed distance ``length`` between the master node and the slave node origins.

    Parameters (per link)
    ---------------------
    length : float, optional
        The distance [m]; by default the distance at the start (taken at the first
        position-level evaluation, the assembly of the initial state).
    """

    name = "rigid_link"
    free_dofs = ("tx", "ty", "rx", "ry", "rz")
    parameters = {
        "length": Param("float", "m", "distance between the two points (default: the "
                        "distance at the start)", default=None, positive=True),
    }
    description = "Solfec: distance between the master and slave node origins fixed"
    examples = [{"length": 0.8}, {"length": 1.7}, {"length": 0.35}]

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        super().__init__(instances, signal_specs)
        self.nb_constraints = 1
        self.length = np.array([np.nan if p.get("length") is None else float(p["length"])
                                for p in instances])

    def constraints(self, rel: Relative, ctx: LinkContext) -> ConstraintBlock:
        r, n = _direction(rel.d)
        rows = np.zeros((self.nb_links, 1, 6))
        rows[:, 0, :3] = n
        v = rel.tau[:, :3]
        vn = np.einsum("ni,ni->n", n, v)
        acc = -(np.einsum("ni,ni->n", v, v) - vn * vn) / np.where(r < TINY, 1.0, r)
        acc[r < TINY] = 0.0
        return ConstraintBlock(rows, np.zeros((self.nb_links, 1)), acc[:, None])

    def residual(self, rel: Relative, ctx: LinkContext) -> Array:
        r = np.linalg.norm(rel.d, axis=1)
        unset = np.isnan(self.length)
        if unset.any():  # Solfec: the length is the distance at the start
            self.length[unset] = r[unset]
        return (r - self.length)[:, None]

    def displacement(self, rel: Relative, ctx: LinkContext) -> Array:
        return np.concatenate([rel.d, quat_to_rotvec(rel.q_rel)], axis=1)

    def coordinates(self, rel: Relative, ctx: LinkContext) -> tuple[Array, Array]:
        r, n = _direction(rel.d)
        s = np.hypot(n[:, 0], n[:, 1])
        theta = np.arctan2(s, n[:, 2])
        pole = s <= 1e-12
        ratio = np.where(pole, 1.0, theta / np.where(pole, 1.0, s))  # theta / sin(theta)
        arc = (r * ratio)[:, None] * n[:, :2]
        south = pole & (n[:, 2] < 0)  # azimuth undefined: taken as +x
        arc[south, 0] = np.pi * r[south]
        t1, t2 = _tangents(n)
        v = rel.tau[:, :3]
        gvel = np.concatenate([np.einsum("ni,ni->n", t1, v)[:, None],
                               np.einsum("ni,ni->n", t2, v)[:, None], rel.tau[:, 3:]], axis=1)
        gpos = np.concatenate([arc, quat_to_rotvec(rel.q_rel)], axis=1)
        return gpos, gvel

    def free_basis(self, rel: Relative) -> Array:
        _, n = _direction(rel.d)
        t1, t2 = _tangents(n)
        E = np.zeros((self.nb_links, 6, 5))
        E[:, :3, 0] = t1
        E[:, :3, 1] = t2
        E[:, 3, 2] = E[:, 4, 3] = E[:, 5, 4] = 1.0
        return E
