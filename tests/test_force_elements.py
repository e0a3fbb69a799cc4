"""The built-in force elements on random node frames, against their defining formulas.

Each type is evaluated for a block of elements on random poses and velocities and
compared with the formula of its docstring, written here element by element (a plain
loop, independent of the vectorised code). Rates are checked against central
differences of the lengths and angles along a random motion (step ``H = 1e-6``: the
error is ``H^2`` times third derivatives of order one, ~1e-12, so ``1e-8`` has a wide
margin); the torsional torque against the finite-difference gradient of its potential.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from frylinks import ModelError, System
from frylinks.errors import SimulationError
from frylinks.forces import ForceContext, ForceType
from frylinks.kinematics import NodeFrames
from frylinks.model.registry import Registry
from frylinks.params import parse_params
from frylinks.signals import SignalBank, SignalSpec

REGISTRY = Registry()
H = 1e-6
N = 7


def random_frames(rng: np.random.Generator, n: int = N) -> list[NodeFrames]:
    """Master and slave frames: random positions, orientations, velocities."""
    out = []
    for _ in range(2):
        rot = Rotation.random(n, random_state=rng)
        q = rot.as_quat()[:, [3, 0, 1, 2]]
        out.append(NodeFrames(p=rng.normal(size=(n, 3)), R=rot.as_matrix(), q=q,
                              v=rng.normal(size=(n, 3)), w=rng.normal(size=(n, 3)),
                              r=rng.normal(size=(n, 3))))
    return out


def moved(frames: list[NodeFrames], dt: float) -> list[NodeFrames]:
    """The frames after ``dt`` of their own motion (constant v, w)."""
    out = []
    for f in frames:
        rot = Rotation.from_rotvec(f.w * dt) * Rotation.from_matrix(f.R)
        out.append(NodeFrames(p=f.p + f.v * dt, R=rot.as_matrix(),
                              q=rot.as_quat()[:, [3, 0, 1, 2]], v=f.v, w=f.w, r=f.r))
    return out


def build(name: str, given: Sequence[Mapping[str, Any]], t: float = 0.3
          ) -> tuple[ForceType, ForceContext, list[dict[str, Any]]]:
    """A block of type ``name`` from parameter sets (attachments filled in), its context
    at time ``t`` and the parsed parameters."""
    cls = REGISTRY.types["force"][name].cls
    system = System(registry=REGISTRY)
    params = []
    for k, g in enumerate(given):
        full = {att: "ground" for att in cls.attachments} | dict(g)
        p = parse_params(cls.parameters, full, f"forces.f{k}", system._check_signal)
        cls.validate(p)
        params.append(p)
    specs: list[SignalSpec] = []
    kind = cls(params, specs)
    classes = {s.type: REGISTRY.types["signal"][s.type].cls for s in specs}
    values = SignalBank(classes, specs).evaluate(t) if specs else np.zeros(0)
    return kind, ForceContext(t, values, np.array([0.0, 0.0, -9.81])), params


def sine(t: float, amplitude: float, omega: float) -> float:
    return amplitude * np.sin(omega * t)


# -- Exudyn linear spring-damper ---------------------------------------------------------

def cubic(t: float, x: np.ndarray, v: np.ndarray, k: np.ndarray, d: np.ndarray,
          rest: np.ndarray) -> np.ndarray:
    return k * x + 0.1 * k * x**3 + t * d * v - rest


LSD: list[dict[str, Any]] = [
    {"stiffness": 2e3, "damping": 20.0},
    {"stiffness": 100.0, "damping": 3.0, "axis": [0.0, 2.0, 2.0], "rest": 0.3,
     "velocity_offset": 0.1, "preload": {"type": "sine", "amplitude": 5.0, "omega": 2.0}},
    {"stiffness": 10.0, "damping": 1.0, "active": False},
    {"stiffness": 50.0, "damping": 2.0, "rest": 0.7, "user_function": cubic},
    {"stiffness": 7.0, "axis": [1.0, -1.0, 0.5], "preload": -3.0},
    {"stiffness": 60.0, "damping": 4.0, "rest": -0.2, "user_function": cubic},
    {"damping": 9.0, "velocity_offset": {"type": "sine", "amplitude": 1.0, "omega": 5.0}},
]


def test_linear_spring_damper_follows_exudyn() -> None:
    """dx = n.(p_s - p_m), dv = n.(v_s - v_m) with n = R_m d; f = k (dx - rest) + d (dv -
    v_off) + preload (or the user function, or 0 if inactive); -f n on the slave, +f n on
    the master, no torque."""
    rng = np.random.default_rng(1)
    frames = random_frames(rng)
    t = 0.3
    kind, ctx, params = build("linear_spring_damper", LSD, t)
    force, torque = kind.evaluate(frames, ctx)
    out = kind.output_values(frames, ctx)
    m, s = frames
    for i, p in enumerate(params):
        d = np.asarray(p["axis"], dtype=float)
        n = m.R[i] @ (d / np.linalg.norm(d))
        dx = n @ (s.p[i] - m.p[i])
        dv = n @ (s.v[i] - m.v[i])
        preload = sine(t, 5.0, 2.0) if i == 1 else p["preload"]
        v_off = sine(t, 1.0, 5.0) if i == 6 else p["velocity_offset"]
        k, c, rest = p["stiffness"], p["damping"], p["rest"]
        if p["user_function"] is not None:
            f = k * dx + 0.1 * k * dx**3 + t * c * dv - rest
        else:
            f = k * (dx - rest) + c * (dv - v_off) + preload
        f = f if p["active"] else 0.0
        np.testing.assert_allclose(force[i], [f * n, -f * n], rtol=1e-13, atol=1e-12)
        assert out["linear_spring_damper_displacement"][i] == pytest.approx(dx, rel=1e-13)
        assert out["linear_spring_damper_velocity"][i] == pytest.approx(dv, rel=1e-13)
        assert out["linear_spring_damper_force"][i] == pytest.approx(f, rel=1e-13, abs=1e-12)
    assert not torque.any()


def test_user_functions_are_called_once_each_with_arrays() -> None:
    """Two functions shared by 2 and 3 elements: two calls per evaluation, each with the
    arrays of its own elements (in element order)."""
    calls: list[tuple[str, np.ndarray]] = []

    def make(label: str) -> Callable[..., np.ndarray]:
        def fn(t: float, x: np.ndarray, v: np.ndarray, k: np.ndarray, d: np.ndarray,
               rest: np.ndarray) -> np.ndarray:
            calls.append((label, k.copy()))
            return k * x
        return fn

    f1, f2 = make("a"), make("b")
    given: list[dict[str, Any]] = [
             {"stiffness": 1.0, "user_function": f1}, {"stiffness": 2.0},
             {"stiffness": 3.0, "user_function": f2}, {"stiffness": 4.0, "user_function": f1},
             {"stiffness": 5.0, "user_function": f2}, {"stiffness": 6.0, "user_function": f2}]
    kind, ctx, _ = build("linear_spring_damper", given)
    kind.evaluate(random_frames(np.random.default_rng(2), 6), ctx)
    assert [(c, list(k)) for c, k in calls] == [("a", [1.0, 4.0]), ("b", [3.0, 5.0, 6.0])]


def test_user_function_of_wrong_shape_is_a_clear_error() -> None:
    def scalar_law(t: float, x: float, v: float, k: float, d: float, r: float) -> list[float]:
        return [k[0] * x[0]] * 3  # type: ignore[index]

    given: list[dict[str, Any]] = [{"stiffness": 1.0, "user_function": scalar_law}] * 2
    kind, ctx, _ = build("linear_spring_damper", given)
    with pytest.raises(SimulationError, match=r"scalar_law.*array of 2 numbers.*numpy"):
        kind.evaluate(random_frames(np.random.default_rng(3), 2), ctx)


# -- torsional spring-damper -------------------------------------------------------------

TSD: list[dict[str, Any]] = [
    {"stiffness": 20.0, "damping": 0.3},
    {"stiffness": 5.0, "damping": 0.1, "axis": [1.0, 1.0, 0.0], "rest": 0.5,
     "velocity_offset": -0.2, "preload": 1.5},
    {"stiffness": 10.0, "damping": 2.0, "axis": [0.3, -0.2, 0.9], "active": False},
    {"stiffness": 3.0, "damping": 1.0, "axis": [0.0, 1.0, 0.0], "user_function": cubic},
]


def twist(frames: list[NodeFrames], axis: np.ndarray) -> np.ndarray:
    """Twist angles in (-pi, pi] about ``axis`` (master axes), found without the
    closed form: the angle ``th`` making ``R_rel R_axis(th)^T`` a rotation whose axis is
    perpendicular to ``axis`` (the swing), searched on a grid then refined."""
    m, s = frames
    out = np.empty(len(m.p))
    for i in range(len(m.p)):
        rel = Rotation.from_matrix(m.R[i].T @ s.R[i])
        a = axis[i] / np.linalg.norm(axis[i])

        def off_plane(th: float, rel: Rotation = rel, a: np.ndarray = a) -> float:
            swing = rel * Rotation.from_rotvec(-th * a)
            return float(swing.as_rotvec() @ a)

        grid = np.linspace(-np.pi, np.pi, 721)
        vals = np.array([abs(off_plane(th)) for th in grid])
        th = grid[int(np.argmin(vals))]
        for _ in range(30):  # Newton on the smooth off-plane component
            d = (off_plane(th + 1e-7) - off_plane(th - 1e-7)) / 2e-7
            th -= off_plane(th) / d
        out[i] = (th + np.pi) % (2 * np.pi) - np.pi
    return out


def test_torsional_angle_is_the_swing_twist_angle() -> None:
    rng = np.random.default_rng(4)
    frames = random_frames(rng, 4)
    kind, ctx, params = build("torsional_spring_damper", TSD)
    axes = np.array([p["axis"] for p in params], dtype=float)
    out = kind.output_values(frames, ctx)
    np.testing.assert_allclose(out["torsional_spring_damper_angle"], twist(frames, axes),
                               atol=1e-9)


def test_torsional_rate_and_torque_are_exact_derivatives() -> None:
    """The angular velocity output is the time derivative of the angle along the motion,
    and the torque on each node is minus the gradient of ``k (theta - rest)^2 / 2``
    with respect to the node's rotation (virtual work, finite differences)."""
    rng = np.random.default_rng(5)
    frames = random_frames(rng, 4)
    given = [{"stiffness": 1.0, "axis": p.get("axis", [0.0, 0.0, 1.0])} for p in TSD]
    kind, ctx, _ = build("torsional_spring_damper", given)
    angle = kind.output_values(frames, ctx)["torsional_spring_damper_angle"]
    rate = kind.output_values(frames, ctx)["torsional_spring_damper_angular_velocity"]
    plus = kind.output_values(moved(frames, H), ctx)["torsional_spring_damper_angle"]
    minus = kind.output_values(moved(frames, -H), ctx)["torsional_spring_damper_angle"]
    np.testing.assert_allclose(rate, (plus - minus) / (2 * H), atol=1e-8)
    force, torque = kind.evaluate(frames, ctx)
    assert not force.any()
    for k in range(2):  # rotate node k by a small world rotation about each axis
        for j in range(3):
            dphi = np.zeros((4, 3))
            dphi[:, j] = H
            shifted = []
            for sign in (1.0, -1.0):
                fr = [NodeFrames(f.p, f.R, f.q, 0 * f.v, 0 * f.w, f.r) for f in frames]
                rot = Rotation.from_rotvec(sign * dphi) * Rotation.from_matrix(fr[k].R)
                fr[k] = NodeFrames(fr[k].p, rot.as_matrix(), rot.as_quat()[:, [3, 0, 1, 2]],
                                   fr[k].v, fr[k].w, fr[k].r)
                kind.angle_ref = angle.copy()  # type: ignore[attr-defined]
                shifted.append(kind.output_values(fr, ctx)["torsional_spring_damper_angle"])
            grad = (0.5 * shifted[0] ** 2 - 0.5 * shifted[1] ** 2) / (2 * H)
            np.testing.assert_allclose(torque[:, k, j], -grad, atol=1e-7)


