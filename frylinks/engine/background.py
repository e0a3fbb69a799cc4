"""A new kind of model's step compiled in a second process while this one runs it
interpreted.

numba compiles in one thread and holds the interpreter while it does: about 35 s for a
new kind of model on a 2-core machine, for a run that may then take a second. On a
machine with a second core, a child forked after the step's module is generated
compiles the step's entry, which numba caches on disk. Meanwhile the run goes on in this
process on the interpreted tier (:mod:`frylinks.interpreted`): the same step and
kernels run as Python, with the same numbers. Between two calls of the step, the run
switches to the compiled entry as soon as its machine code is in the cache
(:func:`compiling` turns False). A cold ``frylinks run cases/pendulum.yaml`` took 42 s
in one process and 32 s waiting for the child; it now takes about 5 s
(docs/compiled.md).

When the run is over (:func:`release`), the kernels it ran interpreted from Python (the
set-up, the outputs) are handed to the child, which compiles them too and leaves: the
next run of the same kind of model starts compiled. The child outlives a short run by
the time this takes (half a minute for the pendulum, at low priority); it writes nothing
but numba's cache (atomically, as numba does for concurrent processes) and leaves with
``os._exit``.

One process compiles a step at a time: the child holds a lock beside the step's source
while it works, and a run of the same new kind started meanwhile (the user's second
try, a minute after the first) forks no second compiler but goes on interpreted until
that child's machine code is in the cache (:attr:`CompiledStep.borrowed`).

Compiles of different kinds share the machine: at most :func:`slots` children compile
at once (the cores but one, the runs' own), machine-wide, each holding a slot lock in the
cache folder. A run that finds every slot taken forks none: it goes on interpreted and
forks its child as soon as a slot is free (:attr:`CompiledStep.queued`), so a loop over
new cases (the README's) keeps the load at the cores' count instead of piling up
compilers. A run that waits for a compile says so every :data:`SAY_EVERY` seconds
(:data:`SAY`, which ``frylinks run`` points at its standard error).

Nothing is forked when the entry is cached already, on one core or a busy machine,
outside the main thread or when other threads run (a dask worker, a notebook's kernel);
see :func:`_may_fork`. The run waits for the child instead of going on interpreted
when ``FRYLINKS_WAIT_FOR_COMPILE=1`` (or :data:`WAIT`, as ``frylinks cache --build``
sets it), or when the model's kernels reach something that only exists compiled
(:func:`frylinks.interpreted.interpretable`). When the child fails, the parent compiles
the step itself, as it would have without it (and reports any error then).
"""

from __future__ import annotations

import atexit
import fcntl
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from frylinks import interpreted, kernel_cache
from frylinks.kernel_cache import on_disk

if TYPE_CHECKING:
    from frylinks.engine.compose import CompiledStep

#: Wait for the child's compile rather than run interpreted meanwhile (set by
#: ``frylinks cache --build``: it wants everything compiled).
WAIT = [False]
#: How often a waiting run looks whether the child's entry is in the cache [s].
POLL = 0.02
#: Where a run that waits for a compile says so (a line of text), or None: silent.
#: ``frylinks run`` prints to its standard error.
SAY: list[Callable[[str], None] | None] = [None]
#: A wait is said after this long, and again every this long [s].
SAY_EVERY = 10.0


