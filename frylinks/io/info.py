"""Reading results files back: :func:`open_results` and the summary of ``frylinks info``.

A results file may be read while its run is still going (docs/reference/results.md: results are
streamed), so files are opened only for as long as it takes to read what is needed,
and an open that fails because the writer holds the file for a moment is retried.
"""

from __future__ import annotations

import re
import textwrap
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from frylinks.errors import FrylinksError

#: How long :func:`open_results` retries while a writer holds the file [s].
OPEN_RETRY_SECONDS = 5.0
#: Dimension of a load-case sweep (``frylinks sweep``): one Dataset, one entry per case.
CASE_DIM = "case"
#: Dimensions whose labels are the fixed vocabulary of docs/reference/results.md, not model names.
FIXED_DIMS = ("time", "xyz", "quat", "dof", "rpy")
#: Suffix of the coordinate that gives the units of each DOF of a variable over ``dof``
#: whose DOFs differ in units (``link_displacement_units``: m for tx, rad for rx).
UNITS_SUFFIX = "_units"
#: Suffix of the dimension of a force type's own elements, over which its outputs are
#: written (``radiation_element``).
ELEMENT_SUFFIX = "_element"
#: At most this many names are listed on one line of :func:`describe`.
MAX_NAMES = 10
#: Status of a load case of a sweep that ran to its end (its ``status`` variable).
COMPLETED = "completed"
#: Status of a load case not run yet (a sweep interrupted, or still running).
PENDING = "pending"
#: Status words in the order :func:`status_counts` gives them (others follow).
STATUS_ORDER = (COMPLETED, "diverged", "failed", PENDING)
#: At most this many cases that did not complete are listed by :func:`describe`.
MAX_CASES_LISTED = 10
#: Characters of a case status shown on its line of :func:`describe`.
STATUS_WIDTH = 100

_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def open_results(path: str | Path) -> xr.Dataset:
    """Open a frylinks results file lazily (values are read on access).

    Use it as a context manager and close it soon: HDF5 locks a file open for
    reading against the writer of a run in progress.

    Parameters
    ----------
    path
        A netCDF file written by ``frylinks run`` (or ``System.run(output=...)``).

    Returns
    -------
    xarray.Dataset
        The results, ``time`` in float seconds (never decoded to dates or timedeltas).

    Raises
    ------
    FrylinksError
        If the file does not exist, is not a netCDF file, cannot be opened, or is a
        netCDF file that frylinks did not write.
    """
    path = Path(path)
    if not path.exists():
        raise FrylinksError(f"results file '{path}' not found")
    if not path.is_file():
        raise FrylinksError(f"results file '{path}' is not a file")
    deadline = time.monotonic() + OPEN_RETRY_SECONDS
    unlocked_failures = 0
    while True:
        try:
            ds = xr.open_dataset(path, engine="netcdf4", decode_times=False,
                                 decode_timedelta=False)
            break
        except OSError as exc:
            reason = exc.strerror or str(exc)
            if "Unknown file format" in str(exc):
                raise FrylinksError(f"'{path}' is not a netCDF file") from None
            if not _is_hdf5(path):
                raise FrylinksError(f"cannot open '{path}': {reason}") from None
            # HDF5 refuses to open a file that another process has open for writing:
            # the writer of a run in progress holds it for the moment of a write
            if _locked(path):
                if time.monotonic() > deadline:
                    raise FrylinksError(
                        f"cannot open '{path}': another program has kept it open for "
                        f"writing for {OPEN_RETRY_SECONDS:g} s ({reason})") from None
                time.sleep(0.1)
                continue
            # not locked now, but the writer may have let go between the two: try again
            unlocked_failures += 1
            if unlocked_failures >= 3:
                raise FrylinksError(f"'{path}' is not a netCDF file (an HDF5 file that "
                                    f"netCDF cannot read, or a damaged one: {reason})"
                                    ) from None
            time.sleep(0.05)
        except ValueError as exc:  # xarray refusing the contents (bad CF attributes, ...)
            raise FrylinksError(f"cannot read '{path}' as a results file: {exc}") from None
    missing = [what for what, absent in (("global attribute 'frylinks_version'",
                                           "frylinks_version" not in ds.attrs),
                                          ("dimension 'time'", "time" not in ds.dims))
               if absent]
    if missing:
        ds.close()
        raise FrylinksError(f"'{path}' is a netCDF file but not a frylinks results file "
                            f"(no {' and no '.join(missing)})")
    return ds


def describe(path: str | Path) -> str:
    """A readable summary of a results file (the output of ``frylinks info``).

    Parameters
    ----------
    path
        The results file; it may be still being written, and may hold no sample yet.

    Returns
    -------
    str
        Several lines: title and description, status, version, integrator and time
        step, samples and time range, names of bodies, links and forces, the cases of
        a sweep (counted by status) with their swept coordinates and every case that
        did not complete, and a table of the data variables with their dims, units and
        long_name.

    Raises
    ------
    FrylinksError
        As :func:`open_results`.
    """
    with open_results(path) as ds:
        return summary(ds, str(path), _checkpoint_time(Path(path)))


