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

from frylinks.jit import helper, kernel, scratch, scratch2
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


# ---------------------------------------------------------------------- force records


@kernel
def harmonic_record(re: Array, im: Array, omega: Array, t0: float, h: float, values: Array,
                    rates: Array) -> None:
    """Add ``S_j(t) = sum_c re[j, c] cos(w_c t) + im[j, c] sin(w_c t)`` and its time
    derivative at ``t_n = t0 + n h`` into ``values`` and ``rates`` ``(nt, m)``.

    Each component's ``(cos, sin)`` is advanced from sample to sample by one rotation
    of ``w_c h`` and computed afresh every :data:`RESYNC` samples, so that the rounding
    the rotations accumulate stays near 1e-13; ``O(nt nc m)`` multiply-adds. The
    components go :data:`GROUP` at a time, their terms added in their order: the same
    sums as one at a time, with a sample's value read and written once a group and the
    group's rotations independent of one another (0.12 s against 0.17 s for the point
    absorber's 3 hours)."""
    nt, m = values.shape
    nc = len(omega)
    rot = scratch2(5, GROUP)  # each member's cos, sin, cos and sin of w h, and w
    cs, sn, dc, ds, w = rot[0], rot[1], rot[2], rot[3], rot[4]
    for start in range(0, nt, RESYNC):
        stop = min(start + RESYNC, nt)
        t = t0 + start * h
        for c in range(0, nc, GROUP):
            g = min(GROUP, nc - c)
            for k in range(g):
                w[k] = omega[c + k]
                cs[k], sn[k] = math.cos(w[k] * t), math.sin(w[k] * t)
                dc[k], ds[k] = math.cos(w[k] * h), math.sin(w[k] * h)
            for n in range(start, stop):
                for j in range(m):
                    v, r = values[n, j], rates[n, j]
                    for k in range(g):
                        v += re[j, c + k] * cs[k] + im[j, c + k] * sn[k]
                        r += w[k] * (im[j, c + k] * cs[k] - re[j, c + k] * sn[k])
                    values[n, j], rates[n, j] = v, r
                for k in range(g):
                    cs[k], sn[k] = cs[k] * dc[k] - sn[k] * ds[k], sn[k] * dc[k] + cs[k] * ds[k]


#: Components advanced together in :func:`harmonic_record`.
GROUP = 4

#: Samples between two fresh evaluations of a component's phase in :func:`harmonic_record`.
RESYNC = 256


@helper
def record_weights(grid: Array, nt: int, t: float) -> tuple[int, float, float, float, float]:
    """Where ``t`` falls in a record ``grid = (t0, h)`` of ``nt`` samples: the sample
    ``k`` before it and the cubic Hermite weights of ``values[k], rates[k], values[k + 1],
    rates[k + 1]``; ``k = -1`` outside the record."""
    u = (t - grid[0]) / grid[1]
    k = -1
    w0 = w1 = w2 = w3 = 0.0
    if u >= 0.0 and u <= nt - 1.0:
        k = min(int(u), nt - 2)
        s = u - k
        s2 = s * s
        s3 = s2 * s
        w0 = 2.0 * s3 - 3.0 * s2 + 1.0
        w1 = (s3 - 2.0 * s2 + s) * grid[1]
        w2 = 3.0 * s2 - 2.0 * s3
        w3 = (s3 - s2) * grid[1]
    return k, w0, w1, w2, w3


# ---------------------------------------------------------------------------- forces


@kernel
def excitation_force(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     signals: Array, gravity: Array, states: Array, static: bool,
                     force: Array, torque: Array) -> None:
    """``wave_excitation``: ``r(t) sum_c Re(A_c exp(-1j w_c t))`` per element and DOF,
    with ``data = (re, im, omega, params, grid, values, rates)``: the real and imaginary
    parts ``(n, 6, nc)`` of the phasors ``A`` (wave amplitude, phase and place
    included), the component frequencies, the wave field's parameters (its ramp) and
    the sum's record (:func:`harmonic_record` on ``grid = (t0, h)``, ``(nt, 6 n)``),
    interpolated where it covers ``t`` and summed afresh elsewhere. Zero in statics."""
    re, im, omega, params, grid, values, rates = data
    nc = len(omega)
    if static or nc == 0:
        return
    r = wave_ramp(params, t)[0]
    k, w0, w1, w2, w3 = record_weights(grid, values.shape[0], t)
    n = re.shape[0]
    if k >= 0:
        for i in range(n):
            for j in range(6):
                col = 6 * i + j
                s = (w0 * values[k, col] + w1 * rates[k, col]) \
                    + (w2 * values[k + 1, col] + w3 * rates[k + 1, col])
                if j < 3:
                    force[i, 0, j] = r * s
                else:
                    torque[i, 0, j - 3] = r * s
    else:  # outside the record: the sum itself, a component at a time
        for i in range(n):
            for j in range(3):
                force[i, 0, j] = 0.0
                torque[i, 0, j] = 0.0
        for c in range(nc):
            cs, sn = r * math.cos(omega[c] * t), r * math.sin(omega[c] * t)
            for i in range(n):
                for j in range(3):
                    force[i, 0, j] += re[i, j, c] * cs + im[i, j, c] * sn
                    torque[i, 0, j] += re[i, j + 3, c] * cs + im[i, j + 3, c] * sn


