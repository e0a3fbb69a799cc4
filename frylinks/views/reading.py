"""Opening a results file for drawing (``frylinks animate`` and ``export``): lazily, so a
3-hour run's window is read alone, with one case of a sweep chosen, and clear errors."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from frylinks.views.scene import SceneError

if TYPE_CHECKING:
    import xarray as xr


@contextmanager
def open_results(path: str | Path, case: int | None = None) -> Iterator[xr.Dataset]:
    """A results file opened lazily (nothing is read until a window is selected).

    Parameters
    ----------
    path
        netCDF results of ``frylinks run`` or ``frylinks sweep``.
    case
        The case of a sweep (its index along ``case``); required for a sweep, refused
        for a single run.

    Raises
    ------
    SceneError
        Naming the file: missing, not netCDF, a sweep without ``case``, a case out of
        range.
    """
    import xarray as xr

    file = Path(path)
    if not file.is_file():
        raise SceneError(f"results file '{file}' not found")
    try:
        ds = xr.open_dataset(file)
    except (OSError, ValueError) as exc:
        raise SceneError(f"cannot read '{file}' as netCDF results: {exc}") from None
    with ds:
        if "case" in ds.dims:
            n = ds.sizes["case"]
            if case is None:
                raise SceneError(f"'{file}' is a sweep of {n} cases: choose one with "
                                 f"--case N (0 to {n - 1})")
            if case >= n:
                raise SceneError(f"--case {case}: '{file}' holds cases 0 to {n - 1}")
            yield ds.isel(case=case)
        else:
            if case is not None:
                raise SceneError(f"--case {case}: '{file}' is a single run, not a sweep")
            yield ds


__all__ = ["open_results"]
