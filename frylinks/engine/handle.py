"""What a compiled step keeps between calls, handed to it as one object.

Each call of a compiled function converts its arguments from Python: every array of a
tuple is looked at and unboxed, about 2 microseconds for a one-body model's data and
as much again for the generalized-alpha stepper's arrays, at every output sample. A
:class:`Handle` holds them on the compiled side (a numba structref), built once per
model and run, and crosses the boundary as one pointer.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from numba import config, njit, types
from numba.experimental import structref

from frylinks.kernel_cache import cached


@structref.register
class HandleType(types.StructRef):
    """numba's type of a :class:`Handle` (its fields' types fixed per model)."""

    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Handle(structref.StructRefProxy):
    """``data``: the model's data (:func:`.step_data.model_data`); ``run``: the arrays of
    an integrator's run that the compiled step reads and updates in place; ``room``:
    the arrays the model's blocks write (the generated ``make_room``)."""


structref.define_proxy(Handle, HandleType, ["data", "run", "room"])


@cached
@njit
def _make(data: Any, run: Any, room: Any) -> Any:
    return Handle(data, run, room)


class Handles:
    """The parts of a handle (``data``, ``run``, ``room``: see :class:`Handle`; arrays
    shared, not copied), and the handle each tier takes, made once: :meth:`compiled`
    for the compiled step, :meth:`plain` for the step run interpreted
    (:mod:`frylinks.interpreted`, ``NUMBA_DISABLE_JIT=1``), which must not wait for
    :func:`_make` to compile."""

    def __init__(self, data: tuple[Any, ...], run: tuple[Any, ...],
                 room: tuple[Any, ...]) -> None:
        self.parts = (data, run, room)
        self._compiled: Handle | None = None
        self._plain: SimpleNamespace | None = None

    def compiled(self) -> Handle:
        """The :class:`Handle` (the plain object with ``NUMBA_DISABLE_JIT=1``)."""
        if getattr(config, "DISABLE_JIT", False):
            return self.plain()  # type: ignore[no-any-return]
        if self._compiled is None:
            self._compiled = _make(*self.parts)
        return self._compiled

    def plain(self) -> Any:
        """A plain object with the handle's attributes."""
        if self._plain is None:
            data, run, room = self.parts
            self._plain = SimpleNamespace(data=data, run=run, room=room)
        return self._plain
