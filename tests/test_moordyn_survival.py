"""A ``moordyn`` run survives like any: Ctrl-C, SIGTERM and ``kill -9`` of a real
``frylinks run`` keep every written step, ``--resume`` finishes it bit for bit (MoorDyn's
state comes back from the checkpoint), and ``frylinks sweep`` runs it on dask workers.

The case is the validation model of ``tests/validation/test_moordyn.py`` (a body on
hydrostatics held by two suspended MoorDyn lines) as a case file, so no new model is
compiled. As in ``tests/test_interrupt.py``, the tests wait for what the results file
shows, never for a time, and the case is far too long to end by itself.
"""

from __future__ import annotations

import signal
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import frylinks

from . import test_interrupt
from .test_interrupt import Start, load, wait_for_records

pytest.importorskip("moordyn")

CASE = """\
frylinks: 1
name: moordyn-survival
gravity: [0, 0, -9.81]
environment: {depth: 50.0, water_density: 1025.0}
bodies:
  buoy: {mass: 2.0e4, inertia: [1.0e5, 1.0e5, 1.0e5], velocity: [0.5, 0.0, 0.2]}
forces:
  hydrostatics:
    type: linear_hydrostatics
    body: buoy
    stiffness: {heave: 2.0e5, roll: 1.0e6, pitch: 1.0e6, yaw: 1.0e5}
  lines:
    type: moordyn
    body: buoy
    time_step: 1.25e-3
    line_types: {wire: {diameter: 0.05, mass: 50.0, axial_stiffness: 2.0e8}}
    lines:
      - {line_type: wire, anchor: [60.0, 0.0, -50.0], fairlead: [1.0, 0.0, 0.0],
         length: 80.0, segments: 10}
      - {line_type: wire, anchor: [-60.0, 0.0, -50.0], fairlead: [-1.0, 0.0, 0.0],
         length: 80.0, segments: 10}
solver: {t_end: 10000.0, dt: 0.02}   # never reached: every run here is stopped
output: {every: 2}
"""
#: Time between two records [s].
SAMPLE = 0.04


#: ``frylinks run`` in a subprocess, killed if a test leaves it going (the fixture of
#: tests/test_interrupt.py)
start = test_interrupt.start


@pytest.fixture
def case(tmp_path: Path) -> Path:
    path = tmp_path / "moordyn.yaml"
    path.write_text(CASE)
    return path


def assert_same(part: xr.Dataset, whole: xr.Dataset) -> None:
    """``part`` holds the first records of ``whole``, bit for bit."""
    n = part.sizes["time"]
    assert 0 < n <= whole.sizes["time"]
    for name in whole.data_vars:
        np.testing.assert_array_equal(part[name].values, whole[name].values[:n],
                                      err_msg=name)


def reference(case: Path, t_end: float) -> xr.Dataset:
    ds = frylinks.run(case, t_end=round(t_end / SAMPLE) * SAMPLE)
    assert ds.attrs["status"] == "completed"
    return ds


def resume_equals_uninterrupted(case: Path, start: Start, out: Path, part: xr.Dataset
                                ) -> None:
    """``frylinks run CASE --resume OUT`` finishes the interrupted run ``part`` 0.4 s on,
    and both equal the uninterrupted run bit for bit, step for step."""
    t_end = float(part.time[-1]) + 0.4
    proc = start(str(case), "--resume", str(out), "--t-end", f"{t_end:.2f}")
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    whole = load(out)
    assert whole.attrs["status"] == "completed"
    uninterrupted = reference(case, t_end)
    assert whole.sizes["time"] == uninterrupted.sizes["time"]
    assert_same(part, uninterrupted)
    assert_same(whole, uninterrupted)


@pytest.mark.parametrize(("sig", "why"), [(signal.SIGINT, ""), (signal.SIGTERM, " (SIGTERM)")])
def test_ctrl_c_sigterm_keep_every_step_and_resume_finishes_bit_for_bit(
        sig: signal.Signals, why: str, case: Path, start: Start, tmp_path: Path) -> None:
    out = tmp_path / "out.nc"
    proc = start(str(case), "-o", str(out))
    wait_for_records(out, proc, more_than=2)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    part = load(out)
    status = part.attrs["status"]
    assert status.startswith("interrupted at t=") and status.endswith(why)
    resume_equals_uninterrupted(case, start, out, part)


def test_kill_9_keeps_the_written_steps_and_resume_finishes_bit_for_bit(
        case: Path, start: Start, tmp_path: Path) -> None:
    out = tmp_path / "out.nc"
    proc = start(str(case), "-o", str(out))
    wait_for_records(out, proc, more_than=2)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    part = load(out)
    assert part.attrs["status"] == "running"
    resume_equals_uninterrupted(case, start, out, part)


def test_a_sweep_runs_moordyn_on_dask_workers(case: Path) -> None:
    """Two load cases (the body's mass) on a LocalCluster of worker processes: each equals
    the case run alone, bit for bit."""
    masses = [2.0e4, 2.4e4]
    ds = frylinks.sweep(case, {"bodies.buoy.mass": masses, "solver.t_end": [0.4]},
                        workers=2)
    assert ds.sizes["case"] == 2
    for k, mass in enumerate(masses):
        alone = frylinks.run(case, overrides={"bodies.buoy.mass": mass,
                                              "solver.t_end": 0.4})
        for name in ("body_position", "moordyn_fairlead_tension", "moordyn_node_position"):
            np.testing.assert_array_equal(ds[name][k].values, alone[name].values,
                                          err_msg=name)
