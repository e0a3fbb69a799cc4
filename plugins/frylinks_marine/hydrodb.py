"""Hydrodynamic database of floating bodies: the containers of frequency-domain
coefficients in frylinks' conventions, :class:`HydroDatabase` (one body) and
:class:`MultiBodyDatabase` (several, cross-body terms included).

The readers fill them: Capytaine's netCDF (:mod:`frylinks_marine.capytaine_reader`),
WEC-Sim's BEMIO HDF5 (:mod:`frylinks_marine.bemio`), WAMIT's numeric output
(:mod:`frylinks_marine.wamit_reader`), any of them by its name or content
(:func:`frylinks_marine.hydro_files.read_hydrodynamics`); the radiation impulse response
and its state-space form are in :mod:`frylinks_marine.radiation`, the checks of the
frequency grid in :mod:`frylinks_marine.frequency_grid`.

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
  differs (:mod:`frylinks_marine.rigid_transforms`).
- Units: SI, dimensional (kg, kg/s, N/m per metre of wave amplitude, N/m), at the
  dataset's water density :attr:`HydroDatabase.rho`. :meth:`HydroDatabase.at_density`
  is the one place the coefficients are taken to another density (all of them, the
  hydrostatic stiffness included, scale with it: they are integrals of the water's
  pressure over the same wetted hull).

Several bodies: :class:`MultiBodyDatabase` holds a dataset's ``6 N x 6 N`` coefficients
(cross-body terms included) in frylinks' order, body after body, each body's about its
COG; :meth:`MultiBodyDatabase.body` is one body's diagonal block, which is what
:func:`~frylinks_marine.capytaine_reader.read_capytaine` returns.

Radiation in the time domain (Cummins): the radiation force is
``-A_inf xi'' - int_0^t K(t - s) xi'(s) ds`` with ``K(t) = 2/pi int_0^inf B(w) cos(w t)
dw`` (:func:`~frylinks_marine.radiation.impulse_response`);
:class:`~frylinks_marine.radiation.RadiationStateSpace` replaces the convolution
by a linear system ``z' = A z + B xi'``, ``int K xi' ~ C z``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from frylinks.errors import ModelError

from .radiation import RadiationStateSpace
from .rigid_transforms import moved_by, transform_matrix
from .second_order import SecondOrder

Array = np.ndarray

#: frylinks' DOF order.
DOF_NAMES = ("surge", "sway", "heave", "roll", "pitch", "yaw")

#: Two headings closer than this [rad] are the same heading.
HEADING_TOL = 1e-6


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
        (estimated by
        :func:`~frylinks_marine.radiation.ogilvie_added_mass_inf`) or ``"given"``.
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
        frylinks computes its own
        (:func:`~frylinks_marine.radiation.impulse_response`) from the damping.
    state_space
        A realisation of the radiation memory stored with the coefficients (BEMIO's
        ``state_space``), dimensional (the kernel, not ``K / rho``), or None.
    added_mass_zero
        ``(6, 6)`` zero-frequency added mass the source gave (WAMIT's ``PER = -1``), or
        None.
    excitation_absent
        Why the source has no excitation (then there are no headings), naming the
        missing file, or None; :meth:`require_excitation` says it.
    second_order
        Mean drift and QTFs (:class:`~frylinks_marine.second_order.SecondOrder`), or
        None.
    froude_krylov
        The Froude-Krylov part of :attr:`excitation` (same shape), where the source
        gives it apart from the diffraction part (Capytaine's ``Froude_Krylov_force``,
        BEMIO's ``excitation/froude-krylov``), else None: :meth:`excitation_at`'s
        ``part="diffraction"`` needs it.
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
    added_mass_zero: Array | None = field(default=None, repr=False)
    excitation_absent: str | None = field(default=None, repr=False)
    second_order: SecondOrder | None = field(default=None, repr=False)
    froude_krylov: Array | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        def setf(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        omega = _checked_omega(self.omega)
        setf("omega", omega)
        nw = omega.size
        if self.added_mass_zero is not None:
            setf("added_mass_zero", checked_array(self.added_mass_zero, (6, 6),
                                                  "added_mass_zero"))
        for name in ("added_mass", "radiation_damping"):
            setf(name, checked_array(getattr(self, name), (nw, 6, 6), name))
        headings = np.asarray(self.headings, dtype=float).reshape(-1)
        if not np.isfinite(headings).all():
            raise ModelError("headings must be finite", "headings")
        setf("headings", headings)
        setf("excitation", checked_array(self.excitation, (nw, headings.size, 6), "excitation",
                                    complex))
        setf("added_mass_inf", checked_array(self.added_mass_inf, (6, 6), "added_mass_inf"))
        for name in ("hydrostatic_stiffness", "inertia"):
            if getattr(self, name) is not None:
                setf(name, checked_array(getattr(self, name), (6, 6), name))
        for name in ("rotation_center", "center_of_mass"):
            if getattr(self, name) is not None:
                setf(name, checked_array(getattr(self, name), (3,), name))
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
            out = moved_by(m, t)
            assert out is not None
            return out

        return replace(
            self, added_mass=mv(self.added_mass), radiation_damping=mv(self.radiation_damping),
            added_mass_inf=mv(self.added_mass_inf), inertia=moved_by(self.inertia, t),
            hydrostatic_stiffness=moved_by(self.hydrostatic_stiffness, t),
            excitation=np.einsum("ki,...k->...i", t, self.excitation), rotation_center=new,
            froude_krylov=(None if self.froude_krylov is None
                           else np.einsum("ki,...k->...i", t, self.froude_krylov)),
            kernel=moved_by(self.kernel, t),
            state_space=None if self.state_space is None else self.state_space.moved(t),
            added_mass_zero=moved_by(self.added_mass_zero, t),
            second_order=None if self.second_order is None else self.second_order.moved(t))

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
            froude_krylov=None if self.froude_krylov is None else self.froude_krylov * r,
            hydrostatic_stiffness=(None if self.hydrostatic_stiffness is None
                                   else self.hydrostatic_stiffness * r),
            kernel=None if self.kernel is None else self.kernel * r,
            state_space=None if self.state_space is None else self.state_space.scaled(r),
            added_mass_zero=None if self.added_mass_zero is None else self.added_mass_zero * r,
            second_order=None if self.second_order is None else self.second_order.scaled(r),
            rho=rho)

    def require_excitation(self) -> None:
        """Check the database holds wave excitation.

        Raises
        ------
        ModelError
            If it has none (:attr:`excitation_absent` says why, naming the missing
            file).
        """
        if self.nb_headings == 0:
            why = self.excitation_absent or "the dataset holds no wave headings"
            raise ModelError(f"{self._where()}no wave excitation: {why}; accepted: a "
                             "dataset with excitation for wave forces", "excitation")

    def excitation_at(self, omega: Any, heading: float = 0.0,
                      method: str = "linear", part: str = "total") -> Array:
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
        source = self.excitation_part(part)
        w = np.asarray(omega, dtype=float)
        scalar = w.ndim == 0
        w = w.reshape(-1)
        table = np.zeros((self.omega.size, 6), dtype=complex)
        for index, weight in self._heading_weights(float(heading), method):
            table += weight * source[:, index, :]
        i0, i1, s, inside = linear_weights(w, self.omega)
        out = (1.0 - s)[:, None] * table[i0] + s[:, None] * table[i1]
        out[~inside] = 0.0
        if not inside.all():
            warnings.warn(
                f"{self._where()}{np.count_nonzero(~inside)} of {w.size} frequencies lie "
                f"outside the data ({self.omega[0]:g} to {self.omega[-1]:g} rad/s); "
                "their excitation is zero", UserWarning, stacklevel=2)
        return out[0] if scalar else out

    def excitation_part(self, part: str = "total") -> Array:
        """The excitation table ``(nw, nb_headings, 6)``: ``"total"`` (diffraction and
        Froude-Krylov, :attr:`excitation`) or ``"diffraction"`` (without the incident
        wave's Froude-Krylov force, for a body whose Froude-Krylov force another force
        supplies, e.g. on its instantaneous wetted surface). ModelError when the data have
        no excitation, or give only the total and the diffraction part is asked for."""
        self.require_excitation()
        if part == "total":
            return self.excitation
        if part != "diffraction":
            raise ModelError(f"unknown excitation part {part!r}; accepted: total, "
                             "diffraction", "part")
        if self.froude_krylov is None:
            raise ModelError(
                f"{self._where()}the data give the excitation only in total (diffraction "
                "and Froude-Krylov together); the diffraction part needs them apart: a "
                "Capytaine dataset with 'diffraction_force' and 'Froude_Krylov_force', or "
                "a BEMIO file with excitation/froude-krylov (WAMIT's .3 holds the total "
                "only)", "part")
        return self.excitation - self.froude_krylov

    def _heading_weights(self, heading: float, method: str) -> list[tuple[int, float]]:
        return heading_weights(self.headings, heading, method, self._where())

    def _where(self) -> str:
        label = self.label
        return f"{label}: " if label else ""


def _label(source: str, body: str | None) -> str:
    if body is None:
        return source
    return f"{source} body {body!r}" if source else f"body {body!r}"


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
    added_mass_zero, excitation_absent, second_order
        As in :class:`HydroDatabase`, over the ``6 N`` DOFs.
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
    added_mass_zero: Array | None = field(default=None, repr=False)
    excitation_absent: str | None = field(default=None, repr=False)
    second_order: SecondOrder | None = field(default=None, repr=False)
    froude_krylov: Array | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        def setf(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        n = 6 * len(self.bodies)
        if n == 0 or len(set(self.bodies)) != len(self.bodies):
            raise ModelError(f"expected distinct body names, got {self.bodies}", "bodies")
        omega = _checked_omega(self.omega)
        setf("omega", omega)
        for name in ("added_mass", "radiation_damping"):
            setf(name, checked_array(getattr(self, name), (omega.size, n, n), name))
        headings = np.asarray(self.headings, dtype=float).reshape(-1)
        setf("headings", headings)
        setf("excitation", checked_array(self.excitation, (omega.size, headings.size, n),
                                    "excitation", complex))
        setf("added_mass_inf", checked_array(self.added_mass_inf, (n, n), "added_mass_inf"))
        for name in ("hydrostatic_stiffness", "inertia"):
            if getattr(self, name) is not None:
                setf(name, checked_array(getattr(self, name), (n, n), name))
        for name in ("rotation_centers", "centers_of_mass"):
            points = tuple(getattr(self, name)) or (None,) * len(self.bodies)
            if len(points) != len(self.bodies):
                raise ModelError(f"expected one point per body, got {len(points)}", name)
            setf(name, tuple(None if p is None else checked_array(p, (3,), name) for p in points))
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
            froude_krylov=None if self.froude_krylov is None else self.froude_krylov[..., s],
            added_mass_inf=a_inf, added_mass_inf_source=self.added_mass_inf_source,
            hydrostatic_stiffness=block(self.hydrostatic_stiffness),
            inertia=block(self.inertia), rho=self.rho, g=self.g,
            water_depth=self.water_depth, rotation_center=self.rotation_centers[b],
            center_of_mass=self.centers_of_mass[b], dofs=self.dofs[b], source=self.source,
            body=name, kernel_time=self.kernel_time, kernel=block(self.kernel),
            state_space=state_space, added_mass_zero=block(self.added_mass_zero),
            excitation_absent=self.excitation_absent,
            second_order=None if self.second_order is None else self.second_order.restricted(s))

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
            froude_krylov=None if self.froude_krylov is None else self.froude_krylov * r,
            hydrostatic_stiffness=sc(self.hydrostatic_stiffness), kernel=sc(self.kernel),
            state_space=None if self.state_space is None else self.state_space.scaled(r),
            added_mass_zero=sc(self.added_mass_zero),
            second_order=None if self.second_order is None else self.second_order.scaled(r),
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


def checked_array(value: Any, shape: tuple[int, ...], name: str, dtype: type = float
                  ) -> Array:
    """``value`` as an array of ``dtype``, of ``shape`` and finite; a ModelError at
    ``name`` otherwise (the check of every array of a database, and of a reader's COG)."""
    try:
        arr: Array = np.array(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"expected numbers of shape {shape}: {exc}", name) from None
    if arr.shape != shape:
        raise ModelError(f"expected shape {shape}, got {arr.shape}", name)
    if not np.isfinite(arr).all():
        raise ModelError("expected finite numbers (found NaN or inf)", name)
    return arr


def heading_weights(headings: Array, heading: float, method: str = "linear",
                    where: str = "") -> list[tuple[int, float]]:
    """Indices of ``headings`` [rad] and weights that interpolate data at ``heading``.

    ``"linear"`` between the two stored headings either side (the span wraps round
    ``2 pi`` only when the stored headings go all round the circle, i.e. the gap across
    ``2 pi`` is no larger than the largest gap between them), or ``"nearest"``; a
    stored heading (within :data:`HEADING_TOL`) is used as is by either.

    Raises
    ------
    ModelError
        For a heading outside the stored span (``"linear"``; the message starts with
        ``where``) or an unknown method.
    """
    if method not in ("linear", "nearest"):
        raise ModelError(f"unknown heading interpolation {method!r}; accepted: linear, "
                         "nearest", "method")
    stored = np.mod(headings, 2 * np.pi)
    h = float(np.mod(heading, 2 * np.pi))
    distance = np.abs(np.mod(h - stored + np.pi, 2 * np.pi) - np.pi)
    nearest = int(np.argmin(distance))
    if distance[nearest] <= HEADING_TOL or method == "nearest":
        return [(nearest, 1.0)]
    order = np.argsort(stored)
    angles = stored[order]
    gaps = np.diff(np.concatenate([angles, [angles[0] + 2 * np.pi]]))
    k = int(np.searchsorted(angles, h)) - 1  # angles[k] < h (k = -1: across 2 pi)
    k %= angles.size
    closes = angles.size > 1 and gaps[-1] <= gaps[:-1].max() + HEADING_TOL
    if angles.size == 1 or (k == angles.size - 1 and not closes):
        listed = ", ".join(f"{np.degrees(a):g}" for a in angles)
        raise ModelError(
            f"{where}heading {np.degrees(h):g} deg is not in the data "
            f"(headings: {listed} deg) and lies outside their span; accepted: a heading "
            "within the span, or method='nearest'", "heading")
    lo, hi = order[k], order[(k + 1) % angles.size]
    s = float(np.mod(h - angles[k], 2 * np.pi) / gaps[k])
    return [(int(lo), 1.0 - s), (int(hi), s)]


def linear_weights(x: Array, xp: Array) -> tuple[Array, Array, Array, Array]:
    """Indices and weights of linear interpolation in ascending ``xp``; ``inside`` marks
    the ``x`` within ``[xp[0], xp[-1]]``."""
    inside = (x >= xp[0]) & (x <= xp[-1])
    i1 = np.clip(np.searchsorted(xp, x), 1, xp.size - 1)
    i0 = i1 - 1
    s = np.clip((x - xp[i0]) / (xp[i1] - xp[i0]), 0.0, 1.0)
    return i0, i1, s, inside
