"""The model's compiled step: the core kernels and each block's type kernels, composed.

A model's step is generated as Python source (straight-line calls, one section per
block of links, forces and signals, each type's kernels imported by name), written to
the cache folder under a name that hashes everything it depends on (the source of
every module whose kernels it calls, frylinks' and numba's versions), and compiled by
numba, with its machine code kept as a kernel's (:mod:`frylinks.kernel_cache`). A new
kind compiles in a child process while the run sets up (:mod:`.background`). The
second run of the same kind of model (same types, whatever their number, parameters or
bodies) compiles nothing.

The cache folder is ``$FRYLINKS_CACHE_DIR``, else ``$XDG_CACHE_HOME/frylinks``, else
``~/.cache/frylinks``; ``frylinks cache`` shows it and ``frylinks cache --clear``
empties it (always safe: what is missing is compiled again).

A model runs compiled when every type it uses has kernels (``compiled()`` of each
block returns None) and its constraint system is small enough for the dense solve
(:data:`DENSE_LIMIT` rows); otherwise it runs on the Python path of
:mod:`.evaluate`, and :func:`compiled_step` says why.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np

from frylinks import interpreted
from frylinks.engine import background
from frylinks.engine import kernels as K
from frylinks.engine.model import Model, State
from frylinks.engine.sampling import NEVER, extra_size, python_outputs, sample_room
from frylinks.engine.step_data import model_data
from frylinks.engine.step_source import generate, not_compiled
from frylinks.errors import SimulationError
from frylinks.kernel_cache import cache_dir, on_disk, source_hash
from frylinks.version import __version__

Array = np.ndarray



def cache_files() -> tuple[dict[str, list[Path]], list[Path]]:
    """The files in :func:`cache_dir` by folder (``steps``: the generated steps'
    sources; ``kernels``: the machine code of kernels and steps,
    :mod:`frylinks.kernel_cache`; a plugin keeps its own in a folder of its own, e.g.
    ``radiation`` for the marine plugin's fitted state spaces), and numba's cache files
    that versions before it left beside the modules of frylinks and its plugins."""
    root = cache_dir()
    groups = {d.name: sorted(p for p in d.rglob("*") if p.is_file())
              for d in sorted(root.iterdir()) if d.is_dir()} if root.exists() else {}
    roots = {Path(__file__).resolve().parent.parent}
    from frylinks.model.registry import Registry

    for info in Registry().all():
        module = sys.modules.get(info.cls.__module__)
        path = getattr(module, "__file__", None)
        if path:
            roots.add(Path(path).resolve().parent)
    kernels = sorted({p for root in roots for pattern in ("*.nbi", "*.nbc")
                      for p in root.rglob(pattern)})
    return groups, kernels


# ------------------------------------------------------------------- loading, cache

_LOADED: dict[str, ModuleType] = {}


def _fingerprint(modules: set[str]) -> str:
    """What a step's code depends on besides its source: the versions, and the sources
    of the modules whose kernels it calls with all they import (the kernels' own key,
    :func:`frylinks.kernel_cache.source_hash`)."""
    h = hashlib.sha256()
    h.update(f"{__version__} {numba.__version__} {np.__version__} {sys.version}".encode())
    for name in sorted(modules):
        if name not in sys.modules:
            importlib.import_module(name)
        h.update(f"{name} {source_hash(name)}".encode())
    return h.hexdigest()


def load_step(source: str, modules: set[str]) -> ModuleType:
    """The generated module for ``source``: from the cache folder, written if new."""
    h = hashlib.sha256(source.encode())
    h.update(_fingerprint(modules).encode())
    key = h.hexdigest()[:24]
    if key in _LOADED:
        return _LOADED[key]
    folder = cache_dir() / "steps"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step_{key}.py"
    if not path.exists():  # never rewritten: numba keys its cache on the file's stamp
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(source)
        os.replace(tmp, path)
    name = f"frylinks_step_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED[key] = module
    return module


class CompiledStep:
    """A model's compiled functions with its data (see the module doc).

    :meth:`outputs` of a sample is a report of no step by the entry of the run's
    integrator (``stepper``: the generalized-alpha stepper using this step, if any), so
    a run compiles one entry; an advance may report too, and the report is kept."""

    def __init__(self, model: Model,
                 child: tuple[str, Callable[[CompiledStep], None]] | None = None) -> None:
        self.model = model
        source, modules = generate(model)
        self.source = source
        self.module = load_step(source, modules)
        self.data = model_data(model)
        self.stepper: Any = None
        #: The process compiling this step's entry, if any (:mod:`.background`).
        self.child: int | None = None
        #: The lock of another run's child compiling this step (:mod:`.background`).
        self.borrowed: str | None = None
        #: The run goes on interpreted while the child compiles (:mod:`.background`).
        self.interpret = False
        #: A compile waiting for a free slot: (entry, first call, lock path, lock file).
        self.queued: tuple[str, Callable[[CompiledStep], None], str, int] | None = None
        #: When a wait for the compile began and was last said (monotonic seconds).
        self.waited: tuple[float, float] | None = None
        self._report: tuple[Array, Sequence[Array], int | None] | None = None
        self._no_out = self.out_arrays()  # (an advance without a report writes none)
        #: A force type's outputs are made in Python (it has no ``outputs`` kernel)
        #: from memory the step updates: a sample's outputs need the memory of its
        #: step, so a call covers one sample (:mod:`.sampling`).
        self.outputs_read_memory = any(model.force_blocks[j].kind.memory
                                       for j in python_outputs(model))
        #: Some type keeps memory from one evaluation to the next (checkpoints save it).
        self.has_memory = (any(blk.kind.memory for blk in model.force_blocks)
                           or any(getattr(blk.kind, "memory", ()) for blk in model.link_blocks))
        if child is not None:  # (before anything compiles here)
            background.start(self, *child)
        self.build()

    def entry(self, name: str) -> Any:
        """The step's function ``name`` (``advance_rk4``, ``advance_ga``): run
        interpreted while a child compiles it, else compiled, once the child compiling
        it, if any, has put it in the cache (:mod:`.background`).

        The entries take the room (the arrays the model's blocks write: ``make_room``)
        as a plain tuple, converted at each call (about 20 us for the point absorber; a
        call covers many steps): a structure made once per model would be a type of the
        model's, compiled anew for each kind (docs/compiled.md)."""
        fn = getattr(self.module, name)
        if background.compiling(self, name):
            def compiled(plain: Any, *args: Any) -> Any:  # (the interpreter raised)
                self.interpret = False
                return self.entry(name)(*args)

            return interpreted.guarded(interpreted.python_function(fn), compiled)
        background.join(self, name)
        if not on_disk(fn):  # (no child compiles it: compiled here, one process at a time)
            fn = background.compiled_here(self, name, fn)
        return fn

    def build(self) -> None:
        """The arrays the step writes, which advance_rk4 takes as they are."""
        model = self.model
        self.room = self.module.make_room(self.data, model.nb_bodies, len(model.initial.z))

    def out_arrays(self) -> tuple[Array, ...]:
        """Room for a report: links (nl, 25), forces (nf, 6), accelerations (nb, 6),
        multipliers, state rates, the force types' outputs
        (:func:`.sampling.reported_outputs`)."""
        m = self.model
        return (np.zeros((len(m.link_names), 25)), np.zeros((len(m.force_names), 6)),
                np.zeros((m.nb_bodies, 6)), np.zeros(m.nb_rows), np.zeros(len(m.initial.z)),
                np.zeros(extra_size(m)))

    def keep_report(self, s: State, arrays: Sequence[Array], i: int | None = None) -> None:
        """Keep the report ``arrays`` (their sample ``i`` if given: a leading axis)
        made at ``s`` for :meth:`outputs`."""
        self._report = (s.x, arrays, i)

    # -- what the integrators call

    def advance_rk4(self, s: State, k0: int, k1: int, dt: float, t0: float,
                    report: int = K.REPORT_NONE, every: int = NEVER
                    ) -> tuple[Array, SimulationError | None]:
        """rk4 steps ``k0 + 1 .. k1`` from ``s`` (in place), with the outputs
        ``report`` asks for (``K.REPORT_*``). Returns the states after the steps that
        are multiples of ``every`` (rows of :func:`.sampling.sample_room`) and the
        SimulationError of a divergence (None if none), with ``s`` at the last accepted
        step."""
        nb = self.model.nb_bodies
        y = s.pack()
        arrays = self.out_arrays() if report == K.REPORT_END else self._no_out
        kept = sample_room(self.model, kept_count(k0, k1, every))
        status, k, a, b, row = self.entry("advance_rk4")(
            self.room, y, s.angle_ref, float(s.t), float(t0), int(k0), int(k1), float(dt), nb,
            report, *arrays, int(every), kept)
        s.set(s.unpacked(y, float(t0 + k * dt) if k > k0 else s.t))
        if report == K.REPORT_END and status == K.OK:
            self.keep_report(s, arrays)
        error = None if status == K.OK else status_error(self.model, status, a, b, row)
        return kept[:kept_count(k0, k, every)], error

    def outputs(self, s: State) -> tuple[Array, Array, Array, Array, Array]:
        """At ``s``: accelerations ``(nb, 6)``, the links' outputs ``(nl, 25)`` and the
        forces' ``(nf, 6)`` (layout in :mod:`.kernels`), the multipliers and the force
        types' outputs (:func:`.sampling.reported_outputs`): those the last advance
        reported when it ended at ``s``, else a report of no step."""
        if self._report is None or self._report[0] is not s.x:
            if self.stepper is not None:
                self.stepper.report(s)
            else:
                _, error = self.advance_rk4(s, 0, 0, 0.0, s.t, K.REPORT_END)
                if error is not None:
                    raise error
        assert self._report is not None
        _, arrays, i = self._report
        out_links, out_forces, udot, lam, _, extra = (arrays if i is None
                                                      else (a[i] for a in arrays))
        return udot, out_links, out_forces, lam, extra


def _arrays(s: State) -> tuple[Array, ...]:
    """``x, q, v, w, z`` of a state as contiguous float arrays."""
    return tuple(np.ascontiguousarray(a, dtype=float) for a in (s.x, s.q, s.v, s.w, s.z))


def kept_count(k0: int, k1: int, every: int) -> int:
    """How many of the steps ``k0 + 1 .. k1`` are multiples of ``every``."""
    return k1 // every - k0 // every


def raise_status(model: Model, status: int, a: float, b: float, row: int) -> None:
    """Raise :func:`status_error`."""
    raise status_error(model, status, a, b, row)


def status_error(model: Model, status: int, a: float, b: float, row: int
                 ) -> SimulationError:
    """The :class:`SimulationError` of a compiled step's status (the Python path's
    messages, word for word); a force type that recorded why it failed says so first."""
    for fblk in model.force_blocks:
        why = fblk.kind.failure()
        if why:
            return SimulationError(why)
    if status == K.NON_FINITE:
        return SimulationError("non-finite body state")
    if status == K.RUNAWAY:
        return SimulationError(
            f"the motion runs away (a body {a:.3g} m from the origin at {b:.3g} m/s): the "
            "time step is far too large for the integrator, or the model is unstable")
    if status == K.VIOLATED:
        link = model.link_names[model.row_link[row]] if row >= 0 else "?"
        return SimulationError(
            f"constraint violation {a:.3g} after a step (worst link '{link}'); the step is "
            "too large for this model (reduce dt)")
    if status == K.SINGULAR:
        return SimulationError("constraint system is singular: the matrix G M^-1 G^T is not "
                              "positive definite")
    return SimulationError(f"compiled step failed with status {status}")


#: Set by :func:`python_path`: models assembled meanwhile run on the Python path.
_FORCE_PYTHON = [False]


@contextmanager
def python_path() -> Iterator[None]:
    """Within this block, models run on the engine's Python path (as they do with the
    environment variable ``FRYLINKS_PYTHON=1``): the reference the compiled step is
    checked against (:func:`frylinks.testing.check_compiled`)."""
    before = _FORCE_PYTHON[0]
    _FORCE_PYTHON[0] = True
    try:
        yield
    finally:
        _FORCE_PYTHON[0] = before


def compiled_step(model: Model,
                  child: tuple[str, Callable[[CompiledStep], None]] | None = None
                  ) -> CompiledStep | None:
    """The model's compiled step (built once per model), or None when it runs on the
    Python path; the reason is kept in ``model.python_reason``. ``child``: the entry
    of the run's integrator and the call that compiles it
    (:func:`frylinks.engine.schemes.first_call`), which a child process makes meanwhile
    if the entry is not cached (:mod:`.background`)."""
    if hasattr(model, "_compiled"):
        cached: CompiledStep | None = model._compiled
        return cached
    why: tuple[str, bool] | None = None
    if os.environ.get("FRYLINKS_PYTHON") == "1":
        why = ("FRYLINKS_PYTHON=1 asks for the Python path", False)
    elif _FORCE_PYTHON[0]:
        why = ("frylinks.engine.compose.python_path() asks for the Python path", False)
    why = why or not_compiled(model)
    step = None if why else CompiledStep(model, child)
    model._compiled = step  # type: ignore[attr-defined]
    model.python_reason = why  # type: ignore[attr-defined]  # (text, a plugin's doing)
    return step
