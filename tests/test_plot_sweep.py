"""``frylinks plot`` and ``frylinks info`` on the results of a sweep: statistics of the
cases against the swept parameters (lines, heat maps), cases that did not complete.

The sweep files are built as ``frylinks sweep`` writes them: one real run of a short
pendulum repeated along ``case``, a synthetic ``link_power`` per case (so that every
case differs, with a transient to leave out), case statuses and swept coordinates.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
from matplotlib.axes import Axes
from matplotlib.collections import QuadMesh
from matplotlib.figure import Figure

import frylinks
from frylinks import FrylinksError
from frylinks.io.info import describe, open_results, summary
from frylinks.io.results import VARIABLES
from frylinks.views.plots import STATS, make_figure, plot

from .test_info_plot import write_case

HEIGHT = "environment.waves.height"
PERIOD = "environment.waves.period"
SPECTRUM = "environment.waves.spectrum"
UNITS = {HEIGHT: "m", PERIOD: "s"}
HEIGHTS = [1.0, 2.0, 3.0]
PERIODS = [6.0, 8.0, 10.0, 12.0]
#: statuses of the grid sweep that are not "completed", by case
GRID_STATUS = {5: "diverged at t=0.12: state not finite",
               7: "failed: ValueError: the wave period is negative\nTraceback (most recent "
                  "call last):\n  File ...",
               11: "pending"}
#: the transient of the synthetic power ends here [s]
TRANSIENT = 0.05
#: the long name is too long for one line with its units
POWER_LABEL = f"{VARIABLES['link_power'].long_name}\n[W]"


def power(height: float, period: float, t: np.ndarray) -> np.ndarray:
    """Synthetic PTO power of a case: a steady oscillation after a transient; the samples
    from the end of the transient to t = 0.2 s span two periods (mean height**2 * period)."""
    return height**2 * period * (1.0 + 0.5 * np.sin(2 * np.pi * t / 0.08)
                                 + 10.0 * (t < TRANSIENT))


def build(base: xr.Dataset, values: dict[str, Sequence[Any]], zipped: bool = False,
          statuses: dict[int, str] | None = None, status: str = "completed") -> xr.Dataset:
    """A sweep's results: ``base`` once per case, ``link_power`` from :func:`power`
    (height 1 and period 1 when not swept), NaN where a case has no data."""
    keys = list(values)
    combos = list(zip(*values.values(), strict=True)) if zipped \
        else list(itertools.product(*values.values()))
    n = len(combos)
    ds = xr.concat([base] * n, dim="case", data_vars="all")
    t = ds.time.values
    rows = []
    for combo in combos:
        case = dict(zip(keys, combo, strict=True))
        rows.append(power(float(case.get(HEIGHT, 1.0)), float(case.get(PERIOD, 1.0)), t))
    ds["link_power"] = (("case", "time", "link"), np.array(rows)[:, :, np.newaxis],
                        ds.link_power.attrs)
    texts = ["completed"] * n
    for i, text in (statuses or {}).items():
        texts[i] = text
        stop = t > 0.12 if text.startswith("diverged") else np.ones(t.size, dtype=bool)
        for name, var in ds.data_vars.items():
            if "time" in var.dims:
                ds[name] = var.where(~((ds.case == i) & xr.DataArray(stop, dims="time")))
    ds = ds.assign_coords(case=np.arange(n))
    for k, key in enumerate(keys):
        attrs = {"long_name": key, **({"units": UNITS[key]} if key in UNITS else {})}
        ds = ds.assign_coords({key: ("case", [c[k] for c in combos], attrs)})
    ds["status"] = ("case", texts)
    ds["wall_time"] = ("case", [np.nan if s == "pending" else 0.5 for s in texts],
                       {"units": "s"})
    ds.attrs.update(status=status, sweep=json.dumps(
        {"set": {k: list(v) for k, v in values.items()}, "zip": zipped}))
    return ds


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> xr.Dataset:
    """One run of the pendulum: 21 samples, t = 0 to 0.2 s."""
    return frylinks.run(write_case(tmp_path_factory.mktemp("base")), t_end=0.2)


@pytest.fixture(scope="module")
def grid(base: xr.Dataset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 heights x 4 periods, interrupted: a case diverged, one failed, one pending."""
    out = tmp_path_factory.mktemp("grid") / "grid.nc"
    build(base, {HEIGHT: HEIGHTS, PERIOD: PERIODS}, statuses=GRID_STATUS,
          status="interrupted (11 of 12 cases done)").to_netcdf(out)
    return out


