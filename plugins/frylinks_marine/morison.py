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
not included (give it with ``linear_hydrostatics`` or a force). In statics the fluid
velocity is the current alone, its acceleration zero, and the surface ``z = 0``.
Without an environment the water is still (1025 kg m-3). The force is the compiled
kernel :func:`~frylinks_marine.wave_kernels.morison_force`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceKernels, ForceType
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.rotations import skew

from .wave_kernels import morison_force
from .waves import WaveField

Array = np.ndarray

#: Still water without current: the fluid of a model without an environment.
STILL = WaveField.still()


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
    description = ("Morison drag and inertia on slender cylinders (braces, piles, tethers) in "
                   "waves and current")
    examples = [{"diameter": 2.0, "length": 5.0},
                {"diameter": 0.5, "length": 1.0, "cd": 1.2, "ca": 0.8}]

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        col = (lambda key: np.array([float(p[key]) for p in instances]))  # noqa: E731
        self.diameter, self.length = col("diameter"), col("length")
        self.cd, self.ca = col("cd"), col("ca")
        self.volume = np.pi * self.diameter**2 / 4 * self.length
        self._added: Array | None = None
        # the water until prepare() reads the environment (none: still, 1025 kg m-3)
        self._waves, self._rho = STILL, 1025.0

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        f = frames[0]
        env = ctx.settings.get("environment")
        rho = 1025.0 if env is None else float(env.rho)
        self._waves = STILL if env is None else env.waves
        self._rho = rho
        self.__dict__.pop("_kernel_data", None)  # (built again from what is set here)
        e = f.R[:, :, 2]
        wet = (f.p[:, 2] <= 0.0).astype(float)
        normal = np.eye(3) - np.einsum("ni,nj->nij", e, e)
        A3 = (rho * self.ca * self.volume * wet)[:, None, None] * normal
        # the node moves with T u, T = [I, -[r]x]: its added mass about the COG is T^T A T
        T = np.concatenate([np.broadcast_to(np.eye(3), (len(e), 3, 3)), -skew(f.r)], axis=2)
        self._added = np.einsum("nki,nkl,nlj->nij", T, A3, T)

    def added_mass(self) -> Array | None:
        return self._added

    def kernel_data(self) -> tuple[Any, ...]:
        table, params = self._waves.kernel_data()
        return (self.diameter, self.length, self.cd, self.ca, self.volume, table, params,
                float(self._rho))


Morison.kernels = ForceKernels(morison_force)
