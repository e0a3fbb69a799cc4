"""The catenary solver and the mooring force types against exact and independent solutions.

* **inextensible closed forms**: a catenary ``z = a (cosh(x / a) - 1)`` (``a = H / w``)
  cut at chosen points gives ``X``, ``Z``, ``L`` and the exact ``H``, ``V``, anchor
  tension and laid length, fully suspended or partly on the seabed;
* **elastic lines by quadrature**: for chosen ``H``, ``V`` the fairlead position is the
  integral of the stretched line's direction along its unstretched length (scipy
  ``quad``, independent of the closed-form equations the solver uses), friction on the
  laid part included; the solver must give back ``H`` and ``V``;
* **MoorPy** (``moorpy.Catenary.catenary``, the FAST v7 solver in Python) on slack,
  grounded with friction (anchor loaded or not), taut, nearly vertical, vertical, fully
  slack lines and lines lying on the seabed;
* **static equilibrium** through the engine (``initial_equilibrium``): a body on three
  catenary lines under a horizontal load, against the offset MoorPy's lines balance
  (scipy ``fsolve``), and with fairleads away from the COG, the force and moment balance
  at the equilibrium the engine finds, with MoorPy's line tensions; a ``mooring_matrix``
  against the closed-form offset ``-m g / K``.

Each test records the error it measured (``record_property``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frylinks_marine.catenary import solve
from moorpy.Catenary import catenary as moorpy_catenary
from scipy.integrate import quad
from scipy.optimize import fsolve
from scipy.spatial.transform import Rotation

import frylinks

Record = Callable[[str, Any], None]


# ------------------------------------------------------------------ inextensible closed forms

#: (w, a = H / w, x_A, x_F): the anchor and fairlead at x_A, x_F on the catenary
#: z = a cosh(x / a) (vertex at x = 0). x_A = 0: the line touches down at the anchor.
SUSPENDED = [(1000.0, 300.0, 0.0, 400.0), (800.0, 150.0, 40.0, 500.0),
             (50.0, 2000.0, 300.0, 900.0), (2000.0, 40.0, 5.0, 60.0)]


@pytest.mark.parametrize(("w", "a", "xa", "xf"), SUSPENDED)
def test_inextensible_suspended_catenary(w: float, a: float, xa: float, xf: float,
                                         record_property: Record) -> None:
    X = xf - xa
    Z = a * (np.cosh(xf / a) - np.cosh(xa / a))
    L = a * (np.sinh(xf / a) - np.sinh(xa / a))
    H, V, VA = w * a, w * a * np.sinh(xf / a), w * a * np.sinh(xa / a)
    sol = solve([X], [Z], [L], [w])
    err = max(abs(sol.horizontal[0] - H), abs(sol.vertical[0] - V),
              abs(sol.anchor_vertical[0] - VA), abs(sol.anchor_horizontal[0] - H)) / np.hypot(H, V)
    record_property("relative_error", err)
    assert err < 1e-10
    assert sol.laid_length[0] == 0.0
    assert sol.tension[0] == pytest.approx(np.hypot(H, V), rel=1e-10)
    assert sol.anchor_tension[0] == pytest.approx(np.hypot(H, VA), rel=1e-10, abs=1e-9 * H)


#: (w, a, suspended length L_s, laid length L_B, friction C_B)
GROUNDED = [(1000.0, 120.0, 250.0, 300.0, 0.0), (600.0, 80.0, 150.0, 600.0, 1.0),
            (300.0, 500.0, 90.0, 20.0, 0.3), (1500.0, 10.0, 120.0, 400.0, 0.0)]


@pytest.mark.parametrize(("w", "a", "ls", "lb", "cb"), GROUNDED)
def test_inextensible_catenary_on_the_seabed(w: float, a: float, ls: float, lb: float,
                                             cb: float, record_property: Record) -> None:
    xs = a * np.arcsinh(ls / a)                     # the touchdown point is the vertex
    X, Z, L = lb + xs, np.hypot(a, ls) - a, lb + ls
    H, V = w * a, w * ls
    sol = solve([X], [Z], [L], [w], np.inf, [cb])
    err = max(abs(sol.horizontal[0] - H), abs(sol.vertical[0] - V)) / np.hypot(H, V)
    record_property("relative_error", err)
    assert err < 1e-10
    assert sol.laid_length[0] == pytest.approx(lb, rel=1e-10)
    assert sol.anchor_horizontal[0] == pytest.approx(max(H - cb * w * lb, 0.0), rel=1e-9,
                                                     abs=1e-9 * H)
    assert sol.anchor_vertical[0] == 0.0


# ------------------------------------------------------------------ elastic lines by quadrature

def integrated_fairlead(H: float, V: float, L: float, w: float, EA: float, cb: float
                        ) -> tuple[float, float]:
    """Fairlead position relative to the anchor of a line with fairlead tensions ``H, V``:
    the stretched line's direction integrated along the unstretched length ``s`` (from
    the anchor). Weight is per unstretched length; the vertical tension at ``s`` is
    ``V - w (L - s)``; on the seabed the tension falls by ``cb w`` per metre towards the
    anchor, to zero at the latest."""
    lb = max(L - V / w, 0.0)
    opts: dict[str, Any] = {"epsabs": 0.0, "epsrel": 1e-12, "limit": 200}

    def vert(s: float) -> float:
        return V - w * (L - s)

    def tension(s: float) -> float:
        return float(np.hypot(H, vert(s)))

    x = quad(lambda s: H / tension(s) + H / EA, lb, L, **opts)[0]
    z = quad(lambda s: vert(s) / tension(s) + vert(s) / EA, lb, L, **opts)[0]
    if lb > 0:
        kink = [lb - H / (cb * w)] if cb > 0 and 0 < lb - H / (cb * w) < lb else None
        x += quad(lambda s: 1.0 + max(H - cb * w * (lb - s), 0.0) / EA, 0.0, lb,
                  points=kink, **opts)[0]
    return x, z


#: (H, V, L, w, EA, C_B): suspended with the anchor lifted, touching down, on the seabed
#: with and without friction (the anchor loaded, or not), a soft rope, nearly vertical
ELASTIC = [(8.0e5, 9.0e5, 500.0, 1000.0, 5.0e8, 0.0),
           (3.0e5, 4.0e5, 400.0, 1000.0, 2.0e8, 0.0),
           (2.0e5, 1.5e5, 600.0, 800.0, 1.0e9, 0.0),
           (2.0e5, 1.5e5, 600.0, 800.0, 1.0e9, 0.6),
           (5.0e4, 1.5e5, 600.0, 800.0, 1.0e8, 1.0),
           (3.0e4, 2.0e4, 300.0, 100.0, 2.0e6, 0.5),
           (1.0e3, 4.0e5, 120.0, 2000.0, 3.0e8, 0.0)]


@pytest.mark.parametrize(("H", "V", "L", "w", "EA", "cb"), ELASTIC)
def test_elastic_line_against_quadrature(H: float, V: float, L: float, w: float, EA: float,
                                         cb: float, record_property: Record) -> None:
    X, Z = integrated_fairlead(H, V, L, w, EA, cb)
    sol = solve([X], [Z], [L], [w], [EA], [cb])
    err = max(abs(sol.horizontal[0] - H), abs(sol.vertical[0] - V)) / np.hypot(H, V)
    record_property("relative_error", err)
    assert err < 1e-9
    assert sol.laid_length[0] == pytest.approx(max(L - V / w, 0.0), abs=1e-9 * L)


# ------------------------------------------------------------------ MoorPy

#: (X, Z, L, EA, w, C_B, what): MoorPy's profile types 0 to 4 and 6
MOORPY = [(400.0, 100.0, 450.0, 1.0e9, 1000.0, 0.0, "slack, on the seabed"),
          (400.0, 100.0, 450.0, 1.0e9, 1000.0, 0.5, "friction, anchor unloaded"),
          (800.0, 200.0, 850.0, 5.0e8, 700.0, 1.0, "friction, anchor loaded"),
          (780.0, 150.0, 820.0, 4.0e8, 1100.0, 0.05, "light friction, anchor loaded"),
          (400.0, 100.0, 415.0, 1.0e9, 1000.0, 0.0, "suspended, anchor lifted"),
          (400.0, 100.0, 405.0, 1.0e8, 1000.0, 0.0, "taut"),
          (600.0, 300.0, 640.0, 2.0e7, 300.0, 0.0, "taut, soft"),
          (10.0, 100.0, 95.0, 1.0e8, 1000.0, 0.0, "taut, steep"),
          (1.0, 100.0, 99.5, 1.0e8, 1000.0, 0.0, "taut, nearly vertical"),
          (300.0, 50.0, 400.0, 3.0e8, 500.0, 0.0, "fully slack"),
          (0.0, 100.0, 99.0, 1.0e8, 1000.0, 0.0, "vertical, taut"),
          (0.0, 100.0, 150.0, 1.0e8, 1000.0, 0.0, "vertical, slack"),
          (420.0, 0.0, 400.0, 1.0e8, 1000.0, 0.0, "on the seabed, stretched"),
          (400.5, 0.0, 400.0, 1.0e8, 1000.0, 0.5, "on the seabed, friction, anchor loaded"),
          (400.2, 0.0, 400.0, 1.0e8, 1000.0, 0.5, "on the seabed, friction, anchor unloaded")]


@pytest.mark.parametrize(("X", "Z", "L", "EA", "w", "cb", "what"), MOORPY,
                         ids=[case[-1] for case in MOORPY])
def test_against_moorpy(X: float, Z: float, L: float, EA: float, w: float, cb: float,
                        what: str, record_property: Record) -> None:
    fxa, fza, fxb, fzb, info = moorpy_catenary(X, Z, L, EA, w, CB=cb, Tol=1e-12,
                                               MaxIter=500)
    sol = solve([X], [Z], [L], [w], [EA], [cb])
    scale = sol.tension[0] + w * L
    ours = np.array([sol.horizontal[0], sol.vertical[0], sol.anchor_horizontal[0],
                     sol.anchor_vertical[0]])
    theirs = np.array([-fxb, -fzb, fxa, fza])   # MoorPy: forces on the ends, z up
    err = np.abs(ours - theirs).max() / scale
    record_property("relative_error", err)
    record_property("moorpy_profile", str(info["ProfileType"]))
    assert err < 1e-8, (what, ours, theirs)
    assert sol.laid_length[0] == pytest.approx(info["LBot"], abs=1e-8 * L)


# ------------------------------------------------------------------ static equilibrium

MASS = 2.0e6
G = 9.81
DEPTH = 150.0
LINE = {"length": 650.0, "weight": 1.0e3, "axial_stiffness": 1.0e9, "seabed_friction": 0.3}
ANCHOR_RADIUS = 600.0
NB_LINES = 3


def anchors() -> np.ndarray:
    angle = 2 * np.pi * np.arange(NB_LINES) / NB_LINES
    return np.stack([ANCHOR_RADIUS * np.cos(angle), ANCHOR_RADIUS * np.sin(angle),
                     np.full(NB_LINES, -DEPTH)], axis=1)


def moorpy_force(fairlead: np.ndarray, anchor: np.ndarray) -> np.ndarray:
    """World force of one line on its fairlead, from MoorPy."""
    delta = fairlead - anchor
    x = np.hypot(delta[0], delta[1])
    _, _, fxb, fzb, _ = moorpy_catenary(x, delta[2], LINE["length"], LINE["axial_stiffness"],
                                        LINE["weight"], CB=LINE["seabed_friction"],
                                        Tol=1e-12, MaxIter=500)
    return np.array([fxb * delta[0] / x, fxb * delta[1] / x, fzb])


def moored(fairleads: np.ndarray, load: float, lift: float) -> frylinks.System:
    """A body (COG at z = -5 m) on three catenary lines, fairleads at ``fairleads``
    (body axes), held up by a constant ``lift`` and pushed along x by ``load``."""
    system = frylinks.System(name="moored", gravity=[0, 0, -G])
    body = system.add_body("buoy", mass=MASS, inertia=[4.0e8, 4.0e8, 6.0e8],
                           position=[0, 0, -5.0])
    for k, (r, anchor) in enumerate(zip(fairleads, anchors(), strict=True)):
        body.add_node(f"f{k}", position=r)
        system.add_force(f"line{k}", "catenary_line", fairlead=f"buoy.f{k}",
                         anchor=anchor.tolist(), **LINE)
    system.add_force("lift", "world_force", node="buoy", force=[0.0, 0.0, lift])
    system.add_force("load", "world_force", node="buoy", force=[load, 0.0, 0.0])
    return system


def lift_at_start(fairleads: np.ndarray) -> float:
    """Weight plus the lines' pull down at the start (so the body stays about there)."""
    start = fairleads + np.array([0, 0, -5.0])
    return MASS * G - sum(moorpy_force(p, a)[2] for p, a in zip(start, anchors(),
                                                                  strict=True))


