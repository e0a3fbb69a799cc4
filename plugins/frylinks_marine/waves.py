"""Linear (Airy) waves: dispersion, sea spectra and the kinematics of a wave field.

A :class:`WaveField` holds the components and computes, when it is built, everything
that depends on neither the time nor the points (:meth:`WaveField.kernel_data`); its
kinematics are the compiled kernels of :mod:`frylinks_marine.wave_kernels`, which the
marine forces' kernels call at their points (the one implementation of the formulas
below).

Conventions
-----------
Right-handed world frame, z up, origin at the still-water level (``z = 0``), seabed at
``z = -depth`` (``depth = inf``: deep water). A component of heading ``beta`` [rad]
travels towards ``(cos beta, sin beta, 0)``: heading 0 goes towards +x. The elevation
of a field of components ``i`` is::

    eta(x, y, t) = r(t) * sum_i a_i cos(k_i (x cos b_i + y sin b_i) - w_i t + phi_i)

that is ``eta = Re(r(t) sum_i A_i exp(1j k_i . x) exp(-1j w_i t))`` with the **complex
amplitude at the origin** ``A_i = a_i exp(1j phi_i)`` and the **time factor
exp(-1j w t)**, Capytaine's convention. A Capytaine excitation force per unit wave
amplitude ``F(w, beta)`` (computed with the mesh in this same frame, so that its phase
refers to the world origin) gives the force in the time domain as
``r(t) * sum_i Re(A_i F(w_i, b_i) exp(-1j w_i t))``.

``r(t)`` is a start-up ramp of duration ``T = ramp``: ``r = (1 - cos(pi t / T)) / 2`` for
``0 <= t < T``, 1 afterwards and 0 for ``t < 0``; without a ramp (``T = 0``) ``r = 1`` at
every time, negative ones included. The ramp multiplies the elevation and the wave
velocity; the acceleration is the exact time derivative of the ramped velocity at a
fixed point (the ``dr/dt`` term included).

Kinematics (velocity potential ``(g a / w) cosh(k (z + d)) / cosh(k d) sin(theta)``)::

    u_h = r a w cosh(k (z + d)) / sinh(k d) cos(theta) (cos b, sin b)
    u_z = r a w sinh(k (z + d)) / sinh(k d) sin(theta)

evaluated as ``(exp(k z) +- exp(-k (z + 2 d))) / (1 - exp(-2 k d))``: both
exponentials are at most 1 in the water column, so nothing overflows however large
``k d`` is, and ``depth = inf`` drops the second exponential (deep water, ``exp(k z)``).

Points above the still-water level take the kinematics at ``z = 0`` (Wheeler-free
vertical extrapolation: constant, no stretching); points below the seabed take those at
``z = -depth``.

A uniform ``current`` (world axes, m/s) is added to the fluid velocity. It does not
Doppler-shift the waves: ``w`` is the frequency seen at a fixed point and the dispersion
relation is solved without current (good for currents small against the phase speed).
The current is steady and is not ramped.
"""

from __future__ import annotations

import math
import reprlib
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from frylinks.errors import ModelError

from .wave_kernels import (
    RAMP_SHAPES,
    wave_elevations,
    wave_kinematics_many,
    wave_params,
    wave_ramps,
    wave_table,
)

FloatArray = npt.NDArray[np.float64]

#: Names of the spectra :meth:`WaveField.irregular` accepts.
SPECTRA = ("jonswap", "pierson_moskowitz")

#: JONSWAP peak widths below and above the peak frequency (DNV-RP-C205).
SIGMA_BELOW, SIGMA_ABOVE = 0.07, 0.09

#: Fractions of m0 left out below and above the default frequency range of an irregular
#: field: the range holds 99.51 % of m0 (a margin of 1e-4 for the peak enhancement's
#: contribution to the lower tail, under 1e-7 of m0 for gamma <= 20).
TAIL_BELOW, TAIL_ABOVE = 0.001, 0.0039


