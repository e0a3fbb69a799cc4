"""Natural periods, damping ratios and mode shapes of a linearised model.

The modes solve ``(lambda^2 M + lambda C + K) phi = 0`` in the links' independent
coordinates (:mod:`.linearise`): without damping the symmetric problem ``K phi = w^2 M
phi``, otherwise its first-order form. Each oscillating mode gives ``w_n = |lambda|``
(natural period ``2 pi / w_n``) and ``zeta = -Re(lambda) / |lambda|``; two real
eigenvalues (an overdamped motion) pair into one mode with ``zeta >= 1``; a motion
without stiffness (a free drift) is a mode of period ``inf``.

With hydrodynamic data the mass and damping depend on frequency: each mode is iterated
to its own natural frequency (``A(w_n)``, ``B(w_n)``) by fixed-point steps, and the
frequency used is reported (``added_mass_frequency``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg

from frylinks.analysis.linearise import LinearModel
from frylinks.analysis.operating_point import OperatingPoint, operating_point
from frylinks.links import DOFS

if TYPE_CHECKING:
    import xarray as xr

    from frylinks.engine import State
    from frylinks.model.system import System

Array = np.ndarray

#: Eigenvalues below this fraction of the largest are zero (motions without stiffness).
ZERO = 1e-7
#: Relative change of a mode's frequency that ends its iteration on ``A(w_n)``.
FREQUENCY_TOL = 1e-10
#: Most fixed-point steps of that iteration.
MAX_ITERATIONS = 100


@dataclass
class Mode:
    """One mode: ``omega`` [rad s-1] the natural (undamped) frequency, ``zeta`` the
    damping ratio, ``shape`` ``(ny,)`` complex in the coordinates, ``kind`` one of
    ``oscillating``, ``overdamped``, ``free`` (no stiffness), ``unstable``."""

    omega: float
    zeta: float
    shape: Array
    kind: str
    at_omega: float = float("nan")
    iterations: int = 0


def eigenmodes(M: Array, C: Array, K: Array) -> list[Mode]:
    """The modes of ``M y'' + C y' + K y = 0``, by increasing frequency (module doc)."""
    n = M.shape[0]
    if n == 0:
        return []
    if not np.any(C):
        w2, vec = scipy.linalg.eig(K, M)
        w2 = w2.real
        big = max(float(np.max(np.abs(w2))), 1e-300)
        modes = []
        for k in range(n):
            v = vec[:, k].astype(complex)
            if abs(w2[k]) <= ZERO**2 * big:
                modes.append(Mode(0.0, 0.0, v, "free"))
            elif w2[k] < 0:
                modes.append(Mode(float(np.sqrt(-w2[k])), float("nan"), v, "unstable"))
            else:
                modes.append(Mode(float(np.sqrt(w2[k])), 0.0, v, "oscillating"))
        return sorted(modes, key=lambda m: m.omega)
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Minv @ K, -Minv @ C]])
    lam, vec = np.linalg.eig(A)
    big = max(float(np.max(np.abs(lam))), 1e-300)
    modes = []
    real: list[tuple[float, Array]] = []
    for k in range(2 * n):
        lk = lam[k]
        if abs(lk.imag) > 1e-9 * abs(lk):
            if lk.imag > 0:
                w = abs(lk)
                unstable = lk.real > 1e-9 * w
                modes.append(Mode(float(w), float(-lk.real / w), vec[:n, k],
                                  "unstable" if unstable else "oscillating"))
        else:
            real.append((float(lk.real), vec[:n, k]))
    real.sort(key=lambda p: abs(p[0]))
    for (l1, v1), (l2, _) in zip(real[::2], real[1::2], strict=True):
        if abs(l1) <= ZERO * big:
            modes.append(Mode(0.0, float("inf") if abs(l2) > ZERO * big else 0.0,
                              v1.astype(complex), "free"))
        elif l1 > 0 or l2 > 0:
            modes.append(Mode(float(np.sqrt(abs(l1 * l2))), float("nan"), v1.astype(complex),
                              "unstable"))
        else:
            w = float(np.sqrt(l1 * l2))
            modes.append(Mode(w, float(-(l1 + l2) / (2 * w)), v1.astype(complex), "overdamped"))
    return sorted(modes, key=lambda m: m.omega)


def _mac(a: Array, b: Array) -> float:
    """Modal assurance criterion of two shapes (1: the same shape)."""
    den = float(np.real(np.vdot(a, a) * np.vdot(b, b)))
    return float(abs(np.vdot(a, b)) ** 2 / den) if den > 0 else 0.0


