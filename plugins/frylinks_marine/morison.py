"""``morison``: Morison's equation on slender cylindrical elements, in waves and current.

An element is a cylinder of diameter ``D`` and length ``L`` centred on a node, its axis
the node's z axis ``e``. With the fluid velocity ``u`` and acceleration ``a`` at the
node (waves and current, :class:`~frylinks_marine.environment.Environment`), the body's
node velocity ``v_n`` and the normal parts ``(.)_n = (.) - ((.) . e) e``::

    F = rho (1 + Ca) V a_n + 1/2 rho Cd D L |u_r,n| u_r,n,    u_r = u - v_n,  V = pi D^2 L / 4

acting at the node (no torque about it), plus the added-mass force ``-rho Ca V a_body,n``
of the body's own acceleration. That last term enters the body's mass matrix (no
algebraic loop), as a constant matrix from the element's initial orientation and place
(linear theory: small rotations). The force acts while the node is below the wave
surface, ``z <= eta(x, y, t)``; split long members into several elements. Buoyancy is
not included (give it with ``linear_hydrostatics`` or a force).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceType
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.rotations import skew

Array = np.ndarray


class Morison(ForceType):
    """Drag and inertia of slender cylinders in waves and current (Morison's equation)."""

    name = "morison"
    attachments = ("node",)
    parameters = {
        "node": Param("node", "", "centre of the element; its z axis is the cylinder axis"),
        "diameter": Param("float", "m", "cylinder diameter", positive=True),
        "length": Param("float", "m", "element length", positive=True),
        "cd": Param("float", "1", "normal drag coefficient", default=1.0, minimum=0.0),
        "ca": Param("float", "1", "normal added-mass coefficient", default=1.0, minimum=0.0),
    }
    description = "Morison drag and inertia on slender cylinders in waves and current"
    examples = [{"diameter": 2.0, "length": 5.0},
                {"diameter": 0.5, "length": 1.0, "cd": 1.2, "ca": 0.8}]

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        col = (lambda key: np.array([float(p[key]) for p in instances]))  # noqa: E731
        self.diameter, self.length = col("diameter"), col("length")
        self.cd, self.ca = col("cd"), col("ca")
        self.volume = np.pi * self.diameter**2 / 4 * self.length
        self._added: Array | None = None

    def _fluid(self, p: Array, ctx: ForceContext) -> tuple[Array, Array, Array, float]:
        """Fluid velocity, acceleration, wetness (1 below the surface) and density."""
        env = ctx.settings.get("environment")
        n = len(p)
        if env is None:
            return np.zeros((n, 3)), np.zeros((n, 3)), (p[:, 2] <= 0.0).astype(float), 1025.0
        if ctx.static:
            wet = (p[:, 2] <= 0.0).astype(float)
            return np.broadcast_to(env.current, (n, 3)).copy(), np.zeros((n, 3)), wet, env.rho
        u, a = env.waves.kinematics(p, ctx.t)
        wet = (p[:, 2] <= env.waves.elevation(p, ctx.t)).astype(float)
        return u, a, wet, float(env.rho)

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        f = frames[0]
        env = ctx.settings.get("environment")
        rho = 1025.0 if env is None else float(env.rho)
        e = f.R[:, :, 2]
        wet = (f.p[:, 2] <= 0.0).astype(float)
        normal = np.eye(3) - np.einsum("ni,nj->nij", e, e)
        A3 = (rho * self.ca * self.volume * wet)[:, None, None] * normal
        # the node moves with T u, T = [I, -[r]x]: its added mass about the COG is T^T A T
        T = np.concatenate([np.broadcast_to(np.eye(3), (len(e), 3, 3)), -skew(f.r)], axis=2)
        self._added = np.einsum("nki,nkl,nlj->nij", T, A3, T)

    def added_mass(self) -> Array | None:
        return self._added

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> tuple[Array, Array]:
        f = frames[0]
        e = f.R[:, :, 2]
        u, a, wet, rho = self._fluid(f.p, ctx)
        ur = u - f.v
        urn = ur - np.einsum("ni,ni->n", ur, e)[:, None] * e
        an = a - np.einsum("ni,ni->n", a, e)[:, None] * e
        speed = np.sqrt(np.einsum("ni,ni->n", urn, urn))
        force = (rho * (1.0 + self.ca) * self.volume)[:, None] * an \
            + (0.5 * rho * self.cd * self.diameter * self.length * speed)[:, None] * urn
        force *= wet[:, None]
        return force[:, None, :], np.zeros((self.nb_forces, 1, 3))
