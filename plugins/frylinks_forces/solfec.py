"""Solfec's ``PUT_SPRING`` as the force type ``user_spring``: a nonlinear line spring.

Along the line from the master node to the slave node (``s = |p_s - p_m|``,
``e = (p_s - p_m) / s``, ``s' = e . (v_s - v_m)``, as for the other line forces) the
tension is a function of the **stretch** ``d = s - rest`` and the **stretch rate**
``d' = s'``:

* Python API: ``function(stretch, stretch_rate) -> tension``, called once per
  evaluation with numpy arrays of every element that shares the function (see
  :mod:`frylinks_forces.common`);
* case file (which cannot hold code): ``table``, a list of ``[stretch, tension]`` pairs
  interpolated linearly, and extrapolated linearly with the end segments beyond them
  (a spring does not go slack past its last point).

``damping`` adds ``damping * d'`` in both cases. The tension acts as ``-f e`` on the
slave node and ``+f e`` on the master node: **a positive tension pulls the nodes
together**, as for ``spring``. Solfec's callback returns the opposite (the force pushing
the points apart along ``e``: its ``-1000 * stroke - 100 * velocity`` is here
``1000 * stretch + 100 * stretch_rate``).

``rest`` has no default: Solfec measures the stroke from the initial distance of the two
points, Multibody.jl from an unstretched length that defaults to 0; giving it makes the
choice explicit (the initial distance for a Solfec model).

The table law is a compiled kernel (:func:`evaluate`, with the tables interpolated by
:func:`table_value`; the outputs: :func:`spring_outputs`). A block with a Python
``function`` cannot run compiled: its model runs on the engine's Python path, where the
same kernels compute the line, the tension and the outputs, the function's values taking
the place of the table's for its elements.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.forces import ForceContext, ForceKernels, ForceType, Output
from frylinks.jit import kernel
from frylinks.kinematics import NodeFrames
from frylinks.params import Param, as_vector
from frylinks.piecewise import PiecewiseLinear
from frylinks.signals import SignalSpec

from .common import UserFunctions, line, line_geometry, line_wrench

Array = np.ndarray


def hardening_line(stretch: Array, stretch_rate: Array) -> Array:
    """An example tension law: a line slack in compression, hardening in tension, with
    damping only while taut (``np.where``, as a vectorised user function must)."""
    taut = stretch > 0.0
    return np.where(taut, 1.0e3 * stretch + 1.0e4 * stretch**3 + 10.0 * stretch_rate, 0.0)


class UserSpring(ForceType):
    """Nonlinear line spring from a user function or a table (module doc)."""

    name = "user_spring"
    attachments = ("master", "slave")
    parameters = {
        "master": Param("node", "", "node at one end of the spring (Solfec body1, point1)"),
        "slave": Param("node", "", "node at the other end (Solfec body2, point2)"),
        "rest": Param("float", "m", "length at zero stretch (Solfec: the initial distance)",
                      minimum=0.0),
        "function": Param("callable", "", "tension(stretch, stretch_rate) on numpy arrays "
                                          "(Python API only)", default=None),
        "table": Param("any", "", "[stretch (m), tension (N)] pairs, stretch increasing; "
                                  "interpolated linearly", default=None),
        "damping": Param("float", "N s m-1", "damping added to the tension: damping * "
                                             "stretch_rate", default=0.0, minimum=0.0),
    }
    outputs = {
        "user_spring_stretch": Output("m", "stretch: distance between the nodes minus rest"),
        "user_spring_stretch_rate": Output("m s-1", "rate of the stretch"),
        "user_spring_force": Output("N", "tension, positive pulling the nodes together"),
    }
    description = ("nonlinear line spring between two nodes: tension from a user function of "
                   "the stretch and its rate, or a table against stretch (a rope, a fender)")
    examples = [
        {"rest": 1.0, "table": [[-1.0, -200.0], [0.0, 0.0], [0.5, 50.0], [2.0, 400.0]],
         "damping": 1.0},
        {"rest": 0.5, "function": hardening_line},
    ]

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        if (params["function"] is None) == (params["table"] is None):
            raise ModelError("give either a function (Python API) or a table of "
                             "[stretch, tension] pairs", "table")
        if params["table"] is not None:
            parse_table(params["table"])

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        n = len(instances)
        self.rest = np.array([p["rest"] for p in instances], dtype=float)
        self.damping = np.array([p["damping"] for p in instances], dtype=float)
        self.user = UserFunctions([p["function"] for p in instances], "user_spring tension")
        tables = [parse_table(p["table"]) if p["table"] is not None else None
                  for p in instances]
        self.tabled = np.array([t is not None for t in tables], dtype=bool).reshape(n)
        # elements without a table get a zero law (their tension comes from `function`)
        self.table = PiecewiseLinear(
            [t if t is not None else np.array([[0.0, 0.0], [1.0, 0.0]]) for t in tables],
            "linear")

    def kernel_data(self) -> tuple[Any, ...]:
        """``(rest, damping, tabled, knots x, knots y, knots per table, user)``: the
        tables as :class:`~frylinks.piecewise.PiecewiseLinear` pads them (``x`` padded with
        inf), and int64 flags (``tabled``; ``user``: the element's tension is a user
        function's value)."""
        return (self.rest, self.damping, self.tabled.astype(np.int64), self.table.x,
                self.table.y, self.table.size.astype(np.int64), self.user.flags(self.nb_forces))

    def compiled(self) -> str | None:
        if self.user:
            return f"force '{self.name}': function is a Python callable"
        return super().compiled()

    def tension(self, stretch: Array, rate: Array) -> Array:
        """Tension ``(n,)`` at stretches and stretch rates ``(n,)`` (:func:`spring_tension`)."""
        stretch = np.ascontiguousarray(stretch, dtype=float)
        rate = np.ascontiguousarray(rate, dtype=float)
        given = np.zeros(self.nb_forces)
        if self.user:
            self.user.apply(given, (), (stretch, rate))
        out = np.zeros(self.nb_forces)
        spring_tension(self._data(), stretch, rate, given, out)
        return out

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        """The type's kernel; with user functions (Python path) the same kernels around
        the functions' values."""
        if not self.user:
            return super().evaluate(frames, ctx)
        length, unit, rate = line(frames[0], frames[1])
        force = np.zeros((self.nb_forces, 2, 3))
        line_wrench(self.tension(length - self.rest, rate), unit, force)
        return force, np.zeros_like(force)

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, Array]:
        """The type's ``outputs`` kernel; with user functions (Python path) the tension of
        their elements from the functions (:meth:`tension`)."""
        values = super().output_values(frames, ctx)
        if self.user:
            values["user_spring_force"] = self.tension(values["user_spring_stretch"],
                                                       values["user_spring_stretch_rate"])
        return values


