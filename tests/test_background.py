"""A new kind of model's step compiled by a child process while the run sets up.

The run under test is a separate interpreter, told to fork whenever it is safe (by
default, only when a core is idle, which the test suite's workers leave none of). It
keeps its steps, and their machine code, in a folder of its own, so its model is a new
kind there whatever ran before; the kernels' machine code is the suite's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import frylinks

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "cases" / "pendulum.yaml"

def _run_child(tmp_path: Path, integrator: str) -> dict:
    script = tmp_path / "run.py"
    script.write_text(
        "import json, sys\n"
        "from pathlib import Path\n"
        "from frylinks import kernel_cache\n"
        "from frylinks.engine import background, compose\n"
        "compose.cache_dir = kernel_cache.cache_dir = lambda: Path(sys.argv[1])\n"
        "children, steps = [], []\n"
        "start = background.start\n"
        "def spy(step, integrator, rho_inf):\n"
        "    start(step, integrator, rho_inf)\n"
        "    children.append(step.child)\n"
        "    steps.append(step)\n"
        "background.start = spy\n"
        "import frylinks\n"
        "ds = frylinks.run(sys.argv[2], t_end=0.3,\n"
        "                  overrides={'solver.integrator': sys.argv[3]})\n"
        "entry = {'rk4': 'advance_rk4', 'generalized_alpha': 'advance_ga'}[sys.argv[3]]\n"
        "stats = getattr(steps[0].module, entry).stats\n"
        "print(json.dumps({'child': children[0],\n"
        "                  'hits': sum(stats.cache_hits.values()),\n"
        "                  'misses': sum(stats.cache_misses.values()),\n"
        "                  'x': ds.body_position.values.tolist()}))\n")
    env = {**os.environ, "FRYLINKS_COMPILE_CHILD": "1"}
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "cache"), str(CASE),
                          integrator], capture_output=True, text=True, env=env, timeout=600,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                    reason="the child is forked on Linux, on a machine with a second core")
@pytest.mark.parametrize("integrator", ["rk4", "generalized_alpha"])
def test_a_child_compiles_a_new_kind_and_the_run_is_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, integrator: str) -> None:
    got = _run_child(tmp_path, integrator)
    # a child was forked, and the run loaded the step it compiled from the cache
    assert got["child"] is not None
    assert got["hits"] >= 1 and got["misses"] == 0
    monkeypatch.setenv("FRYLINKS_COMPILE_CHILD", "0")
    ref = frylinks.run(CASE, t_end=0.3, overrides={"solver.integrator": integrator})
    np.testing.assert_array_equal(np.array(got["x"]), ref.body_position.values)


class _FailingStep:
    """A step whose child fails at once (its build raises), as a stand-in for a run
    that is dropped before its first step."""

    child: int | None = None
    module = type("module", (), {"advance_rk4": None})

    def build(self) -> None:
        raise RuntimeError("not a step")


def _state(pid: int) -> str:
    """The process's state letter (``Z``: a zombie), or ``gone``."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_child_left_behind_by_a_dropped_step_is_reaped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from frylinks.engine import background

    monkeypatch.setattr(background, "_may_fork", lambda: True)
    monkeypatch.setattr(background, "on_disk", lambda dispatcher: False)
    step = _FailingStep()
    background.start(step, "rk4", 0.8)  # type: ignore[arg-type]
    pid = step.child
    assert pid is not None
    del step  # the run failed: nobody joins the child
    gc.collect()
    # wait until the child has exited, leaving it unreaped (a zombie)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    assert _state(pid) == "Z"
    background._reap()  # as the next run's start does
    assert _state(pid) == "gone"
    assert pid not in background._ABANDONED
