"""A sweep's results: one Dataset with a ``case`` dimension, filled as cases arrive.

Every run variable gains a leading ``case`` dimension; the swept key paths are
coordinates along ``case``; ``status (case)`` says what became of each case
(``completed``, ``diverged at t=...: ...``, ``failed: ...``, or ``pending`` until it has
run) and ``wall_time (case)`` how long it took. A case's samples sit on the sweep's
time grid (the union of the cases' grids, which differ only when the solver is swept);
samples a case does not have (it failed, diverged, or has a coarser grid) are NaN.

With a file, every write is atomic (:func:`frylinks.io.netcdf.replace`) and spaced as a
run's are (:data:`frylinks.io.netcdf.FLUSH_SECONDS`), so the file is always a complete
netCDF file holding every case written so far: an interrupted or killed sweep keeps
them, and ``--resume`` runs only the ``pending`` ones.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import netCDF4
import numpy as np
import xarray as xr
import yaml

from frylinks.errors import FrylinksError
from frylinks.io.info import CASE_DIM
from frylinks.io.netcdf import (
    FLUSH_BYTES,
    FLUSH_COST_RATIO,
    FLUSH_SECONDS,
    create,
    define_results,
    replace,
)
from frylinks.io.results import Variable, unit_coordinates

PENDING = "pending"
COMPLETED = "completed"
#: Variables of a sweep besides the run's: per-case status and wall time.
CASE_VARIABLES = {
    "status": ("what became of the case: completed, diverged at t=...: ..., failed: ..., "
               "or pending (not run yet)"),
    "wall_time": "wall time of the case's run on its worker",
}


@dataclass
class CaseOutcome:
    """What a worker sends back for one load case.

    Parameters
    ----------
    index
        The case's position in the sweep.
    status
        ``completed``, ``diverged at t=...: ...``, ``interrupted ...`` or ``failed: ...``.
    times
        Sample times [s]; None if the case failed before running.
    data
        Variable name -> values with ``time`` first (the run's Dataset as arrays).
    labels
        Name coordinates of the case's model (``body``, ``link``, ``force``, ...).
    wall
        Wall time of the case [s].
    """

    index: int
    status: str
    times: np.ndarray | None = None
    data: dict[str, np.ndarray] = field(default_factory=dict)
    labels: dict[str, list[str]] = field(default_factory=dict)
    wall: float = float("nan")


@dataclass
class Layout:
    """The shape of a sweep's results, fixed before the first case runs.

    Parameters
    ----------
    coords
        Name coordinates of the base case's model (dimension -> labels).
    variables
        The run variables (``time`` first) of the base case's model.
    times
        The sweep's time grid [s].
    swept
        Key path -> its value in each case (the coordinates along ``case``).
    units
        Key path -> units of the swept parameter, where known.
    attrs
        Global attributes (the base run's, plus ``sweep``).
    """

    coords: dict[str, Any]
    variables: dict[str, Variable]
    times: np.ndarray
    swept: dict[str, list[Any]]
    units: dict[str, str]
    attrs: dict[str, Any]

    @property
    def nb_cases(self) -> int:
        return len(next(iter(self.swept.values()))) if self.swept else 0

    def shape(self, name: str) -> tuple[int, ...]:
        """Shape of one case's values of ``name``: (time, ...)."""
        dims = self.variables[name].dims
        return (len(self.times), *(len(self.coords[d]) for d in dims[1:]))

    def placement(self, outcome: CaseOutcome) -> tuple[np.ndarray | slice, str | None]:
        """Where the case's samples go on the time grid, or why they cannot go there."""
        if outcome.times is None or not len(outcome.times):
            return slice(0, 0), None
        for dim, labels in outcome.labels.items():
            mine = [str(c) for c in self.coords.get(dim, [])]
            if dim in self.coords and list(labels) != mine:
                return slice(0, 0), (f"its {dim} names ({', '.join(labels)}) are not the "
                                     f"base case's ({', '.join(mine)}): a sweep holds cases "
                                     "of one model")
        tol = 1e-9 * max(1.0, float(self.times[-1]))
        idx = np.searchsorted(self.times, outcome.times - tol)
        idx = np.minimum(idx, len(self.times) - 1)
        if np.any(np.abs(self.times[idx] - outcome.times) > tol):
            return slice(0, 0), "its sample times are not on the sweep's time grid"
        if len(idx) and np.all(np.diff(idx) == 1):
            return slice(int(idx[0]), int(idx[-1]) + 1), None
        return idx, None


def time_grid(grids: Sequence[np.ndarray]) -> np.ndarray:
    """The union of the cases' sample times, times closer than round-off merged."""
    every = np.sort(np.concatenate([np.asarray(g, dtype=float) for g in grids]))
    if not len(every):
        return every
    tol = 1e-9 * max(1.0, float(every[-1]))
    keep = np.concatenate([[True], np.diff(every) > tol])
    return every[keep]


def coordinate_values(values: Sequence[Any]) -> np.ndarray:
    """The values of one swept key as a coordinate: integers, floats, or text (YAML flow
    text for lists and mappings)."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.int64)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=float)
    return np.array([v if isinstance(v, str) else
                     yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("\n...")
                     for v in values], dtype=object)


class SweepStore:
    """The results of a sweep, in a netCDF file (``path``) or in memory (``path`` None).

    Parameters
    ----------
    layout
        The sweep's shape.
    path
        The results file: created now (or taken as it is when ``resume``).
    resume
        Keep the cases already in ``path``.
    """

    def __init__(self, layout: Layout, path: str | Path | None = None,
                 resume: bool = False) -> None:
        self.layout = layout
        self.path = None if path is None else Path(path)
        n = layout.nb_cases
        self.status = np.array([PENDING] * n, dtype=object)
        self.wall = np.full(n, np.nan)
        self._buffer: list[tuple[CaseOutcome, np.ndarray | slice]] = []
        self._bytes = 0
        self._last_flush = time.monotonic()
        self._cost = 0.0
        self._memory: dict[str, np.ndarray] = {}
        if self.path is None:
            self._memory = {name: np.full((n, *layout.shape(name)), np.nan)
                            for name in layout.variables}
        elif resume:
            self.status[:], self.wall[:] = read_status(self.path)
        else:
            create(self.path, self._define)

    def _define(self, ds: netCDF4.Dataset) -> None:
        lay = self.layout
        define_results(ds, lay.coords, lay.variables, lay.attrs, nb_times=len(lay.times),
                       nb_cases=lay.nb_cases)
        ds["time"][:] = lay.times
        # xarray (and CF readers) take the variables this names as coordinates
        ds.setncattr("coordinates", " ".join(lay.swept))
        case = ds.createVariable(CASE_DIM, "i8", (CASE_DIM,))
        case.setncatts({"long_name": "load case number (from 0)"})
        case[:] = np.arange(lay.nb_cases)
        for key, values in lay.swept.items():
            coord = coordinate_values(values)
            var = ds.createVariable(key, str if coord.dtype == object else coord.dtype,
                                    (CASE_DIM,))
            var[:] = coord
            var.setncatts({"long_name": key, **({"units": lay.units[key]}
                                                if key in lay.units else {})})
        status = ds.createVariable("status", str, (CASE_DIM,))
        status.setncatts({"long_name": CASE_VARIABLES["status"]})
        status[:] = self.status
        wall = ds.createVariable("wall_time", "f8", (CASE_DIM,), fill_value=np.nan)
        wall.setncatts({"units": "s", "long_name": CASE_VARIABLES["wall_time"]})

    @property
    def done(self) -> int:
        """Number of cases that ran (whatever became of them)."""
        return int(np.sum(self.status != PENDING))

    def put(self, outcome: CaseOutcome) -> None:
        """Keep one case's outcome; write it (with any buffered) when a write is due."""
        where, problem = self.layout.placement(outcome)
        if problem is not None:
            outcome = CaseOutcome(outcome.index, f"failed: {problem}", wall=outcome.wall)
        self.status[outcome.index] = outcome.status
        self.wall[outcome.index] = outcome.wall
        if self.path is None:
            for name, values in outcome.data.items():
                if name in self._memory:
                    self._memory[name][outcome.index, where] = values
            return
        self._buffer.append((outcome, where))
        self._bytes += sum(v.nbytes for v in outcome.data.values())
        if self._bytes >= FLUSH_BYTES or time.monotonic() - self._last_flush >= max(
                FLUSH_SECONDS, FLUSH_COST_RATIO * self._cost):
            self.flush()

    def flush(self, status: str | None = None) -> None:
        """Write the buffered cases, every case's status and, if given, the sweep's."""
        if self.path is None:
            return
        start = time.monotonic()
        buffered = self._buffer

        def write(ds: netCDF4.Dataset) -> None:
            for outcome, where in buffered:
                for name, values in outcome.data.items():
                    if name in self.layout.variables:
                        ds[name][outcome.index, where] = values
            ds["status"][:] = self.status
            ds["wall_time"][:] = self.wall
            if status is not None:
                ds.setncattr("status", status)

        replace(self.path, write)
        self._buffer, self._bytes = [], 0
        self._last_flush = time.monotonic()
        self._cost = self._last_flush - start

    def close(self, status: str) -> None:
        """Write everything left and the sweep's ``status``."""
        self.flush(status)
        self.layout.attrs["status"] = status

    def dataset(self) -> xr.Dataset:
        """The whole sweep as a Dataset (read back from the file if there is one)."""
        if self.path is not None:
            from frylinks.io.info import open_results

            with open_results(self.path) as ds:
                return ds.load()
        lay = self.layout
        data: dict[str, Any] = {
            name: ((CASE_DIM, *var.dims), self._memory[name],
                   {"units": var.units, "long_name": var.long_name})
            for name, var in lay.variables.items()}
        data["status"] = ((CASE_DIM,), self.status.astype(str),
                          {"long_name": CASE_VARIABLES["status"]})
        data["wall_time"] = ((CASE_DIM,), self.wall,
                             {"units": "s", "long_name": CASE_VARIABLES["wall_time"]})
        coords: dict[str, Any] = {
            "time": ("time", lay.times, {"units": "s", "long_name": "time"}),
            CASE_DIM: (CASE_DIM, np.arange(lay.nb_cases),
                       {"long_name": "load case number (from 0)"}),
            **lay.coords, **unit_coordinates(lay.variables)}
        for key, values in lay.swept.items():
            coords[key] = (CASE_DIM, coordinate_values(values),
                           {"long_name": key, **({"units": lay.units[key]}
                                                 if key in lay.units else {})})
        return xr.Dataset(data, coords=coords, attrs=dict(lay.attrs))


def read_status(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Per-case ``status`` and ``wall_time`` of a sweep's results file."""
    with netCDF4.Dataset(path) as ds:
        return (np.asarray(ds["status"][:], dtype=object),
                np.asarray(ds["wall_time"][:], dtype=float))


def read_attributes(path: Path) -> dict[str, Any]:
    """Global attributes of a results file, or a :class:`FrylinksError` saying why not."""
    if not path.is_file():
        raise FrylinksError(f"cannot resume: no results file '{path}'")
    try:
        with netCDF4.Dataset(path) as ds:
            attrs = {k: ds.getncattr(k) for k in ds.ncattrs()}
            if "status" not in ds.variables or CASE_DIM not in ds.dimensions:
                raise FrylinksError(f"cannot resume from '{path}': it is not the results of "
                                    "a sweep (no case dimension); resume a run with "
                                    "'frylinks run CASE --resume'")
    except OSError as exc:
        raise FrylinksError(f"cannot resume from '{path}': not a readable netCDF file "
                            f"({exc})") from None
    return attrs


def definition(attrs: Mapping[str, Any]) -> Any:
    """The sweep definition stored in a sweep's attributes (None if absent or broken)."""
    try:
        return json.loads(str(attrs.get("sweep", "")))
    except ValueError:
        return None


__all__ = ["CASE_DIM", "COMPLETED", "PENDING", "CaseOutcome", "Layout", "SweepStore",
           "time_grid"]
