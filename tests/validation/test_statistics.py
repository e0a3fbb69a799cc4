"""Extremes and fatigue of result variables (frylinks.views.statistics) against closed
forms and MHKiT.

* Extremes: 3-hour records of a linear (Gaussian, narrow-banded) response, one per seed:
  the Rayleigh most probable maximum ``sigma sqrt(2 ln N)`` of the record's spectrum is
  what the records' own statistics estimate (Rayleigh, Weibull and generalized Pareto),
  and the observed 3-hour maxima are distributed as the closed form says: their median
  ``sigma sqrt(2 ln(N / ln 2))``, within the seeds' sampling error.
* Fatigue: a sine and a two-level block give the exact rainflow counts, the
  damage-equivalent load and Miner's damage by hand; on a random record the DEL equals
  MHKiT's ``loads.general.damage_equivalent_load`` within its binning.
* The command and the Python function on a run's results, and on a sweep's cases.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import frylinks
from frylinks.views.statistics import extremes, fatigue, global_peaks

DT, HOURS = 0.5, 3.0
SPAN = HOURS * 3600.0


def narrow_band(seed: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """A 3-hour Gaussian record of a narrow-banded response (a JONSWAP-shaped spectrum,
    gamma 7, peak 10 s), random phases on every FFT frequency of the record: the
    record, its times, its spectrum's standard deviation and mean up-crossing period."""
    n = int(SPAN / DT)
    f = np.fft.rfftfreq(n, DT)
    fp = 0.1
    sigma_f = np.where(f <= fp, 0.07, 0.09)
    shape = np.exp(-((f - fp) ** 2) / (2 * sigma_f**2 * fp**2))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        s = np.nan_to_num(f**-5.0 * np.exp(-1.25 * (fp / f) ** 4) * 7.0**shape)
    df = f[1] - f[0]
    amp = np.sqrt(2 * s * df)
    rng = np.random.default_rng(seed)
    phase = rng.uniform(0, 2 * np.pi, len(f))
    spec = amp * np.exp(1j * phase) * n / 2
    x = np.fft.irfft(spec, n)
    m0 = np.sum(amp**2 / 2)
    m2 = np.sum(amp**2 / 2 * (2 * np.pi * f) ** 2)
    return x / math.sqrt(m0), np.arange(n) * DT, 1.0, 2 * np.pi * math.sqrt(m0 / m2)


def test_most_probable_maximum_of_a_gaussian_response() -> None:
    seeds = 40
    records = [narrow_band(s) for s in range(seeds)]
    sigma, tz = records[0][2], records[0][3]
    n = SPAN / tz
    closed = sigma * math.sqrt(2 * math.log(n))
    rayleigh, weibull, observed = [], [], []
    for x, t, _, _ in records:
        e = extremes(x, t, threshold=math.inf)  # (no Pareto tail here: below)
        rayleigh.append(e.mpm_rayleigh)
        weibull.append(e.mpm_weibull)
        observed.append(x.max())
        assert e.peaks == len(global_peaks(x))
        assert abs(e.peak_rate * tz - 1) < 0.1  # narrow band: a peak per up-crossing
    # the records' own estimates of the closed form: their mean within 1 % (Rayleigh,
    # from each record's sigma and peak rate; measured 0.07 %) and 3 % (the Weibull fit
    # of the peaks' upper tail; measured 1.6 % low)
    assert np.mean(rayleigh) == pytest.approx(closed, rel=0.01)
    assert np.mean(weibull) == pytest.approx(closed, rel=0.03)
    # the observed 3-hour maxima: the distribution of the largest of n Rayleigh peaks,
    # F(x) = (1 - exp(-x^2 / 2 sigma^2))^n: its median, against the seeds' median with
    # its sampling error (about 1.25 sigma_max / sqrt(seeds))
    median = sigma * math.sqrt(-2 * math.log(1 - 0.5 ** (1 / n)))
    err = 1.25 * np.std(observed) / math.sqrt(seeds)
    assert abs(np.median(observed) - median) < 3 * err, (np.median(observed), median, err)
    # the mode of that distribution is the closed form's sqrt(2 ln n) (to O(1/ln n))
    assert median == pytest.approx(closed, rel=0.05)


def test_generalized_pareto_tail_of_a_gaussian_response() -> None:
    """The peaks over mean + 1.5 sigma, declustered, fitted by a generalized Pareto tail:
    its 3-hour return value, averaged over 8 records, within 5 % of the Rayleigh closed
    form (measured 4.7 % low: at this threshold the tail's fitted shape is about -0.28,
    shorter than the Rayleigh tail it stands for), each record's value inside its own
    95 % interval's bounds."""
    values = []
    for seed in range(8):
        x, t, sigma, tz = narrow_band(100 + seed)
        e = extremes(x, t, samples=40)
        assert e.exceedances > 50 and e.threshold == pytest.approx(x.mean() + 1.5 * x.std())
        assert e.mpm_gpd_lower < e.mpm_gpd < e.mpm_gpd_upper
        values.append(e.mpm_gpd)
    closed = sigma * math.sqrt(2 * math.log(SPAN / tz))
    assert np.mean(values) == pytest.approx(closed, rel=0.05), (np.mean(values), closed)