def test_torsional_pure_twist_acts_about_the_axis_and_unwraps() -> None:
    """A slave node turning about the master axis through five turns: the angle counts
    them, the torque is -k (theta - rest) about the axis."""
    axis = np.array([0.0, 0.6, 0.8])
    kind, ctx, _ = build("torsional_spring_damper",
                         [{"stiffness": 2.0, "axis": list(axis), "rest": 0.4}])
    rm = Rotation.from_euler("xyz", [0.3, -0.5, 1.1])
    for theta in np.linspace(-0.2, 10 * np.pi, 200):
        rs = rm * Rotation.from_rotvec(theta * axis)
        frames = [NodeFrames(np.zeros((1, 3)), rm.as_matrix()[None], rm.as_quat()[None, [3, 0,
                                                                                       1, 2]],
                             np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3))),
                  NodeFrames(np.ones((1, 3)), rs.as_matrix()[None],
                             -rs.as_quat()[None, [3, 0, 1, 2]],  # either sign of q
                             np.zeros((1, 3)), np.array([[0.0, 0.0, 0.0]]), np.zeros((1, 3)))]
        _, torque = kind.evaluate(frames, ctx)
        out = kind.output_values(frames, ctx)
        assert out["torsional_spring_damper_angle"][0] == pytest.approx(theta, abs=1e-12)
        np.testing.assert_allclose(torque[0, 1], -2.0 * (theta - 0.4) * rm.apply(axis),
                                   atol=1e-11)
        np.testing.assert_allclose(torque[0, 0], -torque[0, 1])


