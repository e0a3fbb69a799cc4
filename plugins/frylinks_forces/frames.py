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
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from frylinks.forces import ForceContext
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.rotations import cross

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
    description = "force between two nodes, given in world, master or slave axes"
    examples = [{"force": [1.0, -2.0, 3.0]},
                {"force": [4.0, 0.0, -1.0], "resolve_frame": "master"},
                {"force": [0.5, SINE, -1.0], "resolve_frame": "world"}]
    FRAMES = FRAMES
    _key = "force"

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        f = self.world(frames, ctx)
        force = np.stack([-f, f], axis=1)
        torque = np.zeros_like(force)
        torque[:, 0] = -cross(frames[1].p - frames[0].p, f)
        return force, torque


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
    description = "torque between two bodies, given in world, master or slave axes"
    examples = [{"torque": [1.0, -2.0, 3.0]},
                {"torque": [4.0, 0.0, -1.0], "resolve_frame": "master"},
                {"torque": [0.5, SINE, -1.0], "resolve_frame": "world"}]
    _key = "torque"

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        t = self.world(frames, ctx)
        torque = np.stack([-t, t], axis=1)
        return np.zeros_like(torque), torque
