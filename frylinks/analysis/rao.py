"""The linear response to unit regular waves: response amplitude operators (RAOs) and
the power each link and force element absorbs, per frequency and heading.

In the links' independent coordinates (:mod:`.linearise`), with phasors of
``Re(y exp(-1j w t))`` (the hydrodynamic data's convention)::

    (-w^2 M(w) - 1j w C(w) + K) y = Q(w, heading)

``M(w)``, ``C(w)`` hold ``A(w)``, ``B(w)`` of the force types with frequency-domain
coefficients (radiation); ``Q`` sums the force types' excitation by a unit-amplitude
wave (:meth:`~frylinks.forces.ForceType.wave_excitation`), phased against the elevation
at the world origin. Every other force (PTO, mooring, springs, drag about a current) is
linearised about the static equilibrium. A quadratic drag has no linear part at rest: for
a given wave height ``H`` the force types that give one
(:meth:`~frylinks.forces.ForceType.equivalent_damping`) stand in by their equivalent
linear damping at the response amplitude (``(8 / (3 pi)) D |V|`` for ``D v |v|``), found
at each frequency by fixed-point iteration on the response (:func:`equivalent_response`);
without a height they add no damping. The Dataset's ``linearisation`` and
``drag_linearisation`` attributes say which.

The mean power a link spring-damper or a force element absorbs, per unit wave amplitude
squared, is ``-1/2 Re(Q_e . conj(v_e))``, its generalised force against its own rate: a
PTO's absorbed power, a radiation force's radiated power; a wave excitation's is
negative (the power the wave brings in), and they sum to zero. In a sea of amplitude
``a`` the mean power is ``a^2`` times it (a power matrix, :func:`power_matrix`).

The mean (second-order) drift load of each wave on each body, per square metre of wave
amplitude, is the sum of what the force types give
(:meth:`~frylinks.forces.ForceType.mean_wave_drift`: ``wave_drift``'s tables); it is
reported, not part of the first-order response.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.analysis.linearise import LinearModel
from frylinks.analysis.operating_point import OperatingPoint, operating_point
from frylinks.engine.ptos import ptos
from frylinks.errors import FrylinksError, ModelError
from frylinks.forces import ForceType
from frylinks.links import DOFS

if TYPE_CHECKING:
    import xarray as xr

    from frylinks.engine import State
    from frylinks.model.system import System

Array = np.ndarray

#: Default periods of :func:`rao` [s]: 3 to 25 s, 100 of them (even in frequency).
DEFAULT_PERIODS = (3.0, 25.0, 100)
#: Relative change of the response that ends the fixed-point iteration of an
#: equivalent linearisation, and the most iterations it may take.
EQUIVALENT_TOL = 1e-10
EQUIVALENT_MAX_ITERATIONS = 1000
#: Each iterate's equivalent damping is this blend of the new and the previous one: a
#: drag-dominated response makes the plain fixed-point map's slope -1 (it would
#: oscillate between two values); the half-and-half step makes it about 0 there.
EQUIVALENT_RELAXATION = 0.5


def nonlinear_blocks(lin: LinearModel) -> list[Any]:
    """The force blocks whose type gives an equivalent linearisation
    (:meth:`~frylinks.forces.ForceType.equivalent_damping`)."""
    return [blk for blk in lin.model.force_blocks
            if type(blk.kind).equivalent_damping is not ForceType.equivalent_damping]


def equivalent_response(lin: LinearModel, omega: float, heading: float, amplitude: float,
                        Z: Array, Q: Array, blocks: list[Any]
                        ) -> tuple[Array, list[tuple[int, Array, Array, Array]], int]:
    """The response ``y`` (per unit wave amplitude) of ``Z y = Q`` with the equivalent
    damping of ``blocks`` at the motion of waves of ``amplitude`` [m], by fixed-point
    iteration (blended, :data:`EQUIVALENT_RELAXATION`) from the response without it.

    Returns
    -------
    y : (ny,) complex
    parts : list
        Per element: ``(force index, its body's rows of T (6, ny), damping (6, 6),
        excitation (6,) per unit amplitude)``.
    iterations : int

    Raises
    ------
    ModelError
        When the iteration does not settle in :data:`EQUIVALENT_MAX_ITERATIONS`.
    """
    model = lin.model
    nb, ny = model.nb_bodies, lin.nb_coordinates
    T = lin.basis.reshape(nb, 6, ny)
    y = np.linalg.solve(Z, Q)
    current: list[tuple[Array, Array]] | None = None
    for it in range(1, EQUIVALENT_MAX_ITERATIONS + 1):
        body_velocity = amplitude * (-1j * omega) * (T @ y)          # (nb, 6)
        new = []
        for blk in blocks:
            body = blk.attachments[0].body
            vel = np.zeros((len(body), 6), dtype=complex)
            on = body < nb
            vel[on] = body_velocity[body[on]]
            out = blk.kind.equivalent_damping(float(omega), heading, amplitude, vel)
            if out is None:
                out = (np.zeros((len(body), 6, 6)), np.zeros((len(body), 6), dtype=complex))
            new.append((np.asarray(out[0], dtype=float), np.asarray(out[1], dtype=complex)))
        if current is None:
            current = new
        else:
            r = EQUIVALENT_RELAXATION
            current = [(r * bn + (1 - r) * bo, r * xn + (1 - r) * xo)
                       for (bn, xn), (bo, xo) in zip(new, current, strict=True)]
        C = np.zeros((ny, ny))
        X = np.zeros(ny, dtype=complex)
        parts = []
        for blk, (B, Xe) in zip(blocks, current, strict=True):
            body = blk.attachments[0].body
            for e in range(len(body)):
                if body[e] >= nb:
                    continue
                rows = T[body[e]]
                C += rows.T @ B[e] @ rows
                X += Xe[e] @ rows
                parts.append((int(blk.index[e]), rows, B[e], Xe[e]))
        y_new = np.linalg.solve(Z - 1j * omega * C, Q + X)
        change = float(np.linalg.norm(y_new - y))
        y = y_new
        if change <= EQUIVALENT_TOL * max(float(np.linalg.norm(y)), 1e-300):
            return y, parts, it
    names = ", ".join(sorted({lin.model.force_names[blk.index[0]] for blk in blocks}))
    raise ModelError(f"the equivalent linearisation of the drag of {names} did not settle "
                     f"at {omega:.4g} rad/s in {EQUIVALENT_MAX_ITERATIONS} iterations",
                     "forces")


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


def mean_drift(lin: LinearModel, omega: Array, heading: float) -> Array | None:
    """The mean drift load per square metre of wave amplitude on each body, ``(nw, nb,
    6)`` (about its COG, world axes), summed over the force elements that give one
    (NaN where one has no value); None when no force type gives any."""
    model = lin.model
    total: Array | None = None
    for blk in model.force_blocks:
        D = blk.kind.mean_wave_drift(omega, heading)
        if D is None:
            continue
        if total is None:
            total = np.zeros((len(omega), model.nb_bodies, 6))
        body = blk.attachments[0].body
        for e in range(len(body)):
            if body[e] < model.nb_bodies:
                total[:, body[e]] += np.asarray(D[e], dtype=float)
    return total


def solve(lin: LinearModel, omega: Array, heading: float, amplitude: float | None = None
          ) -> dict[str, Array]:
    """Responses to unit waves at frequencies ``omega`` ``(nw,)`` and one heading [rad].

    With a wave ``amplitude`` [m], the force types that give an equivalent linearisation
    stand in by it at each frequency (:func:`equivalent_response`); the responses are
    still per metre of wave amplitude.

    Returns
    -------
    dict
        ``y (nw, ny)`` coordinates, ``body (nw, nb, 6)``, ``link (nw, nl, 6)`` link
        displacement, ``link_power (nw, nl)``, ``force_power (nw, nf)`` [W m-2],
        ``iterations (nw,)`` of the equivalent linearisation (0: none),
        ``mean_drift (nw, nb, 6)`` or None (:func:`mean_drift`).
    """
    model = lin.model
    nb, nl, nf = model.nb_bodies, len(model.link_names), len(model.force_names)
    Q, parts = excitation(lin, omega, heading)
    nw, ny = len(omega), lin.nb_coordinates
    y = np.zeros((nw, ny), dtype=complex)
    link_power = np.zeros((nw, nl))
    force_power = np.zeros((nw, nf))
    iterations = np.zeros(nw, dtype=int)
    blocks = nonlinear_blocks(lin) if amplitude else []
    for k, w in enumerate(omega):
        M, C = lin.at(float(w))
        Z = -w**2 * M - 1j * w * C + lin.stiffness
        equivalent: list[tuple[int, Array, Array, Array]] = []
        if blocks:
            assert amplitude is not None
            y[k], equivalent, iterations[k] = equivalent_response(
                lin, float(w), heading, amplitude, Z, Q[k], blocks)
        else:
            y[k] = np.linalg.solve(Z, Q[k])
        v = -1j * w * y[k]
        spring = lin.spring_position @ y[k] + lin.spring_velocity @ v   # (nl, 6)
        rate = lin.free_velocity @ v
        link_power[k] = -0.5 * np.real(np.sum(spring * np.conj(rate), axis=1))
        gen = lin.force_position @ y[k] + lin.force_velocity @ v        # (nf, ny)
        force_power[k] = -0.5 * np.real(gen @ np.conj(v))
        for index, q in parts:
            force_power[k, index] += -0.5 * np.real(q[k] @ np.conj(v))
        for index, rows, B, Xe in equivalent:
            # the element's linearised force on the coordinates, per unit amplitude
            q = (-B @ (rows @ v) + Xe) @ rows
            force_power[k, index] += -0.5 * np.real(q @ np.conj(v))
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
            "force_power": force_power, "iterations": iterations,
            "mean_drift": mean_drift(lin, omega, heading)}


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
        equilibrium: bool = True, state: State | None = None,
        wave_height: float | None = None) -> xr.Dataset:
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
    wave_height
        Height [m] of the regular waves the quadratic drags are linearised for
        (:meth:`~frylinks.forces.ForceType.equivalent_damping`: ``(8 / (3 pi)) D |V|``
        at the response amplitude of each frequency); None (the default): a drag adds
        no damping (it has none at rest). The RAOs stay per metre of wave amplitude.

    Returns
    -------
    xarray.Dataset
        Over ``(heading, omega)`` (``period`` a coordinate along ``omega``):
        ``body_rao_amplitude`` / ``_phase`` ``(heading, omega, body, dof)``,
        ``link_rao_amplitude`` / ``_phase`` ``(heading, omega, link, dof)``,
        ``link_power`` ``(heading, omega, link)`` and ``force_power`` ``(heading,
        omega, force)``, mean absorbed power per unit wave amplitude squared [W m-2],
        and of every power take-off ``absorbed_power`` ``(heading, omega, pto)``
        (:mod:`frylinks.engine.ptos`; absent without one);
        where a force type gives the mean wave drift (``wave_drift``),
        ``body_mean_drift`` ``(heading, omega, body, dof)`` per unit wave amplitude
        squared [N m-2, N m m-2] (absent otherwise).
    """
    w = frequencies(omega, periods)
    if wave_height is not None and not (np.isfinite(wave_height) and wave_height > 0):
        raise FrylinksError(f"wave height: expected a height > 0 [m], got {wave_height}")
    return rao_dataset(operating_point(target, equilibrium, state), w, headings_deg,
                       wave_height)


