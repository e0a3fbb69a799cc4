"""The ``linear_drag`` force: ``F = -c v`` on a node, with the power it dissipates as an
output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceType, Output
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec


class LinearDrag(ForceType):
    """Drag ``-c v`` on a node, ``v`` the node's velocity in world axes.

    One object holds every ``linear_drag`` of a model: the coefficients are one array
    and :meth:`evaluate` computes all the forces in one call, without a Python loop.

    Written in plain numpy on purpose, as the quickest way to a working type: it has no
    kernels, so a model that uses it runs on the engine's Python path (correctly, but
    several times slower than compiled); ``frylinks run`` says so once and
    :meth:`compiled` gives the reason. The README shows the same force compiled.
    """

    name = "linear_drag"
    attachments = ("node",)
    parameters = {
        "node": Param("node", "", "node (or body) the drag acts on"),
        "coefficient": Param("float", "N s m-1", "drag coefficient c", minimum=0.0),
    }
    outputs = {"linear_drag_power": Output("W", "power dissipated by the linear drag")}
    description = "linear drag -c v on a node, world axes"
    #: Parameter sets for frylinks.testing (the checks choose the ``node``).
    examples: list[dict[str, Any]] = [{"coefficient": 0.5}, {"coefficient": 20.0}]

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.coefficient = np.array([p["coefficient"] for p in instances], dtype=float)

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Force and torque ``(n, 1, 3)``: ``-c v`` at the node, no torque about it."""
        force = -self.coefficient[:, None] * frames[0].v
        return force[:, None, :], np.zeros_like(force)[:, None, :]

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, np.ndarray]:
        """``linear_drag_power`` ``(n,)``: ``c |v|^2`` [W]."""
        return {"linear_drag_power": self.coefficient * np.sum(frames[0].v ** 2, axis=1)}
