"""Kernels run as plain Python while a second process compiles them.

A first run of a new kind of model used to wait for numba: about 35 s for the
pendulum on a 2-core machine, for a run that then took a second. Like the tiered
virtual machines of Java and JavaScript, a run now starts at once on the interpreter
while a child process compiles the step (:mod:`frylinks.engine.background`), and
switches to the compiled step, between two calls, as soon as its machine code is in the
cache. A short run ends before that; the child then finishes filling the cache, and
the next run starts compiled.

The interpreter runs the very code numba compiles: a kernel's ``py_func``. Every kernel
(made by :func:`frylinks.jit.kernel` or :func:`~frylinks.jit.helper`) gets
:class:`_Tiered` as its ``_compile_for_args``, the method numba's dispatcher calls when
no machine code it holds fits the arguments. While :func:`interpreting` is on, it loads
the machine code from the cache if it is there, and otherwise answers with the Python
function, so the call runs interpreted, and so do the kernels that function calls, each
through its own dispatcher. Out of that mode, it compiles as numba always does.

The few pieces of the kernels that only exist compiled (a temporary on the stack,
:func:`frylinks.jit.alive`) have Python stand-ins (:func:`stand_in`); a model whose
kernels reach an intrinsic without one is not :func:`interpretable` and waits for its
compile as before (the marine plugin gives its calls into MoorDyn's C library one: ctypes
on the same addresses).

Kernels called from Python at the top (the set-up, the outputs) run interpreted too;
their signatures are recorded (:func:`recorded`) for the child to compile once the run
is over. A kernel called by an interpreted kernel is not recorded: it is compiled
within its caller.

The interpreter and the compiled code give the same numbers: numba compiles without
reassociating floating point (:data:`frylinks.jit.OPTIONS`). The shipped cases' results
are equal bit for bit, interpreted and compiled, but for round-off in the catenary's
Newton iterations and in a few sums numpy and numba round differently (docs/compiled.md).
Where Python raises and numba would go on with inf or nan, the call is made compiled
instead (:func:`guarded`).
"""

from __future__ import annotations

import os
import threading
import time
import types as pytypes
from collections.abc import Callable, Iterable
from typing import Any

from numba.core.compiler_lock import global_compiler_lock
from numba.core.extending import _Intrinsic

from frylinks.kernel_cache import on_disk

#: ``interpreting`` is on (a background process compiles what the run needs).
_ACTIVE = [False]
#: The environment variable that keeps every run on the interpreted tier (:func:`forced`).
FORCED_ENV = "FRYLINKS_INTERPRET"


class _ThreadState(threading.local):
    """Per thread: how deep in interpreted kernels it is (0: called from Python),
    whether it is inside :func:`compiled` (the forced tier runs in any thread: a dask
    worker's tasks run in one of its own), and whether it works for the main thread's
    run (:func:`of_the_run`)."""

    depth = 0
    compile_here = False
    run = False


_THREAD = _ThreadState()
#: ``(dispatcher, argument types)`` of kernels run interpreted from Python, in order.
_RECORDED: list[tuple[Any, tuple[Any, ...]]] = []
_MAIN = threading.main_thread().ident
#: How often a kernel running interpreted looks whether the cache has it now [s].
LOOK_EVERY = 0.5
#: Stand-ins: ``id(dispatcher)`` -> the Python function run instead of its ``py_func``.
_PYTHON: dict[int, Callable[..., Any]] = {}


