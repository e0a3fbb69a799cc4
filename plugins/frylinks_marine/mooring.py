"""Mooring force types: ``mooring_matrix`` (linearised) and ``catenary_line`` (quasi-static).

``mooring_matrix`` is a mooring system reduced to its stiffness and damping about a
reference pose, acting on the COG of a body in world-aligned axes
(:mod:`frylinks_marine.dofs`)::

    [F; M] = pretension - K xi - B xi'

with ``xi`` the COG's displacement and rotation vector from the reference pose and
``xi'`` its velocity and angular velocity. The reference position is the COG at the
start (or the ``reference`` given), the reference orientation the body's at the start;
both are recorded when the model is assembled and kept in the checkpoints.

``catenary_line`` is one quasi-static elastic catenary (:mod:`frylinks_marine.catenary`)
from an anchor on the seabed to a fairlead node. The line lies in the vertical plane
through both; it pulls the fairlead by its horizontal tension ``H`` towards the anchor
and by its vertical tension ``V`` down, ``F = -H e_h - V e_z`` in world axes (``e_h`` the
horizontal unit vector from the anchor towards the fairlead), with no torque about the
node. The anchor's ``z`` is the seabed's level for that line. Quasi-static: the tension
depends on where the fairlead is, not on how fast it moves (no line inertia, no drag;
add damping separately). Each evaluation starts its iterations from the previous
solution, which is the type's ``memory``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceType, Output
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec

from . import catenary, dofs

Array = np.ndarray

STIFFNESS_UNITS = "N m-1, N rad-1, N m rad-1"
DAMPING_UNITS = "N s m-1, N s rad-1, N m s rad-1"


def _matrix(value: Any, path: str) -> Array:
    """A 6x6 coefficient matrix (zeros for None)."""
    if value is None:
        return np.zeros((6, 6))
    return dofs.matrix6(value, path)


def _vector(value: Any, path: str) -> Array:
    """A 6-vector (zeros for None)."""
    if value is None:
        return np.zeros(6)
    return dofs.vector6(value, path)


class MooringMatrix(ForceType):
    """Linear mooring stiffness and damping on a body's COG, about a reference pose
    (module doc)."""

    name = "mooring_matrix"
    attachments = ("body",)
    parameters = {
        "body": Param("body", "", "body the mooring acts on, at its COG"),
        "stiffness": Param("any", STIFFNESS_UNITS, f"stiffness K: {dofs.MATRIX_DOC}"),
        "damping": Param("any", DAMPING_UNITS, f"damping B: {dofs.MATRIX_DOC} (default: none)",
                         default=None),
        "pretension": Param("any", "N, N m",
                            "force and torque at the reference pose: per DOF or 6 numbers "
                            "(default: none)", default=None),
        "reference": Param("vector", "m", "COG position of the reference pose, world axes "
                                          "(default: the COG at the start)", default=None),
    }
    examples = [
        {"stiffness": {"surge": 2.0e5, "sway": 2.0e5, "heave": 1.0e4, "yaw": 5.0e7}},
        {"stiffness": [[1.0e5, 0, 0, 0, -2.0e6, 0], [0, 1.0e5, 0, 2.0e6, 0, 0],
                       [0, 0, 3.0e4, 0, 0, 0], [0, 2.0e6, 0, 4.0e8, 0, 0],
                       [-2.0e6, 0, 0, 0, 4.0e8, 0], [0, 0, 0, 0, 0, 6.0e7]],
         "damping": {"surge": 1.0e4, "sway": 1.0e4, "yaw": 1.0e6},
         "pretension": [1.0e3, 0, -5.0e4, 0, 0, 2.0e3], "reference": [0.5, -1.0, 0.2]},
        {"stiffness": {"surge": 1.0e3}, "pretension": {"heave": -2.0e4}},
    ]
    description = "linearised mooring: pretension - K xi - B xi' on a body's COG"
    memory = ("reference_position", "reference_orientation")

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        n = self.nb_forces
        self.stiffness = np.array([_matrix(p["stiffness"], "stiffness")
                                   for p in instances]).reshape(n, 6, 6)
        self.damping = np.array([_matrix(p["damping"], "damping")
                                 for p in instances]).reshape(n, 6, 6)
        self.pretension = np.array([_vector(p["pretension"], "pretension")
                                    for p in instances]).reshape(n, 6)
        self.reference_position = np.array(
            [np.full(3, np.nan) if p["reference"] is None else p["reference"]
             for p in instances], dtype=float).reshape(n, 3)
        self.reference_orientation = np.full((n, 4), np.nan)
        self._given = ~np.isnan(self.reference_position[:, 0])

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        _matrix(params["stiffness"], "stiffness")
        _matrix(params["damping"], "damping")
        _vector(params["pretension"], "pretension")

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        """Record the reference pose: the COG now (unless ``reference`` was given) and
        the body's orientation now."""
        f = frames[0]
        self.reference_position = np.where(self._given[:, None], self.reference_position,
                                           f.p)
        self.reference_orientation = np.array(f.q, dtype=float, copy=True)

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        f = frames[0]
        if np.isnan(self.reference_orientation).any():
            # used without assembly (prepare() not called): the first pose seen
            self.prepare(frames, ctx)
        xi = dofs.displacement(f.p, f.q, self.reference_position, self.reference_orientation)
        wrench = (self.pretension - dofs.apply(self.stiffness, xi)
                  - dofs.apply(self.damping, dofs.velocity(f.v, f.w)))
        return wrench[:, None, :3], wrench[:, None, 3:]


