"""``world_force`` and ``world_torque``: a force or torque on a node from 3 inputs.

Each component is a number or a signal, so a load can follow a ramp, a sine or a table.
The components are given in world axes (``resolve_frame: world``, the default) or in the
node's axes (``resolve_frame: node``, Multibody.jl's ``frame_b``), in which case the load
turns with the body: a thruster's thrust, a follower load.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from frylinks.forces import ForceContext
from frylinks.kinematics import NodeFrames
from frylinks.params import Param

from .common import RESOLVE_DOC, SINE, ResolvedInput

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
    description = "force on a node in world or node axes (numbers or signals)"
    examples = [{"force": [1.0, -2.0, 3.0]},
                {"force": [0.5, SINE, -1.0], "resolve_frame": "node"}]
    FRAMES = FRAMES
    _key = "force"

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        value = self.world(frames, ctx)[:, None, :]
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
