"""The assembled model and its evaluation: forces, constraints, accelerations.

:class:`Model` is the immutable, array form of a :class:`~frylinks.model.system.System`
(pinocchio's ``Model``): bodies as arrays, links and forces grouped by type into
blocks. :class:`State` is plain arrays (pinocchio's ``Data`` is what
:func:`evaluate` returns). The time-stepping schemes in :mod:`frylinks.engine.integrators`
only call :func:`derivative` and :func:`project`, so an implicit scheme can reuse the
same residuals and Jacobians.

Equations of motion (maximal coordinates, world axes, per body ``u = [v, w]``)::

    M u' = f(t, x, u) + G^T lam        G u' = c(t, x, u)

with ``M = diag(m I, R I_b R^T)``, ``f`` gravity, forces, link spring-dampers and the
gyroscopic term ``-w x (I w)``; ``G`` stacks every link's ``rows @ J``. After each step
the state is projected back onto the position and velocity constraints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg

from frylinks.engine import kernels as K
from frylinks.engine import newton as N
from frylinks.engine.model import ForceBlock, Model, State, body_states
from frylinks.engine.step_data import core_data
from frylinks.errors import SimulationError
from frylinks.forces import ForceContext, ForceType
from frylinks.kinematics import BodyStates, NodeFrames, Relative, node_frames, relative
from frylinks.links import DOFS, LinkContext, LinkType
from frylinks.rotations import cross, quat_multiply, skew

Array = np.ndarray


#: A step that leaves a constraint residual above this fraction of the model's size
#: (largest coordinate, at least 1 m) has diverged.
DIVERGED = 1e-2


@dataclass
class Evaluation:
    """Everything computed at one state (pinocchio's ``Data``).

    Attributes
    ----------
    udot : (nb, 6) COG acceleration and angular acceleration, world axes.
    lam : (nb_rows,) constraint multipliers.
    rel : per link block, its :class:`Relative`.
    spring : per link block, the generalised spring-damper forces ``(n, nf)``.
    force_wrench : per force block, ``(force, torque)`` each ``(n, natt, 3)``.
    zdot : (nz,) time derivative of the force types' states.
    """

    udot: Array
    lam: Array
    rel: list[Relative]
    spring: list[Array | None]
    force_wrench: list[tuple[Array, Array]]
    link_ctx: LinkContext
    force_frames: list[list[NodeFrames]]
    force_ctx: ForceContext
    zdot: Array = field(default_factory=lambda: np.zeros(0))


def link_context(model: Model, s: State) -> LinkContext:
    """What the link types read at ``s`` besides the kinematics: the time, the model's
    signals and their first two derivatives, the unwrapping references."""
    if model.signals.nb_slots:
        values = [model.signals.evaluate(s.t, k) for k in range(3)]
    else:
        values = [np.zeros(0)] * 3
    return LinkContext(s.t, values, s.angle_ref)


def constraint_terms(model: Model, b: BodyStates, ctx: LinkContext,
                     angle_out: Array | None = None, positions: bool = False
                     ) -> tuple[list[Relative], Array, Array, Array, Array]:
    """Per-block kinematics and the stacked values of G, residual (with ``positions``,
    else empty), velocity and acceleration right-hand sides (``c`` of the module doc).
    With ``angle_out``, the unwrapped angles of single-rotation links are stored there.
    The rows go through the compiled step's own kernel (:func:`.kernels.add_rows`)."""
    rels: list[Relative] = []
    nr = model.nb_rows
    values = np.zeros(12 * nr)
    vel = np.zeros(nr)
    acc = np.zeros(nr)
    row_tau = np.zeros((nr, 6))
    res = np.zeros(nr) if positions else np.zeros(0)
    masks = []
    for blk in model.link_blocks:
        rel = relative(b, blk.master, blk.slave, need_bias=not positions)
        rels.append(rel)
        sub = LinkContext(ctx.t, ctx.signals, ctx.angle_ref[blk.index])
        if angle_out is not None:
            angle = blk.kind.unwrap_angle(rel, sub)
            if angle is not None:
                angle_out[blk.index] = angle
        cons = blk.kind.constraints(rel, sub)
        rows = np.ascontiguousarray(cons.rows, dtype=float)
        K.add_rows(values, vel, acc, row_tau, rows,
                   np.ascontiguousarray(cons.velocity, dtype=float).reshape(rows.shape[:2]),
                   np.ascontiguousarray(cons.acceleration, dtype=float).reshape(rows.shape[:2]),
                   rel, blk.row_start, rel.constraint_jacobian(rows))
        masks.append(blk.value_mask)
        if positions:
            n = blk.kind.nb_links * blk.kind.nb_constraints
            res[blk.row_start: blk.row_start + n] = blk.kind.residual(rel, sub).reshape(-1)
    vals = values[np.concatenate(masks)] if masks else np.zeros(0)
    return rels, vals, res, vel, acc


def mass_blocks(model: Model, b: BodyStates) -> Array:
    """Each body's 6x6 mass matrix about its COG, world axes, added mass included."""
    M = np.empty((model.nb_bodies, 6, 6))
    N.mass_blocks(_core(model), b.R, model.nb_bodies, M)
    return M


def _mass_inverse(model: Model, b: BodyStates) -> Array:
    """Block inverse of the bodies' mass matrices, ``(nb, 6, 6)`` (the compiled step's
    kernel; the added mass between bodies is :func:`model_coupling`)."""
    return K.mass_inverse(_core(model), b, model.nb_bodies).blocks


def model_coupling(model: Model) -> tuple[Array, Array] | None:
    """The added mass between bodies as a coupling ``(U, C)`` of the constraint solver
    (:meth:`frylinks.engine.linalg.ConstraintSolver.factor`): ``U`` selects the coupled bodies'
    velocities."""
    if model.mass_coupling is None:
        return None
    coupling = getattr(model, "_coupling", None)  # built once per model
    if coupling is None:
        coupled, C = model.mass_coupling
        cols = (6 * coupled[:, None] + np.arange(6)).reshape(-1)
        U = np.zeros((len(cols), 6 * model.nb_bodies))
        U[np.arange(len(cols)), cols] = 1.0
        coupling = model._coupling = (U, C)  # type: ignore[attr-defined]
    return coupling


def joined(*couplings: tuple[Array, Array] | None) -> tuple[Array, Array] | None:
    """Several couplings ``(U, C)`` as one (``U`` stacked, ``C`` block diagonal)."""
    parts = [c for c in couplings if c is not None]
    if len(parts) <= 1:
        return parts[0] if parts else None
    return np.concatenate([u for u, _ in parts]), scipy.linalg.block_diag(*[c for _, c in parts])


def added_mass_forces(blk: ForceBlock, udot: Array) -> Array:
    """The added-mass force ``-A u'`` on each element of a force block ``(..., n, 6)``
    (force and torque about the COG, world axes) at the accelerations ``udot (..., nb,
    6)``, the added mass between bodies included: it sits in the mass matrix, and is
    reported as the element's wrench."""
    u = udot[..., blk.attachments[0].body, :]
    out = np.zeros(u.shape)
    if blk.added is not None:
        out -= np.einsum("nij,...nj->...ni", blk.added, u)
    if blk.coupled is not None:
        flat = u.reshape(*u.shape[:-2], -1)
        out -= np.einsum("ij,...j->...i", blk.coupled, flat).reshape(u.shape)
    return out


def _core(model: Model) -> tuple[Any, ...]:
    """The model's arrays as the core kernels take them (built once per model)."""
    core = getattr(model, "_core", None)
    if core is None:
        core = model._core = core_data(model)  # type: ignore[attr-defined]
    return core


def evaluate(model: Model, s: State, static: bool = False) -> Evaluation:
    """Accelerations and multipliers at state ``s`` (solves the equations of motion).

    With ``static``, force types are told the engine seeks static equilibrium
    (:attr:`ForceContext.static`)."""
    b = body_states(model, s)
    ctx = link_context(model, s)
    rels, vals, _res, _vel, acc = constraint_terms(model, b, ctx)
    Minv = _mass_inverse(model, b)
    loads = applied(model, s, b, rels, ctx, static)
    model.solver.factor(vals, Minv, joined(model_coupling(model), loads.coupling))
    a0 = model.solver.minv(loads.f)
    lam = model.solver.solve_multipliers(acc - model.solver.G_dot(a0))
    udot = a0 + model.solver.minv(model.solver.G_T(lam))
    return Evaluation(udot, lam, rels, loads.springs, loads.wrenches, ctx, loads.frames,
                      loads.ctx, state_derivatives(model, s, loads))


@dataclass
class Loads:
    """Applied generalised forces at a state, and what produced them.

    Attributes
    ----------
    f : (nb, 6) force and torque about the COG on every body (world axes): gravity,
        the gyroscopic term, link spring-dampers, force elements and the weight and
        velocity-product part of point masses.
    springs, wrenches, frames, ctx : as in :class:`Evaluation`.
    coupling : point masses ``(P, C)`` (see :func:`point_mass_terms`), or None.
    """

    f: Array
    springs: list[Array | None]
    wrenches: list[tuple[Array, Array]]
    frames: list[list[NodeFrames]]
    ctx: ForceContext
    coupling: tuple[Array, Array] | None


def applied(model: Model, s: State, b: BodyStates, rels: list[Relative], ctx: LinkContext,
            static: bool = False) -> Loads:
    """Every applied force at state ``s`` (``b``, ``rels`` and ``ctx`` computed there)."""
    nb = model.nb_bodies
    f = np.empty((nb + 1, 6))
    K.body_loads(_core(model), b, nb, f)  # weight and gyroscopic torques

    springs: list[Array | None] = []
    for blk, rel in zip(model.link_blocks, rels, strict=True):
        if not blk.has_spring:
            springs.append(None)
            continue
        sub = LinkContext(ctx.t, ctx.signals, ctx.angle_ref[blk.index])
        gpos, gvel = blk.kind.coordinates(rel, sub)
        E = blk.kind.free_basis(rel)
        n, nf = blk.kind.nb_links, blk.kind.nb_free
        Q = np.empty((n, nf))
        K.link_spring(
            f, rel, np.ascontiguousarray(blk.K, dtype=float).reshape(n, nf, nf),
            np.ascontiguousarray(blk.B, dtype=float).reshape(n, nf, nf),
            np.ascontiguousarray(blk.r0, dtype=float).reshape(n, nf),
            np.ascontiguousarray(gpos, dtype=float), np.ascontiguousarray(gvel, dtype=float),
            np.ascontiguousarray(E, dtype=float), blk.master.body, blk.slave.body, Q,
            np.empty((n, 6)), np.empty((n, 12)))
        springs.append(Q)

    fctx = ForceContext(s.t, ctx.signals[0], model.gravity, model.settings, static=static)
    wrenches: list[tuple[Array, Array]] = []
    all_frames: list[list[NodeFrames]] = []
    for fblk in model.force_blocks:
        frames = [node_frames(b, att) for att in fblk.attachments]
        all_frames.append(frames)
        fctx.states = s.z[fblk.states]
        force, torque = fblk.kind.evaluate(frames, fctx)
        wrenches.append((force, torque))
        for k, (att, fr) in enumerate(zip(fblk.attachments, frames, strict=True)):
            K.add_wrenches(f, att.body, fr.r, np.ascontiguousarray(force, dtype=float),
                           np.ascontiguousarray(torque, dtype=float), k)
    fctx.states = np.zeros(0)
    f = f[:nb]
    coupling = point_mass_terms(model, all_frames, fctx, f)
    return Loads(f, springs, wrenches, all_frames, fctx, coupling)


def state_derivatives(model: Model, s: State, loads: Loads) -> Array:
    """Time derivative of the force types' states ``s.z`` (radiation memory)."""
    zdot = np.zeros(len(s.z))
    fctx = loads.ctx
    for fblk, frames in zip(model.force_blocks, loads.frames, strict=True):
        if fblk.kind.nb_states:
            fctx.states = s.z[fblk.states]
            zdot[fblk.states] = fblk.kind.state_derivative(frames, fctx)
    fctx.states = np.zeros(0)
    return zdot


def point_mass_terms(model: Model, all_frames: list[list[NodeFrames]], ctx: ForceContext,
                     f: Array) -> tuple[Array, Array] | None:
    """Point masses of force elements: a coupling ``(P, C)`` for the solver, ``C`` the
    masses on the diagonal; their weight and the velocity-product part of their
    acceleration are added to ``f`` (in place).

    A point at ``sum_i w_i p_i`` moves with ``P u``, ``P = sum_i w_i [I, -[r_i]x]`` on
    the attached bodies' columns, and accelerates with ``P u' + sum_i w_i w x (w x r_i)``;
    its equation ``m (P u' + bias - g) = 0`` enters as ``M += m P^T P`` and
    ``f += m P^T (g - bias)``.
    """
    nb = model.nb_bodies
    rows: list[Array] = []
    masses: list[Array] = []
    for fblk, frames in zip(model.force_blocks, all_frames, strict=True):
        if not fblk.has_point_masses:
            continue
        pm = fblk.kind.point_masses(frames, ctx)
        if pm is None:
            continue
        mass, weights = pm
        keep = mass > 0
        if not keep.any():
            continue
        n = int(keep.sum())
        P = np.zeros((n, 3, 6 * (nb + 1)))
        bias = np.zeros((n, 3))
        for i, (att, fr) in enumerate(zip(fblk.attachments, frames, strict=True)):
            w = weights[keep, i][:, None, None]
            cols = 6 * att.body[keep][:, None] + np.arange(6)
            block = np.concatenate([np.broadcast_to(np.eye(3), (n, 3, 3)),
                                    -skew(fr.r[keep])], axis=2) * w
            np.add.at(P, (np.arange(n)[:, None, None], np.arange(3)[None, :, None],
                          cols[:, None, :]), block)
            bias += weights[keep, i][:, None] * cross(fr.w[keep], cross(fr.w[keep], fr.r[keep]))
        P = P[:, :, : 6 * nb]  # ground columns dropped
        m = mass[keep]
        load = m[:, None] * (ctx.gravity - bias)
        f += np.einsum("nij,ni->j", P, load).reshape(nb, 6)
        rows.append(P.reshape(3 * n, 6 * nb))
        masses.append(m)
    if not rows:
        return None
    return np.concatenate(rows), np.diag(np.repeat(np.concatenate(masses), 3))


def derivative(model: Model, s: State) -> tuple[Array, Evaluation]:
    """Time derivative of the ODE vector ``[x, q, v, w]`` at ``s``."""
    ev = evaluate(model, s)
    wq = np.zeros((len(s.w), 4))
    wq[:, 1:] = s.w
    qdot = 0.5 * quat_multiply(wq, s.q)
    return np.concatenate([s.v.ravel(), qdot.ravel(), ev.udot[:, :3].ravel(),
                           ev.udot[:, 3:].ravel(), ev.zdot]), ev


def project(model: Model, s: State, iterations: int = 4, initial: bool = False) -> float:
    """Put ``s`` back on the position and velocity constraints (in place).

    Mass-weighted least-change Newton steps on the position residual, then one exact
    projection of the velocities; quaternions are renormalised and the unwrapping
    references of single-rotation links updated (a reference needs only be within pi
    of the angle, so the pre-correction angle serves). Returns the largest position
    residual before the last correction.

    With ``initial``, the state is a user's initial guess: it may start far from the
    constraints (nodes given roughly), so more Newton steps are allowed and no
    divergence is declared.
    """
    K.normalise(s.q)
    if not model.nb_rows:
        update_angle_refs(model, s)
        return 0.0
    tol = 1e-14 * model.length_scale
    limit = 50 if initial else iterations
    worst = np.inf
    it = 0
    last = False
    while True:
        b = body_states(model, s)
        ctx = link_context(model, s)
        _, vals, res, vel, _ = constraint_terms(model, b, ctx, s.angle_ref if it == 0 else None,
                                            positions=True)
        worst = float(np.max(np.abs(res))) if len(res) else 0.0
        if not (worst <= DIVERGED * model.length_scale or (initial and np.isfinite(worst))):
            raise SimulationError(
                f"constraint violation {worst:.3g} after a step (worst link "
                f"'{_worst_link(model, res)}'); the step is too large for this model "
                "(reduce dt)")
        Minv = _mass_inverse(model, b)
        model.solver.factor(vals, Minv, model_coupling(model))
        if worst <= tol or it == limit or last:
            break
        K.move(s.x, s.q, np.ascontiguousarray(model.solver.correction(res)))
        it += 1
        # Newton converges quadratically: from here one step reaches round-off, so the
        # next pass only refreshes G at the corrected positions for the velocity step
        last = worst < 1e-7 * model.length_scale and not initial
    if initial and worst > 1e-9 * model.length_scale:
        link = _worst_link(model, res)
        raise SimulationError(
            f"the initial positions cannot be assembled: link '{link}' "
            f"stays violated by {worst:.3g} (m or rad); check its nodes and the bodies' "
            "positions and orientations", f"links.{link}")
    u = np.concatenate([s.v, s.w], axis=1)
    du = model.solver.correction(model.solver.G_dot(u) - vel)
    s.v += du[:, :3]
    s.w += du[:, 3:]
    return worst


def _worst_link(model: Model, res: Array) -> str:
    return model.link_names[model.row_link[int(np.nanargmax(np.abs(res)))]]


def accept(model: Model, s: State) -> None:
    """Tell the link and force types that accept states (:meth:`LinkType.accept`,
    :meth:`ForceType.accept`) the accepted state ``s``: the start of a run or the end
    of a step."""
    blocks = [blk for blk in model.force_blocks if _accepts(blk.kind, ForceType)]
    links = [blk for blk in model.link_blocks if _accepts(blk.kind, LinkType)]
    if not blocks and not links:
        return
    b = body_states(model, s)
    ctx = link_context(model, s)
    for lblk in links:
        rel = relative(b, lblk.master, lblk.slave, need_bias=False)
        lblk.kind.accept(rel, LinkContext(ctx.t, ctx.signals, s.angle_ref[lblk.index]))
    fctx = ForceContext(s.t, ctx.signals[0], model.gravity, model.settings)
    for blk in blocks:
        fctx.states = s.z[blk.states]
        blk.kind.accept([node_frames(b, att) for att in blk.attachments], fctx)


def _accepts(kind: Any, base: type) -> bool:
    """Whether a type accepts states: its ``accept`` kernel, or (a plain-numpy type on
    the Python path) its own ``accept`` method."""
    return (type(kind).accept is not base.accept  # type: ignore[attr-defined]
            or (kind.kernels is not None and kind.kernels.accept is not None))


def update_angle_refs(model: Model, s: State) -> None:
    """Record the unwrapped angles of single-rotation links at an accepted step."""
    b = body_states(model, s)
    ctx = link_context(model, s)
    for blk in model.link_blocks:
        sub = LinkContext(ctx.t, ctx.signals, s.angle_ref[blk.index])
        rel = relative(b, blk.master, blk.slave, need_bias=False)
        angle = blk.kind.unwrap_angle(rel, sub)
        if angle is not None:
            s.angle_ref[blk.index] = angle


def link_outputs(model: Model, ev: Evaluation) -> dict[str, Array]:
    """Per-link results at an evaluation, in the model's link order (docs/reference/results.md)."""
    nl = len(model.link_names)
    out = {
        "link_displacement": np.zeros((nl, 6)),
        "link_velocity": np.zeros((nl, 6)),
        "link_reaction_force": np.zeros((nl, 3)),
        "link_reaction_torque": np.zeros((nl, 3)),
        "link_spring_force": np.zeros((nl, 6)),
        "link_power": np.zeros(nl),
    }
    for blk, rel, Q in zip(model.link_blocks, ev.rel, ev.spring, strict=True):
        sub = LinkContext(ev.link_ctx.t, ev.link_ctx.signals, ev.link_ctx.angle_ref[blk.index])
        n, nc = blk.kind.nb_links, blk.kind.nb_constraints
        cons = blk.kind.constraints(rel, sub)
        lam = ev.lam[blk.row_start: blk.row_start + n * nc].reshape(n, nc)
        mu = np.einsum("nci,nc->ni", cons.rows, lam)
        i = blk.index
        out["link_displacement"][i] = blk.kind.displacement(rel, sub)
        out["link_velocity"][i] = rel.tau
        out["link_reaction_force"][i] = mu[:, :3]
        out["link_reaction_torque"][i] = mu[:, 3:]
        if Q is not None:
            free = np.array([DOFS.index(d) for d in blk.kind.free_dofs])
            out["link_spring_force"][np.ix_(i, free)] = Q
            _, gvel = blk.kind.coordinates(rel, sub)
            out["link_power"][i] = -np.sum(Q * gvel, axis=1)
    return out


def force_outputs(model: Model, ev: Evaluation) -> dict[str, Array]:
    """Wrench of each force element on its first attachment (world axes, torque about
    the attachment node), in the model's force order."""
    nf = len(model.force_names)
    force = np.zeros((nf, 3))
    torque = np.zeros((nf, 3))
    for blk, (fo, to), frames in zip(model.force_blocks, ev.force_wrench, ev.force_frames,
                                     strict=True):
        force[blk.index] = fo[:, 0]
        torque[blk.index] = to[:, 0]
        if blk.added is not None or blk.coupled is not None:
            add_added_mass_wrenches(blk, ev.udot, frames[0].r, force, torque)
    return {"force_force": force, "force_torque": torque}


def add_added_mass_wrenches(blk: ForceBlock, udot: Array, r: Array, force: Array,
                            torque: Array) -> None:
    """Add a force block's added-mass wrenches ``-A u'`` (:func:`added_mass_forces`) to
    the reported ``force`` and ``torque (..., nf, 3)`` of its elements: the force sits in
    the mass matrix, so it is reported here, its torque (about the COG) moved to the
    attachment node, at the lever arms ``r (..., n, 3)``, like the other wrenches'."""
    inertial = added_mass_forces(blk, udot)
    force[..., blk.index, :] += inertial[..., :3]
    torque[..., blk.index, :] += inertial[..., 3:] - cross(r, inertial[..., :3])
