"""Plugin discovery through real entry points, type validation, and run observers.

Fake third-party plugins are real installed distributions: a ``fakeplug-1.0.dist-info``
directory (METADATA and entry_points.txt) and its module, on a ``sys.path`` entry of the
test, found by ``importlib.metadata`` exactly as an installed wheel would be.
"""

from __future__ import annotations

import importlib.metadata as md
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import frylinks
from frylinks import PluginError, System, hookimpl
from frylinks.engine import State
from frylinks.forces import ForceType
from frylinks.hookspecs import NAME
from frylinks.links import AxisLink
from frylinks.model.registry import Registry
from frylinks.params import Param
from frylinks.signals import SignalType

BUILTIN_LINKS = {"fixed", "revolute", "prismatic", "cylindrical", "spherical", "screw"}
BUILTIN_FORCES = {"world_force", "world_torque"}
BUILTIN_SIGNALS = {"constant", "sine", "ramp", "linear_spline"}

FAKE_TYPE = '''
from frylinks import hookimpl
from frylinks.links import AxisLink


class FakeHinge(AxisLink):
    name = "{name}"
    free_dofs = ("rz",)
    description = "a third-party hinge"


@hookimpl
def frylinks_link_types():
    return [FakeHinge]
'''


@pytest.fixture(autouse=True)
def forget_fake_module() -> Iterator[None]:
    """Each test imports its own ``fakeplug_mod``: drop any cached one before and after."""
    sys.modules.pop("fakeplug_mod", None)
    yield
    sys.modules.pop("fakeplug_mod", None)


