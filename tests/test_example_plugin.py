"""The third-party example plugin (plugins/frylinks_example), installed for real.

The distribution ``frylinks-example`` is built and installed by pip into a temporary
target, from a copy of its folder (so no build output lands in the repository), without
dependencies, build isolation or an index (offline: setuptools and wheel come with the
``test`` extra). The tests then put the target on ``sys.path``: frylinks finds the
plugin through its entry point exactly as after ``pip install frylinks-example``.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from frylinks import System
from frylinks.model.registry import Registry
from frylinks.testing import check_plugin

SOURCE = Path(__file__).resolve().parents[1] / "plugins" / "frylinks_example"
PACKAGE = "example_frylinks_plugin"
DISTRIBUTION = "frylinks-example"


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the installed distribution (package and dist-info)."""
    tmp = tmp_path_factory.mktemp("example_plugin")
    src = tmp / "src"
    shutil.copytree(SOURCE, src, ignore=shutil.ignore_patterns(
        "build", "dist", "*.egg-info", "__pycache__"))
    site = tmp / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
         "--no-index", "--disable-pip-version-check", "--no-input", "-q",
         "--target", str(site), str(src)],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, f"pip install failed:\n{proc.stdout}\n{proc.stderr}"
    return site


def _forget_package() -> None:
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
        del sys.modules[name]


@pytest.fixture
def example(target: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The installed plugin module, its target on sys.path for this test only."""
    _forget_package()
    assert importlib.util.find_spec(PACKAGE) is None, \
        f"{PACKAGE} is importable without installing frylinks-example (packaged with frylinks?)"
    monkeypatch.syspath_prepend(str(target))
    importlib.invalidate_caches()
    yield importlib.import_module(PACKAGE)
    _forget_package()


def test_installed_from_its_own_distribution(example: ModuleType, target: Path) -> None:
    """The plugin comes from the target, as the distribution frylinks-example 0.1.0 with
    an entry point in the group frylinks; the frylinks distribution does not ship it."""
    assert Path(example.__file__ or "").is_relative_to(target)
    dist = md.distribution(DISTRIBUTION)
    assert (dist.metadata["Name"], dist.version) == (DISTRIBUTION, "0.1.0")
    assert [(ep.name, ep.value) for ep in dist.entry_points if ep.group == "frylinks"] == [
        ("example", PACKAGE)]
    assert PACKAGE not in (md.distribution("frylinks").read_text("top_level.txt") or "")


def test_registry_discovers_both_types(example: ModuleType) -> None:
    """Registry() finds slider_hinge and linear_drag through the entry point, labelled
    with the plugin, distribution and version, beside the built-ins."""
    reg = Registry()
    for kind, name, cls in (("link", "slider_hinge", example.SliderHinge),
                            ("force", "linear_drag", example.LinearDrag)):
        info = reg.get(kind, name)
        assert info is not None, f"{kind} type {name} not discovered"
        assert info.cls is cls
        assert (info.plugin, info.distribution, info.version) == (
            "example", DISTRIBUTION, md.version(DISTRIBUTION))
    assert reg.get("link", "revolute") is not None


def test_types_are_gone_without_the_distribution() -> None:
    """Without the target on sys.path, nothing of the example is registered (the tests
    above see it because it is installed, not because it sits in the repository)."""
    _forget_package()
    reg = Registry()
    assert reg.get("link", "slider_hinge") is None and reg.get("force", "linear_drag") is None


def test_system_with_both_types_gives_the_exact_decay(example: ModuleType) -> None:
    """A cart on a slider hinge along world x, spinning about z, with a linear drag at
    its COG: ``v = v0 exp(-c t / m)``, ``x = v0 m / c (1 - exp(-c t / m))``, ``rz = w0 t``;
    the hinge carries the weight (reaction ``m g`` up, nothing sideways), the drag force
    is ``-c v`` and its power output ``c v^2``."""
    m, c, v0, w0, g = 2.0, 0.8, 1.5, 0.7, 9.81
    system = System(gravity=[0.0, 0.0, -g], registry=Registry())
    system.ground.add_node("track")
    system.add_body("cart", mass=m, inertia=[1.0, 1.0, 1.0], velocity=[v0, 0.0, 0.0],
                    angular_velocity=[0.0, 0.0, w0])
    system.add_link("rail", "slider_hinge", master="ground.track", slave="cart")
    system.add_force("drag", "linear_drag", node="cart", coefficient=c)
    ds = system.run(t_end=3.0, dt=0.01)
    assert ds.attrs["status"] == "completed"
    t = ds["time"].values
    decay = np.exp(-c * t / m)
    v = v0 * decay
    disp = ds.link_displacement.sel(link="rail")
    np.testing.assert_allclose(disp.sel(dof="tx"), v0 * m / c * (1.0 - decay), atol=1e-9)
    np.testing.assert_allclose(disp.sel(dof="rz"), w0 * t, atol=1e-9)
    np.testing.assert_allclose(disp.sel(dof=["ty", "tz", "rx", "ry"]), 0.0, atol=1e-9)
    np.testing.assert_allclose(ds.body_velocity.sel(body="cart", xyz="x"), v, atol=1e-9)
    np.testing.assert_allclose(ds.link_reaction_force.sel(link="rail"),
                               np.tile([0.0, 0.0, m * g], (len(t), 1)), atol=1e-7)
    np.testing.assert_allclose(ds.force_force.sel(force="drag", xyz="x"), -c * v, atol=1e-9)
    np.testing.assert_allclose(ds.linear_drag_power.sel(linear_drag_element="drag"), c * v**2,
                               atol=1e-9)
    assert ds.linear_drag_power.attrs["units"] == "W"


def test_frylinks_plugins_lists_them(target: Path) -> None:
    """``frylinks plugins`` (a fresh interpreter with the target on PYTHONPATH) lists both
    types with their plugin, distribution and version."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(target), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run([sys.executable, "-m", "frylinks", "plugins"], capture_output=True,
                          text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = {tuple(line.split()[:5]) for line in proc.stdout.splitlines()}
    assert ("link", "slider_hinge", "example", DISTRIBUTION, "0.1.0") in rows
    assert ("force", "linear_drag", "example", DISTRIBUTION, "0.1.0") in rows


def test_example_keeps_the_contract(example: ModuleType) -> None:
    """frylinks.testing.check_plugin passes on the installed plugin, from its examples."""
    assert check_plugin(example) == ["link:slider_hinge", "force:linear_drag"]
