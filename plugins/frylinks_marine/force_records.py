"""Records of wave loads known before a run: computed once on a time grid, interpolated
by the compiled step.

A linear wave load is a sum of harmonics, ``S(t) = sum_c Re(A_c exp(-i w_c t))``; a
second-order load is a product of two such sums (:mod:`frylinks_marine.second_order`).
Summing every component at every stage of every step costs ``O(nc)`` a step (65 us for
the point absorber's 150 components); a record of ``S`` and its derivative on a grid of
step ``h`` over the run's span (:attr:`frylinks.forces.ForceContext.span`) is read in
``O(1)``. Between samples the step takes the cubic Hermite interpolant of the values and
exact derivatives, whose error for a harmonic of amplitude ``a`` and frequency ``w`` is
at most ``a (w h)^4 / 384``; :func:`record_step` picks ``h`` so that these add up to at
most ``tol * sum_c |A_c|`` (1e-6 of it by default).

Outside its span (a run resumed past it, an adaptive integrator's trial stage beyond
``t_end``) a kernel sums the components itself: a record changes the cost, never the
answer beyond the interpolation error. A record that would exceed
:data:`MAX_RECORD_BYTES` is not made (said in a warning): the step then sums.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .wave_kernels import harmonic_record, record_weights

Array = np.ndarray

#: Default bound of the interpolation error, relative to the sum of the amplitudes.
RECORD_TOLERANCE = 1e-6
#: Largest record made [bytes] (values and derivatives); beyond it the step sums.
MAX_RECORD_BYTES = 1 << 29
#: A load series below this fraction of the largest of its kind on the same body is the
#: BEM's round-off, recorded as zero (:func:`without_noise`).
NEGLIGIBLE = 1e-9


def record_step(amplitude: Array, omega: Array, tol: float = RECORD_TOLERANCE) -> float:
    """Grid step [s] whose cubic Hermite error bound for harmonics of moduli
    ``amplitude`` ``(m, nc)`` at ``omega`` ``(nc,)`` [rad/s] is ``tol`` of each series'
    sum of moduli: ``h^4 sum_c |A_jc| w_c^4 / 384 <= tol sum_c |A_jc|`` for every ``j``
    (``h = (384 tol)^(1/4) / omega_max = 0.14 / omega_max`` for a single harmonic and
    1e-6; a spectrum's tails, of small amplitude, allow a larger step)."""
    a = np.abs(np.atleast_2d(amplitude))
    total = a.sum(axis=1)
    fourth = a @ np.asarray(omega, dtype=float) ** 4
    used = total > 0.0
    if not used.any() or not np.any(fourth[used] > 0.0):
        return math.inf
    return float(np.min((384.0 * tol * total[used] / fourth[used]) ** 0.25))


@dataclass(frozen=True, eq=False)
class ForceRecord:
    """Values and time derivatives of ``m`` load series on ``t_n = t0 + n h``.

    Attributes
    ----------
    grid
        ``(t0, h)`` [s].
    values, rates
        ``(nt, m)``; ``nt = 0`` for no record (the kernel then sums).
    """

    grid: Array
    values: Array
    rates: Array

    @classmethod
    def empty(cls, m: int) -> ForceRecord:
        """No record (a kernel reading it always sums its components)."""
        return cls(np.array([0.0, 1.0]), np.zeros((0, m)), np.zeros((0, m)))

    @property
    def span(self) -> tuple[float, float]:
        """First and last time of the record [s] (an empty span for no record)."""
        t0, h = float(self.grid[0]), float(self.grid[1])
        return t0, t0 + h * (len(self.values) - 1)

    def at(self, t: float) -> Array:
        """The interpolated ``(m,)`` values at ``t`` (as the kernels take them)."""
        k, w0, w1, w2, w3 = record_weights(self.grid, len(self.values), float(t))
        if k < 0:
            raise ValueError(f"t = {t:g} s lies outside the record {self.span}")
        return (w0 * self.values[k] + w1 * self.rates[k]) \
            + (w2 * self.values[k + 1] + w3 * self.rates[k + 1])

    def kernel_data(self) -> tuple[Array, Array, Array]:
        """``(grid, values, rates)`` as the kernels read them."""
        return self.grid, self.values, self.rates


def without_noise(phasors: Array, size: int = 3, level: float = NEGLIGIBLE) -> Array:
    """``phasors (m, nc)`` with the series below ``level`` of the largest of their group
    set to zero, the groups ``size`` consecutive series (3: a body's forces, then its
    moments, each group in one unit).

    A BEM solver leaves round-off where a load is zero by symmetry: the sphere of
    ``cases/point_absorber.yaml`` in head seas has a sway force 2e-16 of its surge force,
    and its roll moment's noise, richer in high frequencies than any real load, would set
    the record's step (:func:`record_step`, 15 % finer) and half its cost. Such a
    series changes the run by less than ``level`` of its group's largest, far below the
    record's own error (:data:`RECORD_TOLERANCE` of each series)."""
    total = np.abs(phasors).sum(axis=1).reshape(-1, size)
    keep = (total > level * total.max(axis=1, keepdims=True)).reshape(-1)
    return np.where(keep[:, None], phasors, 0.0)


def harmonic(phasors: Array, omega: Array, span: tuple[float, float] | None,
             tol: float = RECORD_TOLERANCE, label: str = "wave load") -> ForceRecord:
    """The record of ``S_j(t) = sum_c Re(phasors[j, c] exp(-i omega_c t))`` over ``span``.

    Parameters
    ----------
    phasors
        ``(m, nc)`` complex amplitudes.
    omega
        ``(nc,)`` angular frequencies [rad/s].
    span
        ``(t_start, t_end)`` [s]; None (no run to record for) gives no record.
    tol
        Interpolation error bound relative to ``sum_c |phasors[j, c]|``.
    label
        What the record is of, for the warning when it would be too large.
    """
    m = phasors.shape[0]
    if len(omega) == 0 or not np.any(phasors):
        return ForceRecord.empty(m)
    grid = record_grid(span, record_step(phasors, omega, tol), m, label)
    if grid is None:
        return ForceRecord.empty(m)
    t0, h, nt = grid
    values, rates = np.zeros((nt, m)), np.zeros((nt, m))
    # only the series with a load: a DOF the waves do not excite (a buoy's sway, roll
    # and yaw in head seas) has a record of zeros, and summing its components is half
    # the work of a symmetric body's record
    live = np.flatnonzero(np.any(phasors != 0.0, axis=1))
    part = (values, rates) if live.size == m else (np.zeros((nt, live.size)),
                                                    np.zeros((nt, live.size)))
    harmonic_record(np.ascontiguousarray(phasors[live].real),
                    np.ascontiguousarray(phasors[live].imag),
                    np.ascontiguousarray(omega, dtype=float), t0, h, *part)
    if live.size < m:
        values[:, live], rates[:, live] = part
    return ForceRecord(np.array([t0, h]), values, rates)


def record_grid(span: tuple[float, float] | None, h: float, m: int,
                label: str = "wave load") -> tuple[float, float, int] | None:
    """``(t0, h, nt)`` of the record of ``m`` series of step ``h`` [s] over ``span`` (at
    most a sixteenth of the span), one sample past its end. None without a span, or
    when the record would exceed :data:`MAX_RECORD_BYTES` (said in a warning naming
    ``label``: the step then sums)."""
    if span is None:
        return None
    t0, t1 = float(span[0]), float(span[1])
    h = min(h, max(t1 - t0, 1e-3) / 16.0)
    nt = math.ceil((t1 - t0) / h) + 2
    size = 2 * 8 * nt * m
    if size > MAX_RECORD_BYTES:
        warnings.warn(f"{label}: a record of {nt} samples ({size / 2**20:.0f} MiB) over "
                      f"{t1 - t0:g} s would be too large; the step sums the wave "
                      "components instead (slower, the same result)", stacklevel=4)
        return None
    return t0, h, nt
