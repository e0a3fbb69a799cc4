"""Results streamed to netCDF: the file is the returned Dataset, readable while a run goes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import netCDF4
import numpy as np
import pytest
import xarray as xr

import frylinks
from frylinks.engine import Model, assemble
from frylinks.engine.checkpoint import take
from frylinks.io import netcdf
from frylinks.io.netcdf import StreamWriter
from frylinks.io.results import VARIABLES, Sampler


def pendulum() -> frylinks.System:
    """A pendulum pushed by a sine force: bodies, links and forces all non-empty."""
    system = frylinks.System(gravity=[0, 0, -9.81], name="pendulum-test")
    system.ground.add_node("pivot", orientation={"axis": [1, 0, 0], "angle_deg": 90})
    bob = system.add_body("bob", mass=1.0, inertia=[1e-3] * 3, position=[0.6, 0, -0.8])
    bob.add_node("hinge", position=[-0.6, 0, 0.8],
                 orientation={"axis": [1, 0, 0], "angle_deg": 90})
    system.add_link("hinge", "revolute", master="ground.pivot", slave="bob.hinge",
                    spring_damper={"damping": 0.1})
    system.add_force("push", "world_force", node="bob",
                     force=[{"type": "sine", "amplitude": 2.0, "omega": 3.0}, 0, 0])
    return system


def read(path: Path) -> xr.Dataset:
    """The file's contents, loaded, with the file closed again."""
    with xr.open_dataset(path) as ds:
        return ds.load()


def test_streamed_file_equals_returned_dataset(tmp_path: Path) -> None:
    out = tmp_path / "out.nc"
    system = pendulum()
    system.case_text = "frylinks: 1  # the case text"
    ds = system.run(t_end=0.3, dt=0.01, every=2, output=out)
    assert ds.attrs["status"] == "completed"
    back = read(out)
    xr.testing.assert_allclose(back, ds, rtol=1e-15, atol=0)
    assert back.sizes == {"time": 16, "body": 1, "link": 1, "force": 1, "xyz": 3, "quat": 4,
                          "dof": 6, "rpy": 3, "pto": 1}   # (its hinge is damped: a PTO)
    assert float(np.abs(back.force_force.sel(xyz="x")).max()) > 0.5  # the sine is there
    for name, var in VARIABLES.items():
        assert back[name].dims == var.dims
        assert back[name].attrs["units"] == var.units
        assert back[name].attrs["long_name"] == var.long_name
    assert back.time.attrs["units"] == "s"
    assert back.time.dtype == np.float64  # seconds, not decoded to timedeltas
    for dim, labels in {"body": ["bob"], "link": ["hinge"], "force": ["push"],
                        "xyz": ["x", "y", "z"], "quat": ["w", "x", "y", "z"],
                        "dof": ["tx", "ty", "tz", "rx", "ry", "rz"],
                        "rpy": ["roll", "pitch", "yaw"],
                        "link_spring_force_units": ["N"] * 3 + ["N m"] * 3}.items():
        assert dim in back.coords and list(back[dim].values) == labels
    assert back.attrs["status"] == "completed"
    assert back.attrs["title"] == "pendulum-test"
    assert back.attrs["frylinks_version"] == frylinks.__version__
    assert back.attrs["integrator"] == "rk4"
    assert back.attrs["dt"] == 0.01
    assert back.attrs["case"] == "frylinks: 1  # the case text"
    assert back.attrs["Conventions"].startswith("CF-")


def test_a_run_kept_out_of_memory_returns_the_file(tmp_path: Path) -> None:
    """``in_memory=False`` keeps no sample in memory: the Dataset returned reads the
    file, and holds the same numbers as a run kept in memory."""
    kept = pendulum().run(t_end=0.3, dt=0.01, every=2)
    out = tmp_path / "out.nc"
    with pendulum().run(t_end=0.3, dt=0.01, every=2, output=out, in_memory=False) as lazy:
        assert lazy.encoding["source"] == str(out)  # read from the file ...
        assert lazy.attrs["status"] == "completed"
        for name in kept.data_vars:  # ... the same numbers
            np.testing.assert_array_equal(lazy[name].values, kept[name].values)


def test_file_is_compressed_and_chunked_along_time(tmp_path: Path) -> None:
    out = tmp_path / "out.nc"
    pendulum().run(t_end=0.02, dt=0.01, output=out)
    with netCDF4.Dataset(out) as nc:
        assert nc.data_model == "NETCDF4"
        assert nc.dimensions["time"].isunlimited()
        for name in VARIABLES:
            filters = nc[name].filters()
            assert filters["zlib"] and filters["complevel"] == 1 and not filters["shuffle"]
            assert nc[name].chunking() != "contiguous"


