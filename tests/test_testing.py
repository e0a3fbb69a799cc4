"""The plugin contract suite ``frylinks.testing``: every installed type keeps it, and it
catches broken types.

``EXAMPLES`` gives parameter sets for the built-in types that declare no ``examples`` of
their own (a type's own ``examples`` win); a new type must either declare ``examples``
or get an entry here, otherwise its check fails saying so. Entries are lists of
parameter sets, or functions of a temporary directory returning them (for types that
read files).

The second half builds small broken types (a wrong Jacobian row, a block whose elements
see each other, a wrong signal derivative, ...) and checks that the suite rejects each
one with a message that says what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from frylinks import hookimpl, testing
from frylinks.forces import ForceContext, ForceType, Output
from frylinks.kinematics import NodeFrames, Relative
from frylinks.links import AxisLink, ConstraintBlock, LinkContext
from frylinks.model.registry import OUTPUT_DIMS, Registry, TypeInfo
from frylinks.params import Param
from frylinks.signals import SignalSpec, SignalType

REGISTRY = Registry()


def _table_examples(tmp: Path) -> list[dict[str, Any]]:
    path = tmp / "series.csv"
    path.write_text("time,force\n0,0\n1,2.5\n2.5,-1\n4,0.5\n")
    return [{"file": str(path)}, {"file": str(path), "column": "force"}]


Examples = list[dict[str, Any]] | Callable[[Path], list[dict[str, Any]]]

#: Parameter sets of built-in types without their own ``examples`` (module doc).
EXAMPLES: dict[str, Examples] = {
    # links
    "screw": [{"pitch": 0.5}, {"pitch": -1.3}, {"pitch": 2.0}],
    # signals
    "constant": [{"value": 2.5}, {"value": -1.0}],
    "sine": [{"amplitude": 1.5, "omega": 2.0, "phase_deg": 30.0, "offset": 0.2},
             {"amplitude": -0.3, "omega": 0.7}],
    "ramp": [{"t_start": 1.0, "t_end": 3.0, "initial": -1.0, "final": 2.0}, {"t_end": 7.5}],
    "linear_spline": [{"points": [[0.0, 0.0], [1.0, 0.5], [2.5, -1.0], [6.0, 0.3]]},
                      {"points": [[3.0, 1.0]]}],
    "table": _table_examples,
}


def examples_for(info: TypeInfo, tmp: Path) -> list[dict[str, Any]] | None:
    """``EXAMPLES`` of a type that declares no ``examples`` (None: its own, or
    ``[{}]``)."""
    if getattr(info.cls, "examples", None) is not None:
        return None
    given = EXAMPLES.get(info.name)
    return given(tmp) if callable(given) else given


@pytest.mark.parametrize("info", list(REGISTRY.all()), ids=lambda i: f"{i.kind}:{i.name}")
def test_every_installed_type_keeps_the_contract(info: TypeInfo, tmp_path: Path) -> None:
    """Every registered link, force and signal type (built-in or installed) passes
    ``frylinks.testing``; a type with required parameters and neither ``examples`` nor
    an entry in EXAMPLES fails, asking for examples."""
    testing.check_type(info.cls, examples_for(info, tmp_path), registry=REGISTRY)


def test_builtin_plugins_pass_check_plugin(tmp_path: Path) -> None:
    """check_plugin runs every type of each built-in plugin module and names them."""
    import frylinks_forces
    import frylinks_links
    import frylinks_signals

    for module, kind in ((frylinks_links, "link"), (frylinks_forces, "force"),
                         (frylinks_signals, "signal")):
        infos = [i for i in REGISTRY.all() if i.kind == kind and i.plugin in
                 (module.__name__.removeprefix("frylinks_"),)]
        given: dict[str, Sequence[Mapping[str, Any]]] = {}
        for i in infos:
            ex = examples_for(i, tmp_path)
            if ex is not None:
                given[i.name] = ex
        checked = testing.check_plugin(module, given, registry=REGISTRY)
        assert sorted(checked) == sorted(f"{kind}:{i.name}" for i in infos)


def test_output_dims_agree_with_the_registry() -> None:
    """The suite knows the length of every extra output dimension the registry accepts."""
    assert tuple(testing.OUTPUT_DIMS) == OUTPUT_DIMS


# ---------------------------------------------------------------------------- links

class Hinge(AxisLink):
    """A correct revolute link with a decorative parameter, the base of broken ones."""

    name = "test_hinge"
    free_dofs = ("rz",)
    parameters = {"size": Param("float", "m", "a size that changes nothing", positive=True)}
    description = "revolute link for the tests"
    examples = [{"size": 1.0}, {"size": 2.0}]


class WrongRow(Hinge):
    """A row off by 1% in one coefficient: rows no longer the residual's Jacobian."""

    def constraints(self, rel: Relative, ctx: LinkContext) -> ConstraintBlock:
        cons = super().constraints(rel, ctx)
        rows = cons.rows.copy()
        rows[:, 0, 0] *= 1.01
        return ConstraintBlock(rows, cons.velocity, cons.acceleration)


