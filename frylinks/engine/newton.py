"""Compiled parts of the generalized-alpha step that do not depend on the model.

They follow :class:`frylinks.engine.implicit.Newton` and :class:`frylinks.engine.implicit.Stepper`
operation by operation, for the dense Newton matrix of a small model: the kept tangent
weighed with the multipliers, the mass blocks, the constraint rows, equilibrated and
factored by LU with partial pivoting. The step's loop, which evaluates the model's
residual, is generated with the model's step (:mod:`.compose`).

None of them allocates (see :mod:`frylinks.jit`): the step makes its :class:`Room`
and its state arrays once, and these kernels work in them.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from frylinks.engine.kernels import world_inertia
from frylinks.jit import (
    alive,
    copy_into,
    helper,
    kernel,
    quat_mul,
    rotvec_to_quat3,
    scratch,
    scratch2,
)

Array = np.ndarray

# Tuning of the generalized-alpha Newton iterations (both paths: frylinks.engine.implicit
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


class Room(NamedTuple):
    """Work arrays of the Newton algebra of a model (``n = 6 nb + nr``): the factored
    Newton matrix (``LU``, ``piv``, ``scale``, ``rhs_scale``) and what building,
    factoring and solving it need on the way."""

    react: Array      # (6 colours, 6 nb) d(G^T lam)/d(move)
    LU: Array         # (n, n)
    piv: Array        # (n,) int
    scale: Array      # (n,)
    rhs_scale: Array  # (n,)
    ds: Array         # (6 nb,)
    g: Array          # (12 nr,)
    norm: Array       # (nr,)
    dc: Array         # (nr,)
    rhs: Array        # (n,)
    y: Array          # (n,)
    x: Array          # (n,)
    reaction: Array   # (6 nb,)
    u: Array          # (6 nb,)
    gu: Array         # (nr,)
    du: Array         # (nb, 6)
    dl: Array         # (nr,)
    zero: Array       # (nb, 6) zeros


@kernel(allocates=True)
def room(nb: int, nr: int, colours: int) -> Room:
    """The :class:`Room` of a model of ``nb`` bodies, ``nr`` constraint rows and
    ``colours`` colours of its tangent."""
    n = 6 * nb + nr
    return Room(np.zeros((6 * colours, 6 * nb)), np.zeros((n, n)), np.arange(n),
                np.ones(n), np.ones(n), np.empty(6 * nb), np.empty(12 * nr), np.empty(nr),
                np.empty(nr), np.empty(n), np.empty(n), np.empty(n), np.empty(6 * nb),
                np.empty(6 * nb), np.empty(nr), np.empty((nb, 6)), np.empty(nr),
                np.zeros((nb, 6)))


@kernel
def reactions(dV: Array, lam: Array, rows: Array, cols: Array, out: Array) -> None:
    """``d(G^T lam)/d(move)`` ``(colours * 6, 6 nb)`` into ``out`` from the kept
    derivatives ``dV`` of G's entries (``rows``, ``cols``: each entry's row and column,
    -1 for ground)."""
    out[:] = 0.0
    for cd in range(dV.shape[0]):
        for e in range(dV.shape[1]):
            if cols[e] >= 0 and dV[cd, e] != 0.0:
                out[cd, cols[e]] += dV[cd, e] * lam[rows[e]]
    alive(dV)
    alive(lam)
    alive(rows)
    alive(cols)
    alive(out)


@kernel
def lu_factor(LU: Array, piv: Array) -> bool:
    """LU with partial pivoting of a square matrix, in place; False when singular."""
    n = LU.shape[0]
    for c in range(n):
        piv[c] = c
    ok = True
    for c in range(n):
        if not ok:
            break
        p = c
        big = abs(LU[c, c])
        for r in range(c + 1, n):
            if abs(LU[r, c]) > big:
                big = abs(LU[r, c])
                p = r
        if big == 0.0 or not math.isfinite(big):
            ok = False
            break
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
    alive(LU)
    alive(piv)
    return ok


@kernel
def lu_solve(LU: Array, piv: Array, b: Array, y: Array, x: Array) -> None:
    """``x`` with ``A x = b`` from :func:`lu_factor` (``y``: work room)."""
    n = len(b)
    for i in range(n):
        s = b[piv[i]]
        for k in range(i):
            s -= LU[i, k] * y[k]
        y[i] = s
    for i in range(n - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, n):
            s -= LU[i, k] * x[k]
        x[i] = s / LU[i, i]
    alive(LU)
    alive(piv)
    alive(b)
    alive(y)
    alive(x)


@kernel
def factor(Dtan: Array, dV: Array, lam: Array, bp: float, mass: Array, values: Array,
           vrows: Array, vcols: Array, colour: Array, prow: Array, pcol: Array, nr: int,
           W: Room, slot: Array, C: Array) -> bool:
    """The equilibrated Newton matrix, factored into ``W`` (``LU``, ``piv``, ``scale``,
    ``rhs_scale``); False when singular (:meth:`frylinks.engine.implicit.Newton.factor`).
    ``slot`` and ``C``: the added mass between bodies (:mod:`.kernels`), whose pairs
    the pattern ``prow, pcol`` holds."""
    nb = mass.shape[0]
    K = W.LU
    K[:] = 0.0
    if nr:
        reactions(dV, lam, vrows, vcols, W.react)
    for k in range(len(prow)):
        i, j = prow[k], pcol[k]
        for a in range(6):
            for d in range(6):
                tan = Dtan[6 * colour[j] + d, 6 * i + a]
                if nr:
                    tan = tan - W.react[6 * colour[j] + d, 6 * i + a]
                value = tan / bp
                if i == j:
                    value += mass[i, a, d]
                elif slot[i] >= 0 and slot[j] >= 0:
                    value += C[6 * slot[i] + a, 6 * slot[j] + d]
                K[6 * i + a, 6 * j + d] = value
    ds = W.ds
    for i in range(6 * nb):
        diagonal = abs(K[i, i])
        ds[i] = 1.0 / math.sqrt(diagonal if diagonal > 0 else 1.0)
    for k in range(len(prow)):
        i, j = prow[k], pcol[k]
        for a in range(6):
            for d in range(6):
                K[6 * i + a, 6 * j + d] = K[6 * i + a, 6 * j + d] * ds[6 * i + a] * ds[6 * j + d]
    for i in range(6 * nb):
        W.scale[i] = ds[i]
        W.rhs_scale[i] = ds[i] / bp
    if nr:
        g, norm = W.g, W.norm
        norm[:] = 0.0
        for e in range(len(values)):
            g[e] = 0.0
            if vcols[e] >= 0:
                g[e] = values[e] * ds[vcols[e]]
                norm[vrows[e]] += g[e] * g[e]
        for r in range(nr):
            s = math.sqrt(norm[r])
            W.dc[r] = 1.0 / (s if s > 0 else 1.0)
        for e in range(len(values)):
            if vcols[e] >= 0:
                ge = g[e] * W.dc[vrows[e]]
                K[6 * nb + vrows[e], vcols[e]] = ge
                K[vcols[e], 6 * nb + vrows[e]] = -ge
        for r in range(nr):
            K[6 * nb + r, 6 * nb + r] = -EPS
            W.scale[6 * nb + r] = W.dc[r] * bp
            W.rhs_scale[6 * nb + r] = W.dc[r]
    ok = lu_factor(K, W.piv)
    alive(K)
    alive(ds)
    alive(W)
    alive(Dtan)
    alive(dV)
    alive(lam)
    alive(mass)
    alive(values)
    alive(vrows)
    alive(vcols)
    alive(colour)
    alive(prow)
    alive(pcol)
    alive(slot)
    alive(C)
    return ok


@kernel
def solve(W: Room, r: Array, phi: Array, delta: Array, dlam: Array) -> None:
    """Newton correction ``delta (nb, 6)``, ``dlam`` for residuals ``r (nb, 6)``,
    ``phi`` with the factors in ``W``."""
    nb = r.shape[0]
    n = len(W.scale)
    for b in range(nb):
        for j in range(6):
            W.rhs[6 * b + j] = -r[b, j] * W.rhs_scale[6 * b + j]
    for i in range(n - 6 * nb):
        W.rhs[6 * nb + i] = -phi[i] * W.rhs_scale[6 * nb + i]
    lu_solve(W.LU, W.piv, W.rhs, W.y, W.x)
    for b in range(nb):
        for j in range(6):
            delta[b, j] = W.x[6 * b + j] * W.scale[6 * b + j]
    for i in range(n - 6 * nb):
        dlam[i] = W.x[6 * nb + i] * W.scale[6 * nb + i]
    alive(W)
    alive(r)
    alive(phi)
    alive(delta)
    alive(dlam)


@kernel
def g_transpose(values: Array, vrows: Array, vcols: Array, lam: Array, out: Array) -> None:
    """``out = G^T lam`` ``(6 nb,)`` from G's entries (``vrows``, ``vcols``; -1: ground)."""
    out[:] = 0.0
    for e in range(len(values)):
        if vcols[e] >= 0:
            out[vcols[e]] += values[e] * lam[vrows[e]]
    alive(values)
    alive(vrows)
    alive(vcols)
    alive(lam)
    alive(out)


