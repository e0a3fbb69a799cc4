"""The hook specifications are the plugin author's manual: documented, prefixed, tested.

``EXERCISED`` names, for each hook, a test that makes pluggy call a real implementation
of it; the checks below keep that list complete and honest (the test exists and its
module implements or calls the hook).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from frylinks import hookspecs
from frylinks.forces import ForceType
from frylinks.links import LinkType
from frylinks.registry import Registry
from frylinks.signals import SignalType

TESTS = Path(__file__).parent

#: hook -> "file::test" that exercises it through the plugin manager
EXERCISED = {
    "frylinks_link_types":
        "test_registry.py::test_third_party_type_is_registered_with_its_distribution",
    "frylinks_force_types": "test_hookspecs.py::test_type_hooks_return_classes_of_their_kind",
    "frylinks_signal_types": "test_hookspecs.py::test_type_hooks_return_classes_of_their_kind",
    "frylinks_run_started": "test_registry.py::test_observers_are_called_once_per_output_sample",
    "frylinks_step_completed":
        "test_registry.py::test_observers_are_called_once_per_output_sample",
    "frylinks_run_finished": "test_registry.py::test_observers_are_called_once_per_output_sample",
}


def hookspec_names() -> list[str]:
    """Every function of frylinks.hookspecs marked as a hook specification."""
    return sorted(
        name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(fn, f"{hookspecs.NAME}_spec")
    )


def test_there_are_hookspecs() -> None:
    """The required hooks of DESIGN §2 are all specified (names may gain siblings)."""
    assert {"frylinks_link_types", "frylinks_force_types", "frylinks_signal_types",
            "frylinks_run_started", "frylinks_step_completed",
            "frylinks_run_finished"} <= set(hookspec_names())


@pytest.mark.parametrize("name", hookspec_names())
def test_hook_is_prefixed_and_documented(name: str) -> None:
    """Each hook carries the frylinks_ prefix and a docstring saying when it is called
    (the docs render it as the plugin author's manual)."""
    assert name.startswith("frylinks_")
    doc = inspect.getdoc(getattr(hookspecs, name))
    assert doc and len(doc.split()) >= 10, f"{name}: docstring too thin"
    assert "called" in doc.lower(), f"{name}: the docstring must say when it is called"


def test_every_hook_is_exercised_by_a_test() -> None:
    """EXERCISED covers exactly the hookspecs; each named test exists, and its module
    implements or calls the hook (so the entry cannot silently rot)."""
    assert sorted(EXERCISED) == hookspec_names()
    for hook, where in EXERCISED.items():
        file, test = where.split("::")
        source = (TESTS / file).read_text()
        functions = {n.name for n in ast.walk(ast.parse(source))
                     if isinstance(n, ast.FunctionDef)}
        assert test in functions, f"{hook}: {where} does not exist"
        assert hook in source, f"{hook}: {file} never implements or calls it"


def test_hooks_are_known_to_the_plugin_manager() -> None:
    """Every hookspec is registered on a registry's plugin manager."""
    pm = Registry(autoload=False).pm
    for name in hookspec_names():
        assert hasattr(pm.hook, name)


@pytest.mark.parametrize("hook, base", [("frylinks_link_types", LinkType),
                                        ("frylinks_force_types", ForceType),
                                        ("frylinks_signal_types", SignalType)])
def test_type_hooks_return_classes_of_their_kind(hook: str, base: type) -> None:
    """Calling a type hook (keywords only, no arguments) through pluggy returns, per
    implementing plugin, a list of subclasses of the kind's base class."""
    results = getattr(Registry().pm.hook, hook)()
    assert results, f"no plugin implements {hook}"
    for classes in results:
        assert isinstance(classes, list)
        assert all(isinstance(c, type) and issubclass(c, base) for c in classes)
