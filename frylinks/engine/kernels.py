"""The compiled core of the engine: loads, constraint rows, masses, the dense solve.

These kernels are the model-independent parts of a step; :mod:`.compose` generates the
model-dependent part (the calls to each block's type kernels) around them. They follow
:mod:`.evaluate` operation by operation, so the compiled and the Python path agree to
round-off. ``core`` is the tuple built by :func:`.step_data.core_data`:

``(mass, inertia, inertia_inv, gravity, added, has_added, nb_rows, length_scale,
nb_slots, value_rows, value_cols, row_link, coupled, slot, coupling)``: ``added (nb, 6,
6)`` is each body's own added mass; ``coupling (6 ng, 6 ng)`` the added mass between
the ``ng`` bodies ``coupled`` (their own blocks zero), ``slot (nb + 1,)`` each body's
place among them (-1: none).

The mass matrix is ``M = M_b + U^T C U``: ``M_b`` block diagonal, ``U`` the selection
of the coupled bodies' velocities, ``C`` the coupling. Its inverse (:class:`MassInverse`)
keeps ``M_b^-1`` and the small ``W = C (I + S C)^-1``, ``S = U M_b^-1 U^T``, so that
``M^-1 = M_b^-1 - M_b^-1 U^T W U M_b^-1`` (Woodbury's identity in the form that needs
no inverse of ``C``, which is singular when the bodies couple in some DOFs only).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from frylinks.jit import (
    alive,
    copy_into,
    cross3,
    helper,
    kernel,
    quat_mul,
    rotvec_to_quat3,
    scratch,
    scratch2,
)
from frylinks.kinematics import BodyStates, Relative, generalized_into

Array = np.ndarray

#: Relative regularisation of the constraint system (as :mod:`frylinks.engine.linalg`).
EPS = 1e-10

#: Status codes of a compiled step (see :func:`.compose.raise_status`).
OK, NON_FINITE, RUNAWAY, VIOLATED, NOT_ASSEMBLED, SINGULAR = 0, 1, 2, 3, 4, 5
#: What an advance reports (its ``want_report``): nothing, the outputs where it ends,
#: or the outputs at each output sample it keeps (:mod:`.sampling`).
REPORT_NONE, REPORT_END, REPORT_SAMPLES = 0, 1, 2


@kernel
def body_loads(core: tuple[Any, ...], b: BodyStates, nb: int, f: Array) -> None:
    """The loads on the bodies into ``f`` ``(nb + 1, 6)`` (ground last, zero): weight
    and the gyroscopic torque ``-w x (I w)`` with the world inertia ``R I R^T``."""
    mass, inertia, gravity = core[0], core[1], core[3]
    Iw = scratch2(3, 3)
    work = scratch2(2, 3)
    Iww, t = work[0], work[1]
    for j in range(6):
        f[nb, j] = 0.0
    for i in range(nb):
        for j in range(3):
            f[i, j] = mass[i] * gravity[j]
        world_inertia(b.R[i], inertia[i], Iw)
        for j in range(3):
            Iww[j] = Iw[j, 0] * b.w[i, 0] + Iw[j, 1] * b.w[i, 1] + Iw[j, 2] * b.w[i, 2]
        cross3(b.w[i], Iww, t)
        for j in range(3):
            f[i, 3 + j] = -t[j]


@helper
def world_inertia(R: Array, inertia: Array, out: Array) -> None:
    """``R I R^T`` into ``out`` (3x3)."""
    RI = scratch2(3, 3)
    for j in range(3):
        for k in range(3):
            RI[j, k] = R[j, 0] * inertia[0, k] + R[j, 1] * inertia[1, k] + R[j, 2] * inertia[2, k]
    for j in range(3):
        for k in range(3):
            out[j, k] = RI[j, 0] * R[k, 0] + RI[j, 1] * R[k, 1] + RI[j, 2] * R[k, 2]


class MassInverse(NamedTuple):
    """The inverse of the mass matrix ``M = M_b + U^T C U`` (module doc)."""

    blocks: Array   # (nb, 6, 6) M_b^-1
    coupled: Array  # (ng,) int: the coupled bodies
    W: Array        # (6 ng, 6 ng) C (I + S C)^-1


class SolveRoom(NamedTuple):
    """Every array the dense constraint solve of a step writes, made once per call of a
    compiled step's entry (:func:`solve_room`): the kernels ``*_into`` below fill them
    and allocate nothing (see :mod:`frylinks.jit`: an allocation, or a call that may
    raise, costs a small model's step more than its arithmetic)."""

    blocks: Array   # (nb, 6, 6) M_b^-1
    coupled: Array  # (ng,) int: the coupled bodies (the core's)
    W: Array        # (6 ng, 6 ng) C (I + S C)^-1
    T: Array        # (6 ng, 6 ng) I + S C
    Tw: Array       # (6 ng, 6 ng) work of its inversion
    Ti: Array       # (6 ng, 6 ng) (I + S C)^-1
    G: Array        # (nr, 6 nb) the constraint Jacobian
    GM: Array       # (nr, 6 nb) G M_b^-1
    A: Array        # (nr, nr) G M^-1 G^T
    L: Array        # (nr, nr) the Cholesky factor of A, regularised
    YW: Array       # (nr, 6 ng)
    lam: Array      # (nr,) the multipliers of the accelerations
    mu: Array       # (nr,) the multipliers of a correction
    rhs: Array      # (nr,)
    work: Array     # (4, nr)
    t: Array        # (6 ng,)
    a0: Array       # (nb, 6) M^-1 f
    udot: Array     # (nb, 6) the accelerations
    g: Array        # (nb, 6) G^T lam
    h: Array        # (nb, 6) M^-1 G^T lam
    du: Array       # (nb, 6) a correction
    u: Array        # (nb, 6) the velocities
    rb: Array       # (nr, 2) int: the bodies of each row, ascending (-1: none)
    nrb: Array      # (nr,) int: how many
    nbr_start: Array  # (nr + 1,) int: each row's neighbours in nbr (CSR)
    nbr: Array      # int: the rows that share a body with each row, ascending
    R: Array        # (nb, 3, 3) the rotation each block of M_b^-1 was made at (nan: none)
    factored: Array  # (1,) int: L is the factor of the current G and M^-1


def row_pattern(row_bodies: Array, nr: int, nb: int) -> tuple[Array, Array, Array, Array]:
    """The sparsity of ``G`` and ``A = G M^-1 G^T``: each row's bodies ``rb`` ``(nr, 2)``
    (ascending, -1 padded) and their count ``nrb``, and the rows sharing a body with each
    row (CSR ``nbr_start``, ``nbr``, ascending), from the ``(row, body)`` pairs
    ``row_bodies`` ``(m, 2)`` (repeats allowed).

    A row of ``G`` has nonzeros in the six columns of at most two bodies (its link's);
    ``A[r, c]`` is nonzero only where rows ``r`` and ``c`` share a body. The kernels
    below loop over those entries only, in the order of the dense loops they replace:
    the products they skip are zeros, whose sum leaves every result bit for bit."""
    import scipy.sparse as sp

    pairs = np.unique(np.asarray(row_bodies, dtype=np.int64).reshape(-1, 2), axis=0)
    rb = np.full((nr, 2), -1, dtype=np.int64)
    nrb = np.zeros(nr, dtype=np.int64)
    for r, b in pairs:  # (sorted by row, then body: ascending bodies)
        rb[r, nrb[r]] = b
        nrb[r] += 1
    M = sp.csr_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(nr, max(nb, 1)))
    N = (M @ M.T).tocsr()
    N.sort_indices()
    return rb, nrb, N.indptr.astype(np.int64), N.indices.astype(np.int64)


