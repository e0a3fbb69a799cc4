"""Figures of results files: ``frylinks plot OUT.nc VAR [--select DIM=VALUE ...]
[--stat STAT] [--after T]``.

A variable is plotted against time, one line per combination of its other
coordinates left after ``select``. The cases of a sweep (``frylinks sweep``) are
summarised over time by a statistic and drawn against the swept parameters: a line
against one, a heat map over two that form a grid (a power matrix). Figures are
drawn on matplotlib's Agg canvas directly (no pyplot): no display is needed, and no
global figure state is kept.
"""

from __future__ import annotations

import itertools
import math
import textwrap
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from frylinks.errors import FrylinksError
from frylinks.io.info import (
    CASE_DIM,
    COMPLETED,
    ELEMENT_SUFFIX,
    UNITS_SUFFIX,
    case_statuses,
    open_results,
    status_counts,
    status_word,
    swept_coordinates,
)
from frylinks.params import did_you_mean

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Most lines on one figure; beyond, the legend is unreadable: narrow with ``select``.
MAX_LINES = 20
#: Legends with more entries go outside the axes, so they do not hide the lines.
LEGEND_INSIDE = 6
#: Characters on one line of the y axis label (a long ``long_name`` is wrapped).
YLABEL_WIDTH = 55
#: At most this many accepted values are listed in an error message.
MAX_LISTED = 20
#: Statistics that summarise each case of a sweep over time (``stat``), as the title
#: names them; ``none`` draws the time series of every case instead.
STATS = {"mean": "mean", "std": "standard deviation", "rms": "rms", "min": "minimum",
         "max": "maximum", "amplitude": "amplitude (half the range)",
         "final": "final value", "none": ""}
#: The statistic of the cases of a sweep when none is given.
DEFAULT_STAT = "mean"
#: At most this many labelled ticks on an axis of swept values (beyond, every k-th).
MAX_TICKS = 12
#: Heat maps with more cells have no text in them: it could not be read (the colorbar
#: gives the values, and the cells of cases not completed stay hatched).
MAX_CELL_TEXTS = 600

#: A selection: dimension (or a coordinate along one, e.g. a swept parameter) -> value,
#: or several values to keep that dimension with only those.
Selection = Mapping[str, Any]

_TRANSLATIONS = ("tx", "ty", "tz")
_ROTATIONS = ("rx", "ry", "rz")


