"""Second-order wave loads of a sea of components, as the step reads them: the mean
drift, and records of the slow-drift (difference-frequency) and sum-frequency loads.

With the wave components ``c`` of complex amplitudes ``a_c`` at the body
(:mod:`frylinks_marine.waves`; the phase of each shifted to the body's place as for the
first-order excitation) and ``u_c(t) = exp(-i w_c t)``, the loads on DOF ``d`` are
(conventions of :mod:`frylinks_marine.second_order`, WAMIT's double sum over all pairs)::

    F_d(t) = sum_ij M_ij u_i conj(u_j)  +  Re sum_ij P_ij u_i u_j
    M_ij = a_i conj(a_j) T-(w_i, w_j, b_i, b_j),   P_ij = a_i a_j T+(w_i, w_j, b_i, b_j)

The diagonal of the first sum is the **mean drift** ``sum_c |a_c|^2 T-_cc`` (a constant);
the rest is the **slow drift**. ``T-`` is the difference-frequency QTF (``method:
qtf``), or Newman's approximation ``(D_i + D_j) / 2`` from the mean drift coefficients
``D`` (``method: newman``), or nothing but its diagonal (``method: mean``).

**Without an O(N^2) sum a step.** Each ``N x N`` matrix is factorised once by its
singular value decomposition ``M = U S V^H``, so that
``sum_ij M_ij u_i conj(u_j) = sum_r s_r p_r conj(q_r)`` with the harmonic sums
``p_r = sum_i U_ir u_i``, ``q_r = sum_j V_jr u_j``; ranks whose singular values add up to
less than :data:`RANK_TOLERANCE` of the total are left out (Newman's matrix has rank 2
exactly; a QTF's is small because it is smooth). The products are evaluated on the
time grid of a :class:`~frylinks_marine.force_records.ForceRecord` over the run,
``O(R N)`` a sample in blocks of matrix products, and the step interpolates the record.

**Wave drift damping** (Aranha 1994): a body moving at the slow horizontal velocity
``v`` meets the component ``c`` (direction ``e_c``) at the encounter frequency
``w - k v.e`` and with a drift amplified by ``1 - 4 w v.e / g``; to first order in
``v``, in deep water, the mean drift changes by ``-B v`` with::

    B[d, :] = sum_c |a_c|^2 (w_c / g) (4 D_d(w_c) + w_c dD_d/dw (w_c)) e_c

the damping the slow-drift motion otherwise lacks (the radiation damping at its low
natural frequency is nearly zero). The change of heading the formula also gives is left
out (it acts in oblique seas on sway and yaw).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from frylinks.errors import ModelError

from .force_records import RECORD_TOLERANCE, ForceRecord, record_grid, record_step
from .hydrodb import DOF_NAMES, HydroDatabase, heading_weights, linear_weights
from .second_order import DriftTable

Array = np.ndarray

#: Ranks left out of a factorised pair matrix add up to at most this fraction of the
#: sum of its singular values.
RANK_TOLERANCE = 1e-6
#: What each kind of table holds, for messages.
KINDS = {"mean_drift": "mean drift", "difference": "difference-frequency QTF",
         "sum": "sum-frequency QTF"}
#: Samples of a pair record computed together (one block of matrix products).
BLOCK = 2048


# ---------------------------------------------------------------------- which tables

#: Ways of computing the slow drift (a ``wave_drift``'s ``method``).
METHODS = ("mean", "newman", "qtf")
#: Sources of the mean drift coefficients (``mean_drift``), in the default's order.
MEAN_DRIFT = ("momentum", "pressure", "qtf")


def mean_table(db: HydroDatabase, choice: str | None) -> DriftTable | None:
    """The mean drift table ``choice`` names (the first available when None): the
    momentum (far-field) or pressure (near-field) one, or the difference QTF's diagonal."""
    so = db.second_order
    if so is None:
        return None
    for name in (choice,) if choice else MEAN_DRIFT:
        if name == "qtf":
            if so.qtf_difference is not None:
                return diagonal(so.qtf_difference)
        elif (table := getattr(so, f"mean_drift_{name}")) is not None:
            return table
    return None


