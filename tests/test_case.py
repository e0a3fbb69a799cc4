"""Case files: a valid case loads and runs; every mistake names the file, key path and line."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

import frylinks
from frylinks.engine import DEFAULT_TOLERANCE, assemble
from frylinks.errors import CaseError, ModelError
from frylinks.io.case import key_line, load_case

CASES = Path(__file__).resolve().parents[1] / "cases"

BUOY: dict[str, Any] = {
    "frylinks": 1,
    "name": "buoy-test",
    "description": "a buoy on a prismatic PTO",
    "gravity": [0, 0, -9.81],
    "ground": {"nodes": {"seabed": {"position": [0, 0, -10]}}},
    "bodies": {
        "buoy": {
            "mass": 1000.0,
            "inertia": [800.0, 800.0, 1200.0],
            "position": [0, 0, 0],
            "nodes": {"pto": {"position": [0, 0, -1]}},
        },
    },
    "links": {
        "pto": {
            "type": "prismatic",
            "master": "ground.seabed",
            "slave": "buoy.pto",
            "spring_damper": {"stiffness": 4.0e4, "damping": 2.0e3, "rest": 9.0},
        },
    },
    "forces": {
        "lift": {"type": "world_force", "node": "buoy", "force": [0, 0, 9810.0]},
    },
    "solver": {"t_end": 0.05, "dt": 0.01},
    "output": {"every": 1},
}


def write(tmp_path: Path, case: dict[str, Any] | str, name: str = "buoy.yaml") -> Path:
    path = tmp_path / name
    path.write_text(case if isinstance(case, str) else yaml.safe_dump(case, sort_keys=False))
    return path


def error_of(path: Path) -> str:
    with pytest.raises(CaseError) as info:
        load_case(path)
    return str(info.value)


def changed(**sections: Any) -> dict[str, Any]:
    """A copy of BUOY with top-level sections replaced."""
    case = copy.deepcopy(BUOY)
    case.update(sections)
    return case


def test_valid_case_loads_and_runs(tmp_path: Path) -> None:
    path = write(tmp_path, BUOY)
    system, solver = load_case(path)
    assert system.name == "buoy-test"
    assert system.description == "a buoy on a prismatic PTO"
    assert system.case_text == path.read_text()
    assert list(system.bodies) == ["buoy"] and list(system.links) == ["pto"]
    assert list(system.forces) == ["lift"]
    assert system.links["pto"].stiffness[0, 0] == 4.0e4
    assert solver == {"t_end": 0.05, "dt": 0.01, "integrator": "rk4", "every": 1,
                      "rtol": 1e-9, "atol": 1e-12, "rho_inf": 0.8,
                      "initial_equilibrium": False, "assembly_tolerance": DEFAULT_TOLERANCE,
                      "equilibrium_max_turn_deg": 45.0}
    ds = system.run(**solver)
    assert ds.attrs["status"] == "completed"
    assert ds.attrs["title"] == "buoy-test"
    assert ds.attrs["case"] == path.read_text()
    assert ds.sizes["time"] == 6
    # buoyancy balances weight and the spring sits at rest: the buoy stays put
    np.testing.assert_allclose(ds.body_position.sel(body="buoy").values, 0.0, atol=1e-9)


def test_public_load_case_returns_the_system(tmp_path: Path) -> None:
    system = frylinks.load_case(str(write(tmp_path, BUOY)))
    assert isinstance(system, frylinks.System)


def test_a_loaded_case_runs_as_written() -> None:
    """``load_case(path).run()`` is the case's run: its t_end, dt, output.every and
    initial_equilibrium (the moored buoy starts from its equilibrium, not 2 m off it),
    bit for bit as ``frylinks.run``; a keyword given overrides the case."""
    case = CASES / "moored_buoy.yaml"
    system = frylinks.load_case(str(case))
    assert system.case_settings["initial_equilibrium"] is True
    assert system.case_settings["every"] == 2
    import pickle

    # a System is copied (the sweeps' values) and pickled (dask): its settings go along
    assert copy.deepcopy(system).case_settings == system.case_settings
    assert pickle.loads(pickle.dumps(system)).case_settings["every"] == 2
    mine = system.run(t_end=1.0)
    theirs = frylinks.run(case, t_end=1.0)
    assert mine.sizes["time"] == theirs.sizes["time"] == 11   # dt 0.05, every 2
    np.testing.assert_array_equal(mine.body_position, theirs.body_position)
    start = mine.body_position.isel(time=0).sel(body="buoy").values
    assert np.linalg.norm(start - system.bodies["buoy"].position) > 0.1  # moved to rest
    pendulum = frylinks.load_case(str(CASES / "pendulum.yaml")).run()
    assert float(pendulum.time[-1]) == 4.0 and pendulum.attrs["dt"] == 0.01


def test_a_system_built_in_python_needs_t_end_and_dt() -> None:
    system = frylinks.System()
    system.add_body("ball", mass=1.0, inertia=[1.0, 1.0, 1.0])
    with pytest.raises(frylinks.FrylinksError, match="run: give t_end, the end time"):
        system.run()
    with pytest.raises(frylinks.FrylinksError, match="run: give dt, the time step"):
        system.run(1.0)
    assert system.run(0.1, 0.05).sizes["time"] == 3


def test_numbers_with_unsigned_exponent_are_numbers(tmp_path: Path) -> None:
    # PyYAML alone reads 4.0e4 as the text '4.0e4' (YAML 1.1); DESIGN's example uses it
    text = yaml.safe_dump(BUOY, sort_keys=False).replace("40000.0", "4.0e4")
    assert "stiffness: 4.0e4" in text
    system, _ = load_case(write(tmp_path, text))
    assert system.links["pto"].stiffness[0, 0] == 4.0e4


@pytest.mark.parametrize("name", ["pendulum", "heaving_buoy", "screw_jack"])
def test_shipped_cases_start_on_their_constraints(name: str) -> None:
    """Each example assembles, and its initial state meets its links (no jump at t=0)."""
    system, solver = load_case(CASES / f"{name}.yaml")
    assemble(system)
    assert solver["t_end"] / solver["dt"] <= 2000
    ds = system.run(t_end=2 * solver["dt"], dt=solver["dt"])
    assert ds.attrs["status"] == "completed"
    for body_name, body in system.bodies.items():
        np.testing.assert_allclose(ds.body_position.sel(body=body_name).isel(time=0),
                                   body.position, atol=1e-12)
        np.testing.assert_allclose(ds.body_orientation.sel(body=body_name).isel(time=0),
                                   body.orientation, atol=1e-12)


def test_unknown_top_level_key_suggests(tmp_path: Path) -> None:
    case = changed()
    case["solvr"] = case.pop("solver")
    msg = error_of(write(tmp_path, case))
    assert msg.startswith(f"case '{tmp_path / 'buoy.yaml'}', solvr: unknown key 'solvr'")
    assert "did you mean 'solver'?" in msg


def test_bad_stiffness_names_key_path_and_line(tmp_path: Path) -> None:
    case = changed()
    case["links"]["pto"]["spring_damper"]["stiffness"] = "stiff"
    path = write(tmp_path, case)
    msg = error_of(path)
    line = 1 + path.read_text().splitlines().index("    spring_damper:") + 1
    assert msg.startswith(f"case '{path}', links.pto.spring_damper.stiffness: expected a number")
    assert msg.endswith(f"(line {line})")


def test_unknown_link_type(tmp_path: Path) -> None:
    case = changed()
    case["links"]["pto"]["type"] = "prismatik"
    msg = error_of(write(tmp_path, case))
    assert "links.pto.type: unknown link type 'prismatik'; did you mean 'prismatic'?" in msg
    known = ", ".join(frylinks.System().registry.names("link"))
    assert f"known: {known}" in msg


def test_unknown_node(tmp_path: Path) -> None:
    case = changed()
    case["links"]["pto"]["slave"] = "buoy.pt"
    msg = error_of(write(tmp_path, case))
    assert "links.pto.slave: unknown node 'pt' on 'buoy'; did you mean 'pto'?" in msg


def test_unknown_body_in_force(tmp_path: Path) -> None:
    case = changed()
    case["forces"]["lift"]["node"] = "bouy"
    msg = error_of(write(tmp_path, case))
    assert "forces.lift.node: unknown body 'bouy'; did you mean 'buoy'?" in msg


@pytest.mark.parametrize("mass", [0.0, -5.0])
def test_mass_must_be_positive(tmp_path: Path, mass: float) -> None:
    case = changed()
    case["bodies"]["buoy"]["mass"] = mass
    msg = error_of(write(tmp_path, case))
    assert "bodies.buoy.mass: must be > 0" in msg


def test_missing_mass(tmp_path: Path) -> None:
    case = changed()
    del case["bodies"]["buoy"]["mass"]
    msg = error_of(write(tmp_path, case))
    assert "bodies.buoy.mass: missing required key" in msg


def test_unknown_body_key_suggests(tmp_path: Path) -> None:
    case = changed()
    case["bodies"]["buoy"]["intertia"] = case["bodies"]["buoy"].pop("inertia")
    msg = error_of(write(tmp_path, case))
    assert "bodies.buoy.intertia: unknown key 'intertia'; did you mean 'inertia'?" in msg


def test_unknown_link_key_suggests_the_common_keys(tmp_path: Path) -> None:
    case = changed()
    case["links"]["pto"]["spring_dampr"] = case["links"]["pto"].pop("spring_damper")
    msg = error_of(write(tmp_path, case))
    assert "links.pto.spring_dampr: unknown key 'spring_dampr'; did you mean 'spring_damper'?" \
        in msg


def test_missing_link_type_lists_the_known(tmp_path: Path) -> None:
    case = changed()
    del case["links"]["pto"]["type"]
    msg = error_of(write(tmp_path, case))
    known = ", ".join(frylinks.System().registry.names("link"))
    assert f"links.pto.type: missing the link type; known: {known}" in msg


def test_missing_force_type(tmp_path: Path) -> None:
    case = changed()
    del case["forces"]["lift"]["type"]
    msg = error_of(write(tmp_path, case))
    known = ", ".join(frylinks.System().registry.names("force"))
    assert f"forces.lift.type: missing the force type; known: {known}" in msg
    assert "world_force, world_torque" in known


def test_unknown_signal_type(tmp_path: Path) -> None:
    case = changed()
    case["forces"]["lift"]["force"] = [0, 0, {"type": "sinus", "amplitude": 1.0, "omega": 1.0}]
    msg = error_of(write(tmp_path, case))
    assert "forces.lift.force[2].type: unknown signal type 'sinus'; did you mean 'sine'?" in msg


@pytest.mark.parametrize("section", ["bodies", "links", "forces", "ground", "solver"])
def test_sections_must_be_mappings(tmp_path: Path, section: str) -> None:
    msg = error_of(write(tmp_path, changed(**{section: [1, 2]})))
    assert f"{section}: expected a mapping" in msg


def test_body_must_be_a_mapping(tmp_path: Path) -> None:
    case = changed()
    case["bodies"]["buoy"] = 1000.0
    msg = error_of(write(tmp_path, case))
    assert "bodies.buoy: expected a mapping of body keys (mass, inertia" in msg


def test_duplicate_names_are_refused(tmp_path: Path) -> None:
    text = yaml.safe_dump(BUOY, sort_keys=False)
    text = text.replace("forces:\n", "forces:\n  lift:\n    type: world_torque\n"
                        "    node: buoy\n    torque: [0, 0, 0]\n", 1)
    path = write(tmp_path, text)
    msg = error_of(path)
    assert "forces.lift: key 'lift' appears twice" in msg


def test_yaml_syntax_error_gives_line(tmp_path: Path) -> None:
    text = "frylinks: 1\nname: x\nbodies:\n  buoy: {mass: 1.0, inertia: [1, 1, 1]\nlinks: {}\n"
    msg = error_of(write(tmp_path, text))
    assert msg.startswith(f"case '{tmp_path / 'buoy.yaml'}': line 5, column")
    assert "YAML syntax error" in msg


def test_python_tags_are_refused_and_not_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    text = (f"frylinks: 1\nname: !!python/object/apply:os.system ['touch {marker}']\n"
            "solver: {t_end: 1, dt: 0.1}\n")
    msg = error_of(write(tmp_path, text))
    assert "line 2, column 7: unsupported YAML tag" in msg
    assert "python/object/apply:os.system" in msg
    assert not marker.exists()


def test_python_object_tag_is_refused(tmp_path: Path) -> None:
    text = "frylinks: 1\nname: !!python/object:frylinks.System {}\n"
    assert "unsupported YAML tag" in error_of(write(tmp_path, text))


def test_empty_file_and_non_mapping(tmp_path: Path) -> None:
    assert "the file is empty" in error_of(write(tmp_path, ""))
    assert "expected a mapping of the keys frylinks" in error_of(write(tmp_path, "- 1\n- 2\n"))


def test_missing_file(tmp_path: Path) -> None:
    assert error_of(tmp_path / "nope.yaml") == f"case '{tmp_path / 'nope.yaml'}': no such file"


@pytest.mark.parametrize("version", [None, 2, "1"])
def test_schema_version(tmp_path: Path, version: Any) -> None:
    case = changed()
    if version is None:
        del case["frylinks"]
    else:
        case["frylinks"] = version
    msg = error_of(write(tmp_path, case))
    assert ", frylinks: " in msg
    assert "frylinks: 1" in msg or "version 1" in msg


@pytest.mark.parametrize(("solver", "output", "where", "what"), [
    ({"dt": 0.01}, {}, "solver.t_end", "missing required key"),
    ({"t_end": 1.0}, {}, "solver.dt", "missing required key"),
    ({"t_end": "long", "dt": 0.01}, {}, "solver.t_end", "expected a number [s]"),
    ({"t_end": 1.0, "dt": -0.01}, {}, "solver.dt", "must be > 0"),
    ({"t_end": 1.0, "dt": 0.01, "integrator": "rk45"}, {}, "solver.integrator",
     "unknown integrator 'rk45'; did you mean 'rk4'?"),
    ({"t_end": 1.0, "dt": 0.01, "integrator": "RK4"}, {}, "solver.integrator",
     "unknown integrator 'RK4'; did you mean 'rk4'?"),
    ({"t_end": 1.0, "dt": 0.01, "integrator": "Generalized-Alpha"}, {}, "solver.integrator",
     "unknown integrator 'Generalized-Alpha'; did you mean 'generalized_alpha'?"),
    ({"t_end": 1.0, "dt": 0.01, "rtol": "tight"}, {}, "solver.rtol", "expected a number"),
    ({"t_end": 1.0, "dt": 0.3}, {}, "solver.t_end", "whole number of dt"),
    ({"t_end": 1.0, "dt": 0.1, "integrator": "dop853"}, {"every": 3}, "solver.t_end",
     "whole number of dt * output.every"),
    ({"t_end": 1.0, "dt": 0.01, "step": 2}, {}, "solver.step", "unknown key 'step'"),
    ({"t_end": 1.0, "dt": 0.01}, {"every": 0}, "output.every", "expected a whole number >= 1"),
    ({"t_end": 1.0, "dt": 0.01}, {"every": 2.5}, "output.every", "expected a whole number"),
    ({"t_end": 1.0, "dt": 0.01}, {"every": True}, "output.every", "expected a whole number"),
    ({"t_end": 1.0, "dt": 0.01}, {"evry": 2}, "output.evry", "did you mean 'every'?"),
    ({"t_end": 1.0, "dt": 0.01, "integrator": "generalized_alpha", "rho_inf": 1.5}, {},
     "solver.rho_inf", "expected a spectral radius from 0 (most numerical damping) to 1"),
    ({"t_end": 1.0, "dt": 0.01, "rho_inf": "soft"}, {}, "solver.rho_inf",
     "expected a number"),
    ({"t_end": 1.0, "dt": 0.01, "integrator": "generalised_alpha"}, {}, "solver.integrator",
     "did you mean 'generalized_alpha'?"),
])
def test_solver_and_output_are_checked(tmp_path: Path, solver: dict[str, Any],
                                       output: dict[str, Any], where: str, what: str) -> None:
    msg = error_of(write(tmp_path, changed(solver=solver, output=output)))
    assert f", {where}: " in msg
    assert what in msg


def test_solver_values_reach_run(tmp_path: Path) -> None:
    path = write(tmp_path, changed(solver={"t_end": 0.04, "dt": 0.02, "integrator": "dop853",
                                           "rtol": 1e-6, "atol": 1e-8},
                                   output={"every": 2}))
    system, solver = load_case(path)
    assert solver == {"t_end": 0.04, "dt": 0.02, "integrator": "dop853", "every": 2,
                      "rtol": 1e-6, "atol": 1e-8, "rho_inf": 0.8, "initial_equilibrium": False,
                      "assembly_tolerance": DEFAULT_TOLERANCE, "equilibrium_max_turn_deg": 45.0}
    ds = system.run(**solver)
    assert ds.attrs["integrator"] == "dop853"
    np.testing.assert_allclose(ds.time.values, [0.0, 0.04])


def test_generalized_alpha_from_a_case_file(tmp_path: Path) -> None:
    path = write(tmp_path, changed(solver={"t_end": 0.1, "dt": 0.02,
                                           "integrator": "generalized_alpha", "rho_inf": 0.6},
                                   output={"every": 5}))
    system, solver = load_case(path)
    assert solver["integrator"] == "generalized_alpha" and solver["rho_inf"] == 0.6
    ds = system.run(**solver)
    assert (ds.attrs["integrator"], ds.attrs["rho_inf"]) == ("generalized_alpha", 0.6)
    assert ds.attrs["status"] == "completed"
    np.testing.assert_allclose(ds.time.values, [0.0, 0.1])  # fixed steps: every 5 of dt


def test_orientation_of_wrong_kind_is_a_case_error(tmp_path: Path) -> None:
    case = changed()
    case["bodies"]["buoy"]["orientation"] = ["a", "b", "c", "d"]
    msg = error_of(write(tmp_path, case))
    assert ", bodies.buoy" in msg


def test_errors_have_no_python_exception_text(tmp_path: Path) -> None:
    """A scalar where a section belongs, or a list for a name: still a CaseError."""
    for case in (changed(gravity="down"), changed(name=["a"]), changed(links={"pto": None})):
        error_of(write(tmp_path, case))


def test_names_read_as_booleans_are_explained(tmp_path: Path) -> None:
    text = yaml.safe_dump(BUOY, sort_keys=False).replace("  buoy:\n", "  yes:\n", 1)
    msg = error_of(write(tmp_path, text))
    assert "bodies.True: a name must be text" in msg
    assert "quote it" in msg


# ------------------------------------------- found by tests/test_case_mutations.py

def test_integer_beyond_float_range_is_a_case_error(tmp_path: Path) -> None:
    # YAML reads 1 and 400 zeros as a Python int; float() of it raised OverflowError
    text = yaml.safe_dump(BUOY, sort_keys=False).replace("mass: 1000.0", "mass: 1" + "0" * 400)
    msg = error_of(write(tmp_path, text))
    assert ", bodies.buoy.mass: expected a finite number, got 1000" in msg
    assert "0" * 100 not in msg  # cut short
    case = changed()
    case["bodies"]["buoy"]["inertia"] = [10**400, 1.0, 1.0]
    assert ", bodies.buoy.inertia: expected finite numbers" in error_of(write(tmp_path, case))


def test_numbers_beyond_range_are_refused_with_their_line(tmp_path: Path) -> None:
    # 1e300 passed, then overflowed numpy (a RuntimeWarning) in the first projection
    case = changed()
    case["bodies"]["buoy"]["position"] = [1.0e300, 0, 0]
    path = write(tmp_path, case)
    msg = error_of(path)
    line = path.read_text().splitlines().index("    position:") + 2
    assert msg.endswith(f"bodies.buoy.position[0]: 1e+300 is out of range: numbers are "
                        f"accepted up to 1e+30 in magnitude (line {line})")


def test_case_without_bodies(tmp_path: Path) -> None:
    # frylinks.run raised SimulationError('the system has no body to move')
    path = write(tmp_path, "frylinks: 1\nsolver: {t_end: 1, dt: 0.1}\n")
    with pytest.raises(CaseError, match=r", bodies: a case needs at least one body"):
        frylinks.run(path)


def test_key_read_as_boolean_has_its_line(tmp_path: Path) -> None:
    # the line table spelt the key 'true' (YAML text), the error path 'True' (its value)
    text = yaml.safe_dump(BUOY, sort_keys=False) + "true: 1\n"
    path = write(tmp_path, text)
    msg = error_of(path)
    assert msg.endswith(f"True: unknown key True (accepted: bodies, description, environment, "
                        f"forces, frylinks, gravity, ground, links, name, output, solver, sweep) "
                        f"(line {len(text.splitlines())})")




def _laughs(k: int) -> str:
    """YAML of one list nine times in nine others, ``k`` levels deep (9**k numbers)."""
    if k == 1:
        return "&a1 [1, 1, 1, 1, 1, 1, 1, 1, 1]"
    return f"&a{k} [{_laughs(k - 1)}" + f", *a{k - 1}" * 8 + "]"


LAUGHS = _laughs(9)


@pytest.mark.parametrize("key", ["description", "bodies.buoy.mass", "bodies.buoy.inertia",
                                 "links.pto.type", "forces.lift.node"])
def test_billion_laughs_is_refused_at_once(tmp_path: Path, key: str) -> None:
    """One list nine times in nine others, nine levels deep: 9**9 numbers in a few YAML
    aliases. Printing it in the message (repr) or converting it (numpy) never ended."""
    assert yaml.safe_load(LAUGHS)[8][7][6][5][4][3][2][1] == [1] * 9
    case = changed()
    *parents, last = key.split(".")
    place = case
    for k in parents:
        place = place[k]
    place[last] = "LAUGHS"
    text = yaml.safe_dump(case, sort_keys=False).replace("LAUGHS", LAUGHS)
    msg = error_of(write(tmp_path, text))
    # (the message lists the accepted link types, which grow with the plugins)
    assert f", {key}" in msg and len(msg) < 600


def test_nesting_too_deep_is_a_case_error(tmp_path: Path) -> None:
    # PyYAML composes recursively: RecursionError
    msg = error_of(write(tmp_path, "frylinks: 1\nname: " + "[" * 3000 + "]" * 3000 + "\n"))
    assert msg.endswith(": YAML error: lists or mappings nested too deeply (some hundred "
                        "levels)")


def test_huge_output_every_with_dop853(tmp_path: Path) -> None:
    # dt * every raised OverflowError
    msg = error_of(write(tmp_path, changed(solver={"t_end": 1.0, "dt": 0.1,
                                                   "integrator": "dop853"},
                                           output={"every": 10**400})))
    assert ", output.every: expected a whole number >= 1" in msg and "at most 1e+15" in msg


def test_key_line() -> None:
    text = yaml.safe_dump(BUOY, sort_keys=False)
    lines = text.splitlines()
    assert key_line(text, "links.pto.spring_damper.stiffness") == \
        lines.index("    spring_damper:") + 2
    # a key the text lacks: the line of its closest enclosing key
    assert key_line(text, "links.pto.pitch") == lines.index("  pto:") + 1
    assert key_line(text, "forces.lift.force[2]") == lines.index("    force:") + 4
    assert key_line(text, "nowhere") is None
    assert key_line("a: [", "a") is None


def test_run_error_from_assembly_names_the_line(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A ModelError raised when the model is assembled becomes a CaseError with the
    line of its key path (or, for t_end and dt given to run, says so)."""
    import frylinks.io.runner

    path = write(tmp_path, BUOY)
    lines = path.read_text().splitlines()

    def failing(system: Any, **kwargs: Any) -> None:
        raise ModelError("too stiff", "links.pto.spring_damper.stiffness")

    monkeypatch.setattr(frylinks.io.runner, "run_system", failing)
    with pytest.raises(CaseError) as info:
        frylinks.run(path)
    assert str(info.value) == (f"case '{path}', links.pto.spring_damper.stiffness: too stiff "
                               f"(line {lines.index('    spring_damper:') + 2})")
    monkeypatch.undo()
    with pytest.raises(CaseError) as info:
        frylinks.run(write(tmp_path, changed(solver={"t_end": 0.04, "dt": 0.02,
                                                     "integrator": "dop853"},
                                             output={"every": 2})), t_end=0.06)
    assert str(info.value).endswith("(t_end = 0.06 given in place of the case's value)")
