"""Line forces (Multibody.jl ``spring``, ``damper``, ``spring_damper_parallel``, Solfec
``user_spring``) against exact oscillators.

A bank of independent oscillators runs in one system (gravity ``g = -9.81 z``):

* ``hanging``: a free body (no link) hanging from a ground node on a ``spring`` attached
  at its COG, released below its rest point with a vertical velocity; by symmetry it
  stays on the vertical line, so its height obeys ``m z'' = -k (s - L0) - m g`` with
  ``s = z_anchor - z``: the oscillator ``sqrt(k / m)``;
* four sliders on inclined prismatic rails (unit axis ``e``), each pulled by a line force
  from a ground anchor on the rail axis to its COG, so ``s = x`` (the slide) and
  ``m x'' = -f(x, x') + m g.e``: a ``spring``; a ``spring`` and a ``damper`` side by
  side; a ``spring_damper_parallel``; a ``user_spring`` whose function is the same linear
  law ``k d + c d'`` (``d = x - L0``). Each is the classical damped oscillator from rest.

A ``spring`` carrying its own mass ``m_s`` at the fraction ``f`` of the line from the
fixed anchor to a slider: the point moves at ``f x'``, so the kinetic energy gives the
effective mass ``M + f^2 m_s``, and its weight, shared ``1 - f`` by the ground and ``f``
by the slider, pushes it with ``f m_s g.e``::

    (M + f^2 m_s) x'' = -k (x - L0) + (M + f m_s) g.e

frequency ``sqrt(k / (M + f^2 m_s))`` and static deflection ``L0 + (M + f m_s) g.e / k``;
the rail carries the transverse weight ``-(M + f m_s) g_perp``.

A ``user_spring`` from a case file with a bilinear ``table`` (stiffness ``k1`` in
tension, ``k2`` in compression) and no gravity: from zero stretch at speed ``v0`` the
stretch is ``v0/w1 sin(w1 t)`` for half a period ``pi/w1``, then ``-v0/w2 sin(w2 (t -
pi/w1))`` for ``pi/w2``: the period is ``pi/w1 + pi/w2``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
import yaml
from scipy.spatial.transform import Rotation

import frylinks
from frylinks.io.case import load_case

G = 9.81
L0 = 1.0       # rest lengths [m]
X0 = 1.08      # initial slide of the sliders [m]
T_END = 0.6

# per slider: mass, stiffness, damping, rail axis (before normalising)
SLIDERS = {
    "spring": (2.0, 800.0, 0.0, [1.0, 0.0, -1.0]),
    "spring_and_damper": (3.0, 600.0, 9.0, [0.0, 1.0, 0.5]),
    "spring_damper_parallel": (1.5, 900.0, 6.0, [-1.0, 1.0, 1.0]),
    "user_spring": (2.5, 500.0, 4.0, [0.2, -1.0, -2.0]),
}
HANGING = (1.2, 300.0)      # mass, stiffness
ANCHOR_HANG = np.array([0.0, -5.0, 4.0])


def rk4_bound(w: float, amplitude: float, t_end: float, h: float = 1e-3) -> float:
    """Twice the phase error of rk4 on an oscillator of frequency ``w``, ``(w h)^5 / 120``
    per step, as a displacement at ``amplitude`` after ``t_end`` (multiply by ``w`` for
    a velocity)."""
    return 2.0 * amplitude * (t_end / h) * (w * h) ** 5 / 120.0


def unit(v: list[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(v, dtype=float)
    return a / np.linalg.norm(a)


def rail_orientation(e: np.ndarray) -> dict[str, Any]:
    """Node orientation whose z axis is ``e`` (rotation of z onto e)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, e)
    if np.linalg.norm(axis) < 1e-12:
        return {"axis": [1.0, 0.0, 0.0], "angle_deg": 0.0 if e[2] > 0 else 180.0}
    return {"axis": list(axis), "angle_deg": float(np.degrees(np.arccos(e @ z)))}


def bank() -> frylinks.System:
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="line-force-oscillators")
    for i, (name, (m, k, c, axis)) in enumerate(SLIDERS.items()):
        e = unit(axis)
        origin = np.array([3.0 * i, 0.0, 0.0])
        orient = rail_orientation(e)
        s.ground.add_node(f"rail_{name}", position=origin, orientation=orient)
        s.add_body(name, mass=m, inertia=[0.3, 0.4, 0.5], position=origin + X0 * e,
                   orientation=orient)
        s.add_link(f"rail_{name}", "prismatic", master=f"ground.rail_{name}", slave=name)
        ends = {"master": f"ground.rail_{name}", "slave": name}
        if name == "spring":
            s.add_force(name, "spring", **ends, stiffness=k, rest=L0)
        elif name == "spring_and_damper":
            s.add_force(f"{name}_spring", "spring", **ends, stiffness=k, rest=L0)
            s.add_force(f"{name}_damper", "damper", **ends, damping=c)
        elif name == "spring_damper_parallel":
            s.add_force(name, "spring_damper_parallel", **ends, stiffness=k, damping=c, rest=L0)
        else:
            s.add_force(name, "user_spring", **ends, rest=L0,
                        function=lambda d, dd, k=k, c=c: k * d + c * dd)
    m, k = HANGING
    s.ground.add_node("hook", position=ANCHOR_HANG)
    s.add_body("hanging", mass=m, inertia=[0.2, 0.2, 0.2],
               position=ANCHOR_HANG - [0.0, 0.0, L0 + 0.1], velocity=[0.0, 0.0, 0.4])
    s.add_force("hanging", "spring", master="ground.hook", slave="hanging", stiffness=k,
                rest=L0)
    return s


