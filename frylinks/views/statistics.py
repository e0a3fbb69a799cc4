"""Extremes and fatigue of a result variable: what a certifier asks of a tension or a
motion.

**Extremes** of a record ``x(t)`` (a run after its transient, or each case of a sweep):

* its **global peaks**: the largest value between two successive upward crossings of
  its mean, the usual definition for a wave-frequency response; their number per second
  ``nu``, so ``n = nu T`` peaks in a storm of duration ``T`` (3 hours by default);
* the **most probable maximum** (MPM) in ``T``, three ways: the **Rayleigh** closed form
  of a narrow-banded Gaussian response, ``mean + sigma sqrt(2 ln n)``; a two-parameter
  **Weibull** fitted to the upper tail of the peaks about the mean (those above one
  standard deviation, by maximum likelihood conditional on exceeding it; scipy), at
  ``F = 1 - 1/n``; and a **generalized Pareto** tail fitted to the declustered peaks
  over a threshold (pyextremes), whose return value for a return period ``T`` is the
  level exceeded once per storm on average, with its confidence interval (bootstrap).

**Fatigue** of the same record (fatpack's rainflow counting, ASTM E1049's four-point
method, on the record's exact reversals; the residue closed by counting it as repeated,
the record taken as one block of a repeated load history):

* the **damage-equivalent load** ``DEL = (sum_i S_i^m / N_eq)^(1/m)``, the constant
  range that does the damage of the counted ranges ``S_i`` in ``N_eq`` cycles, for an
  S-N slope ``m`` (``N_eq`` by default the record's length in seconds: the 1 Hz DEL, as
  MHKiT's ``loads`` module and IEC 61400-13 give it);
* **Miner's damage** ``D = sum_i S_i^m / K`` for an S-N curve ``N = K S^-m``.

The libraries: fatpack for the rainflow count (a plain, well-tested implementation of
the standard; MHKiT's ``loads`` uses it too), pyextremes for the peaks-over-threshold
analysis (declustering, maximum-likelihood fit of the generalized Pareto distribution,
return values and their bootstrap intervals), scipy for the Weibull tail's likelihood.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from frylinks.errors import FrylinksError

Array = np.ndarray

#: A storm's duration: the extremes' default [s].
STORM = 10800.0
#: The Weibull is fitted to the peaks above the mean plus this many standard deviations.
WEIBULL_SIGMAS = 1.0
#: The threshold of the generalized Pareto fit: the mean plus this many standard
#: deviations, unless given.
THRESHOLD_SIGMAS = 1.5
#: Fewer peaks over the threshold than this, and no generalized Pareto tail is fitted.
MIN_EXCEEDANCES = 20


@dataclass(frozen=True)
class Extremes:
    """The extremes of one record (module doc); levels in the record's units."""

    mean: float
    std: float
    maximum: float
    peaks: int
    peak_rate: float
    mpm_rayleigh: float
    weibull_shape: float
    weibull_scale: float
    mpm_weibull: float
    threshold: float
    exceedances: int
    gpd_shape: float
    gpd_scale: float
    mpm_gpd: float
    mpm_gpd_lower: float
    mpm_gpd_upper: float


@dataclass(frozen=True)
class Fatigue:
    """The fatigue of one record (module doc)."""

    cycles: float
    largest_range: float
    equivalent_cycles: float
    del_: float
    damage: float


def global_peaks(x: Array) -> Array:
    """The largest value of ``x`` between each pair of successive upward crossings of
    its mean (the part before the first crossing and after the last left out)."""
    y = np.asarray(x, dtype=float) - float(np.mean(x))
    up = np.flatnonzero((y[:-1] < 0.0) & (y[1:] >= 0.0)) + 1
    if len(up) < 2:
        return np.zeros(0)
    return np.maximum.reduceat(np.asarray(x, dtype=float)[up[0]:up[-1]], up[:-1] - up[0])