class CoupledBlock(Hinge):
    """Joint coordinates shifted by the block's mean (links of a block must not see each
    other)."""

    def coordinates(self, rel: Relative, ctx: LinkContext) -> tuple[np.ndarray, np.ndarray]:
        gpos, gvel = super().coordinates(rel, ctx)
        return gpos + 1e-3 * gpos.mean(), gvel


class WrongBasis(Hinge):
    """A free basis along a locked DOF."""

    def free_basis(self, rel: Relative) -> np.ndarray:
        basis = super().free_basis(rel).copy()
        basis[:, 0, 0] = 0.3
        return basis


class WrongShape(Hinge):
    def displacement(self, rel: Relative, ctx: LinkContext) -> np.ndarray:
        return super().displacement(rel, ctx)[:, :3]


def test_a_correct_link_passes() -> None:
    testing.check_link_type(Hinge)


@pytest.mark.parametrize("cls, message", [
    (WrongRow, "time derivative of residual differs from rows @ J @ u - velocity"),
    (CoupledBlock, "block of 7 vs a block of one: coordinates gpos"),
    (WrongBasis, "rows @ free_basis must be 0"),
    (WrongShape, r"displacement\(\) has shape \(7, 3\), expected \(7, 6\)"),
])
def test_broken_links_are_caught(cls: type, message: str) -> None:
    """Each broken link fails with a message naming the type and the broken rule."""
    with pytest.raises(AssertionError, match=message) as err:
        testing.check_link_type(cls)
    assert "'test_hinge'" in str(err.value) and cls.__qualname__ in str(err.value)


def test_missing_examples_are_asked_for() -> None:
    """A type with required parameters and no examples fails, telling the author to add
    ``examples`` (or pass instances); given instances are used instead."""

    class Bare(Hinge):
        examples = None  # type: ignore[assignment]

    with pytest.raises(AssertionError, match=r"required parameters \(size\) but no example "
                                             r"values: give the class an attribute `examples"):
        testing.check_link_type(Bare)
    testing.check_link_type(Bare, [{"size": 3.0}])


@pytest.mark.parametrize("examples, message", [
    ([{"size": -1.0}], r"example parameters #0 \{'size': -1.0\} are refused: .*must be > 0"),
    ([{"sizes": 1.0}], "refused: .*unknown key 'sizes'; did you mean 'size'"),
    ([], "examples must be a non-empty list"),
    (["size"], r"examples\[0\] must be a mapping"),
])
def test_bad_examples_are_reported(examples: list[Any], message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        testing.check_link_type(Hinge, examples)


def test_link_declarations_are_checked() -> None:
    """Parameters need units (the registry's rule) and a doc line; types a description."""
    no_units = type("NoUnits", (Hinge,), {
        "parameters": {"size": Param("float", None, "size")}})  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match=r"refused by the registry: .*declares no units"):
        testing.check_declarations(no_units)
    no_doc = type("NoDoc", (Hinge,), {"parameters": {"size": Param("float", "m", " ")}})
    with pytest.raises(AssertionError, match="parameter 'size' has no doc line"):
        testing.check_declarations(no_doc)
    no_description = type("NoDescription", (Hinge,), {"description": ""})
    with pytest.raises(AssertionError, match="one-line `description`"):
        testing.check_declarations(no_description)
    with pytest.raises(AssertionError, match="not a link, force, signal or setting type"):
        testing.check_declarations(dict)


