"""The generalized-alpha scheme for the constrained equations (index 3), on the bodies'
Lie group, with Newton iterations on one sparse system.

Per step of size ``h`` (Arnold and Bruls 2007; Bruls, Cardona and Arnold 2012), with
``u = [v, w]`` the bodies' world velocities, ``u'`` their accelerations and ``a`` the
algorithmic acceleration::

    x1 = x0 + h D_lin          R1 = exp(h [D_rot]) R0      D = u0 + h (1/2 - beta) a0 + h beta a1
    u1 = u0 + h (1 - gamma) a0 + h gamma a1
    (1 - alpha_m) a1 + alpha_m a0 = (1 - alpha_f) u1' + alpha_f u0'
    M(q1) u1' - f(t1, q1, u1) - G(q1)^T lam1 = 0          Phi(t1, q1) = 0

with ``alpha_m = (2 rho - 1)/(rho + 1)``, ``alpha_f = rho/(rho + 1)``, ``gamma = 1/2 +
alpha_f - alpha_m``, ``beta = (gamma + 1/2)^2/4``: second order, unconditionally stable
for linear problems, and damping the highest frequencies to ``rho_inf`` per step (1: no
damping, 0: annihilated in one step). The positions meet the constraints exactly (to the
Newton tolerance) at every step, so nothing drifts and no projection is needed.

Newton's unknowns are a tangent correction ``delta`` of the positions (``u1 +=
gamma' delta``, ``u1' += beta' delta``) and the multipliers; its matrix::

    [ M + (K + gamma' C)/beta'   -G^T ] [delta ]     [ -r/beta' ]
    [ G                            0  ] [dlam/beta'] = [ -Phi     ]

``beta' = (1 - alpha_m)/(h^2 beta (1 - alpha_f))``, ``gamma' = gamma/(h beta)``. The
tangent stiffness and damping ``K + gamma' C`` of every force, spring and constraint
reaction (its geometric stiffness matters for a hanging chain) is one directional finite
difference of the residual per body and direction: bodies that share no equation are
moved together (a distance-2 colouring of the coupling graph), so a chain of any length
costs 18 residuals. The tangent is kept for as many steps (and step lengths) as Newton
converges with it; each factorisation refreshes the mass blocks, the constraint rows
and the multipliers' geometric stiffness (from derivatives kept with the tangent), and
equilibrates the whole (scipy's SuperLU, or dense LU when small). The matrix is
refactored at the iterate when the contraction rate predicts more than
:data:`REFRESH_AFTER` iterations still, and the tangent rebuilt when a refactor did not
help and the iterations still needed cost more than a build's residuals. A diverging
iteration goes back to the last iterate and builds the tangent there; a step Newton
cannot solve with a tangent built there, or with :data:`MAX_BUILDS` builds, is retried
as two half steps (down to 1/64 of ``dt``).

States of force types (radiation memory) follow the trapezoidal rule, updated at each
Newton iteration.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg import lu_factor, lu_solve

from frylinks.engine.checkpoint import Checkpoint, restore_memory, take
from frylinks.engine.compose import (
    CompiledStep,
    compiled_step,
    kept_count,
    status_error,
)
from frylinks.engine.evaluate import (
    accept,
    applied,
    constraint_terms,
    evaluate,
    joined,
    link_context,
    mass_blocks,
    model_coupling,
    project,
    state_derivatives,
)
from frylinks.engine.integrators import check_finite, fixed_steps_only, itself, nb_steps, restored
from frylinks.engine.kernels import REPORT_END, REPORT_NONE
from frylinks.engine.model import Model, State, body_states
from frylinks.engine.newton import (
    EPS,
    FD_STEP,
    JUMP,
    MAX_BUILDS,
    MAX_HALVINGS,
    MAX_ITERATIONS,
    NEWTON_TOL,
    REFRESH_AFTER,
    STATE_TOL,
    step_room,
)
from frylinks.engine.sampling import NEVER, Batch, compiled_samples, sample_room
from frylinks.engine.step_source import NOT_CONVERGED
from frylinks.errors import SimulationError
from frylinks.rotations import quat_multiply, rotvec_to_quat

Array = np.ndarray

#: Default spectral radius at infinite frequency.
RHO_INF = 0.8
#: Above this many unknowns the sparse factorisation is used.
DENSE_LIMIT = 150


@dataclass(frozen=True)
class Coefficients:
    """Generalized-alpha coefficients for a spectral radius ``rho_inf`` in [0, 1]."""

    rho_inf: float
    alpha_m: float
    alpha_f: float
    gamma: float
    beta: float

    @classmethod
    def from_rho(cls, rho_inf: float) -> Coefficients:
        if not 0.0 <= rho_inf <= 1.0:
            raise ValueError(f"rho_inf must be in [0, 1], got {rho_inf!r}")
        am = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
        af = rho_inf / (rho_inf + 1.0)
        gamma = 0.5 + af - am
        return cls(rho_inf, am, af, gamma, 0.25 * (gamma + 0.5) ** 2)

    def beta_prime(self, h: float) -> float:
        return (1.0 - self.alpha_m) / (h * h * self.beta * (1.0 - self.alpha_f))

    def gamma_prime(self, h: float) -> float:
        return self.gamma / (h * self.beta)


class Coupling:
    """Which bodies share equations, and a colouring of bodies none of whose equations
    meet (so their columns of the tangent matrix come from one finite difference).

    Attributes
    ----------
    colour : (nb,) colour of each body.
    rows, cols : (nblocks,) body pairs ``(i, j)`` whose 6x6 block may be nonzero.
    """

    def __init__(self, model: Model) -> None:
        nb = model.nb_bodies
        near: list[set[int]] = [{i} for i in range(nb)]

        def join(bodies: Array) -> None:
            moving = [int(b) for b in bodies if b < nb]  # ground is not an unknown
            for i in moving:
                near[i].update(moving)

        for blk in model.link_blocks:
            for a, b in zip(blk.master.body, blk.slave.body, strict=True):
                join(np.array([a, b]))
        for fblk in model.force_blocks:
            if len(fblk.attachments) > 1:
                for k in range(len(fblk.names)):
                    join(np.array([att.body[k] for att in fblk.attachments]))
        if model.mass_coupling is not None:  # the added mass between bodies
            join(model.mass_coupling[0])
        colour = np.full(nb, -1)
        for j in range(nb):
            # two bodies may share a colour when no equation sees both
            taken = {int(colour[k]) for i in near[j] for k in near[i]}
            c = 0
            while c in taken:
                c += 1
            colour[j] = c
        self.colour = colour
        self.nb_colours = int(colour.max()) + 1 if nb else 0
        pairs = sorted((i, j) for j in range(nb) for i in near[j])
        self.rows = np.array([p[0] for p in pairs], dtype=int)
        self.cols = np.array([p[1] for p in pairs], dtype=int)
        self.members = [np.flatnonzero(colour == c) for c in range(self.nb_colours)]


@dataclass
class Residual:
    """The step's equations at one iterate: dynamics ``r (nb, 6)``, constraints ``phi``."""

    r: Array
    phi: Array
    vals: Array
    vel: Array                           # velocity right-hand sides: G u = vel
    mass: Array                          # (nb, 6, 6) body blocks
    coupling: tuple[Array, Array] | None  # mass coupling bodies (U, C): M = M_b + U^T C U
    zdot: Array


