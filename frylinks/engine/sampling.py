"""Several output samples per call of a compiled step.

A call of a compiled entry costs 10 to 30 microseconds whatever it does (its arguments
converted, the room's arrays among them, the state copied for the caller): more than
a small model's step. A run that samples every ten steps would spend more time
crossing into compiled code than stepping. So a call covers as many samples as fit in
:data:`CALL_SECONDS`: it keeps the state at each sample in a row of an array
(:func:`frylinks.engine.kernels.keep_sample`) with its report (the outputs, made
there as a call for one sample would, the force types' own included: their
``outputs`` kernels, :func:`reported_outputs`), and the integrator hands them over as
a :class:`Batch`: at once to a consumer that takes many (the runner makes every result
variable of the batch together and writes them in one append), or one by one.

The split into calls changes no number (a call ends and the next begins between two
steps, with everything the steps carry kept in the room), so a resumed run is still
equal to an uninterrupted one. What a call covers is bounded in time so an interrupt
(Ctrl-C, SIGTERM) is handled within :data:`CALL_SECONDS`; a checkpoint is taken at the
last sample of a call, where the integrator's memory is known.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from frylinks.engine.kernels import REPORT_NONE, REPORT_SAMPLES
from frylinks.engine.model import Model, State
from frylinks.errors import SimulationError
from frylinks.forces import output_width

if TYPE_CHECKING:
    from frylinks.engine.compose import CompiledStep

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


class ReportedOutputs(NamedTuple):
    """A force block whose type's ``outputs`` kernel the compiled step calls in its
    report: the block's number, and where its ``(n, width)`` values sit in the
    report's ``out_extra``."""

    block: int
    offset: int
    nb: int
    width: int


def reported_outputs(model: Model) -> tuple[ReportedOutputs, ...]:
    """The force blocks whose outputs the compiled step reports (kept on the model)."""
    done = getattr(model, "_reported_outputs", None)
    if done is None:
        done = []
        offset = 0
        for j, blk in enumerate(model.force_blocks):
            kernels = blk.kind.kernels
            if blk.kind.outputs and kernels is not None and kernels.outputs is not None:
                width = output_width(blk.kind.outputs)
                done.append(ReportedOutputs(j, offset, blk.kind.nb_forces, width))
                offset += blk.kind.nb_forces * width
        done = model._reported_outputs = tuple(done)  # type: ignore[attr-defined]
    return done  # type: ignore[no-any-return]


def python_outputs(model: Model) -> frozenset[int]:
    """The force blocks whose type declares outputs the compiled step does not report
    (no ``outputs`` kernel): they are made in Python, from the model as it is at the
    sample (:class:`frylinks.io.results.Sampler`)."""
    reported = {r.block for r in reported_outputs(model)}
    return frozenset(j for j, blk in enumerate(model.force_blocks)
                     if blk.kind.outputs and j not in reported)


def extra_size(model: Model) -> int:
    """Length of a report's ``out_extra``: every reported block's outputs, flat."""
    return sum(r.nb * r.width for r in reported_outputs(model))


def _widths(model: Model) -> list[tuple[int, ...]]:
    """The shapes in a kept row: ``x, q, v, w, z, angle_ref`` and the report's
    ``out_links, out_forces, udot, lam, zdot, out_extra``."""
    nb, nz, na = model.nb_bodies, len(model.initial.z), len(model.initial.angle_ref)
    return [(nb, 3), (nb, 4), (nb, 3), (nb, 3), (nz,), (na,),
            (len(model.link_names), 25), (len(model.force_names), 6), (nb, 6),
            (model.nb_rows,), (nz,), (extra_size(model),)]


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


