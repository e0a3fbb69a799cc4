"""The mooring force types ``mooring_matrix`` and ``catenary_line`` and their solver.

The contract checks, a case file and the same model in Python (equal to the bit), the
wrenches recomputed from the results (the catenary by :func:`catenary.solve` at fairlead
positions rebuilt with scipy; the matrix law with scipy's rotation vectors), errors
naming their key or line, and the force memory: declared, checkpointed and restored so
that a resumed run equals the uninterrupted one. The solver: a block of lines equals
lines one by one, a warm start from its own answer returns it unchanged, errors name the
line. Exact solutions are in tests/validation/test_catenary.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import netCDF4
import numpy as np
import pytest
import xarray as xr
from frylinks_marine.catenary import solve
from frylinks_marine.mooring import CatenaryLine, MooringMatrix
from scipy.spatial.transform import Rotation

import frylinks
from frylinks.errors import CaseError, ModelError, SimulationError
from frylinks.testing import check_force_type
from tests.test_resume import StopAt, assert_same_run

FAIRLEADS = {"f0": [10.0, 0.0, -3.0], "f1": [-5.0, 8.66, -3.0], "f2": [-5.0, -8.66, -3.0]}
ANCHORS = {"f0": [400.0, 0.0, -100.0], "f1": [-200.0, 346.4, -100.0],
           "f2": [-200.0, -346.4, -100.0]}
STIFFNESS = [[2.0e4, 0, 0, 0, 1.0e5, 0], [0, 2.0e4, 0, -1.0e5, 0, 0], [0, 0, 1.0e5, 0, 0, 0],
             [0, -1.0e5, 0, 5.0e7, 0, 0], [1.0e5, 0, 0, 0, 5.0e7, 0], [0, 0, 0, 0, 0, 3.0e7]]

CASE = """\
frylinks: 1
name: moored
gravity: [0, 0, -9.81]
bodies:
  buoy:
    mass: 1.0e5
    inertia: [2.0e7, 2.0e7, 3.0e7]
    position: [1.0, 0.5, -1.0]
    velocity: [0.3, -0.2, 0.1]
    angular_velocity: [0.01, 0.02, -0.03]
    nodes:
      f0: {position: [10.0, 0.0, -3.0]}
      f1: {position: [-5.0, 8.66, -3.0]}
      f2: {position: [-5.0, -8.66, -3.0]}
forces:
  chain0: {type: catenary_line, fairlead: buoy.f0, anchor: [400.0, 0.0, -100.0],
           length: 420.0, weight: 1.0e3, axial_stiffness: 8.0e8, seabed_friction: 0.5}
  chain1: {type: catenary_line, fairlead: buoy.f1, anchor: [-200.0, 346.4, -100.0],
           length: 420.0, weight: 1.0e3, axial_stiffness: 8.0e8}
  chain2: {type: catenary_line, fairlead: buoy.f2, anchor: [-200.0, -346.4, -100.0],
           length: 420.0, weight: 1.0e3}
  hawser:
    type: mooring_matrix
    body: buoy
    stiffness: STIFFNESS
    damping: {surge: 1.0e4, sway: 1.0e4, heave: 2.0e4, yaw: 1.0e6}
    pretension: {surge: 5.0e3, heave: -2.0e4}
    reference: [0.0, 0.0, -1.0]
  buoyancy: {type: world_force, node: buoy, force: [0, 0, 1.2e6]}
