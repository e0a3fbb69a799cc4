"""What ``frylinks.jit.kernel`` promises: a kernel counts no references (numba's NRT is
off), so a kernel cannot allocate nor return an array; ``kernel(allocates=True)`` can.

The kernels are written into a module of their own, compiled afresh (an empty cache
folder) so that their machine code can be read back."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

#: Compiled, not on the interpreted tier of the rest of the suite (tests/conftest.py).
pytestmark = pytest.mark.compiled

KERNELS = '''
from collections import namedtuple

import numpy as np

from frylinks.jit import copy_into, helper, kernel, scratch, scratch2

Frames = namedtuple("Frames", "R p")


@helper
def turn(R, v, out):
    for j in range(3):
        out[j] = R[j, 0] * v[0] + R[j, 1] * v[1] + R[j, 2] * v[2]


@kernel
def turned(frames, data, out):
    """Views in a loop handed to an inlined helper, stack room, a tuple argument."""
    scale, offset = data
    v = scratch(3)
    M = scratch2(2, 3)
    for i in range(len(frames.p)):
        R = frames.R[i]
        turn(R, frames.p[i], v)
        copy_into(M[0], v)
        for j in range(3):
            M[1, j] = scale[i] * M[0, j] + offset[i]
        copy_into(out[i], M[1])


@kernel
def returns_its_argument(a):
    return a


@kernel
def allocates_without_saying(n, out):
    a = np.zeros(n)
    out[0] = a.sum()


@kernel(allocates=True)
def made(n):
    return np.arange(float(n))


@kernel
def uses_made(n, out):
    """A kernel calling one that allocates (and frees what it made, returning a sum)."""
    out[0] = total(n)


@kernel(allocates=True)
def total(n):
    return np.arange(float(n)).sum()
'''


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    root = tmp_path_factory.mktemp("jit")
    (root / "jitkernels.py").write_text(KERNELS)
    mp = pytest.MonkeyPatch()
    mp.setenv("FRYLINKS_CACHE_DIR", str(root / "cache"))
    mp.syspath_prepend(str(root))
    try:
        yield importlib.import_module("jitkernels")
    finally:
        sys.modules.pop("jitkernels", None)
        mp.undo()


def _body(dispatcher: object, name: str) -> str:
    """The optimised LLVM IR of ``name``'s own function (not its Python wrapper)."""
    ir = dispatcher.inspect_llvm(dispatcher.signatures[0])  # type: ignore[attr-defined]
    bodies = [b for b in re.split(r"\ndefine ", ir)
              if name in b[:300].split("(")[0] and "cpython" not in b[:300].split("(")[0]
              and "cfunc" not in b[:300].split("(")[0]]
    assert bodies, f"no function {name} in the IR"
    return bodies[0]


def test_a_kernel_counts_no_references(kernels: ModuleType) -> None:
    R = np.stack([np.eye(3), np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])])
    frames = kernels.Frames(R, np.array([[1.0, 2, 3], [1, 0, 0]]))
    out = np.zeros((2, 3))
    kernels.turned(frames, (np.array([2.0, 3.0]), np.array([0.5, 0.0])), out)
    assert out.tolist() == [[2.5, 4.5, 6.5], [0.0, 3.0, 0.0]]
    # (the check that fails if kernel stops turning numba's counting off: with it on,
    # numba's pruning removes this small kernel's counts too, so its machine code alone
    # would not tell)
    assert kernels.turned.targetoptions["_nrt"] is False
    assert kernels.made.targetoptions["_nrt"] is True
    body = _body(kernels.turned, "turned")
    assert "@NRT_incref(" not in body and "@NRT_decref(" not in body


def test_a_kernel_returning_an_array_is_refused(kernels: ModuleType) -> None:
    from frylinks.jit import KernelError

    with pytest.raises(KernelError, match="returns_its_argument returns an array"):
        kernels.returns_its_argument(np.zeros(3))


def test_a_kernel_that_allocates_without_saying_does_not_compile(kernels: ModuleType
                                                                  ) -> None:
    from numba.core.errors import NumbaError

    with pytest.raises(NumbaError):
        kernels.allocates_without_saying(3, np.zeros(1))


def test_an_allocating_kernel_allocates_and_serves_a_kernel(kernels: ModuleType) -> None:
    assert kernels.made(4).tolist() == [0.0, 1.0, 2.0, 3.0]
    out = np.zeros(1)
    kernels.uses_made(5, out)
    assert out[0] == 10.0


