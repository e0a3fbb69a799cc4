"""``world_force`` and ``world_torque``: a force or torque on a node from 3 inputs.

Each component is a number or a signal, so a load can follow a ramp, a sine or a table.
The components are given in world axes (``resolve_frame: world``, the default) or in the
node's axes (``resolve_frame: node``, Multibody.jl's ``frame_b``), in which case the load
turns with the body: a thruster's thrust, a follower load.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frylinks.forces import ForceKernels
from frylinks.jit import alive, kernel, rotate3, scratch, signal_values
from frylinks.kinematics import NodeFrames
from frylinks.params import Param

from .common import RESOLVE_DOC, SINE, ResolvedInput

Array = np.ndarray

FRAMES = ("world", "node")


class WorldForce(ResolvedInput):
    """A force on a node, in world or node axes; it makes a torque about the COG."""

    name = "world_force"
    attachments = ("node",)
    parameters = {
        "node": Param("node", "", "node (or body) the force acts on"),
        "force": Param("vector", "N", "force; each component a number or a signal",
                       signal=True),
        "resolve_frame": Param("choice", "", RESOLVE_DOC, default="world", choices=FRAMES),
    }
    description = ("force on a node, in world axes or turning with the node, constant or varying "
                   "in time (wind, thrust, a test load)")
    examples = [{"force": [1.0, -2.0, 3.0]},
                {"force": [0.5, SINE, -1.0], "resolve_frame": "node"}]
    FRAMES = FRAMES
    _key = "force"

    def kernel_data(self) -> tuple[Any, ...]:
        return (self._value.const.reshape(-1), self._value.slots(), self.frame.astype(np.int64),
                self._key == "torque")


class WorldTorque(WorldForce):
    """A torque on a node's body, in world or node axes."""

    name = "world_torque"
    parameters = {
        "node": Param("node", "", "node (or body) the torque acts on"),
        "torque": Param("vector", "N m", "torque; each component a number or a signal",
                        signal=True),
        "resolve_frame": Param("choice", "", RESOLVE_DOC, default="world", choices=FRAMES),
    }
    description = ("torque on a body, in world axes or turning with the node, constant or varying "
                   "in time")
    examples = [{"torque": [1.0, -2.0, 3.0]},
                {"torque": [0.5, SINE, -1.0], "resolve_frame": "node"}]
    _key = "torque"


@kernel
def evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float, signals: Array,
             gravity: Array, states: Array, static: bool, force: Array, torque: Array) -> None:
    const, slot, frame, is_torque = data
    v = scratch(3)
    out = torque if is_torque else force
    for i in range(len(frame)):
        signal_values(const[3 * i:3 * i + 3], slot[3 * i:3 * i + 3], signals, 0, v)
        if frame[i] == 1:  # node axes
            rotate3(frames[0].R[i], v, out[i, 0])
        else:
            for j in range(3):
                out[i, 0, j] = v[j]
    alive(const)
    alive(slot)
    alive(frame)
    alive(out)
    alive(data)
    alive(frames)
    alive(signals)
    alive(force)
    alive(torque)


WorldForce.kernels = ForceKernels(evaluate)