# -- line forces ---------------------------------------------------------------------------

LINES: dict[str, tuple[list[dict[str, Any]], Callable[..., float]]] = {
    "spring": ([{"stiffness": 100.0, "rest": 0.5}, {"stiffness": 10.0, "mass": 2.0},
                {"stiffness": 3.0, "rest": {"type": "sine", "amplitude": 1.0, "omega": 2.0}}],
               lambda p, s, sd, t: p["stiffness"] * (s - (sine(t, 1.0, 2.0)
                                                          if isinstance(p["rest"], SignalSpec)
                                                          else p["rest"]))),
    "damper": ([{"damping": 5.0}, {"damping": 0.5}],
               lambda p, s, sd, t: p["damping"] * sd),
    "spring_damper_parallel": ([{"stiffness": 100.0, "damping": 3.0, "rest": 0.2},
                                {"stiffness": 1.0, "damping": 30.0}],
                               lambda p, s, sd, t: p["stiffness"] * (s - p["rest"])
                               + p["damping"] * sd),
    "user_spring": ([{"rest": 1.0, "table": [[-1.0, -200.0], [0.0, 0.0], [0.5, 50.0],
                                             [2.0, 400.0]], "damping": 1.0},
                     {"rest": 0.5, "function": lambda d, dd: 7.0 * d**3 + 2.0 * dd},
                     {"rest": 3.0, "table": [[0.0, 0.0], [1.0, 10.0]]}],
                    lambda p, s, sd, t: user_tension(p, s - p["rest"], sd)),
}