def residual(model: Model, s: State, udot: Array, lam: Array, angles: Array | None = None
             ) -> Residual:
    """``r = M u' - f - G^T lam`` and ``Phi`` at state ``s`` (its ``t`` included); the
    unwrapped angles of single-rotation links are written to ``angles`` if given."""
    b = body_states(model, s)
    ctx = link_context(model, s)
    rels, vals, phi, vel, _ = constraint_terms(model, b, ctx, angles, positions=True)
    loads = applied(model, s, b, rels, ctx)
    M = mass_blocks(model, b)
    r = np.einsum("bij,bj->bi", M, udot) - loads.f
    coupling = joined(model_coupling(model), loads.coupling)
    if coupling is not None:
        U, C = coupling
        r += (U.T @ (C @ (U @ udot.reshape(-1)))).reshape(r.shape)
    if model.nb_rows:
        solver = model.solver
        r -= np.bincount(solver.cols, weights=vals * lam[solver.rows],
                         minlength=r.size).reshape(r.shape)
    return Residual(r, phi, vals, vel, M, coupling, state_derivatives(model, s, loads))


def _moved(s: State, bodies: Array, d: int, eps: float, dv: float) -> State:
    """``s`` with ``bodies`` moved by ``eps`` along direction ``d`` (0-2 translation,
    3-5 world rotation) and their velocities changed by ``dv`` along it."""
    out = State(s.t, s.x.copy(), s.q.copy(), s.v.copy(), s.w.copy(), s.angle_ref, s.z)
    if d < 3:
        out.x[bodies, d] += eps
        out.v[bodies, d] += dv
    else:
        e = np.zeros((len(bodies), 3))
        e[:, d - 3] = eps
        out.q[bodies] = quat_multiply(rotvec_to_quat(e), s.q[bodies])
        out.w[bodies, d - 3] += dv
    return out


