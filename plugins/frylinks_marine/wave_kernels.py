"""Compiled wave kinematics, and the kernels of the marine forces that use them.

The one implementation of the Airy kinematics of :mod:`frylinks_marine.waves` (its
conventions, ramp, extrapolation above the surface and below the seabed are described
there): :func:`wave_ramp`, :func:`wave_elevation` and :func:`wave_kinematics` take a
wave field as the pair of arrays ``(table, params)`` of
:meth:`~frylinks_marine.waves.WaveField.kernel_data` and one point at a time, so that
other kernels call them inside their element loops. :class:`~frylinks_marine.waves.
WaveField`'s methods call them too (through the loops :func:`wave_elevations`,
:func:`wave_kinematics_many` and :func:`wave_ramps`).

The kernels of ``wave_excitation`` (:func:`excitation_force`) and ``morison``
(:func:`morison_force`) are here, beside the kinematics they call, so that one source
file holds all the compiled code of a wave force: numba's on-disk cache of a kernel is
renewed when the kernel's own file changes, not when a kernel it calls in another file
does.

The table holds one column per wave component and one row per quantity (rows named by
the constants below); ``params`` holds the depth (``inf``: deep water), the ramp
duration, the current, a deep-water flag and the ramp's shape.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from frylinks.jit import kernel
from frylinks.kinematics import NodeFrames

Array = np.ndarray

#: Rows of a wave table: wavenumber components ``k cos b, k sin b``, phase ``phi``,
#: frequency ``w``, amplitude ``a``, velocity factors ``a w cos b, a w sin b, a w``,
#: acceleration factors (those times ``w``), wavenumber ``k`` and depth scale
#: ``1 / (1 - exp(-2 k d))`` (1 in deep water).
KX, KY, PHASE, OMEGA, AMP, VX, VY, VZ, AX, AY, AZ, K, SCALE = range(13)
NB_ROWS = 13
#: Entries of a wave field's parameters: depth [m], ramp [s], current [m/s] (3), 1.0 for
#: deep water (0.0 otherwise) and the ramp's shape (an index of :data:`RAMP_SHAPES`).
DEPTH, RAMP, CX, CY, CZ, DEEP, SHAPE = range(7)
NB_PARAMS = 7
#: Shapes of the start-up ramp ``r(t)``, ``0 <= t < T``: ``half_cosine``
#: ``(1 - cos(pi t / T)) / 2`` (WEC-Sim's ``(1 + cos(pi + pi t / T)) / 2``, the same
#: curve), ``linear`` ``t / T``.
RAMP_SHAPES = ("half_cosine", "linear")


def wave_table(amplitude: Array, omega: Array, k: Array, heading: Array, phase: Array,
               depth: float) -> Array:
    """The ``(NB_ROWS, nc)`` table of a field's components (computed once per field)."""
    table = np.zeros((NB_ROWS, len(omega)))
    cb, sb = np.cos(heading), np.sin(heading)
    aw = amplitude * omega
    table[KX], table[KY] = k * cb, k * sb
    table[PHASE], table[OMEGA], table[AMP], table[K] = phase, omega, amplitude, k
    table[VX], table[VY], table[VZ] = aw * cb, aw * sb, aw
    table[AX], table[AY], table[AZ] = aw * cb * omega, aw * sb * omega, aw * omega
    # 1 / (1 - exp(-2kd)): sinh(kd) scaled by exp(kd), exact also for small kd
    table[SCALE] = 1.0 if math.isinf(depth) else 1.0 / -np.expm1(-2.0 * k * depth)
    return table


def wave_params(depth: float, ramp: float, current: Array, shape: str = "half_cosine"
                ) -> Array:
    """The ``(NB_PARAMS,)`` parameters of a field."""
    out = np.zeros(NB_PARAMS)
    out[DEPTH], out[RAMP] = depth, ramp
    out[CX: CZ + 1] = current
    out[DEEP] = 1.0 if math.isinf(depth) else 0.0
    out[SHAPE] = RAMP_SHAPES.index(shape)
    return out


