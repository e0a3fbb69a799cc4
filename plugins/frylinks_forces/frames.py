"""Multibody.jl's ``force`` and ``torque`` between two frames, from 3 inputs each.

The three components (numbers or signals) are given in the axes named by
``resolve_frame``: ``world``, ``master`` (the master node's axes, Multibody.jl's
``frame_a``) or ``slave`` (the slave node's axes, ``frame_b``, the default as in
Multibody.jl). With ``F`` the force in world axes:

* ``force``: ``+F`` acts on the slave node and ``-F`` on the master node; since the two
  act at different points (``r = p_s - p_m`` apart) the master node also receives the
  torque ``-r x F``, so that the pair is in equilibrium (no net force, no net moment), as
  Modelica's ``Forces.Force`` does for ``frame_a``;
* ``torque``: ``+T`` on the slave body and ``-T`` on the master body.

Both are evaluated by one compiled kernel (:func:`evaluate`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frylinks.forces import ForceKernels
from frylinks.jit import cross3, kernel, rotate3, scratch, signal_values
from frylinks.kinematics import NodeFrames
from frylinks.params import Param

from .common import RESOLVE_DOC, SINE, ResolvedInput

Array = np.ndarray

FRAMES = ("world", "master", "slave")


class Force(ResolvedInput):
    """A force between two nodes (module doc): ``+F`` on the slave node, ``-F`` on the
    master node with the balancing torque ``-(p_s - p_m) x F`` there."""

    name = "force"
    attachments = ("master", "slave")
    parameters = {
        "master": Param("node", "", "node receiving the reaction (Multibody.jl frame_a)"),
        "slave": Param("node", "", "node the force acts on (Multibody.jl frame_b)"),
        "force": Param("vector", "N", "force on the slave node; each component a number or "
                                      "a signal", signal=True),
        "resolve_frame": Param("choice", "", RESOLVE_DOC, default="slave", choices=FRAMES),
    }
    description = ("force between two nodes (on the slave, the opposite on the master), components "
                   "in world, master or slave axes")
    examples = [{"force": [1.0, -2.0, 3.0]},
                {"force": [4.0, 0.0, -1.0], "resolve_frame": "master"},
                {"force": [0.5, SINE, -1.0], "resolve_frame": "world"}]
    FRAMES = FRAMES
    _key = "force"


class Torque(Force):
    """A torque between two bodies (module doc): ``+T`` on the slave, ``-T`` on the
    master."""

    name = "torque"
    parameters = {
        "master": Param("node", "", "node receiving the reaction (Multibody.jl frame_a)"),
        "slave": Param("node", "", "node the torque acts on (Multibody.jl frame_b)"),
        "torque": Param("vector", "N m", "torque on the slave body; each component a number "
                                         "or a signal", signal=True),
        "resolve_frame": Param("choice", "", RESOLVE_DOC, default="slave", choices=FRAMES),
    }
    description = ("torque between two bodies (on the slave, the opposite on the master), "
                   "components in world, master or slave axes")
    examples = [{"torque": [1.0, -2.0, 3.0]},
                {"torque": [4.0, 0.0, -1.0], "resolve_frame": "master"},
                {"torque": [0.5, SINE, -1.0], "resolve_frame": "world"}]
    _key = "torque"


@kernel(allocates=True)
def evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float, signals: Array,
             gravity: Array, states: Array, static: bool, force: Array, torque: Array) -> None:
    """``force`` and ``torque`` (module doc); ``data`` is :meth:`ResolvedInput.kernel_data`
    (frame 0: world, 1: master axes, 2: slave axes)."""
    const, slot, frame, is_torque = data
    master, slave = frames[0], frames[1]
    value = np.empty(len(const))
    signal_values(const, slot, signals, 0, value)
    f = scratch(3)
    r = scratch(3)
    moment = scratch(3)
    for i in range(len(frame)):
        v = value[3 * i: 3 * i + 3]
        if frame[i] == 1:
            rotate3(master.R[i], v, f)
        elif frame[i] == 2:
            rotate3(slave.R[i], v, f)
        else:
            f[:] = v
        out = torque if is_torque else force
        for j in range(3):
            out[i, 0, j] = -f[j]
            out[i, 1, j] = f[j]
        if not is_torque:
            for j in range(3):
                r[j] = slave.p[i, j] - master.p[i, j]
            cross3(r, f, moment)
            for j in range(3):
                torque[i, 0, j] = -moment[j]


Force.kernels = ForceKernels(evaluate)