# --------------------------------------------------------------------------- forces

class Drag(ForceType):
    """``-c v`` on a node, with its dissipated power as output: a correct force type."""

    name = "test_drag"
    attachments = ("node",)
    parameters = {
        "node": Param("node", "", "node the drag acts on"),
        "coefficient": Param("signal", "N s m-1", "drag coefficient"),
    }
    outputs = {"test_drag_power": Output("W", "power dissipated by the drag")}
    description = "linear drag for the tests"
    examples = [{"coefficient": 2.0},
                {"coefficient": {"type": "sine", "amplitude": 1.0, "omega": 1.0,
                                 "offset": 2.0}}]

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.c = self.signal_array([p["coefficient"] for p in instances])

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        f = -self.c.at(ctx.signals)[:, None] * frames[0].v
        return f[:, None, :], np.zeros_like(f)[:, None, :]

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, np.ndarray]:
        return {"test_drag_power": self.c.at(ctx.signals) * np.sum(frames[0].v ** 2, axis=1)}


class MeanDrag(Drag):
    """Drag on the block's mean velocity: elements see each other."""

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        f = -self.c.at(ctx.signals)[:, None] * frames[0].v.mean(axis=0)
        return f[:, None, :], np.zeros_like(f)[:, None, :]


class MutatingDrag(Drag):
    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        frames[0].v[...] *= 0.5  # in place (NodeFrames is a NamedTuple)
        return super().evaluate(frames, ctx)


class FlatDrag(Drag):
    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        f, t = super().evaluate(frames, ctx)
        return f[:, 0], t[:, 0]


class SilentDrag(Drag):
    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, np.ndarray]:
        return {}


class StatefulDrag(Drag):
    """Remembers calls: evaluate is not a function of its inputs."""

    calls = 0

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        f, t = super().evaluate(frames, ctx)
        return f * self.calls, t


class HeavyDrag(Drag):
    """Carries point masses whose weights do not sum to 1."""

    def point_masses(self, frames: Sequence[NodeFrames], ctx: ForceContext
                     ) -> tuple[np.ndarray, np.ndarray]:
        n = self.nb_forces
        return np.ones(n), np.full((n, 1), 0.5)


class PeekingDrag(Drag):
    """Keeps the last power in its memory when asked for its outputs (a run asks
    between steps: the steps after would differ)."""

    memory = ("last_power",)

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.last_power = np.zeros(self.nb_forces)

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, np.ndarray]:
        values = super().output_values(frames, ctx)
        self.last_power[:] = values["test_drag_power"]
        return values


def test_a_correct_force_passes() -> None:
    testing.check_force_type(Drag)


@pytest.mark.parametrize("cls, message", [
    (MeanDrag, "element 0 of a block of 7 vs a block of one: force"),
    (MutatingDrag, r"modified its input frames\[0\]\.v"),
    (FlatDrag, r"evaluate\(\) force has shape \(7, 3\), expected \(7, 1, 3\)"),
    (SilentDrag, r"must give exactly the declared outputs \['test_drag_power'\], got \[\]"),
    (StatefulDrag, r"evaluate\(\) called twice"),
    (HeavyDrag, r"weights must sum to 1"),
    (PeekingDrag, r"output_values\(\) changed the memory 'last_power'"),
])
def test_broken_forces_are_caught(cls: type, message: str) -> None:
    with pytest.raises(AssertionError, match=message) as err:
        testing.check_force_type(cls)
    assert "'test_drag'" in str(err.value)


