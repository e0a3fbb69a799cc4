"""``nonlinear_hydrostatics``: the pressure integrated over a body's mesh at its pose each
step (WEC-Sim's ``nonlinearHydro``), compiled.

Two options (``froude_krylov``):

``false`` (the default; WEC-Sim's ``nonlinearHydro = 1``)
    Hydrostatics only: the pressure ``-rho g z`` over the part of the mesh under the
    still-water plane ``z = 0``, at the body's instantaneous pose (buoyancy and its
    moment to any heel or draft). The incident wave is left wholly to the linear
    ``wave_excitation`` (diffraction and Froude-Krylov): cutting at the wave surface with
    ``rho g (eta - z)`` would count the incident wave's pressure a second time.
``true`` (WEC-Sim's ``nonlinearHydro = 2``)
    Hydrostatics and the undisturbed incident wave's (Froude-Krylov) pressure on the
    mesh cut at the instantaneous wave surface ``eta`` (the same components as the
    linear excitation, ramp included): at a point under the surface

    ``p = rho g (eta - z) + rho g r(t) sum_c a_c cos(theta_c) (f_c(z_s) - 1)``,

    ``f_c(z) = cosh(k_c (z + d)) / cosh(k_c d)`` (``exp(k_c z)`` in deep water) the Airy
    depth attenuation, evaluated at the **Wheeler-stretched** height
    ``z_s = d (z - eta) / (d + eta)`` (deep water: ``z - eta``): the pressure is zero on
    the wave surface, exactly, and equals the linear ``-rho g z + rho g eta_lin f(z)``
    below it to first order. The linear excitation must then keep only its diffraction
    part (``wave_excitation`` with ``part: diffraction``).

The force acts at the body's COG, world axes; its moment is about the COG. It supplies
the whole buoyancy (not balanced against the weight, unlike ``linear_hydrostatics``),
so it must **not** act on a body together with ``linear_hydrostatics``, nor (with
``froude_krylov: true``) with a whole ``wave_excitation``: the model raises when two
forces supply one load (:meth:`~frylinks.forces.ForceType.supplies`).

The mesh is the body's ``geometry`` (a mesh file or a shape, meshed with
``mesh_resolution`` points around), or the parameter ``mesh`` (``(points, faces)`` in
body axes about the COG). In statics the option ``true`` falls back to still water.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ElementError, ModelError
from frylinks.forces import ForceContext, ForceKernels, ForceType
from frylinks.jit import alive, kernel, quat_to_matrix3, scratch, scratch2
from frylinks.kinematics import NodeFrames
from frylinks.params import Param, shown

from . import wetted as W
from .body_forces import BODY
from .mesh_checks import mesh_arrays, mesh_problems
from .wave_kernels import AMP, DEEP, DEPTH, OMEGA, SCALE, K, wave_phase, wave_ramp
from .waves import WaveField

Array = np.ndarray

STILL = WaveField.still()
#: Panels a wave length must span at least (the panel's longest edge against the sea's
#: shortest wave), below which the Froude-Krylov pressure is resolved coarsely: a
#: warning, not an error (a sea's shortest components carry little energy).
PANELS_PER_WAVE = 8

#: A cube of side 0.1 m about the COG (the types' examples): 8 corners, 6 outward quads.
SMALL_BOX = [[[x, y, z] for x in (-0.05, 0.05) for y in (-0.05, 0.05) for z in (-0.05, 0.05)],
             [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4],
              [1, 5, 7, 3]]]


class NonlinearHydrostatics(ForceType):
    """Hydrostatic (and optionally Froude-Krylov) pressure on the instantaneous wetted
    part of the body's mesh."""

    name = "nonlinear_hydrostatics"
    attachments = ("body",)
    body_mesh = "mesh"
    supplies_hint = ("keep one (nonlinear_hydrostatics supplies the whole buoyancy); with "
                     "froude_krylov: true, give wave_excitation 'part: diffraction'")
    parameters = {
        "body": BODY,
        "froude_krylov": Param("any", "", "false: hydrostatics on the still-water plane "
                               "(WEC-Sim nonlinearHydro = 1); true: hydrostatics and the "
                               "incident wave's pressure on the mesh cut at the wave surface "
                               "(nonlinearHydro = 2)", default=False),
        "mesh": Param("any", "", "the mesh (points (nv, 3) in body axes about the COG, "
                      "faces (nf, 3 or 4)); default: the body's geometry", default=None),
        "mesh_resolution": Param("float", "1", "points around a shape's mesh (a sphere's "
                                 "or cylinder's circumference)", default=48, positive=True),
    }
    examples = [{"mesh": SMALL_BOX}, {"mesh": SMALL_BOX, "froude_krylov": True}]
    description = ("buoyancy (and Froude-Krylov force) from the pressure on the body's "
                   "mesh cut at the instantaneous (wave) surface")

    @classmethod
    def supplies(cls, params: Mapping[str, Any]) -> tuple[str, ...]:
        restoring = ("buoyancy and hydrostatic restoring",)
        return restoring + (("Froude-Krylov force",) if params["froude_krylov"] else ())

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        if not isinstance(params["froude_krylov"], bool):
            raise ModelError(f"expected true or false, got {shown(params['froude_krylov'])}",
                             "froude_krylov")
        if params["mesh"] is not None:
            mesh_arrays(params["mesh"], "mesh")

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        meshes = []
        for i, p in enumerate(instances):
            if p["mesh"] is None:
                raise ElementError("no mesh: the body has no geometry", "mesh", i)
            meshes.append(mesh_arrays(p["mesh"], "mesh"))
        self._meshes = meshes
        nv = np.cumsum([0] + [len(m[0]) for m in meshes])
        nf = np.cumsum([0] + [len(m[1]) for m in meshes])
        #: all elements' vertices in body axes (nv, 3), faces with global indices
        self.local = np.vstack([np.zeros((0, 3)), *(m[0] for m in meshes)])
        self.faces = np.vstack([np.zeros((0, 4), dtype=np.int64),
                                *(m[1] + nv[i] for i, m in enumerate(meshes))])
        self.vstart, self.fstart = nv.astype(np.int64), nf.astype(np.int64)
        self.posed = np.zeros_like(self.local)
        self.eta = np.zeros(len(self.local))
        self.pressure = np.zeros(len(self.local))
        self.out = np.zeros(W.NOUT)
        self.fk = np.array([1.0 if p["froude_krylov"] else 0.0 for p in instances])
        #: water density, gravity [kg m-3, m s-2]
        self.fluid = np.array([1025.0, 9.81])
        self._waves = STILL

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        env = ctx.settings.get("environment")
        self.fluid[0] = 1025.0 if env is None else float(env.rho)
        self.fluid[1] = float(np.linalg.norm(ctx.gravity)) or 9.81
        self._waves = STILL if env is None else env.waves
        self.__dict__.pop("_kernel_data", None)
        k = np.asarray(getattr(self._waves, "k", ()), dtype=float)
        shortest = 2 * np.pi / k.max() if k.size and k.max() > 0 else np.inf
        for i, (p, f) in enumerate(self._meshes):
            problems = mesh_problems(p, f)
            if problems:
                raise ElementError("the mesh " + "; ".join(problems), "mesh", i)
            panel = float(np.linalg.norm(p[f] - p[np.roll(f, -1, axis=1)], axis=2).max())
            if self.fk[i] and panel > shortest / PANELS_PER_WAVE:
                warnings.warn(
                    f"nonlinear_hydrostatics element {i}: the mesh's panels reach "
                    f"{panel:.3g} m, more than 1/{PANELS_PER_WAVE} of the sea's shortest "
                    f"wave ({shortest:.3g} m): the wave's pressure and the cut at its "
                    "surface are resolved coarsely there; refine the mesh "
                    "(mesh_resolution for a shape) or leave out the shortest components",
                    UserWarning, stacklevel=2)

    def kernel_data(self) -> tuple[Any, ...]:
        table, params = self._waves.kernel_data()
        # room for each component's a_c cos(theta_c) at one vertex
        cosines = np.zeros(table.shape[1])
        return (self.local, self.faces, self.vstart, self.fstart, self.posed, self.eta,
                self.pressure, self.out, self.fk, self.fluid, table, params, cosines)


