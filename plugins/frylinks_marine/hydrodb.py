"""Hydrodynamic database of a floating body: frequency-domain coefficients from Capytaine
in frylinks' conventions, the radiation impulse response, and its state-space form.

Conventions
-----------
frylinks and Capytaine (3.0) share every convention below, so the reader converts
nothing but the DOF names and order (verified against Capytaine's user manual,
"Conventions and differences to other codes",
https://capytaine.github.io/stable/user_manual/conventions.html, and the incident-wave
code of Capytaine 3.0.0, ``capytaine/bem/airy_waves.py``; the tests check the long-wave
heave excitation is the wave crest's hydrostatic push, in phase):

- Axes right-handed, z up, origin on the still-water level.
- Heading ``beta`` [rad] is the direction the waves travel towards, ``(cos beta,
  sin beta)``: 0 is a wave travelling towards +x. It is Capytaine's ``wave_direction``.
- Phasors: ``x(t) = Re(X exp(-i omega t))``. Capytaine's incident potential in deep
  water is ``Phi_0 = -i g/omega exp(k z) exp(i k (x cos beta + y sin beta))``, so the
  elevation ``-1/g dPhi/dt`` at ``z = 0`` is ``Re(exp(i k (x cos beta + y sin beta))
  exp(-i omega t))``: a wave of complex amplitude ``a`` has the elevation
  ``Re(a exp(-i omega t))`` at the origin, and its excitation force is
  ``Re(a X(omega, beta) exp(-i omega t))`` with ``X`` the database's excitation (per
  unit amplitude, diffraction + Froude-Krylov). (WAMIT and OrcaWave use
  ``exp(+i omega t)``: their excitation is the complex conjugate.)
- DOFs ``surge, sway, heave`` [m] and ``roll, pitch, yaw`` [rad], small rotations about
  a reference point, world-aligned axes; generalised forces are the force and the
  moment about that point. Capytaine's rotational DOFs turn about the body's
  ``rotation_center``; the database records it (:attr:`HydroDatabase.rotation_center`)
  and, since frylinks applies coefficients about the centre of gravity
  (:mod:`frylinks_marine.dofs`), :func:`read_capytaine` moves them there when the COG
  is known and differs (:func:`moved_coefficients`, :func:`moved_loads`).

Radiation in the time domain (Cummins): the radiation force is
``-A_inf xi'' - int_0^t K(t - s) xi'(s) ds`` with ``K(t) = 2/pi int_0^inf B(w) cos(w t)
dw`` (:func:`impulse_response`); :class:`RadiationStateSpace` replaces the convolution
by a linear system ``z' = A z + B xi'``, ``int K xi' ~ C z``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from frylinks.errors import ModelError
from frylinks_marine.radiation import (
    RadiationStateSpace,
    impulse_response,
    ogilvie_added_mass_inf,
    radiation_kernel,
)

__all__ = [
    "DOF_NAMES",
    "HydroDatabase",
    "RadiationStateSpace",
    "impulse_response",
    "moved_coefficients",
    "moved_loads",
    "ogilvie_added_mass_inf",
    "radiation_kernel",
    "read_capytaine",
    "transform_matrix",
]

Array = np.ndarray

#: frylinks' DOF order.
DOF_NAMES = ("surge", "sway", "heave", "roll", "pitch", "yaw")

#: Capytaine's frequency dimensions (one of them indexes the coefficients).
_FREQUENCY_DIMS = ("omega", "freq", "period", "wavenumber", "wavelength")

#: Two headings closer than this [rad] are the same heading.
_HEADING_TOL = 1e-6


# --------------------------------------------------------------------------------------
# Reference point
# --------------------------------------------------------------------------------------

def _skew(r: Array) -> Array:
    x, y, z = r
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def transform_matrix(from_point: Any, to_point: Any) -> Array:
    """``T (6, 6)`` with ``xi_from = T xi_to`` for small rigid-body motions.

    A motion described at ``to_point`` (translation of that point, rotation vector) is
    the same motion described at ``from_point`` through ``T``; generalised forces go the
    other way, ``F_to = T.T F_from`` (the moment picks up ``r x f``).
    """
    r = np.asarray(from_point, dtype=float) - np.asarray(to_point, dtype=float)
    t = np.eye(6)
    t[:3, 3:] = -_skew(r)
    return t


def moved_coefficients(matrix: Array, from_point: Any, to_point: Any) -> Array:
    """6x6 coefficients about ``from_point`` re-expressed about ``to_point``.

    Parameters
    ----------
    matrix
        ``(..., 6, 6)``: added mass, damping, inertia, hydrostatic stiffness.
    from_point, to_point
        ``(3,)`` [m].

    Returns
    -------
    ``T.T @ matrix @ T`` with ``T = transform_matrix(from_point, to_point)``. Exact for
    coefficients of velocities and accelerations; for a stiffness it is exact when the
    body is in equilibrium (zero net force and moment), the state frylinks linearises
    about, because the terms a change of point adds are proportional to the net load.
    """
    t = transform_matrix(from_point, to_point)
    return np.einsum("ki,...kl,lj->...ij", t, np.asarray(matrix), t)


def moved_loads(vector: Array, from_point: Any, to_point: Any) -> Array:
    """Force and moment 6-vectors ``(..., 6)`` about ``from_point`` re-expressed about
    ``to_point`` (``T.T @ vector``); complex excitation phasors too."""
    t = transform_matrix(from_point, to_point)
    return np.einsum("ki,...k->...i", t, np.asarray(vector))


# --------------------------------------------------------------------------------------
# The database
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class HydroDatabase:
    """Frequency-domain hydrodynamic coefficients of one rigid body.

    DOFs in the order of :data:`DOF_NAMES`; rotations and moments about
    :attr:`rotation_center` (see the module docstring for every convention).

    Attributes
    ----------
    omega
        ``(nw,)`` angular frequencies [rad/s], finite, strictly ascending, >= 0.
    added_mass
        ``(nw, 6, 6)`` [kg, kg m, kg m^2]; entry ``[k, i, j]`` is the force on DOF ``i``
        per acceleration of DOF ``j``.
    radiation_damping
        ``(nw, 6, 6)`` [kg/s, kg m/s, kg m^2/s].
    excitation
        ``(nw, nb_headings, 6)`` complex, diffraction + Froude-Krylov per unit wave
        amplitude [N/m, N m/m].
    headings
        ``(nb_headings,)`` [rad] in ``[0, 2 pi)``, ascending.
    added_mass_inf
        ``(6, 6)`` infinite-frequency added mass.
    added_mass_inf_source
        ``"dataset"`` (the ``omega = inf`` entry), ``"ogilvie"`` (estimated by
        :func:`ogilvie_added_mass_inf`) or ``"given"``.
    hydrostatic_stiffness, inertia
        ``(6, 6)`` or None when the source has none. ``inertia`` is the rigid-body mass
        matrix.
    rho, g, water_depth
        [kg/m^3], [m/s^2], [m] (``inf`` for deep water).
    rotation_center
        ``(3,)`` [m]: the point the rotations and moments of every coefficient are
        about, or None if unknown.
    center_of_mass
        ``(3,)`` [m] or None.
    dofs
        Names of the DOFs the source had (the others are zero rows and columns).
    source
        Where the data came from (file name), for messages.
    """

    omega: Array
    added_mass: Array
    radiation_damping: Array
    excitation: Array
    headings: Array
    added_mass_inf: Array
    added_mass_inf_source: str = "given"
    hydrostatic_stiffness: Array | None = None
    inertia: Array | None = None
    rho: float = 1000.0
    g: float = 9.81
    water_depth: float = float("inf")
    rotation_center: Array | None = None
    center_of_mass: Array | None = None
    dofs: tuple[str, ...] = DOF_NAMES
    source: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        def setf(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        omega = np.asarray(self.omega, dtype=float)
        if omega.ndim != 1 or omega.size < 2:
            raise ModelError(f"expected at least 2 frequencies (nw,), got shape {omega.shape}",
                             "omega")
        if not np.isfinite(omega).all() or omega[0] < 0 or np.any(np.diff(omega) <= 0):
            raise ModelError("frequencies must be finite, >= 0 and strictly ascending",
                             "omega")
        setf("omega", omega)
        nw = omega.size
        for name in ("added_mass", "radiation_damping"):
            setf(name, _checked(getattr(self, name), (nw, 6, 6), name))
        headings = np.asarray(self.headings, dtype=float).reshape(-1)
        if not np.isfinite(headings).all():
            raise ModelError("headings must be finite", "headings")
        setf("headings", headings)
        setf("excitation", _checked(self.excitation, (nw, headings.size, 6), "excitation",
                                    complex))
        setf("added_mass_inf", _checked(self.added_mass_inf, (6, 6), "added_mass_inf"))
        for name in ("hydrostatic_stiffness", "inertia"):
            if getattr(self, name) is not None:
                setf(name, _checked(getattr(self, name), (6, 6), name))
        for name in ("rotation_center", "center_of_mass"):
            if getattr(self, name) is not None:
                setf(name, _checked(getattr(self, name), (3,), name))

    @property
    def nb_headings(self) -> int:
        """Number of wave headings."""
        return int(self.headings.size)

    def referred_to(self, point: Any) -> HydroDatabase:
        """The same database with rotations and moments about ``point`` (3,) [m].

        Raises
        ------
        ModelError
            If :attr:`rotation_center` is unknown.
        """
        if self.rotation_center is None:
            raise ModelError(f"{self._where()}the rotation centre of the coefficients is "
                             "unknown; cannot move them to another point", "rotation_center")
        old, new = self.rotation_center, np.asarray(point, dtype=float)

        def mv(m: Array) -> Array:
            return moved_coefficients(m, old, new)

        return replace(
            self, added_mass=mv(self.added_mass), radiation_damping=mv(self.radiation_damping),
            added_mass_inf=mv(self.added_mass_inf),
            inertia=None if self.inertia is None else mv(self.inertia),
            hydrostatic_stiffness=(None if self.hydrostatic_stiffness is None
                                   else mv(self.hydrostatic_stiffness)),
            excitation=moved_loads(self.excitation, old, new), rotation_center=new)

    def excitation_at(self, omega: Any, heading: float = 0.0,
                      method: str = "linear") -> Array:
        """Excitation phasors per unit wave amplitude at frequencies ``omega``.

        Parameters
        ----------
        omega
            Scalar or ``(n,)`` [rad/s].
        heading
            [rad], direction the waves travel towards.
        method
            Heading interpolation: ``"linear"`` between the two stored headings either
            side (real and imaginary parts; the span wraps round ``2 pi`` only when the
            stored headings go all round the circle, i.e. the gap across ``2 pi`` is no
            larger than the largest gap between stored headings), or ``"nearest"``.
            A stored heading is used as is by either method.

        Returns
        -------
        ``(6,)`` or ``(n, 6)`` complex [N/m, N m/m].

        Notes
        -----
        In frequency, real and imaginary parts are interpolated linearly. Outside
        ``[omega[0], omega[-1]]`` the excitation is zero: the body is taken not to feel
        waves that long or that short (true above the range for a body large against
        the wave length; at the long-wave end the excitation actually tends to the
        hydrostatic force, so a wave spectrum with energy there needs data reaching
        further down). One ``UserWarning`` per call says how many requested
        frequencies fell outside.

        Raises
        ------
        ModelError
            For a heading outside the stored span (``"linear"``) or an unknown method.
        """
        w = np.asarray(omega, dtype=float)
        scalar = w.ndim == 0
        w = w.reshape(-1)
        table = np.zeros((self.omega.size, 6), dtype=complex)
        for index, weight in self._heading_weights(float(heading), method):
            table += weight * self.excitation[:, index, :]
        i0, i1, s, inside = _linear_weights(w, self.omega)
        out = (1.0 - s)[:, None] * table[i0] + s[:, None] * table[i1]
        out[~inside] = 0.0
        if not inside.all():
            warnings.warn(
                f"{self._where()}{np.count_nonzero(~inside)} of {w.size} frequencies lie "
                f"outside the data ({self.omega[0]:g} to {self.omega[-1]:g} rad/s); "
                "their excitation is zero", UserWarning, stacklevel=2)
        return out[0] if scalar else out

    def _heading_weights(self, heading: float, method: str) -> list[tuple[int, float]]:
        if method not in ("linear", "nearest"):
            raise ModelError(f"unknown heading interpolation {method!r}; accepted: linear, "
                             "nearest", "method")
        stored = np.mod(self.headings, 2 * np.pi)
        h = float(np.mod(heading, 2 * np.pi))
        distance = np.abs(np.mod(h - stored + np.pi, 2 * np.pi) - np.pi)
        nearest = int(np.argmin(distance))
        if distance[nearest] <= _HEADING_TOL or method == "nearest":
            return [(nearest, 1.0)]
        order = np.argsort(stored)
        angles = stored[order]
        gaps = np.diff(np.concatenate([angles, [angles[0] + 2 * np.pi]]))
        k = int(np.searchsorted(angles, h)) - 1  # angles[k] < h (k = -1: across 2 pi)
        k %= angles.size
        closes = angles.size > 1 and gaps[-1] <= gaps[:-1].max() + _HEADING_TOL
        if angles.size == 1 or (k == angles.size - 1 and not closes):
            listed = ", ".join(f"{np.degrees(a):g}" for a in angles)
            raise ModelError(
                f"{self._where()}heading {np.degrees(h):g} deg is not in the data "
                f"(headings: {listed} deg) and lies outside their span; accepted: a heading "
                "within the span, or method='nearest'", "heading")
        lo, hi = order[k], order[(k + 1) % angles.size]
        s = float(np.mod(h - angles[k], 2 * np.pi) / gaps[k])
        return [(int(lo), 1.0 - s), (int(hi), s)]

    def _where(self) -> str:
        return f"{self.source}: " if self.source else ""


def _checked(value: Any, shape: tuple[int, ...], name: str, dtype: type = float) -> Array:
    try:
        arr: Array = np.array(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"expected numbers of shape {shape}: {exc}", name) from None
    if arr.shape != shape:
        raise ModelError(f"expected shape {shape}, got {arr.shape}", name)
    if not np.isfinite(arr).all():
        raise ModelError("expected finite numbers (found NaN or inf)", name)
    return arr


def _linear_weights(x: Array, xp: Array) -> tuple[Array, Array, Array, Array]:
    """Indices and weights of linear interpolation in ascending ``xp``; ``inside`` marks
    the ``x`` within ``[xp[0], xp[-1]]``."""
    inside = (x >= xp[0]) & (x <= xp[-1])
    i1 = np.clip(np.searchsorted(xp, x), 1, xp.size - 1)
    i0 = i1 - 1
    s = np.clip((x - xp[i0]) / (xp[i1] - xp[i0]), 0.0, 1.0)
    return i0, i1, s, inside


# --------------------------------------------------------------------------------------
# Reading Capytaine's dataset
# --------------------------------------------------------------------------------------

def read_capytaine(source: str | Path | xr.Dataset, body: str | None = None,
                   cog: Any = None) -> HydroDatabase:
    """Read Capytaine's hydrodynamic dataset into a :class:`HydroDatabase`.

    Parameters
    ----------
    source
        The ``xarray.Dataset`` of ``cpt.BEMSolver().fill_dataset`` or
        ``cpt.assemble_dataset``, or the path of its netCDF export
        (``cpt.export_dataset(path, ds, format="netcdf")``, or
        ``separate_complex_values(ds).to_netcdf(path)``): complex arrays stored with a
        ``complex`` dimension of real and imaginary parts are merged back.
    body
        Name of the body to read from a multi-body dataset, whose DOFs Capytaine names
        ``<body>__Heave`` and so on. Cross-body coupling terms are not read. Not needed
        for a single body.
    cog
        Centre of gravity ``(3,)`` [m]. Default: the dataset's ``center_of_mass``, if any.
        When the dataset records a ``rotation_center`` that differs from the COG, all
        coefficients are moved to the COG (:meth:`HydroDatabase.referred_to`).

    Returns
    -------
    HydroDatabase
        Capytaine's DOFs ``Surge ... Yaw`` (any case) mapped to frylinks' order; DOFs the
        dataset lacks are zero rows and columns, other (non rigid-body) DOFs are left
        out with a warning. Frequencies ``omega = 0`` and ``inf`` leave the frequency
        axis: the ``inf`` entry gives :attr:`~HydroDatabase.added_mass_inf`; without
        it, ``added_mass_inf`` is Ogilvie's estimate (:func:`ogilvie_added_mass_inf`).

    Raises
    ------
    ModelError
        For a file that cannot be read or is not a Capytaine dataset, a missing
        variable, several bodies without ``body=``, an unknown body, several values of
        ``rho``, ``g``, ``water_depth``, non-zero forward speed, missing values (NaN).
    """
    ds, where = _opened(source)
    return _database(ds, where, body, cog)


def _opened(source: str | Path | xr.Dataset) -> tuple[xr.Dataset, str]:
    if isinstance(source, xr.Dataset):
        return _merged_complex(source), "Capytaine dataset"
    path = Path(source)
    where = f"'{path}'"
    if not path.is_file():
        raise ModelError(f"{where}: no such file")
    try:
        with xr.open_dataset(path) as opened:
            ds = opened.load()
    except Exception as exc:  # xarray raises whatever its backends raise
        raise ModelError(f"{where}: not a netCDF file xarray can read "
                         f"({type(exc).__name__}: {exc})") from None
    return _merged_complex(ds), where


def _merged_complex(ds: xr.Dataset) -> xr.Dataset:
    """Complex variables back from Capytaine's ``complex`` (re, im) dimension."""
    if "complex" not in ds.dims:
        return ds
    labels = [v.decode() if isinstance(v, bytes) else str(v)
              for v in ds["complex"].values] if "complex" in ds.coords else ["re", "im"]
    re, im = labels.index("re"), labels.index("im")
    ds = ds.copy()
    for name in list(ds.data_vars):
        da = ds[name]
        if "complex" in da.dims:
            ds[name] = da.isel(complex=re, drop=True) + 1j * da.isel(complex=im, drop=True)
    return ds.drop_vars("complex", errors="ignore")