# ------------------------------------------------------------------------- kinematics


@kernel
def wave_ramp(params: Array, t: float) -> tuple[float, float]:
    """Ramp ``r(t)`` and its rate ``dr/dt``: ``(0, 0)`` before 0, ``(1, 0)`` from the
    ramp's end on, and at every time without a ramp."""
    ramp = params[RAMP]
    if ramp == 0.0 or t >= ramp:
        return 1.0, 0.0
    if t < 0.0:
        return 0.0, 0.0
    if params[SHAPE] == 1.0:
        return t / ramp, 1.0 / ramp
    x = math.pi * t / ramp
    return 0.5 * (1.0 - math.cos(x)), 0.5 * math.pi / ramp * math.sin(x)


@kernel
def wave_phase(table: Array, c: int, x: float, y: float, t: float) -> float:
    """Phase ``k_c . (x, y) - w_c t + phi_c`` of component ``c`` [rad]."""
    return (x * table[KX, c] + y * table[KY, c]) + (table[PHASE, c] - table[OMEGA, c] * t)


@kernel
def wave_elevation(table: Array, params: Array, x: float, y: float, t: float) -> float:
    """Free-surface elevation ``eta`` [m] at ``(x, y)`` and time ``t``, ramp included."""
    r = wave_ramp(params, t)[0]
    eta = 0.0
    for c in range(table.shape[1]):
        eta += math.cos(wave_phase(table, c, x, y, t)) * table[AMP, c]
    return eta * r


@kernel
def wave_kinematics(table: Array, params: Array, x: float, y: float, z: float, t: float,
                    acceleration: bool, u: Array, a: Array) -> float:
    """Fluid velocity ``u`` (the current included) and acceleration ``a`` (zeros unless
    ``acceleration``) at a point and time, world axes, written into the 3-vectors given;
    returns the elevation above the point (:func:`wave_elevation`, the same to the bit).

    Heights are clamped to the water column; the acceleration is the exact local time
    derivative of the ramped velocity (``dr/dt`` term included)."""
    r, rate = wave_ramp(params, t)
    deep = params[DEEP] != 0.0
    depth = params[DEPTH]
    z = min(z, 0.0)
    if not deep:
        z = max(z, -depth)
    eta = 0.0
    ux = uy = uz = 0.0
    ax = ay = az = 0.0
    for c in range(table.shape[1]):
        theta = wave_phase(table, c, x, y, t)
        cos_t, sin_t = math.cos(theta), math.sin(theta)
        eta += cos_t * table[AMP, c]
        k = table[K, c]
        near = math.exp(z * k)
        if deep:
            ch = sh = near
        else:
            far = math.exp(-((z + 2.0 * depth) * k))
            ch = (near + far) * table[SCALE, c]
            sh = (near - far) * table[SCALE, c]
        ux += (cos_t * ch) * table[VX, c]
        uy += (cos_t * ch) * table[VY, c]
        uz += (sin_t * sh) * table[VZ, c]
        if acceleration:
            ax += (sin_t * ch) * table[AX, c]
            ay += (sin_t * ch) * table[AY, c]
            az += (cos_t * sh) * table[AZ, c]
    u[0] = r * ux + params[CX]
    u[1] = r * uy + params[CY]
    u[2] = r * uz + params[CZ]
    if acceleration:
        a[0] = ax * r
        a[1] = ay * r
        a[2] = -az * r
        if rate != 0.0:
            a[0] += rate * ux
            a[1] += rate * uy
            a[2] += rate * uz
    else:
        a[0] = a[1] = a[2] = 0.0
    return eta * r


@kernel
def wave_ramps(params: Array, t: Array, r: Array, rate: Array) -> None:
    """:func:`wave_ramp` at each time of ``t (n,)`` into ``r`` and ``rate``."""
    for i in range(len(t)):
        r[i], rate[i] = wave_ramp(params, t[i])


