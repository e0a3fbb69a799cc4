"""What a compiled type is written with: the :func:`kernel` decorator and small helpers.

A type's kernels are plain Python functions in a numpy style that numba compiles
(loops over the block's elements, scalar arithmetic, small arrays); :func:`kernel`
compiles them with the options every frylinks kernel shares, and caches the machine
code on disk beside the module (numba's ``cache=True``), so a second run compiles
nothing. The same function serves the engine's compiled step and the type's Python
methods (which call it through numba's dispatcher).

The helpers below take and fill single rows (one vector, one quaternion) and are
meant to be called inside kernels; each is the one implementation of its formula
that the compiled code uses.

Set the environment variable ``NUMBA_DISABLE_JIT=1`` to run every kernel as plain
Python (slow; for stepping through one in a debugger).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numba import njit

F = TypeVar("F", bound=Callable[..., Any])

#: Options of every kernel: machine code cached on disk, no reassociation of floating
#: point (the compiled and the Python path agree to round-off), numpy's rules for
#: division by zero (inf and nan, not an exception), and no GIL (dask workers' threads).
OPTIONS: dict[str, Any] = {"cache": True, "fastmath": False, "error_model": "numpy",
                           "nogil": True}


def kernel(fn: F) -> F:
    """Compile ``fn`` as a frylinks kernel (see :data:`OPTIONS`)."""
    return njit(**OPTIONS)(fn)  # type: ignore[no-any-return]


@kernel
def cross3(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = a x b`` for 3-vectors (``out`` must not be ``a`` or ``b``)."""
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@kernel
def dot3(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b`` for 3-vectors."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def rotate3(R: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    """``out = R v`` for a 3x3 matrix and a 3-vector."""
    for i in range(3):
        out[i] = R[i, 0] * v[0] + R[i, 1] * v[1] + R[i, 2] * v[2]


@kernel
def rotate_back3(R: np.ndarray, v: np.ndarray, out: np.ndarray) -> None:
    """``out = R^T v`` for a 3x3 matrix and a 3-vector."""
    for i in range(3):
        out[i] = R[0, i] * v[0] + R[1, i] * v[1] + R[2, i] * v[2]


@kernel
def quat_mul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """Hamilton product ``out = a * b`` of quaternions ``[w, x, y, z]``."""
    aw, ax, ay, az = a[0], a[1], a[2], a[3]
    bw, bx, by, bz = b[0], b[1], b[2], b[3]
    out[0] = aw * bw - ax * bx - ay * by - az * bz
    out[1] = aw * bx + ax * bw + ay * bz - az * by
    out[2] = aw * by - ax * bz + ay * bw + az * bx
    out[3] = aw * bz + ax * by - ay * bx + az * bw


@kernel
def quat_conj_mul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = conj(a) * b``: the rotation from frame ``a`` to frame ``b``."""
    aw, ax, ay, az = a[0], -a[1], -a[2], -a[3]
    bw, bx, by, bz = b[0], b[1], b[2], b[3]
    out[0] = aw * bw - ax * bx - ay * by - az * bz
    out[1] = aw * bx + ax * bw + ay * bz - az * by
    out[2] = aw * by - ax * bz + ay * bw + az * bx
    out[3] = aw * bz + ax * by - ay * bx + az * bw


@kernel
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


@kernel
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


@kernel
def rotvec_to_quat3(v: np.ndarray, out: np.ndarray) -> None:
    """Unit quaternion of a rotation vector (the exponential map)."""
    angle = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    half = 0.5 * angle
    factor = 0.5 - angle * angle / 48.0 if angle < 1e-4 else math.sin(half) / angle
    out[0] = math.cos(half)
    out[1] = factor * v[0]
    out[2] = factor * v[1]
    out[3] = factor * v[2]


@kernel
def wrap_to_pi(a: float) -> float:
    """An angle mapped to [-pi, pi) (Python's floored modulo, as numpy's)."""
    two_pi = 2.0 * math.pi
    r = (a + math.pi) % two_pi
    return r - math.pi


@kernel
def unwrap(a: float, ref: float) -> float:
    """The angle ``a`` counted in whole turns from ``ref``: the one of ``a + 2 pi k``
    within half a turn of ``ref`` (NaN: no reference kept yet, 0 stands in)."""
    r = 0.0 if math.isnan(ref) else ref
    return r + wrap_to_pi(a - r)


@kernel
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
