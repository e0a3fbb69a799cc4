"""IEC TS 62600-100 power performance of a sweep's results (``frylinks performance``).

A top-layer module, beside the command line: it reads a sweep's results file, rebuilds
each case's sea from the case text and swept values the file keeps (the marine plugin's
``environment`` setting), and hands plain arrays to the plugin's
:mod:`frylinks_marine.performance`, which holds the standard's quantities.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
import yaml

from frylinks.errors import FrylinksError, ModelError

#: Gravity when a case gives none [m s-2].
GRAVITY = (0.0, 0.0, -9.81)


def sea_states(results: xr.Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Hm0``, ``Te`` and energy flux ``J`` of each case's sea (one value for a single
    run), from the case text and the swept values the results file keeps."""
    from frylinks_marine.environment import Environment
    from frylinks_marine.performance import sea_state

    from frylinks.io.loadcases import Sweep, set_value
    from frylinks.model.system import System

    text = results.attrs.get("case")
    if not text:
        raise FrylinksError("the results file keeps no case text (attribute 'case'): "
                            "its sea states cannot be rebuilt")
    base = yaml.safe_load(str(text)) or {}
    spec = results.attrs.get("sweep")
    if spec:
        given = json.loads(str(spec))
        cases = Sweep(dict(given["set"]), bool(given.get("zip", False))).cases()
    else:
        cases = [{}]
    out = []
    for i, values in enumerate(cases):
        data = copy.deepcopy(base)
        for key, value in values.items():
            set_value(data, key, value)
        env = data.get("environment")
        if not isinstance(env, Mapping) or not env.get("waves"):
            raise FrylinksError(f"case {i}: no waves in its 'environment': no sea state for "
                                "the power performance")
        gravity = np.asarray(data.get("gravity", GRAVITY), dtype=float)
        system = System(gravity=gravity)
        try:
            settings = system.configure("environment", **env)
        except (ModelError, TypeError) as exc:
            raise FrylinksError(f"case {i}: its environment: {exc}") from None
        field = Environment(settings, gravity)
        g = float(np.linalg.norm(gravity)) or 9.81
        out.append(sea_state(field.waves, float(field.rho), g))
    arr = np.array(out, dtype=float).reshape(-1, 3)
    return arr[:, 0], arr[:, 1], arr[:, 2]


def _mean_power(results: xr.Dataset, variable: str, select: Mapping[str, Any] | None,
                after: float | None) -> np.ndarray:
    """The time mean of ``variable`` (what ``select`` keeps) per case, after ``after``."""
    from frylinks.views.plots import selected

    da = selected(results, variable, select)
    if after is not None:
        da = da.sel(time=da.time >= after)
    mean = da.mean("time", skipna=True)
    # one PTO (or link) needs no selection
    mean = mean.squeeze([d for d in mean.dims if d != "case" and mean.sizes[d] == 1])
    extra = [str(d) for d in mean.dims if d != "case"]
    if extra:
        raise FrylinksError(f"{variable}: one value per case is needed, but it still has "
                            f"{', '.join(extra)}: select one, e.g. --select "
                            f"{extra[0]}={mean[extra[0]].values[0]}")
    return np.atleast_1d(np.asarray(mean.values, dtype=float))


