"""A new kind of model's step compiled in a second process while this one sets it up.

numba compiles in one thread and holds the interpreter while it does. The first run of a
new kind of model compiles two things that do not depend on each other: the kernels the
setup calls from Python (the projection of the initial state onto the links) and the
model's step with the kernels it calls. On a machine with a second core, a child forked
after the step's module is generated compiles the step, which numba caches on disk, while
the parent sets the model up; the parent then waits for the child and loads the step
from the cache. A cold ``frylinks run cases/pendulum.yaml`` took 42 s in one process
and takes about 32 s so (docs/compiled.md).

The child only compiles: it steps nothing (a report of no step), opens no file, writes
nothing but numba's cache (atomically, as numba does for concurrent processes) and
leaves with ``os._exit``. Nothing is forked when the step is cached already, on one
core or a busy machine, outside the main thread or when other threads run (a dask
worker, a notebook's kernel); see :func:`_may_fork`. When the child fails, the parent compiles the
step itself, as it would have without it (and reports any error then).
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from typing import TYPE_CHECKING

from ..kernel_cache import on_disk

if TYPE_CHECKING:
    from .compose import CompiledStep


def _may_fork() -> bool:
    """Whether forking is safe (one thread) and worth it. ``FRYLINKS_COMPILE_CHILD``:
    ``0`` never, ``1`` whenever safe (on Linux); unset: unless every core is busy (the 1-minute
    load average within half a core of their number) or the process is one of
    pytest-xdist's workers, which fill the cores: there a second compiler would only
    share them and compile again the kernels both need."""
    want = os.environ.get("FRYLINKS_COMPILE_CHILD", "")
    cores = os.cpu_count() or 1
    if want == "0" or not sys.platform.startswith("linux") or cores < 2:
        # (macOS's system libraries are not safe to use in a forked child)
        return False
    if threading.current_thread() is not threading.main_thread() or \
            threading.active_count() > 1:
        return False
    if want == "1":
        return True
    return "PYTEST_XDIST_WORKER" not in os.environ and os.getloadavg()[0] < cores - 0.5


def _child_setup() -> None:
    """Silence the child and have it die with its parent (a killed run leaves no
    compiler behind)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass


def start(step: CompiledStep, integrator: str, rho_inf: float) -> None:
    """Fork a child that compiles the entry of ``integrator`` (``rk4`` or
    ``generalized_alpha``) of ``step``, unless it is cached or forking is not safe."""
    entry = {"rk4": "advance_rk4", "generalized_alpha": "advance_ga"}.get(integrator)
    if entry is None or step.child is not None or on_disk(getattr(step.module, entry)):
        return
    _reap()
    if not _may_fork():
        return
    pid = os.fork()
    if pid:
        step.child = pid
        # a run that fails before its first step never joins the child: once the step
        # is dropped, the child is reaped when it is done (not waited for)
        weakref.finalize(step, _ABANDONED.append, pid)
        return
    code = 1
    try:  # the child
        _child_setup()
        step.build()
        s = step.model.initial.copy()
        if integrator == "rk4":
            step.advance_rk4(s, 0, 0, 0.0, s.t)
        else:
            from ..implicit import CompiledStepper

            CompiledStepper(step, rho_inf).report(s)
        code = 0
    except BaseException:  # (the parent compiles the step and reports the error)
        pass
    finally:
        os._exit(code)


#: Children of steps dropped without a join (their run failed), to be reaped.
_ABANDONED: list[int] = []


def _reap() -> None:
    """Reap the abandoned children that are done (a finished child left unreaped stays
    in the process table as a zombie until this process ends)."""
    for pid in list(_ABANDONED):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped already
            done = pid
        if done:
            _ABANDONED.remove(pid)


def join(step: CompiledStep) -> None:
    """Wait for ``step``'s compiling child, if any (its step is then in the cache)."""
    pid, step.child = step.child, None
    if pid is not None:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # reaped elsewhere
            pass
