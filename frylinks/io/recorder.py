"""A run's results made and written beside its step.

The compiled step lets go of the interpreter (numba's ``nogil``) while it computes a
call's samples, tens of milliseconds at a time. Making the result variables of the
samples before (from the step's report) and compressing them into the results file is
work the step does not wait for: a :class:`Recorder` does it in a thread of its own, so
on a machine with two cores the two go on together. A long run of a small model spends
about as long on its file as on its steps (the point absorber over 3 hours: about 2 s
of steps, 1.9 s of variables and writes in the thread, half of it zlib, a fifth the
probe's elevations); measured before the step was made faster, the run took 3.6-4.5 s
against 4.6-6.6 s with the records made in its own thread (:data:`BESIDE`, rounds
alternated). The thread writes the file more often than the run's thread would
(:data:`BESIDE_PACE`), so that little is left to write when the step ends.

Nothing changes in what is written, nor in its order: the checkpoints the integrator
takes go through the same queue as the batches, between the same samples, so the file
holds the records and checkpoints it held before, and an interrupted or diverged run
keeps every sample handed over. What stays in the run's own thread is what may read
the model as the step moves it on: a batch without a report (the first sample, the
Python path), whose variables the step is asked for again, and the variables a force
type makes in Python (:attr:`frylinks.io.results.Sampler.batch_only`).

A run with observers of its samples (``frylinks_step_completed``) records in its own
thread: an observer may read the results file, and HDF5 (as netCDF4's wheels build
it) is not safe to call from two threads at once; netCDF4 lets go of the interpreter
in its calls, so a read beside a write could crash the process.
"""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from frylinks import interpreted
from frylinks.engine.checkpoint import Checkpoint
from frylinks.engine.sampling import Batch
from frylinks.io.results import Sampler

if TYPE_CHECKING:
    from frylinks.io.netcdf import StreamWriter

#: Bytes of samples handed over and not yet recorded, at most: the step waits beyond.
#: A write takes a tenth of a second or more (:data:`BESIDE_PACE`), so the step needs
#: room to go on meanwhile.
HELD_BYTES = 1 << 26

#: How often the thread writes to the file: at least 0.1 s apart, and at least as long
#: as the last write took (the writer's ``pace``; in the run's own thread, 1 s and 20
#: times, so that writing costs it about 5 %). Beside the step a write delays nothing
#: while the thread keeps up, and what the run waits for at its end is the last
#: write: the records since the one before. But each write copies the whole file (an
#: atomic replacement), so writes must not follow too closely as it grows. Measured
#: (``frylinks.run`` with a file, 3 hours, everything cached): the point absorber
#: (37 MB) 2.4-2.5 s, the last write 0.17-0.31 s, against 2.6 s and 0.50 s at (1 s,
#: 20); the moored buoy with slow drift at dt = 0.01 (160 MB) 16.0 s against 16.8 s.
#: At (0.1 s, 0.25) the point absorber took 2.4-2.5 s too, but the moored buoy 40.9 s:
#: 168 writes, 21 s of copying a growing file.
BESIDE_PACE = (0.1, 1.0)

#: Whether batches are recorded in a thread beside the step (False: all in the run's
#: own thread, as before there was one; a test compares the two).
BESIDE = True

_END = object()


class _Queued(NamedTuple):
    """A batch whose variables the thread makes, and the bytes it holds meanwhile."""

    batch: Batch
    size: int


class Recorder:
    """Makes each batch's result variables, keeps them (``keep``) and writes them with
    the integrator's checkpoints to ``writer``: with ``beside``, in a thread of its own
    once a batch comes with the compiled step's report, else in the caller's.

    Attributes
    ----------
    times, values : list
        With ``keep``: each batch's sample times and variables
        (:func:`frylinks.io.results.to_dataset`).
    last_time : float or None
        The time of the last sample handed over (every one is recorded: see
        :meth:`finish`).
    """

    def __init__(self, sampler: Sampler, writer: StreamWriter | None, keep: bool,
                 beside: bool = True) -> None:
        self.beside = beside and BESIDE
        self.sampler = sampler
        self.writer = writer
        self.keep = keep
        self.times: list[np.ndarray] = []
        self.values: list[dict[str, np.ndarray]] = []
        self.last_time: float | None = None
        self._queue: queue.Queue[Any] = queue.Queue()
        self._room = threading.Condition()
        self._held = 0  # bytes of the batches in the queue
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def add(self, batch: Batch) -> None:
        """Record ``batch`` (its arrays are not changed afterwards by the caller).

        Raises
        ------
        Exception
            What making or writing an earlier batch raised in the thread.
        """
        self._raise()
        self.last_time = float(batch.times[-1])
        if self.beside and batch.report is not None and self.sampler.batch_only:
            if self._thread is None:
                # started late: a run forks its compiler child, if any, before its
                # first compiled call, and only while it has one thread
                self._thread = threading.Thread(target=self._work, daemon=True,
                                                name="frylinks-recorder")
                if self.writer is not None:
                    self.writer.pace = BESIDE_PACE
                self._thread.start()
            size = sum(a.nbytes for a in (*batch.arrays, *batch.report))
            with self._room:
                self._room.wait_for(lambda: self._held < HELD_BYTES or self._error is not None)
                self._held += size
            self._queue.put(_Queued(batch, size))
            return
        # made here, copied: the state, or the step's report, moves on after this
        records = {name: np.array(v) for name, v in self.sampler.batch(batch).items()}
        self._hand((np.array(batch.times), records))

    def checkpoint(self, ckpt: Checkpoint) -> None:
        """Keep the integrator's checkpoint ``ckpt`` for the writer, in order with the
        batches (:meth:`frylinks.io.netcdf.StreamWriter.checkpoint`)."""
        self._hand(ckpt)

    def finish(self, quiet: bool = False) -> None:
        """Wait until every batch handed over is recorded; then raise what the thread
        raised, unless ``quiet`` (a run already ending on an error of its own)."""
        if self._thread is not None:
            self._queue.put(_END)
            self._thread.join()
            self._thread = None
        if not quiet:
            self._raise()

    def _hand(self, item: Any) -> None:
        if self._thread is None:
            self._record(item)
        else:
            self._queue.put(item)

    def _raise(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _work(self) -> None:
        interpreted.of_the_run()  # (a new kind of model: on the run's tier)
        while True:
            item = self._queue.get()
            if item is _END:
                return
            try:
                if self._error is None:  # (after an error, the rest is let go)
                    self._record(item)
            except BaseException as exc:  # (raised in the run's thread: add, finish)
                self._error = exc
            if isinstance(item, _Queued):
                with self._room:
                    self._held -= item.size
                    self._room.notify()

    def _record(self, item: Checkpoint | _Queued | tuple[np.ndarray, dict[str, np.ndarray]]
                ) -> None:
        """Write a checkpoint, or keep and write a batch's records (made here for a
        :class:`_Queued` batch, else given with their times)."""
        if isinstance(item, Checkpoint):
            if self.writer is not None:
                self.writer.checkpoint(item)
            return
        if isinstance(item, _Queued):
            times, records = item.batch.times, self.sampler.batch(item.batch)
        else:
            times, records = item
        if self.keep:
            self.times.append(times)
            self.values.append(records)
        if self.writer is not None:
            self.writer.append_many(times, records)


__all__ = ["BESIDE", "BESIDE_PACE", "HELD_BYTES", "Recorder"]