def _checkpoint_time(path: Path) -> float | None:
    """Time of the restart point saved in the file, if any."""
    import netCDF4

    from frylinks.engine.checkpoint import GROUP

    try:
        with netCDF4.Dataset(path) as nc:
            grp = nc.groups.get(GROUP)
            return float(grp.getncattr("t")) if grp is not None else None
    except (OSError, AttributeError):
        return None


def summary(ds: xr.Dataset, name: str = "", checkpoint: float | None = None) -> str:
    """:func:`describe` of an open Dataset (in memory, or read from ``name``), with the
    time of its checkpoint if known."""
    attrs = ds.attrs
    title = str(attrs.get("title", "")) or "(untitled)"
    lines = [title]
    rows: list[tuple[str, str]] = []
    statuses = case_statuses(ds)
    words = [status_word(s) for s in statuses] if statuses is not None else []
    if name:
        rows.append(("file", name))
    if attrs.get("description"):
        rows.append(("description", str(attrs["description"])))
    rows.append(("status", _status(attrs)))
    # a sweep resumes by cases; the checkpoint of one run does not apply to it
    if checkpoint is not None and attrs.get("status") != "completed" \
            and CASE_DIM not in ds.dims:
        rows.append(("resumable", f"from t = {_number(checkpoint)} s (frylinks run CASE "
                                  f"--resume {name or 'FILE'})"))
    pending = words.count(PENDING)
    if pending and attrs.get("status") != "completed":
        rows.append(("resumable", f"{pending} pending case{'s' if pending != 1 else ''} "
                                  f"(frylinks sweep CASE --resume {name or 'FILE'} runs "
                                  f"only the missing cases)"))
    rows.append(("frylinks", str(attrs.get("frylinks_version", "?"))))
    solver = [str(attrs.get("integrator", "?"))]
    if "dt" in attrs:
        solver.append(f"dt = {_number(attrs['dt'])} s")
    if "output_every" in attrs:
        every = int(attrs["output_every"])
        solver.append(f"output every {every} step{'s' if every != 1 else ''}")
    rows.append(("integrator", ", ".join(solver)))
    rows.append(("samples", _samples(ds)))
    for dim, label in (("body", "bodies"), ("link", "links"), ("force", "forces")):
        if dim in ds.dims:
            rows.append((label, _names(_labels(ds, dim))))
    # dimensions added by plugins or later versions: shown, whatever they are
    for other in map(str, ds.dims):
        if other not in (*FIXED_DIMS, "body", "link", "force", CASE_DIM):
            rows.append((other, _names(_labels(ds, other))))
    if CASE_DIM in ds.dims:
        rows += _case_rows(ds, statuses, words)
    width = max(len(key) for key, _ in rows)
    lines += [f"  {key.ljust(width)}  {value}".rstrip() for key, value in rows]
    lines += ["", *_table(ds)]
    return "\n".join(lines)


def _case_rows(ds: xr.Dataset, statuses: np.ndarray | None, words: list[str]
               ) -> list[tuple[str, str]]:
    """Rows of :func:`summary` on the cases of a sweep: their number (by status), the
    swept coordinates, and one row per case that did not complete."""
    n = ds.sizes[CASE_DIM]
    counts = ", ".join(f"{k} {word}" for word, k in status_counts(words).items())
    rows = [("cases", f"{n} ({counts})" if counts else str(n))]
    swept = swept_coordinates(ds)
    for coord, values in swept.items():
        # each value once (a grid repeats them), in the order of the sweep
        distinct = list(dict.fromkeys(_value(v) for v in values))
        rows.append(("swept", f"{coord} = {_shortened(distinct)}"))
    if statuses is None:
        return rows
    numbers = _labels(ds, CASE_DIM)
    not_done = [i for i, word in enumerate(words) if word != COMPLETED]
    for i in not_done[:MAX_CASES_LISTED]:
        where = ", ".join(f"{coord}={_value(v[i])}" for coord, v in swept.items())
        # a traceback or a solver message may run over several lines
        status = textwrap.shorten(statuses[i], STATUS_WIDTH, placeholder=" ...") or "?"
        rows.append((f"case {numbers[i]}", f"{where}: {status}" if where else status))
    if len(not_done) > MAX_CASES_LISTED:
        rows.append(("", f"... ({len(not_done) - MAX_CASES_LISTED} more not completed)"))
    return rows


def case_statuses(ds: xr.Dataset) -> np.ndarray | None:
    """The status of every case of a sweep, as ``frylinks sweep`` writes it.

    Parameters
    ----------
    ds
        Results, with or without a ``case`` dimension.

    Returns
    -------
    numpy.ndarray or None
        One text per case, shape ``(nb_cases,)``: ``completed``, ``diverged at t=...``,
        ``failed: ...`` or ``pending``; ``None`` without a ``status`` variable along
        ``case`` (a single run, or a sweep file written before statuses were).
    """
    var = ds.variables.get("status")
    if var is None or var.dims != (CASE_DIM,):
        return None
    return np.array([_text(v) for v in np.asarray(var.values)], dtype=object)


