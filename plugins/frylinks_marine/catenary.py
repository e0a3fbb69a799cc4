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

They are solved by Newton's method on all lines at once (numpy arrays, no loop over
lines), from a previous solution (a warm start) or from the line's inextensible catenary
(:func:`_initial_guess`). A step never takes away more than 90 % of ``H`` or ``V`` (they
stay positive) and is halved until the residual falls (Armijo's rule). The suspended
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
(``T > EA``), or iterations that do not converge.

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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from frylinks.errors import SimulationError

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
    x, z, L, w = (np.asarray(a, dtype=float).reshape(-1)
                  for a in (horizontal_distance, height, length, weight))
    n = x.size
    c = 1.0 / np.broadcast_to(np.asarray(axial_stiffness, dtype=float), (n,))
    cb = np.broadcast_to(np.asarray(seabed_friction, dtype=float), (n,)).copy()
    label = _labels(names, n)
    with np.errstate(all="ignore"):
        return _solve(x, z, L, w, c, cb, guess, label)


def _labels(names: Sequence[str] | None, n: int) -> Sequence[str]:
    return names if names is not None else [f"catenary line {i}" for i in range(n)]


def _fail(label: Sequence[str], bad: Array, why: str, values: dict[str, Array]) -> None:
    """Raise for the first line flagged in ``bad``, if any, showing its ``values``
    (keyed ``"name [units]"``)."""
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    shown = []
    for key, v in values.items():
        name, _, units = key.partition(" [")
        shown.append(f"{name} = {v[i]:.6g}" + (f" {units[:-1]}" if units else ""))
    more = int(bad.sum()) - 1
    others = f" (and {more} other line{'s' * (more > 1)})" if more else ""
    raise SimulationError(f"{label[i]}{others}: {why} ({', '.join(shown)})")


def hanging_length(height: Array, weight: Array, compliance: Array) -> Array:
    """Unstretched length ``L_s`` of a line hanging straight down over ``height`` under
    its own weight: ``L_s + c w L_s^2 / 2 = Z`` (``c = 1 / EA``)."""
    return 2.0 * height / (1.0 + np.sqrt(1.0 + 2.0 * compliance * weight * height))


def _solve(x: Array, z: Array, L: Array, w: Array, c: Array, cb: Array,
           guess: Array | None, label: Sequence[str]) -> CatenarySolution:
    n = x.size
    _fail(label, ~(np.isfinite(x) & np.isfinite(z)), "non-finite fairlead position",
          {"X [m]": x, "Z [m]": z})
    _fail(label, z < -Z_TOLERANCE * L,
          "the fairlead is below the seabed (the anchor's level)", {"Z [m]": z})
    z = np.maximum(z, 0.0)
    H = np.zeros(n)
    V = np.zeros(n)
    laid = np.zeros(n)
    iterations = np.zeros(n, dtype=int)
    hanging = hanging_length(z, w, c)
    slack = L - hanging >= x
    d = np.hypot(x, z)
    _fail(label, (c == 0) & (d >= L) & ~slack,
          "an inextensible line must be longer than the straight distance between its "
          "ends (or give it an axial stiffness)", {"distance [m]": d, "L [m]": L})
    V[slack] = (w * hanging)[slack]
    laid[slack] = (L - hanging)[slack]
    vertical = ~slack & (x <= VERTICAL * L)
    V[vertical] = ((z - L) / (c * L) + 0.5 * w * L)[vertical]
    seabed = ~slack & ~vertical & (z == 0.0)
    if seabed.any():
        H[seabed] = _on_seabed(x, L, w, c, cb)[seabed]
    laid[seabed] = L[seabed]

    todo = np.flatnonzero(~(slack | vertical | seabed))
    if todo.size:
        g = (np.zeros((todo.size, 2)) if guess is None
             else np.asarray(guess, dtype=float).reshape(n, 2)[todo])
        warm = np.all(np.isfinite(g) & (g > 0), axis=1)
        h, v, ok, its = _attempt(todo, g, warm, x, z, L, w, c, cb, d)
        retry = todo[~ok & warm]
        if retry.size:
            again = ~ok & warm
            h[again], v[again], ok[again], more = _attempt(
                retry, g[again], np.zeros(retry.size, dtype=bool), x, z, L, w, c, cb, d)
            its[again] += more
        _fail([label[int(i)] for i in todo], ~ok,
              f"no convergence in {MAX_ITERATIONS} iterations",
              {"X [m]": x[todo], "Z [m]": z[todo], "L [m]": L[todo]})
        H[todo], V[todo], iterations[todo] = h, v, its
        laid[todo] = np.maximum(L[todo] - v / w[todo], 0.0)

    tension = np.hypot(H, V)
    _fail(label, c * tension > MAX_STRAIN,
          f"stretched by more than {MAX_STRAIN:.0%} (fairlead tension above EA); check the "
          "anchor, length and axial_stiffness", {"tension [N]": tension, "EA [N]": 1.0 / c})
    grounded = laid > 0
    anchor_h = np.where(grounded, np.maximum(H - cb * w * laid, 0.0), H)
    anchor_v = np.where(grounded, 0.0, V - w * L)
    anchor_h[slack] = 0.0
    anchor_v[slack] = 0.0
    return CatenarySolution(H, V, tension, anchor_h, anchor_v, np.hypot(anchor_h, anchor_v),
                            laid, iterations)


def _attempt(i: Array, guess: Array, warm: Array, x: Array, z: Array, L: Array, w: Array,
             c: Array, cb: Array, d: Array) -> tuple[Array, Array, Array, Array]:
    """:func:`_newton` on lines ``i``: from ``guess`` where ``warm``, otherwise from
    :func:`_initial_guess`, with at most :data:`WARM_ITERATIONS` from a warm start."""
    start = np.array(guess, dtype=float)
    if not warm.all():
        cold = i[~warm]
        start[~warm] = _initial_guess(x[cold], z[cold], L[cold], w[cold], c[cold], d[cold])
    return _newton(start, x[i], z[i], L[i], w[i], c[i], cb[i],
                   limit=np.where(warm, WARM_ITERATIONS, MAX_ITERATIONS))


def _on_seabed(x: Array, L: Array, w: Array, c: Array, cb: Array) -> Array:
    """Horizontal tension of lines lying stretched on the seabed (``Z = 0``, ``X > L``;
    ``c > 0`` is checked by the caller): uniform without friction; with friction, falling
    towards the anchor, to zero before it when the stretch is small (MoorPy's profile 0)."""
    strain = x / L - 1.0
    uniform = strain / c
    reaches_anchor = uniform >= 0.5 * cb * w * L
    with_friction = np.where(reaches_anchor, uniform + 0.5 * cb * w * L,
                             np.sqrt(2.0 * cb * w * (x - L) / c))
    return np.where(cb > 0, with_friction, uniform)


def _initial_guess(x: Array, z: Array, L: Array, w: Array, c: Array, d: Array) -> Array:
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
    span = np.sqrt(np.maximum(L * L - z * z, 0.0))
    lo = np.full(x.shape, np.log(1e-9 * L))
    hi = np.full(x.shape, np.log(1e9 * L))
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        a = np.exp(mid)
        hanging = np.sqrt(z * z + 2.0 * a * z)
        reach = np.where(hanging <= L, L - hanging + a * np.arcsinh(hanging / a),
                         2.0 * a * np.arcsinh(span / (2.0 * a)))
        beyond = reach > x
        hi = np.where(beyond, mid, hi)
        lo = np.where(beyond, lo, mid)
    a = np.exp(0.5 * (lo + hi))
    hanging = np.sqrt(z * z + 2.0 * a * z)
    middle = a * np.arctanh(np.minimum(z / L, 1.0 - 1e-16))
    v_slack = np.where(hanging <= L, w * hanging,
                       w * a * np.sinh(np.minimum((middle + 0.5 * x) / a, 700.0)))
    taut = np.where(c > 0, (d / L - 1.0) / c, 0.0)
    h = np.where(d < L, w * a, np.maximum(taut * x / d, 2.5 * w * x))
    v = np.where(d < L, v_slack, np.maximum(taut * z / d, 0.5 * w * (z / np.tanh(0.2)))
                 + 0.5 * w * L)
    tiny = 1e-12 * w * L
    return np.stack([np.maximum(h, tiny), np.maximum(v, tiny)], axis=1)


def _newton(start: Array, x: Array, z: Array, L: Array, w: Array, c: Array, cb: Array,
            limit: Array | int) -> tuple[Array, Array, Array, Array]:
    """Damped Newton iterations on ``[H, V]`` from ``start (m, 2)``.

    Each step keeps ``H`` and ``V`` above ``1 - MAX_DECREASE`` of their values and is
    halved until the squared residual falls (Armijo's rule: the Newton direction goes
    downhill), except near the solution, where full steps converge quadratically.

    Parameters
    ----------
    limit
        Most iterations per line.

    Returns
    -------
    H, V : (m,) ndarray
    converged : (m,) bool ndarray
    iterations : (m,) int ndarray
    """
    m = x.size
    limit = np.broadcast_to(limit, (m,))
    H, V = start[:, 0].copy(), start[:, 1].copy()
    done = np.zeros(m, dtype=bool)
    failed = np.zeros(m, dtype=bool)
    its = np.zeros(m, dtype=int)
    scale = L + x + z
    E = _residual(H, V, x, z, L, w, c, cb)    # (6, m): rx rz jxh jxv jzh jzv
    while True:
        a = np.flatnonzero(~done & ~failed)
        if not a.size:
            break
        h, v = H[a], V[a]
        rx, rz, jxh, jxv, jzh, jzv = E[:, a]
        det = jxh * jzv - jxv * jzh
        dh = -(jzv * rx - jxv * rz) / det
        dv = -(jxh * rz - jzh * rx) / det
        size = np.maximum(np.abs(rx), np.abs(rz))
        step = np.maximum(np.abs(dh), np.abs(dv)) / (h + v)
        small = (step <= RTOL) | ((step <= NOISY_RTOL) & (size <= RESIDUAL_EPS * scale[a]))
        bad = ~(np.isfinite(dh) & np.isfinite(dv)) & ~small
        done[a[small]] = True
        failed[a[bad]] = True
        go = ~small & ~bad
        failed[a[go & (its[a] >= limit[a])]] = True
        go &= its[a] < limit[a]
        if not go.any():
            continue
        a, h, v, dh, dv = a[go], h[go], v[go], dh[go], dv[go]
        merit = size[go] ** 2
        near = size[go] <= NEAR * scale[a]
        keep = 1.0 - MAX_DECREASE
        alpha = np.minimum(1.0, np.minimum(np.where(dh < 0, (keep - 1.0) * h / dh, 1.0),
                                          np.where(dv < 0, (keep - 1.0) * v / dv, 1.0)))
        searching = np.ones(a.size, dtype=bool)
        for _ in range(HALVINGS):
            s = np.flatnonzero(searching)
            ht, vt = h[s] + alpha[s] * dh[s], v[s] + alpha[s] * dv[s]
            i = a[s]
            Et = _residual(ht, vt, x[i], z[i], L[i], w[i], c[i], cb[i])
            trial = np.maximum(np.abs(Et[0]), np.abs(Et[1])) ** 2
            ok = near[s] | (trial <= merit[s] * (1.0 - ARMIJO * alpha[s]))
            ok &= np.isfinite(Et).all(axis=0)
            H[i[ok]], V[i[ok]] = ht[ok], vt[ok]
            E[:, i[ok]] = Et[:, ok]
            searching[s[ok]] = False
            alpha[s[~ok]] *= 0.5
            if not searching.any():
                break
        failed[a[searching]] = True
        its[a] += 1
    return H, V, done, its


def _residual(h: Array, v: Array, x: Array, z: Array, L: Array, w: Array, c: Array,
              cb: Array) -> Array:
    """Errors of the shape equations ``X(H, V) - X``, ``Z(H, V) - Z`` and their
    Jacobian ``dX/dH, dX/dV, dZ/dH, dZ/dV`` (module doc), for ``H, V > 0``: ``(6, m)``.

    Only the branches some line is in are computed (one, usually).
    """
    suspended = v >= w * L
    if suspended.all():
        return _suspended(h, v, x, z, L, w, c)
    if not suspended.any():
        return _grounded(h, v, x, z, L, w, c, cb)
    return np.where(suspended, _suspended(h, v, x, z, L, w, c),
                    _grounded(h, v, x, z, L, w, c, cb))


def _suspended(h: Array, v: Array, x: Array, z: Array, L: Array, w: Array, c: Array
               ) -> Array:
    """:func:`_residual` of fully suspended lines, in forms without cancellation: on a
    taut line ``H / w`` is far larger than ``L``, and round-off in ``asinh(V/H) -
    asinh(V_A/H)`` would be multiplied by it. ``T_F - T_A = w L (V + V_A) / (T_F + T_A)``,
    and that difference of asinh is ``log((V + T_F) / (V_A + T_A)) =
    log1p(w L (1 + (V + V_A) / (T_F + T_A)) / (V_A + T_A))``."""
    wl = w * L
    va = v - wl
    tf = np.hypot(h, v)
    ta = np.hypot(h, va)
    lift = (v + va) / (tf + ta)
    spread = np.log1p(wl * (1.0 + lift) / (va + ta))
    cl = c * L
    cross = h / w * (1.0 / tf - 1.0 / ta)
    return np.array([h / w * spread + cl * h - x,
                     L * lift + cl * (v - 0.5 * wl) - z,
                     (spread + va / ta - v / tf) / w + cl,
                     cross,
                     cross,
                     (v / tf - va / ta) / w + cl])


def _grounded(h: Array, v: Array, x: Array, z: Array, L: Array, w: Array, c: Array,
              cb: Array) -> Array:
    """:func:`_residual` of lines partly resting on the seabed."""
    lb = L - v / w
    xb = np.where(cb > 0, np.maximum(lb - h / (cb * w), 0.0), 0.0)
    ash = np.arcsinh(v / h)
    tf = np.hypot(h, v)
    slope = (h / tf - 1.0) / w
    return np.array([lb + h / w * ash + c * h * L - 0.5 * c * cb * w * (lb * lb - xb * xb) - x,
                     v * v / (tf + h) / w + 0.5 * c * v * v / w - z,
                     (ash - v / tf) / w + c * (L - xb),
                     slope + c * cb * (lb - xb),
                     slope,
                     (v / tf + c * v) / w])
