"""The link type checks: shapes, block independence, and the constraint rows as the
exact time derivative of the residual on and off the constraint manifold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from frylinks.errors import FrylinksError
from frylinks.io.runner import System
from frylinks.kinematics import BodyStates, NodeSet, Relative, relative
from frylinks.links import LinkContext, LinkType
from frylinks.model.registry import Registry
from frylinks.rotations import (
    quat_conjugate,
    quat_multiply,
    quat_to_matrix,
    rotate,
    rotvec_to_quat,
)
from frylinks.signals import SignalBank, SignalSpec
from frylinks.testing.common import (
    OFF_MANIFOLD,
    T0,
    TOL,
    Array,
    H,
    Instances,
    N,
    _bank,
    _close,
    _cycled,
    _empty_nodes,
    _explained,
    _finite,
    _ground_only,
    _label,
    _random_nodes,
    _random_quat,
    _refused,
    _seed,
    _shape,
    example_instances,
    registry_with,
)
from frylinks.testing.declarations import check_declarations

# ------------------------------------------------------------------------------ links

def _moved_relative(d: Array, q_rel: Array, delta: Array) -> tuple[Array, Array]:
    """The relative pose after the relative twist ``delta`` (master axes) for unit time:
    ``d += delta_t``, ``R_rel = exp([delta_r]x) R_rel`` (as ``R_rel' = [w_rel]x R_rel``)."""
    return d + delta[:, :3], quat_multiply(rotvec_to_quat(delta[:, 3:]), q_rel)


def _motion(b: BodyStates, dt: float) -> BodyStates:
    """Body states after ``dt`` of motion with constant world ``v`` and ``w``."""
    q = quat_multiply(rotvec_to_quat(b.w * dt), b.q)
    return BodyStates(b.x + b.v * dt, q, quat_to_matrix(q), b.v, b.w)


def _link_block(cls: type[LinkType], params: list[dict[str, Any]], registry: Registry
                ) -> tuple[LinkType, SignalBank]:
    """The type instantiated on ``params`` as the engine does, with its own signals."""
    specs: list[SignalSpec] = []
    kind = cls(params, specs)
    return kind, _bank(specs, registry)


def _parse_links(cls: type[LinkType], instances: list[dict[str, Any]], n: int,
                 registry: Registry) -> list[dict[str, Any]]:
    """Parsed parameters of ``n`` links, through the public API (as for a user)."""
    system = System(registry=registry)
    system.add_body("a", mass=1.0, inertia=[1.0, 1.0, 1.0])
    system.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0])
    out = []
    for i, p in enumerate(_cycled(instances, n)):
        try:
            out.append(system.add_link(f"l{i}", cls.name, master="a", slave="b", **p).params)
        except FrylinksError as exc:
            raise _refused(_label(cls), i % len(instances), p, exc) from exc
    return out