def plot(path: str | Path, variable: str | None, select: Selection | None = None,
         output: str | Path | None = None, *, stat: str | None = None,
         after: float | None = None) -> Path:
    """Plot one variable of a results file and save the figure.

    A run, or one case of a sweep, is drawn against time. The cases of a sweep are
    summarised over time by ``stat`` and drawn against the swept parameters that vary
    among them:

    - none: a line against the case number;
    - one, or several that vary together (a ``--zip`` sweep): a line with markers
      against the first, one per combination of the variable's other dims; the tick
      labels under a zipped axis give the paired values, one per line;
    - two that form a full grid: a heat map, the first parameter on x and the second
      on y, the value written in each cell (the power matrix: mean ``link_power`` of
      one link over wave height and period); the variable must be selected down to
      one value per case;
    - more: an error, select values of some.

    A case whose status is not ``completed`` has no value: a missing point of a line,
    a hatched cell of a heat map with its status word (``failed``, ``diverged``,
    ``pending``) in it, and the title counts such cases.

    Parameters
    ----------
    path
        The results file (netCDF written by ``frylinks run`` or ``frylinks sweep``); it
        may be still being written.
    variable
        A data variable with a ``time`` dimension (``body_position``, ``link_power``);
        of a linear analysis' file, an RAO variable, and None for a modes file (its
        mode shapes are drawn, :func:`frylinks.views.linear_plots.modes_figure`).
    select
        Dimension -> value (``{"body": "buoy", "xyz": "z"}``). A value is matched
        against the coordinate's labels as a string (``"tz"``, ``"pto"``), or as a
        number for numeric coordinates; a list of values keeps several. The key may
        also be a coordinate along one dimension: a swept parameter
        (``{"environment.waves.period": "8"}``) keeps every case with that value, and
        several swept parameters keep the cases that have all the values given.
    output
        The figure file; its extension sets the format (``.png``, ``.pdf``, ``.svg``).
        By default ``<results stem>_<variable>.png`` beside the results file.
    stat
        How each case of a sweep is summarised over time (``--stat``), over its
        finite samples: ``mean`` (the default for a sweep), ``std`` (standard
        deviation), ``rms``, ``min``, ``max``, ``amplitude`` (half the range),
        ``final`` (the last finite sample); or ``none``: no summary, the time series of
        every case, one line each, named by its swept values. Any but ``none`` needs
        several cases left after ``select``.
    after
        Only samples at ``time >= after`` [s] count (``--after``), e.g. to leave the
        transient out of a power matrix; a plot against time starts there. By default
        every sample counts.

    Returns
    -------
    pathlib.Path
        The figure file written.

    Raises
    ------
    FrylinksError
        For a missing or unreadable results file, an unknown variable, dimension or
        value, a variable without a time dimension, nothing or too many lines
        (more than :data:`MAX_LINES`) to plot, an unknown ``stat`` or one given
        without several cases, ``after`` beyond the last sample, swept parameters that
        one figure cannot show (more than two, two that are not a full grid, a heat map
        of several values per case), or a figure file that cannot be written.
    """
    path = Path(path)
    out = Path(output) if output is not None else \
        path.with_name(f"{path.stem}_{variable or 'shapes'}.png")
    # before reading anything
    _check_format(out)
    _check_stat(stat)
    _checked_after(after)
    # read and draw while the file is open (only the selected values are read), then
    # close it before saving, so a run still writing it is held up as little as possible
    from frylinks.views.linear_plots import analysis_figure, analysis_kind

    kind = analysis_kind(path)
    if kind is not None:  # a linear analysis' file: against the wave period
        save(analysis_figure(path, kind, variable, dict(select or {})), out)
        return out
    if variable is None:
        raise FrylinksError(f"name the variable of '{path}' to plot (see 'frylinks info "
                            f"{path}'); only a modes file is drawn without one")
    with open_results(path) as ds:
        fig = make_figure(ds, variable, select, stat=stat, after=after)
    save(fig, out)
    return out