def _database(ds: xr.Dataset, where: str, body: str | None, cog: Any) -> HydroDatabase:
    if "added_mass" not in ds or "radiating_dof" not in ds.dims:
        found = ", ".join(sorted(map(str, ds.data_vars))) or "none"
        raise ModelError(f"{where}: not a Capytaine hydrodynamic dataset (no 'added_mass' "
                         f"over 'radiating_dof'; variables: {found}); expected the dataset "
                         "of cpt.BEMSolver().fill_dataset or its netCDF export")
    freq_dim = next((d for d in ds["added_mass"].dims if d in _FREQUENCY_DIMS), None)
    if freq_dim is None:
        raise ModelError(f"{where}: 'added_mass' has no frequency dimension (one of "
                         f"{', '.join(_FREQUENCY_DIMS)}); dims: {ds['added_mass'].dims}",
                         "added_mass")
    speed = _scalar(ds, "forward_speed", 0.0, where)
    if speed != 0.0:
        raise ModelError(f"{where}: forward speed {speed:g} m/s; only zero speed is "
                         "supported", "forward_speed")
    rho = _scalar(ds, "rho", 1000.0, where)
    g = _scalar(ds, "g", 9.81, where)
    depth = _scalar(ds, "water_depth", float("inf"), where)
    omega_all = _omega(ds, freq_dim, where)

    rad_map = _dof_map(ds, "radiating_dof", body, where)
    inf_map = _dof_map(ds, "influenced_dof", body, where)
    keep = np.isfinite(omega_all) & (omega_all > 0)
    order = np.argsort(omega_all[keep])
    omega = omega_all[keep][order]
    if np.any(np.diff(omega) <= 0):
        raise ModelError(f"{where}: repeated frequencies", freq_dim)

    def radiation(name: str) -> tuple[Array, Array | None]:
        if name not in ds:
            raise ModelError(f"{where}: missing variable '{name}'", name)
        da = _squeezed(ds[name], (freq_dim, "influenced_dof", "radiating_dof"), where)
        full = _six_by_six(da.transpose(freq_dim, "influenced_dof", "radiating_dof").values,
                           inf_map, rad_map)
        inf_entry = np.isinf(omega_all)
        at_inf = full[inf_entry][0] if inf_entry.any() else None
        values = full[keep][order]
        _require_finite(values, omega, name, where)
        return values, at_inf

    added_mass, a_inf = radiation("added_mass")
    damping, _ = radiation("radiation_damping")
    excitation, headings = _excitation(ds, freq_dim, inf_map, keep, order, omega, where)
    if a_inf is not None and np.isfinite(a_inf).all():
        added_mass_inf, a_inf_source = a_inf, "dataset"
    else:
        added_mass_inf = ogilvie_added_mass_inf(omega, added_mass, damping)
        a_inf_source = "ogilvie"

    db = HydroDatabase(
        omega=omega, added_mass=added_mass, radiation_damping=damping, excitation=excitation,
        headings=headings, added_mass_inf=added_mass_inf, added_mass_inf_source=a_inf_source,
        hydrostatic_stiffness=_matrix(ds, "hydrostatic_stiffness", inf_map, rad_map, where),
        inertia=_matrix(ds, "inertia_matrix", inf_map, rad_map, where),
        rho=rho, g=g, water_depth=depth,
        rotation_center=_point(ds, "rotation_center", body),
        center_of_mass=_point(ds, "center_of_mass", body),
        dofs=tuple(DOF_NAMES[i] for i in sorted(set(rad_map.values()))),
        source=where)
    target = db.center_of_mass if cog is None else _checked(cog, (3,), "cog")
    if target is None:
        return db
    if db.rotation_center is None:
        if any(d in db.dofs for d in DOF_NAMES[3:]):
            warnings.warn(f"{where}: the dataset does not record its rotation centre; the "
                          "rotational coefficients are taken as about the COG", UserWarning,
                          stacklevel=2)
        return replace(db, rotation_center=target, center_of_mass=target)
    center = db.rotation_center
    db = replace(db, center_of_mass=target)
    if np.allclose(center, target, rtol=0.0, atol=1e-9):
        return db
    return db.referred_to(target)


