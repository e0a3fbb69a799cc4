"""The compiled step against the engine's Python path, and what runs where.

The Python path (``FRYLINKS_PYTHON=1``, or :func:`frylinks.engine.compose.python_path`)
evaluates the model block by block from Python, calling the same type kernels; the
compiled step composes them into one function per kind of model. The two must give the
same runs: to round-off for ``rk4`` (the same operations in the same order, up to the
factorisation of the constraint system), and to Newton's tolerance for
``generalized_alpha`` (LU of the same matrix by a different routine, then iterations that
stop at NEWTON_TOL).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import frylinks
from frylinks import System
from frylinks.engine import assemble
from frylinks.engine.compose import compiled_step, python_path
from frylinks.engine.step_source import generate
from frylinks.forces import ForceType
from frylinks.io.runner import PythonPathWarning
from frylinks.model.registry import Registry
from frylinks.params import Param
from frylinks.testing import check_compiled, check_compiled_types, registry_with
from tests.test_testing import EXAMPLES

#: Compiled, not on the interpreted tier of the rest of the suite (tests/conftest.py).
pytestmark = pytest.mark.compiled

ROOT = Path(__file__).resolve().parents[1]
CASES = sorted((ROOT / "cases").glob("*.yaml"))

#: Short horizons [s]: a few dozen steps of each case's own dt.
HORIZON = {"chain": 0.5, "pendulum": 0.5, "screw_jack": 0.5, "heaving_buoy": 0.4}


def _largest_difference(a: xr.Dataset, b: xr.Dataset) -> tuple[str, float]:
    """The variable where ``a`` and ``b`` differ most, relative to its largest value (or
    1 in its SI units, for a variable at round-off of zero: the round-off of a
    cancellation is relative to its terms, not to the nought it leaves)."""
    worst, where = 0.0, ""
    for name, var in b.data_vars.items():
        x, y = np.asarray(a[name].values, dtype=float), np.asarray(var.values, dtype=float)
        if not y.size:
            continue
        scale = max(float(np.nanmax(np.abs(y))), 1.0)
        rel = float(np.nanmax(np.abs(x - y))) / scale
        if rel > worst:
            worst, where = rel, name
    return where, worst


#: Cases whose kinds the default run compiles here (with test_interpreted's, which share
#: them): the pendulum (the engine's kernels, a constraint), the point absorber (waves,
#: radiation memory), the moored buoy (catenary lines) and its dynamic version
#: (MoorDyn). The others are ``slow``: every type's kernels are compiled in the default
#: run by test_every_registered_type_compiles, the fast version of this test.
DEFAULT_CASES = ("pendulum", "point_absorber", "moored_buoy", "moored_buoy_dynamic")


@pytest.mark.parametrize("case", [
    c if c.stem in DEFAULT_CASES else pytest.param(c, marks=pytest.mark.slow)
    for c in CASES], ids=[c.stem for c in CASES])
def test_every_case_runs_compiled_and_equals_the_python_path(case: Path) -> None:
    """Every shipped case runs compiled (no type keeps it on the Python path) and its
    results equal the Python path's to 1e-12 of each variable's largest value."""
    t_end = HORIZON.get(case.stem, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PythonPathWarning)
        compiled = frylinks.run(case, t_end=t_end)
    with python_path():
        reference = frylinks.run(case, t_end=t_end)
    assert compiled.attrs["status"] == reference.attrs["status"] == "completed"
    where, rel = _largest_difference(compiled, reference)
    assert rel <= 1e-12, f"{case.stem}: {where} differs by {rel:.3g} of its largest value"


def _pendulum() -> System:
    s = System(gravity=[0.0, 0.0, -9.81])
    hinge = {"axis": [1.0, 0.0, 0.0], "angle_deg": 90.0}
    s.ground.add_node("pivot", orientation=hinge)
    bob = s.add_body("bob", mass=1.0, inertia=[1e-3] * 3, position=[1.0, 0.0, 0.0])
    bob.add_node("hinge", position=[-1.0, 0.0, 0.0], orientation=hinge)
    s.add_link("hinge", "revolute", master="ground.pivot", slave="bob.hinge",
               spring_damper={"stiffness": 2.0, "damping": 0.1})
    return s


def test_generalized_alpha_compiled_meets_the_python_path() -> None:
    """The compiled generalized-alpha (same scheme, Newton policy and tolerance) follows
    the Python one to Newton's tolerance over 500 steps of a swinging pendulum."""
    kwargs = {"t_end": 2.0, "dt": 4e-3, "every": 25, "integrator": "generalized_alpha",
              "rho_inf": 0.9}
    compiled = _pendulum().run(**kwargs)
    with python_path():
        reference = _pendulum().run(**kwargs)
    where, rel = _largest_difference(compiled, reference)
    assert rel <= 1e-7, f"{where} differs by {rel:.3g} of its largest value"
    # the pendulum swings: the comparison is not of two states at rest
    assert np.ptp(compiled.link_displacement.sel(link="hinge", dof="rz").values) > 1.0


