"""The force type checks: shapes, finite and repeatable wrenches and outputs, inputs
left unchanged, memory kept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from frylinks.errors import FrylinksError
from frylinks.forces import ForceContext, ForceType, Output
from frylinks.io.runner import System
from frylinks.kinematics import BodyStates, NodeFrames, NodeSet, node_frames
from frylinks.model.registry import Registry
from frylinks.params import parse_params
from frylinks.rotations import (
    quat_to_matrix,
)
from frylinks.signals import SignalBank, SignalSpec
from frylinks.testing.common import (
    OUTPUT_DIMS,
    T0,
    Array,
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
    _random_quat,
    _refused,
    _seed,
    _shape,
    example_instances,
    registry_with,
)
from frylinks.testing.declarations import check_declarations

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
    reg = registry_with([("force", cls)], registry)
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
