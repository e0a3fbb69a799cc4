"""Piecewise-linear time series, the one interpolation behind ``linear_spline`` and ``table``.

A series is held constant before its first and after its last sample, and is linear in
between; its first derivative is the slope of the segment containing ``t`` (right-sided
at a sample, zero outside the series) and its second derivative is zero (the Dirac
impulses at the kinks are not represented).

The series of a block are padded into two arrays (:func:`series_data`) and evaluated by
one kernel, :func:`series_kernel`, which both signal types use as their compiled
evaluation (the rules are those of :class:`frylinks.piecewise.PiecewiseLinear` with
``hold`` extrapolation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from frylinks.jit import kernel
from frylinks.signals import SignalType

Array = np.ndarray


def series_data(series: Sequence[tuple[Array, Array]]) -> tuple[Array, Array, Array]:
    """The series padded into ``(times, values, size)``: ``(n, width)`` arrays (times
    padded with inf, values with the last value) and each series' sample count."""
    n = len(series)
    size = np.array([len(tt) for tt, _ in series], dtype=np.int64)
    width = max(2, int(size.max(initial=1)))
    times = np.full((n, width), np.inf)
    values = np.zeros((n, width))
    for i, (tt, vv) in enumerate(series):  # at construction only
        times[i, : len(tt)] = tt
        values[i, : len(vv)] = vv
        values[i, len(vv):] = vv[-1]
    return times, values, size


@kernel
def series_kernel(data: tuple[Any, ...], t: float, order: int, out: Array) -> None:
    """Values (order 0) or derivatives (order 1, 2) of every padded series at ``t``."""
    times, values, size = data
    for i in range(len(size)):
        m = size[i]
        x = times[i]
        # count: samples at or before t (binary search; NaN counts none)
        lo, hi = 0, m
        while lo < hi:
            mid = (lo + hi) // 2
            if t >= x[mid]:
                lo = mid + 1
            else:
                hi = mid
        count = lo
        if order >= 2 or (order == 1 and (count < 1 or count >= m)):
            out[i] = 0.0  # held outside, and no kink impulses
        elif count == 0:
            out[i] = values[i, 0]
        elif count >= m:
            out[i] = values[i, m - 1]
        else:  # inside the segment of samples count - 1 and count
            k = count - 1
            slope = (values[i, k + 1] - values[i, k]) / (x[k + 1] - x[k])
            out[i] = slope if order == 1 else values[i, k] + slope * (t - x[k])


class SeriesSignal(SignalType):
    """A signal type whose instances are time series (subclasses fill :attr:`series`
    in ``__init__``), evaluated by :func:`series_kernel`."""

    def __init__(self, instances: Sequence[Any]) -> None:
        super().__init__(instances)
        self.series: list[tuple[Array, Array]] = []

    def kernel_data(self) -> tuple[Any, ...]:
        return series_data(self.series)


SeriesSignal.kernel = series_kernel
