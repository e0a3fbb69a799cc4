"""Multibody.jl (Modelica) line forces: ``spring``, ``damper``, ``spring_damper_parallel``.

A line force acts along the line from the master node (Multibody.jl's ``frame_a``) to
the slave node (``frame_b``): with ``s = |p_s - p_m|`` and ``e = (p_s - p_m) / s``, the
tension ``f`` acts as ``-f e`` on the slave node and ``+f e`` on the master node, so a
positive tension pulls the nodes together. The tensions are

* ``spring``: ``f = stiffness (s - rest)``;
* ``damper``: ``f = damping s'``;
* ``spring_damper_parallel``: ``f = stiffness (s - rest) + damping s'``;

with ``s' = e . (v_s - v_m)`` the exact rate of the length. ``rest`` (Multibody.jl's
``s_unstretched``, default 0) may be a signal: a winch paying out a line.

A ``spring`` may carry its own ``mass``, a point mass on the line at ``length_fraction``
of the way from the master node (0: at the master, 1: at the slave), as Multibody.jl's
``Spring(m=..., lengthfraction=...)``: it follows the nodes, and the engine adds its
inertia (which couples the two bodies) and its weight (see
:meth:`~frylinks.forces.ForceType.point_masses`).

Below ``s = 1e-9`` m the direction is ``(p_s - p_m) / 1e-9`` (Modelica's ``s_small``),
so coincident nodes get no force rather than a division by zero.

The three types share one compiled kernel (:func:`evaluate`, on the line geometry of
:func:`~frylinks_forces.common.line_geometry`) and one for their outputs
(:func:`line_outputs`); the spring's point masses are a kernel too
(:func:`point_masses`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.forces import ForceKernels, ForceType, Output
from frylinks.jit import kernel, signal_values
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec

from .common import line_geometry, line_wrench

Array = np.ndarray

MASTER = Param("node", "", "node at one end of the line (Multibody.jl frame_a)")
SLAVE = Param("node", "", "node at the other end (Multibody.jl frame_b)")
STIFFNESS = Param("float", "N m-1", "spring stiffness c", minimum=0.0)
DAMPING = Param("float", "N s m-1", "damping coefficient d", minimum=0.0)
REST = Param("signal", "m", "unstretched length (s_unstretched); a number or a signal",
             default=0.0)


def _check_rest(params: Mapping[str, Any]) -> None:
    rest = params["rest"]
    if isinstance(rest, float) and rest < 0.0:
        raise ModelError(f"a length must be >= 0, got {rest:g}", "rest")


def _outputs(name: str) -> dict[str, Output]:
    return {
        f"{name}_length": Output("m", "distance from the master node to the slave node"),
        f"{name}_length_rate": Output("m s-1", "rate of the distance between the nodes"),
        f"{name}_force": Output("N", "tension of the line force, positive pulling the nodes "
                                     "together"),
    }


class _LineForce(ForceType):
    """A tension ``f(s, s', t)`` along the line master node -> slave node."""

    attachments = ("master", "slave")

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.stiffness = np.array([p.get("stiffness", 0.0) for p in instances], dtype=float)
        self.damping = np.array([p.get("damping", 0.0) for p in instances], dtype=float)
        self._rest = self.signal_array([p.get("rest", 0.0) for p in instances])

    def kernel_data(self) -> tuple[Any, ...]:
        """``(stiffness, damping, rest constants, rest slots)``."""
        return (self.stiffness, self.damping, self._rest.const.reshape(-1), self._rest.slots())


class Spring(_LineForce):
    """Linear spring along the line between two nodes, with an optional point mass
    (module doc): ``f = stiffness (s - rest)``."""

    name = "spring"
    parameters = {
        "master": MASTER,
        "slave": SLAVE,
        "stiffness": STIFFNESS,
        "rest": REST,
        "mass": Param("float", "kg", "mass of the spring, a point on the line (0: none)",
                      default=0.0, minimum=0.0),
        "length_fraction": Param("float", "1", "where the mass sits: fraction of the way "
                                               "from the master node (0) to the slave (1)",
                                 default=0.5, minimum=0.0),
    }
    outputs = _outputs("spring")
    description = ("linear spring between two nodes, along the line joining them, optionally "
                   "carrying a point mass (a line's own mass)")
    examples = [{"stiffness": 100.0, "rest": 0.5},
                {"stiffness": 10.0, "mass": 2.0, "length_fraction": 0.3},
                {"stiffness": 1.0, "rest": {"type": "ramp", "t_end": 2.0, "final": 3.0}}]

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        _check_rest(params)
        if params["length_fraction"] > 1.0:
            raise ModelError(f"must be between 0 and 1, got {params['length_fraction']:g}",
                             "length_fraction")

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.mass = np.array([p["mass"] for p in instances], dtype=float)
        fraction = np.array([p["length_fraction"] for p in instances], dtype=float)
        self.weights = np.stack([1.0 - fraction, fraction], axis=1).reshape(-1, 2)

    def kernel_data(self) -> tuple[Any, ...]:
        """The line force's arrays, then ``(mass, weights)`` of the point masses."""
        return (*super().kernel_data(), self.mass, self.weights)


class Damper(_LineForce):
    """Linear damper along the line between two nodes: ``f = damping s'``."""

    name = "damper"
    parameters = {"master": MASTER, "slave": SLAVE, "damping": DAMPING}
    outputs = _outputs("damper")
    description = ("linear damper between two nodes, along the line joining them (tension = "
                   "damping x rate of their distance)")
    examples = [{"damping": 5.0}]


class SpringDamperParallel(_LineForce):
    """Spring and damper in parallel between two nodes:
    ``f = stiffness (s - rest) + damping s'``."""

    name = "spring_damper_parallel"
    parameters = {"master": MASTER, "slave": SLAVE, "stiffness": STIFFNESS,
                  "damping": DAMPING, "rest": REST}
    outputs = _outputs("spring_damper_parallel")
    description = ("spring and damper in parallel between two nodes, along the line joining them, "
                   "e.g. a taut mooring line or tether")
    examples = [{"stiffness": 100.0, "damping": 3.0, "rest": 0.2}]

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        _check_rest(params)


@kernel(allocates=True)
def line_tension(data: tuple[Any, ...], signals: Array, length: Array, rate: Array,
                 out: Array) -> None:
    """Tensions ``stiffness (s - rest) + damping s'`` into ``out (n,)``."""
    stiffness, damping, rest_const, rest_slot = data[0], data[1], data[2], data[3]
    rest = np.empty(len(rest_const))
    signal_values(rest_const, rest_slot, signals, 0, rest)
    for i in range(len(out)):
        out[i] = stiffness[i] * (length[i] - rest[i]) + damping[i] * rate[i]


@kernel(allocates=True)
def line_state(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], signals: Array
               ) -> tuple[Array, Array, Array, Array]:
    """Each line's length, unit vector master -> slave, length rate and tension
    (:func:`line_tension`)."""
    n = len(data[0])
    length = np.empty(n)
    unit = np.empty((n, 3))
    rate = np.empty(n)
    f = np.empty(n)
    line_geometry(frames[0], frames[1], length, unit, rate)
    line_tension(data, signals, length, rate, f)
    return length, unit, rate, f