solver: {t_end: 0.4, dt: 0.02, integrator: rk4}
output: {every: 2}
""".replace("STIFFNESS", str(STIFFNESS))

LINE = {"length": 420.0, "weight": 1.0e3}
PARAMS: dict[str, dict[str, Any]] = {
    "chain0": {**LINE, "axial_stiffness": 8.0e8, "seabed_friction": 0.5},
    "chain1": {**LINE, "axial_stiffness": 8.0e8},
    "chain2": dict(LINE),
}


def in_python() -> frylinks.System:
    """The model of CASE through the Python API."""
    s = frylinks.System(name="moored", gravity=[0, 0, -9.81])
    buoy = s.add_body("buoy", mass=1.0e5, inertia=[2.0e7, 2.0e7, 3.0e7], position=[1.0, 0.5, -1.0],
                      velocity=[0.3, -0.2, 0.1], angular_velocity=[0.01, 0.02, -0.03])
    for name, position in FAIRLEADS.items():
        buoy.add_node(name, position=position)
    for k, (node, anchor) in enumerate(ANCHORS.items()):
        s.add_force(f"chain{k}", "catenary_line", fairlead=f"buoy.{node}", anchor=anchor,
                    **PARAMS[f"chain{k}"])
    s.add_force("hawser", "mooring_matrix", body="buoy", stiffness=STIFFNESS,
                damping={"surge": 1.0e4, "sway": 1.0e4, "heave": 2.0e4, "yaw": 1.0e6},
                pretension={"surge": 5.0e3, "heave": -2.0e4}, reference=[0.0, 0.0, -1.0])
    s.add_force("buoyancy", "world_force", node="buoy", force=[0, 0, 1.2e6])
    return s


@pytest.fixture(scope="module")
def case_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, xr.Dataset]:
    path = tmp_path_factory.mktemp("moored") / "moored.yaml"
    path.write_text(CASE)
    ds = frylinks.run(path, path.with_suffix(".nc"))
    return path, ds


# ------------------------------------------------------------------ contract

@pytest.mark.parametrize("cls", [MooringMatrix, CatenaryLine])
def test_contract(cls: type) -> None:
    check_force_type(cls)


def test_types_are_registered() -> None:
    from frylinks.model.registry import Registry

    names = Registry().names("force")
    assert "mooring_matrix" in names and "catenary_line" in names


# ------------------------------------------------------------------ runs

def test_case_file_runs_with_outputs_and_units(case_run: tuple[Path, xr.Dataset]) -> None:
    path, ds = case_run
    assert ds.attrs["status"] == "completed"
    with xr.open_dataset(path.with_suffix(".nc")) as f:
        for name, units in [("catenary_line_tension", "N"),
                            ("catenary_line_anchor_tension", "N"),
                            ("catenary_line_horizontal_tension", "N"),
                            ("catenary_line_laid_length", "m")]:
            assert f[name].dims == ("time", "catenary_line_element")
            assert f[name].attrs["units"] == units and f[name].attrs["long_name"]
        # over the catenary lines only: the hawser (another type) is not padded with NaN
        assert list(f.catenary_line_element.values) == ["chain0", "chain1", "chain2"]
        tension = f.catenary_line_tension.values
        assert np.isfinite(tension).all() and tension.min() > 1.0e4
        laid = f.catenary_line_laid_length.sel(catenary_line_element="chain0").values
        assert (laid > 0).all() and (laid < 420.0).all()


def test_python_api_equals_the_case_file(case_run: tuple[Path, xr.Dataset]) -> None:
    _, ds = case_run
    again = in_python().run(t_end=0.4, dt=0.02, every=2)
    for name in ("body_position", "body_orientation", "force_force", "force_torque",
                 "catenary_line_tension", "catenary_line_laid_length"):
        np.testing.assert_array_equal(again[name].values, ds[name].values, err_msg=name)


def fairlead_positions(ds: xr.Dataset) -> np.ndarray:
    """World fairlead positions ``(time, 3 lines, 3)`` from the body's pose (scipy)."""
    x = ds.body_position.sel(body="buoy").values
    q = ds.body_orientation.sel(body="buoy").values
    R = Rotation.from_quat(q[:, [1, 2, 3, 0]])
    return np.stack([x + R.apply(r) for r in FAIRLEADS.values()], axis=1)