def make_figure(results: xr.Dataset, variable: str, select: Selection | None = None,
                *, stat: str | None = None, after: float | None = None) -> Figure:
    """The figure of one variable (see :func:`plot`), not saved.

    Parameters
    ----------
    results
        Results, in memory (``System.run``) or opened with
        :func:`frylinks.io.info.open_results`.
    variable, select, stat, after
        As in :func:`plot`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes. Against time: time [s] on x, ``long_name [units]`` on y, one line per
        remaining coordinate combination, with a legend naming them (none if every
        dimension but time was selected down to one value). For the cases of a sweep:
        the statistic against the swept parameter (``key path [units]`` on x), or a
        heat map (``pcolormesh``) with a colorbar labelled ``long_name [units]``; NaN
        for the cases not completed. The title names the variable, the selection, the
        statistic and its time window, and how many cases did not complete.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    _check_stat(stat)
    start = _checked_after(after)
    da, statuses = _selected(results, variable, select)
    where = f"{variable}{_selection_text(select)}"
    for dim in _dims(da):
        if da.sizes[dim] == 0:
            raise FrylinksError(f"{variable}: nothing to plot, the results have no {dim}")
    if da.sizes["time"] == 0:
        raise FrylinksError(f"{where}: no finite value to plot (no sample in the file yet)")
    da = _from(da, start)
    several = CASE_DIM in da.dims and da.sizes[CASE_DIM] > 1
    if stat not in (None, "none") and not several:
        what = ("has no case dimension (plot it without --stat)"
                if CASE_DIM not in results[variable].dims else
                "leaves one case (select several, or plot it without --stat)")
        raise FrylinksError(f"--stat summarises the cases of a sweep; {where} {what}")
    not_completed = _not_completed(da, statuses)

    fig = Figure(figsize=(8.0, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if several and stat != "none":
        stat = stat or DEFAULT_STAT
        _draw_summary(fig, ax, da, _words(statuses, da), stat, variable, where,
                      not_completed)
        notes = [_stat_text(stat, start)]
    else:
        _draw_time_series(ax, da, _words(statuses, da), variable, where, not_completed)
        notes = [f"t >= {start:g} s"] if start is not None else []
    heading = f"{str(results.attrs.get('title', '')) or 'results'}: {where}"
    notes += [not_completed] if not_completed else []
    if notes:
        heading += "\n" + "; ".join(notes)
    status = str(results.attrs.get("status", "completed"))
    if status != "completed":
        # a plot of a run that stopped early must not pass for a finished one
        heading += "\n" + textwrap.shorten(status, 90, placeholder=" ...")
    ax.set_title(heading, fontsize="medium")
    return fig


def _draw_time_series(ax: Axes, da: xr.DataArray, words: list[str] | None, variable: str,
                      where: str, not_completed: str) -> None:
    """One line per combination of the dims but time (cases too) against time."""
    others = _dims(da)
    values = np.asarray(da.values, dtype=float)  # reads only the selected values
    # an all-NaN line draws nothing (a case not run, or a file written before plugin
    # outputs had their own element dimension and were NaN on other types' elements)
    lines = [(label, y) for label, y in _lines(da, others, values, words)
             if np.isfinite(y).any()]
    if not lines:
        raise FrylinksError(f"{where}: no finite value to plot"
                            + (f" ({not_completed})" if not_completed else ""))
    _check_lines(len(lines), da, others, where)
    t = np.asarray(da["time"].values, dtype=float)
    for label, y in lines:
        ax.plot(t, y, label=label, linewidth=1.2)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(_ylabel(da, variable))
    ax.grid(True, alpha=0.3)
    if others:
        _legend(ax, ", ".join(others), len(lines))


def _draw_summary(fig: Figure, ax: Axes, da: xr.DataArray, words: list[str] | None,
                  stat: str, variable: str, where: str, not_completed: str) -> None:
    """The statistic of every case against the swept parameters that vary."""
    da = da.transpose("time", CASE_DIM, ...)
    others = [d for d in _dims(da) if d != CASE_DIM]
    values = _statistic(np.asarray(da.values, dtype=float), stat)  # (nb_cases, *others)
    if words is not None:
        # a case that did not complete has no result, whatever it holds until it stopped
        values[np.array([w != COMPLETED for w in words])] = np.nan
    if not np.isfinite(values).any():
        raise FrylinksError(f"{where}: no finite value to plot"
                            + (f" ({not_completed})" if not_completed else ""))
    groups = _varying(da, where)
    if len(groups) == 2:
        _draw_heat_map(fig, ax, da, values, words, groups, others, variable, where)
    else:
        _draw_line(ax, da, values, words, groups, others, variable, where)


def _draw_line(ax: Axes, da: xr.DataArray, values: np.ndarray, words: list[str] | None,
               groups: list[list[str]], others: list[str], variable: str, where: str
               ) -> None:
    """The values of the cases against the swept parameter (or the case number), one
    line per combination of the ``others`` dims."""
    from matplotlib.ticker import MaxNLocator
    from matplotlib.transforms import blended_transform_factory

    n = da.sizes[CASE_DIM]
    axis = _SweptAxis(da, groups[0]) if groups else None
    x = axis.x if axis is not None else np.asarray(da[CASE_DIM].values, dtype=float)
    order = np.argsort(x, kind="stable")
    lines = [(label, y) for label, y in _lines(da, others, values.reshape(n, -1)[order])
             if np.isfinite(y).any()]
    _check_lines(len(lines), da, others, where)
    for label, y in lines:
        # NaN (a case not completed) leaves its point out and breaks the line there
        ax.plot(x[order], y, marker="o", linewidth=1.2, label=label)
    # the status of a missing point is written at its foot, so the gap cannot be missed
    foot = blended_transform_factory(ax.transData, ax.transAxes)
    for k, word in enumerate(words or []):
        if word != COMPLETED:
            ax.text(x[k], 0.02, word, transform=foot, rotation=90, ha="center",
                    va="bottom", fontsize="x-small", color="0.4")
    if axis is None:
        ax.set_xlabel(CASE_DIM)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        ax.set_xlabel(axis.label)
        if len(axis.names) > 1 or not axis.numeric:
            # zipped values under each tick show the pairing; text values have no scale
            _set_ticks(ax.xaxis, axis.positions, axis.ticks)
    ax.set_ylabel(_ylabel(da, variable))
    ax.grid(True, alpha=0.3)
    if others:
        _legend(ax, ", ".join(others), len(lines))


def _draw_heat_map(fig: Figure, ax: Axes, da: xr.DataArray, values: np.ndarray,
                   words: list[str] | None, groups: list[list[str]], others: list[str],
                   variable: str, where: str) -> None:
    """One cell per case over the grid of two swept parameters, its value written in."""
    from matplotlib.patches import Rectangle

    x_name, y_name = groups[0][0], groups[1][0]
    many = [d for d in others if da.sizes[d] > 1]
    if many:
        hint = " ".join(f"--select {d}={_short(da[d].values[0])}" for d in many)
        accepted = "; ".join(f"{d} = {_listed(_legend_labels(da, d))}" for d in many)
        raise FrylinksError(
            f"{where}: a heat map over {x_name} and {y_name} shows one value per case, "
            f"not {' x '.join(str(da.sizes[d]) for d in many)} ({', '.join(many)}); select "
            f"one, e.g. {hint} (accepted: {accepted})")
    n = da.sizes[CASE_DIM]
    x, y = _SweptAxis(da, groups[0]), _SweptAxis(da, groups[1])
    nx, ny = len(x.positions), len(y.positions)
    if n != nx * ny or len(set(zip(x.index.tolist(), y.index.tolist(), strict=True))) != n:
        raise FrylinksError(
            f"{where}: {x_name} and {y_name} do not form a grid over the {n} selected "
            f"cases ({nx} x {ny} values); select one value of either, e.g. --select "
            f"{y_name}={_short(da[y_name].values[0])}")
    grid = np.full((ny, nx), np.nan)
    grid[y.index, x.index] = values.reshape(n)
    word = np.full((ny, nx), COMPLETED, dtype=object)
    if words is not None:
        word[y.index, x.index] = words
    mesh = ax.pcolormesh(np.arange(nx + 1) - 0.5, np.arange(ny + 1) - 0.5,
                         np.ma.masked_invalid(grid), cmap="viridis")
    fig.colorbar(mesh, ax=ax, label=_ylabel(da, variable))
    # the cells are a table to read: the text shrinks with them, to a legible minimum
    size = float(np.clip(min(90.0 / nx, 180.0 / ny), 5.0, 10.0))
    written = nx * ny <= MAX_CELL_TEXTS
    for j, i in itertools.product(range(ny), range(nx)):
        value = grid[j, i]
        if np.isfinite(value):
            red, green, blue, _ = mesh.cmap(mesh.norm(value))
            light = 0.299 * red + 0.587 * green + 0.114 * blue > 0.5
            text, color = f"{value:.3g}", "black" if light else "white"
        else:
            ax.add_patch(Rectangle((i - 0.5, j - 0.5), 1.0, 1.0, fill=False, hatch="//",
                                   edgecolor="0.75", linewidth=0.0))
            text = "no value" if word[j, i] == COMPLETED else str(word[j, i])
            color = "0.2"
        if written:
            ax.text(i, j, text, ha="center", va="center", fontsize=size, color=color)
    _set_ticks(ax.xaxis, np.arange(nx, dtype=float), x.ticks)
    _set_ticks(ax.yaxis, np.arange(ny, dtype=float), y.ticks)
    ax.set_xlabel(x.label)
    ax.set_ylabel(y.label)


class _SweptAxis:
    """Where each case goes along an axis of swept values.

    Parameters
    ----------
    da
        The selected values, with a ``case`` dimension.
    names
        Swept coordinates that vary together along ``case`` (one, or the keys of a
        ``--zip`` sweep); the first places the cases.
    """

    def __init__(self, da: xr.DataArray, names: list[str]) -> None:
        first = np.asarray(da[names[0]].values)
        self.names = names
        self.numeric = first.dtype.kind in "iuf"
        if self.numeric:
            uniques, index = np.unique(first, return_inverse=True)  # ascending
            #: position of every case, shape (nb_cases,): its value, or its rank for text
            self.x = first.astype(float)
            #: positions of the distinct values, in order
            self.positions = uniques.astype(float)
        else:
            # text has no order of its own: the order of the sweep
            _, first_at, inverse = np.unique(first, return_index=True, return_inverse=True)
            index = np.argsort(np.argsort(first_at))[inverse.ravel()]
            self.x = index.astype(float)
            self.positions = np.arange(len(first_at), dtype=float)
        #: rank of every case among the distinct values, shape (nb_cases,)
        self.index = np.asarray(index, dtype=int).ravel()
        at = np.unique(self.index, return_index=True)[1]  # the first case at each
        #: label of every position: the values of ``names`` there, one per line
        self.ticks = ["\n".join(_distinct(da[name].values, i) for name in names)
                      for i in at]
        #: ``key path [units]`` of every name, one per line
        self.label = "\n".join(_coord_label(da, name) for name in names)


def _varying(da: xr.DataArray, where: str) -> list[list[str]]:
    """The swept coordinates that vary among the cases of ``da``, grouped into those
    that vary together: the values of one determine the other's (a ``zip`` sweep's
    keys, even where two cases share a value of one), the group led by the one with
    the most values.

    Raises
    ------
    FrylinksError
        For more than two groups: one figure cannot show them.
    """
    codes: dict[str, np.ndarray] = {}
    for name, coord in da.coords.items():
        if coord.dims == (CASE_DIM,) and name != CASE_DIM:
            code = np.unique(np.asarray(coord.values), return_inverse=True)[1].ravel()
            if code.max(initial=0) > 0:
                codes[str(name)] = code
    groups: list[list[str]] = []
    for name, code in codes.items():
        for group in groups:
            lead = codes[group[0]]
            pairs = len(set(zip(lead.tolist(), code.tolist(), strict=True)))
            if pairs == max(lead.max(), code.max()) + 1:
                if code.max() > lead.max():
                    group.insert(0, name)
                else:
                    group.append(name)
                break
        else:
            groups.append([name])
    if len(groups) > 2:
        last = groups[-1][0]
        raise FrylinksError(
            f"{where}: the selected cases vary in {len(codes)} swept parameters "
            f"({', '.join(codes)}); a figure shows at most two (a heat map): select values "
            f"of the others, e.g. --select {last}={_short(da[last].values[0])}")
    return groups


def _statistic(values: np.ndarray, stat: str) -> np.ndarray:
    """``stat`` of every series of ``values`` over its finite samples; time is axis 0.

    NaN for a series without a finite sample. Infinite samples (a diverging case) do
    not count; NaN ones are no sample at all (after a divergence, or where cases with
    different time steps were put on one time axis).
    """
    values = np.where(np.isfinite(values), values, np.nan)
    if stat == "final":
        finite = np.isfinite(values)
        last = values.shape[0] - 1 - np.argmax(finite[::-1], axis=0)
        final = np.take_along_axis(values, last[np.newaxis], axis=0)[0]
        return np.where(finite.any(axis=0), final, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN series: NaN, as wanted
        if stat == "mean":
            return np.nanmean(values, axis=0)
        if stat == "std":
            return np.nanstd(values, axis=0)
        if stat == "rms":
            return np.sqrt(np.nanmean(values**2, axis=0))
        if stat == "min":
            return np.nanmin(values, axis=0)
        if stat == "max":
            return np.nanmax(values, axis=0)
        if stat == "amplitude":
            return (np.nanmax(values, axis=0) - np.nanmin(values, axis=0)) / 2.0
    raise AssertionError(f"statistic {stat!r} not in STATS")  # _check_stat keeps it out


def _check_stat(stat: str | None) -> None:
    if stat is not None and stat not in STATS:
        raise FrylinksError(f"--stat {stat}: unknown statistic"
                            f"{did_you_mean(str(stat), list(STATS))} "
                            f"(accepted: {', '.join(STATS)})")


def _checked_after(after: float | None) -> float | None:
    if after is None:
        return None
    try:
        start = float(after)
    except (TypeError, ValueError):
        start = math.nan
    if not math.isfinite(start):
        raise FrylinksError(f"--after {after}: expected a time in seconds (a finite number)")
    return start


def _from(da: xr.DataArray, start: float | None) -> xr.DataArray:
    """``da`` from the first sample at ``time >= start`` on."""
    if start is None:
        return da
    t = np.asarray(da["time"].values, dtype=float)
    last = float(t[np.isfinite(t)].max(initial=-math.inf))
    if not start <= last:
        raise FrylinksError(f"--after {start:g}: the results end at t = {last:g} s "
                            f"(accepted: a time up to {last:g} s)")
    keep = np.flatnonzero(t >= start)
    if keep[-1] - keep[0] + 1 == keep.size:  # a slice reads a file in one piece
        return da.isel(time=slice(int(keep[0]), int(keep[-1]) + 1))
    return da.isel(time=keep)


def _stat_text(stat: str, start: float | None) -> str:
    if stat == "final":
        return STATS[stat] + (f" (t >= {start:g} s)" if start is not None else "")
    return STATS[stat] + (f" over t >= {start:g} s" if start is not None else " over time")


def _words(statuses: np.ndarray | None, da: xr.DataArray) -> list[str] | None:
    """Status words of the cases along ``da``'s case dimension (``None``: no statuses
    in the file, or no case dimension left)."""
    if statuses is None or CASE_DIM not in da.dims:
        return None
    return [status_word(str(s)) for s in statuses]


def _not_completed(da: xr.DataArray, statuses: np.ndarray | None) -> str:
    """How many of the selected cases did not complete, for the title (``""``: none)."""
    if statuses is None:
        return ""
    texts = [str(s) for s in np.atleast_1d(statuses)]
    bad = [w for w in map(status_word, texts) if w != COMPLETED]
    if not bad:
        return ""
    if len(texts) == 1:
        number = _short(np.asarray(da[CASE_DIM].values).ravel()[0])
        return f"case {number}: {textwrap.shorten(texts[0], 80, placeholder=' ...')}"
    counts = ", ".join(f"{k} {word}" for word, k in status_counts(bad).items())
    return f"{len(bad)} of {len(texts)} cases not completed ({counts})"


def _legend(ax: Axes, title: str, nb_lines: int) -> None:
    if nb_lines > LEGEND_INSIDE:
        ax.legend(title=title, fontsize="small", loc="upper left",
                  bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(title=title, fontsize="small")


def _set_ticks(axis: Any, positions: np.ndarray, labels: list[str]) -> None:
    step = max(1, math.ceil(len(positions) / MAX_TICKS))
    axis.set_ticks(positions[::step], labels[::step])


def _check_lines(nb_lines: int, da: xr.DataArray, others: list[str], where: str) -> None:
    if nb_lines > MAX_LINES:
        widest = max(others, key=lambda d: da.sizes[d])
        hint = f"--select {widest}={_short(da[widest].values[0])}"
        raise FrylinksError(
            f"{where}: {nb_lines} lines to plot (at most {MAX_LINES}); choose some with "
            f"--select DIM=VALUE, e.g. {hint}")


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
        For an unknown variable, a variable without a time dimension, an unknown
        dimension or value in ``select``, or swept values that no case has together.
    """
    return _selected(results, variable, select)[0]


