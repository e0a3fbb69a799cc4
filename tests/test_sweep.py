"""Load-case sweeps on dask.distributed (``frylinks sweep``, :func:`frylinks.sweep`).

The reference for every case is the same case run alone with ``frylinks.run`` from a
case file whose values were edited as text (not through the sweep's key paths): the
sweep must give the same numbers, bit for bit, case by case. A case with a negative
mass fails, one with a stiff spring diverges under rk4, and the others are kept.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import netCDF4
import numpy as np
import pytest
import xarray as xr

import frylinks
from frylinks.errors import CaseError, FrylinksError
from frylinks.io.info import describe
from frylinks.io.loadcases import LoadCaseError, Sweep, parse_values, split_key
from frylinks.io.netcdf import FLUSH_SECONDS

from .gate import Gate

ROOT = Path(__file__).resolve().parents[1]
BUOY = ROOT / "cases" / "heaving_buoy.yaml"
#: the values of the buoy's text the sweeps replace
MASS_TEXT, STIFFNESS_TEXT = "mass: 1000.0", "stiffness: 4.0e4"
#: -1 kg fails (a mass must be > 0); 4e9 N/m diverges under rk4 at dt 0.01 s
#: (omega dt = 20, far beyond rk4's limit of 2.8)
MASSES = [-1.0, 800.0, 1000.0, 1200.0]
STIFFNESSES = [2.0e4, 4.0e4, 8.0e4, 4.0e9]
T_END = 0.5


def edited_case(directory: Path, mass: float, stiffness: float) -> Path:
    """The buoy with mass and stiffness replaced in its text."""
    text = BUOY.read_text()
    assert text.count(MASS_TEXT) == 1 and text.count(STIFFNESS_TEXT) == 1
    text = text.replace(MASS_TEXT, f"mass: {mass!r}").replace(STIFFNESS_TEXT,
                                                               f"stiffness: {stiffness!r}")
    path = directory / f"buoy_{mass:g}_{stiffness:g}.yaml"
    path.write_text(text)
    return path


def cases_done(out: Path) -> int:
    """The cases ``out`` says are done (0 while it does not exist or cannot be read)."""
    try:
        with netCDF4.Dataset(out) as nc:
            return int(np.sum(np.asarray(nc["status"][:]) != "pending"))
    except (OSError, IndexError):
        return 0


def let_cases_go(proc: subprocess.Popen[str], out: Path, gate: Gate, n: int,
                 most: int = 6, seconds: float = 240.0) -> None:
    """Let the cases of the sweep run by ``proc`` (held by ``gate``) go one at a time
    until ``out`` shows ``n`` cases done; at most ``most`` go, the others stay held, so
    the sweep is still running when this returns, however fast the cases run.

    A case goes once the one before has ended and the sweep has had the time to write
    it: the sweep writes its file at most every ``FLUSH_SECONDS`` and keeps the cases
    that end in between in memory until the next case ends (none would, all held).
    """
    deadline = time.monotonic() + seconds
    ended_at: float | None = None  # when the test saw the last case let go end
    while cases_done(out) < n:
        assert proc.poll() is None, f"the sweep ended with cases held: {proc.communicate()}"
        assert time.monotonic() < deadline, f"{out} shows fewer than {n} cases done " \
                                            f"after {seconds:g} s ({gate.released} let go)"
        if gate.released == 0:
            gate.let_one_go()
        elif gate.released < most and gate.ended(gate.released - 1):
            ended_at = ended_at or time.monotonic()
            if time.monotonic() - ended_at >= 1.5 * FLUSH_SECONDS:
                gate.let_one_go()
                ended_at = None
        time.sleep(0.05)


@contextmanager
def stopped(proc: subprocess.Popen[str], gate: Gate) -> Iterator[None]:
    """On the way out (a failed test), no process is left running or held."""
    try:
        yield
    finally:
        gate.open()
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()


@pytest.fixture(scope="module")
def cluster() -> Any:
    """A LocalCluster of 2 single-threaded worker processes, shared by the tests that
    reach a scheduler by address."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as c:
        yield c


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, xr.Dataset]:
    """The 16-case sweep (mass x stiffness) on the default LocalCluster of 2 workers."""
    out = tmp_path_factory.mktemp("sweep") / "matrix.nc"
    ds = frylinks.sweep(BUOY, {"bodies.buoy.mass": MASSES,
                               "links.pto.spring_damper.stiffness": STIFFNESSES},
                        out, workers=2, t_end=T_END)
    return out, ds