def _scalar(ds: xr.Dataset, name: str, default: float, where: str) -> float:
    if name not in ds.coords and name not in ds:
        return default
    values = np.unique(np.asarray(ds[name].values, dtype=float).reshape(-1))
    if values.size != 1:
        raise ModelError(f"{where}: the dataset holds several values of '{name}' "
                         f"({', '.join(f'{v:g}' for v in values)}); select one first, "
                         f"ds.sel({name}=...)", name)
    return float(values[0])


def _omega(ds: xr.Dataset, freq_dim: str, where: str) -> Array:
    if "omega" in ds.coords and ds["omega"].dims == (freq_dim,):
        return np.asarray(ds["omega"].values, dtype=float)
    values = np.asarray(ds[freq_dim].values, dtype=float)
    if freq_dim == "freq":
        return 2 * np.pi * values
    if freq_dim == "period":
        with np.errstate(divide="ignore"):
            return 2 * np.pi / values
    raise ModelError(f"{where}: frequencies given as '{freq_dim}' without an 'omega' "
                     "coordinate", "omega")


def _squeezed(da: xr.DataArray, keep: Iterable[str], where: str) -> xr.DataArray:
    """Drop the length-1 dimensions not in ``keep``; refuse longer ones."""
    keep = tuple(keep)
    for dim in da.dims:
        if dim in keep:
            continue
        if da.sizes[dim] != 1:
            raise ModelError(f"{where}: '{da.name}' varies along '{dim}' "
                             f"({da.sizes[dim]} values); select one first, "
                             f"ds.sel({dim}=...)", str(da.name))
        da = da.isel({dim: 0})
    missing = [d for d in keep if d not in da.dims]
    if missing:
        raise ModelError(f"{where}: '{da.name}' lacks the dimension(s) {', '.join(missing)}",
                         str(da.name))
    return da


