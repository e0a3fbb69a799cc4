"""Shared pieces of the contract checks: example parameters, random node frames,
registries holding the types under test, and assertion helpers."""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from frylinks.kinematics import BodyStates, NodeSet
from frylinks.links import DOFS
from frylinks.model.registry import KINDS, Registry, TypeInfo
from frylinks.params import Param
from frylinks.rotations import (
    quat_to_matrix,
)
from frylinks.signals import SignalBank, SignalSpec

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
#: Extra dimensions a plugin output may have (``frylinks.model.registry.OUTPUT_DIMS``), with
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


def registry_with(types: Sequence[tuple[str, type[Any]]], registry: Registry | None) -> Registry:
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