def test_empty_links_and_forces(tmp_path: Path) -> None:
    """A free-falling body: the link and force dimensions have length 0."""
    out = tmp_path / "fall.nc"
    system = frylinks.System(gravity=[0, 0, -10.0])
    system.add_body("ball", mass=2.0, inertia=[1, 1, 1])
    ds = system.run(t_end=0.1, dt=0.05, output=out)
    back = read(out)
    assert back.sizes["link"] == 0 and back.sizes["force"] == 0
    assert back.link_displacement.shape == (3, 0, 6)
    np.testing.assert_allclose(back.body_position.sel(body="ball", xyz="z"),
                               [0.0, -0.0125, -0.05], rtol=1e-12)
    xr.testing.assert_allclose(back.body_position, ds.body_position)


def _model() -> Model:
    return assemble(pendulum())


def _records(model: Model, n: int) -> list[tuple[float, dict[str, np.ndarray]]]:
    """``n`` samples told apart by their body position."""
    base = Sampler(model).sample(model.initial)
    out = []
    for i in range(n):
        sample = {k: v.copy() for k, v in base.items()}
        sample["body_position"][:] = i
        out.append((0.01 * i, sample))
    return out


def _write_at_every_append(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netcdf, "FLUSH_SECONDS", 0.0)
    monkeypatch.setattr(netcdf, "FLUSH_COST_RATIO", 0.0)


def _covered(writer: StreamWriter, model: Model, samples: int) -> None:
    """Tell the writer a checkpoint covers the first ``samples`` records."""
    writer.checkpoint(take(model, model.initial, samples))