def user_tension(p: Mapping[str, Any], d: float, dd: float) -> float:
    if p["function"] is not None:
        return float(p["function"](d, dd)) + p["damping"] * dd
    tab = np.asarray(p["table"], dtype=float)
    if d < tab[0, 0]:
        (x0, y0), (x1, y1) = tab[0], tab[1]
    elif d >= tab[-1, 0]:
        (x0, y0), (x1, y1) = tab[-2], tab[-1]
    else:
        return float(np.interp(d, tab[:, 0], tab[:, 1])) + p["damping"] * dd
    return y0 + (y1 - y0) / (x1 - x0) * (d - x0) + p["damping"] * dd


@pytest.mark.parametrize("name", list(LINES))
def test_line_forces_pull_along_the_line(name: str) -> None:
    """Tension f(s, s') on the line master -> slave: -f e on the slave, +f e on the
    master, no torque; outputs length, rate (= d s / dt) and tension."""
    given, law = LINES[name]
    t = 0.7
    kind, ctx, params = build(name, given, t)
    frames = random_frames(np.random.default_rng(6), len(given))
    force, torque = kind.evaluate(frames, ctx)
    out = kind.output_values(frames, ctx)
    prefix = name
    length_key = f"{prefix}_stretch" if name == "user_spring" else f"{prefix}_length"
    rate_key = f"{prefix}_stretch_rate" if name == "user_spring" else f"{prefix}_length_rate"
    m, s = frames
    for i, p in enumerate(params):
        delta = s.p[i] - m.p[i]
        length = float(np.linalg.norm(delta))
        e = delta / length
        rate = float(e @ (s.v[i] - m.v[i]))
        f = law(p, length, rate, t)
        np.testing.assert_allclose(force[i], [f * e, -f * e], rtol=1e-12, atol=1e-12)
        shown = length - p["rest"] if name == "user_spring" else length
        assert out[length_key][i] == pytest.approx(shown, rel=1e-13)
        assert out[rate_key][i] == pytest.approx(rate, rel=1e-12)
        assert out[f"{prefix}_force"][i] == pytest.approx(f, rel=1e-12)
    assert not torque.any()
    plus = kind.output_values(moved(frames, H), ctx)[length_key]
    minus = kind.output_values(moved(frames, -H), ctx)[length_key]
    np.testing.assert_allclose(out[rate_key], (plus - minus) / (2 * H), atol=1e-8)