@pytest.fixture(scope="module")
def oscillators() -> xr.Dataset:
    """0.6 s (600 rk4 steps of 1 ms: more than a period of each) of the bank."""
    return bank().run(t_end=T_END, dt=1e-3, every=5)


def slide(ds: xr.Dataset, name: str) -> tuple[np.ndarray, np.ndarray]:
    return (ds.link_displacement.sel(link=f"rail_{name}", dof="tz").values,
            ds.link_velocity.sel(link=f"rail_{name}", dof="tz").values)


@pytest.mark.parametrize("name", list(SLIDERS))
def test_sliders_are_exact_damped_oscillators(name: str, oscillators: xr.Dataset,
                                              oscillator: Callable,
                                              record_property: Callable) -> None:
    """Slide and its rate vs ``m x'' + c x' + k x = k L0 + m g.e`` from rest at X0."""
    m, k, c, axis = SLIDERS[name]
    ge = -G * unit(axis)[2]
    t = oscillators.time.values
    x, v, _ = oscillator(t, m, k, c, k * L0 + m * ge, X0, 0.0)
    xs, vs = slide(oscillators, name)
    ex, ev = float(np.abs(xs - x).max()), float(np.abs(vs - v).max())
    w = np.sqrt(k / m)
    bound = rk4_bound(w, abs(X0 - L0 - m * ge / k), T_END)
    record_property("max_slide_error_m", ex)
    record_property("max_rate_error_m_s", ev)
    record_property("rk4_bound_m", bound)
    assert ex < bound
    assert ev < w * bound


@pytest.mark.parametrize("name", ["spring", "spring_damper_parallel", "user_spring"])
def test_line_force_outputs(name: str, oscillators: xr.Dataset, oscillator: Callable) -> None:
    """Length (or stretch), its rate and the tension outputs of the element, exact."""
    m, k, c, axis = SLIDERS[name]
    t = oscillators.time.values
    x, v, _ = oscillator(t, m, k, c, k * L0 - m * G * unit(axis)[2], X0, 0.0)
    shown = x - L0 if name == "user_spring" else x
    length = f"{name}_stretch" if name == "user_spring" else f"{name}_length"
    rate = f"{name}_stretch_rate" if name == "user_spring" else f"{name}_length_rate"
    sel = {f"{name}_element": name}  # the element is named after its type here
    bound = rk4_bound(np.sqrt(k / m), 0.1, T_END)
    assert float(np.abs(oscillators[length].sel(sel).values - shown).max()) < bound
    assert float(np.abs(oscillators[rate].sel(sel).values - v).max()) < np.sqrt(k / m) * bound
    tension = oscillators[f"{name}_force"].sel(sel).values
    assert float(np.abs(tension - (k * (x - L0) + c * v)).max()) < (k + c) * bound
    assert oscillators[f"{name}_force"].attrs["units"] == "N"


def test_spring_and_damper_share_the_load(oscillators: xr.Dataset, oscillator: Callable
                                          ) -> None:
    """The damper's tension is c x', the spring's k (x - L0), each on its own element."""
    m, k, c, axis = SLIDERS["spring_and_damper"]
    t = oscillators.time.values
    x, v, _ = oscillator(t, m, k, c, k * L0 - m * G * unit(axis)[2], X0, 0.0)
    damper = oscillators.damper_force.sel(damper_element="spring_and_damper_damper").values
    spring = oscillators.spring_force.sel(spring_element="spring_and_damper_spring").values
    bound = rk4_bound(np.sqrt(k / m), 0.1, T_END)
    assert float(np.abs(damper - c * v).max()) < c * np.sqrt(k / m) * bound
    assert float(np.abs(spring - k * (x - L0)).max()) < k * bound
    # each type's outputs over its own elements: the spring has no damper_force
    assert "spring_and_damper_spring" not in oscillators.damper_element.values


