"""The interpreted tier: kernels run as Python while a child process compiles them.

The kernels here are made in the test (numba's dispatchers given the tier, with no
cache: never in it), except the one the child compiles, which lives in a module
written to a temporary folder with its cache there.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import njit

from frylinks import interpreted, jit
from frylinks.engine import FROM_ANYWHERE, background
from frylinks.jit import OPTIONS

#: Compiled, not on the interpreted tier of the rest of the suite (tests/conftest.py).
pytestmark = pytest.mark.compiled


@pytest.fixture
def tier() -> Iterator[None]:
    """The interpreted tier on, and off again with nothing recorded after."""
    interpreted.recorded()
    interpreted.interpreting(True)
    try:
        yield
    finally:
        interpreted.interpreting(False)
        interpreted.recorded()


def _kernels() -> tuple[object, object]:
    @njit(**OPTIONS)
    def inner(a: np.ndarray, out: np.ndarray) -> None:
        tmp = jit.scratch(3)
        for i in range(3):
            tmp[i] = 2.0 * a[i]
        jit.cross3(a, tmp, out)
        out[0] += tmp[0]
        jit.alive(a)

    @njit(**OPTIONS)
    def outer(a: np.ndarray, out: np.ndarray) -> float:
        inner(a, out)
        return out[0] + out[1] + out[2]

    return interpreted.install(inner), interpreted.install(outer)


def test_a_kernel_runs_interpreted_and_gives_the_compiled_numbers(tier: None) -> None:
    inner, outer = _kernels()
    a = np.array([0.3, -1.7, 2.9])
    got = np.zeros(3)
    total = outer(a, got)  # type: ignore[operator]
    # nothing compiled: the call ran the Python functions (with the stand-ins of the
    # stack temporary and of alive, which only exist compiled)
    assert not outer.overloads and not inner.overloads  # type: ignore[attr-defined]
    # the call from Python is recorded for the child to compile; the nested one not
    ((kernel, argtypes),) = interpreted.recorded()
    assert kernel is outer and len(argtypes) == 2
    interpreted.interpreting(False)
    want = np.zeros(3)
    assert outer(a, want) == total  # type: ignore[operator]
    assert outer.overloads  # type: ignore[attr-defined]
    np.testing.assert_array_equal(got, want)


def test_where_python_raises_and_compiled_code_gives_nan_the_call_is_compiled(
        tier: None) -> None:
    import math

    @njit(**OPTIONS)
    def root(a: np.ndarray, out: np.ndarray) -> None:
        out[0] += 1.0
        out[1] = math.sqrt(a[0]) / a[1]

    interpreted.install(root)
    out = np.zeros(2)
    root(np.array([4.0, 0.0]), out)  # numpy's division by zero: inf, and no warning
    assert out[1] == np.inf and not root.overloads
    out[:] = 0.0
    root(np.array([-1.0, 1.0]), out)  # math.sqrt raises in Python; numba gives nan
    # the interpreted call's writes were undone, and the compiled call made
    assert root.overloads
    assert out[0] == 1.0 and np.isnan(out[1])


def test_a_kernel_reaching_an_intrinsic_without_a_stand_in_compiles(tier: None) -> None:
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def double(typingctx: object, x: object) -> object:
        def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
            return builder.fadd(args[0], args[0])

        return types.float64(types.float64), codegen

    @njit(**OPTIONS)
    def uses_it(x: float) -> float:
        return double(x)

    interpreted.install(uses_it)
    assert not interpreted.interpretable([uses_it])
    assert uses_it(1.5) == 3.0
    assert uses_it.overloads and not interpreted.recorded()


def test_the_engine_kernels_and_a_generated_step_are_interpretable() -> None:
    import frylinks
    from frylinks.engine import assemble
    from frylinks.engine.compose import compiled_step

    model = assemble(frylinks.load_case(str(Path(__file__).parents[1] / "cases"
                                            / "pendulum.yaml")))
    step = compiled_step(model)
    assert step is not None
    assert interpreted.interpretable([step.module.advance_rk4, step.module.advance_ga])


KERNEL_MODULE = '''
from frylinks.jit import kernel


@kernel
def triple(a, out):
    for i in range(a.shape[0]):
        out[i] = 3.0 * a[i]
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child is forked")
def test_the_child_compiles_what_the_run_ran_interpreted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tier: None) -> None:
    monkeypatch.setenv("FRYLINKS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "tiered_kernels.py").write_text(KERNEL_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("tiered_kernels")
    triple = module.triple
    a, out = np.arange(4.0), np.zeros(4)
    triple(a, out)  # interpreted: nothing in the cache
    np.testing.assert_array_equal(out, 3.0 * a)
    assert not triple.overloads
    pid = background._fork(None)  # as a run's start does
    background.release()  # the run is over: the child is told what to compile
    os.waitpid(pid, 0)
    # the child compiled it into the cache, where a new process (a dispatcher of its
    # own here) finds it
    index = Path(triple._cache._cache_file._index_path)
    assert index.exists()
    assert interpreted.load(triple, tuple(triple.typeof_pyval(x) for x in (a, out)))


#: Shipped cases run here besides the model of every type (tests/test_compiled.py's
#: :func:`every_type_model`, whose kernels are every built-in one but MoorDyn's, whose
#: interpreted runs differ at 1e-9 m: docs/compiled.md): the pendulum (a constraint;
#: generalized-alpha's Newton kernels too), the point absorber's PTO and memory in
#: waves, the moored buoy's catenary lines. Each is a kind the default run compiles
#: anyway (tests/test_compiled.py's DEFAULT_CASES).
CASES = ("pendulum", "point_absorber", "moored_buoy")
#: The cases also run with generalized-alpha here (its Newton kernels): the pendulum,
#: whose generalized-alpha step tests/test_compiled.py compiles anyway (a step of that
#: integrator for any other case would be compiled only for this test).
IMPLICIT = ("pendulum",)
#: Allowed difference, relative to each variable's largest value (or 1 in its SI units):
#: none, but where the catenary's Newton iterations stop at a tolerance (their last
#: iterate's round-off differs), and the radiation's memory follows the motion there;
#: and round-off in the pendulum's generalized-alpha step (2.2e-16 m in components zero
#: in exact arithmetic: numpy's and numba's sums round differently).
TOLERANCE = {"moored_buoy": 1e-9, "pendulum": 1e-14}
#: Steps of the model of every type (those of check_compiled_types).
EVERY_TYPE_RUN = {"t_end": 20 * 1e-3, "dt": 1e-3}

INTERPRETED_RUNS = """
import sys
import frylinks
from frylinks.engine import FROM_ANYWHERE
from frylinks.io.case import load_case
from frylinks.testing import types_system
from tests.test_compiled import every_type_model
for name in sys.argv[3:]:
    for integrator in ("rk4", "generalized_alpha") if name in {implicit} else ("rk4",):
        case = f"{sys.argv[1]}/{name}.yaml"
        solver = load_case(case)[1]
        frylinks.run(case, f"{sys.argv[2]}/{name}-{integrator}.nc",
                     t_end=12 * solver["dt"], overrides={"solver.integrator": integrator})
