"""Radiation memory of a floating body in the time domain: the impulse response of its
radiation damping, Ogilvie's infinite-frequency added mass, and a state-space system
standing for the convolution.

Cummins' equation writes the radiation force as ``-A_inf xi'' - int_0^t K(t - s)
xi'(s) ds`` with ``K(t) = 2/pi int_0^inf B(w) cos(w t) dw`` (:func:`impulse_response`);
:class:`RadiationStateSpace` replaces the convolution by ``z' = A z + B xi'``,
``int K xi' ~ C z``. Frequencies [rad/s] and the DOF order are those of
:class:`frylinks_marine.hydrodb.HydroDatabase`; nothing here depends on the DOF count,
so several bodies' ``(6 n, 6 n)`` kernels go through the same code.

A fit is kept on disk (:func:`cached_state_space`, in :func:`cache_folder`), keyed by the
data, the tolerance and this module's source, so a run resumed, a sweep's cases and a
second run read it back; it runs on one BLAS thread (:func:`one_blas_thread`), shows a
progress bar on a terminal when it lasts, and names the dataset, body and DOF pair of an
entry that misses its tolerance (:meth:`RadiationStateSpace.warn_misses`).

The compiled evaluation of the ``radiation`` force type, the state space's and the
direct convolution's, is :mod:`frylinks_marine.radiation_kernels` (apart, as this
module's source keys the fits kept on disk).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.linalg
import scipy.sparse.csgraph
from threadpoolctl import threadpool_limits

from frylinks.errors import ModelError
from frylinks.kernel_cache import cache_dir

if TYPE_CHECKING:
    from frylinks_marine.hydrodb import HydroDatabase

Array = np.ndarray

_LOG = logging.getLogger(__name__)

#: The most states of one kernel entry's fit (an entry that needs more is convolved
#: directly by the ``radiation`` force type, :mod:`frylinks_marine.bem`).
MAX_ORDER = 30

#: A fit that has run this long [s] shows a progress bar (on a terminal) and logs its time.
PROGRESS_DELAY = 1.0


def one_blas_thread() -> Any:
    """A context in which BLAS and LAPACK run on one thread.

    The fit's SVDs and products are small (a few hundred by a few thousand): threads buy
    nothing, and where the cores are busy (a sweep's workers, other jobs) OpenBLAS's
    threads spin waiting for each other. Measured on 2 loaded cores: the RM3 spar's fit
    took 10.1 s with OpenBLAS's 2 threads and 0.33 s with one.
    """
    return threadpool_limits(1, user_api="blas")


def impulse_response(db: HydroDatabase, t: Any) -> Array:
    """Radiation impulse response ``K(t) (nt, 6, 6)`` of a database.

    ``K(t) = 2/pi int_0^inf B(w) cos(w t) dw`` with ``B`` the radiation damping taken
    linear between the data frequencies (the trapezoidal rule's own assumption), zero at
    ``w = 0`` when the data start above it (the radiation damping of a body in open water
    vanishes at zero frequency) and zero above the last frequency: the data must reach
    the frequency where ``B`` has become negligible, or ``K`` misses that part (it shows
    as ripples of period ``2 pi / omega[-1]``). Each interval's ``B cos(w t)`` is
    integrated exactly (Filon's rule), which at ``t = 0`` is the trapezoidal rule and
    for ``t`` large against ``1 / d_omega`` stays accurate where the plain trapezoidal
    rule on ``B cos(w t)`` would alias (a spurious echo at ``t = 2 pi / d_omega``).

    Parameters
    ----------
    db
        The database.
    t
        ``(nt,)`` times [s] (any values; ``K`` is even in ``t``).
    """
    return radiation_kernel(db.omega, db.radiation_damping, t)


def radiation_kernel(omega: Any, damping: Any, t: Any) -> Array:
    """:func:`impulse_response` from bare arrays: ``omega (nw,)`` ascending, ``damping
    (nw, ...)``; returns ``(nt, ...)``."""
    w = np.asarray(omega, dtype=float)
    b = np.asarray(damping, dtype=float)
    if w[0] > 0.0:
        w = np.concatenate([[0.0], w])
        b = np.concatenate([np.zeros((1, *b.shape[1:])), b])
    t = np.asarray(t, dtype=float).reshape(-1)
    return (2.0 / np.pi) * _filon(w, b, t, np.real)


def _filon(nodes: Array, values: Array, x: Array, part: Any) -> Array:
    """``part(int f(s) exp(i x s) ds)`` over ``[nodes[0], nodes[-1]]`` for each ``x``,
    ``f`` linear between the ``nodes`` with ``values (nnodes, ...)``; returns
    ``(nx, ...)``. Exact for that ``f`` however fast ``exp(i x s)`` turns (Filon's
    rule; at ``x = 0`` it is the trapezoidal rule). ``part``: ``np.real`` for the cosine
    transform, ``np.imag`` for the sine transform.
    """
    h = np.diff(nodes)
    out = np.empty((x.size, *values.shape[1:]))
    step = max(1, 2_000_000 // max(h.size, 1))  # bounds the (chunk, nnodes) temporaries
    for lo in range(0, x.size, step):
        xc = x[lo:lo + step]
        phi = xc[:, None] * h[None, :]
        # int_0^1 (1 - u) exp(i phi u) du and int_0^1 u exp(i phi u) du; Taylor series
        # where the closed forms lose digits to cancellation
        small = np.abs(phi) < 0.03  # both forms good to ~1e-13 there
        safe = np.where(small, 1.0, phi)
        e = np.exp(1j * safe)
        p = (1.0 + 1j * safe - e) / safe**2
        q = (e * (1.0 - 1j * safe) - 1.0) / safe**2
        ps = phi[small]
        p[small] = (0.5 + 1j * ps / 6 - ps**2 / 24 - 1j * ps**3 / 120 + ps**4 / 720
                    + 1j * ps**5 / 5040)
        q[small] = (0.5 + 1j * ps / 3 - ps**2 / 8 - 1j * ps**3 / 30 + ps**4 / 144
                    + 1j * ps**5 / 840)
        start = np.exp(1j * xc[:, None] * nodes[None, :-1]) * h[None, :]
        weights = np.zeros((xc.size, nodes.size))
        weights[:, :-1] += part(start * p)
        weights[:, 1:] += part(start * q)
        out[lo:lo + step] = np.tensordot(weights, values, axes=(1, 0))
    return out


def ogilvie_added_mass_inf(omega: Any, added_mass: Any, damping: Any, *,
                           t_max: float | None = None, dt: float | None = None) -> Array:
    """Infinite-frequency added mass from ``A(w)`` and the impulse response.

    Ogilvie's relation ``A(w) = A_inf - 1/w int_0^inf K(t) sin(w t) dt`` gives one
    estimate of ``A_inf`` per data frequency; the result is their median over the
    frequencies, which discards the low end (where ``1/w`` amplifies the error of the
    truncated integral) and the top end (where the damping missing above the data
    matters most) without a tuned window. ``K`` is :func:`radiation_kernel`, taken
    linear between time steps for the sine transform (Filon's rule).

    Parameters
    ----------
    omega, added_mass, damping
        ``(nw,)`` ascending [rad/s], ``(nw, ...)``, ``(nw, ...)``.
    t_max
        End of the time integral [s]. Default ``2 pi / min(d_omega)``, the longest
        memory the frequency step resolves (the result hardly depends on it:
        :func:`radiation_kernel` decays as ``1/t^2`` at worst).
    dt
        Time step [s]. Default ``pi / (8 omega[-1])``, 16 steps a period of the data's
        highest frequency.

    Returns
    -------
    ``(...)``, the shape of one frequency's ``added_mass``.
    """
    w = np.asarray(omega, dtype=float)
    a = np.asarray(added_mass, dtype=float)
    t_max = 2 * np.pi / float(np.min(np.diff(w))) if t_max is None else float(t_max)
    dt = np.pi / (8 * float(w[-1])) if dt is None else float(dt)
    t = np.linspace(0.0, t_max, int(np.ceil(t_max / dt)) + 1)
    with one_blas_thread():
        kernel = radiation_kernel(w, damping, t)  # (nt, ...)
        transform = _filon(t, kernel, w, np.imag)  # (nw, ...)
    estimates = a + transform / w.reshape(-1, *([1] * (a.ndim - 1)))
    return np.median(estimates, axis=0)


# --------------------------------------------------------------------------------------
# State-space realisation of the radiation memory
# --------------------------------------------------------------------------------------

def block_diagonal(blocks: list[tuple[int, int, Array, Array, Array]], n: int
                   ) -> tuple[Array, Array, Array, Array]:
    """One system ``(A, B, C)`` of single-input single-output systems, each
    ``(i, j, a, b, c)`` from input ``j`` to output ``i`` of ``n``: ``A`` block-diagonal
    ``(nz, nz)``, ``B (nz, n)``, ``C (n, nz)``; and the order of each entry ``(n, n)``."""
    nz = sum(blk[2].shape[0] for blk in blocks)
    a_all, b_all, c_all = np.zeros((nz, nz)), np.zeros((nz, n)), np.zeros((n, nz))
    order = np.zeros((n, n), dtype=int)
    first = 0
    for i, j, a, b, c in blocks:
        stop = first + a.shape[0]
        a_all[first:stop, first:stop] = a
        b_all[first:stop, j] = b
        c_all[i, first:stop] = c
        order[i, j] = a.shape[0]
        first = stop
    return a_all, b_all, c_all, order


@dataclass(frozen=True, eq=False)
class RadiationStateSpace:
    """Linear system standing for the radiation convolution.

    With ``u (n,)`` the body velocities (frylinks: the COG velocity and angular
    velocity, ``n = 6`` per body), ``z' = A z + B u`` and ``y = C z`` give
    ``y(t) ~ int_0^t K(t - s) u(s) ds`` from ``z(0) = 0``; the radiation force is
    ``-A_inf u' - y``. Each significant kernel entry ``K_ij`` is one single-input
    single-output block of ``A`` (block diagonal), fed by ``u_j`` and read into ``y_i``.

    Attributes
    ----------
    A, B, C
        ``(nz, nz)``, ``(nz, n)``, ``(n, nz)``.
    fit_error
        ``(n, n)``: per kernel entry, the largest error of the memory force the fit
        makes for a harmonic motion at a frequency of the data, relative to the
        radiation damping force of the same velocity amplitude at its peak:
        ``max_w |K_fit^(w) - K^(w)| / sqrt(Bmax_i Bmax_j)`` (:func:`fit_errors`); NaN
        for the entries left out as insignificant (or with no stable realisation, which
        a warning reports).
    order
        ``(n, n)`` int, states per entry (0 if left out).
    dt
        Sampling step of the fitted samples [s].
    tol
        The fit tolerance asked for (NaN if none, e.g. a realisation read from a file).
    unstable
        ``(n, n)`` bool: significant entries left out for want of a stable realisation.
    """

    A: Array
    B: Array
    C: Array
    fit_error: Array
    order: Array
    dt: float
    tol: float = float("nan")
    unstable: Array = field(default_factory=lambda: np.zeros((0, 0), dtype=bool))

    @property
    def nb_states(self) -> int:
        """Number of states ``nz``."""
        return int(self.A.shape[0])

    @classmethod
    def from_impulse_response(cls, t: Any, kernel: Any, *, tol: float = 0.02,
                              max_order: int = MAX_ORDER, threshold: float = 1e-3,
                              omega_max: float | None = None, where: str = "",
                              labels: Sequence[str] | None = None,
                              progress: bool | None = None,
                              warn: bool = True) -> RadiationStateSpace:
        """Realise ``K(t)`` samples entry by entry (Kung's Hankel-SVD method, ERA).

        For each significant entry, the Hankel matrix ``H[r, c] = K(t_{r+c})`` of the
        samples is factored by SVD; its first ``p`` singular triplets give a discrete
        system ``(A_d, B, C)`` with ``K(k dt) ~ C A_d^k B`` (shift invariance of the
        observability matrix), made continuous by ``A = logm(A_d) / dt`` (the
        principal logarithm, through the eigenvalues; ``B`` and ``C`` unchanged, so
        ``K(t) ~ C exp(A t) B``). The Hankel matrix has ``4 max_order + 4`` rows (at
        most half the samples) and a column per remaining sample, so every sample
        weighs in the fit. The order ``p`` is the smallest
        whose fit error (:func:`fit_errors`: the error of the memory force, which the
        tolerance bounds) is at most ``tol`` among the stable ones (all ``Re eig(A) <
        0``, ``A`` real); orders that are not are skipped. If no order up to ``max_order``
        meets ``tol`` the most accurate stable one is kept with a warning; if none is
        stable the entry is left out with a warning. Both warnings name ``where`` (the
        dataset and body) and the entry by its DOFs (:meth:`warn_misses`).

        Parameters
        ----------
        t
            ``(nt,)`` uniformly spaced times from 0 [s].
        kernel
            ``(nt, n, n)`` samples ``K(t)``.
        tol
            Largest fit error (:func:`fit_errors`; 0.02: the memory force within 2 % of
            the peak radiation damping force of the same velocity amplitude).
        max_order
            Largest number of states per entry.
        omega_max
            The band of the data ``[0, omega_max]`` [rad/s] over which the fit error is
            measured; default ``pi / (4 dt)`` (:meth:`from_database`'s sampling rule).
        threshold
            Entries whose peak ``|K_ij|`` is below ``threshold * sqrt(peak|K_ii| *
            peak|K_jj|)`` are left out, and so are diagonal entries below ``threshold``
            times the largest diagonal peak of the same kind (translations and
            rotations, in groups of six DOFs per body; when ``n`` is not a multiple of
            6, all DOFs form one group), so that numerical noise (a sphere's yaw) is
            not realised.
        where
            What is fitted (``'sphere.nc' body 'sphere'``), for messages.
        labels
            ``(n,)`` names of the DOFs, for messages (default: :func:`dof_labels`).
        progress
            Show a progress bar over the entries once the fit has run
            :data:`PROGRESS_DELAY` seconds; None: when standard error is a terminal.
        """
        t = np.asarray(t, dtype=float).reshape(-1)
        k = np.asarray(kernel, dtype=float)
        if k.ndim != 3 or k.shape[0] != t.size or k.shape[1] != k.shape[2]:
            raise ModelError(f"expected kernel samples (nt, n, n) with nt = {t.size}, got "
                             f"{k.shape}", "kernel")
        dt = float(t[1] - t[0]) if t.size > 1 else 0.0
        if t.size < 4 or t[0] != 0.0 or dt <= 0 or not np.allclose(
                np.diff(t), dt, rtol=1e-6, atol=0.0):
            raise ModelError("expected at least 4 uniformly spaced times from 0", "t")
        n = k.shape[1]
        significant = _significant(k, threshold)
        omega = _band(t, omega_max)
        phase = np.exp(-1j * omega * dt)
        spectra = transform(t, k, omega)  # (nw, n, n)
        scale = np.abs(spectra.real[:, np.arange(n), np.arange(n)]).max(axis=0)
        scale = np.sqrt(np.outer(scale, scale))
        blocks: list[tuple[int, int, Array, Array, Array]] = []
        fit_error = np.full((n, n), np.nan)
        order = np.zeros((n, n), dtype=int)
        unstable = np.zeros((n, n), dtype=bool)
        entries = list(zip(*np.nonzero(significant), strict=True))
        start = time.perf_counter()
        bar = _progress_bar(len(entries), where, progress)
        try:
            for i, j in entries:
                fit = _realise(k[:, i, j], dt, tol, max_order, spectra[:, i, j], phase,
                               float(scale[i, j]))
                if bar is not None:
                    bar.update(1)
                if fit is None:
                    unstable[i, j] = True
                    continue
                a, b, c, err = fit
                blocks.append((int(i), int(j), a, b, c))
                fit_error[i, j], order[i, j] = err, a.shape[0]
        finally:
            if bar is not None:
                bar.close()
        elapsed = time.perf_counter() - start
        if elapsed >= PROGRESS_DELAY:
            _LOG.info("fitted the radiation memory of %s: %d entries in %.1f s",
                      where or "a kernel", len(entries), elapsed)
        a_all, b_all, c_all, _ = block_diagonal(blocks, n)
        out = cls(A=a_all, B=b_all, C=c_all, fit_error=fit_error, order=order, dt=dt,
                  tol=float(tol), unstable=unstable)
        if warn:
            out.warn_misses(where, labels, max_order=max_order, stacklevel=3)
        return out

    @classmethod
    def from_database(cls, db: HydroDatabase, *, dt: float | None = None,
                      t_max: float | None = None, tol: float = 0.02,
                      max_order: int = MAX_ORDER, threshold: float = 1e-3,
                      progress: bool | None = None) -> RadiationStateSpace:
        """Realise :func:`impulse_response` of ``db`` sampled every ``dt`` up to ``t_max``.

        Defaults: ``dt = pi / (4 omega[-1])`` (the data's highest frequency is sampled
        8 times a period, so the discrete poles keep a real logarithm), ``t_max`` the
        time after which every significant kernel entry stays below 0.1 % of its peak
        (searched up to ``2 pi / min(d_omega)``, the longest memory the data resolve).
        The fit is not cached: :func:`cached_state_space` is.
        """
        return realised(db.omega, db.radiation_damping, dt=dt, t_max=t_max, tol=tol,
                        max_order=max_order, threshold=threshold, where=db.label,
                        progress=progress)

    def warn_misses(self, where: str = "", labels: Sequence[str] | None = None, *,
                    max_order: int | None = None, stacklevel: int = 2) -> None:
        """Warn for each entry whose fit error exceeds :attr:`tol` and each entry left
        out for want of a stable realisation, naming ``where`` and the entry's DOFs."""
        n = self.fit_error.shape[0]
        names = list(labels) if labels is not None else dof_labels(n)
        prefix = f"{where}: " if where else ""
        up_to = "" if max_order is None else f" up to order {max_order}"
        if self.unstable.shape == (n, n):
            for i, j in zip(*np.nonzero(self.unstable), strict=True):
                warnings.warn(f"{prefix}radiation kernel {names[i]}-{names[j]}: no stable "
                              f"realisation{up_to}; left out", UserWarning,
                              stacklevel=stacklevel + 1)
        if np.isfinite(self.tol):
            with np.errstate(invalid="ignore"):
                missed = np.nonzero(self.fit_error > self.tol)
            for i, j in zip(*missed, strict=True):
                warnings.warn(
                    f"{prefix}radiation kernel {names[i]}-{names[j]}: the best stable fit "
                    f"reached an error of {self.fit_error[i, j]:.3g} "
                    f"({self.fit_error[i, j]:.1%}), above the tolerance {self.tol:g}, with "
                    f"{self.order[i, j]} states{up_to}", UserWarning,
                    stacklevel=stacklevel + 1)

    def impulse_response(self, t: Any) -> Array:
        """The realised kernel ``C exp(A t) B``, ``(nt, n, n)``."""
        t = np.asarray(t, dtype=float).reshape(-1)
        if self.nb_states == 0:
            return np.zeros((t.size, self.C.shape[0], self.B.shape[1]))
        lam, vec = np.linalg.eig(self.A)
        left = self.C @ vec  # (n, nz)
        right = np.linalg.solve(vec, self.B)  # (nz, n)
        out = np.einsum("iz,tz,zj->tij", left, np.exp(np.outer(t, lam)), right)
        return np.real(out)

    def transfer_function(self, omega: Any) -> Array:
        """``C (i w I - A)^-1 B``, ``(nw, n, n)`` complex: ``int_0^inf K(t) exp(-i w t)
        dt``, which for an exact realisation is ``B(w) + i w (A(w) - A_inf)``."""
        return _transfer(self.A, self.B, self.C, np.asarray(omega, dtype=float).reshape(-1))

    def scaled(self, ratio: float) -> RadiationStateSpace:
        """The system of the kernel times ``ratio`` (another water density)."""
        return replace(self, C=self.C * float(ratio))

    def moved(self, t: Array) -> RadiationStateSpace:
        """The system with inputs and outputs about other points: ``u = T u'`` and
        ``y' = T^T y`` (``T`` of :func:`~frylinks_marine.rigid_transforms.transform_matrix`, or
        block diagonal for several bodies). The per-entry :attr:`fit_error` and
        :attr:`order` keep describing the original entries."""
        return replace(self, B=self.B @ t, C=t.T @ self.C)

    def without(self, entries: Any) -> RadiationStateSpace:
        """The system less the blocks of the entries where ``entries (n, n)`` is true
        (each entry's block: the connected part of ``A`` fed by its column and read
        into its row); their :attr:`order` becomes 0."""
        drop = np.asarray(entries, dtype=bool)
        keep = np.ones(self.nb_states, dtype=bool)
        if self.nb_states and drop.any():
            nb, parts = scipy.sparse.csgraph.connected_components(
                (self.A != 0) | np.eye(self.nb_states, dtype=bool), directed=False)
            for p in range(nb):
                z = parts == p
                rows = np.flatnonzero(np.any(self.C[:, z] != 0, axis=1))
                cols = np.flatnonzero(np.any(self.B[z] != 0, axis=0))
                if any(drop[i, j] for i in rows for j in cols):
                    keep[z] = False
        return replace(self, A=self.A[np.ix_(keep, keep)], B=self.B[keep], C=self.C[:, keep],
                       order=np.where(drop, 0, self.order))

    def restricted(self, dofs: Any) -> RadiationStateSpace:
        """The system from and to the DOFs ``dofs`` only (one body of several): the
        blocks of states (connected parts of ``A``) both fed by and read into those
        DOFs."""
        idx = np.asarray(dofs, dtype=int).reshape(-1)
        b, c = self.B[:, idx], self.C[idx, :]
        keep = np.zeros(self.nb_states, dtype=bool)
        if self.nb_states:
            nb, parts = scipy.sparse.csgraph.connected_components(
                (self.A != 0) | np.eye(self.nb_states, dtype=bool), directed=False)
            for p in range(nb):
                z = parts == p
                keep[z] = bool(np.any(b[z] != 0) and np.any(c[:, z] != 0))
        pick = np.ix_(idx, idx)
        unstable = self.unstable[pick] if self.unstable.shape == self.fit_error.shape \
            else np.zeros((idx.size, idx.size), dtype=bool)
        return replace(self, A=self.A[np.ix_(keep, keep)], B=b[keep], C=c[:, keep],
                       fit_error=self.fit_error[pick], order=self.order[pick],
                       unstable=unstable)


def modal_form(A: Array, B: Array, C: Array) -> tuple[Array, Array, Array]:
    """The same system in real modal form, block by block of ``A``: each connected
    part of ``A`` (one kernel entry's fit) turned by its eigenvectors into a diagonal of
    real eigenvalues and 2 x 2 blocks ``[[s, w], [-w, s]]`` of complex pairs.

    Why: the compiled step then reads at most two entries of ``A`` per state instead of
    the block's whole row (a 30-state fit: 30), so the memory's cost per step grows
    with the number of states, not with its square. A block whose eigenvectors are
    ill-conditioned (a near-defective ``A``) is kept as it is: the transform is
    accepted only if the block's transfer function is unchanged to ``1e-9`` of its
    largest value at frequencies spread over its poles.
    """
    A, B, C = (np.array(m, dtype=float) for m in (A, B, C))
    nz = A.shape[0]
    if nz == 0:
        return A, B, C
    nb, parts = scipy.sparse.csgraph.connected_components(
        (A != 0) | np.eye(nz, dtype=bool), directed=False)
    for p in range(nb):
        z = np.flatnonzero(parts == p)
        if z.size < 2:
            continue
        a = A[np.ix_(z, z)]
        lam, vec = np.linalg.eig(a)
        if np.linalg.cond(vec) > 1e8:
            continue
        # complex pairs side by side (conjugate first as eig gives them), real ones alone
        try:
            d, t = scipy.linalg.cdf2rdf(lam, vec)
        except ValueError:  # (a pair eig did not give side by side)
            continue
        if not np.all(np.isfinite(t)) or np.linalg.cond(t) > 1e8:
            continue
        b, c = np.linalg.solve(t, B[z]), C[:, z] @ t
        w = np.abs(lam)
        w = np.concatenate([w[w > 0], [0.0]])
        before = _transfer(a, B[z], C[:, z], w)
        after = _transfer(d, b, c, w)
        if np.abs(after - before).max() > 1e-9 * max(np.abs(before).max(), 1e-300):
            continue
        A[np.ix_(z, z)] = np.where(np.abs(d) > 1e-14 * np.abs(d).max(), d, 0.0)
        B[z], C[:, z] = b, c
    return A, B, C


def _transfer(A: Array, B: Array, C: Array, omega: Array) -> Array:
    """``C (i w I - A)^-1 B`` at each ``omega``, ``(nw, ny, nu)``."""
    eye = np.eye(A.shape[0])
    return np.stack([C @ np.linalg.solve(1j * w * eye - A, B) for w in omega])


def dof_labels(n: int, bodies: Sequence[str] | None = None) -> list[str]:
    """Names of ``n`` DOFs for messages: ``surge ... yaw`` for one body, ``<body>
    surge`` for several (``bodies`` by default ``body1, body2, ...``)."""
    names = ("surge", "sway", "heave", "roll", "pitch", "yaw")
    if n % 6:
        return [f"DOF {i}" for i in range(n)]
    if n == 6 and not bodies:
        return list(names)
    bodies = list(bodies) if bodies else [f"body{b + 1}" for b in range(n // 6)]
    return [f"{bodies[i // 6]} {names[i % 6]}" for i in range(n)]


def realised(omega: Any, damping: Any, *, dt: float | None = None, t_max: float | None = None,
             tol: float = 0.02, max_order: int = MAX_ORDER, threshold: float = 1e-3,
             where: str = "", labels: Sequence[str] | None = None,
             progress: bool | None = None, warn: bool = True) -> RadiationStateSpace:
    """:meth:`RadiationStateSpace.from_database` on bare arrays ``omega (nw,)`` and
    ``damping (nw, n, n)`` (one body's 6 DOFs, or several bodies' ``6 N``)."""
    w = np.asarray(omega, dtype=float)
    b = np.asarray(damping, dtype=float)
    dt = np.pi / (4 * float(w[-1])) if dt is None else float(dt)
    with one_blas_thread():
        if t_max is None:
            horizon = 2 * np.pi / float(np.min(np.diff(w)))
            t = np.arange(0.0, horizon + dt, dt)
            kernel = radiation_kernel(w, b, t)
            t_max = _decay_time(t, kernel[:, _significant(kernel, threshold)], 1e-3)
        t = np.arange(int(np.ceil(t_max / dt)) + 1) * dt
        return RadiationStateSpace.from_impulse_response(
            t, radiation_kernel(w, b, t), tol=tol, max_order=max_order, threshold=threshold,
            omega_max=float(w[-1]), where=where, labels=labels, progress=progress, warn=warn)


def _progress_bar(total: int, where: str, enabled: bool | None) -> Any:
    """A tqdm bar over the fitted entries, shown after :data:`PROGRESS_DELAY` seconds."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=f"fitting the radiation memory of {where or 'a kernel'}",
                unit="entry", delay=PROGRESS_DELAY, leave=False, file=sys.stderr)


# --------------------------------------------------------------------------------------
# The realisation kept on disk
# --------------------------------------------------------------------------------------

#: Bump to invalidate every cached realisation (with this module's source, in the key).
_CACHE_FORMAT = 1


def cache_folder() -> Path:
    """Where fitted realisations are kept: the folder ``radiation`` of frylinks' cache,
    which ``frylinks cache`` lists and ``frylinks cache --clear`` empties
    (:func:`frylinks.kernel_cache.cache_dir`)."""
    return cache_dir() / "radiation"


def _cache_key(omega: Array, damping: Array, params: tuple[Any, ...]) -> str:
    """Hash of the data the realisation is fitted from, the fit's settings and the code
    that fits (this module's source: a change of the algorithm refits)."""
    h = hashlib.sha256()
    h.update(f"{_CACHE_FORMAT} {params!r} {omega.shape} {damping.shape}".encode())
    h.update(np.ascontiguousarray(omega, dtype=np.float64).tobytes())
    h.update(np.ascontiguousarray(damping, dtype=np.float64).tobytes())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()[:32]


def cached_state_space(omega: Any, damping: Any, *, tol: float = 0.02,
                       max_order: int = MAX_ORDER, threshold: float = 1e-3, where: str = "",
                       labels: Sequence[str] | None = None,
                       progress: bool | None = None, warn: bool = True) -> RadiationStateSpace:
    """:func:`realised`, kept on disk in :func:`cache_folder`.

    The file is keyed by a hash of ``omega``, ``damping`` (the data at the dataset's
    density, about the COG: what is fitted), ``tol``, ``max_order``, ``threshold`` and
    this module's source, so a resumed run, every case of a sweep and every later run
    of the same data read it instead of fitting again; any change of the data or the
    fitting code fits again. The fit's warnings (tolerance missed, entry left out) are
    given again when the realisation is read back. An unreadable file is fitted again
    and overwritten; a folder that cannot be written leaves the fit uncached.
    """
    w = np.asarray(omega, dtype=float)
    b = np.asarray(damping, dtype=float)
    params = (float(tol), int(max_order), float(threshold))
    path = cache_folder() / f"fit_{_cache_key(w, b, params)}.npz"
    loaded = _load(path, b.shape[1])
    if loaded is not None:
        if warn:
            loaded.warn_misses(where, labels, max_order=max_order, stacklevel=2)
        return loaded
    ss = realised(w, b, tol=tol, max_order=max_order, threshold=threshold, where=where,
                  labels=labels, progress=progress, warn=warn)
    _save(path, ss)
    return ss


def _load(path: Path, n: int) -> RadiationStateSpace | None:
    try:
        with np.load(path) as f:
            ss = RadiationStateSpace(
                A=f["A"], B=f["B"], C=f["C"], fit_error=f["fit_error"], order=f["order"],
                dt=float(f["dt"]), tol=float(f["tol"]), unstable=f["unstable"].astype(bool))
    except (OSError, KeyError, ValueError):  # missing, truncated or foreign: fit again
        return None
    nz = ss.A.shape[0]
    if (ss.A.shape != (nz, nz) or ss.B.shape != (nz, n) or ss.C.shape != (n, nz)
            or ss.fit_error.shape != (n, n) or ss.unstable.shape != (n, n)):
        return None
    return ss


def _save(path: Path, ss: RadiationStateSpace) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        np.savez(tmp, A=ss.A, B=ss.B, C=ss.C, fit_error=ss.fit_error, order=ss.order,
                 dt=ss.dt, tol=ss.tol, unstable=ss.unstable)
        os.replace(tmp, path)  # atomic: sweep workers fitting the same data at once
    except OSError as exc:
        warnings.warn(f"could not keep the radiation fit in {path.parent} ({exc}); it is "
                      "fitted again at every run", UserWarning, stacklevel=3)


def _significant(k: Array, threshold: float) -> Array:
    peak = np.abs(k).max(axis=0)  # (n, n)
    diag = np.diag(peak)
    n = diag.size
    kind = (np.arange(n) % 6 >= 3) if n % 6 == 0 else np.zeros(n, dtype=bool)
    ok = np.zeros(n, dtype=bool)
    for group in (kind, ~kind):
        if group.any() and diag[group].max() > 0:
            ok[group] = diag[group] > threshold * diag[group].max()
    scale = np.sqrt(np.outer(diag, diag))
    return ok[:, None] & ok[None, :] & (peak > threshold * scale)


def _decay_time(t: Array, kernel: Array, level: float) -> float:
    """Time after which every column of ``kernel (nt, m)`` stays below ``level`` of its
    peak."""
    mag = np.abs(kernel).reshape(t.size, -1)
    peak = mag.max(axis=0)
    live = peak > 0
    if not live.any():
        return float(t[-1])
    rel = mag[:, live] / peak[live]
    tail = np.maximum.accumulate(rel.max(axis=1)[::-1])[::-1]  # max over [t, end]
    above = np.nonzero(tail >= level)[0]
    return float(t[min(above[-1] + 1, t.size - 1)])


def _band(t: Array, omega_max: float | None) -> Array:
    """The frequencies [rad/s] at which a fit's error is measured: ``[0, omega_max]``
    (default ``pi / (4 dt)``) at a spacing that resolves the kernel's length
    (``pi / (4 t_end)``), 200 to 2000 of them."""
    dt = float(t[1] - t[0])
    top = np.pi / (4 * dt) if omega_max is None else float(omega_max)
    count = int(np.clip(np.ceil(4 * top * float(t[-1]) / np.pi), 200, 2000))
    return np.linspace(0.0, top, count + 1)


def transform(t: Array, kernel: Array, omega: Array) -> Array:
    """``K^(w) = int_0^t_end K(t) exp(-i w t) dt`` of samples ``kernel (nt, ...)`` at
    uniform times ``t`` from 0, by the trapezoidal rule; ``(nw, ...)``. Its real part
    is the radiation damping ``B(w)`` the kernel stands for, and ``|K^(w)| |u|`` the
    amplitude of the memory force of a harmonic velocity ``u`` at ``w``."""
    dt = float(t[1] - t[0])
    weights = np.exp(-1j * np.outer(omega, t)) * dt
    weights[:, 0] *= 0.5
    weights[:, -1] *= 0.5
    return np.tensordot(weights, kernel, axes=(1, 0))


def fit_errors(ss: RadiationStateSpace, t: Any, kernel: Any,
               omega_max: float | None = None) -> Array:
    """The error of each fitted entry of ``ss`` against the kernel samples ``kernel (nt,
    n, n)`` at times ``t`` (uniform, from 0): ``max_w |K_fit^(w) - K^(w)| / sqrt(Bmax_i
    Bmax_j)`` over ``[0, omega_max]`` (:func:`transform`; ``Bmax_i``: the peak of
    ``Re K_ii^``, the radiation damping).

    What it bounds: a harmonic velocity of amplitude ``U`` of DOF ``j`` at any frequency
    of the band makes a memory force on DOF ``i`` whose fitted amplitude differs from
    the convolution's by at most ``error_ij sqrt(Bmax_i Bmax_j) U``; for one DOF, at
    most ``error`` times the largest radiation damping force of that velocity
    amplitude. By Parseval, the same holds for the RMS of any motion in the band.
    """
    t = np.asarray(t, dtype=float)
    k = np.asarray(kernel, dtype=float)
    n = k.shape[1]
    omega = _band(t, omega_max)
    exact = transform(t, k, omega)
    fitted = transform(t, ss.impulse_response(t), omega)
    scale = np.abs(exact.real[:, np.arange(n), np.arange(n)]).max(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.abs(fitted - exact).max(axis=0) / np.sqrt(np.outer(scale, scale))
    return np.where(ss.order > 0, out, np.nan)


def _realise(h: Array, dt: float, tol: float, max_order: int, target: Array, phase: Array,
             scale: float) -> tuple[Array, Array, Array, float] | None:
    """Continuous SISO ``(A, B, C, fit error)`` for the samples ``h[k] = K(k dt)``;
    ``target (nw,)`` their :func:`transform` at the frequencies of ``phase = exp(-i w
    dt)``, and ``scale`` the error's denominator (:func:`fit_errors`)."""
    # Rows beyond a few times the order add nothing to the shift-invariance fit but cost
    # SVD time; every sample stays in the columns.
    rows = min((h.size + 1) // 2, 4 * max_order + 4)
    hankel = scipy.linalg.hankel(h[:rows], h[rows - 1:])
    u, s, vt = np.linalg.svd(hankel, full_matrices=False)
    rank = int(np.count_nonzero(s > s[0] * 1e-12))
    best: tuple[Array, Array, Array, float] | None = None
    for p in range(1, min(max_order, rank, rows - 1) + 1):
        root = np.sqrt(s[:p])
        obs = u[:, :p] * root
        a_d = np.linalg.lstsq(obs[:-1], obs[1:], rcond=None)[0]
        b = root * vt[:p, 0]
        c = obs[0]
        lam_d, vec = np.linalg.eig(a_d)
        on_negative_axis = (np.abs(lam_d.imag) <= 1e-12 * np.abs(lam_d)) & (lam_d.real <= 0)
        if np.any(np.abs(lam_d) >= 1.0) or np.any(on_negative_axis):
            continue  # unstable, or no real continuous-time counterpart
        # principal logarithm through the eigenvalues: A = V log(Lambda) V^-1 / dt is
        # real because complex poles come in conjugate pairs
        inv_vec = np.linalg.inv(vec)
        a_c = (vec * (np.log(lam_d) / dt)) @ inv_vec
        if np.abs(a_c.imag).max() > 1e-8 * max(np.abs(a_c.real).max(), 1e-300):
            continue
        # the fit's transform by the same trapezoidal rule as the target's, over the
        # same samples (sum_{k<N} lam^k x^k = (1 - (lam x)^N) / (1 - lam x))
        residues = (c @ vec) * (inv_vec @ b)
        x = phase[:, None] * lam_d[None, :]
        tail = x ** (h.size - 1)
        fitted = dt * (((1.0 - tail * x) / (1.0 - x) - 0.5 - 0.5 * tail) @ residues)
        err = float(np.abs(fitted - target).max() / scale) if scale > 0 else float("inf")
        if best is None or err < best[3]:
            best = (a_c.real, b, c, err)
        if err <= tol:
            break
    return best


def convolution_tables(omega: Any, damping: Any, delta: float, *, threshold: float = 1e-3,
                       entries: Any = None) -> tuple[Array, list[Array]]:
    """The kernel entries to convolve directly and their tables.

    Parameters
    ----------
    omega, damping
        ``(nw,)`` [rad/s] and ``(nw, n, n)``: the data (:func:`radiation_kernel`).
    delta
        The convolution's grid spacing [s] (the run's time step).
    threshold
        Entries below it, as in :meth:`RadiationStateSpace.from_impulse_response`, are
        left out (numerical noise).
    entries
        ``(n, n)`` bool: convolve only these (of the significant ones); default all.

    Returns
    -------
    pairs : (ne, 2) int
        ``(i, j)`` of each convolved entry.
    tables : list of ndarray
        Per entry, ``K(p delta / 2)``, ``p = 0, 1, ...`` up to the time after which it
        stays below 0.1 % of its peak (at most ``2 pi / min(d_omega)``, the longest
        memory the data resolve).
    """
    w = np.asarray(omega, dtype=float)
    b = np.asarray(damping, dtype=float)
    half = 0.5 * float(delta)
    horizon = 2 * np.pi / float(np.min(np.diff(w))) if w.size > 1 else 100.0
    t = np.arange(int(np.ceil(horizon / half)) + 1) * half
    with one_blas_thread():
        kernel = radiation_kernel(w, b, t)
    pick = _significant(kernel, threshold)
    if entries is not None:
        pick &= np.asarray(entries, dtype=bool)
    pairs = np.argwhere(pick)
    tables = []
    for i, j in pairs:
        end = _decay_time(t, kernel[:, i, j][:, None], 1e-3)
        stop = int(np.ceil(end / delta)) * 2 + 1  # (whole grid steps)
        tables.append(np.ascontiguousarray(kernel[:stop, i, j]))
    return pairs.reshape(-1, 2), tables