def power_performance(results: xr.Dataset | str | Path, power: str = "absorbed_power",
                      select: Mapping[str, Any] | None = None, *,
                      after: float | None = None, electrical: str | None = None,
                      electrical_select: Mapping[str, Any] | None = None,
                      scatter: str | Path | None = None,
                      hm0_bins: np.ndarray | None = None, te_bins: np.ndarray | None = None,
                      width: float | None = None) -> xr.Dataset:
    """The IEC TS 62600-100 power performance of a sweep over sea states.

    Parameters
    ----------
    results
        A sweep's results (Dataset or file): one case per sea state.
    power, select
        The variable of the absorbed power [W] and the coordinates kept: by default
        ``absorbed_power``, every PTO's whatever supplies it (``{"pto": "pto"}`` where the
        model has more than one); its mean after ``after`` is each case's.
    after
        Leave out the samples before this time (the ramp) [s].
    electrical, electrical_select
        The variable of the electrical power, if any (a drivetrain's): by default, with
        ``power`` the shared ``absorbed_power``, the shared ``electrical_power`` where the
        selected PTO has one.
    scatter
        A site's scatter diagram (:func:`frylinks_marine.performance.read_scatter`): the
        annual energy.
    hm0_bins, te_bins
        Bin centres [m], [s] (default every 0.5 m and 1 s).
    width
        The device's characteristic width [m]: the capture width ratio.

    Returns
    -------
    xarray.Dataset
        Per case: ``hm0``, ``te``, ``energy_flux``, ``power``, ``capture_width``; over
        the ``hm0_bin x te_bin`` bins: the capture width matrices (``_mean``, ``_std``,
        ``_count``, ``_min``, ``_max``), ``energy_flux_matrix``, ``power_matrix``; with a
        scatter diagram ``occurrence``, ``annual_energy`` per bin and ``maep`` [W h];
        ``electrical_*`` likewise.
    """
    from frylinks_marine.performance import power_performance as _performance
    from frylinks_marine.performance import read_scatter

    if isinstance(results, str | Path):
        with xr.open_dataset(results) as ds:
            return power_performance(ds.load(), power, select, after=after,
                                     electrical=electrical,
                                     electrical_select=electrical_select, scatter=scatter,
                                     hm0_bins=hm0_bins, te_bins=te_bins, width=width)
    if width is not None and not width > 0:
        raise FrylinksError(f"width {width}: expected a length > 0 [m]")
    hm0, te, flux = sea_states(results)
    p = _mean_power(results, power, select, after)
    e: np.ndarray | None = None
    if electrical is None and power == "absorbed_power" and "electrical_power" in results:
        e = _mean_power(results, "electrical_power", electrical_select or select, after)
        e = None if np.all(np.isnan(e)) else e   # a PTO without a drivetrain
    elif electrical is not None:
        e = _mean_power(results, electrical, electrical_select or select, after)
    try:
        table = None if scatter is None else read_scatter(scatter)
        ds = _performance(hm0, te, flux, p, e, table, hm0_bins, te_bins, width)
    except ModelError as exc:
        raise FrylinksError(str(exc)) from None
    if "case" in results.dims:
        keep = {str(k): v for k, v in results.coords.items()
                if v.dims == ("case",) and str(k) != "case"}
        ds = ds.assign_coords(case=results["case"].values, **keep)
    ds.attrs.update({"power": power, "after": "none" if after is None else after,
                     "title": f"power performance: {results.attrs.get('title', '')}"})
    if scatter is not None:
        ds.attrs["scatter"] = str(scatter)
    return ds


def summary(ds: xr.Dataset) -> str:
    """The power performance as lines of text: a line per case, then the annual
    energy."""
    lines = [f"{'case':>5} {'Hm0 [m]':>8} {'Te [s]':>7} {'J [kW/m]':>9} {'P [kW]':>9} "
             f"{'CW [m]':>7}" + (f" {'P_e [kW]':>9}" if "electrical_power" in ds else "")]
    for i in range(ds.sizes.get("case", 1)):
        row = ds.isel(case=i) if "case" in ds.dims else ds
        line = (f"{i:>5} {float(row.hm0):8.3g} {float(row.te):7.3g} "
                f"{float(row.energy_flux) / 1e3:9.4g} {float(row.power) / 1e3:9.4g} "
                f"{float(row.capture_width):7.3g}")
        if "electrical_power" in ds:
            line += f" {float(row.electrical_power) / 1e3:9.4g}"
        lines.append(line)
    for prefix, what in (("", "absorbed"), ("electrical_", "electrical")):
        if f"{prefix}maep" in ds:
            lines.append(f"mean annual {what} energy: {float(ds[f'{prefix}maep']) / 1e6:.4g} "
                         f"MWh over the Hm0 x Te bins ({100 * float(ds[f'{prefix}coverage']):.1f}"
                         " % of the site's occurrence in bins with a case)")
        if f"{prefix}maep_sea_states" in ds:
            lines.append(f"mean annual {what} energy: "
                         f"{float(ds[f'{prefix}maep_sea_states']) / 1e6:.4g} MWh, each case "
                         "weighted by its sea state's occurrence")
    return "\n".join(lines)


__all__ = ["power_performance", "sea_states", "summary"]
