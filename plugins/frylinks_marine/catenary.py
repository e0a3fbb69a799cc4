"""Quasi-static elastic catenary of mooring lines, solved for many lines at once.

A line of unstretched length ``L``, submerged weight ``w`` per unit length and axial
stiffness ``EA`` hangs in the vertical plane through its two ends, from the anchor on a
flat seabed (at the anchor's level) to the fairlead, at horizontal distance ``X`` and
height ``Z >= 0`` above the anchor. The unknowns are the fairlead tension's horizontal
and vertical components ``H`` and ``V`` (the line pulls the fairlead towards the anchor
and down). With ``c = 1 / EA`` (0 for an inextensible line) the shape equations are
those of FAST v7, MAP++ and MoorPy (Jonkman 2007, eqs. 2-38 and 2-55):

* **fully suspended** (``V >= w L``; ``V_A = V - w L >= 0`` lifts the anchor)::

      X = H/w [asinh(V/H) - asinh(V_A/H)] + c H L
      Z = H/w [sqrt(1 + (V/H)^2) - sqrt(1 + (V_A/H)^2)] + c (V L - w L^2 / 2)

* **partly on the seabed** over ``L_B = L - V / w`` (``V < w L``), with seabed friction
  ``C_B``: the tension along the laid part falls by ``C_B w`` per metre from ``H`` at
  the touchdown point, and is zero beyond ``x_B = L_B - H / (C_B w)`` when that is
  positive::

      X = L_B + H/w asinh(V/H) + c H L - c C_B w / 2 (L_B^2 - max(x_B, 0)^2)
      Z = H/w [sqrt(1 + (V/H)^2) - 1] + c V^2 / (2 w)

They are solved by Newton's method, line by line in a compiled kernel
(:func:`solve_line`, :func:`solve_lines`; the one implementation, which :func:`solve`
and the ``catenary_line`` force type call), from a previous solution (a warm start) or
from the line's inextensible catenary (:func:`_initial_guess`). A step never takes away
more than 90 % of ``H`` or ``V`` (they stay positive) and is halved until the residual
falls (Armijo's rule). The suspended
equations are evaluated in forms without cancellation (:func:`_suspended`), so that a
taut line, whose ``H / w`` is far larger than ``L``, keeps its digits. A line's
iterations stop at the first iterate whose Newton step is below ``RTOL (H + V)`` (or
below ``NOISY_RTOL (H + V)`` with a residual at round-off level), and that iterate is
returned **without the step**: started again from its own answer, a line stops at once
and returns it unchanged, so a warm-started evaluation is reproducible to the bit (a
resumed run equals the uninterrupted one). A line that fails from a warm start is tried
again from the initial guess.

Three cases have a closed form and skip the iterations:

* **slack** (``X <= L - L_s``, with ``L_s`` the unstretched length hanging straight
  down from the fairlead to the seabed, ``L_s + c w L_s^2 / 2 = Z``): the line hangs
  vertically and the rest lies slack on the seabed; ``H = 0``, ``V = w L_s``, no load on
  the anchor (MoorPy's profile 4). It includes a vertical line reaching the seabed;
* **taut vertical** (``X = 0`` to round-off, not slack): ``H = 0``,
  ``V = (Z - L) / (c L) + w L / 2``;
* **on the seabed** (``Z = 0``, longer than the line): stretched along the seabed by
  ``H`` with friction (MoorPy's profile 0).

Lines that cannot hang between their ends raise :class:`~frylinks.errors.SimulationError`
naming the line: a fairlead below the seabed (``Z < 0``), an inextensible line not
longer than the straight distance between its ends, a line stretched by more than 100 %
(``T > EA``), or iterations that do not converge. The kernel cannot raise: it returns a
status code per line (:data:`FAILURES`) with the values the message shows, and
:func:`raise_failure` turns them into that error.

References
----------
J. M. Jonkman, *Dynamics modeling and loads analysis of an offshore floating wind
turbine*, NREL/TP-500-41958, 2007, section 2.3 (the equations above, FAST v7).
M. Masciola, J. Jonkman, A. Robertson, *Implementation of a multisegmented, quasi-static
cable model*, ISOPE 2013 (MAP).
M. Hall et al., MoorPy, ``moorpy.Catenary.catenary`` (NREL, 2020-2024).
B. R. Peyrot, A. M. Goulois, *Analysis of cable structures*, Computers & Structures 10,
1979 (the initial guess).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from frylinks.errors import SimulationError
from frylinks.jit import kernel

Array = np.ndarray

#: A line's iterations stop when the Newton step is below ``RTOL * (H + V)``; the step
#: then measures the error left, and is usually far smaller (quadratic convergence).
RTOL = 1e-12
#: ... or below ``NOISY_RTOL (H + V)`` with the residual of both shape equations below
#: ``RESIDUAL_EPS (L + X + Z)``, the round-off of the sums of lengths in the equations
#: (which limits the accuracy of a taut stiff line's step).
NOISY_RTOL = 1e-9
RESIDUAL_EPS = 16 * np.finfo(float).eps
#: Iterations from a warm start before trying again from the initial guess, and from the
#: initial guess before a line is given up.
WARM_ITERATIONS = 20
MAX_ITERATIONS = 100
#: A Newton step takes at most this fraction of ``H`` or ``V`` away.
MAX_DECREASE = 0.9
#: Heights ``Z`` down to ``-Z_TOLERANCE L`` count as a fairlead on the seabed; a fairlead
#: at ``X <= VERTICAL L`` is straight above its anchor.
Z_TOLERANCE = 1e-12
VERTICAL = 1e-14
#: Steps halved at most this many times to decrease the residual (Armijo's rule with
#: ``ARMIJO``), except within ``NEAR (L + X + Z)`` of the solution.
HALVINGS = 40
ARMIJO = 1e-4
NEAR = 1e-6
#: Bisections of the initial guess (18 decades of ``H / w`` to 4e-5).
BISECTIONS = 20
#: A line whose fairlead tension exceeds ``MAX_STRAIN * EA`` is refused.
MAX_STRAIN = 1.0

#: Status codes of a line (:func:`solve_line`): 0 solved, else the first check it fails,
#: in the order the checks are made.
OK, NON_FINITE, BELOW_SEABED, TOO_SHORT, NO_CONVERGENCE, OVERSTRETCHED = range(6)
#: Per failure code: what the message says, and the values it shows (``"name [units]"``,
#: the columns of the ``info`` rows the kernel fills).
FAILURES: dict[int, tuple[str, tuple[str, ...]]] = {
    NON_FINITE: ("non-finite fairlead position", ("X [m]", "Z [m]")),
    BELOW_SEABED: ("the fairlead is below the seabed (the anchor's level)", ("Z [m]",)),
    TOO_SHORT: ("an inextensible line must be longer than the straight distance between "
                "its ends (or give it an axial stiffness)", ("distance [m]", "L [m]")),
    NO_CONVERGENCE: (f"no convergence in {MAX_ITERATIONS} iterations",
                     ("X [m]", "Z [m]", "L [m]")),
    OVERSTRETCHED: (f"stretched by more than {MAX_STRAIN:.0%} (fairlead tension above EA); "
                    "check the anchor, length and axial_stiffness", ("tension [N]", "EA [N]")),
}
#: Columns of a line's row of results (:func:`solve_line`).
NB_RESULTS = 8

#: The shape equations' errors and Jacobian: ``rx, rz, dX/dH, dX/dV, dZ/dH, dZ/dV``.
Residual = tuple[float, float, float, float, float, float]


@dataclass(frozen=True)
class CatenarySolution:
    """Tensions and seabed contact of ``n`` lines; every attribute has shape ``(n,)``.

    Attributes
    ----------
    horizontal, vertical
        Fairlead tension components ``H``, ``V`` [N]: the line pulls the fairlead by
        ``H`` towards the anchor (horizontally) and by ``V`` down.
    tension
        Fairlead tension ``sqrt(H^2 + V^2)`` [N].
    anchor_horizontal, anchor_vertical
        The line's pull on the anchor [N]: towards the fairlead (horizontally), and up.
    anchor_tension
        Tension at the anchor [N].
    laid_length
        Unstretched length resting on the seabed [m].
    iterations
        Newton iterations made (0 for closed forms and converged warm starts).
    """

    horizontal: Array
    vertical: Array
    tension: Array
    anchor_horizontal: Array
    anchor_vertical: Array
    anchor_tension: Array
    laid_length: Array
    iterations: Array


def solve(horizontal_distance: Array, height: Array, length: Array, weight: Array,
          axial_stiffness: Array | float = np.inf, seabed_friction: Array | float = 0.0,
          guess: Array | None = None, names: Sequence[str] | None = None
          ) -> CatenarySolution:
    """Solve the catenaries of ``n`` lines (module doc).

    Parameters
    ----------
    horizontal_distance : (n,) array_like
        ``X >= 0``, anchor to fairlead [m].
    height : (n,) array_like
        ``Z``, fairlead above the anchor [m]; must not be negative.
    length : (n,) array_like
        Unstretched length ``L > 0`` [m].
    weight : (n,) array_like
        Submerged weight per unit length ``w > 0`` [N m-1].
    axial_stiffness : (n,) array_like or float
        ``EA > 0`` [N]; ``inf`` for an inextensible line.
    seabed_friction : (n,) array_like or float
        Coefficient ``C_B >= 0`` of the friction on the laid part [1].
    guess : (n, 2) array_like, optional
        Warm start ``[H, V]`` per line, such as a previous solution; rows that are not
        positive and finite take the initial guess.
    names : sequence of str, optional
        How error messages name each line (default: ``catenary line 0``, ...).

    Returns
    -------
    CatenarySolution

    Raises
    ------
    SimulationError
        A line that cannot hang between its ends (module doc), naming it.
    """
    x, z, L, w = (np.ascontiguousarray(a, dtype=float).reshape(-1)
                  for a in (horizontal_distance, height, length, weight))
    n = x.size
    with np.errstate(divide="ignore"):
        c = 1.0 / np.broadcast_to(np.asarray(axial_stiffness, dtype=float), (n,))
    cb = np.broadcast_to(np.asarray(seabed_friction, dtype=float), (n,)).copy()
    g = (np.zeros((n, 2)) if guess is None
         else np.array(guess, dtype=float).reshape(n, 2))
    out = np.zeros((n, NB_RESULTS))
    code = np.zeros(n, dtype=np.int64)
    info = np.zeros((n, 3))
    solve_lines(x, z, L, w, np.ascontiguousarray(c), cb, g, out, code, info)
    raise_failure(code, info, names)
    return solution(out)


def solution(out: Array) -> CatenarySolution:
    """The :class:`CatenarySolution` of the kernel's results ``(n, NB_RESULTS)``."""
    h, v, t, ah, av, at, laid = (out[:, k].copy() for k in range(7))
    return CatenarySolution(h, v, t, ah, av, at, laid, out[:, 7].astype(int))