@kernel
def evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float, signals: Array,
             gravity: Array, states: Array, static: bool, force: Array, torque: Array) -> None:
    """Line forces (module doc): ``+f e`` on the master node, ``-f e`` on the slave."""
    _, unit, _, f = line_state(data, frames, signals)
    line_wrench(f, unit, force)


@kernel
def line_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                 signals: Array, gravity: Array, states: Array, out: Array) -> None:
    """The outputs of every line force into ``out (n, 3)``: length, length rate and
    tension (:func:`line_tension`)."""
    length, _, rate, f = line_state(data, frames, signals)
    for i in range(len(out)):
        out[i, 0] = length[i]
        out[i, 1] = rate[i]
        out[i, 2] = f[i]


@kernel
def point_masses(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], mass: Array,
                 weights: Array) -> bool:
    """The springs' masses at ``(1 - length_fraction) p_m + length_fraction p_s``; False
    when no spring of the block has a mass."""
    m, w = data[4], data[5]
    carried = False
    for i in range(len(m)):
        carried = carried or m[i] != 0.0
    if not carried:
        return False
    for i in range(len(m)):
        mass[i] = m[i]
        weights[i, 0] = w[i, 0]
        weights[i, 1] = w[i, 1]
    return True


_LineForce.kernels = ForceKernels(evaluate, outputs=line_outputs)
Spring.kernels = ForceKernels(evaluate, point_masses=point_masses, outputs=line_outputs)
