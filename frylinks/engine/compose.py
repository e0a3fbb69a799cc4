"""The model's compiled step: the core kernels and each block's type kernels, composed.

A model's step is generated as Python source (straight-line calls, one section per
block of links, forces and signals, each type's kernels imported by name), written to
the cache folder under a name that hashes everything it depends on (the source of
every module whose kernels it calls, frylinks' and numba's versions), and compiled by
numba, which caches the machine code beside it. The second run of the same kind of
model (same types, whatever their number, parameters or bodies) compiles nothing.

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
import inspect
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np

from .. import __version__
from ..errors import SimulationError
from ..links import DOFS
from . import kernels as K
from . import newton
from .model import Model, State

Array = np.ndarray

#: Above this many constraint rows the model keeps the Python path and its sparse
#: factorisation (a chain of hundreds of rods).
DENSE_LIMIT = 120
#: Status of a generalized-alpha step Newton could not solve (halved, then an error).
NOT_CONVERGED = 6
#: As :data:`frylinks.engine.evaluate.DIVERGED`.
DIVERGED = 1e-2
#: As :data:`frylinks.integrators.MAX_DISTANCE`, :data:`~frylinks.integrators.MAX_SPEED`.
MAX_DISTANCE = 1.0e12
MAX_SPEED = 3.0e8


def cache_dir() -> Path:
    """Where generated steps (and their machine code) are kept."""
    env = os.environ.get("FRYLINKS_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "frylinks"


def cache_files() -> tuple[list[Path], list[Path]]:
    """The files of generated steps (sources and machine code) in :func:`cache_dir`, and
    numba's cache files of the kernels of frylinks and of every registered plugin."""
    folder = cache_dir() / "steps"
    steps = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []
    roots = {Path(__file__).resolve().parent.parent}
    from ..registry import Registry

    for info in Registry().all():
        module = sys.modules.get(info.cls.__module__)
        path = getattr(module, "__file__", None)
        if path:
            roots.add(Path(path).resolve().parent)
    kernels = sorted({p for root in roots for pattern in ("*.nbi", "*.nbc")
                      for p in root.rglob(pattern)})
    return steps, kernels


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
            np.asarray(model.row_link, dtype=np.int64))


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
    forces = tuple(
        (tuple(_nodes(att) for att in blk.attachments), int(blk.states.start),
         int(blk.states.stop), blk.kind._data(), blk.index.astype(np.int64))
        for blk in model.force_blocks)
    signals = tuple((slots.astype(np.int64), kind._data())
                    for kind, slots in model.signals._blocks)
    return (core_data(model), links, forces, signals)


# ----------------------------------------------------------------- why not compiled

def not_compiled(model: Model) -> str | None:
    """Why ``model`` cannot run compiled, or None."""
    for blk in model.link_blocks:
        why = blk.kind.compiled()
        if why:
            return why
    for fblk in model.force_blocks:
        why = fblk.kind.compiled()
        if why:
            return why
        if fblk.has_point_masses:
            return (f"force type '{fblk.kind.name}' carries point masses, which the compiled "
                    "step does not couple yet")
    for kind, _ in model.signals._blocks:
        why = kind.compiled()
        if why:
            return why
    if model.nb_rows > DENSE_LIMIT:
        return (f"{model.nb_rows} constraint rows: the sparse factorisation of the Python "
                f"path serves models above {DENSE_LIMIT}")
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


def _signals_text(model: Model, src: _Source) -> str:
    """``s0, s1, s2``: the bank's values and derivatives at ``t``."""
    lines = [f"s{o} = np.zeros({model.signals.nb_slots})" for o in range(3)]
    for j, (kind, _) in enumerate(model.signals._blocks):
        fn = src.alias(type(kind).kernel)
        lines.append(f"S{j} = D[3][{j}]")
        for o in range(3):
            lines += [f"tmp = np.zeros(len(S{j}[0]))",
                      f"{fn}(S{j}[1], t, {o}, tmp)",
                      f"K.put(s{o}, S{j}[0], tmp)"]
    return "\n".join(lines)