def test_free_body_hanging_on_a_spring(oscillators: xr.Dataset, oscillator: Callable,
                                       record_property: Callable) -> None:
    """Height of the free body vs the undamped oscillator sqrt(k/m); it neither drifts
    off the line nor turns."""
    m, k = HANGING
    t = oscillators.time.values
    # s = z_hook - z: m s'' = -k (s - L0) + m g
    s, _, _ = oscillator(t, m, k, 0.0, k * L0 + m * G, L0 + 0.1, -0.4)
    pos = oscillators.body_position.sel(body="hanging").values
    err = float(np.abs(ANCHOR_HANG[2] - pos[:, 2] - s).max())
    record_property("max_height_error_m", err)
    record_property("frequency_rad_s", float(np.sqrt(k / m)))
    assert err < rk4_bound(np.sqrt(k / m), 0.1, T_END)
    assert float(np.abs(pos[:, :2] - ANCHOR_HANG[:2]).max()) < 1e-12
    assert float(np.abs(oscillators.body_angular_velocity.sel(body="hanging")).max()) < 1e-12


# -- a spring with its own mass -----------------------------------------------------------

PM: dict[str, Any] = {"M": 3.0, "ms": 2.0, "f": 0.3, "k": 400.0,
                     "axis": unit([1.0, 0.5, -2.0])}


def massive_spring(x0: float) -> frylinks.System:
    """A slider on an inclined rail, held by a spring of mass ms (at fraction f from the
    ground anchor), from rest at slide x0."""
    e = PM["axis"]
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="spring-with-mass")
    orient = rail_orientation(e)
    s.ground.add_node("rail", position=[0.5, 0.2, 1.0], orientation=orient)
    s.add_body("slider", mass=PM["M"], inertia=[0.3, 0.4, 0.5],
               position=np.array([0.5, 0.2, 1.0]) + x0 * e, orientation=orient)
    s.add_link("rail", "prismatic", master="ground.rail", slave="slider")
    s.add_force("spring", "spring", master="ground.rail", slave="slider", stiffness=PM["k"],
                rest=L0, mass=PM["ms"], length_fraction=PM["f"])
    return s