def install_fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    """Install the distribution ``fakeplug 1.0`` with entry point ``fake = fakeplug_mod``."""
    info = tmp_path / "fakeplug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[frylinks]\nfake = fakeplug_mod\n")
    (tmp_path / "fakeplug_mod.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_marker_name_is_the_entry_point_group() -> None:
    """One constant for hookspec/hookimpl markers, plugin manager and entry-point group."""
    assert NAME == "frylinks"
    assert Registry(autoload=False).pm.project_name == NAME
    groups = {ep.group for ep in md.distribution("frylinks").entry_points}
    assert NAME in groups


def test_builtins_are_discovered_through_entry_points() -> None:
    """Every built-in type comes from an entry point of the distribution 'frylinks' (its
    version recorded), through the plugin named by that entry point."""
    reg = Registry()
    eps = {ep.name: ep.value for ep in md.entry_points(group=NAME)}
    assert {"links": "frylinks_links", "forces": "frylinks_forces",
            "signals": "frylinks_signals"}.items() <= eps.items()
    expected = {"link": (BUILTIN_LINKS, "links"), "force": (BUILTIN_FORCES, "forces"),
                "signal": (BUILTIN_SIGNALS, "signals")}
    for kind, (names, plugin) in expected.items():
        assert names <= set(reg.names(kind))
        for name in names:
            info = reg.get(kind, name)
            assert info is not None
            assert (info.distribution, info.version, info.plugin) == (
                "frylinks", md.version("frylinks"), plugin)
            assert info.cls.name == name


def test_no_autoload_gives_an_empty_registry() -> None:
    """autoload=False loads nothing: tests register plugins inline."""
    reg = Registry(autoload=False)
    assert all(reg.names(kind) == [] for kind in ("link", "force", "signal"))


def test_third_party_type_is_registered_with_its_distribution(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A non-clashing type of the installed 'fakeplug 1.0' is registered beside the
    built-ins, labelled with its distribution, version and entry point, and is usable in
    a System like a built-in."""
    install_fake(tmp_path, monkeypatch, FAKE_TYPE.format(name="fake_hinge"))
    reg = Registry()
    info = reg.get("link", "fake_hinge")
    assert info is not None
    assert (info.distribution, info.version, info.plugin) == ("fakeplug", "1.0", "fake")
    assert BUILTIN_LINKS <= set(reg.names("link"))
    system = System(registry=reg)
    system.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0])
    system.add_link("h", "fake_hinge", master="ground", slave="b")
    ds = system.run(t_end=0.02, dt=0.01)
    assert ds.attrs["status"] == "completed"


def test_clashing_type_names_both_distributions(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A third-party type named 'revolute' is an error naming the type and both
    distributions, not a silent override."""
    install_fake(tmp_path, monkeypatch, FAKE_TYPE.format(name="revolute"))
    with pytest.raises(PluginError) as err:
        Registry()
    msg = str(err.value)
    assert "'revolute'" in msg and "'fakeplug'" in msg and "'frylinks'" in msg


@pytest.mark.parametrize("body", ["raise ImportError('hydrolib is not installed')",
                                  "import frylinks_no_such_module_xyz"])
def test_broken_plugin_names_its_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             body: str) -> None:
    """A plugin that fails to import is an error naming the entry point 'fake', its
    distribution and the cause."""
    install_fake(tmp_path, monkeypatch, body + "\n")
    with pytest.raises(PluginError) as err:
        Registry()
    msg = str(err.value)
    assert "'fake = fakeplug_mod'" in msg and "'fakeplug'" in msg
    assert "Error" in msg  # the exception type of the cause
    assert isinstance(err.value.__cause__, ImportError)


# ------------------------------------------------------------------------ validation

class Plugin:
    """An inline plugin object returning the given classes from the type hooks."""

    def __init__(self, links: list[type] | None = None, forces: list[type] | None = None,
                 signals: list[type] | None = None) -> None:
        self._links, self._forces, self._signals = links or [], forces or [], signals or []

    @hookimpl
    def frylinks_link_types(self) -> list[type]:
        return self._links

    @hookimpl
    def frylinks_force_types(self) -> list[type]:
        return self._forces

    @hookimpl
    def frylinks_signal_types(self) -> list[type]:
        return self._signals


def link_class(name: Any, parameters: dict[str, Any] | None = None) -> type:
    return type("L", (AxisLink,), {"name": name, "free_dofs": ("rz",),
                                   "parameters": parameters or {}})


@pytest.mark.parametrize("name", ["", "Hinge", "my-hinge", "2hinge", "hinge joint", None])
def test_invalid_type_names_are_rejected(name: Any) -> None:
    """Type names must match ^[a-z][a-z0-9_]*$ (they are case-file words)."""
    with pytest.raises(PluginError, match=r"name .* must match"):
        Registry(autoload=False).register(Plugin(links=[link_class(name)]), name="bad")


def test_parameter_without_units_is_rejected() -> None:
    """Every declared parameter states its units; a Param with units=None is refused,
    and so is a parameter that is not a Param at all."""
    no_units = link_class("hinge", {"k": Param("float", None, "stiffness")})  # type: ignore[arg-type]
    with pytest.raises(PluginError, match="parameter 'k' declares no units"):
        Registry(autoload=False).register(Plugin(links=[no_units]), name="bad")
    not_param = link_class("hinge", {"k": 1.0})
    with pytest.raises(PluginError, match=r"parameter 'k' is not a frylinks\.params\.Param"):
        Registry(autoload=False).register(Plugin(links=[not_param]), name="bad")


class NotALink:
    name = "orphan"


class AForce(ForceType):
    name = "a_force"


class ASignal(SignalType):
    name = "a_signal"


@pytest.mark.parametrize("plugin, base", [
    (Plugin(links=[NotALink]), "LinkType"),
    (Plugin(links=[AForce]), "LinkType"),
    (Plugin(forces=[link_class("hinge")]), "ForceType"),
    (Plugin(signals=[AForce]), "SignalType"),
    (Plugin(forces=[ASignal]), "ForceType"),
])
def test_wrong_base_class_is_rejected(plugin: Plugin, base: str) -> None:
    """Each hook's classes must derive from the base of its kind."""
    with pytest.raises(PluginError, match=f"not a subclass of .*{base}"):
        Registry(autoload=False).register(plugin, name="bad")


def test_inline_clash_names_both_plugins() -> None:
    """Two inline plugins claiming one name: the error names both plugins and
    distributions; a valid inline plugin is labelled 'local' by default."""
    reg = Registry(autoload=False)
    reg.register(Plugin(links=[link_class("hinge")]), name="first")
    assert reg.get("link", "hinge").distribution == "local"  # type: ignore[union-attr]
    with pytest.raises(PluginError) as err:
        reg.register(Plugin(links=[link_class("hinge")]), name="second", distribution="acme")
    msg = str(err.value)
    assert "'first'" in msg and "'local'" in msg and "'second'" in msg and "'acme'" in msg


# ------------------------------------------------------------------------ observers

class Observer:
    """Records every run-observer call."""

    def __init__(self) -> None:
        self.started: list[tuple[float, float]] = []
        self.steps: list[tuple[float, State]] = []
        self.finished: list[str] = []

    @hookimpl
    def frylinks_run_started(self, system: Any, t_end: float, dt: float) -> None:
        self.started.append((t_end, dt))

    @hookimpl
    def frylinks_step_completed(self, system: Any, t: float, state: State) -> None:
        self.steps.append((t, state.copy()))

    @hookimpl
    def frylinks_run_finished(self, system: Any, status: str) -> None:
        self.finished.append(status)


def builtins_inline() -> Registry:
    import frylinks_forces
    import frylinks_links
    import frylinks_signals

    reg = Registry(autoload=False)
    reg.register(frylinks_links, name="links", distribution="frylinks")
    reg.register(frylinks_forces, name="forces", distribution="frylinks")
    reg.register(frylinks_signals, name="signals", distribution="frylinks")
    return reg


def test_observers_are_called_once_per_output_sample() -> None:
    """An inline observer plugin sees run_started once, step_completed once per output
    sample (every=3 over 12 steps: t = 0, 3, 6, 9, 12 dt) with the sampled state, and
    run_finished once with the status."""
    reg = builtins_inline()
    obs = Observer()
    reg.register(obs, name="observer")
    assert reg.observers("frylinks_step_completed")
    system = System(registry=reg)
    system.add_body("b", mass=2.0, inertia=[1.0, 1.0, 1.0])
    system.add_link("hinge", "revolute", master="ground", slave="b")
    ds = system.run(t_end=0.12, dt=0.01, every=3)
    assert obs.started == [(0.12, 0.01)]
    assert len(obs.steps) == ds.sizes["time"] == 5
    np.testing.assert_allclose([t for t, _ in obs.steps], ds["time"], atol=1e-12)
    np.testing.assert_allclose(np.array([s.x for _, s in obs.steps]), ds["body_position"],
                               atol=1e-14)
    assert obs.finished == ["completed"]


def test_no_observer_no_call() -> None:
    """Without an implementing plugin, observers() is False (the loop pays nothing)."""
    reg = builtins_inline()
    for hook in ("frylinks_run_started", "frylinks_step_completed", "frylinks_run_finished"):
        assert not reg.observers(hook)


def test_public_hookimpl_is_the_frylinks_marker() -> None:
    """frylinks.hookimpl marks implementations for the 'frylinks' project."""
    assert frylinks.hookimpl.project_name == NAME


def test_builtin_outputs_declare_udunits_units() -> None:
    """Every output of every installed type declares UDUNITS-2 units (cf_units wraps the
    library CF readers use): they become the results' ``units`` attributes."""
    import cf_units

    outputs = [(f"{info.kind} {info.name}: {name}", units)
               for info in Registry().all()
               for name, o in getattr(info.cls, "outputs", {}).items()
               for units in (o.units, o.rotational_units) if units is not None]
    assert len(outputs) > 20
    for where, units in outputs:
        try:
            cf_units.Unit(units)
        except ValueError:
            pytest.fail(f"{where}: {units!r} is not a UDUNITS unit")