classes, examples, registry = every_type_model()
types_system(classes, examples, registry=registry).run(
    **{every}, output=f"{sys.argv[2]}/every-type.nc", assembly_tolerance=FROM_ANYWHERE)
"""


def _same(got: Any, ref: Any, what: tuple[str, ...], tolerance: float) -> None:
    for var, values in ref.data_vars.items():
        a, b = np.asarray(got[var].values), np.asarray(values.values)
        if not np.issubdtype(b.dtype, np.floating) or not b.size:
            continue
        scale = max(float(np.nanmax(np.abs(b))), 1.0)
        diff = float(np.nanmax(np.abs(a - b)))
        assert diff <= tolerance * scale, (*what, var, diff)


def test_the_shipped_cases_run_interpreted_give_the_compiled_numbers(tmp_path: Path) -> None:
    """Every kernel run as Python (``NUMBA_DISABLE_JIT=1``, in a process of its own, as
    the interpreted tier runs them) against the compiled step: the model of every type
    (20 steps; to round-off) and :data:`CASES` (12 steps; generalized-alpha too for
    :data:`IMPLICIT`): bit for bit, but where the catenary's Newton iterations stop
    (measured on every case for 60 steps: docs/compiled.md)."""
    import subprocess

    import xarray as xr

    import frylinks
    from frylinks.io.case import load_case
    from frylinks.testing import types_system
    from frylinks.testing.compiled import compiling_everything
    from tests.test_compiled import every_type_model

    root = Path(__file__).resolve().parents[1]
    cases = root / "cases"
    (tmp_path / "out").mkdir()
    script = tmp_path / "interpreted.py"
    script.write_text(INTERPRETED_RUNS.replace("{implicit}", repr(set(IMPLICIT)))
                      .replace("{every}", repr(EVERY_TYPE_RUN)))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1",
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, str(script), str(cases), str(tmp_path / "out"), *CASES],
                   env=env, check=True, capture_output=True, timeout=600, cwd=cases)
    for name in CASES:
        for integrator in ("rk4", "generalized_alpha") if name in IMPLICIT else ("rk4",):
            solver = load_case(cases / f"{name}.yaml")[1]
            ref = frylinks.run(cases / f"{name}.yaml", t_end=12 * solver["dt"],
                               overrides={"solver.integrator": integrator})
            got = xr.open_dataset(tmp_path / "out" / f"{name}-{integrator}.nc")
            _same(got, ref, (name, integrator), TOLERANCE.get(name, 0.0))
    classes, examples, registry = every_type_model()
    with compiling_everything():
        ref = types_system(classes, examples, registry=registry).run(
            **EVERY_TYPE_RUN, assembly_tolerance=FROM_ANYWHERE)
    # (to round-off: measured 1.8e-15 deg in body_attitude, the rest bit for bit; numpy's
    # and numba's elementary functions may differ in the last bit)
    _same(xr.open_dataset(tmp_path / "out" / "every-type.nc"), ref, ("every type",), 1e-14)


def test_the_compile_child_outlives_a_ctrl_c_of_the_run(tmp_path: Path) -> None:
    """The terminal's Ctrl-C (SIGINT to the run's process group) and its closing
    (SIGHUP) stop the run, not the child finishing the cache."""
    import signal

    seen = tmp_path / "seen"

    def work() -> None:
        seen.write_text(" ".join(str(signal.getsignal(s) == signal.SIG_IGN)
                                 for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)))

    pid = background._fork(work)
    background.release()
    os.waitpid(pid, 0)
    assert seen.read_text() == "True True False"