def test_models_of_one_kind_share_their_step() -> None:
    """The generated step depends on the kinds of blocks, not on their sizes or values:
    a second model of the same kind compiles nothing new."""
    one = assemble(_pendulum())
    other = _pendulum()
    other.bodies["bob"].mass = 3.0
    other.add_body("bob2", mass=2.0, inertia=[1.0, 1.0, 1.0], position=[0.0, 0.0, -3.0])
    other.bodies["bob2"].add_node("hinge", orientation={"axis": [1.0, 0.0, 0.0],
                                                        "angle_deg": 90.0})
    other.ground.add_node("pivot2", position=[0.0, 0.0, -3.0],
                          orientation={"axis": [1.0, 0.0, 0.0], "angle_deg": 90.0})
    other.add_link("hinge2", "revolute", master="ground.pivot2", slave="bob2.hinge",
                   spring_damper={"stiffness": 1.0, "damping": 0.0})
    assert generate(one)[0] == generate(assemble(other))[0]
    step = compiled_step(one)
    assert step is not None and step.module is compiled_step(assemble(_pendulum())).module


class NumpyDrag(ForceType):
    """A third party's force in plain numpy (no kernels): ``-c v`` at a body's COG."""

    name = "numpy_drag"
    attachments = ("body",)
    parameters = {"body": Param("body", "", "the body"),
                  "coefficient": Param("float", "N s m-1", "drag coefficient")}
    description = "linear drag in plain numpy"

    def __init__(self, instances, signal_specs):  # type: ignore[no-untyped-def]
        super().__init__(instances, signal_specs)
        self.c = np.array([p["coefficient"] for p in instances])

    def evaluate(self, frames, ctx):  # type: ignore[no-untyped-def]
        force = (-self.c[:, None] * frames[0].v)[:, None, :]
        return force, np.zeros_like(force)


def _dragged(registry: Registry) -> System:
    s = System(gravity=[0.0, 0.0, -9.81], registry=registry)
    s.add_body("ball", mass=2.0, inertia=[1.0, 1.0, 1.0], velocity=[1.0, 0.0, 0.0])
    s.add_force("drag", "numpy_drag", body="ball", coefficient=0.8)
    return s


class CountingDrag(NumpyDrag):
    """:class:`NumpyDrag` that keeps the times it accepted (a Python ``accept``)."""

    name = "counting_drag"
    accepted: list[float] = []

    def accept(self, frames, ctx):  # type: ignore[no-untyped-def]
        self.accepted.append(ctx.t)


@pytest.mark.parametrize("integrator", ["rk4", "generalized_alpha"])
def test_a_plain_numpy_type_accepts_each_step(integrator: str) -> None:
    """A plain-numpy type's own ``accept`` is called, like a kernel's, at the start and
    once per step at the accepted state, on the Python path."""
    registry = registry_with([("force", CountingDrag)], Registry())
    s = System(registry=registry)
    s.add_body("ball", mass=2.0, inertia=[1.0, 1.0, 1.0], velocity=[1.0, 0.0, 0.0])
    s.add_force("drag", "counting_drag", body="ball", coefficient=0.8)
    CountingDrag.accepted = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PythonPathWarning)
        s.run(t_end=0.1, dt=0.01, integrator=integrator)
    np.testing.assert_allclose(CountingDrag.accepted, np.arange(11) * 0.01, atol=1e-12)


def test_a_plain_numpy_type_runs_on_the_python_path_and_says_so() -> None:
    """A type without kernels still runs, correctly (exact exponential decay), on the
    Python path, and the run says once which type keeps it there."""
    registry = registry_with([("force", NumpyDrag)], Registry())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = _dragged(registry).run(t_end=2.0, dt=1e-2)
    said = [w for w in caught if issubclass(w.category, PythonPathWarning)]
    assert len(said) == 1
    assert "numpy_drag" in str(said[0].message) and "no compiled kernels" in str(
        said[0].message)
    t = ds.time.values
    np.testing.assert_allclose(ds.body_velocity.sel(body="ball", xyz="x"),
                               np.exp(-0.8 * t / 2.0), rtol=1e-9)
    assert compiled_step(assemble(_dragged(registry))) is None


def test_a_numpy_subclass_of_a_compiled_type_is_not_compiled_with_its_base() -> None:
    """A subclass that overrides a method in numpy but inherits its base's kernels would
    run its base's physics compiled: it is kept on the Python path instead."""
    from frylinks_links.revolute import RevoluteLink

    class Stiff(RevoluteLink):
        name = "stiff_revolute"

        def residual(self, rel, ctx):  # type: ignore[no-untyped-def]
            return 2.0 * super().residual(rel, ctx)

    why = Stiff([{}], []).compiled()
    assert why is not None and "residual" in why
    assert RevoluteLink([{}], []).compiled() is None


