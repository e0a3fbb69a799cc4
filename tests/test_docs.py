"""The documentation builds with Sphinx, warnings as errors, and its generated reference
pages cover every installed type, every result variable and every global attribute."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from frylinks.io.results import VARIABLES
from frylinks.model.registry import Registry

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

DOCS = Path(__file__).resolve().parent.parent / "docs"
REFERENCE = DOCS / "reference"
#: The build is part of the default test run: keep it well under a minute.
BUILD_SECONDS = 60.0


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML output of one build, ``sphinx-build -W --keep-going -b html``."""
    out = tmp_path_factory.mktemp("docs") / "html"
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(DOCS), str(out)],
        capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - start
    assert proc.returncode == 0, f"sphinx-build failed:\n{proc.stderr}\n{proc.stdout}"
    assert wall < BUILD_SECONDS, f"the documentation took {wall:.0f} s to build"
    return out


@pytest.fixture(scope="module")
def render_reference() -> Iterator[ModuleType]:
    sys.path.insert(0, str(DOCS))
    try:
        import render_reference

        yield render_reference
    finally:
        sys.path.remove(str(DOCS))


def test_the_reference_pages_in_git_are_current(render_reference: ModuleType) -> None:
    """docs/reference/*.md are kept in git (the guides link to them, unbuilt) and equal
    what docs/render_reference.py renders from the code now."""
    for name, text in render_reference.pages().items():
        kept = REFERENCE / name
        assert kept.is_file() and kept.read_text(encoding="utf-8") == text, (
            f"docs/reference/{name} is out of date: run python docs/render_reference.py")


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_build_writes_every_page(html: Path) -> None:
    for page in ("index", "getting-started", "theory", "marine", "plugins", "hooks",
                 "example-plugin", "api", "reference/case-file", "reference/results",
                 "reference/cli"):
        assert (html / f"{page}.html").is_file(), page
    for page in ("case-file", "results", "cli"):
        assert (REFERENCE / f"{page}.md").is_file(), page


def test_case_file_reference_has_every_registered_type(html: Path) -> None:
    """One section per link, force and signal type, each with every parameter a case
    file may give (callables are Python-only and said so)."""
    page = text_of(REFERENCE / "case-file.md")
    built = text_of(html / "reference" / "case-file.html")
    for info in Registry().all():
        anchor = f"{info.kind}-{info.name.replace('_', '-')}"
        assert f"({anchor})=\n### `{info.name}`" in page, f"{info.kind} {info.name}"
        assert f'id="{anchor}"' in built, f"{info.kind} {info.name}"
        section = page.split(f"({anchor})=", 1)[1].split("\n### ", 2)[1]
        for name, p in info.cls.parameters.items():
            if p.kind == "callable":
                assert f"Python API only: `{name}`" in section or f", `{name}`" in section
            elif not (info.kind == "link" and name in ("master", "slave")):
                assert f"| `{name}` |" in section, f"{info.name}.{name}"
    for key in ("frylinks", "name", "gravity", "ground", "bodies", "links", "forces",
                "solver", "output"):
        assert f"(case-{key})=\n## `{key}`" in page
    # plugins' top-level sections (setting types) are top-level keys, linked to their
    # section under "System-level settings"
    for name in Registry().names("setting"):
        assert f"| [`{name}`](#setting-{name.replace('_', '-')}) |" in page, name


def test_marine_guide_covers_every_marine_type_and_environment_key() -> None:
    """docs/marine.md has a section per type of the marine plugin (the reference pages
    link to it) and describes every key of the environment's waves and current."""
    from frylinks_marine.environment import CURRENT, WAVES

    guide = text_of(DOCS / "marine.md")
    for info in Registry().all():
        if info.plugin == "marine":
            anchor = f"(marine-{info.name.replace('_', '-')})=\n## "
            assert anchor in guide, info.name
            section = guide.split(anchor, 1)[1].split("\n## ", 1)[0]
            assert f"`{info.name}`" in section.split("\n", 1)[0], info.name
            for name in info.cls.parameters:
                assert f"| `{name}` |" in section, f"{info.name}.{name}"
    for kind, params in WAVES.items():
        if kind != "still":
            section = guide.split(f"`waves: {{type: {kind}, ...}}`", 1)[1].split("\n### ", 1)[0]
            for name, p in params.items():
                assert f"| `{name}` |" in section, f"waves {kind}: {name}"
                row = section.split(f"| `{name}` |", 1)[1].split("\n", 1)[0]
                assert ("required" if p.required else f"`{p.default}`") in row, \
                    f"waves {kind}: {name} default"
    for name in CURRENT:
        assert f"| `{name}` |" in guide.split("`current: {speed, heading_deg}`", 1)[1]


def test_results_reference_has_every_variable(html: Path) -> None:
    page = text_of(REFERENCE / "results.md")
    built = text_of(html / "reference" / "results.html")
    for name, var in VARIABLES.items():
        assert f"| `{name}` | {', '.join(f'`{d}`' for d in var.dims)} |" in page, name
        assert name in built
    for info in Registry().all():
        for name in getattr(info.cls, "outputs", {}):
            assert f"| `{name}` |" in page, name


def test_every_global_attribute_of_a_run_is_documented(render_reference: ModuleType) -> None:
    """A run's global attributes are listed with their meaning: a new attribute needs its
    line in docs/render_reference.py's ATTRIBUTES."""
    attrs = render_reference.run_attributes()
    assert {"title", "frylinks_version", "integrator", "dt", "case", "status",
            "Conventions"} <= set(attrs)
    undocumented = sorted(set(attrs) - set(render_reference.ATTRIBUTES))
    assert not undocumented, f"describe {undocumented} in docs/render_reference.py"
    assert attrs["status"] == render_reference.STATUS[0][0]


def test_cli_reference_has_every_command(html: Path) -> None:
    page = text_of(REFERENCE / "cli.md")
    for command in ("run", "check", "plugins", "schema"):
        assert f"## `frylinks {command}`" in page
    assert "usage: frylinks schema [-h] [-o FILE]" in page


def test_theory_states_the_power_sign_the_engine_uses() -> None:
    """theory.md: link_power = -Q . g' is positive when absorbed. The engine agrees: a
    pure damper on a moving slider absorbs B v^2 > 0 at every sample."""
    from frylinks import System

    theory = text_of(DOCS / "theory.md")
    assert "P = -Q \\cdot \\dot g" in theory
    assert "positive = **absorbed**" in theory

    system = System(gravity=[0.0, 0.0, 0.0])
    system.add_body("cart", mass=2.0, inertia=[1.0, 1.0, 1.0], velocity=[0.0, 0.0, 1.5])
    system.add_link("pto", "prismatic", master="ground", slave="cart",
                    spring_damper={"damping": 3.0})
    ds = system.run(t_end=0.1, dt=0.01)
    power = ds.link_power.sel(link="pto").values
    speed = ds.link_velocity.sel(link="pto", dof="tz").values
    assert (power > 0).all()
    assert power == pytest.approx(3.0 * speed**2)


def test_the_readme_lists_every_command() -> None:
    """Each subcommand of ``frylinks`` has its row in the README's command table."""
    import argparse

    from frylinks.cli import build_parser

    readme = text_of(DOCS.parent / "README.md")
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    missing = [name for name in sub.choices if f"| `{name}" not in readme]
    assert not missing, f"README's command table lacks {missing}"
    assert "docs/wecsim.md" in readme