def test_coincident_nodes_give_no_nan() -> None:
    kind, ctx, _ = build("spring_damper_parallel", [{"stiffness": 5.0, "damping": 1.0,
                                                     "rest": 0.3}])
    f = random_frames(np.random.default_rng(7), 1)
    f[1].p[:] = f[0].p
    force, _ = kind.evaluate(f, ctx)
    assert np.isfinite(force).all() and not force.any()


def test_spring_point_masses_sit_at_the_length_fraction() -> None:
    kind, ctx, _ = build("spring", [{"stiffness": 1.0, "mass": 3.0, "length_fraction": 0.25},
                                    {"stiffness": 1.0}, {"stiffness": 1.0, "mass": 1.0}])
    mass, weights = kind.point_masses(random_frames(np.random.default_rng(8), 3), ctx) or (
        None, None)
    np.testing.assert_array_equal(mass, [3.0, 0.0, 1.0])
    np.testing.assert_array_equal(weights, [[0.75, 0.25], [0.5, 0.5], [0.5, 0.5]])
    massless, ctx, _ = build("spring", [{"stiffness": 1.0}])
    assert massless.point_masses(random_frames(np.random.default_rng(8), 1), ctx) is None


# -- forces and torques from inputs --------------------------------------------------------

SINE = {"type": "sine", "amplitude": 2.0, "omega": 3.0}


@pytest.mark.parametrize("name", ["force", "torque"])
def test_force_and_torque_between_frames(name: str) -> None:
    """The input in world, master or slave axes acts on the slave, the opposite on the
    master; the pair has no net force and no net moment."""
    t = 0.4
    vectors: list[list[Any]] = [[1.0, -2.0, 3.0], [4.0, 0.0, -1.0], [0.5, SINE, -1.0],
                                [2.0, 2.0, 1.0]]
    frames_ = ["world", "master", "slave", None]
    given: list[dict[str, Any]] = [
        {name: v} | ({"resolve_frame": r} if r else {})
        for v, r in zip(vectors, frames_, strict=True)]
    kind, ctx, _ = build(name, given, t)
    frames = random_frames(np.random.default_rng(9), 4)
    force, torque = kind.evaluate(frames, ctx)
    m, s = frames
    for i, (v, r) in enumerate(zip(vectors, frames_, strict=True)):
        local = np.array([sine(t, 2.0, 3.0) if isinstance(c, dict) else c for c in v])
        axes = {"world": np.eye(3), "master": m.R[i], "slave": s.R[i], None: s.R[i]}[r]
        world = axes @ local
        applied = force if name == "force" else torque
        np.testing.assert_allclose(applied[i, 1], world, rtol=1e-13)
        np.testing.assert_allclose(applied[i, 0], -world, rtol=1e-13)
    # equilibrium: net force and net moment about the origin vanish
    np.testing.assert_allclose(force.sum(axis=1), 0.0, atol=1e-13)
    moment = torque.sum(axis=1) + np.cross(m.p, force[:, 0]) + np.cross(s.p, force[:, 1])
    np.testing.assert_allclose(moment, 0.0, atol=1e-12)


