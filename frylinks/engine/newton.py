"""Compiled parts of the generalized-alpha step that do not depend on the model.

They follow :class:`frylinks.implicit.Newton` and :class:`frylinks.implicit.Stepper`
operation by operation, for the dense Newton matrix of a small model: the kept tangent
weighed with the multipliers, the mass blocks, the constraint rows, equilibrated and
factored by LU with partial pivoting. The step's loop, which evaluates the model's
residual, is generated with the model's step (:mod:`.compose`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..jit import kernel, quat_mul, rotvec_to_quat3
from .kernels import world_inertia

Array = np.ndarray

# Tuning of the generalized-alpha Newton iterations (both paths: frylinks.implicit
# and the compiled step read them here).
#: Newton stops when a correction is below this (m, relative to the model's size; rad).
NEWTON_TOL = 1e-9
#: ... and when the force types' states change by less than this, relative to their
#: largest (they converge by fixed point, about 50-fold an iteration for radiation, so
#: what is left is below 1e-9).
STATE_TOL = 1e-7
#: Iterations allowed in one step.
MAX_ITERATIONS = 24
#: Builds of the Newton matrix allowed in one step; a step that needs more is halved.
MAX_BUILDS = 3
#: The matrix is refactored at the iterate (tangent kept) when its contraction rate
#: predicts more iterations than this.
REFRESH_AFTER = 2.0
#: A correction this many times larger than the last (the first after a new matrix) is
#: divergence, as is one larger than the last with the same matrix.
JUMP = 4.0
#: A step Newton cannot solve is halved at most this many times.
MAX_HALVINGS = 6
#: Finite-difference step of the tangent matrix (m relative to the model's size; rad).
FD_STEP = 1e-7
#: Relative regularisation of the constraint block (redundant constraints).
EPS = 1e-10


@kernel
def reactions(dV: Array, lam: Array, rows: Array, cols: Array, nb: int) -> Array:
    """``d(G^T lam)/d(move)`` ``(colours * 6, 6 nb)`` from the kept derivatives ``dV``
    of G's entries (``rows``, ``cols``: each entry's row and column, -1 for ground)."""
    out = np.zeros((dV.shape[0], 6 * nb))
    for cd in range(dV.shape[0]):
        for e in range(dV.shape[1]):
            if cols[e] >= 0 and dV[cd, e] != 0.0:
                out[cd, cols[e]] += dV[cd, e] * lam[rows[e]]
    return out


@kernel
def lu_factor(A: Array) -> tuple[Array, Array, bool]:
    """LU with partial pivoting of a square matrix (a copy); False when singular."""
    n = A.shape[0]
    LU = A.copy()
    piv = np.arange(n)
    for c in range(n):
        p = c
        big = abs(LU[c, c])
        for r in range(c + 1, n):
            if abs(LU[r, c]) > big:
                big = abs(LU[r, c])
                p = r
        if big == 0.0 or not math.isfinite(big):
            return LU, piv, False
        if p != c:
            for j in range(n):
                LU[c, j], LU[p, j] = LU[p, j], LU[c, j]
            piv[c], piv[p] = piv[p], piv[c]
        d = LU[c, c]
        for r in range(c + 1, n):
            m = LU[r, c] / d
            LU[r, c] = m
            if m != 0.0:
                for j in range(c + 1, n):
                    LU[r, j] -= m * LU[c, j]
    return LU, piv, True


@kernel
def lu_solve(LU: Array, piv: Array, b: Array) -> Array:
    """``x`` with ``A x = b`` from :func:`lu_factor`."""
    n = len(b)
    y = np.empty(n)
    for i in range(n):
        s = b[piv[i]]
        for k in range(i):
            s -= LU[i, k] * y[k]
        y[i] = s
    x = np.empty(n)
    for i in range(n - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, n):
            s -= LU[i, k] * x[k]
        x[i] = s / LU[i, i]
    return x


@kernel
def factor(Dtan: Array, dV: Array, lam: Array, bp: float, mass: Array, values: Array,
           vrows: Array, vcols: Array, colour: Array, prow: Array, pcol: Array, nr: int
           ) -> tuple[Array, Array, Array, Array, bool]:
    """The equilibrated Newton matrix, factored: ``(LU, piv, scale, rhs_scale, ok)``
    (:meth:`frylinks.implicit.Newton.factor`)."""
    nb = mass.shape[0]
    n = 6 * nb + nr
    D = Dtan - reactions(dV, lam, vrows, vcols, nb) if nr else Dtan
    K = np.zeros((n, n))
    diagonal = np.ones(6 * nb)
    for k in range(len(prow)):
        i, j = prow[k], pcol[k]
        for a in range(6):
            for d in range(6):
                value = D[6 * colour[j] + d, 6 * i + a] / bp
                if i == j:
                    value += mass[i, a, d]
                K[6 * i + a, 6 * j + d] = value
    for i in range(6 * nb):
        diagonal[i] = abs(K[i, i])
    ds = np.empty(6 * nb)
    for i in range(6 * nb):
        ds[i] = 1.0 / math.sqrt(diagonal[i] if diagonal[i] > 0 else 1.0)
    for k in range(len(prow)):
        i, j = prow[k], pcol[k]
        for a in range(6):
            for d in range(6):
                K[6 * i + a, 6 * j + d] = K[6 * i + a, 6 * j + d] * ds[6 * i + a] * ds[6 * j + d]
    scale = np.empty(n)
    rhs_scale = np.empty(n)
    for i in range(6 * nb):
        scale[i] = ds[i]
        rhs_scale[i] = ds[i] / bp
    if nr:
        g = np.zeros(len(values))
        norm = np.zeros(nr)
        for e in range(len(values)):
            if vcols[e] >= 0:
                g[e] = values[e] * ds[vcols[e]]
                norm[vrows[e]] += g[e] * g[e]
        dc = np.empty(nr)
        for r in range(nr):
            s = math.sqrt(norm[r])
            dc[r] = 1.0 / (s if s > 0 else 1.0)
        for e in range(len(values)):
            if vcols[e] >= 0:
                ge = g[e] * dc[vrows[e]]
                K[6 * nb + vrows[e], vcols[e]] = ge
                K[vcols[e], 6 * nb + vrows[e]] = -ge
        for r in range(nr):
            K[6 * nb + r, 6 * nb + r] = -EPS
            scale[6 * nb + r] = dc[r] * bp
            rhs_scale[6 * nb + r] = dc[r]
    LU, piv, ok = lu_factor(K)
    return LU, piv, scale, rhs_scale, ok


@kernel
def solve(LU: Array, piv: Array, scale: Array, rhs_scale: Array, r: Array, phi: Array,
          nb: int) -> tuple[Array, Array]:
    """Newton correction ``(delta (nb, 6), dlam)`` for residuals ``r (nb, 6)``, ``phi``."""
    n = len(scale)
    rhs = np.empty(n)
    for i in range(6 * nb):
        rhs[i] = -r.reshape(-1)[i] * rhs_scale[i]
    for i in range(n - 6 * nb):
        rhs[6 * nb + i] = -phi[i] * rhs_scale[6 * nb + i]
    x = lu_solve(LU, piv, rhs) * scale
    return x[:6 * nb].copy().reshape(nb, 6), x[6 * nb:].copy()


@kernel
def residual_r(mass: Array, udot: Array, f: Array, values: Array, lam: Array, vrows: Array,
               vcols: Array) -> Array:
    """``r = M u' - f - G^T lam`` ``(nb, 6)``."""
    nb = mass.shape[0]
    r = np.empty((nb, 6))
    for b in range(nb):
        for i in range(6):
            s = 0.0
            for j in range(6):
                s += mass[b, i, j] * udot[b, j]
            r[b, i] = s - f[b, i]
    reaction = np.zeros(6 * nb)
    for e in range(len(values)):
        if vcols[e] >= 0:
            reaction[vcols[e]] += values[e] * lam[vrows[e]]
    return r - reaction.reshape(nb, 6)


