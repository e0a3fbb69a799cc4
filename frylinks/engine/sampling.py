"""Several output samples per call of a compiled step.

A call of a compiled entry costs a few microseconds whatever it does (its arguments
converted, the handle's arrays unpacked, the state copied for the caller): as much as
a small model's step. A run that samples every ten steps would spend more time
crossing into compiled code than stepping. So a call covers as many samples as fit in
:data:`CALL_SECONDS`: it keeps the state at each sample in a row of an array
(:func:`frylinks.engine.kernels.keep_sample`) with its report (the outputs, made
there as a call for one sample would), and the integrator hands them over one by one
afterwards.

The split into calls changes no number (a call ends and the next begins between two
steps, with everything the steps carry kept in the handle), so a resumed run is still
equal to an uninterrupted one. What a call covers is bounded in time so an interrupt
(Ctrl-C, SIGTERM) is handled within :data:`CALL_SECONDS`; a checkpoint is taken at the
last sample of a call, where the integrator's memory is known.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..errors import SimulationError
from .kernels import REPORT_NONE, REPORT_SAMPLES
from .model import Model, State

if TYPE_CHECKING:
    from .compose import CompiledStep

Array = np.ndarray

#: ``every`` of a call that keeps no sample (no step number is a multiple of it).
NEVER = 1 << 62
#: A call of a compiled step covers about this much wall time of samples [s].
CALL_SECONDS = 0.02
#: At most this many bytes of kept states per call (a large model keeps one sample).
CALL_BYTES = 1 << 22

#: ``advance(k, k_next, report)``: the steps ``k + 1 .. k_next`` from the state ``s``
#: (left at the last accepted step) with the outputs ``report`` asks for
#: (``REPORT_NONE`` or ``REPORT_SAMPLES``), the kept samples' rows and the error that
#: stopped them.
Advance = Callable[[int, int, int], tuple[Array, SimulationError | None]]


def _widths(model: Model) -> list[tuple[int, ...]]:
    """The shapes in a kept row: ``x, q, v, w, z, angle_ref`` and the report's
    ``out_links, out_forces, udot, lam, zdot``."""
    nb, nz, na = model.nb_bodies, len(model.initial.z), len(model.initial.angle_ref)
    return [(nb, 3), (nb, 4), (nb, 3), (nb, 3), (nz,), (na,),
            (len(model.link_names), 25), (len(model.force_names), 6), (nb, 6),
            (model.nb_rows,), (nz,)]


def _layout(model: Model) -> tuple[tuple[tuple[int, ...], int], ...]:
    """:func:`_widths` with each one's size (kept on the model: asked at every call)."""
    layout = getattr(model, "_sample_layout", None)
    if layout is None:
        layout = tuple((w, math.prod(w)) for w in _widths(model))
        model._sample_layout = layout  # type: ignore[attr-defined]
    return layout  # type: ignore[no-any-return]


def sample_room(model: Model, count: int) -> Array:
    """Room for ``count`` kept samples (rows of :func:`_widths`' arrays, flat)."""
    return np.empty((count, sum(size for _, size in _layout(model))))


def _samples(model: Model, rows: Array, times: Array
             ) -> tuple[list[State], list[Array]]:
    """The states of kept rows at ``times`` (views of the rows), and the report arrays
    of all rows (``out_links, out_forces, udot, lam, zdot``, a leading sample axis)."""
    m = len(rows)
    parts = []
    i = 0
    for shape, size in _layout(model):
        parts.append(rows[:, i:i + size].reshape(m, *shape))
        i += size
    states = [State(t, x, q, v, w, a, z)
              for t, x, q, v, w, z, a in zip(times.tolist(), *parts[:6], strict=True)]
    return states, parts[6:]


def compiled_samples(step: CompiledStep, s: State, k0: int, n: int, every: int,
                     t0: float, dt: float, advance: Advance, outputs: bool = True
                     ) -> Iterator[bool]:
    """Run steps ``k0 + 1 .. n`` by calls of ``advance``; at each sample (every
    ``every`` steps) set ``s`` to it, with ``outputs`` keep its report (made in the
    call) for ``step.outputs``, and yield whether it is the last sample of its call
    (the integrator's memory is there). An error is raised after the samples before
    it, with ``s`` at the last accepted step.

    A run that keeps checkpoints (a results file) takes one at the last sample of each
    call, where the integrator's memory is known: at most :data:`CALL_SECONDS` of wall
    time behind the last sample (a resumed run computes those samples again, bit for
    bit). A call covers one sample for a model whose outputs read memory
    (:attr:`CompiledStep.outputs_read_memory`: they need the memory of their own step)
    and, without ``outputs``, for a model with memory (a report asked for later, at a
    sample behind the call's end, would change that memory for the steps after it)."""
    width = sample_room(step.model, 0).shape[1]
    single = step.outputs_read_memory or (not outputs and step.has_memory)
    most = 1 if single else max(1, CALL_BYTES // (8 * width))
    report = REPORT_SAMPLES if outputs else REPORT_NONE
    count = 1  # samples per call: one until a call's cost is known
    k = k0
    while k < n:
        k_next = min(n, (k // every + count) * every)
        start = time.perf_counter()
        rows, error = advance(k, k_next, report)
        took = time.perf_counter() - start
        first = (k // every + 1) * every
        done = len(rows)
        if done:
            live = State(s.t, s.x, s.q, s.v, s.w, s.angle_ref, s.z)
            times = t0 + dt * np.arange(first, first + done * every, every)
            states, reports = _samples(step.model, rows, times)
            for i, sample in enumerate(states):
                s.set(sample)
                s.angle_ref = sample.angle_ref
                if outputs:
                    step.keep_report(s, reports, i)
                yield i == done - 1 and error is None and first + i * every == k_next
            s.set(live)
            s.angle_ref = live.angle_ref
        if error is not None:
            raise error
        k = k_next
        if took > 0.0 and done:
            count = int(min(most, max(1, CALL_SECONDS * done / took)))


__all__ = ["CALL_SECONDS", "NEVER", "compiled_samples", "sample_room"]