def _number(value: object, path: str, *, zero: bool = False, inf: bool = False) -> float:
    """A positive number (``zero``: non-negative; ``inf``: infinity accepted) or a ModelError."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        x = math.nan
    if math.isnan(x) or x < 0.0 or (x == 0.0 and not zero) or (math.isinf(x) and not inf):
        kind = "non-negative" if zero else "positive"
        finite = "" if inf else " finite"
        raise ModelError(f"expected a {kind}{finite} number, got {reprlib.repr(value)}", path)
    return x


def _vector(value: npt.ArrayLike, path: str, shape: tuple[int, ...] | None = None) -> FloatArray:
    """A finite float array (of ``shape`` if given) or a ModelError."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        arr = None
    if arr is None or (shape is not None and arr.shape != shape) or not np.isfinite(arr).all():
        want = f"{shape[0]} finite numbers" if shape else "finite numbers"
        raise ModelError(f"expected {want}, got {reprlib.repr(value)}", path)
    return arr


def _frozen(arr: FloatArray) -> FloatArray:
    # read-only: the field precomputes from these, so a change in place would go unnoticed
    arr.flags.writeable = False
    return arr


# --------------------------------------------------------------------------- dispersion


def wavenumber(omega: npt.ArrayLike, depth: float = math.inf, g: float = 9.81) -> FloatArray:
    """Wavenumber solving the linear dispersion relation ``w^2 = g k tanh(k d)``.

    Newton's method on ``y tanh(y) = w^2 d / g`` (``y = k d``) from the explicit
    approximation of Fenton & McKee (1990), within 1.5 %; it stops one step after a step
    below 1e-9 relative, so the result is at round-off (about 1e-15 relative).

    Parameters
    ----------
    omega
        Angular frequencies [rad/s], any shape, ``>= 0``.
    depth
        Water depth [m], ``> 0``; ``inf`` gives the deep-water ``w^2 / g``.
    g
        Gravitational acceleration [m/s^2].

    Returns
    -------
    numpy.ndarray
        Wavenumbers [rad/m], the shape of ``omega``.

    Raises
    ------
    ModelError
        For a non-positive depth or g, or a negative or non-finite frequency.
    """
    d = _number(depth, "depth", inf=True)
    g = _number(g, "g")
    w = np.asarray(omega, dtype=float)
    if not (np.isfinite(w).all() and (w >= 0.0).all()):
        raise ModelError(f"expected finite non-negative angular frequencies [rad/s], got "
                         f"{reprlib.repr(omega)}", "omega")
    k0 = w * w / g
    if math.isinf(d):
        return k0
    nu = k0 * d
    y = np.zeros_like(nu)
    pos = nu > 0.0
    y = np.divide(nu, np.tanh(nu**0.75) ** (2.0 / 3.0), out=y, where=pos)
    for _ in range(50):
        # sech^2 from exp(-2y) <= 1: no overflow for large y, no cancellation for small y
        e = np.exp(-2.0 * y)
        th = np.tanh(y)
        slope = th + y * 4.0 * e / (1.0 + e) ** 2
        step = np.divide(y * th - nu, slope, out=np.zeros_like(y), where=pos)
        y = y - step
        if (np.abs(step) <= 1e-9 * y).all():
            break
    return y / d


# ------------------------------------------------------------------------------ spectra


def _pm(w: FloatArray, hs: float, wp: float) -> FloatArray:
    # in x = wp / w the spectrum is (5/16) hs^2 x^5 exp(-1.25 x^4) / wp; x is capped where
    # exp(-1.25 x^4) is already 0 so that x^5 cannot overflow into inf * 0
    x = np.divide(wp, w, out=np.zeros_like(w), where=w > 0.0)
    x = np.minimum(x, 1e3)
    out: FloatArray = (5.0 / 16.0) * hs * hs / wp * x**5 * np.exp(-1.25 * x**4)
    return out


def _peak_shape(x: FloatArray, gamma: float) -> FloatArray:
    """``gamma ** alpha - 1`` of the JONSWAP peak enhancement at ``x = w / wp``."""
    sigma = np.where(x <= 1.0, SIGMA_BELOW, SIGMA_ABOVE)
    alpha = np.exp(-((x - 1.0) ** 2) / (2.0 * sigma * sigma))
    out: FloatArray = np.expm1(alpha * math.log(gamma))
    return out


