"""PiecewiseLinear against numpy.interp (an independent reference) for tables of
different lengths evaluated together, and its slopes against the segment formula."""

from __future__ import annotations

import numpy as np

from frylinks.piecewise import PiecewiseLinear


def tables(rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for k in (1, 2, 3, 7, 12):
        x = np.cumsum(rng.uniform(0.1, 1.0, k)) - 2.0
        out.append(np.column_stack([x, rng.normal(size=k)]))
    return out


def test_hold_matches_numpy_interp() -> None:
    """Values equal np.interp everywhere; slopes are the right-sided segment slopes
    inside and zero outside (and for a one-knot table)."""
    rng = np.random.default_rng(5)
    tabs = tables(rng)
    curves = PiecewiseLinear(tabs, "hold")
    for x in np.linspace(-4.0, 8.0, 301):
        expected = [np.interp(x, t[:, 0], t[:, 1]) for t in tabs]
        np.testing.assert_allclose(curves.value(x), expected, rtol=1e-13, atol=1e-14)
        slopes = curves.slope(x)
        for i, t in enumerate(tabs):
            k = np.searchsorted(t[:, 0], x, side="right") - 1
            inside = len(t) > 1 and 0 <= k < len(t) - 1
            want = (t[k + 1, 1] - t[k, 1]) / (t[k + 1, 0] - t[k, 0]) if inside else 0.0
            assert abs(slopes[i] - want) < 1e-12


def test_linear_extrapolates_end_segments() -> None:
    """Beyond the ends the first and last segments continue; one x per instance."""
    rng = np.random.default_rng(6)
    tabs = [t for t in tables(rng) if len(t) >= 2]
    curves = PiecewiseLinear(tabs, "linear")
    below = np.array([t[0, 0] - 3.0 for t in tabs])
    above = np.array([t[-1, 0] + 3.0 for t in tabs])
    for x, (a, b) in ((below, (0, 1)), (above, (-2, -1))):
        want = [t[a, 1] + (t[b, 1] - t[a, 1]) / (t[b, 0] - t[a, 0]) * (xi - t[a, 0])
                for t, xi in zip(tabs, x, strict=True)]
        np.testing.assert_allclose(curves.value(x), want, rtol=1e-12)