def test_records_reach_the_file_while_the_run_goes(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "stream.nc"
    model = _model()
    writer = StreamWriter(out, model, {"title": "stream", "status": "completed"})
    assert read(out).attrs["status"] == "running"  # readable at once, and says so
    _write_at_every_append(monkeypatch)
    records = _records(model, 12)
    for i, (t, sample) in enumerate(records[:10]):
        _covered(writer, model, i + 1)
        writer.append(t, sample)
    during = read(out)  # xarray opens the file while the writer is still going
    assert during.attrs["status"] == "running"
    assert during.sizes["time"] == 10
    np.testing.assert_array_equal(during.body_position.sel(body="bob", xyz="y"), np.arange(10))
    for t, sample in records[10:]:  # no checkpoint covers these: they wait for close()
        writer.append(t, sample)
    assert read(out).sizes["time"] == 10
    with netCDF4.Dataset(out) as nc:
        assert nc["checkpoint"].getncattr("samples") == 10
    writer.close("interrupted at t=0.11")
    after = read(out)
    assert after.sizes["time"] == 12
    assert after.attrs["status"] == "interrupted at t=0.11"
    np.testing.assert_allclose(after.time, 0.01 * np.arange(12))
    assert not writer.path.with_name(writer.path.name + ".part").exists()


def test_records_wait_for_the_flush_interval(tmp_path: Path) -> None:
    out = tmp_path / "slow.nc"
    model = _model()
    writer = StreamWriter(out, model, {"title": "slow"})
    (t0, s0), (t1, s1) = _records(model, 2)
    writer.append(t0, s0)
    _covered(writer, model, 2)
    writer.append(t1, s1)  # well within a second of the creation: buffered
    assert read(out).sizes["time"] == 0
    time.sleep(netcdf.FLUSH_SECONDS + 0.05)
    writer.append(t1 + 0.01, s1)  # due now: the two covered records are written
    assert read(out).sizes["time"] == 2
    assert 0 < writer._cost < netcdf.FLUSH_SECONDS
    writer.close("completed")
    assert read(out).sizes["time"] == 3


def test_a_reader_holding_the_file_does_not_stop_the_writer(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """The writer replaces the file; a reader keeps reading the version it opened."""
    out = tmp_path / "held.nc"
    model = _model()
    writer = StreamWriter(out, model, {"title": "held"})
    _write_at_every_append(monkeypatch)
    reader = subprocess.Popen(
        [sys.executable, "-c",
         f"import netCDF4; d = netCDF4.Dataset({str(out)!r}); print('open', flush=True);"
         " input(); print(len(d['time']), d.getncattr('status'), flush=True); d.close()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdin is not None
        assert reader.stdout.readline().strip() == "open"
        for i, (t, sample) in enumerate(_records(model, 5)):
            _covered(writer, model, i + 1)
            writer.append(t, sample)
        assert writer.nb_written == 5  # not held back by the reader
        assert read(out).sizes["time"] == 5
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert reader.stdout.readline().split() == ["0", "running"]  # its own snapshot
    finally:
        reader.wait(timeout=30)
    writer.close("completed")
    assert read(out).attrs["status"] == "completed"


def test_a_checkpoint_ahead_of_its_record_is_not_written(tmp_path: Path) -> None:
    """Ctrl-C between the integrator's checkpoint and the hand-over of its sample: the
    file keeps the checkpoint before it, so a resumed run recomputes that sample."""
    out = tmp_path / "race.nc"
    model = _model()
    writer = StreamWriter(out, model, {"title": "race"})
    records = _records(model, 3)
    for i, (t, sample) in enumerate(records[:2]):
        _covered(writer, model, i + 1)
        writer.append(t, sample)
    _covered(writer, model, 3)  # ... and the interruption comes before append()
    writer.close("interrupted at t=0.01")
    with netCDF4.Dataset(out) as nc:
        assert len(nc["time"]) == 2
        assert nc["checkpoint"].getncattr("samples") == 2


def test_a_stale_part_file_is_replaced(tmp_path: Path) -> None:
    """What a write killed half-way leaves beside the file does not disturb the next run."""
    out = tmp_path / "r.nc"
    (tmp_path / "r.nc.part").write_bytes(b"half a file")
    pendulum().run(t_end=0.05, dt=0.01, output=out)
    assert read(out).sizes["time"] == 6
    assert not (tmp_path / "r.nc.part").exists()


def test_diverged_run_keeps_its_steps_and_says_why(tmp_path: Path) -> None:
    """A spring far too stiff for the step: rk4 blows up; the file keeps what was done."""
    out = tmp_path / "diverged.nc"
    system = frylinks.System()
    system.add_body("mass", mass=1.0, inertia=[1, 1, 1])
    system.add_link("spring", "prismatic", master="ground", slave="mass",
                    spring_damper={"stiffness": 1e9})
    with np.errstate(all="ignore"):
        ds = system.run(t_end=2.0, dt=0.01, output=out)
    back = read(out)
    assert back.attrs["status"].startswith("diverged at t=")
    assert back.attrs["status"] == ds.attrs["status"]
    assert 1 < back.sizes["time"] == ds.sizes["time"] < 201
    np.testing.assert_array_equal(back.time, ds.time)


def test_a_runaway_adaptive_run_stops_as_diverged(tmp_path: Path) -> None:
    """dop853 on a rod pulled by 1e9 m s-2: its step collapses; without a floor it would
    take millions of steps per output interval (minutes to hours) instead of stopping."""
    system = frylinks.System(gravity=[1.0e9, 0, -9.81])
    system.ground.add_node("top", orientation={"axis": [1, 0, 0], "angle_deg": 90})
    system.add_body("rod", mass=1.0, inertia=[0.1, 0.1, 0.01], position=[0, 0, -1])
    system.add_link("rope", "rigid_link", master="ground.top", slave="rod", length=1.0)
    out = tmp_path / "runaway.nc"
    ds = system.run(t_end=0.03, dt=0.005, integrator="dop853", output=out)
    assert ds.attrs["status"].startswith("diverged at t=")
    assert "the adaptive step fell to" in ds.attrs["status"]
    assert read(out).attrs["status"] == ds.attrs["status"]


def test_append_after_close_is_refused(tmp_path: Path) -> None:
    model = _model()
    writer = StreamWriter(tmp_path / "x.nc", model, {})
    writer.close("completed")
    writer.close("completed")  # a second close does nothing
    (t, sample), = _records(model, 1)
    with pytest.raises(frylinks.FrylinksError, match="already closed"):
        writer.append(t, sample)


def test_unwritable_path_is_a_frylinks_error(tmp_path: Path) -> None:
    with pytest.raises(frylinks.FrylinksError, match="cannot create the results file"):
        StreamWriter(tmp_path / "no" / "such" / "dir.nc", _model(), {})


def test_a_missing_output_folder_is_named(tmp_path: Path) -> None:
    """Not HDF5's "Permission denied": the folder that is not there, before the run."""
    out = tmp_path / "nowhere" / "run.nc"
    done = subprocess.run([sys.executable, "-m", "frylinks", "run",
                           str(Path(__file__).resolve().parents[1] / "cases" / "pendulum.yaml"),
                           "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"frylinks: error: cannot create the results file "
                                   f"'{out}': the folder '{out.parent}' does not exist "
                                   "(create it first)")