def diagonal(qtf: DriftTable) -> DriftTable:
    """The mean drift table on a difference QTF's diagonal (equal frequencies and
    headings)."""
    nw, nh = qtf.omega.size, qtf.headings.size
    k, h = np.arange(nw), np.arange(nh)
    values = qtf.values[k[:, None], k[:, None], h[None, :], h[None, :]]
    return DriftTable(qtf.omega, qtf.headings, values, "mean_drift", qtf.source)


def slow_method(db: HydroDatabase, params: Mapping[str, Any]) -> str:
    """The ``method`` a ``wave_drift`` element's parameters give (default: ``qtf`` where
    the data have a difference QTF, else ``newman``)."""
    method = params.get("method")
    if method is None:
        so = db.second_order
        return "qtf" if so is not None and so.qtf_difference is not None else "newman"
    return str(method)



# ------------------------------------------------------------------- tables at components


def _covered(table: DriftTable, omega: Array, heading: Array, where: str) -> None:
    """A ModelError unless the table's frequencies cover the components'."""
    lo, hi = float(table.omega[0]), float(table.omega[-1])
    slack = 1e-9 * hi
    if omega.size and (omega.min() < lo - slack or omega.max() > hi + slack):
        given = np.flatnonzero(~np.isnan(table.values).all(
            axis=tuple(range(table.values.ndim - 1))))
        dofs = ", ".join(_dof_name(int(d)) for d in given)
        raise ModelError(
            f"{where}: the {KINDS[table.kind]} data ({dofs}) cover {lo:.4g} to {hi:.4g} rad/s "
            f"({2 * math.pi / hi:.3g} to {2 * math.pi / lo:.3g} s); the sea's components "
            f"span {omega.min():.4g} to {omega.max():.4g} rad/s; accepted: a sea within "
            "the data (an irregular sea's omega_range), or data reaching further",
            "hydrodynamics")


def _heading_corners(table: DriftTable, heading: Array, where: str
                     ) -> tuple[Array, Array]:
    """Per component, the table's two headings either side of its own and their weights,
    ``(index (nc, 2), weight (nc, 2))`` (a stored heading: itself with weight 1 and a
    second corner of weight 0); with a table of one heading, that heading for every
    component (said in a warning when the sea's headings differ from it by more than 1
    degree)."""
    nc = heading.size
    index, weight = np.zeros((nc, 2), dtype=np.int64), np.zeros((nc, 2))
    if table.headings.size == 1:
        off = np.abs(np.mod(heading - table.headings[0] + math.pi, 2 * math.pi) - math.pi)
        if off.size and off.max() > math.radians(1.0):
            warnings.warn(
                f"{where}: the {KINDS[table.kind]} data have one heading "
                f"({math.degrees(table.headings[0]):g} deg); it serves every component, "
                f"up to {math.degrees(off.max()):.3g} deg away from it", UserWarning,
                stacklevel=4)
        weight[:, 0] = 1.0
        return index, weight
    for b in np.unique(heading):  # (a long-crested sea: one call)
        rows = heading_weights(table.headings, float(b), "linear", f"{where}: ")
        pick = heading == b
        for k, (h, w) in enumerate(rows):
            index[pick, k], weight[pick, k] = h, w
    return index, weight


def _corners(table: DriftTable, omega: Array, heading: Array, where: str
             ) -> tuple[list[tuple[Array, Array]], Array, Array]:
    """The four (frequency, heading) corners of linear interpolation at each component,
    as ``[(frequency index, heading index), ...]`` with their weights ``(4, nc)``, and the
    width of each component's frequency interval."""
    i0, i1, s, _ = linear_weights(omega, table.omega)
    h, hw = _heading_corners(table, heading, where)
    corners = [(i0, h[:, 0]), (i0, h[:, 1]), (i1, h[:, 0]), (i1, h[:, 1])]
    weights = np.array([(1 - s) * hw[:, 0], (1 - s) * hw[:, 1], s * hw[:, 0], s * hw[:, 1]])
    return corners, weights, table.omega[i1] - table.omega[i0]


def _dof_name(d: int) -> str:
    return DOF_NAMES[d % 6] + (f" of body {d // 6 + 1}" if d >= 6 else "")


