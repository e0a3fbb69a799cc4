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
import warnings
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.jit import kernel, quat_to_rotvec4, scratch
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


#: Relative asymmetry of an added-mass matrix (:func:`added_mass_asymmetry`) up to which
#: it is round-off: symmetrised without a word.
ASYMMETRY_ROUND_OFF = 1e-6
#: Relative asymmetry above which an added-mass matrix is refused; between the two it is
#: symmetrised with a warning (:func:`symmetric_added_mass`).
ASYMMETRY_LIMIT = 0.5
#: Most negative eigenvalue of the diagonally scaled added mass that is taken as noise
#: (a sphere's sway-roll block about its COG is singular: noise makes it +-1e-7).
NEGATIVE_LIMIT = -1e-2


def _dof_label(i: int, n: int) -> str:
    return DOF_NAMES[i] if n == 6 else f"body {i // 6 + 1} {DOF_NAMES[i % 6]}"


def _diagonal_scale(m: Array) -> Array:
    """``|A_ii|`` floored at 1e-6 of the largest of its kind (translations, rotations),
    so that a DOF without added mass (a sphere's yaw) does not blow up the scaling (1 for
    a kind without any)."""
    d = np.abs(np.diag(m)).astype(float)
    kind = (np.arange(d.size) % 6) >= 3
    for group in (kind, ~kind):
        if group.any():  # a kind without any added mass: its rows are zero, scale 1
            top = d[group].max()
            d[group] = np.maximum(d[group], 1e-6 * top) if top > 0 else 1.0
    return d


def added_mass_asymmetry(matrix: Any) -> tuple[float, int, int]:
    """The relative asymmetry of an added-mass matrix and where it is largest.

    With ``S = D^-1/2 A D^-1/2``, ``D`` the diagonal (:func:`_diagonal_scale`), the
    asymmetry is ``max |S_ij - S_ji| / 2``: half the difference of the two estimates of
    a coupling, in units of ``sqrt(A_ii A_jj)``, the largest a coupling of a positive
    definite matrix can be (``|S_ij| <= 1``). Independent of units and of the DOFs'
    scales (kg for surge, kg m^2 for pitch).

    Returns
    -------
    asymmetry, i, j
        ``i, j`` the entry with the largest one (0, 0 for a symmetric matrix).
    """
    m = np.asarray(matrix, dtype=float)
    d = _diagonal_scale(m)
    if not (d > 0).all():
        return 0.0, 0, 0
    s = m / np.sqrt(np.outer(d, d))
    gap = np.abs(s - s.T) / 2
    i, j = np.unravel_index(int(np.argmax(gap)), gap.shape)
    return float(gap[i, j]), int(min(i, j)), int(max(i, j))


def symmetric_added_mass(matrix: Any, what: str, path: str = "", *, warn: bool = True,
                         stacklevel: int = 2) -> Array:
    """The rule every force type that adds mass applies: the symmetric added mass.

    Reciprocity makes an added mass symmetric; BEM data are so only to their numerical
    accuracy (Capytaine's indirect method puts the surge-pitch terms of RM3's float 15 %
    apart in the measure below), and the engine's constraint solve factors ``G M^-1
    G^T`` by Cholesky, which needs a symmetric ``M``. So:

    * asymmetry (:func:`added_mass_asymmetry`) up to :data:`ASYMMETRY_ROUND_OFF`: the
      matrix is symmetrised, ``(A + A^T) / 2``, silently (round-off);
    * up to :data:`ASYMMETRY_LIMIT`: symmetrised, with a ``UserWarning`` stating the
      asymmetry, the DOF pair and both values (the average of two estimates of the same
      coupling is the best estimate of it);
    * above: refused. The two estimates of a coupling then differ by more than the
      coupling can be: not noise but wrong data (swapped DOFs, a sign, a reference point
      applied to rows only).

    The symmetrised matrix is refused too if it has an eigenvalue below
    :data:`NEGATIVE_LIMIT` once scaled by its diagonal (a negative added mass).

    Parameters
    ----------
    matrix
        ``(n, n)``, ``n`` a multiple of 6 (DOFs of one or several bodies).
    what
        What the matrix is, for messages (``'buoy.nc': infinite-frequency added mass``).
    path
        Key path for the error.
    warn
        Whether to warn (False once it has been said, e.g. at validation).

    Raises
    ------
    ModelError
        Naming ``what``, the asymmetry and the DOFs, and what is accepted.
    """
    m = np.asarray(matrix, dtype=float)
    n = m.shape[0]
    a, i, j = added_mass_asymmetry(m)
    pair = f"{_dof_label(i, n)} and {_dof_label(j, n)}: {m[i, j]:.4g} and {m[j, i]:.4g}"
    if a > ASYMMETRY_LIMIT:
        raise ModelError(
            f"{what} is far from symmetric (relative asymmetry {a:.3g} between {pair}); "
            f"accepted: up to {ASYMMETRY_LIMIT:g} (symmetrised with a warning above "
            f"{ASYMMETRY_ROUND_OFF:g}). An added mass is symmetric (reciprocity): check the "
            "DOF order, the signs and the point the moments are about", path)
    sym = 0.5 * (m + m.T)
    if a > ASYMMETRY_ROUND_OFF and warn:
        warnings.warn(f"{what} is not symmetric (relative asymmetry {a:.3g}, largest between "
                      f"{pair}); it is used symmetrised, (A + A^T) / 2, as reciprocity "
                      "requires", UserWarning, stacklevel=stacklevel + 1)
    d = _diagonal_scale(sym)
    if (d > 0).all():
        low = float(np.linalg.eigvalsh(sym / np.sqrt(np.outer(d, d))).min())
        if low < NEGATIVE_LIMIT:
            raise ModelError(f"{what} must not be negative: scaled by its diagonal, its "
                             f"eigenvalues include {low:.3g} (accepted down to "
                             f"{NEGATIVE_LIMIT:g}, noise)", path)
    return sym


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
    work = scratch(4)
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
