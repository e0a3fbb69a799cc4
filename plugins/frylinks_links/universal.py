"""The ``universal`` (cardan) link: two rotations about crossed axes, as Arboris' RzRy,
RyRx and RzRx joints.

With ``axes = "RzRy"`` the relative rotation master node -> slave node is
``R = Rz(a) Ry(b)``: a turn ``a`` about the master node's z axis, then ``b`` about the
turned y axis, which is the slave node's y axis. The nodes coincide, and the one locked
rotation keeps the slave's y axis normal to the master's z axis: for the pair ``(f, g)``
of axes (``RzRy``: f = z, g = y) the residual is ``e_f . (R e_g)``. Its row over
``w_rel`` is ``(R e_g) x e_f``, which turns with the joint, so the acceleration target
carries ``-(d row / dt) . w_rel = -((w_rel x R e_g) x e_f) . w_rel``.

Joint coordinates ``gpos = (a, b)`` (``a`` unwrapped over turns like a single free
rotation), ``gvel = (a', b')``; the relative angular velocity is
``w_rel = a' e_f + b' R e_g`` (master-node axes), the free basis.

``free_dofs`` is a class attribute, the same for every ``axes``: the two free DOFs are
named after the default pair, ``rz`` for the first angle ``a`` and ``ry`` for the second
``b`` (spring-damper keys and the ``link_spring_force`` slots), whichever axes they turn
about. ``link_displacement`` reports ``d`` and the rotation vector of ``R``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.jit import copy_into, cross3, kernel, quat_to_matrix3, scratch, scratch2, unwrap
from frylinks.kinematics import Relative
from frylinks.links import LinkKernels, LinkType, rotvec_displacement
from frylinks.params import Param
from frylinks.signals import SignalSpec

Array = np.ndarray

#: Axis indices (first, second) of each Arboris cardan joint: R = R_first(a) R_second(b).
AXES = {"RzRy": (2, 1), "RyRx": (1, 0), "RzRx": (2, 0)}


class UniversalLink(LinkType):
    """Cardan joint: nodes coincide, relative rotation ``R_first(a) R_second(b)``."""

    name = "universal"
    free_dofs = ("rz", "ry")
    parameters = {
        "axes": Param("choice", "", "pair of rotation axes, R = R_first(a) R_second(b) "
                      "(Arboris RzRy, RyRx or RzRx joint)", default="RzRy",
                      choices=tuple(AXES)),
    }
    description = ("universal (cardan) joint: the nodes coincide; two rotations about "
                   "crossed axes (2 DOFs; axes RzRy, RyRx or RzRx)")
    examples = [{"axes": "RzRy"}, {"axes": "RyRx"}, {"axes": "RzRx"}]

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        super().__init__(instances, signal_specs)
        n = self.nb_links
        self.nb_constraints = 4
        pairs = np.array([AXES[p.get("axes", "RzRy")] for p in instances],
                         dtype=np.int64).reshape(n, 2)
        self._first = np.ascontiguousarray(pairs[:, 0])
        self._second = np.ascontiguousarray(pairs[:, 1])

    @property
    def constraint_names(self) -> tuple[str, ...]:
        # the nodes coincide; r_cross: the cosine of the crossed axes' angle, which is
        # the angle [rad] they miss a right angle by, near it
        return ("tx", "ty", "tz", "r_cross")

    def kernel_data(self) -> tuple[Any, ...]:
        # per link, the index of its first axis f and of its second axis g
        return (self._first, self._second)


@kernel
def _turned(q: Array, g: int, R: Array, u: Array) -> None:
    """``R`` of the (normalised) relative rotation ``q`` and the turned second axis
    ``u = R e_g`` (master axes)."""
    s = 1.0 / math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    qn = scratch(4)
    for j in range(4):
        qn[j] = q[j] * s
    quat_to_matrix3(qn, R)
    for j in range(3):
        u[j] = R[j, g]


@kernel
def _angles(q: Array, f: int, g: int, R: Array, u: Array) -> tuple[float, float]:
    """Raw angles ``a`` (in (-pi, pi]) and ``b``; ``R`` and ``u = R e_g`` filled."""
    _turned(q, g, R, u)
    eg = scratch(3)
    eg[:] = 0.0
    eg[g] = 1.0
    ef = scratch(3)
    ef[:] = 0.0
    ef[f] = 1.0
    tmp = scratch(3)
    cross3(eg, u, tmp)
    a = math.atan2(tmp[f], u[g])
    cross3(u, ef, tmp)
    b = math.atan2(R[0, f] * tmp[0] + R[1, f] * tmp[1] + R[2, f] * tmp[2], R[f, f])
    return a, b


@kernel
def universal_constraints(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                          s1: Array, s2: Array, angle_ref: Array, rows: Array,
                          velocity: Array, acceleration: Array) -> None:
    first, second = data
    R = scratch2(3, 3)
    u = scratch(3)
    ef = scratch(3)
    ef[:] = 0.0
    row = scratch(3)
    wu = scratch(3)
    wuf = scratch(3)
    for i in range(len(first)):
        f = first[i]
        _turned(rel.q_rel[i], second[i], R, u)
        ef[:] = 0.0
        ef[f] = 1.0
        w = rel.tau[i, 3:6]
        cross3(u, ef, row)
        cross3(w, u, wu)
        cross3(wu, ef, wuf)
        rows[i] = 0.0
        for j in range(3):
            rows[i, j, j] = 1.0
            rows[i, 3, 3 + j] = row[j]
        velocity[i] = 0.0
        acceleration[i] = 0.0
        acceleration[i, 3] = -(wuf[0] * w[0] + wuf[1] * w[1] + wuf[2] * w[2])


@kernel
def universal_residual(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                       angle_ref: Array, out: Array) -> None:
    first, second = data
    R = scratch2(3, 3)
    u = scratch(3)
    for i in range(len(first)):
        _turned(rel.q_rel[i], second[i], R, u)
        copy_into(out[i, 0:3], rel.d[i])
        out[i, 3] = u[first[i]]


@kernel
def universal_coordinates(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                          angle_ref: Array, gpos: Array, gvel: Array) -> None:
    first, second = data
    R = scratch2(3, 3)
    u = scratch(3)
    for i in range(len(first)):
        a, b = _angles(rel.q_rel[i], first[i], second[i], R, u)
        w = rel.tau[i, 3:6]
        gpos[i, 0] = unwrap(a, angle_ref[i])
        gpos[i, 1] = b
        gvel[i, 0] = w[first[i]]
        gvel[i, 1] = u[0] * w[0] + u[1] * w[1] + u[2] * w[2]


@kernel
def universal_free_basis(data: tuple[Any, ...], rel: Relative, out: Array) -> None:
    first, second = data
    R = scratch2(3, 3)
    u = scratch(3)
    for i in range(len(first)):
        _turned(rel.q_rel[i], second[i], R, u)
        out[i] = 0.0
        out[i, 3 + first[i], 0] = 1.0
        for j in range(3):
            out[i, 3 + j, 1] = u[j]


@kernel
def universal_unwrap_angle(data: tuple[Any, ...], rel: Relative, angle_ref: Array,
                           out: Array) -> bool:
    """The first angle ``a``, unwrapped against the last accepted step's."""
    first, second = data
    R = scratch2(3, 3)
    u = scratch(3)
    for i in range(len(first)):
        a, _ = _angles(rel.q_rel[i], first[i], second[i], R, u)
        out[i] = unwrap(a, angle_ref[i])
    return True


UniversalLink.kernels = LinkKernels(universal_constraints, universal_residual,
                                    rotvec_displacement, universal_coordinates,
                                    universal_free_basis, universal_unwrap_angle)
