"""Second-order wave loads (``wave_drift``) against exact references.

* a bichromatic sea: the slow-drift force is the plain double sum over the QTF's pairs
  ``Re sum_{i != j} a_i conj(a_j) T(w_i, w_j) exp(-i (w_i - w_j) t)`` (WAMIT's
  convention; the two pairs of two components make ``2 Re(a_1 conj(a_2) T_12 ...)``), to
  round-off where the kernel sums the factorised form, within the record's bound where
  it interpolates; the mean drift is ``sum |a_i|^2 T_ii``;
* Newman's approximation equals the full QTF where the QTF is Newman-like;
* a regular wave on a held body: the mean drift output of a whole run is ``|a|^2 D(w)``;
* a linear moored body's slow-drift surge standard deviation over seeds against the
  frequency-domain integral ``int S_F(mu) |H(mu)|^2 dmu``, ``S_F(mu) = 8 int S(w) S(w +
  mu) |T(w, w + mu)|^2 dw``.

The QTF is the OC4 DeepCwind semi-submersible's WAMIT ``.12d`` (surge, heave, pitch).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from frylinks_marine.datasets import load_database
from frylinks_marine.drift_loads import (
    factorised,
    mean_drift_at,
    newman_sum,
    pair_matrices,
    qtf_at,
)
from frylinks_marine.environment import Environment
from frylinks_marine.wave_drift import WaveDrift, diagonal
from frylinks_marine.wave_kernels import wave_drift_parts
from frylinks_marine.waves import jonswap, spectrum_bounds

import frylinks
from frylinks.forces import ForceContext
from frylinks.kinematics import NodeFrames
from frylinks.params import parse_params

OC4 = str(Path(frylinks_marine_data := Path(__file__).resolve().parents[2] / "plugins"
               / "frylinks_marine" / "data" / "wamit") / "marin_semi.1.gz")
RHO, G = 1025.0, 9.80665
GRAVITY = np.array([0.0, 0.0, -G])
MAIN = [0, 2, 4]  # surge, heave, pitch: the DOFs the file's QTF has in head seas


def _environment(waves: dict) -> Environment:
    params = parse_params(Environment.parameters, {"depth": 200.0, "water_density": RHO,
                                                   "waves": waves}, "environment")
    return Environment(params, GRAVITY)


def _prepared(env: Environment, span: tuple[float, float] | None, **params: object
              ) -> WaveDrift:
    force = WaveDrift([{"body": "b", "hydrodynamics": OC4, **params}], [])
    frames = NodeFrames(np.zeros((1, 3)), np.eye(3)[None], np.array([[1.0, 0, 0, 0]]),
                        np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3)))
    force.prepare([frames], ForceContext(0.0, np.zeros(0), GRAVITY, {"environment": env},
                                         span=span))
    return force


def _parts(force: WaveDrift, t: float) -> tuple[np.ndarray, ...]:
    out = np.zeros((4, 6))
    wave_drift_parts(force.kernel_data(), t, np.zeros((1, 3)), False, out)
    return tuple(out)


def _qtf() -> object:
    table = load_database(OC4).at_density(RHO).second_order.qtf_difference
    assert table is not None
    return table


@pytest.mark.parametrize("span", [None, (0.0, 300.0)], ids=["summed", "record"])
def test_bichromatic_slow_drift_is_the_double_sum_of_the_qtf(span: tuple | None) -> None:
    periods, amplitude, phase = np.array([8.0, 9.5]), np.array([1.5, 0.8]), [10.0, 70.0]
    env = _environment({"type": "components", "amplitude": amplitude.tolist(),
                        "period": periods.tolist(), "phase_deg": phase})
    force = _prepared(env, span, method="qtf")
    w = 2 * np.pi / periods
    a = amplitude * np.exp(1j * np.radians(phase))
    T = qtf_at(_qtf(), w, np.zeros(2), "OC4")
    # each component's mean drift: the QTF's diagonal interpolated along it
    D = mean_drift_at(diagonal(_qtf()), w, np.zeros(2), "OC4")
    assert force.ranks == (2 * 6, 0)  # two eigenvectors a DOF, no sum frequency
    bound = np.abs(pair_matrices(a, T, True)).sum(axis=(0, 1))  # the record's: 1e-6 of it
    for t in np.linspace(0.0, 290.0, 59):
        mean, slow, fast, damped = _parts(force, t)
        pairs = np.outer(a * np.exp(-1j * w * t), np.conj(a * np.exp(-1j * w * t)))
        exact = np.einsum("ij,ijd->d", pairs * (1 - np.eye(2)), T).real
        tol = 1e-12 * np.abs(exact).max() if span is None else 1e-6 * bound
        assert np.all(np.abs(slow - exact) <= tol), (t, slow - exact, tol)
        np.testing.assert_allclose(mean, np.abs(a) ** 2 @ D, rtol=1e-12)
        assert not fast.any() and not damped.any()
    # the slow drift of two waves 8 and 9.5 s apart beats at 2 pi / (w1 - w2) = 50.7 s
    assert np.abs(exact[MAIN]).min() > 0.0


@pytest.mark.parametrize("span", [None, (0.0, 100.0)], ids=["summed", "record"])
def test_bichromatic_sum_frequency_load_is_the_double_sum_of_the_qtf(span: tuple | None
                                                                    ) -> None:
    """``Re sum_ij a_i a_j T+(w_i, w_j) exp(-i (w_i + w_j) t)`` over all four pairs."""
    periods, amplitude, phase = np.array([7.0, 11.0]), np.array([1.0, 2.0]), [0.0, 120.0]
    env = _environment({"type": "components", "amplitude": amplitude.tolist(),
                        "period": periods.tolist(), "phase_deg": phase})
    force = _prepared(env, span, method="mean", sum_frequency=True)
    w = 2 * np.pi / periods
    a = amplitude * np.exp(1j * np.radians(phase))
    table = load_database(OC4).at_density(RHO).second_order.qtf_sum
    T = qtf_at(table, w, np.zeros(2), "OC4")
    bound = np.abs(pair_matrices(a, T, False)).sum(axis=(0, 1))
    for t in np.linspace(0.0, 95.0, 77):
        _, slow, fast, _ = _parts(force, t)
        u = a * np.exp(-1j * w * t)
        exact = np.einsum("ij,ijd->d", np.outer(u, u), T).real
        tol = 1e-12 * np.abs(exact).max() if span is None else 1e-6 * bound
        assert np.all(np.abs(fast - exact) <= tol), (t, fast - exact, tol)
        assert not slow.any()  # method mean: no slow drift
    assert np.abs(exact[MAIN]).min() > 0.0


def test_drift_damping_is_the_first_order_change_of_aranhas_drift() -> None:
    """Aranha: at the slow surge velocity ``v`` a regular wave's drift is ``(1 - 4 w v /
    g) D(w - k v)`` (deep water, head seas); the damping force ``-B v`` is its first-order
    change, checked against a centred difference of the formula over ``v = +-1 mm/s``
    (the table's ``D`` interpolated linearly, so the slope is that of its interval)."""
    height, period = 3.0, 9.3
    env = _environment({"type": "regular", "height": height, "period": period})
    env.depth = math.inf
    force = _prepared(env, None, method="newman", drift_damping=True, mean_drift="qtf")
    w = 2 * math.pi / period
    D = diagonal(_qtf())
    drift = lambda v: (1 - 4 * w * v / G) * np.interp(  # noqa: E731
        w - w * w / G * v, D.omega, D.values[:, 0, 0].real) * (height / 2) ** 2
    v = 1e-3
    expected = (drift(v) - drift(-v)) / 2  # the change at +v: -B v
    out = np.zeros((4, 6))
    wave_drift_parts(force.kernel_data(), 0.0, np.array([[v, 0.0, 0.0]]), False, out)
    assert out[3][0] == pytest.approx(expected, rel=1e-3)
    assert out[3][0] < 0.0  # it resists the drift


def newman_qtf(D: np.ndarray) -> np.ndarray:
    """Newman's approximation written out: ``T-_ij = (D_i + D_j) / 2`` ``(N, N, m)``."""
    return 0.5 * (D[:, None, :] + D[None, :, :])


def test_newman_equals_the_full_qtf_where_the_qtf_is_newman_like() -> None:
    """A QTF built as ``(D_i + D_j) / 2`` from the OC4 diagonal: the pair matrices and
    their factorised sums of ``qtf`` and ``newman`` agree to round-off (bilinear
    interpolation of a sum of functions of each frequency is the sum of their linear
    interpolations)."""
    table = _qtf()
    D = diagonal(table)
    nw = table.omega.size
    like = type(table)(table.omega, table.headings,
                       newman_qtf(D.values[:, 0, :].real)[:, :, None, None, :].astype(complex),
                       "difference", "newman-like")
    rng = np.random.default_rng(3)
    w = np.sort(rng.uniform(table.omega[0], table.omega[-1], 40))
    a = rng.rayleigh(0.5, 40) * np.exp(2j * np.pi * rng.random(40))
    full = pair_matrices(a, qtf_at(like, w, np.zeros(40), "x"), True)
    newman = pair_matrices(a, newman_qtf(mean_drift_at(D, w, np.zeros(40), "x")), True)
    np.testing.assert_allclose(full, newman, rtol=0, atol=1e-12 * np.abs(full).max())
    t = np.linspace(0.0, 500.0, 200)
    fq, fn = factorised(full, w, True), factorised(newman, w, True)
    assert fn.rank <= 2 * 6 and nw > 2
    np.testing.assert_allclose(fq.at(t, 6)[0], fn.at(t, 6)[0], rtol=0,
                               atol=1e-9 * np.abs(fn.at(t, 6)[0]).max())
    # the force's own Newman sum, one rank a DOF made without the N x N matrix
    D_w = mean_drift_at(D, w, np.zeros(40), "x")
    made = newman_sum(a, D_w, w, np.arange(6))
    assert made.rank <= 6
    np.testing.assert_allclose(made.at(t, 6)[0], fn.at(t, 6)[0], rtol=0,
                               atol=1e-9 * np.abs(fn.at(t, 6)[0]).max())
    np.testing.assert_allclose(made.at(t, 6)[1], fn.at(t, 6)[1], rtol=0,
                               atol=1e-9 * np.abs(fn.at(t, 6)[1]).max())


def _held_platform(waves: dict, **drift: object) -> frylinks.System:
    s = frylinks.System(gravity=GRAVITY)
    s.configure("environment", depth=200.0, water_density=RHO, waves=waves)
    s.add_body("platform", mass=1.3473e7, inertia=[6.8e9, 6.8e9, 1.2e10],
               position=[0.0, 0.0, -13.46])
    s.ground.add_node("hold", position=[0.0, 0.0, -13.46])
    s.add_link("held", "fixed", "ground.hold", "platform")
    s.add_force("drift", "wave_drift", body="platform", hydrodynamics=OC4, **drift)
    return s


def test_a_regular_wave_on_a_held_platform_has_the_mean_drift_of_the_table() -> None:
    height, period = 4.0, 9.0
    s = _held_platform({"type": "regular", "height": height, "period": period})
    ds = s.run(t_end=20.0, dt=0.1, every=10)
    D = diagonal(_qtf())
    w = 2 * math.pi / period
    exact = (height / 2) ** 2 * np.array([np.interp(w, D.omega, D.values[:, 0, d].real)
                                          for d in range(6)])
    mean = ds.wave_drift_mean_force.sel(wave_drift_element="drift").values
    np.testing.assert_allclose(mean, np.broadcast_to(exact, mean.shape), rtol=1e-12)
    assert np.abs(ds.wave_drift_slow_force.values).max() <= 1e-9 * np.abs(exact).max()
    assert exact[0] > 0.0  # pushed the way the waves go


def _surge_std_frequency_domain(hs: float, tp: float, m: float, k: float, c: float,
                                bounds: tuple[float, float]) -> float:
    """``sqrt(int S_F(mu) |H(mu)|^2 dmu)`` on a grid of 1200 frequencies over the sea's
    range (the discretised sea holds no energy outside it)."""
    w = np.linspace(bounds[0], bounds[1], 1200)
    dw = w[1] - w[0]
    S = jonswap(w, hs, tp)
    T = qtf_at(_qtf(), w, np.zeros(w.size), "OC4")[:, :, 0]
    total = 0.0
    for lag in range(1, w.size):
        mu = lag * dw
        SF = 8.0 * np.sum(S[:-lag] * S[lag:] * np.abs(np.diagonal(T, lag)) ** 2) * dw
        total += SF / abs(k - m * mu**2 - 1j * c * mu) ** 2 * dw
    return math.sqrt(total)


def _surge_std_over_seeds(seeds: int, hours: float, n: int) -> tuple[float, float, float]:
    """Simulated slow-drift surge std (mean over seeds of each record's variance, after
    a 600 s start) in a sea of ``n`` components, its standard error, and the
    frequency-domain value."""
    hs, tp = 6.0, 10.0
    m, period, zeta = 2.2e7, 100.0, 0.2  # platform + surge added mass; 100 s, 20 %
    k = m * (2 * math.pi / period) ** 2
    c = 2 * zeta * math.sqrt(k * m)
    variances = []
    for seed in range(seeds):
        s = frylinks.System(gravity=[0.0, 0.0, 0.0])
        waves = {"type": "irregular", "hs": hs, "tp": tp, "nb_frequencies": n, "seed": seed}
        s.configure("environment", depth=200.0, water_density=RHO, waves=waves)
        s.add_body("platform", mass=m, inertia=[1e10, 1e10, 1e10])
        s.add_force("drift", "wave_drift", body="platform", hydrodynamics=OC4,
                    method="qtf", dofs=["surge"])
        s.add_force("lines", "mooring_matrix", body="platform", stiffness={"surge": k},
                    damping={"surge": c})
        ds = s.run(t_end=3600.0 * hours, dt=0.5, every=4, initial_equilibrium=True)
        x = ds.body_position.sel(body="platform", xyz="x").values[ds.time.values >= 600.0]
        variances.append(np.var(x))
    exact = _surge_std_frequency_domain(hs, tp, m, k, c, spectrum_bounds(tp, 3.3))
    var = float(np.mean(variances))
    error = float(np.std(variances, ddof=1) / math.sqrt(seeds))
    return math.sqrt(var), 0.5 * error / var, exact


@pytest.mark.parametrize("seeds, hours, n", [
    (8, 1.0, 100), pytest.param(40, 3.0, 200, marks=pytest.mark.slow)])
def test_slow_drift_surge_std_over_seeds_meets_the_frequency_domain(seeds: int,
                                                                   hours: float,
                                                                   n: int) -> None:
    """The sampling error of the std over ``seeds`` records is measured from their
    spread (about 2 % for 40 three-hour records); the simulated std agrees within three
    of them plus the sea's discretisation (1 %, 200 components; 2 % for 100)."""
    std, error, exact = _surge_std_over_seeds(seeds, hours, n)
    assert abs(std - exact) / exact < 3 * error + 200.0 / n / 100.0, (std, exact, error)
    assert error < 0.1
