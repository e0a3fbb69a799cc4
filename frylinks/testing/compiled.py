"""A type's compiled kernels against its Python path, in a running system."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

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
    from frylinks.engine.compose import python_path
    from frylinks.io.runner import PythonPathWarning

    label = _label(cls)
    if getattr(cls, "kernels", getattr(cls, "kernel", None)) is None:
        raise AssertionError(f"{label}: no kernels, so no compiled run to check")
    reg = registry_with([(_kind_of(cls), cls)], registry)
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