def massive_exact(t: np.ndarray, x0: float, ms: float = PM["ms"]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    meff = PM["M"] + PM["f"] ** 2 * ms
    load = PM["k"] * L0 + (PM["M"] + PM["f"] * ms) * (-G * PM["axis"][2])
    w = np.sqrt(PM["k"] / meff)
    xeq = load / PM["k"]
    return xeq + (x0 - xeq) * np.cos(w * t), -(x0 - xeq) * w * np.sin(w * t), np.full_like(t, w)


def xeq_massive() -> float:
    return L0 + (PM["M"] + PM["f"] * PM["ms"]) * (-G * PM["axis"][2]) / PM["k"]


def test_spring_mass_effective_mass_and_frequency(record_property: Callable) -> None:
    """Slide vs the exact oscillator of mass M + f^2 ms about L0 + (M + f ms) g.e / k;
    the rail carries the transverse weight of the slider and of its share f ms."""
    x0 = 1.1
    ds = massive_spring(x0).run(t_end=1.0, dt=1e-3, every=5)
    t = ds.time.values
    x, v, w = massive_exact(t, x0)
    xs = ds.link_displacement.sel(link="rail", dof="tz").values
    vs = ds.link_velocity.sel(link="rail", dof="tz").values
    ex, ev = float(np.abs(xs - x).max()), float(np.abs(vs - v).max())
    record_property("max_slide_error_m", ex)
    record_property("max_rate_error_m_s", ev)
    record_property("frequency_rad_s", float(w[0]))
    bound = rk4_bound(float(w[0]), abs(x0 - xeq_massive()), 1.0)
    assert ex < bound
    assert ev < w[0] * bound
    # the mass matters: without it (or with all of it on the slider) the motion differs
    assert float(np.abs(massive_exact(t, x0, ms=0.0)[0] - xs).max()) > 1e-3
    orient = rail_orientation(PM["axis"])
    rm = Rotation.from_rotvec(unit(orient["axis"]) * np.radians(orient["angle_deg"]))
    g_perp = np.array([0.0, 0.0, -G]) - (-G * PM["axis"][2]) * PM["axis"]
    expected = rm.inv().apply(-(PM["M"] + PM["f"] * PM["ms"]) * g_perp)  # master-node axes
    reaction = ds.link_reaction_force.sel(link="rail").values
    er = float(np.abs(reaction - expected).max())
    record_property("max_reaction_error_N", er)
    assert er < 1e-9 * PM["M"] * G


def test_spring_mass_static_deflection(record_property: Callable) -> None:
    """Started at rest at L0 + (M + f ms) g.e / k, the slider stays; the tension is
    (M + f ms) g.e."""
    load = (PM["M"] + PM["f"] * PM["ms"]) * (-G * PM["axis"][2])
    xeq = L0 + load / PM["k"]
    ds = massive_spring(xeq).run(t_end=0.05, dt=1e-3, every=10)
    xs = ds.link_displacement.sel(link="rail", dof="tz").values
    err = float(np.abs(xs - xeq).max())
    record_property("max_static_deflection_error_m", err)
    assert err < 1e-12
    tension = ds.spring_force.sel(spring_element="spring").values
    assert float(np.abs(tension - load).max()) < 1e-9 * abs(load)


# -- Solfec user_spring from a case file (bilinear table) -------------------------------

K1, K2, MB, V0 = 400.0, 100.0, 1.0, 0.5


def bilinear_case(tmp_path: Path) -> Path:
    case = {
        "frylinks": 1,
        "name": "bilinear-user-spring",
        "gravity": [0.0, 0.0, 0.0],
        "ground": {"nodes": {"anchor": {"position": [0.0, 0.0, 0.0]}}},
        "bodies": {"puck": {"mass": MB, "inertia": [0.1, 0.1, 0.1],
                            "position": [0.6, 0.8, 0.0], "velocity": [0.6 * V0, 0.8 * V0, 0.0]}},
        "forces": {"bumper": {"type": "user_spring", "master": "ground.anchor",
                              "slave": "puck", "rest": 1.0,
                              "table": [[-1.0, -K2], [0.0, 0.0], [1.0, K1]]}},
        "solver": {"t_end": 1.0, "dt": 1e-3},
        "output": {"every": 1},
    }
    path = tmp_path / "bilinear.yaml"
    path.write_text(yaml.safe_dump(case))
    return path


def bilinear_exact(t: np.ndarray) -> np.ndarray:
    w1, w2 = np.sqrt(K1 / MB), np.sqrt(K2 / MB)
    period = np.pi / w1 + np.pi / w2
    tau = np.mod(t, period)
    return np.where(tau < np.pi / w1, V0 / w1 * np.sin(w1 * tau),
                    -V0 / w2 * np.sin(w2 * (tau - np.pi / w1)))


def test_user_spring_table_from_a_case_file(tmp_path: Path, record_property: Callable) -> None:
    """Stretch vs the exact bilinear oscillator; its period pi/w1 + pi/w2 from the
    upward zero crossings."""
    system, solver = load_case(bilinear_case(tmp_path))
    ds = system.run(**solver)
    t = ds.time.values
    d = ds.user_spring_stretch.sel(user_spring_element="bumper").values
    err = float(np.abs(d - bilinear_exact(t)).max())
    up = np.nonzero((d[:-1] < 0.0) & (d[1:] >= 0.0))[0]
    crossings = t[up] - d[up] * (t[up + 1] - t[up]) / (d[up + 1] - d[up])
    period = np.pi / np.sqrt(K1 / MB) + np.pi / np.sqrt(K2 / MB)
    eperiod = float(np.abs(np.diff(crossings) - period).max()) if len(crossings) > 1 else \
        abs(crossings[0] - period)
    record_property("max_stretch_error_m", err)
    record_property("period_error_s", eperiod)
    # each crossing of the kink costs rk4 its order (an O(h^2) velocity error there):
    # a few 1e-7 m, while the period, fixed by the smooth halves, stays exact
    assert err < 1e-6
    assert eperiod < 1e-7
    tension = ds.user_spring_force.sel(user_spring_element="bumper").values
    assert float(np.abs(tension - np.where(d > 0, K1 * d, K2 * d)).max()) < 1e-10 * K1


@pytest.mark.slow
def test_sliders_ten_seconds(oscillator: Callable, record_property: Callable) -> None:
    """Slow twin: 10 s of the bank (1e4 rk4 steps): every slider still exact."""
    ds = bank().run(t_end=10.0, dt=1e-3, every=50)
    t = ds.time.values
    worst = 0.0
    for name, (m, k, c, axis) in SLIDERS.items():
        ge = -G * unit(axis)[2]
        x, _, _ = oscillator(t, m, k, c, k * L0 + m * ge, X0, 0.0)
        err = float(np.abs(slide(ds, name)[0] - x).max())
        worst = max(worst, err)
        assert err < rk4_bound(np.sqrt(k / m), abs(X0 - L0 - m * ge / k), 10.0)
    record_property("max_slide_error_m", worst)


@pytest.mark.slow
def test_spring_mass_ten_seconds(record_property: Callable) -> None:
    """Slow twin: 10 s of the spring with its own mass."""
    x0 = 1.1
    ds = massive_spring(x0).run(t_end=10.0, dt=1e-3, every=50)
    x, _, w = massive_exact(ds.time.values, x0)
    err = float(np.abs(ds.link_displacement.sel(link="rail", dof="tz").values - x).max())
    record_property("max_slide_error_m", err)
    assert err < rk4_bound(float(w[0]), abs(x0 - xeq_massive()), 10.0)