def _catenary_outputs() -> dict[str, Output]:
    return {
        "catenary_line_tension": Output("N", "tension of the catenary line at the fairlead"),
        "catenary_line_anchor_tension": Output("N", "tension of the catenary line at the "
                                                    "anchor"),
        "catenary_line_horizontal_tension": Output("N", "horizontal tension of the catenary "
                                                        "line"),
        "catenary_line_laid_length": Output("m", "unstretched length of the catenary line "
                                                 "resting on the seabed"),
    }


class CatenaryLine(ForceType):
    """Quasi-static elastic catenary from a seabed anchor to a fairlead node (module doc)."""

    name = "catenary_line"
    attachments = ("fairlead",)
    parameters = {
        "fairlead": Param("node", "", "node the line pulls on (body.node, or a body: its COG)"),
        "anchor": Param("vector", "m", "anchor position, world axes; its z is the seabed's "
                                       "level under this line"),
        "length": Param("float", "m", "unstretched length of the line", positive=True),
        "weight": Param("float", "N m-1", "submerged weight per unit length (weight in air "
                                          "minus buoyancy)", positive=True),
        "axial_stiffness": Param("float", "N", "axial stiffness EA (default: none, an "
                                               "inextensible line)",
                                 default=None, positive=True),
        "seabed_friction": Param("float", "1", "friction coefficient CB of the part resting "
                                               "on the seabed", default=0.0, minimum=0.0),
    }
    outputs = _catenary_outputs()
    description = "quasi-static elastic catenary mooring line from a seabed anchor to a node"
    memory = ("tensions",)
    examples = [
        {"anchor": [500.0, 0.0, -100.0], "length": 550.0, "weight": 1.0e3,
         "axial_stiffness": 1.0e9},
        {"anchor": [-300.0, 200.0, -80.0], "length": 365.0, "weight": 700.0,
         "axial_stiffness": 5.0e8, "seabed_friction": 0.5},
        {"anchor": [0.0, -400.0, -50.0], "length": 420.0, "weight": 500.0,
         "seabed_friction": 1.0},
    ]

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        n = self.nb_forces
        self.anchor = np.array([p["anchor"] for p in instances], dtype=float).reshape(n, 3)
        self.length, self.weight, self.seabed_friction = (
            np.array([p[key] for p in instances], dtype=float)
            for key in ("length", "weight", "seabed_friction"))
        self.axial_stiffness = np.array([math.inf if p["axial_stiffness"] is None
                                         else p["axial_stiffness"] for p in instances],
                                        dtype=float)
        #: ``[H, V]`` of the last evaluation, where the next one starts (0: none yet).
        self.tensions = np.zeros((n, 2))
        self._names = [f"{self.name} #{i} (fairlead {p['fairlead']!r})"
                       if isinstance(p["fairlead"], str) else f"{self.name} #{i}"
                       for i, p in enumerate(instances)]

    def _solved(self, frames: Sequence[NodeFrames]
                ) -> tuple[catenary.CatenarySolution, Array]:
        """The catenaries at the fairleads now, and the horizontal unit vectors anchor ->
        fairlead ``(n, 3)`` (zero for a fairlead straight above its anchor)."""
        delta = frames[0].p - self.anchor
        x = np.hypot(delta[:, 0], delta[:, 1])
        unit = np.zeros_like(delta)
        unit[:, :2] = delta[:, :2] / np.where(x > 0, x, 1.0)[:, None]
        sol = catenary.solve(x, delta[:, 2], self.length, self.weight, self.axial_stiffness,
                             self.seabed_friction, guess=self.tensions, names=self._names)
        return sol, unit

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        sol, unit = self._solved(frames)
        self.tensions = np.stack([sol.horizontal, sol.vertical], axis=1)
        force = -sol.horizontal[:, None] * unit
        force[:, 2] -= sol.vertical
        return force[:, None, :], np.zeros((self.nb_forces, 1, 3))

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, Array]:
        sol, _ = self._solved(frames)
        return {"catenary_line_tension": sol.tension,
                "catenary_line_anchor_tension": sol.anchor_tension,
                "catenary_line_horizontal_tension": sol.horizontal,
                "catenary_line_laid_length": sol.laid_length}
