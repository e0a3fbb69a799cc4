"""The Python source of a model's compiled step: one section per block of links, forces
and signals, each type's kernels imported by name, written into :mod:`.step_template`;
and why a model cannot run compiled (:func:`not_compiled`)."""

from __future__ import annotations

import re
import sys
from typing import Any

import numpy as np

from frylinks.engine import kernels as K
from frylinks.engine import newton
from frylinks.engine.model import Model
from frylinks.engine.sampling import reported_outputs
from frylinks.engine.step_template import HOIST_LINK_BLOCKS, ROOM, TEMPLATE, TERMS
from frylinks.forces import output_width

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


def _links_text(model: Model, src: _Source, hoist: bool | None = None
                ) -> tuple[str, str, str, str]:
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
    # (rk4's steps count no references, and hold them all: ``hoist`` True)
    if hoist is None:
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


def _names(room: str) -> list[str]:
    """The names a room's text defines, in order: the core data ``C0`` first, then
    every other but the blocks' data tuples (``L0``, ``F0``, ``S0``), read by the step
    through their items' names only (the data tuples themselves are not unpacked, only
    the arrays the step reads)."""
    names = [line.split(" = ", 1)[0] for line in room.splitlines() if " = " in line]
    return ["C0"] + [n for n in names if not re.fullmatch(r"[LFS]\d+", n)]


def _unpack(room: str, source: str, unused: frozenset[str] | set[str] = frozenset()) -> str:
    """``(C0, a, b, ...) = source``: the names the room's text defines (:func:`_names`),
    out of ``source`` (the room: advance_rk4's argument, advance_ga's ``B[1]``) whose
    items they are; those ``unused`` by the entry as targets of their own
    (``unused_rel0``: one ``_`` for items of several types would not type)."""
    return ("(" + ", ".join(f"unused_{n}" if n in unused else n for n in _names(room))
            + ",) = " + source)


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
    _, rk4_made, rk4_link_text, _ = _links_text(model, src, hoist=True)
    force_room, force_made, force_text, accept_text = _forces_text(model, src)
    sig_room, (sig_text,) = _hoisted(sig_room, sig_text)
    link_room, (link_made, link_text, link_accept, rk4_made, rk4_link_text) = _hoisted(
        link_room, link_made, link_text, link_accept, rk4_made, rk4_link_text)
    force_room, (force_made, force_text, accept_text) = _hoisted(
        force_room, force_made, force_text, accept_text)
    terms = TERMS.format(signals=sig_text, links=link_text,
                         forces=_indent(force_text, 4))
    terms_rk4 = TERMS.format(signals=sig_text, links=rk4_link_text,
                             forces=_indent(force_text, 4))
    # the force types' accept, at the state a step ended with (rk4: x, ... views of it)
    accepts = "\n".join(a for a in (link_accept, accept_text) if a)
    accept = f"body_states_into(x, q, v, w, bs)\n{sig_text}\n{accepts}" if accepts else ""
    # everything the blocks write is made once, in the room (make_room), the relative
    # kinematics and the frames included; generalized-alpha's entry, which counts
    # references, makes a block's relative kinematics at each evaluation instead in a
    # model with many link blocks, and leaves those of the room unused
    room = "\n".join(r for r in (ROOM.format(signals=sig_room, links=link_room,
                                             forces=force_room), rk4_made, force_made) if r)
    ga_makes = set(_names(rk4_made)) - set(_names(link_made))
    body = TEMPLATE.format(
        terms_rk4=_indent(terms_rk4, 8), terms_ga=_indent(terms, 8),
        accept_rk4=_indent(accept, 12),
        accept_ga=_indent("t, x, q, v, w, z = t1, x0, q0, v0, w0, z0\n" + accept, 8)
        if accept else "",
        room=_indent(room, 4), unpack=_indent(_unpack(room, "B[1]", ga_makes), 4),
        unpack_rk4=_indent(_unpack(room, "room"), 4),
        diverged=repr(DIVERGED), max_distance=repr(MAX_DISTANCE), max_speed=repr(MAX_SPEED),
        fd_step=repr(newton.FD_STEP), max_iterations=newton.MAX_ITERATIONS,
        newton_tol=repr(newton.NEWTON_TOL), jump=repr(newton.JUMP),
        max_builds=newton.MAX_BUILDS, refresh_after=repr(newton.REFRESH_AFTER),
        max_halvings=newton.MAX_HALVINGS,
        not_converged=NOT_CONVERGED)
    imports = "\n".join(f"from {m} import {n} as {a}" for (m, n), a in
                        sorted(src.imports.items()))
    body = body.replace("# {imports}", imports)  # the template escapes it as {{imports}}
    body = body.replace("return ROOM", _unpack(room, "").split(" = ")[0]
                        .replace("(", "return (", 1))
    return body, src.modules | {K.__name__, newton.__name__, "frylinks.kinematics",
                                "frylinks.jit"}
