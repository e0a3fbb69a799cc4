"""Every registered link type: constraint Jacobian, free basis and block evaluation.

The checks iterate over ``Registry().types["link"]``, so a new link type (built-in or
third-party) is covered as soon as it is installed; its required parameters get example
values from their declared kind (override in ``EXAMPLES`` where that is not enough).

Configurations are built from the link's own description: start with the slave node on
the master node, Newton-project onto the constraint manifold with the link's ``rows``,
then move along its free basis ``E`` (re-projecting after each small step), keeping the
angle-unwrapping reference up to date like the engine does. Bodies then move with
arbitrary world velocities ``u`` (constant ``v`` and ``w``, rotations by exponential
maps, so the motion is known exactly) and the residual is differenced in time with step
``H = 1e-5``: the central-difference error is O(H^2) ~ 1e-10 times third derivatives of
order one, measured below 3e-10 for every built-in type, so ``TOL = 1e-7``; a row off
by 1% in one coefficient makes an error of 1e-2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from frylinks import System
from frylinks.engine import assemble, evaluate, link_outputs
from frylinks.kinematics import BodyStates, NodeSet, Relative, relative
from frylinks.links import DOFS, LinkContext, LinkType
from frylinks.params import Param
from frylinks.registry import Registry
from frylinks.rotations import (
    quat_conjugate,
    quat_multiply,
    quat_to_matrix,
    rotate,
    rotvec_to_quat,
)
from frylinks.signals import SignalBank

REGISTRY = Registry()
LINK_TYPES = sorted(REGISTRY.types["link"])
H = 1e-5
TOL = 1e-7
N = 7          # links per block
T0 = 0.3       # evaluation time (time-dependent links see a non-trivial t)

#: Parameter values for types whose declared kinds are not enough to build a valid link.
EXAMPLES: dict[str, Callable[[np.random.Generator], dict[str, Any]]] = {
    "screw": lambda rng: {"pitch": float(rng.uniform(-2.0, 2.0))},
}


def example_value(p: Param, rng: np.random.Generator) -> Any:
    """A valid value for a required parameter of the declared kind."""
    if p.kind in ("float", "signal"):
        lo = max(p.minimum if p.minimum is not None else 0.2, 0.2)
        return float(rng.uniform(lo, lo + 1.0))
    if p.kind == "vector":
        return [float(x) for x in rng.uniform(-1.0, 1.0, 3) + np.array([0.0, 0.0, 1.5])]
    if p.kind == "choice":
        return p.choices[0]
    if p.kind == "points":
        return [[0.0, 0.0], [1.0, float(rng.uniform(0.1, 0.5))], [2.0, 0.1]]
    raise NotImplementedError(f"add an entry to EXAMPLES for a parameter of kind {p.kind!r}")


def example_params(name: str, rng: np.random.Generator) -> dict[str, Any]:
    cls = REGISTRY.types["link"][name].cls
    if name in EXAMPLES:
        return EXAMPLES[name](rng)
    return {k: example_value(p, rng) for k, p in cls.parameters.items() if p.required}


def random_quat(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


@dataclass
class Setup:
    """``n`` links of one type, link ``i`` joining body ``i`` (or ground) as master to body
    ``n + i`` as slave; the master bodies' poses are fixed, the slave bodies are placed
    from the relative pose ``(d, q_rel)`` of the slave node in master-node axes."""

    kind: LinkType
    params: list[dict[str, Any]]
    bank: SignalBank
    master: NodeSet
    slave: NodeSet
    xA: np.ndarray
    qA: np.ndarray

    @property
    def n(self) -> int:
        return self.kind.nb_links

    def ctx(self, t: float, angle_ref: np.ndarray) -> LinkContext:
        values = ([self.bank.evaluate(t, k) for k in range(3)] if self.bank.nb_slots
                  else [np.zeros(0)] * 3)
        return LinkContext(t, values, angle_ref)

    def states(self, d: np.ndarray, q_rel: np.ndarray, v: np.ndarray | None = None,
               w: np.ndarray | None = None) -> BodyStates:
        n = self.n
        x = np.zeros((2 * n + 1, 3))
        q = np.zeros((2 * n + 1, 4))
        q[:, 0] = 1.0
        x[:n], q[:n] = self.xA, self.qA
        qm_body, xm_body = q[self.master.body], x[self.master.body]
        qm = quat_multiply(qm_body, self.master.qrot)
        pm = xm_body + rotate(quat_to_matrix(qm_body), self.master.offset)
        qs = quat_multiply(qm, q_rel)
        ps = pm + rotate(quat_to_matrix(qm), d)
        qB = quat_multiply(qs, quat_conjugate(self.slave.qrot))
        x[n:2 * n] = ps - rotate(quat_to_matrix(qB), self.slave.offset)
        q[n:2 * n] = qB
        zero = np.zeros((2 * n + 1, 3))
        return BodyStates(x, q, quat_to_matrix(q), zero if v is None else v,
                          zero if w is None else w)

    def rel(self, b: BodyStates) -> Relative:
        return relative(b, self.master, self.slave)


def make_setup(name: str, rng: np.random.Generator, n: int = N,
               master_on_ground: bool = False) -> Setup:
    """Build the block through the public API (System.add_link + assemble), so parameters
    are parsed exactly as for a user."""
    system = System(registry=REGISTRY)
    system.add_body("a", mass=1.0, inertia=[1.0, 1.0, 1.0])
    system.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0])
    for i in range(n):
        system.add_link(f"l{i}", name, master="a", slave="b", **example_params(name, rng))
    model = assemble(system)
    blk = model.link_blocks[0]
    params = [system.links[f"l{i}"].params for i in range(n)]
    mbody = np.full(n, 2 * n) if master_on_ground else np.arange(n)
    master = NodeSet(mbody, rng.uniform(-1, 1, (n, 3)), quat_to_matrix(random_quat(rng, n)))
    slave = NodeSet(np.arange(n, 2 * n), rng.uniform(-1, 1, (n, 3)),
                    quat_to_matrix(random_quat(rng, n)))
    return Setup(blk.kind, params, model.signals, master, slave,
                 rng.uniform(-2, 2, (n, 3)), random_quat(rng, n))


def moved_relative(d: np.ndarray, q_rel: np.ndarray, delta: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The relative pose after the relative twist ``delta`` (master axes) for unit time:
    ``d += delta_t``, ``R_rel = exp([delta_r]x) R_rel`` (as ``R_rel' = [w_rel]x R_rel``)."""
    return d + delta[:, :3], quat_multiply(rotvec_to_quat(delta[:, 3:]), q_rel)