@kernel
def mass_blocks(core: tuple[Any, ...], R: Array, nb: int) -> Array:
    """Each body's 6x6 mass matrix about its COG, world axes, added mass included."""
    mass, inertia, added = core[0], core[1], core[4]
    M = added[:nb].copy()
    block = np.empty((3, 3))
    for i in range(nb):
        for k in range(3):
            M[i, k, k] += mass[i]
        world_inertia(R[i], inertia[i], block)
        M[i, 3:, 3:] += block
    return M


@kernel
def moved(x: Array, q: Array, v: Array, w: Array, bodies: Array, d: int, eps: float,
          dv: float) -> tuple[Array, Array, Array, Array]:
    """Copies of the state with ``bodies`` moved by ``eps`` along direction ``d`` (0-2
    translation, 3-5 world rotation) and their velocities changed by ``dv``."""
    x1, q1, v1, w1 = x.copy(), q.copy(), v.copy(), w.copy()
    e = np.zeros(3)
    dq = np.empty(4)
    for b in bodies:
        if d < 3:
            x1[b, d] += eps
            v1[b, d] += dv
        else:
            e[:] = 0.0
            e[d - 3] = eps
            rotvec_to_quat3(e, dq)
            quat_mul(dq, q[b], q1[b])
            w1[b, d - 3] += dv
    return x1, q1, v1, w1