@pytest.mark.parametrize("load", [0.0, 3.0e5])
def test_equilibrium_offset_on_lines_at_the_cog(load: float, record_property: Record) -> None:
    fairleads = np.zeros((NB_LINES, 3))
    lift = lift_at_start(fairleads)
    ds = moored(fairleads, load, lift).run(t_end=0.05, dt=0.05, initial_equilibrium=True)
    assert ds.attrs["status"] == "completed"
    found = ds.body_position.values[0, 0]

    def imbalance(xz: np.ndarray) -> np.ndarray:
        p = np.array([xz[0], 0.0, xz[1]])
        f = sum(moorpy_force(p, a) for a in anchors()) + np.array([load, 0, lift - MASS * G])
        return np.array([f[0], f[2]]) / (MASS * G)

    expected = fsolve(imbalance, [0.0, -5.0], xtol=1e-12)
    assert np.abs(imbalance(expected)).max() < 1e-12
    err = np.abs(found[[0, 2]] - expected).max() / max(abs(expected[0]), 1.0)
    record_property("offset", float(expected[0]))
    record_property("relative_error", err)
    assert err < 1e-6
    assert abs(found[1]) < 1e-6
    if load:
        assert expected[0] > 1.0  # the load moves the body by metres


def test_equilibrium_with_fairleads_off_the_cog(record_property: Record) -> None:
    angle = 2 * np.pi * np.arange(NB_LINES) / NB_LINES
    fairleads = np.stack([20 * np.cos(angle), 20 * np.sin(angle), np.full(3, -4.0)], axis=1)
    load = 2.0e5
    lift = lift_at_start(fairleads)
    ds = moored(fairleads, load, lift).run(t_end=0.05, dt=0.05, initial_equilibrium=True)
    x = ds.body_position.values[0, 0]
    q = ds.body_orientation.values[0, 0]
    R = Rotation.from_quat(q[[1, 2, 3, 0]]).as_matrix()
    arms = fairleads @ R.T
    forces = np.array([moorpy_force(x + r, a) for r, a in zip(arms, anchors(), strict=True)])
    total = forces.sum(axis=0) + np.array([load, 0.0, lift - MASS * G])
    moment = np.cross(arms, forces).sum(axis=0)
    force_err = np.abs(total).max() / (MASS * G)
    moment_err = np.abs(moment).max() / (MASS * G * 20.0)
    record_property("force_residual", force_err)
    record_property("moment_residual", moment_err)
    assert force_err < 1e-6 and moment_err < 1e-6
    # the engine's own wrench of each line is MoorPy's
    reported = ds.force_force.sel(force=[f"line{k}" for k in range(NB_LINES)]).values[0]
    np.testing.assert_allclose(reported, forces, rtol=0, atol=1e-8 * MASS * G)
    assert x[0] > 1.0 and np.linalg.norm(Rotation.from_matrix(R).as_rotvec()) > 1e-3


def test_mooring_matrix_equilibrium_offset(record_property: Record) -> None:
    """Heave stiffness K against the weight: the COG settles at z0 - m g / K; the
    reference pose stays the start (recorded at assembly), not the equilibrium."""
    k, m, z0 = 3.0e5, 1.0e4, -2.0
    system = frylinks.System(gravity=[0, 0, -G])
    system.add_body("buoy", mass=m, inertia=[1.0e4, 1.0e4, 1.0e4], position=[1.0, 0.0, z0])
    system.add_force("mooring", "mooring_matrix", body="buoy",
                     stiffness={"surge": 1.0e4, "sway": 1.0e4, "heave": k, "roll": 1.0e6,
                                "pitch": 1.0e6, "yaw": 1.0e6})
    ds = system.run(t_end=0.5, dt=0.01, initial_equilibrium=True)
    z = ds.body_position.values[:, 0, 2]
    err = np.abs(z - (z0 - m * G / k)).max() / (m * G / k)
    record_property("relative_error", err)
    assert err < 1e-6
    np.testing.assert_allclose(ds.force_force.sel(force="mooring").values[:, 2], m * G,
                               rtol=1e-6)
