"""The compiled radiation memory: a state space, a direct convolution, or both.

Cummins' memory force on DOF ``r`` is ``y_r(t) = sum_c int_0^t K_rc(t - s) u_c(s) ds``
(``u`` the bodies' COG velocities and angular velocities). Each kernel entry ``K_rc`` is
computed one of two ways, chosen per entry by the ``radiation`` force type
(:mod:`frylinks_marine.bem`):

* **state space**: the entry's fitted system (:class:`~frylinks_marine.radiation.
  RadiationStateSpace`), whose states are integrated with the bodies (``z' = A z + B u``,
  ``y = C z``);
* **convolution**: the integral itself, by the trapezoidal rule over a history of the
  velocities kept on a uniform grid of spacing ``delta`` (the run's time step), in a
  ring buffer that is the type's memory (so a checkpoint carries it and a resumed run
  equals an uninterrupted one).

The convolution at a time ``tau`` between accepted steps (an rk4 stage, a Newton
iterate of generalized-alpha) is split at the last grid time ``g_J``: the grid part
``delta sum_m w_m K(tau - g_{J-m}) u_{J-m}`` (``w = 1/2`` at the ends) is the history's
and does not depend on the stage's velocity, and the last piece ``[g_J, tau]`` is the
trapezoid through the velocity at ``g_J``, at the last accepted state and at the stage
itself. The stage's own velocity thus enters through ``K(0) (tau - t_a) / 2``, as the
trapezoidal rule on the stage's interval requires, so the memory force is a function of
the stage state like every other force. ``K`` is tabulated every ``delta / 2`` (an rk4
mid-step stage reads the table, not an interpolation) and linear between; the grid part
at a given ``tau`` is kept for the next evaluation at the same time (rk4's two middle
stages, the projections at a step's end).

The grid is filled at accepted states (the type's ``accept`` kernel), by linear
interpolation of the velocity between the last two accepted states, so any sequence of
accepted times (adaptive steps too) fills it; with a fixed step equal to ``delta`` each
accepted state is one grid sample.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from frylinks.forces import ForceType
from frylinks.jit import alive, helper, kernel, scratch
from frylinks.kinematics import NodeFrames

from .dofs import put_wrench

Array = np.ndarray

# Columns of the convolution's clock (a memory array): the grid's first time, the number
# of grid samples pushed so far, and the time of the last accepted state.
ORIGIN, COUNT, ACCEPTED = 0, 1, 2


class RadiationMemory(ForceType):
    """The compiled part of a force type whose elements carry a radiation memory, each
    element on one body (attachment ``body``).

    The systems are *units*: one element's alone, or one system over several
    elements whose bodies interact (their cross-body kernels with the rest). A
    subclass sets, before :meth:`kernel_data` is asked for (after ``prepare``):

    * ``A (nz, nz)``, ``B (nz, 6 n)``, ``C (6 n, nz)``: the units' state spaces, block
      diagonal in the order of the units (element ``i`` reads ``xi'`` in columns
      ``6 i .. 6 i + 5`` of ``B`` and writes rows ``6 i .. 6 i + 5`` of ``C``);
    * ``units``: per unit, its elements and its state space (in the order of ``A``'s
      blocks);
    * ``_ratio (n,)``: the factor on each element's memory force (water density ratio);
    * ``nb_states = nz``;
    * the convolved entries (:meth:`set_convolution`): their rows and columns over the
      ``6 n`` DOFs, their kernels tabulated every ``delta / 2``, and ``delta``.
    """

    memory = ("conv_clock", "conv_history", "conv_velocity")

    A: Array
    B: Array
    C: Array
    units: list[tuple[list[int], Any]]
    _ratio: Array

    def set_convolution(self, rows: Array, cols: Array, tables: list[Array],
                        delta: float) -> None:
        """The entries convolved directly: ``rows``, ``cols`` ``(ne,)`` over the ``6 n``
        DOFs, each entry's kernel ``K(p delta / 2)``, ``p = 0, 1, ...`` (zero beyond
        its table), on a grid of spacing ``delta`` [s]; resets the history."""
        n = self.nb_forces
        self.conv_rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        self.conv_cols = np.asarray(cols, dtype=np.int64).reshape(-1)
        sizes = [len(t) for t in tables]
        self.conv_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.conv_table = (np.concatenate(tables).astype(np.float64) if tables
                           else np.zeros(0))
        # the ring holds every sample a kernel reaches, one more for a stage past the grid
        longest = max([(s - 1) // 2 for s in sizes], default=0)
        self.conv_delta = np.array([float(delta)])
        self.conv_history = np.zeros((longest + 2, n, 6))
        self.conv_velocity = np.zeros((n, 6))
        self.conv_clock = np.array([0.0, 0.0, 0.0])
        # the grid part of the last two evaluation times: (time, count, values...)
        self.conv_cache = np.full((2, 2 + self.conv_rows.size), np.nan)
        self.conv_work = np.zeros(6 * n)  # (the convolved part of each evaluation)

    def reset_convolution(self) -> None:
        """Forget the history (a new run)."""
        self.conv_history[...] = 0.0
        self.conv_velocity[...] = 0.0
        self.conv_clock[...] = 0.0
        self.conv_cache[...] = np.nan

    def kernel_data(self) -> tuple[Any, ...]:
        if not hasattr(self, "conv_rows"):
            self.set_convolution(np.zeros(0), np.zeros(0), [], 1.0)
        counts = [ss.nb_states for _, ss in self.units]
        zstart = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        sizes = [len(members) for members, _ in self.units]
        mstart = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        members = np.array([e for m, _ in self.units for e in m], dtype=np.int64)
        A, B, C, ratio = (np.ascontiguousarray(m, dtype=np.float64)
                          for m in (self.A, self.B, self.C, self._ratio))
        # each row's nonzero columns of A, a range: A is block diagonal (one block per
        # kernel entry), and a unit of interacting bodies has hundreds of states
        nz = A.shape[0]
        lo, hi = np.zeros(nz, dtype=np.int64), np.zeros(nz, dtype=np.int64)
        for r in range(nz):
            cols = np.flatnonzero(A[r])
            lo[r], hi[r] = (cols[0], cols[-1] + 1) if cols.size else (r, r)
        return (A, B, C, ratio, zstart, mstart, members, lo, hi,
                self.conv_rows, self.conv_cols, self.conv_start, self.conv_table,
                self.conv_clock, self.conv_history, self.conv_velocity, self.conv_cache,
                self.conv_delta, self.conv_work)


@helper
def table_value(table: Array, first: int, stop: int, x: float) -> float:
    """An entry's kernel at ``x`` half-steps (``table[first:stop]``, linear between its
    samples, zero beyond)."""
    p = math.floor(x)
    s = x - p
    out = 0.0
    if first + p < stop:
        out = (1.0 - s) * table[first + p]
        if s > 0.0 and first + p + 1 < stop:
            out += s * table[first + p + 1]
    return out


@helper
def grid_part(data: tuple[Any, ...], t: float, e: int) -> float:
    """The history's part of entry ``e``'s convolution at ``t``: the trapezoidal rule
    over the grid up to its last time."""
    cols, start, table, clock, hist, delta = (data[10], data[11], data[12], data[13],
                                              data[14], data[17][0])
    last = int(clock[COUNT]) - 1
    x = max(2.0 * (t - (clock[ORIGIN] + last * delta)) / delta, 0.0)
    p = math.floor(x)
    s = x - p
    first, stop = start[e], start[e + 1]
    ring = hist.shape[0]
    body, dof = cols[e] // 6, cols[e] % 6
    # the samples m = 0 .. top (newest first) the table reaches, K at 2 m + p (and + 1)
    top = min(last, (stop - first - 2 - p) // 2) if s > 0.0 else \
        min(last, (stop - first - 1 - p) // 2)
    acc = 0.0
    if top >= 0:
        # (the ring read newest first in at most two runs, without a modulo a sample)
        newest = last % ring
        m = 0
        for run in range(2):
            slot = newest if run == 0 else ring - 1
            count = min(top + 1 - m, slot + 1)
            k = first + 2 * m + p
            if s > 0.0:
                for _ in range(count):
                    acc += ((1.0 - s) * table[k] + s * table[k + 1]) * hist[slot, body, dof]
                    k += 2
                    slot -= 1
            else:
                for _ in range(count):
                    acc += table[k] * hist[slot, body, dof]
                    k += 2
                    slot -= 1
            m += count
        # the trapezoid's half weights at the ends: the newest sample, the first one
        k = first + p
        acc -= 0.5 * ((1.0 - s) * table[k] + (s * table[k + 1] if s > 0.0 else 0.0)) \
            * hist[newest, body, dof]
        if top == last:
            k = first + 2 * last + p
            acc -= 0.5 * ((1.0 - s) * table[k] + (s * table[k + 1] if s > 0.0 else 0.0)) \
                * hist[0 if last < ring else (newest - last) % ring, body, dof]
    return acc * delta


@kernel
def convolution_memory(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                       y: Array) -> None:
    """The convolved entries' memory ``sum_c int K_rc u_c`` added into ``y (6 n,)``
    (before the density ratio), at time ``t`` with the velocities of ``frames[0]``."""
    rows, cols, start, table = data[9], data[10], data[11], data[12]
    clock, velocity, cache, delta = data[13], data[15], data[16], data[17][0]
    f = frames[0]
    ne = rows.shape[0]
    count = clock[COUNT]
    if ne > 0 and count > 0.0:
        slot = -1
        for c in range(2):
            if cache[c, 0] == t and cache[c, 1] == count:
                slot = c
        if slot < 0:  # (a slot never used, else the older one, makes room)
            slot = 0
            if math.isnan(cache[0, 0]):
                slot = 0
            elif math.isnan(cache[1, 0]):
                slot = 1
            elif cache[1, 1] < cache[0, 1] or (cache[1, 1] == cache[0, 1]
                                               and cache[1, 0] < cache[0, 0]):
                slot = 1
            for e in range(ne):
                cache[slot, 2 + e] = grid_part(data, t, e)
            cache[slot, 0] = t
            cache[slot, 1] = count
        last_grid = clock[ORIGIN] + (count - 1.0) * delta
        t_a = clock[ACCEPTED]
        hist = data[14]
        ring = hist.shape[0]
        newest = (int(count) - 1) % ring
        for e in range(ne):
            first, stop = start[e], start[e + 1]
            body, dof = cols[e] // 6, cols[e] % 6
            u_now = f.v[body, dof] if dof < 3 else f.w[body, dof - 3]
            acc = cache[slot, 2 + e]
            k_a = table_value(table, first, stop, max(2.0 * (t - t_a) / delta, 0.0))
            if t_a > last_grid + 1e-9 * delta:  # (the grid's last time to the accepted)
                k_g = table_value(table, first, stop, max(2.0 * (t - last_grid) / delta, 0.0))
                acc += 0.5 * (t_a - last_grid) * (k_g * hist[newest, body, dof]
                                                  + k_a * velocity[body, dof])
            if t > t_a:
                acc += 0.5 * (t - t_a) * (k_a * velocity[body, dof] + table[first] * u_now)
            y[rows[e]] += acc
    alive(rows)
    alive(cols)
    alive(start)
    alive(table)
    alive(clock)
    alive(velocity)
    alive(cache)


@kernel
def radiation_accept(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     signals: Array, states: Array) -> None:
    """At an accepted state: the velocities at the grid times up to ``t``, linear
    between this state and the last accepted one, into the history."""
    rows, clock, hist, velocity, delta = data[9], data[13], data[14], data[15], data[17][0]
    f = frames[0]
    n = velocity.shape[0]
    ring = hist.shape[0]
    if rows.shape[0] > 0:
        now = scratch(6)
        if clock[COUNT] == 0.0:
            clock[ORIGIN] = t
            clock[ACCEPTED] = t
        t_a = clock[ACCEPTED]
        while True:
            count = int(clock[COUNT])
            g = clock[ORIGIN] + count * delta
            if g > t + 1e-9 * delta:
                break
            s = 1.0 if (t - g <= 1e-9 * delta or t <= t_a) else (g - t_a) / (t - t_a)
            slot = count % ring
            for i in range(n):
                for k in range(3):
                    now[k] = f.v[i, k]
                    now[3 + k] = f.w[i, k]
                for k in range(6):
                    hist[slot, i, k] = now[k] if s == 1.0 else \
                        (1.0 - s) * velocity[i, k] + s * now[k]
            clock[COUNT] = count + 1.0
        for i in range(n):
            for k in range(3):
                velocity[i, k] = f.v[i, k]
                velocity[i, 3 + k] = f.w[i, k]
        clock[ACCEPTED] = t
    alive(rows)
    alive(clock)
    alive(hist)
    alive(velocity)


@helper
def element_memory(data: tuple[Any, ...], states: Array, conv: Array, u: int, i: int,
                   out: Array) -> None:
    """The memory force ``ratio (C z + conv)`` of element ``i`` of unit ``u`` into
    ``out (6,)`` (``conv (6 n,)``: the convolved entries' part)."""
    C, ratio, zstart = data[2], data[3], data[4]
    for k in range(6):
        acc = conv[6 * i + k]
        for j in range(zstart[u], zstart[u + 1]):
            acc += C[6 * i + k, j] * states[j]
        out[k] = acc * ratio[i]


@kernel
def radiation_memory(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     states: Array, out: Array) -> None:
    """The memory force ``ratio (C z + conv)`` of each element into ``out (n, 6)``."""
    zstart, mstart, members, conv = data[4], data[5], data[6], data[18]
    conv[:] = 0.0
    convolution_memory(data, frames, t, conv)
    for u in range(len(zstart) - 1):
        for m in range(mstart[u], mstart[u + 1]):
            element_memory(data, states, conv, u, members[m], out[members[m]])
    alive(conv)


@kernel
def radiation_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                       signals: Array, gravity: Array, states: Array, static: bool,
                       force: Array, torque: Array) -> None:
    """The radiation memory force ``-ratio (C z + conv)`` at each COG (the ``-A_inf
    u'`` part is in the mass matrix)."""
    zstart, mstart, members, conv = data[4], data[5], data[6], data[18]
    gen = scratch(6)
    conv[:] = 0.0
    convolution_memory(data, frames, t, conv)
    for u in range(len(zstart) - 1):
        for m in range(mstart[u], mstart[u + 1]):
            i = members[m]
            element_memory(data, states, conv, u, i, gen)
            for k in range(6):
                gen[k] = -gen[k]
            put_wrench(gen, force[i, 0], torque[i, 0])
    alive(zstart)
    alive(mstart)
    alive(members)
    alive(conv)


@kernel
def radiation_state_derivative(data: tuple[Any, ...], frames: tuple[NodeFrames, ...],
                               t: float, signals: Array, states: Array, out: Array) -> None:
    """``z' = A z + B xi'``, each unit's block fed by its elements' body velocities."""
    A, B, zstart, mstart, members = data[0], data[1], data[4], data[5], data[6]
    lo, hi = data[7], data[8]
    f = frames[0]
    for u in range(len(zstart) - 1):
        for r in range(zstart[u], zstart[u + 1]):
            acc = 0.0
            for j in range(lo[r], hi[r]):  # (A's other entries of the row are zero)
                acc += A[r, j] * states[j]
            feed = 0.0
            for m in range(mstart[u], mstart[u + 1]):
                i = members[m]
                for k in range(3):
                    feed += B[r, 6 * i + k] * f.v[i, k]
                for k in range(3):
                    feed += B[r, 6 * i + 3 + k] * f.w[i, k]
            out[r] = acc + feed
