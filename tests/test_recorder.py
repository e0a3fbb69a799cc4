"""A run's results made and written in a thread beside its step (frylinks.io.recorder):
the same Dataset and file as when made in the run's own thread, memory bounded, an
error of the thread raised in the run, and no thread where an observer runs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import xarray as xr

from frylinks import hookimpl
from frylinks.errors import FrylinksError
from frylinks.io import netcdf, recorder
from tests.test_netcdf import pendulum, read

NAME = "frylinks-recorder"


def _recorder_running() -> bool:
    return any(th.name == NAME for th in threading.enumerate())


class Watch:
    """A thread that looks, while a run goes, whether the recorder's thread runs, and
    calls ``also`` at each look (it touches no HDF5: see frylinks.io.recorder)."""

    def __init__(self, also: Callable[[], None] | None = None) -> None:
        self.seen = False
        self.also = also
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._look)

    def _look(self) -> None:
        while not self._done.wait(0.0005):
            self.seen = self.seen or _recorder_running()
            if self.also is not None:
                self.also()

    def __enter__(self) -> Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._done.set()
        self._thread.join()


def _run(tmp_path: Path, name: str) -> tuple[xr.Dataset, xr.Dataset, bool]:
    out = tmp_path / f"{name}.nc"
    with Watch() as watch:
        ds = pendulum().run(t_end=2.0, dt=0.01, every=3, output=out)
    assert ds.attrs["status"] == "completed"
    assert not _recorder_running()  # (ended with the run)
    return ds, read(out), watch.seen


def test_records_made_beside_the_step_equal_those_made_in_its_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same Dataset and file (the checkpoint included), bit for bit, with the
    records made in the recorder's thread, its queue bounded to one batch or not, its
    file written at every batch, and in the run's own thread."""
    monkeypatch.setattr(recorder, "BESIDE", False)
    inline_ds, inline_file, seen = _run(tmp_path, "inline")
    assert not seen
    monkeypatch.setattr(recorder, "BESIDE", True)
    beside_ds, beside_file, seen = _run(tmp_path, "beside")
    assert seen
    monkeypatch.setattr(recorder, "HELD_BYTES", 1)  # the step waits for every batch
    bounded_ds, bounded_file, seen = _run(tmp_path, "bounded")
    assert seen
    monkeypatch.setattr(recorder, "BESIDE_PACE", (0.0, 0.0))  # a write at each batch
    often_ds, often_file, seen = _run(tmp_path, "often")
    assert seen
    assert inline_ds.sizes["time"] == 67
    for ds in (beside_ds, bounded_ds, often_ds):
        xr.testing.assert_identical(ds, inline_ds)
    for back in (beside_file, bounded_file, often_file):
        xr.testing.assert_identical(back, inline_file)


def test_an_error_writing_the_file_beside_the_step_stops_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The results file removed again and again while the run writes it at every append
    (from the recorder's thread): the writer's error ends the run, and the thread."""
    monkeypatch.setattr(netcdf, "FLUSH_SECONDS", 0.0)
    monkeypatch.setattr(netcdf, "FLUSH_COST_RATIO", 0.0)
    monkeypatch.setattr(recorder, "BESIDE_PACE", (0.0, 0.0))
    out = tmp_path / "r.nc"

    def remove() -> None:
        if _recorder_running():
            out.unlink(missing_ok=True)

    with Watch(remove) as watch, \
            pytest.raises(FrylinksError, match="cannot write the results file"):
        pendulum().run(t_end=20.0, dt=0.01, every=3, output=out)
    assert watch.seen
    assert not _recorder_running()


def test_a_run_with_an_observer_records_in_its_own_thread(tmp_path: Path) -> None:
    """An observer may read the results file, which HDF5 cannot do beside a write:
    with one, no recorder thread runs (the observer reads the file at every sample)."""
    out = tmp_path / "r.nc"
    seen: list[bool] = []

    class Reads:
        @hookimpl
        def frylinks_step_completed(self, system: Any, t: float, state: Any) -> None:
            seen.append(_recorder_running())
            if out.exists():
                read(out)

    system = pendulum()
    system.registry.register(Reads(), name="reads")
    ds = system.run(t_end=2.0, dt=0.01, every=3, output=out)
    assert len(seen) == ds.sizes["time"] == 67
    assert not any(seen)


def test_outputs_made_in_python_keep_the_records_in_the_runs_thread() -> None:
    """MoorDyn's lines make their outputs in Python from the library's state, which the
    step moves on: their run records in its own thread; the point absorber's outputs
    all come in the compiled step's report, so its run records beside the step."""
    pytest.importorskip("moordyn")
    from frylinks import load_case
    from frylinks.engine import assemble
    from frylinks.io.results import Sampler

    cases = Path(__file__).parent.parent / "cases"
    moored = Sampler(assemble(load_case(cases / "moored_buoy_dynamic.yaml")))
    assert [moored.model.force_blocks[j].kind.name for j in moored.in_python] == ["moordyn"]
    assert not moored.batch_only
    absorber = Sampler(assemble(load_case(cases / "point_absorber.yaml")))
    assert absorber.in_python == frozenset() and absorber.batch_only
