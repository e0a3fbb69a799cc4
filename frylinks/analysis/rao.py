"""The linear response to unit regular waves: response amplitude operators (RAOs) and
the power each link and force element absorbs, per frequency and heading.

In the links' independent coordinates (:mod:`.linearise`), with phasors of
``Re(y exp(-1j w t))`` (the hydrodynamic data's convention)::

    (-w^2 M(w) - 1j w C(w) + K) y = Q(w, heading)

``M(w)``, ``C(w)`` hold ``A(w)``, ``B(w)`` of the force types with frequency-domain
coefficients (radiation); ``Q`` sums the force types' excitation by a unit-amplitude
wave (:meth:`~frylinks.forces.ForceType.wave_excitation`), phased against the elevation
at the world origin. Every other force (PTO, mooring, springs, drag about a current) is
linearised about the static equilibrium: a quadratic drag has no linear part at rest, so
it adds no damping here (stated in the Dataset's ``linearisation`` attribute).

The mean power a link spring-damper or a force element absorbs, per unit wave amplitude
squared, is ``-1/2 Re(Q_e . conj(v_e))``, its generalised force against its own rate: a
PTO's absorbed power, a radiation force's radiated power; a wave excitation's is
negative (the power the wave brings in), and they sum to zero. In a sea of amplitude
``a`` the mean power is ``a^2`` times it (a power matrix, :func:`power_matrix`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import FrylinksError
from ..links import DOFS
from .linearise import LinearModel
from .operating_point import OperatingPoint, operating_point

if TYPE_CHECKING:
    import xarray as xr

    from ..engine import State
    from ..system import System

Array = np.ndarray

#: Default periods of :func:`rao` [s]: 3 to 25 s, 100 of them (even in frequency).
DEFAULT_PERIODS = (3.0, 25.0, 100)


def excitation(lin: LinearModel, omega: Array, heading: float) -> tuple[Array, list[Any]]:
    """The generalised wave force ``(nw, ny)`` of unit-amplitude waves, and per force
    element that gives one, ``(index, (nw, ny) its part)``."""
    nb, ny = lin.model.nb_bodies, lin.nb_coordinates
    T = lin.basis.reshape(nb, 6, ny)
    total = np.zeros((len(omega), ny), dtype=complex)
    parts = []
    for blk in lin.model.force_blocks:
        X = blk.kind.wave_excitation(omega, heading)
        if X is None:
            continue
        body = blk.attachments[0].body
        for e in range(len(body)):
            if body[e] >= nb:
                continue
            q = np.asarray(X[e]) @ T[body[e]]
            total += q
            parts.append((int(blk.index[e]), q))
    return total, parts


def solve(lin: LinearModel, omega: Array, heading: float) -> dict[str, Array]:
    """Responses to unit waves at frequencies ``omega`` ``(nw,)`` and one heading [rad].

    Returns
    -------
    dict
        ``y (nw, ny)`` coordinates, ``body (nw, nb, 6)``, ``link (nw, nl, 6)`` link
        displacement, ``link_power (nw, nl)``, ``force_power (nw, nf)`` [W m-2].
    """
    model = lin.model
    nb, nl, nf = model.nb_bodies, len(model.link_names), len(model.force_names)
    Q, parts = excitation(lin, omega, heading)
    nw, ny = len(omega), lin.nb_coordinates
    y = np.zeros((nw, ny), dtype=complex)
    link_power = np.zeros((nw, nl))
    force_power = np.zeros((nw, nf))
    for k, w in enumerate(omega):
        M, C = lin.at(float(w))
        Z = -w**2 * M - 1j * w * C + lin.stiffness
        y[k] = np.linalg.solve(Z, Q[k])
        v = -1j * w * y[k]
        spring = lin.spring_position @ y[k] + lin.spring_velocity @ v   # (nl, 6)
        rate = lin.free_velocity @ v
        link_power[k] = -0.5 * np.real(np.sum(spring * np.conj(rate), axis=1))
        gen = lin.force_position @ y[k] + lin.force_velocity @ v        # (nf, ny)
        force_power[k] = -0.5 * np.real(gen @ np.conj(v))
        for index, q in parts:
            force_power[k, index] += -0.5 * np.real(q[k] @ np.conj(v))
        for fb in lin.frequency_blocks:
            coeffs = fb.blk.kind.frequency_coefficients(float(w))
            assert coeffs is not None
            A, B = coeffs
            n = len(fb.blk.index)
            # the radiation force on each element's body, -(-w^2 A - 1j w B) xi
            force = (w**2 * A + 1j * w * B) @ (fb.basis @ y[k])
            rows = fb.basis.reshape(n, 6, ny)
            for e in range(n):
                q = force[6 * e: 6 * e + 6] @ rows[e]
                force_power[k, fb.blk.index[e]] += -0.5 * np.real(q @ np.conj(v))
    body = (y @ lin.basis.T).reshape(nw, nb, 6)
    link = np.einsum("lij,wj->wli", lin.link_position, y)
    return {"y": y, "body": body, "link": link, "link_power": link_power,
            "force_power": force_power}


def frequencies(omega: Sequence[float] | None = None, periods: Sequence[float] | None = None
                ) -> Array:
    """Angular frequencies [rad s-1] from ``omega`` or ``periods`` [s] (one of them; the
    default :data:`DEFAULT_PERIODS`), ascending."""
    if omega is not None and periods is not None:
        raise FrylinksError("give the frequencies or the periods of the waves, not both")
    if omega is None:
        if periods is None:
            lo, hi, n = DEFAULT_PERIODS
            w = np.linspace(2 * np.pi / hi, 2 * np.pi / lo, int(n))
        else:
            p = np.asarray(periods, dtype=float).reshape(-1)
            if not p.size or not np.all(np.isfinite(p)) or np.any(p <= 0):
                raise FrylinksError(f"wave periods: expected periods > 0 [s], got {periods}")
            w = 2 * np.pi / p
    else:
        w = np.asarray(omega, dtype=float).reshape(-1)
        if not w.size or not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise FrylinksError(f"wave frequencies: expected frequencies > 0 [rad/s], got "
                                f"{omega}")
    return np.unique(w)


def rao(target: System | str | Path, *, omega: Sequence[float] | None = None,
        periods: Sequence[float] | None = None, headings_deg: Sequence[float] = (0.0,),
        equilibrium: bool = True, state: State | None = None) -> xr.Dataset:
    """Response amplitude operators of a system or case file in unit regular waves.

    Parameters
    ----------
    target
        A :class:`~frylinks.System` or the path of a case file.
    omega, periods
        Wave frequencies [rad s-1] or periods [s] (default: 100 frequencies over
        periods of 3 to 25 s).
    headings_deg
        Directions the waves travel towards [deg] (0: towards +x).
    equilibrium, state
        The state linearised about, as in :func:`frylinks.analysis.modes`.

    Returns
    -------
    xarray.Dataset
        Over ``(heading, omega)`` (``period`` a coordinate along ``omega``):
        ``body_rao_amplitude`` / ``_phase`` ``(heading, omega, body, dof)``,
        ``link_rao_amplitude`` / ``_phase`` ``(heading, omega, link, dof)``,
        ``link_power`` ``(heading, omega, link)`` and ``force_power`` ``(heading,
        omega, force)``, mean absorbed power per unit wave amplitude squared [W m-2].
    """
    w = frequencies(omega, periods)
    return rao_dataset(operating_point(target, equilibrium, state), w, headings_deg)


def rao_dataset(op: OperatingPoint, omega: Array, headings_deg: Sequence[float]) -> xr.Dataset:
    """The Dataset of :func:`rao` for a linearised model."""
    import xarray as xr

    lin = op.linear
    model = op.model
    headings = np.asarray(headings_deg, dtype=float).reshape(-1)
    results = [solve(lin, omega, float(np.radians(h))) for h in headings]
    body = np.stack([r["body"] for r in results])
    link = np.stack([r["link"] for r in results])
    dof_units = ["m m-1"] * 3 + ["rad m-1"] * 3

    def var(dims: tuple[str, ...], values: Array, units: str, long_name: str) -> xr.Variable:
        return xr.Variable(dims, values, {"units": units, "long_name": long_name})

    per = "per metre of wave amplitude; units per DOF in dof_units"
    ds = xr.Dataset(
        {
            "body_rao_amplitude": var(("heading", "omega", "body", "dof"), np.abs(body), "1",
                                      f"body motion amplitude (COG, world axes) {per}"),
            "body_rao_phase": var(("heading", "omega", "body", "dof"), np.degrees(
                np.angle(body)), "degree", "body motion phase against the wave elevation at "
                "the origin (Re(X exp(-i w t)): positive lags)"),
            "link_rao_amplitude": var(("heading", "omega", "link", "dof"), np.abs(link), "1",
                                      f"link displacement amplitude (master-node axes) {per}"),
            "link_rao_phase": var(("heading", "omega", "link", "dof"), np.degrees(
                np.angle(link)), "degree", "link displacement phase against the wave "
                "elevation at the origin"),
            "link_power": var(("heading", "omega", "link"),
                              np.stack([r["link_power"] for r in results]), "W m-2",
                              "mean power absorbed by the link's spring-damper per unit wave "
                              "amplitude squared"),
            "force_power": var(("heading", "omega", "force"),
                               np.stack([r["force_power"] for r in results]), "W m-2",
                               "mean power absorbed by the force element per unit wave "
                               "amplitude squared (negative: power brought in)"),
        },
        coords={
            "heading": ("heading", headings, {"units": "degree",
                                              "long_name": "direction the waves travel "
                                                           "towards (0: +x)"}),
            "omega": ("omega", omega, {"units": "rad s-1",
                                       "long_name": "wave angular frequency"}),
            "period": ("omega", 2 * np.pi / omega, {"units": "s", "long_name": "wave period"}),
            "body": list(model.body_names), "link": list(model.link_names),
            "force": list(model.force_names), "dof": list(DOFS),
            "dof_units": ("dof", dof_units, {"long_name": "units of the RAO of each DOF"}),
        },
        attrs={**op.attributes("rao"), "linearisation": linearisation_note(lin)})
    return ds


def linearisation_note(lin: LinearModel) -> str:
    """What the linear model holds, for the Dataset's attributes."""
    freq = ", ".join(sorted({fb.blk.kind.name for fb in lin.frequency_blocks})) or "none"
    return ("forces linearised about the static equilibrium by central differences of "
            "the engine's evaluation (a quadratic drag has no linear part at rest: no "
            f"damping from it); frequency-dependent A(w), B(w) from: {freq}")