def test_catenary_wrench_from_the_results(case_run: tuple[Path, xr.Dataset]) -> None:
    """Each line pulls its fairlead by H towards its anchor and V down; the reported
    tensions are those of the lines at the sampled fairlead positions."""
    _, ds = case_run
    points = fairlead_positions(ds)
    for k, anchor in enumerate(ANCHORS.values()):
        name = f"chain{k}"
        delta = points[:, k] - np.array(anchor)
        x = np.hypot(delta[:, 0], delta[:, 1])
        p = PARAMS[name]
        sol = solve(x, delta[:, 2], np.full(x.size, p["length"]), np.full(x.size, p["weight"]),
                    p.get("axial_stiffness", np.inf), p.get("seabed_friction", 0.0))
        expected = np.stack([-sol.horizontal * delta[:, 0] / x,
                             -sol.horizontal * delta[:, 1] / x, -sol.vertical], axis=1)
        force = ds.force_force.sel(force=name).values
        np.testing.assert_allclose(force, expected, rtol=1e-9, atol=1e-9 * sol.tension.max())
        np.testing.assert_array_equal(ds.force_torque.sel(force=name).values, 0.0)
        for var, value in [("tension", sol.tension), ("anchor_tension", sol.anchor_tension),
                           ("horizontal_tension", sol.horizontal),
                           ("laid_length", sol.laid_length)]:
            got = ds[f"catenary_line_{var}"].sel(catenary_line_element=name).values
            np.testing.assert_allclose(got, value, rtol=1e-9, err_msg=var)


def test_mooring_matrix_wrench_from_the_results(case_run: tuple[Path, xr.Dataset]) -> None:
    """pretension - K xi - B xi' at the COG, xi from the reference given (position) and
    the starting orientation (identity here)."""
    _, ds = case_run
    x = ds.body_position.sel(body="buoy").values
    q = ds.body_orientation.sel(body="buoy").values
    rot = Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_rotvec()
    xi = np.concatenate([x - [0.0, 0.0, -1.0], rot], axis=1)
    rate = np.concatenate([ds.body_velocity.sel(body="buoy").values,
                           ds.body_angular_velocity.sel(body="buoy").values], axis=1)
    B = np.diag([1.0e4, 1.0e4, 2.0e4, 0.0, 0.0, 1.0e6])
    expected = np.array([5.0e3, 0, -2.0e4, 0, 0, 0]) - xi @ np.array(STIFFNESS).T - rate @ B.T
    got = np.concatenate([ds.force_force.sel(force="hawser").values,
                          ds.force_torque.sel(force="hawser").values], axis=1)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-6)
    assert np.abs(rot).max() > 1e-3  # the rotation matters


def test_mooring_matrix_reference_is_the_start() -> None:
    """Without ``reference`` the COG and orientation at the start: no force at t = 0
    but the pretension, whatever the starting pose."""
    s = frylinks.System(gravity=[0, 0, 0])
    s.add_body("b", mass=1.0, inertia=[1, 1, 1], position=[3.0, -2.0, 1.0],
               orientation={"axis": [1, 1, 0], "angle_deg": 40})
    s.add_force("m", "mooring_matrix", body="b", stiffness=STIFFNESS, pretension=[1, 2, 3, 4, 5, 6])
    ds = s.run(t_end=0.1, dt=0.05)
    np.testing.assert_allclose(ds.force_force.values[0, 0], [1, 2, 3], atol=1e-9)
    np.testing.assert_allclose(ds.force_torque.values[0, 0], [4, 5, 6], atol=1e-9)


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize(("kind", "params", "key", "words"), [
    ("catenary_line", {"length": -1.0}, "length", "> 0"),
    ("catenary_line", {"weight": 0.0}, "weight", "> 0"),
    ("catenary_line", {"anchor": [1.0, 2.0]}, "anchor", "3 numbers"),
    ("catenary_line", {"axial_stiffness": float("inf")}, "axial_stiffness", "finite"),
    ("catenary_line", {"seabed_friction": -0.1}, "seabed_friction", ">= 0"),
    ("catenary_line", {"lenght": 400.0}, "lenght", "did you mean 'length'"),
    ("mooring_matrix", {"stiffness": {"surgee": 1.0}}, "stiffness.surgee", "surge"),
    ("mooring_matrix", {"stiffness": [[1.0, 2.0], [3.0, 4.0]]}, "stiffness", "6x6"),
    ("mooring_matrix", {"damping": "stiff"}, "damping", "6x6"),
    ("mooring_matrix", {"pretension": [1.0, 2.0, 3.0]}, "pretension", "6 numbers"),
    ("mooring_matrix", {"stiffness": {"heave": 1.0e40}}, "stiffness.heave", "up to 1e+30"),
    ("mooring_matrix", {"pretension": [0, 0, 1.0e40, 0, 0, 0]}, "pretension", "6 numbers"),
    ("mooring_matrix", {"damping": [[10**400] * 6] * 6}, "damping", "up to 1e+30"),
    ("mooring_matrix", {"pretension": [10**400] * 6}, "pretension", "up to 1e+30"),
    ("mooring_matrix", {"reference": [0.0, "x", 0.0]}, "reference[1]", "number"),
])
def test_bad_parameters_name_the_key(kind: str, params: dict[str, Any], key: str,
                                     words: str) -> None:
    s = frylinks.System()
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    base: dict[str, Any] = ({"fairlead": "b", "anchor": [100.0, 0, -50.0], "length": 120.0,
                             "weight": 10.0} if kind == "catenary_line"
                            else {"body": "b", "stiffness": {"surge": 1.0}})
    given = {**base, **params}
    if "lenght" in params:  # a typo of a required key
        del given["length"]
    with pytest.raises(ModelError) as err:
        s.add_force("x", kind, **given)
    assert err.value.path == f"forces.x.{key}"
    assert words in str(err.value)


