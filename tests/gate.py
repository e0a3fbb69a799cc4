"""A gate for the runs of other processes: a plugin that holds each run at its start
until the test lets it go.

A test that interrupts a sweep (Ctrl-C, a lost scheduler) must find it still running
once some cases are done, however fast the engine gets. Waiting for a time cannot
promise that; holding the cases can: the test lets them go one at a time and keeps at
least one held, so the sweep cannot end before the test stops it.

:meth:`Gate.environment` gives the environment of a process (``frylinks sweep``, a
``dask worker``) whose runs the gate holds: this file is installed there as the
distribution ``frylinks-test-gate`` (a module and a ``dist-info`` with an entry point of
the group ``frylinks``, on ``PYTHONPATH``), so frylinks finds it as it finds any plugin,
also in the dask worker processes the sweep starts. Each run then takes the next ticket
(``ticket-K``, a directory made atomically), waits for ``go-K`` (or ``open``) in the
gate's directory, and says when it has ended (``done-K``). Runs in the test's own
process never see the plugin. The results of a run held and let go are those of a run
never held: the plugin only observes.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

from frylinks import hookimpl

#: The environment variable naming the gate's directory (no gate without it).
ENV = "FRYLINKS_TEST_GATE"
#: The module and distribution names of the installed plugin.
MODULE, DISTRIBUTION = "frylinks_test_gate", "frylinks-test-gate"
#: A held run gives up after this long [s] (a test that died never opens its gate).
HOLD_SECONDS = 600.0

_ticket: list[int] = []  # the ticket of the run going on in this process (one at a time)


@hookimpl
def frylinks_run_started(system: Any, t_end: float, dt: float) -> None:
    """Take the next ticket and wait until the test lets it go."""
    directory = os.environ.get(ENV)
    if not directory:
        return
    gate = Path(directory)
    k = 0
    while True:
        try:
            (gate / f"ticket-{k}").mkdir()
            break
        except FileExistsError:
            k += 1
    _ticket[:] = [k]
    deadline = time.monotonic() + HOLD_SECONDS
    while not (gate / f"go-{k}").exists() and not (gate / "open").exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"run {k} held at the gate {gate} for {HOLD_SECONDS:g} s")
        time.sleep(0.01)


@hookimpl
def frylinks_run_finished(system: Any, status: str) -> None:
    """Say that the run of this process's ticket has ended."""
    directory = os.environ.get(ENV)
    if directory and _ticket:
        (Path(directory) / f"done-{_ticket.pop()}").touch()


class Gate:
    """The test's side: install the plugin, let runs go.

    Parameters
    ----------
    directory
        A new, empty directory for the gate's files and the installed plugin.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.site = directory / "site"
        self.site.mkdir(parents=True)
        shutil.copyfile(__file__, self.site / f"{MODULE}.py")
        info = self.site / f"{MODULE}-0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\n"
                                       "Version: 0\n")
        (info / "entry_points.txt").write_text(f"[frylinks]\ntest_gate = {MODULE}\n")
        self.released = 0

    def environment(self) -> dict[str, str]:
        """The environment of a process whose runs the gate holds."""
        path = os.pathsep.join(p for p in (str(self.site), os.environ.get("PYTHONPATH"))
                               if p)
        return {**os.environ, "PYTHONPATH": path, ENV: str(self.directory)}

    def let_one_go(self) -> None:
        """Let the next run go (the one with the next ticket, even if not yet started)."""
        (self.directory / f"go-{self.released}").touch()
        self.released += 1

    def ended(self, k: int) -> bool:
        """Whether run ``k`` (of the ``k``-th ticket) has ended."""
        return (self.directory / f"done-{k}").exists()

    def open(self) -> None:
        """Let every run go, now and later (cleanup: no process stays held)."""
        (self.directory / "open").touch()
