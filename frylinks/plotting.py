"""Figures of results files: ``frylinks plot OUT.nc VAR [--select DIM=VALUE ...]``.

A variable is plotted against time, one line per combination of its other
coordinates left after ``select``. Figures are drawn on matplotlib's Agg canvas
directly (no pyplot): no display is needed, and no global figure state is kept.
"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from .errors import FrylinksError
from .info import CASE_DIM, open_results, swept_coordinates
from .params import did_you_mean

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Most lines on one figure; beyond, the legend is unreadable: narrow with ``select``.
MAX_LINES = 20
#: Legends with more entries go outside the axes, so they do not hide the lines.
LEGEND_INSIDE = 6
#: Characters on one line of the y axis label (a long ``long_name`` is wrapped).
YLABEL_WIDTH = 55
#: At most this many accepted values are listed in an error message.
MAX_LISTED = 20

#: A selection: dimension (or a coordinate along one, e.g. a swept parameter) -> value,
#: or several values to keep that dimension with only those.
Selection = Mapping[str, Any]

_TRANSLATIONS = ("tx", "ty", "tz")
_ROTATIONS = ("rx", "ry", "rz")


def plot(path: str | Path, variable: str, select: Selection | None = None,
         output: str | Path | None = None) -> Path:
    """Plot one variable of a results file against time and save the figure.

    Parameters
    ----------
    path
        The results file (netCDF written by ``frylinks run``); it may be still being
        written.
    variable
        A data variable with a ``time`` dimension (``body_position``, ``link_power``).
    select
        Dimension -> value (``{"body": "buoy", "xyz": "z"}``). A value is matched
        against the coordinate's labels as a string (``"tz"``, ``"pto"``), or as a
        number for numeric coordinates; a list of values keeps several. The key may
        also be a coordinate along one dimension (a swept parameter along ``case``).
    output
        The figure file; its extension sets the format (``.png``, ``.pdf``, ``.svg``).
        By default ``<results stem>_<variable>.png`` beside the results file.

    Returns
    -------
    pathlib.Path
        The figure file written.

    Raises
    ------
    FrylinksError
        For a missing or unreadable results file, an unknown variable, dimension or
        value, a variable without a time dimension, nothing or too many lines
        (more than :data:`MAX_LINES`) to plot, or a figure file that cannot be written.
    """
    path = Path(path)
    out = Path(output) if output is not None else \
        path.with_name(f"{path.stem}_{variable}.png")
    _check_format(out)  # before reading anything
    # read and draw while the file is open (only the selected values are read), then
    # close it before saving, so a run still writing it is held up as little as possible
    with open_results(path) as ds:
        fig = make_figure(ds, variable, select)
    save(fig, out)
    return out


def make_figure(results: xr.Dataset, variable: str, select: Selection | None = None
                ) -> Figure:
    """The figure of one variable against time (see :func:`plot`), not saved.

    Parameters
    ----------
    results
        Results, in memory (``System.run``) or opened with
        :func:`frylinks.info.open_results`.
    variable, select
        As in :func:`plot`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes: time [s] on x, ``long_name [units]`` on y, one line per remaining
        coordinate combination, with a legend naming them (none if every dimension
        but time was selected down to one value).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    da = selected(results, variable, select)
    title = str(results.attrs.get("title", "")) or "results"
    others = [str(d) for d in da.dims if d != "time"]
    for dim in others:
        if da.sizes[dim] == 0:
            raise FrylinksError(f"{variable}: nothing to plot, the results have no {dim}")
    # an all-NaN line draws nothing (a plugin output on elements of other types)
    lines = [(label, y) for label, y in _lines(da, others)
             if np.isfinite(y).any()]
    if not lines:
        raise FrylinksError(f"{variable}{_selection_text(select)}: no finite value to plot"
                            + (" (no sample in the file yet)" if da.sizes["time"] == 0
                               else ""))
    if len(lines) > MAX_LINES:
        widest = max(others, key=lambda d: da.sizes[d])
        hint = f"--select {widest}={_short(da[widest].values[0])}"
        raise FrylinksError(
            f"{variable}{_selection_text(select)}: {len(lines)} lines to plot (at most "
            f"{MAX_LINES}); choose some with --select DIM=VALUE, e.g. {hint}")

    fig = Figure(figsize=(8.0, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    t = np.asarray(da["time"].values, dtype=float)
    for label, y in lines:
        ax.plot(t, y, label=label, linewidth=1.2)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(_ylabel(da, variable))
    heading = f"{title}: {variable}{_selection_text(select)}"
    status = str(results.attrs.get("status", "completed"))
    if status != "completed":
        # a plot of a run that stopped early must not pass for a finished one
        heading += "\n" + textwrap.shorten(status, 90, placeholder=" ...")
    ax.set_title(heading, fontsize="medium")
    ax.grid(True, alpha=0.3)
    if others:
        legend_title = ", ".join(others)
        if len(lines) > LEGEND_INSIDE:
            ax.legend(title=legend_title, fontsize="small", loc="upper left",
                      bbox_to_anchor=(1.01, 1.0))
        else:
            ax.legend(title=legend_title, fontsize="small")
    return fig


def save(fig: Figure, output: str | Path) -> None:
    """Write ``fig`` to ``output``, in the format its extension names.

    Raises
    ------
    FrylinksError
        For an extension matplotlib does not write, or a file that cannot be written.
    """
    output = Path(output)
    _check_format(output)
    try:
        fig.savefig(output)
    except OSError as exc:
        raise FrylinksError(f"cannot write the figure '{output}': "
                            f"{exc.strerror or exc}") from None


def _check_format(output: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    formats = FigureCanvasAgg.get_supported_filetypes()
    suffix = output.suffix.lower().lstrip(".")
    if suffix not in formats:
        accepted = ", ".join(f".{f}" for f in sorted(formats))
        what = f"unknown format '.{suffix}'" if suffix else "no extension to tell the format"
        raise FrylinksError(f"figure file '{output}': {what} (accepted: {accepted})")


def parse_select(items: Sequence[str]) -> dict[str, str | list[str]]:
    """Read ``--select DIM=VALUE`` options; a dimension given twice keeps both values.

    Parameters
    ----------
    items
        Strings ``DIM=VALUE`` (split at the first ``=``).

    Returns
    -------
    dict
        Dimension -> value, or -> list of values for a dimension given several times.

    Raises
    ------
    FrylinksError
        For an item without ``=``, or with an empty dimension or value.
    """
    out: dict[str, str | list[str]] = {}
    for item in items:
        dim, sep, value = item.partition("=")
        dim, value = dim.strip(), value.strip()
        if not sep or not dim or not value:
            raise FrylinksError(f"--select {item!r}: expected DIM=VALUE, e.g. body=buoy "
                                f"or xyz=z")
        if dim in out:
            previous = out[dim]
            out[dim] = [*(previous if isinstance(previous, list) else [previous]), value]
        else:
            out[dim] = value
    return out


def selected(results: xr.Dataset, variable: str, select: Selection | None = None
             ) -> xr.DataArray:
    """``results[variable]`` with ``select`` applied and ``time`` as its first dimension.

    Raises
    ------
    FrylinksError
        For an unknown variable, a variable without a time dimension, or an unknown
        dimension or value in ``select``.
    """
    names = [str(n) for n in results.data_vars]
    if variable not in results.data_vars:
        raise FrylinksError(f"unknown variable {variable!r}{did_you_mean(variable, names)} "
                            f"(variables: {', '.join(names) or 'none'})")
    da = results[variable]
    # positions stand for the labels of a dimension without coordinate, so that they
    # survive the selection (legend entries keep their place in the file)
    da = da.assign_coords({d: np.arange(da.sizes[d]) for d in da.dims if d not in da.coords})
    if "time" not in da.dims:
        dims = ", ".join(str(d) for d in da.dims) or "none"
        raise FrylinksError(f"{variable} has no time dimension (dims: {dims}): "
                            f"plot draws variables against time")
    indexers: dict[str, Any] = {}
    for key, value in (select or {}).items():
        dim, labels = _selectable(results, da, variable, str(key))
        many = isinstance(value, list | tuple)
        picks = [_index(str(key), labels, v, variable) for v in (value if many else [value])]
        indexers[dim] = list(dict.fromkeys(picks)) if many else picks[0]
    da = da.isel(indexers)
    return da.transpose("time", ...)


def _selectable(results: xr.Dataset, da: xr.DataArray, variable: str, key: str
                ) -> tuple[str, list[Any]]:
    """The dimension ``key`` selects on and the labels its values are matched against."""
    if key == "time":
        raise FrylinksError(f"--select time: time is the x axis of the plot; select "
                            f"on one of {', '.join(_dims(da)) or 'none'}")
    if key in da.dims:
        return key, list(np.asarray(da[key].values))
    coord = results.coords.get(key)
    # a coordinate along one of the variable's dims (a swept parameter along case)
    if coord is not None and coord.ndim == 1 and coord.dims[0] in da.dims \
            and coord.dims[0] != "time":
        return str(coord.dims[0]), list(np.asarray(coord.values))
    accepted = [*_dims(da), *(c for c in swept_coordinates(results) if CASE_DIM in da.dims)]
    raise FrylinksError(f"--select {key}: {variable} has no dimension {key!r}"
                        f"{did_you_mean(key, accepted)} (accepted: "
                        f"{', '.join(accepted) or 'none'})")


def _dims(da: xr.DataArray) -> list[str]:
    return [str(d) for d in da.dims if d != "time"]


def _index(key: str, labels: list[Any], value: Any, variable: str) -> int:
    """Position of ``value`` among ``labels``: as a string, else as a number."""
    text = str(value).strip()
    for i, label in enumerate(labels):
        if str(label) == text:
            return i
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        for i, label in enumerate(labels):
            if isinstance(label, int | float | np.number) and \
                    np.isclose(float(label), number, rtol=1e-9, atol=0.0):
                return i
    shown = [str(v) for v in labels]
    listed = ", ".join(shown[:MAX_LISTED]) + (", ..." if len(shown) > MAX_LISTED else "")
    raise FrylinksError(f"--select {key}={text}: no {key} {text!r} in {variable}"
                        f"{did_you_mean(text, shown)} (accepted: {listed or 'none'})")


def _lines(da: xr.DataArray, others: list[str]
           ) -> list[tuple[str, np.ndarray]]:
    """Label and values of every line: one per combination of the ``others`` dims."""
    values = np.asarray(da.values, dtype=float)  # reads only the selected values
    # C order: column k of the flattened values is the k-th combination of product()
    flat = values.reshape(values.shape[0], int(np.prod(values.shape[1:])))
    labels = [_legend_labels(da, d) for d in others]
    combos = itertools.product(*(range(len(lab)) for lab in labels))
    return [(", ".join(lab[i] for lab, i in zip(labels, combo, strict=True)) or str(da.name),
             flat[:, k]) for k, combo in enumerate(combos)]


def _legend_labels(da: xr.DataArray, dim: str) -> list[str]:
    if dim == CASE_DIM:
        # a case is told by its swept values, not by its position in the sweep
        swept = {str(name): np.asarray(c.values) for name, c in da.coords.items()
                 if c.dims == (CASE_DIM,) and name != CASE_DIM}
        if swept:
            return [", ".join(f"{name}={_short(v[i])}" for name, v in swept.items())
                    for i in range(da.sizes[dim])]
    return [_short(v) for v in np.asarray(da[dim].values)]


def _short(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    return str(value)


def _ylabel(da: xr.DataArray, variable: str) -> str:
    long_name = str(da.attrs.get("long_name", "")) or variable
    units = _units(da)
    # DESIGN §4 long names can run to a sentence: wrap rather than clip them, and keep
    # the units in one piece
    lines = textwrap.wrap(long_name, YLABEL_WIDTH) or [variable]
    if units:
        if len(lines[-1]) + len(units) + 3 <= YLABEL_WIDTH:
            lines[-1] += f" [{units}]"
        else:
            lines.append(f"[{units}]")
    return "\n".join(lines)


def _units(da: xr.DataArray) -> str:
    """Units of ``da``; ``m or rad`` style units resolved when all selected DOFs agree."""
    units = str(da.attrs.get("units", ""))
    parts = units.split(" or ")
    if len(parts) == 2 and "dof" in da.coords:
        dofs = {str(d) for d in np.atleast_1d(da.coords["dof"].values)}
        if dofs <= set(_TRANSLATIONS):
            units = parts[0]
        elif dofs <= set(_ROTATIONS):
            units = parts[1]
    return "-" if units == "1" else units


def _selection_text(select: Selection | None) -> str:
    if not select:
        return ""
    items = [f"{k}={','.join(map(str, v)) if isinstance(v, list | tuple) else v}"
             for k, v in select.items()]
    return f" ({', '.join(items)})"


__all__ = ["MAX_LINES", "make_figure", "parse_select", "plot", "save", "selected"]
