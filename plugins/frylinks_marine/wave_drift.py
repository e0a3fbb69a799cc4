"""``wave_drift``: second-order wave loads on a body from a hydrodynamic dataset's mean
drift coefficients and quadratic transfer functions (QTFs).

The theory, the factorised records that keep the step free of any sum over pairs of
components, and Aranha's drift damping are in :mod:`frylinks_marine.drift_loads`. The
loads are in world-aligned axes about the body's COG like the first-order excitation,
see the same wave components (the environment's sea, each phase shifted to the body's
initial place) and are ramped by the square of the sea's ramp. The mean drift is a
steady load: it stays in statics (a body's static equilibrium in waves includes its
mean offset, unless the sea is ramped from zero at t = 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ElementError, ModelError
from frylinks.forces import ForceContext, ForceKernels, Output
from frylinks.kinematics import NodeFrames
from frylinks.params import Param, shown

from .bem import HYDRO, HYDRO_BODY, DatasetForce
from .body_forces import BODY
from .datasets import HYDRO_COG, dataset_of, in_environment, water_density
from .drift_loads import (
    MEAN_DRIFT,
    METHODS,
    PairSum,
    diagonal,
    drift_damping,
    factorised,
    mean_drift_at,
    mean_table,
    newman_sum,
    pair_matrices,
    qtf_at,
    slow_method,
)
from .drift_rao import mean_drift_per_wave
from .force_records import ForceRecord
from .hydrodb import DOF_NAMES, HydroDatabase
from .wave_kernels import wave_drift_force, wave_drift_outputs, wave_params

Array = np.ndarray


_PARTS = {
    "wave_drift_mean_force": "mean wave drift load on the DOFs",
    "wave_drift_slow_force": "slow-drift (difference-frequency) wave load on the DOFs, "
                             "the mean left out",
    "wave_drift_sum_force": "sum-frequency wave load on the DOFs",
    "wave_drift_damping_force": "wave drift damping load on the DOFs",
}


def _dof_mask(value: Any) -> Array:
    """``(6,)`` bool: the DOFs a ``dofs`` parameter names (all when None)."""
    if value is None:
        return np.ones(6, dtype=bool)
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list | tuple) or not names \
            or any(n not in DOF_NAMES for n in names):
        raise ModelError(f"expected a list of DOFs among {', '.join(DOF_NAMES)}, got "
                         f"{shown(value)}", "dofs")
    return np.isin(np.array(DOF_NAMES), names)


def _check(db: HydroDatabase, params: Mapping[str, Any]) -> None:
    """ModelErrors for parameters out of range and data they need the dataset lacks."""
    for key in ("sum_frequency", "drift_damping"):
        if not isinstance(params.get(key, False), bool):
            raise ModelError(f"expected true or false, got {shown(params[key])}", key)
    _dof_mask(params.get("dofs"))
    so = db.second_order
    have = [] if so is None else list(so.tables)
    listed = ", ".join(have) or "none"
    method = slow_method(db, params)
    if method == "qtf" and (so is None or so.qtf_difference is None):
        raise ModelError(f"{db.label} holds no difference-frequency QTF (second-order data: "
                         f"{listed}); accepted: method newman or mean, or data with a QTF "
                         "(WAMIT .12d)", "method")
    if mean_table(db, params.get("mean_drift")) is None and (
            method != "qtf" or params.get("mean_drift") is not None):
        which = params.get("mean_drift") or "any"
        raise ModelError(f"{db.label} holds no mean drift coefficients ({which}; its "
                         f"second-order data: {listed}); accepted: a dataset with them "
                         "(WAMIT .8 / .9 / .12d, Capytaine or BEMIO mean drift)",
                         "hydrodynamics" if params.get("mean_drift") is None else "mean_drift")
    if params.get("sum_frequency") and (so is None or so.qtf_sum is None):
        raise ModelError(f"{db.label} holds no sum-frequency QTF (second-order data: "
                         f"{listed}); accepted: sum_frequency false, or data with one "
                         "(WAMIT .12s)", "sum_frequency")
    if params.get("drift_damping") and mean_table(db, params.get("mean_drift")) is None:
        raise ModelError(f"{db.label}: drift damping needs mean drift coefficients; its "
                         f"second-order data: {listed}", "drift_damping")


class WaveDrift(DatasetForce):
    """Second-order wave loads: mean drift, slow drift (Newman or the full
    difference-frequency QTF), optionally the sum-frequency QTF and wave drift damping."""

    name = "wave_drift"
    parameters = {
        "body": BODY,
        "hydrodynamics": HYDRO,
        "hydrodynamics_body": HYDRO_BODY,
        "hydrodynamics_cog": HYDRO_COG,
        "method": Param("choice", "", "slow drift: 'qtf' (the full difference-frequency "
                        "QTF), 'newman' (Newman's approximation from the mean drift "
                        "coefficients) or 'mean' (the mean drift only); default qtf where "
                        "the data have a QTF, else newman", default=None, choices=METHODS),
        "mean_drift": Param("choice", "", "mean drift coefficients of newman, mean and the "
                            "drift damping: 'momentum' (far field, WAMIT .8), 'pressure' "
                            "(near field, .9) or 'qtf' (the QTF's diagonal); default the "
                            "first the data have", default=None, choices=MEAN_DRIFT),
        "sum_frequency": Param("any", "", "add the sum-frequency QTF's load (springing of "
                              "stiff systems): true or false", default=False),
        "dofs": Param("any", "", "the DOFs the loads act on, a list of surge, sway, heave, "
                      "roll, pitch, yaw (default: every DOF the data give)", default=None),
        "drift_damping": Param("any", "", "Aranha's wave drift damping on the horizontal "
                              "velocity (deep-water form): true or false", default=False),
    }
    outputs = {name: Output("N", text, ("dof",), "N m") for name, text in _PARTS.items()}
    description = "second-order wave loads (mean drift, Newman or QTF slow drift, sum " \
                  "frequency, drift damping) from a WAMIT, Capytaine or BEMIO dataset"
    examples = [{"hydrodynamics": str(Path(__file__).resolve().parent / "data" / "wamit"
                                      / "marin_semi.1.gz")}]

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        _check(dataset_of(params),
               params)

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        self._params = [dict(p) for p in instances]
        m = 6 * self.nb_forces
        self.mean = np.zeros(m)
        self.damping = np.zeros((m, 2))
        empty = factorised(np.zeros((0, 0, 0)), np.zeros(0), True)
        self.slow: PairSum = empty
        self.fast: PairSum = factorised(np.zeros((0, 0, 0)), np.zeros(0), False)
        self.slow_record = self.fast_record = ForceRecord.empty(m)
        self._ramp = wave_params(math.inf, 0.0, np.zeros(3))
        #: the kernels' room for the four parts (written a call, never read across calls)
        self._work = np.zeros((4, m))
        self._rho = [float(db.rho) for db in self._dbs]

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        self.__dict__.pop("_kernel_data", None)
        m = 6 * self.nb_forces
        self.mean, self.damping = np.zeros(m), np.zeros((m, 2))
        self._rho = [water_density(ctx, db) for db in self._dbs]
        env = ctx.settings.get("environment")
        waves = None if env is None else env.waves
        nc = 0 if waves is None else waves.nb_components
        g = float(np.linalg.norm(ctx.gravity)) or 9.81
        # the pair matrices only where a QTF needs them (Newman's sum is made factorised)
        qtf = any(slow_method(db, p) == "qtf" for db, p in zip(self._dbs, self._params,
                                                               strict=True))
        fast_any = any(p.get("sum_frequency") for p in self._params)
        slow = np.zeros((nc, nc, m if qtf else 0), dtype=complex)
        fast = np.zeros((nc, nc, m if fast_any else 0), dtype=complex)
        omega = np.zeros(0) if waves is None else np.asarray(waves.omega, dtype=float)
        if waves is not None:
            self._ramp = waves.kernel_data()[1]
        newman: list[PairSum] = []
        for i, data in enumerate(self._dbs):
            if nc == 0:
                break
            try:
                newman.append(self._element(i, data, ctx, waves, frames[0].p[i, :2], g,
                                            slow, fast))
            except ElementError:
                raise
            except ModelError as exc:
                raise ElementError(exc.message, exc.path, i) from None
        self.slow = factorised(slow, omega, True)
        for part in newman:
            self.slow = self.slow.joined(part)
        self.fast = factorised(fast, omega, False)
        self.slow_record = self.slow.record(ctx.span, m)
        self.fast_record = self.fast.record(ctx.span, m)

    def _element(self, i: int, data: HydroDatabase, ctx: ForceContext, waves: Any,
                 place: Array, g: float, slow: Array, fast: Array) -> PairSum:
        """Element ``i``'s mean drift and damping (its body's initial horizontal place
        ``place``), its pair matrices into the columns of ``slow`` and ``fast``; returns
        its Newman pair sum (empty for another method)."""
        omega = np.asarray(waves.omega, dtype=float)
        nc = omega.size
        db = in_environment(data, ctx)
        p = self._params[i]
        _check(db, p)
        where = db.label or "the dataset"
        heading = np.asarray(waves.heading, dtype=float) * np.ones(nc)
        centre = np.zeros(2) if db.center_of_mass is None else db.center_of_mass[:2]
        offset = place - centre
        k = np.asarray(waves.k, dtype=float)
        shift = np.exp(1j * k * (np.cos(heading) * offset[0] + np.sin(heading) * offset[1]))
        a = np.asarray(waves.amplitude) * np.exp(1j * np.asarray(waves.phase)) * shift
        cols = slice(6 * i, 6 * i + 6)
        part = factorised(np.zeros((nc, nc, 0)), omega, True)
        method = slow_method(db, p)
        so = db.second_order
        assert so is not None  # (_check)
        if method == "qtf":
            assert so.qtf_difference is not None
            T = qtf_at(so.qtf_difference, omega, heading, where)
            # the diagonal (each component's mean drift) interpolated along the
            # table's diagonal, as the mean drift coefficients are, not bilinearly
            # from the entries beside it
            D = mean_drift_at(diagonal(so.qtf_difference), omega, heading, where)
            T[np.arange(nc), np.arange(nc)] = D
            slow[:, :, cols] = pair_matrices(a, T, True)
            self.mean[cols] = np.abs(a) ** 2 @ D
        else:
            table = mean_table(db, p.get("mean_drift"))
            assert table is not None
            D = mean_drift_at(table, omega, heading, where)
            self.mean[cols] = np.abs(a) ** 2 @ D
            if method == "newman":
                keep = _dof_mask(p.get("dofs"))
                part = newman_sum(a, D * keep, omega, 6 * i + np.arange(6))
        if p.get("sum_frequency"):
            assert so.qtf_sum is not None
            fast[:, :, cols] = pair_matrices(a, qtf_at(so.qtf_sum, omega, heading, where),
                                             False)
        if p.get("drift_damping"):
            table = mean_table(db, p.get("mean_drift"))
            assert table is not None
            D = mean_drift_at(table, omega, heading, where)
            slope = mean_drift_at(table, omega, heading, where, slope=True)
            self.damping[cols] = drift_damping(a, omega, heading, D, slope, g)
        off = 6 * i + np.flatnonzero(~_dof_mask(p.get("dofs")))
        if slow.shape[2]:
            slow[:, :, off] = 0.0
        if fast.shape[2]:
            fast[:, :, off] = 0.0
        self.mean[off] = 0.0
        self.damping[off] = 0.0
        return part

    @property
    def ranks(self) -> tuple[int, int]:
        """Ranks kept of the slow-drift and sum-frequency pair sums (their cost a sample)."""
        return self.slow.rank, self.fast.rank

    def mean_wave_drift(self, omega: Array, heading: float) -> Array | None:
        """Per element, the mean drift per square metre of amplitude of a regular wave
        (``(n, nw, 6)``; NaN outside the data's frequencies): :mod:`.drift_rao`."""
        return mean_drift_per_wave(self, omega, heading)

    def kernel_data(self) -> tuple[Any, ...]:
        return (np.ascontiguousarray(self.mean), self._ramp,
                np.ascontiguousarray(self.damping),
                *self.slow.kernel_data(), *self.slow_record.kernel_data(),
                *self.fast.kernel_data(), *self.fast_record.kernel_data(), self._work)


WaveDrift.kernels = ForceKernels(wave_drift_force, outputs=wave_drift_outputs)
