"""Second-order wave-load data of a hydrodynamic dataset: mean drift coefficients and
quadratic transfer functions (QTFs), kept with the first-order coefficients
(:attr:`frylinks_marine.hydrodb.HydroDatabase.second_order`) for the second-order
forces to build on.

Conventions are the database's (:mod:`frylinks_marine.hydrodb`): SI units, per square
metre of wave amplitude, headings the direction the waves travel towards [rad], and
phasors in ``exp(-i omega t)``. With wave components of complex amplitudes ``a_k``
(elevation ``Re(sum a_k exp(-i omega_k t))``), the loads they stand for are

* mean drift: ``F = sum_k |a_k|^2 D(omega_k, beta_k)`` (``D`` real in theory; the
  imaginary part a code writes is kept as read);
* difference frequency: ``F = Re sum_ij a_i conj(a_j) T-(omega_i, omega_j, beta_i,
  beta_j) exp(-i (omega_i - omega_j) t)``, with ``T-(w_j, w_i, b_j, b_i) =
  conj(T-(w_i, w_j, b_i, b_j))``;
* sum frequency: ``F = Re sum_ij a_i a_j T+(omega_i, omega_j, beta_i, beta_j)
  exp(-i (omega_i + omega_j) t)``, with ``T+`` symmetric in its two components.

(How a code splits the sum over ``i, j``, and with which factors 1/2, is the
force's business, not the data's.) Entries a file gives neither directly nor by that
symmetry are NaN, so that a force using them cannot mistake a gap for zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

Array = np.ndarray

#: The tables a :class:`SecondOrder` may hold, and what each is.
TABLES = {
    "mean_drift_momentum": "mean drift by momentum conservation (WAMIT .8)",
    "mean_drift_pressure": "mean drift by pressure integration (WAMIT .9)",
    "mean_drift_control_surface": "mean drift by a control surface (WAMIT .7; BEMIO "
                                  "control_surface)",
    "qtf_difference": "difference-frequency QTF (WAMIT .12d)",
    "qtf_sum": "sum-frequency QTF (WAMIT .12s)",
}


@dataclass(frozen=True, eq=False)
class DriftTable:
    """One table of second-order loads over frequencies and headings, the DOFs last.

    Attributes
    ----------
    omega
        ``(nw,)`` [rad/s], ascending.
    headings
        ``(nh,)`` [rad] in ``[0, 2 pi)``, ascending.
    values
        Complex, per square metre of wave amplitude [N/m^2, N m/m^2]: mean drift
        ``(nw, nh, n)`` over ``(omega, heading, dof)``; a QTF ``(nw, nw, nh, nh, n)``
        over ``(omega_i, omega_j, heading_i, heading_j, dof)``; ``n = 6 N`` DOFs in
        frylinks' order, body after body. NaN where the source gave nothing.
    kind
        ``"mean_drift"``, ``"difference"`` or ``"sum"``.
    source
        The file it was read from, for messages.
    """

    omega: Array
    headings: Array
    values: Array
    kind: str
    source: str = field(default="", repr=False)

    def restricted(self, dofs: slice) -> DriftTable:
        """The same table over the DOFs ``dofs`` only (one body's)."""
        return replace(self, values=self.values[..., dofs])

    def scaled(self, factor: float) -> DriftTable:
        """Every value times ``factor`` (another water density)."""
        return replace(self, values=self.values * factor)

    def moved(self, t: Array) -> DriftTable:
        """Forces and moments about other points: ``t`` ``(n, n)`` as for the
        excitation (:func:`~frylinks_marine.rigid_transforms.block_transform`)."""
        return replace(self, values=np.einsum("ki,...k->...i", t, self.values))


@dataclass(frozen=True, eq=False)
class SecondOrder:
    """The second-order tables a dataset holds (each None when absent): see
    :data:`TABLES`."""

    mean_drift_momentum: DriftTable | None = None
    mean_drift_pressure: DriftTable | None = None
    mean_drift_control_surface: DriftTable | None = None
    qtf_difference: DriftTable | None = None
    qtf_sum: DriftTable | None = None

    def _mapped(self, how: Any) -> SecondOrder:
        return SecondOrder(**{name: None if (table := getattr(self, name)) is None
                              else how(table) for name in TABLES})

    def restricted(self, dofs: slice) -> SecondOrder:
        """Every table over the DOFs ``dofs`` only."""
        return self._mapped(lambda table: table.restricted(dofs))

    def scaled(self, factor: float) -> SecondOrder:
        """Every table times ``factor``."""
        return self._mapped(lambda table: table.scaled(factor))

    def moved(self, t: Array) -> SecondOrder:
        """Every table's loads about other points (:meth:`DriftTable.moved`)."""
        return self._mapped(lambda table: table.moved(t))

    @property
    def tables(self) -> dict[str, DriftTable]:
        """The tables present, by name."""
        return {name: table for name in TABLES
                if (table := getattr(self, name)) is not None}
