"""Helpers shared by the built-in force types: line geometry, frames, user functions.

User functions
--------------
Exudyn and Solfec let a script give a force law as a Python function. Here such a
function is **called once per evaluation for all elements that share it**, with numpy
arrays (one entry per element) in place of Exudyn's and Solfec's scalars, so one Python
call serves a hundred mooring springs. Write it with numpy operations
(``np.where(x > 0, k * x, 0.0)``, not ``if x > 0``); it must return an array of the
same length (or a scalar, broadcast). Elements share a function when they were given
the same function object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ModelError, SimulationError
from frylinks.forces import ForceContext, ForceType
from frylinks.kinematics import NodeFrames
from frylinks.params import Param, shown
from frylinks.rotations import rotate
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


def line(master: NodeFrames, slave: NodeFrames) -> tuple[Array, Array, Array]:
    """Length, unit vector and length rate of the lines master node -> slave node.

    Returns
    -------
    length : (n,) ndarray
        ``s = |p_s - p_m|`` [m].
    unit : (n, 3) ndarray
        ``e = (p_s - p_m) / max(s, S_SMALL)``, world axes.
    rate : (n,) ndarray
        ``s' = e . (v_s - v_m)`` [m s-1], the exact time derivative of ``s`` (for
        ``s > 0``).
    """
    delta = slave.p - master.p
    length = np.sqrt(np.einsum("ni,ni->n", delta, delta))
    unit = delta / np.maximum(length, S_SMALL)[:, None]
    rate = np.einsum("ni,ni->n", unit, slave.v - master.v)
    return length, unit, rate


def line_wrench(tension: Array, unit: Array) -> tuple[Array, Array]:
    """Wrenches of line forces: ``-tension e`` on the slave node, ``+tension e`` on the
    master node (a positive tension pulls the nodes together); no torque about them.

    Returns
    -------
    force, torque : (n, 2, 3) ndarray
    """
    f = tension[:, None] * unit
    force = np.stack([f, -f], axis=1)
    return force, np.zeros_like(force)


RESOLVE_DOC = "axes the components are given in"

#: A signal for the types' ``examples`` (parameter sets the contract checks run on).
SINE = {"type": "sine", "amplitude": 2.0, "omega": 3.0}


def resolved(vectors: Array, frame: Array, axes: Sequence[Array]) -> Array:
    """Vectors given in per-element axes, in world axes.

    Parameters
    ----------
    vectors : (n, 3)
        Components in the chosen axes.
    frame : (n,) int
        Per element, 0 for world axes, ``k`` for ``axes[k - 1]``.
    axes
        Rotation matrices ``(n, 3, 3)`` (node axes -> world) of the candidate frames.
    """
    out = vectors.copy()
    for k, R in enumerate(axes, start=1):
        pick = frame == k
        if pick.any():
            out[pick] = rotate(R[pick], vectors[pick])
    return out


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

    def world(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> Array:
        """The input vectors now, in world axes: ``(n, 3)``."""
        value = self._value.at(ctx.signals).reshape(-1, 3)
        return resolved(value, self.frame, tuple(f.R for f in frames))


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