def weibull_tail(peaks: Array, threshold: float) -> tuple[float, float]:
    """Shape and scale of the two-parameter Weibull ``F(x) = 1 - exp(-(x / scale)^shape)``
    fitted by maximum likelihood to the ``peaks`` above ``threshold`` only, as a tail
    of it (conditional on exceeding the threshold): the small peaks of a broad-banded
    record, more frequent than a Rayleigh law has them, do not then bend the tail that
    the maximum is read from. NaN with fewer than 10 such peaks."""
    from scipy import optimize

    z = np.asarray(peaks, dtype=float)
    z = z[z > max(threshold, 0.0)]
    u = max(threshold, 0.0)
    if len(z) < 10:
        return math.nan, math.nan

    def minus_log_likelihood(p: Array) -> float:
        # the simplex may wander to shapes whose powers overflow: those are no optimum
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            k, lam = np.exp(p)
            value = -float(np.sum(np.log(k / lam) + (k - 1.0) * np.log(z / lam)
                                  - (z / lam) ** k) + len(z) * (u / lam) ** k)
        return value if math.isfinite(value) else math.inf

    start = np.array([math.log(2.0), math.log(float(np.mean(z)))])
    best = optimize.minimize(minus_log_likelihood, start, method="Nelder-Mead",
                             options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
    k, lam = np.exp(best.x)
    return float(k), float(lam)


def extremes(x: Array, t: Array, duration: float = STORM, threshold: float | None = None,
             declustering: float | None = None, alpha: float = 0.95,
             samples: int = 200) -> Extremes:
    """The extremes of the record ``x`` at times ``t`` [s] (module doc).

    Parameters
    ----------
    x, t
        The record and its (evenly spaced) times.
    duration
        The storm whose most probable maximum is asked [s].
    threshold
        The generalized Pareto fit's threshold (default: mean + 1.5 std).
    declustering
        Peaks over the threshold closer than this are one cluster, its largest kept
        [s] (default: twice the mean period between upward crossings).
    alpha, samples
        The confidence of the generalized Pareto interval and its bootstrap samples.
    """
    x = np.asarray(x, dtype=float)
    t = np.asarray(t, dtype=float)
    span = float(t[-1] - t[0])
    mean, std = float(np.mean(x)), float(np.std(x))
    peaks = global_peaks(x)
    nan = math.nan
    if len(peaks) < 3 or std == 0.0:
        return Extremes(mean, std, float(np.max(x)), len(peaks), len(peaks) / span, nan,
                        nan, nan, nan, nan, 0, nan, nan, nan, nan, nan)
    rate = len(peaks) / span
    n = rate * duration
    rayleigh = mean + std * math.sqrt(2.0 * math.log(n)) if n > 1 else nan
    shape, scale = weibull_tail(peaks - mean, WEIBULL_SIGMAS * std)
    weibull = mean + scale * math.log(n) ** (1.0 / shape) if n > 1 else nan
    level = mean + THRESHOLD_SIGMAS * std if threshold is None else float(threshold)
    window = 2.0 / rate if declustering is None else float(declustering)
    gpd = _gpd(x, t, level, window, duration, alpha, samples)
    return Extremes(mean, std, float(np.max(x)), len(peaks), rate, rayleigh, float(shape),
                    float(scale), weibull, level, *gpd)


def _gpd(x: Array, t: Array, level: float, window: float, duration: float, alpha: float,
         samples: int) -> tuple[int, float, float, float, float, float]:
    """Peaks over ``level`` declustered over ``window`` [s], a generalized Pareto tail
    fitted by maximum likelihood (pyextremes), and its return value for a return
    period of ``duration`` with the ``alpha`` interval: (exceedances, shape, scale,
    value, lower, upper); NaN where too few peaks exceed."""
    import pandas as pd
    from pyextremes import EVA

    nan = math.nan
    index = pd.Timestamp("2000-01-01") + pd.to_timedelta(t - t[0], unit="s")
    series = pd.Series(x, index=index)
    model = EVA(series)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (pyextremes' notes on the series' spacing)
        model.get_extremes(method="POT", threshold=level, r=pd.to_timedelta(window, unit="s"))
        count = len(model.extremes)
        if count < MIN_EXCEEDANCES:
            return count, nan, nan, nan, nan, nan
        model.fit_model(model="MLE", distribution="genpareto")
        value, lower, upper = model.get_return_value(
            return_period=1.0, return_period_size=pd.to_timedelta(duration, unit="s"),
            alpha=alpha, n_samples=samples)
    fit = model.model.fit_parameters
    return (count, float(fit["c"]), float(fit["scale"]), float(value), float(lower),
            float(upper))


def reversals(x: Array) -> Array:
    """The successive peaks and valleys of ``x``, its ends included: every sample where
    its slope changes sign, exactly (no hysteresis filter: fatpack's own finder sorts the
    values into a few levels first, which would change the ranges)."""
    x = np.asarray(x, dtype=float)
    y = x[np.r_[True, np.diff(x) != 0.0]]
    if len(y) < 3:
        return y
    slope = np.sign(np.diff(y))
    turn = np.flatnonzero(slope[1:] != slope[:-1]) + 1
    return np.concatenate([y[:1], y[turn], y[-1:]])


def fatigue(x: Array, t: Array, slope: float = 3.0, equivalent_cycles: float | None = None,
            sn_k: float | None = None) -> Fatigue:
    """The rainflow count of ``x`` and its damage-equivalent range for the S-N slope
    ``slope`` over ``equivalent_cycles`` (default: the record's length in seconds, the
    1 Hz DEL); Miner's damage for the S-N curve ``N = sn_k S^-slope`` if given (NaN
    otherwise)."""
    import fatpack

    x = np.asarray(x, dtype=float)
    span = float(t[-1] - t[0])
    neq = span if equivalent_cycles is None else float(equivalent_cycles)
    rev = reversals(x)
    if len(rev) < 2:
        return Fatigue(0.0, 0.0, neq, 0.0, 0.0 if sn_k else math.nan)
    # fatpack's four-point count; the residue closed by counting it repeated (the load
    # history taken as one block of a repeated sequence), as find_rainflow_ranges does
    cycles, residue = fatpack.find_rainflow_cycles(rev)
    closed, _ = fatpack.find_rainflow_cycles(fatpack.concatenate_reversals(residue, residue))
    both = np.concatenate([np.reshape(cycles, (-1, 2)), np.reshape(closed, (-1, 2))])
    ranges = np.abs(both[:, 1] - both[:, 0])
    total = float(np.sum(ranges**slope))
    equivalent = (total / neq) ** (1.0 / slope)
    damage = total / sn_k if sn_k else math.nan
    return Fatigue(float(len(ranges)), float(np.max(ranges, initial=0.0)), neq, equivalent,
                   damage)


# --------------------------------------------------------------------- on results

#: The variables :func:`statistics` writes: name -> (units: "x" for the variable's,
#: long name).
EXTREME_VARIABLES = {
    "mean": ("x", "mean over the record"),
    "std": ("x", "standard deviation over the record"),
    "maximum": ("x", "largest value in the record"),
    "peaks": ("1", "global peaks (maxima between upward crossings of the mean)"),
    "peak_rate": ("s-1", "peaks per second"),
    "mpm_rayleigh": ("x", "most probable maximum in the storm, Rayleigh: mean + std "
                          "sqrt(2 ln n)"),
    "weibull_shape": ("1", "shape of the Weibull fitted to the peaks' upper tail (about "
                           "the mean)"),
    "weibull_scale": ("x", "scale of the Weibull fitted to the peaks' upper tail"),
    "mpm_weibull": ("x", "most probable maximum in the storm, Weibull fit of the peaks"),
    "threshold": ("x", "threshold of the generalized Pareto fit"),
    "exceedances": ("1", "declustered peaks over the threshold"),
    "gpd_shape": ("1", "shape of the generalized Pareto tail"),
    "gpd_scale": ("x", "scale of the generalized Pareto tail"),
    "mpm_gpd": ("x", "return value for a return period of the storm, generalized Pareto "
                     "tail (the storm's most probable maximum)"),
    "mpm_gpd_lower": ("x", "lower bound of its confidence interval"),
    "mpm_gpd_upper": ("x", "upper bound of its confidence interval"),
}
FATIGUE_VARIABLES = {
    "cycles": ("1", "rainflow cycles (the residue closed as repeated)"),
    "largest_range": ("x", "largest rainflow range"),
    "equivalent_cycles": ("1", "cycles of the damage-equivalent load"),
    "del_": ("x", "damage-equivalent load (range) for the S-N slope"),
    "damage": ("1", "Miner's damage for the S-N curve N = K S^-m"),
}


def statistics(results: xr.Dataset | str | Path, variable: str,
               select: Mapping[str, Any] | None = None, *, after: float | None = None,
               extreme: bool = True, fatigue_: bool = True, duration: float = STORM,
               threshold: float | None = None, declustering: float | None = None,
               alpha: float = 0.95, slope: float = 3.0,
               equivalent_cycles: float | None = None, sn_k: float | None = None
               ) -> xr.Dataset:
    """Extremes and fatigue of a result variable, one record per remaining coordinate
    (each case of a sweep, each DOF, ...), as a Dataset beside the results.

    Parameters
    ----------
    results
        A results Dataset or file (one run, or a sweep's cases).
    variable, select
        The variable and the coordinates kept (``{"link": "pto", "dof": "tz"}``).
    after
        Leave out the samples before this time (the start-up transient) [s].
    extreme, fatigue_
        Which analyses to make.
    duration, threshold, declustering, alpha
        See :func:`extremes`.
    slope, equivalent_cycles, sn_k
        See :func:`fatigue`.

    Returns
    -------
    xarray.Dataset
        ``<variable>_<statistic>`` for each of :data:`EXTREME_VARIABLES` and
        :data:`FATIGUE_VARIABLES` asked, over the record's other dimensions, with units
        and the analysis' settings in the attributes.
    """
    from frylinks.views.plots import selected

    if isinstance(results, str | Path):
        with xr.open_dataset(results) as ds:
            return statistics(ds.load(), variable, select, after=after, extreme=extreme,
                              fatigue_=fatigue_, duration=duration, threshold=threshold,
                              declustering=declustering, alpha=alpha, slope=slope,
                              equivalent_cycles=equivalent_cycles, sn_k=sn_k)
    if not extreme and not fatigue_:
        raise FrylinksError("ask for the extremes, the fatigue or both")
    for name, value in (("duration", duration), ("slope", slope)):
        if not value > 0:
            raise FrylinksError(f"{name} {value}: expected a number > 0")
    da = selected(results, variable, select)
    if after is not None:
        da = da.sel(time=da.time >= after)
    t = np.asarray(da["time"].values, dtype=float)
    if len(t) < 10:
        raise FrylinksError(f"{variable}: {len(t)} samples after t = {after}: too few for "
                            "statistics")
    others = [d for d in da.dims if d != "time"]
    stacked = da.transpose("time", *others).values.reshape(len(t), -1)
    units = str(da.attrs.get("units", "1"))
    wanted: dict[str, tuple[str, str]] = {}
    if extreme:
        wanted.update(EXTREME_VARIABLES)
    if fatigue_:
        wanted.update(FATIGUE_VARIABLES)
    rows: dict[str, list[float]] = {k: [] for k in wanted}
    for j in range(stacked.shape[1]):
        x = stacked[:, j]
        keep = np.isfinite(x)  # (a case that stopped early: its samples so far)
        if keep.sum() < 10:
            for k in rows:
                rows[k].append(math.nan)
            continue
        if extreme:
            e = extremes(x[keep], t[keep], duration, threshold, declustering, alpha)
            for k in EXTREME_VARIABLES:
                rows[k].append(float(getattr(e, k)))
        if fatigue_:
            f = fatigue(x[keep], t[keep], slope, equivalent_cycles, sn_k)
            for k in FATIGUE_VARIABLES:
                rows[k].append(float(getattr(f, k)))
    shape = [da.sizes[d] for d in others]
    coords: dict[str, Any] = {str(d): da[d] for d in others if d in da.coords}
    for key, coord in da.coords.items():  # (a sweep's swept values along case)
        if str(key) not in coords and set(coord.dims) <= set(others) and coord.dims:
            coords[str(key)] = coord
    out = xr.Dataset(coords=coords)
    for k, (u, text) in wanted.items():
        name = f"{variable}_{k.rstrip('_')}"
        out[name] = (others, np.array(rows[k]).reshape(shape),
                     {"units": units if u == "x" else u, "long_name": f"{variable}: {text}"})
    out.attrs.update({"variable": variable, "after": "none" if after is None else after,
                      "duration": duration, "alpha": alpha, "slope": slope,
                      "sn_k": "none" if sn_k is None else sn_k,
                      "title": f"statistics of {variable}"})
    return out


def describe(ds: xr.Dataset, names: Sequence[str] | None = None) -> str:
    """The statistics ``ds`` as lines of text, a block per record."""
    variable = str(ds.attrs.get("variable", ""))
    names = list(names) if names else [str(n) for n in ds.data_vars]
    stacked = ds[names].to_array("statistic")
    others = [d for d in stacked.dims if d != "statistic"]
    lines = []
    flat = stacked.stack(record=others) if others else stacked.expand_dims("record")
    for j in range(flat.sizes["record"]):
        rec = flat.isel(record=j)
        label = ", ".join(f"{d}={rec[d].values}" for d in others if d in rec.coords)
        lines.append(label or variable)
        for name in names:
            value = float(rec.sel(statistic=name))
            units = str(ds[name].attrs.get("units", ""))
            short = name[len(variable) + 1:] if name.startswith(variable + "_") else name
            lines.append(f"  {short:<18} {value:14.6g} {'' if units == '1' else units}")
    return "\n".join(lines)


__all__ = ["EXTREME_VARIABLES", "FATIGUE_VARIABLES", "STORM", "Extremes", "Fatigue",
           "describe", "extremes", "fatigue", "global_peaks", "statistics"]
