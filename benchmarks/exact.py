"""Exact reference solutions for the peer benchmarks (see ``benchmarks/peers.py``).

* :func:`pendulum_angle`: the large-amplitude physical pendulum released at rest,
  through Jacobi elliptic functions;
* :func:`oscillator_step`: the step response of the linear damped oscillator,
  under-, critically and over-damped;
* :func:`rigid_energy`: kinetic plus potential energy of a set of rigid bodies from
  their states, for the chain's energy drift on every engine alike.

Only numpy and scipy are needed.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ellipj, ellipk


def pendulum_angle(t, theta0: float, omega0: float) -> np.ndarray:
    """Angle of a pendulum released at rest from ``theta0``.

    Solves ``phi'' = -omega0**2 sin(phi)`` with ``phi(0) = theta0``, ``phi'(0) = 0``::

        sin(phi / 2) = k sn(K(k) - omega0 t, k),   k = sin(theta0 / 2),

    so that ``phi(0) = theta0`` (``sn(K) = 1``) and ``phi`` decreases first.

    Parameters
    ----------
    t : array_like
        Times [s].
    theta0 : float
        Release angle from the downward vertical [rad], ``0 <= theta0 < pi``.
    omega0 : float
        Small-amplitude angular frequency [rad/s], ``sqrt(m g L / I_pivot)``.

    Returns
    -------
    numpy.ndarray
        ``phi(t)`` [rad]; the period is ``4 K(k) / omega0``.

    Notes
    -----
    scipy's ``ellipj`` and ``ellipk`` take the parameter ``m = k**2``.
    """
    t = np.asarray(t, dtype=float)
    k = np.sin(0.5 * theta0)
    m = k * k
    sn, _, _, _ = ellipj(ellipk(m) - omega0 * t, m)
    return 2.0 * np.arcsin(k * sn)


def oscillator_step(t, m: float, k: float, c: float, F: float) -> np.ndarray:
    """Step response of ``m x'' + c x' + k x = F`` from ``x(0) = x'(0) = 0``.

    Parameters
    ----------
    t : array_like
        Times [s], ``t >= 0``.
    m, k, c : float
        Mass [kg], stiffness [N/m] and damping [N s/m]; ``m, k > 0``, ``c >= 0``.
    F : float
        Force applied from ``t = 0`` [N].

    Returns
    -------
    numpy.ndarray
        ``x(t)`` [m], tending to ``F / k``.
    """
    t = np.asarray(t, dtype=float)
    wn = np.sqrt(k / m)
    zeta = c / (2.0 * np.sqrt(k * m))
    x_static = F / k
    if np.isclose(zeta, 1.0, rtol=1e-9, atol=0.0):
        return x_static * (1.0 - (1.0 + wn * t) * np.exp(-wn * t))
    if zeta < 1.0:
        wd = wn * np.sqrt(1.0 - zeta**2)
        decay = np.exp(-zeta * wn * t)
        return x_static * (1.0 - decay * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t)))
    root = wn * np.sqrt(zeta**2 - 1.0)
    s1, s2 = -zeta * wn + root, -zeta * wn - root  # both negative, s2 < s1
    return x_static * (1.0 + (s2 * np.exp(s1 * t) - s1 * np.exp(s2 * t)) / (s1 - s2))


def rigid_energy(mass, inertia, position, velocity, omega_local, gravity=9.81) -> float:
    """Kinetic plus potential energy [J] of rigid bodies, gravity along -z.

    Parameters
    ----------
    mass : array_like, shape (n,)
        Body masses [kg].
    inertia : array_like, shape (n, 3)
        Principal inertias about the COG in the body frame [kg m^2].
    position : array_like, shape (n, 3)
        COG positions [m] (only z enters, the potential is zero at z = 0).
    velocity : array_like, shape (n, 3)
        COG velocities [m/s].
    omega_local : array_like, shape (n, 3)
        Angular velocities in the body (principal) frame [rad/s].
    gravity : float
        ``g`` [m/s^2].

    Returns
    -------
    float
        ``sum(m v^2 / 2 + w.I.w / 2 + m g z)``.
    """
    mass = np.asarray(mass, dtype=float)
    position, velocity, omega_local = (np.asarray(a, dtype=float).reshape(-1, 3)
                                       for a in (position, velocity, omega_local))
    inertia = np.asarray(inertia, dtype=float).reshape(-1, 3)
    kinetic = 0.5 * np.sum(mass * np.sum(velocity**2, axis=1))
    kinetic += 0.5 * np.sum(inertia * omega_local**2)
    return float(kinetic + gravity * np.sum(mass * position[:, 2]))