def test_sixteen_cases_match_the_cases_run_one_by_one(
        matrix: tuple[Path, xr.Dataset], tmp_path: Path) -> None:
    out, ds = matrix
    assert ds.sizes["case"] == 16
    # C order: the last key varies fastest
    np.testing.assert_array_equal(ds["bodies.buoy.mass"], np.repeat(MASSES, 4))
    np.testing.assert_array_equal(ds["links.pto.spring_damper.stiffness"],
                                  np.tile(STIFFNESSES, 4))
    assert ds.attrs["status"] == "completed"
    assert ds["bodies.buoy.mass"].attrs["units"] == "kg"
    assert ds["links.pto.spring_damper.stiffness"].attrs["units"] == "N m-1"
    with xr.open_dataset(out) as disk:
        xr.testing.assert_identical(disk.load(), ds)
    completed = diverged = failed = 0
    for i in range(16):
        mass, stiffness = MASSES[i // 4], STIFFNESSES[i % 4]
        status = str(ds["status"][i].values)
        if mass < 0:
            failed += 1
            assert status.startswith("failed: ")
            assert "bodies.buoy.mass: must be > 0, got -1" in status
            assert "swept value bodies.buoy.mass = -1.0" in status
            assert np.isnan(ds["body_position"][i]).all()
            assert ds["wall_time"][i] > 0  # the failed read took time on its worker
            continue
        alone = frylinks.run(edited_case(tmp_path, mass, stiffness), t_end=T_END)
        assert status == alone.attrs["status"]
        n = alone.sizes["time"]
        assert alone["time"].values.tolist() == ds["time"].values[:n].tolist()
        for name in alone.data_vars:
            np.testing.assert_array_equal(ds[name][i, :n].values, alone[name].values,
                                          err_msg=f"case {i} {name}")
        # after a divergence, the sweep holds no number the run did not give
        assert np.isnan(ds["body_position"][i, n:]).all()
        if status == "completed":
            completed += 1
            assert n == ds.sizes["time"]
        else:
            diverged += 1
            assert stiffness == 4.0e9 and status.startswith("diverged at t=")
    assert (completed, diverged, failed) == (9, 3, 4)
    assert (ds["wall_time"][4:] > 0).all()


def test_info_of_a_sweep(matrix: tuple[Path, xr.Dataset]) -> None:
    text = describe(matrix[0])
    assert "16 (9 completed, 3 diverged, 4 failed)" in text
    assert "bodies.buoy.mass" in text


def test_in_memory_and_by_address(cluster: Any, matrix: tuple[Path, xr.Dataset]) -> None:
    """No output file: the same Dataset; a scheduler given by its address."""
    ds = frylinks.sweep(BUOY, {"bodies.buoy.mass": "800:1200:3",
                               "links.pto.spring_damper.stiffness": "[2e4, 8e4, 2e4]"},
                        zip=True, scheduler=cluster.scheduler_address, t_end=T_END)
    assert ds.sizes["case"] == 3
    np.testing.assert_array_equal(ds["bodies.buoy.mass"], [800.0, 1000.0, 1200.0])
    np.testing.assert_array_equal(ds["links.pto.spring_damper.stiffness"], [2e4, 8e4, 2e4])
    reference = matrix[1]
    # (800, 2e4) is case 4 of the matrix, (1200, 2e4) case 12
    for mine, theirs in ((0, 4), (2, 12)):
        for name in ("body_position", "link_power", "link_reaction_force"):
            np.testing.assert_array_equal(ds[name][mine], reference[name][theirs])
    assert list(ds["status"].values) == ["completed"] * 3


def test_a_sweep_section_in_the_case_file(cluster: Any, tmp_path: Path) -> None:
    """The case file's ``sweep`` section, a key added from the command line, units."""
    case = tmp_path / "buoy.yaml"
    case.write_text(BUOY.read_text() + "\nsweep:\n  set:\n"
                    "    links.pto.spring_damper.damping: {start: 1000, stop: 3000, count: 3}\n"
                    "    solver.t_end: [0.2, 0.4]\n  zip: false\n")
    ds = frylinks.sweep(case, {"forces.waves.force[2].omega": [4.0]},
                        scheduler=cluster.scheduler_address)
    assert ds.sizes["case"] == 6
    np.testing.assert_array_equal(ds["links.pto.spring_damper.damping"],
                                  np.repeat([1000.0, 2000.0, 3000.0], 2))
    np.testing.assert_array_equal(ds["solver.t_end"], np.tile([0.2, 0.4], 3))
    assert ds["solver.t_end"].attrs["units"] == "s"
    # cases of different lengths share the longer grid; the short ones end in NaN
    assert ds["time"].values[-1] == pytest.approx(0.4)
    short = ds["body_position"][0].isel(body=0, xyz=2).values
    assert np.isfinite(short[ds["time"].values <= 0.2 + 1e-12]).all()
    assert np.isnan(short[ds["time"].values > 0.2 + 1e-12]).all()
    alone = frylinks.run(case, overrides={"links.pto.spring_damper.damping": 3000.0,
                                          "solver.t_end": 0.4,
                                          "forces.waves.force[2].omega": 4.0})
    np.testing.assert_array_equal(ds["body_position"][5].values, alone["body_position"].values)
    # the run of the same file ignores its sweep section
    assert frylinks.run(case, t_end=0.1).sizes["time"] == 6


def test_an_interrupted_sweep_resumes(tmp_path: Path) -> None:
    """Ctrl-C during a sweep keeps the finished cases; --resume runs only the others and
    the file then equals an uninterrupted sweep.

    The interrupted sweep's cases are held at a gate (:mod:`tests.gate`) and let go one
    by one until the file shows two done; two cases stay held, so Ctrl-C finds the sweep
    running however fast a case runs. The resumed sweep is not held."""
    out = tmp_path / "s.nc"
    gate = Gate(tmp_path / "gate")
    args = [sys.executable, "-m", "frylinks", "sweep", str(BUOY), "--workers", "2",
            "--set", "links.pto.spring_damper.damping=1000:4000:8", "--t-end", "1", "-o",
            str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=gate.environment())
    with stopped(proc, gate):
        let_cases_go(proc, out, gate, 2, most=6)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    with xr.open_dataset(out) as ds:
        kept = ds.load()
    assert kept.attrs["status"].startswith("interrupted (")
    statuses = [str(s) for s in kept["status"].values]
    finished = [i for i, s in enumerate(statuses) if s != "pending"]
    assert 2 <= len(finished) <= gate.released
    assert all(statuses[i] == "completed" for i in finished)
    assert f"interrupted ({len(finished)} of 8 cases done" in stdout
    assert "resumable" in describe(out)

    resumed = subprocess.run([sys.executable, "-m", "frylinks", "sweep", str(BUOY),
                              "--workers", "2", "--set",
                              "links.pto.spring_damper.damping=1000:4000:8", "--t-end", "1",
                              "--resume", str(out)],
                             capture_output=True, text=True, timeout=240)
    assert resumed.returncode == 0, resumed.stderr
    with xr.open_dataset(out) as ds:
        whole = ds.load()
    assert whole.attrs["status"] == "completed"
    assert list(whole["status"].values) == ["completed"] * 8
    # the cases finished before the interruption were not run again
    np.testing.assert_array_equal(whole["wall_time"][finished], kept["wall_time"][finished])
    pending = [i for i in range(8) if i not in finished]
    for i in (finished[0], pending[0], pending[-1]):
        damping = 1000.0 + i * 3000.0 / 7
        alone = frylinks.run(BUOY, t_end=1.0,
                             overrides={"links.pto.spring_damper.damping": damping})
        np.testing.assert_array_equal(whole["body_position"][i], alone["body_position"])

    # resuming with other values is refused, naming both
    again = subprocess.run([sys.executable, "-m", "frylinks", "sweep", str(BUOY), "--set",
                            "links.pto.spring_damper.damping=1000:4000:4", "--t-end", "2",
                            "--resume", str(out)], capture_output=True, text=True, timeout=60)
    assert again.returncode == 2
    assert "cannot resume from" in again.stderr and "same values" in again.stderr


def _scheduler_address(info: Path, deadline: float) -> str:
    """The address in dask's scheduler file, once written whole (the file appears before
    its contents: reading it at once may find it empty)."""
    while True:
        try:
            return str(json.loads(info.read_text())["address"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_a_lost_scheduler_leaves_the_cases_left_pending(tmp_path: Path) -> None:
    """A scheduler started with dask's own CLI, killed during the sweep: the finished
    cases are kept, the others stay pending for --resume, the sweep says why. The
    worker's cases are held at a gate until one is done, and some stay held: the sweep
    is still running when its scheduler dies."""
    bindir = Path(sys.executable).parent
    dask_cli = str(bindir / "dask") if (bindir / "dask").exists() else "dask"
    info = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([dask_cli, "scheduler", "--scheduler-file", str(info),
                                  "--no-dashboard", "--port", "0"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker: subprocess.Popen[bytes] | None = None
    sweep: subprocess.Popen[str] | None = None
    gate = Gate(tmp_path / "gate")
    try:
        deadline = time.monotonic() + 60
        address = _scheduler_address(info, deadline)
        worker = subprocess.Popen([dask_cli, "worker", address, "--nworkers", "1",
                                   "--nthreads", "1", "--no-dashboard"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env=gate.environment())
        out = tmp_path / "s.nc"
        sweep = subprocess.Popen(
            [sys.executable, "-m", "frylinks", "sweep", str(BUOY), "--set",
             "links.pto.spring_damper.damping=1000:4000:8", "--t-end", "2", "--scheduler",
             address, "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        let_cases_go(sweep, out, gate, 1, most=6)
        scheduler.kill()
        stdout, stderr = sweep.communicate(timeout=120)
    finally:
        gate.open()  # a worker left behind does not stay held
        for proc in (scheduler, worker):
            if proc is not None:
                proc.kill()
                proc.wait()
        if sweep is not None and sweep.poll() is None:
            sweep.kill()
            sweep.communicate()
    assert sweep is not None and sweep.returncode == 1, stderr
    assert "Traceback" not in stderr
    with xr.open_dataset(out) as ds:
        statuses = [str(s) for s in ds["status"].values]
        status = ds.attrs["status"]
    finished = sum(s == "completed" for s in statuses)
    assert 1 <= finished <= gate.released < 8
    assert statuses.count("pending") == 8 - finished
    assert status == f"interrupted ({finished} of 8 cases done: the connection to the dask " \
                     "scheduler was lost)"
    assert stdout.startswith(status)


@pytest.mark.parametrize(("values", "message"), [
    ({}, "nothing to sweep in"),
    ({"bodies.bouy.mass": [1.0]}, r"bodies.bouy.mass: the case has no 'bouy' in bodies; did "
                                  r"you mean 'buoy'\?"),
    ({"links.pto.spring_damper.stiffness[0]": [1.0]},
     r"links.pto.spring_damper.stiffness is not a list"),
    ({"bodies.buoy.mass": "1:2"}, r"a range is start:stop:count"),
    ({"bodies.buoy.mass": []}, r"expected a list of values"),
    ({"bodies..mass": [1.0]}, r"is not a key path"),
    ({"solver.t_end": [1.0, 2.0]}, r"solver.t_end is swept: a t_end given for every case "
                                   r"would replace its values"),
    # a key path the link's type does not take, and values the case refuses all of: no
    # case could run (one refused value among good ones fails its cases alone)
    ({"links.pto.damping": [1e5, 2e5]}, r"links.pto.damping: unknown key 'damping' "
                                        r"\(accepted: master, slave, spring_damper, type\)"),
    ({"bodies.buoy.mass": [-1.0, -2.0]}, r"bodies.buoy.mass: .*swept value bodies.buoy.mass "
                                         r"= -1.0"),
])
def test_sweep_errors_before_anything_runs(values: dict[str, Any], message: str,
                                            tmp_path: Path) -> None:
    with pytest.raises(FrylinksError, match=message):
        frylinks.sweep(BUOY, values, tmp_path / "x.nc", scheduler="tcp://127.0.0.1:1",
                       t_end=1.0)
    assert not (tmp_path / "x.nc").exists()


def test_a_t_end_given_for_every_case_must_be_whole_steps(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match=r"solver.t_end: t_end = 0.333 s is not a whole "
                                        r"number of steps dt = 0.01 s \(t_end = 0.333 given"):
        frylinks.sweep(BUOY, {"bodies.buoy.mass": [1000.0]}, tmp_path / "x.nc", t_end=0.333)
    assert not (tmp_path / "x.nc").exists()


def test_workers_are_for_a_local_cluster(tmp_path: Path) -> None:
    with pytest.raises(FrylinksError, match="workers sets the size of a LocalCluster"):
        frylinks.sweep(BUOY, {"bodies.buoy.mass": [1000.0]}, tmp_path / "x.nc",
                       scheduler="tcp://127.0.0.1:9", workers=2)


def test_zip_needs_lists_of_one_length() -> None:
    with pytest.raises(FrylinksError, match="zip pairs the values of every key, so each "
                                            "needs as many: a has 2, b has 3"):
        Sweep({"a": [1, 2], "b": [1, 2, 3]}, zip=True).cases()


def test_an_unreachable_scheduler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("frylinks.io.sweeps.CONNECT_SECONDS", 1.0)
    with pytest.raises(FrylinksError, match=r"cannot reach the dask scheduler at "
                                            r"'tcp://127.0.0.1:9'"):
        frylinks.sweep(BUOY, {"bodies.buoy.mass": [1000.0]}, tmp_path / "x.nc",
                       scheduler="tcp://127.0.0.1:9", t_end=0.1)
    # the file holds the case, pending, and says why the sweep stopped
    with xr.open_dataset(tmp_path / "x.nc") as ds:
        assert list(ds["status"].values) == ["pending"]
        assert ds.attrs["status"].startswith("interrupted (0 of 1 cases done: cannot reach")


@pytest.mark.parametrize(("text", "values"), [
    ("1:2:3", [1.0, 1.5, 2.0]),
    ("1e5:4e5:4", [1e5, 2e5, 3e5, 4e5]),
    ("5:5:1", [5.0]),
    ("1e5,2e5,4e5", [1e5, 2e5, 4e5]),
    ("jonswap, pierson_moskowitz", ["jonswap", "pierson_moskowitz"]),
    ("[[0, 0, 1], [0, 0, 2]]", [[0, 0, 1], [0, 0, 2]]),
    ("true,false", [True, False]),
    ("3", [3]),
])
def test_values(text: str, values: list[Any]) -> None:
    assert parse_values(text) == values


@pytest.mark.parametrize(("text", "message"), [
    ("1:2", "a range is start:stop:count"),
    ("1:2:x", "a range is start:stop:count"),
    ("1:2:0", "count must be a whole number from 1"),
    ("1:2:1", "one value cannot span 1 to 2"),
    ("1,,2", "value 2 is empty"),
    ("[1, 2", "cannot read the values"),
    (".nan,1", "value 1 is nan"),
    ("[]", "expected a list of values"),
])
def test_bad_values(text: str, message: str) -> None:
    with pytest.raises(LoadCaseError, match=message):
        parse_values(text)


def test_key_paths() -> None:
    assert split_key("forces.waves.force[2].omega") == ["forces", "waves", "force", 2,
                                                        "omega"]
    for bad in ("a..b", ".a", "a.", "a[x]", "[0]", "a b", ""):
        with pytest.raises(LoadCaseError):
            split_key(bad)


@pytest.mark.parametrize(("section", "message"), [
    ("sweep: 3", r"sweep: expected the keys set and zip, got 3"),
    ("sweep: {sett: {}}", r"sweep.sett: unknown key; did you mean 'set'\?"),
    ("sweep: {set: {}}", r"sweep.set: expected a mapping of key paths"),
    ("sweep: {set: {bodies.buoy.mas: [1]}, zip: 1}", r"sweep.zip: expected true or false"),
    ("sweep: {set: {bodies.buoy.mas.x: [1]}}",
     r"sweep.set.bodies.buoy.mas.x: bodies.buoy.mas.x: the case has no 'mas'"),
    ("sweep: {set: {bodies.buoy.mass: {start: 1, stop: 2}}}", r"missing: count"),
    ("sweep: {set: {bodies.buoy.mass: 3}}", r"expected a list of values or a range"),
    ("sweep: {set: {a: [1, 2], b: [1]}, zip: true}", r"zip pairs the values"),
])
def test_sweep_section_errors(tmp_path: Path, section: str, message: str) -> None:
    case = tmp_path / "buoy.yaml"
    case.write_text(BUOY.read_text() + "\n" + section + "\n")
    with pytest.raises(CaseError, match=message):
        frylinks.load_case(str(case))


def test_a_swept_value_the_case_refuses_is_named(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match=r"links.pto.spring_damper.damping: .*swept value "
                                        r"links.pto.spring_damper.damping = 'soft'"):
        frylinks.run(BUOY, overrides={"links.pto.spring_damper.damping": "soft"})


def test_a_swept_key_path_mistake_exits_2_before_anything_runs(tmp_path: Path) -> None:
    """docs/sweeps.md's promise: the command refuses the input (exit 2, one line, no
    traceback) and starts no cluster."""
    out = tmp_path / "x.nc"
    bad = subprocess.run([sys.executable, "-m", "frylinks", "sweep", str(BUOY), "--set",
                          "links.pto.damping=1e5:2e5:2", "-o", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2, bad.stderr
    assert "links.pto.damping: unknown key 'damping'" in bad.stderr
    assert "Traceback" not in bad.stderr and "failed" not in bad.stdout
    assert not out.exists()


def test_resume_needs_a_sweep_file(tmp_path: Path) -> None:
    run = tmp_path / "run.nc"
    frylinks.run(BUOY, run, t_end=0.05)
    with pytest.raises(FrylinksError, match="not the results of a sweep"):
        frylinks.sweep(BUOY, {"bodies.buoy.mass": [1.0]}, run, resume=True)
    with pytest.raises(FrylinksError, match="no results file"):
        frylinks.sweep(BUOY, {"bodies.buoy.mass": [1.0]}, tmp_path / "none.nc", resume=True)


def test_the_sweep_definition_is_stored(matrix: tuple[Path, xr.Dataset]) -> None:
    stored = json.loads(matrix[1].attrs["sweep"])
    assert stored == {"set": {"bodies.buoy.mass": MASSES,
                              "links.pto.spring_damper.stiffness": STIFFNESSES},
                      "zip": False, "t_end": T_END}


def test_swept_units_are_udunits_strings() -> None:
    """A swept parameter's units become its coordinate's ``units`` attribute: a UDUNITS
    string ('degree', not 'deg'), or none for a parameter documented with several units
    (a 6x6 matrix 'N m-1, N m rad-1')."""
    from frylinks.io.sweeps import swept_units

    system = frylinks.load_case(str(Path(__file__).resolve().parents[1] / "cases"
                                    / "point_absorber.yaml"))
    units = swept_units(system, ["environment.waves.tp", "environment.waves.heading_deg",
                            "forces.hydrostatics.stiffness",
                            "links.pto.spring_damper.damping"])
    assert units == {"environment.waves.tp": "s", "environment.waves.heading_deg": "degree",
                     "links.pto.spring_damper.damping": "N s m-1"}
