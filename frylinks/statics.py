"""Static equilibrium: the pose where every force balances, to start a run from.

Unknowns are the bodies' poses, a translation and a rotation vector per body (6 nb).
The residual is the bodies' accelerations at that pose with zero velocities, evaluated
with :attr:`ForceContext.static` set (force types leave waves out, keep current and
pretension) after the pose is projected onto the links' position constraints. It is
the generalised force imbalance divided by the mass, so translations and rotations of
very different bodies weigh alike. Motions the links forbid do not change the residual
(the projection undoes them), which the Levenberg-Marquardt steps of
:func:`scipy.optimize.least_squares` tolerate; so do directions without stiffness in
which nothing pushes (a free-floating body's surge in still water).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares

from .engine import Model, State, evaluate, project
from .errors import SimulationError
from .rotations import quat_multiply, rotvec_to_quat

Array = np.ndarray

#: Largest acceleration left at equilibrium [m s-2 or rad s-2], relative to gravity.
TOLERANCE = 1e-8


def static_equilibrium(model: Model, s: State) -> float:
    """Move ``s`` (in place) to static equilibrium; velocities and force states zero.

    Returns
    -------
    float
        The largest acceleration left [m s-2 or rad s-2].

    Raises
    ------
    SimulationError
        When no balanced pose is found (a body that sinks or floats away, with nothing
        to hold it), naming the body and its residual acceleration.
    """
    nb = model.nb_bodies
    x0, q0 = s.x.copy(), s.q.copy()
    s.v[:] = 0.0
    s.w[:] = 0.0
    s.z[:] = 0.0
    scale = max(float(np.linalg.norm(model.gravity)), 1.0)
    trial = s.copy()

    def pose(y: Array) -> State:
        d = y.reshape(nb, 6)
        trial.x = x0 + d[:, :3] * model.length_scale
        trial.q = quat_multiply(rotvec_to_quat(d[:, 3:]), q0)
        trial.v, trial.w = np.zeros_like(s.v), np.zeros_like(s.w)
        project(model, trial, initial=True)
        return trial

    def residual(y: Array) -> Array:
        st = pose(y)
        return evaluate(model, st, static=True).udot.ravel() / scale

    try:
        sol = least_squares(residual, np.zeros(6 * nb), method="lm", xtol=1e-15, ftol=1e-15,
                            gtol=1e-15, max_nfev=200 * (6 * nb + 1))
    except SimulationError as exc:
        raise SimulationError(f"static equilibrium: {exc}") from exc
    st = pose(sol.x)
    udot = evaluate(model, st, static=True).udot
    worst = float(np.max(np.abs(udot))) if udot.size else 0.0
    if not worst <= TOLERANCE * scale:
        body = model.body_names[int(np.nanargmax(np.abs(udot)).item() // 6)]
        raise SimulationError(
            f"no static equilibrium found: body '{body}' keeps an acceleration of "
            f"{worst:.3g} (m s-2 or rad s-2) at the best pose (is something holding it? "
            "hydrostatics, mooring, a link)", "solver.initial_equilibrium")
    s.x, s.q = st.x.copy(), st.q.copy()
    s.v[:] = 0.0
    s.w[:] = 0.0
    return worst
