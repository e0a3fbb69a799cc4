"""Results that survive: Ctrl-C, SIGTERM and ``kill -9`` of a real ``frylinks run``.

Each test starts ``python -m frylinks run`` as a user does, waits until the results
file holds records, and stops the process with a real signal. The file must then be a
valid netCDF file holding a prefix of the uninterrupted run (equal to it, record for
record), saying how the run ended; ``--resume`` must finish the run so that the whole
file equals the uninterrupted run.

The tests wait for what the file shows, never for a time, and the case is far too long
to end by itself (``t_end`` 10,000 s: hours today, over a minute with steps 100 times
faster), so a signal sent once the file shows what the test waits for always finds the
run going. The uninterrupted run to compare with is run afterwards, only as far as the
interrupted one got; ``--resume`` is then given the end time (``--t-end``) of that
comparison.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import netCDF4
import numpy as np
import pytest
import xarray as xr

import frylinks

# a spinning rotor braked by a torsional spring (link unwrapping and force memory) and
# a pendulum pushed by a sine force; about 1.5 ms of wall time per step here, a record
# every 0.01 s
CASE = """\
frylinks: 1
name: interrupt-test
bodies:
  rotor:
    mass: 2.0
    inertia: [0.3, 0.3, 0.5]
    angular_velocity: [0, 0, 25.0]
  bob:
    mass: 1.0
    inertia: [1.0e-3, 1.0e-3, 1.0e-3]
    position: [3.6, 0, -0.8]
    nodes:
      hinge: {position: [-0.6, 0, 0.8], orientation: {axis: [1, 0, 0], angle_deg: 90}}
ground:
  nodes:
    pivot: {position: [3, 0, 0], orientation: {axis: [1, 0, 0], angle_deg: 90}}
links:
  axle: {type: revolute, master: ground, slave: rotor}
  hinge: {type: revolute, master: ground.pivot, slave: bob.hinge,
          spring_damper: {damping: 0.1}}
forces:
  brake: {type: torsional_spring_damper, master: ground, slave: rotor, stiffness: 0.5,
          damping: 0.05}
  push: {type: world_force, node: bob, force: [{type: sine, amplitude: 2.0, omega: 3.0}, 0, 0]}