@dataclass
class LinkCase:
    """A block of ``n`` links of one type and one configuration on its manifold.

    Link ``i`` joins body ``i`` (or ground, index ``2 n``) as master to body ``n + i`` as
    slave; master bodies have fixed random poses, slave bodies are placed from the
    relative pose ``(d, q)`` (``q`` the rotation master node -> slave node) of the slave
    node in master-node axes. ``ref`` is the angle-unwrapping reference. Build with
    :meth:`build`; each ``check_*`` method raises :class:`AssertionError`.
    """

    cls: type[LinkType]
    params: list[dict[str, Any]]
    kind: LinkType
    bank: SignalBank
    master: NodeSet
    slave: NodeSet
    xA: Array
    qA: Array
    d: Array
    q: Array
    ref: Array
    registry: Registry

    @classmethod
    def build(cls, link_type: type[LinkType], instances: Instances | None = None, *,
              n: int = N, master_on_ground: bool = False, seed: int | None = None,
              registry: Registry | None = None) -> LinkCase:
        """A block of ``n`` links parsed from the examples (cycled), on random nodes, and
        a configuration on its manifold with free coordinates of order 1-5.

        Parameters
        ----------
        link_type
            The link type.
        instances
            Parameter sets (default: the type's ``examples``).
        n
            Links in the block.
        master_on_ground
            Masters on ground instead of moving bodies.
        seed
            Random seed (default: from the type's name and ``master_on_ground``).
        registry
            Registry for parsing (default: every installed plugin); the type is added
            if missing.
        """
        reg = registry_with([("link", link_type)], registry)
        examples = example_instances(link_type, instances)
        rng = np.random.default_rng(_seed(link_type, int(master_on_ground))
                                    if seed is None else seed)
        params = _parse_links(link_type, examples, n, reg)
        kind, bank = _link_block(link_type, params, reg)
        mbody = np.full(n, 2 * n) if master_on_ground else np.arange(n)
        case = cls(link_type, params, kind, bank, _random_nodes(rng, mbody),
                   _random_nodes(rng, np.arange(n, 2 * n)), rng.uniform(-2, 2, (n, 3)),
                   _random_quat(rng, n), np.zeros((n, 3)), np.tile([1.0, 0, 0, 0], (n, 1)),
                   np.full(n, np.nan), reg)
        # shapes first: the walk below calls every method
        _check_link_shapes(kind, case.rel(case.states(case.d, case.q)),
                           case.ctx(T0, case.ref), case.label)
        case._walk_manifold(rng)
        return case

    # -- geometry

    @property
    def n(self) -> int:
        return self.kind.nb_links

    @property
    def label(self) -> str:
        return _label(self.cls)

    def ctx(self, t: float, angle_ref: Array, bank: SignalBank | None = None) -> LinkContext:
        """The link context at ``t`` (signal values and two derivatives)."""
        bank = self.bank if bank is None else bank
        values = ([bank.evaluate(t, k) for k in range(3)] if bank.nb_slots
                  else [np.zeros(0)] * 3)
        return LinkContext(t, values, angle_ref)

    def states(self, d: Array, q_rel: Array, v: Array | None = None, w: Array | None = None
               ) -> BodyStates:
        """Body states (ground last) placing each slave node at ``(d, q_rel)``."""
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

    def random_velocities(self, rng: np.random.Generator) -> tuple[Array, Array]:
        """World ``v`` and ``w`` of every body, ground at rest."""
        v = rng.uniform(-1, 1, (2 * self.n + 1, 3))
        w = rng.uniform(-1, 1, (2 * self.n + 1, 3))
        v[-1] = w[-1] = 0.0
        return v, w

    def _update_ref(self, rel: Relative, t: float, angle_ref: Array) -> Array:
        angle = self.kind.unwrap_angle(rel, self.ctx(t, angle_ref))
        return angle_ref if angle is None else np.asarray(angle, dtype=float)

    def projected(self, d: Array, q: Array, ref: Array, t: float = T0) -> tuple[Array, Array]:
        """Newton steps with the link's rows onto its manifold (min-norm relative twist)."""
        for _ in range(30):
            rel, ctx = self.rel(self.states(d, q)), self.ctx(t, ref)
            cons, res = self.kind.constraints(rel, ctx), self.kind.residual(rel, ctx)
            if res.size == 0 or np.abs(res).max() < 1e-14:
                break
            delta = -np.einsum("nij,nj->ni", np.linalg.pinv(cons.rows), res)
            d, q = _moved_relative(d, q, delta)
        return d, q

    def _walk_manifold(self, rng: np.random.Generator, t: float = T0, steps: int = 15
                       ) -> None:
        """Coincident nodes projected onto the manifold, then small steps along ``E``
        (re-projecting after each), keeping the unwrapping reference up to date like the
        engine does: free coordinates of order 1-5, rotations past pi."""
        n, nf = self.n, self.kind.nb_free
        d, q, ref = self.d, self.q, self.ref
        d, q = self.projected(d, q, ref, t)
        ref = self._update_ref(self.rel(self.states(d, q)), t, ref)
        g = rng.uniform(-5.0, 5.0, (n, nf))
        for _ in range(steps):
            E = self.kind.free_basis(self.rel(self.states(d, q)))
            d, q = _moved_relative(d, q, np.einsum("nik,nk->ni", E, g) / steps)
            d, q = self.projected(d, q, ref, t)
            ref = self._update_ref(self.rel(self.states(d, q)), t, ref)
        self.d, self.q, self.ref = d, q, ref

    def jacobian_error(self, d: Array, q: Array, rng: np.random.Generator
                       ) -> tuple[Array, float]:
        """Per-link max |d(residual)/dt - (G u - velocity)| along a random body motion,
        with ``G = rows @ J`` (the engine's constraint Jacobian), and the motion's speed
        scale."""
        v, w = self.random_velocities(rng)
        b = self.states(d, q, v, w)
        rel = self.rel(b)
        cons = self.kind.constraints(rel, self.ctx(T0, self.ref))
        G = rel.constraint_jacobian(cons.rows)
        u = np.concatenate([v[self.master.body], w[self.master.body], v[self.slave.body],
                            w[self.slave.body]], axis=1)
        predicted = np.einsum("ncj,nj->nc", G, u) - cons.velocity
        if self.cls.constraint_level != "position":
            # no position-level constraint (a velocity or acceleration driver): the
            # residual must stay zero whatever the motion
            predicted = np.zeros_like(predicted)
        plus = self.kind.residual(self.rel(_motion(b, H)), self.ctx(T0 + H, self.ref))
        minus = self.kind.residual(self.rel(_motion(b, -H)), self.ctx(T0 - H, self.ref))
        err = np.abs((plus - minus) / (2 * H) - predicted)
        return (err.max(axis=1) if err.size else np.zeros(self.n)), float(np.abs(u).max())

    # -- checks

    def check_shapes(self) -> None:
        """rows ``(n, nc, 6)``, residual/velocity/acceleration ``(n, nc)``, E ``(n, 6, nf)``,
        displacement ``(n, 6)``, coordinates ``(n, nf)`` with the declared
        ``nb_constraints`` and ``free_dofs``; rows of full row rank (independent), and
        ``nc + nf == 6``."""
        n, nc, nf, label = self.n, self.kind.nb_constraints, self.kind.nb_free, self.label
        rel = self.rel(self.states(np.zeros((n, 3)), np.tile([1.0, 0, 0, 0], (n, 1))))
        ctx = self.ctx(T0, np.full(n, np.nan))
        _check_link_shapes(self.kind, rel, ctx, label)
        if nc and not self.kind.switching:  # (a switched-off row is zero)
            rank = np.linalg.matrix_rank(self.kind.constraints(rel, ctx).rows).min()
            assert rank == nc, f"{label}: constraint rows are dependent (rank {rank} < {nc})"
        assert nc + nf == 6, (f"{label}: {nc} constraints and {nf} free DOFs; every DOF must "
                              "be either constrained or free (nc + nf == 6)")

    def check_manifold(self) -> None:
        """The construction works: residual at round-off after moving along E (with
        rotations past pi); the free motion really moved the slave, and single free
        rotations went past pi (so unwrapping was needed to stay on the manifold)."""
        rel = self.rel(self.states(self.d, self.q))
        res = self.kind.residual(rel, self.ctx(T0, self.ref))
        assert res.size == 0 or np.abs(res).max() < 1e-12, (
            f"{self.label}: Newton steps with the link's own rows and moves along its "
            f"free_basis do not reach residual == 0 (max |residual| = {np.abs(res).max():.3g}"
            "): rows, residual and free_basis disagree")
        if self.kind.nb_free:
            moved = np.abs(self.d).max() + np.abs(self.q[:, 1:]).max()
            assert moved > 0.1, f"{self.label}: moving along free_basis does not move the slave"
        if self.kind.unwrap_angle(rel, self.ctx(T0, self.ref)) is not None:
            assert np.abs(self.ref).max() > np.pi, f"{self.label}: no angle went past pi"

    def check_jacobian_on_manifold(self, seed: int = 11) -> None:
        """On the manifold, ``d(residual)/dt == rows @ J @ u - velocity`` for ANY body
        velocities ``u`` (also those violating the constraint): G is the residual's exact
        Jacobian."""
        err, _ = self.jacobian_error(self.d, self.q, np.random.default_rng(seed))
        assert err.max() < TOL, (
            f"{self.label}: on the manifold, the time derivative of residual differs from "
            f"rows @ J @ u - velocity by {err.max():.3g} (tolerance {TOL:g}); per link: {err}")

    def check_jacobian_off_manifold(self, eps: float, seed: int = 13) -> None:
        """A distance ``eps`` off the manifold, G still predicts the residual rate up to
        O(eps |u|) (rotation-vector residuals are only tangent to w_rel at zero): error
        below ``2 eps |u| + TOL`` (built-ins: 0.25-0.8 eps |u|); a wrong row would make
        an O(|u|) error."""
        rng = np.random.default_rng(seed)
        off = rng.normal(size=(self.n, 6))
        off *= eps / np.linalg.norm(off, axis=1, keepdims=True)
        d, q = _moved_relative(self.d, self.q, off)
        err, speed = self.jacobian_error(d, q, rng)
        assert err.max() < 2.0 * eps * speed + TOL, (
            f"{self.label}: {eps:g} off the manifold, the residual rate differs from rows @ J "
            f"@ u - velocity by {err.max():.3g}, more than 2 eps |u| = {2 * eps * speed:.3g}")

    def check_free_basis(self, seed: int = 17) -> None:
        """``rows @ E == 0`` on the manifold; E has full column rank; a small step ``h``
        along E leaves the residual at O(h^2)."""
        rng = np.random.default_rng(seed)
        rel = self.rel(self.states(self.d, self.q))
        E = self.kind.free_basis(rel)
        cons = self.kind.constraints(rel, self.ctx(T0, self.ref))
        _close(self.label, "rows @ free_basis must be 0 (a free motion violates a constraint)",
               np.einsum("nci,nik->nck", cons.rows, E), 0.0, atol=1e-12)
        nf = self.kind.nb_free
        if nf:
            rank = np.linalg.matrix_rank(E).min()
            assert rank == nf, f"{self.label}: free_basis has rank {rank} < {nf}"
        h = 1e-3
        g = rng.uniform(-1, 1, (self.n, nf))
        d2, q2 = _moved_relative(self.d, self.q, h * np.einsum("nik,nk->ni", E, g))
        res = self.kind.residual(self.rel(self.states(d2, q2)), self.ctx(T0, self.ref))
        assert res.size == 0 or np.abs(res).max() < 10 * h**2, (
            f"{self.label}: a step {h:g} along free_basis breaks the constraints by "
            f"{np.abs(res).max():.3g} (expected O(h^2))")

    def check_blocks(self, seed: int = 19) -> None:
        """constraints, residual, displacement, coordinates, unwrap_angle and E of one
        block of N links equal those of N single-link blocks, on and off the manifold,
        with random body velocities."""
        rng = np.random.default_rng(seed)
        singles = [_link_block(self.cls, [p], self.registry) for p in self.params]
        label = self.label
        for off in (0.0, 0.05):
            d, q = _moved_relative(self.d, self.q, off * rng.normal(size=(self.n, 6)))
            b = self.states(d, q, *self.random_velocities(rng))
            rel = self.rel(b)
            ctx = self.ctx(T0, self.ref)
            block = self.kind.constraints(rel, ctx)
            res = self.kind.residual(rel, ctx)
            disp = self.kind.displacement(rel, ctx)
            E = self.kind.free_basis(rel)
            coords = self.kind.coordinates(rel, ctx)
            angle = self.kind.unwrap_angle(rel, ctx)
            for i, (one, bank) in enumerate(singles):
                one_link = np.array([i])
                sub = relative(b, self.master.subset(one_link), self.slave.subset(one_link))
                c1 = self.ctx(T0, self.ref[[i]], bank)
                where = f"link {i} of a block of {self.n} vs a block of one"
                _check_link_shapes(one, sub, c1, label)
                cons1 = one.constraints(sub, c1)
                for field in ("rows", "velocity", "acceleration"):
                    _close(label, f"{where}: {field}", getattr(block, field)[i],
                           getattr(cons1, field)[0])
                _close(label, f"{where}: residual", res[i], one.residual(sub, c1)[0])
                _close(label, f"{where}: free_basis", E[i], one.free_basis(sub)[0])
                _close(label, f"{where}: displacement", disp[i],
                       one.displacement(sub, c1)[0], atol=1e-14)
                for name, a, a1 in zip(("gpos", "gvel"), coords, one.coordinates(sub, c1),
                                       strict=True):
                    _close(label, f"{where}: coordinates {name}", a[i], a1[0], atol=1e-14)
                angle1 = one.unwrap_angle(sub, c1)
                assert (angle is None) == (angle1 is None), f"{label}: {where}: unwrap_angle"
                if angle is not None and angle1 is not None:
                    _close(label, f"{where}: unwrap_angle", angle[i], angle1[0], atol=1e-14)

    def check_quaternion_sign(self, seed: int = 23) -> None:
        """q and -q are the same attitude (an integrator may drift to either): flipping
        the sign of the slave or the master bodies' quaternions (so q_rel changes sign)
        leaves residual and displacement unchanged, near the manifold."""
        n, label = self.n, self.label
        rng = np.random.default_rng(seed)
        d, q = _moved_relative(self.d, self.q, 0.05 * rng.normal(size=(n, 6)))
        b = self.states(d, q)
        ctx = self.ctx(T0, self.ref)
        r1 = self.rel(b)
        for bodies, who in ((slice(n, 2 * n), "slave"), (slice(0, n), "master")):
            sign = np.ones((2 * n + 1, 1))
            sign[bodies] = -1.0
            r2 = self.rel(BodyStates(b.x, sign * b.q, b.R, b.v, b.w))
            _close(label, f"residual with the {who} quaternions negated",
                   self.kind.residual(r2, ctx), self.kind.residual(r1, ctx), atol=1e-13)
            _close(label, f"displacement with the {who} quaternions negated",
                   self.kind.displacement(r2, ctx), self.kind.displacement(r1, ctx),
                   atol=1e-13)

    def check_all(self) -> None:
        """Every check of this case."""
        self.check_shapes()
        self.check_manifold()
        self.check_jacobian_on_manifold()
        for eps in OFF_MANIFOLD:
            self.check_jacobian_off_manifold(eps)
        self.check_free_basis()
        self.check_blocks()
        self.check_quaternion_sign()