def rao_dataset(op: OperatingPoint, omega: Array, headings_deg: Sequence[float],
                wave_height: float | None = None) -> xr.Dataset:
    """The Dataset of :func:`rao` for a linearised model."""
    import xarray as xr

    lin = op.linear
    model = op.model
    headings = np.asarray(headings_deg, dtype=float).reshape(-1)
    amplitude = None if wave_height is None else 0.5 * float(wave_height)
    try:
        results = [solve(lin, omega, float(np.radians(h)), amplitude) for h in headings]
    except ModelError as exc:
        if op.case_file is None:
            raise
        from frylinks.io.case import case_error

        raise case_error(op.case_file, op.system.case_text, exc) from None
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
            "equivalent_iterations": var(
                ("heading", "omega"), np.stack([r["iterations"] for r in results]), "1",
                "fixed-point iterations of the drag's equivalent linearisation (0: none)"),
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
        attrs={**op.attributes("rao"), "linearisation": linearisation_note(lin),
               "drag_linearisation": drag_note(lin, wave_height)})
    units = ptos(model)
    if units:
        link_power, force_power = ds["link_power"].values, ds["force_power"].values
        ds["absorbed_power"] = var(
            ("heading", "omega", "pto"),
            np.stack([link_power[..., p.link] if p.link >= 0 else force_power[..., p.force]
                      for p in units], axis=-1), "W m-2",
            "mean power absorbed by each power take-off (whatever supplies it) per unit "
            "wave amplitude squared")
        ds.coords["pto"] = [p.name for p in units]
    drift = [r["mean_drift"] for r in results]
    if drift[0] is not None:
        ds["body_mean_drift"] = var(
            ("heading", "omega", "body", "dof"), np.stack(drift), "1",
            "mean wave drift load on the body (COG, world axes) per square metre of wave "
            "amplitude; units per DOF in mean_drift_units; NaN outside the data")
        ds.coords["mean_drift_units"] = ("dof", ["N m-2"] * 3 + ["N m m-2"] * 3,
                                         {"long_name": "units of the mean drift of each "
                                                       "DOF"})
    if wave_height is not None:
        ds.attrs["wave_height"] = float(wave_height)
    return ds