class _Tiered:
    """A kernel's ``_compile_for_args``: numba's, or under :func:`interpreting` the
    cached machine code or else the interpreted function."""

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        self.compile_for_args = type(dispatcher)._compile_for_args.__get__(dispatcher)
        #: Not in the cache when last looked at: not looked at again before this time.
        self.look_after = 0.0
        #: Its Python function, once it ran interpreted (:func:`python_function`).
        self.runner: Callable[..., Any] | None = None
        #: Whether it can run interpreted (:func:`interpretable`; asked once).
        self.interpretable: bool | None = None

    def __call__(self, *args: Any, **kws: Any) -> Any:
        if _THREAD.compile_here or kws or not (
                forced() or (_ACTIVE[0] and (_THREAD.run
                                             or threading.get_ident() == _MAIN))):
            return self.compile_for_args(*args, **kws)
        if _THREAD.depth and self.runner is not None and time.monotonic() < self.look_after:
            return self.runner  # (the common case, made short: a kernel's every call)
        d = self.dispatcher
        python = _PYTHON.get(id(d))
        if python is not None:
            return python
        if not self.can_interpret():
            return self.compile_for_args(*args)
        argtypes = None
        now = time.monotonic()
        if now >= self.look_after:
            if _has_index(d):
                argtypes = _types(d, args)
                entry = load(d, argtypes)
                if entry is not None:
                    return entry
            # (a stat of the index at every call would cost more than the call)
            self.look_after = now + LOOK_EVERY
        self.runner = python_function(d)
        if _THREAD.depth == 0:  # (called from Python: the child compiles it after the run)
            if _ACTIVE[0]:  # (a child may compile; under forced() alone none does)
                argtypes = argtypes or _types(d, args)
                if (d, argtypes) not in _RECORDED:
                    _RECORDED.append((d, argtypes))
            return guarded(self.runner, self._compiled)
        return self.runner

    def can_interpret(self) -> bool:
        """Whether the kernel can run interpreted (:func:`interpretable`, asked once)."""
        if self.interpretable is None:
            self.interpretable = interpretable([self.dispatcher])
        return self.interpretable

    def _compiled(self, *args: Any) -> Any:
        """Compile for ``args`` (here, now) and call."""
        return self.compile_for_args(*args)(*args)