def _check_link_shapes(kind: LinkType, rel: Relative, ctx: LinkContext, label: str) -> None:
    n, nc, nf = len(rel.d), kind.nb_constraints, kind.nb_free
    assert kind.nb_links == n, f"{label}: nb_links is {kind.nb_links}, expected {n}"
    # displacement first: AxisLink's residual and coordinates are built on it
    _shape(label, "displacement()", kind.displacement(rel, ctx), (n, 6))
    cons = kind.constraints(rel, ctx)
    _shape(label, "constraints().rows", cons.rows, (n, nc, 6))
    _shape(label, "constraints().velocity", cons.velocity, (n, nc))
    _shape(label, "constraints().acceleration", cons.acceleration, (n, nc))
    _shape(label, "residual()", kind.residual(rel, ctx), (n, nc))
    _shape(label, "free_basis()", kind.free_basis(rel), (n, 6, nf))
    gpos, gvel = kind.coordinates(rel, ctx)
    _shape(label, "coordinates() gpos", gpos, (n, nf))
    _shape(label, "coordinates() gvel", gvel, (n, nf))
    angle = kind.unwrap_angle(rel, ctx)
    if angle is not None:
        _shape(label, "unwrap_angle()", angle, (n,))
    for what, arr in (("rows", cons.rows), ("velocity", cons.velocity),
                      ("acceleration", cons.acceleration)):
        _finite(label, f"constraints().{what}", np.asarray(arr))


