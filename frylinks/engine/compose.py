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
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np

from frylinks import interpreted
from frylinks.engine import background, newton
from frylinks.engine import kernels as K
from frylinks.engine.handle import Handles
from frylinks.engine.model import Model, State
from frylinks.engine.sampling import NEVER, extra_size, reported_outputs, sample_room
from frylinks.errors import SimulationError
from frylinks.forces import output_width
from frylinks.kernel_cache import cache_dir, source_hash
from frylinks.links import DOFS
from frylinks.version import __version__

Array = np.ndarray

#: Above this many constraint rows the model keeps the Python path and its sparse
#: factorisation (a chain of hundreds of rods).
DENSE_LIMIT = 120
#: Status of a generalized-alpha step Newton could not solve (halved, then an error).
NOT_CONVERGED = 6
#: As :data:`frylinks.engine.evaluate.DIVERGED`.
DIVERGED = 1e-2
#: As :data:`frylinks.engine.integrators.MAX_DISTANCE` and ``MAX_SPEED``.
MAX_DISTANCE = 1.0e12
MAX_SPEED = 3.0e8


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


# ------------------------------------------------------------------ the model's data

def core_data(model: Model) -> tuple[Any, ...]:
    """The core tuple of :mod:`.kernels`."""
    nb = model.nb_bodies
    rows: list[Array] = []
    cols: list[Array] = []
    for blk in model.link_blocks:
        n, nc = len(blk.names), blk.kind.nb_constraints
        r = blk.row_start + np.repeat(np.arange(n * nc), 12)
        c = np.concatenate([6 * blk.master.body[:, None] + np.arange(6),
                            6 * blk.slave.body[:, None] + np.arange(6)], axis=1)
        c = np.broadcast_to(c[:, None, :], (n, nc, 12)).reshape(-1)
        rows.append(r)
        cols.append(np.where(c // 6 == nb, -1, c))  # ground's columns dropped
    cat = (lambda a: np.concatenate(a).astype(np.int64) if a  # noqa: E731
           else np.zeros(0, dtype=np.int64))
    added = model.added_mass if model.added_mass is not None else np.zeros((nb, 6, 6))
    return (np.asarray(model.mass, dtype=float), np.ascontiguousarray(model.inertia),
            np.ascontiguousarray(model.inertia_inv), np.asarray(model.gravity, dtype=float),
            np.ascontiguousarray(added), model.added_mass is not None, int(model.nb_rows),
            float(model.length_scale), int(model.signals.nb_slots), cat(rows), cat(cols),
            np.asarray(model.row_link, dtype=np.int64), *mass_coupling(model))


def mass_coupling(model: Model) -> tuple[Array, Array, Array]:
    """The added mass between bodies as the kernels take it: the coupled bodies
    ``(ng,)``, each body's place among them ``(nb + 1,)`` (-1: none) and the
    ``(6 ng, 6 ng)`` matrix (:mod:`.kernels`)."""
    slot = np.full(model.nb_bodies + 1, -1, dtype=np.int64)
    if model.mass_coupling is None:
        return np.zeros(0, dtype=np.int64), slot, np.zeros((0, 0))
    coupled, C = model.mass_coupling
    slot[coupled] = np.arange(len(coupled))
    return coupled, slot, C


def _nodes(ns: Any) -> tuple[Array, ...]:
    return tuple(np.ascontiguousarray(a) for a in ns.arrays())


def model_data(model: Model) -> tuple[Any, ...]:
    """Everything the generated step reads: ``(core, links, forces, signals)``."""
    links = tuple(
        (*_nodes(blk.master), *_nodes(blk.slave), blk.index.astype(np.int64),
         int(blk.row_start), bool(blk.has_spring),
         np.ascontiguousarray(blk.K, dtype=float).reshape(len(blk.names), blk.kind.nb_free,
                                                          blk.kind.nb_free),
         np.ascontiguousarray(blk.B, dtype=float).reshape(len(blk.names), blk.kind.nb_free,
                                                          blk.kind.nb_free),
         np.ascontiguousarray(blk.r0, dtype=float).reshape(len(blk.names), blk.kind.nb_free),
         blk.kind._data(),
         np.array([DOFS.index(d) for d in blk.kind.free_dofs], dtype=np.int64))
        for blk in model.link_blocks)
    offsets = {r.block: r.offset for r in reported_outputs(model)}
    forces = tuple(
        (tuple(_nodes(att) for att in blk.attachments), int(blk.states.start),
         int(blk.states.stop), blk.kind._data(), blk.index.astype(np.int64),
         offsets.get(j, -1))
        for j, blk in enumerate(model.force_blocks))
    signals = tuple((slots.astype(np.int64), kind._data())
                    for kind, slots in model.signals._blocks)
    return (core_data(model), links, forces, signals)


# ----------------------------------------------------------------- why not compiled

def not_compiled(model: Model) -> tuple[str, bool] | None:
    """Why ``model`` cannot run compiled, and whether a type of a plugin is the cause (a
    type without kernels, a Python callable) rather than the engine (point masses, a
    large sparse model); None when it can."""
    for blk in model.link_blocks:
        why = blk.kind.compiled()
        if why:
            return why, True
    for fblk in model.force_blocks:
        why = fblk.kind.compiled()
        if why:
            return why, True
    for kind, _ in model.signals._blocks:
        why = kind.compiled()
        if why:
            return why, True
    for fblk in model.force_blocks:
        if fblk.has_point_masses:
            return (f"force type '{fblk.kind.name}' may carry point masses, which only the "
                    "Python path couples to the bodies", False)
    if model.nb_rows > DENSE_LIMIT:
        return (f"{model.nb_rows} constraint rows: the sparse factorisation of the Python "
                f"path serves models above {DENSE_LIMIT}", False)
    return None


# ------------------------------------------------------------------------ generation

def _ref(fn: Any) -> tuple[str, str]:
    """``(module, name)`` under which a kernel is importable."""
    py = getattr(fn, "py_func", fn)
    module, name = py.__module__, py.__name__
    if getattr(sys.modules.get(module), name, None) is not fn:
        raise TypeError(f"kernel {module}.{name} is not importable by that name: define it "
                        "at module level")
    return module, name


class _Source:
    """Imports and lines of a generated module."""

    def __init__(self) -> None:
        self.imports: dict[tuple[str, str], str] = {}
        self.modules: set[str] = set()

    def alias(self, fn: Any) -> str:
        key = _ref(fn)
        if key not in self.imports:
            self.imports[key] = f"k{len(self.imports)}_{key[1]}"
            self.modules.add(key[0])
        return self.imports[key]


def _indent(text: str, spaces: int) -> str:
    pad = " " * spaces
    return "\n".join(pad + line if line else line for line in text.splitlines())


def _signals_text(model: Model, src: _Source) -> tuple[str, str]:
    """Room, and the bank's values and derivatives ``s0, s1, s2`` at ``t``."""
    room = [f"s{o} = np.zeros(C0[8])" for o in range(3)]
    lines = [f"s{o}[:] = 0.0" for o in range(3)]
    for j, (kind, _) in enumerate(model.signals._blocks):
        fn = src.alias(type(kind).kernel)
        room += [f"S{j} = D[3][{j}]", f"sig{j} = np.zeros(len(S{j}[0]))"]
        for o in range(3):
            lines += [f"sig{j}[:] = 0.0",
                      f"{fn}(S{j}[1], t, {o}, sig{j})",
                      f"K.put(s{o}, S{j}[0], sig{j})"]
    return "\n".join(room), "\n".join(lines)


def _links_text(model: Model, src: _Source) -> tuple[str, str, str, str]:
    """Room, what each entry makes before its loop, every link block (its rows into
    ``values, velocity, acceleration, row_tau``; with ``positions`` its residual (and,
    with ``angles``, the unwrapped angles into ``angle_out``); with ``springs`` its
    spring-damper into ``f``; with ``report`` its outputs), and the ``accept`` of the
    blocks whose type has one (after the blocks, at an accepted state: ``bs`` made)."""
    room: list[str] = []
    made: list[str] = []
    out: list[str] = []
    accepts: list[str] = []
    # a block's relative kinematics (about 20 arrays) are made once per call of an
    # entry, before its loop, for a model with few link blocks: made at each
    # evaluation they cost the spring-damper benchmark a fifth of its step. Held across
    # the loop, they lengthen LLVM's work on the loop by about 7 % a block and more
    # with many blocks (every axis link type, 7 blocks: 26 -> 33 s), where they are
    # made at each evaluation instead
    hoist = len(model.link_blocks) <= HOIST_LINK_BLOCKS
    for k, blk in enumerate(model.link_blocks):
        kk = blk.kind.kernels
        assert kk is not None
        C, R, Q, E, U, X = (src.alias(kk.constraints), src.alias(kk.residual),
                            src.alias(kk.coordinates), src.alias(kk.free_basis),
                            src.alias(kk.unwrap_angle), src.alias(kk.displacement))
        # sizes: the block's links counted at run time, so that models of one kind
        # (whatever their number of links) share their step; rows and free DOFs per
        # link are the type's
        nc, nf = blk.kind.nb_constraints, blk.kind.nb_free
        n = f"n{k}"
        room += [f"L{k} = D[1][{k}]",
                 f"n{k} = len(L{k}[0])",
                 f"ar{k} = np.zeros({n})",
                 f"new{k} = np.zeros({n})",
                 f"rows{k} = np.zeros(({n}, {nc}, 6))",
                 f"vel{k} = np.zeros(({n}, {nc}))",
                 f"acc{k} = np.zeros(({n}, {nc}))",
                 f"jac{k} = np.zeros(({n}, {nc}, 12))",
                 f"res{k} = np.zeros(({n}, {nc}))",
                 f"disp{k} = np.zeros(({n}, 6))"]
        (made if hoist else out).append(f"rel{k} = relative_room({n})")
        out += [f"relative_into(bs, L{k}[0], L{k}[1], L{k}[2], L{k}[3], L{k}[4], L{k}[5], "
                f"L{k}[6], L{k}[7], not positions, rel{k})",
                f"K.take(angle_ref, L{k}[8], ar{k})",
                "if positions and angles:",
                f"    new{k}[:] = 0.0",
                f"    if {U}(L{k}[14], rel{k}, ar{k}, new{k}):",
                f"        K.put(angle_out, L{k}[8], new{k})",
                f"rows{k}[:] = 0.0",
                f"vel{k}[:] = 0.0",
                f"acc{k}[:] = 0.0",
                f"{C}(L{k}[14], rel{k}, t, s0, s1, s2, ar{k}, rows{k}, vel{k}, acc{k})",
                f"jacobian_rows_into(rel{k}, rows{k}, jac{k})",
                f"K.add_rows(values, velocity, acceleration, row_tau, rows{k}, vel{k}, acc{k}, "
                f"rel{k}, L{k}[9], jac{k})",
                "if positions:",
                f"    res{k}[:] = 0.0",
                f"    {R}(L{k}[14], rel{k}, t, s0, ar{k}, res{k})",
                f"    K.put_rows(residual, L{k}[9], res{k})",
                "if report:",
                f"    disp{k}[:] = 0.0",
                f"    {X}(L{k}[14], rel{k}, t, s0, ar{k}, disp{k})",
                f"    K.report_link(out_links, L{k}[8], disp{k}, rel{k}.tau)"]
        if nf:  # (run-time flag: a spring added or removed recompiles nothing)
            room += [f"gpos{k} = np.zeros(({n}, {nf}))",
                     f"gvel{k} = np.zeros(({n}, {nf}))",
                     f"E{k} = np.zeros(({n}, 6, {nf}))",
                     f"Q{k} = np.zeros(({n}, {nf}))",
                     f"mu{k} = np.zeros(({n}, 6))",
                     f"gen{k} = np.zeros(({n}, 12))"]
            out += [f"if springs and L{k}[10]:",
                    f"    gpos{k}[:] = 0.0",
                    f"    gvel{k}[:] = 0.0",
                    f"    {Q}(L{k}[14], rel{k}, t, s0, ar{k}, gpos{k}, gvel{k})",
                    f"    E{k}[:] = 0.0",
                    f"    {E}(L{k}[14], rel{k}, E{k})",
                    f"    K.link_spring(f, rel{k}, L{k}[11], L{k}[12], L{k}[13], gpos{k}, "
                    f"gvel{k}, E{k}, L{k}[0], L{k}[4], Q{k}, mu{k}, gen{k})",
                    "    if report:",
                    f"        K.report_spring(out_links, L{k}[8], L{k}[15], Q{k}, gvel{k})"]
        if kk.accept is not None:
            A = src.alias(kk.accept)
            accepts += [f"relative_into(bs, L{k}[0], L{k}[1], L{k}[2], L{k}[3], L{k}[4], "
                        f"L{k}[5], L{k}[6], L{k}[7], False, rel{k})",
                        f"K.take(angle_ref, L{k}[8], ar{k})",
                        f"{A}(L{k}[14], rel{k}, t, s0, ar{k})"]
    return ("\n".join(room), "\n".join(made), "\n".join(out) or "pass",
            "\n".join(accepts))


def _forces_text(model: Model, src: _Source) -> tuple[str, str, str, str]:
    """Room, what each entry makes before its loop (the attachments' frames), every
    force block's wrenches into ``f`` and state rates into ``zdot``, and the ``accept``
    of the blocks whose type has one (at an accepted state: ``bs`` and ``s0`` made)."""
    room: list[str] = []
    made: list[str] = []
    out: list[str] = []
    accepts: list[str] = []
    reported = {r.block for r in reported_outputs(model)}
    for j, fblk in enumerate(model.force_blocks):
        fk = fblk.kind.kernels
        assert fk is not None
        ev = src.alias(fk.evaluate)
        natt = len(fblk.attachments)
        frames = ", ".join(f"frames_room(len(F{j}[4]))" for a in range(natt))
        room += [f"F{j} = D[2][{j}]",
                 f"force{j} = np.zeros((len(F{j}[4]), {natt}, 3))",
                 f"torque{j} = np.zeros((len(F{j}[4]), {natt}, 3))"]
        made.append(f"fr{j} = ({frames},)")
        out += [f"frames_into(bs, F{j}[0][{a}][0], F{j}[0][{a}][1], F{j}[0][{a}][2], "
                f"F{j}[0][{a}][3], fr{j}[{a}])" for a in range(natt)]
        out += [f"force{j}[:] = 0.0",
                f"torque{j}[:] = 0.0",
                f"{ev}(F{j}[3], fr{j}, t, s0, C0[3], z[F{j}[1]:F{j}[2]], static, force{j}, "
                f"torque{j})"]
        out += [f"K.add_wrenches(f, F{j}[0][{a}][0], fr{j}[{a}].r, force{j}, torque{j}, {a})"
                for a in range(natt)]
        out += ["if report:",
                f"    K.report_force(out_forces, F{j}[4], force{j}, torque{j})"]
        if j in reported:
            ok = src.alias(fk.outputs)
            room.append(f"ox{j} = np.zeros((len(F{j}[4]), "
                        f"{output_width(fblk.kind.outputs)}))")
            out += [f"    ox{j}[:] = 0.0",
                    f"    {ok}(F{j}[3], fr{j}, t, s0, C0[3], z[F{j}[1]:F{j}[2]], ox{j})",
                    f"    K.report_outputs(out_extra, F{j}[5], ox{j})"]
        if fblk.kind.nb_states:
            sd = src.alias(fk.state_derivative)
            out.append(f"{sd}(F{j}[3], fr{j}, t, s0, z[F{j}[1]:F{j}[2]], "
                       f"zdot[F{j}[1]:F{j}[2]])")
        if fk.accept is not None:
            ac = src.alias(fk.accept)
            accepts += [f"frames_into(bs, F{j}[0][{a}][0], F{j}[0][{a}][1], F{j}[0][{a}][2], "
                        f"F{j}[0][{a}][3], fr{j}[{a}])" for a in range(natt)]
            accepts.append(f"{ac}(F{j}[3], fr{j}, t, s0, z[F{j}[1]:F{j}[2]])")
    return ("\n".join(room), "\n".join(made), "\n".join(out) or "pass",
            "\n".join(accepts))


def _hoisted(room: str, *texts: str) -> tuple[str, tuple[str, ...]]:
    """Every item of a block's data tuple (``L0[14]``, ``F0[0][1][2]``) named once in
    the room (``L0_14``, ``F0_0_1_2``) and by that name in the ``texts``: taking an
    item of a tuple of arrays in the loop would count references to all of them each
    time."""
    names: dict[str, str] = {}

    def name(m: re.Match[str]) -> str:
        expr = m.group(0)
        if expr not in names:
            names[expr] = m.group(1) + "_" + "_".join(re.findall(r"\d+", m.group(2)))
        return names[expr]

    pattern = re.compile(r"\b([LFS]\d+)((?:\[\d+\])+)")
    texts = tuple(pattern.sub(name, text).replace("C0[3]", "C0_3") for text in texts)
    hoist = "\n".join(f"{v} = {k}" for k, v in sorted(names.items(), key=lambda kv: kv[1]))
    return room + ("\n" + hoist if hoist else ""), texts


def _unpack(room: str) -> str:
    """``(C0, a, b, ...) = B.room``: the core data and the names :data:`ROOM` defines,
    from the handle; not the blocks' data tuples (``L0``, ``F0``, ``S0``), read by the
    step through their items' names only: each array taken out of the handle costs a
    reference count at each call."""
    names = [line.split(" = ", 1)[0] for line in room.splitlines() if " = " in line]
    names = ["C0"] + [n for n in names if not re.fullmatch(r"[LFS]\d+", n)]
    return "(" + ", ".join(names) + ",) = B.room"


def generate(model: Model) -> tuple[str, set[str]]:
    """Source of the model's step module, and the modules whose kernels it calls.

    Each integrator has one entry function, and the model's blocks (:data:`TERMS`)
    appear once in it, evaluated for whatever the entry needs next (a stage, a
    projection iterate, a Newton iterate, a finite difference, the outputs): numba
    optimises a function together with everything it calls, so each further function
    holding or calling the blocks would compile them all again. Every array the blocks
    write is made once, before the entry's loop (:data:`ROOM`), and the kernels called
    in the loop allocate nothing (see :mod:`frylinks.jit`). Everything else is control
    flow and calls to kernels compiled once for all models (:mod:`.kernels`,
    :mod:`.newton`)."""
    src = _Source()
    sig_room, sig_text = _signals_text(model, src)
    link_room, link_made, link_text, link_accept = _links_text(model, src)
    force_room, force_made, force_text, accept_text = _forces_text(model, src)
    sig_room, (sig_text,) = _hoisted(sig_room, sig_text)
    link_room, (link_made, link_text, link_accept) = _hoisted(link_room, link_made,
                                                              link_text, link_accept)
    force_room, (force_made, force_text, accept_text) = _hoisted(
        force_room, force_made, force_text, accept_text)
    terms = TERMS.format(signals=sig_text, links=link_text,
                         forces=_indent(force_text, 4))
    # the force types' accept, at the state a step ended with (rk4: x, ... views of it)
    accepts = "\n".join(a for a in (link_accept, accept_text) if a)
    accept = f"body_states_into(x, q, v, w, bs)\n{sig_text}\n{accepts}" if accepts else ""
    room = ROOM.format(signals=sig_room, links=link_room, forces=force_room)
    body = TEMPLATE.format(
        terms_rk4=_indent(terms, 8), terms_ga=_indent(terms, 8),
        accept_rk4=_indent(accept, 12),
        accept_ga=_indent("t, x, q, v, w, z = t1, x0, q0, v0, w0, z0\n" + accept, 8)
        if accept else "",
        room=_indent(room, 4), unpack=_indent(_unpack(room), 4),
        made=_indent("\n".join(m for m in (link_made, force_made) if m), 4),
        diverged=repr(DIVERGED), max_distance=repr(MAX_DISTANCE), max_speed=repr(MAX_SPEED),
        fd_step=repr(newton.FD_STEP), max_iterations=newton.MAX_ITERATIONS,
        newton_tol=repr(newton.NEWTON_TOL), jump=repr(newton.JUMP),
        max_builds=newton.MAX_BUILDS, refresh_after=repr(newton.REFRESH_AFTER),
        max_halvings=newton.MAX_HALVINGS,
        not_converged=NOT_CONVERGED)
    imports = "\n".join(f"from {m} import {n} as {a}" for (m, n), a in
                        sorted(src.imports.items()))
    body = body.replace("# {imports}", imports)  # the template escapes it as {{imports}}
    body = body.replace("return ROOM", _unpack(room).split(" = ")[0].replace("(", "return (", 1))
    return body, src.modules | {K.__name__, newton.__name__, "frylinks.kinematics",
                                "frylinks.jit"}


#: Models with at most this many link blocks make their blocks' relative kinematics
#: once per call of an entry rather than at each evaluation (see :func:`_links_text`).
HOIST_LINK_BLOCKS = 3

#: What the blocks write, made once per call of an entry (``C0``: the core data;
#: ``nb`` bodies, ``nr`` rows, ``nz`` force states).
ROOM = """bs = body_states_room(nb)
C0_3 = C0[3]
{signals}
values = np.zeros(12 * nr)
velocity = np.zeros(nr)
acceleration = np.zeros(nr)
row_tau = np.zeros((nr, 6))
residual = np.zeros(nr)
f = np.zeros((nb + 1, 6))
zdot = np.zeros(nz)
{links}
{forces}"""

#: The model's blocks at ``(t, x, q, v, w, z)``: body states ``bs``, G's ``values``, the
#: ``velocity`` and ``acceleration`` targets, the rows over the relative twists
#: ``row_tau``, the position ``residual`` (with ``positions``), the applied loads ``f``
#: (nb + 1, 6; springs with ``springs``, force elements with ``loads``) and the force
#: types' state rates ``zdot``; with ``report`` the outputs into ``out_links`` and
#: ``out_forces``; with ``angles`` the unwrapped angles into ``angle_out``.
TERMS = """body_states_into(x, q, v, w, bs)
{signals}
values[:] = 0.0
velocity[:] = 0.0
acceleration[:] = 0.0
row_tau[:] = 0.0
residual[:] = 0.0
K.body_loads(C0, bs, nb, f)
{links}
zdot[:] = 0.0
if loads:
{forces}"""

TEMPLATE = '''"""A frylinks model's compiled step (generated by frylinks.engine.compose)."""
# ruff: noqa
import numpy as np

from frylinks.jit import kernel
from frylinks.kinematics import (body_states_into, body_states_room, frames_into,
                                 frames_room, jacobian_rows_into, relative_into,
                                 relative_room)
from frylinks.engine import kernels as K
from frylinks.engine import newton as N
# {{imports}}


def make_room(D, nb, nz):
    """Every array the model's blocks write (the handle keeps them: the entries
    below allocate nothing for the blocks). Plain Python: run once per model, it is
    not worth compiling."""
    C0 = D[0]
    nr = C0[6]
{room}
    return ROOM


@kernel
def advance_rk4(B, y, angle_ref, t, t0, k0, k1, dt, nb, want_report, out_links, out_forces,
                out_udot, out_lam, out_zdot, out_extra, every, kept):
    """rk4 steps k0 + 1 .. k1 from ``y`` at ``t`` (step k ends at t0 + k dt), each
    projected on the constraints as frylinks.engine.evaluate.project does; ``y`` ends as
    the last accepted state, and the state after each step k that is a multiple of
    ``every`` is kept in the next row of ``kept`` (K.keep_sample). want_report: none
    (K.REPORT_NONE), the accelerations, multipliers, state rates and outputs at the end
    (K.REPORT_END; k0 == k1: at ``y``) or at each kept state, kept with it
    (K.REPORT_SAMPLES). Returns (status, steps
    accepted, value, value, row). B: the model's handle (frylinks.engine.handle)."""
{unpack}
    nr = C0[6]
    scale = C0[7]
    nz = len(y) - 13 * nb
    r = K.stages(len(y))
    static = False
    angle_out = angle_ref
    k = k0
    t_step = t
    phase = 0 if k0 < k1 else 4  # 0-3: rk4's stages, 4: report, 5: projection iterate
    if phase == 4 and not want_report:
        return K.OK, k, 0.0, 0.0, -1
    good = True
    new = y.copy()
    t_new = t
    it = 0
    last = False
    kept_row = np.int64(0)  # (not the literal 0: one compile of keep_sample)
{made}
    while True:
        if phase < 4:
            ys, t = K.rk4_stage(y, t_step, dt, r, phase)
        elif phase == 4:
            ys = y
            t = t_step
        else:
            ys = new
            t = t_new
        x, q, v, w, z = K.views(ys, nb)
        positions = phase == 5
        angles = positions and it == 0
        springs = not positions
        loads = not positions
        report = phase == 4
        if report:  # (the blocks add their outputs in)
            out_links[:] = 0.0
            out_forces[:] = 0.0
{terms_rk4}
        if phase == 5:
            if nr:
                worst, row = K.worst(residual)
                if not worst <= {diverged} * scale:
                    return K.VIOLATED, k, worst, 0.0, row
                Minv = K.mass_inverse(C0, bs, nb)
                G = K.dense_G(C0, values, nb)
                A, Lc, ok = K.factor(G, Minv)
                if not ok:
                    return K.SINGULAR, k, 0.0, 0.0, -1
                if not (worst <= 1e-14 * scale or it == 4 or last):
                    K.move(x, q, K.correction(G, Minv, A, Lc, residual))
                    it += 1
                    last = worst < 1e-7 * scale
                    continue
                K.project_velocities(G, Minv, A, Lc, v, w, velocity)
            K.assign(y, new)
            k += 1
            t_step = t_new
{accept_rk4}
            if k % every == 0:
                if want_report == K.REPORT_SAMPLES:
                    phase = 4  # the sample's report, kept with it
                    continue
                # (x, ... are views of new, equal to y now)
                kept_row = K.keep_sample(kept, kept_row, x, q, v, w, z, angle_ref, out_links,
                                         out_forces, out_udot, out_lam, out_zdot, out_extra)
            if k < k1:
                phase = 0
                good = True
                continue
            if want_report == K.REPORT_END:
                phase = 4
                continue
            return K.OK, k, 0.0, 0.0, -1
        Minv = K.mass_inverse(C0, bs, nb)
        G = K.dense_G(C0, values, nb)
        udot, lam, ok = K.accelerations(G, Minv, f[:nb], acceleration)
        if phase == 4:
            K.report_reactions(out_links, C0[11], row_tau, lam)
            K.assign(out_udot, udot)
            K.assign(out_lam, lam)
            K.assign(out_zdot, zdot)
            if not ok:
                return K.SINGULAR, k, 0.0, 0.0, -1
            if want_report == K.REPORT_SAMPLES and k > k0 and k % every == 0:
                kept_row = K.keep_sample(kept, kept_row, x, q, v, w, z, angle_ref, out_links,
                                         out_forces, out_udot, out_lam, out_zdot, out_extra)
            if k < k1:
                phase = 0
                good = True
                continue
            return K.OK, k, 0.0, 0.0, -1
        good = good and ok
        K.rate(r[phase], nb, v, q, w, udot, zdot)
        phase += 1
        if phase == 4:
            if not good:
                return K.SINGULAR, k, 0.0, 0.0, -1
            new = K.rk4_combine(y, dt, r)
            status, a, b = K.check(new, nb, {max_distance}, {max_speed})
            if status != K.OK:
                return status, k, a, b, -1
            t_new = t0 + (k + 1) * dt
            K.normalise(K.views(new, nb)[1])
            it = 0
            last = False
            phase = 5


@kernel
def advance_ga(B, x0, q0, v0, w0, z0, angle_ref, t, t0, k0, k1, dt, want_report, out_links,
               out_forces, out_udot, out_lam, out_zdot, out_extra, build_only, every,
               kept):
    """Steps k0 + 1 .. k1 (step k ends at t0 + k dt) as frylinks.engine.implicit.Stepper.step:
    a step Newton cannot solve is taken as two halves, down to 1/64. The state (x0,
    q0, v0, w0, z0) and memory (udot, a, lam, zdot, udot_prev, zdot_prev; h_prev[0])
    are updated in place at each accepted step, and the state after each step k that
    is a multiple of ``every`` is kept in the next row of ``kept`` (K.keep_sample).
    want_report: none (K.REPORT_NONE), the accelerations, multipliers, state rates and
    outputs at the end (K.REPORT_END; k0 == k1: now) or at each kept state, kept with
    it (K.REPORT_SAMPLES).
    With build_only, only the kept tangent is built, at (t, x0, ...) with the
    accelerations mem[0] and multipliers mem[2], for a step of length dt (where a
    checkpointed run had it). Returns (status, steps accepted, value, value, value).
    B: the run's handle (frylinks.engine.handle), whose run arrays are (mem, h_prev,
    coeff, Dtan, dV, anchor, counters, colour, prow, pcol, mflat, mstart, build_cost,
    work: frylinks.engine.newton.step_room)."""
    mem, h_prev, coeff, Dtan, dV, anchor, counters, colour, prow, pcol, mflat, mstart, \
        build_cost, work = B.run
    am, af, gamma, beta = coeff[0], coeff[1], coeff[2], coeff[3]
    nb = len(x0)
    nz = len(z0)
{unpack}
    nr = C0[6]
    scale = C0[7]
    vrows, vcols = C0[9], C0[10]
    ncol = len(mstart) - 1
    # every array of the step, made once per run (the loop allocates nothing): the
    # substep's start c*, the memory there m*, the step's constants, the iterate *1
    # and its backup b*, a finite difference's state d*, the iterate's residuals r*
    (W, sh, st, sd, cx, cq, cv, cw, cz, mu, ma, ml, mz, mup, mzp, base_a, shift, u_base,
     udot, a1, lam, z1, x1, q1, v1, w1, bx, bq, bv, bw, bz, b_udot, b_a, b_lam, dx, dq, dv,
     dw, M, rr, delta, dlam, cr, cphi, cvals, cvel, cM, crz, new_angles) = work
    static = False
    positions = True
    springs = True
    loads = True
    report = False
    angles = False
    k = k0
    top = 0
    phase = 0  # 0: a Newton iterate's residual, 1: a finite difference, 2: report
    need_step = k0 < k1
    need_setup = False
    if not need_step and not build_only:
        if not want_report:
            return K.OK, k, 0.0, 0.0, 0
        phase = 2
    hp = h_prev[0]
    t1 = t
    tc = t
    h = dt
    tt = t
    depth = 0
    bp = 1.0
    gp = 1.0
    rebuild = False
    refresh = True
    refreshed = False
    built_here = False
    builds = 0
    previous = np.inf
    last = np.inf
    err = 0.0
    total = 0
    c = 0
    d = 0
    eps = 1.0
    kept_row = np.int64(0)  # (not the literal 0: one compile of keep_sample)
    if build_only:
        K.assign(new_angles, angle_ref)
        N.put_state(x1, q1, v1, w1, z1, x0, q0, v0, w0, z0)
        K.assign(udot, mem[0])
        K.assign(lam, mem[2])
        tt = t
        gp = gamma / (h * beta)
        rebuild = True
        need_step = False
        phase = 0
{made}
    while True:
        if need_step:
            # step k + 1: pending (h, t_end, depth) on a stack, halves pushed on failure
            t1 = t0 + (k + 1) * dt
            sh[0] = dt
            st[0] = t1
            sd[0] = 0
            top = 1
            N.put_state(cx, cq, cv, cw, cz, x0, q0, v0, w0, z0)
            N.put_memory(mu, ma, ml, mz, mup, mzp, mem)
            hp = h_prev[0]
            tc = t
            need_step = False
            need_setup = True
        if need_setup:
            # a (sub)step of length h from (tc, cx, ...) to tt: Stepper._step
            top -= 1
            h, tt, depth = sh[top], st[top], sd[top]
            bp = (1.0 - am) / (h * h * beta * (1.0 - af))
            gp = gamma / (h * beta)
            N.predict(cv, cw, cz, mu, ma, ml, mz, mup, mzp, hp, h, coeff, base_a, shift,
                      u_base, udot, lam, z1)
            N.kinematics(cx, cq, base_a, shift, u_base, udot, h, beta, gamma, am, af, x1, q1,
                         v1, w1, a1)
            rebuild = counters[0] == 0
            refresh = True
            refreshed = False
            builds = 0
            previous = np.inf
            last = np.inf
            K.assign(new_angles, angle_ref)
            err = 0.0
            total = 0
            need_setup = False
            phase = 0
        if phase == 0:
            t, x, q, v, w, z, angle_out = tt, x1, q1, v1, w1, z1, new_angles
        elif phase == 1:
            t, x, q, v, w, z, angle_out = tt, dx, dq, dv, dw, z1, angle_ref
        else:
            t, x, q, v, w, z, angle_out = tc, x0, q0, v0, w0, z0, angle_ref
        positions = phase != 2
        report = phase == 2
        angles = phase == 0
        if report:  # (the blocks add their outputs in)
            out_links[:] = 0.0
            out_forces[:] = 0.0
{terms_ga}
        if phase == 2:
            Minv = K.mass_inverse(C0, bs, nb)
            G = K.dense_G(C0, values, nb)
            ru, rl, ok = K.accelerations(G, Minv, f[:nb], acceleration)
            K.report_reactions(out_links, C0[11], row_tau, rl)
            K.assign(out_udot, ru)
            K.assign(out_lam, rl)
            K.assign(out_zdot, zdot)
            if not ok:
                return K.SINGULAR, k, 0.0, 0.0, 0
            if want_report == K.REPORT_SAMPLES and k > k0 and k % every == 0:
                kept_row = K.keep_sample(kept, kept_row, x0, q0, v0, w0, z0, angle_ref,
                                         out_links, out_forces, out_udot, out_lam, out_zdot,
                                         out_extra)
            if k < k1:
                need_step = True
                continue
            return K.OK, k, 0.0, 0.0, 0
        N.mass_blocks(C0, bs.R, nb, M)
        N.residual_r(M, udot, f, values, lam, vrows, vcols, W, rr, C0[12], C0[14])
        outcome = 0  # 0: iterate again, 1: converged, 2: failed
        if phase == 1:
            N.gradient_column(Dtan, dV, 6 * c + d, rr, cr, values, cvals, eps)
            d += 1
            if d == 6:
                d = 0
                c += 1
            if c < ncol:
                eps = {fd_step} * scale if d < 3 else {fd_step}
                N.moved(x1, q1, v1, w1, mflat[mstart[c]:mstart[c + 1]], d, eps, gp * eps,
                        dx, dq, dv, dw)
                continue
            if nr:
                N.add_reactions(Dtan, dV, lam, vrows, vcols, W)
            counters[0] += 1
            N.keep_anchor(anchor, x1, q1, v1, w1, z1, udot, lam, tt, h)
            if build_only:
                return K.OK, k, 0.0, 0.0, 0
            rebuild = False
            refresh = True
            refreshed = False
            builds += 1
            phase = 0
        else:
            total += 1
            K.assign(cr, rr)
            K.assign(cphi, residual)
            K.assign(cvals, values)
            K.assign(cvel, velocity)
            K.assign(cM, M)
            K.assign(crz, zdot)
            if not N.finite(cr, cphi):
                err = np.inf
                outcome = 2
            else:
                built_here = rebuild
                if rebuild:
                    c = 0
                    d = 0
                    eps = {fd_step} * scale
                    N.moved(x1, q1, v1, w1, mflat[mstart[0]:mstart[1]], 0, eps, gp * eps,
                            dx, dq, dv, dw)
                    phase = 1
                    continue
        if outcome == 0:
            # one Newton iteration with the residual (cr, ...) of the iterate
            if refresh:
                ok = N.factor(Dtan, dV, lam, bp, cM, cvals, vrows, vcols, colour, prow, pcol,
                              nr, W, C0[13], C0[14])
                counters[1] += 1
                if not ok:
                    return K.SINGULAR, k, 0.0, 0.0, 0
                refresh = False
                previous = np.inf
            N.solve(W, cr, cphi, delta, dlam)
            K.assign(b_udot, udot)
            K.assign(b_lam, lam)
            K.assign(b_a, a1)
            N.put_state(bx, bq, bv, bw, bz, x1, q1, v1, w1, z1)
            err = N.update(udot, lam, delta, dlam, bp, cz, mz, crz, h, z1, scale)
            N.kinematics(cx, cq, base_a, shift, u_base, udot, h, beta, gamma, am, af, x1, q1,
                         v1, w1, a1)
            if err <= {newton_tol}:
                counters[2] += total
                counters[3] += 1
                N.velocity_correction(W, cvals, vrows, vcols, cvel, v1, w1)
                K.assign(angle_ref, new_angles)
                outcome = 1
            elif not err <= min(previous, {jump} * last):
                if built_here or builds >= {max_builds}:
                    outcome = 2
                else:
                    K.assign(udot, b_udot)
                    K.assign(lam, b_lam)
                    K.assign(a1, b_a)
                    N.put_state(x1, q1, v1, w1, z1, bx, bq, bv, bw, bz)
                    rebuild = True
            else:
                rate = err / previous
                last = err
                needed = N.needed_iterations(err, rate)
                if needed > min(build_cost, {max_iterations} - total) and refreshed:
                    if builds >= {max_builds}:
                        outcome = 2
                    else:
                        rebuild = True
                elif needed > {refresh_after}:
                    refresh = True
                    refreshed = True
                previous = err
            if outcome == 0 and total >= {max_iterations}:
                outcome = 2
            if outcome == 0:
                continue
        if outcome == 2:
            if depth >= {max_halvings}:
                return {not_converged}, k, h, err, total * 1000 + builds
            counters[4] += 1
            sh[top], st[top], sd[top] = 0.5 * h, tt, depth + 1
            sh[top + 1], st[top + 1], sd[top + 1] = 0.5 * h, tc + 0.5 * h, depth + 1
            top += 2
            need_setup = True
            continue
        # converged: the substep's end is the next substep's start
        N.put_state(cx, cq, cv, cw, cz, x1, q1, v1, w1, z1)
        K.assign(mup, mu)
        K.assign(mzp, mz)
        K.assign(mu, udot)
        K.assign(ma, a1)
        K.assign(ml, lam)
        K.assign(mz, crz)
        hp = h
        tc = tt
        if top > 0:
            need_setup = True
            continue
        status, a, b = N.state_status(cx, cv, cw, {max_distance}, {max_speed})
        if status != K.OK:
            return status, k, a, b, 0
        N.accepted(x0, q0, v0, w0, z0, mem, h_prev, cx, cq, cv, cw, cz, mu, ma, ml, mz, mup,
                   mzp, hp)
        k += 1
        t = t1
        tc = t1
{accept_ga}
        if k % every == 0:
            if want_report == K.REPORT_SAMPLES:
                phase = 2  # the sample's report, kept with it
                continue
            kept_row = K.keep_sample(kept, kept_row, x0, q0, v0, w0, z0, angle_ref,
                                     out_links, out_forces, out_udot, out_lam, out_zdot,
                                     out_extra)
        if k < k1:
            need_step = True
            continue
        if want_report == K.REPORT_END:
            phase = 2
            continue
        return K.OK, k, 0.0, 0.0, 0
'''


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
        self._report: tuple[Array, Sequence[Array], int | None] | None = None
        self._no_out = self.out_arrays()  # (an advance without a report writes none)
        #: A force type's outputs are made in Python (it has no ``outputs`` kernel)
        #: from memory the step updates: a sample's outputs need the memory of its
        #: step, so a call covers one sample (:mod:`.sampling`).
        reported = {r.block for r in reported_outputs(model)}
        self.outputs_read_memory = any(blk.kind.outputs and blk.kind.memory
                                       and j not in reported
                                       for j, blk in enumerate(model.force_blocks))
        #: Some type keeps memory from one evaluation to the next (checkpoints save it).
        self.has_memory = (any(blk.kind.memory for blk in model.force_blocks)
                           or any(getattr(blk.kind, "memory", ()) for blk in model.link_blocks))
        if child is not None:  # (before anything compiles here)
            background.start(self, *child)
        self.build()

    def entry(self, name: str, handles: Handles) -> tuple[Any, Any]:
        """The step's function ``name`` (``advance_rk4``, ``advance_ga``) and the handle
        of ``handles`` it takes: run interpreted while a child compiles it, else
        compiled, once the child compiling it, if any, has put it in the cache
        (:mod:`.background`)."""
        fn = getattr(self.module, name)
        if background.compiling(self, name):
            def compiled(plain: Any, *args: Any) -> Any:  # (the interpreter raised)
                self.interpret = False
                advance, handle = self.entry(name, handles)
                return advance(handle, *args)

            return (interpreted.guarded(interpreted.python_function(fn), compiled),
                    handles.plain())
        background.join(self, name)
        if interpreted.active():  # (no child compiles it: compiled here, not interpreted)
            fn = interpreted.compiled(fn)
        return fn, handles.compiled()

    def build(self) -> None:
        """The arrays the step writes and the handle it reads (compiled the first time)."""
        model = self.model
        self.room = self.module.make_room(self.data, model.nb_bodies, len(model.initial.z))
        self.handle = Handles(self.data, (), self.room)

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
        advance, handle = self.entry("advance_rk4", self.handle)
        status, k, a, b, row = advance(
            handle, y, s.angle_ref, float(s.t), float(t0), int(k0), int(k1), float(dt), nb,
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
