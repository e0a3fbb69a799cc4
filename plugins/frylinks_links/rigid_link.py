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

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from frylinks.jit import copy_into, kernel, quat_to_rotvec4, scratch
from frylinks.kinematics import Relative
from frylinks.links import LinkKernels, LinkType, rotvec_displacement
from frylinks.params import Param
from frylinks.signals import SignalSpec

Array = np.ndarray

#: Below this distance [m] the direction of the link is undefined: the master node's z
#: axis stands in for it (a link assembled from coincident nodes opens along z).
TINY = 1e-12


class RigidLink(LinkType):
    """Fixed distance ``length`` between the master node and the slave node origins.

    Parameters (per link)
    ---------------------
    length : float, optional
        The distance [m]; by default the distance at the start (taken at the first
        position-level evaluation, the assembly of the initial state).

    The array :attr:`length` (NaN where not given) is memory the residual kernel writes
    in place: it is the kernels' ``data``, shared by the Python methods and the
    compiled step.
    """

    name = "rigid_link"
    free_dofs = ("tx", "ty", "rx", "ry", "rz")
    parameters = {
        "length": Param("float", "m", "distance between the two points (default: the "
                        "distance at the start)", default=None, positive=True),
    }
    description = ("rigid rod pinned at both ends: the distance between the master and slave nodes "
                   "stays fixed (5 DOFs), e.g. a taut tether")
    examples = [{"length": 0.8}, {"length": 1.7}, {"length": 0.35}]
    #: Instance arrays the kernels write (the length taken at the start).
    memory: ClassVar[tuple[str, ...]] = ("length",)

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        super().__init__(instances, signal_specs)
        self.nb_constraints = 1
        self.length = np.array([np.nan if p.get("length") is None else float(p["length"])
                                for p in instances], dtype=float)

    @property
    def constraint_names(self) -> tuple[str, ...]:
        return ("length",)  # |d| - length [m]

    def kernel_data(self) -> tuple[Any, ...]:
        # the instance's own array: the residual kernel fills its NaNs in place
        return (self.length,)


@kernel
def _direction(d: Array, n: Array) -> float:
    """``|d|``, and the unit vector ``d / |d|`` in ``n`` (z where ``|d|`` vanishes)."""
    r = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    if r < TINY:
        n[0], n[1], n[2] = 0.0, 0.0, 1.0
    else:
        for j in range(3):
            n[j] = d[j] / r
    return r


@kernel
def _tangents(n: Array, t1: Array, t2: Array) -> None:
    """Master x and y axes carried onto the plane normal to ``n`` by the shortest rotation
    taking z to ``n`` (Rodrigues' formula); a half turn about y where ``n = -z``."""
    nx, ny, c = n[0], n[1], n[2]
    if 1.0 + c < 1e-12:
        t1[0], t1[1], t1[2] = -1.0, 0.0, 0.0
        t2[0], t2[1], t2[2] = 0.0, 1.0, 0.0
        return
    k = 1.0 / (1.0 + c)
    t1[0], t1[1], t1[2] = 1.0 - nx * nx * k, -nx * ny * k, -nx
    t2[0], t2[1], t2[2] = -nx * ny * k, 1.0 - ny * ny * k, -ny


@kernel
def rigid_constraints(data: tuple[Any, ...], rel: Relative, t: float, s0: Array, s1: Array,
                      s2: Array, angle_ref: Array, rows: Array, velocity: Array,
                      acceleration: Array) -> None:
    n = scratch(3)
    for i in range(len(rows)):
        r = _direction(rel.d[i], n)
        v = rel.tau[i, 0:3]
        vn = n[0] * v[0] + n[1] * v[1] + n[2] * v[2]
        rows[i] = 0.0
        copy_into(rows[i, 0, 0:3], n)
        velocity[i, 0] = 0.0
        if r < TINY:
            acceleration[i, 0] = 0.0
        else:  # the centripetal term -(dn/dt) . d'
            acceleration[i, 0] = -((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - vn * vn) / r


@kernel
def rigid_residual(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                   angle_ref: Array, out: Array) -> None:
    length = data[0]
    for i in range(len(out)):
        d = rel.d[i]
        r = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        if math.isnan(length[i]):  # Solfec: the length is the distance at the start
            length[i] = r
        out[i, 0] = r - length[i]


@kernel
def rigid_coordinates(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                      angle_ref: Array, gpos: Array, gvel: Array) -> None:
    n = scratch(3)
    t1 = scratch(3)
    t2 = scratch(3)
    rv = scratch(3)
    for i in range(len(gpos)):
        r = _direction(rel.d[i], n)
        s = math.hypot(n[0], n[1])
        theta = math.atan2(s, n[2])
        pole = s <= 1e-12
        ratio = 1.0 if pole else theta / s  # theta / sin(theta)
        gpos[i, 0] = r * ratio * n[0]
        gpos[i, 1] = r * ratio * n[1]
        if pole and n[2] < 0:  # azimuth undefined: taken as +x
            gpos[i, 0] = math.pi * r
        quat_to_rotvec4(rel.q_rel[i], rv)
        copy_into(gpos[i, 2:5], rv)
        _tangents(n, t1, t2)
        v = rel.tau[i, 0:3]
        gvel[i, 0] = t1[0] * v[0] + t1[1] * v[1] + t1[2] * v[2]
        gvel[i, 1] = t2[0] * v[0] + t2[1] * v[1] + t2[2] * v[2]
        copy_into(gvel[i, 2:5], rel.tau[i, 3:6])


@kernel
def rigid_free_basis(data: tuple[Any, ...], rel: Relative, out: Array) -> None:
    n = scratch(3)
    t1 = scratch(3)
    t2 = scratch(3)
    for i in range(len(out)):
        _direction(rel.d[i], n)
        _tangents(n, t1, t2)
        out[i] = 0.0
        copy_into(out[i, 0:3, 0], t1)
        copy_into(out[i, 0:3, 1], t2)
        out[i, 3, 2] = out[i, 4, 3] = out[i, 5, 4] = 1.0


@kernel
def rigid_unwrap_angle(data: tuple[Any, ...], rel: Relative, angle_ref: Array,
                       out: Array) -> bool:
    return False  # three free rotations: no single angle to unwrap


RigidLink.kernels = LinkKernels(rigid_constraints, rigid_residual, rotvec_displacement,
                                rigid_coordinates, rigid_free_basis, rigid_unwrap_angle)
