"""Sea spectra given as tables: ``S(f)`` and the directional ``S(f, theta)``, as a
metocean report or a spectral wave model gives them.

Units are those of such reports: frequency ``f`` in Hz, the 1-D density ``S(f)`` in
m^2 Hz^-1, the directional density ``S(f, theta)`` in m^2 Hz^-1 rad^-1 (a spectral wave
model's ``efth``) with the directions ``theta`` in degrees, in frylinks' convention:
the direction the waves travel **towards**, from +x about +z (a nautical "coming from,
clockwise from north" direction ``D`` is ``270 - D`` with x east and y north).

frylinks works in angular frequency: ``w = 2 pi f`` and ``S(w) = S(f) / (2 pi)`` [m^2 s
rad^-1], so that ``int S(w) dw = int S(f) df = m0``. Between its points the table is
linear in ``w`` (and in ``f``, the same thing); outside it ``S = 0``. A directional
table is periodic in direction and linear between its directions, across the gap from
the last one round to the first too (a table over a sector should end in zeros).

netCDF files (``.nc``, ``.nc4``, ``.cdf``, ``.netcdf``): a variable over the dimension
``frequency`` (coordinate in Hz), or over ``frequency`` and ``direction`` (coordinate in
degrees), in that order; ``variable`` names it where the file holds several. Other units
of the coordinates (``rad s-1``, ``rad``) are converted.

CSV files: comment lines start with ``#``. A 1-D table has two columns, frequency and
density, under an optional header line of names. A directional table's first line is
its directions: a label cell (any text, or empty), then one direction per column; each
following line is a frequency and the densities at those directions.
"""

from __future__ import annotations

import csv
import math
import reprlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from frylinks.errors import ModelError
from frylinks.params import as_path

FloatArray = npt.NDArray[np.float64]

#: Keys of a table given in a case file (``table: {...}``).
TABLE_KEYS = ("file", "variable", "frequency_hz", "density", "direction_deg")
#: File name endings read as netCDF (others as CSV).
NETCDF_SUFFIXES = (".nc", ".nc4", ".cdf", ".netcdf")
#: Accepted units of a netCDF table's coordinates and their factor to Hz / degrees.
_FREQUENCY_UNITS = {"hz": 1.0, "s-1": 1.0, "1/s": 1.0, "s**-1": 1.0,
                    "rad s-1": 0.5 / math.pi, "rad/s": 0.5 / math.pi}
_DIRECTION_UNITS = {"degree": 1.0, "degrees": 1.0, "deg": 1.0, "rad": 180.0 / math.pi,
                    "radian": 180.0 / math.pi, "radians": 180.0 / math.pi}


def _array(value: Any, path: str, ndim: int) -> FloatArray:
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        arr = np.zeros((0,) * (ndim + 1))
    if arr.ndim != ndim or arr.size == 0 or not np.isfinite(arr).all():
        what = "a list of numbers" if ndim == 1 else "a list of rows of numbers"
        raise ModelError(f"expected {what}, got {reprlib.repr(value)}", path)
    return arr