def failure(code: Array, info: Array, names: Sequence[str] | None = None) -> str | None:
    """The message of the lines' status ``code (n,)`` and ``info (n, 3)`` from
    :func:`solve_lines`, or None when every line was solved: the first check (in the
    order of :data:`FAILURES`) that some line fails, naming the first such line and
    counting the others, with the values it shows."""
    bad = np.asarray(code) != OK
    if not bad.any():
        return None
    worst = int(np.asarray(code)[bad].min())
    flagged = np.asarray(code) == worst
    i = int(np.flatnonzero(flagged)[0])
    label = names[i] if names is not None else f"catenary line {i}"
    why, keys = FAILURES[worst]
    shown = []
    for k, key in enumerate(keys):
        name, _, units = key.partition(" [")
        shown.append(f"{name} = {info[i, k]:.6g}" + (f" {units[:-1]}" if units else ""))
    more = int(flagged.sum()) - 1
    others = f" (and {more} other line{'s' * (more > 1)})" if more else ""
    return f"{label}{others}: {why} ({', '.join(shown)})"


def raise_failure(code: Array, info: Array, names: Sequence[str] | None = None) -> None:
    """Raise :class:`SimulationError` with :func:`failure`'s message, if any."""
    message = failure(code, info, names)
    if message is not None:
        raise SimulationError(message)