def _selected(results: xr.Dataset, variable: str, select: Selection | None
              ) -> tuple[xr.DataArray, np.ndarray | None]:
    """:func:`selected`, and the statuses of the selected cases of a sweep (shape
    ``(nb_cases,)``, or ``()`` for one case selected by a single value; ``None``
    without statuses)."""
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
    picks: dict[str, list[int]] = {}
    single: dict[str, bool] = {}
    given: dict[str, list[str]] = {}
    for key, value in (select or {}).items():
        key = str(key)
        dim, labels = _selectable(results, da, variable, key)
        many = isinstance(value, list | tuple)
        text = ",".join(map(str, value)) if many else str(value)
        found = list(dict.fromkeys(i for v in (value if many else [value])
                                   for i in _matches(key, labels, v, variable)))
        if dim in picks:
            # several swept parameters along case: the cases that have all the values
            kept = set(found)
            both = [i for i in picks[dim] if i in kept]
            if not both:
                accepted = list(dict.fromkeys(_short(labels[i]) for i in picks[dim]))
                raise FrylinksError(
                    f"--select {key}={text}: no {dim} of {variable} has it with "
                    f"{' and '.join(given[dim])} (accepted with them: {_listed(accepted)})")
            found = both
        picks[dim] = found
        single[dim] = single.get(dim, True) and not many
        given.setdefault(dim, []).append(f"{key}={text}")
    # one value asked and one entry found: the dimension goes, as with a label
    indexers: dict[str, Any] = {dim: found[0] if single[dim] and len(found) == 1 else found
                                for dim, found in picks.items()}
    statuses = case_statuses(results) if CASE_DIM in da.dims else None
    if statuses is not None and CASE_DIM in indexers:
        statuses = np.asarray(statuses[indexers[CASE_DIM]], dtype=object)
    return da.isel(indexers).transpose("time", ...), statuses