@kernel
def g_times(values: Array, vrows: Array, vcols: Array, u: Array, out: Array) -> None:
    """``out = G u`` ``(nr,)`` for ``u`` ``(6 nb,)`` from G's entries."""
    out[:] = 0.0
    for e in range(len(values)):
        if vcols[e] >= 0:
            out[vrows[e]] += values[e] * u[vcols[e]]
    alive(values)
    alive(vrows)
    alive(vcols)
    alive(u)
    alive(out)


@kernel
def residual_r(mass: Array, udot: Array, f: Array, values: Array, lam: Array, vrows: Array,
               vcols: Array, W: Room, r: Array, coupled: Array, C: Array) -> None:
    """``r = M u' - f - G^T lam`` ``(nb, 6)``, ``M`` the blocks ``mass`` and the added
    mass ``C`` between the bodies ``coupled`` (:mod:`.kernels`)."""
    nb = mass.shape[0]
    reaction = W.reaction
    g_transpose(values, vrows, vcols, lam, reaction)
    for b in range(nb):
        for i in range(6):
            s = 0.0
            for j in range(6):
                s += mass[b, i, j] * udot[b, j]
            r[b, i] = (s - f[b, i]) - reaction[6 * b + i]
    n = 6 * len(coupled)
    for i in range(n):
        s = 0.0
        for k in range(n):
            s += C[i, k] * udot[coupled[k // 6], k % 6]
        r[coupled[i // 6], i % 6] += s
    alive(coupled)
    alive(C)


@kernel
def mass_blocks(core: tuple[Any, ...], R: Array, nb: int, M: Array) -> None:
    """Each body's 6x6 mass matrix about its COG, world axes, added mass included."""
    mass, inertia, added = core[0], core[1], core[4]
    block = scratch2(3, 3)
    for i in range(nb):
        copy_into(M[i], added[i])
        for k in range(3):
            M[i, k, k] += mass[i]
        world_inertia(R[i], inertia[i], block)
        for j in range(3):
            for k in range(3):
                M[i, 3 + j, 3 + k] += block[j, k]


@kernel
def moved(x: Array, q: Array, v: Array, w: Array, bodies: Array, d: int, eps: float,
          dv: float, x1: Array, q1: Array, v1: Array, w1: Array) -> None:
    """The state with ``bodies`` moved by ``eps`` along direction ``d`` (0-2
    translation, 3-5 world rotation) and their velocities changed by ``dv``, into
    ``x1, q1, v1, w1``."""
    copy_into(x1, x)
    copy_into(q1, q)
    copy_into(v1, v)
    copy_into(w1, w)
    e = scratch(3)
    dq = scratch(4)
    for b in bodies:
        if d < 3:
            x1[b, d] += eps
            v1[b, d] += dv
        else:
            e[0] = 0.0
            e[1] = 0.0
            e[2] = 0.0
            e[d - 3] = eps
            rotvec_to_quat3(e, dq)
            quat_mul(dq, q[b], q1[b])
            w1[b, d - 3] += dv


@kernel
def kinematics(x0: Array, q0: Array, base_a: Array, shift: Array, u_base: Array,
               udot: Array, h: float, beta: float, gamma: float, am: float, af: float,
               x1: Array, q1: Array, v1: Array, w1: Array, a1: Array) -> None:
    """The step's end ``x1, q1, v1, w1`` and ``a1`` for accelerations ``udot``."""
    c = (1.0 - af) / (1.0 - am)
    hb = h * beta
    hg = h * gamma
    dq = scratch(4)
    rv = scratch(3)
    for i in range(len(x0)):
        for j in range(6):
            a1[i, j] = base_a[i, j] + c * udot[i, j]
        for j in range(3):
            x1[i, j] = x0[i, j] + h * (shift[i, j] + hb * a1[i, j])
            v1[i, j] = u_base[i, j] + hg * a1[i, j]
            w1[i, j] = u_base[i, 3 + j] + hg * a1[i, 3 + j]
            rv[j] = h * (shift[i, 3 + j] + hb * a1[i, 3 + j])
        rotvec_to_quat3(rv, dq)
        quat_mul(dq, q0[i], q1[i])
        n = math.sqrt(q1[i, 0] ** 2 + q1[i, 1] ** 2 + q1[i, 2] ** 2 + q1[i, 3] ** 2)
        for j in range(4):
            q1[i, j] = q1[i, j] / n


@helper
def max_error(delta: Array, scale: float) -> float:
    """``max |delta| / units`` (m relative to the model's size, rad)."""
    err = 0.0
    for b in range(delta.shape[0]):
        for j in range(6):
            e = abs(delta[b, j]) / (scale if j < 3 else 1.0)
            if e > err or math.isnan(e) or math.isnan(err):  # NaN wins, as numpy's max
                err = e if not math.isnan(err) else err
    alive(delta)
    return err


@kernel
def velocity_correction(W: Room, values: Array, vrows: Array, vcols: Array,
                        velocity: Array, v: Array, w: Array) -> None:
    """Velocities put back on ``G u = velocity`` in the Newton matrix's metric."""
    nb = len(v)
    nr = len(velocity)
    if nr:
        u = W.u
        for b in range(nb):
            for j in range(3):
                u[6 * b + j] = v[b, j]
                u[6 * b + 3 + j] = w[b, j]
        gu = W.gu
        g_times(values, vrows, vcols, u, gu)
        for r in range(nr):
            gu[r] = gu[r] - velocity[r]
        solve(W, W.zero, gu, W.du, W.dl)
        for b in range(nb):
            for j in range(3):
                v[b, j] += W.du[b, j]
                w[b, j] += W.du[b, 3 + j]
        alive(u)
        alive(gu)
    alive(W)
    alive(values)
    alive(vrows)
    alive(vcols)
    alive(velocity)
    alive(v)
    alive(w)


# ------------------------------------------------ the step's array algebra, compiled once

@kernel
def predict(v0: Array, w0: Array, z0: Array, m_udot: Array, m_a: Array, m_lam: Array,
            m_zdot: Array, m_udot_prev: Array, m_zdot_prev: Array, h_prev: float, h: float,
            coeff: Array, base_a: Array, shift: Array, u_base: Array, udot: Array,
            lam: Array, z1: Array) -> None:
    """The step's constants ``base_a, shift, u_base`` and the predictor ``udot, lam,
    z1`` (accelerations and state rates extrapolated from the last two steps)."""
    am, af, gamma, beta = coeff[0], coeff[1], coeff[2], coeff[3]
    cs = h * (0.5 - beta)
    cb = h * (1.0 - gamma)
    ratio = h / h_prev if h_prev > 0 else 0.0
    for i in range(len(v0)):
        for j in range(6):
            u0 = v0[i, j] if j < 3 else w0[i, j - 3]
            base_a[i, j] = (af * m_udot[i, j] - am * m_a[i, j]) / (1.0 - am)
            shift[i, j] = u0 + cs * m_a[i, j]
            u_base[i, j] = u0 + cb * m_a[i, j]
            udot[i, j] = m_udot[i, j]
            if h_prev > 0:
                udot[i, j] += ratio * (m_udot[i, j] - m_udot_prev[i, j])
    copy_into(lam, m_lam)
    for i in range(len(z0)):
        zd = m_zdot[i]
        if h_prev > 0:
            zd += ratio * (m_zdot[i] - m_zdot_prev[i])
        z1[i] = z0[i] + 0.5 * h * (m_zdot[i] + zd)


@kernel
def finite(r: Array, phi: Array) -> bool:
    """Every entry of ``r`` and ``phi`` finite."""
    for b in range(r.shape[0]):
        for j in range(r.shape[1]):
            if not math.isfinite(r[b, j]):
                return False
    for a in phi:
        if not math.isfinite(a):
            return False
    return True


@kernel
def update(udot: Array, lam: Array, delta: Array, dlam: Array, bp: float, z0: Array,
           m_zdot: Array, rz: Array, h: float, z1: Array, scale: float) -> float:
    """Newton's update in place: ``udot += bp delta``, ``lam += dlam``, the states'
    trapezoidal rule ``z1 = z0 + h/2 (z0' + z1')``; returns the size of the
    correction (m relative to the model's size, rad; the states' relative change
    weighed by NEWTON_TOL / STATE_TOL)."""
    for b in range(udot.shape[0]):
        for j in range(6):
            udot[b, j] = udot[b, j] + bp * delta[b, j]
    for r in range(len(lam)):
        lam[r] = lam[r] + dlam[r]
    err = max_error(delta, scale) if len(delta) else 0.0
    if len(z1):
        change = 0.0
        big = 0.0
        for i in range(len(z1)):
            zn = z0[i] + 0.5 * h * (m_zdot[i] + rz[i])
            d = abs(zn - z1[i])
            if d > change or math.isnan(d) or math.isnan(change):  # NaN wins
                change = d if not math.isnan(change) else change
            if abs(zn) > big or math.isnan(zn) or math.isnan(big):
                big = abs(zn) if not math.isnan(big) else big
            z1[i] = zn
        err = max(err, change / max(big, 1e-300) * (NEWTON_TOL / STATE_TOL))
    alive(udot)
    alive(lam)
    alive(delta)
    alive(dlam)
    alive(z0)
    alive(m_zdot)
    alive(rz)
    alive(z1)
    return err


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
    copy_into(anchor[0], x)
    copy_into(anchor[1], q)
    copy_into(anchor[2], v)
    copy_into(anchor[3], w)
    copy_into(anchor[4], z)
    copy_into(anchor[5], udot)
    copy_into(anchor[6], lam)
    anchor[7][0] = t
    anchor[7][1] = h


@kernel
def gradient_column(Dtan: Array, dV: Array, row: int, r1: Array, r0: Array, vals1: Array,
                    vals0: Array, eps: float) -> None:
    """One finite difference of the residual and of G's entries into the tangent."""
    nb = r1.shape[0]
    for b in range(nb):
        for j in range(6):
            Dtan[row, 6 * b + j] = (r1[b, j] - r0[b, j]) / eps
    for e in range(len(vals1)):
        dV[row, e] = (vals1[e] - vals0[e]) / eps


@kernel
def add_reactions(Dtan: Array, dV: Array, lam: Array, rows: Array, cols: Array, W: Room
                  ) -> None:
    """The kept tangent made independent of the multipliers (see Newton.build)."""
    reactions(dV, lam, rows, cols, W.react)
    for i in range(Dtan.shape[0]):
        for j in range(Dtan.shape[1]):
            Dtan[i, j] = Dtan[i, j] + W.react[i, j]


@kernel
def accepted(x: Array, q: Array, v: Array, w: Array, z: Array, mem: tuple[Array, ...],
             h_prev: Array, cx: Array, cq: Array, cv: Array, cw: Array, cz: Array,
             mu: Array, ma: Array, ml: Array, mz: Array, mup: Array, mzp: Array, hp: float
             ) -> None:
    """A step's end copied into the run's state and memory arrays."""
    copy_into(x, cx)
    copy_into(q, cq)
    copy_into(v, cv)
    copy_into(w, cw)
    copy_into(z, cz)
    copy_into(mem[0], mu)
    copy_into(mem[1], ma)
    copy_into(mem[2], ml)
    copy_into(mem[3], mz)
    copy_into(mem[4], mup)
    copy_into(mem[5], mzp)
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
def put_state(x: Array, q: Array, v: Array, w: Array, z: Array, sx: Array, sq: Array,
              sv: Array, sw: Array, sz: Array) -> None:
    """``x, q, v, w, z`` set to ``sx, sq, sv, sw, sz``."""
    copy_into(x, sx)
    copy_into(q, sq)
    copy_into(v, sv)
    copy_into(w, sw)
    copy_into(z, sz)


@kernel
def put_memory(mu: Array, ma: Array, ml: Array, mz: Array, mup: Array, mzp: Array,
               mem: tuple[Array, Array, Array, Array, Array, Array]) -> None:
    """The memory arrays set to ``mem``'s."""
    copy_into(mu, mem[0])
    copy_into(ma, mem[1])
    copy_into(ml, mem[2])
    copy_into(mz, mem[3])
    copy_into(mup, mem[4])
    copy_into(mzp, mem[5])


@kernel(allocates=True)
def step_room(nb: int, nr: int, nz: int, colours: int, na: int) -> Any:
    """Every array of a generalized-alpha step (see the generated ``advance_ga``): made
    once per run and passed to each call of the entry. The pending (step length, end time, depth)
    of halved steps: two per halving and the step."""
    stack = 2 * MAX_HALVINGS + 2
    return (room(nb, nr, colours), np.empty(stack), np.empty(stack),
            np.zeros(stack, dtype=np.int64),
            np.zeros((nb, 3)), np.zeros((nb, 4)), np.zeros((nb, 3)), np.zeros((nb, 3)),
            np.zeros(nz),  # cx, cq, cv, cw, cz
            np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros(nr), np.zeros(nz),
            np.zeros((nb, 6)), np.zeros(nz),  # mu, ma, ml, mz, mup, mzp
            np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros((nb, 6)),  # base_a, shift, u_base
            np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros(nr), np.zeros(nz),  # udot, a1, lam, z1
            np.zeros((nb, 3)), np.zeros((nb, 4)), np.zeros((nb, 3)), np.zeros((nb, 3)),
            np.zeros((nb, 3)), np.zeros((nb, 4)), np.zeros((nb, 3)), np.zeros((nb, 3)),
            np.zeros(nz),  # x1, q1, v1, w1; bx, bq, bv, bw, bz
            np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros(nr),  # b_udot, b_a, b_lam
            np.zeros((nb, 3)), np.zeros((nb, 4)), np.zeros((nb, 3)), np.zeros((nb, 3)),
            np.zeros((nb, 6, 6)), np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros(nr),
            np.zeros((nb, 6)), np.zeros(nr), np.zeros(12 * nr), np.zeros(nr),
            np.zeros((nb, 6, 6)), np.zeros(nz), np.zeros(na))
