"""Power performance of a wave-energy converter after IEC TS 62600-100 (Ed. 2.0, 2024).

The standard's quantities, over sea states binned by significant wave height ``Hm0``
and energy period ``Te``:

* the **capture width** ``CW = P / J`` [m] of each sea state (the standard's 2024 name for
  the capture length), ``P`` the mean power, ``J`` the omnidirectional wave energy flux;
* its **matrices** over ``Hm0 x Te`` bins: the mean, standard deviation (``N`` degrees
  of freedom, the standard's Formula D.5), count, minimum and maximum of the sea states
  in each bin; the mean energy flux in each; the **power matrix** ``CW_mean J_mean``;
* the **mean annual energy production** ``MAEP = 8766 h sum_bins CW J f`` [Wh], ``f`` the
  site's occurrence of each bin (its **scatter diagram**), and the annual energy of
  each bin;
* the **capture width ratio** ``CW / B``, ``B`` the device's characteristic width.

Where the cases are the scatter diagram's own sea states (representative, clustered
states, one case each), the annual energy is also the weighted sum ``8766 h sum_i f_i
P_i``, with no binning (``maep_sea_states``).

The functions follow MHKiT-Python's ``wave.performance`` (bins given by their centres,
edges half-way between, the first at 0, the last half a bin above the last centre; a
sea state outside every bin is left out) and are tested against it to round-off;
frylinks computes them itself so as not to depend at run time on MHKiT's wave package
(some twenty packages more). The sea states' ``Hm0``, ``Te`` and ``J`` come from the
simulated sea's components (:func:`sea_state`), exactly: ``Hm0 = 4 sqrt(m0)``,
``Te = m_-1 / m0`` (moments in Hz), ``J = rho g sum_c (a_c^2 / 2) c_g,c``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import xarray as xr

from frylinks.errors import ModelError

from .waves import WaveField

Array = np.ndarray

#: Hours in an average year (the standard's, and MHKiT's).
HOURS_PER_YEAR = 8766.0
#: The bin widths the standard allows at most: Hm0 [m], Te [s].
MAX_BINS = (0.5, 1.0)
#: A case is a scatter diagram's sea state when its Hm0 and Te are the state's to this
#: relative tolerance (its sea discretised into components: not exactly).
PAIRED = 0.02
#: The statistics of a capture width matrix the standard asks for (its section 9.2.4).
MATRIX_STATISTICS = ("mean", "std", "count", "min", "max")


def sea_state(waves: WaveField, rho: float, g: float) -> tuple[float, float, float]:
    """``Hm0`` [m], ``Te`` [s] and the omnidirectional energy flux ``J`` [W/m] of a sea of
    Airy components (each its amplitude, frequency and wave number; any depth)."""
    a2 = 0.5 * np.asarray(waves.amplitude, dtype=float) ** 2
    omega = np.asarray(waves.omega, dtype=float)
    k = np.asarray(waves.k, dtype=float)
    m0 = float(np.sum(a2))
    if m0 == 0.0:
        return 0.0, math.nan, 0.0
    f = omega / (2 * math.pi)
    te = float(np.sum(a2 / f)) / m0
    h = waves.depth
    if math.isinf(h):
        group = g / (2 * omega)
    else:
        kh = k * h
        group = omega / k / 2 * (1 + 2 * kh / np.sinh(2 * kh))
    return 4.0 * math.sqrt(m0), te, rho * g * float(np.sum(a2 * group))


def bin_edges(centres: Array) -> Array:
    """Bin edges from their centres, as MHKiT's: half-way between centres, 0 first, half
    a bin above the last."""
    c = np.asarray(centres, dtype=float)
    if c.ndim != 1 or len(c) < 2 or np.any(np.diff(c) <= 0):
        raise ModelError("bin centres: expected at least two, increasing")
    return np.concatenate([[0.0], 0.5 * (c[1:] + c[:-1]), [c[-1] + 0.5 * (c[-1] - c[-2])]])


def performance_matrix(hm0: Array, te: Array, values: Array, statistic: str,
                       hm0_bins: Array, te_bins: Array) -> Array:
    """``statistic`` (one of :data:`MATRIX_STATISTICS`, or ``sum``, ``frequency``) of
    ``values`` over the ``Hm0 x Te`` bins (centres ``hm0_bins``, ``te_bins``): shape
    ``(len(hm0_bins), len(te_bins))``, NaN where a bin is empty (0 for count, sum and
    frequency)."""
    from scipy.stats import binned_statistic_2d

    hm0, te, values = (np.asarray(v, dtype=float) for v in (hm0, te, values))
    func: str | object = statistic
    if statistic == "std":
        def func(a: Array) -> float:  # N degrees of freedom (Formula D.5)
            return math.nan if len(a) == 0 else float(np.std(a, ddof=0))
    elif statistic == "frequency":
        def func(a: Array) -> float:
            return len(a) / len(values)
    elif statistic not in ("mean", "count", "min", "max", "sum", "median"):
        raise ModelError(f"statistic '{statistic}': expected one of mean, std, count, min, "
                         "max, sum, median, frequency")
    result = binned_statistic_2d(hm0, te, values, func,  # type: ignore[arg-type]
                                 bins=[bin_edges(hm0_bins), bin_edges(te_bins)])
    return np.asarray(result.statistic, dtype=float)


def mean_annual_energy(cw_matrix: Array, j_matrix: Array, frequency: Array) -> float:
    """``8766 h sum CW J f`` over the bins [Wh] (NaN bins left out), ``frequency`` the
    occurrence of each bin, summing to 1."""
    f = np.asarray(frequency, dtype=float)
    if not abs(float(np.sum(f)) - 1.0) < 1e-6:
        raise ModelError(f"the occurrences sum to {float(np.sum(f)):.6g}, not 1")
    return HOURS_PER_YEAR * float(np.nansum(np.asarray(cw_matrix) * np.asarray(j_matrix)
                                            * f))


def read_scatter(path: str | Path) -> tuple[Array, Array, Array]:
    """A site's sea states from a table file: ``Hm0`` [m], ``Te`` [s] and their occurrence,
    normalised to sum to 1.

    The file is CSV text, ``#`` lines being comments (the source and licence), with a
    header naming the columns: ``hm0``, ``te`` and one of ``frequency``, ``weight`` or
    ``hours`` (other columns are ignored). A row is a sea state, a bin's centre or a
    representative (clustered) state, binned with the power matrix's bins."""
    p = Path(path)
    try:
        lines = [ln for ln in p.read_text().splitlines() if ln.strip()
                 and not ln.lstrip().startswith("#")]
    except OSError as exc:
        raise ModelError(f"cannot read the scatter diagram '{p}': {exc.strerror or exc}"
                         ) from None
    if not lines:
        raise ModelError(f"scatter diagram '{p}': no header line")
    header = [h.strip().lower() for h in lines[0].split(",")]
    weights = next((w for w in ("frequency", "weight", "hours") if w in header), None)
    missing = [c for c in ("hm0", "te") if c not in header]
    if missing or weights is None:
        raise ModelError(f"scatter diagram '{p}': its header {lines[0]!r} lacks "
                         + ", ".join(missing + ([] if weights else
                                                ["frequency (or weight, hours)"]))
                         + "; expected columns hm0, te and frequency (or weight, hours)")
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        cells = line.split(",")
        try:
            rows.append([float(cells[header.index(c)]) for c in ("hm0", "te", weights)])
        except (ValueError, IndexError):
            raise ModelError(f"scatter diagram '{p}', data line {n}: {line!r} is not "
                             f"{len(header)} numbers") from None
    table = np.array(rows, dtype=float).reshape(-1, 3)
    if len(table) == 0 or np.any(table[:, 2] < 0) or not np.all(np.isfinite(table)):
        raise ModelError(f"scatter diagram '{p}': expected sea states with finite values "
                         "and occurrences >= 0")
    total = float(np.sum(table[:, 2]))
    if total <= 0:
        raise ModelError(f"scatter diagram '{p}': the occurrences sum to 0")
    return table[:, 0], table[:, 1], table[:, 2] / total


