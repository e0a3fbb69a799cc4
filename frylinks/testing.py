"""Contract checks for plugin types: run them on your link, force and signal types.

Every check is a plain function that raises :class:`AssertionError` with a message
naming the type and what is wrong, so it runs from pytest (or anything else) without
fixtures::

    import my_package.plugin
    from frylinks.testing import check_plugin


    def test_my_plugin_keeps_the_frylinks_contract():
        check_plugin(my_package.plugin)

What is checked, for every type:

* **declarations**: the registry accepts the class (base class, name pattern, every
  parameter a :class:`~frylinks.params.Param` with ``units``), every parameter has a doc
  line, the type has a ``description``; a force type's ``attachments`` are declared
  ``node``/``body`` parameters and each of its ``outputs`` has ``units``, a
  ``long_name``, known ``dims`` and the type name as prefix;
* **shapes** of every method's result for blocks of 0, 1 and many instances;
* **one block of N instances equals N blocks of one** (no instance may see another);
* links: on random configurations on the constraint manifold (reached by the link's
  own rows and free basis, with rotations past pi), the engine's constraint Jacobian
  ``rows @ J`` is the exact time derivative of ``residual`` along arbitrary body
  motions (central differences), first order off the manifold, ``rows @ free_basis ==
  0``, and residual and displacement do not depend on the sign of the quaternions;
* forces: finite wrenches and outputs, ``evaluate`` and ``output_values`` leave their
  inputs unchanged and give the same result when called twice, and ``output_values``
  leaves the type's ``memory`` as it found it;
* settings: outputs of the declared shapes, the same when asked twice, and
  ``output_series`` (many times at once) equal to ``output_values`` at each time;
* signals: orders 1 and 2 of ``evaluate`` are the time derivatives of order 0 (finite
  differences, away from kinks).

**Example parameters.** A type is instantiated from example parameter sets, exactly as a
user would give them beside ``type`` (numbers, lists, signal mappings; a force type's
attachment parameters are left out: the checks place them). A type declares them in a
class attribute ``examples: list[dict]``; a check function's ``instances`` argument
overrides them; a type without required parameters defaults to ``[{}]``. A block of
``n`` instances cycles through the examples, on random node frames.

Numerical settings: links are differenced in time with step ``H = 1e-5``: the
central-difference error is O(H^2) ~ 1e-10 times third derivatives of order one
(measured below 3e-10 for the built-in types), so the tolerance is ``TOL = 1e-7``, while
a row off by 1% in one coefficient makes an error of 1e-2.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import FrylinksError, PluginError
from .forces import ForceContext, ForceType, Output
from .kinematics import BodyStates, NodeFrames, NodeSet, Relative, node_frames, relative
from .links import DOFS, LinkContext, LinkType
from .params import Param, parse_params
from .registry import KINDS, Registry, TypeInfo
from .rotations import (
    quat_conjugate,
    quat_multiply,
    quat_to_matrix,
    rotate,
    rotvec_to_quat,
)
from .settings import SettingType
from .signals import SignalBank, SignalSpec, SignalType
from .system import System

__all__ = [
    "LinkCase",
    "check_declarations",
    "check_force_type",
    "check_link_type",
    "check_plugin",
    "check_signal_type",
    "check_type",
    "example_instances",
]

Array = np.ndarray
Instances = Sequence[Mapping[str, Any]]

#: Time step of the central differences of link residuals [s].
H = 1e-5
#: Tolerance on d(residual)/dt against ``rows @ J @ u - velocity`` (module doc).
TOL = 1e-7
#: Instances per block ("many").
N = 7
#: Evaluation time [s]: time-dependent types see a non-trivial t.
T0 = 0.3
#: Off-manifold distances of the first-order Jacobian check.
OFF_MANIFOLD = (1e-2, 1e-3)
#: Extra dimensions a plugin output may have (``frylinks.registry.OUTPUT_DIMS``), with
#: their lengths.
OUTPUT_DIMS = {"xyz": 3, "quat": 4, "dof": len(DOFS)}


# --------------------------------------------------------------------------- helpers

def _kind_of(cls: Any) -> str:
    for kind, (_, base) in KINDS.items():
        if isinstance(cls, type) and issubclass(cls, base):
            return kind
    raise AssertionError(
        f"{cls!r} is not a link, force, signal or setting type: derive it from "
        "frylinks.links.LinkType, frylinks.forces.ForceType, frylinks.signals.SignalType or "
        "frylinks.settings.SettingType")


def _label(cls: type) -> str:
    return f"{_kind_of(cls)} type '{getattr(cls, 'name', '?')}' ({cls.__module__}." \
           f"{cls.__qualname__})"


def _seed(cls: type, salt: int = 0) -> int:
    """A seed stable across runs and independent of which other types are installed."""
    return zlib.crc32(f"{cls.__module__}.{cls.__qualname__}:{salt}".encode())


class _TypesPlugin:
    """An inline plugin returning given classes from the type hooks."""

    def __init__(self, types: Sequence[tuple[str, type[Any]]]) -> None:
        self._types = list(types)

    def _of(self, kind: str) -> list[type]:
        return [cls for k, cls in self._types if k == kind]

    def frylinks_link_types(self) -> list[type]:
        return self._of("link")

    def frylinks_force_types(self) -> list[type]:
        return self._of("force")

    def frylinks_signal_types(self) -> list[type]:
        return self._of("signal")


def _registry_with(types: Sequence[tuple[str, type[Any]]], registry: Registry | None) -> Registry:
    """``registry`` (by default every installed plugin) knowing ``types``: a type under
    test replaces an installed one of the same name (e.g. a newer version of it)."""
    reg = registry if registry is not None else Registry()
    for kind, cls in types:
        info = reg.get(kind, cls.name)
        if info is None or info.cls is not cls:
            reg.types[kind][cls.name] = TypeInfo(kind, cls.name, cls, "frylinks.testing",
                                                 "local", "")
    return reg


def example_instances(cls: type, instances: Instances | None = None) -> list[dict[str, Any]]:
    """The parameter sets a type is checked with.

    Parameters
    ----------
    cls
        A link, force or signal type.
    instances
        Parameter sets given by the caller; by default the class attribute ``examples``,
        or ``[{}]`` for a type without required parameters.

    Returns
    -------
    list of dict
        At least one parameter set (without a force type's attachments).
    """
    label = _label(cls)
    attachments = tuple(getattr(cls, "attachments", ()))
    given: Any = instances if instances is not None else getattr(cls, "examples", None)
    if given is None:
        params: Mapping[str, Any] = getattr(cls, "parameters", {})
        required = [k for k, p in params.items()
                    if isinstance(p, Param) and p.required and k not in attachments]
        if required:
            raise AssertionError(
                f"{label} has required parameters ({', '.join(required)}) but no example "
                "values: give the class an attribute `examples = [{...}, ...]`, a list of "
                "valid parameter sets as a user writes them beside `type` (see "
                "docs/plugins.md), or pass instances=[...] to the check")
        given = [{}]
    if isinstance(given, Mapping) or not isinstance(given, Sequence) or not given:
        raise AssertionError(f"{label}: examples must be a non-empty list of parameter "
                             f"mappings, got {given!r}")
    out = []
    for k, p in enumerate(given):
        if not isinstance(p, Mapping):
            raise AssertionError(f"{label}: examples[{k}] must be a mapping of parameter "
                                 f"values, got {p!r}")
        placed = [a for a in attachments if a in p]
        if placed:
            raise AssertionError(
                f"{label}: examples[{k}] gives the attachment(s) {', '.join(placed)}; leave "
                "them out, the checks attach each instance to nodes of their own")
        out.append(dict(p))
    return out


def _cycled(instances: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    return [instances[i % len(instances)] for i in range(n)]


def _refused(label: str, k: int, params: Mapping[str, Any], exc: Exception) -> AssertionError:
    return AssertionError(f"{label}: example parameters #{k} {dict(params)!r} are refused: "
                          f"{type(exc).__name__}: {exc}")


def _bank(specs: list[SignalSpec], registry: Registry) -> SignalBank:
    classes = {}
    for name in {s.type for s in specs}:
        info = registry.get("signal", name)
        assert info is not None, f"signal type '{name}' used by an example is not registered"
        classes[name] = info.cls
    return SignalBank(classes, specs)


def _random_quat(rng: np.random.Generator, n: int) -> Array:
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _random_nodes(rng: np.random.Generator, body: Array) -> NodeSet:
    return NodeSet(np.asarray(body, dtype=int), rng.uniform(-1, 1, (len(body), 3)),
                   quat_to_matrix(_random_quat(rng, len(body))))


def _empty_nodes() -> NodeSet:
    return NodeSet(np.zeros(0, dtype=int), np.zeros((0, 3)), np.zeros((0, 3, 3)))


def _ground_only() -> BodyStates:
    q = np.array([[1.0, 0.0, 0.0, 0.0]])
    zero = np.zeros((1, 3))
    return BodyStates(zero, q, quat_to_matrix(q), zero, zero)


def _shape(label: str, what: str, value: Any, shape: tuple[int, ...]) -> Array:
    arr = np.asarray(value)
    if arr.shape != shape:
        raise AssertionError(f"{label}: {what} has shape {arr.shape}, expected {shape}")
    return arr


def _finite(label: str, what: str, value: Array) -> None:
    if not np.all(np.isfinite(value)):
        raise AssertionError(f"{label}: {what} is not finite: {value!r}")


@contextmanager
def _explained(label: str, what: str) -> Iterator[None]:
    """Turn an exception raised by the type while doing ``what`` into an AssertionError
    that says so (the original stays attached as its cause)."""
    try:
        yield
    except AssertionError:
        raise
    except Exception as exc:
        raise AssertionError(f"{label}: {what} raised {type(exc).__name__}: {exc}") from exc


def _close(label: str, what: str, actual: Any, desired: Any, rtol: float = 1e-13,
           atol: float = 1e-15) -> None:
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol,
                               err_msg=f"{label}: {what}")


# ---------------------------------------------------------------------- declarations

def check_declarations(cls: type[Any]) -> None:
    """Class-level contract of a link, force or signal type (module doc, first item)."""
    kind = _kind_of(cls)
    label = _label(cls)
    with _explained(label, "registering it"):
        try:
            Registry(autoload=False).register(_TypesPlugin([(kind, cls)]),
                                              name="frylinks.testing")
        except PluginError as exc:
            raise AssertionError(f"{label} is refused by the registry: {exc}") from exc
    for pname, p in cls.parameters.items():
        if not (isinstance(p.doc, str) and p.doc.strip()):
            raise AssertionError(f"{label}: parameter '{pname}' has no doc line")
    description = getattr(cls, "description", "")
    if not (isinstance(description, str) and description.strip()):
        raise AssertionError(f"{label}: give it a one-line `description` (shown by "
                             "`frylinks plugins` and the docs)")
    if kind == "link":
        free = cls.free_dofs  # type: ignore[attr-defined]
        if not isinstance(free, tuple) or not set(free) <= set(DOFS) or \
                len(set(free)) != len(free):
            raise AssertionError(f"{label}: free_dofs must be a tuple of distinct names "
                                 f"from {' '.join(DOFS)}, got {free!r}")
    if kind == "force":
        _check_force_declarations(cls, label)


def _check_force_declarations(cls: type, label: str) -> None:
    attachments = cls.attachments  # type: ignore[attr-defined]
    if not isinstance(attachments, tuple) or not attachments:
        raise AssertionError(f"{label}: attachments must be a non-empty tuple of parameter "
                             f"names (('node',), ('body',) or ('master', 'slave')), got "
                             f"{attachments!r}")
    for att in attachments:
        p = cls.parameters.get(att)  # type: ignore[attr-defined]
        if p is None or p.kind not in ("node", "body"):
            raise AssertionError(f"{label}: attachment '{att}' must be declared in "
                                 "parameters as a Param of kind 'node' or 'body'")
    outputs = cls.outputs  # type: ignore[attr-defined]
    if not isinstance(outputs, Mapping):
        raise AssertionError(f"{label}: outputs must be a dict of name -> Output")
    for oname, o in outputs.items():
        where = f"{label}: output '{oname}'"
        if not isinstance(o, Output):
            raise AssertionError(f"{where} is not a frylinks.forces.Output")
        if not (isinstance(oname, str) and oname.startswith(f"{cls.name}_")):  # type: ignore[attr-defined]
            raise AssertionError(f"{where} must carry the type name as prefix "
                                 f"('{cls.name}_...')")  # type: ignore[attr-defined]
        if not isinstance(o.units, str):
            raise AssertionError(f"{where} declares no units (a CF units string, '1' when "
                                 "dimensionless)")
        if not (isinstance(o.long_name, str) and o.long_name.strip()):
            raise AssertionError(f"{where} has no long_name")
        own = tuple(getattr(cls, "dimensions", ()))
        unknown = [d for d in o.dims if d not in OUTPUT_DIMS and d not in own]
        if not isinstance(o.dims, tuple) or unknown:
            raise AssertionError(f"{where}: dims must be a tuple of "
                                 f"{', '.join((*OUTPUT_DIMS, *own))}; got {o.dims!r}")
    for dim in getattr(cls, "dimensions", ()):
        if not (isinstance(dim, str) and dim.startswith(f"{cls.name}_")):  # type: ignore[attr-defined]
            raise AssertionError(f"{label}: dimension {dim!r} must carry the type name as "
                                 f"prefix ('{cls.name}_...')")  # type: ignore[attr-defined]


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
        reg = _registry_with([("link", link_type)], registry)
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
    reg = _registry_with([("link", cls)], registry)
    for master_on_ground in (False, True):
        case = LinkCase.build(cls, instances, n=n, master_on_ground=master_on_ground,
                              registry=reg)
        case.check_all()
    _check_empty_link_block(cls, case.kind.nb_constraints, reg)


# ----------------------------------------------------------------------------- forces

@dataclass
class _ForceSetup:
    """``n`` force elements of one type on random nodes of ``nb`` moving bodies."""

    params: list[dict[str, Any]]
    attachments: list[NodeSet]
    bodies: BodyStates


def _force_setup(cls: type[ForceType], instances: list[dict[str, Any]], n: int,
                 registry: Registry, rng: np.random.Generator, nb: int = 4) -> _ForceSetup:
    """Parse ``n`` elements through the public API: each attachment on a random node of a
    random body (distinct bodies for the attachments of one element; ground sometimes
    among them when there are several), the bodies in random motion."""
    system = System(registry=registry)
    atts: tuple[str, ...] = cls.attachments
    names = [f"b{k}" for k in range(nb)]
    for name in names:
        body = system.add_body(name, mass=1.0, inertia=[1.0, 1.0, 1.0])
        for j in range(3):
            body.add_node(f"n{j}", position=rng.uniform(-1, 1, 3),
                          orientation={"quaternion": _random_quat(rng, 1)[0]})
    for j in range(3):
        system.ground.add_node(f"n{j}", position=rng.uniform(-1, 1, 3),
                               orientation={"quaternion": _random_quat(rng, 1)[0]})
    params, nodes = [], []
    for i, p in enumerate(_cycled(instances, n)):
        pool = [*names, "ground"] if len(atts) > 1 and i % 3 == 2 else names
        chosen = rng.choice(len(pool), size=len(atts), replace=False)
        refs = {}
        for att, k in zip(atts, chosen, strict=True):
            body = pool[k]
            if cls.parameters[att].kind == "body":
                refs[att] = body
            else:
                refs[att] = f"{body}.n{rng.integers(3)}"
        try:
            element = system.add_force(f"f{i}", cls.name, **p, **refs)
        except FrylinksError as exc:
            raise _refused(_label(cls), i % len(instances), p, exc) from exc
        params.append(element.params)
        nodes.append(element.nodes)
    index = {name: k for k, name in enumerate(names)}
    attachments = []
    for k in range(len(atts)):
        ns = [row[k] for row in nodes]
        where = np.array([nb if node.body.is_ground else index[node.body.name] for node in ns],
                         dtype=int)
        attachments.append(NodeSet(where, np.array([node.position for node in ns]).reshape(-1, 3),
                                   quat_to_matrix(np.array([node.orientation for node in ns])
                                                  .reshape(-1, 4))))
    x = np.vstack([rng.uniform(-2, 2, (nb, 3)), np.zeros(3)])
    q = np.vstack([_random_quat(rng, nb), [1.0, 0.0, 0.0, 0.0]])
    v = np.vstack([rng.uniform(-1, 1, (nb, 3)), np.zeros(3)])
    w = np.vstack([rng.uniform(-1, 1, (nb, 3)), np.zeros(3)])
    return _ForceSetup(params, attachments, BodyStates(x, q, quat_to_matrix(q), v, w))


def _force_block(cls: type[ForceType], params: list[dict[str, Any]], registry: Registry
                 ) -> tuple[ForceType, SignalBank]:
    specs: list[SignalSpec] = []
    kind = cls(params, specs)
    return kind, _bank(specs, registry)


GRAVITY = np.array([0.0, 0.0, -9.81])


def _default_settings(registry: Registry) -> dict[str, Any]:
    """Every registered setting built from its defaults (as for a system without them)."""
    out: dict[str, Any] = {}
    for name in registry.names("setting"):
        cls = registry.types["setting"][name].cls
        if not any(p.required for p in cls.parameters.values()):
            out[name] = cls(parse_params(cls.parameters, {}, name), GRAVITY)
    return out


def _force_ctx(t: float, bank: SignalBank, kind: ForceType | None = None,
               settings: Mapping[str, Any] | None = None) -> ForceContext:
    values = bank.evaluate(t, 0) if bank.nb_slots else np.zeros(0)
    states = kind.initial_states() if kind is not None and kind.nb_states else np.zeros(0)
    return ForceContext(t, values, GRAVITY, settings or {}, np.asarray(states, dtype=float))


def _prepared(kind: ForceType, bodies: BodyStates, attachments: Sequence[NodeSet],
              bank: SignalBank, settings: Mapping[str, Any]) -> ForceType:
    """``kind`` after its :meth:`~ForceType.prepare` at the frames of ``bodies`` (masses
    of 1 kg, ground 0), as the engine does at assembly."""
    ctx = _force_ctx(0.0, bank, None, settings)
    ctx.masses = [np.where(att.body == len(bodies.x) - 1, 0.0, 1.0) for att in attachments]
    kind.prepare([node_frames(bodies, att) for att in attachments], ctx)
    ctx.masses = []
    return kind


def _frames_copy(frames: Sequence[NodeFrames]) -> list[dict[str, Array]]:
    return [{k: np.array(getattr(f, k), copy=True) for k in ("p", "R", "q", "v", "w", "r")}
            for f in frames]


@dataclass
class _ForceResult:
    force: Array
    torque: Array
    outputs: dict[str, Array]
    mass: Array
    weights: Array | None


def _point_masses(kind: ForceType, frames: Sequence[NodeFrames], ctx: ForceContext,
                  label: str) -> tuple[Array, Array | None]:
    """``point_masses`` checked: None, or masses ``(n,)`` >= 0 and weights
    ``(n, nb_attachments)`` summing to 1 where a mass is carried. None is returned as
    zero masses."""
    n, natt = kind.nb_forces, len(type(kind).attachments)
    pm = kind.point_masses(frames, ctx)
    if pm is None:
        return np.zeros(n), None
    if not (isinstance(pm, tuple) and len(pm) == 2):
        raise AssertionError(f"{label}: point_masses() must return None or (mass, weights)")
    mass = _shape(label, "point_masses() mass", pm[0], (n,))
    weights = _shape(label, "point_masses() weights", pm[1], (n, natt))
    _finite(label, "point_masses() mass", mass)
    _finite(label, "point_masses() weights", weights)
    if np.any(mass < 0):
        raise AssertionError(f"{label}: point_masses() gives negative masses {mass}")
    carried = mass > 0
    _close(label, "point_masses() weights must sum to 1", weights[carried].sum(axis=1), 1.0,
           atol=1e-12)
    return np.array(mass, dtype=float), np.array(weights, dtype=float)


def _evaluated_force(kind: ForceType, frames: Sequence[NodeFrames], ctx: ForceContext,
                     label: str) -> _ForceResult:
    """``evaluate``, ``output_values`` and ``point_masses`` with their shapes checked,
    finite, and with their inputs left unchanged."""
    n, natt = kind.nb_forces, len(type(kind).attachments)
    before = _frames_copy(frames)
    signals, gravity = np.array(ctx.signals, copy=True), np.array(ctx.gravity, copy=True)
    result = kind.evaluate(frames, ctx)
    if not (isinstance(result, tuple) and len(result) == 2):
        raise AssertionError(f"{label}: evaluate() must return a tuple (force, torque)")
    force = _shape(label, "evaluate() force", result[0], (n, natt, 3))
    torque = _shape(label, "evaluate() torque", result[1], (n, natt, 3))
    _finite(label, "evaluate() force", force)
    _finite(label, "evaluate() torque", torque)
    mass, weights = _point_masses(kind, frames, ctx, label)
    memory = {name: np.array(getattr(kind, name), copy=True) for name in type(kind).memory}
    values = kind.output_values(frames, ctx)
    for name, before_outputs in memory.items():
        # a run makes a sample's outputs between steps: they must not move the memory
        if not np.array_equal(getattr(kind, name), before_outputs, equal_nan=True):
            raise AssertionError(f"{label}: output_values() changed the memory {name!r}")
    outputs: Mapping[str, Output] = type(kind).outputs
    if not isinstance(values, Mapping) or set(values) != set(outputs):
        got = sorted(values) if isinstance(values, Mapping) else values
        raise AssertionError(f"{label}: output_values() must give exactly the declared "
                             f"outputs {sorted(outputs)}, got {got!r}")
    out = {}
    own = kind.coordinates()
    for name, o in outputs.items():
        shape = (n, *(len(own[dim]) if dim in own else OUTPUT_DIMS[dim] for dim in o.dims))
        out[name] = _shape(label, f"output_values()['{name}']", values[name], shape)
        if any(dim in own for dim in o.dims):  # NaN pads an element with fewer entries
            _finite(label, f"output_values()['{name}']", np.nan_to_num(out[name], nan=0.0))
        else:
            _finite(label, f"output_values()['{name}']", out[name])
    for k, (f, old) in enumerate(zip(frames, before, strict=True)):
        for attr, value in old.items():
            if not np.array_equal(getattr(f, attr), value):
                raise AssertionError(f"{label}: evaluate(), point_masses() or "
                                     f"output_values() modified its input frames[{k}].{attr}")
    if not (np.array_equal(ctx.signals, signals) and np.array_equal(ctx.gravity, gravity)):
        raise AssertionError(f"{label}: evaluate(), point_masses() or output_values() "
                             "modified its ctx")
    return _ForceResult(np.array(force), np.array(torque),
                        {k: np.array(v) for k, v in out.items()}, mass, weights)


def check_force_type(cls: type[ForceType], instances: Instances | None = None, *, n: int = N,
                     registry: Registry | None = None) -> None:
    """Run every force check (module doc) on a force type.

    Parameters
    ----------
    cls
        A subclass of :class:`~frylinks.forces.ForceType`.
    instances
        Parameter sets without the attachments (default: ``cls.examples``).
    n
        Elements in the "many" block; blocks of 0 and 1 are checked too.
    registry
        Registry resolving signal types in the examples (default: every installed
        plugin); ``cls`` is added to it if missing.

    Raises
    ------
    AssertionError
        The first broken rule, naming the type.
    """
    check_declarations(cls)
    label = _label(cls)
    reg = _registry_with([("force", cls)], registry)
    examples = example_instances(cls, instances)
    rng = np.random.default_rng(_seed(cls))
    setup = _force_setup(cls, examples, n, reg, rng)
    settings = _default_settings(reg)
    kind, bank = _force_block(cls, setup.params, reg)
    _prepared(kind, setup.bodies, setup.attachments, bank, settings)
    frames = [node_frames(setup.bodies, att) for att in setup.attachments]
    singles = [_force_block(cls, [p], reg) for p in setup.params]
    for i, (one, bank1) in enumerate(singles):
        _prepared(one, setup.bodies, [att.subset(np.array([i])) for att in setup.attachments],
                  bank1, settings)
    for t in (0.0, T0, 2.7):
        ctx = _force_ctx(t, bank, kind, settings)
        res = _evaluated_force(kind, frames, ctx, label)
        again = _evaluated_force(kind, frames, ctx, label)
        _close(label, f"evaluate() called twice at t={t:g} (force)", again.force, res.force,
               0, 0)
        _close(label, f"evaluate() called twice at t={t:g} (torque)", again.torque,
               res.torque, 0, 0)
        for i, (one, bank1) in enumerate(singles):
            sub = [node_frames(setup.bodies, att.subset(np.array([i])))
                   for att in setup.attachments]
            r1 = _evaluated_force(one, sub, _force_ctx(t, bank1, one, settings), label)
            where = f"t={t:g}, element {i} of a block of {n} vs a block of one"
            scale = 1e-14 * (1.0 + np.abs(res.force[i]).max() + np.abs(res.torque[i]).max())
            _close(label, f"{where}: force", res.force[i], r1.force[0], rtol=1e-12, atol=scale)
            _close(label, f"{where}: torque", res.torque[i], r1.torque[0], rtol=1e-12,
                   atol=scale)
            for name, value in res.outputs.items():
                mine, alone = value[i], r1.outputs[name][0]
                if mine.shape != alone.shape:  # a type's own dimension, padded with NaN
                    part = tuple(slice(0, k) for k in alone.shape)
                    rest = np.ones(mine.shape, dtype=bool)
                    rest[part] = False
                    if not np.all(np.isnan(mine[rest])):
                        raise AssertionError(f"{label}: {where}: output {name} has values "
                                             "beyond the element's own entries (expected "
                                             "NaN padding)")
                    mine = mine[part]
                _close(label, f"{where}: output {name}", mine, alone, rtol=1e-12,
                       atol=1e-14 * (1.0 + np.nan_to_num(np.abs(mine)).max()))
            _close(label, f"{where}: point_masses() mass", res.mass[i], r1.mass[0],
                   rtol=1e-12, atol=0)
            if res.mass[i] > 0 and res.weights is not None and r1.weights is not None:
                _close(label, f"{where}: point_masses() weights", res.weights[i],
                       r1.weights[0], rtol=1e-12, atol=1e-15)
    with _explained(label, "a block of 0 elements"):
        empty, bank0 = _force_block(cls, [], reg)
        no_frames = [node_frames(_ground_only(), _empty_nodes()) for _ in cls.attachments]
        _prepared(empty, _ground_only(), [_empty_nodes() for _ in cls.attachments], bank0,
                  settings)
        _evaluated_force(empty, no_frames, _force_ctx(T0, bank0, empty, settings), label)


# ---------------------------------------------------------------------------- signals

#: Steps of the finite differences of signals [s] for orders 1 and 2.
SIGNAL_H = (1e-6, 1e-4)
#: Relative tolerance of the signal derivatives.
SIGNAL_RTOL = 1e-6


def _parse_signals(cls: type[SignalType], instances: list[dict[str, Any]], n: int
                   ) -> list[dict[str, Any]]:
    out = []
    for i, p in enumerate(_cycled(instances, n)):
        k = i % len(instances)
        try:
            parsed = parse_params(cls.parameters, p, f"examples[{k}]")
            cls.validate(parsed)
        except FrylinksError as exc:
            raise _refused(_label(cls), k, p, exc) from exc
        out.append(parsed)
    return out


def _signal_values(kind: SignalType, t: float, order: int, label: str) -> Array:
    value = kind.evaluate(t, order)
    out = _shape(label, f"evaluate(t={t:g}, order={order})", value, (kind.nb_signals,))
    _finite(label, f"evaluate(t={t:g}, order={order})", out)
    return np.array(out, dtype=float)


def _derivative_errors(f: Callable[[float], Array], df: Callable[[float], Array],
                       times: Array, h: float, order: int) -> tuple[Array, Array, Array]:
    """Per time and instance: the distance of the reported derivative ``df`` to the
    nearest of three finite-difference stencils of ``f`` (centred at t, t - h, t + h),
    the reported values, and the centred estimates.

    At a smooth point the centred stencil matches to O(h^2); within ``h`` of a kink, the
    stencil on the side of ``t`` that holds no kink matches (so a kink is no error, while
    a wrong derivative is one away from kinks).
    """
    def fd(t: float) -> Array:
        if order == 1:
            return (f(t + h) - f(t - h)) / (2 * h)
        return (f(t + h) - 2 * f(t) + f(t - h)) / h**2

    errs, reported, centred = [], [], []
    for t in times:
        value = df(t)
        stencils = np.array([fd(t), fd(t - h), fd(t + h)])
        errs.append(np.abs(stencils - value).min(axis=0))
        reported.append(value)
        centred.append(stencils[0])
    return np.array(errs), np.array(reported), np.array(centred)


def check_signal_type(cls: type[SignalType], instances: Instances | None = None, *,
                      n: int = N, times: Sequence[float] | None = None) -> None:
    """Run every signal check (module doc) on a signal type.

    Parameters
    ----------
    cls
        A subclass of :class:`~frylinks.signals.SignalType`.
    instances
        Parameter sets as a user gives them beside ``type`` (default: ``cls.examples``).
    n
        Signals in the "many" block; blocks of 0 and 1 are checked too.
    times
        Times [s] of the checks (default: 40 random times in [0, 20] s).

    Raises
    ------
    AssertionError
        The first broken rule, naming the type.
    """
    check_declarations(cls)
    label = _label(cls)
    examples = example_instances(cls, instances)
    params = _parse_signals(cls, examples, n)
    rng = np.random.default_rng(_seed(cls))
    ts = np.sort(rng.uniform(0.0, 20.0, 40)) if times is None else np.asarray(times, float)
    kind = cls(params)
    assert kind.nb_signals == n, f"{label}: nb_signals is {kind.nb_signals}, expected {n}"
    singles = [cls([p]) for p in params]
    for t in ts:
        for order in (0, 1, 2):
            value = _signal_values(kind, float(t), order, label)
            for i, one in enumerate(singles):
                _close(label, f"t={t:g}, order {order}: signal {i} of a block of {n} vs a "
                       "block of one", value[i], _signal_values(one, float(t), order, label)[0],
                       rtol=1e-13, atol=1e-300)
    with _explained(label, "a block of 0 signals"):
        empty = cls([])
        for t in ts[:3]:
            for order in (0, 1, 2):
                _signal_values(empty, float(t), order, label)
    values = np.array([_signal_values(kind, float(t), 0, label) for t in ts])
    size = np.abs(values).max(axis=0)

    def value_of(order: int) -> Callable[[float], Array]:
        return lambda t: _signal_values(kind, t, order, label)

    for order, h in zip((1, 2), SIGNAL_H, strict=True):
        err, reported, centred = _derivative_errors(value_of(0), value_of(order), ts, h,
                                                    order)
        scale = np.maximum(np.abs(reported), np.abs(centred)).max(axis=0)
        tol = SIGNAL_RTOL * scale + 20 * np.finfo(float).eps * size / h**order
        bad = err > tol
        if bad.any():
            k, i = np.argwhere(bad)[0]
            raise AssertionError(
                f"{label}: evaluate(t, order={order}) is not the time derivative of order "
                f"{order} of evaluate(t, 0): at t={ts[k]:g}, signal {i} (example "
                f"#{i % len(examples)}) gives {reported[k, i]:.10g}, finite differences "
                f"give {centred[k, i]:.10g}")


# ----------------------------------------------------------------------------- plugin

def check_type(cls: type, instances: Instances | None = None, *,
               registry: Registry | None = None) -> None:
    """Run the checks of ``cls``'s kind: :func:`check_link_type`,
    :func:`check_force_type` or :func:`check_signal_type`."""
    kind = _kind_of(cls)
    if kind == "link":
        check_link_type(cls, instances, registry=registry)
    elif kind == "force":
        check_force_type(cls, instances, registry=registry)
    elif kind == "setting":
        check_setting_type(cls, instances)
    else:
        check_signal_type(cls, instances)


def check_setting_type(cls: type[SettingType], instances: Instances | None = None) -> None:
    """Check a setting type: it builds from its defaults (a system without the section)
    and from each example; its coordinates name every declared dimension; its outputs
    have the shapes of their dimensions and are deterministic functions of time.

    Raises
    ------
    AssertionError
        The first broken rule, naming the type.
    """
    label = _label(cls)
    given = instances if instances is not None else getattr(cls, "examples", None)
    sets: list[Mapping[str, Any]] = [{}] if given is None else [{}, *given]
    for k, p in enumerate(sets):
        what = "its defaults" if k == 0 else f"examples[{k - 1}]"
        if k == 0 and any(q.required for q in cls.parameters.values()):
            continue
        with _explained(label, f"building from {what}"):
            params = parse_params(cls.parameters, p, cls.name)
            cls.validate(params)
            setting = cls(params, GRAVITY)
        coords = setting.coordinates()
        if set(coords) != set(cls.dimensions):
            raise AssertionError(f"{label}: coordinates() gives {sorted(coords)}, the "
                                 f"declared dimensions are {list(cls.dimensions)}")
        for t in (0.0, T0):
            with _explained(label, f"output_values({t:g}) from {what}"):
                out = setting.output_values(t)
                again = setting.output_values(t)
            for name, o in cls.outputs.items():
                if not all(coords[d] for d in o.dims):
                    continue  # not written (a dimension without names)
                shape = tuple(len(coords[d]) for d in o.dims)
                value = _shape(label, f"output {name} from {what}", out.get(name), shape)
                _finite(label, f"output {name} from {what}", value)
                _close(label, f"output {name} called twice", again[name], value, 0, 0)
        times = np.array([0.0, T0, 2 * T0])
        with _explained(label, f"output_series({times.tolist()}) from {what}"):
            series = setting.output_series(times)
        for name, o in cls.outputs.items():
            if not all(coords[d] for d in o.dims):
                continue
            each = np.stack([setting.output_values(t)[name] for t in times.tolist()])
            # (many times at once: the same numbers as one at a time)
            _close(label, f"output_series()['{name}'] against output_values() at each "
                   "time", series.get(name), each, 1e-14, 1e-14)


def check_plugin(plugin: Any, instances: Mapping[str, Instances] | None = None, *,
                 registry: Registry | None = None) -> list[str]:
    """Run the contract checks on every type a plugin's hooks return.

    Parameters
    ----------
    plugin
        A module or object implementing some of ``frylinks_link_types``,
        ``frylinks_force_types`` and ``frylinks_signal_types``.
    instances
        Parameter sets per type name, for types without ``examples`` (or to override
        them).
    registry
        Registry resolving signal types in the examples (default: every installed
        plugin); the plugin's types are added to it where missing.

    Returns
    -------
    list of str
        ``kind:name`` of every type checked.

    Raises
    ------
    AssertionError
        The first broken rule, naming the type.
    """
    types: list[tuple[str, type[Any]]] = []
    for kind, (hook, _) in KINDS.items():
        impl = getattr(plugin, hook, None)
        if impl is None:
            continue
        classes = impl()
        if not isinstance(classes, list):
            raise AssertionError(f"{hook} of {plugin!r} must return a list of classes, got "
                                 f"{classes!r}")
        types += [(kind, cls) for cls in classes]
    if not types:
        raise AssertionError(f"{plugin!r} returns no type from frylinks_link_types, "
                             "frylinks_force_types or frylinks_signal_types")
    try:
        Registry(autoload=False).register(_TypesPlugin(types), name="frylinks.testing")
    except PluginError as exc:
        raise AssertionError(f"{plugin!r} is refused by the registry: {exc}") from exc
    reg = _registry_with(types, registry)
    given = instances or {}
    for _, cls in types:
        check_type(cls, given.get(cls.name), registry=reg)
    return [f"{kind}:{cls.name}" for kind, cls in types]


# --------------------------------------------------------- compiled against Python path

def _compiled_system(cls: type[Any], instances: list[dict[str, Any]], registry: Registry,
                     rng: np.random.Generator) -> System:
    """A small moving model using ``cls`` once per example: a link type holds a body on
    a ground node each (a spring-damper on its free DOFs), a force type acts on two
    free bodies (or one and ground) at random nodes."""
    system = System(gravity=GRAVITY, registry=registry)
    if issubclass(cls, LinkType):
        for i, p in enumerate(instances):
            q = {"quaternion": _random_quat(rng, 1)[0]}
            system.ground.add_node(f"g{i}", position=[2.0 * i, 0.0, 0.0], orientation=q)
            body = system.add_body(f"b{i}", mass=1.0 + i, inertia=[0.3, 0.4, 0.5],
                                   position=[2.0 * i + 0.3, 0.1, -0.2],
                                   velocity=rng.uniform(-0.5, 0.5, 3),
                                   angular_velocity=rng.uniform(-0.5, 0.5, 3))
            body.add_node("hinge", position=[-0.3, -0.1, 0.2], orientation=q)
            spring = {d: {"stiffness": 5.0, "damping": 0.3} for d in cls.free_dofs}
            system.add_link(f"l{i}", cls.name, master=f"ground.g{i}", slave=f"b{i}.hinge",
                            **({"spring_damper": spring} if spring else {}), **p)
        return system
    names = []
    for k in range(3):
        body = system.add_body(f"b{k}", mass=1.0 + k, inertia=[0.3, 0.4, 0.5],
                               position=rng.uniform(-1, 1, 3),
                               velocity=rng.uniform(-0.5, 0.5, 3),
                               angular_velocity=rng.uniform(-0.5, 0.5, 3))
        body.add_node("n", position=rng.uniform(-0.5, 0.5, 3),
                      orientation={"quaternion": _random_quat(rng, 1)[0]})
        names.append(f"b{k}")
    system.ground.add_node("n", position=[0.0, 0.0, 1.0])
    for i, p in enumerate(instances):
        refs = {}
        for j, att in enumerate(cls.attachments):
            where = names[(i + j) % 3] if j < 2 or i % 2 == 0 else "ground"
            refs[att] = where if cls.parameters[att].kind == "body" else f"{where}.n"
        system.add_force(f"f{i}", cls.name, **p, **refs)
    return system


def check_compiled(cls: type[Any], instances: Instances | None = None, *,
                   steps: int = 20, dt: float = 1e-3, rtol: float = 1e-12,
                   registry: Registry | None = None) -> None:
    """The engine's compiled step and its Python path give the same run of a small
    model using ``cls`` (its examples, one element each): every result variable within
    ``rtol`` of its largest value (or of 1 in its SI units, for a variable that stays at
    round-off of zero), after ``steps`` rk4 steps of ``dt``.

    The compiled step composes the type's kernels with the engine's (imports by name,
    ``kernel_data`` typed once, memory written in place); the Python path calls the same
    kernels through the type's methods. A type without kernels is refused here: it has
    no compiled run to check.
    """
    from .engine.compose import python_path
    from .runner import PythonPathWarning

    label = _label(cls)
    if getattr(cls, "kernels", getattr(cls, "kernel", None)) is None:
        raise AssertionError(f"{label}: no kernels, so no compiled run to check")
    reg = _registry_with([(_kind_of(cls), cls)], registry)
    runs = []
    for python in (False, True):
        rng = np.random.default_rng(_seed(cls, 7))
        system = _compiled_system(cls, example_instances(cls, instances), reg, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("error", PythonPathWarning)
            try:
                if python:
                    with python_path():
                        runs.append(system.run(t_end=steps * dt, dt=dt))
                else:
                    runs.append(system.run(t_end=steps * dt, dt=dt))
            except PythonPathWarning as exc:
                raise AssertionError(f"{label}: the model does not run compiled: {exc}"
                                     ) from None
    compiled, reference = runs
    if compiled.attrs["status"] != "completed" or reference.attrs["status"] != "completed":
        raise AssertionError(f"{label}: runs ended {compiled.attrs['status']!r} (compiled) "
                             f"and {reference.attrs['status']!r} (Python)")
    for name, var in reference.data_vars.items():
        a, b = np.asarray(compiled[name].values), np.asarray(var.values)
        scale = float(np.nanmax(np.abs(b))) if b.size and np.isfinite(b).any() else 0.0
        diff = float(np.nanmax(np.abs(a - b))) if b.size else 0.0
        if not diff <= rtol * max(scale, 1.0):
            raise AssertionError(f"{label}: compiled and Python runs differ in {name} by "
                                 f"{diff:.3g} ({diff / max(scale, 1e-300):.3g} of its "
                                 f"largest value {scale:.3g}; allowed {rtol:g})")
