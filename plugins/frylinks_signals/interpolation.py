"""Piecewise-linear time series, the one interpolation behind ``linear_spline`` and ``table``.

A series is held constant before its first and after its last sample, and is linear in
between; its first derivative is the slope of the segment containing ``t`` (right-sided
at a sample, zero outside the series) and its second derivative is zero (the Dirac
impulses at the kinks are not represented).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from frylinks.piecewise import PiecewiseLinear

Array = np.ndarray


def check_series(times: Array, values: Array) -> str | None:
    """Why ``(times, values)`` is not a usable series, or None.

    A series needs at least one sample, finite numbers and strictly increasing times.
    """
    if times.ndim != 1 or times.shape != values.shape:
        return "times and values must be two columns of the same length"
    if len(times) < 1:
        return "the series has no sample"
    if not (np.isfinite(times).all() and np.isfinite(values).all()):
        return "the series holds a value that is not a finite number"
    if np.any(np.diff(times) <= 0):
        k = int(np.argmax(np.diff(times) <= 0))
        return (f"times must increase strictly; sample {k + 1} (t = {times[k + 1]:g}) does not "
                f"follow sample {k} (t = {times[k]:g})")
    return None


def interpolated(series: Sequence[tuple[Array, Array]]) -> PiecewiseLinear:
    """The series as one :class:`~frylinks.piecewise.PiecewiseLinear` (held outside)."""
    return PiecewiseLinear([np.column_stack([tt, vv]) for tt, vv in series], "hold")


def evaluate(curves: PiecewiseLinear, t: float, order: int = 0) -> Array:
    """Values (order 0) or time derivatives (order 1, 2) of the series at ``t``."""
    if order == 0:
        return curves.value(t)
    if order == 1:
        return curves.slope(t)
    return np.zeros(len(curves.size))