def _links_text(model: Model, src: _Source) -> str:
    """Every link block: its rows into ``values, velocity, acceleration, row_tau``; with
    ``positions`` its residual (and, with ``angles``, the unwrapped angles into
    ``angle_out``); with ``springs`` its spring-damper into ``f``; with ``report`` its
    outputs."""
    out: list[str] = []
    for k, blk in enumerate(model.link_blocks):
        kk = blk.kind.kernels
        assert kk is not None
        C, R, Q, E, U, X = (src.alias(kk.constraints), src.alias(kk.residual),
                            src.alias(kk.coordinates), src.alias(kk.free_basis),
                            src.alias(kk.unwrap_angle), src.alias(kk.displacement))
        n, nc, nf = len(blk.names), blk.kind.nb_constraints, blk.kind.nb_free
        out += [f"L{k} = D[1][{k}]",
                f"rel{k} = relative_kernel(bs, L{k}[0], L{k}[1], L{k}[2], L{k}[3], L{k}[4], "
                f"L{k}[5], L{k}[6], L{k}[7], not positions)",
                f"ar{k} = K.take(angle_ref, L{k}[8])",
                "if positions and angles:",
                f"    new{k} = np.zeros({n})",
                f"    if {U}(L{k}[14], rel{k}, ar{k}, new{k}):",
                f"        K.put(angle_out, L{k}[8], new{k})",
                f"rows{k} = np.zeros(({n}, {nc}, 6))",
                f"vel{k} = np.zeros(({n}, {nc}))",
                f"acc{k} = np.zeros(({n}, {nc}))",
                f"{C}(L{k}[14], rel{k}, t, s0, s1, s2, ar{k}, rows{k}, vel{k}, acc{k})",
                f"K.add_rows(values, velocity, acceleration, row_tau, rows{k}, vel{k}, acc{k}, "
                f"rel{k}, L{k}[9], jacobian_rows(rel{k}, rows{k}))",
                "if positions:",
                f"    res{k} = np.zeros(({n}, {nc}))",
                f"    {R}(L{k}[14], rel{k}, t, s0, ar{k}, res{k})",
                f"    K.put_rows(residual, L{k}[9], res{k})",
                "if report:",
                f"    disp{k} = np.zeros(({n}, 6))",
                f"    {X}(L{k}[14], rel{k}, t, s0, ar{k}, disp{k})",
                f"    K.report_link(out_links, L{k}[8], disp{k}, rel{k}.tau)"]
        if blk.has_spring:
            out += ["if springs:",
                    f"    gpos{k} = np.zeros(({n}, {nf}))",
                    f"    gvel{k} = np.zeros(({n}, {nf}))",
                    f"    {Q}(L{k}[14], rel{k}, t, s0, ar{k}, gpos{k}, gvel{k})",
                    f"    E{k} = np.zeros(({n}, 6, {nf}))",
                    f"    {E}(L{k}[14], rel{k}, E{k})",
                    f"    Q{k} = K.link_spring(f, rel{k}, L{k}[11], L{k}[12], L{k}[13], gpos{k}, "
                    f"gvel{k}, E{k}, L{k}[0], L{k}[4])",
                    "    if report:",
                    f"        K.report_spring(out_links, L{k}[8], L{k}[15], Q{k}, gvel{k})"]
    return "\n".join(out) or "pass"


