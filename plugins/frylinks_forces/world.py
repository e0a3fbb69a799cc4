"""``world_force`` and ``world_torque``: a force or torque on a node, fixed in world axes.

Each component is a number or a signal, so a load can follow a ramp, a sine or a table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceType
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec


class WorldForce(ForceType):
    """A force on a node, given in world axes; it makes a torque about the COG."""

    name = "world_force"
    attachments = ("node",)
    parameters = {
        "node": Param("node", "", "node (or body) the force acts on"),
        "force": Param("vector", "N", "force in world axes; each component a number or a signal",
                       signal=True),
    }
    description = "force on a node in world axes (numbers or signals)"
    _key = "force"

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self._value = self.signal_array([list(p[self._key]) for p in instances])

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        value = self._value.at(ctx.signals)[:, None, :]
        zero = np.zeros_like(value)
        return (value, zero) if self._key == "force" else (zero, value)


class WorldTorque(WorldForce):
    """A torque on a node's body, given in world axes."""

    name = "world_torque"
    parameters = {
        "node": Param("node", "", "node (or body) the torque acts on"),
        "torque": Param("vector", "N m",
                        "torque in world axes; each component a number or a signal", signal=True),
    }
    description = "torque on a body in world axes (numbers or signals)"
    _key = "torque"
