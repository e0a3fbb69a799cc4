"""MoorDyn's C library: loading it from the ``moordyn`` wheel (:class:`Library`), calling
its functions from compiled kernels through their addresses (:func:`c_call`), and
capturing what it prints.

The kernels of :mod:`frylinks_marine.moordyn_lines` keep the C functions' addresses and
the systems' handles as ``int64`` data, not constants, so a step calling MoorDyn stays
cached on disk.
"""

from __future__ import annotations

import ctypes
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import numpy as np
from llvmlite import ir
from numba import config, types
from numba.extending import intrinsic

from frylinks.errors import ModelError
from frylinks.interpreted import stand_in

#: The MoorDyn release the plugin is written and validated against.
MOORDYN_VERSION = "2.7.2"
INSTALL = f"pip install moordyn=={MOORDYN_VERSION}"

#: MoorDyn's error codes (MoorDynAPI.h) and what they mean to a user.
ERRORS = {-1: "invalid input file", -2: "invalid output file", -3: "invalid input",
          -4: "NaN in the line states (the lines went unstable: a smaller time_step, more "
              "damping or fewer segments)",
          -5: "memory error", -6: "invalid value", -7: "not implemented",
          -255: "unhandled error"}
#: MoorDyn's verbosity level that prints nothing (MOORDYN_NO_OUTPUT).
SILENT = 4096


@intrinsic
def _c_call(typingctx: Any, fn: Any, args: Any) -> Any:
    """``int32 fn(void *, ...)`` at address ``fn`` with a tuple of int64 arguments (each a
    pointer or a MoorDyn handle), compiled as a call through a function pointer: the
    address is data, not a constant, so the caller can be cached on disk."""
    members = getattr(args, "types", None)
    if members is None or not all(isinstance(a, types.Integer)
                                  and getattr(a, "bitwidth", 0) == 64 for a in members):
        return None
    count = len(members)
    sig = types.int32(fn, args)

    def codegen(context: Any, builder: Any, signature: Any, llargs: Any) -> Any:
        ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.IntType(32), [ptr] * count)
        target = builder.inttoptr(llargs[0], fnty.as_pointer())
        values = [builder.inttoptr(builder.extract_value(llargs[1], k), ptr)
                  for k in range(count)]
        return builder.call(target, values)

    return sig, codegen


def _c_call_python(fn: int, args: tuple[int, ...]) -> int:
    """:func:`c_call` through ctypes, for kernels run as Python (the interpreted tier,
    ``NUMBA_DISABLE_JIT=1``): the same C function on the same memory."""
    proto = _PROTOTYPES.get(len(args))
    if proto is None:
        proto = _PROTOTYPES[len(args)] = ctypes.CFUNCTYPE(
            ctypes.c_int, *[ctypes.c_void_p] * len(args))
    return int(proto(int(fn))(*[ctypes.c_void_p(int(a)) for a in args]))


_PROTOTYPES: dict[int, Any] = {}

# A model with MoorDyn lines runs on the interpreted tier too (a new kind's first run, the
# test suite) rather than waiting for its compile: the interpreter meets the intrinsic and
# calls the C function through ctypes.
stand_in(_c_call, _c_call_python)

c_call = cast(Callable[[int, tuple[int, ...]], int],
              _c_call_python if getattr(config, "DISABLE_JIT", False) else _c_call)

#: Indices of the C functions in the kernels' ``fns`` array.
STEP, INIT, SERIALIZE, DESERIALIZE = range(4)


class Library:
    """MoorDyn's C library from the ``moordyn`` wheel, loaded once per process."""

    _loaded: Library | None = None

    def __init__(self) -> None:
        try:
            import moordyn
        except ImportError as exc:
            raise ModelError(f"the force type 'moordyn' needs the Python package moordyn "
                             f"{MOORDYN_VERSION} ({INSTALL}): {exc}") from None
        here = Path(moordyn.__file__).resolve().parent
        found = sorted((here.parent / "moordyn.libs").glob("libmoordyn*.so*"))
        found += sorted(here.parent.glob("libmoordyn*.so*"))
        if not found:
            raise ModelError(f"the package moordyn at {here} holds no libmoordyn shared "
                             f"library (expected the wheel of moordyn {MOORDYN_VERSION}: "
                             f"{INSTALL})")
        lib = ctypes.CDLL(str(found[0]))
        p, c = ctypes.c_void_p, ctypes.c_char_p
        lib.MoorDyn_Create.restype = p
        lib.MoorDyn_Create.argtypes = [c]
        for name, argtypes in (("MoorDyn_Init", [p, p, p]), ("MoorDyn_Step", [p] * 6),
                               ("MoorDyn_SetVerbosity", [p, ctypes.c_int]),
                               ("MoorDyn_Serialize", [p, p, p]),
                               ("MoorDyn_Deserialize", [p, p]), ("MoorDyn_Close", [p]),
                               ("MoorDyn_NCoupledDOF", [p, p]),
                               ("MoorDyn_GetNumberLines", [p, p]),
                               ("MoorDyn_GetLineN", [p, p]),
                               ("MoorDyn_GetLineNodePos", [p, ctypes.c_uint, p]),
                               ("MoorDyn_GetLineNodeTen", [p, ctypes.c_uint, p]),
                               ("MoorDyn_GetLineNodeForce", [p, ctypes.c_uint, p])):
            fn = getattr(lib, name)
            fn.restype = ctypes.c_int
            fn.argtypes = argtypes
        lib.MoorDyn_GetLine.restype = p
        lib.MoorDyn_GetLine.argtypes = [p, ctypes.c_uint]
        self.lib = lib
        self.path = str(found[0])
        address = [ctypes.cast(getattr(lib, n), ctypes.c_void_p).value for n in
                   ("MoorDyn_Step", "MoorDyn_Init", "MoorDyn_Serialize", "MoorDyn_Deserialize")]
        #: The C functions' addresses (:data:`STEP`, ...), for the kernels.
        self.fns = np.array(address, dtype=np.int64)

    @classmethod
    def get(cls) -> Library:
        """The library (loaded at the first call); ModelError when moordyn is missing."""
        if cls._loaded is None:
            cls._loaded = cls()
        return cls._loaded


@contextmanager
def captured_output() -> Iterator[list[str]]:
    """Capture what the C library prints on stdout and stderr (file descriptors 1 and 2)
    meanwhile: MoorDyn reports a bad input file there, before its verbosity can be set."""
    out: list[str] = []
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(1), os.dup(2)
        try:
            os.dup2(tmp.fileno(), 1)
            os.dup2(tmp.fileno(), 2)
            yield out
        finally:
            libc.fflush(None)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            tmp.seek(0)
            out.append(tmp.read().decode(errors="replace"))


def last_error(printed: str) -> str:
    """MoorDyn's error lines in what it printed (its last lines when none is marked)."""
    lines = [s.strip() for s in printed.splitlines() if s.strip()]
    marked = [s for s in lines if "rror" in s or "ERR" in s]
    return "; ".join((marked or lines)[-3:]) or "no message"