def _closeness(m: Mode, previous: Mode) -> tuple[float, float]:
    """How much ``m`` is ``previous`` again: the shape first, then the frequency."""
    return round(_mac(m.shape, previous.shape), 3), -abs(m.omega - previous.omega)


def solve_modes(lin: LinearModel) -> list[Mode]:
    """The modes of ``lin``; with frequency-dependent data each iterated to its own
    natural frequency (module doc)."""
    first = eigenmodes(lin.mass, lin.damping, lin.stiffness)
    if not lin.frequency_dependent:
        return first
    out = []
    for mode in first:
        if mode.kind == "free":
            out.append(mode)
            continue
        current = mode
        for it in range(1, MAX_ITERATIONS + 1):
            M, C = lin.at(current.omega)
            candidates = [m for m in eigenmodes(M, C, lin.stiffness) if m.kind != "free"]
            if not candidates:
                break
            # the same mode: the closest shape, then the closest frequency
            best = max(candidates, key=lambda m: _closeness(m, current))
            best.at_omega, best.iterations = current.omega, it
            done = abs(best.omega - current.omega) <= FREQUENCY_TOL * max(current.omega, 1e-12)
            current = best
            if done:
                break
        out.append(current)
    return sorted(out, key=lambda m: m.omega)


def shapes(lin: LinearModel, mode: Mode) -> tuple[Array, Array]:
    """Body ``(nb, 6)`` and link ``(nl, 6)`` complex shapes of a mode, scaled so that its
    largest body component (rotations weighed by the model's length scale) is 1."""
    nb = lin.model.nb_bodies
    body = (lin.basis @ mode.shape).reshape(nb, 6)
    weight = np.tile(np.r_[np.ones(3), np.full(3, lin.model.length_scale)], (nb, 1))
    flat = (body * weight).ravel()
    # the largest weighed component becomes 1 (so a rotation's is 1 / L rad): what the
    # long names, the printed table and the plot's bars say
    big = flat[int(np.argmax(np.abs(flat)))]
    if big == 0:
        big = 1.0
    body = body / big
    link = np.einsum("lij,j->li", lin.link_position, mode.shape) / big
    return body, link


def modes(target: System | str | Path, *, equilibrium: bool = True,
          state: State | None = None) -> xr.Dataset:
    """Natural periods, damping ratios and mode shapes of a system or case file.

    Parameters
    ----------
    target
        A :class:`~frylinks.System` or the path of a case file.
    equilibrium
        Linearise about the static equilibrium (default), else about the initial state.
    state
        Linearise about this state instead.

    Returns
    -------
    xarray.Dataset
        Over the dimension ``mode`` (by increasing frequency): ``natural_period``,
        ``natural_frequency``, ``damping_ratio``, ``damped_period``, ``mode_kind``,
        ``added_mass_frequency`` (the frequency of ``A(w)``, NaN without hydrodynamic
        data); ``body_mode_amplitude`` / ``_phase`` over ``(mode, body, dof)`` and
        ``link_mode_amplitude`` / ``_phase`` over ``(mode, link, dof)``.
    """
    return modes_dataset(operating_point(target, equilibrium, state))


