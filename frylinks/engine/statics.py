"""Static equilibrium: the pose where every force balances, to start a run from, and
to linearise a model about (:mod:`frylinks.analysis`).

The residual is the bodies' accelerations at a pose with zero velocities, evaluated
with :attr:`ForceContext.static` set (force types leave waves out, keep current and
pretension), the pose put on the links' position constraints first. The search is
Newton's method in the links' **independent coordinates**: the small motions the links
allow, a basis ``T`` of the null space of the constraint Jacobian (:func:`null_space`),
so a pendulum has one unknown, not the six of its bob. The stiffness in them,
``K = -T^T M d(u')/dy``, comes from central differences of the engine's own
evaluation, and the step solves ``K y = T^T M u'`` (least squares: a direction without
stiffness in which nothing pushes, a free-floating body's surge in still water, takes
no step). Each step is limited to 0.3 of the model's length scale or 0.3 rad, and
halved until the residual falls (a pose that a link or force type refuses counts as no
fall). Searching in all six coordinates of each body instead (a least-squares search
over poses projected onto the links) takes its first step along directions the
projection undoes, of any size: the pendulum's bob was sent 38 km away.
"""

from __future__ import annotations

import numpy as np

from frylinks.engine.assembly import BodyMove, body_moves, turn_refusal
from frylinks.engine.evaluate import (
    constraint_terms,
    evaluate,
    link_context,
    mass_blocks,
    model_coupling,
    point_mass_terms,
    project,
)
from frylinks.engine.finite_differences import central
from frylinks.engine.model import Model, State, body_states
from frylinks.errors import SimulationError
from frylinks.forces import ForceContext
from frylinks.kinematics import node_frames
from frylinks.rotations import quat_multiply, rotvec_to_quat

Array = np.ndarray

#: Largest acceleration left at equilibrium [m s-2 or rad s-2], relative to gravity.
TOLERANCE = 1e-8
#: Newton goes on below :data:`TOLERANCE` to this (it converges quadratically: a step or
#: two), or until no step lowers the residual (round-off), so a run starts at rest.
TARGET = 1e-14
#: Singular values of the row-normalised constraint Jacobian below this fraction of the
#: largest are taken as zero (redundant rows: a doubled link, a closed loop).
RANK_TOL = 1e-9
#: Central-difference step of the stiffness, relative to the model's length scale for
#: translations, in radians for rotations.
STEP = 1e-6
#: Largest Newton step: this fraction of the length scale, or these radians.
MAX_STEP = 0.3
#: Most Newton steps, and most halvings of one step.
MAX_ITERATIONS = 100
MAX_HALVINGS = 40
#: Largest turn of a body [deg] from its initial orientation that a static equilibrium
#: may make without being asked (``solver.equilibrium_max_turn_deg``): a moored or
#: floating body settles by a few degrees; a half turn is a body that capsized, or a
#: link or mooring set up in the wrong axes.
MAX_TURN_DEG = 45.0


def null_space(model: Model, s: State) -> Array:
    """``T`` ``(6 nb, ny)``: an orthonormal (in scaled units) basis of the motions the
    links allow at ``s``, rotations scaled by the model's length scale."""
    nb = model.nb_bodies
    scale = np.tile(np.r_[np.ones(3), np.full(3, 1.0 / model.length_scale)], nb)
    if not model.nb_rows:
        return np.diag(scale)
    b = body_states(model, s)
    _, vals, _, _, _ = constraint_terms(model, b, link_context(model, s))
    G = np.zeros((model.nb_rows, 6 * nb))
    np.add.at(G, (model.solver.rows, model.solver.cols), vals)
    G = G * scale[None, :]
    norms = np.linalg.norm(G, axis=1)
    G = G[norms > 0] / norms[norms > 0, None]
    if not len(G):
        return np.diag(scale)
    _, sv, vt = np.linalg.svd(G)
    rank = int(np.sum(sv > RANK_TOL * sv[0]))
    return scale[:, None] * vt[rank:].T


def full_mass(model: Model, s: State) -> Array:
    """The mass matrix ``(6 nb, 6 nb)`` at ``s`` the engine solves with: bodies, constant
    added mass, added mass between bodies and force elements' point masses."""
    nb = model.nb_bodies
    b = body_states(model, s)
    M = np.zeros((6 * nb, 6 * nb))
    blocks = mass_blocks(model, b)
    for i in range(nb):
        M[6 * i: 6 * i + 6, 6 * i: 6 * i + 6] = blocks[i]
    coupling = model_coupling(model)
    if coupling is not None:
        U, Cm = coupling
        M += U.T @ Cm @ U
    frames = [[node_frames(b, att) for att in fblk.attachments]
              for fblk in model.force_blocks]
    fctx = ForceContext(s.t, link_context(model, s).signals[0], model.gravity, model.settings,
                        static=True)
    points = point_mass_terms(model, frames, fctx, np.zeros((nb, 6)))
    if points is not None:
        P, Cp = points
        M += P.T @ Cp @ P
    return M


