"""Results streamed to a netCDF4 file while a run goes (DESIGN §4).

The file holds the same variables, coordinates and attributes as the Dataset that
:func:`frylinks.results.to_dataset` builds, so ``xarray.open_dataset`` on it gives that
Dataset back. Records are buffered and written in batches; between batches the file is
*closed*. HDF5 locks a file that is open for writing, so a file kept open for the whole
run could not be read by xarray until the run ended; closed between batches, the file
on disk is always complete and consistent: it can be read at any time, and a run that is
killed keeps every batch written so far.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import netCDF4
import numpy as np

from .errors import FrylinksError
from .results import coordinates, variables

if TYPE_CHECKING:
    from .engine import Model, State

#: Write the buffer when it holds this many records ...
FLUSH_RECORDS = 200
#: ... or when this many seconds of wall time have passed since the last write.
FLUSH_SECONDS = 1.0
#: How long :meth:`StreamWriter.close` keeps retrying while a reader holds the file.
CLOSE_RETRY_SECONDS = 30.0
#: Target size of one compressed chunk before compression [bytes].
CHUNK_BYTES = 1 << 18
#: Most records in one chunk.
CHUNK_RECORDS = 1024


class StreamWriter:
    """Write a run's samples to a netCDF4 file, one time record per sample.

    Parameters
    ----------
    path
        The netCDF file; created (or replaced) now.
    model
        The assembled model: names of bodies, links and forces.
    attrs
        Global attributes (``title``, ``frylinks_version``, ``integrator``, ``dt``,
        ``case``, ``status``, ``Conventions``, ...). ``status`` is ``"running"`` until
        :meth:`close`.

    Notes
    -----
    Every variable of :data:`frylinks.results.VARIABLES` is created with its dims,
    ``units`` and ``long_name``, zlib-compressed (level 4) and chunked along ``time``.
    Records are written every :data:`FLUSH_RECORDS` records or :data:`FLUSH_SECONDS`
    seconds, whichever comes first. If a reader holds the file open at that moment
    (HDF5 refuses a writer then), the records stay buffered until the next attempt.
    """

    def __init__(self, path: str | Path, model: Model, attrs: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.nb_written = 0
        self._times: list[float] = []
        self._buffer: list[Mapping[str, np.ndarray]] = []
        self._closed = False
        coords = coordinates(model)
        self._variables = variables(model)
        self._shapes = {name: tuple(len(coords[d]) for d in var.dims[1:])
                        for name, var in self._variables.items()}
        try:
            ds = netCDF4.Dataset(self.path, "w", format="NETCDF4")
        except OSError as exc:
            raise FrylinksError(f"cannot create the results file '{self.path}': {exc}") from exc
        try:
            self._define(ds, coords, {**attrs, "status": "running"})
        finally:
            ds.close()
        self._last_flush = time.monotonic()

    def _define(self, ds: netCDF4.Dataset, coords: Mapping[str, Any],
                attrs: Mapping[str, Any]) -> None:
        ds.setncatts({k: _attribute(v) for k, v in attrs.items()})
        ds.createDimension("time", None)
        for dim in ("body", "link", "force", "xyz", "quat", "dof"):
            ds.createDimension(dim, len(coords[dim]))
            # variable-length strings: what xarray itself writes for a str coordinate
            var = ds.createVariable(dim, str, (dim,))
            if len(coords[dim]):
                var[:] = np.array([str(c) for c in coords[dim]], dtype=object)
        t = ds.createVariable("time", "f8", ("time",), zlib=True, complevel=4,
                              chunksizes=(CHUNK_RECORDS,))
        t.setncatts({"units": "s", "long_name": "time"})
        for name, meta in self._variables.items():
            shape = self._shapes[name]
            record = 8 * max(1, int(np.prod(shape)))
            chunk_t = int(np.clip(CHUNK_BYTES // record, 1, CHUNK_RECORDS))
            # a chunk may not be larger than a fixed dimension, nor of length 0
            chunks = (chunk_t, *(max(1, n) for n in shape))
            var = ds.createVariable(name, "f8", meta.dims, zlib=True, complevel=4,
                                    chunksizes=chunks)
            var.setncatts({"units": meta.units, "long_name": meta.long_name})

    def append(self, t: float, sample: Mapping[str, np.ndarray], state: State | None = None
               ) -> None:
        """Add the record of time ``t``.

        Parameters
        ----------
        t
            Time [s].
        sample
            Value of every variable of :data:`~frylinks.results.VARIABLES` at ``t``,
            without the time dimension (:meth:`frylinks.results.Sampler.sample`).
        state
            The state at ``t``; not stored yet (kept in the signature for resuming runs).
        """
        if self._closed:
            raise FrylinksError(f"results file '{self.path}' is already closed")
        for name, shape in self._shapes.items():
            if np.shape(sample[name]) != shape:
                raise ValueError(f"{name}: sample of shape {np.shape(sample[name])}, "
                                 f"expected {shape}")
        self._times.append(float(t))
        self._buffer.append({name: np.array(sample[name], dtype=float)
                             for name in self._shapes})
        if (len(self._buffer) >= FLUSH_RECORDS
                or time.monotonic() - self._last_flush >= FLUSH_SECONDS):
            self._flush()

    def _flush(self, status: str | None = None) -> bool:
        """Write buffered records (and ``status``); False if the file is held by a reader."""
        try:
            ds = netCDF4.Dataset(self.path, "a")
        except OSError:
            # most likely a reader holds the file (HDF5 file locking): try again later
            self._last_flush = time.monotonic()
            return False
        try:
            if self._buffer:
                start, stop = self.nb_written, self.nb_written + len(self._buffer)
                ds["time"][start:stop] = np.asarray(self._times)
                for name in self._shapes:
                    ds[name][start:stop] = np.stack([rec[name] for rec in self._buffer])
                self.nb_written = stop
                self._times.clear()
                self._buffer.clear()
            if status is not None:
                ds.setncattr("status", status)
        finally:
            ds.close()
        self._last_flush = time.monotonic()
        return True

    def close(self, status: str) -> None:
        """Write what is buffered, set the global attribute ``status`` and finish.

        Parameters
        ----------
        status
            ``"completed"``, or why the run stopped (``"diverged at t=...: ..."``).

        Raises
        ------
        FrylinksError
            If another program kept the file open for :data:`CLOSE_RETRY_SECONDS`, so
            the last records could not be written.
        """
        if self._closed:
            return
        deadline = time.monotonic() + CLOSE_RETRY_SECONDS
        while not self._flush(status):
            if time.monotonic() > deadline:
                raise FrylinksError(
                    f"could not write the last {len(self._buffer)} records to "
                    f"'{self.path}': another program keeps the file open (close it, e.g. "
                    f"Dataset.close() in xarray); {self.nb_written} records were written")
            time.sleep(0.2)
        self._closed = True


def _attribute(value: Any) -> Any:
    """A value netCDF can store as an attribute (numbers, strings, numeric arrays)."""
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, str | int | float | np.integer | np.floating):
        return value
    if isinstance(value, list | tuple | np.ndarray):
        arr = np.asarray(value)
        if arr.dtype.kind in "iuf" and arr.ndim == 1:
            return arr
    return "" if value is None else str(value)


__all__ = ["StreamWriter"]
