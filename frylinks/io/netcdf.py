"""Results streamed to a netCDF4 file while a run goes (docs/reference/results.md).

The file holds the same variables, coordinates and attributes as the Dataset that
:func:`frylinks.io.results.to_dataset` builds, so ``xarray.open_dataset`` on it gives that
Dataset back, plus the latest restart point in the group ``/checkpoint`` (see
:mod:`frylinks.engine.checkpoint`).

Every write is atomic: the file is copied to ``OUT.nc.part``, the new records are
appended to the copy, and the copy replaces the file (``os.replace``). The file on disk
is therefore always a complete, closed netCDF file: xarray can read it at any moment
(HDF5's lock on a file open for writing never applies to it), and Ctrl-C, ``kill -9``
or a power cut of the writer in the middle of a write leaves the previous version
whole. Copying costs time in proportion to the file, so writes are spaced to keep that
cost near 5 % of the run (at least :data:`FLUSH_SECONDS` apart).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import netCDF4
import numpy as np

from frylinks.engine import checkpoint as ckpt_io
from frylinks.errors import FrylinksError
from frylinks.io.results import UNITS_SUFFIX, Variable, coordinates, unit_coordinates, variables

if TYPE_CHECKING:
    from frylinks.engine import Model
    from frylinks.engine.checkpoint import Checkpoint

#: Least wall time between two writes [s] ...
FLUSH_SECONDS = 1.0
#: ... and at least this many times the duration of the last write (copy cost <= 5 %).
FLUSH_COST_RATIO = 20.0
#: Write at once when the buffered records hold this many bytes (bounds the memory).
FLUSH_BYTES = 1 << 25
#: Target size of one compressed chunk before compression [bytes].
CHUNK_BYTES = 1 << 18
#: Most records in one chunk.
CHUNK_RECORDS = 1024
#: How the variables are compressed: zlib (which every netCDF4 reader decodes) at level 1,
#: without HDF5's shuffle filter. A run's doubles compress little (to about 60 %):
#: measured on the point absorber's 3 hours (64 MB of records), level 1 without shuffle
#: wrote in 1.8 s to 39 MB, level 4 with shuffle (netCDF4's default) in 2.7 s to 42 MB;
#: uncompressed, 0.14 s to 64 MB. The compression is most of a long run's writing.
COMPRESSION: dict[str, Any] = {"zlib": True, "complevel": 1, "shuffle": False}


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
    resume
        Start from the first ``resume.samples`` records of the existing file at
        ``path`` (a resumed run): they are kept, later records are dropped.

    Notes
    -----
    Every variable of :data:`frylinks.io.results.VARIABLES` is created with its dims,
    ``units`` and ``long_name``, zlib-compressed (:data:`COMPRESSION`) and chunked along ``time``.
    Records are written with the latest checkpoint, and only those the checkpoint covers
    (a resumed run starts from the checkpoint, so the file never holds records it would
    compute again); :meth:`close` writes the rest.
    """

    def __init__(self, path: str | Path, model: Model, attrs: Mapping[str, Any],
                 resume: Checkpoint | None = None) -> None:
        self.path = Path(path)
        self.nb_written = 0
        self._times: list[np.ndarray] = []  # one array per batch appended
        self._buffer: list[dict[str, np.ndarray]] = []  # its records, a leading axis
        self._nb_buffered = 0
        self._bytes = 0
        self._checkpoints: list[Checkpoint] = []  # the latest two reported
        self._written: Checkpoint | None = None    # the one in the file
        self._closed = False
        coords = coordinates(model)
        self._variables = variables(model)
        self._shapes = {name: tuple(len(coords[d]) for d in var.dims[1:])
                        for name, var in self._variables.items()}
        kept: dict[str, np.ndarray] = {}
        if resume is not None:
            kept = _read_records(self.path, ["time", *self._shapes], resume.samples)
        def define(ds: netCDF4.Dataset) -> None:
            define_results(ds, coords, self._variables, {**attrs, "status": "running"})
            if kept:
                n = len(kept["time"])
                for name, values in kept.items():
                    ds[name][:n] = values
                self.nb_written = n
                ckpt_io.write(ds, resume)  # type: ignore[arg-type]

        create(self.path, define)
        self._last_flush = time.monotonic()
        self._cost = 0.0  # wall time of the last write [s]
        #: Least seconds between two writes, and least multiple of the last write's
        #: duration; None: :data:`FLUSH_SECONDS`, :data:`FLUSH_COST_RATIO` (a writer in
        #: a thread beside the step writes more often: :mod:`frylinks.io.recorder`).
        self.pace: tuple[float, float] | None = None

    def append(self, t: float, sample: Mapping[str, np.ndarray]) -> None:
        """Add the record of time ``t``.

        Parameters
        ----------
        t
            Time [s].
        sample
            Value of every variable of :data:`~frylinks.io.results.VARIABLES` at ``t``,
            without the time dimension (:meth:`frylinks.io.results.Sampler.sample`).
        """
        self.append_many(np.array([float(t)]),
                         {name: np.asarray(sample[name])[None] for name in self._shapes
                          if name in sample})

    def append_many(self, times: np.ndarray, records: Mapping[str, np.ndarray]) -> None:
        """Add the records of ``times (m,)``: each variable's values with a leading
        axis of ``m`` (:meth:`frylinks.io.results.Sampler.batch`)."""
        if self._closed:
            raise FrylinksError(f"results file '{self.path}' is already closed")
        m = len(times)
        for name, shape in self._shapes.items():
            if name not in records or np.shape(records[name]) != (m, *shape):
                got = np.shape(records[name]) if name in records else "none"
                raise ValueError(f"{name}: records of shape {got}, expected {(m, *shape)}")
        batch = {name: np.array(records[name], dtype=float) for name in self._shapes}
        self._times.append(np.array(times, dtype=float))
        self._buffer.append(batch)
        self._nb_buffered += m
        self._bytes += sum(v.nbytes for v in batch.values())
        seconds, ratio = self.pace or (FLUSH_SECONDS, FLUSH_COST_RATIO)
        if (self._bytes >= FLUSH_BYTES
                or time.monotonic() - self._last_flush >= max(seconds, ratio * self._cost)):
            self.flush()

    def checkpoint(self, ckpt: Checkpoint) -> None:
        """Keep ``ckpt`` (taken by the integrator) to be written with the records it covers.

        The integrator reports a checkpoint just before it hands over the sample taken
        there; an interruption in between leaves the checkpoint ahead of the records, so
        the one before it is kept as well.
        """
        self._checkpoints = [*self._checkpoints[-1:], ckpt]

    def flush(self, status: str | None = None, everything: bool = False) -> None:
        """Write the buffered records the latest usable checkpoint covers (all if
        ``everything``), that checkpoint and ``status``, in one atomic replacement."""
        available = self.nb_written + self._nb_buffered
        ckpt = next((c for c in reversed(self._checkpoints) if c.samples <= available), None)
        if ckpt is self._written:
            ckpt = None  # nothing new to say
        n = self._nb_buffered
        if not everything:
            covered = 0 if ckpt is None else ckpt.samples - self.nb_written
            n = int(np.clip(covered, 0, n))
        if n == 0 and status is None and ckpt is None:
            return
        start = time.monotonic()
        times, records = self._take(n)

        def write(ds: netCDF4.Dataset) -> None:
            if n:
                a, b = self.nb_written, self.nb_written + n
                ds["time"][a:b] = times
                for name in self._shapes:
                    ds[name][a:b] = records[name]
            if ckpt is not None:
                ckpt_io.write(ds, ckpt)
            if status is not None:
                ds.setncattr("status", status)

        self._replace(write)
        self.nb_written += n
        self._bytes = sum(v.nbytes for rec in self._buffer for v in rec.values())
        if ckpt is not None:
            self._written = ckpt
        self._last_flush = time.monotonic()
        self._cost = self._last_flush - start

    def _take(self, n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The first ``n`` buffered records, out of the buffer (the batch they end in
        split), joined: times and each variable's values."""
        joined_times = np.concatenate(self._times) if self._times else np.zeros(0)
        joined = {name: (np.concatenate([b[name] for b in self._buffer]) if self._buffer
                         else np.zeros((0, *shape)))
                  for name, shape in self._shapes.items()}
        rest = self._nb_buffered - n
        self._times = [joined_times[n:]] if rest else []
        self._buffer = [{name: v[n:] for name, v in joined.items()}] if rest else []
        self._nb_buffered = rest
        return joined_times[:n], {name: v[:n] for name, v in joined.items()}

    def _replace(self, write: Callable[[netCDF4.Dataset], None]) -> None:
        replace(self.path, write)

    def close(self, status: str) -> None:
        """Write every buffered record, set the global attribute ``status`` and finish.

        Parameters
        ----------
        status
            ``"completed"``, or why the run stopped (``"diverged at t=...: ..."``).
        """
        if self._closed:
            return
        self.flush(status, everything=True)
        self._closed = True


def define_results(ds: netCDF4.Dataset, coords: Mapping[str, Any],
                   variables: Mapping[str, Variable], attrs: Mapping[str, Any], *,
                   nb_times: int | None = None, nb_cases: int | None = None) -> None:
    """Create the dimensions, coordinates and variables of a results file.

    Parameters
    ----------
    ds
        The file, open for writing.
    coords
        Name coordinates (``body``, ``link``, ``xyz``, ...: dimension -> labels).
    variables
        The result variables (:func:`frylinks.io.results.variables`).
    attrs
        Global attributes.
    nb_times
        Length of ``time``; None makes it unlimited (a run appends records).
    nb_cases
        Length of a leading ``case`` dimension of every variable (a sweep), or None.

    Notes
    -----
    Variables are zlib-compressed (:data:`COMPRESSION`) and chunked along ``time`` (one
    case per chunk), with their ``units`` and ``long_name``; a variable over ``dof`` with mixed
    units names its per-DOF units coordinate in its ``coordinates`` attribute
    (:func:`frylinks.io.results.unit_coordinates`).
    """
    ds.setncatts({k: _attribute(v) for k, v in attrs.items()})
    ds.createDimension("time", nb_times)
    lead: tuple[str, ...] = ()
    if nb_cases is not None:
        ds.createDimension("case", nb_cases)
        lead = ("case",)
    for dim in coords:  # names of entities, components and settings (wave probes)
        ds.createDimension(dim, len(coords[dim]))
        # variable-length strings: what xarray itself writes for a str coordinate
        var = ds.createVariable(dim, str, (dim,))
        if len(coords[dim]):
            var[:] = np.array([str(c) for c in coords[dim]], dtype=object)
    t = ds.createVariable("time", "f8", ("time",), **COMPRESSION,
                          chunksizes=(max(1, min(CHUNK_RECORDS, nb_times or CHUNK_RECORDS)),))
    t.setncatts({"units": "s", "long_name": "time"})
    for name, (dims, labels, labels_attrs) in unit_coordinates(dict(variables)).items():
        var = ds.createVariable(name, str, (dims,))
        var[:] = np.array(labels, dtype=object)
        var.setncatts(labels_attrs)
    for name, meta in variables.items():
        shape = tuple(len(coords[d]) for d in meta.dims[1:])
        record = 8 * max(1, int(np.prod(shape)))
        chunk_t = int(np.clip(CHUNK_BYTES // record, 1, CHUNK_RECORDS))
        if nb_times is not None:
            chunk_t = max(1, min(chunk_t, nb_times))
        # a chunk may not be larger than a fixed dimension, nor of length 0
        chunks = (*(1 for _ in lead), chunk_t, *(max(1, n) for n in shape))
        var = ds.createVariable(name, "f8", (*lead, *meta.dims), **COMPRESSION,
                                chunksizes=chunks, fill_value=np.nan if lead else None)
        var.setncatts({"units": meta.units, "long_name": meta.long_name})
        if meta.dof_units is not None:
            # CF: the units of each DOF are an auxiliary coordinate of this variable
            var.setncattr("coordinates", f"{name}{UNITS_SUFFIX}")


def _part(path: Path) -> Path:
    return path.with_name(path.name + ".part")


def create(path: Path, define: Callable[[netCDF4.Dataset], None]) -> None:
    """Create the netCDF4 file ``path`` atomically: ``define`` writes it as ``path.part``,
    which then replaces ``path``."""
    _publish(path, lambda: netCDF4.Dataset(_part(path), "w", format="NETCDF4"), define,
             "create")


def replace(path: Path, write: Callable[[netCDF4.Dataset], None]) -> None:
    """Change the netCDF4 file ``path`` atomically: copy it, ``write`` into the copy, and
    put the copy in its place."""

    def copy() -> netCDF4.Dataset:
        shutil.copyfile(path, _part(path))
        return netCDF4.Dataset(_part(path), "a")

    _publish(path, copy, write, "write")


def _publish(path: Path, open_part: Callable[[], netCDF4.Dataset],
             write: Callable[[netCDF4.Dataset], None], verb: str) -> None:
    """Open the ``.part`` file, ``write`` into it, close it and move it over ``path``; on
    any failure the ``.part`` file is removed and ``path`` is left as it was."""
    part = _part(path)
    if not path.parent.is_dir():  # HDF5 would say "Permission denied"
        what = "is not a folder" if path.parent.exists() else "does not exist"
        raise FrylinksError(f"cannot {verb} the results file '{path}': the folder "
                            f"'{path.parent}' {what} (create it first)")
    try:
        ds = open_part()
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise FrylinksError(f"cannot {verb} the results file '{path}': {exc}") from exc
    try:
        write(ds)
    except BaseException:
        ds.close()
        part.unlink(missing_ok=True)
        raise
    ds.close()
    os.replace(part, path)


def _read_records(path: Path, names: list[str], n: int) -> dict[str, np.ndarray]:
    """The first ``n`` records of ``names`` in an existing results file."""
    try:
        with netCDF4.Dataset(path) as ds:
            kept = {name: np.asarray(ds[name][:n], dtype=float) for name in names}
    except (OSError, IndexError) as exc:
        raise FrylinksError(f"cannot read the records of '{path}': {exc}") from exc
    if len(kept["time"]) != n:
        raise FrylinksError(f"cannot resume from '{path}': its checkpoint covers {n} records "
                            f"but the file holds {len(kept['time'])}")
    return kept


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


__all__ = ["StreamWriter", "create", "define_results", "replace"]
