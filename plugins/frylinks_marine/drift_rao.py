"""The mean wave drift of ``wave_drift`` in unit regular waves, for a linear analysis
(:meth:`frylinks.forces.ForceType.mean_wave_drift`, which ``frylinks rao`` reports).

A regular wave of amplitude ``a``, frequency ``w`` and heading ``b`` pushes a body with
the steady load ``a^2 D(w, b)``; per square metre of amplitude that is the table ``D``
itself. It comes from the same table as the time domain's mean drift
(:mod:`frylinks_marine.wave_drift`): the difference QTF's diagonal for ``method: qtf``,
else the mean drift coefficients ``mean_drift`` names (the first the data have), at the
environment's water density, interpolated as for the wave components
(:func:`~frylinks_marine.drift_loads.mean_drift_at`). The position of the body does not
enter (the load is quadratic in the wave: a phase shift cancels).

Outside the table's frequencies the value is NaN, not an error: an RAO's frequencies are
chosen for the first-order response and often reach beyond a QTF's (a time-domain run
there is refused instead).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .drift_loads import diagonal, mean_drift_at, mean_table, slow_method

if TYPE_CHECKING:
    from .wave_drift import WaveDrift

Array = np.ndarray


def mean_drift_per_wave(force: WaveDrift, omega: Array, heading: float) -> Array:
    """Per element of a ``wave_drift`` block, its mean drift load per square metre of
    amplitude of a regular wave.

    Parameters
    ----------
    force
        The ``wave_drift`` block, prepared (its water densities ``_rho`` are the
        environment's; the datasets' own before :meth:`prepare`).
    omega
        ``(nw,)`` angular frequencies [rad s-1].
    heading
        Direction the waves travel towards [rad] (0: towards +x).

    Returns
    -------
    (n, nw, 6) ndarray
        Force and moment on the element's body (about its COG, world axes) [N m-2,
        N m m-2]; NaN at frequencies outside the data.
    """
    w = np.asarray(omega, dtype=float).reshape(-1)
    out = np.full((force.nb_forces, w.size, 6), np.nan)
    for i, data in enumerate(force._dbs):
        db = data.at_density(force._rho[i])
        params = force._params[i]
        so = db.second_order
        if slow_method(db, params) == "qtf":
            table = None if so is None or so.qtf_difference is None \
                else diagonal(so.qtf_difference)
        else:
            table = mean_table(db, params.get("mean_drift"))
        if table is None:
            continue
        lo, hi = float(table.omega[0]), float(table.omega[-1])
        slack = 1e-9 * hi
        inside = (w >= lo - slack) & (w <= hi + slack)
        if not inside.any():
            continue
        wi = np.clip(w[inside], lo, hi)
        b = np.full(wi.size, float(heading))
        out[i, inside] = mean_drift_at(table, wi, b, db.label or "the dataset")
    return out