@pytest.fixture(scope="module")
def zipped(base: xr.Dataset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Heights and periods paired (``--zip``), not in increasing order."""
    out = tmp_path_factory.mktemp("zip") / "zip.nc"
    build(base, {HEIGHT: [2.0, 1.0, 3.0], PERIOD: [8.0, 6.0, 10.0]}, zipped=True
          ).to_netcdf(out)
    return out


@pytest.fixture(scope="module")
def cube(base: xr.Dataset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 heights x 2 periods x 2 spectra (a text parameter)."""
    out = tmp_path_factory.mktemp("cube") / "cube.nc"
    build(base, {HEIGHT: [1.0, 2.0], PERIOD: [6.0, 8.0],
                 SPECTRUM: ["jonswap", "pierson_moskowitz"]}).to_netcdf(out)
    return out


def figure(path: Path, variable: str = "link_power", select: dict[str, Any] | None = None,
           **kwargs: Any) -> Figure:
    with open_results(path) as ds:
        return make_figure(ds, variable, select, **kwargs)


def statistic(path: Path, stat: str, after: float = 0.0, variable: str = "link_power"
              ) -> xr.DataArray:
    """``stat`` of every case of the file over t >= ``after``, NaN for the cases not
    completed: computed here with xarray, independently of frylinks.views.plots."""
    with open_results(path) as ds:
        da = ds[variable].where(ds.time >= after).load()
        completed = ds.status.load() == "completed"
    reduced = {"mean": lambda: da.mean("time"), "std": lambda: da.std("time"),
               "rms": lambda: np.sqrt((da**2).mean("time")),
               "min": lambda: da.min("time"), "max": lambda: da.max("time"),
               "amplitude": lambda: (da.max("time") - da.min("time")) / 2,
               "final": lambda: xr.apply_ufunc(last_finite, da, input_core_dims=[["time"]])
               }[stat]()
    return reduced.where(completed)


def last_finite(values: np.ndarray) -> np.ndarray:
    """The last finite value along the last axis (NaN if none)."""
    out = np.full(values.shape[:-1], np.nan)
    for index in np.ndindex(out.shape):
        finite = values[index][np.isfinite(values[index])]
        out[index] = finite[-1] if finite.size else np.nan
    return out


def cell_texts(ax: Axes) -> dict[tuple[int, int], str]:
    return {(round(float(t.get_position()[0])), round(float(t.get_position()[1]))):
            t.get_text() for t in ax.texts}


def tick_labels(ax: Axes, which: str = "x") -> list[str]:
    ticks = ax.get_xticklabels() if which == "x" else ax.get_yticklabels()
    return [t.get_text() for t in ticks]


def one_line(exc: pytest.ExceptionInfo[FrylinksError]) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


# ------------------------------------------------------------------ the power matrix


def test_power_matrix_is_a_heat_map_of_time_means(grid: Path) -> None:
    fig = figure(grid, after=TRANSIENT)
    ax, colorbar = fig.axes
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    # heights on x, periods on y: the means of the C-order cases, transposed
    means = statistic(grid, "mean", TRANSIENT).isel(link=0).values.reshape(3, 4).T
    drawn = np.ma.filled(np.ma.masked_array(mesh.get_array()), np.nan).reshape(4, 3)
    np.testing.assert_allclose(drawn, means, rtol=1e-12)
    assert np.isnan(drawn[[1, 3, 3], [1, 1, 2]]).all()  # cases 5, 7, 11
    assert np.isfinite(drawn).sum() == 9
    # the transient is left out: every completed mean is that of the steady oscillation
    steady = np.array([[h * h * p for h in HEIGHTS] for p in PERIODS])
    ok = np.isfinite(drawn)
    np.testing.assert_allclose(drawn[ok], steady[ok], rtol=1e-12)
    texts = cell_texts(ax)
    assert len(texts) == 12
    assert texts[(1, 1)] == "diverged" and texts[(1, 3)] == "failed"
    assert texts[(2, 3)] == "pending"
    assert texts[(0, 0)] == f"{means[0, 0]:.3g}" and texts[(2, 2)] == f"{means[2, 2]:.3g}"
    assert len(ax.patches) == 3  # hatched cells
    assert ax.get_xlabel() == "environment.waves.height [m]"
    assert ax.get_ylabel() == "environment.waves.period [s]"
    assert tick_labels(ax) == ["1", "2", "3"]
    assert tick_labels(ax, "y") == ["6", "8", "10", "12"]
    assert colorbar.get_ylabel() == POWER_LABEL
    assert ax.get_title() == (
        "short-pendulum: link_power\nmean over t >= 0.05 s; 3 of 12 cases not completed "
        "(1 diverged, 1 failed, 1 pending)\ninterrupted (11 of 12 cases done)")


def test_the_transient_counts_without_after(grid: Path) -> None:
    ax = figure(grid, stat="max").axes[0]
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    drawn = np.ma.filled(np.ma.masked_array(mesh.get_array()), np.nan).reshape(4, 3)
    maxima = statistic(grid, "max").isel(link=0).values.reshape(3, 4).T
    np.testing.assert_allclose(drawn, maxima, rtol=1e-12)
    assert drawn[0, 0] > 10  # the transient's peak
    assert "maximum over time;" in ax.get_title()


def test_heat_map_over_the_selected_periods(grid: Path) -> None:
    ax = figure(grid, select={PERIOD: ["6", "10"]}, after=TRANSIENT).axes[0]
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    drawn = np.ma.filled(np.ma.masked_array(mesh.get_array()), np.nan).reshape(2, 3)
    means = statistic(grid, "mean", TRANSIENT).isel(link=0).values.reshape(3, 4).T
    np.testing.assert_allclose(drawn, means[[0, 2]], rtol=1e-12)
    assert tick_labels(ax, "y") == ["6", "10"]
    assert "cases not completed" not in ax.get_title()


# ------------------------------------------------------------------------- lines


@pytest.mark.parametrize("stat", [s for s in STATS if s != "none"])
def test_line_against_the_period(grid: Path, stat: str) -> None:
    ax = figure(grid, select={HEIGHT: "2"}, stat=stat, after=TRANSIENT).axes[0]
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), PERIODS)
    expected = statistic(grid, stat, TRANSIENT).isel(case=slice(4, 8), link=0).values
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float), expected,
                               rtol=1e-12, atol=1e-12)
    # case 5 diverged and case 7 failed: no point, although case 5 has samples
    assert np.isnan(expected[[1, 3]]).all() and np.isfinite(expected[[0, 2]]).all()
    assert line.get_marker() == "o"
    # the missing points are named at their foot
    assert [(t.get_position()[0], t.get_text()) for t in ax.texts] == [
        (8.0, "diverged"), (12.0, "failed")]
    assert ax.get_xlabel() == "environment.waves.period [s]"
    assert ax.get_ylabel() == POWER_LABEL
    assert line.get_label() == "hinge"  # the one link, named as in a plot against time
    assert ax.get_title().splitlines()[:2] == [
        "short-pendulum: link_power (environment.waves.height=2)",
        f"{STATS[stat]} {'(t >= 0.05 s)' if stat == 'final' else 'over t >= 0.05 s'}; "
        "2 of 4 cases not completed (1 diverged, 1 failed)"]