def solve_room(core: tuple[Any, ...], nb: int) -> SolveRoom:
    """Room for the dense solve of a model with ``nb`` bodies (``core``: its core data)."""
    nr, coupled = core[6], core[12]
    rows, cols = core[9], core[10]
    keep = cols >= 0
    pattern = row_pattern(np.stack([rows[keep], cols[keep] // 6], axis=1), nr, nb)
    return _room(nb, nr, coupled, pattern)


def _room(nb: int, nr: int, coupled: Array, pattern: tuple[Array, Array, Array, Array],
          blocks: Array | None = None, W: Array | None = None,
          G: Array | None = None) -> SolveRoom:
    """A :class:`SolveRoom` of zeros, nothing kept (``R`` nan), but for the ``blocks``,
    ``W`` and ``G`` given."""
    n = 6 * len(coupled)
    z = np.zeros
    return SolveRoom(
        z((nb, 6, 6)) if blocks is None else blocks, coupled,
        z((n, n)) if W is None else W, z((n, n)), z((n, n)), z((n, n)),
        z((nr, 6 * nb)) if G is None else G, z((nr, 6 * nb)), z((nr, nr)), z((nr, nr)),
        z((nr, n)), z(nr), z(nr), z(nr), z((4, nr)), z(n), z((nb, 6)), z((nb, 6)),
        z((nb, 6)), z((nb, 6)), z((nb, 6)), z((nb, 6)), *pattern, np.full((nb, 3, 3), np.nan),
        np.zeros(1, dtype=np.int64))


@kernel
def mass_inverse_into(core: tuple[Any, ...], b: BodyStates, nb: int, S: SolveRoom) -> None:
    """The inverse of the bodies' mass matrix, added mass included (module doc), into
    ``S.blocks`` and ``S.W``.

    A body's block depends on its rotation alone (its mass, inertia and added mass are
    constants), so a block made at a rotation equal to the current one, entry by entry,
    is kept (``S.R``, nan where none is: :func:`forget`): a body that does not turn has
    its inverse made once a call of the step, not at every evaluation. A block made
    again that differs from the one before marks the factor of ``A`` out of date."""
    mass, inertia, inertia_inv, added, has_added = core[0], core[1], core[2], core[4], core[5]
    Minv, kept = S.blocks, S.R
    block = scratch2(3, 3)
    M = scratch2(6, 6)
    a = scratch2(6, 6)
    new = scratch2(6, 6)
    changed = False
    for i in range(nb):
        R = b.R[i]
        if same_rotation(R, kept[i]):
            continue
        for k in range(3):
            for m in range(3):
                kept[i, k, m] = R[k, m]
        for k in range(6):
            for m in range(6):
                new[k, m] = 0.0
        if has_added:
            for k in range(6):
                for m in range(6):
                    M[k, m] = added[i, k, m]
            for k in range(3):
                M[k, k] += mass[i]
            world_inertia(R, inertia[i], block)
            for k in range(3):
                for m in range(3):
                    M[3 + k, 3 + m] += block[k, m]
            inverse_into(M, a, new)
        else:
            for k in range(3):
                new[k, k] = 1.0 / mass[i]
            world_inertia(R, inertia_inv[i], block)
            for k in range(3):
                for m in range(3):
                    new[3 + k, 3 + m] = block[k, m]
        # a turn by round-off (a body a link keeps from turning) often leaves the
        # block as it was, to the bit: then what was made of it is kept too
        for k in range(6):
            for m in range(6):
                if Minv[i, k, m] != new[k, m]:
                    changed = True
                Minv[i, k, m] = new[k, m]
    coupled, C = core[12], core[14]
    n = 6 * len(coupled)
    if n and changed:
        # I + S C, S = U M_b^-1 U^T block diagonal
        T, W, Ti = S.T, S.W, S.Ti
        for i in range(n):
            for j in range(n):
                T[i, j] = 1.0 if i == j else 0.0
        for g in range(len(coupled)):
            for i in range(6):
                for j in range(n):
                    s = 0.0
                    for k in range(6):
                        s += Minv[coupled[g], i, k] * C[6 * g + k, j]
                    T[6 * g + i, j] += s
        inverse_into(T, S.Tw, Ti)
        for i in range(n):
            for j in range(n):
                s = 0.0
                for k in range(n):
                    s += C[i, k] * Ti[k, j]
                W[i, j] = s
        alive(T)
        alive(W)
        alive(Ti)
    if changed:
        S.factored[0] = 0
    alive(Minv)
    alive(kept)
    alive(S)


@helper
def same_rotation(R: Array, kept: Array) -> bool:
    """Whether the 3x3 ``R`` equals ``kept``, entry by entry (never where ``kept``
    is nan)."""
    for k in range(3):
        for m in range(3):
            if R[k, m] != kept[k, m]:
                return False
    return True


@kernel
def forget(S: SolveRoom) -> None:
    """Make the mass inverse and the factor of ``A`` again at their next call (an entry
    of the step starts so: the model's constants may have changed between calls)."""
    S.R[:] = np.nan
    S.factored[0] = 0
    alive(S)


def mass_inverse(core: tuple[Any, ...], b: BodyStates, nb: int) -> MassInverse:
    """The inverse of the bodies' mass matrix, added mass included (module doc)."""
    S = solve_room(core, nb)
    mass_inverse_into(core, b, nb, S)
    return MassInverse(S.blocks, S.coupled,
                       S.W if len(S.coupled) else np.asarray(core[14]))


@kernel
def add_wrenches(f: Array, body: Array, r: Array, force: Array, torque: Array, k: int
                 ) -> None:
    """Add the wrenches of attachment ``k`` (force, torque about the node) to ``f`` as
    force and torque about the COGs, element by element in order."""
    t = scratch(3)
    for i in range(len(body)):
        cross3(r[i], force[i, k], t)
        for j in range(3):
            f[body[i], j] += force[i, k, j]
        for j in range(3):
            f[body[i], 3 + j] += torque[i, k, j] + t[j]


@kernel
def link_spring(f: Array, rel: Relative, K: Array, B: Array, r0: Array, gpos: Array,
                gvel: Array, E: Array, mbody: Array, sbody: Array, Q: Array, mu: Array,
                gen: Array) -> None:
    """The link spring-damper ``Q = -K (gpos - r0) - B gvel`` on the free DOFs, into
    ``Q`` ``(n, nf)``, added to ``f`` through the twist ``mu = E (E^T E)^-1 Q`` (work
    arrays ``mu`` ``(n, 6)``, ``gen`` ``(n, 12)``)."""
    n, nf = gpos.shape
    room = scratch2(6, 6)
    EtE = room[:nf, :nf]
    work = scratch2(2, 6)
    y, z = work[0, :nf], work[1, :nf]
    for i in range(n):
        for a in range(nf):
            kx = 0.0
            bv = 0.0
            for c in range(nf):
                kx += K[i, a, c] * (gpos[i, c] - r0[i, c])
                bv += B[i, a, c] * gvel[i, c]
            Q[i, a] = -kx - bv
        for a in range(nf):
            for c in range(nf):
                s = 0.0
                for j in range(6):
                    s += E[i, j, a] * E[i, j, c]
                EtE[a, c] = s
        cholesky(EtE)
        cho_solve_into(EtE, Q[i], z, y)
        for j in range(6):
            s = 0.0
            for a in range(nf):
                s += E[i, j, a] * y[a]
            mu[i, j] = s
    generalized_into(rel, mu, gen)
    for i in range(n):
        for j in range(6):
            f[mbody[i], j] += gen[i, j]
    for i in range(n):
        for j in range(6):
            f[sbody[i], j] += gen[i, 6 + j]
    alive(f)
    alive(rel)
    alive(K)
    alive(B)
    alive(r0)
    alive(gpos)
    alive(gvel)
    alive(E)
    alive(mbody)
    alive(sbody)
    alive(Q)
    alive(mu)
    alive(gen)


@kernel
def add_rows(values: Array, velocity: Array, acceleration: Array, row_tau: Array,
             rows: Array, vel: Array, acc: Array, rel: Relative, start: int, jac: Array
             ) -> None:
    """Put a block's constraint rows into the model's arrays from row ``start``: the
    values of ``rows @ J`` (``jac``, ``(n, nc, 12)``) at ``values[12 start:]``, the
    rows over the relative twist, the velocity targets, and the acceleration
    right-hand sides ``acc - rows . kappa``."""
    n, nc = rows.shape[0], rows.shape[1]
    for i in range(n):
        for c in range(nc):
            r = start + i * nc + c
            velocity[r] = vel[i, c]
            s = 0.0
            for j in range(6):
                row_tau[r, j] = rows[i, c, j]
                s += rows[i, c, j] * rel.kappa[i, j]
            acceleration[r] = acc[i, c] - s
            for j in range(12):
                values[12 * r + j] = jac[i, c, j]


@kernel
def dense_G_into(core: tuple[Any, ...], values: Array, S: SolveRoom) -> None:
    """The constraint Jacobian ``S.G`` ``(nb_rows, 6 nb)`` from the rows' 12 values each
    (the ground's columns dropped); a changed entry marks the factor of ``A`` out of
    date."""
    rows, cols = core[9], core[10]
    G = S.G
    changed = False
    # (G's other entries stay zero: every call writes the same entries)
    for k in range(len(values)):
        if cols[k] >= 0 and G[rows[k], cols[k]] != values[k]:
            G[rows[k], cols[k]] = values[k]
            changed = True
    if changed:
        S.factored[0] = 0
    alive(G)
    alive(S)


@kernel
def factor_into(S: SolveRoom) -> bool:
    """``A = G M^-1 G^T`` into ``S.A`` and the Cholesky factor of ``A + EPS diag(A)``
    (lower) into ``S.L``; False when it is not positive definite. Kept when ``G`` and
    ``M^-1`` are those it was made of (``S.factored``, which :func:`mass_inverse_into`
    and :func:`dense_G_into` clear when they change either)."""
    if S.factored[0] == 1:
        return True
    G, blocks, coupled, W, GM, A, L = S.G, S.blocks, S.coupled, S.W, S.GM, S.A, S.L
    rb, nrb, nbr_start, nbr = S.rb, S.nrb, S.nbr_start, S.nbr
    nr = G.shape[0]
    # GM = G M_b^-1 (its other entries stay zero) and A = GM G^T, on their sparsity
    # (row_pattern): a row's bodies, a row's neighbours
    for r in range(nr):
        for p in range(nrb[r]):
            b = rb[r, p]
            for j in range(6):
                s = 0.0
                for i in range(6):
                    s += G[r, 6 * b + i] * blocks[b, i, j]
                GM[r, 6 * b + j] = s
    for r in range(nr):
        for q in range(nbr_start[r], nbr_start[r + 1]):
            c = nbr[q]
            s = 0.0
            for p in range(nrb[c]):
                b = rb[c, p]
                for i in range(6):
                    s += GM[r, 6 * b + i] * G[c, 6 * b + i]
            A[r, c] = s
    n = 6 * len(coupled)
    if n:
        # A -= Y W Y^T, Y = G M_b^-1 U^T: GM's columns of the coupled bodies
        YW = S.YW
        for r in range(nr):
            for j in range(n):
                s = 0.0
                for k in range(n):
                    s += GM[r, 6 * coupled[k // 6] + k % 6] * W[k, j]
                YW[r, j] = s
        for r in range(nr):
            for c in range(nr):
                s = 0.0
                for k in range(n):
                    s += YW[r, k] * GM[c, 6 * coupled[k // 6] + k % 6]
                A[r, c] -= s
        alive(YW)
    for r in range(nr):
        for c in range(nr):
            L[r, c] = A[r, c]
    for r in range(nr):
        L[r, r] += EPS * A[r, r] + 1e-300
    ok = cholesky(L)
    S.factored[0] = 1 if ok else 0
    alive(G)
    alive(blocks)
    alive(coupled)
    alive(W)
    alive(GM)
    alive(A)
    alive(L)
    alive(rb)
    alive(nrb)
    alive(nbr_start)
    alive(nbr)
    alive(S)
    return ok


def room_of(G: Array, Minv: MassInverse,
            pattern: tuple[Array, Array, Array, Array] | None = None) -> SolveRoom:
    """A :class:`SolveRoom` holding ``G`` and ``Minv`` (for the allocating kernels); the
    sparsity ``pattern`` (:func:`row_pattern`) given, else from ``G``'s nonzero blocks."""
    G = np.ascontiguousarray(G, dtype=float)
    nr, nb = G.shape[0], Minv.blocks.shape[0]
    if pattern is None:
        used = np.argwhere(np.abs(G.reshape(nr, nb, 6)).sum(axis=2) != 0.0)
        pattern = row_pattern(used, nr, nb)
    return _room(nb, nr, Minv.coupled, pattern, Minv.blocks, Minv.W, G)


@kernel
def cholesky(A: Array) -> bool:
    """In place: the lower Cholesky factor of a symmetric positive definite ``A``."""
    n = A.shape[0]
    ok = True
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= A[j, k] * A[j, k]
        if not s > 0.0:
            ok = False
            break
        d = math.sqrt(s)
        A[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s / d
    if ok:
        for i in range(n):
            for j in range(i + 1, n):
                A[i, j] = 0.0
    alive(A)
    return ok


@kernel
def inverse_into(M: Array, a: Array, out: Array) -> None:
    """Inverse of a small square matrix into ``out`` (``a``: work room of M's shape):
    Gauss-Jordan with partial pivoting (any mass matrix a force type adds, symmetric or
    not; a singular one gives inf or nan)."""
    n = M.shape[0]
    for i in range(n):
        for j in range(n):
            a[i, j] = M[i, j]
            out[i, j] = 1.0 if i == j else 0.0
    for c in range(n):
        p = c
        for r in range(c + 1, n):
            if abs(a[r, c]) > abs(a[p, c]):
                p = r
        if p != c:
            for j in range(n):
                a[c, j], a[p, j] = a[p, j], a[c, j]
                out[c, j], out[p, j] = out[p, j], out[c, j]
        d = a[c, c]
        for j in range(n):
            a[c, j] /= d
            out[c, j] /= d
        for r in range(n):
            if r != c:
                m = a[r, c]
                if m != 0.0:
                    for j in range(n):
                        a[r, j] -= m * a[c, j]
                        out[r, j] -= m * out[c, j]
    alive(M)
    alive(a)
    alive(out)


@kernel
def cho_solve_into(L: Array, b: Array, y: Array, x: Array) -> None:
    """``x`` with ``L L^T x = b`` (``y``: work room of b's length)."""
    n = len(b)
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * y[k]
        y[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, n):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
    alive(L)
    alive(b)
    alive(y)
    alive(x)


@kernel
def multipliers_into(A: Array, L: Array, rhs: Array, work: Array, lam: Array) -> None:
    """``lam`` with ``A lam = rhs``: the regularised solve, refined once (``work``
    ``(4, n)``: room)."""
    n = len(rhs)
    first, res, y, fix = work[0], work[1], work[2], work[3]
    cho_solve_into(L, rhs, y, first)
    for i in range(n):  # (a loop: a BLAS call costs more than the product, this small)
        s = rhs[i]
        for k in range(n):
            s -= A[i, k] * first[k]
        res[i] = s
    cho_solve_into(L, res, y, fix)
    for i in range(n):
        lam[i] = first[i] + fix[i]
    alive(A)
    alive(L)
    alive(rhs)
    alive(work)
    alive(lam)


def multipliers(A: Array, L: Array, rhs: Array) -> Array:
    """``lam`` with ``A lam = rhs`` (:func:`multipliers_into`)."""
    rhs = np.ascontiguousarray(rhs, dtype=float)
    lam = np.empty(len(rhs))
    multipliers_into(np.ascontiguousarray(A, dtype=float), np.ascontiguousarray(L, dtype=float),
                     rhs, np.empty((4, len(rhs))), lam)
    return lam


@kernel
def minv_into(blocks: Array, coupled: Array, W: Array, f: Array, out: Array, t: Array
              ) -> None:
    """``M^-1 f`` into ``out`` for ``f`` ``(nb, 6)`` (rows past nb ignored; ``t``:
    room of ``6 ng``)."""
    nb = blocks.shape[0]
    for b in range(nb):
        for i in range(6):
            s = 0.0
            for j in range(6):
                s += blocks[b, i, j] * f[b, j]
            out[b, i] = s
    n = 6 * len(coupled)
    if n:
        # out -= M_b^-1 U^T W U out
        for i in range(n):
            s = 0.0
            for k in range(n):
                s += W[i, k] * out[coupled[k // 6], k % 6]
            t[i] = s
        for g in range(len(coupled)):
            b = coupled[g]
            for i in range(6):
                s = 0.0
                for j in range(6):
                    s += blocks[b, i, j] * t[6 * g + j]
                out[b, i] -= s
    alive(blocks)
    alive(coupled)
    alive(W)
    alive(f)
    alive(out)
    alive(t)


def minv(Minv: MassInverse, f: Array) -> Array:
    """``M^-1 f`` for ``f (nb, 6)``."""
    nb = Minv.blocks.shape[0]
    out = np.empty((nb, 6))
    minv_into(Minv.blocks, Minv.coupled, Minv.W, np.ascontiguousarray(f, dtype=float), out,
              np.zeros(6 * len(Minv.coupled)))
    return out


@kernel
def G_T_into(G: Array, rb: Array, nrb: Array, lam: Array, out: Array) -> None:
    """``G^T lam`` into ``out`` ``(nb, 6)`` (``rb``, ``nrb``: each row's bodies,
    :func:`row_pattern`)."""
    for b in range(out.shape[0]):
        for j in range(6):
            out[b, j] = 0.0
    for r in range(G.shape[0]):
        for p in range(nrb[r]):
            b = rb[r, p]
            for i in range(6):
                out[b, i] += G[r, 6 * b + i] * lam[r]
    alive(G)
    alive(rb)
    alive(nrb)
    alive(lam)
    alive(out)


@kernel
def G_dot_into(G: Array, rb: Array, nrb: Array, u: Array, out: Array) -> None:
    """``G u`` into ``out`` for ``u (nb, 6)`` (``rb``, ``nrb``: each row's bodies,
    :func:`row_pattern`)."""
    for r in range(G.shape[0]):
        s = 0.0
        for p in range(nrb[r]):
            b = rb[r, p]
            for i in range(6):
                s += G[r, 6 * b + i] * u[b, i]
        out[r] = s
    alive(G)
    alive(rb)
    alive(nrb)
    alive(u)
    alive(out)


@kernel
def correction_into(S: SolveRoom, error: Array, du: Array) -> None:
    """Smallest mass-weighted ``du (nb, 6)`` with ``G du = -error`` (``S`` factored)."""
    multipliers_into(S.A, S.L, error, S.work, S.mu)
    G_T_into(S.G, S.rb, S.nrb, S.mu, S.g)
    minv_into(S.blocks, S.coupled, S.W, S.g, du, S.t)
    for b in range(du.shape[0]):
        for j in range(6):
            du[b, j] = -du[b, j]
    alive(S)
    alive(error)
    alive(du)


@kernel
def accelerations_into(S: SolveRoom, f: Array, acc: Array) -> bool:
    """Accelerations ``S.udot`` ``(nb, 6)`` and multipliers ``S.lam`` of
    ``M u' = f + G^T lam``, ``G u' = acc`` (``f``: the bodies' rows first; ``S``: the
    mass inverse and ``G`` made); False when the constraint system is singular (the
    accelerations then without the constraints, the multipliers zero)."""
    a0, udot, lam = S.a0, S.udot, S.lam
    nb = a0.shape[0]
    minv_into(S.blocks, S.coupled, S.W, f, a0, S.t)
    ok = True
    if len(lam) == 0:
        ok = True
    else:
        ok = factor_into(S)
    if ok and len(lam):
        rhs = S.rhs
        G_dot_into(S.G, S.rb, S.nrb, a0, rhs)
        for i in range(len(rhs)):
            rhs[i] = acc[i] - rhs[i]
        multipliers_into(S.A, S.L, rhs, S.work, lam)
        G_T_into(S.G, S.rb, S.nrb, lam, S.g)
        minv_into(S.blocks, S.coupled, S.W, S.g, S.h, S.t)
        for b in range(nb):
            for j in range(6):
                udot[b, j] = a0[b, j] + S.h[b, j]
    else:
        for i in range(len(lam)):
            lam[i] = 0.0
        for b in range(nb):
            for j in range(6):
                udot[b, j] = a0[b, j]
    alive(S)
    alive(f)
    alive(acc)
    alive(a0)
    alive(udot)
    alive(lam)
    return ok


@kernel
def turn(q: Array, du: Array) -> None:
    """``q = exp(du) * q`` renormalised, in place, for every body."""
    dq = scratch(4)
    out = scratch(4)
    for i in range(len(q)):
        rotvec_to_quat3(du[i, 3:], dq)
        quat_mul(dq, q[i], out)
        n = math.sqrt(out[0] ** 2 + out[1] ** 2 + out[2] ** 2 + out[3] ** 2)
        for j in range(4):
            q[i, j] = out[j] / n


@kernel
def normalise(q: Array) -> None:
    """Quaternions made unit, in place."""
    for i in range(len(q)):
        n = math.sqrt(q[i, 0] ** 2 + q[i, 1] ** 2 + q[i, 2] ** 2 + q[i, 3] ** 2)
        for j in range(4):
            q[i, j] = q[i, j] / n


@kernel
def take(a: Array, index: Array, out: Array) -> None:
    """``out = a[index]``."""
    for i in range(len(index)):
        out[i] = a[index[i]]


@kernel
def worst(res: Array) -> tuple[float, int]:
    """Largest ``|res|`` and its row (NaN, and its row, if any is NaN; as ``np.max``)."""
    big = 0.0
    row = -1
    for i in range(len(res)):
        a = abs(res[i])
        if math.isnan(a):
            return a, i
        if row < 0 or a > big:
            big = a
            row = i
    return big, row


# ------------------------------------------------------ the integrators' state algebra

@kernel(allocates=True)
def views(y: Array, nb: int) -> tuple[Array, Array, Array, Array, Array]:
    """``x, q, v, w, z`` as views of the ODE vector ``y = [x, q, v, w, z]``."""
    return (y[:3 * nb].reshape(nb, 3), y[3 * nb:7 * nb].reshape(nb, 4),
            y[7 * nb:10 * nb].reshape(nb, 3), y[10 * nb:13 * nb].reshape(nb, 3), y[13 * nb:])


@kernel
def rk4_combine_into(y: Array, dt: float, r: Array, out: Array) -> None:
    """``y + dt/6 (r1 + 2 r2 + 2 r3 + r4)`` into ``out``, with the stage rates as rows
    of ``r`` (in numpy's order of operations)."""
    c = dt / 6.0
    for i in range(len(y)):
        out[i] = y[i] + c * (((r[0, i] + 2 * r[1, i]) + 2 * r[2, i]) + r[3, i])
    alive(y)
    alive(r)
    alive(out)


@kernel
def rate(out: Array, nb: int, v: Array, q: Array, w: Array, udot: Array, zdot: Array
         ) -> None:
    """The ODE rate ``[v, q', u'_lin, u'_ang, z']`` into ``out``."""
    wq = scratch(4)
    qd = scratch(4)
    wq[0] = 0.0
    for i in range(nb):
        for j in range(3):
            out[3 * i + j] = v[i, j]
            out[7 * nb + 3 * i + j] = udot[i, j]
            out[10 * nb + 3 * i + j] = udot[i, 3 + j]
        # q' = 0.5 [0, w] * q (as quat_rate)
        wq[1] = w[i, 0]
        wq[2] = w[i, 1]
        wq[3] = w[i, 2]
        quat_mul(wq, q[i], qd)
        for j in range(4):
            out[3 * nb + 4 * i + j] = 0.5 * qd[j]
    for i in range(len(zdot)):
        out[13 * nb + i] = zdot[i]
    alive(out)
    alive(v)
    alive(q)
    alive(w)
    alive(udot)
    alive(zdot)


@kernel
def check(y: Array, nb: int, max_distance: float, max_speed: float
          ) -> tuple[int, float, float]:
    """Status of a new state: finite, and not run away (largest distance, speed)."""
    big_x = 0.0
    big_v = 0.0
    for i in range(3 * nb):
        a = y[i]
        b = y[7 * nb + i]
        c = y[10 * nb + i]
        if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
            return NON_FINITE, 0.0, 0.0
        big_x = max(big_x, abs(a))
        big_v = max(big_v, abs(b))
    if big_x > max_distance or big_v > max_speed:
        return RUNAWAY, big_x, big_v
    return OK, big_x, big_v


@kernel
def move(x: Array, q: Array, du: Array) -> None:
    """Positions moved by ``du`` (translations, then rotation vectors), in place."""
    for i in range(len(x)):
        for j in range(3):
            x[i, j] += du[i, j]
    turn(q, du)


@kernel
def project_velocities_into(S: SolveRoom, v: Array, w: Array, velocity: Array) -> None:
    """Velocities put on ``G u = velocity`` (mass-weighted least change), in place
    (``S`` factored)."""
    nb = len(v)
    u, du, gu = S.u, S.du, S.rhs
    for i in range(nb):
        for j in range(3):
            u[i, j] = v[i, j]
            u[i, 3 + j] = w[i, j]
    G_dot_into(S.G, S.rb, S.nrb, u, gu)
    for r in range(len(gu)):
        gu[r] = gu[r] - velocity[r]
    correction_into(S, gu, du)
    for i in range(nb):
        for j in range(3):
            v[i, j] += du[i, j]
            w[i, j] += du[i, 3 + j]
    alive(S)
    alive(v)
    alive(w)
    alive(velocity)
    alive(u)
    alive(du)
    alive(gu)


@kernel
def put_rows(residual: Array, start: int, res: Array) -> None:
    """A block's residual ``(n, nc)`` into ``residual`` from row ``start``."""
    n, nc = res.shape
    for i in range(n):
        for c in range(nc):
            residual[start + i * nc + c] = res[i, c]


@kernel
def put(a: Array, index: Array, values: Array) -> None:
    """``a[index] = values``."""
    for i in range(len(index)):
        a[index[i]] = values[i]


@kernel
def assign(dst: Array, src: Array) -> None:
    """``dst[:] = src``."""
    copy_into(dst, src)


@helper
def _put_rows(row: Array, i: int, a: Array) -> int:
    """``a`` (2-D) row by row into ``row`` from ``i``; the index after it."""
    for b in range(a.shape[0]):
        for c in range(a.shape[1]):
            row[i] = a[b, c]
            i += 1
    return i


@helper
def _put_values(row: Array, i: int, a: Array) -> int:
    """``a`` (1-D) into ``row`` from ``i``; the index after it."""
    for b in range(a.shape[0]):
        row[i + b] = a[b]
    return i + a.shape[0]


@kernel
def keep_sample(kept: Array, j: int, x: Array, q: Array, v: Array, w: Array, z: Array,
                angle_ref: Array, out_links: Array, out_forces: Array, out_udot: Array,
                out_lam: Array, out_zdot: Array, out_extra: Array) -> int:
    """Row ``j`` of ``kept`` set to an output sample of a call that covers several: the
    state ``[x, q, v, w, z, angle_ref]`` and its report ``[out_links, out_forces,
    out_udot, out_lam, out_zdot, out_extra]``
    (:func:`frylinks.engine.sampling.sample_room`); the next row. A full ``kept``
    keeps nothing."""
    if j >= kept.shape[0]:
        return j
    row = kept[j]
    i = _put_rows(row, 0, x)
    i = _put_rows(row, i, q)
    i = _put_rows(row, i, v)
    i = _put_rows(row, i, w)
    i = _put_values(row, i, z)
    i = _put_values(row, i, angle_ref)
    i = _put_rows(row, i, out_links)
    i = _put_rows(row, i, out_forces)
    i = _put_rows(row, i, out_udot)
    i = _put_values(row, i, out_lam)
    i = _put_values(row, i, out_zdot)
    _put_values(row, i, out_extra)
    return j + 1


@kernel
def rk4_stage_into(y: Array, t: float, dt: float, r: Array, st: int, out: Array) -> float:
    """The state (into ``out``) and time of rk4's stage ``st`` (0-3) from the rates of
    the stages before it (as :func:`frylinks.engine.integrators.rk4`)."""
    t_out = t
    if st == 0:
        for i in range(len(y)):
            out[i] = y[i]
    elif st == 3:
        for i in range(len(y)):
            out[i] = y[i] + dt * r[2, i]
        t_out = t + dt
    else:
        h = 0.5 * dt
        for i in range(len(y)):
            out[i] = y[i] + h * r[st - 1, i]
        t_out = t + 0.5 * dt
    alive(y)
    alive(r)
    alive(out)
    return t_out


# -------------------------------------------------------------------------- outputs
# ``out_links`` (nl, 25): displacement 0:6, velocity 6:12, reaction force 12:15 and
# torque 15:18 (master-node axes), spring force 18:24, power 24.
# ``out_forces`` (nf, 6): force 0:3 and torque 3:6 on the first attachment.

@kernel
def report_link(out: Array, index: Array, disp: Array, tau: Array) -> None:
    for i in range(len(index)):
        for j in range(6):
            out[index[i], j] = disp[i, j]
            out[index[i], 6 + j] = tau[i, j]


@kernel
def report_spring(out: Array, index: Array, free: Array, Q: Array, gvel: Array) -> None:
    for i in range(len(index)):
        power = 0.0
        for c in range(len(free)):
            out[index[i], 18 + free[c]] = Q[i, c]
            power += Q[i, c] * gvel[i, c]
        out[index[i], 24] = -power


@kernel
def report_reactions(out: Array, row_link: Array, row_tau: Array, lam: Array) -> None:
    for r in range(len(lam)):
        for j in range(6):
            out[row_link[r], 12 + j] += row_tau[r, j] * lam[r]


@kernel
def report_outputs(out: Array, offset: int, values: Array) -> None:
    """A block's ``outputs`` kernel's ``values (n, width)`` into a report's ``out``
    from ``offset`` on (:func:`frylinks.engine.sampling.reported_outputs`)."""
    n, width = values.shape
    for i in range(n):
        for c in range(width):
            out[offset + i * width + c] = values[i, c]


@kernel
def report_force(out: Array, index: Array, force: Array, torque: Array) -> None:
    for i in range(len(index)):
        for j in range(3):
            out[index[i], j] = force[i, 0, j]
            out[index[i], 3 + j] = torque[i, 0, j]