@kernel
def kinematics(x0: Array, q0: Array, base_a: Array, shift: Array, u_base: Array,
               udot: Array, h: float, beta: float, gamma: float, am: float, af: float
               ) -> tuple[Array, Array, Array, Array, Array]:
    """The step's end ``x1, q1, v1, w1`` and ``a1`` for accelerations ``udot``."""
    nb = len(x0)
    a1 = base_a + (1.0 - af) / (1.0 - am) * udot
    D = shift + h * beta * a1
    u1 = u_base + h * gamma * a1
    x1 = x0 + h * D[:, :3]
    q1 = np.empty((nb, 4))
    dq = np.empty(4)
    rv = np.empty(3)
    for i in range(nb):
        for j in range(3):
            rv[j] = h * D[i, 3 + j]
        rotvec_to_quat3(rv, dq)
        quat_mul(dq, q0[i], q1[i])
        n = math.sqrt(q1[i, 0] ** 2 + q1[i, 1] ** 2 + q1[i, 2] ** 2 + q1[i, 3] ** 2)
        for j in range(4):
            q1[i, j] = q1[i, j] / n
    return x1, q1, u1[:, :3].copy(), u1[:, 3:].copy(), a1


@kernel
def max_error(delta: Array, scale: float) -> float:
    """``max |delta| / units`` (m relative to the model's size, rad)."""
    err = 0.0
    for b in range(delta.shape[0]):
        for j in range(6):
            e = abs(delta[b, j]) / (scale if j < 3 else 1.0)
            if not e <= err:  # NaN wins, as numpy's max
                err = e
    return err


@kernel
def velocity_correction(LU: Array, piv: Array, scale: Array, rhs_scale: Array,
                        values: Array, vrows: Array, vcols: Array, velocity: Array,
                        v: Array, w: Array) -> None:
    """Velocities put back on ``G u = velocity`` in the Newton matrix's metric."""
    nb = len(v)
    nr = len(velocity)
    if nr == 0:
        return
    u = np.empty(6 * nb)
    for b in range(nb):
        for j in range(3):
            u[6 * b + j] = v[b, j]
            u[6 * b + 3 + j] = w[b, j]
    Gu = np.zeros(nr)
    for e in range(len(values)):
        if vcols[e] >= 0:
            Gu[vrows[e]] += values[e] * u[vcols[e]]
    du, _ = solve(LU, piv, scale, rhs_scale, np.zeros((nb, 6)), Gu - velocity, nb)
    for b in range(nb):
        for j in range(3):
            v[b, j] += du[b, j]
            w[b, j] += du[b, 3 + j]


# ------------------------------------------------ the step's array algebra, compiled once

@kernel
def predict(v0: Array, w0: Array, z0: Array, m_udot: Array, m_a: Array, m_lam: Array,
            m_zdot: Array, m_udot_prev: Array, m_zdot_prev: Array, h_prev: float, h: float,
            coeff: Array) -> tuple[Array, Array, Array, Array, Array, Array]:
    """The step's constants ``base_a, shift, u_base`` and the predictor ``udot, lam,
    z1`` (accelerations and state rates extrapolated from the last two steps)."""
    am, af, gamma, beta = coeff[0], coeff[1], coeff[2], coeff[3]
    nb = len(v0)
    u0 = np.empty((nb, 6))
    u0[:, :3] = v0
    u0[:, 3:] = w0
    base_a = (af * m_udot - am * m_a) / (1.0 - am)
    shift = u0 + h * (0.5 - beta) * m_a
    u_base = u0 + h * (1.0 - gamma) * m_a
    udot = m_udot.copy()
    zdot = m_zdot.copy()
    if h_prev > 0:
        udot += (h / h_prev) * (m_udot - m_udot_prev)
        zdot += (h / h_prev) * (m_zdot - m_zdot_prev)
    z1 = z0 + 0.5 * h * (m_zdot + zdot)
    return base_a, shift, u_base, udot, m_lam.copy(), z1


@kernel
def finite(r: Array, phi: Array) -> bool:
    """Every entry of ``r`` and ``phi`` finite."""
    for a in r.reshape(-1):
        if not math.isfinite(a):
            return False
    for a in phi:
        if not math.isfinite(a):
            return False
    return True


