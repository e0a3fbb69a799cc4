"""A new kind of model's step compiled by a child process while the run goes on
interpreted (:mod:`frylinks.engine.background`, :mod:`frylinks.interpreted`).

The run under test is a separate interpreter, told to fork whenever it is safe (by
default, never in one of the test suite's workers). It keeps its steps, and their
machine code, in a folder of its own, so its model is a new kind there whatever ran
before; the kernels' machine code is the suite's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import frylinks

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "cases" / "pendulum.yaml"

#: Compiled, not on the interpreted tier of the rest of the suite (tests/conftest.py).
pytestmark = pytest.mark.compiled

SCRIPT = """
import json, sys
from pathlib import Path
from numba.core import event
from frylinks import kernel_cache
from frylinks.engine import background, compose

compose.cache_dir = kernel_cache.cache_dir = lambda: Path(sys.argv[1])
compiled = []
class Compiles(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        compiled.append(str(ev.data["dispatcher"]))
event.register("numba:compile", Compiles())
children, steps, calls = [], [], {"interpreted": 0, "compiled": 0}
start = background.start
def spy(step, entry, first_call):
    start(step, entry, first_call)
    children.append(step.child)
    steps.append(step)
background.start = spy
entry = compose.CompiledStep.entry
def spy_entry(self, name):
    fn = entry(self, name)
    calls["compiled" if hasattr(fn, "py_func") else "interpreted"] += 1
    return fn
compose.CompiledStep.entry = spy_entry
import xarray as xr
from frylinks.cli import main
case = Path(sys.argv[1]).parent / "case.yaml"
text = Path(sys.argv[2]).read_text()
assert "integrator: rk4" in text  # (the integrator under test is set below)
case.write_text(text.replace("integrator: rk4", f"integrator: {sys.argv[3]}"))
out = Path(sys.argv[1]).parent / "out.nc"
how = ["--resume", str(out)] if sys.argv[4:] == ["resume"] else ["-o", str(out)]
assert main(["run", str(case), *how, "--t-end", "0.3"]) == 0
ds = xr.load_dataset(out)
name = {'rk4': 'advance_rk4', 'generalized_alpha': 'advance_ga'}[sys.argv[3]]
stats = getattr(steps[0].module, name).stats
print(json.dumps({'child': children[0], 'calls': calls, 'compiled': compiled,
                  'hits': sum(stats.cache_hits.values()),
                  'misses': sum(stats.cache_misses.values()),
                  'x': ds.body_position.values.tolist()}))
"""


def _run(tmp_path: Path, integrator: str, *args: str, **env_vars: str) -> dict:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "FRYLINKS_COMPILE_CHILD": "1", **env_vars}
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "cache"), str(CASE),
                          integrator, *args], capture_output=True, text=True, env=env,
                         timeout=600, check=True)
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "stderr": out.stderr}


def _wait_gone(pid: int, timeout: float = 600.0) -> None:
    """Wait until process ``pid`` (not this one's child) has ended."""
    end = time.monotonic() + timeout
    while _state(pid) not in ("gone", "Z"):
        assert time.monotonic() < end, f"the compiling child {pid} is still running"
        time.sleep(0.2)


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2
                    or not Path("/proc/self/stat").exists(),
                    reason="the child is forked on Linux, on a machine with a second core")
@pytest.mark.parametrize("integrator", [
    "rk4",
    # (the same mechanism for the other entry; its child's compile costs 25 s more)
    pytest.param("generalized_alpha", marks=pytest.mark.slow)])
def test_a_new_kind_runs_interpreted_while_a_child_compiles_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, integrator: str) -> None:
    monkeypatch.setenv("FRYLINKS_COMPILE_CHILD", "0")
    ref = frylinks.run(CASE, t_end=0.3, overrides={"solver.integrator": integrator})
    first = _run(tmp_path, integrator)
    # a child was forked, and the run did not wait for it: it began interpreted and
    # compiled nothing itself
    assert first["child"] is not None
    assert first["calls"]["interpreted"] >= 1
    assert first["misses"] == 0 and not first["compiled"]
    assert "note: a new kind of model" in first["stderr"]  # (frylinks run tells)
    # the same numbers as compiled, to round-off (bit for bit with rk4 here)
    np.testing.assert_allclose(np.array(first["x"]), ref.body_position.values,
                               rtol=0.0, atol=1e-12)
    # the child outlives the run until it has compiled the step: the next run of this
    # kind forks nothing, loads the step and compiles nothing
    _wait_gone(first["child"])
    second = _run(tmp_path, integrator)
    assert second["child"] is None
    assert second["calls"] == {"interpreted": 0, "compiled": second["calls"]["compiled"]}
    assert second["hits"] >= 1 and second["misses"] == 0 and not second["compiled"]
    assert "note:" not in second["stderr"]
    np.testing.assert_array_equal(np.array(second["x"]), ref.body_position.values)


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                    reason="the child is forked on Linux, on a machine with a second core")
@pytest.mark.parametrize("how", ["run", "resume"])
def test_a_second_run_waits_for_the_child_compiling_its_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """While another process holds the lock of a step's compile (a first run's child),
    a run of that kind forks no second compiler: it goes on interpreted. So does the
    ``--resume`` of an interrupted first run (issue 22: it started a second compiler)."""
    from frylinks import kernel_cache
    from frylinks.engine import assemble, background, compose, step_source

    monkeypatch.setattr(compose, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(kernel_cache, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(compose, "_LOADED", {})  # (a step module loaded from elsewhere)
    model = assemble(frylinks.load_case(str(CASE)))
    module = compose.load_step(*step_source.generate(model))  # (the script's step, by its key)
    if how == "resume":  # (the first run's file, cut short: the script's case, 0.1 s)
        case = tmp_path / "case.yaml"
        case.write_text(CASE.read_text())
        with monkeypatch.context() as m:  # (as Python: this process compiles nothing)
            m.setenv("FRYLINKS_INTERPRET", "1")
            m.setenv("FRYLINKS_COMPILE_CHILD", "0")
            frylinks.run(case, tmp_path / "out.nc", t_end=0.1)
    held = background._lock(f"{module.__file__}.advance_rk4.lock")
    assert held is not None
    try:
        got = _run(tmp_path, "rk4", *(["resume"] if how == "resume" else []))
    finally:
        os.close(held)
    assert got["child"] is None
    assert got["calls"]["interpreted"] >= 1 and not got["compiled"]


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                    reason="the child is forked on Linux, on a machine with a second core")
def test_compiles_of_other_kinds_share_the_machines_slots(tmp_path: Path) -> None:
    """With every compile slot of the machine taken (another run's child compiling
    another kind), a run of a new kind forks no compiler of its own: it goes on
    interpreted, says why, compiles nothing itself and lets its step's lock go at its
    end (the next run of the kind compiles it)."""
    from frylinks.engine import background

    folder = tmp_path / "cache" / "compiling"
    folder.mkdir(parents=True)
    held = background._lock(str(folder / "slot-0.lock"))
    assert held is not None
    try:
        got = _run(tmp_path, "rk4", FRYLINKS_COMPILE_SLOTS="1")
    finally:
        os.close(held)
    assert got["child"] is None
    assert got["calls"]["interpreted"] >= 1 and not got["compiled"]
    assert "compile(s) of other kinds of model already run on this machine: this run " \
           "goes on interpreted" in got["stderr"]
    steps = list((tmp_path / "cache" / "steps").glob("*.advance_rk4.lock"))
    assert steps and not background._locked(str(steps[0]))


class _FailingStep:
    """A step whose child fails at once (its build raises), as a stand-in for a run
    that fails before its first step."""

    child: int | None = None
    borrowed: str | None = None

    def __init__(self, folder: Path) -> None:
        self.module = type("module", (), {"advance_rk4": None,
                                          "__file__": str(folder / "step.py")})

    def build(self) -> None:
        raise RuntimeError("not a step")


def _state(pid: int) -> str:
    """The process's state letter (``Z``: a zombie), or ``gone``."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_child_left_behind_by_a_failed_run_is_reaped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from frylinks.engine import background

    monkeypatch.setattr(background, "_may_fork", lambda: True)
    monkeypatch.setattr(background, "on_disk", lambda dispatcher: False)
    step = _FailingStep(tmp_path)
    background.start(step, "advance_rk4", lambda s: None)  # type: ignore[arg-type]
    pid = step.child
    assert pid is not None
    background.release()  # the run failed: its end hands the child over, unjoined
    # wait until the child has exited, leaving it unreaped (a zombie)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    assert _state(pid) == "Z"
    background._reap()  # as the next run's start does
    assert _state(pid) == "gone"
    assert pid not in background._ABANDONED


def test_a_wait_for_a_compile_is_said_every_few_seconds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that waits (its kernels reach what only runs compiled, or no compile slot is
    free) prints a line every SAY_EVERY seconds: a cold moored_buoy_dynamic was silent
    for 131 s."""
    from types import SimpleNamespace

    from frylinks.engine import background

    said: list[str] = []
    monkeypatch.setattr(background, "SAY", [said.append])
    monkeypatch.setattr(background, "SAY_EVERY", 0.05)
    step: Any = SimpleNamespace(waited=None)  # (the one attribute _wait_said uses)
    background._wait_said(step, "the compile")   # the wait begins: nothing said yet
    assert not said
    time.sleep(0.06)
    background._wait_said(step, "the compile")
    background._wait_said(step, "the compile")   # (not again before SAY_EVERY)
    assert len(said) == 1 and said[0].startswith("waiting for the compile: 0 s")