def test_rainflow_of_a_sine_and_of_two_blocks() -> None:
    t = np.linspace(0.0, 10.0, 10001)
    x = 2.0 * np.sin(2 * np.pi * t)
    f = fatigue(x, t, slope=4.0, equivalent_cycles=10.0, sn_k=1e12)
    assert f.cycles == 10 and f.largest_range == pytest.approx(4.0)
    assert f.del_ == pytest.approx(4.0, rel=1e-12)
    assert f.damage == pytest.approx(10 * 4.0**4 / 1e12, rel=1e-12)
    # two blocks: 5 cycles of range 6, then 10 of range 2
    t2 = np.linspace(0.0, 15.0, 15001)
    x2 = np.where(t2 < 5.0, 3.0, 1.0) * np.sin(2 * np.pi * t2)
    f2 = fatigue(x2, t2, slope=3.0, sn_k=2e9)
    assert f2.cycles == 15 and f2.largest_range == pytest.approx(6.0)
    assert f2.equivalent_cycles == pytest.approx(15.0)  # the 1 Hz DEL: the record's span
    total = 5 * 6.0**3 + 10 * 2.0**3
    assert f2.del_ == pytest.approx((total / 15.0) ** (1 / 3), rel=1e-12)
    assert f2.damage == pytest.approx(total / 2e9, rel=1e-12)


def test_damage_equivalent_load_against_mhkit() -> None:
    from mhkit.loads import general as mhkit_general
    x, t, _, _ = narrow_band(7)
    x = 1e5 * (1.0 + x)  # a tension [N]
    ours = fatigue(x, t, slope=5.0).del_
    theirs = mhkit_general.damage_equivalent_load(x, 5.0, bin_num=1000,
                                                  data_length=float(t[-1] - t[0]))
    # MHKiT sorts the record into 256 levels and the ranges into 1000 bins first
    assert ours == pytest.approx(theirs, rel=0.01), (ours, theirs)


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stats") / "pendulum.nc"
    root = Path(__file__).resolve().parents[2]
    frylinks.run(root / "cases" / "pendulum.yaml", out, t_end=20.0)
    return out


def test_statistics_of_a_run_from_python_and_the_command(pendulum: Path,
                                                         tmp_path: Path) -> None:
    """The same numbers from ``frylinks.statistics`` and ``frylinks stats -o``: a
    record per remaining coordinate, units carried over."""
    ds = frylinks.statistics(pendulum, "body_position", {"body": "bob"}, after=2.0,
                             slope=4.0)
    assert ds.body_position_mpm_rayleigh.dims == ("xyz",)
    assert ds.body_position_del.attrs["units"] == "m"
    with xr.open_dataset(pendulum) as res:
        z = res.body_position.sel(body="bob", xyz="z").sel(time=slice(2.0, None)).values
    assert float(ds.body_position_maximum.sel(xyz="z")) == pytest.approx(z.max())
    assert float(ds.body_position_std.sel(xyz="z")) == pytest.approx(z.std())
    out = tmp_path / "stats.nc"
    done = subprocess.run([sys.executable, "-m", "frylinks", "stats", str(pendulum),
                           "body_position", "--select", "body=bob", "--after", "2",
                           "--slope", "4", "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "mpm_rayleigh" in done.stdout and "xyz=z" in done.stdout
    with xr.open_dataset(out) as cli:
        for name in ds.data_vars:
            np.testing.assert_allclose(cli[name].values, ds[name].values, rtol=1e-12,
                                       equal_nan=True)
    bad = subprocess.run([sys.executable, "-m", "frylinks", "stats", str(pendulum),
                          "body_speed"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown variable 'body_speed'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_statistics_across_a_sweeps_cases() -> None:
    """A record per case, the swept values kept as coordinates along ``case``: each
    case's numbers are those of its record alone."""
    t = np.arange(0.0, 600.0, 0.25)
    amplitudes = np.array([1.0, 2.0, 3.0])
    power = amplitudes[:, None] * np.sin(2 * np.pi * t / 8.0)[None, :]
    ds = xr.Dataset({"link_power": (("case", "time", "link"), power[:, :, None],
                                    {"units": "W"})},
                    coords={"case": np.arange(3), "time": t, "link": ["pto"],
                            "environment.waves.hs": ("case", [1.0, 2.0, 3.0])})
    out = frylinks.statistics(ds, "link_power", {"link": "pto"}, slope=3.0)
    assert out.link_power_del.dims == ("case",)
    assert list(out["environment.waves.hs"].values) == [1.0, 2.0, 3.0]
    for i, a in enumerate(amplitudes):
        alone = fatigue(power[i], t, slope=3.0)
        assert float(out.link_power_del.isel(case=i)) == pytest.approx(alone.del_)
        assert float(out.link_power_maximum.isel(case=i)) == pytest.approx(a, rel=1e-3)
        assert float(out.link_power_cycles.isel(case=i)) == pytest.approx(600.0 / 8.0, abs=1)