def _selectable(results: xr.Dataset, da: xr.DataArray, variable: str, key: str
                ) -> tuple[str, list[Any]]:
    """The dimension ``key`` selects on and the labels its values are matched against."""
    if key == "time":
        raise FrylinksError(f"--select time: time is the x axis of the plot; select "
                            f"on one of {', '.join(_dims(da)) or 'none'}")
    if key in da.dims:
        return key, list(np.asarray(da[key].values))
    if key == "force":
        # a force type's outputs run over its own elements (<type>_element), which are
        # force elements too: force=NAME picks one of them
        own = [str(d) for d in da.dims if str(d).endswith(ELEMENT_SUFFIX)]
        if len(own) == 1:
            return own[0], list(np.asarray(da[own[0]].values))
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


def _matches(key: str, labels: list[Any], value: Any, variable: str) -> list[int]:
    """Positions of ``value`` among ``labels`` (every case with a swept value): matched as
    a string, else as a number."""
    text = str(value).strip()
    found = [i for i, label in enumerate(labels) if str(label) == text]
    if found:
        return found
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        found = [i for i, label in enumerate(labels)
                 if isinstance(label, int | float | np.number)
                 and np.isclose(float(label), number, rtol=1e-9, atol=0.0)]
        if found:
            return found
    shown = list(dict.fromkeys(_short(v) for v in labels))
    raise FrylinksError(f"--select {key}={text}: no {key} {text!r} in {variable}"
                        f"{did_you_mean(text, shown)} (accepted: {_listed(shown) or 'none'})")