# ---------------------------------------------------------------------------- kernels

@kernel
def _max(a: float, b: float) -> float:
    """``np.maximum`` of two numbers (a NaN wins)."""
    if a != a or b != b:
        return math.nan
    return a if a >= b else b


@kernel
def _min(a: float, b: float) -> float:
    """``np.minimum`` of two numbers (a NaN wins)."""
    if a != a or b != b:
        return math.nan
    return a if a <= b else b


@kernel
def hanging_length(height: float, weight: float, compliance: float) -> float:
    """Unstretched length ``L_s`` of a line hanging straight down over ``height`` under
    its own weight: ``L_s + c w L_s^2 / 2 = Z`` (``c = 1 / EA``)."""
    return 2.0 * height / (1.0 + math.sqrt(1.0 + 2.0 * compliance * weight * height))


@kernel
def solve_lines(x: Array, z: Array, L: Array, w: Array, c: Array, cb: Array, guess: Array,
                out: Array, code: Array, info: Array) -> None:
    """:func:`solve_line` on each of ``n`` lines (``c = 1 / EA``, ``guess (n, 2)``), into
    ``out (n, NB_RESULTS)``, ``code (n,)`` and ``info (n, 3)``."""
    for i in range(len(x)):
        code[i] = solve_line(x[i], z[i], L[i], w[i], c[i], cb[i], guess[i, 0], guess[i, 1],
                             out[i], info[i])


