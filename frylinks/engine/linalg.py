"""The constraint linear system ``(G M^-1 G^T) lam = rhs``, dense or sparse.

``M`` is block diagonal (one 6x6 block per body, translations then rotations), so the
Schur complement ``A = G M^-1 G^T`` is small and, for chains and trees, banded: a
sparse LU of it costs a time linear in the number of bodies. Small systems take the
dense path, where numpy's overhead is lower than scipy.sparse's.

Redundant constraints (a fixed link doubled, a closed loop) make ``A`` singular; a
relative Tikhonov term ``eps * diag(A)`` keeps it solvable and shares the reaction
equally between redundant rows. Alone it would leave the accelerations violating the
constraints by ``eps diag(A) lam`` (constraint forces doing work); one step of iterated
regularisation, ``lam += (A + eps D)^-1 (rhs - A lam)`` with the same factors, removes
that bias to round-off.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from frylinks.errors import SimulationError

Array = np.ndarray

#: Relative regularisation of the constraint system (see module doc).
EPS = 1e-10
#: Above this many constraint rows the sparse path is taken.
DENSE_LIMIT = 120


class ConstraintSolver:
    """Build ``G`` from its values on a fixed pattern and solve with ``A = G M^-1 G^T``.

    Parameters
    ----------
    nb_bodies, nb_rows
        Sizes; ``G`` has shape ``(nb_rows, 6 * nb_bodies)``.
    rows, cols
        Pattern of the values given to :meth:`factor` (unique pairs).
    """

    def __init__(self, nb_bodies: int, nb_rows: int, rows: Array, cols: Array) -> None:
        self.nb_bodies = nb_bodies
        self.nb_rows = nb_rows
        self.rows = rows
        self.cols = cols
        self.dense = nb_rows <= DENSE_LIMIT
        self._G: Any = np.zeros((0, 0))
        self._Minv = np.zeros((nb_bodies, 6, 6))
        self._lu: Any = None
        self._jit_factor = False
        self._A: Any = None
        self._wood: tuple[Array, Array, Array] | None = None
        self._row_pattern: tuple[Array, Array, Array, Array] | None = None
        if not self.dense and nb_rows:
            # csr structure built once; only the data changes per evaluation
            order = np.lexsort((cols, rows))
            self._order = order
            g = sp.csr_matrix((np.ones(len(rows)), (rows[order], cols[order])),
                              shape=(nb_rows, 6 * nb_bodies))
            g.sort_indices()
            self._indptr, self._indices = g.indptr, g.indices
            self._minv_indptr = np.arange(nb_bodies + 1)
            self._minv_indices = np.arange(nb_bodies)

    def factor(self, values: Array, Minv: Array,
               coupling: tuple[Array, Array] | None = None) -> None:
        """Set ``G`` from ``values`` and the inverse mass, then factor ``A``.

        Parameters
        ----------
        values
            Values of ``G`` on the pattern.
        Minv
            Inverse of the block-diagonal body mass ``M_b``, ``(nb, 6, 6)``.
        coupling
            Mass coupling bodies, ``(U, C)``: ``U`` ``(k, 6 nb)`` maps body velocities
            to ``k`` coupled quantities, ``C`` ``(k, k)`` symmetric, so that ``M = M_b +
            U^T C U``: point masses (``U`` their velocities, ``C`` their masses) and the
            added mass between bodies (``U`` a selection). Applied exactly by Woodbury's
            identity ``M^-1 = M_b^-1 - M_b^-1 U^T W U M_b^-1``, ``W = C (I + S C)^-1``,
            ``S = U M_b^-1 U^T`` (k x k; no inverse of ``C``, which may be singular),
            which keeps ``A`` sparse: a coupling touches only the rows of its bodies.
        """
        self._Minv = Minv
        self._wood = None
        self._jit_factor = False
        if coupling is not None and len(coupling[1]):
            U, C = coupling
            MbUt = np.einsum("bij,kbj->bik", Minv,
                             U.reshape(len(U), self.nb_bodies, 6)).reshape(-1, len(U))
            S = U @ MbUt
            self._wood = (U, MbUt, C @ np.linalg.inv(np.eye(len(C)) + S @ C))
        if not self.nb_rows:
            return
        if self.dense and self._wood is None:
            # the compiled step's own factorisation, so both paths solve alike
            from frylinks.engine import kernels as K

            G = np.zeros((self.nb_rows, 6 * self.nb_bodies))
            G[self.rows, self.cols] = values
            self._G = G
            if self._row_pattern is None:  # (the pattern's, as the compiled solve's)
                keep = self.cols >= 0
                self._row_pattern = K.row_pattern(
                    np.stack([self.rows[keep], self.cols[keep] // 6], axis=1),
                    self.nb_rows, self.nb_bodies)
            S = K.room_of(G, _blocks_only(Minv), self._row_pattern)
            ok = K.factor_into(S)
            A, L = S.A, S.L
            self._pattern = (S.rb, S.nrb)
            if not ok:
                raise SimulationError("constraint system is singular: the matrix "
                                      "G M^-1 G^T is not positive definite")
            self._A, self._lu = A, L
            self._jit_factor = True
        elif self.dense:
            G = np.zeros((self.nb_rows, 6 * self.nb_bodies))
            G[self.rows, self.cols] = values
            self._G = G
            GM = np.einsum("rbi,bij->rbj", G.reshape(self.nb_rows, self.nb_bodies, 6), Minv)
            A = GM.reshape(self.nb_rows, -1) @ G.T
            if self._wood is not None:
                Y = G @ self._wood[1]
                A -= Y @ self._wood[2] @ Y.T
            d = np.diagonal(A).copy()
            self._A = A.copy()
            A[np.diag_indices_from(A)] += EPS * d + 1e-300
            try:
                self._lu = cho_factor(A, check_finite=False)
            except LinAlgError as exc:
                raise SimulationError(f"constraint system is singular: {exc}") from exc
        else:
            Gs = sp.csr_matrix((values[self._order], self._indices, self._indptr),
                              shape=(self.nb_rows, 6 * self.nb_bodies))
            self._G = Gs
            Mb = sp.bsr_matrix((Minv, self._minv_indices, self._minv_indptr),
                               shape=(6 * self.nb_bodies, 6 * self.nb_bodies))
            As: Any = (Gs @ Mb @ Gs.T).tocsc()
            if self._wood is not None:
                Y = sp.csr_matrix(Gs @ self._wood[1])  # nonzero only on coupled bodies' rows
                As = (As - Y @ sp.csr_matrix(self._wood[2]) @ Y.T).tocsc()
            self._A = As
            As = As + sp.diags(EPS * As.diagonal() + 1e-300)
            try:
                self._lu = spla.splu(As.tocsc(), permc_spec="MMD_AT_PLUS_A")
            except RuntimeError as exc:
                raise SimulationError(f"constraint system is singular: {exc}") from exc

    def _jit(self) -> bool:
        """Factored by the compiled step's kernels (dense, without point masses)."""
        return self._jit_factor

    def G_dot(self, u: Array) -> Array:
        """``G @ u`` for ``u`` of shape ``(nb, 6)``."""
        if not self.nb_rows:
            return np.zeros(0)
        if self._jit():
            from frylinks.engine import kernels as K

            out = np.empty(self.nb_rows)
            K.G_dot_into(self._G, *self._pattern, np.ascontiguousarray(u, dtype=float), out)
            return out
        return np.asarray(self._G @ u.reshape(-1))

    def minv(self, f: Array) -> Array:
        """``M^-1 f`` for ``f (nb, 6)`` (with the coupling, if any)."""
        if self._wood is None:
            from frylinks.engine import kernels as K

            return np.asarray(K.minv(_blocks_only(self._Minv),
                                     np.ascontiguousarray(f, dtype=float)))
        y = np.einsum("bij,bj->bi", self._Minv, f)
        U, MbUt, W = self._wood
        return y - (MbUt @ (W @ (U @ y.reshape(-1)))).reshape(y.shape)

    def _solve(self, rhs: Array) -> Array:
        if self.dense:
            return np.asarray(cho_solve(self._lu, rhs, check_finite=False))
        return np.asarray(self._lu.solve(rhs))

    def solve_multipliers(self, rhs: Array) -> Array:
        """``lam`` with ``A lam = rhs`` (regularised, then refined once)."""
        if not self.nb_rows:
            return np.zeros(0)
        if self._jit():
            from frylinks.engine import kernels as K

            return np.asarray(K.multipliers(self._A, self._lu,
                                            np.ascontiguousarray(rhs, dtype=float)))
        lam = self._solve(rhs)
        return lam + self._solve(rhs - self._A @ lam)

    def G_T(self, lam: Array) -> Array:
        """``G^T lam`` as ``(nb, 6)``."""
        if not self.nb_rows:
            return np.zeros((self.nb_bodies, 6))
        if self._jit():
            from frylinks.engine import kernels as K

            out = np.empty((self.nb_bodies, 6))
            K.G_T_into(self._G, *self._pattern, np.ascontiguousarray(lam, dtype=float), out)
            return out
        return np.asarray(self._G.T @ lam).reshape(self.nb_bodies, 6)

    def correction(self, error: Array) -> Array:
        """Smallest mass-weighted ``du (nb, 6)`` with ``G du = -error``."""
        if not self.nb_rows:
            return np.zeros((self.nb_bodies, 6))
        return -self.minv(self.G_T(self.solve_multipliers(error)))


#: The coupled bodies and ``W`` of a mass without coupling (see :func:`_blocks_only`).
_UNCOUPLED = (np.zeros(0, dtype=np.int64), np.zeros((0, 0)))


def _blocks_only(Minv: Array) -> Any:
    """The compiled kernels' :class:`~frylinks.engine.kernels.MassInverse` of a block
    diagonal mass (no coupling)."""
    from frylinks.engine.kernels import MassInverse

    return MassInverse(np.ascontiguousarray(Minv, dtype=float), *_UNCOUPLED)