def status_word(status: str) -> str:
    """The first word of a case status: ``"diverged at t=12.3: ..."`` -> ``"diverged"``.

    Parameters
    ----------
    status
        A status as :func:`case_statuses` gives it.

    Returns
    -------
    str
        ``completed``, ``diverged``, ``failed``, ``pending`` (or whatever word a
        status starts with; ``unknown`` for an empty one), in lower case.
    """
    return re.split(r"[\s:(,;=]", status.strip(), maxsplit=1)[0].lower() or "unknown"


def status_counts(words: Iterable[str]) -> dict[str, int]:
    """How many cases have each status word, in the order of :data:`STATUS_ORDER` (other
    words after, in the order met).

    Parameters
    ----------
    words
        Status words (:func:`status_word`).

    Returns
    -------
    dict
        Word -> count, only for words met.
    """
    counts: dict[str, int] = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    rank = {word: i for i, word in enumerate(STATUS_ORDER)}
    return dict(sorted(counts.items(), key=lambda item: rank.get(item[0], len(rank))))


def swept_coordinates(ds: xr.Dataset) -> dict[str, np.ndarray]:
    """Coordinates along the ``case`` dimension of a sweep (the swept parameters).

    Parameters
    ----------
    ds
        Results, with or without a ``case`` dimension.

    Returns
    -------
    dict
        Coordinate name -> its values, one per case; empty without a sweep.
    """
    return {str(name): np.asarray(coord.values) for name, coord in ds.coords.items()
            if coord.dims == (CASE_DIM,) and name != CASE_DIM}


def _is_hdf5(path: Path) -> bool:
    """True if ``path`` starts with the HDF5 signature (a netCDF-4 file)."""
    try:
        with path.open("rb") as f:
            return f.read(len(_HDF5_SIGNATURE)) == _HDF5_SIGNATURE
    except OSError:
        return False


def _locked(path: Path) -> bool:
    """True if another process holds the HDF5 file lock of ``path`` (a writer).

    HDF5 (1.10 and later) takes an exclusive ``flock`` on a file it opens for writing;
    a shared one cannot be had meanwhile. Without ``flock`` (Windows), assume a lock,
    so the open is retried until :data:`OPEN_RETRY_SECONDS`.
    """
    try:
        import fcntl
    except ImportError:
        return True
    try:
        with path.open("rb") as f:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
            return False
    except OSError:
        return False


def _status(attrs: dict[Any, Any]) -> str:
    status = str(attrs.get("status", "unknown"))
    if status == "running":
        # the writer sets the final status last; "running" on a file nobody writes
        # means the run was killed (its records up to the last write are kept)
        return "running (still being written, or the run was killed)"
    return status


def _samples(ds: xr.Dataset) -> str:
    n = ds.sizes["time"]
    if n == 0:
        return "0"
    t = np.asarray(ds["time"].values, dtype=float)
    return f"{n}, t = {_number(t[0])} to {_number(t[-1])} s"


def _labels(ds: xr.Dataset, dim: str) -> list[str]:
    if dim in ds.coords:
        return [str(v) for v in np.asarray(ds[dim].values).ravel()]
    return [str(i) for i in range(ds.sizes[dim])]


def _names(names: Sequence[str]) -> str:
    if not names:
        return "0"
    return f"{len(names)}: {_shortened(names)}"


def _value(value: Any) -> str:
    if np.ndim(value) == 0 and isinstance(value, int | float | np.number) \
            and not isinstance(value, bool | np.bool_):
        return _number(value)
    return _text(value)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _shortened(items: Sequence[str]) -> str:
    if len(items) > MAX_NAMES:
        items = [*items[:MAX_NAMES - 2], "...", *items[-1:]]
    return ", ".join(items)


def _number(value: Any) -> str:
    try:
        return f"{float(value):g}"
    except (TypeError, ValueError):
        return str(value)


def _table(ds: xr.Dataset) -> list[str]:
    header = ("variable", "dims", "units", "long_name")
    rows = [(str(name), ", ".join(str(d) for d in var.dims), units_text(ds, str(name)),
             str(var.attrs.get("long_name", "")))
            for name, var in ds.data_vars.items()]
    if not rows:
        return ["no data variables"]
    return aligned([header, *rows])


def units_text(ds: xr.Dataset, name: str) -> str:
    """The units of variable ``name`` as a reader wants them: its ``units`` attribute, or
    for a variable whose DOFs differ in units, each distinct unit of its coordinate
    ``<name>_units`` (``m, rad per dof``)."""
    per_dof = ds.coords.get(f"{name}{UNITS_SUFFIX}")
    if per_dof is None:
        return str(ds[name].attrs.get("units", ""))
    distinct = dict.fromkeys(str(u) for u in np.atleast_1d(per_dof.values))
    return f"{', '.join(distinct)} per dof"


def aligned(rows: Iterable[tuple[str, ...]]) -> list[str]:
    rows = list(rows)
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
    return ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)),
                       row[-1]]).rstrip() for row in rows]


__all__ = ["case_statuses", "describe", "open_results", "status_counts", "status_word",
           "summary", "swept_coordinates"]
