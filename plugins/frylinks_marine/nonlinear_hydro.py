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

``wave_interval`` (with ``froude_krylov: true``; WEC-Sim's ``simu.nonlinearDt``)
    The incident wave's sums over its components at every vertex are what the option
    ``true`` costs (two per component, per vertex, per evaluation). With
    ``wave_interval: T > 0`` they are made once per interval instead, at each accepted
    state that ends one (:func:`nonlinear_accept`): at each vertex, where it is then,
    the elevation and the dynamic pressure with their time rates at both ends of the
    coming interval ``[t, t + T]`` (the incident wave is known ahead), and the
    pressure's vertical gradient. Each evaluation inside the interval takes them by
    cubic Hermite interpolation in time (error ``(w T)^4 / 384`` of a component's
    amplitude), the pressure moved to the vertex's present height with the gradient;
    the cut and the hydrostatic pressure ``rho g (eta - z)`` stay exact at the body's
    present pose. Unlike WEC-Sim's zero-order hold of the whole force, no restoring
    force lags the motion (a lag would act as a negative damping). What is left out:
    the vertex's horizontal motion within an interval (the wave field is taken where
    the vertex was at its start).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ElementError, ModelError
from frylinks.forces import ForceContext, ForceKernels, ForceType
from frylinks.jit import alive, helper, kernel, quat_to_matrix3, scratch, scratch2
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
#: The interpolation error of ``wave_interval`` (``(w T)^4 / 384`` of the fastest
#: component's amplitude) above which it is warned of.
INTERVAL_ERROR = 0.01
#: A vertex's wave records (``wave_interval``): its height when they were made; the
#: elevation and its rate at both ends of the interval, the dynamic pressure and its
#: rate at both ends, the pressure's vertical gradient at both ends.
RECORD_COLUMNS = ("z", "eta_a", "eta_rate_a", "eta_b", "eta_rate_b", "p_a", "p_rate_a",
                  "p_b", "p_rate_b", "dpdz_a", "dpdz_b")
Z0, EA, DEA, EB, DEB, PA, DPA, PB, DPB, GA, GB = range(len(RECORD_COLUMNS))

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
        "wave_interval": Param("float", "s", "with froude_krylov: true, the incident wave's "
                               "sums at the vertices are made once per interval and "
                               "interpolated in time between (as WEC-Sim's nonlinearDt); 0: "
                               "at every evaluation", default=0.0, minimum=0.0),
    }
    examples = [{"mesh": SMALL_BOX}, {"mesh": SMALL_BOX, "froude_krylov": True},
                {"mesh": SMALL_BOX, "froude_krylov": True, "wave_interval": 0.2}]
    memory = ("window", "record")
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
        if params["wave_interval"] > 0.0 and not params["froude_krylov"]:
            raise ModelError("applies with froude_krylov: true only (without it no wave "
                             "pressure is summed at the vertices); remove it",
                             "wave_interval")

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
        self.interval = np.array([float(p["wave_interval"]) for p in instances])
        #: memory: each element's interval of wave records [t_a, t_b] (NaN: none yet),
        #: and each vertex's records (columns :data:`RECORD_COLUMNS`)
        self.window = np.full((len(instances), 2), np.nan)
        self.record = np.zeros((len(self.local), len(RECORD_COLUMNS)))
        self._waves = STILL

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        env = ctx.settings.get("environment")
        self.fluid[0] = 1025.0 if env is None else float(env.rho)
        self.fluid[1] = float(np.linalg.norm(ctx.gravity)) or 9.81
        self._waves = STILL if env is None else env.waves
        self.__dict__.pop("_kernel_data", None)
        self.window[...] = np.nan
        k = np.asarray(getattr(self._waves, "k", ()), dtype=float)
        shortest = 2 * np.pi / k.max() if k.size and k.max() > 0 else np.inf
        omega = np.asarray(getattr(self._waves, "omega", ()), dtype=float)
        fastest = float(omega.max()) if omega.size else 0.0
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
            error = (fastest * self.interval[i]) ** 4 / 384.0
            if self.fk[i] and error > INTERVAL_ERROR:
                warnings.warn(
                    f"nonlinear_hydrostatics element {i}: wave_interval {self.interval[i]:g} s "
                    f"interpolates the sea's fastest component ({fastest:.3g} rad/s) with an "
                    f"error up to {100 * error:.2g} % of its amplitude (above "
                    f"{100 * INTERVAL_ERROR:g} %); take at most "
                    f"{(384 * INTERVAL_ERROR) ** 0.25 / fastest:.3g} s",
                    UserWarning, stacklevel=2)

    def kernel_data(self) -> tuple[Any, ...]:
        table, params = self._waves.kernel_data()
        # room for each component's a_c cos(theta_c) at one vertex
        cosines = np.zeros(table.shape[1])
        # an update's phases: cos and sin of w_c T, and at each end of the interval
        work = np.zeros((6, table.shape[1]))
        return (self.local, self.faces, self.vstart, self.fstart, self.posed, self.eta,
                self.pressure, self.out, self.fk, self.fluid, table, params, cosines,
                self.interval, self.window, self.record, work)