def _forces_text(model: Model, src: _Source) -> str:
    """Every force block's wrenches into ``f`` and state rates into ``zdot``."""
    out: list[str] = []
    for j, fblk in enumerate(model.force_blocks):
        fk = fblk.kind.kernels
        assert fk is not None
        ev = src.alias(fk.evaluate)
        natt, n = len(fblk.attachments), len(fblk.names)
        frames = ", ".join(
            f"frames_kernel(bs, F{j}[0][{a}][0], F{j}[0][{a}][1], F{j}[0][{a}][2], "
            f"F{j}[0][{a}][3])" for a in range(natt))
        out += [f"F{j} = D[2][{j}]",
                f"fr{j} = ({frames},)",
                f"force{j} = np.zeros(({n}, {natt}, 3))",
                f"torque{j} = np.zeros(({n}, {natt}, 3))",
                f"{ev}(F{j}[3], fr{j}, t, s0, D[0][3], z[F{j}[1]:F{j}[2]], static, force{j}, "
                f"torque{j})"]
        out += [f"K.add_wrenches(f, F{j}[0][{a}][0], fr{j}[{a}].r, force{j}, torque{j}, {a})"
                for a in range(natt)]
        out += ["if report:",
                f"    K.report_force(out_forces, F{j}[4], force{j}, torque{j})"]
        if fblk.kind.nb_states:
            sd = src.alias(fk.state_derivative)
            out.append(f"{sd}(F{j}[3], fr{j}, t, s0, z[F{j}[1]:F{j}[2]], "
                       f"zdot[F{j}[1]:F{j}[2]])")
    return "\n".join(out) or "pass"


def generate(model: Model) -> tuple[str, set[str]]:
    """Source of the model's step module, and the modules whose kernels it calls.

    The model's blocks appear once, in ``terms``; every other function is control
    flow and calls to kernels compiled once for all models (:mod:`.kernels`,
    :mod:`.newton`): each line of array arithmetic here would be compiled again for
    every kind of model."""
    src = _Source()
    body = TEMPLATE.format(
        signals=_indent(_signals_text(model, src), 4),
        links=_indent(_links_text(model, src), 4),
        forces=_indent(_forces_text(model, src), 8),
        imports="",
        diverged=repr(DIVERGED), max_distance=repr(MAX_DISTANCE), max_speed=repr(MAX_SPEED),
        fd_step=repr(newton.FD_STEP), max_iterations=newton.MAX_ITERATIONS,
        newton_tol=repr(newton.NEWTON_TOL), jump=repr(newton.JUMP),
        max_builds=newton.MAX_BUILDS, refresh_after=repr(newton.REFRESH_AFTER),
        max_halvings=newton.MAX_HALVINGS, stack=2 * newton.MAX_HALVINGS + 2,
        not_converged=NOT_CONVERGED)
    imports = "\n".join(f"from {m} import {n} as {a}" for (m, n), a in
                        sorted(src.imports.items()))
    body = body.replace("# {imports}", imports)
    return body, src.modules | {K.__name__, newton.__name__, "frylinks.kinematics",
                                "frylinks.jit"}


