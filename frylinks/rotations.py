"""Vectorised rotation algebra: quaternions [w, x, y, z], rotation matrices, rotation vectors.

All functions take arrays with the entity first (``(n, 4)`` quaternions, ``(n, 3, 3)``
matrices) and work on any leading shape. A quaternion ``q`` maps body axes to world
axes: ``v_world = R(q) @ v_body``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from frylinks.jit import kernel

Array = NDArray[np.float64]


def skew(v: Array) -> Array:
    """Cross-product matrices ``[v]x`` of vectors ``(..., 3) -> (..., 3, 3)``."""
    out = np.zeros((*v.shape[:-1], 3, 3))
    out[..., 0, 1] = -v[..., 2]
    out[..., 0, 2] = v[..., 1]
    out[..., 1, 0] = v[..., 2]
    out[..., 1, 2] = -v[..., 0]
    out[..., 2, 0] = -v[..., 1]
    out[..., 2, 1] = v[..., 0]
    return out


def _matrix_table() -> Array:
    # R = I + 2 / |q|^2 * sum_jk q_j q_k table[4 j + k] (the off-diagonal products
    # split between (j, k) and (k, j) so the table is symmetric)
    table = np.zeros((4, 4, 3, 3))
    w, x, y, z = range(4)
    for (j, k), entries in {
        (x, x): [(1, 1, -1), (2, 2, -1)], (y, y): [(0, 0, -1), (2, 2, -1)],
        (z, z): [(0, 0, -1), (1, 1, -1)],
        (x, y): [(0, 1, 1), (1, 0, 1)], (w, z): [(0, 1, -1), (1, 0, 1)],
        (x, z): [(0, 2, 1), (2, 0, 1)], (w, y): [(0, 2, 1), (2, 0, -1)],
        (y, z): [(1, 2, 1), (2, 1, 1)], (w, x): [(1, 2, -1), (2, 1, 1)],
    }.items():
        for r, c, sign in entries:
            table[j, k, r, c] += sign * (1.0 if j == k else 0.5)
            if j != k:
                table[k, j, r, c] += sign * 0.5
    return table.reshape(16, 9)


_MATRIX = _matrix_table()
_EYE9 = np.eye(3).reshape(9)


def quat_to_matrix(q: Array) -> Array:
    """Rotation matrices of (not necessarily unit) quaternions ``(..., 4) -> (..., 3, 3)``."""
    if q.size <= SMALL:
        q = q / np.sqrt((q * q).sum(axis=-1, keepdims=True))
        out = _bilinear(q, q, _MATRIX)
        out *= 2.0
        out += _EYE9
        return out.reshape(*q.shape[:-1], 3, 3)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    out = np.empty((*q.shape[:-1], 3, 3))
    out[..., 0, 0] = 1 - 2 * (y * y + z * z)
    out[..., 0, 1] = 2 * (x * y - w * z)
    out[..., 0, 2] = 2 * (x * z + w * y)
    out[..., 1, 0] = 2 * (x * y + w * z)
    out[..., 1, 1] = 1 - 2 * (x * x + z * z)
    out[..., 1, 2] = 2 * (y * z - w * x)
    out[..., 2, 0] = 2 * (x * z - w * y)
    out[..., 2, 1] = 2 * (y * z + w * x)
    out[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return out


def matrix_to_quat(m: Array) -> Array:
    """Unit quaternions (w >= 0) of rotation matrices ``(..., 3, 3) -> (..., 4)``."""
    m = np.asarray(m, dtype=float)
    flat = m.reshape(-1, 3, 3)
    out = np.empty((flat.shape[0], 4))
    for i, r in enumerate(flat):  # only used when building models, never per step
        tr = r[0, 0] + r[1, 1] + r[2, 2]
        if tr > 0:
            s = 2.0 * np.sqrt(tr + 1.0)
            out[i] = [0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s,
                      (r[1, 0] - r[0, 1]) / s]
        elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
            s = 2.0 * np.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
            out[i] = [(r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s,
                      (r[0, 2] + r[2, 0]) / s]
        elif r[1, 1] > r[2, 2]:
            s = 2.0 * np.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
            out[i] = [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s,
                      (r[1, 2] + r[2, 1]) / s]
        else:
            s = 2.0 * np.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
            out[i] = [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s,
                      (r[1, 2] + r[2, 1]) / s, 0.25 * s]
    out *= np.where(out[:, :1] < 0, -1.0, 1.0)
    return out.reshape(*m.shape[:-2], 4)


#: Below this many output values a product is formed as an outer product contracted
#: with a constant matrix (three numpy calls); above, by components (per-call overhead
#: no longer dominates, and the components touch less memory).
SMALL = 96

# cross(a, b)_i = sum_jk a_j b_k _CROSS[3 j + k, i]
_CROSS = np.zeros((9, 3))
_CROSS[5, 0], _CROSS[7, 0] = 1.0, -1.0
_CROSS[6, 1], _CROSS[2, 1] = 1.0, -1.0
_CROSS[1, 2], _CROSS[3, 2] = 1.0, -1.0


def _shape(a: Array, b: Array) -> tuple[int, ...]:
    return a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)


def _bilinear(a: Array, b: Array, table: Array) -> Array:
    """``sum_jk a_j b_k table[j k, i]`` over the last axes: one outer product, one matmul.

    The product is a stack of one-row products, not one ``(n, 16) @ (16, 4)``: BLAS
    sums a large product in an order that depends on ``n``, and an element must not
    change at round-off with the size of its block."""
    ab = a[..., :, None] * b[..., None, :]
    out = ab.reshape(-1, 1, table.shape[0]) @ table
    return out.reshape(*ab.shape[:-2], table.shape[1])


def cross(a: Array, b: Array) -> Array:
    """Cross products of vectors ``(..., 3)`` (numpy.cross costs 20x more on small arrays)."""
    if a.size <= SMALL and b.size <= SMALL:
        return _bilinear(a, b, _CROSS)
    out = np.empty(_shape(a, b))
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


def _quat_table(conjugate: bool) -> Array:
    table = np.zeros((16, 4))
    for j in range(4):
        for k in range(4):
            a = np.zeros(4)
            b = np.zeros(4)
            a[j] = -1.0 if conjugate and j else 1.0
            b[k] = 1.0
            table[4 * j + k] = _quat_multiply(a, b)
    return table


def _quat_multiply(a: Array, b: Array, shape: tuple[int, ...] | None = None) -> Array:
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    out = np.empty(_shape(a, b) if shape is None else shape)
    out[..., 0] = aw * bw - ax * bx - ay * by - az * bz
    out[..., 1] = aw * bx + ax * bw + ay * bz - az * by
    out[..., 2] = aw * by - ax * bz + ay * bw + az * bx
    out[..., 3] = aw * bz + ax * by - ay * bx + az * bw
    return out


_QUAT = _quat_table(False)
_QUAT_CONJ = _quat_table(True)


def quat_multiply(a: Array, b: Array) -> Array:
    """Hamilton products ``a * b`` of quaternions ``(..., 4)``."""
    if a.size <= SMALL and b.size <= SMALL:
        return _bilinear(a, b, _QUAT)
    return _quat_multiply(a, b)


def quat_conj_multiply(a: Array, b: Array) -> Array:
    """Products ``conj(a) * b`` of quaternions ``(..., 4)`` (relative rotations)."""
    if a.size <= SMALL and b.size <= SMALL:
        return _bilinear(a, b, _QUAT_CONJ)
    return _quat_multiply(quat_conjugate(a), b)


def quat_conjugate(q: Array) -> Array:
    """Conjugates (inverses of unit quaternions) ``(..., 4)``."""
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def rotvec_to_quat(v: Array) -> Array:
    """Unit quaternions of rotation vectors ``(..., 3) -> (..., 4)`` (exponential map)."""
    angle = np.linalg.norm(v, axis=-1, keepdims=True)
    half = 0.5 * angle
    # sin(a/2)/a -> 1/2 as a -> 0; the series keeps full precision for tiny angles.
    small = angle < 1e-4
    safe = np.where(small, 1.0, angle)
    factor = np.where(small, 0.5 - angle**2 / 48.0, np.sin(half) / safe)
    return np.concatenate([np.cos(half), factor * v], axis=-1)


def quat_to_rotvec(q: Array) -> Array:
    """Rotation vectors (angle in [0, pi]) of quaternions ``(..., 4) -> (..., 3)``."""
    q = q / np.sqrt((q * q).sum(axis=-1, keepdims=True))
    q = q * np.where(q[..., :1] < 0, -1.0, 1.0)
    vec = q[..., 1:]
    s = np.sqrt((vec * vec).sum(axis=-1, keepdims=True))
    w = q[..., :1]
    angle = 2.0 * np.arctan2(s, w)
    small = s < 1e-8
    factor = np.where(small, 2.0 / np.maximum(w, 1e-300), angle / np.where(small, 1, s))
    return factor * vec


def axis_angle_to_quat(axis: ArrayLike, angle: float) -> Array:
    """Unit quaternion of a rotation by ``angle`` [rad] about ``axis`` (normalised here)."""
    a = np.asarray(axis, dtype=float)
    return rotvec_to_quat(a / np.linalg.norm(a) * angle)


def euler_to_quat(angles: ArrayLike, sequence: str) -> Array:
    """Unit quaternion of Euler angles [rad].

    Parameters
    ----------
    angles
        Three angles, applied in the order of ``sequence``.
    sequence
        Three axis letters; lower case is intrinsic (rotating axes), upper case extrinsic
        (fixed axes), as docs/reference/case-file.md says (the opposite of scipy's
        ``Rotation.from_euler``, where upper case is intrinsic).
    """
    q = np.array([1.0, 0.0, 0.0, 0.0])
    unit = {"x": [1.0, 0, 0], "y": [0, 1.0, 0], "z": [0, 0, 1.0]}
    for letter, angle in zip(sequence, np.asarray(angles, dtype=float), strict=True):
        step = axis_angle_to_quat(unit[letter.lower()], float(angle))
        # intrinsic: compose on the right (about the moved axes); extrinsic: on the left
        q = quat_multiply(q, step) if letter.islower() else quat_multiply(step, q)
    return q


#: Pitch within this angle of +-90 degrees [rad] is gimbal lock for
#: :func:`quat_to_roll_pitch_yaw` (scipy's ``Rotation.as_euler`` uses the same bound).
GIMBAL_LOCK = 1e-7
_COS_LOCK = math.sin(GIMBAL_LOCK)  # cos(pitch) below which pitch is +-90 deg


def quat_to_roll_pitch_yaw(q: ArrayLike) -> Array:
    """Roll, pitch and yaw [rad] of quaternions body -> world ``(..., 4) -> (..., 3)``.

    The ship convention (SNAME's nomenclature, Fossen's zyx angles): intrinsic z-y'-x''
    Euler angles, ``R = Rz(yaw) Ry(pitch) Rx(roll)``: yaw about the world z axis, then
    pitch about the once-turned y axis, then roll about the body x axis. Roll and yaw lie
    in [-pi, pi], pitch in [-pi/2, pi/2] (the same angles as scipy's
    ``Rotation.as_euler("ZYX")``, reversed). Quaternions need not be unit.

    At gimbal lock (pitch within :data:`GIMBAL_LOCK` of +-pi/2) only yaw - roll (pitch
    up) or yaw + roll (pitch down) is defined: roll is set to 0 and yaw carries the
    rotation about the vertical, as scipy does; the angles still give back the rotation.
    """
    q = np.ascontiguousarray(q, dtype=float)
    flat = q.reshape(-1, 4)
    out = np.empty((len(flat), 3))
    # compiled: called at every output sample, where a dozen numpy calls on a few
    # bodies' arrays cost ten times the arithmetic
    _roll_pitch_yaw(flat, out)
    return out.reshape((*q.shape[:-1], 3))


@kernel
def _roll_pitch_yaw(q: Array, out: Array) -> None:
    """:func:`quat_to_roll_pitch_yaw` of ``q`` ``(n, 4)`` into ``out`` ``(n, 3)``."""
    for i in range(q.shape[0]):
        n = math.sqrt(q[i, 0] ** 2 + q[i, 1] ** 2 + q[i, 2] ** 2 + q[i, 3] ** 2)
        w, x, y, z = q[i, 0] / n, q[i, 1] / n, q[i, 2] / n, q[i, 3] / n
        # the entries of R(q) the angles need
        r00, r10 = 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z)
        r20 = 2.0 * (x * z - w * y)
        # pitch from atan2 of its sine and cosine, both read off the matrix: asin(-r20)
        # loses half the digits near +-90 deg, where a ship model may well be turned over
        cos_pitch = math.hypot(r00, r10)
        out[i, 1] = math.atan2(-r20, cos_pitch)
        if cos_pitch < _COS_LOCK:
            # R = Rz(yaw -+ roll) Ry(+-90): with roll = 0, R01 and R11 give yaw
            out[i, 0] = 0.0
            out[i, 2] = math.atan2(-2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z))
        else:
            out[i, 0] = math.atan2(2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y))
            out[i, 2] = math.atan2(r10, r00)


def rotate(r: Array, v: Array) -> Array:
    """Apply rotation matrices ``(..., 3, 3)`` to vectors ``(..., 3)``."""
    if r.ndim == 3 and v.ndim == 2 and len(r) <= SMALL:
        return (r @ v[:, :, None])[:, :, 0]
    return np.einsum("...ij,...j->...i", r, v)


def rotate_back(r: Array, v: Array) -> Array:
    """Apply transposed rotation matrices ``(..., 3, 3)`` to vectors ``(..., 3)``."""
    if r.ndim == 3 and v.ndim == 2 and len(r) <= SMALL:
        return (v[:, None, :] @ r)[:, 0]
    return np.einsum("...ji,...j->...i", r, v)