@lru_cache(maxsize=64)
def jonswap_normalisation(gamma: float) -> float:
    """Factor ``C(gamma)`` that makes the JONSWAP spectrum's m0 equal ``hs^2 / 16``.

    ``1 / C = int S_PM gamma^alpha dw / m0_PM = 1 + int 5 x^-5 exp(-1.25 x^-4)
    (gamma^alpha - 1) dx``; the second integrand lives within 12 sigma of the peak, where
    Gauss-Legendre quadrature (128 nodes on each side of the peak, whose sigma differs)
    takes it to round-off. DNV's closed form ``1 - 0.287 ln(gamma)`` differs from it by
    0.24 % at gamma = 3.3, under 0.25 % for gamma in [1, 5], 1.8 % at gamma = 7.

    Parameters
    ----------
    gamma
        Peak enhancement factor, ``>= 1``.
    """
    nodes, weights = np.polynomial.legendre.leggauss(128)
    total = 1.0
    for lo, hi in ((1.0 - 12.0 * SIGMA_BELOW, 1.0), (1.0, 1.0 + 12.0 * SIGMA_ABOVE)):
        x = 0.5 * (hi - lo) * nodes + 0.5 * (hi + lo)
        f = 5.0 * x**-5 * np.exp(-1.25 * x**-4) * _peak_shape(x, gamma)
        total += 0.5 * (hi - lo) * float(weights @ f)
    return 1.0 / total


def _gamma(gamma: float) -> float:
    g = _number(gamma, "gamma")
    if g < 1.0:
        raise ModelError(f"expected a peak enhancement factor >= 1, got {reprlib.repr(gamma)}",
                         "gamma")
    return g


def pierson_moskowitz(omega: npt.ArrayLike, hs: float, tp: float) -> FloatArray:
    """One-sided Pierson-Moskowitz spectrum ``S(w)`` [m^2 s/rad].

    ``S = (5/16) hs^2 wp^4 w^-5 exp(-5/4 (wp / w)^4)``, ``wp = 2 pi / tp``; its m0 is
    ``hs^2 / 16`` exactly (analytically). ``S = 0`` for ``w <= 0``.

    Parameters
    ----------
    omega
        Angular frequencies [rad/s], any shape.
    hs
        Significant wave height ``4 sqrt(m0)`` [m], ``> 0``.
    tp
        Peak period [s], ``> 0``.

    Raises
    ------
    ModelError
        For a non-positive ``hs`` or ``tp`` (path ``hs`` / ``tp``).
    """
    hs = _number(hs, "hs")
    wp = 2.0 * math.pi / _number(tp, "tp")
    return _pm(np.asarray(omega, dtype=float), hs, wp)


def jonswap(omega: npt.ArrayLike, hs: float, tp: float, gamma: float = 3.3) -> FloatArray:
    """One-sided JONSWAP spectrum ``S(w)`` [m^2 s/rad] (DNV-RP-C205 form).

    ``S = C(gamma) S_PM(w) gamma^exp(-(w - wp)^2 / (2 sigma^2 wp^2))``, sigma 0.07 for
    ``w <= wp`` and 0.09 above. ``C`` is computed numerically
    (:func:`jonswap_normalisation`) so that m0 equals ``hs^2 / 16`` to round-off, not
    DNV's approximate ``1 - 0.287 ln(gamma)``. ``gamma = 1`` is Pierson-Moskowitz.

    Parameters
    ----------
    omega
        Angular frequencies [rad/s], any shape.
    hs
        Significant wave height ``4 sqrt(m0)`` [m], ``> 0``.
    tp
        Peak period [s], ``> 0``.
    gamma
        Peak enhancement factor, ``>= 1``.

    Raises
    ------
    ModelError
        For a non-positive ``hs`` or ``tp`` or a ``gamma`` below 1.
    """
    hs = _number(hs, "hs")
    wp = 2.0 * math.pi / _number(tp, "tp")
    gamma = _gamma(gamma)
    w = np.asarray(omega, dtype=float)
    x = w / wp
    out: FloatArray = jonswap_normalisation(gamma) * _pm(w, hs, wp) * (1.0 + _peak_shape(x, gamma))
    return out