def test_a_kernel_is_written_into_its_callers() -> None:
    """A kernel's function is marked ``alwaysinline`` where its callers link it, and a
    compiled caller keeps no call of it, even of one LLVM alone would keep a call (the
    mass inverse: checked with the mark off): the arrays are not copied into a call."""
    from numba import njit

    from frylinks.engine import assemble
    from frylinks.engine import kernels as K
    from frylinks.engine.step_data import model_data
    from frylinks.io.case import load_case
    from frylinks.kinematics import body_states_kernel

    case = Path(__file__).resolve().parents[1] / "cases" / "point_absorber.yaml"
    model = assemble(load_case(case)[0])
    core, s = model_data(model)[0], model.initial
    bs = body_states_kernel(s.x, s.q, s.v, s.w)
    room, fresh = K.solve_room(core, 1), K.mass_inverse(core, bs, 1)

    @njit
    def caller(core, bs, room):  # type: ignore[no-untyped-def]
        K.forget(room)
        K.mass_inverse_into(core, bs, 1, room)

    caller(core, bs, room)
    np.testing.assert_array_equal(room.blocks, fresh.blocks)
    for cres in K.mass_inverse_into.overloads.values():  # (each signature compiled)
        linked = cres.library._get_module_for_linking()
        attributes = linked.get_function(cres.fndesc.mangled_name).attributes
        assert any(b"alwaysinline" in a for a in attributes)
    ir = caller.inspect_llvm(caller.signatures[0])
    assert not re.search(r"call [^\n]*@_ZN\w*17mass_inverse_into", ir)


def test_the_stack_room_has_its_shape() -> None:
    """scratch and scratch2 are arrays of the shape asked (C order), in a kernel with
    counts or without."""
    from numba import njit

    from frylinks.jit import scratch, scratch2

    def shapes(out: np.ndarray) -> None:
        a = scratch(5)
        b = scratch2(2, 3)
        for i in range(5):
            a[i] = i
        for i in range(2):
            for j in range(3):
                b[i, j] = 10 * i + j
        out[0] = a.shape[0] + 100 * b.shape[0] + 1000 * b.shape[1]
        out[1] = a[4] + b[1, 2]
        out[2] = b.strides[0] / b.strides[1]

    for nrt in (True, False):
        out = np.zeros(3)
        njit(_nrt=nrt)(shapes)(out)
        assert out.tolist() == [3205.0, 16.0, 3.0]


ENGINE = """
import re
from frylinks.engine import assemble, kernels as K
from frylinks.engine.step_data import model_data
from frylinks.io.case import load_case
from frylinks.kinematics import body_states_kernel

model = assemble(load_case("{case}")[0])
s = model.initial
core = model_data(model)[0]
bs = body_states_kernel(s.x, s.q, s.v, s.w)
nb = len(s.x)


def increfs(dispatcher, name):
    ir = dispatcher.inspect_llvm(dispatcher.signatures[0])
    heads = [b for b in re.split(r"\\ndefine ", ir)
             if name in b[:300].split("(")[0] and "cpython" not in b[:300].split("(")[0]
             and "cfunc" not in b[:300].split("(")[0]]
    return heads[0].count("@NRT_incref(")


room = K.solve_room(core, nb)
K.mass_inverse_into(core, bs, nb, room)
print(increfs(K.mass_inverse_into, "mass_inverse_into"))
"""


def test_the_engine_kernels_count_no_references(tmp_path: Path) -> None:
    """The mass matrix's inverse of the point absorber (a body with added mass), as the
    step calls it, compiled afresh: compiled without counting, no reference counted in its
    machine code. (Compiled with numba's counting, as every kernel was, it counted 55
    arrays on entry in the point absorber's step, November 2026, numba 0.68; compiled
    alone here with counting, numba's pruning removes them, so the machine code of the
    counting version is not compared: the option is, in the test above.)"""
    import os
    import subprocess

    case = Path(__file__).parents[1] / "cases" / "point_absorber.yaml"
    env = {**os.environ, "FRYLINKS_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", ENGINE.format(case=case)],
                         capture_output=True, text=True, env=env, check=True, timeout=600)
    assert int(out.stdout) == 0
