"""A model linearised about a state: mass, damping and stiffness in the independent
coordinates of its links.

The bodies' small motions about the state are a translation and a rotation vector per
body (world axes), ``xi = T y``; the columns of ``T`` span the null space of the
constraint Jacobian ``G`` (the motions the links allow), so the ``n`` coordinates ``y``
are independent. Their equations are

``M y'' + C y' + K y = Q``,   ``M = T^T M_b T``,
``K = -T^T M_b d(u')/dy``,    ``C = -T^T M_b d(u')/dy'``,

with ``u'`` the bodies' accelerations that the engine's own evaluation
(:func:`frylinks.engine.evaluate`) computes, constraint reactions included, in
statics mode (waves left out: they are the input of :mod:`.rao`). The derivatives are
central differences, like the implicit scheme's tangent; at an equilibrium ``u' = 0``,
so ``d(u')/dy`` lies in the range of ``T`` and the projection by ``T^T M_b`` loses
nothing. A force type with states (a radiation memory) is held at zero states and
stands in by its :meth:`~frylinks.forces.ForceType.frequency_coefficients`
(``A(w)``, ``B(w)``), which replace its constant added mass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from frylinks.engine import Model, State, evaluate, link_outputs, project
from frylinks.engine.evaluate import link_context
from frylinks.engine.finite_differences import central
from frylinks.engine.model import ForceBlock, body_states
from frylinks.engine.statics import full_mass, null_space, posed
from frylinks.errors import ModelError
from frylinks.forces import ForceContext, ForceType
from frylinks.kinematics import node_frames
from frylinks.links import DOFS, LinkContext
from frylinks.rotations import cross

Array = np.ndarray

#: Relative step of the central differences (of the model's length scale for
#: translations, in radians for rotations): truncation ~ STEP^2, round-off ~ eps / STEP.
STEP = 1e-5


@dataclass
class FrequencyBlock:
    """A force block that stands in by its frequency-domain coefficients.

    Attributes
    ----------
    blk : the model's force block.
    basis : (6 n, ny) ``T`` rows of its elements' bodies.
    added_inf : (ny, ny) the constant added mass it put in ``M`` (taken out again when
        its ``A(w)`` goes in).
    """

    blk: ForceBlock
    basis: Array
    added_inf: Array


@dataclass
class LinearModel:
    """A model linearised about a state (module doc).

    Attributes
    ----------
    model, state
        The assembled model and the state linearised about (velocities zero).
    basis
        ``T`` ``(6 nb, ny)``: body translation and rotation vector (world axes) per
        coordinate.
    mass, damping, stiffness
        ``(ny, ny)``, with the constant (infinite-frequency) added mass in ``mass``.
    residual
        The largest body acceleration left at the state [m s-2 or rad s-2] (zero at an
        equilibrium).
    link_position, link_velocity
        ``(nl, 6, ny)``: each link's displacement (``link_displacement``) per
        coordinate, and its relative twist (``link_velocity``) per coordinate rate.
    spring_position, spring_velocity
        ``(nl, 6, ny)``: each link spring-damper's generalised force per coordinate and
        per coordinate rate.
    free_velocity
        ``(nl, 6, ny)``: each link's free-DOF rates (spring-damper power) per
        coordinate rate.
    force_position, force_velocity
        ``(nf, ny, ny)``: each force element's generalised force on the coordinates per
        coordinate and per coordinate rate (its absorbed power).
    frequency_blocks
        Force blocks that stand in by ``A(w)``, ``B(w)`` (:class:`FrequencyBlock`).
    """

    model: Model
    state: State
    basis: Array
    mass: Array
    damping: Array
    stiffness: Array
    residual: float
    link_position: Array
    link_velocity: Array
    spring_position: Array
    spring_velocity: Array
    free_velocity: Array
    force_position: Array
    force_velocity: Array
    frequency_blocks: list[FrequencyBlock] = field(default_factory=list)

    @property
    def nb_coordinates(self) -> int:
        return int(self.basis.shape[1])

    @property
    def frequency_dependent(self) -> bool:
        """Whether the mass and damping depend on frequency (hydrodynamic data)."""
        return bool(self.frequency_blocks)

    def at(self, omega: float) -> tuple[Array, Array]:
        """Mass and damping at angular frequency ``omega`` [rad s-1]: the frequency
        blocks' ``A(w)`` in place of their constant added mass, their ``B(w)`` added."""
        M, C = self.mass.copy(), self.damping.copy()
        for fb in self.frequency_blocks:
            coeffs = fb.blk.kind.frequency_coefficients(float(omega))
            assert coeffs is not None
            A, B = coeffs
            M += fb.basis.T @ A @ fb.basis - fb.added_inf
            C += fb.basis.T @ B @ fb.basis
        return M, C

    def frequency_damping(self, omega: float) -> list[Array]:
        """Per frequency block, its ``B(w)`` in the coordinates ``(ny, ny)``."""
        out = []
        for fb in self.frequency_blocks:
            coeffs = fb.blk.kind.frequency_coefficients(float(omega))
            assert coeffs is not None
            out.append(fb.basis.T @ coeffs[1] @ fb.basis)
        return out