TEMPLATE = '''"""A frylinks model's compiled step (generated by frylinks.engine.compose)."""
# ruff: noqa
import numpy as np

from frylinks.jit import kernel
from frylinks.kinematics import (body_states_kernel, frames_kernel, jacobian_rows,
                                 relative_kernel)
from frylinks.engine import kernels as K
from frylinks.engine import newton as N
# {{imports}}


@kernel
def terms(D, t, x, q, v, w, z, angle_ref, angle_out, angles, positions, springs, loads,
          static, report, out_links, out_forces):
    """The model's blocks at (t, x, q, v, w, z): body states, G's values, velocity and
    acceleration targets, the rows over the relative twists, the position residual
    (with positions), the applied loads f (nb + 1, 6) with springs and loads, and the
    force types' state rates; with report, the links' and forces' outputs."""
    nb = len(x)
    bs = body_states_kernel(x, q, v, w)
{signals}
    nr = D[0][6]
    values = np.zeros(12 * nr)
    velocity = np.zeros(nr)
    acceleration = np.zeros(nr)
    row_tau = np.zeros((nr, 6))
    residual = np.zeros(nr)
    f = K.body_loads(D[0], bs, nb)
{links}
    zdot = np.zeros(len(z))
    if loads:
{forces}
    return bs, values, velocity, acceleration, row_tau, residual, f, zdot


@kernel
def evaluate(D, t, x, q, v, w, z, angle_ref, static, report, out_links, out_forces):
    """Accelerations (nb, 6), multipliers, state rates and whether the solve worked;
    with report the outputs of links and forces (reactions included)."""
    nb = len(x)
    bs, values, velocity, acceleration, row_tau, residual, f, zdot = terms(
        D, t, x, q, v, w, z, angle_ref, angle_ref, False, False, True, True, static, report,
        out_links, out_forces)
    Minv = K.mass_inverse(D[0], bs, nb)
    G = K.dense_G(D[0], values, nb)
    udot, lam, ok = K.accelerations(G, Minv, f[:nb], acceleration)
    if report:
        K.report_reactions(out_links, D[0][11], row_tau, lam)
    return udot, lam, zdot, ok


@kernel
def project(D, t, x, q, v, w, z, angle_ref):
    """Back onto the position and velocity constraints after a step, in place (as
    frylinks.engine.evaluate.project): status, worst residual and its row."""
    nb = len(x)
    K.normalise(q)
    nr = D[0][6]
    scale = D[0][7]
    status = K.OK
    worst = 0.0
    row = -1
    it = 0
    last = False
    empty = np.zeros((0, 0))
    while True:
        bs, values, velocity, acceleration, row_tau, residual, f, zdot = terms(
            D, t, x, q, v, w, z, angle_ref, angle_ref, it == 0, True, False, False, False,
            False, empty, empty)
        if nr == 0:
            break
        worst, row = K.worst(residual)
        if not worst <= {diverged} * scale:
            status = K.VIOLATED
            break
        Minv = K.mass_inverse(D[0], bs, nb)
        G = K.dense_G(D[0], values, nb)
        A, Lc, ok = K.factor(G, Minv)
        if not ok:
            status = K.SINGULAR
            break
        if worst <= 1e-14 * scale or it == 4 or last:
            K.project_velocities(G, Minv, A, Lc, v, w, velocity)
            break
        K.move(x, q, K.correction(G, Minv, A, Lc, residual))
        it += 1
        last = worst < 1e-7 * scale
    return status, worst, row


@kernel
def advance_rk4(D, y, angle_ref, t, t0, k0, k1, dt, nb):
    """rk4 steps k0 + 1 .. k1 from ``y`` at ``t`` (step k ends at t0 + k dt), each
    projected on the constraints; ``y`` ends as the last accepted state. Returns
    (status, last step accepted, value, value, row)."""
    r = K.stages(len(y))
    empty = np.zeros((0, 0))
    for k in range(k0 + 1, k1 + 1):
        good = True
        for st in range(4):
            ys, ts = K.rk4_stage(y, t, dt, r, st)
            x, q, v, w, z = K.views(ys, nb)
            udot, lam, zdot, ok = evaluate(D, ts, x, q, v, w, z, angle_ref, False, False,
                                           empty, empty)
            good = good and ok
            K.rate(r[st], nb, v, q, w, udot, zdot)
        if not good:
            return K.SINGULAR, k - 1, 0.0, 0.0, -1
        new = K.rk4_combine(y, dt, r)
        status, a, b = K.check(new, nb, {max_distance}, {max_speed})
        if status != K.OK:
            return status, k - 1, a, b, -1
        t = t0 + k * dt
        x, q, v, w, z = K.views(new, nb)
        status, worst, row = project(D, t, x, q, v, w, z, angle_ref)
        if status != K.OK:
            return status, k - 1, worst, 0.0, row
        K.assign(y, new)
    return K.OK, k1, 0.0, 0.0, -1


@kernel
def ga_residual(D, t, x, q, v, w, z, angle_ref, angle_out, angles, udot, lam):
    """r = M u' - f - G^T lam (nb, 6), Phi, G's values, velocity targets, mass blocks
    and state rates (frylinks.implicit.residual)."""
    nb = len(x)
    empty = np.zeros((0, 0))
    bs, values, velocity, acceleration, row_tau, residual, f, zdot = terms(
        D, t, x, q, v, w, z, angle_ref, angle_out, angles, True, True, True, False, False,
        empty, empty)
    M = N.mass_blocks(D[0], bs.R, nb)
    r = N.residual_r(M, udot, f, values, lam, D[0][9], D[0][10])
    return r, residual, values, velocity, M, zdot


@kernel
def ga_build(D, t, x, q, v, w, z, angle_ref, udot, lam, gp, r, vals, Dtan, dV, mflat,
             mstart):
    """The kept tangent K + gamma' C at an iterate by finite differences of the
    residual per colour of bodies and direction (frylinks.implicit.Newton.build)."""
    nb = len(x)
    scale = D[0][7]
    for c in range(len(mstart) - 1):
        bodies = mflat[mstart[c]:mstart[c + 1]]
        for d in range(6):
            eps = {fd_step} * scale if d < 3 else {fd_step}
            mx, mq, mv, mw = N.moved(x, q, v, w, bodies, d, eps, gp * eps)
            r1, phi1, vals1, vel1, M1, zd1 = ga_residual(D, t, mx, mq, mv, mw, z, angle_ref,
                                                         angle_ref, False, udot, lam)
            N.gradient_column(Dtan, dV, 6 * c + d, r1, r, vals1, vals, eps)
    if D[0][6]:
        N.add_reactions(Dtan, dV, lam, D[0][9], D[0][10], nb)


@kernel
def advance_ga(D, x, q, v, w, z, angle_ref, mem, h_prev, coeff, Dtan, dV, anchor, counters,
               colour, prow, pcol, mflat, mstart, build_cost, t, t0, k0, k1, dt):
    """Steps k0 + 1 .. k1 (step k ends at t0 + k dt) as frylinks.implicit.Stepper.step:
    a step Newton cannot solve is taken as two halves, down to 1/64. State and memory
    (udot, a, lam, zdot, udot_prev, zdot_prev; h_prev[0]) are updated in place at each
    accepted step. Returns (status, last step accepted, value, value, value)."""
    am, af, gamma, beta = coeff[0], coeff[1], coeff[2], coeff[3]
    nb = len(x)
    nr = D[0][6]
    scale = D[0][7]
    vrows, vcols = D[0][9], D[0][10]
    sh, st, sd = N.halving_stack({stack})
    for k in range(k0 + 1, k1 + 1):
        t1 = t0 + k * dt
        sh[0] = dt
        st[0] = t1
        sd[0] = 0
        top = 1
        cx, cq, cv, cw, cz = N.copies(x, q, v, w, z)
        mu, ma, ml, mz, mup, mzp = N.copy_memory(mem)
        hp = h_prev[0]
        tc = t
        while top > 0:
            top -= 1
            h, tt, depth = sh[top], st[top], sd[top]
            # ---- one step of length h from (tc, cx, ...) to tt: Stepper._step
            bp = (1.0 - am) / (h * h * beta * (1.0 - af))
            gp = gamma / (h * beta)
            base_a, shift, u_base, udot, lam, z1 = N.predict(cv, cw, cz, mu, ma, ml, mz, mup,
                                                             mzp, hp, h, coeff)
            x1, q1, v1, w1, a1 = N.kinematics(cx, cq, base_a, shift, u_base, udot, h, beta,
                                              gamma, am, af)
            rebuild = counters[0] == 0
            refresh = True
            refreshed = False
            builds = 0
            previous = np.inf
            last = np.inf
            angles = angle_ref.copy()
            LU, piv, sc, rsc = N.no_factors(6 * nb + nr)
            err = 0.0
            rz = mz
            status = {not_converged}
            total = 0
            while total < {max_iterations}:
                total += 1
                r, phi, vals, vel, M, rz = ga_residual(D, tt, x1, q1, v1, w1, z1, angle_ref,
                                                       angles, True, udot, lam)
                if not N.finite(r, phi):
                    err = np.inf
                    break
                built_here = rebuild
                if rebuild:
                    ga_build(D, tt, x1, q1, v1, w1, z1, angle_ref, udot, lam, gp, r, vals,
                             Dtan, dV, mflat, mstart)
                    counters[0] += 1
                    N.keep_anchor(anchor, x1, q1, v1, w1, z1, udot, lam, tt, h)
                    rebuild = False
                    refresh = True
                    refreshed = False
                    builds += 1
                if refresh:
                    LU, piv, sc, rsc, ok = N.factor(Dtan, dV, lam, bp, M, vals, vrows, vcols,
                                                    colour, prow, pcol, nr)
                    counters[1] += 1
                    if not ok:
                        status = K.SINGULAR
                        break
                    refresh = False
                    previous = np.inf
                delta, dlam = N.solve(LU, piv, sc, rsc, r, phi, nb)
                b_udot, b_lam, b_x, b_q, b_v, b_w, b_z, b_a = udot, lam, x1, q1, v1, w1, z1, a1
                udot, lam, z1, err = N.update(udot, lam, delta, dlam, bp, cz, mz, rz, h, z1,
                                              scale)
                x1, q1, v1, w1, a1 = N.kinematics(cx, cq, base_a, shift, u_base, udot, h,
                                                  beta, gamma, am, af)
                if err <= {newton_tol}:
                    counters[2] += total
                    counters[3] += 1
                    N.velocity_correction(LU, piv, sc, rsc, vals, vrows, vcols, vel, v1, w1)
                    K.assign(angle_ref, angles)
                    status = K.OK
                    break
                if not err <= min(previous, {jump} * last):
                    if built_here or builds >= {max_builds}:
                        break
                    udot, lam, x1, q1, v1, w1, z1, a1 = (b_udot, b_lam, b_x, b_q, b_v, b_w,
                                                         b_z, b_a)
                    rebuild = True
                    continue
                rate = err / previous
                last = err
                needed = N.needed_iterations(err, rate)
                if needed > min(build_cost, {max_iterations} - total) and refreshed:
                    if builds >= {max_builds}:
                        break
                    rebuild = True
                elif needed > {refresh_after}:
                    refresh = True
                    refreshed = True
                previous = err
            # ---- the step's outcome
            if status == {not_converged}:
                if depth >= {max_halvings}:
                    return status, k - 1, h, err, total * 1000 + builds
                counters[4] += 1
                sh[top], st[top], sd[top] = 0.5 * h, tt, depth + 1
                sh[top + 1], st[top + 1], sd[top + 1] = 0.5 * h, tc + 0.5 * h, depth + 1
                top += 2
                continue
            if status != K.OK:
                return status, k - 1, 0.0, 0.0, 0
            cx, cq, cv, cw, cz = x1, q1, v1, w1, z1
            mup, mzp = mu, mz
            mu, ma, ml, mz = udot, a1, lam, rz
            hp = h
            tc = tt
        status, a, b = N.state_status(cx, cv, cw, {max_distance}, {max_speed})
        if status != K.OK:
            return status, k - 1, a, b, 0
        N.accepted(x, q, v, w, z, mem, h_prev, cx, cq, cv, cw, cz, mu, ma, ml, mz, mup, mzp,
                   hp)
        t = t1
    return K.OK, k1, 0.0, 0.0, 0
'''


