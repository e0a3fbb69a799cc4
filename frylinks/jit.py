"""What a compiled type is written with: the :func:`kernel` decorator and small helpers.

A type's kernels are plain Python functions in a numpy style that numba compiles
(loops over the block's elements, scalar arithmetic, small arrays); :func:`kernel`
compiles them with the options every frylinks kernel shares, and caches the machine
code on disk in the frylinks cache folder (:mod:`frylinks.kernel_cache`), so a second
run compiles nothing. The same function serves the engine's compiled step and the type's Python
methods (which call it through numba's dispatcher).

The helpers below take and fill single rows (one vector, one quaternion) and are
meant to be called inside kernels; each is the one implementation of its formula
that the compiled code uses.

**A kernel counts no references.** It is compiled without numba's reference counting
(its runtime, NRT): it does not allocate (its outputs and work arrays come from its
caller, which allocates them once, before its loop; a temporary of fixed size is
:func:`scratch`, on the stack) and returns no array (only scalars, or nothing: it
writes into arrays it is given). Its caller, the compiled step, keeps every array
alive for the call. The reason is speed: numba counts a reference to each array of each
tuple a compiled function receives (a link kernel takes about thirty) on entry and on
exit, and to each view (``R = frames.R[i]``) made in a loop, with atomic instructions.
numba's pass that prunes those counts gave up on many of frylinks' kernels: on the
point absorber's step without its forces (numba 0.68), about 800 atomic operations a
step, in the relative kinematics, the mass matrix's inverse (55 arrays counted on
entry), the link springs and the link types' kernels, and a fifth to a half of the
samples of a profile. Without NRT the counts are not written at all. The compiler keeps the rule: an
allocation in such a kernel (``np.empty``, ``a.copy()``, ``a + b`` on arrays, a call of
a function that allocates) does not compile, and a kernel that returns an array is
refused when compiled (:class:`KernelError`), since its caller would release an array
it never owned.

A function that must allocate or return an array (one that makes room, or a Python
API's convenience that returns its result) is decorated ``@kernel(allocates=True)``:
it is compiled with NRT, as numba's ``njit`` is; the step does not call those.

It does not assign an array to a slice (``a[0:3] = b``, ``a[:] = b``: numba checks
the shapes and may raise); it loops, or calls :func:`copy_into` (a scalar,
``a[:] = 0.0``, is fine).

**A kernel is written into the compiled functions that call it** (LLVM's
``alwaysinline``, set on the function its callers link in: :func:`always_inline`) by
LLVM rather than by numba's typing (``inline="always"``), so it still compiles once.
numba passes each array to a function it calls as its seven to eleven fields, and a
tuple of arrays (a type's data, the relative kinematics, the solve's room) as all of
theirs, copied onto the stack at each call: the point absorber's step pushed about 2,500
words an evaluation into its calls, and LLVM, weighing each kernel's size, wrote almost
none of them in. Written in, the step reads the fields where they are. Measured
(numba 0.68, the point absorber, 2 cores): 9.0 us a step against 13.1-14.5, the
results equal bit for bit; its first compile 65 s against 47 s. The result of a
function does not depend on where LLVM writes it (no reassociation: :data:`OPTIONS`).

Set the environment variable ``NUMBA_DISABLE_JIT=1`` to run every kernel as plain
Python (slow; for stepping through one in a debugger).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from numba import config, njit, types
from numba.core import cgutils
from numba.core.extending import _Intrinsic
from numba.extending import intrinsic, overload

from frylinks.interpreted import install, stand_in
from frylinks.kernel_cache import cached

F = TypeVar("F", bound=Callable[..., Any])

#: Options of every kernel (whose machine code :func:`kernel` keeps on disk): no
#: reassociation of floating point (the compiled and the Python path agree to
#: round-off), numpy's rules for division by zero (inf and nan, not an exception), and
#: no GIL (dask workers' threads).
OPTIONS: dict[str, Any] = {"fastmath": False, "error_model": "numpy", "nogil": True}


class KernelError(TypeError):
    """A kernel compiled without reference counting returns an array."""


def _returns_array(ty: Any) -> bool:
    """Whether numba type ``ty`` is, or holds, an array."""
    if isinstance(ty, types.Buffer):
        return True
    if isinstance(ty, types.BaseTuple):
        return any(_returns_array(t) for t in ty.types)  # type: ignore[attr-defined]
    return False


def _no_array_returned(dispatcher: Any) -> Any:
    """``dispatcher`` refusing each compiled version (new or from the cache) that returns
    an array (see the module doc)."""
    add = getattr(dispatcher, "add_overload", None)
    if add is None:  # (NUMBA_DISABLE_JIT: a plain function)
        return dispatcher

    def add_overload(cres: Any) -> None:
        if _returns_array(cres.signature.return_type):
            raise KernelError(
                f"kernel {dispatcher.py_func.__qualname__} returns an array "
                f"({cres.signature.return_type}): a kernel writes into arrays it is given; "
                "one that must return an array is decorated @kernel(allocates=True)")
        add(cres)

    dispatcher.add_overload = add_overload
    return dispatcher


def _written_into_callers(dispatcher: Any) -> Any:
    """``dispatcher`` whose compiled versions LLVM writes into each compiled caller
    (the ``alwaysinline`` attribute, module doc), from the cache or compiled anew."""
    add = getattr(dispatcher, "add_overload", None)
    if add is None:  # (NUMBA_DISABLE_JIT: a plain function)
        return dispatcher

    def add_overload(cres: Any) -> None:
        add(cres)
        always_inline(cres)

    dispatcher.add_overload = add_overload
    return dispatcher


def always_inline(cres: Any) -> None:
    """Mark the function of numba's compile result ``cres`` ``alwaysinline`` in the
    module its callers link in (numba's ``_get_module_for_linking``, kept by the
    library: what a caller compiled later links). Without that method (another numba)
    nothing is marked: the calls stay calls, slower, with the same results."""
    library = getattr(cres, "library", None)
    linked = getattr(library, "_get_module_for_linking", None)
    if linked is None:
        return
    fn = linked().get_function(cres.fndesc.mangled_name)
    if not any(b"alwaysinline" in a for a in fn.attributes):  # (each attribute, bytes)
        fn.add_function_attribute("alwaysinline")


def kernel(fn: F | None = None, *, allocates: bool = False) -> Any:
    """Compile ``fn`` as a frylinks kernel (see :data:`OPTIONS`), without numba's
    reference counting unless it ``allocates`` (module doc). ``@kernel`` or
    ``@kernel(allocates=True)``."""
    # (``_nrt`` said in both cases: a function numba compiles for a caller without
    # reference counts inherits that unless told, and then could not allocate)
    options: dict[str, Any] = {**OPTIONS, "_nrt": allocates}

    def make(f: F) -> F:
        compiled = njit(**options)(f)
        if not allocates:
            compiled = _written_into_callers(_no_array_returned(compiled))
        return install(cached(compiled))  # type: ignore[no-any-return]

    return make if fn is None else make(fn)


def helper(fn: F) -> F:
    """Compile ``fn`` as a kernel that other kernels call (a row, one element): a
    :func:`kernel` under another name, written into each compiled caller by LLVM (module
    doc). Until November 29 a helper was written in by numba (``inline="always"``), which
    types the helper again inside each caller: the point absorber's first compile took
    51 s so against 45 s now (an empty cache, one process), and its step as long
    (8.2-8.6 us against 8.5-8.6)."""
    return kernel(fn)  # type: ignore[no-any-return]


@intrinsic
def _stack_array(typingctx: Any, rows: Any, cols: Any) -> Any:
    """A C-ordered float64 array of shape ``(rows,)`` (``cols`` 0) or ``(rows, cols)``
    (constants) in the calling function's frame (allocated once, on entry, wherever the
    call is), with no owner to count: the array itself, not a pointer that ``carray``
    would make into one (a function returning a new array needs numba's reference
    counting, which kernels are compiled without)."""
    if not (isinstance(rows, types.IntegerLiteral) and isinstance(cols, types.IntegerLiteral)):
        return None
    n, m = rows.literal_value, cols.literal_value
    shape = (n,) if m == 0 else (n, m)
    array = types.Array(types.float64, len(shape), "C")

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        data = cgutils.alloca_once(builder, context.get_value_type(types.float64),
                                   size=n * max(m, 1))
        out = context.make_array(array)(context, builder)
        size = context.get_abi_sizeof(context.get_data_type(types.float64))
        strides = (size,) if m == 0 else (m * size, size)

        def intp(v: int) -> Any:
            return context.get_constant(types.intp, v)

        context.populate_array(out, data=data, shape=[intp(s) for s in shape],
                               strides=[intp(s) for s in strides], itemsize=intp(size),
                               meminfo=None)
        return out._getvalue()

    return array(rows, cols), codegen


@intrinsic
def _alive_intrinsic(typingctx: Any, value: Any) -> Any:
    """Nothing, at run time: a use of ``value`` here, so that numba releases it here
    rather than at its last use. Put ``alive(a)`` at the end of a kernel or helper for
    each array (or tuple) argument and alias it has, one per call (``alive(a)``,
    ``alive(b)``) compiled with reference counts (``allocates=True``): numba's pruning
    of them gives up on a function with a release in its middle. A kernel compiled
    without counts (the default, module doc) needs none. (One parameter: an intrinsic taking
    ``*values`` would be lowered as a tuple, the reference counting it saves.)"""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return context.get_dummy_value()

    return types.none(value), codegen


if getattr(config, "DISABLE_JIT", False):  # plain Python: a heap array stands in
    def scratch(n: int) -> np.ndarray:
        """Room for ``n`` floats (uninitialised)."""
        return np.empty(n)

    def scratch2(n: int, m: int) -> np.ndarray:
        """Room for ``n x m`` floats (uninitialised)."""
        return np.empty((n, m))

    def _alive(value: Any) -> None:
        """Nothing."""

    alive: Callable[[Any], None] = _alive
else:
    alive = cast(Callable[[Any], None], _alive_intrinsic)

    @njit(inline="always")
    def scratch(n: int) -> np.ndarray:
        """Room for ``n`` floats (uninitialised; ``n`` a constant) on the stack of the
        kernel that calls it: a temporary that costs nothing and that the kernel must
        neither return nor keep."""
        return _stack_array(n, 0)  # type: ignore[call-arg, no-any-return]

    @njit(inline="always")
    def scratch2(n: int, m: int) -> np.ndarray:
        """Room for ``n x m`` floats, as :func:`scratch` (``n``, ``m`` constants)."""
        return _stack_array(n, m)  # type: ignore[call-arg, no-any-return]


# What the interpreted tier (:mod:`frylinks.interpreted`) runs in place of the pieces
# that exist only in compiled code: a heap array for the stack temporaries, nothing for
# ``alive``.
stand_in(scratch, lambda n: np.empty(n))
stand_in(scratch2, lambda n, m: np.empty((n, m)))
if isinstance(alive, _Intrinsic):
    stand_in(alive, lambda value: None)


def copy_into(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[...] = src`` for arrays of one shape (1 to 3 dimensions), as a loop: numba's
    slice assignment may copy the source through a temporary first (an allocation, which
    a kernel cannot make: see the module doc)."""
    dst[...] = src