def test_line_against_the_height_sorted(grid: Path) -> None:
    """A selection in another order than the sweep's is drawn in increasing height."""
    ax = figure(grid, select={PERIOD: "6", "case": ["8", "0", "4"]}).axes[0]
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), HEIGHTS)
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float),
                               statistic(grid, "mean").isel(case=[0, 4, 8], link=0).values)
    assert ax.get_xlabel() == "environment.waves.height [m]"


def test_one_line_per_other_coordinate(grid: Path) -> None:
    ax = figure(grid, "body_position", {PERIOD: "6"}, stat="min").axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["bob, x", "bob, y", "bob, z"]
    assert ax.get_legend().get_title().get_text() == "body, xyz"  # type: ignore[union-attr]
    expected = statistic(grid, "min", variable="body_position").isel(case=[0, 4, 8])
    for k, line in enumerate(lines):
        np.testing.assert_array_equal(line.get_xdata(), HEIGHTS)
        np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float),
                                   expected.isel(body=0, xyz=k).values)


def test_zipped_parameters_pair_under_the_ticks(zipped: Path) -> None:
    ax = figure(zipped).axes[0]
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), [1.0, 2.0, 3.0])
    means = statistic(zipped, "mean").isel(link=0).values  # cases: h = 2, 1, 3
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float), means[[1, 0, 2]])
    assert tick_labels(ax) == ["1\n6", "2\n8", "3\n10"]
    assert ax.get_xlabel() == "environment.waves.height [m]\nenvironment.waves.period [s]"