class SpectrumTable:
    """A sea spectrum given at points: ``S(f)`` or ``S(f, theta)``.

    Parameters
    ----------
    frequency_hz
        Frequencies ``f`` [Hz], shape ``(nf,)``, ``nf >= 2``, increasing, ``>= 0``.
    density
        ``S(f)`` [m^2 Hz^-1], shape ``(nf,)``, or ``S(f, theta)`` [m^2 Hz^-1 rad^-1],
        shape ``(nf, nd)``; ``>= 0``, not all zero.
    direction_deg
        Directions ``theta`` [deg] of a directional table, shape ``(nd,)``, increasing,
        spanning less than 360; None for a 1-D table.

    Attributes
    ----------
    omega : numpy.ndarray
        ``2 pi f`` [rad/s], shape ``(nf,)``.
    density_omega : numpy.ndarray
        ``S(w) = S(f) / (2 pi)`` [m^2 s rad^-1], shape ``(nf,)`` (a directional table's
        integrated over direction).
    direction : numpy.ndarray or None
        Directions [rad], shape ``(nd,)``.
    directional : numpy.ndarray or None
        ``S(f, theta)`` [m^2 Hz^-1 rad^-1], shape ``(nf, nd)``.

    Raises
    ------
    ModelError
        Naming the key at fault (``frequency_hz``, ``density``, ``direction_deg``).
    """

    def __init__(self, frequency_hz: npt.ArrayLike, density: npt.ArrayLike,
                 direction_deg: npt.ArrayLike | None = None) -> None:
        f = _array(frequency_hz, "frequency_hz", 1)
        if f.size < 2 or (f < 0.0).any() or (np.diff(f) <= 0.0).any():
            raise ModelError(f"expected at least 2 increasing frequencies >= 0 [Hz], got "
                             f"{reprlib.repr(frequency_hz)}", "frequency_hz")
        self.direction: FloatArray | None = None
        self.directional: FloatArray | None = None
        if direction_deg is None:
            s = _array(density, "density", 1)
            if s.shape != f.shape:
                raise ModelError(f"expected {f.size} densities [m^2 Hz^-1], one per frequency, "
                                 f"got {s.size}", "density")
        else:
            theta = _array(direction_deg, "direction_deg", 1)
            if (np.diff(theta) <= 0.0).any() or theta[-1] - theta[0] >= 360.0:
                raise ModelError(f"expected increasing directions [deg] spanning less than "
                                 f"360, got {reprlib.repr(direction_deg)}", "direction_deg")
            grid = _array(density, "density", 2)
            if grid.shape != (f.size, theta.size):
                raise ModelError(f"expected {f.size} rows (frequencies) of {theta.size} "
                                 f"densities (directions) [m^2 Hz^-1 rad^-1], got shape "
                                 f"{grid.shape}", "density")
            if (grid < 0.0).any():
                raise ModelError("expected densities >= 0", "density")
            self.direction = np.radians(theta)
            self.directional = grid
            s = self._around(grid)[1]
        if (s < 0.0).any():
            raise ModelError("expected densities >= 0", "density")
        if not (s > 0.0).any():
            raise ModelError("the table holds no energy: every density is 0", "density")
        self.frequency_hz = f
        self.omega = 2.0 * math.pi * f
        self.density_omega = s / (2.0 * math.pi)

    def _around(self, grid: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Cumulative integral over direction of each row (``(nf, nd + 1)``, the last
        column the gap closed back to the first direction) and its total ``(nf,)``."""
        assert self.direction is not None
        theta = np.append(self.direction, self.direction[0] + 2.0 * math.pi)
        rows = np.concatenate((grid, grid[:, :1]), axis=1)
        steps = 0.5 * (rows[:, 1:] + rows[:, :-1]) * np.diff(theta)
        cum = np.concatenate((np.zeros((grid.shape[0], 1)), np.cumsum(steps, axis=1)), axis=1)
        return cum, cum[:, -1]

    # ------------------------------------------------------------------ readers

    @classmethod
    def read_csv(cls, path: str | Path) -> SpectrumTable:
        """The table of a CSV file (module docstring). Errors have the path ``file``."""
        p = Path(path)
        try:
            with p.open(newline="") as stream:
                rows = [r for r in csv.reader(stream)
                        if r and any(c.strip() for c in r) and not r[0].lstrip().startswith("#")]
        except OSError as exc:
            raise ModelError(f"cannot read the spectrum table '{p}': {exc.strerror or exc}",
                             "file") from None
        try:
            head = rows[0]
            numeric = [_is_number(c) for c in head]
            if len(head) > 2 and not numeric[0] and all(numeric[1:]):
                data = np.array([[float(c) for c in r] for r in rows[1:]])
                return cls(data[:, 0], data[:, 1:], [float(c) for c in head[1:]])
            body = rows if all(numeric) else rows[1:]
            data = np.array([[float(c) for c in r[:2]] for r in body])
            if data.ndim != 2 or data.shape[1] != 2:
                raise ValueError("expected two columns")
            return cls(data[:, 0], data[:, 1])
        except ModelError as exc:
            raise ModelError(f"spectrum table '{p}': {exc}", "file") from None
        except (IndexError, ValueError) as exc:
            raise ModelError(f"spectrum table '{p}' is not a table of numbers (two columns "
                             f"f [Hz], S [m^2 Hz^-1], or a grid under a line of directions "
                             f"[deg]): {exc}", "file") from None

    @classmethod
    def read_netcdf(cls, path: str | Path, variable: str | None = None) -> SpectrumTable:
        """The table of a netCDF file (module docstring). Errors have the path ``file``
        or ``variable``."""
        import xarray as xr

        p = Path(path)
        try:
            ds = xr.open_dataset(p, decode_times=False)
        except Exception as exc:  # netCDF4 and h5netcdf raise their own types
            raise ModelError(f"cannot read the spectrum table '{p}' as netCDF: {exc}",
                             "file") from None
        with ds:
            ok = [str(k) for k, v in ds.data_vars.items()
                  if v.dims in (("frequency",), ("frequency", "direction"))]
            if variable is None:
                if len(ok) != 1:
                    raise ModelError(f"give the variable to read from '{p}' (variables over "
                                     f"(frequency[, direction]): {', '.join(ok) or 'none'})",
                                     "variable")
                variable = ok[0]
            if variable not in ok:
                raise ModelError(f"no variable {variable!r} over (frequency[, direction]) in "
                                 f"'{p}' (those there: {', '.join(ok) or 'none'})", "variable")
            var = ds[variable]
            coords = []
            for dim, units in zip(var.dims, (_FREQUENCY_UNITS, _DIRECTION_UNITS), strict=False):
                if dim not in ds.coords:
                    raise ModelError(f"'{p}' has no coordinate '{dim}'", "file")
                given = str(ds.coords[dim].attrs.get("units", "Hz" if units is _FREQUENCY_UNITS
                                                           else "degree"))
                if given.strip().lower() not in units:
                    raise ModelError(f"coordinate '{dim}' of '{p}' has units {given!r}; "
                                     f"accepted: {', '.join(units)}", "file")
                coords.append(np.asarray(ds.coords[dim].values, dtype=float)
                              * units[given.strip().lower()])
            values = np.asarray(var.values, dtype=float)
        try:
            return cls(coords[0], values, coords[1] if len(coords) == 2 else None)
        except ModelError as exc:
            raise ModelError(f"spectrum table '{p}': {exc}", "file") from None

    @classmethod
    def from_mapping(cls, value: Any) -> SpectrumTable:
        """The table of a case file's ``table`` mapping: ``{file: ...[, variable: ...]}`` or
        ``{frequency_hz: [...], density: [...], direction_deg: [...]}`` (the last for a
        directional table, ``density`` then a list of rows). Errors have paths under
        ``table``."""
        try:
            if not isinstance(value, Mapping):
                raise ModelError(f"expected {{file: ...}} or {{frequency_hz: [...], density: "
                                 f"[...]}}, got {reprlib.repr(value)}", "")
            for key in value:
                if key not in TABLE_KEYS:
                    raise ModelError(f"unknown key {key!r} (accepted: "
                                     f"{', '.join(TABLE_KEYS)})", str(key))
            if "file" in value:
                if not set(value) <= {"file", "variable"}:
                    raise ModelError("give either a file or the lists frequency_hz and "
                                     "density, not both", "file")
                path = as_path(value["file"], "file")
                if path.suffix.lower() in NETCDF_SUFFIXES:
                    return cls.read_netcdf(path, value.get("variable"))
                if "variable" in value:
                    raise ModelError("'variable' is for a netCDF file", "variable")
                return cls.read_csv(path)
            for key in ("frequency_hz", "density"):
                if key not in value:
                    raise ModelError("missing required key (a table needs frequency_hz "
                                     "[Hz] and density, or a file)", key)
            return cls(value["frequency_hz"], value["density"], value.get("direction_deg"))
        except ModelError as exc:
            raise exc.under("table") from None

    # ---------------------------------------------------------------- the spectrum

    def __call__(self, omega: npt.ArrayLike) -> FloatArray:
        """``S(w)`` [m^2 s rad^-1] at ``omega`` [rad/s] (any shape), 0 outside the table."""
        out: FloatArray = np.interp(np.asarray(omega, dtype=float), self.omega,
                                    self.density_omega, left=0.0, right=0.0)
        return out

    @property
    def m0(self) -> float:
        """Zeroth moment [m^2] of the table, exact for its piecewise-linear ``S``."""
        s = self.density_omega
        return float(np.sum(0.5 * (s[1:] + s[:-1]) * np.diff(self.omega)))

    def bounds(self) -> tuple[float, float]:
        """The frequency range [rad/s] the table's energy lies in: from the last zero
        before its first positive density to the first zero after its last one."""
        pos = np.flatnonzero(self.density_omega > 0.0)
        lo, hi = max(pos[0] - 1, 0), min(pos[-1] + 1, self.omega.size - 1)
        return float(self.omega[lo]), float(self.omega[hi])

    def sample_directions(self, omega: npt.ArrayLike, u: npt.ArrayLike) -> FloatArray:
        """Directions [rad] drawn from a directional table's ``D(theta | w)``.

        The table's rows are interpolated linearly in frequency to each ``omega``; the
        direction is where that row's cumulative distribution over the circle reaches
        ``u`` (linear between the table's directions).

        Parameters
        ----------
        omega, u
            Frequencies [rad/s] and numbers in ``[0, 1]``, shape ``(n,)``.
        """
        if self.direction is None or self.directional is None:
            raise ValueError("a 1-D spectrum table has no directions")
        w = np.asarray(omega, dtype=float)
        cum = self._around(self.directional)[0]
        at = np.array([np.interp(w, self.omega, c) for c in cum.T]).T  # (n, nd + 1)
        theta = np.append(self.direction, self.direction[0] + 2.0 * math.pi)
        out = np.empty(w.size)
        for i, (row, x) in enumerate(zip(at, np.asarray(u, dtype=float), strict=True)):
            out[i] = np.interp(x * row[-1], row, theta) if row[-1] > 0.0 else theta[0]
        return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


__all__ = ["TABLE_KEYS", "SpectrumTable"]
