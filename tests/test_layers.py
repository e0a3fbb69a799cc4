"""The import contracts of docs/architecture.md: layers that import only downward, the
built-in plugins independent of each other and of everything but the plugin API, and no
import circle anywhere (pyproject.toml's ``[tool.importlinter]``, as ``.ci/run`` checks
them), shown to fail on a deliberate circle and on a layer broken upward."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("frylinks", "frylinks_links", "frylinks_forces", "frylinks_signals",
            "frylinks_marine")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` run on the tree at ``root`` with its pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "plugins")])}
    script = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(script), "--no-cache", "--no-logo"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def copied_tree(tmp_path: Path) -> Path:
    """The packages and pyproject.toml of this checkout, copied to change them."""
    root = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "data", "*.nc", "*.h5")
    shutil.copytree(ROOT / "frylinks", root / "frylinks", ignore=ignore)
    for name in PACKAGES[1:]:
        shutil.copytree(ROOT / "plugins" / name, root / "plugins" / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_import_contracts_are_kept() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout


def test_no_module_is_in_an_import_circle() -> None:
    """Every strongly connected set of modules is one module: no circle at all, also
    between a package's ``__init__`` and its own modules (which sibling checks miss)."""
    sys.path[:0] = [str(ROOT), str(ROOT / "plugins")]
    try:
        graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True,
                                  cache_dir=None)
    finally:
        del sys.path[:2]
    circles = [sorted(c) for c in strongly_connected(graph) if len(c) > 1]
    assert not circles, f"import circles: {circles}"


def strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    """Tarjan's strongly connected components of the module import graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            found.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph.modules)))
    try:
        for module in sorted(graph.modules):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return found


@pytest.mark.parametrize(("module", "line", "broken"), [
    # a circle inside the engine: the integrators import the compiled core, which would
    # import them back (inside a function, where it only hides)
    ("frylinks/engine/kernels.py",
     "def _hidden():\n    from frylinks.engine import integrators\n",
     "no import circle in any package"),
    # a layer broken upward: the engine reading a case file
    ("frylinks/engine/statics.py", "import frylinks.io.case\n", "frylinks layers"),
    # a plugin importing another one
    ("plugins/frylinks_links/fixed.py", "import frylinks_forces\n",
     "the built-in plugins are independent of each other"),
])
def test_a_deliberate_break_fails_the_check(tmp_path: Path, module: str, line: str,
                                            broken: str) -> None:
    root = copied_tree(tmp_path)
    with open(root / module, "a") as f:
        f.write("\n\n" + line)
    done = lint_imports(root)
    assert done.returncode != 0
    assert f"{broken}" in done.stdout
    report = done.stdout[done.stdout.index("Broken contracts"):]
    assert Path(module).stem in report  # (the module that breaks it is named)