class Newton:
    """The step's Newton matrix: its tangent part built at an iterate and kept, its
    multipliers' part, mass blocks and constraint rows refreshed, and the whole
    equilibrated and factored, once per step.

    The constraint reactions ``G(q)^T lam`` are linear in the multipliers, and so is
    their geometric stiffness: the build keeps the derivative of ``G``'s entries along
    each finite difference, and every factorisation weighs it with the multipliers of
    the moment. The multipliers change much faster than the positions (the tension of a
    falling chain of short rods changes by half in a step), so this keeps one tangent
    good for many steps where it would otherwise be rebuilt every step.
    """

    def __init__(self, model: Model, coeff: Coefficients) -> None:
        self.model = model
        self.coeff = coeff
        self.coupling = Coupling(model)
        #: the step length of the last factorisation
        self.h = np.nan
        nb, nr = model.nb_bodies, model.nb_rows
        self.n = n = 6 * nb + nr
        self.dense = self.n <= DENSE_LIMIT
        self.builds = 0
        self.factors = 0
        self._lu: Any = None
        self._values: Array = np.zeros(0)
        cp = self.coupling
        # The matrix's pattern is fixed: the body blocks (i, j) the coupling allows (the
        # tangent, 6x6 each), G, -G^T and the regularisation. Each factorisation only
        # fills values into it, in column-major order (CSC, and the transpose of a
        # dense array).
        i6 = np.broadcast_to(6 * cp.rows[:, None, None] + np.arange(6)[None, :, None],
                             (len(cp.rows), 6, 6)).ravel()
        j6 = np.broadcast_to(6 * cp.cols[:, None, None] + np.arange(6)[None, None, :],
                             (len(cp.rows), 6, 6)).ravel()
        self._diag_blocks = np.flatnonzero(cp.rows == cp.cols)
        parts_i, parts_j = [i6], [j6]
        if nr:
            grow, gcol = 6 * nb + model.solver.rows, model.solver.cols
            eps = 6 * nb + np.arange(nr)
            parts_i += [grow, gcol, eps]
            parts_j += [gcol, grow, eps]
        keys = np.concatenate(parts_j) * n + np.concatenate(parts_i)
        unique, inverse = np.unique(keys, return_inverse=True)
        self._nnz = len(unique)
        self._where = inverse  # of each block entry, then G, -G^T and eps entries
        self._col, self._row = np.divmod(unique, n)
        self._indptr = np.searchsorted(self._col, np.arange(n + 1))
        self._i6, self._j6 = i6, j6
        self._tangent_diagonal = np.flatnonzero(i6 == j6)  # block entries on the diagonal
        self._Df = np.zeros((cp.nb_colours, 6, nb, 6))
        self._dV: tuple[Array, Array, Array] = (np.zeros(0, int), np.zeros(0, int),
                                                np.zeros(0))

    def build(self, s: State, udot: Array, lam: Array, h: float, base: Residual) -> None:
        """Tangent ``K + gamma' C`` at ``s`` (residual ``base`` there) for step ``h``,
        then :meth:`factor` there."""
        model, cp = self.model, self.coupling
        nb, nr = model.nb_bodies, model.nb_rows
        gp = self.coeff.gamma_prime(h)
        steps = (FD_STEP * model.length_scale,) * 3 + (FD_STEP,) * 3
        # D[c, d] = d r / d(move of colour c's bodies along d, with u += gamma' move);
        # dV[c, d] = the same derivative of G's entries
        D = np.zeros((cp.nb_colours, 6, nb, 6))
        dV = np.zeros((cp.nb_colours * 6, len(base.vals)))
        for c, bodies in enumerate(cp.members):
            for d in range(6):
                eps = steps[d]
                moved = residual(model, _moved(s, bodies, d, eps, gp * eps), udot, lam)
                D[c, d] = (moved.r - base.r) / eps
                dV[6 * c + d] = (moved.vals - base.vals) / eps
        # G's entries that a move changes (most do not move at all: a translation,
        # another body's rotation), as (where in D, which multiplier, derivative)
        at = np.flatnonzero(dV)
        cd, entry = np.divmod(at, len(base.vals))
        self._dV = (cd * (6 * nb) + model.solver.cols[entry] if nr else cd,
                    model.solver.rows[entry] if nr else cd, dV.ravel()[at])
        if nr:
            D += self._reactions(lam)  # keep the part independent of lam
        self._Df = D
        self.builds += 1
        self.factor(base, lam, h)

    def _reactions(self, lam: Array) -> Array:
        """``d(G^T lam)/d(move)`` (colours, 6, nb, 6) from the kept derivatives of
        ``G``'s entries."""
        at, row, dv = self._dV
        D = self._Df
        return np.bincount(at, weights=dv * lam[row], minlength=D.size).reshape(D.shape)

    def factor(self, res: Residual, lam: Array, h: float) -> None:
        """Equilibrate and factor the Newton matrix for a step ``h`` at the residual
        ``res``: the kept tangent weighed with the multipliers ``lam``, ``res``'s mass
        blocks and constraint rows. A tangent built for another step length is used as
        it is (its damping part is then off by the ratio of the lengths)."""
        model, cp = self.model, self.coupling
        nr = model.nb_rows
        self.h = h
        bp = self.coeff.beta_prime(h)
        D = self._Df - self._reactions(lam) if nr else self._Df
        blocks = np.swapaxes(D[cp.colour[cp.cols], :, cp.rows, :], 1, 2) / bp  # (k, 6, 6)
        on = cp.rows[self._diag_blocks]
        blocks[self._diag_blocks] += res.mass[on]
        if res.coupling is not None:
            blocks += self._coupling_blocks(*res.coupling)
        data = blocks.ravel()
        # equilibrate: unit diagonal on the bodies' rows, unit rows of G
        diagonal = np.ones(6 * model.nb_bodies)
        diagonal[self._i6[self._tangent_diagonal]] = np.abs(data[self._tangent_diagonal])
        ds = 1.0 / np.sqrt(np.where(diagonal > 0, diagonal, 1.0))
        weights = [data * ds[self._i6] * ds[self._j6]]
        if nr:
            solver = model.solver
            g = res.vals * ds[solver.cols]
            norm = np.sqrt(np.bincount(solver.rows, weights=g * g, minlength=nr))
            dc = 1.0 / np.where(norm > 0, norm, 1.0)
            g *= dc[solver.rows]
            weights += [g, -g, np.full(nr, -EPS)]
            # unknowns [delta, dlam / beta'], scaled like their equations
            self.scale = np.concatenate([ds, dc * bp])
            self.rhs_scale = np.concatenate([ds / bp, dc])
        else:
            self.scale, self.rhs_scale = ds, ds / bp
        values = np.bincount(self._where, weights=np.concatenate(weights),
                             minlength=self._nnz)
        self.factors += 1
        self._values = values
        try:
            if self.dense:
                Kt = np.zeros((self.n, self.n))  # K transposed: the pattern is by columns
                Kt[self._col, self._row] = values
                self._lu = ("dense", lu_factor(Kt.T, check_finite=False))
            else:
                self._lu = ("sparse", spla.splu(self.matrix, permc_spec="COLAMD"))
        except (RuntimeError, ValueError) as exc:
            raise SimulationError(f"the Newton matrix of the implicit step is singular: {exc}"
                                  ) from exc

    @property
    def matrix(self) -> Any:
        """The equilibrated matrix last factored (scipy CSC)."""
        return sp.csc_matrix((self._values, self._row, self._indptr), shape=(self.n, self.n))

    def _coupling_blocks(self, U: Array, C: Array) -> Array:
        """``U^T C U`` of a mass coupling (point masses, added mass between bodies) on
        the pattern's body blocks (k, 6, 6)."""
        cp = self.coupling
        Ub = U.reshape(len(U), -1, 6)
        CUb = (C @ U).reshape(len(U), -1, 6)
        return np.einsum("pka,pkb->kab", Ub[:, cp.rows], CUb[:, cp.cols])

    def solve(self, res: Residual) -> tuple[Array, Array]:
        """Newton correction ``(delta (nb, 6), dlam)`` for the residual ``res``."""
        return self._solve(res.r.reshape(-1), res.phi)

    def project_velocities(self, u: Array, res: Residual) -> Array:
        """Velocity change ``(nb, 6)`` that puts ``u`` back on ``G u = vel``: the
        smallest in the metric of the Newton matrix (one more solve, no new factor)."""
        if not self.model.nb_rows:
            return np.zeros_like(u)
        solver = self.model.solver
        Gu = np.bincount(solver.rows, weights=res.vals * u.reshape(-1)[solver.cols],
                         minlength=len(res.vel))
        return self._solve(np.zeros(u.size), Gu - res.vel)[0]

    def _solve(self, r: Array, phi: Array) -> tuple[Array, Array]:
        nb = self.model.nb_bodies
        rhs = -np.concatenate([r, phi]) * self.rhs_scale
        kind, lu = self._lu
        y = lu_solve(lu, rhs, check_finite=False) if kind == "dense" else lu.solve(rhs)
        x = y * self.scale
        return x[: 6 * nb].reshape(nb, 6), x[6 * nb:]