def _dof_map(ds: xr.Dataset, dim: str, body: str | None, where: str) -> dict[int, int]:
    """Positions along ``dim`` of the selected body's rigid-body DOFs -> frylinks index."""
    names = [v.decode() if isinstance(v, bytes) else str(v) for v in ds[dim].values]
    # Capytaine names a multi-body dataset's DOFs "<body>__<dof>"
    split: list[tuple[str | None, str]] = [
        (n.rsplit("__", 1)[0], n.rsplit("__", 1)[1]) if "__" in n else (None, n)
        for n in names]
    bodies = sorted({b for b, _ in split if b is not None})
    plain = any(b is None for b, _ in split)
    if body is None:
        if len(bodies) > 1 or (bodies and plain):
            raise ModelError(f"{where}: the dataset holds several bodies "
                             f"({', '.join(bodies)}); choose one with body=", "body")
        chosen = bodies[0] if bodies else None
    elif body in bodies:
        chosen = body
    elif not bodies:
        recorded = ([str(b) for b in ds["body"].values.reshape(-1)]
                    if "body" in ds.coords else [])
        if recorded and body not in recorded:
            raise ModelError(f"{where}: no body {body!r}; the dataset holds "
                             f"{', '.join(recorded)}", "body")
        chosen = None
    else:
        raise ModelError(f"{where}: no body {body!r}; bodies: {', '.join(bodies)}", "body")
    mapping: dict[int, int] = {}
    unknown = []
    for pos, (b, dof) in enumerate(split):
        if b != chosen:
            continue
        if dof.lower() in DOF_NAMES:
            mapping[pos] = DOF_NAMES.index(dof.lower())
        else:
            unknown.append(dof)
    if unknown and dim == "radiating_dof":  # once, not again for influenced_dof
        warnings.warn(f"{where}: DOFs {', '.join(unknown)} are not rigid-body DOFs "
                      f"({', '.join(DOF_NAMES)}) and are left out", UserWarning, stacklevel=4)
    if not mapping:
        raise ModelError(f"{where}: no rigid-body DOF along '{dim}' (found "
                         f"{', '.join(names)}); accepted: Surge, Sway, Heave, Roll, Pitch, "
                         "Yaw", dim)
    return mapping


