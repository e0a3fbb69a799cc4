"""Force types: the base class plugins derive from.

A force type holds every force element of its type and evaluates them at once. It names
its **attachments**, the parameters that say where its wrenches act (``node``, ``body``,
or ``master`` and ``slave``); the engine resolves them to node frames (a ``body`` is a
frame at its COG with body axes) and hands the type their world poses and velocities.
The type returns a force and a torque per element and attachment, in world axes, the
torque about the attachment node; the engine sums them onto the bodies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .kinematics import NodeFrames
from .params import Param
from .signals import SignalArray, SignalSpec

Array = np.ndarray


@dataclass
class ForceContext:
    """What a force type may read at evaluation besides the node frames.

    Attributes
    ----------
    t : float
        Time [s].
    signals : ndarray
        Values of the model's signals at ``t`` (give them to :meth:`SignalArray.at`).
    gravity : (3,) ndarray
        Gravity acceleration, world axes [m s-2].
    """

    t: float
    signals: Array
    gravity: Array


@dataclass(frozen=True)
class Output:
    """Declaration of a per-element output variable of a plugin type.

    Parameters
    ----------
    units, long_name
        CF attributes of the variable.
    dims
        Extra dimensions after ``(time, <entity>)``, e.g. ``("xyz",)``.
    """

    units: str
    long_name: str
    dims: tuple[str, ...] = ()


class ForceType:
    """Base class of force types: one object holds every element of the type.

    Class attributes
    ----------------
    name : str
        The case-file ``type``.
    attachments : tuple of str
        Parameter names locating the wrenches: ``("node",)``, ``("body",)`` or
        ``("master", "slave")``. Each is also declared in ``parameters`` as kind
        ``node`` or ``body``.
    parameters : dict[str, Param]
        Declared parameters of one element.
    outputs : dict[str, Output]
        Extra variables, named with the type name as prefix.
    description : str
        One line for ``frylinks plugins`` and the docs.
    memory : tuple of str
        Names of instance attributes (float arrays, one row per element) that carry
        information from one evaluation to the next, such as an angle-unwrapping
        reference. They are saved in checkpoints and restored when a run resumes, so a
        resumed run equals an uninterrupted one. Empty for memoryless forces (the rule).

    Parameters
    ----------
    instances
        Parsed parameters of each element, in order (signal components are
        :class:`~frylinks.signals.SignalSpec`).
    signal_specs
        The model's signal list; :meth:`signal_array` registers signals in it.
    """

    name: ClassVar[str] = ""
    attachments: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[dict[str, Param]] = {}
    outputs: ClassVar[dict[str, Output]] = {}
    description: ClassVar[str] = ""
    memory: ClassVar[tuple[str, ...]] = ()

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        self.nb_forces = len(instances)
        self._signal_specs = signal_specs

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        """Check parsed parameters of one instance beyond their declarations.

        Called when the instance is added (Python API or case file), so a mistake is
        reported where it was made. Raise :class:`~frylinks.errors.ModelError` with the
        parameter name as its path (``ModelError("must follow t_start", "t_end")``).
        """

    def signal_array(self, entries: Sequence[Any]) -> SignalArray:
        """A :class:`SignalArray` over ``entries`` (numbers and signals), shape ``(n, ...)``."""
        return SignalArray(entries, self._signal_specs)

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> tuple[Array, Array]:
        """Wrenches of every element.

        Parameters
        ----------
        frames
            One :class:`NodeFrames` per attachment, each over the block's elements.
        ctx
            Time, signal values and gravity.

        Returns
        -------
        force, torque : ndarray, shape (n, nb_attachments, 3)
            World axes; the torque is about the attachment node.
        """
        raise NotImplementedError

    def point_masses(self, frames: Sequence[NodeFrames], ctx: ForceContext
                     ) -> tuple[Array, Array] | None:
        """Point masses carried by the elements (a spring's own mass), or None.

        Returns
        -------
        mass : (n,) ndarray
            Mass of each element's point [kg] (0 for none).
        weights : (n, nb_attachments) ndarray
            The point is ``sum_i weights[:, i] * p_i`` over the attachment node points
            (weights summing to 1). The engine adds its inertia, which couples the
            attached bodies, and its weight.
        """
        return None

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> dict[str, Array]:
        """Values of the declared ``outputs``, each ``(n, *dims)``; empty by default."""
        return {}