class Batch:
    """Consecutive output samples of a run: their times, states and, when the compiled
    step made them, their outputs, each array with a leading sample axis.

    Attributes
    ----------
    times : (m,) ndarray
        The samples' times [s].
    arrays : tuple of ndarray
        ``x (m, nb, 3), q (m, nb, 4), v, w (m, nb, 3), z (m, nz), angle_ref (m, na)``.
    report : tuple of ndarray or None
        ``out_links (m, nl, 25), out_forces (m, nf, 6), udot (m, nb, 6), lam (m, nr),
        zdot (m, nz), out_extra (m, ne)`` (:mod:`.kernels`), or None: the outputs are
        made from the states (the Python path, a run's first sample).
    """

    def __init__(self, times: Array, arrays: tuple[Array, ...],
                 report: tuple[Array, ...] | None, single: State | None = None) -> None:
        self.times = times
        self.arrays = arrays
        self.report = report
        self._single = single

    @classmethod
    def of(cls, s: State) -> Batch:
        """The one sample ``s`` (held, not copied: handed over before ``s`` moves on)."""
        arrays = tuple(a[None] for a in (s.x, s.q, s.v, s.w, s.z, s.angle_ref))
        return cls(np.array([s.t]), arrays, None, s)

    def __len__(self) -> int:
        return len(self.times)

    def head(self, n: int) -> Batch:
        """The batch of the first ``n`` samples (views)."""
        report = None if self.report is None else tuple(a[:n] for a in self.report)
        return Batch(self.times[:n], tuple(a[:n] for a in self.arrays), report, self._single)

    def states(self) -> list[State]:
        """Each sample as a :class:`State` (views of the batch's arrays)."""
        if self._single is not None:
            return [self._single]
        x, q, v, w, z, a = self.arrays
        return [State(t, *parts) for t, *parts in zip(self.times.tolist(), x, q, v, w, a, z,
                                                      strict=True)]

    def last(self) -> State:
        """The last sample as a :class:`State` (views of the batch's arrays)."""
        if self._single is not None:
            return self._single
        x, q, v, w, z, a = (p[-1] for p in self.arrays)
        return State(float(self.times[-1]), x, q, v, w, a, z)


def _batch(model: Model, rows: Array, times: Array) -> Batch:
    """The batch of kept ``rows`` (:func:`sample_room`) at ``times`` (views of the rows)."""
    m = len(rows)
    parts = []
    i = 0
    for shape, size in _layout(model):
        parts.append(rows[:, i:i + size].reshape(m, *shape))
        i += size
    return Batch(times, tuple(parts[:6]), tuple(parts[6:]))


def _batches(step: CompiledStep, s: State, k0: int, n: int, every: int, t0: float,
             dt: float, advance: Advance, outputs: bool) -> Iterator[tuple[Batch, bool]]:
    """Run steps ``k0 + 1 .. n`` by calls of ``advance``; yield the samples (every
    ``every`` steps) of each call as a :class:`Batch`, with ``outputs`` their outputs
    (made in the call), and whether its last sample ends the call (the integrator's
    memory is there); ``s`` is that last sample while the batch is handed over. An
    error is raised after the samples before it, with ``s`` at the last accepted step.

    A run that keeps checkpoints (a results file) takes one at the end of each call,
    where the integrator's memory is known: at most :data:`CALL_SECONDS` of wall time
    behind the last sample (a resumed run computes those samples again, bit for bit).
    A call covers one sample for a model whose outputs are made in Python from memory
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
            batch = _batch(step.model, rows, times)
            if not outputs:
                batch.report = None
            last = batch.last()
            s.set(last)
            s.angle_ref = last.angle_ref
            yield batch, error is None and first + (done - 1) * every == k_next
            s.set(live)
            s.angle_ref = live.angle_ref
        if error is not None:
            raise error
        k = k_next
        if took > 0.0 and done:
            count = int(min(most, max(1, CALL_SECONDS * done / took)))


#: ``call_end(samples, k)``: at the end of a call, with ``s`` at its last sample (the
#: run's ``samples``-th, after step ``k``), where the integrator's memory is known.
CallEnd = Callable[[int, int], None]


def compiled_samples(step: CompiledStep, s: State, k0: int, n: int, every: int, t0: float,
                     dt: float, advance: Advance, samples: int, outputs: bool = True,
                     batches: bool = False, call_end: CallEnd | None = None
                     ) -> Iterator[Any]:
    """What a fixed-step integrator yields on the compiled path for its steps ``k0 + 1
    .. n`` (:func:`_batches`, the run's ``samples`` before them): each call's samples
    as a :class:`Batch` with ``batches``, else one by one as ``s`` (set to each in turn,
    its outputs kept for ``step.outputs``); ``call_end`` is called before the samples
    of a call that ended where the integrator's memory is known (a checkpoint)."""
    for batch, at_end in _batches(step, s, k0, n, every, t0, dt, advance, outputs):
        samples += len(batch)
        if call_end is not None and at_end:
            call_end(samples, round((s.t - t0) / dt))
        if batches:
            yield batch
            continue
        for i, sample in enumerate(batch.states()):
            s.set(sample)
            s.angle_ref = sample.angle_ref
            if batch.report is not None:
                step.keep_report(s, batch.report, i)
            yield s


__all__ = ["CALL_SECONDS", "NEVER", "Batch", "compiled_samples", "python_outputs",
           "sample_room"]