def not_linearisable(model: Model, s: State) -> None:
    """Refuse a link or force type that says it has no linearisation
    (:meth:`~frylinks.forces.ForceType.linearisable`), and a force type whose states feed
    its force but that gives no frequency-domain coefficients.

    Raises
    ------
    ModelError
        Naming the type, at its first element's key path.
    """
    for lblk in model.link_blocks:
        why = lblk.kind.linearisable()
        if why:
            raise ModelError(f"link type '{lblk.kind.name}' cannot be linearised: {why}",
                             f"links.{lblk.names[0]}")
    b = body_states(model, s)
    fctx = ForceContext(s.t, link_context(model, s).signals[0], model.gravity, model.settings,
                        static=True)
    rng = np.random.default_rng(0)
    for fblk in model.force_blocks:
        kind = fblk.kind
        why = kind.linearisable()
        if why:
            raise ModelError(f"force type '{kind.name}' cannot be linearised: {why}",
                             f"forces.{fblk.names[0]}")
        if not kind.nb_states or (type(kind).frequency_coefficients
                                  is not ForceType.frequency_coefficients):
            continue
        # states that only record (a PTO's absorbed energy) do not change the force
        frames = [node_frames(b, att) for att in fblk.attachments]
        fctx.states = np.zeros(kind.nb_states)
        f0, t0 = kind.evaluate(frames, fctx)
        fctx.states = rng.standard_normal(kind.nb_states)
        f1, t1 = kind.evaluate(frames, fctx)
        if not (np.array_equal(f0, f1) and np.array_equal(t0, t1)):
            raise ModelError(
                f"force type '{kind.name}' has {kind.nb_states} internal states that "
                "change its force, and gives no frequency-domain coefficients "
                "(ForceType.frequency_coefficients): it cannot be linearised",
                f"forces.{fblk.names[0]}")


