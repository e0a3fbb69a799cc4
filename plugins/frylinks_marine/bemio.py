"""WEC-Sim's BEMIO HDF5 hydrodynamic files, read into frylinks' conventions.

BEMIO (WEC-Sim's ``writeBEMIOH5``, and the older Python ``bemio``) writes one HDF5 file
per BEM run, whatever code made it (WAMIT, NEMOH, Capytaine, AQWA)::

    simulation_parameters/ rho g w T wave_dir water_depth scaled
    body<N>/properties/    name cg cb disp_vol dof dof_start dof_end body_number
    body<N>/hydro_coeffs/  added_mass/{all, inf_freq}
                           radiation_damping/{all, impulse_response_fun/{K, t},
                                              state_space/{A, B, C, D}/all, it}
                           excitation/{re, im, mag, phase}
                           excitation/QTF<N>/{Diff, Sum}<dof>/{PER_i, BETA_i, BETA_j,
                                                              Re_F_ij, Im_F_ij}
                           mean_drift/{momentum_conservation, pressure_integration,
                                       control_surface}/val
                           linear_restoring_stiffness

As h5py reads them (the reverse of MATLAB's index order, which ``writeBEMIOH5`` undoes
with ``permute``), body ``N``'s arrays hold its own rows and every body's columns:
``added_mass/all (dof_N, sum(dof), nw)`` with ``[i, j, k]`` the force on the body's DOF
``i`` per acceleration of DOF ``j`` (of all bodies, from ``dof_start``) at frequency
``w[k]``; ``excitation/re (dof_N, nb_headings, nw)``; ``inf_freq (dof_N, sum(dof))``;
``impulse_response_fun/K (dof_N, sum(dof), nt)``; ``state_space/A/all (dof_N, sum(dof),
order, order)`` with the order of each entry in ``it``. An array stored the other way
round (frequencies first) is read too.

What :func:`read_bemio` undoes (WEC-Sim's ``normalizeBEM`` and ``readCAPYTAINE``, and
the Python bemio's ``dimensionalize`` show each; the tests check each on the IEA OES
sphere against the same sphere from Capytaine):

* WAMIT's normalisation: added mass (and ``inf_freq``) / ``rho``, radiation damping /
  ``(rho omega)``, excitation / ``(rho g)``, hydrostatic stiffness / ``(rho g)``; the
  impulse response and the state-space realisation are of ``K / rho``. They are
  multiplied back with the file's own ``rho`` and ``g``.
* WAMIT's time factor ``exp(+i omega t)`` (WEC-Sim's Capytaine reader negates the
  imaginary part of Capytaine's ``exp(-i omega t)`` excitation to get there): the
  excitation is conjugated into frylinks' ``exp(-i omega t)``. In long waves the heave
  excitation is ``rho g A_wp``, real, in either convention; the surge excitation, in
  phase with the fluid acceleration, is ``-i`` times a positive number in frylinks'
  convention and ``+i`` times one in BEMIO's: that is what tells them apart.
* Headings ``wave_dir`` are in degrees (WAMIT's ``beta``, the direction the waves
  travel towards, as frylinks'); a ``units`` attribute ``rad`` is honoured.
* Coefficients are about the body's ``cg`` (WEC-Sim applies every hydrodynamic force
  there; WAMIT's body origin is put at the COG), which becomes the database's
  rotation centre and centre of mass; a ``cog`` that differs moves them.

Second-order data, where the file has them (``second_order``, else None): the mean
drift groups (real, ``/ (rho g)``, ``(dof_N, nb_headings, nw)`` like the excitation)
become ``mean_drift_momentum``, ``mean_drift_pressure`` and
``mean_drift_control_surface``; the QTF groups WEC-Sim writes since its QTF support
(one heading pair, already dimensional) become ``qtf_difference`` and ``qtf_sum``
(:func:`_qtfs` gives their layout).

Only the six rigid-body DOFs of each body are read (generalised body modes are left out
with a warning). A file with ``simulation_parameters/scaled`` not 0 (coefficients
already dimensional, a Python bemio option) is refused: WEC-Sim itself reads only the
normalised form.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ModelError

from .hydrodb import DOF_NAMES, HydroDatabase, MultiBodyDatabase
from .radiation import RadiationStateSpace, block_diagonal, radiation_kernel
from .raw_hydro import RawHydro, all_bodies, by_heading, single_body
from .second_order import DriftTable, SecondOrder

__all__ = ["read_bemio", "read_bemio_bodies"]

Array = np.ndarray

_BODY_GROUP = re.compile(r"body(\d+)$")

#: BEMIO's mean drift groups (``hydro_coeffs/mean_drift/<group>/val``) -> frylinks' tables.
MEAN_DRIFT_GROUPS = {"momentum_conservation": "mean_drift_momentum",
                     "pressure_integration": "mean_drift_pressure",
                     "control_surface": "mean_drift_control_surface"}
#: BEMIO's QTF groups (``hydro_coeffs/excitation/QTF<N>/<kind><dof>``) -> frylinks' tables.
QTF_KINDS = {"Diff": ("qtf_difference", "difference"), "Sum": ("qtf_sum", "sum")}


def read_bemio(path: str | Path, body: str | None = None, cog: Any = None) -> HydroDatabase:
    """Read one body of a BEMIO HDF5 file into a :class:`~frylinks_marine.hydrodb.
    HydroDatabase` (dimensional, frylinks' conventions: see the module docstring).

    Parameters
    ----------
    path
        The ``.h5`` file.
    body
        The body's name (``properties/name``) or group (``body2``); not needed for a
        file of one body. Its own coefficients are read (the diagonal block);
        :func:`read_bemio_bodies` reads all of them with the cross-body terms.
    cog
        Centre of gravity ``(3,)`` [m]; default: the file's ``cg``, about which BEMIO's
        coefficients are. A different point moves every coefficient there.

    Returns
    -------
    HydroDatabase
        With ``added_mass_inf`` from ``inf_freq`` (source ``"dataset"``; Ogilvie's
        estimate when the file has none), ``hydrostatic_stiffness`` from
        ``linear_restoring_stiffness``, and the file's impulse response
        (``kernel_time``, ``kernel``) and state-space realisation (``state_space``)
        when present.

    Raises
    ------
    ModelError
        For a missing file, a file that is not HDF5 or not BEMIO's, a missing group or
        dataset (named), arrays of unexpected shapes, missing values;
        :class:`~frylinks_marine.hydrodb.DatasetBodyError` for several bodies without
        ``body`` or an unknown body (listing the file's bodies).
    """
    return single_body(_bemio_raw(path), body, cog)


def read_bemio_bodies(path: str | Path,
                      cog: Mapping[str, Any] | None = None) -> MultiBodyDatabase:
    """Read every body of a BEMIO file, with the cross-body terms, into a
    :class:`~frylinks_marine.hydrodb.MultiBodyDatabase` (``6 N x 6 N``, frylinks' DOF
    order, each body's coefficients about its ``cg`` or ``cog[name]``)."""
    return all_bodies(_bemio_raw(path), cog)


# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------

class _File:
    """An open BEMIO file with errors that name it and the missing group or dataset."""

    def __init__(self, h5: Any, where: str) -> None:
        self.h5 = h5
        self.where = where

    def has(self, name: str) -> bool:
        import h5py

        return isinstance(self.h5.get(name), h5py.Dataset)

    def array(self, name: str, what: str = "") -> Array:
        import h5py

        node = self.h5.get(name)
        if not isinstance(node, h5py.Dataset):
            hint = f" ({what})" if what else ""
            raise ModelError(f"{self.where}: missing dataset '{name}'{hint}; not a complete "
                             "BEMIO file", name)
        value = node[()]
        try:
            return np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(f"{self.where}: dataset '{name}' holds no numbers", name) from None

    def scalar(self, name: str, what: str = "") -> float:
        values = self.array(name, what).reshape(-1)
        if values.size != 1 or not np.isfinite(values[0]):
            raise ModelError(f"{self.where}: dataset '{name}' should hold one number, got "
                             f"{values.size}", name)
        return float(values[0])

    def text(self, name: str) -> str | None:
        node = self.h5.get(name)
        if node is None:
            return None
        value = node[()]
        if isinstance(value, np.ndarray) and value.dtype.kind in "SUO" and value.size == 1:
            value = value.reshape(-1)[0]
        if isinstance(value, bytes | np.bytes_):
            return value.decode(errors="replace").strip("\x00 ")
        if isinstance(value, str):
            return value.strip("\x00 ")
        return None

    def units(self, name: str) -> str:
        node = self.h5.get(name)
        raw = node.attrs.get("units", b"") if node is not None else b""
        if isinstance(raw, np.ndarray):
            raw = raw.reshape(-1)[0] if raw.size else b""
        return raw.decode(errors="replace") if isinstance(raw, bytes | np.bytes_) \
            else str(raw)


def _bemio_raw(path: str | Path) -> RawHydro:
    path = Path(path)
    where = f"'{path}'"
    if not path.is_file():
        raise ModelError(f"{where}: no such file")
    import h5py

    try:
        h5 = h5py.File(path, "r")
    except OSError as exc:
        raise ModelError(f"{where}: not an HDF5 file h5py can read ({exc}); expected a "
                         "WEC-Sim BEMIO .h5 file") from None
    with h5:
        return _read(_File(h5, where))


def _read(f: _File) -> RawHydro:
    where = f.where
    groups = sorted(f.h5.keys())
    if "simulation_parameters" not in f.h5:
        raise ModelError(f"{where}: not a BEMIO file (no group 'simulation_parameters'; "
                         f"groups: {', '.join(groups) or 'none'}); expected the .h5 file "
                         "of WEC-Sim's BEMIO (a Capytaine netCDF dataset is named .nc)")
    numbered = sorted((int(m.group(1)), g) for g in groups
                      if (m := _BODY_GROUP.match(g)) is not None)
    if not numbered:
        raise ModelError(f"{where}: no body group ('body1', 'body2', ...) in the file; "
                         f"groups: {', '.join(groups)}")
    if f.has("simulation_parameters/scaled") and f.scalar("simulation_parameters/scaled"):
        raise ModelError(f"{where}: 'simulation_parameters/scaled' is not 0: the file holds "
                         "dimensional coefficients; frylinks reads BEMIO's normalised ones "
                         "(scaled = 0), as WEC-Sim does", "simulation_parameters/scaled")
    rho = f.scalar("simulation_parameters/rho", "water density")
    g = f.scalar("simulation_parameters/g", "gravity")
    depth = _depth(f)
    w_all = f.array("simulation_parameters/w", "wave frequencies [rad/s]").reshape(-1)
    if w_all.size < 2 or not np.isfinite(w_all).all() or np.any(w_all < 0):
        raise ModelError(f"{where}: 'simulation_parameters/w' should hold at least 2 finite "
                         "frequencies >= 0", "simulation_parameters/w")
    keep = np.nonzero(w_all > 0)[0]
    keep = keep[np.argsort(w_all[keep], kind="stable")]
    omega = w_all[keep]
    if np.any(np.diff(omega) <= 0):
        raise ModelError(f"{where}: repeated frequencies in 'simulation_parameters/w'",
                         "simulation_parameters/w")
    nw_all = w_all.size
    headings = f.array("simulation_parameters/wave_dir", "wave headings").reshape(-1)
    if f.units("simulation_parameters/wave_dir").strip().lower() not in ("rad", "radian",
                                                                          "radians"):
        headings = np.radians(headings)
    headings = np.mod(headings, 2 * np.pi)

    # each body's DOFs and its first column in the all-bodies arrays
    counts, starts, names, aliases = [], [], [], {}
    total = 0
    for b, (_, group) in enumerate(numbered):
        base = f"{group}/properties"
        dof = int(f.scalar(f"{base}/dof")) if f.has(f"{base}/dof") else 6
        start = int(f.scalar(f"{base}/dof_start")) - 1 if f.has(f"{base}/dof_start") \
            else total
        if dof < 6:
            raise ModelError(f"{where}: '{base}/dof' is {dof}; a BEMIO body has at least the "
                             "6 rigid-body DOFs", f"{base}/dof")
        counts.append(dof)
        starts.append(start)
        total += dof
        name = f.text(f"{base}/name") or group
        if name in names:
            name = group
        names.append(name)
        aliases[group] = b
    extra = [n for n, c in zip(names, counts, strict=True) if c > 6]
    if extra:
        warnings.warn(f"{where}: the generalised body modes of {', '.join(extra)} are left "
                      "out (rigid-body DOFs only)", UserWarning, stacklevel=4)
    nb = len(numbered)
    n = 6 * nb
    added_mass = np.zeros((omega.size, n, n))
    damping = np.zeros((omega.size, n, n))
    excitation = np.zeros((omega.size, headings.size, n), dtype=complex)
    # the Froude-Krylov part, when every body has it apart (excitation/froude-krylov)
    froude_krylov: Array | None = np.zeros_like(excitation)
    a_inf: Array | None = np.zeros((n, n))
    stiffness: Array | None = np.zeros((n, n))
    cgs: list[Array | None] = []
    kernel_t: Array | None = None
    kernel: Array | None = np.zeros((0, n, n))
    ss_blocks: list[tuple[int, int, Array, Array, Array]] | None = []
    drift: dict[str, Array] = {}
    qtfs: dict[str, _Qtf] = {}
    coupled = True
    for b, (_, group) in enumerate(numbered):
        rows = slice(6 * b, 6 * b + 6)
        coeffs = f"{group}/hydro_coeffs"
        dof = counts[b]

        def columns(arr: Array, name: str, body: int = b, nrows: int = dof) -> Array:
            """``arr (nrows, ncols, ...)`` -> the rigid DOFs of every body, ``(6, n,
            ...)`` (a file without cross-body columns gives the body's own only)."""
            nonlocal coupled
            if arr.shape[0] != nrows:
                raise ModelError(f"{where}: '{name}' has {arr.shape[0]} rows, expected "
                                 f"{nrows} (the body's DOFs)", name)
            out = np.zeros((6, n, *arr.shape[2:]), dtype=arr.dtype)
            if arr.shape[1] == total:
                for c in range(nb):
                    out[:, 6 * c: 6 * c + 6] = arr[:6, starts[c]: starts[c] + 6]
            elif arr.shape[1] == nrows:
                coupled = coupled and nb == 1
                out[:, 6 * body: 6 * body + 6] = arr[:6, :6]
            else:
                raise ModelError(f"{where}: '{name}' has {arr.shape[1]} columns, expected "
                                 f"{total} (all bodies' DOFs) or {nrows}", name)
            return out

        def frequency_last(name: str, what: str, ndim: int) -> Array:
            """A ``(dof, cols, nw)`` array, accepting it stored frequencies first."""
            arr = f.array(name, what)
            if arr.ndim != ndim:
                raise ModelError(f"{where}: '{name}' has {arr.ndim} dimensions, expected "
                                 f"{ndim}", name)
            if arr.shape[-1] != nw_all and arr.shape[0] == nw_all:
                arr = np.transpose(arr)
            if arr.shape[-1] != nw_all:
                raise ModelError(f"{where}: '{name}' has shape {arr.shape}; expected "
                                 f"{nw_all} frequencies along its last dimension", name)
            if not np.isfinite(arr).all():
                raise ModelError(f"{where}: '{name}' has missing values (NaN)", name)
            return arr[..., keep]

        am = columns(frequency_last(f"{coeffs}/added_mass/all", "added mass / rho", 3),
                     f"{coeffs}/added_mass/all")
        added_mass[:, rows, :] = np.moveaxis(am, 2, 0) * rho
        rd = columns(frequency_last(f"{coeffs}/radiation_damping/all",
                                    "radiation damping / (rho omega)", 3),
                     f"{coeffs}/radiation_damping/all")
        damping[:, rows, :] = np.moveaxis(rd, 2, 0) * rho * omega[:, None, None]
        re = frequency_last(f"{coeffs}/excitation/re", "excitation / (rho g), real part", 3)
        im = frequency_last(f"{coeffs}/excitation/im", "excitation / (rho g), imaginary "
                            "part", 3)
        for name, arr in ((f"{coeffs}/excitation/re", re), (f"{coeffs}/excitation/im", im)):
            if arr.shape[:2] != (dof, headings.size):
                raise ModelError(f"{where}: '{name}' has shape {arr.shape}; expected ({dof}, "
                                 f"{headings.size}, {nw_all}) (DOFs, headings, frequencies)",
                                 name)
        # BEMIO keeps WAMIT's exp(+i w t): its conjugate is frylinks' phasor
        excitation[:, :, rows] = np.transpose(re[:6] - 1j * im[:6], (2, 1, 0)) * rho * g
        fk = f"{coeffs}/excitation/froude-krylov"
        # (optional: a file whose part holds NaN, as BEMIO writes for WAMIT runs
        # without it, gives the total only)
        if froude_krylov is not None and f.has(f"{fk}/re") and f.has(f"{fk}/im") \
                and np.isfinite(f.array(f"{fk}/re")).all() \
                and np.isfinite(f.array(f"{fk}/im")).all():
            fk_re = frequency_last(f"{fk}/re", "Froude-Krylov excitation / (rho g)", 3)
            fk_im = frequency_last(f"{fk}/im", "Froude-Krylov excitation / (rho g)", 3)
            if fk_re.shape[:2] != (dof, headings.size) or fk_im.shape != fk_re.shape:
                raise ModelError(f"{where}: '{fk}/re' has shape {fk_re.shape}; expected "
                                 f"({dof}, {headings.size}, {nw_all}), as the excitation",
                                 f"{fk}/re")
            froude_krylov[:, :, rows] = np.transpose(fk_re[:6] - 1j * fk_im[:6],
                                                     (2, 1, 0)) * rho * g
        else:
            froude_krylov = None
        _mean_drift(f, coeffs, drift, rows, n, dof, headings.size, nw_all, keep, rho * g)
        _qtfs(f, coeffs, qtfs, 6 * b)
        if a_inf is not None and f.has(f"{coeffs}/added_mass/inf_freq"):
            name = f"{coeffs}/added_mass/inf_freq"
            arr = f.array(name)
            if arr.ndim == 2 and arr.shape[0] != dof and arr.shape[1] == dof:
                arr = arr.T
            if arr.ndim != 2 or not np.isfinite(arr).all():
                raise ModelError(f"{where}: '{name}' should be a finite ({dof}, {total}) "
                                 f"matrix, got shape {arr.shape}", name)
            a_inf[rows] = columns(arr, name) * rho
        else:
            a_inf = None
        stiffness = _stiffness(f, f"{coeffs}/linear_restoring_stiffness", stiffness, rows,
                               rho * g)
        cg = f.array(f"{group}/properties/cg", "centre of gravity [m]").reshape(-1) \
            if f.has(f"{group}/properties/cg") else None
        if cg is not None and (cg.shape != (3,) or not np.isfinite(cg).all()):
            raise ModelError(f"{where}: '{group}/properties/cg' should hold 3 numbers, got "
                             f"{cg.shape}", f"{group}/properties/cg")
        cgs.append(cg)
        kernel_t, kernel = _impulse_response(f, coeffs, kernel_t, kernel, rows, columns, rho)
        ss_blocks = _state_space(f, coeffs, ss_blocks, b, dof, total, starts, nb, rho)
    if not coupled:
        warnings.warn(f"{where}: the file holds each body's own coefficients only (no "
                      "cross-body columns); the cross-body terms are zero", UserWarning,
                      stacklevel=4)
    second_order = _second_order(drift, qtfs, n, omega, headings, where)
    if froude_krylov is not None:
        froude_krylov = by_heading(froude_krylov, headings)[0]
    excitation, headings = by_heading(excitation, headings)
    state_space = _assembled_state_space(ss_blocks, n, omega, damping)
    return RawHydro(
        bodies=list(names), omega=omega, added_mass=added_mass, radiation_damping=damping,
        excitation=excitation, headings=headings, added_mass_inf=a_inf,
        hydrostatic_stiffness=stiffness, inertia=None, rho=rho, g=g, water_depth=depth,
        rotation_centers=list(cgs), centers_of_mass=list(cgs),
        dofs=[DOF_NAMES] * nb, where=where,
        kernel_time=kernel_t if kernel is not None and kernel.size else None,
        kernel=kernel if kernel is not None and kernel.size else None,
        state_space=state_space, aliases=aliases, second_order=second_order,
        froude_krylov=froude_krylov)


def _depth(f: _File) -> float:
    """``water_depth``: a number, or the text ``infinite`` WEC-Sim writes for deep water
    (absent: deep water)."""
    name = "simulation_parameters/water_depth"
    text = f.text(name)
    if text is not None:
        if text.lower().startswith("inf"):
            return float("inf")
        try:
            return float(text)
        except ValueError:
            raise ModelError(f"{f.where}: '{name}' is {text!r}; expected a depth [m] or "
                             "'infinite'", name) from None
    if f.h5.get(name) is None:
        return float("inf")
    return f.scalar(name)


def _stiffness(f: _File, name: str, stiffness: Array | None, rows: slice,
               scale: float) -> Array | None:
    if stiffness is None or not f.has(name):
        return None
    arr = f.array(name)
    if arr.ndim != 2 or arr.shape[0] < 6 or arr.shape[1] < 6 or not np.isfinite(arr).all():
        raise ModelError(f"{f.where}: '{name}' should be a finite 6x6 matrix, got shape "
                         f"{arr.shape}", name)
    stiffness[rows, rows] = arr[:6, :6] * scale
    return stiffness


def _impulse_response(f: _File, coeffs: str, t: Array | None, kernel: Array | None,
                      rows: slice, columns: Any, rho: float
                      ) -> tuple[Array | None, Array | None]:
    """The body's rows of BEMIO's radiation impulse response (of ``K / rho``), if every
    body has one on the same times."""
    base = f"{coeffs}/radiation_damping/impulse_response_fun"
    if kernel is None or not (f.has(f"{base}/K") and f.has(f"{base}/t")):
        return None, None
    times = f.array(f"{base}/t").reshape(-1)
    arr = f.array(f"{base}/K")
    if arr.ndim != 3 or arr.shape[-1] != times.size or not np.isfinite(arr).all():
        return None, None  # not usable; it is only kept for comparison
    if t is not None and (t.shape != times.shape or not np.allclose(t, times)):
        return None, None
    if kernel.shape[0] == 0:
        n = kernel.shape[1]
        kernel = np.zeros((times.size, n, n))
    kernel[:, rows, :] = np.moveaxis(columns(arr, f"{base}/K"), 2, 0) * rho
    return times, kernel


def _state_space(f: _File, coeffs: str, blocks: list[Any] | None, body: int, dof: int,
                 total: int, starts: list[int], nb: int, rho: float) -> list[Any] | None:
    """The body's entries of BEMIO's state-space realisation (WEC-Sim's ``ss_A``,
    ``ss_B``, ``ss_C``, of ``K / rho``; order per entry in ``it``; ``D`` is dropped, as
    WEC-Sim does), as SISO blocks ``(row, column, A, B, C)`` over the ``6 N`` DOFs."""
    base = f"{coeffs}/radiation_damping/state_space"
    names = [f"{base}/{m}/all" for m in ("A", "B", "C")] + [f"{base}/it"]
    if blocks is None or not all(f.has(nm) for nm in names):
        return None
    a, b, c, it = (f.array(nm) for nm in names)
    cols = a.shape[1] if a.ndim == 4 else -1
    ok = (a.ndim == 4 and b.ndim == 4 and c.ndim == 4 and it.shape == a.shape[:2]
          and a.shape[0] == dof and cols in (total, dof) and np.isfinite(a).all())
    if not ok:
        return None
    out = list(blocks)
    for i in range(6):
        for c_body in range(nb):
            if cols == dof and c_body != body:
                continue
            for jj in range(6):
                j = (starts[c_body] if cols == total else 0) + jj
                p = int(it[i, j])
                if p <= 0:
                    continue
                out.append((6 * body + i, 6 * c_body + jj, a[i, j, :p, :p],
                            b[i, j, :p, 0], c[i, j, 0, :p] * rho))
    return out


def _assembled_state_space(blocks: list[Any] | None, n: int, omega: Array,
                           damping: Array) -> RadiationStateSpace | None:
    """One block-diagonal system of the file's SISO blocks, its per-entry fit error
    measured against frylinks' own impulse response of the damping (the file's ``r2t``
    is against BEMIO's, on its own time grid)."""
    if not blocks:
        return None
    a_all, b_all, c_all, order = block_diagonal(blocks, n)
    dt = np.pi / (4 * float(omega[-1]))
    t = np.arange(0.0, min(2 * np.pi / float(np.min(np.diff(omega))), 200.0), dt)
    ss = RadiationStateSpace(A=a_all, B=b_all, C=c_all, fit_error=np.full((n, n), np.nan),
                             order=order, dt=dt)
    reference = radiation_kernel(omega, damping, t)
    fitted = ss.impulse_response(t)
    error = np.full((n, n), np.nan)
    for i, j in zip(*np.nonzero(order), strict=True):
        norm = np.linalg.norm(reference[:, i, j])
        if norm > 0:
            error[i, j] = np.linalg.norm(fitted[:, i, j] - reference[:, i, j]) / norm
    return RadiationStateSpace(A=a_all, B=b_all, C=c_all, fit_error=error, order=order,
                               dt=dt)


# --------------------------------------------------------------------------------------
# Second-order data
# --------------------------------------------------------------------------------------

def _mean_drift(f: _File, coeffs: str, drift: dict[str, Array], rows: slice, n: int,
                dof: int, nh: int, nw_all: int, keep: Array, scale: float) -> None:
    """The body's rows of each mean drift table the file holds (``/ (rho g)``, real,
    ``(dof, nh, nw)`` as h5py reads them, or frequencies first), into ``drift[name]``
    ``(nw, nh, n)`` (NaN where a body gives none)."""
    for group, table in MEAN_DRIFT_GROUPS.items():
        name = f"{coeffs}/mean_drift/{group}/val"
        if not f.has(name):
            continue
        arr = f.array(name)
        if arr.ndim == 3 and arr.shape[-1] != nw_all and arr.shape[0] == nw_all:
            arr = np.transpose(arr)
        if arr.ndim != 3 or arr.shape != (dof, nh, nw_all):
            raise ModelError(f"{f.where}: '{name}' has shape {arr.shape}; expected ({dof}, "
                             f"{nh}, {nw_all}) (DOFs, headings, frequencies)", name)
        values = drift.setdefault(table, np.full((keep.size, nh, n), np.nan, dtype=complex))
        values[:, :, rows] = np.transpose(arr[:6], (2, 1, 0))[keep] * scale


class _Qtf:
    """One kind of QTF gathered body by body: frequencies, heading pair, values."""

    def __init__(self, omega: Array, beta: tuple[float, float], source: str) -> None:
        self.omega = omega
        self.beta = beta
        self.source = source
        self.values: dict[int, Array] = {}  # DOF index (6 N order) -> (nw, nw)


def _qtfs(f: _File, coeffs: str, qtfs: dict[str, _Qtf], first: int) -> None:
    """The body's QTFs, as WEC-Sim's ``writeBEMIOH5`` stores them (from ``readWAMIT``'s
    ``.12d``/``.12s``, made full by ``triToFullMatrix``): per DOF ``d`` a group
    ``excitation/QTF<N>/Diff<d>`` (and ``Sum<d>``) with ``PER_i`` ``(nw,)`` [s],
    ``BETA_i``, ``BETA_j`` [deg] and ``Re_F_ij``, ``Im_F_ij``, the ``nw x nw`` matrix in
    MATLAB's column order, already dimensional (``rho g ULEN^m``, ``ULEN = 1``) and
    already conjugated from WAMIT's ``exp(+i omega t)``: read in C order, entry ``[a, b]``
    is frylinks' ``T(omega_a, omega_b)`` (see :mod:`frylinks_marine.second_order`), but
    for the diagonal, which ``triToFullMatrix`` conjugates twice (it writes ``F(i, j)``
    then ``F(j, i) = conj(F(i, j))``, the same entry when ``i = j``) and so keeps WAMIT's
    phase: real in theory (the mean drift), it is read as stored."""
    node = f.h5.get(f"{coeffs}/excitation")
    if node is None or not hasattr(node, "keys"):
        return
    for group in sorted(k for k in node.keys() if re.fullmatch(r"QTF\d*", k)):
        base = f"{coeffs}/excitation/{group}"
        for sub in sorted(f.h5[base].keys()):
            match = re.fullmatch(r"(Diff|Sum)(\d+)", sub)
            if match is None or not 1 <= int(match.group(2)) <= 6:
                continue  # generalised modes are left out, as for the first order
            table, _ = QTF_KINDS[match.group(1)]
            path = f"{base}/{sub}"
            periods = f.array(f"{path}/PER_i", "QTF periods [s]").reshape(-1)
            if periods.size < 1 or np.any(periods <= 0) or not np.isfinite(periods).all():
                raise ModelError(f"{f.where}: '{path}/PER_i' should hold periods > 0",
                                 f"{path}/PER_i")
            nq = periods.size
            parts = [f.array(f"{path}/{c}", "QTF, real and imaginary parts").reshape(-1)
                     for c in ("Re_F_ij", "Im_F_ij")]
            if any(p.size != nq * nq for p in parts):
                raise ModelError(f"{f.where}: '{path}/Re_F_ij' and 'Im_F_ij' should hold "
                                 f"{nq} x {nq} values (the periods of PER_i), got "
                                 f"{parts[0].size} and {parts[1].size}", f"{path}/Re_F_ij")
            betas = []
            for c in ("BETA_i", "BETA_j"):
                beta = f.array(f"{path}/{c}", "QTF heading [deg]").reshape(-1)
                if beta.size == 0 or not np.allclose(beta, beta[0]):
                    raise ModelError(f"{f.where}: '{path}/{c}' should hold one heading; "
                                     "frylinks reads a BEMIO QTF of one heading pair",
                                     f"{path}/{c}")
                betas.append(float(np.mod(np.radians(beta[0]), 2 * np.pi)))
            omega = 2 * np.pi / periods
            order = np.argsort(omega)
            matrix = (parts[0] + 1j * parts[1]).reshape(nq, nq)[np.ix_(order, order)]
            qtf = qtfs.setdefault(table, _Qtf(omega[order], (betas[0], betas[1]), path))
            if qtf.omega.shape != omega.shape or not np.allclose(qtf.omega, omega[order]) \
                    or not np.allclose(qtf.beta, betas):
                raise ModelError(f"{f.where}: '{path}' has other frequencies or headings "
                                 f"than '{qtf.source}'; frylinks needs one grid for every "
                                 "DOF and body", path)
            qtf.values[first + int(match.group(2)) - 1] = matrix


def _second_order(drift: dict[str, Array], qtfs: dict[str, _Qtf], n: int, omega: Array,
                  headings: Array, where: str) -> SecondOrder | None:
    """The tables read, each over all the bodies' ``n`` DOFs, sorted by heading."""
    if not drift and not qtfs:
        return None
    tables: dict[str, DriftTable] = {}
    for name, values in drift.items():
        values, sorted_headings = by_heading(values, headings)
        tables[name] = DriftTable(omega=omega, headings=sorted_headings, values=values,
                                  kind="mean_drift", source=where)
    for name, qtf in qtfs.items():
        kind = "difference" if name == "qtf_difference" else "sum"
        pair = np.unique(np.array(qtf.beta))
        nw = qtf.omega.size
        values = np.full((nw, nw, pair.size, pair.size, n), np.nan, dtype=complex)
        hi, hj = (int(np.searchsorted(pair, b)) for b in qtf.beta)
        for dof, matrix in qtf.values.items():
            if hi != hj:  # the other heading order by the table's symmetry
                values[:, :, hj, hi, dof] = np.conj(matrix.T) if kind == "difference" \
                    else matrix.T
            values[:, :, hi, hj, dof] = matrix
        tables[name] = DriftTable(omega=qtf.omega, headings=pair, values=values, kind=kind,
                                  source=where)
    return SecondOrder(**tables)