@pytest.mark.parametrize("name", ["world_force", "world_torque"])
def test_world_loads_resolve_in_world_or_node_axes(name: str) -> None:
    key = name.split("_")[1]
    given: list[dict[str, Any]] = [
             {key: [1.0, -2.0, 3.0]}, {key: [1.0, -2.0, 3.0], "resolve_frame": "node"},
             {key: [0.5, SINE, -1.0], "resolve_frame": "node"}]
    kind, ctx, _ = build(name, given, 0.4)
    frames = random_frames(np.random.default_rng(10), 3)[:1]
    force, torque = kind.evaluate(frames, ctx)
    applied, other = (force, torque) if key == "force" else (torque, force)
    np.testing.assert_allclose(applied[0, 0], [1.0, -2.0, 3.0])
    np.testing.assert_allclose(applied[1, 0], frames[0].R[1] @ [1.0, -2.0, 3.0], rtol=1e-13)
    np.testing.assert_allclose(applied[2, 0], frames[0].R[2] @ [0.5, sine(0.4, 2.0, 3.0), -1.0],
                               rtol=1e-13)
    assert not other.any()


# -- input checks -----------------------------------------------------------------------

BAD = [
    ("linear_spring_damper", {"axis": [0, 0, 0]}, "forces.f.axis: an axis must not be the zero"),
    ("linear_spring_damper", {"active": "yes"}, "forces.f.active: expected true or false"),
    ("linear_spring_damper", {"stiffness": -1.0}, "forces.f.stiffness: must be >= 0"),
    ("torsional_spring_damper", {"user_function": "cubic"},
     "forces.f.user_function: expected a Python callable"),
    ("spring", {"stiffness": 1.0, "length_fraction": 1.5},
     "forces.f.length_fraction: must be between 0 and 1"),
    ("spring", {"stiffness": 1.0, "mass": -2.0}, "forces.f.mass: must be >= 0"),
    ("spring", {"stiffness": 1.0, "rest": -0.5}, "forces.f.rest: a length must be >= 0"),
    ("spring", {}, "forces.f.stiffness: missing required parameter"),
    ("user_spring", {"rest": 1.0}, "forces.f.table: give either a function"),
    ("user_spring", {"rest": 1.0, "table": [[0, 0], [1, 1]], "function": abs},
     "forces.f.table: give either a function"),
    ("user_spring", {"rest": 1.0, "table": [[0, 0], [1, 1], [1, 2]]},
     "forces.f.table[2]: stretches must increase strictly"),
    ("user_spring", {"rest": 1.0, "table": [[0, 0]]}, "forces.f.table: expected a list of at "
                                                      "least two"),
    ("user_spring", {"table": [[0, 0], [1, 1]]}, "forces.f.rest: missing required parameter"),
    ("force", {"force": [1, 2, 3], "resolve_frame": "body"},
     "forces.f.resolve_frame: unknown value 'body'"),
    ("world_force", {"force": [1, 2, 3], "resolve_frame": "slave"},
     "forces.f.resolve_frame: unknown value 'slave'"),
]


@pytest.mark.parametrize(("name", "params", "message"), BAD)
def test_bad_parameters_are_model_errors_with_their_key_path(name: str, params: dict[str, Any],
                                                             message: str) -> None:
    s = System(registry=REGISTRY)
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    cls = REGISTRY.types["force"][name].cls
    where = {att: ("b" if k else "ground") for k, att in enumerate(cls.attachments)}
    with pytest.raises(ModelError) as info:
        s.add_force("f", name, **where, **params)
    assert message in str(info.value)