def _listed(items: list[str]) -> str:
    return ", ".join(items[:MAX_LISTED]) + (", ..." if len(items) > MAX_LISTED else "")


def _lines(da: xr.DataArray, others: list[str], values: np.ndarray,
           words: list[str] | None = None) -> list[tuple[str, np.ndarray]]:
    """Label and values of every line: one per combination of the ``others`` dims.

    ``values`` has the samples of a line along axis 0 and the ``others`` dims after
    it, in their order (or flattened); ``words`` are the status words of the cases.
    """
    # C order: column k of the flattened values is the k-th combination of product()
    flat = values.reshape(values.shape[0], -1)
    labels = [_legend_labels(da, d, words) for d in others]
    combos = itertools.product(*(range(len(lab)) for lab in labels))
    return [(", ".join(lab[i] for lab, i in zip(labels, combo, strict=True)) or str(da.name),
             flat[:, k]) for k, combo in enumerate(combos)]


def _legend_labels(da: xr.DataArray, dim: str, words: list[str] | None = None
                   ) -> list[str]:
    if dim != CASE_DIM:
        return [_short(v) for v in np.asarray(da[dim].values)]
    # a case is told by its swept values (those that differ), not by its position
    swept = {str(name): np.asarray(c.values) for name, c in da.coords.items()
             if c.dims == (CASE_DIM,) and name != CASE_DIM}
    swept = {name: v for name, v in swept.items() if len(np.unique(v)) > 1} or swept
    if swept:
        labels = [", ".join(f"{name}={_short(v[i])}" for name, v in swept.items())
                  for i in range(da.sizes[dim])]
    else:
        labels = [_short(v) for v in np.asarray(da[dim].values)]
    if words is not None:
        labels = [label if word == COMPLETED else f"{label} ({word})"
                  for label, word in zip(labels, words, strict=True)]
    return labels