def linearisation_note(lin: LinearModel) -> str:
    """What the linear model holds, for the Dataset's attributes."""
    freq = ", ".join(sorted({fb.blk.kind.name for fb in lin.frequency_blocks})) or "none"
    return ("forces linearised about the static equilibrium by central differences of "
            "the engine's evaluation; frequency-dependent A(w), B(w) from: " + freq)


def drag_note(lin: LinearModel, wave_height: float | None) -> str:
    """How the drags without a tangent at rest were treated, for the attributes."""
    names = sorted({lin.model.force_names[i] for blk in nonlinear_blocks(lin)
                    for i in blk.index})
    if not names:
        return "none: no force type with an equivalent linearisation"
    which = ", ".join(names)
    if wave_height is None:
        return (f"not linearised ({which}): no wave height given, and a quadratic drag "
                "has no linear part at rest, so it adds no damping")
    return (f"harmonic equivalent linearisation of {which} in regular waves of height "
            f"{float(wave_height):g} m: a drag D v |v| stands in by (8 / (3 pi)) D |V| at "
            "the response amplitude |V| of each frequency (least squares over a period), "
            "by fixed-point iteration on the RAO to a relative change of "
            f"{EQUIVALENT_TOL:g}; where a current flows, a drag keeps its tangent about "
            "the current instead")


def power_matrix(ds: xr.Dataset, heights: Sequence[float], periods: Sequence[float],
                 name: str, variable: str = "absorbed_power", heading: float | None = None
                 ) -> xr.DataArray:
    """Mean absorbed power [W] of the power take-off (or link, or force) ``name`` in
    regular waves of each height [m] and period [s]: ``(H / 2)^2`` times the power per
    unit amplitude squared, interpolated linearly in frequency (give periods within the
    RAO's)."""
    import xarray as xr

    dim = {"absorbed_power": "pto", "link_power": "link"}.get(variable, "force")
    da = ds[variable].sel({dim: name})
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