def test_zipped_forces_with_a_repeated_value(base: xr.Dataset, tmp_path: Path) -> None:
    """A ``zip`` sweep of whole force mappings (YAML flow text) beside a key with a
    repeated value (cases/point_absorber_nonlinear.yaml's): one line along the cases,
    each tick naming what differs among the mappings (a type by its value, a path by
    its name), not a heat map the cases do not fill."""
    forces = ["{type: linear_hydrostatics, body: buoy, hydrodynamics: ../data/sphere.nc}",
              "{type: nonlinear_hydrostatics, body: buoy}",
              "{type: nonlinear_hydrostatics, body: buoy, froude_krylov: true}"]
    out = tmp_path / "forces.nc"
    build(base, {"forces.hydrostatics": forces,
                 "forces.excitation.part": ["total", "total", "diffraction"]},
          zipped=True).to_netcdf(out)
    ax = figure(out, stat="mean").axes[0]
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), [0.0, 1.0, 2.0])
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float),
                               statistic(out, "mean").isel(link=0).values)
    assert tick_labels(ax) == [
        "linear_hydrostatics,\nhydrodynamics: sphere.nc\ntotal",
        "nonlinear_hydrostatics\ntotal",
        "nonlinear_hydrostatics,\nfroude_krylov: True\ndiffraction"]
    assert ax.get_xlabel() == "forces.hydrostatics\nforces.excitation.part"


def test_text_parameter_in_sweep_order(cube: Path) -> None:
    ax = figure(cube, select={HEIGHT: "2", PERIOD: "8"}, stat="rms").axes[0]
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), [0.0, 1.0])
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float),
                               statistic(cube, "rms").isel(case=[6, 7], link=0).values)
    assert tick_labels(ax) == ["jonswap", "pierson_moskowitz"]
    assert ax.get_xlabel() == SPECTRUM


def test_a_grid_of_a_cube(cube: Path) -> None:
    ax = figure(cube, select={SPECTRUM: "pierson_moskowitz"}).axes[0]
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    drawn = np.ma.filled(np.ma.masked_array(mesh.get_array()), np.nan).reshape(2, 2)
    means = statistic(cube, "mean").isel(case=[1, 3, 5, 7], link=0).values
    np.testing.assert_allclose(drawn, means.reshape(2, 2).T)


def test_cases_without_varying_parameter(base: xr.Dataset, tmp_path: Path) -> None:
    path = tmp_path / "repeat.nc"
    build(base, {HEIGHT: [2.0, 2.0, 2.0]}, zipped=True, statuses={1: "failed: x"}
          ).to_netcdf(path)
    ax = figure(path).axes[0]
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), [0.0, 1.0, 2.0])
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float),
                               statistic(path, "mean").isel(link=0).values)
    assert np.isnan(np.asarray(line.get_ydata(), dtype=float)[1])
    assert ax.get_xlabel() == "case"
    assert [(t.get_position()[0], t.get_text()) for t in ax.texts] == [(1.0, "failed")]
    assert "1 of 3 cases not completed (1 failed)" in ax.get_title()


def test_cases_of_different_durations(base: xr.Dataset, tmp_path: Path) -> None:
    """A swept end time puts the cases on one time axis, the shorter ones NaN after
    their end: each is summarised over its own samples."""
    path = tmp_path / "t_end.nc"
    ds = build(base, {"solver.t_end": [0.2, 0.15]})
    ds["link_power"] = ds.link_power.where((ds.case == 0) | (ds.time <= 0.15 + 1e-9))
    ds.to_netcdf(path)
    t = ds.time.values
    for stat, expected in (("final", [power(1, 1, t)[-1], power(1, 1, t)[15]]),
                           ("mean", [power(1, 1, t).mean(), power(1, 1, t)[:16].mean()])):
        (line,) = figure(path, stat=stat).axes[0].get_lines()
        np.testing.assert_array_equal(line.get_xdata(), [0.15, 0.2])
        np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float),
                                   expected[::-1], rtol=1e-12)


