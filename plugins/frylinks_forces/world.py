"""``world_force`` and ``world_torque``: a force or torque on a node from 3 inputs.

Each component is a number or a signal, so a load can follow a ramp, a sine or a table.
The components are given in world axes (``resolve_frame: world``, the default) or in the
node's axes (``resolve_frame: node``, Multibody.jl's ``frame_b``), in which case the load
turns with the body: a thruster's thrust, a follower load.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceType
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec

from .common import RESOLVE_DOC, SINE, resolved

FRAMES = ("world", "node")


class WorldForce(ForceType):
    """A force on a node, in world or node axes; it makes a torque about the COG."""

    name = "world_force"
    attachments = ("node",)
    parameters = {
        "node": Param("node", "", "node (or body) the force acts on"),
        "force": Param("vector", "N", "force; each component a number or a signal",
                       signal=True),
        "resolve_frame": Param("choice", "", RESOLVE_DOC, default="world", choices=FRAMES),
    }
    description = "force on a node in world or node axes (numbers or signals)"
    examples = [{"force": [1.0, -2.0, 3.0]},
                {"force": [0.5, SINE, -1.0], "resolve_frame": "node"}]
    _key = "force"

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self._value = self.signal_array([list(p[self._key]) for p in instances])
        self.frame = np.array([FRAMES.index(p.get("resolve_frame", "world"))
                               for p in instances], dtype=int)

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        value = self._value.at(ctx.signals).reshape(-1, 3)
        value = resolved(value, self.frame, (frames[0].R,))[:, None, :]
        zero = np.zeros_like(value)
        return (value, zero) if self._key == "force" else (zero, value)


class WorldTorque(WorldForce):
    """A torque on a node's body, in world or node axes."""

    name = "world_torque"
    parameters = {
        "node": Param("node", "", "node (or body) the torque acts on"),
        "torque": Param("vector", "N m", "torque; each component a number or a signal",
                        signal=True),
        "resolve_frame": Param("choice", "", RESOLVE_DOC, default="world", choices=FRAMES),
    }
    description = "torque on a body in world or node axes (numbers or signals)"
    examples = [{"torque": [1.0, -2.0, 3.0]},
                {"torque": [0.5, SINE, -1.0], "resolve_frame": "node"}]
    _key = "torque"