def _outputs(model: Model, s: State, basis: Array) -> Array:
    """What is differentiated, stacked: accelerations, link displacement, twist, spring
    force, free-DOF rates, and each force element's generalised force on ``y``."""
    ev = evaluate(model, s, static=True)
    lo = link_outputs(model, ev)
    nl = len(model.link_names)
    gvel = np.zeros((nl, 6))
    for blk, rel in zip(model.link_blocks, ev.rel, strict=True):
        sub = LinkContext(ev.link_ctx.t, ev.link_ctx.signals, ev.link_ctx.angle_ref[blk.index])
        if blk.kind.nb_free:
            _, gv = blk.kind.coordinates(rel, sub)
            free = np.array([DOFS.index(d) for d in blk.kind.free_dofs])
            gvel[np.ix_(blk.index, free)] = gv
    ny = basis.shape[1]
    nb = model.nb_bodies
    per_force = np.zeros((len(model.force_names), ny))
    for fblk, (fo, to), frames in zip(model.force_blocks, ev.force_wrench, ev.force_frames,
                                      strict=True):
        for k, (att, fr) in enumerate(zip(fblk.attachments, frames, strict=True)):
            wrench = np.concatenate([fo[:, k], to[:, k] + cross(fr.r, fo[:, k])], axis=1)
            for e, body in enumerate(att.body):
                if body < nb:
                    per_force[fblk.index[e]] += basis[6 * body: 6 * body + 6].T @ wrench[e]
    return np.concatenate([ev.udot.ravel(), lo["link_displacement"].ravel(),
                           lo["link_velocity"].ravel(), lo["link_spring_force"].ravel(),
                           gvel.ravel(), per_force.ravel()])


def linearise(model: Model, state: State) -> LinearModel:
    """The linear model about ``state`` (module doc).

    Parameters
    ----------
    model
        An assembled model.
    state
        On the links; its velocities are taken as zero and force states as zero.

    Raises
    ------
    ModelError
        A type that cannot be linearised (:func:`not_linearisable`).
    """
    s0 = state.copy()
    s0.v[:] = 0.0
    s0.w[:] = 0.0
    s0.z[:] = 0.0
    project(model, s0, initial=True)
    not_linearisable(model, s0)
    nb = model.nb_bodies
    T = null_space(model, s0)
    ny = T.shape[1]
    nl, nf = len(model.link_names), len(model.force_names)
    h = STEP * model.length_scale  # T's columns: unit norm in scaled units

    def at_position(y: Array) -> Array:
        return _outputs(model, posed(model, s0, (T @ y).reshape(nb, 6)), T)

    def at_velocity(v: Array) -> Array:
        s = s0.copy()
        u = (T @ v).reshape(nb, 6)
        s.v, s.w = u[:, :3].copy(), u[:, 3:].copy()
        return _outputs(model, s, T)

    base = _outputs(model, s0, T)
    dpos = central(at_position, ny, h, richardson=True) if ny else np.zeros((len(base), 0))
    dvel = central(at_velocity, ny, h, richardson=True) if ny else np.zeros((len(base), 0))
    M_b = full_mass(model, s0)
    sizes = [6 * nb, 6 * nl, 6 * nl, 6 * nl, 6 * nl, nf * ny]
    cuts = np.cumsum(sizes)[:-1]
    P = np.split(dpos, cuts)
    V = np.split(dvel, cuts)
    udot0 = base[: 6 * nb]
    mass = T.T @ M_b @ T
    stiffness = -T.T @ M_b @ P[0]
    damping = -T.T @ M_b @ V[0]
    freq = []
    for fblk in model.force_blocks:
        if type(fblk.kind).frequency_coefficients is ForceType.frequency_coefficients:
            continue
        body = fblk.attachments[0].body
        rows = T.reshape(nb, 6, ny)[body].reshape(-1, ny)
        inf = np.zeros((6 * len(body), 6 * len(body)))
        for e in range(len(body)):
            if fblk.added is not None:
                inf[6 * e: 6 * e + 6, 6 * e: 6 * e + 6] = fblk.added[e]
        if fblk.coupled is not None:
            inf += fblk.coupled
        freq.append(FrequencyBlock(fblk, rows, rows.T @ inf @ rows))
    return LinearModel(
        model, s0, T, 0.5 * (mass + mass.T), damping, stiffness,
        float(np.max(np.abs(udot0))) if udot0.size else 0.0,
        P[1].reshape(nl, 6, ny), V[2].reshape(nl, 6, ny), P[3].reshape(nl, 6, ny),
        V[3].reshape(nl, 6, ny), V[4].reshape(nl, 6, ny), P[5].reshape(nf, ny, ny),
        V[5].reshape(nf, ny, ny), freq)
