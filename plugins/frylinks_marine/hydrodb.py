"""Hydrodynamic database of floating bodies: frequency-domain coefficients from Capytaine
(netCDF) or WEC-Sim's BEMIO (HDF5, :mod:`frylinks_marine.bemio`) in frylinks'
conventions, the radiation impulse response, and its state-space form.

Conventions
-----------
frylinks and Capytaine (3.0) share every convention below, so the Capytaine reader
converts nothing but the DOF names and order (verified against Capytaine's user manual,
"Conventions and differences to other codes",
https://capytaine.github.io/stable/user_manual/conventions.html, and the incident-wave
code of Capytaine 3.0.0, ``capytaine/bem/airy_waves.py``; the tests check the long-wave
heave excitation is the wave crest's hydrostatic push, in phase). BEMIO stores WAMIT's
conventions and normalisations, which :func:`~frylinks_marine.bemio.read_bemio` undoes.

- Axes right-handed, z up, origin on the still-water level.
- Heading ``beta`` [rad] is the direction the waves travel towards, ``(cos beta,
  sin beta)``: 0 is a wave travelling towards +x. It is Capytaine's ``wave_direction``.
- Phasors: ``x(t) = Re(X exp(-i omega t))``. Capytaine's incident potential in deep
  water is ``Phi_0 = -i g/omega exp(k z) exp(i k (x cos beta + y sin beta))``, so the
  elevation ``-1/g dPhi/dt`` at ``z = 0`` is ``Re(exp(i k (x cos beta + y sin beta))
  exp(-i omega t))``: a wave of complex amplitude ``a`` has the elevation
  ``Re(a exp(-i omega t))`` at the origin, and its excitation force is
  ``Re(a X(omega, beta) exp(-i omega t))`` with ``X`` the database's excitation (per
  unit amplitude, diffraction + Froude-Krylov). (WAMIT, OrcaWave and BEMIO use
  ``exp(+i omega t)``: their excitation is the complex conjugate.)
- DOFs ``surge, sway, heave`` [m] and ``roll, pitch, yaw`` [rad], small rotations about
  a reference point, world-aligned axes; generalised forces are the force and the
  moment about that point. Capytaine's rotational DOFs turn about the body's
  ``rotation_center``; the database records it (:attr:`HydroDatabase.rotation_center`)
  and, since frylinks applies coefficients about the centre of gravity
  (:mod:`frylinks_marine.dofs`), the readers move them there when the COG is known and
  differs (:func:`moved_coefficients`, :func:`moved_loads`).
- Units: SI, dimensional (kg, kg/s, N/m per metre of wave amplitude, N/m), at the
  dataset's water density :attr:`HydroDatabase.rho`. :meth:`HydroDatabase.at_density`
  is the one place the coefficients are taken to another density (all of them, the
  hydrostatic stiffness included, scale with it: they are integrals of the water's
  pressure over the same wetted hull).

Several bodies: :class:`MultiBodyDatabase` holds a dataset's ``6 N x 6 N`` coefficients
(cross-body terms included) in frylinks' order, body after body, each body's about its
COG; :meth:`MultiBodyDatabase.body` is one body's diagonal block, which is what
:func:`read_capytaine` returns.

Radiation in the time domain (Cummins): the radiation force is
``-A_inf xi'' - int_0^t K(t - s) xi'(s) ds`` with ``K(t) = 2/pi int_0^inf B(w) cos(w t)
dw`` (:func:`impulse_response`); :class:`RadiationStateSpace` replaces the convolution
by a linear system ``z' = A z + B xi'``, ``int K xi' ~ C z``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
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
    "DatasetBodyError",
    "HydroDatabase",
    "MultiBodyDatabase",
    "RadiationStateSpace",
    "frequency_grid_problems",
    "impulse_response",
    "moved_coefficients",
    "moved_loads",
    "ogilvie_added_mass_inf",
    "radiation_kernel",
    "read_capytaine",
    "read_capytaine_bodies",
    "read_hydrodynamics",
    "read_hydrodynamics_bodies",
    "transform_matrix",
]

Array = np.ndarray

#: frylinks' DOF order.
DOF_NAMES = ("surge", "sway", "heave", "roll", "pitch", "yaw")

#: Capytaine's frequency dimensions (one of them indexes the coefficients).
_FREQUENCY_DIMS = ("omega", "freq", "period", "wavenumber", "wavelength")

#: Two headings closer than this [rad] are the same heading.
_HEADING_TOL = 1e-6

#: File suffixes read as BEMIO HDF5 (anything else is read as Capytaine netCDF unless
#: its content is a BEMIO file).
BEMIO_SUFFIXES = (".h5", ".hdf5")


class DatasetBodyError(ModelError):
    """A multi-body dataset read without naming a body, or with a body it lacks.

    ``bodies`` lists the dataset's bodies and ``where`` names the file, so that a caller
    with its own key for the body (a force type's ``hydrodynamics_body``) can say so.
    """

    def __init__(self, message: str, path: str = "", bodies: Sequence[str] = (),
                 where: str = "", asked: str | None = None) -> None:
        super().__init__(message, path)
        self.bodies = tuple(bodies)
        self.where = where
        self.asked = asked

    def keyed(self, key: str) -> ModelError:
        """The same error told in terms of ``key`` (how the caller names the body)."""
        return ModelError(body_choice_message(self.where, self.bodies, self.asked, key), key)


def body_choice_message(where: str, bodies: Sequence[str], asked: str | None,
                        key: str) -> str:
    """What to say when a dataset's body is missing or unknown, ``key`` being how the
    user names it (``body=`` in Python, a force type's ``hydrodynamics_body``)."""
    listed = ", ".join(bodies)
    if asked is None:
        return (f"{where}: the dataset holds several bodies ({listed}); choose one with "
                f"{key} (for instance {key}{'' if key.endswith('=') else ': '}"
                f"{bodies[0] if bodies else ''})")
    return f"{where}: no body {asked!r}; bodies: {listed}"


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


def _block_transform(points_from: Sequence[Array], points_to: Sequence[Array]) -> Array:
    """Block-diagonal ``T (6 N, 6 N)`` of :func:`transform_matrix` for N bodies."""
    n = len(points_from)
    t = np.zeros((6 * n, 6 * n))
    for b, (p, q) in enumerate(zip(points_from, points_to, strict=True)):
        t[6 * b: 6 * b + 6, 6 * b: 6 * b + 6] = transform_matrix(p, q)
    return t


def _moved(matrix: Array | None, t: Array) -> Array | None:
    return None if matrix is None else np.einsum("ki,...kl,lj->...ij", t, matrix, t)


# --------------------------------------------------------------------------------------
# The database of one body
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
        ``"dataset"`` (the ``omega = inf`` entry, or BEMIO's ``inf_freq``), ``"ogilvie"``
        (estimated by :func:`ogilvie_added_mass_inf`) or ``"given"``.
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
    body
        The body's name in a multi-body source (None for a single unnamed body).
    kernel_time, kernel
        ``(nt,)`` [s] and ``(nt, 6, 6)``: an impulse response the source stored with the
        coefficients (BEMIO's ``impulse_response_fun``), or None. Kept for comparison:
        frylinks computes its own (:func:`impulse_response`) from the damping.
    state_space
        A realisation of the radiation memory stored with the coefficients (BEMIO's
        ``state_space``), dimensional (the kernel, not ``K / rho``), or None.
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
    body: str | None = None
    kernel_time: Array | None = field(default=None, repr=False)
    kernel: Array | None = field(default=None, repr=False)
    state_space: RadiationStateSpace | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        def setf(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        omega = _checked_omega(self.omega)
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
        _check_kernel(self.kernel_time, self.kernel, 6)
        if self.state_space is not None and self.state_space.C.shape[0] != 6:
            raise ModelError("expected a state space of 6 outputs", "state_space")

    @property
    def nb_headings(self) -> int:
        """Number of wave headings."""
        return int(self.headings.size)

    @property
    def label(self) -> str:
        """The source and body, for messages: ``'rm3.nc' body 'rm3_float'``."""
        return _label(self.source, self.body)

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
        new = np.asarray(point, dtype=float)
        t = transform_matrix(self.rotation_center, new)

        def mv(m: Array) -> Array:
            out = _moved(m, t)
            assert out is not None
            return out

        return replace(
            self, added_mass=mv(self.added_mass), radiation_damping=mv(self.radiation_damping),
            added_mass_inf=mv(self.added_mass_inf), inertia=_moved(self.inertia, t),
            hydrostatic_stiffness=_moved(self.hydrostatic_stiffness, t),
            excitation=np.einsum("ki,...k->...i", t, self.excitation), rotation_center=new,
            kernel=_moved(self.kernel, t),
            state_space=None if self.state_space is None else self.state_space.moved(t))

    def at_density(self, rho: float) -> HydroDatabase:
        """The coefficients in water of density ``rho`` [kg/m^3].

        Added mass, radiation damping, excitation, infinite-frequency added mass,
        hydrostatic stiffness, the stored impulse response and state space are integrals
        of the water's pressure over the same wetted hull: each scales by ``rho /
        self.rho``. The rigid-body ``inertia`` is the body's and stays. This is the one
        place frylinks applies the environment's density to a dataset.
        """
        rho = float(rho)
        if not (np.isfinite(rho) and rho > 0):
            raise ModelError(f"expected a water density > 0, got {rho!r}", "rho")
        if rho == self.rho:
            return self
        r = rho / self.rho
        return replace(
            self, added_mass=self.added_mass * r, radiation_damping=self.radiation_damping * r,
            excitation=self.excitation * r, added_mass_inf=self.added_mass_inf * r,
            hydrostatic_stiffness=(None if self.hydrostatic_stiffness is None
                                   else self.hydrostatic_stiffness * r),
            kernel=None if self.kernel is None else self.kernel * r,
            state_space=None if self.state_space is None else self.state_space.scaled(r),
            rho=rho)

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
        label = self.label
        return f"{label}: " if label else ""


def _label(source: str, body: str | None) -> str:
    if body is None:
        return source
    return f"{source} body {body!r}" if source else f"body {body!r}"


# --------------------------------------------------------------------------------------
# The database of several bodies
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class MultiBodyDatabase:
    """A dataset's coefficients for all its bodies, cross-body terms included.

    Body ``b`` (``bodies[b]``) owns the DOFs ``6 b .. 6 b + 5`` in frylinks' order
    (:data:`DOF_NAMES`); its rotations and moments are about its own
    ``rotation_centers[b]`` (its COG when the reader knew it). Entry ``[k, i, j]`` of a
    radiation array is the force on DOF ``i`` per motion of DOF ``j``, whichever bodies
    they belong to. Units and conventions: those of :class:`HydroDatabase`.

    Attributes
    ----------
    bodies
        The bodies' names, in the dataset's order.
    omega
        ``(nw,)`` [rad/s].
    added_mass, radiation_damping
        ``(nw, 6 N, 6 N)``.
    excitation
        ``(nw, nb_headings, 6 N)`` complex: each body's own excitation in its 6 columns.
    headings
        ``(nb_headings,)`` [rad].
    added_mass_inf
        ``(6 N, 6 N)``; its source as in :class:`HydroDatabase`.
    hydrostatic_stiffness, inertia
        ``(6 N, 6 N)`` (block diagonal) or None.
    rho, g, water_depth
        As in :class:`HydroDatabase`.
    rotation_centers, centers_of_mass
        One ``(3,)`` point (or None) per body.
    dofs
        Per body, the names of the DOFs the source had.
    kernel_time, kernel, state_space
        As in :class:`HydroDatabase`, over the ``6 N`` DOFs, or None.
    source
        The file, for messages.
    """

    bodies: tuple[str, ...]
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
    rotation_centers: tuple[Array | None, ...] = ()
    centers_of_mass: tuple[Array | None, ...] = ()
    dofs: tuple[tuple[str, ...], ...] = ()
    source: str = field(default="", repr=False)
    kernel_time: Array | None = field(default=None, repr=False)
    kernel: Array | None = field(default=None, repr=False)
    state_space: RadiationStateSpace | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        def setf(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        n = 6 * len(self.bodies)
        if n == 0 or len(set(self.bodies)) != len(self.bodies):
            raise ModelError(f"expected distinct body names, got {self.bodies}", "bodies")
        omega = _checked_omega(self.omega)
        setf("omega", omega)
        for name in ("added_mass", "radiation_damping"):
            setf(name, _checked(getattr(self, name), (omega.size, n, n), name))
        headings = np.asarray(self.headings, dtype=float).reshape(-1)
        setf("headings", headings)
        setf("excitation", _checked(self.excitation, (omega.size, headings.size, n),
                                    "excitation", complex))
        setf("added_mass_inf", _checked(self.added_mass_inf, (n, n), "added_mass_inf"))
        for name in ("hydrostatic_stiffness", "inertia"):
            if getattr(self, name) is not None:
                setf(name, _checked(getattr(self, name), (n, n), name))
        for name in ("rotation_centers", "centers_of_mass"):
            points = tuple(getattr(self, name)) or (None,) * len(self.bodies)
            if len(points) != len(self.bodies):
                raise ModelError(f"expected one point per body, got {len(points)}", name)
            setf(name, tuple(None if p is None else _checked(p, (3,), name) for p in points))
        if not self.dofs:
            setf("dofs", (DOF_NAMES,) * len(self.bodies))
        _check_kernel(self.kernel_time, self.kernel, n)

    @property
    def nb_bodies(self) -> int:
        """Number of bodies ``N``."""
        return len(self.bodies)

    def index(self, body: str) -> slice:
        """The DOFs ``6 b .. 6 b + 5`` of ``body`` in the ``6 N`` arrays.

        Raises
        ------
        DatasetBodyError
            For a body the dataset lacks.
        """
        if body not in self.bodies:
            raise DatasetBodyError(body_choice_message(self.source, self.bodies, body,
                                                       "body="), "body", self.bodies,
                                   self.source, body)
        b = self.bodies.index(body)
        return slice(6 * b, 6 * b + 6)

    def body(self, name: str) -> HydroDatabase:
        """One body's coefficients: the diagonal block of every array (what the body
        feels from its own motion; the cross-body terms are left out)."""
        s = self.index(name)
        b = self.bodies.index(name)

        def block(m: Array | None) -> Array | None:
            return None if m is None else m[..., s, s]

        added_mass, damping, a_inf = block(self.added_mass), block(self.radiation_damping), \
            block(self.added_mass_inf)
        assert added_mass is not None and damping is not None and a_inf is not None
        state_space = None
        if self.state_space is not None:
            state_space = self.state_space.restricted(np.arange(6 * b, 6 * b + 6))
        return HydroDatabase(
            omega=self.omega, added_mass=added_mass, radiation_damping=damping,
            excitation=self.excitation[..., s], headings=self.headings,
            added_mass_inf=a_inf, added_mass_inf_source=self.added_mass_inf_source,
            hydrostatic_stiffness=block(self.hydrostatic_stiffness),
            inertia=block(self.inertia), rho=self.rho, g=self.g,
            water_depth=self.water_depth, rotation_center=self.rotation_centers[b],
            center_of_mass=self.centers_of_mass[b], dofs=self.dofs[b], source=self.source,
            body=name, kernel_time=self.kernel_time, kernel=block(self.kernel),
            state_space=state_space)

    def at_density(self, rho: float) -> MultiBodyDatabase:
        """All coefficients in water of density ``rho`` (as
        :meth:`HydroDatabase.at_density`)."""
        r = float(rho) / self.rho
        if r == 1.0:
            return self

        def sc(m: Array | None) -> Array | None:
            return None if m is None else m * r

        return replace(
            self, added_mass=self.added_mass * r, radiation_damping=self.radiation_damping * r,
            excitation=self.excitation * r, added_mass_inf=self.added_mass_inf * r,
            hydrostatic_stiffness=sc(self.hydrostatic_stiffness), kernel=sc(self.kernel),
            state_space=None if self.state_space is None else self.state_space.scaled(r),
            rho=float(rho))


def _checked_omega(value: Any) -> Array:
    omega = np.asarray(value, dtype=float)
    if omega.ndim != 1 or omega.size < 2:
        raise ModelError(f"expected at least 2 frequencies (nw,), got shape {omega.shape}",
                         "omega")
    if not np.isfinite(omega).all() or omega[0] < 0 or np.any(np.diff(omega) <= 0):
        raise ModelError("frequencies must be finite, >= 0 and strictly ascending", "omega")
    return omega


def _check_kernel(t: Array | None, k: Array | None, n: int) -> None:
    if (t is None) != (k is None):
        raise ModelError("give both kernel_time and kernel, or neither", "kernel")
    if t is not None and k is not None and (np.shape(k) != (np.size(t), n, n)):
        raise ModelError(f"expected a kernel of shape ({np.size(t)}, {n}, {n}), got "
                         f"{np.shape(k)}", "kernel")


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
# Checks of the frequency grid
# --------------------------------------------------------------------------------------

#: Largest tolerated error of the added mass the impulse response implies below the last
#: frequency, estimated from the damping left above it (relative to the DOF's added mass).
TRUNCATION_LIMIT = 0.02
#: Largest tolerated midpoint error of the damping's linear interpolation between data
#: frequencies (relative to the DOF's peak damping).
COARSE_LIMIT = 0.02


def frequency_grid_problems(db: HydroDatabase) -> list[str]:
    """What the frequency grid of ``db`` does to the radiation impulse response: one
    message per DOF and problem, naming the dataset, body, DOF and frequency.

    Only the diagonal damping of DOFs whose peak is significant (above 1e-3 of the
    largest of their kind, translations or rotations) is looked at.

    * **Truncated**: :func:`impulse_response` takes the damping as zero above the last
      frequency ``w_N``. The missing tail changes the added mass the kernel implies below
      ``w_N`` by ``(2/pi) int_{w_N}^inf B(v) / (v^2 - w^2) dv`` (Kramers-Kronig), about
      ``(2/pi) B(w_N) / w_N`` with the damping held at its last value (an upper bound
      for a damping that decreases). Reported when that exceeds
      :data:`TRUNCATION_LIMIT` of the DOF's added mass.
    * **Too coarse**: the kernel is the transform of the damping taken linear between
      frequencies; the midpoint error of that interpolation, ``h^2 |B''| / 8`` from the
      second divided differences, is reported when it exceeds :data:`COARSE_LIMIT` of the
      peak damping (a grid too coarse for the damping's shape there, or an outlier).
    """
    w = db.omega
    b = db.radiation_damping
    peaks = np.abs(np.diagonal(b, axis1=1, axis2=2)).max(axis=0)  # (6,)
    out: list[str] = []
    label = db.label or "the dataset"
    for group in (range(3), range(3, 6)):
        top = max(peaks[i] for i in group)
        for i in group:
            if top <= 0 or peaks[i] <= 1e-3 * top:
                continue
            bi = b[:, i, i]
            scale = max(np.abs(db.added_mass[:, i, i]).max(), abs(db.added_mass_inf[i, i]))
            tail = abs(bi[-1]) / peaks[i]
            missing = 2.0 / np.pi * abs(bi[-1]) / w[-1] / scale if scale > 0 else np.inf
            if missing > TRUNCATION_LIMIT:
                out.append(
                    f"{label}: the radiation damping of {DOF_NAMES[i]} is still "
                    f"{tail:.0%} of its peak at the last frequency, {w[-1]:g} rad/s: the "
                    "impulse response misses the damping above it, which would change the "
                    f"added mass below by up to {missing:.1%} (the damping held at its last "
                    "value); give frequencies up to where the damping is negligible")
            if w.size >= 3:
                h = np.diff(w)
                second = ((bi[2:] - bi[1:-1]) / h[1:] - (bi[1:-1] - bi[:-2]) / h[:-1]) \
                    / (h[1:] + h[:-1])  # B'' / 2
                step = np.maximum(h[1:], h[:-1])
                error = step**2 * np.abs(second) / 4.0 / peaks[i]
                k = int(np.argmax(error))
                if error[k] > COARSE_LIMIT:
                    out.append(
                        f"{label}: the radiation damping of {DOF_NAMES[i]} changes too fast "
                        f"between data frequencies near {w[k + 1]:g} rad/s for the impulse "
                        f"response's linear interpolation (a midpoint error up to "
                        f"{error[k]:.0%} of its peak): the frequency step, {step[k]:.3g} "
                        f"rad/s, is too coarse there, or the value at {w[k + 1]:g} rad/s "
                        "is an outlier")
    return out


# --------------------------------------------------------------------------------------
# What the readers share: the arrays of all bodies, then one body or all of them
# --------------------------------------------------------------------------------------

@dataclass
class RawHydro:
    """A reader's arrays over all the bodies of a dataset, in frylinks' DOF order
    (``6 N``), before the infinite-frequency added mass is completed and the
    coefficients are moved to the COGs (:func:`single_body`, :func:`all_bodies`).

    ``bodies`` holds None for the one body of a dataset that does not name it;
    ``aliases`` maps other accepted names (BEMIO's group ``body2``) to a body's index.
    """

    bodies: list[str | None]
    omega: Array
    added_mass: Array
    radiation_damping: Array
    excitation: Array
    headings: Array
    added_mass_inf: Array | None
    hydrostatic_stiffness: Array | None
    inertia: Array | None
    rho: float
    g: float
    water_depth: float
    rotation_centers: list[Array | None]
    centers_of_mass: list[Array | None]
    dofs: list[tuple[str, ...]]
    where: str
    kernel_time: Array | None = None
    kernel: Array | None = None
    state_space: RadiationStateSpace | None = None
    aliases: dict[str, int] = field(default_factory=dict)

    def chosen(self, body: str | None) -> int:
        """The index of ``body`` (None: the only one)."""
        named = [b for b in self.bodies if b is not None]
        if body is None:
            if len(self.bodies) > 1:
                raise DatasetBodyError(body_choice_message(self.where, named, None, "body="),
                                       "body", named, self.where)
            return 0
        if body in self.bodies:
            return self.bodies.index(body)
        if body in self.aliases:
            return self.aliases[body]
        if self.bodies == [None]:  # one body the dataset does not name: any name is it
            return 0
        raise DatasetBodyError(body_choice_message(self.where, named, body, "body="), "body",
                               named, self.where, body)


def single_body(raw: RawHydro, body: str | None, cog: Any) -> HydroDatabase:
    """One body's :class:`HydroDatabase` from a reader's arrays (its diagonal block),
    about ``cog`` (default: the dataset's centre of mass, if any)."""
    b = raw.chosen(body)
    s = slice(6 * b, 6 * b + 6)

    def block(m: Array | None) -> Array | None:
        return None if m is None else m[..., s, s]

    added_mass, damping = raw.added_mass[:, s, s], raw.radiation_damping[:, s, s]
    a_inf = block(raw.added_mass_inf)
    if a_inf is not None and np.isfinite(a_inf).all():
        source = "dataset"
    else:
        a_inf, source = ogilvie_added_mass_inf(raw.omega, added_mass, damping), "ogilvie"
    state_space = None
    if raw.state_space is not None:
        state_space = raw.state_space.restricted(np.arange(6 * b, 6 * b + 6))
    db = HydroDatabase(
        omega=raw.omega, added_mass=added_mass, radiation_damping=damping,
        excitation=raw.excitation[..., s], headings=raw.headings, added_mass_inf=a_inf,
        added_mass_inf_source=source, hydrostatic_stiffness=block(raw.hydrostatic_stiffness),
        inertia=block(raw.inertia), rho=raw.rho, g=raw.g, water_depth=raw.water_depth,
        rotation_center=raw.rotation_centers[b], center_of_mass=raw.centers_of_mass[b],
        dofs=raw.dofs[b], source=raw.where, body=raw.bodies[b],
        kernel_time=raw.kernel_time, kernel=block(raw.kernel), state_space=state_space)
    target = db.center_of_mass if cog is None else _checked(cog, (3,), "cog")
    if target is None:
        return db
    if db.rotation_center is None:
        if any(d in db.dofs for d in DOF_NAMES[3:]):
            warnings.warn(f"{db.label}: the dataset does not record its rotation centre; "
                          "the rotational coefficients are taken as about the COG",
                          UserWarning, stacklevel=3)
        return replace(db, rotation_center=target, center_of_mass=target)
    center = db.rotation_center
    db = replace(db, center_of_mass=target)
    if np.allclose(center, target, rtol=0.0, atol=1e-9):
        return db
    return db.referred_to(target)


def all_bodies(raw: RawHydro, cog: Mapping[str, Any] | None = None) -> MultiBodyDatabase:
    """Every body's coefficients, cross-body terms included, each body's about its COG
    (``cog[name]``, default the dataset's centre of mass of that body)."""
    names = [b if b is not None else f"body{i + 1}" for i, b in enumerate(raw.bodies)]
    cog = dict(cog or {})
    unknown = sorted(set(cog) - set(names))
    if unknown:
        raise ModelError(f"{raw.where}: no body {unknown[0]!r} in the dataset; its bodies: "
                         f"{', '.join(names)}", "cog")
    a_inf, source = raw.added_mass_inf, "dataset"
    if a_inf is None or not np.isfinite(a_inf).all():
        a_inf = ogilvie_added_mass_inf(raw.omega, raw.added_mass, raw.radiation_damping)
        source = "ogilvie"
    centers: list[Array | None] = []
    masses: list[Array | None] = []
    old: list[Array] = []
    new: list[Array] = []
    unrecorded = []
    for b, name in enumerate(names):
        given = cog.get(name)
        target = raw.centers_of_mass[b] if given is None else _checked(given, (3,), "cog")
        center = raw.rotation_centers[b]
        if target is not None and center is None:
            if any(d in raw.dofs[b] for d in DOF_NAMES[3:]):
                unrecorded.append(name)
            center = target
        centers.append(target if target is not None else center)
        masses.append(target if target is not None else raw.centers_of_mass[b])
        old.append(np.zeros(3) if center is None else center)
        new.append(old[-1] if target is None else target)
    if unrecorded:
        warnings.warn(f"{raw.where}: the dataset does not record the rotation centre of "
                      f"{', '.join(unrecorded)}; their rotational coefficients are taken as "
                      "about their COG", UserWarning, stacklevel=3)
    t = _block_transform(old, new)
    moved = not np.allclose(t, np.eye(t.shape[0]), rtol=0.0, atol=1e-12)

    def mv(m: Array | None) -> Array | None:
        return _moved(m, t) if moved else m

    added_mass, damping, a_inf_moved = mv(raw.added_mass), mv(raw.radiation_damping), mv(a_inf)
    assert added_mass is not None and damping is not None and a_inf_moved is not None
    state_space = raw.state_space
    if moved and state_space is not None:
        state_space = state_space.moved(t)
    return MultiBodyDatabase(
        bodies=tuple(names), omega=raw.omega, added_mass=added_mass, radiation_damping=damping,
        excitation=np.einsum("ki,...k->...i", t, raw.excitation) if moved else raw.excitation,
        headings=raw.headings, added_mass_inf=a_inf_moved, added_mass_inf_source=source,
        hydrostatic_stiffness=mv(raw.hydrostatic_stiffness), inertia=mv(raw.inertia),
        rho=raw.rho, g=raw.g, water_depth=raw.water_depth,
        rotation_centers=tuple(centers), centers_of_mass=tuple(masses),
        dofs=tuple(raw.dofs), source=raw.where, kernel_time=raw.kernel_time,
        kernel=mv(raw.kernel), state_space=state_space)


# --------------------------------------------------------------------------------------
# Reading a file of either format
# --------------------------------------------------------------------------------------

def is_bemio(path: str | Path) -> bool:
    """Whether ``path`` is read as a BEMIO HDF5 file: its suffix (``.h5``, ``.hdf5``), or
    an HDF5 file holding BEMIO's ``simulation_parameters`` group (a netCDF4 file is
    HDF5 too, hence the look inside)."""
    path = Path(path)
    if path.suffix.lower() in BEMIO_SUFFIXES:
        return True
    try:
        with path.open("rb") as f:
            if f.read(8) != b"\x89HDF\r\n\x1a\n":
                return False
        import h5py

        with h5py.File(path, "r") as h5:
            return "simulation_parameters" in h5
    except OSError:
        return False


def read_hydrodynamics(path: str | Path, body: str | None = None,
                       cog: Any = None) -> HydroDatabase:
    """One body's database from a Capytaine netCDF dataset or a BEMIO HDF5 file
    (:func:`is_bemio` tells which): :func:`read_capytaine` or
    :func:`~frylinks_marine.bemio.read_bemio`."""
    if is_bemio(path):
        from .bemio import read_bemio

        return read_bemio(path, body=body, cog=cog)
    return read_capytaine(path, body=body, cog=cog)


def read_hydrodynamics_bodies(path: str | Path,
                              cog: Mapping[str, Any] | None = None) -> MultiBodyDatabase:
    """All bodies of a Capytaine or BEMIO file (:func:`read_capytaine_bodies`,
    :func:`~frylinks_marine.bemio.read_bemio_bodies`)."""
    if is_bemio(path):
        from .bemio import read_bemio_bodies

        return read_bemio_bodies(path, cog=cog)
    return read_capytaine_bodies(path, cog=cog)


# --------------------------------------------------------------------------------------
# Reading Capytaine's dataset
# --------------------------------------------------------------------------------------

def read_capytaine(source: str | Path | xr.Dataset, body: str | None = None,
                   cog: Any = None) -> HydroDatabase:
    """Read one body of Capytaine's hydrodynamic dataset into a :class:`HydroDatabase`.

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
        variable, several values of ``rho``, ``g``, ``water_depth``, non-zero forward
        speed, missing values (NaN); :class:`DatasetBodyError` for several bodies without
        ``body=`` or an unknown body (it lists the dataset's bodies).
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
    named = [b for b in bodies if b is not None]
    return RawHydro(
        bodies=bodies, omega=omega, added_mass=added_mass, radiation_damping=damping,
        excitation=excitation, headings=headings, added_mass_inf=a_inf,
        hydrostatic_stiffness=_matrix(ds, "hydrostatic_stiffness", inf_map, rad_map, n, where),
        inertia=_matrix(ds, "inertia_matrix", inf_map, rad_map, n, where),
        rho=rho, g=g, water_depth=depth,
        rotation_centers=[_point(ds, "rotation_center", b, named) for b in bodies],
        centers_of_mass=[_point(ds, "center_of_mass", b, named) for b in bodies],
        dofs=dofs, where=where)


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
    if "wave_direction" not in da.dims and "wave_direction" in da.coords:
        da = da.expand_dims("wave_direction")
    da = _squeezed(da, (freq_dim, "wave_direction", "influenced_dof"), where)
    da = da.transpose(freq_dim, "wave_direction", "influenced_dof")
    values = np.zeros((*da.shape[:2], n), dtype=complex)
    src, dst = zip(*inf_map.items(), strict=True)
    values[..., list(dst)] = da.values[..., list(src)]
    values = values[keep][order]
    _require_finite(values, omega, "excitation_force", where)
    headings = np.mod(np.asarray(da["wave_direction"].values, dtype=float), 2 * np.pi)
    return _by_heading(values, headings)


def _by_heading(values: Array, headings: Array) -> tuple[Array, Array]:
    """Excitation ``(nw, nh, n)`` and headings sorted by heading, repeats dropped."""
    by_angle = np.argsort(headings, kind="stable")
    headings, values = headings[by_angle], values[:, by_angle]
    distinct = np.concatenate([[True], np.diff(headings) > _HEADING_TOL])
    return values[:, distinct], headings[distinct]


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