def test_case_file_errors_name_file_key_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(CASE.replace("yaw: 1.0e6}", "yawn: 1.0e6}"))
    with pytest.raises(CaseError) as err:
        frylinks.load_case(path)
    text = str(err.value)
    line = next(i for i, t in enumerate(CASE.splitlines(), start=1) if "damping:" in t)
    assert "bad.yaml" in text and "forces.hawser.damping.yawn" in text
    assert f"(line {line})" in text
    path.write_text(CASE.replace("length: 420.0, weight: 1.0e3}", "length: 420.0}"))
    with pytest.raises(CaseError, match=r"forces\.chain2\.weight: missing required"):
        frylinks.load_case(path)


@pytest.mark.parametrize(("anchor", "length", "words"), [
    ([100.0, 0.0, 0.0], 120.0, "the fairlead is below the seabed"),
    ([100.0, 0.0, -50.0], 100.0, "an inextensible line must be longer"),
])
def test_impossible_line_stops_the_run_naming_it(anchor: list[float], length: float,
                                                 words: str) -> None:
    s = frylinks.System()
    buoy = s.add_body("buoy", mass=1.0e3, inertia=[1, 1, 1], position=[0, 0, -5.0])
    buoy.add_node("fl", position=[1.0, 0, 0])
    s.add_force("ok", "catenary_line", fairlead="buoy", anchor=[-100.0, 0, -50.0],
                length=150.0, weight=100.0)
    s.add_force("bad", "catenary_line", fairlead="buoy.fl", anchor=anchor, length=length,
                weight=100.0)
    ds = s.run(t_end=0.1, dt=0.05)
    status = ds.attrs["status"]
    assert status.startswith("diverged at t=0: catenary_line #1 (fairlead 'buoy.fl')")
    assert words in status


def test_solver_errors_name_the_line() -> None:
    with pytest.raises(SimulationError, match=r"^second \(and 1 other line\): the fairlead "
                                              r"is below the seabed .*\(Z = -1 m\)$"):
        solve([10.0, 10.0, 10.0], [5.0, -1.0, -2.0], [20.0] * 3, [1.0] * 3,
              names=["first", "second", "third"])
    with pytest.raises(SimulationError, match=r"catenary line 0: stretched by more than "
                                              r"100%"):
        solve([250.0], [0.0], [100.0], [1.0], [1.0e3])


# ------------------------------------------------------------------ memory and resume