@kernel
def nonlinear_hydrostatics(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                           signals: Array, gravity: Array, states: Array, static: bool,
                           force: Array, torque: Array) -> None:
    """The pressure force and its moment about the COG on each element's wetted mesh."""
    (local, faces, vstart, fstart, posed, eta, pressure, out, fk, fluid, table, params,
     cosines) = data
    f = frames[0]
    R = scratch2(3, 3)
    ref = scratch(3)
    rho = fluid[0]
    g = fluid[1]
    deep = params[DEEP] != 0.0
    depth = params[DEPTH]
    r = wave_ramp(params, t)[0]
    for i in range(fk.shape[0]):
        quat_to_matrix3(f.q[i], R)
        for k in range(3):
            ref[k] = f.p[i, k]
        waves = fk[i] != 0.0 and not static and table.shape[1] > 0
        W.posed_points(local[vstart[i]:vstart[i + 1]], R, ref, posed[vstart[i]:vstart[i + 1]])
        for v in range(vstart[i], vstart[i + 1]):
            eta[v] = 0.0
            pressure[v] = 0.0
            if waves:
                x = posed[v, 0]
                y = posed[v, 1]
                z = posed[v, 2]
                e = 0.0
                for c in range(table.shape[1]):
                    cosines[c] = math.cos(wave_phase(table, c, x, y, t)) * table[AMP, c]
                    e += cosines[c]
                e *= r
                eta[v] = e
                if z < e:
                    # Wheeler stretching: the water column [-d, eta] onto [-d, 0]
                    zs = z - e if deep else depth * (z - e) / (depth + e)
                    p = 0.0
                    for c in range(table.shape[1]):
                        k = table[K, c]
                        if deep:
                            att = math.exp(k * zs)
                        else:
                            # cosh(k (zs + d)) / cosh(k d) = ch tanh(k d), tanh(k d) = w^2/(g k)
                            ch = (math.exp(k * zs) + math.exp(-k * (zs + 2.0 * depth))) \
                                * table[SCALE, c]
                            att = ch * table[OMEGA, c] * table[OMEGA, c] / (g * k)
                        p += cosines[c] * (att - 1.0)
                    pressure[v] = rho * g * r * p
        W.wetted_integrals(posed, faces[fstart[i]:fstart[i + 1]], eta, pressure, rho, g,
                           ref, out)
        for k in range(3):
            force[i, 0, k] = out[W.FORCE + k]
            torque[i, 0, k] = out[W.MOMENT + k]
    alive(local)
    alive(faces)
    alive(vstart)
    alive(fstart)
    alive(posed)
    alive(eta)
    alive(pressure)
    alive(out)
    alive(fk)
    alive(fluid)
    alive(table)
    alive(params)
    alive(cosines)


NonlinearHydrostatics.kernels = ForceKernels(nonlinear_hydrostatics)

__all__ = ["NonlinearHydrostatics", "nonlinear_hydrostatics"]
