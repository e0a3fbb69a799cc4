"""The hook specifications are the plugin author's manual: documented, prefixed, tested,
and rendered to docs/hooks.md.

``EXERCISED`` names, for each hook, a test that makes pluggy call a real implementation
of it; the checks below keep that list complete and honest (the test exists and its
module implements or calls the hook).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
from pathlib import Path
from types import ModuleType

import pytest

from frylinks import hookspecs
from frylinks.forces import ForceType
from frylinks.links import LinkType
from frylinks.model.registry import Registry
from frylinks.settings import SettingType
from frylinks.signals import SignalType

TESTS = Path(__file__).parent
DOCS = TESTS.parent / "docs"

#: hook -> "file::test" that exercises it through the plugin manager
EXERCISED = {
    "frylinks_link_types":
        "test_registry.py::test_third_party_type_is_registered_with_its_distribution",
    "frylinks_force_types": "test_hookspecs.py::test_type_hooks_return_classes_of_their_kind",
    "frylinks_signal_types": "test_hookspecs.py::test_type_hooks_return_classes_of_their_kind",
    "frylinks_setting_types": "test_hookspecs.py::test_type_hooks_return_classes_of_their_kind",
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
                                        ("frylinks_signal_types", SignalType),
                                        ("frylinks_setting_types", SettingType)])
def test_type_hooks_return_classes_of_their_kind(hook: str, base: type) -> None:
    """Calling a type hook (keywords only, no arguments) through pluggy returns, per
    implementing plugin, a list of subclasses of the kind's base class."""
    results = getattr(Registry().pm.hook, hook)()
    assert results, f"no plugin implements {hook}"
    for classes in results:
        assert isinstance(classes, list)
        assert all(isinstance(c, type) and issubclass(c, base) for c in classes)


def renderer() -> ModuleType:
    """docs/render_hooks.py, the generator of docs/hooks.md (a script, not a package)."""
    spec = importlib.util.spec_from_file_location("render_hooks", DOCS / "render_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hooks_doc_is_rendered_from_the_specs() -> None:
    """docs/hooks.md is exactly what docs/render_hooks.py makes of the hook specs (run
    ``python docs/render_hooks.py`` after changing one): every hook has its section with
    its signature and docstring; docs/plugins.md links to it."""
    text = (DOCS / "hooks.md").read_text(encoding="utf-8")
    assert text == renderer().render(), \
        "docs/hooks.md is out of date: run python docs/render_hooks.py"
    for name in hookspec_names():
        fn = getattr(hookspecs, name)
        assert f"\n## {name}\n" in text
        assert f"def {name}(" in text
        assert inspect.getdoc(fn).split("\n")[0] in text
    assert "(hooks.md)" in (DOCS / "plugins.md").read_text(encoding="utf-8")


def test_hooks_doc_markdown_of_rest() -> None:
    """The renderer turns reST roles and literals into code spans and a ``::`` paragraph
    into a fenced block."""
    md = renderer().markdown(
        "See :class:`~frylinks.System` and :func:`frylinks.run`, ``x = 1``::\n\n"
        "    [a]\n    b = 1\n\nAfter.")
    assert md == ("See `System` and `frylinks.run`, `x = 1`:\n\n```\n[a]\nb = 1\n```\n\n"
                  "After.\n")
