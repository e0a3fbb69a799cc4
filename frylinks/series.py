"""Reading time series from files: the times and values of a CSV or netCDF table.

Part of the plugin API: a plugin type whose parameters name a file of a time series (the
``table`` signal, a ``record`` sea) reads it with :func:`read_series`, so every such file
follows one set of rules and its errors name the same parameters.

Files
-----
``file`` is absolute, or relative as :func:`frylinks.params.as_path` resolves it (to the
directory of the case file being read, else to the working directory). Its format
follows its extension:

* ``.csv``, ``.txt``, ``.dat``: comma-separated columns (or whitespace-separated when no
  line holds a comma), time [s] in the first column. A first line that is not all
  numbers is a header naming the columns; lines starting with ``#`` are comments.
  ``column`` picks the value column by header name or by 0-based index (time is column
  0; the default is column 1).
* ``.nc``, ``.nc4``, ``.cdf``, ``.netcdf``: the 1-D ``variable`` (which may be omitted
  when the file holds only one 1-D data variable) over a time dimension whose coordinate
  gives the times; time units ``s`` (the default when none are given), ``min``, ``h`` or
  ``d``, or ``<unit> since <date>``, which reads the numbers as offsets in that unit.

A series needs at least one sample, finite numbers and strictly increasing times
(:func:`check_series`).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.params import as_path, shown

Array = np.ndarray

CSV_SUFFIXES = (".csv", ".txt", ".dat")
NETCDF_SUFFIXES = (".nc", ".nc4", ".cdf", ".netcdf")
#: seconds per time unit accepted in a netCDF time coordinate's ``units``
TIME_UNITS = {"s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0, "min": 60.0,
              "minute": 60.0, "minutes": 60.0, "h": 3600.0, "hour": 3600.0, "hours": 3600.0,
              "d": 86400.0, "day": 86400.0, "days": 86400.0}


def check_series(times: Array, values: Array) -> str | None:
    """Why ``(times, values)`` is not a usable series, or None.

    A series needs at least one sample, finite numbers and strictly increasing times.
    """
    if times.ndim != 1 or times.shape != values.shape:
        return "times and values must be two columns of the same length"
    if len(times) < 1:
        return "the series has no sample"
    if not (np.isfinite(times).all() and np.isfinite(values).all()):
        return "the series holds a value that is not a finite number"
    if np.any(np.diff(times) <= 0):
        k = int(np.argmax(np.diff(times) <= 0))
        return (f"times must increase strictly; sample {k + 1} (t = {times[k + 1]:g}) does not "
                f"follow sample {k} (t = {times[k]:g})")
    return None


def read_series(params: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Times [s] and values of a time-series file.

    Parameters
    ----------
    params
        ``file`` (a path), and ``column`` (CSV: header name or 0-based index, default 1)
        or ``variable`` (netCDF: name, default the only 1-D variable): the parameters of
        a ``table`` signal.

    Returns
    -------
    ``(times, values)``, two ``(n,)`` float arrays, times strictly increasing.

    Raises
    ------
    ModelError
        With the offending parameter (``file``, ``column`` or ``variable``) as path.
    """
    path = as_path(params["file"], "file")
    file = str(path)
    suffix = path.suffix.lower()
    if suffix not in CSV_SUFFIXES + NETCDF_SUFFIXES:
        raise ModelError(f"cannot tell the format of '{file}' from its extension; accepted: "
                         f"{', '.join(CSV_SUFFIXES)} (CSV), {', '.join(NETCDF_SUFFIXES)} "
                         "(netCDF)", "file")
    if not path.is_file():
        raise ModelError(f"no such file '{file}'", "file")
    if suffix in CSV_SUFFIXES:
        if params.get("variable") is not None:
            raise ModelError("'variable' is for netCDF files; a CSV file takes 'column'",
                             "variable")
        times, values = _read_csv(path, params.get("column", 1))
    else:
        if params.get("column", 1) != 1:
            raise ModelError("'column' is for CSV files; a netCDF file takes 'variable'",
                             "column")
        times, values = _read_netcdf(path, params.get("variable"))
    problem = check_series(times, values)
    if problem is not None:
        raise ModelError(f"'{file}': {problem}", "file")
    return times, values