def spectrum_bounds(tp: float, gamma: float = 1.0) -> tuple[float, float]:
    """Frequency range [rad/s] holding at least 99.5 % of the m0 of a JONSWAP spectrum.

    0.1 % of m0 lies below the range and 0.39 % above (the ``w^-5`` tail is long). The
    tails are those of ``C(gamma)`` times Pierson-Moskowitz, whose cumulative m0 is
    ``exp(-1.25 (wp / w)^4)``: the peak enhancement is below 1e-4 there.

    Parameters
    ----------
    tp
        Peak period [s].
    gamma
        Peak enhancement factor (1: Pierson-Moskowitz).

    Returns
    -------
    tuple of float
        ``(w_min, w_max)``; about ``(0.65, 4.2) * wp`` for Pierson-Moskowitz, ``(0.66,
        3.8) * wp`` for JONSWAP with gamma = 3.3.
    """
    wp = 2.0 * math.pi / _number(tp, "tp")
    c = jonswap_normalisation(_gamma(gamma))
    lo = (1.25 / math.log(c / TAIL_BELOW)) ** 0.25
    hi = (1.25 / -math.log1p(-TAIL_ABOVE / c)) ** 0.25
    return lo * wp, hi * wp


# --------------------------------------------------------------------------- wave field


class WaveField:
    """A linear wave field: a sum of Airy components, a start-up ramp and a current.

    Conventions, formulas and extrapolation are those of the module docstring. The
    component arrays are read-only: the field precomputes from them at construction.

    Parameters
    ----------
    amplitude
        Component amplitudes ``a_i`` [m], shape ``(nc,)``, ``>= 0``.
    omega
        Angular frequencies ``w_i`` [rad/s], shape ``(nc,)``, ``> 0``.
    heading
        Directions of travel ``b_i`` [rad] (0: towards +x), shape ``(nc,)`` or a scalar.
    phase
        Phases ``phi_i`` [rad] at the origin and ``t = 0``, shape ``(nc,)`` or a scalar.
    depth
        Water depth [m], ``> 0``, ``inf`` for deep water.
    g
        Gravitational acceleration [m/s^2].
    ramp
        Duration of the start-up ramp [s], ``>= 0`` (0: no ramp).
    current
        Uniform current velocity, world axes [m/s], shape ``(3,)``.
    bin_width
        Frequency bin of each component [rad/s], shape ``(nc,)``, for an irregular sea
        (:meth:`elevation_spectrum`); ``None`` otherwise.
    ramp_shape
        ``"half_cosine"`` (the default, WEC-Sim's ramp) or ``"linear"``
        (:data:`~frylinks_marine.wave_kernels.RAMP_SHAPES`).

    Attributes
    ----------
    amplitude, omega, k, heading, phase : numpy.ndarray
        Component arrays, shape ``(nc,)``; ``k`` solves the dispersion relation.
    bin_width : numpy.ndarray or None
        Frequency bins, shape ``(nc,)``, of a field drawn from a spectrum.
    depth, g, ramp : float
    current : numpy.ndarray
        Shape ``(3,)``.
    """

    def __init__(self, amplitude: npt.ArrayLike = (), omega: npt.ArrayLike = (),
                 heading: npt.ArrayLike = 0.0, phase: npt.ArrayLike = 0.0, *,
                 depth: float = math.inf, g: float = 9.81, ramp: float = 0.0,
                 current: npt.ArrayLike = (0.0, 0.0, 0.0),
                 bin_width: npt.ArrayLike | None = None,
                 ramp_shape: str = "half_cosine") -> None:
        a = _vector(amplitude, "amplitude")
        if a.ndim != 1 or (a < 0.0).any():
            raise ModelError(f"expected a list of non-negative amplitudes [m], got "
                             f"{reprlib.repr(amplitude)}", "amplitude")
        shape = a.shape
        w = _vector(omega, "omega", shape)
        if (w <= 0.0).any():
            raise ModelError(f"expected positive angular frequencies [rad/s], got "
                             f"{reprlib.repr(omega)}", "omega")
        b = np.array(np.broadcast_to(_vector(heading, "heading"), shape), dtype=float)
        phi = np.array(np.broadcast_to(_vector(phase, "phase"), shape), dtype=float)
        self.depth = _number(depth, "depth", inf=True)
        self.g = _number(g, "g")
        self.ramp = _number(ramp, "ramp", zero=True)
        if ramp_shape not in RAMP_SHAPES:
            raise ModelError(f"unknown ramp shape {reprlib.repr(ramp_shape)}; known: "
                             f"{', '.join(RAMP_SHAPES)}", "ramp_shape")
        self.ramp_shape = ramp_shape
        self.current = _frozen(_vector(current, "current", (3,)))
        self.amplitude = _frozen(a)
        self.omega = _frozen(w)
        self.heading = _frozen(b)
        self.phase = _frozen(phi)
        self.k = _frozen(wavenumber(w, self.depth, self.g))
        self.bin_width: FloatArray | None = None
        #: Variance of the components a field made from a record left out, over the
        #: record's (:meth:`from_record`); 0 otherwise.
        self.record_error = 0.0
        if bin_width is not None:
            dw = _vector(bin_width, "bin_width", shape)
            if (dw <= 0.0).any():
                raise ModelError("expected positive frequency bins [rad/s]", "bin_width")
            self.bin_width = _frozen(dw)

        # what the kernels read (frylinks_marine.wave_kernels): writable copies, so that
        # numba sees the same array types for every field
        self._table = wave_table(a, w, self.k, b, phi, self.depth)
        self._params = wave_params(self.depth, self.ramp, self.current, ramp_shape)

    # ---------------------------------------------------------------- constructors

    @classmethod
    def still(cls, current: npt.ArrayLike = (0.0, 0.0, 0.0), depth: float = math.inf,
              g: float = 9.81) -> WaveField:
        """Still water (no wave component), with an optional uniform current."""
        return cls(depth=depth, g=g, current=current)

    @classmethod
    def regular(cls, height: float, period: float, heading: float = 0.0, phase: float = 0.0,
                ramp: float = 0.0, depth: float = math.inf, g: float = 9.81,
                current: npt.ArrayLike = (0.0, 0.0, 0.0), ramp_shape: str = "half_cosine"
                ) -> WaveField:
        """A regular (single-component) wave of amplitude ``height / 2``.

        Parameters
        ----------
        height
            Wave height, crest to trough [m], ``>= 0``.
        period
            Wave period [s], ``> 0``.
        heading, phase
            Direction of travel and phase at the origin [rad].
        ramp, depth, g, current, ramp_shape
            As :class:`WaveField`.
        """
        h = _number(height, "height", zero=True)
        w = 2.0 * math.pi / _number(period, "period")
        return cls([0.5 * h], [w], heading, phase, depth=depth, g=g, ramp=ramp,
                   current=current, ramp_shape=ramp_shape)

    @classmethod
    def irregular(cls, spectrum: str, hs: float, tp: float, gamma: float = 3.3,
                  nb_frequencies: int = 200, seed: int = 0, heading: float = 0.0,
                  ramp: float = 0.0, depth: float = math.inf, g: float = 9.81,
                  current: npt.ArrayLike = (0.0, 0.0, 0.0),
                  omega_range: tuple[float, float] | None = None,
                  ramp_shape: str = "half_cosine") -> WaveField:
        """A long-crested irregular sea drawn from a spectrum.

        The range ``omega_range`` (default :func:`spectrum_bounds`: 99.51 % of m0, 0.1 %
        left below and 0.39 % above) is split into ``nb_frequencies`` equal bins ``dw``;
        component ``i`` sits at a uniformly random point ``w_i`` of its bin, with
        amplitude ``sqrt(2 S(w_i) dw)`` (deterministic) and a uniformly random phase. The
        random numbers come from ``numpy.random.default_rng(seed)``, frequencies first,
        then phases: the same arguments give the same field (a resumed run sees the same
        sea), hence a fixed default seed.

        Equally spaced frequencies would repeat the record exactly every ``2 pi / dw``;
        the random frequencies are incommensurate, so the record does not repeat, but it
        still holds only ``nb_frequencies`` sinusoids: a record longer than ``2 pi / dw``
        adds no spectral detail finer than ``dw``.

        Short-crested seas, several wave systems, spectrum tables and the other frequency
        discretisations are :mod:`frylinks_marine.sea_states`' (whose long-crested
        ``random`` system is this sea, bit for bit).

        Parameters
        ----------
        spectrum
            ``"jonswap"`` or ``"pierson_moskowitz"``.
        hs, tp
            Significant wave height [m] and peak period [s], ``> 0``.
        gamma
            JONSWAP peak enhancement factor, ``>= 1`` (ignored for Pierson-Moskowitz).
        nb_frequencies
            Number of components, ``>= 1``.
        seed
            Seed of the random frequencies and phases.
        heading, ramp, depth, g, current, ramp_shape
            As :class:`WaveField`.
        omega_range
            ``(w_min, w_max)`` [rad/s], ``0 < w_min < w_max``.

        Raises
        ------
        ModelError
            Naming the parameter at fault.
        """
        if spectrum not in SPECTRA:
            raise ModelError(f"unknown spectrum {reprlib.repr(spectrum)}; known: "
                             f"{', '.join(SPECTRA)}", "spectrum")
        hs = _number(hs, "hs")
        tp = _number(tp, "tp")
        gamma = _gamma(gamma) if spectrum == "jonswap" else 1.0
        if isinstance(nb_frequencies, bool) or not isinstance(nb_frequencies, int | np.integer) \
                or nb_frequencies < 1:
            raise ModelError(f"expected a whole number >= 1, got {reprlib.repr(nb_frequencies)}",
                             "nb_frequencies")
        if omega_range is None:
            lo, hi = spectrum_bounds(tp, gamma)
        else:
            bounds = _vector(omega_range, "omega_range", (2,))
            lo, hi = float(bounds[0]), float(bounds[1])
            if not 0.0 < lo < hi:
                raise ModelError(f"expected (w_min, w_max) with 0 < w_min < w_max [rad/s], got "
                                 f"{reprlib.repr(omega_range)}", "omega_range")
        n = int(nb_frequencies)
        dw = (hi - lo) / n
        rng = np.random.default_rng(seed)
        w = lo + (np.arange(n) + rng.random(n)) * dw
        phase = rng.uniform(0.0, 2.0 * math.pi, n)
        s = jonswap(w, hs, tp, gamma)
        return cls(np.sqrt(2.0 * s * dw), w, heading, phase, depth=depth, g=g, ramp=ramp,
                   current=current, bin_width=np.full(n, dw), ramp_shape=ramp_shape)

    @classmethod
    def from_record(cls, times: npt.ArrayLike, elevation: npt.ArrayLike,
                    heading: float = 0.0, omega_max: float | None = None, ramp: float = 0.0,
                    depth: float = math.inf, g: float = 9.81,
                    current: npt.ArrayLike = (0.0, 0.0, 0.0),
                    ramp_shape: str = "half_cosine") -> WaveField:
        """The long-crested sea whose elevation at the origin is a given record.

        The record (equally spaced samples ``eta_n`` at ``t_n = t_0 + n dt``, ``N`` of
        them) is split by a discrete Fourier transform into components at the
        frequencies ``w_k = 2 pi k / (N dt)``, ``k = 1 .. N/2``, of amplitude
        ``2 |X_k| / N`` (``|X_k| / N`` at the Nyquist frequency of an even ``N``) and
        phase ``w_k t_0 - arg X_k`` (frylinks' ``exp(-1j w t)`` convention), as
        WEC-Sim's ``elevationImport`` does. Their sum equals the record at its samples
        (to round-off) when every component is kept; it repeats with period ``N dt``.
        The record's mean is not a wave: it is left out.

        Parameters
        ----------
        times, elevation
            ``(N,)`` [s] and [m], ``N >= 4``, times equally spaced.
        heading
            Direction of travel [rad].
        omega_max
            Components above this frequency [rad/s] are left out (default: none, up to
            the record's Nyquist frequency ``pi / dt``): fewer components, a cheaper
            step; the elevation then differs from the record by what they held
            (:attr:`record_error` gives it, relative to the record's variance).
        ramp, depth, g, current, ramp_shape
            As :class:`WaveField`.

        Raises
        ------
        ModelError
            For fewer than 4 samples, unequal spacing, non-finite values.
        """
        t = _vector(times, "times")
        eta = _vector(elevation, "elevation", t.shape)
        if t.ndim != 1 or t.size < 4:
            raise ModelError(f"expected at least 4 samples, got {t.size}", "times")
        steps = np.diff(t)
        dt = float(np.mean(steps))
        if not dt > 0.0 or np.max(np.abs(steps - dt)) > 1e-6 * dt:
            raise ModelError(f"the record's times are not equally spaced (steps from "
                             f"{steps.min():.6g} to {steps.max():.6g} s); resample it first",
                             "times")
        n = t.size
        spectrum = np.fft.rfft(eta - eta.mean())
        k = np.arange(1, spectrum.size)
        w = 2.0 * math.pi * k / (n * dt)
        amp = 2.0 * np.abs(spectrum[1:]) / n
        # each component's variance at the samples (Parseval): a^2 / 2, and a^2 for the
        # Nyquist component of an even N (cos(pi n) is +-1 at every sample)
        share = np.full(amp.size, 0.5)
        if n % 2 == 0:
            amp[-1] *= 0.5
            share[-1] = 1.0
        phase = w * t[0] - np.angle(spectrum[1:])
        keep = amp > 1e-13 * amp.max(initial=0.0)  # (not the transform's round-off)
        if omega_max is not None:
            keep &= w <= _number(omega_max, "omega_max")
        variance = float(np.var(eta))
        left = float(np.sum(share[~keep] * amp[~keep] ** 2))
        field = cls(amp[keep], w[keep], heading, phase[keep], depth=depth, g=g, ramp=ramp,
                    current=current, bin_width=np.full(int(keep.sum()), w[0]),
                    ramp_shape=ramp_shape)
        field.record_error = left / variance if variance > 0.0 else 0.0
        return field

    # ------------------------------------------------------------------- summaries

    @property
    def nb_components(self) -> int:
        """Number of wave components ``nc``."""
        return int(self.amplitude.size)

    @property
    def variance(self) -> float:
        """Variance of the (fully ramped) elevation, ``sum a_i^2 / 2`` [m^2]."""
        return float(0.5 * self.amplitude @ self.amplitude)

    def elevation_spectrum(self) -> tuple[FloatArray, FloatArray]:
        """One-sided elevation spectrum of the field's components.

        Returns
        -------
        omega, density
            Component frequencies [rad/s] and ``a_i^2 / (2 dw_i)`` [m^2 s/rad], shape
            ``(nc,)``, in the components' order (increasing for :meth:`irregular`).

        Raises
        ------
        ValueError
            For a field without frequency bins (not drawn from a spectrum).
        """
        if self.bin_width is None:
            raise ValueError("this wave field has no frequency bins: its spectrum is a set of "
                             "lines; use amplitude and omega")
        return self.omega.copy(), self.amplitude**2 / (2.0 * self.bin_width)

    def __repr__(self) -> str:
        return (f"WaveField(nb_components={self.nb_components}, depth={self.depth:g}, "
                f"ramp={self.ramp:g} ({self.ramp_shape}), current={self.current.tolist()})")

    def kernel_data(self) -> tuple[FloatArray, FloatArray]:
        """``(table, params)``: the field as the kernels of
        :mod:`frylinks_marine.wave_kernels` take it (:func:`~frylinks_marine.wave_kernels.
        wave_elevation`, :func:`~frylinks_marine.wave_kernels.wave_kinematics`). Forces
        put them in their own ``kernel_data`` at ``prepare``; they must not be changed."""
        return self._table, self._params

    # ------------------------------------------------------------------------ ramp

    def _ramps(self, t: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        tt = np.asarray(t, dtype=float)
        flat = np.ascontiguousarray(tt.reshape(-1))
        r, rate = np.empty(flat.size), np.empty(flat.size)
        wave_ramps(self._params, flat, r, rate)
        return r.reshape(tt.shape), rate.reshape(tt.shape)

    def ramp_factor(self, t: npt.ArrayLike) -> FloatArray:
        """Ramp ``r(t)``: 0 before 0, ``(1 - cos(pi t / T)) / 2`` up to ``T``, then 1.

        Parameters
        ----------
        t
            Time [s], a float or an array.

        Returns
        -------
        numpy.ndarray
            The shape of ``t``.
        """
        return self._ramps(t)[0]

    def ramp_rate(self, t: npt.ArrayLike) -> FloatArray:
        """Time derivative ``dr/dt`` [1/s] of :meth:`ramp_factor`, the shape of ``t``."""
        return self._ramps(t)[1]

    # ------------------------------------------------------------------ kinematics

    @staticmethod
    def _times(t: npt.ArrayLike, n: int) -> FloatArray:
        """``t`` (a float or one time per point) as ``(n,)`` times."""
        tt = np.asarray(t, dtype=float)
        if tt.ndim != 0 and tt.shape != (n,):
            raise ValueError(f"t must be a float or have one time per point, shape ({n},); "
                             f"got shape {tt.shape}")
        return np.ascontiguousarray(np.broadcast_to(tt, (n,)))

    def elevation(self, xy: npt.ArrayLike, t: npt.ArrayLike) -> FloatArray:
        """Free-surface elevation ``eta`` [m].

        Parameters
        ----------
        xy
            Points, shape ``(n, 2)`` or ``(n, 3)`` (z ignored) or a single point.
        t
            Time [s]: a float, or shape ``(n,)`` (one time per point, e.g. a time series
            at one point).

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)`` (a scalar array for a single point).
        """
        p = np.asarray(xy, dtype=float)
        flat = np.ascontiguousarray(p.reshape(-1, p.shape[-1])[:, :2])
        tt = self._times(t, flat.shape[0])
        eta = np.empty(flat.shape[0])
        wave_elevations(self._table, self._params, flat, tt, eta)
        return eta.reshape(p.shape[:-1])

    def velocity(self, p: npt.ArrayLike, t: npt.ArrayLike) -> FloatArray:
        """Fluid particle velocity [m/s], world axes, the current included.

        Parameters
        ----------
        p
            Points, shape ``(n, 3)`` (or ``(3,)``).
        t
            Time [s]: a float, or shape ``(n,)``.

        Returns
        -------
        numpy.ndarray
            Shape of ``p``.
        """
        return self.kinematics(p, t, acceleration=False)[0]

    def acceleration(self, p: npt.ArrayLike, t: npt.ArrayLike) -> FloatArray:
        """Fluid acceleration at fixed points, ``d(velocity)/dt`` [m/s^2], world axes.

        The exact local derivative of the ramped wave velocity (``dr/dt`` term included);
        the convective term is second order and left out, as in linear theory. Shapes as
        :meth:`velocity`.
        """
        return self.kinematics(p, t)[1]

    def kinematics(self, p: npt.ArrayLike, t: npt.ArrayLike,
                   acceleration: bool = True) -> tuple[FloatArray, FloatArray]:
        """Velocity and acceleration together, sharing their trigonometry.

        Parameters
        ----------
        p
            Points, shape ``(n, 3)`` (or ``(3,)``).
        t
            Time [s]: a float, or shape ``(n,)``.
        acceleration
            If false, the acceleration is not computed (zeros).

        Returns
        -------
        velocity, acceleration
            Shape of ``p`` each; the velocity includes the current.
        """
        q = np.asarray(p, dtype=float)
        pts = np.ascontiguousarray(q.reshape(-1, 3))
        n = pts.shape[0]
        tt = self._times(t, n)
        v, acc = np.empty((n, 3)), np.empty((n, 3))
        wave_kinematics_many(self._table, self._params, pts, tt, bool(acceleration), v, acc)
        return v.reshape(q.shape), acc.reshape(q.shape)