def test_check_compiled_passes_on_a_builtin_type() -> None:
    """frylinks.testing.check_compiled, compiled, on a link type (every type is checked
    by check_plugin in test_testing, and compiled against the Python path by
    check_compiled_types in the model of every type; the revolute link's model is the
    pendulum's kind, compiled anyway)."""
    registry = Registry()
    info = registry.get("link", "revolute")
    assert info is not None
    check_compiled(info.cls, registry=registry)


def test_check_compiled_catches_a_compiled_run_that_differs() -> None:
    """check_compiled can fail: a type whose first block (the compiled run's) reads
    twice its force in its kernel data is caught. (In the model of every type with the
    lying type for world_force: the kind test_every_registered_type_compiles compiles,
    so nothing new is compiled.)"""
    from frylinks_forces.world import WorldForce

    class Lying(WorldForce):
        name = "lying_force"
        made = 0

        def kernel_data(self):  # type: ignore[no-untyped-def]
            const, slot, frame, torque = super().kernel_data()
            type(self).made += 1
            return (2.0 * const if type(self).made == 1 else const), slot, frame, torque

    classes, examples, registry = every_type_model()
    assert WorldForce in classes
    classes = [Lying if c is WorldForce else c for c in classes]
    with pytest.raises(AssertionError, match="differ in"):
        check_compiled_types(classes, examples, registry=registry)
    assert Lying.made >= 1


def _interacting_bodies(interaction: bool) -> System:
    """RM3's float and spar, free, with only their radiation (bodies interacting or
    not): the float starts heaving up at 1 m/s, the spar at rest."""
    data = ROOT / "plugins" / "frylinks_marine" / "data" / "rm3_hydrodynamics.nc"
    s = System(gravity=[0.0, 0.0, 0.0])
    s.add_body("float", mass=7.25833e5, inertia=[20907301, 21306091, 37085481],
               position=[0.0, 0.0, -0.72], velocity=[0.0, 0.0, 1.0])
    s.add_body("spar", mass=8.866878e5, inertia=[94419615, 94407091, 28542225],
               position=[0.0, 0.0, -21.29])
    for body in ("float", "spar"):
        s.add_force(f"{body}_radiation", "radiation", body=body, hydrodynamics=str(data),
                    hydrodynamics_body=f"rm3_{body}", interaction=interaction)
    return s


@pytest.mark.parametrize("tier", [
    "interpreted",
    # (a kind of model of its own: 23 s of compile on a new machine)
    pytest.param("compiled", marks=pytest.mark.slow)])
def test_generalized_alpha_with_bodies_that_interact(tier: str,
                                                     monkeypatch: pytest.MonkeyPatch
                                                     ) -> None:
    """The added mass between bodies in generalized-alpha's Newton matrix and residual,
    in the step (its kernels compiled, or run as Python on the interpreted tier) and on
    the Python path: they agree to Newton's tolerance; with the interaction the float's
    heave sets the spar moving (2 cm/s within 4 s), without it the spar stays still."""
    if tier == "interpreted":
        monkeypatch.setenv("FRYLINKS_INTERPRET", "1")
    kwargs = {"t_end": 4.0, "dt": 0.05, "every": 10, "integrator": "generalized_alpha"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dataset's asymmetry and grid warnings
        compiled = _interacting_bodies(True).run(**kwargs)
        with python_path():
            reference = _interacting_bodies(True).run(**kwargs)
        alone = _interacting_bodies(False).run(**kwargs)
    where, rel = _largest_difference(compiled, reference)
    assert rel <= 1e-7, f"{where} differs by {rel:.3g} of its largest value"
    spar = compiled.body_velocity.sel(body="spar", xyz="z").values
    assert np.max(np.abs(spar)) > 0.01, spar
    assert np.all(alone.body_velocity.sel(body="spar").values == 0.0)


def every_type_model() -> tuple[list[type], dict[str, list[dict]], Registry]:
    """The types of :func:`test_every_registered_type_compiles` (every registered link and
    force type but moordyn, whose lines need a model of their own: the
    moored_buoy_dynamic case of :data:`DEFAULT_CASES` compiles it; and catenary_line,
    whose examples' anchors sit below these bodies only alone: the moored buoy compiles
    it), their examples and the registry; test_interpreted runs the same model
    interpreted."""
    registry = Registry()
    classes = [i.cls for i in registry.all() if i.kind in ("link", "force")
               and i.name not in ("moordyn", "catenary_line")]
    examples = {}
    for c in classes:
        given = EXAMPLES.get(c.name) if getattr(c, "examples", None) is None else c.examples
        if given is not None:  # (a Python callable keeps a model on the Python path)
            examples[c.name] = [p for p in given if not any(map(callable, p.values()))]
    return classes, examples, registry


def test_every_registered_type_compiles() -> None:
    """One model with every registered link and force type (their examples) compiles,
    and its compiled run equals the Python path's: a kernel numba cannot compile fails
    here, whatever tier the rest of the suite runs on (tests/conftest.py)."""
    classes, examples, registry = every_type_model()
    check_compiled_types(classes, examples, registry=registry)