def update_ref(s: Setup, rel: Relative, t: float, angle_ref: np.ndarray) -> np.ndarray:
    angle = s.kind.unwrap_angle(rel, s.ctx(t, angle_ref))
    return angle_ref if angle is None else angle


def projected(s: Setup, d: np.ndarray, q: np.ndarray, ref: np.ndarray, t: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """Newton steps with the link's rows onto its manifold (min-norm relative twist)."""
    for _ in range(30):
        rel, ctx = s.rel(s.states(d, q)), s.ctx(t, ref)
        cons, res = s.kind.constraints(rel, ctx), s.kind.residual(rel, ctx)
        if res.size == 0 or np.abs(res).max() < 1e-14:
            break
        delta = -np.einsum("nij,nj->ni", np.linalg.pinv(cons.rows), res)
        d, q = moved_relative(d, q, delta)
    return d, q


def on_manifold(s: Setup, rng: np.random.Generator, t: float = T0, steps: int = 15
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A configuration on the manifold with free coordinates of order 1-5 (rotations past
    pi, to exercise unwrapping): coincident nodes, then small steps along ``E``."""
    n, nf = s.n, s.kind.nb_free
    d, q = np.zeros((n, 3)), np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
    ref = np.full(n, np.nan)
    d, q = projected(s, d, q, ref, t)
    ref = update_ref(s, s.rel(s.states(d, q)), t, ref)
    g = rng.uniform(-5.0, 5.0, (n, nf))
    for _ in range(steps):
        E = s.kind.free_basis(s.rel(s.states(d, q)))
        d, q = moved_relative(d, q, np.einsum("nik,nk->ni", E, g) / steps)
        d, q = projected(s, d, q, ref, t)
        ref = update_ref(s, s.rel(s.states(d, q)), t, ref)
    return d, q, ref


def motion(b: BodyStates, dt: float) -> BodyStates:
    """Body states after ``dt`` of motion with constant world ``v`` and ``w``."""
    q = quat_multiply(rotvec_to_quat(b.w * dt), b.q)
    return BodyStates(b.x + b.v * dt, q, quat_to_matrix(q), b.v, b.w)


def random_velocities(s: Setup, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    v = rng.uniform(-1, 1, (2 * s.n + 1, 3))
    w = rng.uniform(-1, 1, (2 * s.n + 1, 3))
    v[-1] = w[-1] = 0.0  # ground
    return v, w


def jacobian_error(s: Setup, d: np.ndarray, q: np.ndarray, ref: np.ndarray,
                   rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Per-link max |d(residual)/dt - (G u - velocity)| along a random body motion, with
    ``G = rows @ J`` (the engine's constraint Jacobian), and the motion's speed scale."""
    v, w = random_velocities(s, rng)
    b = s.states(d, q, v, w)
    rel = s.rel(b)
    cons = s.kind.constraints(rel, s.ctx(T0, ref))
    G = np.einsum("nci,nij->ncj", cons.rows, rel.J)
    u = np.concatenate([v[s.master.body], w[s.master.body], v[s.slave.body],
                        w[s.slave.body]], axis=1)
    predicted = np.einsum("ncj,nj->nc", G, u) - cons.velocity
    plus = s.kind.residual(s.rel(motion(b, H)), s.ctx(T0 + H, ref))
    minus = s.kind.residual(s.rel(motion(b, -H)), s.ctx(T0 - H, ref))
    err = np.abs((plus - minus) / (2 * H) - predicted)
    return (err.max(axis=1) if err.size else np.zeros(s.n)), float(np.abs(u).max())


@pytest.fixture(params=LINK_TYPES)
def link_type(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@dataclass
class Case:
    """A block and one configuration on its manifold (``d``, ``q``, unwrapping ``ref``)."""

    setup: Setup
    d: np.ndarray
    q: np.ndarray
    ref: np.ndarray


_CASES: dict[tuple[str, bool], Case] = {}


@pytest.fixture(params=[False, True], ids=["master_on_body", "master_on_ground"])
def case(request: pytest.FixtureRequest, link_type: str) -> Case:
    """Built once per (type, master placement): the manifold walk is the costly part."""
    key = (link_type, bool(request.param))
    if key not in _CASES:
        rng = np.random.default_rng(LINK_TYPES.index(link_type) * 10 + int(request.param))
        s = make_setup(link_type, rng, master_on_ground=key[1])
        _CASES[key] = Case(s, *on_manifold(s, rng))
    return _CASES[key]


@pytest.fixture
def setup(case: Case) -> Setup:
    return case.setup


def test_builtin_catalogue_is_registered() -> None:
    """The loop below really covers the FRyDoM catalogue of DESIGN §1."""
    assert {"fixed", "revolute", "prismatic", "cylindrical", "spherical",
            "screw"} <= set(LINK_TYPES)


def test_shapes_and_declared_counts(setup: Setup) -> None:
    """rows (n, nc, 6), residual/velocity/acceleration (n, nc), E (n, 6, nf) with the
    declared nb_constraints and free_dofs; the rows are independent (full row rank)."""
    s, n = setup, setup.n
    rel = s.rel(s.states(np.zeros((n, 3)), np.tile([1.0, 0, 0, 0], (n, 1))))
    cons = s.kind.constraints(rel, s.ctx(T0, np.full(n, np.nan)))
    nc, nf = s.kind.nb_constraints, s.kind.nb_free
    assert cons.rows.shape == (n, nc, 6)
    for arr in (s.kind.residual(rel, s.ctx(T0, np.full(n, np.nan))), cons.velocity,
                cons.acceleration):
        assert arr.shape == (n, nc)
    assert s.kind.free_basis(rel).shape == (n, 6, nf)
    assert set(s.kind.free_dofs) <= set(DOFS)
    if nc:
        assert np.linalg.matrix_rank(cons.rows).min() == nc


def test_configurations_reach_the_manifold(case: Case) -> None:
    """The construction works: residual at round-off after moving along E (with
    rotations beyond pi), i.e. unwrapping and the coupled screw translation agree."""
    setup, d, q, ref = case.setup, case.d, case.q, case.ref
    res = setup.kind.residual(setup.rel(setup.states(d, q)), setup.ctx(T0, ref))
    assert res.size == 0 or np.abs(res).max() < 1e-12
    # the free motion really moved the slave (a do-nothing E would pass trivially), and
    # single free rotations went past pi (so unwrapping was needed to stay on it)
    if setup.kind.nb_free:
        moved = np.abs(d).max() + np.abs(q[:, 1:]).max()
        assert moved > 0.1
    if setup.kind.unwrap_angle(setup.rel(setup.states(d, q)), setup.ctx(T0, ref)) is not None:
        assert np.abs(ref).max() > np.pi


def test_jacobian_on_manifold_matches_residual_rate(case: Case) -> None:
    """On the manifold, d(residual)/dt == rows @ J @ u - velocity for ANY body velocities
    u (also those violating the constraint): G is the residual's exact Jacobian."""
    rng = np.random.default_rng(11)
    err, _ = jacobian_error(case.setup, case.d, case.q, case.ref, rng)
    assert err.max() < TOL, err


@pytest.mark.parametrize("eps", [1e-2, 1e-3])
def test_jacobian_off_manifold_is_first_order(case: Case, eps: float) -> None:
    """A distance ``eps`` off the manifold, G still predicts the residual rate up to
    O(eps |u|) (rotation-vector residuals are only tangent to w_rel at zero): the error
    is below 2 eps |u| + TOL (measured: 0.25-0.8 eps |u|, scaling linearly with eps).
    A wrong row would make an O(|u|) error instead."""
    rng = np.random.default_rng(13)
    setup, d, q, ref = case.setup, case.d, case.q, case.ref
    off = rng.normal(size=(setup.n, 6))
    off *= eps / np.linalg.norm(off, axis=1, keepdims=True)
    d, q = moved_relative(d, q, off)
    err, speed = jacobian_error(setup, d, q, ref, rng)
    assert err.max() < 2.0 * eps * speed + TOL, err


def test_free_basis_violates_no_constraint(case: Case) -> None:
    """rows @ E == 0 on the manifold; E has full column rank; and a small step ``h`` along
    E leaves the residual at O(h^2) (exactly zero for axis links)."""
    rng = np.random.default_rng(17)
    setup, d, q, ref = case.setup, case.d, case.q, case.ref
    rel = setup.rel(setup.states(d, q))
    E = setup.kind.free_basis(rel)
    cons = setup.kind.constraints(rel, setup.ctx(T0, ref))
    np.testing.assert_allclose(np.einsum("nci,nik->nck", cons.rows, E), 0.0, atol=1e-12)
    if setup.kind.nb_free:
        assert np.linalg.matrix_rank(E).min() == setup.kind.nb_free
    h = 1e-3
    g = rng.uniform(-1, 1, (setup.n, setup.kind.nb_free))
    d2, q2 = moved_relative(d, q, h * np.einsum("nik,nk->ni", E, g))
    res = setup.kind.residual(setup.rel(setup.states(d2, q2)), setup.ctx(T0, ref))
    assert res.size == 0 or np.abs(res).max() < 10 * h**2


def test_block_of_n_equals_n_blocks_of_one(case: Case) -> None:
    """constraints(), displacement, coordinates and E of one block of N links equal the
    concatenation of N single-link blocks, on and off the manifold."""
    rng = np.random.default_rng(19)
    setup, d, q, ref = case.setup, case.d, case.q, case.ref
    cls = type(setup.kind)
    singles = [cls([p]) for p in setup.params]
    for off in (0.0, 0.05):
        dd, qq = moved_relative(d, q, off * rng.normal(size=(setup.n, 6)))
        b = setup.states(dd, qq, *random_velocities(setup, rng))
        rel = setup.rel(b)
        ctx = setup.ctx(T0, ref)
        block = setup.kind.constraints(rel, ctx)
        for i, one in enumerate(singles):
            sub = relative(b, setup.master.subset([i]), setup.slave.subset([i]))
            c1 = one.constraints(sub, setup.ctx(T0, ref[[i]]))
            for field in ("rows", "velocity", "acceleration"):
                np.testing.assert_allclose(getattr(block, field)[i], getattr(c1, field)[0],
                                           rtol=1e-13, atol=1e-15, err_msg=field)
            np.testing.assert_allclose(setup.kind.residual(rel, ctx)[i],
                                       one.residual(sub, setup.ctx(T0, ref[[i]]))[0],
                                       rtol=1e-13, atol=1e-15, err_msg="residual")
            np.testing.assert_allclose(setup.kind.free_basis(rel)[i], one.free_basis(sub)[0],
                                       atol=1e-15)
            np.testing.assert_allclose(setup.kind.displacement(rel, ctx)[i],
                                       one.displacement(sub, setup.ctx(T0, ref[[i]]))[0],
                                       atol=1e-14)
            for a, b1 in zip(setup.kind.coordinates(rel, ctx),
                             one.coordinates(sub, setup.ctx(T0, ref[[i]])), strict=True):
                np.testing.assert_allclose(a[i], b1[0], atol=1e-14)


def test_quaternion_sign_does_not_matter(case: Case) -> None:
    """q and -q are the same body attitude (an integrator may drift to either): flipping
    the sign of the slave or the master bodies' quaternions (so q_rel changes sign)
    leaves residuals and displacement unchanged, near the manifold and with rotations
    past pi."""
    setup, ref, n = case.setup, case.ref, case.setup.n
    rng = np.random.default_rng(23)
    d, q = moved_relative(case.d, case.q, 0.05 * rng.normal(size=(n, 6)))
    b = setup.states(d, q)
    ctx = setup.ctx(T0, ref)
    r1 = setup.rel(b)
    for bodies in (slice(n, 2 * n), slice(0, n)):
        sign = np.ones((2 * n + 1, 1))
        sign[bodies] = -1.0
        r2 = setup.rel(BodyStates(b.x, sign * b.q, b.R, b.v, b.w))
        if bodies.start == n:
            np.testing.assert_allclose(r2.q_rel, -r1.q_rel, atol=1e-15)  # it did flip
        np.testing.assert_allclose(setup.kind.residual(r2, ctx),
                                   setup.kind.residual(r1, ctx), atol=1e-13)
        np.testing.assert_allclose(setup.kind.displacement(r2, ctx),
                                   setup.kind.displacement(r1, ctx), atol=1e-13)


# ---------------------------------------------------------------------------- engine level

def add_pendulum(system: System, i: int, rng: np.random.Generator) -> None:
    """A compound pendulum on a revolute link about a random ground axis, displaced by a
    random angle, spinning about its hinge, with a full inertia tensor and a torsion
    spring-damper on the hinge."""
    pivot = rng.uniform(-5, 5, 3)
    axis = random_quat(rng, 1)[0]
    system.ground.add_node(f"pivot{i}", position=pivot, orientation={"quaternion": axis})
    angle = rng.uniform(-np.pi, np.pi)
    q_body = quat_multiply(axis, rotvec_to_quat(np.array([0.0, 0.0, angle])))
    arm = np.array([rng.uniform(0.5, 2.0), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)])
    x_body = pivot + quat_to_matrix(q_body) @ arm
    omega = rng.uniform(-2, 2) * quat_to_matrix(axis)[:, 2]
    principal = rng.uniform(1.0, 3.0, 3)
    inertia = [*principal, 0.1 * principal[0], -0.05 * principal[1], 0.07 * principal[2]]
    body = system.add_body(f"p{i}", mass=float(rng.uniform(1, 10)), inertia=inertia,
                           position=x_body, orientation={"quaternion": q_body},
                           velocity=np.cross(omega, x_body - pivot), angular_velocity=omega)
    body.add_node("hinge", position=-arm)
    system.add_link(f"hinge{i}", "revolute", master=f"ground.pivot{i}", slave=f"p{i}.hinge",
                    spring_damper={"stiffness": float(rng.uniform(0, 20)),
                                   "damping": float(rng.uniform(0, 2)), "rest": 0.3})


def test_n_pendulums_in_one_block_equal_n_separate_systems() -> None:
    """25 independent pendulums in one system (one revolute block of 125 rows: the sparse
    path of the constraint solver) give the accelerations and link outputs of 25
    one-pendulum systems (dense path), at the initial state and along 5 rk4 steps."""
    nb = 25
    combined = System(registry=REGISTRY)
    separate = [System(registry=REGISTRY) for _ in range(nb)]
    for i in range(nb):
        add_pendulum(combined, i, np.random.default_rng(100 + i))
        add_pendulum(separate[i], i, np.random.default_rng(100 + i))
    model = assemble(combined)
    assert len(model.link_blocks) == 1 and model.nb_rows == 5 * nb
    ev = evaluate(model, model.initial)
    out = link_outputs(model, ev)
    for i, system in enumerate(separate):
        m1 = assemble(system)
        ev1 = evaluate(m1, m1.initial)
        np.testing.assert_allclose(ev.udot[i], ev1.udot[0], rtol=1e-9, atol=1e-9)
        for key, value in link_outputs(m1, ev1).items():
            np.testing.assert_allclose(out[key][i], value[0], rtol=1e-9, atol=1e-8,
                                       err_msg=key)
    # the reactions are not trivially zero (gravity and spin load the hinges)
    assert np.abs(out["link_reaction_force"]).max() > 1.0
    ds = combined.run(t_end=0.05, dt=0.01)
    for i in (0, 7, 13, 24):  # a sample: one-body runs cost 0.1 s each
        ds1 = separate[i].run(t_end=0.05, dt=0.01)
        for var in ("body_position", "body_orientation", "body_angular_velocity",
                    "link_reaction_force", "link_displacement"):
            entity = ds[var].dims[1]
            np.testing.assert_allclose(ds[var].isel({entity: i}), ds1[var].isel({entity: 0}),
                                       rtol=1e-9, atol=1e-9, err_msg=var)
