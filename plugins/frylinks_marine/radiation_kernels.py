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
        # each table kept split by parity, K(j delta) and K((j + 1/2) delta): a grid part
        # reads every other sample, so each read is a contiguous run (a plain dot product)
        halves = [part for t in tables for part in (t[0::2], t[1::2])]
        self.conv_phase_start = np.concatenate(
            [[0], np.cumsum([len(h) for h in halves])]).astype(np.int64)
        self.conv_phase = (np.concatenate(halves).astype(np.float64) if halves
                           else np.zeros(0))
        # the ring holds every sample a kernel reaches, one more for a stage past the grid;
        # newest first and written twice (at slot and slot + ring), so the history from
        # any sample back is one contiguous run; DOF major, a DOF's samples side by side
        longest = max([(s - 1) // 2 for s in sizes], default=0)
        self.conv_delta = np.array([float(delta)])
        self.conv_history = np.zeros((n, 6, 2 * (longest + 2)))
        self.conv_velocity = np.zeros((n, 6))
        self.conv_clock = np.array([0.0, 0.0, 0.0])
        # the grid part of the last two evaluation times: (time, count, values...)
        self.conv_cache = np.full((2, 2 + self.conv_rows.size), np.nan)
        # (the memory of each evaluation, and the spare entry the rows of C fill write to)
        self.conv_work = np.zeros(6 * n + 1)

    def reset_convolution(self) -> None:
        """Forget the history (a new run)."""
        self.conv_history[...] = 0.0
        self.conv_velocity[...] = 0.0
        self.conv_clock[...] = 0.0
        self.conv_cache[...] = np.nan

    def kernel_data(self) -> tuple[Any, ...]:
        """The step's data: the state space as rows of equal length (:func:`_rows`),
        ``z' = A z + B xi'`` over the inputs ``(z, xi', 0)``, room for the inputs, the
        density ratio per DOF, ``C`` by rows (:func:`_csr`: the starts and values at 4
        and 5, the columns at 16), then the convolution's (indices 6 to 15)."""
        if not hasattr(self, "conv_rows"):
            self.set_convolution(np.zeros(0), np.zeros(0), [], 1.0)
        nz, n6 = np.shape(self.A)[0], 6 * self.nb_forces
        rate_idx, rate_val = _rows(np.hstack([np.reshape(self.A, (nz, nz)),
                                              np.reshape(self.B, (nz, n6))]), nz + n6)
        out_start, out_col, out_val = _csr(np.reshape(self.C, (n6, nz)))
        ratio = np.repeat(np.asarray(self._ratio, dtype=np.float64), 6)
        return (rate_idx, rate_val, np.zeros(nz + n6 + 1), ratio, out_start, out_val,
                self.conv_rows, self.conv_cols, self.conv_phase_start, self.conv_phase,
                self.conv_clock, self.conv_history, self.conv_velocity, self.conv_cache,
                self.conv_delta, self.conv_work, out_col)


def _rows(m: Array, spare: int) -> tuple[Array, Array]:
    """The nonzero entries of each row of ``m`` as rows of equal length (the longest
    row's), in column order, stored entry-major: their columns ``(width, rows)`` and
    values; a shorter row is filled with zeros at column ``spare``. A fitted state space
    is sparse and even (in modal form each state reads two states and one velocity), so
    the step loops over the entries, each over every row: the rows' sums do not wait on
    one another, as they would row by row."""
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))
    nonzero = m != 0.0
    width = int(nonzero.sum(axis=1).max(initial=0))
    idx = np.full((width, m.shape[0]), spare, dtype=np.int64)
    val = np.zeros((width, m.shape[0]))
    for r in range(m.shape[0]):
        cols = np.flatnonzero(nonzero[r])
        idx[:cols.size, r] = cols
        val[:cols.size, r] = m[r, cols]
    return idx, val


def _csr(m: Array) -> tuple[Array, Array, Array]:
    """The nonzero entries of ``m`` by rows (compressed sparse rows): each row's start
    ``(rows + 1,)``, then the entries' columns and values, in column order. ``C z``
    is summed so, row by row in a register: as entries by state (each adding into its
    row of ``y``), the sixteen states of a DOF each waited on the last one's store (the
    point absorber's step 14.2-14.5 us against 13.5-13.7 us by rows, November 29)."""
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))
    rows, cols = np.nonzero(m)  # (row major: each row's columns ascending)
    start = np.searchsorted(rows, np.arange(m.shape[0] + 1)).astype(np.int64)
    return start, cols.astype(np.int64), m[rows, cols]


@helper
def table_size(phase_start: Array, e: int) -> int:
    """How many samples entry ``e``'s kernel table holds (both parities)."""
    return phase_start[2 * e + 2] - phase_start[2 * e]