def test_force_declarations_are_checked() -> None:
    """Attachments are declared node/body parameters; examples leave them out; outputs
    carry units (the registry's rule)."""
    undeclared = type("Undeclared", (Drag,), {"attachments": ("where",)})
    with pytest.raises(AssertionError, match="attachment 'where' must be declared"):
        testing.check_declarations(undeclared)
    with pytest.raises(AssertionError, match=r"examples\[0\] gives the attachment\(s\) node"):
        testing.check_force_type(Drag, [{"node": "b0", "coefficient": 1.0}])
    no_units = type("NoUnits", (Drag,), {
        "outputs": {"test_drag_power": Output(None, "power")}})  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match=r"refused by the registry: .*needs units"):
        testing.check_declarations(no_units)


# -------------------------------------------------------------------------- signals

class Wave(SignalType):
    """``amplitude sin(t)`` with exact derivatives: a correct signal type."""

    name = "test_wave"
    parameters = {"amplitude": Param("float", "1", "amplitude")}
    description = "sine of time for the tests"
    examples = [{"amplitude": 1.0}, {"amplitude": -2.0}]
    factor = 1.0

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(instances)
        self.a = np.array([float(p["amplitude"]) for p in instances])

    def evaluate(self, t: float, order: int = 0) -> np.ndarray:
        phase = (np.sin, np.cos, lambda x: -np.sin(x))[order](t)
        return self.a * phase * (self.factor if order == 1 else 1.0)


class WrongRate(Wave):
    factor = 1.001


class NormalisedWave(Wave):
    """Divides by the block's largest amplitude: signals see each other."""

    def evaluate(self, t: float, order: int = 0) -> np.ndarray:
        return super().evaluate(t, order) / np.abs(self.a).max(initial=1.0)


class Kinked(SignalType):
    """``|t - 1|``, kink at t = 1, and a jump of slope at t = 2: derivatives are
    one-sided there."""

    name = "test_kinked"
    description = "piecewise-linear signal for the tests"

    def evaluate(self, t: float, order: int = 0) -> np.ndarray:
        value = (abs(t - 1.0) + 2.0 * max(t - 2.0, 0.0),
                 (1.0 if t >= 1.0 else -1.0) + 2.0 * (t >= 2.0), 0.0)[order]
        return np.full(self.nb_signals, value)


def test_a_correct_signal_passes() -> None:
    testing.check_signal_type(Wave)


def test_kinks_are_no_error() -> None:
    """Derivatives are checked away from kinks, also on times exactly at them."""
    testing.check_signal_type(Kinked, times=[0.5, 1.0, 1.0 + 1e-7, 2.0, 2.0 - 3e-7, 3.0])


@pytest.mark.parametrize("cls, message", [
    (WrongRate, r"evaluate\(t, order=1\) is not the time derivative of order 1"),
    (NormalisedWave, "signal 0 of a block of 7 vs a block of one"),
])
def test_broken_signals_are_caught(cls: type, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        testing.check_signal_type(cls)


# --------------------------------------------------------------------------- plugin

class InlinePlugin:
    def __init__(self, links: list[type], forces: list[type], signals: list[type]) -> None:
        self.links, self.forces, self.signals = links, forces, signals

    @hookimpl
    def frylinks_link_types(self) -> list[type]:
        return self.links

    @hookimpl
    def frylinks_force_types(self) -> list[type]:
        return self.forces

    @hookimpl
    def frylinks_signal_types(self) -> list[type]:
        return self.signals


def test_check_plugin_runs_every_type() -> None:
    """check_plugin checks each type of each hook (instances given per name override
    examples) and stops at the first broken one."""
    plugin = InlinePlugin([Hinge], [Drag], [Wave])
    assert testing.check_plugin(plugin, {"test_hinge": [{"size": 5.0}]}) == [
        "link:test_hinge", "force:test_drag", "signal:test_wave"]
    with pytest.raises(AssertionError, match="not the time derivative"):
        testing.check_plugin(InlinePlugin([Hinge], [Drag], [WrongRate]))
    with pytest.raises(AssertionError, match="returns no type"):
        testing.check_plugin(InlinePlugin([], [], []))
    with pytest.raises(AssertionError, match=r"refused by the registry: .*claimed by two plugins"):
        testing.check_plugin(InlinePlugin([Hinge, WrongRow], [], []))