# ------------------------------------------------------------- time series of cases


def test_time_series_per_case_name_their_status(grid: Path) -> None:
    ax = figure(grid, select={PERIOD: "8"}, stat="none", after=TRANSIENT).axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == [
        "environment.waves.height=1, hinge", "environment.waves.height=2 (diverged), hinge",
        "environment.waves.height=3, hinge"]
    with open_results(grid) as ds:
        t = ds.time.values
        truth = ds.link_power.isel(case=[1, 5, 9], link=0).values
    kept = t >= TRANSIENT
    for line, y in zip(lines, truth, strict=True):
        np.testing.assert_array_equal(line.get_xdata(), t[kept])
        np.testing.assert_array_equal(np.asarray(line.get_ydata(), dtype=float), y[kept])
    assert np.isnan(np.asarray(lines[1].get_ydata(), dtype=float)[-1])
    assert ax.get_title().splitlines()[1] == ("t >= 0.05 s; 1 of 3 cases not completed "
                                              "(1 diverged)")


def test_one_case_that_did_not_complete(grid: Path) -> None:
    ax = figure(grid, select={"case": "5"}).axes[0]
    assert ax.get_title().splitlines()[1] == "case 5: diverged at t=0.12: state not finite"
    with pytest.raises(FrylinksError) as exc:
        figure(grid, select={"case": "7"})
    assert one_line(exc) == ("link_power (case=7): no finite value to plot (case 7: failed: "
                             "ValueError: the wave period is negative Traceback (most recent "
                             "call ...)")


def test_no_completed_case(base: xr.Dataset, tmp_path: Path) -> None:
    path = tmp_path / "failed.nc"
    build(base, {PERIOD: PERIODS}, statuses=dict.fromkeys(range(3), "failed: x") | {
        3: "diverged at t=0.1"}).to_netcdf(path)
    with pytest.raises(FrylinksError) as exc:
        figure(path)
    assert one_line(exc) == ("link_power: no finite value to plot (4 of 4 cases not "
                             "completed (1 diverged, 3 failed))")


def test_a_figure_file_is_written(grid: Path, tmp_path: Path) -> None:
    written = plot(grid, "link_power", output=tmp_path / "matrix.png", after=TRANSIENT)
    assert written == tmp_path / "matrix.png"
    data = written.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000
    pdf = plot(grid, "link_power", {HEIGHT: "1"}, tmp_path / "line.pdf", stat="amplitude")
    assert pdf.read_bytes().startswith(b"%PDF")
    assert plot(grid, "link_power", stat="none", after=0.1) == \
        grid.with_name("grid_link_power.png")


# --------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("stat", "expected"), [
    ("maen", "--stat maen: unknown statistic; did you mean 'mean'? (accepted: mean, std, "
             "rms, min, max, amplitude, final, none)"),
    ("average", "--stat average: unknown statistic (accepted: mean, std, rms, min, max, "
                "amplitude, final, none)"),
])
def test_unknown_stat(grid: Path, stat: str, expected: str) -> None:
    with pytest.raises(FrylinksError) as exc:
        plot(grid, "link_power", stat=stat)
    assert one_line(exc) == expected


