"""Figures of a linear analysis' file for ``frylinks plot``: RAOs (amplitude and phase)
and absorbed powers against the wave period; mode shapes as bars per body and link DOF,
one panel per mode. And its summary for ``frylinks info`` (:func:`describe`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.errors import FrylinksError

if TYPE_CHECKING:
    import xarray as xr
    from matplotlib.figure import Figure

#: Most lines one figure draws.
MAX_LINES = 12
#: Most modes (panels) one figure draws.
MAX_MODES = 12
#: DOFs whose motion (rotations times the length scale) stays below this fraction of a
#: mode's largest in every drawn mode are left out of the bars.
BAR_THRESHOLD = 0.01


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


def _selected(da: Any, select: dict[str, Any], what: str) -> Any:
    """``da`` (a DataArray or a Dataset) at the labels ``select`` gives per dimension;
    an unknown dimension or label is an error naming ``what`` and what it has."""
    for key, value in select.items():
        if key not in da.dims:
            raise FrylinksError(f"{what} has no dimension {key!r}; its dimensions: "
                                f"{', '.join(map(str, da.dims))}")
        labels = [str(v) for v in da[key].values]
        wanted = [str(v) for v in (value if isinstance(value, list) else [value])]
        missing = [w for w in wanted if w not in labels]
        if missing:
            raise FrylinksError(f"{key}={missing[0]} is not in {what}; known: "
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


def modes_figure(ds: xr.Dataset, select: dict[str, Any]) -> Figure:
    """Mode shapes: one panel per mode (``--select mode=0`` keeps some), a bar per body
    DOF and link DOF that moves, its signed amplitude (the sign of ``cos(phase)``: the
    DOFs at 180 degrees go the other way), rotations times the model's length scale so
    that bars in metres and radians compare (labelled ``x L``). The title gives the
    natural period, the damping ratio and the kind of mode."""
    import matplotlib.pyplot as plt

    from frylinks.analysis.modes import weights

    ds = _selected(ds, select, "a modes file")
    nm = ds.sizes["mode"]
    if nm == 0:
        raise FrylinksError("no mode to draw")
    if nm > MAX_MODES:
        raise FrylinksError(f"{nm} modes to draw; select fewer with --select mode=0 "
                            f"--select mode=1 ...: at most {MAX_MODES}")
    weight = weights(ds)
    scale = float(ds.attrs.get("length_scale", 1.0))
    labels: list[str] = []
    values = []
    for prefix in ("body", "link"):
        amp = np.asarray(ds[f"{prefix}_mode_amplitude"].values)      # (mode, n, dof)
        if not amp.size:
            continue
        sign = np.where(np.cos(np.radians(np.asarray(ds[f"{prefix}_mode_phase"].values)))
                        < 0, -1.0, 1.0)
        signed = amp * sign * weight[None, None, :]
        big = np.max(np.abs(signed), axis=(1, 2), keepdims=True)
        moves = np.any(np.abs(signed) > BAR_THRESHOLD * np.where(big > 0, big, 1.0), axis=0)
        names = [str(v) for v in ds[prefix].values]
        dofs = [str(v) for v in ds["dof"].values]
        for i, j in zip(*np.nonzero(moves), strict=True):
            word = "" if prefix == "body" else "link "
            unit = f" x{scale:g}" if j >= 3 else ""
            labels.append(f"{word}{names[i]} {dofs[j]}{unit}")
            values.append(signed[:, i, j])
    cols = min(nm, 3)
    rows = -(-nm // cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False, sharey=True,
                             figsize=(4.2 * cols, 1.2 + 0.28 * max(len(labels), 4) * rows))
    data = np.array(values).reshape(len(labels), nm)
    position = np.arange(len(labels))
    for k in range(rows * cols):
        ax = axes[k // cols, k % cols]
        if k >= nm:
            ax.set_visible(False)
            continue
        m = ds.isel(mode=k)
        colours = ["tab:blue" if v >= 0 else "tab:red" for v in data[:, k]]
        ax.barh(position, data[:, k], color=colours)
        ax.axvline(0.0, color="black", linewidth=0.6)
        ax.set_yticks(position, labels, fontsize="small")
        ax.invert_yaxis()
        ax.set_title(_mode_title(m), fontsize="medium")
        ax.set_xlabel("relative motion [m, rad x L]", fontsize="small")
    fig.suptitle(f"{ds.attrs.get('title', '')}: mode shapes (rotations times the length "
                 f"scale L = {scale:g} m)", fontsize="medium")
    fig.tight_layout()
    return fig


def _mode_title(m: xr.Dataset) -> str:
    period = float(m["natural_period"])
    zeta = float(m["damping_ratio"])
    kind = str(m["mode_kind"].values)
    when = f"T = {period:.4g} s" if np.isfinite(period) else "T = inf"
    damping = f"zeta = {zeta:.3g}" if np.isfinite(zeta) else "zeta -"
    extra = "" if kind == "oscillating" else f" [{kind}]"
    return f"mode {int(m['mode'])}: {when}, {damping}{extra}"


def analysis_figure(path: str | Path, kind: str, variable: str | None,
                    select: dict[str, Any]) -> Figure:
    """The figure of a linear analysis' file (:func:`analysis_kind`): the mode shapes of
    a modes file (``variable`` unused), ``variable`` of an RAO file."""
    import xarray as xr

    with xr.open_dataset(path) as ds:
        if kind == "modes":
            return modes_figure(ds.load(), select)
        if variable is None:
            raise FrylinksError(f"'{path}' holds RAOs: name the variable to plot, e.g. "
                                "body_rao_amplitude or link_power")
        return rao_figure(ds.load(), variable, select)


def describe(path: str | Path) -> str:
    """The summary of a linear analysis' file for ``frylinks info``: what it is, what
    it was linearised about, its modes table or its frequencies and headings, and its
    variables."""
    import xarray as xr

    from frylinks.io.info import aligned, units_text

    with xr.open_dataset(path) as ds:
        ds.load()
    a = ds.attrs
    rows = [("file", str(path)), ("analysis", str(a.get("analysis"))),
            ("frylinks", str(a.get("frylinks_version", "?"))),
            ("linearised about", f"{a.get('linearised_about', '?')} (residual "
                                 f"acceleration {float(a.get('residual_acceleration', 0)):.3g})"),
            ("coordinates", f"{a.get('nb_coordinates', '?')} independent")]
    for dim, label in (("body", "bodies"), ("link", "links"), ("force", "forces")):
        if dim in ds.dims:
            rows.append((label, ", ".join(str(v) for v in ds[dim].values) or "none"))
    extra: list[str] = []
    if a.get("analysis") == "rao":
        period = np.asarray(ds["period"].values)
        rows.append(("periods", f"{ds.sizes['omega']} from {period.min():.4g} to "
                                f"{period.max():.4g} s"))
        rows.append(("headings", ", ".join(f"{h:g}" for h in ds["heading"].values) + " deg"))
        if "wave_height" in a:
            rows.append(("wave height", f"{float(a['wave_height']):g} m"))
        if "drag_linearisation" in a:
            rows.append(("drag", str(a["drag_linearisation"])))
    else:
        from frylinks.analysis.modes import table

        rows.append(("modes", str(ds.sizes["mode"])))
        extra = ["", table(ds)]
    width = max(len(k) for k, _ in rows)
    lines = [str(a.get("title", "")) or "(untitled)"]
    lines += [f"  {k.ljust(width)}  {v}" for k, v in rows]
    lines += extra
    header = ("variable", "dims", "units", "long_name")
    table_rows = [(str(n), ", ".join(map(str, v.dims)), units_text(ds, str(n)),
                   str(v.attrs.get("long_name", ""))) for n, v in ds.data_vars.items()]
    lines += ["", *aligned([header, *table_rows])]
    return "\n".join(lines)
