"""Shared closed-form helpers of the validation tests (exposed as fixtures).

Every test in this folder compares frylinks against an exact solution (closed form,
never an earlier output of the code). Each test stores the error it measured with
``record_property`` so ``pytest --junitxml`` reports the numbers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import xarray as xr
from scipy.spatial.transform import Rotation

from frylinks.model.system import Node


def quat_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices of quaternions ``[w, x, y, z]`` (scipy, independent of frylinks)."""
    q = np.asarray(q, dtype=float)
    return Rotation.from_quat(q[..., [1, 2, 3, 0]].reshape(-1, 4)).as_matrix().reshape(
        *q.shape[:-1], 3, 3)


def matrix_quat(r: np.ndarray) -> np.ndarray:
    """Quaternion ``[w, x, y, z]`` of a rotation matrix (scipy)."""
    q = Rotation.from_matrix(r).as_quat()
    return q[..., [3, 0, 1, 2]]


def damped_oscillator(t: np.ndarray, m: float, k: float, b: float, f: float, x0: float,
                      v0: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact response of ``m x'' + b x' + k x = f`` (underdamped) from ``x0``, ``v0``.

    Returns
    -------
    x, v, a
        Position, velocity and acceleration at the times ``t``.
    """
    xeq = f / k
    wn = np.sqrt(k / m)
    zeta = b / (2.0 * np.sqrt(k * m))
    assert zeta < 1.0, "underdamped only"
    wd = wn * np.sqrt(1.0 - zeta * zeta)
    A = x0 - xeq
    B = (v0 + zeta * wn * A) / wd
    e = np.exp(-zeta * wn * t)
    c, s = np.cos(wd * t), np.sin(wd * t)
    x = xeq + e * (A * c + B * s)
    v = e * ((wd * B - zeta * wn * A) * c - (wd * A + zeta * wn * B) * s)
    a = (f - k * x - b * v) / m
    return x, v, a


def node_frames(ds: xr.Dataset, node: Node) -> tuple[np.ndarray, np.ndarray]:
    """World position ``(nt, 3)`` and axes ``(nt, 3, 3)`` of ``node`` over a run,
    rebuilt from ``body_position`` and ``body_orientation`` (ground nodes are fixed)."""
    nt = ds.sizes["time"]
    rn = quat_matrix(node.orientation)
    if node.body.is_ground:
        return np.tile(node.position, (nt, 1)), np.tile(rn, (nt, 1, 1))
    x = ds.body_position.sel(body=node.body.name).values
    rb = quat_matrix(ds.body_orientation.sel(body=node.body.name).values)
    return x + rb @ node.position, rb @ rn


@pytest.fixture(scope="session")
def oscillator() -> Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`damped_oscillator`."""
    return damped_oscillator


@pytest.fixture(scope="session")
def frames() -> Callable[[xr.Dataset, Node], tuple[np.ndarray, np.ndarray]]:
    """:func:`node_frames`."""
    return node_frames


@pytest.fixture(scope="session")
def rotation() -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """(:func:`quat_matrix`, :func:`matrix_quat`)."""
    return quat_matrix, matrix_quat