def slots() -> int:
    """How many compile children may run at once on this machine: the cores but one
    (the runs themselves use one), at least one; ``FRYLINKS_COMPILE_SLOTS`` sets it."""
    given = os.environ.get("FRYLINKS_COMPILE_SLOTS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    return max(1, (os.cpu_count() or 1) - 1)


def _slot() -> int | None:
    """An open file holding one of the machine's compile slots, or None if all are
    taken (by other processes' compile children)."""
    folder = kernel_cache.cache_dir() / "compiling"
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(slots()):
        fd = _lock(str(folder / f"slot-{k}.lock"))
        if fd is not None:
            return fd
    return None


def _say(text: str) -> None:
    say = SAY[0]
    if say is not None:
        say(text)


def _may_fork() -> bool:
    """Whether forking is safe (one thread, on Linux) and worth it.
    ``FRYLINKS_COMPILE_CHILD``: ``0`` never, ``1`` whenever safe; unset: unless the
    process is one of pytest-xdist's workers, which fill the cores (a second compiler
    there would only share them)."""
    want = os.environ.get("FRYLINKS_COMPILE_CHILD", "")
    cores = os.cpu_count() or 1
    if want == "0" or not sys.platform.startswith("linux") or cores < 2:
        # (macOS's system libraries are not safe to use in a forked child)
        return False
    if threading.current_thread() is not threading.main_thread() or \
            threading.active_count() > 1:
        return False
    return want == "1" or "PYTEST_XDIST_WORKER" not in os.environ


def _waiting() -> bool:
    """Whether runs wait for their compile rather than go on interpreted."""
    return WAIT[0] or os.environ.get("FRYLINKS_WAIT_FOR_COMPILE") == "1"


#: Calls of a step's entry the current (or last) run made interpreted.
INTERPRETED_CALLS = [0]


def begin() -> None:
    """A run starts: until :func:`release`, the kernels it calls from Python run
    interpreted if they are not in the cache, when a child can compile them."""
    release()  # (an earlier run's child, if any)
    _reap()
    INTERPRETED_CALLS[0] = 0
    if not _waiting() and _may_fork():
        interpreted.interpreting(True)


def _child_setup(keep: tuple[int, ...]) -> None:
    """Silence the child; let it finish its compile when the terminal's Ctrl-C stops the
    run or the terminal closes (it is in the run's process group: SIGINT and SIGHUP
    reach it too; SIGTERM, a batch system's, still ends it); and close every file it
    inherited but ``keep`` (its pipe, its lock): a test's or a shell's pipe it held
    would keep them waiting for it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def _lock(path: str) -> int | None:
    """An open file holding the exclusive lock on ``path``, or None if another process
    holds it (a compile of the same step going on)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _locked(path: str) -> bool:
    """Whether another process holds the lock on ``path``."""
    fd = _lock(path)
    if fd is None:
        return True
    os.close(fd)
    return False


#: Steps whose compile waits for a slot, each holding its step's lock (:func:`release`
#: lets them go when the run is over: the next run of the kind compiles it).
_QUEUED: list[CompiledStep] = []
#: The compile locks this process holds (a compile child, its step's).
_HELD: set[str] = set()
#: The live children's pipes (pid -> the end this process writes).
_PIPES: dict[int, int] = {}


def start(step: CompiledStep, entry: str, first_call: Callable[[CompiledStep], None]) -> None:
    """Fork a child that compiles the entry ``entry`` (``advance_rk4``, ``advance_ga``)
    of ``step`` by making ``first_call(step)`` (the integrator's, which calls it once),
    unless it is cached or forking is not safe; the run goes on interpreted meanwhile if
    the tier is on (:func:`begin`) and the step can run so."""
    if interpreted.forced():  # (nothing compiles: the run goes on interpreted)
        return
    if step.child is not None or on_disk(getattr(step.module, entry)):
        return
    _reap()
    if not _may_fork():
        return
    step.interpret = interpreted.active() and interpreted.interpretable(
        [getattr(step.module, entry)])
    # one compile of a step at a time: a second run of the new kind, started while the
    # first one's child still compiles, waits for that child (interpreted meanwhile)
    lock = f"{step.module.__file__}.{entry}.lock"
    held = _lock(lock)
    if held is None:
        step.borrowed = lock
        return
    step.queued = (entry, first_call, lock, held)
    _QUEUED.append(step)
    if not _fork_queued(step):
        _say(f"{slots()} compile(s) of other kinds of model already run on this machine: "
             "this run goes on interpreted and compiles its own when one is done")


def _fork_queued(step: CompiledStep) -> bool:
    """Fork the child of ``step``'s queued compile if a compile slot is free; whether it
    was forked."""
    assert step.queued is not None
    slot = _slot()
    if slot is None:
        return False
    _, first_call, lock, held = step.queued
    step.queued = None
    _QUEUED.remove(step)

    def compile_entry() -> None:
        _HELD.add(lock)  # (this child holds it: its own compile must not wait for it)
        step.build()
        first_call(step)

    pid = _fork(compile_entry, (held, slot))
    os.close(held)  # (the child holds the locks until it leaves)
    os.close(slot)
    step.child = pid
    return True


def _fork(work: Callable[[], None] | None, locks: tuple[int, ...] = ()) -> int:
    """Fork a child that does ``work`` (compiles an entry), then compiles the kernels
    :func:`release` names and leaves, keeping the files ``locks`` open (its step's lock,
    its compile slot); return its pid."""
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(read)
        _PIPES[pid] = write
        return pid
    code = 1
    try:  # the child
        os.close(write)
        _child_setup((read, *locks))
        interpreted.interpreting(False)  # (it compiles)
        interpreted.recorded()
        if work is not None:
            work()
        code = 0
        _compile_recorded(read)
    except BaseException:  # (the parent compiles the step and reports the error)
        pass
    finally:
        os._exit(code)


def _compile_recorded(read: int) -> None:
    """In the child, once its entry is compiled: wait for the run to end (the pipe
    closed), then compile the kernels it ran interpreted from Python (listed in the
    file the pipe names), each on its own (one that fails is skipped)."""
    said = b""
    while chunk := os.read(read, 4096):
        said += chunk
    if not said:
        return
    os.nice(10)  # (the run is over: the machine is the user's again)
    path = said.decode()
    try:
        with open(path, "rb") as f:
            records = pickle.load(f)
    finally:
        os.unlink(path)
    for module, qualname, argtypes in records:
        try:
            target: Any = sys.modules[module]
            for part in qualname.split("."):
                target = getattr(target, part)
            target.compile(argtypes)
        except Exception:  # (compiled when next needed)
            continue


#: Children whose pipe is closed (:func:`_close`: at the end of every run, failed or
#: not): nobody waits for them; reaped once done.
_ABANDONED: list[int] = []


def _reap() -> None:
    """Reap the children that are done and that nobody waits for (a finished child left
    unreaped stays in the process table as a zombie until this process ends)."""
    for pid in list(_ABANDONED):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped already
            done = pid
        if done:
            _ABANDONED.remove(pid)


def _exited(pid: int) -> bool:
    """Whether child ``pid`` has ended (reaped here if so)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done != 0


def compiling(step: CompiledStep, entry: str) -> bool:
    """Whether the run goes on interpreted: the interpreted tier is on and ``step``'s
    child is still compiling its ``entry``, or the tier is :func:`~frylinks.interpreted.
    forced` and ``entry`` is not in the cache but can run interpreted."""
    if interpreted.forced():
        fn = getattr(step.module, entry)
        if not interpreted.can_interpret(fn) or on_disk(fn):
            return False
        INTERPRETED_CALLS[0] += 1
        return True
    if step.queued is not None and step.interpret and interpreted.active():
        _fork_queued(step)   # (a slot may be free now)
        if step.queued is not None:
            INTERPRETED_CALLS[0] += 1
            return True
    if not step.interpret or not interpreted.active() or not _compiler(step):
        return False
    if on_disk(getattr(step.module, entry)):
        return False
    if not _compiler(step, check=True):  # it failed: this process compiles
        return False
    INTERPRETED_CALLS[0] += 1
    return True


def _compiler(step: CompiledStep, check: bool = False) -> bool:
    """Whether a process compiles ``step``: its child or, :attr:`borrowed`, another
    run's; with ``check``, whether it still does (if not, it is forgotten)."""
    if step.child is not None:
        if check and _exited(step.child):
            _close(step.child)
            step.child = None
            return False
        return True
    if step.borrowed is not None:
        if check and not _locked(step.borrowed):
            step.borrowed = None
            return False
        return True
    return False


def compiled_here(step: CompiledStep, entry: str, fn: Callable[..., Any]
                  ) -> Callable[..., Any]:
    """``fn``, the ``entry`` of ``step``, compiled in this process by its first call,
    whatever the tier, and by one process at a time: the first call holds the lock a
    compiling child holds, so a second process meeting the same new kind meanwhile (the
    other pytest-xdist worker, a dask worker, a second run that waits) waits for it and
    then loads its machine code from the cache rather than compile it again beside
    it."""
    first = [True]
    compiled = interpreted.compiled(fn)

    lock = f"{step.module.__file__}.{entry}.lock"

    def call(*args: Any) -> Any:
        if not first[0] or lock in _HELD:
            first[0] = False
            return compiled(*args)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # (released when closed)
            result = compiled(*args)
        finally:
            os.close(fd)
        first[0] = False
        return result

    return call


def join(step: CompiledStep, entry: str) -> None:
    """Wait until ``step``'s child, if any, has put its ``entry`` in the cache (or has
    ended: this process then compiles it). A run that waits (:data:`WAIT`) hands the
    child nothing more to compile."""
    if step.queued is not None:
        while not _fork_queued(step):   # (this run cannot go on interpreted)
            _wait_said(step, "a free compile slot")
            time.sleep(POLL)
    pid = step.child
    dispatcher = getattr(step.module, entry)
    while _compiler(step) and not on_disk(dispatcher) and _compiler(step, check=True):
        _wait_said(step, "the compile of this new kind of model's step")
        time.sleep(POLL)
    step.waited = None
    step.child = step.borrowed = None
    if pid is not None and not interpreted.active():
        _close(pid)


def _wait_said(step: CompiledStep, what: str) -> None:
    """Say, every :data:`SAY_EVERY` seconds of a wait, how long the run has waited."""
    now = time.monotonic()
    if step.waited is None:
        step.waited = (now, now)
        return
    began, said = step.waited
    if now - said >= SAY_EVERY:
        _say(f"waiting for {what}: {now - began:.0f} s (a first run of a kind compiles "
             "once; later runs start compiled)")
        step.waited = (began, now)


def _close(pid: int) -> None:
    """Close the pipe to child ``pid`` (it then compiles what it was told and leaves)
    and leave it to :func:`_reap`."""
    fd = _PIPES.pop(pid, None)
    if fd is not None:
        os.close(fd)
    if pid not in _ABANDONED:
        _ABANDONED.append(pid)


def release() -> None:
    """The run is over: turn the interpreted tier off and hand the kernels it ran
    interpreted from Python to the newest child to compile (see the module doc)."""
    interpreted.interpreting(False)
    for step in list(_QUEUED):  # (never forked: a later run of the kind compiles it)
        assert step.queued is not None
        os.close(step.queued[3])
        step.queued = None
        _QUEUED.remove(step)
    records = [(d.py_func.__module__, d.py_func.__qualname__, argtypes)
               for d, argtypes in interpreted.recorded()
               if "<locals>" not in d.py_func.__qualname__]
    pids = list(_PIPES)
    if records and not pids and _may_fork() and not interpreted.forced():
        # (the run's step was cached; with no compile slot free, they compile when
        # next needed)
        slot = _slot()
        if slot is not None:
            pids = [_fork(None, (slot,))]
            os.close(slot)
    for pid in pids:
        if records and pid == pids[-1]:
            fd, path = tempfile.mkstemp(prefix="frylinks-compile-", suffix=".pkl")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(records, f)
            try:
                os.write(_PIPES[pid], path.encode())  # (short: never blocks)
            except OSError:  # it failed and left: compiled when next needed
                os.unlink(path)
        _close(pid)


atexit.register(release)
