"""Signals: functions of time that drive links and force inputs, evaluated in blocks.

A signal type is a class holding every instance of that type; ``evaluate(t, order)``
returns the values (or time derivatives) of all of them at once. The engine gathers
every signal a model uses into one :class:`SignalBank`, so a step costs one call per
signal type, and gives each consumer a :class:`SignalArray` that mixes constants and
signal slots.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from frylinks.params import Param

Array = np.ndarray


class SignalType:
    """Base class of signal types: one object holds all instances of the type.

    A compiled type sets :attr:`kernel` to a :func:`frylinks.jit.kernel` at module level,
    ``kernel(data, t, order, out)``, writing the values (or derivatives of ``order``)
    of all instances into ``out`` ``(nb_signals,)``, with ``data`` from
    :meth:`kernel_data`; :meth:`evaluate` then calls it. A type in plain numpy
    overrides :meth:`evaluate` instead, and keeps its models on the Python path.

    Class attributes
    ----------------
    name : str
        The case-file ``type``.
    parameters : dict[str, Param]
        Declared parameters of one instance.
    description : str
        One line for ``frylinks plugins`` and the docs.
    """

    name: ClassVar[str] = ""
    parameters: ClassVar[dict[str, Param]] = {}
    description: ClassVar[str] = ""
    #: The compiled evaluation (class doc), or None for a plain-numpy type.
    kernel: ClassVar[Callable[..., None] | None] = None

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        self.nb_signals = len(instances)

    def kernel_data(self) -> tuple[Any, ...]:
        """The arrays :attr:`kernel` reads (the instances' parameters)."""
        return ()

    def compiled(self) -> str | None:
        """None when this type evaluates compiled, else why it cannot."""
        owner = next((c for c in type(self).__mro__ if "kernel" in c.__dict__), None)
        if owner is None or owner.__dict__["kernel"] is None:
            return f"signal type '{self.name}' ({type(self).__module__}) has no compiled kernel"
        for c in type(self).__mro__:
            if c is owner:
                break
            if "evaluate" in c.__dict__:
                return (f"signal type '{self.name}' ({type(self).__module__}) overrides "
                        "evaluate() in plain numpy without a kernel of its own")
        return None

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        """Check parsed parameters of one instance beyond their declarations.

        Called when the instance is added (Python API or case file), so a mistake is
        reported where it was made. Raise :class:`~frylinks.errors.ModelError` with the
        parameter name as its path (``ModelError("must follow t_start", "t_end")``).
        """

    def evaluate(self, t: float, order: int = 0) -> Array:
        """Values (order 0) or time derivatives (order 1, 2) of all instances at ``t``.

        Returns
        -------
        ndarray, shape (nb_signals,)
        """
        if self.kernel is None:
            raise NotImplementedError(f"signal type '{self.name}' defines neither a kernel "
                                      "nor evaluate()")
        out = np.zeros(self.nb_signals)
        type(self).kernel(self._data(), float(t), int(order), out)  # type: ignore[misc]
        return out

    def _data(self) -> tuple[Any, ...]:
        data = self.__dict__.get("_kernel_data")
        if data is None:
            data = self._kernel_data = self.kernel_data()
        return data


@dataclass(frozen=True)
class SignalSpec:
    """A checked signal use: its type name and parsed parameters."""

    type: str
    params: Mapping[str, Any]


class SignalBank:
    """Every signal of an assembled model, grouped by type.

    Parameters
    ----------
    classes
        Signal type name -> class, from the registry.
    specs
        The signals in slot order.
    """

    def __init__(self, classes: Mapping[str, type[SignalType]], specs: Sequence[SignalSpec]):
        self.nb_slots = len(specs)
        groups: dict[str, list[int]] = {}
        for slot, spec in enumerate(specs):
            groups.setdefault(spec.type, []).append(slot)
        self._blocks = [
            (classes[name](specs_params(specs, slots)), np.array(slots, dtype=int))
            for name, slots in groups.items()
        ]

    def evaluate(self, t: float, order: int = 0) -> Array:
        """Values of every slot at ``t``: shape ``(nb_slots,)``."""
        out = np.zeros(self.nb_slots)
        for block, slots in self._blocks:
            out[slots] = block.evaluate(t, order)
        return out


def specs_params(specs: Sequence[SignalSpec], slots: list[int]) -> list[Mapping[str, Any]]:
    return [specs[s].params for s in slots]


class SignalArray:
    """An array of inputs where any entry is a constant or a signal slot.

    Built at assembly from parsed parameters; ``at(values)`` gives the array at the
    current time from the bank's values, without a Python loop.

    Parameters
    ----------
    entries
        Nested list of floats and :class:`SignalSpec` (shape ``(n, ...)``).
    specs
        The model's list of signal specs; signals found here are appended to it.
    """

    def __init__(self, entries: Sequence[Any], specs: list[SignalSpec]) -> None:
        flat, shape = _flatten(entries)
        const = np.zeros(len(flat))
        slot = np.full(len(flat), -1, dtype=int)
        for i, e in enumerate(flat):
            if isinstance(e, SignalSpec):
                slot[i] = len(specs)
                specs.append(e)
            else:
                const[i] = float(e)
        self.shape = shape
        self.const = const.reshape(shape)
        self._slot = slot
        self._has_signal = bool((slot >= 0).any())
        self._where = np.nonzero(slot >= 0)[0]

    def slots(self) -> Array:
        """Per flattened entry, its signal slot in the bank, or -1 for a constant (what
        :func:`frylinks.jit.signal_values` takes with ``const.reshape(-1)``)."""
        return self._slot.astype(np.int64)

    @property
    def constant(self) -> bool:
        """True when no entry is a signal."""
        return not self._has_signal

    def at(self, values: Array, order: int = 0) -> Array:
        """The array (order 0) or its ``order``-th time derivative, from the bank's
        ``values`` of that order; constant entries have zero derivatives."""
        if order > 0:
            base = np.zeros(self.const.size)
        elif not self._has_signal:
            return self.const
        else:
            base = self.const.reshape(-1).copy()
        if not self._has_signal:
            return base.reshape(self.shape)
        out = base
        out[self._where] = values[self._slot[self._where]]
        return out.reshape(self.shape)


def _flatten(entries: Any) -> tuple[list[Any], tuple[int, ...]]:
    if isinstance(entries, SignalSpec) or np.isscalar(entries):
        return [entries], ()
    if isinstance(entries, np.ndarray):
        return list(entries.reshape(-1)), entries.shape
    items = [_flatten(e) for e in entries]
    shapes = {s for _, s in items}
    if len(shapes) > 1:
        raise ValueError("ragged signal array")
    inner = shapes.pop() if shapes else ()
    return [x for f, _ in items for x in f], (len(items), *inner)