class _NotConverged(Exception):
    """Newton did not converge within the allowed iterations."""


@dataclass
class Memory:
    """The scheme's memory besides the state: accelerations ``u'`` and ``a`` (nb, 6),
    multipliers, the force types' state derivatives, and the accelerations one step
    back with that step's size (for the predictor)."""

    udot: Array
    a: Array
    lam: Array
    zdot: Array
    udot_prev: Array
    zdot_prev: Array
    h_prev: float = 0.0

    def arrays(self) -> dict[str, Array]:
        return {"udot": self.udot, "a": self.a, "lam": self.lam, "zdot": self.zdot,
                "udot_prev": self.udot_prev, "zdot_prev": self.zdot_prev,
                "h_prev": np.array([self.h_prev])}

    @classmethod
    def from_arrays(cls, arrays: dict[str, Array]) -> Memory:
        none = np.zeros(0)  # empty arrays are not stored
        return cls(arrays["udot"].reshape(-1, 6), arrays["a"].reshape(-1, 6),
                   arrays.get("lam", none).reshape(-1), arrays.get("zdot", none).reshape(-1),
                   arrays["udot_prev"].reshape(-1, 6),
                   arrays.get("zdot_prev", none).reshape(-1), float(arrays["h_prev"][0]))


class Stepper:
    """Advances a state by one generalized-alpha step (see the module doc)."""

    def __init__(self, model: Model, rho_inf: float = RHO_INF) -> None:
        self.model = model
        self.coeff = Coefficients.from_rho(rho_inf)
        self.newton = Newton(model, self.coeff)
        self.iterations = 0
        self.steps = 0
        self.halvings = 0
        #: where the Newton matrix was last built: a resumed run rebuilds it there
        self.anchor: dict[str, Array] = {}
        #: residuals a new tangent costs
        self._build_cost = 6 * self.newton.coupling.nb_colours
        #: corrections are measured in m relative to the model's size, and in rad
        self._units = np.array([model.length_scale] * 3 + [1.0] * 3)
        # links with one free rotation keep the reference that unwraps their angle (a
        # block without one writes none)
        self._refs = bool(model.link_blocks)

    def start(self, s: State) -> Memory:
        """The memory at a consistent initial state: accelerations from the equations."""
        ev = evaluate(self.model, s)
        return Memory(ev.udot.copy(), ev.udot.copy(), ev.lam.copy(), ev.zdot.copy(),
                      ev.udot.copy(), ev.zdot.copy())

    def step(self, s0: State, mem: Memory, h: float, t1: float, depth: int = 0
             ) -> tuple[State, Memory]:
        """The state and memory at ``t1 = s0.t + h``; a step Newton cannot solve is
        taken as two halves (raises SimulationError after :data:`MAX_HALVINGS`)."""
        try:
            return self._step(s0, mem, h, t1)
        except _NotConverged as exc:
            if depth >= MAX_HALVINGS:
                raise SimulationError(
                    f"Newton's iterations of the implicit step did not converge, even with "
                    f"the step cut to {h:.3g} s ({exc}); the motion is too violent for "
                    "this dt, or the model is unstable") from None
            self.halvings += 1
            mid, m_mid = self.step(s0, mem, 0.5 * h, s0.t + 0.5 * h, depth + 1)
            return self.step(mid, m_mid, 0.5 * h, t1, depth + 1)

    def _step(self, s0: State, mem: Memory, h: float, t1: float) -> tuple[State, Memory]:
        model, c = self.model, self.coeff
        am, af, gamma, beta = c.alpha_m, c.alpha_f, c.gamma, c.beta
        bp = c.beta_prime(h)
        u0 = np.concatenate([s0.v, s0.w], axis=1)
        base_a = (af * mem.udot - am * mem.a) / (1.0 - am)
        shift = u0 + h * (0.5 - beta) * mem.a
        u_base = u0 + h * (1.0 - gamma) * mem.a

        def kinematics(udot: Array, z: Array) -> tuple[State, Array]:
            a1 = base_a + (1.0 - af) / (1.0 - am) * udot
            D = shift + h * beta * a1
            u1 = u_base + h * gamma * a1
            q1 = quat_multiply(rotvec_to_quat(h * D[:, 3:]), s0.q)
            q1 /= np.linalg.norm(q1, axis=1, keepdims=True)
            return State(t1, s0.x + h * D[:, :3], q1, u1[:, :3].copy(), u1[:, 3:].copy(),
                         s0.angle_ref, z), a1

        # predictor: accelerations (and state rates) extrapolated from the last two steps
        udot = mem.udot.copy()
        zdot = mem.zdot.copy()
        if mem.h_prev > 0:
            udot += (h / mem.h_prev) * (mem.udot - mem.udot_prev)
            zdot += (h / mem.h_prev) * (mem.zdot - mem.zdot_prev)
        lam = mem.lam.copy()
        s1, a1 = kinematics(udot, s0.z + 0.5 * h * (mem.zdot + zdot))
        # the tangent is kept, also across step lengths (a halved step and its return
        # to dt cost no new tangent): Newton's contraction tells when it is not good
        # enough. Each step refactors it at its first iterate.
        rebuild = self.newton.builds == 0
        refresh = True
        refreshed = False  # a refactor at a later iterate of this tangent, this step
        builds = 0
        previous = last = np.inf  # the last correction with this matrix, and at all
        angles = s0.angle_ref.copy() if self._refs else None
        for total in range(1, MAX_ITERATIONS + 1):
            res = residual(model, s1, udot, lam, angles)
            if not (np.isfinite(res.r).all() and np.isfinite(res.phi).all()):
                raise _NotConverged("non-finite residual")
            built_here = rebuild
            if rebuild:
                self.newton.build(s1, udot, lam, h, res)
                self.anchor = {"x": s1.x.copy(), "q": s1.q.copy(), "v": s1.v.copy(),
                               "w": s1.w.copy(), "z": s1.z.copy(), "udot": udot.copy(),
                               "lam": lam.copy(), "th": np.array([s1.t, h])}
                rebuild, refresh, refreshed, previous = False, False, False, np.inf
                builds += 1
            elif refresh:
                # refactored with this iterate's constraint directions, mass blocks and
                # multipliers (the tangent is kept): a pendulum then needs 1 iteration a
                # step instead of 4-5
                self.newton.factor(res, lam, h)
                refresh, previous = False, np.inf
            delta, dlam = self.newton.solve(res)
            back = (udot, lam, s1, a1)
            udot = udot + bp * delta
            lam = lam + dlam
            z1 = s0.z + 0.5 * h * (mem.zdot + res.zdot)
            err = float(np.max(np.abs(delta) / self._units)) if delta.size else 0.0
            if len(z1):
                change = float(np.max(np.abs(z1 - s1.z))) / max(float(np.max(np.abs(z1))),
                                                                1e-300)
                err = max(err, change * (NEWTON_TOL / STATE_TOL))
            s1, a1 = kinematics(udot, z1)
            if err <= NEWTON_TOL:
                self.iterations += total
                self.steps += 1
                # index 3 meets the positions; the velocities drift off their constraint
                # by O(h) and, with little numerical damping, oscillate: project them
                du = self.newton.project_velocities(np.concatenate([s1.v, s1.w], axis=1), res)
                s1.v += du[:, :3]
                s1.w += du[:, 3:]
                if angles is not None:
                    # the last iterate's angles (within the tolerance of the step's end)
                    # are the references for the next step
                    s1.angle_ref[:] = angles
                return s1, Memory(udot, a1, lam, res.zdot, mem.udot, mem.zdot, h)
            # diverging (a correction larger than the last one with this matrix, or
            # much larger than the last one at all): back to the last iterate and a new
            # tangent there, unless the tangent was built there (the step is then too
            # long for Newton)
            if not err <= min(previous, JUMP * last):
                if built_here or builds >= MAX_BUILDS:
                    raise _NotConverged(f"correction {err:.3g} after {total} iterations "
                                        f"and {builds} Newton matrices")
                udot, lam, s1, a1 = back
                rebuild = True
                continue
            last, rate = err, err / previous
            # iterations still needed at this contraction rate (none known on a new
            # factor's first iteration), against a refactor at this iterate (as cheap as
            # an iteration or two) and, when a refactor did not help, a new tangent (as
            # dear as its residuals) and what the step has left
            needed = np.log(NEWTON_TOL / err) / np.log(rate) if 0 < rate < 1 else (
                0.0 if rate == 0 else np.inf)
            if needed > min(self._build_cost, MAX_ITERATIONS - total) and refreshed:
                if builds >= MAX_BUILDS:
                    raise _NotConverged(f"correction {err:.3g} after {total} iterations "
                                        f"and {builds} Newton matrices")
                rebuild = True
            elif needed > REFRESH_AFTER:
                refresh = refreshed = True
            previous = err
        raise _NotConverged(f"correction {err:.3g} after {MAX_ITERATIONS} iterations")

    def rebuild_at(self, anchor: dict[str, Array], angle_ref: Array) -> None:
        """Build the Newton matrix where a checkpointed run had it."""
        t, h = (float(v) for v in anchor["th"])
        none = np.zeros(0)  # empty arrays are not stored
        s = State(t, anchor["x"].reshape(-1, 3), anchor["q"].reshape(-1, 4),
                  anchor["v"].reshape(-1, 3), anchor["w"].reshape(-1, 3), angle_ref,
                  anchor.get("z", none).reshape(-1))
        udot = anchor["udot"].reshape(-1, 6)
        lam = anchor.get("lam", none).reshape(-1)
        self.newton.build(s, udot, lam, h, residual(self.model, s, udot, lam))
        self.anchor = {k: np.array(v) for k, v in anchor.items()}


