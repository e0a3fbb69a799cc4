"""Fixtures shared by the whole suite.

**The interpreted tier.** The suite runs with ``FRYLINKS_INTERPRET=1``
(:func:`frylinks.interpreted.forced`) unless the environment says otherwise: a kernel
not in the compiled cache runs as Python and nothing is compiled for a run, so a new
machine's first ``pytest`` (an empty cache) does not compile the step of each of the
suite's dozens of kinds of model, which took longer than running them. Tests marked
``compiled`` run compiled (their own kinds compile): the compiled step against the
Python path on every shipped case, one model holding every registered type (a kernel
numba cannot compile fails there), the background compile, the tiers, the benchmarks.
``FRYLINKS_INTERPRET=0 python -m pytest`` runs everything compiled.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("FRYLINKS_INTERPRET", "1")

#: Run first (their file goes to the first worker): the compiled run of the pendulum
#: compiles the engine's own kernels, which every model's step calls. Until they are in
#: the cache, a test on the interpreted tier runs them as Python too, several times
#: slower; on a new machine the first minutes of the suite did.
FIRST = ("tests/test_compiled.py::test_every_case_runs_compiled_and_equals_the_python_path"
         "[pendulum]")
#: Run after the rest: their models are kinds tests/test_compiled.py compiles (the model of
#: every type, the point absorber): started beside it on the other worker, they waited for
#: its compile (a step is compiled by one process at a time), the worker idle meanwhile.
LATE = ("tests/test_interpreted.py", "tests/test_benchmarks.py")
#: Run last: a child process compiles there a step calling the engine's kernels, which
#: it would compile too before they are in the cache.
LAST = ("tests/test_background.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """:data:`FIRST`'s file first, :data:`FIRST` first in it, :data:`LATE` then
    :data:`LAST` last (pytest-xdist hands out whole files in this order:
    ``--no-loadscope-reorder`` in pyproject.toml's addopts); the rest as collected."""
    first_file = FIRST.split("::")[0]

    def rank(item: pytest.Item) -> tuple[int, bool]:
        path = item.nodeid.split("::")[0]
        group = (0 if path == first_file else 3 if path in LAST else 2 if path in LATE
                 else 1)
        return (group, item.nodeid != FIRST)

    items.sort(key=rank)


@pytest.fixture(autouse=True)
def _compiled_when_marked(request: pytest.FixtureRequest,
                          monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test marked ``compiled`` runs compiled (module doc); its subprocesses too."""
    if request.node.get_closest_marker("compiled") is not None:
        monkeypatch.setenv("FRYLINKS_INTERPRET", "0")
    yield


@pytest.fixture
def record_property(record_property: Callable[[str, Any], None]) -> Callable[[str, Any], None]:
    """pytest's ``record_property`` taking numpy scalars too: pytest-xdist workers send
    recorded values to the controller, which cannot serialise numpy types."""

    def record(name: str, value: Any) -> None:
        record_property(name, value.item() if isinstance(value, np.generic) else value)

    return record
