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

In a linear analysis (:mod:`frylinks.analysis`) the inertia term is the element's
:meth:`Morison.wave_excitation` (exact for a small element in linear waves) and its
added mass the matrix above; the drag, which has no tangent in still water, is
linearised for a given wave height by :meth:`Morison.equivalent_damping`. Both use the
element's place and orientation at the initial pose, like the added mass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceKernels, ForceType
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.rotations import skew

from .wave_kernels import morison_force
from .waves import WaveField, wavenumber

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
        # for a linear analysis: the initial pose (node place, offset from the COG,
        # projection on the normal plane, submerged or not), depth and gravity
        n = self.nb_forces
        self._p, self._r = np.zeros((n, 3)), np.zeros((n, 3))
        self._normal, self._wet = np.zeros((n, 3, 3)), np.zeros(n)
        self._depth, self._g = math.inf, 9.81

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
        self._p, self._r, self._normal, self._wet = f.p.copy(), f.r.copy(), normal, wet
        self._depth = math.inf if env is None else float(env.depth)
        self._g = float(np.linalg.norm(ctx.gravity)) or 9.81
        A3 = (rho * self.ca * self.volume * wet)[:, None, None] * normal
        # the node moves with T u, T = [I, -[r]x]: its added mass about the COG is T^T A T
        T = np.concatenate([np.broadcast_to(np.eye(3), (len(e), 3, 3)), -skew(f.r)], axis=2)
        self._added = np.einsum("nki,nkl,nlj->nij", T, A3, T)

    def added_mass(self) -> Array | None:
        return self._added

    def _unit_velocity(self, omega: float, heading: float) -> Array:
        """``(n, 3)`` complex: the wave velocity at each node per metre of wave
        amplitude, phasor against the elevation at the origin (the kinematics of
        :mod:`frylinks_marine.waves`, still water above ``z = 0`` and none below the
        seabed)."""
        k = float(wavenumber(np.array([omega]), self._depth, self._g)[0])
        d = self._depth
        z = np.minimum(self._p[:, 2], 0.0)
        if math.isfinite(d):
            z = np.maximum(z, -d)
            deep = np.exp(-k * (z + 2 * d))
            scale = 1.0 / (1.0 - math.exp(-2 * k * d))
        else:
            deep, scale = np.zeros_like(z), 1.0
        fc = (np.exp(k * z) + deep) * scale
        fs = (np.exp(k * z) - deep) * scale
        cb, sb = math.cos(heading), math.sin(heading)
        phase = np.exp(1j * k * (self._p[:, 0] * cb + self._p[:, 1] * sb))
        return omega * phase[:, None] * np.stack([fc * cb, fc * sb, -1j * fs], axis=1)

    def _wrench(self, force: Array) -> Array:
        """``(..., n, 6)``: a force at each node (``(..., n, 3)``) and its torque about
        the COG."""
        return np.concatenate([force, np.cross(self._r, force)], axis=-1)

    def wave_excitation(self, omega: Array, heading: float) -> Array | None:
        """The inertia term ``rho (1 + ca) V a_n`` of unit-amplitude waves at each
        submerged node (``(n, nw, 6)``, about the COG); the element's added mass is
        :meth:`added_mass`."""
        w = np.asarray(omega, dtype=float).reshape(-1)
        coef = self._rho * (1.0 + self.ca) * self.volume * self._wet
        out = np.zeros((self.nb_forces, w.size, 6), dtype=complex)
        for j, wj in enumerate(w):
            accel = -1j * wj * self._unit_velocity(float(wj), heading)
            force = coef[:, None] * np.einsum("nij,nj->ni", self._normal, accel)
            out[:, j] = self._wrench(force)
        return out

    def equivalent_damping(self, omega: float, heading: float, amplitude: float,
                           velocity: Array) -> tuple[Array, Array] | None:
        """The drag ``1/2 rho cd D L |u_r,n| u_r,n`` of a harmonic relative velocity
        ``u_r,n(t) = Re(R exp(-1j omega t))`` replaced by ``c u_r,n`` with the ``c`` of
        least mean square error over a period, ``c = 1/2 rho cd D L <|u|^3> / <|u|^2>``
        (the averages over the period, by sampling): ``(8 / (3 pi)) |R|`` times the
        coefficient when the components move in phase (a straight line), the
        harmonic linearisation. ``c u_r,n`` is a damping ``c`` on the node's velocity
        and a force ``c u_n`` of the waves' velocity. With a current the drag keeps its
        tangent about the current and gets nothing here."""
        n = self.nb_forces
        if np.any(np.asarray(self._waves.current) != 0.0):
            return None
        V = np.asarray(velocity)
        node = V[:, :3] + np.cross(V[:, 3:], self._r)
        unit = self._unit_velocity(omega, heading)
        R = np.einsum("nij,nj->ni", self._normal, amplitude * unit - node)
        theta = np.linspace(0.0, 2 * np.pi, 64, endpoint=False)
        u = np.real(R[:, None, :] * np.exp(-1j * theta)[None, :, None])   # (n, 64, 3)
        speed = np.linalg.norm(u, axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(np.sum(speed**2, axis=1) > 0, np.sum(speed**3, axis=1)
                            / np.sum(speed**2, axis=1), 0.0)
        c = 0.5 * self._rho * self.cd * self.diameter * self.length * mean * self._wet
        T = np.concatenate([np.broadcast_to(np.eye(3), (n, 3, 3)), -skew(self._r)], axis=2)
        damping = np.einsum("nki,nkl,nlj->nij", T, c[:, None, None] * self._normal, T)
        force = c[:, None] * np.einsum("nij,nj->ni", self._normal, unit)
        return damping, self._wrench(force)

    def kernel_data(self) -> tuple[Any, ...]:
        table, params = self._waves.kernel_data()
        return (self.diameter, self.length, self.cd, self.ca, self.volume, table, params,
                float(self._rho))


Morison.kernels = ForceKernels(morison_force)