@helper
def stretched(z: float, e: float, deep: bool, depth: float) -> tuple[float, float, float]:
    """Wheeler's stretched height ``z_s`` of ``z`` under the surface ``e`` (the water
    column ``[-d, e]`` onto ``[-d, 0]``) and its derivatives by ``z`` and by ``e``."""
    if deep:
        return z - e, 1.0, -1.0
    h = depth + e
    return depth * (z - e) / h, depth / h, -depth * (depth + z) / (h * h)


@helper
def attenuation(table: Array, c: int, zs: float, deep: bool, depth: float,
                g: float) -> tuple[float, float]:
    """Component ``c``'s Airy depth attenuation ``f_c(z_s)`` and its derivative."""
    k = table[K, c]
    a = math.exp(k * zs)
    if deep:
        return a, k * a
    # cosh(k (zs + d)) / cosh(k d) = (a + b) scale tanh(k d), tanh(k d) = w^2 / (g k)
    b = math.exp(-k * (zs + 2.0 * depth))
    s = table[SCALE, c] * table[OMEGA, c] * table[OMEGA, c] / g
    return (a + b) * s / k, (a - b) * s


@helper
def hermite(a: float, rate_a: float, b: float, rate_b: float, s: float, span: float
            ) -> float:
    """The cubic through ``a`` and ``b`` with rates ``rate_a`` and ``rate_b`` at ``s = 0``
    and ``1`` of an interval ``span`` long, at ``s``."""
    u = 1.0 - s
    return ((1.0 + 2.0 * s) * u * u * a + s * u * u * span * rate_a
            + s * s * (3.0 - 2.0 * s) * b + s * s * (s - 1.0) * span * rate_b)


@kernel
def nonlinear_hydrostatics(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                           signals: Array, gravity: Array, states: Array, static: bool,
                           force: Array, torque: Array) -> None:
    """The pressure force and its moment about the COG on each element's wetted mesh."""
    (local, faces, vstart, fstart, posed, eta, pressure, out, fk, fluid, table, params,
     cosines, interval, window, record, work) = data
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
        # inside the interval of the records (wave_interval): interpolated
        span = window[i, 1] - window[i, 0]
        held = waves and interval[i] > 0.0 and window[i, 0] <= t <= window[i, 1] + 1e-9 * span
        s = (t - window[i, 0]) / span if held else 0.0
        W.posed_points(local[vstart[i]:vstart[i + 1]], R, ref, posed[vstart[i]:vstart[i + 1]])
        for v in range(vstart[i], vstart[i + 1]):
            eta[v] = 0.0
            pressure[v] = 0.0
            if held:
                rec = record[v]
                e = hermite(rec[EA], rec[DEA], rec[EB], rec[DEB], s, span)
                eta[v] = e
                z = posed[v, 2]
                if z < e:
                    pressure[v] = (hermite(rec[PA], rec[DPA], rec[PB], rec[DPB], s, span)
                                   + (z - rec[Z0]) * ((1.0 - s) * rec[GA] + s * rec[GB]))
            elif waves:
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
                    zs = stretched(z, e, deep, depth)[0]
                    p = 0.0
                    for c in range(table.shape[1]):
                        p += cosines[c] * (attenuation(table, c, zs, deep, depth, g)[0] - 1.0)
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
    alive(interval)
    alive(window)
    alive(record)
    alive(work)


