"""Piecewise-linear functions of one variable, one per instance, evaluated together.

The one interpolation behind time series (``linear_spline``, ``table``) and tabulated
force laws (``user_spring``): tables of different lengths are padded into one array, so
a single vectorised search finds every instance's segment, with no Python loop per
instance in the step loop.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Array = np.ndarray

EXTRAPOLATIONS = ("hold", "linear")


class PiecewiseLinear:
    """Piecewise-linear functions through ``(x, y)`` knots, x strictly increasing.

    Parameters
    ----------
    tables
        One ``(k, 2)`` array of knots per instance (``k >= 1``; ``k >= 2`` for
        ``linear`` extrapolation).
    extrapolate
        ``hold``: constant before the first and after the last knot, slope zero there;
        ``linear``: the end segments extended.

    Notes
    -----
    At a knot the slope is that of the segment to its right (right-sided derivative).
    """

    def __init__(self, tables: Sequence[Array], extrapolate: str = "hold") -> None:
        if extrapolate not in EXTRAPOLATIONS:
            raise ValueError(f"extrapolate must be one of {EXTRAPOLATIONS}")
        self.linear = extrapolate == "linear"
        n = len(tables)
        self.size = np.array([len(t) for t in tables], dtype=int)
        width = max(2, int(self.size.max(initial=1)))
        self.x = np.full((n, width), np.inf)
        self.y = np.zeros((n, width))
        for i, t in enumerate(tables):  # at construction only
            t = np.asarray(t, dtype=float).reshape(-1, 2)
            self.x[i, : len(t)], self.y[i, : len(t)] = t[:, 0], t[:, 1]
            self.y[i, len(t):] = t[-1, 1]  # padding: flat, so a 1-knot table is constant
        self._rows = np.arange(n)

    def _segments(self, x: Array) -> tuple[Array, Array, Array, Array]:
        count = np.sum(x[:, None] >= self.x, axis=1)  # knots at or left of x
        k = np.clip(count - 1, 0, np.maximum(self.size - 2, 0))
        x0, x1 = self.x[self._rows, k], self.x[self._rows, k + 1]
        y0, y1 = self.y[self._rows, k], self.y[self._rows, k + 1]
        with np.errstate(invalid="ignore"):
            slope = np.where(np.isfinite(x1), (y1 - y0) / (x1 - x0), 0.0)
        return count, x0, y0, slope

    def value(self, x: Array | float) -> Array:
        """Values at ``x`` (one per instance, or a scalar for all): ``(n,)``."""
        x = np.broadcast_to(np.asarray(x, dtype=float), self._rows.shape)
        count, x0, y0, slope = self._segments(x)
        inner = y0 + slope * (x - x0)
        if self.linear:
            return inner
        last = self.y[self._rows, self.size - 1]
        return np.where(count == 0, self.y[:, 0], np.where(count >= self.size, last, inner))

    def slope(self, x: Array | float) -> Array:
        """First derivatives at ``x``: ``(n,)``."""
        x = np.broadcast_to(np.asarray(x, dtype=float), self._rows.shape)
        count, _, _, slope = self._segments(x)
        if self.linear:
            return slope
        return np.where((count >= 1) & (count < self.size), slope, 0.0)