@kernel
def table_value(x: Array, y: Array, size: int, value: float) -> float:
    """One table (knots ``x``, ``y``; ``size`` of them, then padding) at ``value``,
    extrapolated linearly with the end segments (as
    :meth:`~frylinks.piecewise.PiecewiseLinear.value` with ``linear``)."""
    count = 0  # knots at or left of the value
    for j in range(len(x)):
        if value >= x[j]:
            count += 1
    k = min(max(count - 1, 0), max(size - 2, 0))
    x0, x1, y0, y1 = x[k], x[k + 1], y[k], y[k + 1]
    slope = (y1 - y0) / (x1 - x0) if math.isfinite(x1) else 0.0
    return y0 + slope * (value - x0)


@kernel
def spring_tension(data: tuple[Any, ...], stretch: Array, rate: Array, given: Array,
                   out: Array) -> None:
    """Tensions into ``out (n,)``: the table's (or ``given`` for an element with a user
    function) at the stretch, plus ``damping`` times the stretch rate."""
    damping, tabled, kx, ky, size, user = data[1], data[2], data[3], data[4], data[5], data[6]
    for i in range(len(out)):
        if user[i]:
            f = given[i]
        elif tabled[i]:
            f = table_value(kx[i], ky[i], size[i], stretch[i])
        else:
            f = 0.0
        out[i] = f + damping[i] * rate[i]


@kernel(allocates=True)
def spring_state(data: tuple[Any, ...], frames: tuple[NodeFrames, ...]
                 ) -> tuple[Array, Array, Array, Array]:
    """Each spring's stretch, unit vector master -> slave, stretch rate and tension
    from its table (:func:`spring_tension`)."""
    rest = data[0]
    n = len(rest)
    stretch = np.empty(n)
    unit = np.empty((n, 3))
    rate = np.empty(n)
    f = np.empty(n)
    line_geometry(frames[0], frames[1], stretch, unit, rate)
    for i in range(n):
        stretch[i] -= rest[i]  # (the length, until here)
    spring_tension(data, stretch, rate, rate, f)
    return stretch, unit, rate, f


@kernel
def evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float, signals: Array,
             gravity: Array, states: Array, static: bool, force: Array, torque: Array) -> None:
    """``user_spring`` with tables: ``+f e`` on the master node, ``-f e`` on the slave."""
    _, unit, _, f = spring_state(data, frames)
    line_wrench(f, unit, force)


@kernel
def spring_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                   signals: Array, gravity: Array, states: Array, out: Array) -> None:
    """``user_spring``'s outputs into ``out (n, 3)``: stretch, stretch rate and tension
    (the stretch rate in place of the function's value for an element with a user
    function: on the Python path, :meth:`UserSpring.output_values` puts it there)."""
    stretch, _, rate, f = spring_state(data, frames)
    for i in range(len(out)):
        out[i, 0] = stretch[i]
        out[i, 1] = rate[i]
        out[i, 2] = f[i]


UserSpring.kernels = ForceKernels(evaluate, outputs=spring_outputs)


def parse_table(value: Any) -> Array:
    """A ``table`` as an ``(k, 2)`` array of [stretch, tension] rows (k >= 2, stretch
    strictly increasing); raises :class:`ModelError` at ``table`` otherwise."""
    if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__len__") \
            or len(value) < 2:
        raise ModelError("expected a list of at least two [stretch, tension] pairs", "table")
    rows = np.array([as_vector(v, f"table[{i}]", 2) for i, v in enumerate(value)])
    if np.any(np.diff(rows[:, 0]) <= 0):
        k = int(np.argmax(np.diff(rows[:, 0]) <= 0)) + 1
        raise ModelError(f"stretches must increase strictly ({rows[k, 0]:g} follows "
                         f"{rows[k - 1, 0]:g})", f"table[{k}]")
    return rows