def _used_dofs(table: DriftTable, where: str) -> Array:
    """Indices of the DOFs the table gives (the others, all NaN, get no load)."""
    gaps = np.isnan(table.values)
    given = ~gaps.all(axis=tuple(range(gaps.ndim - 1)))
    partial = given & gaps.any(axis=tuple(range(gaps.ndim - 1)))
    if partial.any():
        name = _dof_name(int(np.argmax(partial)))
        raise ModelError(f"{where}: the {KINDS[table.kind]} data of {name} have gaps (NaN) within "
                         f"{table.omega[0]:.4g} to {table.omega[-1]:.4g} rad/s; accepted: "
                         "data given at every frequency (and heading) of the table",
                         "hydrodynamics")
    return np.flatnonzero(given)


def mean_drift_at(table: DriftTable, omega: Array, heading: Array, where: str,
                  slope: bool = False) -> Array:
    """``D(w_c, b_c)`` ``(nc, n)`` of a mean drift table (real part), linear in frequency
    and heading; DOFs without data are zero. With ``slope``, its derivative ``dD/dw``
    instead: that of the linear interpolant (its interval's slope), the exact derivative
    of the ``D`` used."""
    _covered(table, omega, heading, where)
    dofs = _used_dofs(table, where)
    values = np.nan_to_num(table.values.real)
    corners, weights, width = _corners(table, omega, heading, where)
    if slope:  # d/dw of the linear interpolant: +-1 / width on the upper/lower corners
        sign = np.array([-1.0, -1.0, 1.0, 1.0])[:, None]
        weights = sign * (weights[[0, 1, 0, 1]] + weights[[2, 3, 2, 3]]) / width
    out = sum(w[:, None] * values[f, h] for (f, h), w in zip(corners, weights, strict=True))
    keep = np.zeros(values.shape[-1], dtype=bool)
    keep[dofs] = True
    out[:, ~keep] = 0.0
    return out


def qtf_at(table: DriftTable, omega: Array, heading: Array, where: str) -> Array:
    """``T(w_i, w_j, b_i, b_j)`` ``(nc, nc, n)`` of a QTF table, bilinear in the two
    frequencies and in the two headings; DOFs without data are zero."""
    _covered(table, omega, heading, where)
    dofs = _used_dofs(table, where)
    values = np.nan_to_num(table.values)
    corners, weights, _ = _corners(table, omega, heading, where)
    # the sixteen corner pairs of the bilinear interpolation in (w_i, b_i) x (w_j, b_j)
    out = np.zeros((omega.size, omega.size, values.shape[-1]), dtype=complex)
    for (fi, hi), wi in zip(corners, weights, strict=True):
        for (fj, hj), wj in zip(corners, weights, strict=True):
            out += np.outer(wi, wj)[:, :, None] * values[fi[:, None], fj[None, :],
                                                         hi[:, None], hj[None, :]]
    keep = np.zeros(values.shape[-1], dtype=bool)
    keep[dofs] = True
    out[..., ~keep] = 0.0
    return out


# -------------------------------------------------------------------------- pair records