def default_bins(values: Array, width: float) -> Array:
    """Bin centres ``(k + 1/2) width`` covering ``values``: bins whose edges fall on
    multiples of ``width``, each ``width`` wide (the first one too)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    top = max(float(v.max(initial=width)), width)
    return width * (np.arange(math.floor(top / width) + 1) + 0.5)


def power_performance(hm0: Array, te: Array, flux: Array, power: Array,
                      electrical: Array | None = None,
                      scatter: tuple[Array, Array, Array] | None = None,
                      hm0_bins: Array | None = None, te_bins: Array | None = None,
                      width: float | None = None) -> xr.Dataset:
    """The standard's power performance of sea states (one per case of a sweep).

    Parameters
    ----------
    hm0, te, flux
        Each sea state's ``Hm0`` [m], ``Te`` [s] and energy flux ``J`` [W/m].
    power, electrical
        Each one's mean absorbed (and electrical) power [W].
    scatter
        A site's sea states and occurrences (:func:`read_scatter`): the annual energy.
    hm0_bins, te_bins
        Bin centres (default: every 0.5 m and 1 s, the widest the standard allows).
    width
        The device's characteristic width [m]: the capture width ratio.
    """
    hm0, te, flux, power = (np.asarray(v, dtype=float) for v in (hm0, te, flux, power))
    hb = default_bins(hm0, MAX_BINS[0]) if hm0_bins is None else np.asarray(hm0_bins, float)
    tb = default_bins(te, MAX_BINS[1]) if te_bins is None else np.asarray(te_bins, float)
    for name, bins, most in (("Hm0", hb, MAX_BINS[0]), ("Te", tb, MAX_BINS[1])):
        wide = np.diff(bin_edges(bins)).max()
        if wide > most + 1e-12:
            import warnings

            warnings.warn(f"{name} bins up to {wide:g} wide, more than the {most:g} IEC TS "
                          "62600-100 allows", UserWarning, stacklevel=2)
    ds = xr.Dataset(coords={"hm0_bin": ("hm0_bin", hb, {"units": "m", "long_name":
                                                         "significant wave height bin centre"}),
                            "te_bin": ("te_bin", tb, {"units": "s", "long_name":
                                                      "energy period bin centre"})})
    ds["hm0"] = ("case", hm0, {"units": "m", "long_name": "significant wave height Hm0 of the "
                                                           "case's sea (4 sqrt(m0))"})
    ds["te"] = ("case", te, {"units": "s", "long_name": "energy period Te = m-1/m0"})
    ds["energy_flux"] = ("case", flux, {"units": "W m-1", "long_name":
                                        "omnidirectional wave energy flux J"})
    kinds = [("", power)] + ([("electrical_", np.asarray(electrical, dtype=float))]
                             if electrical is not None else [])
    occurrence = None
    # the cases are the scatter diagram's own sea states (representative states, one
    # case each, in its order): their weighted sum is the annual energy too, with no
    # binning (a state and its case may fall in neighbouring bins)
    paired = (scatter is not None and len(scatter[0]) == len(hm0)
              and bool(np.allclose(scatter[0], hm0, rtol=PAIRED, atol=0))
              and bool(np.allclose(scatter[1], te, rtol=PAIRED, atol=0)))
    if scatter is not None:
        occurrence = performance_matrix(*scatter, "sum", hb, tb)
        lost = 1.0 - float(np.sum(occurrence))
        ds["occurrence"] = (("hm0_bin", "te_bin"), occurrence,
                            {"units": "1", "long_name": "the site's occurrence of each bin"})
        ds.attrs["occurrence_outside_bins"] = lost
        if lost > 1e-9:
            occurrence = occurrence / float(np.sum(occurrence))
    jm = performance_matrix(hm0, te, flux, "mean", hb, tb)
    ds["energy_flux_matrix"] = (("hm0_bin", "te_bin"), jm,
                                {"units": "W m-1", "long_name": "mean energy flux per bin"})
    for prefix, p in kinds:
        what = "electrical " if prefix else "absorbed "
        cw = p / flux
        ds[f"{prefix}power"] = ("case", p, {"units": "W", "long_name": f"mean {what}power"})
        ds[f"{prefix}capture_width"] = ("case", cw, {"units": "m", "long_name":
                                                     f"capture width P / J ({what}power)"})
        for stat in MATRIX_STATISTICS:
            ds[f"{prefix}capture_width_{stat}"] = (
                ("hm0_bin", "te_bin"), performance_matrix(hm0, te, cw, stat, hb, tb),
                {"units": "1" if stat == "count" else "m",
                 "long_name": f"capture width matrix ({what}power): {stat} per bin"})
        pm = ds[f"{prefix}capture_width_mean"].values * jm
        ds[f"{prefix}power_matrix"] = (("hm0_bin", "te_bin"), pm, {
            "units": "W", "long_name": f"power matrix ({what}): mean capture width x mean "
                                       "energy flux"})
        if width is not None:
            ds[f"{prefix}capture_width_ratio"] = ("case", cw / width, {
                "units": "1", "long_name": f"capture width ratio CW / B ({what}power)"})
        if occurrence is not None:
            energy = HOURS_PER_YEAR * pm * occurrence
            ds[f"{prefix}annual_energy"] = (("hm0_bin", "te_bin"), energy, {
                "units": "W h", "long_name": f"mean annual {what}energy of each bin"})
            ds[f"{prefix}maep"] = ((), mean_annual_energy(ds[f"{prefix}capture_width_mean"]
                                                          .values, jm, occurrence),
                                   {"units": "W h", "long_name": f"mean annual {what}"
                                                                 "energy production"})
            covered = np.isfinite(pm) & (occurrence > 0)
            ds[f"{prefix}coverage"] = ((), float(np.sum(occurrence[covered])), {
                "units": "1", "long_name": "the site's occurrence in bins the cases cover"})
            if paired:
                assert scatter is not None
                ds[f"{prefix}maep_sea_states"] = ((), HOURS_PER_YEAR * float(
                    np.sum(scatter[2] * p)), {
                    "units": "W h", "long_name": f"mean annual {what}energy production, each "
                                                 "case weighted by its sea state's occurrence"})
    ds.attrs["standard"] = "IEC TS 62600-100 Ed. 2.0 (2024)"
    if width is not None:
        ds.attrs["characteristic_width"] = width
    return ds


__all__ = ["HOURS_PER_YEAR", "MATRIX_STATISTICS", "MAX_BINS", "bin_edges", "default_bins",
           "mean_annual_energy", "performance_matrix", "power_performance", "read_scatter",
           "sea_state"]
