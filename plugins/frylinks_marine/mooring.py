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

Both are compiled kernels (:mod:`frylinks.jit`) at the end of the module. A line that
cannot hang (:mod:`frylinks_marine.catenary`) makes the kernel record its status in the
block's ``status`` and ``failure_info`` arrays (the first failure since they were last
cleared) and give that line a NaN force; the Python :meth:`CatenaryLine.evaluate` raises
the :class:`~frylinks.errors.SimulationError` naming the line, and
:meth:`CatenaryLine.failure` gives that message to a compiled step that stopped on the
NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import SimulationError
from frylinks.forces import ForceContext, ForceKernels, ForceType, Output
from frylinks.jit import copy_into, kernel, scratch
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec

from . import catenary, dofs
from .catenary import NB_RESULTS, OK, solve_line
from .dofs import displacement6, matvec6, put_wrench

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
    description = ("linearised mooring: pretension minus stiffness and damping matrices acting on "
                   "a body's motions at its COG")
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
        the body's orientation now (in place: the kernel data holds these arrays)."""
        f = frames[0]
        free = ~self._given
        self.reference_position[free] = f.p[free]
        self.reference_orientation[...] = f.q

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.stiffness, self.damping, self.pretension, self.reference_position,
                self.reference_orientation)


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
    description = ("mooring line: quasi-static elastic catenary from a seabed anchor to a fairlead "
                   "node, resting on the seabed where it touches down")
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
        self.compliance = 1.0 / self.axial_stiffness
        #: ``[H, V]`` of the last evaluation, where the next one starts (0: none yet).
        self.tensions = np.zeros((n, 2))
        #: Status of each line at the first failure the kernel met since the arrays were
        #: last cleared (:data:`frylinks_marine.catenary.FAILURES`; 0: none), and the
        #: values its message shows.
        self.status = np.zeros(n, dtype=np.int64)
        self.failure_info = np.zeros((n, 3))
        self._names = [f"{self.name} #{i} (fairlead {p['fairlead']!r})"
                       if isinstance(p["fairlead"], str) else f"{self.name} #{i}"
                       for i, p in enumerate(instances)]

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.anchor, self.length, self.weight, self.compliance, self.seabed_friction,
                self.tensions, self.status, self.failure_info)

    def failure(self) -> str | None:
        """The message of the first failure the kernel recorded since :meth:`evaluate`
        last cleared it (a line that cannot hang, naming it), or None."""
        return catenary.failure(self.status, self.failure_info, self._names)

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        """The kernel's wrenches; raises :class:`~frylinks.errors.SimulationError` for a
        line that cannot hang."""
        self.status[:] = OK
        force, torque = super().evaluate(frames, ctx)
        message = self.failure()
        if message is not None:
            raise SimulationError(message)
        return force, torque


# ---------------------------------------------------------------------------- kernels

@kernel
def mooring_matrix(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                   signals: Array, gravity: Array, states: Array, static: bool,
                   force: Array, torque: Array) -> None:
    """``pretension - K xi - B xi'`` on each body. Used without assembly (no prepare(),
    a NaN reference orientation) it takes the first pose seen as the reference, in place."""
    stiffness, damping, pretension, p_ref, q_ref = data
    f = frames[0]
    n = len(stiffness)
    unset = False
    for i in range(n):
        for k in range(4):
            unset = unset or math.isnan(q_ref[i, k])
    if unset:
        for i in range(n):
            if math.isnan(p_ref[i, 0]):
                copy_into(p_ref[i], f.p[i])
            copy_into(q_ref[i], f.q[i])
    xi = scratch(6)
    u = scratch(6)
    gen = scratch(6)
    work = scratch(4)
    for i in range(n):
        displacement6(f.p[i], f.q[i], p_ref[i], q_ref[i], work, xi)
        for k in range(3):
            u[k] = f.v[i, k]
            u[3 + k] = f.w[i, k]
        copy_into(gen, pretension[i])
        matvec6(stiffness[i], xi, -1.0, gen)
        matvec6(damping[i], u, -1.0, gen)
        put_wrench(gen, force[i, 0], torque[i, 0])


@kernel(allocates=True)
def catenary_lines(data: tuple[Any, ...], p: Array) -> tuple[Array, Array, Array, Array]:
    """The lines at fairleads ``p (n, 3)`` from the warm start in ``data`` (left as it
    is): the horizontal unit vectors anchor -> fairlead ``(n, 3)`` (zero for a fairlead
    straight above its anchor), and per line :func:`~frylinks_marine.catenary.solve_line`'s
    results ``(n, NB_RESULTS)``, status ``(n,)`` and failure values ``(n, 3)``."""
    anchor, length, weight, compliance, friction, tensions = data[:6]
    n = len(length)
    unit = np.empty((n, 3))
    out = np.zeros((n, NB_RESULTS))
    code = np.zeros(n, dtype=np.int64)
    info = np.zeros((n, 3))
    for i in range(n):
        dx = p[i, 0] - anchor[i, 0]
        dy = p[i, 1] - anchor[i, 1]
        x = math.hypot(dx, dy)
        d = x if x > 0 else 1.0
        unit[i, 0] = dx / d
        unit[i, 1] = dy / d
        unit[i, 2] = 0.0
        code[i] = solve_line(x, p[i, 2] - anchor[i, 2], length[i], weight[i], compliance[i],
                             friction[i], tensions[i, 0], tensions[i, 1], out[i], info[i])
    return unit, out, code, info


@kernel
def catenary_line(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                  signals: Array, gravity: Array, states: Array, static: bool,
                  force: Array, torque: Array) -> None:
    """``F = -H e_h - V e_z`` at each fairlead; the tensions become the next warm start.
    A line that cannot hang gets a NaN force and, unless an earlier failure is still
    recorded, the block's ``status`` and ``failure_info`` are set (and the warm start is
    left as it was)."""
    tensions, status, failure_info = data[5], data[6], data[7]
    n = len(tensions)
    unit, out, code, info = catenary_lines(data, frames[0].p)
    failed = False
    recorded = False
    for i in range(n):
        failed = failed or code[i] != OK
        recorded = recorded or status[i] != OK
    if failed and not recorded:
        for i in range(n):
            status[i] = code[i]
            for k in range(3):
                failure_info[i, k] = info[i, k]
    for i in range(n):
        if code[i] != OK:
            for k in range(3):
                force[i, 0, k] = math.nan
            continue
        H, V = out[i, 0], out[i, 1]
        if not failed:
            tensions[i, 0] = H
            tensions[i, 1] = V
        for k in range(3):
            force[i, 0, k] = -H * unit[i, k]
        force[i, 0, 2] -= V


@kernel
def catenary_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     signals: Array, gravity: Array, states: Array, out: Array) -> None:
    """The lines' tension at the fairlead and at the anchor, horizontal tension and
    laid length into ``out (n, 4)``, solved from the warm start (left as it is); NaN
    for a line that cannot hang."""
    _, res, code, _ = catenary_lines(data, frames[0].p)
    for i in range(len(out)):
        ok = code[i] == OK
        # (solve_line's results: H, V, tension, anchor H and V, anchor tension, laid)
        out[i, 0] = res[i, 2] if ok else math.nan
        out[i, 1] = res[i, 5] if ok else math.nan
        out[i, 2] = res[i, 0] if ok else math.nan
        out[i, 3] = res[i, 6] if ok else math.nan


MooringMatrix.kernels = ForceKernels(mooring_matrix)
CatenaryLine.kernels = ForceKernels(catenary_line, outputs=catenary_outputs)