def _check_empty_link_block(cls: type[LinkType], nc: int, registry: Registry) -> None:
    label = _label(cls)
    with _explained(label, "a block of 0 links"):
        kind, _ = _link_block(cls, [], registry)
        assert kind.nb_constraints == nc, (
            f"{label}: a block of 0 links has {kind.nb_constraints} constraints per link, a "
            f"block of many {nc}")
        rel = relative(_ground_only(), _empty_nodes(), _empty_nodes())
        _check_link_shapes(kind, rel, LinkContext(T0, [np.zeros(0)] * 3, np.zeros(0)),
                           label)


def check_link_type(cls: type[LinkType], instances: Instances | None = None, *, n: int = N,
                    registry: Registry | None = None) -> None:
    """Run every link check (module doc) on a link type.

    Parameters
    ----------
    cls
        A subclass of :class:`~frylinks.links.LinkType`.
    instances
        Parameter sets as a user gives them beside ``type`` (default: ``cls.examples``).
    n
        Links in the "many" block; blocks of 0 and 1 are checked too.
    registry
        Registry resolving signal types in the examples (default: every installed
        plugin); ``cls`` is added to it if missing.

    Raises
    ------
    AssertionError
        The first broken rule, naming the type.
    """
    check_declarations(cls)
    reg = registry_with([("link", cls)], registry)
    for master_on_ground in (False, True):
        case = LinkCase.build(cls, instances, n=n, master_on_ground=master_on_ground,
                              registry=reg)
        case.check_all()
    _check_empty_link_block(cls, case.kind.nb_constraints, reg)
