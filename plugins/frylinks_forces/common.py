"""Helpers shared by the built-in force types: line geometry, input vectors, user
functions.

Line geometry
-------------
:func:`line_geometry` and :func:`line_wrench` are :func:`frylinks.jit.kernel` helpers
that the types' kernels call (and :func:`line` gives the geometry to Python code, such
as output values): the one implementation of a line's length, direction and length rate
and of a pair of opposite forces.

User functions
--------------
Exudyn and Solfec let a script give a force law as a Python function. Here such a
function is **called once per evaluation for all elements that share it**, with numpy
arrays (one entry per element) in place of Exudyn's and Solfec's scalars, so one Python
call serves a hundred mooring springs. Write it with numpy operations
(``np.where(x > 0, k * x, 0.0)``, not ``if x > 0``); it must return an array of the
same length (or a scalar, broadcast). Elements share a function when they were given
the same function object. A Python function cannot run in compiled code: a block with
one keeps its model on the engine's Python path, where the type's kernels compute the
kinematics and the built-in law and the function's values replace the law's for its
elements.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ModelError, SimulationError
from frylinks.forces import ForceType
from frylinks.jit import kernel
from frylinks.kinematics import NodeFrames
from frylinks.params import Param, shown
from frylinks.signals import SignalSpec

Array = np.ndarray

#: Below this distance [m] the direction of a line force is taken as ``delta / S_SMALL``
#: (Modelica's ``s_small``): the force fades to zero instead of dividing by zero.
S_SMALL = 1e-9

#: ``active`` of Exudyn connectors (a YAML ``true`` / ``false``).
ACTIVE = Param("any", "1", "the element acts (true) or is switched off (false)", default=True)


def check_active(params: Mapping[str, Any]) -> None:
    """Raise unless ``params['active']`` is a bool."""
    if not isinstance(params["active"], bool | np.bool_):
        raise ModelError(f"expected true or false, got {shown(params['active'])}", "active")


def check_axis(params: Mapping[str, Any], key: str = "axis") -> None:
    """Raise if the axis ``params[key]`` is the zero vector."""
    if np.linalg.norm(np.asarray(params[key], dtype=float)) < 1e-12:
        raise ModelError("an axis must not be the zero vector", key)


def unit_axes(instances: Sequence[Mapping[str, Any]], key: str = "axis") -> Array:
    """The elements' axes ``params[key]`` normalised: ``(n, 3)``."""
    a = np.array([np.asarray(p[key], dtype=float) for p in instances]).reshape(-1, 3)
    return a / np.linalg.norm(a, axis=1, keepdims=True)


@kernel
def line_geometry(master: NodeFrames, slave: NodeFrames, length: Array, unit: Array,
                  rate: Array) -> None:
    """Length, unit vector and length rate of the lines master node -> slave node, into
    ``length (n,)``, ``unit (n, 3)`` and ``rate (n,)``.

    * ``s = |p_s - p_m|`` [m];
    * ``e = (p_s - p_m) / max(s, S_SMALL)``, world axes;
    * ``s' = e . (v_s - v_m)`` [m s-1], the exact time derivative of ``s`` (for ``s > 0``).
    """
    for i in range(len(length)):
        d0 = slave.p[i, 0] - master.p[i, 0]
        d1 = slave.p[i, 1] - master.p[i, 1]
        d2 = slave.p[i, 2] - master.p[i, 2]
        s = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
        den = s if s > S_SMALL else S_SMALL
        e0, e1, e2 = d0 / den, d1 / den, d2 / den
        length[i] = s
        unit[i, 0], unit[i, 1], unit[i, 2] = e0, e1, e2
        rate[i] = (e0 * (slave.v[i, 0] - master.v[i, 0])
                   + e1 * (slave.v[i, 1] - master.v[i, 1])
                   + e2 * (slave.v[i, 2] - master.v[i, 2]))