def posed(model: Model, s0: State, dx: Array) -> State:
    """``s0`` moved by ``dx`` ``(nb, 6)`` (translation, rotation vector, world axes) and
    put back on the links; velocities zero."""
    s = s0.copy()
    s.x = s0.x + dx[:, :3]
    s.q = quat_multiply(rotvec_to_quat(dx[:, 3:]), s0.q)
    s.v = np.zeros_like(s0.v)
    s.w = np.zeros_like(s0.w)
    project(model, s, initial=True)
    return s


def _residual(model: Model, s: State) -> Array:
    return evaluate(model, s, static=True).udot.ravel()


def static_equilibrium(model: Model, s: State) -> float:
    """Move ``s`` (in place) to static equilibrium; velocities and force states zero
    (module doc: Newton in the links' independent coordinates).

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
    s.v[:] = 0.0
    s.w[:] = 0.0
    s.z[:] = 0.0
    scale = max(float(np.linalg.norm(model.gravity)), 1.0)
    try:
        current = posed(model, s, np.zeros((nb, 6)))
        r = _residual(model, current)
        h = STEP * model.length_scale
        for _ in range(MAX_ITERATIONS):
            if not r.size or float(np.max(np.abs(r))) <= TARGET * scale:
                break
            T = null_space(model, current)
            if not T.shape[1]:
                break
            M_b = full_mass(model, current)

            def moved(y: Array, at: State = current, T: Array = T) -> Array:
                """The residual at ``current`` moved by ``T y``."""
                return _residual(model, posed(model, at, (T @ y).reshape(nb, 6)))

            K = -T.T @ M_b @ central(moved, T.shape[1], h)
            y = np.linalg.lstsq(K, T.T @ M_b @ r, rcond=1e-12)[0]
            dx = (T @ y).reshape(nb, 6)
            big = max(float(np.max(np.abs(dx[:, :3]))) / model.length_scale,
                      float(np.max(np.abs(dx[:, 3:]))), 1e-300)
            dx *= min(1.0, MAX_STEP / big)
            for _halving in range(MAX_HALVINGS):
                try:
                    trial = posed(model, current, dx)
                    rt = _residual(model, trial)
                except SimulationError:  # a pose a link or force refuses: shorter
                    rt = None
                if rt is not None and np.linalg.norm(rt) < np.linalg.norm(r):
                    break
                dx *= 0.5
            else:
                break  # no step lowers the residual: the best pose is reached
            assert rt is not None
            current, r = trial, rt
    except SimulationError as exc:
        raise SimulationError(f"static equilibrium: {exc}") from exc
    worst = float(np.max(np.abs(r))) if r.size else 0.0
    if not worst <= TOLERANCE * scale:
        body = model.body_names[int(np.nanargmax(np.abs(r)).item() // 6)]
        raise SimulationError(
            f"no static equilibrium found: body '{body}' keeps an acceleration of "
            f"{worst:.3g} (m s-2 or rad s-2) at the best pose (is something holding it? "
            "hydrostatics, mooring, a link)", "solver.initial_equilibrium")
    s.x, s.q = current.x.copy(), current.q.copy()
    s.v[:] = 0.0
    s.w[:] = 0.0
    return worst


def initial_equilibrium(model: Model, s: State, max_turn_deg: float = MAX_TURN_DEG
                        ) -> list[BodyMove]:
    """:func:`static_equilibrium` from ``s`` (in place), refused when it turns a body by
    more than ``max_turn_deg`` [deg].

    Returns
    -------
    list of BodyMove
        How far each body moved and turned from ``s`` to the equilibrium.

    Raises
    ------
    SimulationError
        When no balanced pose is found (:func:`static_equilibrium`).
    ModelError
        At ``solver.initial_equilibrium``, when a body turned more than
        ``max_turn_deg``.
    """
    before = s.copy()
    static_equilibrium(model, s)
    moves = body_moves(model, before, s)
    error = turn_refusal(moves, max_turn_deg)
    if error is not None:
        raise error
    return moves
