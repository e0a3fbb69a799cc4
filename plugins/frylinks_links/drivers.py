"""Solfec's drivers: the slave node's motion along the master node's z axis follows a
signal; every other DOF is free.

One row, ``tz`` of the relative twist (``d_z' `` in master-node axes), with targets from
the ``signal`` ``s(t)`` and its first two time derivatives:

================================ ================ ============= ================
type                             residual         velocity      acceleration
================================ ================ ============= ================
``prescribed_displacement``      ``d_z - s``      ``s'``        ``s''``
``prescribed_velocity``          0                ``s``         ``s'``
``prescribed_acceleration``      0                ``d_z'``      ``s``
================================ ================ ============= ================

Solfec's SET_DISPLACEMENT, SET_VELOCITY and SET_ACCELERATION (their tangential reaction
is zero: the one row is normal to the master node's xy plane). The velocity driver
constrains the velocity only: the position is its time integral, never corrected. The
acceleration driver constrains the acceleration only: its velocity target is the
current velocity, so the projection after a step leaves it alone, and velocity and
position are the integrals of the signal. The reaction force (along the master z axis)
is reported like any link's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.jit import copy_into, kernel, signal_values
from frylinks.kinematics import Relative
from frylinks.links import (
    AxisLink,
    LinkKernels,
    axis_coordinates,
    axis_displacement,
    axis_free_basis,
    axis_unwrap_angle,
)
from frylinks.params import Param
from frylinks.signals import SignalSpec

Array = np.ndarray

#: Free DOFs of every driver: all but the driven tz.
FREE = ("tx", "ty", "rx", "ry", "rz")

#: Example signals (a sine, a linear spline, a constant) for the contract checks.
_EXAMPLES = [
    {"signal": {"type": "sine", "amplitude": 0.4, "omega": 2.0, "phase_deg": 30.0,
                "offset": 0.3}},
    {"signal": {"type": "linear_spline", "points": [[0.0, 0.2], [0.25, -0.1], [1.0, 0.6]]}},
    {"signal": 0.7},
]


class _Driver(AxisLink):
    """A driver: ``tz`` follows ``signal``; subclasses say at which level."""

    free_dofs = FREE

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        super().__init__(instances, signal_specs)
        self._signal = self.signal_array([p["signal"] for p in instances])

    def kernel_data(self) -> tuple[Any, ...]:
        # the axis link's arrays, then the signal's constants and slots
        return (*super().kernel_data(), self._signal.const.reshape(-1),
                self._signal.slots())


class PrescribedDisplacement(_Driver):
    """``d_z = s(t)``: the slave node's position along the master z axis follows the
    signal (velocity ``s'`` and acceleration ``s''`` follow)."""

    name = "prescribed_displacement"
    parameters = {"signal": Param("signal", "m", "displacement along the master node's z "
                                  "axis: a number or a signal")}
    description = ("motion driver: the slave node's displacement along the master node's z axis "
                   "follows a signal (e.g. a winch or a heave motion); every other DOF free")
    examples = _EXAMPLES


class PrescribedVelocity(_Driver):
    """``d_z' = s(t)``: the velocity along the master z axis follows the signal; the
    position is its integral (no position-level constraint)."""

    name = "prescribed_velocity"
    parameters = {"signal": Param("signal", "m s-1", "velocity along the master node's z "
                                  "axis: a number or a signal")}
    description = ("velocity driver: the slave node's velocity along the master node's z axis "
                   "follows a signal (e.g. a winch paying out); every other DOF free")
    examples = _EXAMPLES
    constraint_level = "velocity"


class PrescribedAcceleration(_Driver):
    """``d_z'' = s(t)``: the acceleration along the master z axis follows the signal;
    velocity and position are its integrals (neither is corrected)."""

    name = "prescribed_acceleration"
    parameters = {"signal": Param("signal", "m s-2", "acceleration along the master node's "
                                  "z axis: a number or a signal")}
    description = ("acceleration driver: the slave node's acceleration along the master node's z "
                   "axis follows a signal; every other DOF free")
    examples = _EXAMPLES
    constraint_level = "acceleration"


@kernel
def _rows(data: tuple[Any, ...], rows: Array) -> None:
    copy_into(rows, data[0])


@kernel
def displacement_constraints(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                             s1: Array, s2: Array, angle_ref: Array, rows: Array,
                             velocity: Array, acceleration: Array) -> None:
    _rows(data, rows)
    signal_values(data[7], data[8], s1, 1, velocity[:, 0])
    signal_values(data[7], data[8], s2, 2, acceleration[:, 0])


@kernel
def displacement_residual(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                          angle_ref: Array, out: Array) -> None:
    signal_values(data[7], data[8], s0, 0, out[:, 0])
    for i in range(out.shape[0]):
        out[i, 0] = rel.d[i, 2] - out[i, 0]


@kernel
def velocity_constraints(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                         s1: Array, s2: Array, angle_ref: Array, rows: Array,
                         velocity: Array, acceleration: Array) -> None:
    _rows(data, rows)
    signal_values(data[7], data[8], s0, 0, velocity[:, 0])
    signal_values(data[7], data[8], s1, 1, acceleration[:, 0])


@kernel
def no_residual(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                angle_ref: Array, out: Array) -> None:
    out[...] = 0.0


@kernel
def acceleration_constraints(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                             s1: Array, s2: Array, angle_ref: Array, rows: Array,
                             velocity: Array, acceleration: Array) -> None:
    _rows(data, rows)
    # the velocity target is the velocity now: the projection does not touch it
    for i in range(velocity.shape[0]):
        velocity[i, 0] = rel.tau[i, 2]
    signal_values(data[7], data[8], s0, 0, acceleration[:, 0])


def _kernels(constraints: Any, residual: Any) -> LinkKernels:
    return LinkKernels(constraints, residual, axis_displacement, axis_coordinates,
                       axis_free_basis, axis_unwrap_angle)


PrescribedDisplacement.kernels = _kernels(displacement_constraints, displacement_residual)
PrescribedVelocity.kernels = _kernels(velocity_constraints, no_residual)
PrescribedAcceleration.kernels = _kernels(acceleration_constraints, no_residual)
