"""WAMIT's numeric output files, read into frylinks' hydrodynamic database.

One WAMIT run writes a set of files sharing a stem; any one of them (or the stem) names
the set, each may be gzipped (:mod:`frylinks_marine.wamit_files` parses them):

========  =================================================  ==========================
file      columns                                            read into
========  =================================================  ==========================
``.1``    ``PER I J Abar [Bbar]``                            added mass, damping
                                                             (required)
``.3``    ``PER BETA I |Xbar| phase Re Im`` (diffraction;    excitation
          ``.2``, Haskind, when there is no ``.3``)
``.hst``  ``I J Cbar``                                       hydrostatic stiffness
``.8``    ``PER BETA [BETA2] I |Fbar| phase Re Im``          mean drift, momentum
``.9``    the same                                           mean drift, pressure
``.12d``  ``PER_i PER_j BETA_i BETA_j I |T| phase Re Im``    difference-frequency QTF
``.12s``  the same                                           sum-frequency QTF
========  =================================================  ==========================

Mode indices ``I, J = 6 (body - 1) + dof`` run over the ``6 NBODY`` modes in WAMIT's
order, which is frylinks' (surge, sway, heave, roll, pitch, yaw); ``NBODY`` is the
largest index over 6 and must be the same in every file. Bodies have no names: they are
``body1``, ``body2``, ... (also accepted as ``1``, ``2``, ...).

Units: WAMIT writes coefficients non-dimensionalised by the water density ``rho``,
gravity ``g``, its length scale ``ULEN = L`` and the wave amplitude ``A``; the reader
multiplies them back (WAMIT User Manual, "Definitions of the nondimensional
quantities"), with ``dof`` ``i, j`` in 1-3 (translations) or 4-6 (rotations)::

    A_ij = rho L^k Abar_ij               k = 3 (i, j in 1-3), 5 (both in 4-6), 4 otherwise
    B_ij = rho L^k omega Bbar_ij         the same k
    C_ij = rho g L^k Cbar_ij             k = 2 (i, j in 1-3), 4 (both in 4-6), 3 otherwise
    X_i  = rho g A L^m Xbar_i            m = 2 (i in 1-3), 3 (i in 4-6), per A = 1 m
    F_i  = rho g A^2 L^m Fbar_i          m = 1 (i in 1-3), 2 (i in 4-6), per A = 1 m
                                          (mean drift and QTFs)

``PER`` is the period [s] (``period_is="period"``, WAMIT's default ``IPEROUT = 1``) or
the angular frequency [rad/s] (``"frequency"``); ``omega = 2 pi / PER``, ascending. In
the ``.1`` file the lines of only ``A`` are the limits: in periods, ``PER = -1``
(infinite period) is the zero-frequency added mass
(:attr:`~frylinks_marine.hydrodb.HydroDatabase.added_mass_zero`) and ``PER = 0`` the
infinite-frequency one (``added_mass_inf``); in frequencies ``0`` is zero frequency and
``-1`` infinite frequency (an assumption: the files here are in periods). Excitation
lines at ``PER <= 0`` are skipped; the excitation must be on the ``.1`` file's
frequencies.

Phases: WAMIT's time factor is ``exp(+i omega t)``; every complex value (excitation,
mean drift, QTFs) is conjugated into frylinks' ``exp(-i omega t)``
(:mod:`frylinks_marine.second_order` says what the second-order tables mean). Headings
``BETA`` [deg] are the direction the waves travel towards, as frylinks'.

QTFs: WAMIT may write one triangle of the ``(omega_i, omega_j)`` plane or both; the
other is filled by the symmetries the tables have in exact arithmetic, Hermitian for
the difference frequency, ``T-(w_j, w_i, b_j, b_i) = conj(T-(w_i, w_j, b_i, b_j))``, and
plain for the sum, ``T+(w_j, w_i, b_j, b_i) = T+(w_i, w_j, b_i, b_j)``; an entry the file
gives itself is kept as given. Mean drift from an 8-column file (two headings, WAMIT 7)
keeps the lines of one heading (``BETA = BETA2``). Entries given by neither are NaN.

Reference point: WAMIT's coefficients are about the origin of each body's coordinate
system, the database's ``rotation_center`` ``(0, 0, 0)``; where the body's COG lies in
those coordinates the numeric files do not record (it is in the ``.out`` file): a
``cog`` given (a force's ``hydrodynamics_cog``) moves the coefficients to it, and
without one they are taken as about the COG. The ``.hst`` stiffness holds
whatever gravity terms WAMIT's run put there (OpenFAST's files: none, the centre of
gravity at the origin).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ModelError

from .hydrodb import DOF_NAMES, HydroDatabase, MultiBodyDatabase
from .raw_hydro import RawHydro, all_bodies, single_body
from .second_order import DriftTable, SecondOrder
from .wamit_files import Table, body_count, mode_indices, read_table, wamit_file_set

__all__ = ["read_wamit", "read_wamit_bodies", "wamit_raw"]

Array = np.ndarray

#: OpenFAST's (HydroDyn's) defaults for these files [kg/m^3], [m/s^2].
RHO, G = 1025.0, 9.80665

#: Two headings [deg] closer than this are one.
_HEADING_DIGITS = 6


def read_wamit(path: str | Path, body: str | None = None, cog: Any = None, *,
               ulen: float = 1.0, rho: float = RHO, g: float = G,
               period_is: str = "period") -> HydroDatabase:
    """Read one body of a WAMIT run into a :class:`~frylinks_marine.hydrodb.HydroDatabase`
    (dimensional, frylinks' conventions: see the module docstring).

    Parameters
    ----------
    path
        Any file of the set (``spar.1``, ``marin_semi.12d.gz``) or its stem.
    body
        ``body1``, ``body2``, ... (or ``1``, ``2``); not needed for a run of one body.
        Its own coefficients are read (the diagonal block); :func:`read_wamit_bodies`
        reads all of them with the cross-body terms.
    cog
        Centre of gravity ``(3,)`` [m], taken as the WAMIT body origin the coefficients
        are about (they are not moved).
    ulen, rho, g
        WAMIT's length scale ``ULEN`` [m], and the density [kg/m^3] and gravity
        [m/s^2] the coefficients are made dimensional with.
    period_is
        ``"period"`` (WAMIT's ``PER`` in seconds) or ``"frequency"`` (in rad/s).

    Returns
    -------
    HydroDatabase
        With ``added_mass_inf`` from the ``PER = 0`` lines (Ogilvie's estimate without
        them), ``added_mass_zero`` from ``PER = -1``, ``hydrostatic_stiffness`` from the
        ``.hst`` file, ``second_order`` from the ``.8``, ``.9``, ``.12d``, ``.12s``
        files present. Without a ``.3`` or ``.2`` file the excitation has no headings
        and :meth:`~frylinks_marine.hydrodb.HydroDatabase.require_excitation` names the
        missing file.

    Raises
    ------
    ModelError
        For a missing ``.1`` file, a line of a file that is not of its layout, a mode
        index out of range, files that disagree on the body count or frequencies (each
        naming the file and line); :class:`~frylinks_marine.hydrodb.DatasetBodyError`
        for several bodies without ``body`` or an unknown body.
    """
    return single_body(wamit_raw(path, ulen=ulen, rho=rho, g=g, period_is=period_is),
                       None if body is None else str(body), cog)


def read_wamit_bodies(path: str | Path, cog: Mapping[str, Any] | None = None, *,
                      ulen: float = 1.0, rho: float = RHO, g: float = G,
                      period_is: str = "period") -> MultiBodyDatabase:
    """Read every body of a WAMIT run, with the cross-body terms, into a
    :class:`~frylinks_marine.hydrodb.MultiBodyDatabase` (``6 N x 6 N``; parameters as
    :func:`read_wamit`)."""
    return all_bodies(wamit_raw(path, ulen=ulen, rho=rho, g=g, period_is=period_is), cog)


def wamit_raw(path: str | Path, *, ulen: float = 1.0, rho: float = RHO, g: float = G,
              period_is: str = "period") -> RawHydro:
    """The arrays of a WAMIT run over all its bodies (:class:`~frylinks_marine.
    raw_hydro.RawHydro`), dimensional, in frylinks' conventions."""
    if period_is not in ("period", "frequency"):
        raise ModelError(f"period_is is {period_is!r}; accepted: period, frequency",
                         "period_is")
    for name, value in (("ulen", ulen), ("rho", rho), ("g", g)):
        if not (np.isfinite(value) and value > 0):
            raise ModelError(f"{name} is {value!r}; expected a number > 0", name)
    stem, files = wamit_file_set(path)
    if ".1" not in files:
        found = ", ".join(p.name for p in files.values()) or "none"
        raise ModelError(f"'{path}': no WAMIT added-mass and damping file '{stem}.1' (or "
                         f".1.gz); files of the set found: {found}")
    if ".3" in files:
        files.pop(".2", None)  # Haskind's excitation only stands in for the diffraction's
    tables = {s: read_table(p, s) for s, p in files.items()}
    excitation_file = ".3" if ".3" in tables else ".2" if ".2" in tables else None
    modes = {s: (t, _modes(s, t)) for s, t in tables.items()}
    nb = body_count(modes)
    n = 6 * nb
    units = _Units(n, ulen, rho, g)
    to_omega = _omega_of(period_is)

    omega, added_mass, damping, a_inf, a_zero = _radiation(tables[".1"], n, units, to_omega,
                                                           period_is)
    if excitation_file is None:
        excitation = np.zeros((omega.size, 0, n), dtype=complex)
        headings = np.zeros(0)
        absent: str | None = (f"no WAMIT excitation file '{stem}.3' or '{stem}.2' (nor "
                              ".gz) beside the .1 file")
    else:
        excitation, headings = _excitation(tables[excitation_file], omega, n, units,
                                           to_omega)
        absent = None
    stiffness = None
    if ".hst" in tables:
        t = tables[".hst"]
        i, j = mode_indices(t, 0), mode_indices(t, 1)
        stiffness = np.zeros((n, n))
        stiffness[i, j] = t.rows[:, 2] * units.stiffness[i, j]
    second = SecondOrder(
        mean_drift_momentum=_drift(tables.get(".8"), n, units, to_omega),
        mean_drift_pressure=_drift(tables.get(".9"), n, units, to_omega),
        qtf_difference=_qtf(tables.get(".12d"), n, units, to_omega, "difference"),
        qtf_sum=_qtf(tables.get(".12s"), n, units, to_omega, "sum"))
    names = [f"body{b + 1}" for b in range(nb)]
    return RawHydro(
        bodies=list(names), omega=omega, added_mass=added_mass, radiation_damping=damping,
        excitation=excitation, headings=headings, added_mass_inf=a_inf,
        hydrostatic_stiffness=stiffness, inertia=None, rho=rho, g=g,
        water_depth=float("inf"), rotation_centers=[np.zeros(3) for _ in range(nb)],
        centers_of_mass=[None] * nb, dofs=[DOF_NAMES] * nb,
        where=f"'{files['.1']}'", aliases={str(b + 1): b for b in range(nb)},
        added_mass_zero=a_zero, excitation_absent=absent,
        second_order=second if second.tables else None)


def _modes(suffix: str, t: Table) -> Array:
    """Each line's (largest) 0-based mode index."""
    if suffix in (".1", ".hst"):
        column = 1 if suffix == ".1" else 0
        return np.maximum(mode_indices(t, column), mode_indices(t, column + 1))
    if suffix in (".8", ".9"):  # 7 columns, or 8 with a second heading
        return mode_indices(t, 3 if np.isfinite(t.rows[:, 7]).any() else 2)
    return mode_indices(t, 4 if suffix in (".12d", ".12s") else 2)


class _Units:
    """The factors that make WAMIT's coefficients dimensional, ``(n, n)`` or ``(n,)``."""

    def __init__(self, n: int, ulen: float, rho: float, g: float) -> None:
        rot = (np.arange(n) % 6 >= 3).astype(int)  # 0: translation, 1: rotation
        pair = rot[:, None] + rot[None, :]
        self.added_mass = rho * ulen ** (3.0 + pair)
        self.stiffness = rho * g * ulen ** (2.0 + pair)
        self.excitation = rho * g * ulen ** (2.0 + rot)
        self.second_order = rho * g * ulen ** (1.0 + rot)


def _omega_of(period_is: str) -> Any:
    if period_is == "period":
        return lambda per: 2 * np.pi / per
    return lambda per: np.asarray(per, dtype=float)


def _radiation(t: Table, n: int, units: _Units, to_omega: Any, period_is: str
               ) -> tuple[Array, Array, Array, Array | None, Array | None]:
    per, rows = t.rows[:, 0], t.rows
    i, j = mode_indices(t, 1), mode_indices(t, 2)
    limit = ~np.isfinite(rows[:, 4])
    zero_flag, inf_flag = (-1.0, 0.0) if period_is == "period" else (0.0, -1.0)
    odd = np.nonzero(limit & (per != zero_flag) & (per != inf_flag))[0]
    if odd.size:
        raise ModelError(f"{t.at(int(odd[0]))}: PER = {per[odd[0]]:g} with no damping "
                         f"column; only the limits PER = -1 and 0 may have A alone "
                         f"({t.layout})")
    bad = np.nonzero(~limit & (per <= 0))[0]
    if bad.size:
        raise ModelError(f"{t.at(int(bad[0]))}: PER = {per[bad[0]]:g} with a damping "
                         f"column; expected a {period_is} > 0 ({t.layout})")
    regular = ~limit
    if not regular.any():
        raise ModelError(f"{t.where}: no line with damping (PER > 0); expected {t.layout}")
    omega_lines = to_omega(per[regular])
    omega = np.unique(omega_lines)
    if omega.size < 2:
        raise ModelError(f"{t.where}: {omega.size} frequency; expected at least 2")
    k = np.searchsorted(omega, omega_lines)
    ii, jj = i[regular], j[regular]
    added_mass = np.zeros((omega.size, n, n))
    damping = np.zeros((omega.size, n, n))
    added_mass[k, ii, jj] = rows[regular, 3] * units.added_mass[ii, jj]
    damping[k, ii, jj] = rows[regular, 4] * units.added_mass[ii, jj] * omega[k]

    def limit_matrix(flag: float) -> Array | None:
        pick = limit & (per == flag)
        if not pick.any():
            return None
        out = np.zeros((n, n))
        out[i[pick], j[pick]] = rows[pick, 3] * units.added_mass[i[pick], j[pick]]
        return out

    return omega, added_mass, damping, limit_matrix(inf_flag), limit_matrix(zero_flag)


def _headings(beta_deg: Array) -> tuple[Array, Array]:
    """Headings [rad] in ``[0, 2 pi)``, distinct and ascending, and each line's index."""
    rounded = np.round(np.mod(beta_deg, 360.0), _HEADING_DIGITS) % 360.0
    distinct, index = np.unique(rounded, return_inverse=True)
    return np.radians(distinct), index


def _excitation(t: Table, omega: Array, n: int, units: _Units, to_omega: Any
                ) -> tuple[Array, Array]:
    rows = t.rows[t.rows[:, 0] > 0]
    lines = t.lines[t.rows[:, 0] > 0]
    if rows.size == 0:
        raise ModelError(f"{t.where}: no line with PER > 0; expected {t.layout}")
    sub = Table(rows=rows, lines=lines, where=t.where, layout=t.layout)
    w = to_omega(rows[:, 0])
    k = np.searchsorted(omega, w).clip(0, omega.size - 1)
    off = np.nonzero(~np.isclose(omega[k], w, rtol=1e-9, atol=0.0))[0]
    if off.size:
        raise ModelError(f"{sub.at(int(off[0]))}: frequency {w[off[0]]:.6g} rad/s (PER "
                         f"{rows[off[0], 0]:g}) is not one of the .1 file's; expected the "
                         "excitation on the added mass's frequencies")
    headings, h = _headings(rows[:, 1])
    i = mode_indices(sub, 2)
    seen = np.zeros((omega.size, headings.size), dtype=bool)
    seen[k, h] = True
    if not seen.all():
        kw, kh = (int(a[0]) for a in np.nonzero(~seen))
        raise ModelError(f"{t.where}: no excitation at omega {omega[kw]:.6g} rad/s, heading "
                         f"{np.degrees(headings[kh]):g} deg; expected every heading at every "
                         "frequency of the .1 file")
    excitation = np.zeros((omega.size, headings.size, n), dtype=complex)
    # WAMIT's exp(+i w t): the conjugate is frylinks' phasor
    excitation[k, h, i] = (rows[:, 5] - 1j * rows[:, 6]) * units.excitation[i]
    return excitation, headings


def _drift(t: Table | None, n: int, units: _Units, to_omega: Any) -> DriftTable | None:
    if t is None:
        return None
    two_headings = t.rows.shape[1] == 8 and np.isfinite(t.rows[:, 7]).all()
    rows, lines = t.rows, t.lines
    if two_headings:
        keep = np.isclose(np.mod(rows[:, 1] - rows[:, 2] + 180.0, 360.0), 180.0)
        rows, lines = rows[keep], lines[keep]
    elif t.rows.shape[1] == 8 and np.isfinite(t.rows[:, 7]).any():
        raise ModelError(f"{t.where}: lines of 7 and 8 columns mixed; expected one layout "
                         f"({t.layout})")
    else:
        rows = np.insert(rows[:, :7], 2, rows[:, 1], axis=1)  # as if BETA2 = BETA
    keep = rows[:, 0] > 0
    rows, lines = rows[keep], lines[keep]
    if rows.size == 0:
        raise ModelError(f"{t.where}: no line of one heading with PER > 0; expected "
                         f"{t.layout}")
    sub = Table(rows=rows, lines=lines, where=t.where, layout=t.layout)
    w = to_omega(rows[:, 0])
    omega, k = np.unique(w, return_inverse=True)
    headings, h = _headings(rows[:, 1])
    i = mode_indices(sub, 3)
    values = np.full((omega.size, headings.size, n), np.nan, dtype=complex)
    values[k, h, i] = (rows[:, 6] - 1j * rows[:, 7]) * units.second_order[i]
    return DriftTable(omega=omega, headings=headings, values=values, kind="mean_drift",
                      source=t.where)


def _qtf(t: Table | None, n: int, units: _Units, to_omega: Any, kind: str
         ) -> DriftTable | None:
    if t is None:
        return None
    rows = t.rows
    bad = np.nonzero((rows[:, 0] <= 0) | (rows[:, 1] <= 0))[0]
    if bad.size:
        raise ModelError(f"{t.at(int(bad[0]))}: PER_i, PER_j should be > 0; expected "
                         f"{t.layout}")
    w_i, w_j = to_omega(rows[:, 0]), to_omega(rows[:, 1])
    omega, index = np.unique(np.concatenate([w_i, w_j]), return_inverse=True)
    ki, kj = index[: len(rows)], index[len(rows):]
    headings, h = _headings(np.concatenate([rows[:, 2], rows[:, 3]]))
    hi, hj = h[: len(rows)], h[len(rows):]
    d = mode_indices(t, 4)
    value = (rows[:, 7] - 1j * rows[:, 8]) * units.second_order[d]
    values = np.full((omega.size, omega.size, headings.size, headings.size, n), np.nan,
                     dtype=complex)
    # the mirror first, so that an entry the file gives itself overrides it
    values[kj, ki, hj, hi, d] = np.conj(value) if kind == "difference" else value
    values[ki, kj, hi, hj, d] = value
    return DriftTable(omega=omega, headings=headings, values=values, kind=kind,
                      source=t.where)
