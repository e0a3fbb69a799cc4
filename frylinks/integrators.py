"""Time-stepping schemes. They see the model only through :func:`engine.derivative`
and :func:`engine.project`, and yield the state at every output time.

* ``rk4``: classical fixed-step Runge-Kutta; after each step the state is projected on
  the constraints (positions, then velocities) and quaternions renormalised.
* ``dop853``: scipy's adaptive 8th-order Dormand-Prince with ``rtol``/``atol``, the same
  projection after each accepted step; outputs every ``dt`` from its dense output.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy.integrate import DOP853

from .engine import Model, State, derivative, project
from .errors import SimulationError

INTEGRATORS = ("rk4", "dop853")


def _check(s: State) -> None:
    if not (np.isfinite(s.x).all() and np.isfinite(s.v).all() and np.isfinite(s.w).all()):
        raise SimulationError("non-finite body state")


def nb_steps(t_end: float, dt: float) -> int:
    """Number of steps of size ``dt`` to reach ``t_end`` (which must be a multiple)."""
    n = round(t_end / dt)
    if n < 1 or abs(n * dt - t_end) > 1e-9 * max(1.0, t_end):
        raise SimulationError(f"t_end = {t_end:g} s is not a whole number of steps dt = {dt:g} s")
    return n


def rk4(model: Model, state: State, t_end: float, dt: float, every: int = 1
        ) -> Iterator[State]:
    """Fixed-step RK4; yields ``state`` (updated in place) at t0 and every ``every`` steps."""
    s = state
    project(model, s, initial=True)
    yield s
    n = nb_steps(t_end - s.t, dt)
    t0 = s.t
    for k in range(1, n + 1):
        y = s.pack()
        t = s.t
        k1, _ = derivative(model, s.unpacked(y, t))
        k2, _ = derivative(model, s.unpacked(y + 0.5 * dt * k1, t + 0.5 * dt))
        k3, _ = derivative(model, s.unpacked(y + 0.5 * dt * k2, t + 0.5 * dt))
        k4, _ = derivative(model, s.unpacked(y + dt * k3, t + dt))
        new = s.unpacked(y + (dt / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4), t0 + k * dt)
        _check(new)
        project(model, new)  # also advances new.angle_ref, shared with s
        s.t, s.x, s.q, s.v, s.w = new.t, new.x, new.q, new.v, new.w
        if k % every == 0:
            yield s


def dop853(model: Model, state: State, t_end: float, dt: float, every: int = 1,
           rtol: float = 1e-9, atol: float = 1e-12) -> Iterator[State]:
    """Adaptive DOP853 with projection; yields at t0 and every ``every * dt``."""
    s = state
    project(model, s, initial=True)
    yield s
    n_out = nb_steps(t_end - s.t, dt * every)
    t0 = s.t
    out_times = t0 + dt * every * np.arange(1, n_out + 1)

    def fun(t: float, y: np.ndarray) -> np.ndarray:
        return derivative(model, s.unpacked(y, t))[0]

    solver = DOP853(fun, s.t, s.pack(), t_end, rtol=rtol, atol=atol)
    i = 0
    while i < n_out:
        msg = solver.step()
        if solver.status == "failed":
            raise SimulationError(f"adaptive step failed: {msg}")
        dense = solver.dense_output()
        while i < n_out and out_times[i] <= solver.t + 1e-12 * max(1.0, abs(solver.t)):
            sample = s.unpacked(dense(out_times[i]), float(out_times[i])).copy()
            _check(sample)
            project(model, sample)
            yield sample
            i += 1
        stepped = s.unpacked(solver.y.copy(), solver.t).copy()
        _check(stepped)
        project(model, stepped)
        s.t, s.x, s.q, s.v, s.w = (stepped.t, stepped.x, stepped.q, stepped.v, stepped.w)
        s.angle_ref[:] = stepped.angle_ref
        # restart the FSAL stage from the projected state
        solver.y = s.pack()
        solver.f = fun(solver.t, solver.y)
