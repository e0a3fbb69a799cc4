"""Where kernels' machine code is kept, and that a change anywhere it depends on is seen.

numba's own cache trusts a kernel's machine code while the kernel's file keeps its time
and size, though the code holds its helpers' too: a changed helper in another module
would go unseen. frylinks keys the code on the contents of the kernel's module and of
every module of its packages it imports from.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.errors import NumbaWarning

from frylinks import kernel_cache

#: Compiled, not on the interpreted tier of the rest of the suite (tests/conftest.py).
pytestmark = pytest.mark.compiled

HELPER = """
from frylinks.jit import helper


@helper
def value():
    return {value}
"""

KERNEL = """
from frylinks.jit import kernel

from .helpers import value


@kernel
def twice():
    return 2.0 * value()
"""

RUN = "from mykernels.calls import twice; print(twice())"


def _call(root: Path, cache: Path) -> float:
    env = {**os.environ, "FRYLINKS_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True,
                         env=env, check=True, timeout=300)
    return float(out.stdout)


def test_a_changed_helper_in_another_module_is_compiled_again(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "mykernels"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "calls.py").write_text(KERNEL)
    (pkg / "helpers.py").write_text(HELPER.format(value=1.0))
    cache = tmp_path / "cache"
    assert _call(pkg.parent, cache) == 2.0
    assert _call(pkg.parent, cache) == 2.0  # from the cache
    folders = sorted(p.name for p in (cache / "kernels").iterdir())
    assert any(name.startswith("mykernels.calls-") for name in folders)
    assert list((cache / "kernels").rglob("*.nbc"))
    # the helper's file changes and nothing else: the kernel sees it
    (pkg / "helpers.py").write_text(HELPER.format(value=5.0))
    assert _call(pkg.parent, cache) == 10.0


def test_a_kernel_module_hash_covers_what_it_imports() -> None:
    import frylinks.links  # noqa: F401  (its kernels call kinematics' and jit's)

    closure = kernel_cache._closure("frylinks.links")
    assert {"frylinks.kinematics", "frylinks.jit", "frylinks.rotations"} <= closure
    assert "numpy" not in closure


def test_a_kernel_numba_cannot_cache_warns_and_runs(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """numba cannot cache code that holds the address of a large global array; it says
    so (naming the kernel's file) and runs it, with frylinks' cache as with its own."""
    (tmp_path / "bigglobal.py").write_text(
        "import numpy as np\n"
        "from frylinks.jit import kernel\n\n"
        "TABLE = np.arange(2_000_000, dtype=np.float64)\n\n\n"
        "@kernel\n"
        "def last():\n"
        "    return TABLE[-1]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("bigglobal")
    with pytest.warns(NumbaWarning, match="Cannot cache"):
        assert module.last() == 1_999_999.0


def test_a_module_calling_another_packages_kernels_covers_their_helpers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A generated step calls the kernels of a plugin's package: its key covers the
    modules those kernels import from (a changed plugin helper gives a new step)."""
    pkg = tmp_path / "plugkernels"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "calls.py").write_text(KERNEL)
    (pkg / "helpers.py").write_text(HELPER.format(value=1.0))
    (tmp_path / "stepmodule.py").write_text("from plugkernels.calls import twice\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("stepmodule")
    assert {"plugkernels.calls", "plugkernels.helpers"} <= kernel_cache._closure("stepmodule")


def test_a_run_leaves_no_numba_cache_beside_the_modules() -> None:
    """Every compiled file is in frylinks' cache folder: ``frylinks cache`` counts what
    it finds beside the modules as left by earlier versions, so this version leaves
    none there (copy_into, inlined into its callers, has no numba cache of its own)."""
    import frylinks
    from frylinks.engine.compose import cache_files

    frylinks.run(Path(__file__).resolve().parents[1] / "cases" / "pendulum.yaml", t_end=0.05)
    assert cache_files()[1] == []
