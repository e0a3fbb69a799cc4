"""Reading Capytaine's hydrodynamic dataset (its ``xarray.Dataset`` or netCDF export)
into the databases of :mod:`frylinks_marine.hydrodb`.

frylinks and Capytaine share their conventions (the module docstring of
:mod:`frylinks_marine.hydrodb`), so the reader maps DOF names and order, merges complex
values stored as (re, im) pairs, takes ``omega = 0`` and ``inf`` off the frequency axis
and checks what it reads; :mod:`frylinks_marine.raw_hydro` makes the databases.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from frylinks.errors import ModelError

from .hydrodb import DOF_NAMES, HEADING_TOL, HydroDatabase, MultiBodyDatabase
from .raw_hydro import RawHydro, all_bodies, by_heading, single_body
from .second_order import DriftTable, SecondOrder

Array = np.ndarray

#: Capytaine's frequency dimensions (one of them indexes the coefficients).
_FREQUENCY_DIMS = ("omega", "freq", "period", "wavenumber", "wavelength")

#: Capytaine 3.0's far-field mean drift (``cpt.post_pro.far_field_mean_drift_force``):
#: variable -> frylinks' DOF index of a single body.
FAR_FIELD_DRIFT = {"drift_force_surge": 0, "drift_force_sway": 1, "drift_force_yaw": 5}
#: The same three merged over ``influenced_dof`` (Capytaine's WAMIT ``.8`` export makes it).
FAR_FIELD_DRIFT_MERGED = "drift_force"
#: Near-field (pressure-integration) mean drift over ``influenced_dof``: not computed by
#: Capytaine 3.0; the name its WAMIT ``.9`` export stub expects, for a script to add.
NEAR_FIELD_DRIFT = "near_field_mean_drift_force"


def read_capytaine(source: str | Path | xr.Dataset, body: str | None = None,
                   cog: Any = None) -> HydroDatabase:
    """Read one body of Capytaine's hydrodynamic dataset into a
    :class:`~frylinks_marine.hydrodb.HydroDatabase`.

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
        ``<body>__Heave`` and so on. The body's own coefficients are read (the diagonal
        block); :func:`read_capytaine_bodies` reads all of them with the cross-body
        terms. Not needed for a single body.
    cog
        Centre of gravity ``(3,)`` [m]. Default: the dataset's ``center_of_mass``, if any.
        When the dataset records a ``rotation_center`` that differs from the COG, all
        coefficients are moved to the COG
        (:meth:`~frylinks_marine.hydrodb.HydroDatabase.referred_to`).

    Returns
    -------
    HydroDatabase
        Capytaine's DOFs ``Surge ... Yaw`` (any case) mapped to frylinks' order; DOFs the
        dataset lacks are zero rows and columns, other (non rigid-body) DOFs are left
        out with a warning. Frequencies ``omega = 0`` and ``inf`` leave the frequency
        axis: the ``inf`` entry gives
        :attr:`~frylinks_marine.hydrodb.HydroDatabase.added_mass_inf`; without it,
        ``added_mass_inf`` is Ogilvie's estimate
        (:func:`~frylinks_marine.radiation.ogilvie_added_mass_inf`).
        ``second_order`` holds the mean drift the dataset carries (see
        :func:`mean_drift_tables`), or is None.

    Raises
    ------
    ModelError
        For a file that cannot be read or is not a Capytaine dataset, a missing
        variable, several values of ``rho``, ``g``, ``water_depth``, non-zero forward
        speed, missing values (NaN); :class:`~frylinks_marine.hydrodb.DatasetBodyError`
        for several bodies without ``body=`` or an unknown body (it lists the dataset's
        bodies).
    """
    ds, where = _opened(source)
    return single_body(_capytaine_raw(ds, where), body, cog)


def read_capytaine_bodies(source: str | Path | xr.Dataset,
                          cog: Mapping[str, Any] | None = None) -> MultiBodyDatabase:
    """Read every body of Capytaine's dataset, the cross-body terms included.

    Parameters
    ----------
    source
        As for :func:`read_capytaine`.
    cog
        ``{body name: (3,) COG [m]}``; a body left out takes the dataset's centre of mass
        for it, if any. Each body's coefficients are moved from its rotation centre to
        its COG (block by block: ``T_i^T A_ij T_j``).

    Returns
    -------
    MultiBodyDatabase
        ``6 N x 6 N`` coefficients in frylinks' DOF order, body after body in the
        dataset's order (a single unnamed body is called ``body1``).
    """
    ds, where = _opened(source)
    return all_bodies(_capytaine_raw(ds, where), cog)


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


def _capytaine_raw(ds: xr.Dataset, where: str) -> RawHydro:
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

    bodies, rad_map, dofs = _dof_map(ds, "radiating_dof", where)
    _, inf_map, _ = _dof_map(ds, "influenced_dof", where, bodies)
    n = 6 * len(bodies)
    keep = np.isfinite(omega_all) & (omega_all > 0)
    order = np.argsort(omega_all[keep])
    omega = omega_all[keep][order]
    if np.any(np.diff(omega) <= 0):
        raise ModelError(f"{where}: repeated frequencies", freq_dim)

    def radiation(name: str) -> tuple[Array, Array | None]:
        if name not in ds:
            raise ModelError(f"{where}: missing variable '{name}'", name)
        da = _squeezed(ds[name], (freq_dim, "influenced_dof", "radiating_dof"), where)
        full = _scattered(da.transpose(freq_dim, "influenced_dof", "radiating_dof").values,
                          inf_map, rad_map, n)
        inf_entry = np.isinf(omega_all)
        at_inf = full[inf_entry][0] if inf_entry.any() else None
        values = full[keep][order]
        _require_finite(values, omega, name, where)
        return values, at_inf

    added_mass, a_inf = radiation("added_mass")
    damping, _ = radiation("radiation_damping")
    excitation, headings = _excitation(ds, freq_dim, inf_map, n, keep, order, omega, where)
    froude_krylov = _froude_krylov(ds, freq_dim, inf_map, n, keep, order, omega, where)
    named = [b for b in bodies if b is not None]
    second_order = mean_drift_tables(ds, freq_dim, inf_map, bodies, keep, order, omega, where)
    return RawHydro(
        bodies=bodies, omega=omega, added_mass=added_mass, radiation_damping=damping,
        excitation=excitation, headings=headings, added_mass_inf=a_inf,
        froude_krylov=froude_krylov,
        hydrostatic_stiffness=_matrix(ds, "hydrostatic_stiffness", inf_map, rad_map, n, where),
        inertia=_matrix(ds, "inertia_matrix", inf_map, rad_map, n, where),
        rho=rho, g=g, water_depth=depth,
        rotation_centers=[_point(ds, "rotation_center", b, named) for b in bodies],
        centers_of_mass=[_point(ds, "center_of_mass", b, named) for b in bodies],
        dofs=dofs, where=where, second_order=second_order)


def mean_drift_tables(ds: xr.Dataset, freq_dim: str, inf_map: dict[int, int],
                      bodies: list[str | None], keep: Array, order: Array, omega: Array,
                      where: str) -> SecondOrder | None:
    """The mean drift a Capytaine dataset carries, as frylinks' tables (None if none).

    ``cpt.assemble_dataset`` and ``fill_dataset`` store no second-order data; Capytaine
    3.0 computes the far-field mean drift afterwards,
    ``cpt.post_pro.far_field_mean_drift_force(X, ds)`` (``X`` the motion RAO over
    ``(omega, wave_direction, radiating_dof)``; zeros for a fixed body; ``ds`` from
    ``fill_dataset`` with a ``theta`` coordinate, which adds the Kochin functions), a
    dataset a script merges into the hydrodynamic one, ``ds.merge(drift)``, before the
    export. Read from it:

    * ``drift_force_surge``, ``drift_force_sway``, ``drift_force_yaw`` over ``(<frequency>,
      wave_direction_k, wave_direction_l)`` (Capytaine's output), or ``drift_force`` over
      ``(<frequency>, wave_direction_k, wave_direction_l, influenced_dof)`` (the same
      merged): far field, hence the ``mean_drift_momentum`` table (WAMIT's ``.8``);
    * ``near_field_mean_drift_force`` over ``(<frequency>, wave_direction_k,
      wave_direction_l, influenced_dof)``: pressure integration, the
      ``mean_drift_pressure`` table (WAMIT's ``.9``). Capytaine 3.0 does not compute it;
      the name is the one its WAMIT ``.9`` export stub reads, for a script that adds it.

    Either may have one ``wave_direction`` instead of the pair: a pair's diagonal
    (``wave_direction_k == wave_direction_l``) is the mean drift of one wave system and
    is what is read. Values are complex, per square metre of wave amplitude [N/m^2,
    N m/m^2], ``exp(-i omega t)`` (Capytaine's convention is frylinks'), about the
    origin of the dataset's coordinates for the yaw moment (Capytaine's Kochin
    functions are about ``(0, 0)``) and then moved with the other coefficients to the
    COG; DOFs a variable does not give (heave, roll, pitch in the far field) are NaN.
    Frequencies ``0`` and ``inf`` are dropped as for the first-order data.
    """
    tables: dict[str, DriftTable] = {}
    n = 6 * len(bodies)
    far = [name for name in FAR_FIELD_DRIFT if name in ds]
    if far:
        if len(bodies) > 1:
            raise ModelError(f"{where}: '{far[0]}' of a dataset of {len(bodies)} bodies is "
                             "the drift on all of them together; frylinks reads the mean "
                             "drift per body (a 'drift_force' or "
                             f"'{NEAR_FIELD_DRIFT}' over influenced_dof)", far[0])
        pieces = {FAR_FIELD_DRIFT[name]: _drift_array(ds[name], freq_dim, (), where)
                  for name in far}
        headings = next(iter(pieces.values()))[1]
        values = np.full((omega.size, headings.size, n), np.nan, dtype=complex)
        for dof, (arr, h) in pieces.items():
            if not np.allclose(h, headings):
                raise ModelError(f"{where}: the far-field drift variables have different "
                                 "wave directions", far[0])
            values[..., dof] = arr[keep][order][..., 0]
        tables["mean_drift_momentum"] = DriftTable(omega=omega, headings=headings,
                                                   values=values, kind="mean_drift",
                                                   source=where)
    for name, table in ((FAR_FIELD_DRIFT_MERGED, "mean_drift_momentum"),
                        (NEAR_FIELD_DRIFT, "mean_drift_pressure")):
        if name not in ds or table in tables:
            continue
        arr, headings = _drift_array(ds[name], freq_dim, ("influenced_dof",), where)
        values = np.full((omega.size, headings.size, n), np.nan, dtype=complex)
        src, dst = zip(*inf_map.items(), strict=True)
        values[..., list(dst)] = arr[keep][order][..., list(src)]
        tables[table] = DriftTable(omega=omega, headings=headings, values=values,
                                   kind="mean_drift", source=where)
    return SecondOrder(**tables) if tables else None


def _drift_array(da: xr.DataArray, freq_dim: str, dof_dims: tuple[str, ...], where: str
                 ) -> tuple[Array, Array]:
    """A mean drift variable as ``(nw_all, nh, ndof)`` (``ndof = 1`` without a DOF
    dimension) over the dataset's frequencies, on its diagonal of heading pairs, the
    headings ``(nh,)`` in ``[0, 2 pi)`` ascending."""
    pair = ("wave_direction_k", "wave_direction_l")
    if all(d in da.dims for d in pair):
        da = _squeezed(da, (freq_dim, *pair, *dof_dims), where)
        da = da.transpose(freq_dim, *pair, *dof_dims)
        h_k = np.mod(np.asarray(da[pair[0]].values, dtype=float), 2 * np.pi)
        h_l = np.mod(np.asarray(da[pair[1]].values, dtype=float), 2 * np.pi)
        same = [(i, int(np.argmin(np.abs(h_l - h)))) for i, h in enumerate(h_k)]
        same = [(i, j) for i, j in same if abs(h_l[j] - h_k[i]) <= HEADING_TOL]
        if not same:
            raise ModelError(f"{where}: '{da.name}' has no pair of equal wave directions "
                             "(wave_direction_k = wave_direction_l): no mean drift of one "
                             "wave system", str(da.name))
        values = np.stack([da.values[:, i, j] for i, j in same], axis=1)
        headings = h_k[[i for i, _ in same]]
    elif "wave_direction" in da.dims or "wave_direction" in da.coords:
        if "wave_direction" not in da.dims:
            da = da.expand_dims("wave_direction")
        da = _squeezed(da, (freq_dim, "wave_direction", *dof_dims), where)
        da = da.transpose(freq_dim, "wave_direction", *dof_dims)
        values = da.values
        headings = np.mod(np.asarray(da["wave_direction"].values, dtype=float), 2 * np.pi)
    else:
        raise ModelError(f"{where}: '{da.name}' has no wave direction dimension "
                         "('wave_direction', or 'wave_direction_k' and 'wave_direction_l'); "
                         f"dims: {da.dims}", str(da.name))
    values = np.asarray(values, dtype=complex)
    if not dof_dims:
        values = values[..., None]
    by_angle = np.argsort(headings, kind="stable")
    headings, values = headings[by_angle], values[:, by_angle]
    distinct = np.concatenate([[True], np.diff(headings) > HEADING_TOL])
    return values[:, distinct], headings[distinct]


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


def _dof_map(ds: xr.Dataset, dim: str, where: str, bodies: list[str | None] | None = None
             ) -> tuple[list[str | None], dict[int, int], list[tuple[str, ...]]]:
    """The bodies of the dataset (in order), the map of positions along ``dim`` of their
    rigid-body DOFs to the ``6 N`` index (body ``b``, DOF ``d``: ``6 b + d``), and each
    body's DOF names. ``bodies`` fixes the bodies (those of ``radiating_dof``)."""
    names = [v.decode() if isinstance(v, bytes) else str(v) for v in ds[dim].values]
    # Capytaine names a multi-body dataset's DOFs "<body>__<dof>"
    split: list[tuple[str | None, str]] = [
        (n.rsplit("__", 1)[0], n.rsplit("__", 1)[1]) if "__" in n else (None, n)
        for n in names]
    if bodies is None:
        prefixed = list(dict.fromkeys(b for b, _ in split if b is not None))
        if prefixed and any(b is None for b, _ in split):
            plain = [d for b, d in split if b is None]
            raise ModelError(f"{where}: '{dim}' mixes DOFs of named bodies "
                             f"({', '.join(prefixed)}) with unnamed ones "
                             f"({', '.join(plain)})", dim)
        bodies = list(prefixed) if prefixed else [_body_name(ds)]
    mapping: dict[int, int] = {}
    unknown = []
    for pos, (b, dof) in enumerate(split):
        key = bodies[0] if b is None and len(bodies) == 1 else b
        if key not in bodies:
            continue
        if dof.lower() in DOF_NAMES:
            mapping[pos] = 6 * bodies.index(key) + DOF_NAMES.index(dof.lower())
        else:
            unknown.append(names[pos])
    if unknown and dim == "radiating_dof":  # once, not again for influenced_dof
        warnings.warn(f"{where}: DOFs {', '.join(unknown)} are not rigid-body DOFs "
                      f"({', '.join(DOF_NAMES)}) and are left out", UserWarning, stacklevel=5)
    if not mapping:
        raise ModelError(f"{where}: no rigid-body DOF along '{dim}' (found "
                         f"{', '.join(names)}); accepted: Surge, Sway, Heave, Roll, Pitch, "
                         "Yaw", dim)
    dofs = [tuple(DOF_NAMES[i % 6] for i in sorted(v for v in mapping.values()
                                                    if v // 6 == b))
            for b in range(len(bodies))]
    return bodies, mapping, dofs


def _body_name(ds: xr.Dataset) -> str | None:
    """The name of a dataset's single body (``body_name``, not a ``+`` of several)."""
    if "body_name" not in ds.coords and "body_name" not in ds:
        return None
    values = np.asarray(ds["body_name"].values).reshape(-1)
    if values.size != 1:
        return None
    name = values[0].decode() if isinstance(values[0], bytes) else str(values[0])
    return name if name and "+" not in name else None


def _scattered(values: Array, rows: dict[int, int], cols: dict[int, int], n: int) -> Array:
    """``(..., n_rows, n_cols)`` dataset order -> ``(..., n, n)`` frylinks order."""
    out = np.zeros((*values.shape[:-2], n, n), dtype=values.dtype)
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


def _excitation(ds: xr.Dataset, freq_dim: str, inf_map: dict[int, int], n: int, keep: Array,
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
    return _excitation_table(da, freq_dim, inf_map, n, keep, order, omega, where)


def _froude_krylov(ds: xr.Dataset, freq_dim: str, inf_map: dict[int, int], n: int,
                   keep: Array, order: Array, omega: Array, where: str) -> Array | None:
    """The Froude-Krylov part of the excitation (as :func:`_excitation`'s table), when
    the dataset has it apart (``Froude_Krylov_force``), else None."""
    if "Froude_Krylov_force" not in ds:
        return None
    da = ds["Froude_Krylov_force"]
    return _excitation_table(da, freq_dim, inf_map, n, keep, order, omega, where)[0]


def _excitation_table(da: xr.DataArray, freq_dim: str, inf_map: dict[int, int], n: int,
                      keep: Array, order: Array, omega: Array, where: str
                      ) -> tuple[Array, Array]:
    if "wave_direction" not in da.dims and "wave_direction" in da.coords:
        da = da.expand_dims("wave_direction")
    da = _squeezed(da, (freq_dim, "wave_direction", "influenced_dof"), where)
    da = da.transpose(freq_dim, "wave_direction", "influenced_dof")
    values = np.zeros((*da.shape[:2], n), dtype=complex)
    src, dst = zip(*inf_map.items(), strict=True)
    values[..., list(dst)] = da.values[..., list(src)]
    values = values[keep][order]
    _require_finite(values, omega, str(da.name), where)
    headings = np.mod(np.asarray(da["wave_direction"].values, dtype=float), 2 * np.pi)
    return by_heading(values, headings)


def _matrix(ds: xr.Dataset, name: str, rows: dict[int, int], cols: dict[int, int], n: int,
            where: str) -> Array | None:
    if name not in ds:
        return None
    da = _squeezed(ds[name], ("influenced_dof", "radiating_dof"), where)
    values = da.transpose("influenced_dof", "radiating_dof").values
    if not np.isfinite(values).all():
        return None
    return np.real(_scattered(values, rows, cols, n)).astype(float)


def _point(ds: xr.Dataset, name: str, body: str | None, bodies: list[str]) -> Array | None:
    """A (3,) point stored once or per body (Capytaine: ``space_coordinate``, and
    ``body`` for several bodies; the manual's export example: ``point_coordinates``)."""
    if name not in ds.coords and name not in ds:
        return None
    da = ds[name]
    for dim in tuple(da.dims):
        if dim in ("space_coordinate", "point_coordinates", "xyz"):
            continue
        labels = [str(v) for v in da[dim].values] if dim in da.coords else []
        if body in labels:
            da = da.isel({dim: labels.index(body)})
        elif da.sizes[dim] == len(bodies) and body in bodies:
            da = da.isel({dim: bodies.index(body)})
        else:
            da = da.isel({dim: 0})
    values = np.asarray(da.values, dtype=float).reshape(-1)
    if values.shape != (3,) or not np.isfinite(values).all():
        return None
    return values