@kernel
def solve_line(x: float, z: float, L: float, w: float, c: float, cb: float, gh: float,
               gv: float, out: Array, info: Array) -> int:
    """One line (module doc), from the warm start ``gh, gv`` when both are positive and
    finite. Fills ``out``: ``H, V, tension, anchor_horizontal, anchor_vertical,
    anchor_tension, laid_length, iterations``, and returns :data:`OK`; or returns the
    failure's code with the values its message shows in ``info`` (:data:`FAILURES`)."""
    if not (math.isfinite(x) and math.isfinite(z)):
        info[0], info[1] = x, z
        return NON_FINITE
    if z < -Z_TOLERANCE * L:
        info[0] = z
        return BELOW_SEABED
    z = _max(z, 0.0)
    H = 0.0
    V = 0.0
    laid = 0.0
    its = 0
    hanging = hanging_length(z, w, c)
    slack = L - hanging >= x
    d = math.hypot(x, z)
    if c == 0 and d >= L and not slack:
        info[0], info[1] = d, L
        return TOO_SHORT
    if slack:
        V = w * hanging
        laid = L - hanging
    elif x <= VERTICAL * L:
        V = (z - L) / (c * L) + 0.5 * w * L
    elif z == 0.0:
        H = _on_seabed(x, L, w, c, cb)
        laid = L
    else:
        warm = math.isfinite(gh) and math.isfinite(gv) and gh > 0 and gv > 0
        H, V, ok, its = _attempt(gh, gv, warm, x, z, L, w, c, cb, d)
        if not ok and warm:
            H, V, ok, more = _attempt(gh, gv, False, x, z, L, w, c, cb, d)
            its += more
        if not ok:
            info[0], info[1], info[2] = x, z, L
            return NO_CONVERGENCE
        laid = _max(L - V / w, 0.0)
    tension = math.hypot(H, V)
    if c * tension > MAX_STRAIN:
        info[0], info[1] = tension, 1.0 / c
        return OVERSTRETCHED
    if slack:
        anchor_h = 0.0
        anchor_v = 0.0
    elif laid > 0:
        anchor_h = _max(H - cb * w * laid, 0.0)
        anchor_v = 0.0
    else:
        anchor_h = H
        anchor_v = V - w * L
    out[0], out[1], out[2] = H, V, tension
    out[3], out[4], out[5] = anchor_h, anchor_v, math.hypot(anchor_h, anchor_v)
    out[6], out[7] = laid, its
    return OK