# ------------------------------------------------------------------- loading, cache

_LOADED: dict[str, ModuleType] = {}


def _fingerprint(modules: set[str]) -> str:
    h = hashlib.sha256()
    h.update(f"{__version__} {numba.__version__} {np.__version__} {sys.version}".encode())
    for name in sorted(modules):
        mod = sys.modules.get(name) or importlib.import_module(name)
        try:
            h.update(inspect.getsource(mod).encode())
        except (OSError, TypeError):  # no source: its version stands for it
            h.update(f"{name} {getattr(mod, '__version__', '')}".encode())
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
    """A model's compiled functions with its data (see the module doc)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        source, modules = generate(model)
        self.source = source
        self.module = load_step(source, modules)
        self.data = model_data(model)

    # -- what the integrators call

    def advance_rk4(self, s: State, k0: int, k1: int, dt: float, t0: float) -> None:
        """rk4 steps ``k0 + 1 .. k1`` from ``s`` (in place); raises SimulationError on
        divergence with ``s`` at the last accepted step."""
        nb = self.model.nb_bodies
        y = s.pack()
        status, k, a, b, row = self.module.advance_rk4(
            self.data, y, s.angle_ref, float(s.t), float(t0), int(k0), int(k1), float(dt), nb)
        new = s.unpacked(y, float(t0 + k * dt) if k > k0 else s.t)
        s.set(new)
        if status != K.OK:
            raise_status(self.model, status, a, b, row)

    def evaluate(self, s: State, static: bool = False) -> tuple[Array, Array, Array]:
        """Accelerations ``(nb, 6)``, multipliers and state rates at ``s``."""
        empty = np.zeros((0, 0))
        udot, lam, zdot, ok = self.module.evaluate(
            self.data, float(s.t), *_arrays(s), s.angle_ref, static, False, empty, empty)
        if not ok:
            raise_status(self.model, K.SINGULAR, 0.0, 0.0, -1)
        return udot, lam, zdot

    def outputs(self, s: State) -> tuple[Array, Array, Array, Array]:
        """At ``s``: accelerations ``(nb, 6)``, the links' outputs ``(nl, 25)`` and the
        forces' ``(nf, 6)`` (layout in :mod:`.kernels`), and the multipliers."""
        out_links = np.zeros((len(self.model.link_names), 25))
        out_forces = np.zeros((len(self.model.force_names), 6))
        udot, lam, _, ok = self.module.evaluate(
            self.data, float(s.t), *_arrays(s), s.angle_ref, False, True, out_links,
            out_forces)
        if not ok:
            raise_status(self.model, K.SINGULAR, 0.0, 0.0, -1)
        return udot, out_links, out_forces, lam

    def project(self, s: State) -> float:
        """:func:`.evaluate.project` of a state after a step (not the initial one)."""
        status, worst, row = self.module.project(self.data, float(s.t), *_arrays(s),
                                                 s.angle_ref)
        if status != K.OK:
            raise_status(self.model, status, worst, 0.0, row)
        return float(worst)