def generalized_alpha(model: Model, state: State, t_end: float, dt: float, every: int = 1,
                      rho_inf: float = RHO_INF, resume: Checkpoint | None = None,
                      on_checkpoint: Any = None, outputs: bool = True, batches: bool = False
                      ) -> Iterator[Any]:
    """Fixed-step generalized-alpha; yields ``state`` (updated in place) at t0 and every
    ``every`` steps. Parameters as :func:`frylinks.engine.integrators.rk4`, and ``rho_inf``,
    the spectral radius at infinite frequency in [0, 1]."""

    hand = Batch.of if batches else itself

    fixed_steps_only(model, "generalized_alpha")
    compiled = compiled_step(model)
    stepper: Stepper | CompiledStepper = (
        Stepper(model, rho_inf) if compiled is None else CompiledStepper(compiled, rho_inf))
    if resume is None:
        s = state
        project(model, s, initial=True)
        accept(model, s)
        mem = stepper.start(s)
        t0, k0, samples = s.t, 0, 1
        if on_checkpoint is not None:
            on_checkpoint(_take(model, s, samples, 0, t0, mem, stepper))
        yield hand(s)
    else:
        s = restored(model, state, resume)
        t0, k0, samples = resume.t0, resume.step, resume.samples
        extra = resume.extra
        mem = Memory.from_arrays(extra)
        anchor = {k.split(":", 1)[1]: v for k, v in extra.items() if k.startswith("anchor:")}
        if anchor:
            stepper.rebuild_at(anchor, s.angle_ref)
            restore_memory(model, resume.memory)  # the build's residuals moved it
    n = nb_steps(t_end - t0, dt)
    if isinstance(stepper, CompiledStepper):
        # compiled: several output samples per call, no Python between them
        compiled_stepper = stepper
        step_fn = stepper.step_fn

        def advance(k: int, k_next: int, report: int
                    ) -> tuple[np.ndarray, SimulationError | None]:
            nonlocal mem
            mem, kept, error = compiled_stepper.advance(s, mem, k, k_next, dt, t0, every,
                                                        report)
            return kept, error

        def call_end(m: int, k: int) -> None:  # (mem: the last advance's)
            on_checkpoint(_take(model, s, m, k, t0, mem, stepper))

        yield from compiled_samples(step_fn, s, k0, n, every, t0, dt, advance, samples,
                                    outputs, batches,
                                    None if on_checkpoint is None else call_end)
        return
    for k in range(k0 + 1, n + 1):
        new, mem = stepper.step(s, mem, dt, t0 + k * dt)
        check_finite(new)
        s.set(new)
        accept(model, s)
        if k % every == 0:
            samples += 1
            if on_checkpoint is not None:
                on_checkpoint(_take(model, s, samples, k, t0, mem, stepper))
            yield hand(s)


