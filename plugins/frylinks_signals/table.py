"""Signal ``table``: a measured or precomputed time series read from a CSV or netCDF file.

The series is interpolated linearly and held constant outside its time range, exactly as
``linear_spline`` (they share one kernel, :func:`.interpolation.series_kernel`), so a
long spline can move from the case file to a file without changing the motion.

Files
-----
``file`` is absolute, or relative to the directory of the case file that names it (to
the working directory when the signal is added from Python); it is made absolute when
the signal is added. Its format follows its extension (CSV or netCDF), read by
:func:`frylinks.series.read_series`, whose module gives the rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from frylinks.params import Param
from frylinks.series import read_series

from .interpolation import SeriesSignal


class Table(SeriesSignal):
    """A time series from a file, interpolated linearly, constant outside its range."""

    name = "table"
    parameters = {
        "file": Param("path", "", "CSV or netCDF file: absolute, or relative to the case "
                                  "file (to the working directory in Python)"),
        "column": Param("any", "", "CSV value column: header name or 0-based index "
                                   "(time is column 0)", default=1),
        "variable": Param("any", "", "netCDF variable (optional if the file holds one 1-D "
                                     "variable)", default=None),
    }
    description = ("time series from a CSV or netCDF file (e.g. a measured record), linearly "
                   "interpolated")

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        read_series(params)

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(instances)
        self.series = [read_series(p) for p in instances]