@dataclass(frozen=True, eq=False)
class PairSum:
    """A factorised pair sum ``F_col(t) = Re sum_r s_r p_r(t) q~_r(t)``: ``p_r = sum_i
    P[r, i] u_i``, ``q_r = sum_j Q[r, j] u_j``, ``q~ = conj(q)`` (difference frequency)
    or ``q`` (sum frequency); ``col[r]`` the load column each rank adds to.

    Attributes
    ----------
    P, Q
        ``(R, N)`` complex (``Q`` is ``P`` for a Hermitian matrix's eigenvectors:
        ``F = sum_r s_r |p_r|^2``, half the work).
    sigma
        ``(R,)`` singular values (eigenvalues, of either sign, when ``Q is P``).
    col
        ``(R,)`` int.
    difference
        True for difference frequencies (``conj(q)``).
    omega
        ``(N,)`` [rad/s].
    step
        Record step [s] for the interpolation bound
        (:func:`~frylinks_marine.force_records.record_step` over the pairs).
    """

    P: Array
    Q: Array
    sigma: Array
    col: Array
    difference: bool
    omega: Array
    step: float = math.inf

    @property
    def rank(self) -> int:
        """Number of ranks ``R`` kept."""
        return int(self.sigma.size)

    @property
    def hermitian(self) -> bool:
        """Whether the ranks are a Hermitian matrix's eigenvectors (``Q is P``)."""
        return self.Q is self.P

    def at(self, t: Array, m: int) -> tuple[Array, Array]:
        """Values and time derivatives ``(nt, m)`` at the times ``t``."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        values, rates = np.zeros((t.size, m)), np.zeros((t.size, m))
        if self.rank == 0:
            return values, rates
        select = np.zeros((self.rank, m))
        select[np.arange(self.rank), self.col] = self.sigma
        spin = -1j * self.omega
        parts = [self.P, self.P * spin]
        if not self.hermitian:
            parts += [self.Q, self.Q * spin]
        stack = np.concatenate(parts)
        n = self.rank
        # on an equally spaced grid (a record's), u(t_b + k h) = u(t_b) u(k h): one block
        # of exponentials serves every block, each block scaling the ranks' columns
        step = float(t[1] - t[0]) if t.size > 1 else 0.0
        grid = t.size > 1 and np.allclose(np.diff(t), step, rtol=1e-12, atol=0.0)
        if grid:
            shape = np.exp(np.outer(-1j * self.omega, step * np.arange(min(BLOCK, t.size))))
        for start in range(0, t.size, BLOCK):
            tt = t[start:start + BLOCK]
            if grid:
                pq = (stack * np.exp(-1j * self.omega * tt[0])) @ shape[:, :tt.size]
            else:
                pq = stack @ np.exp(np.outer(-1j * self.omega, tt))  # (4R, B)
            p, dp = pq[:n], pq[n:2 * n]
            q, dq = (p, dp) if self.hermitian else (pq[2 * n:3 * n], pq[3 * n:])
            if self.difference:
                q, dq = q.conj(), dq.conj()
            values[start:start + tt.size] = (p * q).real.T @ select
            rates[start:start + tt.size] = (dp * q + p * dq).real.T @ select
        return values, rates

    def record(self, span: tuple[float, float] | None, m: int) -> ForceRecord:
        """Its :class:`~frylinks_marine.force_records.ForceRecord` over ``span`` (none
        without a span or ranks)."""
        grid = None if self.rank == 0 else record_grid(span, self.step, m, "wave_drift")
        if grid is None:
            return ForceRecord.empty(m)
        t0, h, nt = grid
        values, rates = self.at(t0 + h * np.arange(nt), m)
        return ForceRecord(np.array([t0, h]), values, rates)

    def joined(self, other: PairSum) -> PairSum:
        """The sum of two pair sums over the same components and kind."""
        if other.rank == 0:
            return self
        if self.rank == 0:
            return other
        P = np.concatenate([self.P, other.P])
        return PairSum(P, np.concatenate([self.Q, other.Q]),
                       np.concatenate([self.sigma, other.sigma]),
                       np.concatenate([self.col, other.col]), self.difference, self.omega,
                       min(self.step, other.step))

    def kernel_data(self) -> tuple[Array, ...]:
        """``(p_re, p_im, q_re, q_im, sigma, col, omega, difference)`` as the kernels
        read them (to sum where no record covers the time)."""
        return (np.ascontiguousarray(self.P.real), np.ascontiguousarray(self.P.imag),
                np.ascontiguousarray(self.Q.real), np.ascontiguousarray(self.Q.imag),
                np.ascontiguousarray(self.sigma), np.ascontiguousarray(self.col),
                np.ascontiguousarray(self.omega), np.array([1.0 if self.difference else 0.0]))


def _kept(magnitudes: Array, tol: float) -> Array:
    """Indices of the largest ``magnitudes`` holding all but ``tol`` of their sum."""
    order = np.argsort(magnitudes)[::-1]
    tail = np.cumsum(magnitudes[order][::-1])[::-1]  # tail[r]: sum from the r-th largest
    return order[tail > tol * tail[0]]


def factorised(matrices: Array, omega: Array, difference: bool,
               tol: float = RANK_TOLERANCE, record_tol: float = RECORD_TOLERANCE) -> PairSum:
    """The :class:`PairSum` of ``matrices`` ``(N, N, m)`` (one pair matrix per load
    column), each truncated to the ranks holding ``1 - tol`` of its singular values'
    (eigenvalues' moduli') sum.

    Only the real part of a pair sum is a load: ``Re sum_ij M_ij u_i conj(u_j)`` is the
    same sum over the Hermitian part ``(M + M^H) / 2`` (whatever round-off or a code's
    separate computation of ``T(w_i, w_j)`` and ``T(w_j, w_i)`` left), factorised by its
    eigenvectors, ``sum_r l_r |p_r|^2``: half the work of singular vectors. A sum
    frequency's matrix is factorised by its singular vectors."""
    n, _, m = matrices.shape
    omega = np.asarray(omega, dtype=float)
    hermitian = difference
    P, Q, sigma, col = [], [], [], []
    for d in range(m):
        M = matrices[:, :, d]
        if not np.any(M):
            continue
        if hermitian:
            lam, V = np.linalg.eigh(0.5 * (M + M.conj().T))
            keep = _kept(np.abs(lam), tol)
            P.append(V[:, keep].T)
            sigma.append(lam[keep])
        else:
            U, s, Vh = np.linalg.svd(M)
            keep = _kept(s, tol)
            P.append(U[:, keep].T)
            # sum_ij M_ij u_i x_j = sum_r s_r (U^T u)_r (Vh x)_r, x = conj(u) or u: for a
            # difference, q_r = sum_j conj(Vh[r, j]) u_j (conj(q_r) is taken later)
            Q.append(Vh[keep].conj() if difference else Vh[keep])
            sigma.append(s[keep])
        col.append(np.full(keep.size, d))
    if not P:
        empty = np.zeros((0, n), dtype=complex)
        return PairSum(empty, empty, np.zeros(0), np.zeros(0, dtype=np.int64), difference,
                       omega)
    # the record's step: each pair a harmonic of modulus |M_ij| at |w_i -+ w_j|
    pairs = np.abs(omega[:, None] - omega[None, :]) if difference \
        else omega[:, None] + omega[None, :]
    moduli = np.abs(matrices).reshape(n * n, m).T
    step = record_step(moduli, pairs.reshape(-1), record_tol)
    Pm = np.concatenate(P)
    return PairSum(Pm, Pm if hermitian else np.concatenate(Q), np.concatenate(sigma),
                   np.concatenate(col).astype(np.int64), difference, omega, step)