@kernel
def line_wrench(value: Array, direction: Array, out: Array) -> None:
    """A pair of opposite vectors per element into ``out (n, 2, 3)``: ``+value d`` on the
    master (attachment 0) and ``-value d`` on the slave (attachment 1), for ``value
    (n,)`` and directions ``d (n, 3)``. For a line force (``d = e``, ``value`` the
    tension) a positive tension pulls the nodes together; the forces act at the nodes,
    with no torque about them."""
    for i in range(len(value)):
        for j in range(3):
            f = value[i] * direction[i, j]
            out[i, 0, j] = f
            out[i, 1, j] = -f


def line(master: NodeFrames, slave: NodeFrames) -> tuple[Array, Array, Array]:
    """:func:`line_geometry` as arrays: ``length (n,)``, ``unit (n, 3)``, ``rate (n,)``."""
    n = len(master.p)
    length, unit, rate = np.zeros(n), np.zeros((n, 3)), np.zeros(n)
    line_geometry(master, slave, length, unit, rate)
    return length, unit, rate


RESOLVE_DOC = "axes the components are given in"

#: A signal for the types' ``examples`` (parameter sets the contract checks run on).
SINE = {"type": "sine", "amplitude": 2.0, "omega": 3.0}


class ResolvedInput(ForceType):
    """Base of force types driven by one 3-vector input (``force`` or ``torque``, numbers
    or signals per component) given in the axes named by ``resolve_frame``.

    Subclasses set ``_key`` (the input parameter) and ``FRAMES`` (``world`` first, then
    one name per attachment, whose node axes it means).
    """

    FRAMES: tuple[str, ...] = ("world",)
    _key = "force"

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self._value = self.signal_array([list(p[self._key]) for p in instances])
        self.frame = np.array([self.FRAMES.index(p["resolve_frame"]) for p in instances],
                              dtype=int)

    def kernel_data(self) -> tuple[Any, ...]:
        """``(const, slots, frame, is_torque)``: the input's constants and signal slots
        (flattened, 3 per element), the frame index of each element and whether the
        input is a torque."""
        return (self._value.const.reshape(-1), self._value.slots(), self.frame.astype(np.int64),
                self._key == "torque")


class UserFunctions:
    """Elements grouped by user function: each distinct function is called once per
    evaluation, with the arrays of the elements that use it (module doc).

    Parameters
    ----------
    functions
        Per element, a callable or None (the element follows its built-in law).
    label
        What the functions compute, for error messages (``"spring force"``).
    """

    def __init__(self, functions: Sequence[Callable[..., Any] | None], label: str) -> None:
        groups: dict[int, tuple[Callable[..., Any], list[int]]] = {}
        for i, fn in enumerate(functions):
            if fn is not None:
                groups.setdefault(id(fn), (fn, []))[1].append(i)
        self.groups = [(fn, np.array(idx, dtype=int)) for fn, idx in groups.values()]
        self.label = label

    def __bool__(self) -> bool:
        return bool(self.groups)

    def flags(self, n: int) -> Array:
        """``(n,)`` int64: 1 for the elements whose law a function gives, else 0 (what
        the kernels read to take the function's values for those elements)."""
        out = np.zeros(n, dtype=np.int64)
        for _, idx in self.groups:
            out[idx] = 1
        return out

    def apply(self, out: Array, leading: Sequence[Any], arrays: Sequence[Array]) -> Array:
        """Overwrite ``out`` at each group's elements with its function's values.

        Each function is called as ``fn(*leading, *(a[idx] for a in arrays))``.
        """
        for fn, idx in self.groups:
            value = fn(*leading, *(a[idx] for a in arrays))
            try:
                value = np.broadcast_to(np.asarray(value, dtype=float), idx.shape)
            except (TypeError, ValueError):
                raise SimulationError(
                    f"the {self.label} function {getattr(fn, '__name__', fn)!r} returned "
                    f"{value!r}; expected a number or an array of {len(idx)} numbers (it is "
                    "called with arrays: write it with numpy operations)") from None
            out[idx] = value
        return out