def _types(dispatcher: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """numba's types of ``args``, as the dispatcher keys its machine code."""
    return tuple(dispatcher.typeof_pyval(a) for a in args)


def _has_index(dispatcher: Any) -> bool:
    """Whether ``dispatcher`` has machine code of some signature in the cache."""
    return hasattr(dispatcher._cache, "_cache_file") and on_disk(dispatcher)


def load(dispatcher: Any, argtypes: tuple[Any, ...]) -> Any:
    """The entry point of ``dispatcher``'s machine code for ``argtypes``: held, or
    loaded from the cache (as numba's ``compile`` does before it compiles); None if it
    is in neither."""
    with global_compiler_lock:
        existing = dispatcher.overloads.get(argtypes)
        if existing is not None:
            return existing.entry_point
        cres = dispatcher._cache.load_overload(argtypes, dispatcher.targetctx)
        if cres is None:
            return None
        dispatcher._cache_hits[argtypes] += 1  # (numba's statistics, as its compile keeps them)
        if not cres.objectmode:
            dispatcher.targetctx.insert_user_function(cres.entry_point, cres.fndesc,
                                                      [cres.library])
        dispatcher.add_overload(cres)
        return cres.entry_point


#: What an interpreted call may raise where the compiled one goes on with inf or nan:
#: Python's ``math`` functions and its float division raise, numba follows numpy.
ARITHMETIC = (ArithmeticError, ValueError)


def _arrays(values: Any, found: dict[int, Any]) -> dict[int, Any]:
    """The writeable numpy arrays in ``values`` (nested tuples, lists)."""
    import numpy as np

    if isinstance(values, np.ndarray):
        if values.flags.writeable and values.size:
            found.setdefault(id(values), values)
    elif isinstance(values, tuple | list):
        for v in values:
            _arrays(v, found)
    return found


def guarded(python: Callable[..., Any], fallback: Callable[..., Any]) -> Callable[..., Any]:
    """``python`` called as numba's compiled code behaves: numpy's floating-point errors
    silent, and where Python raises instead of giving inf or nan (:data:`ARITHMETIC`),
    every array the call was given put back as it was and ``fallback`` (the compiled
    function) called instead."""
    import numpy as np

    def call(*args: Any) -> Any:
        saved = [(a, a.copy()) for a in _arrays(args, {}).values()]
        try:
            with np.errstate(all="ignore"):
                return python(*args)
        except ARITHMETIC:
            for a, before in saved:
                a[...] = before
        return fallback(*args)

    return call


def install(dispatcher: Any) -> Any:
    """Give ``dispatcher`` (numba's) the interpreted tier; returns it."""
    if hasattr(dispatcher, "py_func") and hasattr(dispatcher, "_compile_for_args"):
        dispatcher._compile_for_args = _Tiered(dispatcher)
    return dispatcher


def python_function(dispatcher: Any) -> Callable[..., Any]:
    """``dispatcher``'s Python function (its stand-in if it has one), counting the
    depth of interpreted calls while it runs."""
    fn = _PYTHON.get(id(dispatcher)) or dispatcher.py_func
    runner = getattr(fn, "_frylinks_interpreted", None)
    if runner is None:
        def runner(*args: Any) -> Any:
            _THREAD.depth += 1
            try:
                return fn(*args)
            finally:
                _THREAD.depth -= 1

        try:
            fn._frylinks_interpreted = runner  # type: ignore[union-attr]
        except AttributeError:  # (a builtin)
            pass
    return runner  # type: ignore[no-any-return]


class _StandInIntrinsic(_Intrinsic):  # type: ignore[misc]
    """An intrinsic that, called from Python, runs its stand-in."""

    _python: Callable[..., Any]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._python(*args, **kwargs)


def stand_in(obj: Any, python: Callable[..., Any]) -> None:
    """Run ``python`` where the interpreter meets ``obj``: a compiled function (numba's
    dispatcher) or an intrinsic that only exists in compiled code."""
    if isinstance(obj, _Intrinsic):
        obj.__class__ = _StandInIntrinsic  # (numba types it by identity: unchanged)
        obj._python = python  # type: ignore[attr-defined]
        return
    install(obj)
    _PYTHON[id(obj)] = python


def can_interpret(dispatcher: Any) -> bool:
    """Whether ``dispatcher`` (a kernel) can run interpreted, asked once per kernel."""
    tiered = getattr(dispatcher, "_compile_for_args", None)
    if isinstance(tiered, _Tiered):
        return tiered.can_interpret()
    return interpretable([dispatcher])


def interpretable(functions: Iterable[Callable[..., Any]]) -> bool:
    """Whether ``functions`` (kernels or plain functions) and everything they call can
    run interpreted: no intrinsic without a stand-in is reached."""
    seen: set[int] = set()
    todo = list(functions)
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if isinstance(fn, _Intrinsic):
            if not isinstance(fn, _StandInIntrinsic):
                return False
            continue
        if id(fn) in _PYTHON:
            continue
        py = getattr(fn, "py_func", fn)
        code = getattr(py, "__code__", None)
        if code is None:
            continue
        scope = dict(py.__globals__)
        for cell_name, cell in zip(code.co_freevars, py.__closure__ or (), strict=True):
            try:
                scope[cell_name] = cell.cell_contents
            except ValueError:  # (an empty cell)
                pass
        names = _names(code)
        for name in names:
            value = scope.get(name)
            if isinstance(value, pytypes.ModuleType):  # (``K.body_loads``: both names)
                members = vars(value)
                todo.extend(members[n] for n in names
                            if n in members and _callable_kernel(members[n]))
            elif value is not None and _callable_kernel(value):
                todo.append(value)
    return True


def _callable_kernel(value: Any) -> bool:
    return isinstance(value, _Intrinsic) or hasattr(value, "py_func")


def _names(code: pytypes.CodeType) -> set[str]:
    """The global and free names ``code`` and the code nested in it use."""
    names = set(code.co_names) | set(code.co_freevars)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            names |= _names(const)
    return names


def interpreting(on: bool) -> None:
    """Turn the interpreted tier on (a background process compiles) or off."""
    _ACTIVE[0] = on


def compiled(dispatcher: Any) -> Callable[..., Any]:
    """``dispatcher`` called as compiled code whatever the tier: compiled here (or loaded
    from the cache) for arguments it holds no machine code for. For an entry no child
    compiles (the reports of an adaptive run)."""

    def call(*args: Any) -> Any:
        before = _THREAD.compile_here
        _THREAD.compile_here = True
        try:
            return dispatcher(*args)
        finally:
            _THREAD.compile_here = before

    return call


def of_the_run() -> None:
    """The calling thread works for the run of the main thread (its results' recorder,
    :mod:`frylinks.io.recorder`): while a child compiles, the kernels it calls run on
    the interpreted tier too, instead of compiling here beside the child."""
    _THREAD.run = True


def active() -> bool:
    """Whether the interpreted tier is on (for a run whose step a child compiles, or
    :func:`forced`)."""
    return _ACTIVE[0] or forced()


def forced() -> bool:
    """Whether ``FRYLINKS_INTERPRET=1`` keeps everything on the interpreted tier: a
    kernel whose machine code is not in the cache runs as Python, and nothing is
    compiled for it (but a kernel that cannot run so: an intrinsic without a stand-in). For a
    machine that runs many short models once, a test suite with an empty cache above
    all: each new kind of model's step would take longer to compile than to run."""
    return os.environ.get(FORCED_ENV) == "1"


def recorded() -> list[tuple[Any, tuple[Any, ...]]]:
    """Take the kernels run interpreted from Python so far, and their argument types."""
    taken = list(_RECORDED)
    _RECORDED.clear()
    return taken
