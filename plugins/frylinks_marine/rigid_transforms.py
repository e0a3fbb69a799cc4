"""Rigid-body transforms of 6-DOF coefficients: the same small motion, force or
coefficient matrix described about another reference point.

frylinks applies hydrodynamic coefficients about the centre of gravity
(:mod:`frylinks_marine.dofs`), a dataset gives them about its rotation centre: the
database (:meth:`~frylinks_marine.hydrodb.HydroDatabase.referred_to`) and the readers
(:mod:`frylinks_marine.raw_hydro`) move them with these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

Array = np.ndarray


def _skew(r: Array) -> Array:
    x, y, z = r
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def transform_matrix(from_point: Any, to_point: Any) -> Array:
    """``T (6, 6)`` with ``xi_from = T xi_to`` for small rigid-body motions.

    A motion described at ``to_point`` (translation of that point, rotation vector) is
    the same motion described at ``from_point`` through ``T``; generalised forces go the
    other way, ``F_to = T.T F_from`` (the moment picks up ``r x f``).
    """
    r = np.asarray(from_point, dtype=float) - np.asarray(to_point, dtype=float)
    t = np.eye(6)
    t[:3, 3:] = -_skew(r)
    return t


def moved_coefficients(matrix: Array, from_point: Any, to_point: Any) -> Array:
    """6x6 coefficients about ``from_point`` re-expressed about ``to_point``.

    Parameters
    ----------
    matrix
        ``(..., 6, 6)``: added mass, damping, inertia, hydrostatic stiffness.
    from_point, to_point
        ``(3,)`` [m].

    Returns
    -------
    ``T.T @ matrix @ T`` with ``T = transform_matrix(from_point, to_point)``. Exact for
    coefficients of velocities and accelerations; for a stiffness it is exact when the
    body is in equilibrium (zero net force and moment), the state frylinks linearises
    about, because the terms a change of point adds are proportional to the net load.
    """
    t = transform_matrix(from_point, to_point)
    return np.einsum("ki,...kl,lj->...ij", t, np.asarray(matrix), t)


def moved_loads(vector: Array, from_point: Any, to_point: Any) -> Array:
    """Force and moment 6-vectors ``(..., 6)`` about ``from_point`` re-expressed about
    ``to_point`` (``T.T @ vector``); complex excitation phasors too."""
    t = transform_matrix(from_point, to_point)
    return np.einsum("ki,...k->...i", t, np.asarray(vector))


def block_transform(points_from: Sequence[Array], points_to: Sequence[Array]) -> Array:
    """Block-diagonal ``T (6 N, 6 N)`` of :func:`transform_matrix` for N bodies."""
    n = len(points_from)
    t = np.zeros((6 * n, 6 * n))
    for b, (p, q) in enumerate(zip(points_from, points_to, strict=True)):
        t[6 * b: 6 * b + 6, 6 * b: 6 * b + 6] = transform_matrix(p, q)
    return t


def moved_by(matrix: Array | None, t: Array) -> Array | None:
    """``T.T @ matrix @ T`` over the last two axes of ``matrix (..., n, n)`` (None stays
    None), ``t`` a :func:`transform_matrix` or :func:`block_transform`."""
    return None if matrix is None else np.einsum("ki,...kl,lj->...ij", t, matrix, t)