def _read_csv(path: Path, column: Any) -> tuple[np.ndarray, np.ndarray]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(f"cannot read '{path}': {exc}", "file") from None
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines())
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise ModelError(f"'{path}' holds no data", "file")
    comma = any("," in line for _, line in lines)
    rows = [(n, [c.strip() for c in (next(csv.reader([line])) if comma else line.split())])
            for n, line in lines]
    header: list[str] | None = None
    if not _numbers(rows[0][1]):
        header = rows[0][1]
        rows = rows[1:]
    if not rows:
        raise ModelError(f"'{path}' has a header but no data", "file")
    width = len(rows[0][1]) if header is None else len(header)
    if isinstance(column, str):
        if header is None or column not in header:
            names = f"columns: {', '.join(header)}" if header else "the file has no header"
            raise ModelError(f"no column named {shown(column)} in '{path}' ({names})", "column")
        index = header.index(column)
    elif isinstance(column, int) and not isinstance(column, bool):
        index = column
    else:
        raise ModelError(f"expected a column name or a 0-based index, got {shown(column)}",
                         "column")
    if not 1 <= index < width:
        raise ModelError(f"column index {index} is not a value column of '{path}' (it has "
                         f"{width} columns; time is column 0)", "column")
    data = np.empty((len(rows), 2))
    for k, (n, cells) in enumerate(rows):
        if len(cells) != width:
            raise ModelError(f"'{path}' line {n}: {len(cells)} columns, expected {width}", "file")
        try:
            data[k] = float(cells[0]), float(cells[index])
        except ValueError:
            raise ModelError(f"'{path}' line {n}: not a number in column 0 or {index}",
                             "file") from None
    return data[:, 0], data[:, 1]


def _numbers(cells: list[str]) -> bool:
    try:
        [float(c) for c in cells]
    except ValueError:
        return False
    return True


def _read_netcdf(path: Path, variable: Any) -> tuple[np.ndarray, np.ndarray]:
    import xarray as xr

    try:
        ds = xr.open_dataset(path, decode_times=False)
    except Exception as exc:  # netCDF4 and h5netcdf raise their own types
        raise ModelError(f"cannot read '{path}' as netCDF: {exc}", "file") from None
    with ds:
        candidates = [str(k) for k, v in ds.data_vars.items() if v.ndim == 1]
        if variable is None:
            if len(candidates) != 1:
                raise ModelError(f"give the variable to read from '{path}' (1-D variables: "
                                 f"{', '.join(candidates) or 'none'})", "variable")
            variable = candidates[0]
        if not isinstance(variable, str) or variable not in ds.variables:
            raise ModelError(f"no variable {shown(variable)} in '{path}' (1-D variables: "
                             f"{', '.join(candidates) or 'none'})", "variable")
        var = ds[variable]
        if var.ndim != 1:
            raise ModelError(f"variable '{variable}' has dimensions {var.dims}; a table "
                             "signal reads a 1-D variable over time", "variable")
        dim = var.dims[0]
        if dim not in ds.coords:
            raise ModelError(f"variable '{variable}' lies over '{dim}', which has no "
                             "coordinate to give the times", "variable")
        time = ds.coords[dim]
        scale = _seconds_per_unit(str(time.attrs.get("units", "s")), path, str(dim))
        return (np.asarray(time.values, dtype=float) * scale,
                np.asarray(var.values, dtype=float))


def _seconds_per_unit(units: str, path: Path, name: str) -> float:
    unit = units.split(" since ")[0].strip().lower()
    if unit not in TIME_UNITS:
        raise ModelError(f"time coordinate '{name}' of '{path}' has units {units!r}; accepted: "
                         "s, min, h, d (or '<unit> since <date>')", "variable")
    return TIME_UNITS[unit]