@kernel
def morison_force(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                  signals: Array, gravity: Array, states: Array, static: bool,
                  force: Array, torque: Array) -> None:
    """``morison``: ``rho (1 + ca) V a_n + 1/2 rho cd D L |u_r,n| u_r,n`` at each node
    below the wave surface (in statics: the current only, no acceleration, below
    ``z = 0``), with ``data = (diameter, length, cd, ca, volume, table, params, rho)``."""
    diameter, length, cd, ca, volume, table, params, rho = data
    f = frames[0]
    u, a = scratch(3), scratch(3)
    urn, an = scratch(3), scratch(3)
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


# ------------------------------------------------------------------- second-order loads


@kernel
def pair_sum_add(pre: Array, pim: Array, qre: Array, qim: Array, sigma: Array, col: Array,
                 omega: Array, flags: Array, grid: Array, values: Array, rates: Array,
                 t: float, scale: float, out: Array) -> None:
    """Add ``scale`` times a factorised pair sum at ``t`` into ``out`` ``(m,)``
    (:class:`~frylinks_marine.drift_loads.PairSum`): its record interpolated where it
    covers ``t``, else ``Re sum_r s_r p_r q~_r`` summed (``flags[0]``: 1 for a
    difference-frequency sum, ``q~ = conj(q)``)."""
    k, w0, w1, w2, w3 = record_weights(grid, values.shape[0], t)
    if k >= 0:
        for j in range(values.shape[1]):
            out[j] += scale * ((w0 * values[k, j] + w1 * rates[k, j])
                               + (w2 * values[k + 1, j] + w3 * rates[k + 1, j]))
    else:
        sign = -1.0 if flags[0] == 1.0 else 1.0
        for r in range(len(sigma)):
            p_re = p_im = q_re = q_im = 0.0
            for i in range(len(omega)):
                c, s = math.cos(omega[i] * t), -math.sin(omega[i] * t)
                p_re += pre[r, i] * c - pim[r, i] * s
                p_im += pre[r, i] * s + pim[r, i] * c
                q_re += qre[r, i] * c - qim[r, i] * s
                q_im += qre[r, i] * s + qim[r, i] * c
            q_im *= sign
            out[col[r]] += scale * sigma[r] * (p_re * q_re - p_im * q_im)


@kernel
def wave_drift_parts(data: tuple[Any, ...], t: float, v: Array, static: bool,
                     parts: Array) -> None:
    """The parts of ``wave_drift`` at ``t`` into the rows of ``parts`` ``(4, m)``: mean
    drift, slow drift, sum-frequency load and drift damping ``-B v`` (``v`` the bodies'
    velocities ``(n, 3)``), ramped by ``r(t)^2``; in statics the mean drift only. ``data``
    as :func:`wave_drift_force`."""
    (const, params, damping,
     a_pre, a_pim, a_qre, a_qim, a_sigma, a_col, a_omega, a_flags, a_grid, a_values, a_rates,
     b_pre, b_pim, b_qre, b_qim, b_sigma, b_col, b_omega, b_flags, b_grid, b_values,
     b_rates, _) = data
    r = wave_ramp(params, t)[0]
    r2 = r * r
    # the slow-drift sum holds the diagonal, the mean, too: taken off where there is one
    has_slow = not static and len(a_sigma) > 0
    for j in range(len(const)):
        parts[0, j] = r2 * const[j]
        parts[1, j] = -parts[0, j] if has_slow else 0.0
        parts[2, j] = 0.0
        parts[3, j] = 0.0
    if not static:
        if has_slow:
            pair_sum_add(a_pre, a_pim, a_qre, a_qim, a_sigma, a_col, a_omega, a_flags, a_grid,
                         a_values, a_rates, t, r2, parts[1])
        if len(b_sigma) > 0:
            pair_sum_add(b_pre, b_pim, b_qre, b_qim, b_sigma, b_col, b_omega, b_flags, b_grid,
                         b_values, b_rates, t, r2, parts[2])
        for j in range(len(const)):
            i = j // 6
            parts[3, j] = -r2 * (damping[j, 0] * v[i, 0] + damping[j, 1] * v[i, 1])


@kernel
def wave_drift_force(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     signals: Array, gravity: Array, states: Array, static: bool,
                     force: Array, torque: Array) -> None:
    """``wave_drift``: mean + slow drift + sum-frequency load - drift damping, per element
    and DOF (:mod:`frylinks_marine.drift_loads`), with ``data = (mean (6 n,), params,
    damping (6 n, 2), *slow, *sum, work)``: the mean drift, the wave field's parameters
    (its ramp), Aranha's damping, two factorised pair sums with their records
    (:meth:`~frylinks_marine.drift_loads.PairSum.kernel_data`,
    :meth:`~frylinks_marine.force_records.ForceRecord.kernel_data`) and the force's own
    ``(4, 6 n)`` work array for the parts (nothing allocated a call)."""
    work = data[-1]
    wave_drift_parts(data, t, frames[0].v, static, work)
    for j in range(work.shape[1]):
        i, d = j // 6, j % 6
        total = (work[0, j] + work[1, j]) + (work[2, j] + work[3, j])
        if d < 3:
            force[i, 0, d] = total
        else:
            torque[i, 0, d - 3] = total


@kernel
def wave_drift_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                       signals: Array, gravity: Array, states: Array, out: Array) -> None:
    """The ``wave_drift`` outputs into ``out (n, 24)``: mean, slow drift, sum-frequency and
    damping parts, 6 DOFs each."""
    work = data[-1]
    wave_drift_parts(data, t, frames[0].v, False, work)
    for j in range(work.shape[1]):
        i, d = j // 6, j % 6
        for k in range(4):
            out[i, 6 * k + d] = work[k, j]
