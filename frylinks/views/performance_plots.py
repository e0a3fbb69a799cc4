"""The figure of ``frylinks performance``: the power matrix and the annual energy by bin."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

from frylinks.views.plots import save


def performance_figure(ds: xr.Dataset, output: str | Path) -> Path:
    """Heat maps over ``Hm0 x Te`` of the power matrix [kW] and, with a scatter
    diagram, the mean annual energy of each bin [MWh] (electrical where the sweep gives
    it), each cell's value written in; saved to ``output``."""
    from matplotlib.figure import Figure

    prefix = "electrical_" if "electrical_power_matrix" in ds else ""
    panels = [(f"{prefix}power_matrix", 1e-3, "power matrix [kW]")]
    if f"{prefix}annual_energy" in ds:
        panels.append((f"{prefix}annual_energy", 1e-6, "mean annual energy by bin [MWh]"))
    fig = Figure(figsize=(6.5 * len(panels), 5.0), layout="constrained")
    te = ds["te_bin"].values
    hm0 = ds["hm0_bin"].values
    for j, (name, scale, title) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), j + 1)
        values = ds[name].values * scale
        shown = np.ma.masked_invalid(values)
        if np.all(shown.mask):
            shown = np.ma.masked_array(np.zeros_like(values), mask=True)
        mesh = ax.pcolormesh(te, hm0, shown, shading="nearest", cmap="viridis")
        fig.colorbar(mesh, ax=ax)
        for i, h in enumerate(hm0):
            for k, t in enumerate(te):
                if np.isfinite(values[i, k]) and values[i, k] != 0:
                    ax.text(t, h, f"{values[i, k]:.3g}", ha="center", va="center",
                            fontsize=7, color="white")
        ax.set_xlabel("energy period Te [s]")
        ax.set_ylabel("significant wave height Hm0 [m]")
        total = ""
        if name.endswith("annual_energy"):
            total = f": {float(ds[f'{prefix}maep']) / 1e6:.4g} MWh a year"
        ax.set_title(f"{ds.attrs.get('title', '')}\n{title}{total}", fontsize=9)
    path = Path(output)
    save(fig, path)
    return path


__all__ = ["performance_figure"]