def test_stat_without_cases(base: xr.Dataset, grid: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        make_figure(base, "link_power", stat="mean")
    assert one_line(exc) == ("--stat summarises the cases of a sweep; link_power has no "
                             "case dimension (plot it without --stat)")
    with pytest.raises(FrylinksError) as exc:
        figure(grid, select={HEIGHT: "3", PERIOD: "6"}, stat="max")
    assert one_line(exc) == (
        "--stat summarises the cases of a sweep; link_power (environment.waves.height=3, "
        "environment.waves.period=6) leaves one case (select several, or plot it without "
        "--stat)")
    # no summary asked: the time series, as without stat
    none = make_figure(base, "link_power", stat="none").axes[0]
    np.testing.assert_array_equal(none.get_lines()[0].get_ydata(),
                                  base.link_power.isel(link=0).values)


@pytest.mark.parametrize(("after", "expected"), [
    (0.25, "--after 0.25: the results end at t = 0.2 s (accepted: a time up to 0.2 s)"),
    (float("nan"), "--after nan: expected a time in seconds (a finite number)"),
])
def test_bad_after(grid: Path, after: float, expected: str) -> None:
    with pytest.raises(FrylinksError) as exc:
        plot(grid, "link_power", after=after)
    assert one_line(exc) == expected


def test_more_than_two_parameters(cube: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        figure(cube)
    assert one_line(exc) == (
        "link_power: the selected cases vary in 3 swept parameters (environment.waves."
        "height, environment.waves.period, environment.waves.spectrum); a figure shows at "
        "most two (a heat map): select values of the others, e.g. --select "
        "environment.waves.spectrum=jonswap")


def test_heat_map_of_several_values_per_case(grid: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        figure(grid, "body_position")
    assert one_line(exc) == (
        "body_position: a heat map over environment.waves.height and environment.waves."
        "period shows one value per case, not 3 (xyz); select one, e.g. --select xyz=x "
        "(accepted: xyz = x, y, z)")


def test_not_a_grid(grid: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        figure(grid, select={"case": ["0", "1", "4"]})
    assert one_line(exc) == (
        "link_power (case=0,1,4): environment.waves.height and environment.waves.period "
        "do not form a grid over the 3 selected cases (2 x 2 values); select one value of "
        "either, e.g. --select environment.waves.period=6")


def test_select_values_no_case_has_together(zipped: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        figure(zipped, select={HEIGHT: "2", PERIOD: "6"})
    assert one_line(exc) == (
        "--select environment.waves.period=6: no case of link_power has it with "
        "environment.waves.height=2 (accepted with them: 8)")


# ---------------------------------------------------------------------------- info


def test_describe_a_sweep_with_statuses(grid: Path) -> None:
    lines = describe(grid).splitlines()
    assert "  status       interrupted (11 of 12 cases done)" in lines
    assert f"  resumable    1 pending case (frylinks sweep CASE --resume {grid} runs only " \
           "the missing cases)" in lines
    start = lines.index("  cases        12 (9 completed, 1 diverged, 1 failed, 1 pending)")
    assert lines[start + 1:start + 6] == [
        "  swept        environment.waves.height = 1, 2, 3",
        "  swept        environment.waves.period = 6, 8, 10, 12",
        "  case 5       environment.waves.height=2, environment.waves.period=8: diverged at "
        "t=0.12: state not finite",
        "  case 7       environment.waves.height=2, environment.waves.period=12: failed: "
        "ValueError: the wave period is negative Traceback (most recent call last): File "
        "...",
        "  case 11      environment.waves.height=3, environment.waves.period=12: pending"]
    assert lines[start + 6] == ""


def test_describe_a_completed_sweep_with_failures(base: xr.Dataset) -> None:
    statuses = {i: f"failed: case {i} failed" for i in range(12)} | {0: "diverged at t=1"}
    text = summary(build(base, {PERIOD: [float(p) for p in range(3, 15)]},
                         statuses=statuses, status="completed"))
    lines = text.splitlines()
    start = lines.index("  cases        12 (1 diverged, 11 failed)")
    assert lines[start + 1] == "  swept        environment.waves.period = 3, 4, 5, 6, 7, " \
                               "8, 9, 10, ..., 14"
    assert lines[start + 2] == "  case 0       environment.waves.period=3: diverged at t=1"
    assert lines[start + 11] == "  case 9       environment.waves.period=12: failed: case 9 " \
                                "failed"
    assert lines[start + 12] == "               ... (2 more not completed)"
    assert lines[start + 13] == ""
    assert "resumable" not in text


def test_describe_pending_cases_of_a_running_sweep(base: xr.Dataset) -> None:
    ds = build(base, {PERIOD: PERIODS}, statuses={2: "pending", 3: "pending"},
               status="running")
    text = summary(ds, "s.nc")
    assert "  resumable    2 pending cases (frylinks sweep CASE --resume s.nc runs only " \
           "the missing cases)" in text.splitlines()
    assert "  cases        4 (2 completed, 2 pending)" in text.splitlines()
    # the file's status completed: nothing is missing (a case pending there is a writer bug)
    ds.attrs["status"] = "completed"
    assert "resumable" not in summary(ds)