@helper
def sample(phase: Array, phase_start: Array, e: int, j: int) -> float:
    """Entry ``e``'s kernel at ``j`` half-steps, ``K(j delta / 2)`` (``j`` within its
    table): in the table of ``j``'s parity, at ``j // 2``."""
    return phase[phase_start[2 * e + j % 2] + j // 2]


@helper
def table_value(phase: Array, phase_start: Array, e: int, x: float) -> float:
    """Entry ``e``'s kernel at ``x`` half-steps, linear between its samples, zero
    beyond its table."""
    p = math.floor(x)
    s = x - p
    size = table_size(phase_start, e)
    out = 0.0
    if p < size:
        out = (1.0 - s) * sample(phase, phase_start, e, p)
        if s > 0.0 and p + 1 < size:
            out += s * sample(phase, phase_start, e, p + 1)
    return out


@helper
def dot(a: Array, i: int, b: Array, j: int, count: int) -> float:
    """``sum_m a[i + m] b[j + m]`` over ``m < count``, in four running sums (their
    additions do not wait on one another: several times faster than one sum)."""
    s0 = s1 = s2 = s3 = 0.0
    m = 0
    while m + 4 <= count:
        s0 += a[i + m] * b[j + m]
        s1 += a[i + m + 1] * b[j + m + 1]
        s2 += a[i + m + 2] * b[j + m + 2]
        s3 += a[i + m + 3] * b[j + m + 3]
        m += 4
    while m < count:
        s0 += a[i + m] * b[j + m]
        m += 1
    return (s0 + s1) + (s2 + s3)


@helper
def newest_slot(hist: Array, count: int) -> int:
    """Where the history's newest of ``count`` samples is (samples go newest first,
    backwards through the ring, each written at ``slot`` and ``slot + ring``)."""
    ring = hist.shape[2] // 2
    return ring - 1 - (count - 1) % ring


@kernel
def grid_part(data: tuple[Any, ...], t: float, e: int) -> float:
    """The history's part of entry ``e``'s convolution at ``t``: the trapezoidal rule
    over the grid up to its last time."""
    cols, phase_start, phase, clock, hist, delta = (data[7], data[8], data[9], data[10],
                                                    data[11], data[14][0])
    last = int(clock[COUNT]) - 1
    x = max(2.0 * (t - (clock[ORIGIN] + last * delta)) / delta, 0.0)
    p = math.floor(x)
    s = x - p
    size = table_size(phase_start, e)
    body, dof = cols[e] // 6, cols[e] % 6
    # the samples m = 0 .. top (newest first) the table reaches, K at 2 m + p (and + 1)
    top = min(last, (size - 2 - p) // 2) if s > 0.0 else min(last, (size - 1 - p) // 2)
    acc = 0.0
    if top >= 0:
        run = hist[body, dof]
        newest = newest_slot(hist, last + 1)
        # K(2 m + p) is the parity table p % 2 at p // 2 + m (and K(2 m + p + 1) the
        # other one, at (p + 1) // 2 + m)
        at = phase_start[2 * e + p % 2] + p // 2
        acc = dot(phase, at, run, newest, top + 1)
        if s > 0.0:
            other = phase_start[2 * e + (p + 1) % 2] + (p + 1) // 2
            acc = (1.0 - s) * acc + s * dot(phase, other, run, newest, top + 1)
        # the trapezoid's half weights at the ends: the newest sample, the first one
        acc -= 0.5 * table_value(phase, phase_start, e, x) * run[newest]
        if top == last:
            acc -= 0.5 * table_value(phase, phase_start, e, x + 2 * last) * run[newest + last]
    return acc * delta


@kernel
def convolution_memory(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                       y: Array) -> None:
    """The convolved entries' memory ``sum_c int K_rc u_c`` added into ``y (6 n,)``
    (before the density ratio), at time ``t`` with the velocities of ``frames[0]``."""
    rows, cols, phase_start, phase = data[6], data[7], data[8], data[9]
    clock, velocity, cache, delta = data[10], data[12], data[13], data[14][0]
    f = frames[0]
    ne = rows.shape[0]
    count = clock[COUNT]
    if ne > 0 and count > 0.0:
        slot = -1
        for c in range(2):
            if cache[c, 0] == t and cache[c, 1] == count:
                slot = c
        if slot < 0:  # (a slot never used, else the older one, makes room)
            older = cache[1, 1] < cache[0, 1] or (cache[1, 1] == cache[0, 1]
                                                  and cache[1, 0] < cache[0, 0])
            slot = 1 if not math.isnan(cache[0, 0]) and (math.isnan(cache[1, 0])
                                                          or older) else 0
            for e in range(ne):
                cache[slot, 2 + e] = grid_part(data, t, e)
            cache[slot, 0] = t
            cache[slot, 1] = count
        last_grid = clock[ORIGIN] + (count - 1.0) * delta
        t_a = clock[ACCEPTED]
        hist = data[11]
        newest = newest_slot(hist, int(count))
        for e in range(ne):
            body, dof = cols[e] // 6, cols[e] % 6
            u_now = f.v[body, dof] if dof < 3 else f.w[body, dof - 3]
            acc = cache[slot, 2 + e]
            k_a = table_value(phase, phase_start, e, max(2.0 * (t - t_a) / delta, 0.0))
            if t_a > last_grid + 1e-9 * delta:  # (the grid's last time to the accepted)
                k_g = table_value(phase, phase_start, e,
                                  max(2.0 * (t - last_grid) / delta, 0.0))
                acc += 0.5 * (t_a - last_grid) * (k_g * hist[body, dof, newest]
                                                  + k_a * velocity[body, dof])
            if t > t_a:
                acc += 0.5 * (t - t_a) * (k_a * velocity[body, dof]
                                       + sample(phase, phase_start, e, 0) * u_now)
            y[rows[e]] += acc
    alive(rows)
    alive(cols)
    alive(phase_start)
    alive(phase)
    alive(clock)
    alive(velocity)
    alive(cache)


@kernel
def radiation_accept(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     signals: Array, states: Array) -> None:
    """At an accepted state: the velocities at the grid times up to ``t``, linear
    between this state and the last accepted one, into the history."""
    rows, clock, hist, velocity, delta = data[6], data[10], data[11], data[12], data[14][0]
    f = frames[0]
    n = velocity.shape[0]
    ring = hist.shape[2] // 2
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
            slot = newest_slot(hist, count + 1)
            for i in range(n):
                for k in range(3):
                    now[k] = f.v[i, k]
                    now[3 + k] = f.w[i, k]
                for k in range(6):
                    u = now[k] if s == 1.0 else (1.0 - s) * velocity[i, k] + s * now[k]
                    hist[i, k, slot] = u
                    hist[i, k, slot + ring] = u
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
def state_memory(data: tuple[Any, ...], states: Array, y: Array) -> None:
    """The states' part of the memory, ``C z``, added into ``y (6 n + 1,)`` (each
    row's states in their order, as a sum by state would add them)."""
    start, val, col = data[4], data[5], data[16]
    for r in range(start.shape[0] - 1):
        s = y[r]
        for p in range(start[r], start[r + 1]):
            s += val[p] * states[col[p]]
        y[r] = s


@kernel
def radiation_memory(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     states: Array, out: Array) -> None:
    """The memory force ``ratio (C z + conv)`` of each element into ``out (n, 6)``."""
    ratio, y = data[3], data[15]
    y[:] = 0.0
    convolution_memory(data, frames, t, y)
    state_memory(data, states, y)
    for i in range(out.shape[0]):
        for k in range(6):
            out[i, k] = y[6 * i + k] * ratio[6 * i + k]
    alive(y)


@kernel
def radiation_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                       signals: Array, gravity: Array, states: Array, static: bool,
                       force: Array, torque: Array) -> None:
    """The radiation memory force ``-ratio (C z + conv)`` at each COG (the ``-A_inf
    u'`` part is in the mass matrix)."""
    ratio, y = data[3], data[15]
    gen = scratch(6)
    y[:] = 0.0
    convolution_memory(data, frames, t, y)
    state_memory(data, states, y)
    for i in range(force.shape[0]):
        for k in range(6):
            gen[k] = -y[6 * i + k] * ratio[6 * i + k]
        put_wrench(gen, force[i, 0], torque[i, 0])
    alive(ratio)
    alive(y)


@kernel
def radiation_state_derivative(data: tuple[Any, ...], frames: tuple[NodeFrames, ...],
                               t: float, signals: Array, states: Array, out: Array) -> None:
    """``z' = A z + B xi'``, each state's row over the inputs ``(z, xi', 0)``
    (:func:`_rows`)."""
    rate_idx, rate_val, inputs = data[0], data[1], data[2]
    nz = states.shape[0]
    f = frames[0]
    # the inputs (z, xi', 0) side by side: each state then reads its row by index
    # (this runs at every stage, for tens of states an element)
    for r in range(nz):
        inputs[r] = states[r]
    for i in range(f.v.shape[0]):
        for d in range(3):
            inputs[nz + 6 * i + d] = f.v[i, d]
            inputs[nz + 6 * i + 3 + d] = f.w[i, d]
    for r in range(nz):
        out[r] = 0.0
    for k in range(rate_idx.shape[0]):  # (each row's sum in the order of its entries)
        for r in range(nz):
            out[r] += rate_val[k, r] * inputs[rate_idx[k, r]]
    alive(inputs)
