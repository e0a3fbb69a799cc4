"""Six degrees of freedom of a body, as marine coefficients see them.

Marine coefficients (hydrostatic stiffness, damping, added mass, mooring stiffness) act
on the 6-vector ``xi = [surge, sway, heave, roll, pitch, yaw]`` of a body's COG, in
**world-aligned axes about the COG**: the translation of the COG from a reference point
[m] and the rotation from a reference orientation as a rotation vector in world axes
[rad] (for small angles, roll, pitch and yaw). Its rate is the COG velocity and the
angular velocity, world axes. Generalised forces on ``xi`` are the force at the COG and
the torque about it, world axes.

Coefficients are given per DOF, ``{heave: 1.97e5, pitch: 3.0e7}`` (a diagonal matrix),
or as a full 6x6 matrix (a list of 6 rows of 6 numbers).

The row kernels below (:func:`displacement6`, :func:`matvec6`, :func:`put_wrench`) are
what the marine types' compiled kernels share.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.jit import kernel, quat_to_rotvec4
from frylinks.params import MAX_MAGNITUDE, shown

Array = np.ndarray

#: Names of the 6 DOFs of a body, in order.
DOF_NAMES = ("surge", "sway", "heave", "roll", "pitch", "yaw")

#: Documentation of a 6x6 coefficient parameter.
MATRIX_DOC = ("per DOF ({surge, sway, heave, roll, pitch, yaw}: value) or a 6x6 matrix, "
              "world-aligned axes about the COG")


def matrix6(value: Any, path: str = "") -> Array:
    """A 6x6 coefficient matrix from per-DOF values or a 6x6 nested list.

    Raises
    ------
    ModelError
        Naming ``path`` (and the DOF key) and what is accepted.
    """
    if isinstance(value, dict):
        out = np.zeros((6, 6))
        for key, v in value.items():
            if key not in DOF_NAMES:
                raise ModelError(f"unknown DOF {shown(key)}; accepted: "
                                 f"{', '.join(DOF_NAMES)}", f"{path}.{key}" if path else str(key))
            x = _number(v, f"{path}.{key}" if path else str(key))
            i = DOF_NAMES.index(key)
            out[i, i] = x
        return out
    return _array(value, (6, 6), path, "a 6x6 matrix (6 rows of 6 numbers)")


def vector6(value: Any, path: str = "") -> Array:
    """A 6-vector from per-DOF values (missing ones 0) or a list of 6 numbers."""
    if isinstance(value, dict):
        return np.diag(matrix6(value, path)).copy()
    return _array(value, (6,), path, "6 numbers")


def _array(value: Any, shape: tuple[int, ...], path: str, what: str) -> Array:
    """``value`` as a float array of ``shape`` with numbers up to MAX_MAGNITUDE."""
    try:
        arr = np.array(value, dtype=float)
    except OverflowError:  # an integer beyond the float range
        raise ModelError(f"numbers are accepted up to {MAX_MAGNITUDE:g} in magnitude",
                         path) from None
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != shape:
        raise ModelError(f"expected per-DOF values ({', '.join(DOF_NAMES)}: number) or "
                         f"{what}, got {shown(value)}", path)
    if not (np.abs(arr) <= MAX_MAGNITUDE).all():
        raise ModelError(f"expected {what}, finite and up to {MAX_MAGNITUDE:g} in magnitude, "
                         f"got {shown(value)}", path)
    return arr


def _number(v: Any, path: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float | np.floating | np.integer):
        raise ModelError(f"expected a number, got {shown(v)}", path)
    try:
        x = float(v)
    except OverflowError:
        x = math.inf
    if not abs(x) <= MAX_MAGNITUDE:
        raise ModelError(f"expected a finite number up to {MAX_MAGNITUDE:g} in magnitude, "
                         f"got {shown(v)}", path)
    return x


@kernel
def quat_mul_conj(a: Array, b: Array, out: Array) -> None:
    """``out = a * conj(b)``: the rotation from orientation ``b`` to ``a``, world axes."""
    aw, ax, ay, az = a[0], a[1], a[2], a[3]
    bw, bx, by, bz = b[0], -b[1], -b[2], -b[3]
    out[0] = aw * bw - ax * bx - ay * by - az * bz
    out[1] = aw * bx + ax * bw + ay * bz - az * by
    out[2] = aw * by - ax * bz + ay * bw + az * bx
    out[3] = aw * bz + ax * by - ay * bx + az * bw


@kernel
def displacement6(p: Array, q: Array, p_ref: Array, q_ref: Array, work: Array,
                  out: Array) -> None:
    """``xi`` of one body: COG position ``p (3,)`` and quaternion ``q (4,)`` from the
    reference ``p_ref, q_ref``, into ``out (6,)`` (the rotation vector in world axes);
    ``work (4,)`` is scratch."""
    for k in range(3):
        out[k] = p[k] - p_ref[k]
    quat_mul_conj(q, q_ref, work)
    quat_to_rotvec4(work, out[3:])


@kernel
def displacement_kernel(p: Array, q: Array, p_ref: Array, q_ref: Array, out: Array) -> None:
    """:func:`displacement6` of every element into ``out (n, 6)``."""
    work = np.empty(4)
    for i in range(len(p)):
        displacement6(p[i], q[i], p_ref[i], q_ref[i], work, out[i])


@kernel
def matvec6(matrix: Array, x: Array, scale: float, out: Array) -> None:
    """``out += scale * matrix @ x`` for one element: ``(6, 6) @ (6,)``."""
    for i in range(6):
        acc = 0.0
        for j in range(6):
            acc += matrix[i, j] * x[j]
        out[i] += scale * acc


@kernel
def put_wrench(generalised: Array, force: Array, torque: Array) -> None:
    """A generalised force ``(6,)`` at the COG into ``force (3,)`` and ``torque (3,)``."""
    for k in range(3):
        force[k] = generalised[k]
        torque[k] = generalised[3 + k]


def displacement(p: Array, q: Array, p_ref: Array, q_ref: Array) -> Array:
    """``xi`` of bodies at COG positions ``p (n, 3)`` and quaternions ``q (n, 4)`` from
    the reference ``p_ref, q_ref``: ``(n, 6)``, the rotation vector in world axes
    (:func:`displacement6` on each)."""
    p, q, p_ref, q_ref = (np.ascontiguousarray(a, dtype=float) for a in (p, q, p_ref, q_ref))
    out = np.zeros((len(p), 6))
    displacement_kernel(p.reshape(-1, 3), q.reshape(-1, 4), p_ref.reshape(-1, 3),
                        q_ref.reshape(-1, 4), out)
    return out