def _short(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    if isinstance(value, bytes):
        return value.decode()
    return str(value)


def _distinct(values: np.ndarray, i: int) -> str:
    """Case ``i``'s value among ``values``; a mapping (a swept force or section, as
    YAML flow text) by the entries in which the cases differ, a ``type`` by its value
    alone (the rest would not fit under a tick)."""
    import yaml

    texts = [_short(v) for v in values]
    if not all(t.startswith("{") for t in texts):
        return texts[i]
    try:
        maps = [yaml.safe_load(t) for t in texts]
    except yaml.YAMLError:
        return texts[i]
    if not all(isinstance(m, dict) for m in maps):
        return texts[i]
    keys = [k for k in dict.fromkeys(k for m in maps for k in m)
            if len({repr(m.get(k)) for m in maps}) > 1]
    keys.sort(key=lambda k: k != "type")
    mine = maps[i]
    shown = [str(mine[k]) if k == "type" else f"{k}: {_tail(mine[k])}" for k in keys
             if k in mine]
    return ",\n".join(shown) or texts[i]


def _tail(value: Any) -> str:
    """A value under a tick: a file path by its name."""
    return value.rsplit("/", 1)[-1] if isinstance(value, str) else str(value)


def _coord_label(da: xr.DataArray, name: str) -> str:
    units = str(da[name].attrs.get("units", ""))
    units = "-" if units == "1" else units
    return f"{name} [{units}]" if units else name


def _ylabel(da: xr.DataArray, variable: str) -> str:
    long_name = str(da.attrs.get("long_name", "")) or variable
    units = _units(da, variable)
    # the results' long names can run to a sentence: wrap rather than clip them, and keep
    # the units in one piece
    lines = textwrap.wrap(long_name, YLABEL_WIDTH) or [variable]
    if units:
        if len(lines[-1]) + len(units) + 3 <= YLABEL_WIDTH:
            lines[-1] += f" [{units}]"
        else:
            lines.append(f"[{units}]")
    return "\n".join(lines)


def _units(da: xr.DataArray, variable: str) -> str:
    """Units of ``da``: of the DOFs selected, for a variable whose DOFs differ in units
    (its coordinate ``<variable>_units``; ``m or rad`` in files written before it)."""
    units = str(da.attrs.get("units", ""))
    per_dof = da.coords.get(f"{variable}{UNITS_SUFFIX}")
    if per_dof is not None:
        dofs = [str(d) for d in np.atleast_1d(da.coords["dof"].values)] \
            if "dof" in da.coords else []
        names = [str(u) for u in np.atleast_1d(per_dof.values)]
        groups: dict[str, list[str]] = {}
        for dof, name in zip(dofs or [""] * len(names), names, strict=True):
            groups.setdefault(name, []).append(dof)
        if len(groups) == 1:
            units = next(iter(groups))
        else:  # several DOFs of different units on one axis: say which is which
            units = "; ".join(f"{' '.join(d)}: {u}" for u, d in groups.items())
    parts = units.split(" or ")
    if len(parts) == 2 and "dof" in da.coords:
        dofs_kept = {str(d) for d in np.atleast_1d(da.coords["dof"].values)}
        if dofs_kept <= set(_TRANSLATIONS):
            units = parts[0]
        elif dofs_kept <= set(_ROTATIONS):
            units = parts[1]
    return "-" if units == "1" else units


def _selection_text(select: Selection | None) -> str:
    if not select:
        return ""
    items = [f"{k}={','.join(map(str, v)) if isinstance(v, list | tuple) else v}"
             for k, v in select.items()]
    return f" ({', '.join(items)})"


__all__ = ["MAX_LINES", "STATS", "make_figure", "parse_select", "plot", "save",
           "selected"]