solver: {t_end: 10000.0, dt: 0.002}   # never reached: every run here is stopped
output: {every: 5}
"""


#: Time between two records of the case [s] (dt * output.every).
SAMPLE = 0.01

Start = Callable[..., "subprocess.Popen[str]"]


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("interrupt") / "case.yaml"
    path.write_text(CASE)
    return path


def reference(case: Path, t_end: float) -> xr.Dataset:
    """The uninterrupted run to ``t_end`` (rounded to a whole record)."""
    ds = frylinks.run(case, t_end=round(t_end / SAMPLE) * SAMPLE)
    assert ds.attrs["status"] == "completed"
    return ds


@pytest.fixture
def start() -> Iterator[Start]:
    """Start ``frylinks run`` with the given arguments; runs left going when the test
    ends (it failed) are killed."""
    procs: list[subprocess.Popen[str]] = []

    def start(*args: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-m", "frylinks", "run", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def records(path: Path) -> int:
    """Records in the file now (0 while it does not exist or cannot be read).

    The writer replaces the file by a complete new one at each write (``os.replace``),
    so whatever is found at ``path`` is a closed netCDF file."""
    try:
        with netCDF4.Dataset(path) as ds:
            return len(ds.dimensions["time"])
    except (OSError, KeyError):
        return 0


def wait_for_records(path: Path, proc: subprocess.Popen[str], more_than: int = 0,
                     timeout: float = 120.0) -> int:
    """Wait until the file holds more than ``more_than`` records; return how many."""
    deadline = time.monotonic() + timeout
    while (n := records(path)) <= more_than:
        assert proc.poll() is None, f"the run ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, f"no more than {more_than} records written " \
                                            f"in {timeout:g} s"
        time.sleep(0.02)
    return n


def wait_for_a_write(path: Path, proc: subprocess.Popen[str], timeout: float = 30.0) -> bool:
    """Wait until a write is under way (its copy ``OUT.nc.part`` exists); False if the
    test never saw one (a write takes milliseconds: the test may miss all of them)."""
    part = path.with_name(path.name + ".part")
    deadline = time.monotonic() + timeout
    while not part.exists():
        assert proc.poll() is None, f"the run ended early: {proc.communicate()}"
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def load(path: Path) -> xr.Dataset:
    with xr.open_dataset(path) as ds:
        return ds.load()


def assert_prefix(part: xr.Dataset, whole: xr.Dataset) -> None:
    """``part`` holds the first records of ``whole``, equal to round-off."""
    n = part.sizes["time"]
    assert 0 < n <= whole.sizes["time"]
    np.testing.assert_array_equal(part.time, whole.time[:n])
    for name in whole.data_vars:
        x = whole[name].values[:n]
        scale = max(1.0, float(np.nanmax(np.abs(x))))
        np.testing.assert_allclose(part[name].values, x, rtol=0, atol=1e-12 * scale,
                                   err_msg=name)


@pytest.mark.parametrize(("sig", "why"), [(signal.SIGINT, ""), (signal.SIGTERM, " (SIGTERM)")])
def test_ctrl_c_and_sigterm_keep_every_step(sig: signal.Signals, why: str, case: Path,
                                            start: Start, tmp_path: Path) -> None:
    out = tmp_path / "out.nc"
    proc = start(str(case), "-o", str(out))
    wait_for_records(out, proc)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    assert stdout.startswith("interrupted at t=")
    part = load(out)
    status = part.attrs["status"]
    assert status.startswith("interrupted at t=") and status.endswith(why)
    t_stop = float(status.split("t=")[1].split()[0])
    assert t_stop == pytest.approx(float(part.time[-1]), abs=1e-6)  # the last record kept
    assert_prefix(part, reference(case, t_stop + SAMPLE))
    assert not out.with_name(out.name + ".part").exists()


def test_kill_9_leaves_a_valid_file_and_resume_completes_it(case: Path, start: Start,
                                                             tmp_path: Path) -> None:
    """Three ``kill -9`` at different moments, each followed by ``--resume``: as soon
    as the run has written records, while a write is under way (if the test sees one,
    else between writes), and once the resumed run has written twice. A last
    ``--resume`` with an end time completes the run."""
    out = tmp_path / "out.nc"
    seen = 0
    parts = []
    for moment in ("first write", "during a write", "second write"):
        proc = start(str(case), "-o", str(out)) if not parts else \
            start(str(case), "--resume", str(out))
        n = wait_for_records(out, proc, more_than=seen)  # a write of this run
        if moment == "during a write":
            wait_for_a_write(out, proc)
        elif moment == "second write":
            wait_for_records(out, proc, more_than=n)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        part = load(out)  # a valid file, whatever the moment of the kill
        assert part.attrs["status"] == "running"  # nobody could say otherwise
        assert part.sizes["time"] >= seen
        parts.append(part)
        seen = part.sizes["time"]
    # resumed once more, the run goes a little further, to an end
    t_end = float(parts[-1].time[-1]) + 0.5
    proc = start(str(case), "--resume", str(out), "--t-end", f"{t_end:.2f}")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert stdout.startswith("completed: ")
    whole = load(out)
    assert whole.attrs["status"] == "completed"
    assert not out.with_name(out.name + ".part").exists()
    uninterrupted = reference(case, t_end)
    assert whole.sizes["time"] == uninterrupted.sizes["time"]
    assert_prefix(whole, uninterrupted)
    for part in parts:
        assert_prefix(part, uninterrupted)


def test_resume_of_a_diverged_run_says_so_again(tmp_path: Path) -> None:
    """A diverged run resumed diverges again, from where it stopped (no silent restart)."""
    case = tmp_path / "stiff.yaml"
    case.write_text("frylinks: 1\nbodies:\n  m: {mass: 1.0, inertia: [1, 1, 1]}\n"
                    "links:\n  s: {type: prismatic, master: ground, slave: m,\n"
                    "      spring_damper: {stiffness: 1.0e9, rest: 1.0}}\n"
                    "solver: {t_end: 2.0, dt: 0.01}\n")
    out = tmp_path / "stiff.nc"
    first = subprocess.run([sys.executable, "-m", "frylinks", "run", str(case)],
                           capture_output=True, text=True, timeout=60)
    assert first.returncode == 1 and first.stdout.startswith("diverged at t=")
    again = subprocess.run([sys.executable, "-m", "frylinks", "run", str(case), "--resume",
                            str(out)], capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and again.stdout.startswith("diverged at t="), again.stderr
    assert load(out).attrs["status"].startswith("diverged at t=")
