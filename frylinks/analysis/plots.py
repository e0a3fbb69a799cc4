"""Figures of a linear analysis' file for ``frylinks plot``: RAOs (amplitude and phase)
and absorbed powers against the wave period."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import FrylinksError

if TYPE_CHECKING:
    import xarray as xr
    from matplotlib.figure import Figure

#: Most lines one figure draws.
MAX_LINES = 12


def analysis_kind(path: str | Path) -> str | None:
    """``"rao"`` or ``"modes"`` for a linear analysis' file, None otherwise (a run's
    results, or a file that cannot be read: the caller says why)."""
    import xarray as xr

    try:
        with xr.open_dataset(path) as ds:
            kind = ds.attrs.get("analysis")
    except (OSError, ValueError):
        return None
    return str(kind) if kind in ("rao", "modes") else None


def _selected(da: xr.DataArray, select: dict[str, Any], variable: str) -> xr.DataArray:
    for key, value in select.items():
        if key not in da.dims:
            raise FrylinksError(f"{variable} has no dimension {key!r}; its dimensions: "
                                f"{', '.join(map(str, da.dims))}")
        labels = [str(v) for v in da[key].values]
        wanted = [str(v) for v in (value if isinstance(value, list) else [value])]
        missing = [w for w in wanted if w not in labels]
        if missing:
            raise FrylinksError(f"{key}={missing[0]} is not in {variable}; known: "
                                f"{', '.join(labels)}")
        da = da.isel({key: [labels.index(w) for w in wanted]})
    return da


def rao_figure(ds: xr.Dataset, variable: str, select: dict[str, Any]) -> Figure:
    """Amplitude (and phase, for an RAO) of ``variable`` against the wave period, one
    line per remaining combination of heading, body or link and DOF."""
    import matplotlib.pyplot as plt

    if variable not in ds.data_vars:
        raise FrylinksError(f"unknown variable {variable!r}; known: "
                            f"{', '.join(map(str, ds.data_vars))}")
    base = variable.removesuffix("_phase").removesuffix("_amplitude")
    amplitude = f"{base}_amplitude" if f"{base}_amplitude" in ds else variable
    phase = f"{base}_phase" if f"{base}_phase" in ds else None
    da = _selected(ds[amplitude], select, variable)
    others = [d for d in da.dims if d != "omega"]
    stacked = da.stack(line=others) if others else da.expand_dims(line=[0])
    nb = stacked.sizes["line"]
    if nb > MAX_LINES:
        raise FrylinksError(f"{nb} lines to draw; select fewer with --select (e.g. "
                            f"--select dof=tz): at most {MAX_LINES}")
    period = np.asarray(ds["period"].values)
    order = np.argsort(period)
    fig, axes = plt.subplots(2 if phase else 1, 1, sharex=True, squeeze=False,
                             figsize=(7, 6 if phase else 4))
    units = str(ds[amplitude].attrs.get("units", ""))
    for k in range(nb):
        line = stacked.isel(line=k)
        label = ", ".join(f"{line[d].values}" for d in others) if others else None
        axes[0, 0].plot(period[order], np.asarray(line.values)[order], label=label)
        if phase:
            ph = _selected(ds[phase], select, variable).stack(line=others) if others else \
                ds[phase].expand_dims(line=[0])
            axes[1, 0].plot(period[order], np.asarray(ph.isel(line=k).values)[order])
    if units == "1" and "dof_units" in ds.coords:
        units = "per m of wave amplitude (m m-1, rad m-1)"
    axes[0, 0].set_ylabel(f"{ds[amplitude].attrs.get('long_name', amplitude)[:40]}\n[{units}]")
    if phase:
        axes[1, 0].set_ylabel("phase [deg]")
    axes[-1, 0].set_xlabel("wave period [s]")
    if nb > 1:
        axes[0, 0].legend(fontsize="small")
    axes[0, 0].set_title(f"{ds.attrs.get('title', '')}: {base}")
    fig.tight_layout()
    return fig


def analysis_figure(path: str | Path, kind: str, variable: str, select: dict[str, Any]
                    ) -> Figure:
    """The figure of a linear analysis' file (:func:`analysis_kind`)."""
    import xarray as xr

    if kind != "rao":
        raise FrylinksError(f"'{path}' holds modes: 'frylinks modes' prints them as a table; "
                            "plots are drawn of RAO files ('frylinks rao')")
    with xr.open_dataset(path) as ds:
        return rao_figure(ds.load(), variable, select)
