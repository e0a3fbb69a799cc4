"""The scripts of ``benchmarks/`` (not a package) as modules, for the tests that use
their models: the same definition, and the same kind of model (no new compile)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py``, imported once."""
    key = f"frylinks_bench_{name}"
    module = sys.modules.get(key)
    if module is None:
        spec = importlib.util.spec_from_file_location(key, BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module  # (the script's dataclasses look their module up)
        spec.loader.exec_module(module)
    return module