@kernel
def nonlinear_accept(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     signals: Array, states: Array) -> None:
    """At an accepted state that ends an element's interval (or before its first):
    the wave records of the next interval ``[t, t + wave_interval]`` at each vertex
    where it is now (see the module doc)."""
    local, vstart, posed, fk, fluid = data[0], data[2], data[4], data[8], data[9]
    table, params, interval, window, record, work = (data[10], data[11], data[13], data[14],
                                                     data[15], data[16])
    nc = table.shape[1]
    if nc == 0:
        return
    f = frames[0]
    R = scratch2(3, 3)
    ref = scratch(3)
    rho = fluid[0]
    g = fluid[1]
    deep = params[DEEP] != 0.0
    depth = params[DEPTH]
    for i in range(fk.shape[0]):
        span = interval[i]
        if fk[i] == 0.0 or span <= 0.0:
            continue
        if window[i, 0] <= t < window[i, 1] - 1e-9 * span:
            continue  # (inside the interval: the records hold)
        window[i, 0] = t
        window[i, 1] = t + span
        quat_to_matrix3(f.q[i], R)
        for k in range(3):
            ref[k] = f.p[i, k]
        W.posed_points(local[vstart[i]:vstart[i + 1]], R, ref, posed[vstart[i]:vstart[i + 1]])
        for c in range(nc):  # the phase at the interval's end turns by -w_c T
            work[0, c] = math.cos(table[OMEGA, c] * span)
            work[1, c] = math.sin(table[OMEGA, c] * span)
        for v in range(vstart[i], vstart[i + 1]):
            x = posed[v, 0]
            y = posed[v, 1]
            z = posed[v, 2]
            rec = record[v]
            rec[Z0] = z
            for c in range(nc):
                phase = wave_phase(table, c, x, y, t)
                ca = math.cos(phase)
                sa = math.sin(phase)
                work[2, c] = ca
                work[3, c] = sa
                work[4, c] = ca * work[0, c] + sa * work[1, c]
                work[5, c] = sa * work[0, c] - ca * work[1, c]
            for end in range(2):
                tj = t + end * span
                r, dr = wave_ramp(params, tj)
                e = 0.0
                de = 0.0
                for c in range(nc):
                    a = table[AMP, c]
                    e += a * work[2 + 2 * end, c]
                    de += a * table[OMEGA, c] * work[3 + 2 * end, c]
                height = r * e
                rate = dr * e + r * de
                zs, by_z, by_eta = stretched(z, height, deep, depth)
                p = 0.0
                dp = 0.0
                grad = 0.0
                for c in range(nc):
                    a = table[AMP, c]
                    cs = work[2 + 2 * end, c]
                    sn = work[3 + 2 * end, c]
                    fa, df = attenuation(table, c, zs, deep, depth, g)
                    p += a * cs * (fa - 1.0)
                    dp += a * (table[OMEGA, c] * sn * (fa - 1.0) + cs * df * by_eta * rate)
                    grad += a * cs * df * by_z
                rec[EA + 2 * end] = height
                rec[DEA + 2 * end] = rate
                rec[PA + 2 * end] = rho * g * r * p
                rec[DPA + 2 * end] = rho * g * (dr * p + r * dp)
                rec[GA + end] = rho * g * r * grad
    alive(local)
    alive(posed)
    alive(fk)
    alive(fluid)
    alive(table)
    alive(params)
    alive(interval)
    alive(window)
    alive(record)
    alive(work)


NonlinearHydrostatics.kernels = ForceKernels(nonlinear_hydrostatics,
                                             accept=nonlinear_accept)

__all__ = ["NonlinearHydrostatics", "nonlinear_accept", "nonlinear_hydrostatics"]