def _arrays(s: State) -> tuple[Array, ...]:
    """``x, q, v, w, z`` of a state as contiguous float arrays."""
    return tuple(np.ascontiguousarray(a, dtype=float) for a in (s.x, s.q, s.v, s.w, s.z))


def raise_status(model: Model, status: int, a: float, b: float, row: int) -> None:
    """The :class:`SimulationError` of a compiled step's status (the Python path's
    messages, word for word)."""
    if status == K.NON_FINITE:
        raise SimulationError("non-finite body state")
    if status == K.RUNAWAY:
        raise SimulationError(
            f"the motion runs away (a body {a:.3g} m from the origin at {b:.3g} m/s): the "
            "time step is far too large for the integrator, or the model is unstable")
    if status == K.VIOLATED:
        link = model.link_names[model.row_link[row]] if row >= 0 else "?"
        raise SimulationError(
            f"constraint violation {a:.3g} after a step (worst link '{link}'); the step is "
            "too large for this model (reduce dt)")
    if status == K.SINGULAR:
        raise SimulationError("constraint system is singular: the matrix G M^-1 G^T is not "
                              "positive definite")
    raise SimulationError(f"compiled step failed with status {status}")


def compiled_step(model: Model) -> CompiledStep | None:
    """The model's compiled step (built once per model), or None when it runs on the
    Python path; the reason is kept in ``model.python_reason``."""
    cached = getattr(model, "_compiled", False)
    if cached is not False:
        return cached  # type: ignore[no-any-return]
    why = None if os.environ.get("FRYLINKS_PYTHON") != "1" else \
        "FRYLINKS_PYTHON=1 asks for the Python path"
    why = why or not_compiled(model)
    step = None if why else CompiledStep(model)
    model._compiled = step  # type: ignore[attr-defined]
    model.python_reason = why  # type: ignore[attr-defined]
    return step
