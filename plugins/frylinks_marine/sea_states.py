"""Irregular seas as offshore engineers specify them: one or several wave systems (swell
and wind sea), each with its spectrum (parametric or a table), heading, directional
spreading and frequency discretisation, drawn into one :class:`~frylinks_marine.waves.
WaveField`.

**One field.** The components of every system are concatenated into one wave field,
so the elevation at a probe and every wave force (first and second order) see the same
components.

**Frequencies** (``frequencies``), over the system's range ``[w_min, w_max]`` (a
parametric spectrum's :func:`~frylinks_marine.waves.spectrum_bounds`, a table's
extent), with ``N`` components:

``random`` (the default)
    ``N`` equal bins ``dw``, one component at a uniformly random frequency within each,
    amplitude ``sqrt(2 S(w_i) dw)``: :meth:`WaveField.irregular
    <frylinks_marine.waves.WaveField.irregular>`'s draw, bit for bit. The frequencies are
    incommensurate, so the record does not repeat.
``equal``
    ``N`` equal bins, one component at each bin's centre, amplitude ``sqrt(2 S(w_i)
    dw)``. The components are ``w_min + (i + 1/2) dw``: the sea's wave groups repeat
    every ``2 pi / dw`` (the record repeats up to a constant phase of its carrier).
``equal_energy``
    ``N`` bins of equal ``m0 / N`` (WEC-Sim's ``EqualEnergy``): the bin edges are where
    the cumulative ``m0`` reaches ``j m0 / N``, computed by trapezoidal quadrature on a
    grid of at least 20001 points (the table's points included, where it is exact); the
    component is at the bin's energy median, amplitude ``sqrt(2 m0 / N)``: every
    component carries the same energy, so no component is wasted in the spectrum's tails.

**Directions.** A short-crested system is a *single summation*: each component gets its
own heading, drawn from the spreading distribution ``D(theta)`` (or a directional
table's ``D(theta | w)`` at its frequency) by inverse transform of a uniform number.
The field keeps ``N`` components per system, so a step costs what a long-crested sea's
does, and it is ergodic and homogeneous in space: a double summation (every direction
at every frequency) puts several components on one frequency, whose fixed phase
differences lock into a spatial pattern that no seed averages out within one
realisation, and it costs ``N x nb_directions`` components a step.

**Seeds.** One system draws from ``numpy.random.default_rng(seed)``: frequencies (for
``random``), then phases, then directions (for a short-crested system), so a
long-crested system is :meth:`WaveField.irregular
<frylinks_marine.waves.WaveField.irregular>`'s sea bit for bit, and spreading it
changes its headings only. Several systems draw from the independent streams
``numpy.random.SeedSequence(seed).spawn(nb_systems)``, one per system: adding a system
leaves the others' draws unchanged.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from frylinks.errors import ModelError

from .spectrum_tables import SpectrumTable
from .spreading import Spreading
from .waves import SPECTRA, WaveField, jonswap, spectrum_bounds

FloatArray = npt.NDArray[np.float64]

#: Frequency discretisations of a wave system.
FREQUENCIES = ("random", "equal", "equal_energy")

#: Fewest points of the quadrature grid of equal-energy bins.
NB_QUADRATURE = 20001


@dataclass(frozen=True)
class WaveSystem:
    """One wave system of a sea: a spectrum, its heading and spreading, its discretisation.

    Parameters
    ----------
    spectrum
        ``"jonswap"``, ``"pierson_moskowitz"`` or a :class:`~frylinks_marine.
        spectrum_tables.SpectrumTable`.
    hs, tp
        Significant wave height [m] and peak period [s] of a parametric spectrum, ``> 0``
        (None for a table, which gives its own energy).
    gamma
        JONSWAP peak enhancement, ``>= 1`` (ignored otherwise).
    heading
        Mean direction of travel [rad] (not for a directional table, whose directions
        are absolute).
    spreading
        Directional spreading about ``heading``; None: long-crested (or a directional
        table's own spreading).
    nb_frequencies
        Number of components ``N``, ``>= 1``.
    frequencies
        ``"random"``, ``"equal"`` or ``"equal_energy"`` (module docstring).
    omega_range
        ``(w_min, w_max)`` [rad/s]; None: the spectrum's own range.

    Raises
    ------
    ModelError
        Naming the parameter at fault.
    """

    spectrum: str | SpectrumTable = "jonswap"
    hs: float | None = None
    tp: float | None = None
    gamma: float = 3.3
    heading: float = 0.0
    spreading: Spreading | None = None
    nb_frequencies: int = 200
    frequencies: str = "random"
    omega_range: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        table = isinstance(self.spectrum, SpectrumTable)
        if not table and self.spectrum not in SPECTRA:
            raise ModelError(f"unknown spectrum {reprlib.repr(self.spectrum)}; known: "
                             f"{', '.join(SPECTRA)}, table", "spectrum")
        for key in ("hs", "tp"):
            given = getattr(self, key) is not None
            if table and given:
                raise ModelError("a spectrum table gives the sea's energy and periods: leave "
                                 f"{key} out", key)
            if not table and not given:
                raise ModelError(f"missing required parameter (the {self.spectrum} spectrum "
                                 f"needs hs and tp)", key)
        n = self.nb_frequencies
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ModelError(f"expected a whole number >= 1, got {reprlib.repr(n)}",
                             "nb_frequencies")
        if isinstance(self.heading, bool | str) or not math.isfinite(float(self.heading)):
            raise ModelError(f"expected a finite number [rad], got {reprlib.repr(self.heading)}",
                             "heading")
        if self.frequencies not in FREQUENCIES:
            raise ModelError(f"unknown frequency discretisation {reprlib.repr(self.frequencies)}"
                             f"; accepted: {', '.join(FREQUENCIES)}", "frequencies")
        if self.spreading is not None and not isinstance(self.spreading, Spreading):
            raise ModelError(f"expected a Spreading, got {reprlib.repr(self.spreading)}",
                             "spreading")
        if self.directional and self.spreading is not None:
            raise ModelError("a directional spectrum table has its own spreading: leave "
                             "spreading out", "spreading")
        # (checks hs, tp, gamma, omega_range with their own messages)
        self.density(np.ones(1))
        self.bounds()

    @property
    def directional(self) -> bool:
        """True for a directional spectrum table."""
        return isinstance(self.spectrum, SpectrumTable) and self.spectrum.direction is not None

    def density(self, omega: npt.ArrayLike) -> FloatArray:
        """``S(w)`` [m^2 s rad^-1] at ``omega`` [rad/s] (a directional table's integrated
        over direction)."""
        if isinstance(self.spectrum, SpectrumTable):
            return self.spectrum(omega)
        assert self.hs is not None and self.tp is not None
        gamma = self.gamma if self.spectrum == "jonswap" else 1.0
        return jonswap(omega, self.hs, self.tp, gamma)

    def bounds(self) -> tuple[float, float]:
        """``(w_min, w_max)`` [rad/s] the components are drawn over."""
        if self.omega_range is not None:
            try:
                lo, hi = (float(x) for x in self.omega_range)
            except (TypeError, ValueError):
                lo = hi = math.nan
            if not 0.0 < lo < hi < math.inf:
                raise ModelError(f"expected (w_min, w_max) with 0 < w_min < w_max [rad/s], "
                                 f"got {reprlib.repr(self.omega_range)}", "omega_range")
            return lo, hi
        if isinstance(self.spectrum, SpectrumTable):
            return self.spectrum.bounds()
        assert self.tp is not None
        return spectrum_bounds(self.tp, self.gamma if self.spectrum == "jonswap" else 1.0)

    def components(self, rng: np.random.Generator
                   ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
        """Draw the system's components from ``rng`` (module docstring).

        Returns
        -------
        amplitude, omega, heading, phase, bin_width
            Shape ``(N,)`` each, in [m], [rad/s], [rad], [rad], [rad/s].
        """
        lo, hi = self.bounds()
        n = int(self.nb_frequencies)
        if self.frequencies == "equal_energy":
            edges, w, m0 = equal_energy_bins(self.density, lo, hi, n, self._nodes())
            phase = rng.uniform(0.0, 2.0 * math.pi, n)
            amplitude = np.full(n, math.sqrt(2.0 * m0 / n))
            bins = np.diff(edges)
        else:
            dw = (hi - lo) / n
            if self.frequencies == "random":
                # WaveField.irregular's draw, operation for operation (bit for bit)
                w = np.asarray(lo + (np.arange(n) + rng.random(n)) * dw, dtype=float)
            else:
                w = np.asarray(lo + (np.arange(n) + 0.5) * dw, dtype=float)
            phase = rng.uniform(0.0, 2.0 * math.pi, n)
            amplitude = np.sqrt(2.0 * self.density(w) * dw)
            bins = np.full(n, dw)
        if isinstance(self.spectrum, SpectrumTable) and self.directional:
            heading = self.spectrum.sample_directions(w, rng.random(n))
        elif self.spreading is not None:
            heading = self.heading + self.spreading.sample(rng.random(n))
        else:
            heading = np.full(n, float(self.heading))
        return amplitude, w, heading, phase, bins

    def _nodes(self) -> FloatArray | None:
        return self.spectrum.omega if isinstance(self.spectrum, SpectrumTable) else None


def equal_energy_bins(density: Callable[[FloatArray], FloatArray], lo: float, hi: float,
                      n: int, nodes: FloatArray | None = None
                      ) -> tuple[FloatArray, FloatArray, float]:
    """Split ``[lo, hi]`` into ``n`` bins of equal ``int S dw``.

    Parameters
    ----------
    density
        ``S(w)`` [m^2 s rad^-1] of an array of frequencies.
    lo, hi
        The range [rad/s].
    n
        Number of bins.
    nodes
        Frequencies [rad/s] to put in the quadrature grid (a table's points, where its
        piecewise-linear ``S`` has kinks: the quadrature is then exact).

    Returns
    -------
    edges, medians, m0
        Bin edges ``(n + 1,)`` and energy medians ``(n,)`` [rad/s], and the range's
        ``m0`` [m^2] (trapezoidal quadrature on at least :data:`NB_QUADRATURE` points).
    """
    grid = np.linspace(lo, hi, max(NB_QUADRATURE, 50 * n + 1))
    if nodes is not None:
        grid = np.union1d(grid, nodes[(nodes > lo) & (nodes < hi)])
    s = density(grid)
    cum = np.concatenate(([0.0], np.cumsum(0.5 * (s[1:] + s[:-1]) * np.diff(grid))))
    m0 = float(cum[-1])
    if not m0 > 0.0:
        raise ModelError(f"the spectrum holds no energy between {lo:.6g} and {hi:.6g} rad/s",
                         "omega_range")
    edges = _inverse_cumulative(np.arange(n + 1) / n * m0, grid, s, cum)
    edges[0], edges[-1] = lo, hi
    medians = _inverse_cumulative((np.arange(n) + 0.5) / n * m0, grid, s, cum)
    return edges, medians, m0


def _inverse_cumulative(target: FloatArray, grid: FloatArray, s: FloatArray, cum: FloatArray
                        ) -> FloatArray:
    """Where the trapezoidal cumulative ``cum`` of ``s`` on ``grid`` reaches ``target``.

    Solved exactly for ``S`` linear within each interval (a quadratic), so that every bin
    holds its share of the quadrature's m0: linear interpolation of ``cum`` would be off
    by a few 1e-6 of a bin's m0.
    """
    i = np.clip(np.searchsorted(cum, target, side="right") - 1, 0, grid.size - 2)
    h = grid[i + 1] - grid[i]
    s0, r = s[i], np.maximum(target - cum[i], 0.0)
    slope = (s[i + 1] - s0) / h
    # a root of slope / 2 x^2 + s0 x = r, in the form without cancellation
    root = np.sqrt(np.maximum(s0 * s0 + 2.0 * slope * r, 0.0))
    denominator = s0 + root
    x = np.divide(2.0 * r, denominator, out=np.zeros_like(r), where=denominator > 0.0)
    out: FloatArray = grid[i] + np.clip(x, 0.0, h)
    return out


def irregular_sea(systems: Sequence[WaveSystem], seed: int = 0, *, ramp: float = 0.0,
                  depth: float = math.inf, g: float = 9.81,
                  current: npt.ArrayLike = (0.0, 0.0, 0.0),
                  ramp_shape: str = "half_cosine") -> WaveField:
    """The wave field of one or several wave systems (module docstring).

    Parameters
    ----------
    systems
        One or more :class:`WaveSystem`.
    seed
        Whole number ``>= 0``: one system draws from ``default_rng(seed)``, several from
        ``SeedSequence(seed).spawn(len(systems))``.
    ramp, depth, g, current, ramp_shape
        As :class:`~frylinks_marine.waves.WaveField`.

    Returns
    -------
    WaveField
        The systems' components, concatenated in their order, with their frequency bins.

    Raises
    ------
    ModelError
        For no system, a bad seed, or (path ``systems[i]...``) a bad system.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ModelError(f"expected a whole number >= 0, got {reprlib.repr(seed)}", "seed")
    if len(systems) == 0:
        raise ModelError("expected at least one wave system", "systems")
    if len(systems) == 1:
        rngs = [np.random.default_rng(seed)]
    else:
        rngs = [np.random.default_rng(s) for s in
                np.random.SeedSequence(int(seed)).spawn(len(systems))]
    parts = []
    for i, (system, rng) in enumerate(zip(systems, rngs, strict=True)):
        if not isinstance(system, WaveSystem):
            raise ModelError(f"expected a WaveSystem, got {reprlib.repr(system)}",
                             f"systems[{i}]")
        parts.append(system.components(rng))
    a, w, b, phi, dw = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
    return WaveField(a, w, b, phi, depth=depth, g=g, ramp=ramp, current=current,
                     bin_width=dw, ramp_shape=ramp_shape)


__all__ = ["FREQUENCIES", "WaveSystem", "equal_energy_bins", "irregular_sea"]
