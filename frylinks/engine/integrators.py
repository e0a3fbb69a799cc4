"""Time-stepping schemes. They see the model only through :func:`engine.derivative`
and :func:`engine.project`, and yield the state at every output time.

* ``rk4``: classical fixed-step Runge-Kutta; after each step the state is projected on
  the constraints (positions, then velocities) and quaternions renormalised.
* ``dop853``: scipy's adaptive 8th-order Dormand-Prince with ``rtol``/``atol``, the same
  projection after each accepted step; outputs every ``dt`` from its dense output.
* ``generalized_alpha``: implicit, fixed step, for stiff models, with the spectral radius
  ``rho_inf`` (:mod:`frylinks.engine.implicit`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from scipy.integrate import DOP853

from frylinks.engine.checkpoint import Checkpoint, restore_memory, take
from frylinks.engine.compose import compiled_step
from frylinks.engine.evaluate import accept, derivative, project
from frylinks.engine.model import Model, State
from frylinks.engine.sampling import Batch, compiled_samples
from frylinks.errors import ModelError, SimulationError

INTEGRATORS = ("rk4", "dop853", "generalized_alpha")
#: Integrators whose ``dt`` is the output interval (their steps are their own).
ADAPTIVE = ("dop853",)
#: dop853 gives up when its step falls below this fraction of the output interval.
MIN_STEP_FRACTION = 1e-6


#: Beyond these a motion has run away, though its numbers are still finite: an explicit
#: step far above its stability limit grows by orders of magnitude a step, and would
#: otherwise run to its end and report ``completed`` with positions of 1e182 m.
MAX_DISTANCE = 1.0e12  # m, seven times the Earth-Sun distance
MAX_SPEED = 3.0e8      # m s-1, the speed of light


def check_finite(s: State) -> None:
    if not (np.isfinite(s.x).all() and np.isfinite(s.v).all() and np.isfinite(s.w).all()):
        raise SimulationError("non-finite body state")
    if s.x.size and (np.abs(s.x).max() > MAX_DISTANCE or np.abs(s.v).max() > MAX_SPEED):
        raise SimulationError(
            f"the motion runs away (a body {np.abs(s.x).max():.3g} m from the origin at "
            f"{np.abs(s.v).max():.3g} m/s): the time step is far too large for the "
            "integrator, or the model is unstable")


def fixed_steps_only(model: Model, integrator: str) -> None:
    """Refuse a model with switching links (a latch) on an integrator other than rk4:
    generalized-alpha's acceleration memory does not survive the jump of the velocity a
    latch makes (its positions then drift, and the run diverges), and dop853's steps grow
    long while a latch holds, past its release."""
    switching = sorted({blk.kind.name for blk in model.link_blocks if blk.kind.switching})
    if switching and integrator != "rk4":
        raise ModelError(f"link type {switching[0]!r} switches its constraint on and off: it "
                         f"runs with integrator rk4, not {integrator}", "solver.integrator")


def nb_steps(t_end: float, dt: float) -> int:
    """Number of steps of size ``dt`` to reach ``t_end`` (which must be a multiple)."""
    n = round(t_end / dt)
    if n < 1 or abs(n * dt - t_end) > 1e-9 * max(1.0, t_end):
        raise SimulationError(f"t_end = {t_end:g} s is not a whole number of steps dt = {dt:g} s")
    return n


def restored(model: Model, state: State, ckpt: Checkpoint) -> State:
    """``state`` (updated in place, so callers see the run go on) set to the checkpoint's."""
    c = ckpt.state.copy()
    state.set(c)
    state.angle_ref = c.angle_ref
    restore_memory(model, ckpt.memory)
    return state


OnCheckpoint = Callable[[Checkpoint], None]


