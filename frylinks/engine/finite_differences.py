"""Central differences of a vector function, as the statics and the linear analysis
take their tangents."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Array = np.ndarray


def central(fn: Callable[[Array], Array], n: int, h: float, richardson: bool = False
            ) -> Array:
    """The Jacobian of ``fn`` at 0 by central differences along each of its ``n``
    coordinates, one column each: ``(fn(h e_j) - fn(-h e_j)) / 2h`` (truncation
    ``~h^2``), or with ``richardson`` extrapolated from the steps ``h`` and ``h/2``
    (truncation ``~h^4``, twice the evaluations)."""
    cols = []
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        d1 = (fn(h * e) - fn(-h * e)) / (2 * h)
        if richardson:
            d2 = (fn(0.5 * h * e) - fn(-0.5 * h * e)) / h
            d1 = (4.0 * d2 - d1) / 3.0
        cols.append(d1)
    return np.stack(cols, axis=-1)