def modes_dataset(op: OperatingPoint) -> xr.Dataset:
    """The Dataset of :func:`modes` for a linearised model."""
    import xarray as xr

    lin = op.linear
    found = solve_modes(lin)
    model = op.model
    nm = len(found)
    body = np.zeros((nm, model.nb_bodies, 6), dtype=complex)
    link = np.zeros((nm, len(model.link_names), 6), dtype=complex)
    for k, m in enumerate(found):
        body[k], link[k] = shapes(lin, m)
    omega = np.array([m.omega for m in found])
    zeta = np.array([m.zeta for m in found])
    with np.errstate(divide="ignore", invalid="ignore"):
        period = np.where(omega > 0, 2 * np.pi / omega, np.inf)
        damped = np.where((omega > 0) & (zeta < 1), 2 * np.pi / (omega * np.sqrt(
            np.clip(1 - zeta**2, 0, None))), np.inf)
    at = np.array([m.at_omega for m in found])

    def var(dims: tuple[str, ...], values: Array, units: str, long_name: str
            ) -> xr.Variable:
        return xr.Variable(dims, values, {"units": units, "long_name": long_name})

    shape_note = ("normalised: its largest body component (rotations times the model's "
                  f"length scale, {model.length_scale:g} m) is 1")
    ds = xr.Dataset(
        {
            "natural_period": var(("mode",), period, "s", "undamped natural period 2 pi / w_n"),
            "natural_frequency": var(("mode",), omega, "rad s-1",
                                     "undamped natural angular frequency w_n"),
            "damping_ratio": var(("mode",), zeta, "1",
                                 "damping ratio (fraction of critical damping)"),
            "damped_period": var(("mode",), damped, "s",
                                 "damped natural period 2 pi / (w_n sqrt(1 - zeta^2))"),
            "mode_kind": var(("mode",), np.array([m.kind for m in found], dtype=object), "1",
                             "oscillating, overdamped, free (no stiffness) or unstable"),
            "added_mass_frequency": var(
                ("mode",), at, "rad s-1",
                "frequency of the added mass A(w) and damping B(w) the mode was solved with "
                "(NaN: no frequency-dependent data)"),
            "added_mass_iterations": var(("mode",), np.array([m.iterations for m in found]),
                                         "1", "fixed-point iterations of the mode on A(w_n)"),
            "body_mode_amplitude": var(("mode", "body", "dof"), np.abs(body), "1",
                                       f"body motion in the mode (world axes), {shape_note}"),
            "body_mode_phase": var(("mode", "body", "dof"), np.degrees(np.angle(body)),
                                   "degree", "phase of the body motion in the mode"),
            "link_mode_amplitude": var(("mode", "link", "dof"), np.abs(link), "1",
                                       "link displacement in the mode (master-node axes), "
                                       "on the scale of body_mode_amplitude"),
            "link_mode_phase": var(("mode", "link", "dof"), np.degrees(np.angle(link)),
                                   "degree", "phase of the link displacement in the mode"),
        },
        coords={"mode": np.arange(nm), "body": list(model.body_names),
                "link": list(model.link_names), "dof": list(DOFS)},
        attrs={**op.attributes("modes"), "length_scale": float(model.length_scale)})
    ds["mode"].attrs.update(long_name="mode number, by increasing frequency", units="1")
    return ds


def table(ds: xr.Dataset, threshold: float = 0.1) -> str:
    """A readable table of a modes Dataset: period, frequency, damping, the frequency
    of ``A(w)`` and what moves: the body and link DOFs above ``threshold`` of the
    largest, rotations compared as the motion they give at the model's length scale
    (attribute ``length_scale``) so that metres and radians weigh alike."""
    rows = [("mode", "period [s]", "freq [Hz]", "damping", "A(w) at [rad/s]", "moves")]
    for k in range(ds.sizes["mode"]):
        m = ds.isel(mode=k)
        w = float(m["natural_frequency"])
        kind = str(m["mode_kind"].values)
        period = float(m["natural_period"])
        at = float(m["added_mass_frequency"])
        zeta = float(m["damping_ratio"])
        rows.append((
            str(k), f"{period:.4g}" if np.isfinite(period) else "inf",
            f"{w / (2 * np.pi):.4g}",
            f"{zeta:.3g}" if np.isfinite(zeta) else "-",
            f"{at:.4g}" if np.isfinite(at) else "-",
            _moves(m, threshold) + ("" if kind == "oscillating" else f" [{kind}]")))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
    return "\n".join("  ".join([*(cell.rjust(w) for cell, w in zip(r, widths, strict=False)),
                                r[-1]]) for r in rows)


def weights(ds: xr.Dataset) -> np.ndarray:
    """``(6,)``: what a unit of each DOF moves, in metres (rotations times the model's
    length scale, the attribute ``length_scale``; 1 m in a file without it)."""
    scale = float(ds.attrs.get("length_scale", 1.0))
    return np.r_[np.ones(3), np.full(3, scale)]


def _moves(m: xr.Dataset, threshold: float) -> str:
    parts = []
    weight = weights(m)
    for prefix, dim in (("body", "body"), ("link", "link")):
        amp = np.asarray(m[f"{prefix}_mode_amplitude"].values)
        phase = np.asarray(m[f"{prefix}_mode_phase"].values)
        if not amp.size:
            continue
        weighed = amp * weight[None, :]
        big = float(weighed.max())
        if big <= 0:
            continue
        for i, j in zip(*np.nonzero(weighed >= threshold * big), strict=True):
            name = str(m[dim].values[i])
            sign = "-" if abs(abs(phase[i, j]) - 180) < 1 else ""
            word = "" if prefix == "body" else "link "
            # as the plot's bars: metres, and rotations times the length scale
            parts.append(f"{word}{name} {DOFS[j]} {sign}{weighed[i, j]:.2g}")
    return ", ".join(parts)