@kernel
def _attempt(gh: float, gv: float, warm: bool, x: float, z: float, L: float, w: float,
             c: float, cb: float, d: float) -> tuple[float, float, bool, int]:
    """:func:`_newton` from ``gh, gv`` when ``warm``, otherwise from
    :func:`_initial_guess`, with at most :data:`WARM_ITERATIONS` from a warm start."""
    if warm:
        return _newton(gh, gv, x, z, L, w, c, cb, WARM_ITERATIONS)
    h, v = _initial_guess(x, z, L, w, c, d)
    return _newton(h, v, x, z, L, w, c, cb, MAX_ITERATIONS)


@kernel
def _on_seabed(x: float, L: float, w: float, c: float, cb: float) -> float:
    """Horizontal tension of a line lying stretched on the seabed (``Z = 0``, ``X > L``;
    ``c > 0`` is checked by the caller): uniform without friction; with friction, falling
    towards the anchor, to zero before it when the stretch is small (MoorPy's profile 0)."""
    strain = x / L - 1.0
    uniform = strain / c
    if not cb > 0:
        return uniform
    if uniform >= 0.5 * cb * w * L:
        return uniform + 0.5 * cb * w * L
    return math.sqrt(2.0 * cb * w * (x - L) / c)


@kernel
def _initial_guess(x: float, z: float, L: float, w: float, c: float, d: float
                   ) -> tuple[float, float]:
    """``[H, V]`` to start the iterations from.

    A line longer than the distance between its ends starts from its **inextensible**
    catenary, which depends on one number, ``a = H / w``: the fairlead's distance
    ``X(a) = L - L_s + a asinh(L_s / a)`` with ``L_s = sqrt(Z^2 + 2 a Z)`` while the line
    touches the seabed (``L_s <= L``), ``X(a) = 2 a asinh(sqrt(L^2 - Z^2) / (2 a))`` once
    it is fully suspended, increases from ``L - Z`` to ``sqrt(L^2 - Z^2)``, and is solved
    by bisection on ``log a`` (a guess needs no more than a few digits). A shorter,
    stretched line starts from the tension its straight stretch gives, at least
    Peyrot and Goulois' taut guess (FAST, MoorPy).
    """
    span = math.sqrt(_max(L * L - z * z, 0.0))
    lo = math.log(1e-9 * L)
    hi = math.log(1e9 * L)
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        a = math.exp(mid)
        hanging = math.sqrt(z * z + 2.0 * a * z)
        if hanging <= L:
            reach = L - hanging + a * math.asinh(hanging / a)
        else:
            reach = 2.0 * a * math.asinh(span / (2.0 * a))
        if reach > x:
            hi = mid
        else:
            lo = mid
    a = math.exp(0.5 * (lo + hi))
    if d < L:
        hanging = math.sqrt(z * z + 2.0 * a * z)
        if hanging <= L:
            v = w * hanging
        else:
            middle = a * math.atanh(_min(z / L, 1.0 - 1e-16))
            v = w * a * math.sinh(_min((middle + 0.5 * x) / a, 700.0))
        h = w * a
    else:
        taut = (d / L - 1.0) / c if c > 0 else 0.0
        h = _max(taut * x / d, 2.5 * w * x)
        v = _max(taut * z / d, 0.5 * w * (z / math.tanh(0.2))) + 0.5 * w * L
    tiny = 1e-12 * w * L
    return _max(h, tiny), _max(v, tiny)


