"""Orientations as a user gives them (case files and the Python API), made unit
quaternions [w, x, y, z], and unit axes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.params import MAX_MAGNITUDE, as_float, as_vector, check_keys, shown, try_array
from frylinks.rotations import axis_angle_to_quat, euler_to_quat, matrix_to_quat


def parse_orientation(value: Any, path: str) -> np.ndarray:
    """Unit quaternion [w, x, y, z] from any accepted orientation form.

    Accepted: None (identity); ``{quaternion: [w, x, y, z]}``; ``{euler_deg: [a, b, c],
    sequence: xyz}`` (lower case intrinsic, upper case extrinsic); ``{axis: [...],
    angle_deg: a}``; and in Python also a 4-sequence quaternion or a 3x3 matrix.
    """
    if value is None:
        return np.array([1.0, 0.0, 0.0, 0.0])
    if isinstance(value, Mapping):
        forms = ("quaternion", "euler_deg", "axis")
        given = [k for k in forms if k in value]
        if len(given) != 1:
            raise ModelError(
                "give exactly one of {quaternion: [w, x, y, z]}, "
                "{euler_deg: [a, b, c], sequence: xyz} or {axis: [x, y, z], angle_deg: a}", path)
        form = given[0]
        if form == "quaternion":
            check_keys(value, ("quaternion",), path)
            q = as_vector(value["quaternion"], f"{path}.quaternion", 4)
            norm = np.linalg.norm(q)
            if norm < 1e-12:
                raise ModelError("quaternion must not be zero", f"{path}.quaternion")
            return q / norm
        if form == "euler_deg":
            check_keys(value, ("euler_deg", "sequence"), path)
            seq = value.get("sequence", "xyz")
            if not (isinstance(seq, str) and len(seq) == 3
                    and all(c in "xyz" for c in seq.lower())
                    and (seq.islower() or seq.isupper())):
                raise ModelError(
                    f"sequence {shown(seq)}: expected three axis letters, lower case for intrinsic "
                    "(rotating) axes as 'xyz' or 'zyx', upper case for extrinsic as 'XYZ'",
                    f"{path}.sequence")
            angles = as_vector(value["euler_deg"], f"{path}.euler_deg")
            return euler_to_quat(np.radians(angles), seq)
        check_keys(value, ("axis", "angle_deg"), path)
        axis = unit_vector(value["axis"], f"{path}.axis")
        angle = as_float(value.get("angle_deg", 0.0), f"{path}.angle_deg", "degree")
        return axis_angle_to_quat(axis, np.radians(angle))
    arr = try_array(value)
    if arr is not None and arr.shape in ((4,), (3, 3)) and not in_range(arr):
        raise ModelError(f"expected finite numbers up to {MAX_MAGNITUDE:g} in magnitude, got "
                         f"{shown(value)}", path)
    if arr is not None and arr.shape == (4,) and np.linalg.norm(arr):
        return arr / np.linalg.norm(arr)
    if arr is not None and arr.shape == (3, 3):
        if not np.allclose(arr @ arr.T, np.eye(3), atol=1e-9) or np.linalg.det(arr) < 0:
            raise ModelError("a rotation matrix must be orthonormal and right-handed", path)
        return matrix_to_quat(arr)
    raise ModelError(f"unknown orientation {shown(value)}; accepted: {{quaternion: [w, x, y, "
                     "z]}, {euler_deg: [a, b, c], sequence: xyz} or {axis: [x, y, z], "
                     "angle_deg: a}", path)


def in_range(arr: np.ndarray) -> bool:
    """All finite and at most :data:`~frylinks.params.MAX_MAGNITUDE` in magnitude."""
    return bool(np.isfinite(arr).all() and (np.abs(arr) <= MAX_MAGNITUDE).all())


def unit_vector(value: Any, path: str) -> np.ndarray:
    """A 3-vector normalised to unit length; zero vectors are refused."""
    v = as_vector(value, path)
    n = np.linalg.norm(v)
    if n < 1e-12:
        raise ModelError("an axis must not be the zero vector", path)
    return v / n
