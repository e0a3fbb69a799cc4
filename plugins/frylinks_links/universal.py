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

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.kinematics import Relative
from frylinks.links import ConstraintBlock, LinkContext, LinkType, wrap_to_pi
from frylinks.params import Param
from frylinks.rotations import cross, quat_to_matrix, quat_to_rotvec
from frylinks.signals import SignalSpec

Array = np.ndarray

#: Axis indices (first, second) of each Arboris cardan joint: R = R_first(a) R_second(b).
AXES = {"RzRy": (2, 1), "RyRx": (1, 0), "RzRx": (2, 0)}


def _dot(a: Array, b: Array) -> Array:
    return np.einsum("ni,ni->n", a, b)


class UniversalLink(LinkType):
    """Cardan joint: nodes coincide, relative rotation ``R_first(a) R_second(b)``."""

    name = "universal"
    free_dofs = ("rz", "ry")
    parameters = {
        "axes": Param("choice", "", "pair of rotation axes, R = R_first(a) R_second(b) "
                      "(Arboris RzRy, RyRx or RzRx joint)", default="RzRy",
                      choices=tuple(AXES)),
    }
    description = ("cardan joint: nodes coincide, rotation R_first(a) R_second(b) "
                   "(axes RzRy, RyRx or RzRx)")
    examples = [{"axes": "RzRy"}, {"axes": "RyRx"}, {"axes": "RzRx"}]

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        super().__init__(instances, signal_specs)
        n = self.nb_links
        self.nb_constraints = 4
        pairs = np.array([AXES[p.get("axes", "RzRy")] for p in instances],
                         dtype=int).reshape(n, 2)
        self._first = pairs[:, 0]
        self._second = pairs[:, 1]
        eye = np.eye(3)
        self._ef = eye[self._first]       # (n, 3)
        self._eg = eye[self._second]
        rows = np.zeros((n, 4, 6))
        rows[:, 0, 0] = rows[:, 1, 1] = rows[:, 2, 2] = 1.0
        self._rows = rows
        self._zeros = np.zeros((n, 4))

    def _turned_second(self, rel: Relative) -> tuple[Array, Array]:
        """``R`` (n, 3, 3) and the turned second axis ``R e_g`` (n, 3), master axes."""
        R = quat_to_matrix(rel.q_rel) if self.nb_links else np.zeros((0, 3, 3))
        return R, np.einsum("nij,nj->ni", R, self._eg)

    def constraints(self, rel: Relative, ctx: LinkContext) -> ConstraintBlock:
        _, u = self._turned_second(rel)
        row = cross(u, self._ef)
        w = rel.tau[:, 3:]
        rows = self._rows.copy()
        rows[:, 3, 3:] = row
        acc = self._zeros.copy()
        acc[:, 3] = -_dot(cross(cross(w, u), self._ef), w)
        return ConstraintBlock(rows, self._zeros, acc)

    def residual(self, rel: Relative, ctx: LinkContext) -> Array:
        _, u = self._turned_second(rel)
        return np.concatenate([rel.d, _dot(self._ef, u)[:, None]], axis=1)

    def _angles(self, rel: Relative) -> tuple[Array, Array, Array]:
        """Raw angles ``a`` (in (-pi, pi]) and ``b``, and ``R e_g``."""
        R, u = self._turned_second(rel)
        a = np.arctan2(_dot(self._ef, cross(self._eg, u)), _dot(self._eg, u))
        rf = np.einsum("nij,nj->ni", R, self._ef)
        b = np.arctan2(_dot(rf, cross(u, self._ef)), _dot(rf, self._ef))
        return a, b, u

    def unwrap_angle(self, rel: Relative, ctx: LinkContext) -> Array | None:
        """The first angle ``a``, unwrapped against the last accepted step's."""
        a = self._angles(rel)[0]
        ref = np.where(np.isnan(ctx.angle_ref), 0.0, ctx.angle_ref)
        return np.asarray(ref + wrap_to_pi(a - ref))

    def coordinates(self, rel: Relative, ctx: LinkContext) -> tuple[Array, Array]:
        a, b, u = self._angles(rel)
        ref = np.where(np.isnan(ctx.angle_ref), 0.0, ctx.angle_ref)
        a = ref + wrap_to_pi(a - ref)
        w = rel.tau[:, 3:]
        gvel = np.stack([_dot(self._ef, w), _dot(u, w)], axis=1)
        return np.stack([a, b], axis=1), gvel

    def displacement(self, rel: Relative, ctx: LinkContext) -> Array:
        return np.concatenate([rel.d, quat_to_rotvec(rel.q_rel)], axis=1)

    def free_basis(self, rel: Relative) -> Array:
        _, u = self._turned_second(rel)
        E = np.zeros((self.nb_links, 6, 2))
        E[:, 3:, 0] = self._ef
        E[:, 3:, 1] = u
        return E
