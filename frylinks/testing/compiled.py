"""A type's compiled kernels against its Python path, in a running system."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from frylinks.engine import FROM_ANYWHERE
from frylinks.io.runner import System
from frylinks.links import LinkType
from frylinks.model.registry import Registry
from frylinks.testing.common import (
    Instances,
    _kind_of,
    _label,
    _random_quat,
    _seed,
    example_instances,
    registry_with,
)
from frylinks.testing.force_checks import GRAVITY

# --------------------------------------------------------- compiled against Python path

@contextmanager
def compiling_everything() -> Iterator[None]:
    """Within: a run compiles its step and waits for it, whatever the environment says
    (``FRYLINKS_INTERPRET=0``, ``FRYLINKS_WAIT_FOR_COMPILE=1``)."""
    keys = {"FRYLINKS_INTERPRET": "0", "FRYLINKS_WAIT_FOR_COMPILE": "1"}
    before = {k: os.environ.get(k) for k in keys}
    os.environ.update(keys)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


#: Mass [kg] of the bodies a force type acts on in :func:`check_compiled`.
FORCE_BODY_MASS = 1.0e4


def _compiled_system(types: Sequence[tuple[type[Any], list[dict[str, Any]]]],
                     registry: Registry, rng: np.random.Generator) -> System:
    """A small moving model using each of ``types`` once per example: a link type holds
    a body on a ground node each (a spring-damper on its free DOFs), a force type acts
    on two of three free bodies of its own (or one and ground) at random nodes, so that
    types do not load each other's bodies."""
    system = System(gravity=GRAVITY, registry=registry)
    system.ground.add_node("n", position=[0.0, 0.0, 1.0])
    i = 0  # (links and forces numbered across the types)
    for t, (cls, instances) in enumerate(types):
        names = []
        if not issubclass(cls, LinkType):
            for k in range(3):
                name = "b{k}" if len(types) == 1 else f"t{t}b{k}"
                # (heavy enough for the marine types' examples, whose stiffness and
                # damping are a floater's, to stay well inside rk4's limit at dt)
                body = system.add_body(name.format(k=k), mass=FORCE_BODY_MASS * (1.0 + k),
                                       inertia=FORCE_BODY_MASS * np.array([0.3, 0.4, 0.5]),
                                       position=rng.uniform(-1, 1, 3),
                                       velocity=rng.uniform(-0.5, 0.5, 3),
                                       angular_velocity=rng.uniform(-0.5, 0.5, 3))
                body.add_node("n", position=rng.uniform(-0.5, 0.5, 3),
                              orientation={"quaternion": _random_quat(rng, 1)[0]})
                names.append(name.format(k=k))
        for p in instances:
            if issubclass(cls, LinkType):
                q = {"quaternion": _random_quat(rng, 1)[0]}
                system.ground.add_node(f"g{i}", position=[2.0 * i, 0.0, 0.0], orientation=q)
                body = system.add_body(f"l{i}", mass=1.0 + i, inertia=[0.3, 0.4, 0.5],
                                       position=[2.0 * i + 0.3, 0.1, -0.2],
                                       velocity=rng.uniform(-0.5, 0.5, 3),
                                       angular_velocity=rng.uniform(-0.5, 0.5, 3))
                body.add_node("hinge", position=[-0.3, -0.1, 0.2], orientation=q)
                spring = {d: {"stiffness": 5.0, "damping": 0.3} for d in cls.free_dofs}
                system.add_link(f"l{i}", cls.name, master=f"ground.g{i}",
                                slave=f"l{i}.hinge",
                                **({"spring_damper": spring} if spring else {}), **p)
            else:
                refs = {}
                for j, att in enumerate(cls.attachments):
                    where = names[(i + j) % 3] if j < 2 or i % 2 == 0 else "ground"
                    refs[att] = where if cls.parameters[att].kind == "body" else f"{where}.n"
                system.add_force(f"f{i}", cls.name, **p, **refs)
            i += 1
    return system


def types_system(classes: Sequence[type[Any]],
                 instances: Mapping[str, Instances] | None = None, *,
                 registry: Registry | None = None) -> System:
    """The model :func:`check_compiled_types` runs: each of ``classes`` once per
    parameter set (``instances`` by type name, else the type's examples), a link type
    holding a body on ground, a force type acting on bodies of its own; the same model
    every time (its random poses seeded by the first type). A driver's examples start
    it off its signal's value: run it with ``assembly_tolerance=FROM_ANYWHERE``
    (:mod:`frylinks.engine.assembly`)."""
    reg = registry_with([(_kind_of(cls), cls) for cls in classes], registry)
    given = instances or {}
    rng = np.random.default_rng(_seed(classes[0], 7))
    types = [(cls, example_instances(cls, given.get(cls.name))) for cls in classes]
    return _compiled_system(types, reg, rng)


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
    check_compiled_types([cls], None if instances is None else {cls.name: instances},
                         steps=steps, dt=dt, rtol=rtol, registry=registry)


def check_compiled_types(classes: Sequence[type[Any]],
                         instances: Mapping[str, Instances] | None = None, *,
                         steps: int = 20, dt: float = 1e-3, rtol: float = 1e-12,
                         registry: Registry | None = None) -> None:
    """:func:`check_compiled` of several link and force types at once, in one model
    using each (``instances``: parameter sets by type name, else each type's examples):
    one compiled step holds every type's kernels, so numba compiles them all (a kernel
    it cannot compile fails here) at the cost of one kind of model.

    Whatever ``FRYLINKS_INTERPRET`` says (:func:`frylinks.interpreted.forced`), the
    compiled run is compiled: it is what this checks.
    """
    from frylinks.engine.compose import python_path
    from frylinks.io.runner import PythonPathWarning

    label = ", ".join(_label(cls) for cls in classes)
    for cls in classes:
        if getattr(cls, "kernels", getattr(cls, "kernel", None)) is None:
            raise AssertionError(f"{_label(cls)}: no kernels, so no compiled run to check")
    runs = []
    for python in (False, True):
        system = types_system(classes, instances, registry=registry)
        with warnings.catch_warnings():
            warnings.simplefilter("error", PythonPathWarning)
            try:
                if python:
                    with python_path():
                        runs.append(system.run(t_end=steps * dt, dt=dt,
                                               assembly_tolerance=FROM_ANYWHERE))
                else:
                    with compiling_everything():
                        runs.append(system.run(t_end=steps * dt, dt=dt,
                                               assembly_tolerance=FROM_ANYWHERE))
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
