"""Seas as specified (:mod:`frylinks_marine.sea_states`, :mod:`~frylinks_marine.spreading`,
:mod:`~frylinks_marine.spectrum_tables`) against exact references.

Spreading laws against their closed forms (Gamma functions) and quadrature; the
long-crested limit against :meth:`WaveField.irregular` bit for bit; statistics over
seeds against their expectations with the sampling error computed from the law (no
tolerance tuned on an output): the variance of a ``random`` sea is ``sum S(w_i) dw`` with
``w_i`` uniform in bin ``i``, whose mean is the range's m0 exactly and whose variance is
``sum dw^2 Var_bin(S)``; an energy-weighted mean of ``cos d`` over independent
directions has the variance ``sum a_i^4 Var(cos d) / (sum a_i^2)^2``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest
from frylinks_marine.sea_states import WaveSystem, equal_energy_bins, irregular_sea
from frylinks_marine.spectrum_tables import SpectrumTable
from frylinks_marine.spreading import SPREADINGS, Spreading
from frylinks_marine.waves import WaveField, jonswap, spectrum_bounds
from scipy.integrate import quad
from scipy.special import gamma as gamma_function

Record = Callable[[str, object], None]
HS, TP, GAMMA = 2.5, 8.0, 3.3
NB_SEEDS = 40
#: Standard deviations a sampled statistic may stray: 4 fails once in 16000 tries.
Z = 4.0


def moments(spread: Spreading) -> tuple[float, float, float]:
    """``int D``, ``E[cos d]``, ``E[cos 2d]`` by adaptive quadrature over the circle."""
    out = []
    for f in (lambda x: 1.0, math.cos, lambda x: math.cos(2.0 * x)):
        value, _ = quad(lambda x, f=f: float(spread.density(x)) * f(x), -math.pi, math.pi,
                        points=[0.0], limit=400, epsabs=1e-13, epsrel=1e-12)
        out.append(value)
    return out[0], out[1], out[2]


# ------------------------------------------------------------------------- spreading


@pytest.mark.parametrize(("kind", "parameter"), [
    ("cos2s", 0.5), ("cos2s", 1.0), ("cos2s", 15.0), ("cos2s", 800.0),
    ("cosn", 1.0), ("cosn", 2.0), ("cosn", 10.0), ("cosn", 900.0),
    ("wrapped_normal", 5.0), ("wrapped_normal", 30.0), ("wrapped_normal", 90.0),
])
def test_spreading_integrates_to_one(kind: str, parameter: float, record_property: Record
                                     ) -> None:
    """``int D = 1`` over the circle, and the closed-form mean resultant length is the
    quadrature's ``E[cos d]``: the directional spectrum ``S(w) D`` integrates over
    direction to ``S(w)``."""
    spread = Spreading(kind, parameter)
    total, m1, _ = moments(spread)
    record_property("integral_minus_1", total - 1.0)
    assert abs(total - 1.0) < 1e-10
    assert abs(m1 - spread.mean_resultant_length) < 1e-10


def test_cos2s_normalisation_closed_form() -> None:
    """``C(s) = Gamma(s + 1) / (2 sqrt(pi) Gamma(s + 1/2))`` (scipy's Gamma), against the
    quadrature ``1 / int cos^(2s)(d / 2)``; ``C(1) = 1 / pi`` (``cos^2(d/2) = (1 + cos d)
    / 2``)."""
    for s in (0.5, 1.0, 2.5, 15.0, 75.0):
        closed = gamma_function(s + 1.0) / (2.0 * math.sqrt(math.pi) * gamma_function(s + 0.5))
        integral, _ = quad(lambda x, s=s: math.cos(0.5 * x) ** (2.0 * s), -math.pi, math.pi,
                           epsrel=1e-13)
        assert Spreading("cos2s", s).normalisation == pytest.approx(closed, rel=1e-12)
        assert closed == pytest.approx(1.0 / integral, rel=1e-11)
    assert Spreading("cos2s", 1.0).normalisation == pytest.approx(1.0 / math.pi, rel=1e-14)
    n = 4.0  # cos^4: C = 8 / (3 pi)
    assert Spreading("cosn", n).normalisation == pytest.approx(8.0 / (3.0 * math.pi), rel=1e-14)


def test_cos2s_directional_spread() -> None:
    """``sigma_c = sqrt(2 (1 - m1)) = sqrt(2 / (s + 1))``: 1 rad at s = 1 (``m1 = 1/2``),
    ``sqrt(1/8)`` rad = 20.257 deg at s = 15; the wrapped normal's ``sqrt(-2 ln m1)`` is
    its sigma."""
    one = Spreading("cos2s", 1.0)
    assert moments(one)[1] == pytest.approx(0.5, abs=1e-12)
    assert one.directional_spread == pytest.approx(1.0, rel=1e-14)
    fifteen = Spreading("cos2s", 15.0)
    m1 = moments(fifteen)[1]
    assert math.degrees(math.sqrt(2.0 * (1.0 - m1))) == pytest.approx(20.2572, abs=1e-4)
    wrapped = Spreading("wrapped_normal", 25.0)
    assert math.sqrt(-2.0 * math.log(moments(wrapped)[1])) == pytest.approx(math.radians(25.0),
                                                                              rel=1e-10)


@pytest.mark.parametrize("kind", SPREADINGS)
def test_inverse_transform_draws_the_law(kind: str, record_property: Record) -> None:
    """Directions at the quantiles ``(j + 1/2) / M`` have the law's first two moments
    (to the tabulated inverse's accuracy and the midpoint rule's, ``1 / M^2``)."""
    spread = Spreading(kind, {"cos2s": 10.0, "cosn": 6.0, "wrapped_normal": 20.0}[kind])
    m = 100_000
    d = spread.sample((np.arange(m) + 0.5) / m)
    _, m1, m2 = moments(spread)
    record_property("m1_error", float(np.cos(d).mean() - m1))
    assert abs(np.cos(d).mean() - m1) < 2e-6
    assert abs(np.cos(2.0 * d).mean() - m2) < 2e-5
    assert abs(np.sin(d).mean()) < 1e-9


def test_directional_spectrum_integrates_to_the_1d_spectrum() -> None:
    """``int int S(w) D(theta) dtheta dw = m0``: a Gauss-Legendre product rule over the
    frequency range and the circle, against scipy's ``int S dw`` over the same range."""
    spread = Spreading("cos2s", 8.0)
    lo, wp, hi = 0.3, 2.0 * math.pi / TP, 3.0
    xw, ww = np.polynomial.legendre.leggauss(400)
    xt, wt = np.polynomial.legendre.leggauss(200)
    theta = math.pi * xt
    m0 = 0.0
    for a, b in ((lo, wp), (wp, hi)):  # (JONSWAP's sigma jumps at the peak)
        w = 0.5 * (b - a) * xw + 0.5 * (b + a)
        grid = jonswap(w, HS, TP, GAMMA)[:, None] * spread.density(theta)[None, :]
        m0 += 0.5 * (b - a) * math.pi * float(ww @ grid @ wt)
    one_d = quad(lambda x: float(jonswap(x, HS, TP, GAMMA)), lo, hi, epsrel=1e-13,
                 points=[2.0 * math.pi / TP], limit=200)[0]
    assert m0 == pytest.approx(one_d, rel=1e-9)


# ---------------------------------------------------------------------------- seas


@pytest.mark.parametrize("spectrum", ["jonswap", "pierson_moskowitz"])
def test_long_crested_limit_is_todays_sea_bit_for_bit(spectrum: str) -> None:
    old = WaveField.irregular(spectrum, HS, TP, 2.0, nb_frequencies=123, seed=17,
                              heading=0.4, ramp=10.0, depth=40.0)
    new = irregular_sea([WaveSystem(spectrum, HS, TP, 2.0, heading=0.4, nb_frequencies=123)],
                        17, ramp=10.0, depth=40.0)
    for name in ("amplitude", "omega", "heading", "phase", "k", "bin_width"):
        assert np.array_equal(getattr(old, name), getattr(new, name)), name
    for a, b in zip(old.kernel_data(), new.kernel_data(), strict=True):
        assert np.array_equal(a, b)
    # spreading changes the headings only
    spread = irregular_sea([WaveSystem(spectrum, HS, TP, 2.0, heading=0.4, nb_frequencies=123,
                                       spreading=Spreading("cos2s", 5.0))], 17)
    for name in ("amplitude", "omega", "phase"):
        assert np.array_equal(getattr(old, name), getattr(spread, name)), name
    assert not np.array_equal(old.heading, spread.heading)


def _bin_statistics(system: WaveSystem) -> tuple[float, float]:
    """Mean and variance over seeds of a ``random`` system's field variance ``sum S(w_i)
    dw``, ``w_i`` uniform in bin i (Gauss-Legendre, 40 nodes a bin)."""
    lo, hi = system.bounds()
    n = system.nb_frequencies
    dw = (hi - lo) / n
    x, wt = np.polynomial.legendre.leggauss(40)
    nodes = lo + dw * (np.arange(n)[:, None] + 0.5 * (x[None, :] + 1.0))
    s = system.density(nodes)
    mean_s = 0.5 * s @ wt
    var_s = 0.5 * (s * s) @ wt - mean_s**2
    return float(dw * mean_s.sum()), float(dw * dw * var_s.sum())


@pytest.mark.parametrize("spreading", [None, Spreading("cos2s", 4.0),
                                       Spreading("wrapped_normal", 30.0)])
def test_variance_over_seeds_matches_hs(spreading: Spreading | None,
                                        record_property: Record) -> None:
    """Over 40 seeds the mean variance of a ``random`` sea is its range's m0 (99.51 % of
    ``hs^2 / 16``) within Z sampling standard deviations; Hs = 4 sqrt(m0)."""
    system = WaveSystem("jonswap", HS, TP, GAMMA, nb_frequencies=100, spreading=spreading)
    expected, var_one = _bin_statistics(system)
    lo, hi = system.bounds()
    in_range = quad(lambda w: float(jonswap(w, HS, TP, GAMMA)), lo, hi, epsrel=1e-12,
                    points=[2.0 * math.pi / TP], limit=200)[0]
    # (the bin holding the peak, where JONSWAP's sigma jumps, limits Gauss-Legendre)
    assert expected == pytest.approx(in_range, rel=1e-8)
    variances = np.array([irregular_sea([system], seed).variance for seed in range(NB_SEEDS)])
    sd = math.sqrt(var_one / NB_SEEDS)
    hs = 4.0 * math.sqrt(variances.mean())
    record_property("hs_over_seeds", hs)
    record_property("variance_error_in_sd", (variances.mean() - expected) / sd)
    assert abs(variances.mean() - expected) < Z * sd
    assert hs == pytest.approx(HS * math.sqrt(in_range / (HS**2 / 16.0)), rel=0.01)
    assert in_range / (HS**2 / 16.0) == pytest.approx(0.9951, abs=1e-4)


def _weighted_directions(fields: list[WaveField], mean: float) -> tuple[float, float, float]:
    """Energy-weighted ``E[cos d]``, ``E[sin d]`` of the headings about ``mean`` and the
    weights' ``sum a^4 / (sum a^2)^2``."""
    a2 = np.concatenate([f.amplitude**2 for f in fields])
    d = np.concatenate([f.heading for f in fields]) - mean
    return (float(a2 @ np.cos(d) / a2.sum()), float(a2 @ np.sin(d) / a2.sum()),
            float((a2 @ a2) / a2.sum() ** 2))


@pytest.mark.parametrize(("spreading", "frequencies"), [
    (Spreading("cos2s", 15.0), "random"), (Spreading("cosn", 4.0), "equal"),
    (Spreading("wrapped_normal", 20.0), "equal_energy")])
def test_headings_over_seeds_match_the_spreading(spreading: Spreading, frequencies: str,
                                                 record_property: Record) -> None:
    """The energy-weighted mean direction and directional spread of the component
    headings over 40 seeds match the law, within Z sampling standard deviations."""
    mean = math.radians(30.0)
    system = WaveSystem("jonswap", HS, TP, GAMMA, heading=mean, nb_frequencies=100,
                        spreading=spreading, frequencies=frequencies)
    c, s, weight = _weighted_directions(
        [irregular_sea([system], seed) for seed in range(NB_SEEDS)], mean)
    _, m1, m2 = moments(spreading)
    sd_c = math.sqrt(weight * ((1.0 + m2) / 2.0 - m1 * m1))
    sd_s = math.sqrt(weight * (1.0 - m2) / 2.0)
    spread = math.sqrt(2.0 * (1.0 - c))
    record_property("mean_direction_error_deg", math.degrees(math.atan2(s, c)))
    record_property("spread_deg", math.degrees(spread))
    record_property("spread_expected_deg", math.degrees(spreading.directional_spread))
    assert abs(c - m1) < Z * sd_c
    assert abs(s) < Z * sd_s
    # the same in degrees: the spread's sampling error is sd_c / sigma_c
    assert abs(spread - spreading.directional_spread) < 1.01 * Z * sd_c / spread


def test_systems_add_their_m0(record_property: Record) -> None:
    """Swell plus wind sea, equal-energy bins: the field's variance is the sum of the
    systems' m0 over their ranges (scipy quadrature), to the equal-energy quadrature's
    accuracy (relative 1e-7 with 20001 trapezoids); Hs^2 adds."""
    swell = WaveSystem("jonswap", 1.5, 14.0, 5.0, heading=math.radians(-20.0),
                       nb_frequencies=60, frequencies="equal_energy",
                       spreading=Spreading("cos2s", 40.0))
    wind = WaveSystem("pierson_moskowitz", 2.0, 7.0, heading=math.radians(45.0),
                      nb_frequencies=120, frequencies="equal_energy",
                      spreading=Spreading("cos2s", 6.0))
    sea = irregular_sea([swell, wind], seed=4)
    expected = 0.0
    for system in (swell, wind):
        lo, hi = system.bounds()
        expected += quad(lambda w, sy=system: float(sy.density(w)), lo, hi, epsrel=1e-12,
                         limit=200)[0]
    record_property("m0_rel_error", sea.variance / expected - 1.0)
    assert sea.variance == pytest.approx(expected, rel=1e-7)
    assert 4.0 * math.sqrt(sea.variance) == pytest.approx(math.hypot(1.5, 2.0) * math.sqrt(
        0.9951), rel=2e-4)
    assert sea.nb_components == 180


def test_random_systems_add_their_m0_over_seeds() -> None:
    """The same with random frequencies: the mean over 40 seeds of the combined variance
    is the sum of the systems' expectations within Z standard deviations (the streams are
    independent, so the variances add)."""
    swell = WaveSystem("jonswap", 1.5, 14.0, 5.0, nb_frequencies=60)
    wind = WaveSystem("jonswap", 2.0, 7.0, nb_frequencies=120,
                      spreading=Spreading("cosn", 2.0))
    (m_a, v_a), (m_b, v_b) = _bin_statistics(swell), _bin_statistics(wind)
    got = np.mean([irregular_sea([swell, wind], seed).variance for seed in range(NB_SEEDS)])
    assert abs(got - (m_a + m_b)) < Z * math.sqrt((v_a + v_b) / NB_SEEDS)


# ------------------------------------------------------------------- spectrum tables


def jonswap_table_hz(step: float = 0.0005) -> tuple[np.ndarray, np.ndarray]:
    """JONSWAP in Hz: ``S(f) = 2 pi S(2 pi f)`` [m^2 Hz^-1] on 0.02 .. 1 Hz."""
    f = np.arange(0.02, 1.0 + step / 2, step)
    return f, 2.0 * math.pi * jonswap(2.0 * math.pi * f, HS, TP, GAMMA)


def test_table_converts_hz_and_reproduces_jonswap(record_property: Record) -> None:
    f, s_hz = jonswap_table_hz()
    table = SpectrumTable(f, s_hz)
    w = 2.0 * math.pi * f
    np.testing.assert_allclose(table.omega, w, rtol=1e-15)
    np.testing.assert_allclose(table(w), jonswap(w, HS, TP, GAMMA), rtol=1e-14)
    # m0 of the table: the tail above 1 Hz (quad: 2.0e-4 of m0; none below 0.02 Hz) is
    # left out; the trapezoid rule on 0.0005 Hz steps adds 1e-10
    above = quad(lambda x: float(jonswap(x, HS, TP, GAMMA)), w[-1], np.inf)[0]
    record_property("table_m0_plus_tail_rel_error", (table.m0 + above) / (HS**2 / 16.0) - 1.0)
    assert table.m0 + above == pytest.approx(HS**2 / 16.0, rel=1e-8)
    sea = irregular_sea([WaveSystem(table, nb_frequencies=200, frequencies="equal_energy")], 1)
    assert sea.variance == pytest.approx(table.m0, rel=1e-12)
    assert 4.0 * math.sqrt(sea.variance) == pytest.approx(
        HS * math.sqrt(1.0 - above / (HS**2 / 16.0)), rel=1e-8)


def test_table_in_hz_small_example() -> None:
    """A triangle ``S(f)`` from 0.05 to 0.15 Hz peaking at 10 m^2/Hz: m0 = 0.5 m^2 in Hz
    and in rad/s; the peak density in rad/s is ``10 / (2 pi)`` at ``2 pi 0.1``."""
    table = SpectrumTable([0.05, 0.1, 0.15], [0.0, 10.0, 0.0])
    assert table.m0 == pytest.approx(0.5, rel=1e-15)
    assert float(table(2.0 * math.pi * 0.1)) == pytest.approx(10.0 / (2.0 * math.pi), rel=1e-15)
    assert table.bounds() == pytest.approx((2.0 * math.pi * 0.05, 2.0 * math.pi * 0.15))


def test_directional_table(record_property: Record) -> None:
    """``S(f, theta) = S(f) D(theta)`` tabulated on 5 deg (cos-2s, s = 10, about 60 deg):
    it integrates to m0 over frequency and direction, and the drawn headings have the
    table's energy-weighted ``E[cos d]`` within Z standard deviations."""
    spread = Spreading("cos2s", 10.0)
    f, s_hz = jonswap_table_hz(0.002)
    theta = np.arange(-180.0, 180.0, 5.0)
    grid = s_hz[:, None] * spread.density(np.radians(theta - 60.0))[None, :]
    table = SpectrumTable(f, grid, theta)
    # the rows' piecewise-linear integral over the circle is D's to the trapezoid error
    np.testing.assert_allclose(table.density_omega, table(table.omega), rtol=1e-15)
    assert table.m0 == pytest.approx(SpectrumTable(f, s_hz).m0, rel=1e-6)
    system = WaveSystem(table, nb_frequencies=150)
    fields = [irregular_sea([system], seed) for seed in range(NB_SEEDS)]
    c, s, weight = _weighted_directions(fields, math.radians(60.0))
    # the law drawn: piecewise linear between the 5 deg points (quadrature of it)
    x = np.radians(np.linspace(-180.0, 180.0, 72 * 200 + 1))
    dens = np.interp(x, np.radians(np.append(theta, 180.0)),
                     np.append(spread.density(np.radians(theta - 60.0)),
                               spread.density(np.radians(120.0))), period=2 * math.pi)
    dens /= np.trapezoid(dens, x)
    m1 = float(np.trapezoid(dens * np.cos(x - math.radians(60.0)), x))
    m2 = float(np.trapezoid(dens * np.cos(2.0 * (x - math.radians(60.0))), x))
    assert m1 == pytest.approx(spread.mean_resultant_length, abs=1e-3)
    sd_c = math.sqrt(weight * ((1.0 + m2) / 2.0 - m1 * m1))
    record_property("mean_cos_error_in_sd", (c - m1) / sd_c)
    assert abs(c - m1) < Z * sd_c
    assert abs(s) < Z * math.sqrt(weight * (1.0 - m2) / 2.0)


# ------------------------------------------------------------------- discretisations


def test_equal_energy_bins_hold_m0_over_n(record_property: Record) -> None:
    lo, hi = spectrum_bounds(TP, GAMMA)
    n = 50
    density = lambda w: jonswap(w, HS, TP, GAMMA)  # noqa: E731
    edges, medians, m0 = equal_energy_bins(density, lo, hi, n)
    per_bin = np.array([quad(lambda w: float(density(w)), a, b, epsrel=1e-13)[0]
                        for a, b in itertools.pairwise(edges)])
    record_property("bin_m0_max_rel_error", float(np.abs(per_bin * n / m0 - 1.0).max()))
    np.testing.assert_allclose(per_bin, m0 / n, rtol=1e-6)
    assert ((medians > edges[:-1]) & (medians < edges[1:])).all()
    sea = irregular_sea([WaveSystem("jonswap", HS, TP, GAMMA, nb_frequencies=n,
                                    frequencies="equal_energy")], 3)
    np.testing.assert_allclose(sea.amplitude, math.sqrt(2.0 * m0 / n), rtol=1e-15)
    assert sea.bin_width is not None
    np.testing.assert_allclose(sea.bin_width, np.diff(edges), rtol=1e-15)


def test_equal_frequencies_repeat_with_period_2pi_over_dw() -> None:
    """Equal spacing: the complex envelope at any point repeats after ``T = 2 pi / dw``
    up to one constant phase (the record's wave groups repeat)."""
    sea = irregular_sea([WaveSystem("jonswap", HS, TP, GAMMA, nb_frequencies=64,
                                    frequencies="equal")], 2)
    assert sea.bin_width is not None
    dw = float(sea.bin_width[0])
    period = 2.0 * math.pi / dw
    t = np.linspace(0.0, 300.0, 301)
    z = lambda t: (sea.amplitude * np.exp(1j * (sea.phase - np.outer(t, sea.omega)))).sum(1)  # noqa: E731
    ratio = z(t + period) / z(t)
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-8)
    assert abs(abs(ratio[0]) - 1.0) < 1e-8