def _six_by_six(values: Array, rows: dict[int, int], cols: dict[int, int]) -> Array:
    """``(..., n_rows, n_cols)`` dataset order -> ``(..., 6, 6)`` frylinks order."""
    out = np.zeros((*values.shape[:-2], 6, 6), dtype=values.dtype)
    r_src, r_dst = zip(*rows.items(), strict=True)
    c_src, c_dst = zip(*cols.items(), strict=True)
    out[..., np.array(r_dst)[:, None], np.array(c_dst)[None, :]] = \
        values[..., np.array(r_src)[:, None], np.array(c_src)[None, :]]
    return out


def _require_finite(values: Array, omega: Array, name: str, where: str) -> None:
    bad = ~np.isfinite(values).reshape(values.shape[0], -1).all(axis=1)
    if bad.any():
        raise ModelError(f"{where}: '{name}' has missing values (NaN) at omega = "
                         f"{omega[bad][0]:g} rad/s", name)


def _excitation(ds: xr.Dataset, freq_dim: str, inf_map: dict[int, int], keep: Array,
                order: Array, omega: Array, where: str) -> tuple[Array, Array]:
    if "excitation_force" in ds:
        da = ds["excitation_force"]
    elif "diffraction_force" in ds and "Froude_Krylov_force" in ds:
        da = ds["diffraction_force"] + ds["Froude_Krylov_force"]
        da.name = "excitation_force"
    else:
        raise ModelError(f"{where}: missing variable 'excitation_force' (or both "
                         "'diffraction_force' and 'Froude_Krylov_force'); the dataset "
                         "needs diffraction problems (a 'wave_direction' in the test "
                         "matrix)", "excitation_force")
    if "wave_direction" not in da.dims and "wave_direction" in da.coords:
        da = da.expand_dims("wave_direction")
    da = _squeezed(da, (freq_dim, "wave_direction", "influenced_dof"), where)
    da = da.transpose(freq_dim, "wave_direction", "influenced_dof")
    values = np.zeros((*da.shape[:2], 6), dtype=complex)
    src, dst = zip(*inf_map.items(), strict=True)
    values[..., list(dst)] = da.values[..., list(src)]
    values = values[keep][order]
    _require_finite(values, omega, "excitation_force", where)
    headings = np.mod(np.asarray(da["wave_direction"].values, dtype=float), 2 * np.pi)
    by_angle = np.argsort(headings, kind="stable")
    headings, values = headings[by_angle], values[:, by_angle]
    distinct = np.concatenate([[True], np.diff(headings) > _HEADING_TOL])
    return values[:, distinct], headings[distinct]


def _matrix(ds: xr.Dataset, name: str, rows: dict[int, int], cols: dict[int, int],
            where: str) -> Array | None:
    if name not in ds:
        return None
    da = _squeezed(ds[name], ("influenced_dof", "radiating_dof"), where)
    values = da.transpose("influenced_dof", "radiating_dof").values
    if not np.isfinite(values).all():
        return None
    return np.real(_six_by_six(values, rows, cols)).astype(float)


def _point(ds: xr.Dataset, name: str, body: str | None) -> Array | None:
    """A (3,) point stored once or per body (Capytaine: ``space_coordinate``, and
    ``body`` for several bodies; the manual's export example: ``point_coordinates``)."""
    if name not in ds.coords and name not in ds:
        return None
    da = ds[name]
    for dim in tuple(da.dims):
        if dim in ("space_coordinate", "point_coordinates", "xyz"):
            continue
        labels = [str(v) for v in da[dim].values] if dim in da.coords else []
        da = da.isel({dim: labels.index(body) if body in labels else 0})
    values = np.asarray(da.values, dtype=float).reshape(-1)
    if values.shape != (3,) or not np.isfinite(values).all():
        return None
    return values