@kernel
def update(udot: Array, lam: Array, delta: Array, dlam: Array, bp: float, z0: Array,
           m_zdot: Array, rz: Array, h: float, z1: Array, scale: float
           ) -> tuple[Array, Array, Array, float]:
    """Newton's update: ``udot + bp delta``, ``lam + dlam``, the states' trapezoidal
    rule ``z0 + h/2 (z0' + z1')``, and the size of the correction (m relative to the
    model's size, rad; the states' relative change weighed by NEWTON_TOL / STATE_TOL)."""
    new_udot = udot + bp * delta
    new_lam = lam + dlam
    zn = z0 + 0.5 * h * (m_zdot + rz)
    err = max_error(delta, scale) if len(delta) else 0.0
    if len(zn):
        change = np.max(np.abs(zn - z1)) / max(np.max(np.abs(zn)), 1e-300)
        err = max(err, change * (NEWTON_TOL / STATE_TOL))
    return new_udot, new_lam, zn, err


@kernel
def needed_iterations(err: float, rate: float) -> float:
    """Iterations still needed at the contraction ``rate`` to reach NEWTON_TOL."""
    if 0 < rate < 1:
        return math.log(NEWTON_TOL / err) / math.log(rate)
    if rate == 0:
        return 0.0
    return np.inf


@kernel
def keep_anchor(anchor: tuple[Array, ...], x: Array, q: Array, v: Array, w: Array, z: Array,
                udot: Array, lam: Array, t: float, h: float) -> None:
    """Where the Newton matrix was built (a resumed run rebuilds it there)."""
    anchor[0][:] = x
    anchor[1][:] = q
    anchor[2][:] = v
    anchor[3][:] = w
    anchor[4][:] = z
    anchor[5][:] = udot
    anchor[6][:] = lam
    anchor[7][0] = t
    anchor[7][1] = h


@kernel
def gradient_column(Dtan: Array, dV: Array, row: int, r1: Array, r0: Array, vals1: Array,
                    vals0: Array, eps: float) -> None:
    """One finite difference of the residual and of G's entries into the tangent."""
    Dtan[row] = ((r1 - r0) / eps).reshape(-1)
    dV[row] = (vals1 - vals0) / eps


@kernel
def add_reactions(Dtan: Array, dV: Array, lam: Array, rows: Array, cols: Array, nb: int
                  ) -> None:
    """The kept tangent made independent of the multipliers (see Newton.build)."""
    Dtan += reactions(dV, lam, rows, cols, nb)


@kernel
def accepted(x: Array, q: Array, v: Array, w: Array, z: Array, mem: tuple[Array, ...],
             h_prev: Array, cx: Array, cq: Array, cv: Array, cw: Array, cz: Array,
             mu: Array, ma: Array, ml: Array, mz: Array, mup: Array, mzp: Array, hp: float
             ) -> None:
    """A step's end copied into the run's state and memory arrays."""
    x[:] = cx
    q[:] = cq
    v[:] = cv
    w[:] = cw
    z[:] = cz
    mem[0][:] = mu
    mem[1][:] = ma
    mem[2][:] = ml
    mem[3][:] = mz
    mem[4][:] = mup
    mem[5][:] = mzp
    h_prev[0] = hp


@kernel
def state_status(x: Array, v: Array, w: Array, max_distance: float, max_speed: float
                 ) -> tuple[int, float, float]:
    """0 when the state is finite and has not run away; else 1 (non-finite) or 2 (run
    away) with the largest distance and speed."""
    big_x = 0.0
    big_v = 0.0
    for i in range(len(x)):
        for j in range(3):
            if not (math.isfinite(x[i, j]) and math.isfinite(v[i, j])
                    and math.isfinite(w[i, j])):
                return 1, 0.0, 0.0
            big_x = max(big_x, abs(x[i, j]))
            big_v = max(big_v, abs(v[i, j]))
    if big_x > max_distance or big_v > max_speed:
        return 2, big_x, big_v
    return 0, big_x, big_v


@kernel
def copies(x: Array, q: Array, v: Array, w: Array, z: Array
           ) -> tuple[Array, Array, Array, Array, Array]:
    return x.copy(), q.copy(), v.copy(), w.copy(), z.copy()


@kernel
def copy_memory(mem: tuple[Array, Array, Array, Array, Array, Array]
                ) -> tuple[Array, Array, Array, Array, Array, Array]:
    return (mem[0].copy(), mem[1].copy(), mem[2].copy(), mem[3].copy(), mem[4].copy(),
            mem[5].copy())


@kernel
def halving_stack(n: int) -> tuple[Array, Array, Array]:
    """Room for the pending (step length, end time, depth) of halved steps."""
    return np.empty(n), np.empty(n), np.zeros(n, dtype=np.int64)


@kernel
def no_factors(n: int) -> tuple[Array, Array, Array, Array]:
    """Placeholders for the factors before the first factorisation."""
    return np.zeros((n, n)), np.zeros(n, dtype=np.int64), np.ones(n), np.ones(n)