@kernel
def wave_elevations(table: Array, params: Array, xy: Array, t: Array, out: Array) -> None:
    """:func:`wave_elevation` at points ``xy (n, >= 2)`` and times ``t (n,)``."""
    for i in range(len(t)):
        out[i] = wave_elevation(table, params, xy[i, 0], xy[i, 1], t[i])


@kernel
def wave_kinematics_many(table: Array, params: Array, p: Array, t: Array,
                         acceleration: bool, u: Array, a: Array) -> None:
    """:func:`wave_kinematics` at points ``p (n, 3)`` and times ``t (n,)``."""
    for i in range(len(t)):
        wave_kinematics(table, params, p[i, 0], p[i, 1], p[i, 2], t[i], acceleration, u[i],
                        a[i])


# ---------------------------------------------------------------------------- forces


@kernel
def excitation_force(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     signals: Array, gravity: Array, states: Array, static: bool,
                     force: Array, torque: Array) -> None:
    """``wave_excitation``: ``r(t) sum_c Re(A_c exp(-1j w_c t))`` per element and DOF,
    with ``data = (re, im, omega, params)``: the real and imaginary parts ``(n, 6, nc)``
    of the phasors ``A`` (wave amplitude, phase and place included), the component
    frequencies and the wave field's parameters (its ramp). Zero in statics."""
    re, im, omega, params = data
    nc = len(omega)
    if static or nc == 0:
        return
    r = wave_ramp(params, t)[0]
    cos_wt, sin_wt = np.empty(nc), np.empty(nc)
    for c in range(nc):
        cos_wt[c] = math.cos(omega[c] * t)
        sin_wt[c] = math.sin(omega[c] * t)
    for i in range(re.shape[0]):
        for j in range(6):
            s = 0.0
            for c in range(nc):
                s += re[i, j, c] * cos_wt[c] + im[i, j, c] * sin_wt[c]
            if j < 3:
                force[i, 0, j] = r * s
            else:
                torque[i, 0, j - 3] = r * s


@kernel
def morison_force(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                  signals: Array, gravity: Array, states: Array, static: bool,
                  force: Array, torque: Array) -> None:
    """``morison``: ``rho (1 + ca) V a_n + 1/2 rho cd D L |u_r,n| u_r,n`` at each node
    below the wave surface (in statics: the current only, no acceleration, below
    ``z = 0``), with ``data = (diameter, length, cd, ca, volume, table, params, rho)``."""
    diameter, length, cd, ca, volume, table, params, rho = data
    f = frames[0]
    u, a = np.empty(3), np.empty(3)
    urn, an = np.empty(3), np.empty(3)
    for i in range(len(diameter)):
        x, y, z = f.p[i, 0], f.p[i, 1], f.p[i, 2]
        if static:
            if not z <= 0.0:
                continue
            for k in range(3):
                u[k] = params[CX + k]
                a[k] = 0.0
        elif not z <= wave_kinematics(table, params, x, y, z, t, True, u, a):
            continue  # above the surface
        R = f.R[i]
        ur0, ur1, ur2 = u[0] - f.v[i, 0], u[1] - f.v[i, 1], u[2] - f.v[i, 2]
        along = ur0 * R[0, 2] + ur1 * R[1, 2] + ur2 * R[2, 2]
        acc_along = a[0] * R[0, 2] + a[1] * R[1, 2] + a[2] * R[2, 2]
        urn[0], urn[1], urn[2] = ur0 - along * R[0, 2], ur1 - along * R[1, 2], \
            ur2 - along * R[2, 2]
        for k in range(3):
            an[k] = a[k] - acc_along * R[k, 2]
        speed = math.sqrt(urn[0] * urn[0] + urn[1] * urn[1] + urn[2] * urn[2])
        inertia = rho * (1.0 + ca[i]) * volume[i]
        drag = 0.5 * rho * cd[i] * diameter[i] * length[i] * speed
        for k in range(3):
            force[i, 0, k] = inertia * an[k] + drag * urn[k]
