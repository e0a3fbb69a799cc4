"""The ``latch`` link: latching control of a wave-energy converter's PTO.

Put between the two nodes of a PTO's prismatic link (the same master and slave), a
latch holds the slide still for ``latch_time`` each time its velocity reverses: the
motion is held at an extremum and released later, nearer the phase of the exciting
force. While latched, one row of the velocity level (``constraint_level``
``"velocity"``) holds ``tz``, the slave node's velocity along the master node's z axis,
at exactly zero: the position is the integral of that velocity and does not move.
While free, the row is zero and the latch does nothing (every DOF is free).

The switch is decided once per accepted step, at its end (the kernel ``accept``): the
latch closes at the first step whose velocity has the other sign than the step before,
and opens ``latch_time`` later (to the step). It needs no knowledge of the wave, so it
runs in irregular seas as in regular ones. Its state ``(latched, since, velocity)`` is
memory: a checkpoint keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.jit import kernel
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


class LatchLink(AxisLink):
    """Holds the slide along the master node's z axis still for ``latch_time`` after
    each reversal of its velocity (module doc)."""

    name = "latch"
    free_dofs = ("tx", "ty", "rx", "ry", "rz")
    constraint_level = "velocity"
    switching = True
    parameters = {
        "latch_time": Param("float", "s", "how long the motion is held after its velocity "
                            "reverses", positive=True),
    }
    description = ("latching control: holds the slide along the master node's z axis still "
                   "for latch_time after each reversal of its velocity (put it on a PTO's "
                   "prismatic link's nodes)")
    examples = [{"latch_time": 0.5}, {"latch_time": 0.05}]
    memory = ("latch",)

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        super().__init__(instances, signal_specs)
        self.latch_time = np.array([float(p["latch_time"]) for p in instances])
        #: latched (1) or free (0), when it last switched [s], the velocity along the
        #: axis at the last accepted state (NaN before the first)
        self.latch = np.tile([0.0, 0.0, np.nan], (self.nb_links, 1))

    def kernel_data(self) -> tuple[Any, ...]:
        # the axis link's arrays, then the latching times and the latch's state
        return (*super().kernel_data(), self.latch_time, self.latch)


@kernel
def latch_constraints(data: tuple[Any, ...], rel: Relative, t: float, s0: Array, s1: Array,
                      s2: Array, angle_ref: Array, rows: Array, velocity: Array,
                      acceleration: Array) -> None:
    """The axis row while latched, a zero row while free; zero targets."""
    held, latch = data[0], data[8]
    for i in range(rows.shape[0]):
        for j in range(6):
            rows[i, 0, j] = held[i, 0, j] * latch[i, 0]
        velocity[i, 0] = 0.0
        acceleration[i, 0] = 0.0


@kernel
def latch_residual(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                   angle_ref: Array, out: Array) -> None:
    """None: the latch holds the velocity (the position is its integral)."""
    out[...] = 0.0


@kernel
def latch_accept(data: tuple[Any, ...], rel: Relative, t: float, s0: Array,
                 angle_ref: Array) -> None:
    """Latch where the velocity along the axis reversed since the last accepted state;
    release ``latch_time`` after latching (the first step after a release, which
    starts from rest, is no reversal)."""
    hold, latch = data[7], data[8]
    for i in range(len(hold)):
        v = rel.tau[i, 2]
        before = latch[i, 2]
        if latch[i, 0] == 0.0 and not np.isnan(before) and before * v < 0.0:
            latch[i, 0] = 1.0
            latch[i, 1] = t
            latch[i, 2] = v
        elif latch[i, 0] == 1.0 and t - latch[i, 1] >= hold[i] * (1.0 - 1e-9):
            # released from rest: no velocity to compare the next step's with (the
            # held one is round-off, of either sign, and would latch it again at once)
            latch[i, 0] = 0.0
            latch[i, 1] = t
            latch[i, 2] = np.nan
        else:
            latch[i, 2] = v


LatchLink.kernels = LinkKernels(latch_constraints, latch_residual, axis_displacement,
                                axis_coordinates, axis_free_basis, axis_unwrap_angle,
                                accept=latch_accept)
