"""Where the kernels' machine code is kept, and when it is stale.

numba's own cache (``cache=True``) keeps a function's machine code beside its module
and trusts it while that one file keeps its modification time and size. Two things
follow that frylinks cannot have: a kernel whose helper changed in another module keeps
running the old helper (numba writes the helper's code into the kernel's), and a fresh
clone or an installed copy (new times) compiles everything again, beside sources that
may be read-only.

So a kernel's code is kept in the frylinks cache folder
(:func:`cache_dir`), under ``kernels/``, in a folder named for
its module and a hash of the *contents* of that module and of every module of the same
packages it imports from (frylinks', and the plugin's own), computed once per module.
Any change to a kernel or to something it calls gives a new folder; copies of the same
sources share one; ``frylinks cache --clear`` empties it all.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator

#: LLVM's optimisation level for frylinks' compiled code (numba's ``NUMBA_OPT``), unless
#: the environment sets one. Level 1 compiles a new kind of model's step faster at the
#: same speed: measured on 2 cores, the point absorber's step compiled in 30 s instead
#: of 35 and stepped in 19 us instead of 22; the pendulum's first run took 49 s instead
#: of 59 (its kernels compiled too). Level 3's further passes (vectorising, unrolling)
#: find little to do in loops over 3- and 6-vectors without fastmath, and the numbers
#: are the same bit for bit (no reassociation). Set for the whole process, as numba has
#: one level per process: other numba code of the process compiled after frylinks is
#: imported gets it too, unless ``NUMBA_OPT`` is set.
OPT_LEVEL = "1"
if "NUMBA_OPT" not in os.environ:
    os.environ["NUMBA_OPT"] = OPT_LEVEL
    from numba.core import config as _numba_config

    _numba_config.reload_config()


def cache_dir() -> Path:
    """The frylinks cache folder: ``$FRYLINKS_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/frylinks``, else ``~/.cache/frylinks``."""
    env = os.environ.get("FRYLINKS_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "frylinks"


#: Hash of each module's sources and of those it imports from (computed once).
_HASHES: dict[str, str] = {}


def _top(name: str) -> str:
    return name.split(".", 1)[0]


def _imported(module: ModuleType) -> set[str]:
    """The modules ``module``'s globals come from (so far: at a decorator, its imports
    are done) that may hold code it compiles: those of its packages (frylinks and its
    own top-level package), and that of any kernel it holds, whatever its package (a
    generated step calls the kernels of every plugin its model uses)."""
    tops = {"frylinks", _top(module.__name__)}
    names: set[str] = set()
    for value in list(vars(module).values()):
        kernel = hasattr(value, "py_func")
        name = value.__name__ if isinstance(value, ModuleType) else getattr(
            getattr(value, "py_func", value), "__module__", None)
        if isinstance(name, str) and (kernel or _top(name) in tops) and name not in (
                module.__name__, __name__):  # (this module compiles nothing)
            names.add(name)
    return names


def _own_hash(module: ModuleType) -> bytes:
    try:
        return Path(inspect.getfile(module)).read_bytes()
    except (OSError, TypeError):  # no source: its name and version stand for it
        return f"{module.__name__} {getattr(module, '__version__', '')}".encode()


def source_hash(name: str) -> str:
    """Hash of module ``name``'s source and of the modules (of its packages) it imports
    from, transitively."""
    if name in _HASHES:
        return _HASHES[name]
    h = hashlib.sha256()
    for current in sorted(_closure(name)):
        h.update(current.encode())
        h.update(_own_hash(sys.modules[current]))
    _HASHES[name] = h.hexdigest()[:16]
    return _HASHES[name]


def _closure(name: str) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        module = sys.modules.get(current)
        if current in seen or module is None:
            continue
        seen.add(current)
        todo.extend(_imported(module) - seen)
    return seen


class _Locator(_CacheLocator):
    """numba's locator of a kernel's cache files (see the module doc)."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        module = py_func.__module__
        self._py_file = py_file  # (numba names it in its warning of a function it cannot cache)
        self._path = str(cache_dir() / "kernels" / f"{module}-{source_hash(module)}")
        self._lineno = py_func.__code__.co_firstlineno

    def ensure_cache_path(self) -> None:
        os.makedirs(self._path, exist_ok=True)

    def get_cache_path(self) -> str:
        return self._path

    def get_source_stamp(self) -> str:
        return "content"  # the folder's name holds the sources' hash

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _Locator:
        return cls(py_func, py_file)


class _Impl(CompileResultCacheImpl):
    _locator_classes = [_Locator]


class KernelCache(FunctionCache):
    """numba's function cache, with files where :class:`_Locator` says."""

    _impl_class = _Impl


def on_disk(dispatcher: Any) -> bool:
    """Whether machine code of ``dispatcher`` (any signature) is kept on disk."""
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    return index is None or Path(index).exists()


def cached(dispatcher: Any) -> Any:
    """``dispatcher`` (numba's, made with ``cache=False``) with its machine code kept
    in the frylinks cache folder; unchanged under ``NUMBA_DISABLE_JIT``."""
    if hasattr(dispatcher, "py_func") and hasattr(dispatcher, "_cache"):
        dispatcher._cache = KernelCache(dispatcher.py_func)
    return dispatcher