@kernel
def _newton(H: float, V: float, x: float, z: float, L: float, w: float, c: float, cb: float,
            limit: int) -> tuple[float, float, bool, int]:
    """Damped Newton iterations on ``[H, V]`` from ``H, V``, at most ``limit``.

    Each step keeps ``H`` and ``V`` above ``1 - MAX_DECREASE`` of their values and is
    halved until the squared residual falls (Armijo's rule: the Newton direction goes
    downhill), except near the solution, where full steps converge quadratically.
    Returns ``H, V``, whether they converged, and the iterations made.
    """
    its = 0
    scale = L + x + z
    rx, rz, jxh, jxv, jzh, jzv = _residual(H, V, x, z, L, w, c, cb)
    keep = 1.0 - MAX_DECREASE
    while True:
        det = jxh * jzv - jxv * jzh
        dh = -(jzv * rx - jxv * rz) / det
        dv = -(jxh * rz - jzh * rx) / det
        size = _max(abs(rx), abs(rz))
        step = _max(abs(dh), abs(dv)) / (H + V)
        if step <= RTOL or (step <= NOISY_RTOL and size <= RESIDUAL_EPS * scale):
            return H, V, True, its
        if not (math.isfinite(dh) and math.isfinite(dv)) or its >= limit:
            return H, V, False, its
        merit = size ** 2
        near = size <= NEAR * scale
        alpha = _min(1.0, _min((keep - 1.0) * H / dh if dh < 0 else 1.0,
                               (keep - 1.0) * V / dv if dv < 0 else 1.0))
        searching = True
        for _ in range(HALVINGS):
            ht, vt = H + alpha * dh, V + alpha * dv
            e = _residual(ht, vt, x, z, L, w, c, cb)
            trial = _max(abs(e[0]), abs(e[1])) ** 2
            ok = near or trial <= merit * (1.0 - ARMIJO * alpha)
            for k in range(6):
                ok = ok and math.isfinite(e[k])
            if ok:
                H, V = ht, vt
                rx, rz, jxh, jxv, jzh, jzv = e
                searching = False
                break
            alpha *= 0.5
        its += 1
        if searching:
            return H, V, False, its


@kernel
def _residual(h: float, v: float, x: float, z: float, L: float, w: float, c: float,
              cb: float) -> Residual:
    """Errors of the shape equations ``X(H, V) - X``, ``Z(H, V) - Z`` and their
    Jacobian ``dX/dH, dX/dV, dZ/dH, dZ/dV`` (module doc), for ``H, V > 0``."""
    if v >= w * L:
        return _suspended(h, v, x, z, L, w, c)
    return _grounded(h, v, x, z, L, w, c, cb)


@kernel
def _suspended(h: float, v: float, x: float, z: float, L: float, w: float, c: float
               ) -> Residual:
    """:func:`_residual` of a fully suspended line, in forms without cancellation: on a
    taut line ``H / w`` is far larger than ``L``, and round-off in ``asinh(V/H) -
    asinh(V_A/H)`` would be multiplied by it. ``T_F - T_A = w L (V + V_A) / (T_F + T_A)``,
    and that difference of asinh is ``log((V + T_F) / (V_A + T_A)) =
    log1p(w L (1 + (V + V_A) / (T_F + T_A)) / (V_A + T_A))``."""
    wl = w * L
    va = v - wl
    tf = math.hypot(h, v)
    ta = math.hypot(h, va)
    lift = (v + va) / (tf + ta)
    spread = math.log1p(wl * (1.0 + lift) / (va + ta))
    cl = c * L
    cross = h / w * (1.0 / tf - 1.0 / ta)
    return (h / w * spread + cl * h - x,
            L * lift + cl * (v - 0.5 * wl) - z,
            (spread + va / ta - v / tf) / w + cl,
            cross,
            cross,
            (v / tf - va / ta) / w + cl)


@kernel
def _grounded(h: float, v: float, x: float, z: float, L: float, w: float, c: float,
              cb: float) -> Residual:
    """:func:`_residual` of a line partly resting on the seabed."""
    lb = L - v / w
    xb = _max(lb - h / (cb * w), 0.0) if cb > 0 else 0.0
    ash = math.asinh(v / h)
    tf = math.hypot(h, v)
    slope = (h / tf - 1.0) / w
    return (lb + h / w * ash + c * h * L - 0.5 * c * cb * w * (lb * lb - xb * xb) - x,
            v * v / (tf + h) / w + 0.5 * c * v * v / w - z,
            (ash - v / tf) / w + c * (L - xb),
            slope + c * cb * (lb - xb),
            slope,
            (v / tf + c * v) / w)
