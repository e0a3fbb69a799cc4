"""``frylinks info`` and ``frylinks plot``: summaries and figures of real results files."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

import frylinks
from frylinks import FrylinksError, hookimpl
from frylinks.engine import assemble
from frylinks.io.case import load_case
from frylinks.io.info import describe, open_results
from frylinks.io.netcdf import StreamWriter
from frylinks.io.results import VARIABLES
from frylinks.views.plots import MAX_LINES, make_figure, parse_select, plot

# a 1 m pendulum swinging in the x-z plane; {g} is the vertical gravity (swept below)
CASE = """\
frylinks: 1
name: short-pendulum
description: 1 m pendulum for the info and plot tests
gravity: [0, 0, {g}]
ground:
  nodes:
    pivot: {{orientation: {{axis: [1, 0, 0], angle_deg: 90}}}}
bodies:
  bob:
    mass: 1.0
    inertia: [1.0e-3, 1.0e-3, 1.0e-3]
    position: [0.6, 0, -0.8]
    nodes:
      hinge: {{position: [-0.6, 0, 0.8], orientation: {{axis: [1, 0, 0], angle_deg: 90}}}}
links:
  hinge: {{type: revolute, master: ground.pivot, slave: bob.hinge}}
solver: {{t_end: 0.2, dt: 0.01}}
"""

#: gravity of the load cases of the sweep file (Earth, Mars, Moon, Jupiter)
GRAVITIES = [-9.81, -3.71, -1.62, -24.79]


def write_case(directory: Path, g: float = -9.81, name: str = "pendulum.yaml") -> Path:
    path = directory / name
    path.write_text(CASE.format(g=g))
    return path


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A completed run: 21 samples, t = 0 to 0.2 s."""
    directory = tmp_path_factory.mktemp("results")
    out = directory / "r.nc"
    ds = frylinks.run(write_case(directory), output=out)
    assert ds.attrs["status"] == "completed"
    return out


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four load cases in one file with a ``case`` dimension, gravity as its coordinate,
    and a variable reduced over time (as ``frylinks sweep`` will write)."""
    directory = tmp_path_factory.mktemp("sweep")
    runs = [frylinks.run(write_case(directory, g, f"c{i}.yaml"), t_end=0.1)
            for i, g in enumerate(GRAVITIES)]
    ds = xr.concat(runs, dim="case").assign_coords(gravity_z=("case", GRAVITIES))
    ds["peak_angle"] = abs(ds.link_displacement.sel(dof="rz")).max("time")
    ds["peak_angle"].attrs.update(units="rad", long_name="largest swing angle")
    out = directory / "sweep.nc"
    ds.to_netcdf(out)
    return out


def ydata(line: Line2D) -> np.ndarray:
    return np.asarray(line.get_ydata(), dtype=float)


def legend_title(ax: Axes) -> str:
    legend = ax.get_legend()
    assert legend is not None
    return legend.get_title().get_text()


def one_line(exc: pytest.ExceptionInfo[FrylinksError]) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------------------- info


def test_describe_a_completed_run(results: Path) -> None:
    text = describe(results)
    lines = text.splitlines()
    assert lines[0] == "short-pendulum"
    fields = {m.group(1): m.group(2) for m in
              (re.match(r"  (\w+) +(.*)$", line) for line in lines) if m}
    assert fields["description"] == "1 m pendulum for the info and plot tests"
    assert fields["status"] == "completed"
    assert fields["frylinks"] == frylinks.__version__
    assert fields["integrator"] == "rk4, dt = 0.01 s, output every 1 step"
    assert fields["samples"] == "21, t = 0 to 0.2 s"
    assert fields["bodies"] == "1: bob"
    assert fields["links"] == "1: hinge"
    assert fields["forces"] == "0"
    assert "cases" not in fields
    table = lines[lines.index("") + 1:]
    assert table[0].split() == ["variable", "dims", "units", "long_name"]
    # every variable on its own row, with its dims, units and long_name in aligned columns
    rows = {row.split()[0]: row for row in table[1:]}
    assert set(rows) == set(VARIABLES)
    units_column = table[0].index("units")
    for name, meta in VARIABLES.items():
        row = rows[name]
        # a variable whose DOFs differ in units shows each ("m, rad per dof")
        shown = meta.units if meta.dof_units is None else \
            f"{', '.join(dict.fromkeys(meta.dof_units))} per dof"
        assert row[units_column:].startswith(shown + " ")
        assert ", ".join(meta.dims) in row
        assert row.endswith(meta.long_name)


def test_describe_an_interrupted_run(tmp_path: Path) -> None:
    class CtrlC:
        @hookimpl
        def frylinks_step_completed(self, system: Any, t: float, state: Any) -> None:
            if t >= 0.05 - 1e-9:
                raise KeyboardInterrupt

    system, solver = load_case(write_case(tmp_path))
    system.registry.register(CtrlC(), name="ctrl-c")
    out = tmp_path / "r.nc"
    system.run(output=out, **solver)
    text = describe(out)
    assert re.search(r"^  status +interrupted at t=0\.05$", text, re.M)
    assert re.search(r"^  samples +6, t = 0 to 0\.05 s$", text, re.M)


def test_describe_and_plot_while_the_run_writes_the_file(tmp_path: Path) -> None:
    """Read at every output sample of the run that writes the file: each read sees a
    running run, and the writer is never kept from writing (the run completes)."""
    out = tmp_path / "r.nc"
    seen: list[str] = []

    class Reader:
        @hookimpl
        def frylinks_step_completed(self, system: Any, t: float, state: Any) -> None:
            if out.exists():
                seen.append(describe(out))

    system, solver = load_case(write_case(tmp_path))
    system.registry.register(Reader(), name="reader")
    ds = system.run(output=out, **solver)
    assert ds.attrs["status"] == "completed"
    assert len(seen) == 21
    for text in seen:
        assert "running (still being written, or the run was killed)" in text
        n = int(re.search(r"^  samples +(\d+)", text, re.M).group(1))  # type: ignore[union-attr]
        assert 0 <= n <= 21
    assert re.search(r"^  status +completed$", describe(out), re.M)
    assert plot(out, "link_power").stat().st_size > 0


def test_read_while_another_process_runs(tmp_path: Path) -> None:
    """HDF5 locks a file against other processes while one writes it: reads made while
    ``frylinks run`` streams its results neither fail nor stop the run."""
    case = tmp_path / "long.yaml"
    case.write_text(CASE.format(g=-9.81).replace("t_end: 0.2", "t_end: 1.5"))
    out = tmp_path / "long.nc"
    proc = subprocess.Popen([sys.executable, "-m", "frylinks", "run", str(case), "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reads = 0
    try:
        while proc.poll() is None:
            if out.exists():
                text = describe(out)
                assert re.search(r"^  status +(running|completed)", text, re.M)
                reads += 1
            time.sleep(0.05)
    finally:
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert stdout.startswith("completed: 151 samples")
    assert reads > 0
    assert re.search(r"^  samples +151, t = 0 to 1\.5 s$", describe(out), re.M)


def test_wait_for_a_writer_that_holds_the_file(results: Path, tmp_path: Path) -> None:
    """Another process has the file open for writing (HDF5 then refuses readers): the
    read waits for it to let go, and a damaged file is not waited for."""
    path = tmp_path / "held.nc"
    path.write_bytes(results.read_bytes())
    holder = subprocess.Popen(
        [sys.executable, "-c", "import netCDF4, sys, time\n"
         f"ds = netCDF4.Dataset({str(path)!r}, 'a'); print('open', flush=True)\n"
         "time.sleep(1.0); ds.close()"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        start = time.monotonic()
        text = describe(path)
        waited = time.monotonic() - start
    finally:
        holder.wait(timeout=60)
    assert re.search(r"^  status +completed$", text, re.M)
    assert waited > 0.3


def test_describe_and_plot_a_file_without_samples(tmp_path: Path) -> None:
    """The file as a run creates it, before its first records are written."""
    system, _ = load_case(write_case(tmp_path))
    out = tmp_path / "empty.nc"
    StreamWriter(out, assemble(system), {"title": system.name, "frylinks_version": "0.1.0",
                                         "integrator": "rk4", "dt": 0.01})
    text = describe(out)
    assert re.search(r"^  status +running \(still being written", text, re.M)
    assert re.search(r"^  samples +0$", text, re.M)
    assert "body_position" in text
    with pytest.raises(FrylinksError) as exc:
        plot(out, "body_position")
    assert "no sample in the file yet" in one_line(exc)


def test_describe_a_sweep(sweep: Path) -> None:
    text = describe(sweep)
    assert re.search(r"^  cases +4$", text, re.M)
    assert re.search(r"^  swept +gravity_z = -9\.81, -3\.71, -1\.62, -24\.79$", text, re.M)
    assert re.search(r"^peak_angle +case, link +rad +largest swing angle$", text, re.M)
    assert re.search(r"^body_position +case, time, body, xyz +m ", text, re.M)


# ---------------------------------------------------------------------------- plot


def test_plot_writes_a_png_beside_the_results(results: Path) -> None:
    written = plot(results, "body_position", {"body": "bob"})
    assert written == results.with_name("r_body_position.png")
    data = written.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000


def test_plot_to_a_chosen_file_and_format(results: Path, tmp_path: Path) -> None:
    written = plot(results, "link_power", output=tmp_path / "power.pdf")
    assert written == tmp_path / "power.pdf"
    assert written.read_bytes().startswith(b"%PDF")


def test_figure_labels_carry_units(results: Path) -> None:
    with open_results(results) as ds:
        fig = make_figure(ds, "body_position", {"body": "bob"})
        truth = ds.body_position.sel(body="bob").values
    ax = fig.axes[0]
    assert ax.get_xlabel() == "time [s]"
    assert ax.get_ylabel() == "position of the body COG, world axes [m]"
    assert ax.get_title() == "short-pendulum: body_position (body=bob)"
    assert [line.get_label() for line in ax.get_lines()] == ["x", "y", "z"]
    assert legend_title(ax) == "xyz"
    for k, line in enumerate(ax.get_lines()):
        np.testing.assert_allclose(np.asarray(line.get_xdata()), np.arange(21) * 0.01,
                                   rtol=0, atol=1e-12)
        np.testing.assert_array_equal(ydata(line), truth[:, k])


def test_one_dof_gets_its_own_units(results: Path) -> None:
    """``link_displacement`` is in m (tx ty tz) and rad (rx ry rz), as its coordinate
    ``link_displacement_units`` says: a selected rotation is in rad, several DOFs of
    different units are each labelled."""
    with open_results(results) as ds:
        rz = make_figure(ds, "link_displacement", {"dof": "rz"}).axes[0]
        tz = make_figure(ds, "link_displacement", {"dof": "tz", "link": "hinge"}).axes[0]
        both = make_figure(ds, "link_displacement", {"dof": ["rz", "tz"]}).axes[0]
        quat = make_figure(ds, "body_orientation").axes[0]
    assert rz.get_ylabel().endswith("[rad]")
    assert tz.get_ylabel().endswith("[m]")
    assert both.get_ylabel().endswith("[rz: rad; tz: m]")
    assert [line.get_label() for line in both.get_lines()] == ["hinge, rz", "hinge, tz"]
    assert quat.get_ylabel().endswith("[-]")  # units "1"
    # the swing: a 1 m pendulum released at 36.87 degrees turns about the pivot
    assert ydata(rz.get_lines()[0])[-1] < -0.05


def test_select_several_values_and_numbers(results: Path) -> None:
    with open_results(results) as ds:
        ax = make_figure(ds, "body_velocity", {"xyz": ["z", "x"], "body": "bob"}).axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["z", "x"]
    assert parse_select(["xyz=z", "body = bob", "xyz=x", "gravity.z=-1.62"]) == {
        "xyz": ["z", "x"], "body": "bob", "gravity.z": "-1.62"}


def test_plot_a_sweep_per_case(sweep: Path) -> None:
    """``stat="none"``: the time series of every case (by default the cases of a sweep
    are summarised, see tests/test_plot_sweep.py); one case selected needs no stat."""
    with open_results(sweep) as ds:
        ax = make_figure(ds, "link_displacement", {"dof": "rz"}, stat="none").axes[0]
        moon = make_figure(ds, "link_displacement", {"dof": "rz", "gravity_z": "-1.62"}
                           ).axes[0]
        second = make_figure(ds, "link_displacement", {"dof": "rz", "case": "1"}).axes[0]
    assert [line.get_label() for line in ax.get_lines()] == [
        f"gravity_z={g:g}, hinge" for g in GRAVITIES]
    assert legend_title(ax) == "case, link"
    # stronger gravity, faster swing
    finals = [ydata(line)[-1] for line in ax.get_lines()]
    assert np.argsort(finals).tolist() == [3, 0, 1, 2]
    assert [line.get_label() for line in moon.get_lines()] == ["hinge"]
    np.testing.assert_array_equal(ydata(moon.get_lines()[0]), ydata(ax.get_lines()[2]))
    np.testing.assert_array_equal(ydata(second.get_lines()[0]),
                                  ydata(ax.get_lines()[1]))
    assert plot(sweep, "body_position", {"xyz": "z"}, stat="none").stat().st_size > 0


# ---------------------------------------------------------------------- bad input


def test_missing_file(tmp_path: Path) -> None:
    for call in (lambda: describe(tmp_path / "nope.nc"),
                 lambda: plot(tmp_path / "nope.nc", "body_position")):
        with pytest.raises(FrylinksError) as exc:
            call()
        assert one_line(exc) == f"results file '{tmp_path / 'nope.nc'}' not found"
    with pytest.raises(FrylinksError, match="is not a file"):
        describe(tmp_path)


def test_not_a_netcdf_file(tmp_path: Path) -> None:
    for name, content in (("case.nc", CASE.encode()), ("empty.nc", b""),
                          ("fake.nc", b"\x89HDF\r\n\x1a\n" + b"\0" * 100)):
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(FrylinksError) as exc:
            describe(path)
        assert one_line(exc).startswith(f"'{path}' is not a netCDF file")


def test_a_netcdf_file_frylinks_did_not_write(tmp_path: Path) -> None:
    path = tmp_path / "other.nc"
    xr.Dataset({"a": ("x", np.arange(3.0))}).to_netcdf(path)
    with pytest.raises(FrylinksError) as exc:
        plot(path, "a")
    assert one_line(exc) == (f"'{path}' is a netCDF file but not a frylinks results file "
                             "(no global attribute 'frylinks_version' and no dimension 'time')")


def test_unknown_variable(results: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        plot(results, "body_postion")
    message = one_line(exc)
    assert message.startswith("unknown variable 'body_postion'; did you mean 'body_position'? "
                              "(variables: body_position, body_orientation, ")
    assert all(name in message for name in VARIABLES)


@pytest.mark.parametrize(("select", "expected"), [
    ({"bdy": "bob"}, "--select bdy: body_position has no dimension 'bdy'; did you mean "
                     "'body'? (accepted: body, xyz)"),
    ({"link": "hinge"}, "--select link: body_position has no dimension 'link' "
                        "(accepted: body, xyz)"),
    ({"time": "0.1"}, "--select time: time is the x axis of the plot; select on one of "
                      "body, xyz"),
    ({"body": "bobb"}, "--select body=bobb: no body 'bobb' in body_position; did you mean "
                       "'bob'? (accepted: bob)"),
    ({"xyz": ["x", "w"]}, "--select xyz=w: no xyz 'w' in body_position (accepted: x, y, z)"),
])
def test_unknown_dimension_or_value(results: Path, select: dict[str, Any],
                                    expected: str) -> None:
    with pytest.raises(FrylinksError) as exc:
        plot(results, "body_position", select)
    assert one_line(exc) == expected


def test_unknown_case(sweep: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        plot(sweep, "link_power", {"gravity_z": "-9.8"})
    assert one_line(exc) == ("--select gravity_z=-9.8: no gravity_z '-9.8' in link_power; "
                             "did you mean '-9.81'? (accepted: -9.81, -3.71, -1.62, -24.79)")


@pytest.mark.parametrize("item", ["body", "=bob", "body=", " = "])
def test_malformed_select(item: str) -> None:
    with pytest.raises(FrylinksError) as exc:
        parse_select(["xyz=z", item])
    assert one_line(exc) == f"--select {item!r}: expected DIM=VALUE, e.g. body=buoy or xyz=z"


def test_too_many_lines(sweep: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        plot(sweep, "link_displacement", stat="none")  # 4 cases x 6 DOFs
    assert one_line(exc) == (
        f"link_displacement: 24 lines to plot (at most {MAX_LINES}); choose some with "
        "--select DIM=VALUE, e.g. --select dof=tx")


def test_variable_without_time(sweep: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        plot(sweep, "peak_angle")
    assert one_line(exc) == ("peak_angle has no time dimension (dims: case, link): plot "
                             "draws variables against time")


def test_nothing_to_plot(results: Path) -> None:
    with pytest.raises(FrylinksError) as exc:
        plot(results, "force_force")
    assert one_line(exc) == "force_force: nothing to plot, the results have no force"


def test_bad_figure_file(results: Path, tmp_path: Path) -> None:
    with pytest.raises(FrylinksError, match=r"unknown format '\.xyz' \(accepted: .*\.png"):
        plot(results, "link_power", output=tmp_path / "fig.xyz")
    with pytest.raises(FrylinksError, match="no extension to tell the format"):
        plot(results, "link_power", output=tmp_path / "fig")
    with pytest.raises(FrylinksError, match=r"cannot write the figure .*No such file"):
        plot(results, "link_power", output=tmp_path / "missing" / "fig.png")


# ---------------------------------------------------------------------- command line


def frylinks_cmd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "frylinks", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_info(results: Path) -> None:
    proc = frylinks_cmd("info", str(results))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == describe(results) + "\n"
    assert proc.stderr == ""


def test_cli_plot(results: Path, tmp_path: Path) -> None:
    fig = tmp_path / "x.png"
    proc = frylinks_cmd("plot", str(results), "body_position", "--select", "body=bob",
                        "--select", "xyz=z", "-o", str(fig))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{fig}\n"
    assert fig.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(("args", "message"), [
    (["plot", "{r}", "body_postion"], "unknown variable 'body_postion'; did you mean"),
    (["plot", "{r}", "body_position", "--select", "body"], "--select 'body': expected DIM=VALUE"),
    (["info", "{r}.missing"], "results file '{r}.missing' not found"),
])
def test_cli_bad_input(results: Path, args: list[str], message: str) -> None:
    proc = frylinks_cmd(*(a.format(r=results) for a in args))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"frylinks: error: {message.format(r=results)}")
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