def rk4(model: Model, state: State, t_end: float, dt: float, every: int = 1,
        resume: Checkpoint | None = None, on_checkpoint: OnCheckpoint | None = None,
        outputs: bool = True, batches: bool = False) -> Iterator[Any]:
    """Fixed-step RK4; yields ``state`` (updated in place) at t0 and every ``every`` steps.

    Parameters
    ----------
    model, state
        The model and the initial state (ignored when resuming).
    t_end, dt
        End time and step [s]; step ``k`` ends at ``t0 + k dt`` exactly.
    every
        Yield one state every ``every`` steps.
    resume
        Go on from this checkpoint: nothing is yielded for its own time (that sample
        was written), the next steps are those the interrupted run would have taken.
    on_checkpoint
        Called with a :class:`Checkpoint` just before the states it covers are yielded
        (None: no checkpoint is taken, and nothing is copied).
    outputs
        Whether the outputs of each sample (the model's compiled step's ``outputs``:
        accelerations, reactions, force outputs) are made as the run passes it; a loop
        that reads only the states runs faster without (they are then made when asked).
    batches
        Yield :class:`~frylinks.engine.sampling.Batch` objects instead of states: the
        samples of one call of the compiled step at once (one sample each on the Python
        path), with their outputs, for a consumer that handles many at a time (the
        runner's results).
    """
    hand = Batch.of if batches else itself
    if resume is None:
        s = state
        project(model, s, initial=True)
        accept(model, s)
        t0, k0, samples = s.t, 0, 1
        if on_checkpoint is not None:
            on_checkpoint(take(model, s, samples, step=0, t0=t0))
        yield hand(s)
    else:
        s = restored(model, state, resume)
        t0, k0, samples = resume.t0, resume.step, resume.samples
    n = nb_steps(t_end - t0, dt)
    step = compiled_step(model)
    if step is not None:
        # compiled: several output samples per call, no Python between them
        def advance(k: int, k_next: int, report: int
                    ) -> tuple[np.ndarray, SimulationError | None]:
            assert step is not None
            return step.advance_rk4(s, k, k_next, dt, t0, report, every)

        def call_end(m: int, k: int) -> None:
            assert on_checkpoint is not None
            on_checkpoint(take(model, s, m, step=k, t0=t0))

        yield from compiled_samples(step, s, k0, n, every, t0, dt, advance, samples, outputs,
                                    batches, None if on_checkpoint is None else call_end)
        return
    for k in range(k0 + 1, n + 1):
        y = s.pack()
        t = s.t
        k1, _ = derivative(model, s.unpacked(y, t))
        k2, _ = derivative(model, s.unpacked(y + 0.5 * dt * k1, t + 0.5 * dt))
        k3, _ = derivative(model, s.unpacked(y + 0.5 * dt * k2, t + 0.5 * dt))
        k4, _ = derivative(model, s.unpacked(y + dt * k3, t + dt))
        new = s.unpacked(y + (dt / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4), t0 + k * dt)
        check_finite(new)
        project(model, new)  # also advances new.angle_ref, shared with s
        s.set(new)
        accept(model, s)
        if k % every == 0:
            samples += 1
            if on_checkpoint is not None:
                on_checkpoint(take(model, s, samples, step=k, t0=t0))
            yield hand(s)


def itself(s: State) -> State:
    return s


def dop853(model: Model, state: State, t_end: float, dt: float, every: int = 1,
           rtol: float = 1e-9, atol: float = 1e-12, resume: Checkpoint | None = None,
           on_checkpoint: OnCheckpoint | None = None) -> Iterator[State]:
    """Adaptive DOP853 with projection; yields at t0 and every ``every * dt``.

    Checkpoints are taken after each accepted (and projected) step, once the samples
    that step covers have been yielded; a resumed run restarts scipy's solver there
    with the step size it would have tried next. See :func:`rk4` for the parameters.
    """
    fixed_steps_only(model, "dop853")
    if resume is None:
        s = state
        project(model, s, initial=True)
        accept(model, s)
        t0, i, h = s.t, 0, None
        if on_checkpoint is not None:
            on_checkpoint(take(model, s, 1, step=0, t0=t0))
        yield s
    else:
        s = restored(model, state, resume)
        t0, i, h = resume.t0, resume.samples - 1, resume.h
    n_out = nb_steps(t_end - t0, dt * every)
    out_times = t0 + dt * every * np.arange(1, n_out + 1)

    def fun(t: float, y: np.ndarray) -> np.ndarray:
        return derivative(model, s.unpacked(y, t))[0]

    if h is not None and np.isfinite(h):
        h = min(h, t_end - s.t)  # what the solver clips a step to at t_end anyway
    solver = DOP853(fun, s.t, s.pack(), t_end, rtol=rtol, atol=atol,
                    first_step=h if h is not None and np.isfinite(h) and h > 0 else None)
    interval = dt * every
    while i < n_out:
        msg = solver.step()
        if solver.status == "failed":
            raise SimulationError(f"adaptive step failed: {msg}")
        h_taken = solver.step_size or 0.0
        if h_taken < MIN_STEP_FRACTION * interval and solver.t < t_end:
            # a million steps per output interval: the motion runs away (or is far too
            # stiff for an explicit method); without this the run would go on for hours
            raise SimulationError(
                f"the adaptive step fell to {h_taken:.3g} s, below {MIN_STEP_FRACTION:g} of "
                f"the output interval: the motion is too fast to follow (diverging, or far "
                f"too stiff for dop853)")
        dense = solver.dense_output()
        while i < n_out and out_times[i] <= solver.t + 1e-12 * max(1.0, abs(solver.t)):
            sample = s.unpacked(dense(out_times[i]), float(out_times[i])).copy()
            check_finite(sample)
            project(model, sample)
            yield sample
            i += 1
        stepped = s.unpacked(solver.y.copy(), solver.t).copy()
        check_finite(stepped)
        project(model, stepped)
        s.set(stepped)
        s.angle_ref[:] = stepped.angle_ref
        accept(model, s)
        # restart the FSAL stage from the projected state
        solver.y = s.pack()
        solver.f = fun(solver.t, solver.y)
        if on_checkpoint is not None:
            on_checkpoint(take(model, s, i + 1, t0=t0, h=float(solver.h_abs)))