class CompiledStepper:
    """The :class:`Stepper` of a model that runs compiled (a small, dense one): the
    same scheme and Newton policy in the model's compiled step, whose kept tangent,
    anchor and counters live in arrays here."""

    def __init__(self, step: CompiledStep, rho_inf: float = RHO_INF) -> None:
        model = step.model
        self.model = model
        self.step_fn = step
        c = Coefficients.from_rho(rho_inf)
        self.coeff = c
        self._c = np.array([c.alpha_m, c.alpha_f, c.gamma, c.beta])
        cp = Coupling(model)
        nb, nr = model.nb_bodies, model.nb_rows
        self.Dtan = np.zeros((6 * cp.nb_colours, 6 * nb))
        self.dV = np.zeros((6 * cp.nb_colours, 12 * nr))
        nz = len(model.initial.z)
        self._anchor = (np.zeros((nb, 3)), np.zeros((nb, 4)), np.zeros((nb, 3)),
                        np.zeros((nb, 3)), np.zeros(nz), np.zeros((nb, 6)), np.zeros(nr),
                        np.zeros(2))
        #: builds, factorisations, iterations, steps, halvings
        self.counters = np.zeros(5, dtype=np.int64)
        self._colour = cp.colour.astype(np.int64)
        self._prow = cp.rows.astype(np.int64)
        self._pcol = cp.cols.astype(np.int64)
        self._mflat = (np.concatenate(cp.members) if cp.members else
                       np.zeros(0)).astype(np.int64)
        self._mstart = np.concatenate([[0], np.cumsum([len(m) for m in cp.members])]
                                      ).astype(np.int64)
        self._build_cost = 6 * cp.nb_colours
        # the memory the compiled step updates in place: udot, a, lam, zdot, udot_prev,
        # zdot_prev (a Memory returned by advance holds these arrays), h_prev
        self._mem = (np.zeros((nb, 6)), np.zeros((nb, 6)), np.zeros(nr), np.zeros(nz),
                     np.zeros((nb, 6)), np.zeros(nz))
        self._h_prev = np.zeros(1)
        self._no_out = step.out_arrays()
        #: What advance_ga takes besides the state: (its run's arrays, the room)
        self.arrays = ((
            self._mem, self._h_prev, self._c, self.Dtan, self.dV, self._anchor,
            self.counters, self._colour, self._prow, self._pcol, self._mflat, self._mstart,
            self._build_cost, step_room(nb, nr, nz, cp.nb_colours,
                                        len(model.initial.angle_ref))), step.room)
        step.stepper = self

    @property
    def iterations(self) -> int:
        return int(self.counters[2])

    @property
    def halvings(self) -> int:
        return int(self.counters[4])

    @property
    def anchor(self) -> dict[str, Array]:
        """Where the Newton matrix was last built (a resumed run rebuilds it there)."""
        if not self.counters[0]:
            return {}
        return dict(zip(("x", "q", "v", "w", "z", "udot", "lam", "th"), self._anchor,
                        strict=True))

    def start(self, s: State) -> Memory:
        """The memory at a consistent initial state: accelerations from the equations."""
        _, _, udot, lam, zdot, _ = self.report(s)
        return Memory(udot.copy(), udot.copy(), lam.copy(), zdot.copy(), udot.copy(),
                      zdot.copy())

    def report(self, s: State) -> tuple[Array, ...]:
        """The outputs, accelerations, multipliers and state rates at ``s`` (no step)."""
        out = self.step_fn.out_arrays()
        _, error = self._run(s, 0, 0, 0.0, s.t, REPORT_END, NEVER, out)
        if error is not None:
            raise error
        self.step_fn.keep_report(s, out)
        return out

    def _run(self, s: State, k0: int, k1: int, dt: float, t0: float, report: int,
             every: int, out: tuple[Array, ...] | None = None
             ) -> tuple[Array, SimulationError | None]:
        """Steps ``k0 + 1 .. k1`` from ``s`` (in place) with the outputs ``report``
        asks for (a report at the end into ``out``): the kept samples
        (:meth:`CompiledStep.advance_rk4`) and the error that stopped the steps."""
        x, q, v, w, z = (np.array(a, dtype=float) for a in (s.x, s.q, s.v, s.w, s.z))
        kept = sample_room(self.model, kept_count(k0, k1, every))
        # (an advance without a report writes no outputs: it shares one unused set)
        status, k, a, b, c = self.step_fn.entry("advance_ga")(
            self.arrays, x, q, v, w, z, s.angle_ref, float(s.t), float(t0), int(k0),
            int(k1), float(dt), report, *(out or self._no_out), False, int(every),
            kept)
        if k > k0:
            s.set(State(float(t0 + k * dt), x, q, v, w, s.angle_ref, z))
        kept = kept[:kept_count(k0, k, every)]
        if status == NOT_CONVERGED:
            return kept, SimulationError(
                f"Newton's iterations of the implicit step did not converge, even with the "
                f"step cut to {a:.3g} s (correction {b:.3g} after {int(c) // 1000} "
                f"iterations and {int(c) % 1000} Newton matrices); the motion is too "
                "violent for this dt, or the model is unstable")
        if status:
            return kept, status_error(self.model, status, a, b, -1)
        return kept, None

    def advance(self, s: State, mem: Memory, k0: int, k1: int, dt: float, t0: float,
                every: int = NEVER, report: int = REPORT_NONE
                ) -> tuple[Memory, Array, SimulationError | None]:
        """Steps ``k0 + 1 .. k1`` from ``s`` (in place), with the outputs ``report``
        asks for (``REPORT_NONE`` or ``REPORT_SAMPLES``): the memory after them, the
        states kept after the steps that are multiples of ``every`` and the error that
        stopped the steps (None if none), with ``s`` at the last accepted step."""
        if mem.udot is not self._mem[0]:  # (else it is the memory the last call left)
            for dst, src in zip(self._mem, (mem.udot, mem.a, mem.lam, mem.zdot,
                                            mem.udot_prev, mem.zdot_prev), strict=True):
                np.copyto(dst, np.reshape(src, dst.shape))
        self._h_prev[0] = mem.h_prev
        kept, error = self._run(s, k0, k1, dt, t0, report, every)
        return Memory(*self._mem, float(self._h_prev[0])), kept, error

    def rebuild_at(self, anchor: dict[str, Array], angle_ref: Array) -> None:
        """Build the Newton matrix where a checkpointed run had it."""
        t, h = (float(v) for v in anchor["th"])
        none = np.zeros(0)  # empty arrays are not stored
        x, q, v, w = (np.ascontiguousarray(anchor[k], dtype=float).reshape(-1, n)
                      for k, n in (("x", 3), ("q", 4), ("v", 3), ("w", 3)))
        z = np.ascontiguousarray(anchor.get("z", none), dtype=float).reshape(-1)
        udot = np.ascontiguousarray(anchor["udot"], dtype=float).reshape(-1, 6)
        lam = np.ascontiguousarray(anchor.get("lam", none), dtype=float).reshape(-1)
        np.copyto(self._mem[0], udot)
        np.copyto(self._mem[2], lam)
        self.step_fn.entry("advance_ga")(
            self.arrays, x, q, v, w, z, angle_ref, t, t, 0, 0, h, REPORT_NONE,
            *self.step_fn.out_arrays(), True, NEVER, sample_room(self.model, 0))


def _take(model: Model, s: State, samples: int, step: int, t0: float, mem: Memory,
          stepper: Stepper | CompiledStepper) -> Checkpoint:
    extra = {k: v.copy() for k, v in mem.arrays().items()}
    extra.update({f"anchor:{k}": v.copy() for k, v in stepper.anchor.items()})
    return take(model, s, samples, step=step, t0=t0, extra=extra)


__all__ = ["RHO_INF", "Coefficients", "CompiledStepper", "Coupling", "Memory", "Newton",
           "Stepper",
           "generalized_alpha", "residual"]