# (no numba cache of its own: inlined always, it is machine code of its callers, which
# frylinks' kernel cache keeps; a numba cache would write files beside this module)
@overload(copy_into, inline="always")
def _copy_into(dst: Any, src: Any) -> Any:
    if dst.ndim == 1:
        def copy1(dst: Any, src: Any) -> Any:
            for i in range(dst.shape[0]):
                dst[i] = src[i]
        return copy1
    if dst.ndim == 2:
        def copy2(dst: Any, src: Any) -> Any:
            for i in range(dst.shape[0]):
                for j in range(dst.shape[1]):
                    dst[i, j] = src[i, j]
        return copy2
    if dst.ndim == 3:
        def copy3(dst: Any, src: Any) -> Any:
            for i in range(dst.shape[0]):
                for j in range(dst.shape[1]):
                    for k in range(dst.shape[2]):
                        dst[i, j, k] = src[i, j, k]
        return copy3
    return None


@helper
def cross3(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = a x b`` for 3-vectors (``out`` must not be ``a`` or ``b``)."""
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@helper
def dot3(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b`` for 3-vectors."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@helper
def rotate3(R: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    """``out = R v`` for a 3x3 matrix and a 3-vector."""
    for i in range(3):
        out[i] = R[i, 0] * v[0] + R[i, 1] * v[1] + R[i, 2] * v[2]


@helper
def rotate_back3(R: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    """``out = R^T v`` for a 3x3 matrix and a 3-vector."""
    for i in range(3):
        out[i] = R[0, i] * v[0] + R[1, i] * v[1] + R[2, i] * v[2]


@helper
def quat_mul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """Hamilton product ``out = a * b`` of quaternions ``[w, x, y, z]``."""
    aw, ax, ay, az = a[0], a[1], a[2], a[3]
    bw, bx, by, bz = b[0], b[1], b[2], b[3]
    out[0] = aw * bw - ax * bx - ay * by - az * bz
    out[1] = aw * bx + ax * bw + ay * bz - az * by
    out[2] = aw * by - ax * bz + ay * bw + az * bx
    out[3] = aw * bz + ax * by - ay * bx + az * bw


@helper
def quat_conj_mul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = conj(a) * b``: the rotation from frame ``a`` to frame ``b``."""
    aw, ax, ay, az = a[0], -a[1], -a[2], -a[3]
    bw, bx, by, bz = b[0], b[1], b[2], b[3]
    out[0] = aw * bw - ax * bx - ay * by - az * bz
    out[1] = aw * bx + ax * bw + ay * bz - az * by
    out[2] = aw * by - ax * bz + ay * bw + az * bx
    out[3] = aw * bz + ax * by - ay * bx + az * bw


@helper
def quat_to_matrix3(q: np.ndarray, R: np.ndarray) -> None:
    """Rotation matrix of a unit quaternion ``[w, x, y, z]`` into ``R`` (3x3)."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - w * z)
    R[0, 2] = 2.0 * (x * z + w * y)
    R[1, 0] = 2.0 * (x * y + w * z)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - w * x)
    R[2, 0] = 2.0 * (x * z - w * y)
    R[2, 1] = 2.0 * (y * z + w * x)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@helper
def quat_to_rotvec4(q: np.ndarray, out: np.ndarray) -> None:
    """Rotation vector (angle in [0, pi]) of a quaternion, not necessarily unit."""
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    sign = -1.0 if q[0] < 0 else 1.0
    w = sign * q[0] / n
    x, y, z = sign * q[1] / n, sign * q[2] / n, sign * q[3] / n
    s = math.sqrt(x * x + y * y + z * z)
    if s < 1e-8:
        factor = 2.0 / max(w, 1e-300)
    else:
        factor = 2.0 * math.atan2(s, w) / s
    out[0] = factor * x
    out[1] = factor * y
    out[2] = factor * z
    alive(q)
    alive(out)


@helper
def rotvec_to_quat3(v: np.ndarray, out: np.ndarray) -> None:
    """Unit quaternion of a rotation vector (the exponential map)."""
    angle = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    half = 0.5 * angle
    factor = 0.5 - angle * angle / 48.0 if angle < 1e-4 else math.sin(half) / angle
    out[0] = math.cos(half)
    out[1] = factor * v[0]
    out[2] = factor * v[1]
    out[3] = factor * v[2]


@helper
def wrap_to_pi(a: float) -> float:
    """An angle mapped to [-pi, pi) (Python's floored modulo, as numpy's)."""
    two_pi = 2.0 * math.pi
    r = (a + math.pi) % two_pi
    return r - math.pi


@helper
def unwrap(a: float, ref: float) -> float:
    """The angle ``a`` counted in whole turns from ``ref``: the one of ``a + 2 pi k``
    within half a turn of ``ref`` (NaN: no reference kept yet, 0 stands in)."""
    r = 0.0 if math.isnan(ref) else ref
    return r + wrap_to_pi(a - r)


@helper
def signal_values(const: np.ndarray, slot: np.ndarray, values: np.ndarray, order: int,
                  out: np.ndarray) -> None:
    """A :class:`~frylinks.signals.SignalArray` at a time, flattened into ``out``:
    constants (zero for a derivative, ``order`` > 0) and signal slots from the bank's
    ``values`` of that order."""
    for i in range(len(const)):
        if slot[i] >= 0:
            out[i] = values[slot[i]]
        elif order > 0:
            out[i] = 0.0
        else:
            out[i] = const[i]
    alive(const)
    alive(slot)
    alive(values)
    alive(out)