def newman_sum(a: Array, D: Array, omega: Array, cols: Array,
               record_tol: float = RECORD_TOLERANCE) -> PairSum:
    """The pair sum of Newman's approximation, factorised as it is made: with
    ``T-_ij = (D_i + D_j) / 2``, ``Re sum_ij a_i conj(a_j) T-_ij u_i conj(u_j) =
    Re(p conj(q))``, ``p = sum_i a_i D_i u_i``, ``q = sum_j a_j u_j``: one rank a load
    column, no ``N x N`` matrix (``D`` ``(N, m)``; ``cols`` the load column of each of
    its columns; columns of ``D`` all zero are left out)."""
    omega = np.asarray(omega, dtype=float)
    used = [d for d in range(D.shape[1]) if np.any(D[:, d])]
    if not used:
        return factorised(np.zeros((omega.size, omega.size, 0)), omega, True)
    P = np.array([a * D[:, d] for d in used])
    Q = np.array([a for _ in used])
    # the record's step over the pairs, each of modulus |a_i a_j (D_i + D_j) / 2|
    moduli = np.abs(a)[:, None] * np.abs(a)[None, :]
    pairs = np.abs(omega[:, None] - omega[None, :]).reshape(-1)
    step = min(record_step((moduli * np.abs(0.5 * (D[:, d][:, None] + D[:, d][None, :])))
                           .reshape(1, -1), pairs, record_tol) for d in used)
    return PairSum(P, Q, np.ones(len(used)), np.asarray(cols, dtype=np.int64)[used], True,
                   omega, step)


def pair_matrices(a: Array, T: Array, difference: bool) -> Array:
    """``M_ij = a_i conj(a_j) T_ij`` (difference) or ``a_i a_j T_ij`` (sum), ``(N, N, m)``."""
    other = a.conj() if difference else a
    return a[:, None, None] * other[None, :, None] * T


def drift_damping(amplitude: Array, omega: Array, heading: Array, D: Array,
                  slope: Array, g: float) -> Array:
    """Aranha's wave drift damping ``B`` ``(m, 2)`` (module docstring): load column per
    horizontal velocity ``(v_x, v_y)`` of the body, for components of amplitudes
    ``amplitude`` ``(N,)`` and mean drift ``D``, ``dD/dw`` ``(N, m)``."""
    weight = np.abs(amplitude) ** 2 * omega / g
    e = np.stack([np.cos(heading), np.sin(heading)], axis=1)  # (N, 2)
    out: Array = np.einsum("c,cd,ck->dk", weight, 4.0 * D + omega[:, None] * slope, e)
    return out