def test_memory_is_declared_and_checkpointed(case_run: tuple[Path, xr.Dataset]) -> None:
    path, ds = case_run
    kinds = {MooringMatrix: {"reference_position": 3, "reference_orientation": 4},
             CatenaryLine: {"tensions": 2}}
    for cls, shapes in kinds.items():
        assert set(cls.memory) == set(shapes)
    with netCDF4.Dataset(path.with_suffix(".nc")) as nc:
        saved = {name.split(".", 1)[1]: np.array(v[:]) for name, v in
                 nc["checkpoint"].variables.items() if name.startswith("memory:")}
    assert saved["tensions"].shape == (3, 2) and (saved["tensions"] > 0).all()
    np.testing.assert_array_equal(saved["reference_position"], [[0.0, 0.0, -1.0]])
    np.testing.assert_array_equal(saved["reference_orientation"], [[1.0, 0.0, 0.0, 0.0]])
    last = ds.catenary_line_horizontal_tension.sel(
        catenary_line_element=["chain0", "chain1", "chain2"])
    np.testing.assert_allclose(saved["tensions"][:, 0], last.values[-1], rtol=1e-2)


@pytest.mark.parametrize("solver", [{"integrator": "rk4", "dt": 0.02, "every": 2},
                                    {"integrator": "dop853", "dt": 0.04, "rtol": 1e-8,
                                     "atol": 1e-10}])
def test_resumed_run_equals_uninterrupted(tmp_path: Path, solver: dict[str, Any]) -> None:
    whole = in_python().run(t_end=0.4, output=tmp_path / "whole.nc", **solver)
    system = in_python()
    system.registry.register(StopAt(0.17), name="ctrl-c")
    path = tmp_path / "r.nc"
    first = system.run(t_end=0.4, output=path, **solver)
    assert first.attrs["status"].startswith("interrupted")
    resumed = in_python().run(t_end=0.4, output=path, resume=True, **solver)
    assert_same_run(resumed, whole)


# ------------------------------------------------------------------ the solver

def random_lines(n: int, seed: int = 7) -> dict[str, np.ndarray]:
    """Lines of every kind: slack, grounded with and without friction, taut."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(50.0, 800.0, n)
    z = rng.uniform(20.0, 250.0, n)
    return {"horizontal_distance": x, "height": z,
            "length": np.hypot(x, z) * rng.uniform(0.99, 1.6, n),
            "weight": rng.uniform(100.0, 3000.0, n),
            "axial_stiffness": 10 ** rng.uniform(8.5, 10.0, n),
            "seabed_friction": np.where(rng.random(n) < 0.5, 0.0, rng.uniform(0.1, 1.0, n))}


def test_a_block_equals_lines_one_by_one() -> None:
    lines = random_lines(60)
    block = solve(**lines)
    assert (block.laid_length > 0).any() and (block.laid_length == 0).any()
    assert (block.anchor_vertical > 0).any()
    for i in range(60):
        one = solve(**{k: v[i:i + 1] for k, v in lines.items()})
        for name in ("horizontal", "vertical", "anchor_tension", "laid_length"):
            assert getattr(one, name)[0] == getattr(block, name)[i], (i, name)


def test_warm_start_from_its_own_answer_returns_it() -> None:
    lines = random_lines(40, seed=3)
    cold = solve(**lines)
    guess = np.stack([cold.horizontal, cold.vertical], axis=1)
    warm = solve(**lines, guess=guess)
    assert warm.iterations.max() == 0
    np.testing.assert_array_equal(warm.horizontal, cold.horizontal)
    np.testing.assert_array_equal(warm.vertical, cold.vertical)
    moved = dict(lines, height=lines["height"] + 0.5)
    again = solve(**moved, guess=guess)
    fresh = solve(**moved)
    assert again.iterations.max() <= 6
    np.testing.assert_allclose(again.horizontal, fresh.horizontal, rtol=1e-10)
    np.testing.assert_allclose(again.vertical, fresh.vertical, rtol=1e-10)


def test_empty_block() -> None:
    sol = solve([], [], [], [])
    assert sol.horizontal.shape == (0,) and sol.laid_length.shape == (0,)