def power_matrix(ds: xr.Dataset, heights: Sequence[float], periods: Sequence[float],
                 name: str, variable: str = "link_power", heading: float | None = None
                 ) -> xr.DataArray:
    """Mean absorbed power [W] of link or force ``name`` in regular waves of each height
    [m] and period [s]: ``(H / 2)^2`` times the power per unit amplitude squared,
    interpolated linearly in frequency (give periods within the RAO's)."""
    import xarray as xr

    da = ds[variable].sel({"link" if variable == "link_power" else "force": name})
    da = da.isel(heading=0) if heading is None else da.sel(heading=heading)
    w = 2 * np.pi / np.asarray(periods, dtype=float)
    grid = np.asarray(ds["omega"].values)
    if np.any(w < grid[0] - 1e-12) or np.any(w > grid[-1] + 1e-12):
        raise FrylinksError("power_matrix: periods outside the RAO's frequency range")
    per_unit = np.interp(w, grid, np.asarray(da.values))
    h = np.asarray(heights, dtype=float)
    return xr.DataArray((0.5 * h[:, None]) ** 2 * per_unit[None, :],
                        coords={"height": h, "period": np.asarray(periods, dtype=float)},
                        dims=("height", "period"),
                        attrs={"units": "W", "long_name": f"mean absorbed power of {name}"})
