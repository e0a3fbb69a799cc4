"""Model input checks (clear ModelError with key path), input forms, and pickling."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
import xarray as xr
from scipy.spatial.transform import Rotation

from frylinks import FrylinksError, ModelError, System
from frylinks.engine import FROM_ANYWHERE
from frylinks.model.registry import Registry

REGISTRY = Registry()


@pytest.fixture
def system() -> System:
    """A buoy with a node, on the shared registry."""
    s = System(registry=REGISTRY)
    buoy = s.add_body("buoy", mass=2.0, inertia=[1.0, 2.0, 3.0], position=[0, 0, -1])
    buoy.add_node("pto", position=[0, 0, -2])
    buoy.add_node("top", position=[0, 0, 1])
    s.ground.add_node("seabed", position=[0, 0, -30])
    return s


def raises(match: str) -> Any:
    return pytest.raises(ModelError, match=match)


# --------------------------------------------------------------------------- bodies

@pytest.mark.parametrize("mass", [0.0, -1.0])
def test_mass_must_be_positive(system: System, mass: float) -> None:
    """mass <= 0 is refused, naming bodies.<name>.mass."""
    with raises(r"^bodies\.b\.mass: must be > 0"):
        system.add_body("b", mass=mass, inertia=[1.0, 1.0, 1.0])


@pytest.mark.parametrize("mass", ["heavy", True, float("nan"), [1.0]])
def test_mass_must_be_a_finite_number(system: System, mass: Any) -> None:
    """Non-numbers (a bool included) and NaN are refused for mass."""
    with raises(r"^bodies\.b\.mass: expected a"):
        system.add_body("b", mass=mass, inertia=[1.0, 1.0, 1.0])


def test_inertia_must_be_symmetric(system: System) -> None:
    """A 3x3 inertia that is not symmetric is refused."""
    with raises(r"^bodies\.b\.inertia: inertia matrix must be symmetric"):
        system.add_body("b", mass=1.0, inertia=[[1, 0.1, 0], [0, 1, 0], [0, 0, 1]])


@pytest.mark.parametrize("inertia", [
    [1.0, 1.0, 0.0],
    [1.0, -1.0, 1.0],
    [[1, 2, 0], [2, 1, 0], [0, 0, 1]],        # symmetric, eigenvalue -1
    [1.0, 1.0, 1.0, 2.0, 0.0, 0.0],           # 6 values, indefinite
])
def test_inertia_must_be_positive_definite(system: System, inertia: Any) -> None:
    """Zero or negative principal values (in any form) are refused."""
    with raises(r"^bodies\.b\.inertia: inertia must be positive definite"):
        system.add_body("b", mass=1.0, inertia=inertia)


@pytest.mark.parametrize("inertia", [[1.0, 2.0], [1, 2, 3, 4], "big", {"ixx": 1.0}])
def test_inertia_shape_is_checked(system: System, inertia: Any) -> None:
    """Other shapes are refused with the three accepted forms listed."""
    with raises(r"^bodies\.b\.inertia: expected 3 principal values .* 6 values .* 3x3"):
        system.add_body("b", mass=1.0, inertia=inertia)


def test_six_value_inertia_convention(system: System) -> None:
    """Six values are Ixx Iyy Izz Ixy Ixz Iyz, the tensor components (not negated);
    three values are the diagonal; a matrix is kept as given."""
    six = system.add_body("six", mass=1.0, inertia=[4.0, 5.0, 6.0, 0.1, -0.2, 0.3])
    np.testing.assert_array_equal(six.inertia, [[4.0, 0.1, -0.2], [0.1, 5.0, 0.3],
                                                [-0.2, 0.3, 6.0]])
    three = system.add_body("three", mass=1.0, inertia=[4.0, 5.0, 6.0])
    np.testing.assert_array_equal(three.inertia, np.diag([4.0, 5.0, 6.0]))
    matrix = system.add_body("matrix", mass=1.0, inertia=six.inertia.tolist())
    np.testing.assert_array_equal(matrix.inertia, six.inertia)


@pytest.mark.parametrize("where", ["body", "node"])
def test_zero_axis_is_refused(system: System, where: str) -> None:
    """An axis/angle orientation with a zero axis is an error at ...orientation.axis."""
    bad = {"axis": [0.0, 0.0, 0.0], "angle_deg": 30.0}
    if where == "body":
        with raises(r"^bodies\.b\.orientation\.axis: an axis must not be the zero vector"):
            system.add_body("b", mass=1.0, inertia=[1, 1, 1], orientation=bad)
    else:
        with raises(r"^bodies\.buoy\.nodes\.n\.orientation\.axis: an axis must not be"):
            system.bodies["buoy"].add_node("n", orientation=bad)


@pytest.mark.parametrize("orientation, match", [
    ({"quaternion": [0, 0, 0, 0]}, r"orientation\.quaternion: quaternion must not be zero"),
    ({"euler_deg": [1, 2, 3], "sequence": "xYz"}, r"orientation\.sequence: sequence 'xYz'"),
    ({"euler_deg": [1, 2, 3], "sequence": "xyw"}, r"orientation\.sequence"),
    ({"quaternion": [1, 0, 0, 0], "axis": [0, 0, 1]}, r"orientation: give exactly one of"),
    ({"axis": [0, 0, 1], "angle": 3}, r"orientation\.angle: unknown key 'angle'; did you mean"),
    ([[1, 0, 0], [0, 1, 0], [0, 0, -1]], r"orientation: a rotation matrix must be orthonormal"),
])
def test_bad_orientations_are_refused(system: System, orientation: Any, match: str) -> None:
    """Each malformed orientation names its key and what is accepted."""
    with raises(r"^bodies\.b\." + match):
        system.add_body("b", mass=1.0, inertia=[1, 1, 1], orientation=orientation)


def test_orientation_forms_agree(system: System) -> None:
    """quaternion, euler_deg (intrinsic lower case, extrinsic upper case), axis/angle_deg
    and a 3x3 matrix describing one rotation give the same unit quaternion (up to sign)."""
    angles = [30.0, -40.0, 75.0]
    rot = Rotation.from_euler("XYZ", angles, degrees=True)  # scipy: upper case = intrinsic
    quat = rot.as_quat()[[3, 0, 1, 2]]
    rotvec = rot.as_rotvec()
    forms = [
        {"quaternion": list(2.0 * quat)},  # normalised on input
        {"euler_deg": angles, "sequence": "xyz"},
        {"euler_deg": angles},  # intrinsic xyz is the default
        {"euler_deg": angles[::-1], "sequence": "ZYX"},  # extrinsic, reversed
        {"axis": list(3.0 * rotvec), "angle_deg": float(np.degrees(np.linalg.norm(rotvec)))},
        rot.as_matrix(),
    ]
    for i, form in enumerate(forms):
        q = system.add_body(f"b{i}", mass=1.0, inertia=[1, 1, 1], orientation=form).orientation
        assert abs(np.dot(q, quat)) == pytest.approx(1.0, abs=1e-14), form
        node = system.bodies["buoy"].add_node(f"n{i}", orientation=form)
        assert abs(np.dot(node.orientation, quat)) == pytest.approx(1.0, abs=1e-14), form


def test_duplicate_and_reserved_names(system: System) -> None:
    """Bodies, nodes, links and forces are unique by name; ground/world are reserved and
    names with dots are refused (a dot separates body and node)."""
    with raises(r"^bodies\.buoy: body 'buoy' is defined twice"):
        system.add_body("buoy", mass=1.0, inertia=[1, 1, 1])
    with raises(r"^bodies\.buoy\.nodes\.pto: node 'pto' is defined twice"):
        system.bodies["buoy"].add_node("pto")
    with raises(r"^ground\.nodes\.seabed: node 'seabed' is defined twice"):
        system.ground.add_node("seabed")
    for reserved in ("ground", "world"):
        with raises(rf"^bodies\.{reserved}: '{reserved}' is the fixed ground"):
            system.add_body(reserved, mass=1.0, inertia=[1, 1, 1])
    with raises(r"^bodies\.a\.b: invalid name 'a\.b'"):
        system.add_body("a.b", mass=1.0, inertia=[1, 1, 1])
    system.add_link("pto", "prismatic", master="ground.seabed", slave="buoy.pto")
    with raises(r"^links\.pto: link 'pto' is defined twice"):
        system.add_link("pto", "prismatic", master="ground.seabed", slave="buoy.pto")
    system.add_force("push", "world_force", node="buoy", force=[1.0, 0.0, 0.0])
    with raises(r"^forces\.push: force 'push' is defined twice"):
        system.add_force("push", "world_force", node="buoy", force=[1.0, 0.0, 0.0])


# --------------------------------------------------------------------------- links

def test_link_on_one_body_is_refused(system: System) -> None:
    """Master and slave on the same body (or both on ground) is an error."""
    with raises(r"^links\.l: master and slave are both on 'buoy'"):
        system.add_link("l", "fixed", master="buoy.pto", slave="buoy.top")
    with raises(r"^links\.l: master and slave are both on 'ground'"):
        system.add_link("l", "fixed", master="ground.seabed", slave="world")


def test_unknown_body_and_node_suggest_names(system: System) -> None:
    """Unknown references name the key, suggest the closest name and list the known."""
    with raises(r"^links\.l\.master: unknown body 'grund'; did you mean 'ground'\? "
                r"\(bodies: ground, buoy\)"):
        system.add_link("l", "fixed", master="grund.seabed", slave="buoy")
    with raises(r"^links\.l\.slave: unknown node 'ptoo' on 'buoy'; did you mean 'pto'\? "
                r"\(nodes: pto, top\)"):
        system.add_link("l", "fixed", master="ground.seabed", slave="buoy.ptoo")
    with raises(r"^forces\.f\.node: unknown body 'boy'; did you mean 'buoy'\?"):
        system.add_force("f", "world_force", node="boy", force=[0, 0, 1])


def test_unknown_link_type_lists_known_types(system: System) -> None:
    """An unknown type names links.<name>.type and lists every registered link type."""
    known = ", ".join(sorted(REGISTRY.types["link"]))
    with pytest.raises(ModelError) as err:
        system.add_link("l", "hinge", master="ground.seabed", slave="buoy.pto")
    assert str(err.value).startswith("links.l.type: unknown link type 'hinge'")
    assert str(err.value).endswith(f"known: {known}")
    with raises(r"did you mean 'revolute'\?"):
        system.add_link("l", "revolut", master="ground.seabed", slave="buoy.pto")


def test_link_parameters_are_checked(system: System) -> None:
    """A missing required parameter and an unknown one are named by key path."""
    with raises(r"^links\.s\.pitch: missing required parameter"):
        system.add_link("s", "screw", master="ground.seabed", slave="buoy.pto")
    with raises(r"^links\.s\.pich: unknown key 'pich'; did you mean 'pitch'\?"):
        system.add_link("s", "screw", master="ground.seabed", slave="buoy.pto", pich=0.5)


def test_spring_damper_on_fixed_link_is_refused(system: System) -> None:
    """A fixed link has no free DOF to carry a spring-damper."""
    with raises(r"^links\.l\.spring_damper: this link type has no free DOF"):
        system.add_link("l", "fixed", master="ground.seabed", slave="buoy.pto",
                        spring_damper={"stiffness": 1.0})


def test_spring_damper_forms_agree(system: System) -> None:
    """Per-DOF mapping, matrices, diagonal lists, and for equal values scalars, give
    the same (K, B, r0) arrays over the free DOFs (tz, rz) of a cylindrical link."""
    forms = {
        "per_dof": {"tz": {"stiffness": 10.0, "damping": 1.0, "rest": 0.5},
                    "rz": {"stiffness": 20.0, "damping": 2.0, "rest": -0.3}},
        "matrix": {"stiffness": [[10.0, 0.0], [0.0, 20.0]], "damping": [[1.0, 0.0], [0.0, 2.0]],
                   "rest": [0.5, -0.3]},
        "diagonal": {"stiffness": [10.0, 20.0], "damping": [1.0, 2.0], "rest": [0.5, -0.3]},
    }
    arrays = {}
    for name, form in forms.items():
        link = system.add_link(name, "cylindrical", master="ground.seabed", slave="buoy.pto",
                               spring_damper=form)
        assert link.has_spring
        arrays[name] = (link.stiffness, link.damping, link.rest)
    np.testing.assert_array_equal(arrays["per_dof"][0], np.diag([10.0, 20.0]))
    np.testing.assert_array_equal(arrays["per_dof"][1], np.diag([1.0, 2.0]))
    np.testing.assert_array_equal(arrays["per_dof"][2], [0.5, -0.3])
    for name in ("matrix", "diagonal"):
        for a, b in zip(arrays[name], arrays["per_dof"], strict=True):
            np.testing.assert_array_equal(a, b)
    scalar = system.add_link("scalar", "cylindrical", master="ground.seabed", slave="buoy.pto",
                             spring_damper={"stiffness": 7.0, "damping": 3.0, "rest": 0.1})
    np.testing.assert_array_equal(scalar.stiffness, 7.0 * np.eye(2))
    np.testing.assert_array_equal(scalar.rest, [0.1, 0.1])
    partial = system.add_link("partial", "cylindrical", master="ground.seabed",
                              slave="buoy.pto", spring_damper={"rz": {"stiffness": 5.0}})
    np.testing.assert_array_equal(partial.stiffness, np.diag([0.0, 5.0]))
    np.testing.assert_array_equal(partial.rest, [0.0, 0.0])  # rest defaults to 0
    none = system.add_link("none", "cylindrical", master="ground.seabed", slave="buoy.pto")
    assert not none.has_spring


@pytest.mark.parametrize("spring, match", [
    ({"tx": {"stiffness": 1.0}}, r"spring_damper\.tx: unknown key 'tx'.*accepted: rz, tz"),
    ({"stiffness": [[1.0, 0.0, 0.0]] * 3}, r"spring_damper\.stiffness: expected .* 2x2"),
    ({"stiffnes": 1.0}, r"spring_damper\.stiffnes: unknown key .*did you mean 'stiffness'"),
    ({"tz": 5.0}, r"spring_damper\.tz: expected a mapping"),
    (5.0, r"spring_damper: expected a mapping"),
])
def test_bad_spring_damper_names_key(system: System, spring: Any, match: str) -> None:
    """Malformed spring-dampers name the offending key and what is accepted."""
    with raises(r"^links\.l\." + match):
        system.add_link("l", "cylindrical", master="ground.seabed", slave="buoy.pto",
                        spring_damper=spring)


def test_model_error_is_a_frylinks_error() -> None:
    """Every input error derives from the one root FrylinksError and keeps its path."""
    err = ModelError("must be > 0", "mass").under("bodies.b")
    assert isinstance(err, FrylinksError)
    assert (err.path, str(err)) == ("bodies.b.mass", "bodies.b.mass: must be > 0")


# --------------------------------------------------------------------------- pickling

def pto_system() -> System:
    """A small model using links, a spring-damper, a signal-driven force and nodes."""
    s = System(name="pto")
    s.ground.add_node("seabed", position=[0, 0, -5])
    buoy = s.add_body("buoy", mass=200.0, inertia=[20.0, 20.0, 30.0, 1.0, 0.0, 0.5],
                      position=[0, 0, 0], orientation={"euler_deg": [5, 3, 0]},
                      angular_velocity=[0.0, 0.0, 0.2])
    buoy.add_node("pto", position=[0, 0, -5])
    s.add_body("arm", mass=20.0, inertia=[2.0, 2.0, 1.0], position=[1.0, 0, 0])
    s.add_link("pto", "cylindrical", master="ground.seabed", slave="buoy.pto",
               spring_damper={"tz": {"stiffness": 5e3, "damping": 300.0, "rest": 0.1}})
    s.add_link("hinge", "revolute", master="buoy", slave="arm")
    s.add_force("wave", "world_force", node="buoy",
                force=[0.0, 0.0, {"type": "sine", "amplitude": 2e3, "omega": 1.5}])
    return s


@pytest.mark.filterwarnings("ignore:the initial positions do not satisfy")  # the arm is assembled
def test_pickled_system_runs_identically() -> None:
    """pickle.dumps/loads of a System (the registry is rebuilt on the other side) gives
    a copy whose run is identical, bit for bit, to the original's."""
    original = pto_system()
    copy = pickle.loads(pickle.dumps(original))
    assert copy is not original and copy.registry is not original.registry
    assert set(copy.registry.names("link")) == set(original.registry.names("link"))
    a = original.run(t_end=0.2, dt=0.01, assembly_tolerance=FROM_ANYWHERE)
    b = copy.run(t_end=0.2, dt=0.01, assembly_tolerance=FROM_ANYWHERE)
    xr.testing.assert_identical(a, b)
    # the run did something (a sine force, a spring and gravity act)
    assert float(abs(a["body_position"].isel(time=-1) - a["body_position"].isel(time=0))
                 .max()) > 1e-4


def test_unassembled_initial_positions_warn() -> None:
    """Initial positions off the links, assembled from anywhere on request, with a
    warning naming the links violated (per constrained DOF) and the bodies moved."""
    with pytest.warns(UserWarning, match=r"violated 'pto' by tx -0\.262 m, ty 0\.435 m.*"
                      r"'hinge' by tx 0\.999 m.*'arm' moved 1 m and turned 0\.0877 deg"):
        ds = pto_system().run(t_end=0.01, dt=0.01, assembly_tolerance=FROM_ANYWHERE)
    assert ds.attrs["assembly_move_m"] == pytest.approx(1.0)
    assert ds.attrs["assembly_residual_m"] == pytest.approx(0.9986, abs=1e-4)


def test_initial_positions_off_the_links_are_refused() -> None:
    """By default the same model is refused: the run would move the arm by 1 m."""
    with pytest.raises(ModelError, match=r"^links\.hinge: the initial positions miss link "
                       r"'hinge' by tx 0\.999 m"):
        pto_system().run(t_end=0.01, dt=0.01)


def test_initial_pose_far_off_the_links_says_the_axes_are_likely_wrong() -> None:
    """A slave node whose axes are turned 90 degrees from its master's (a planar link set
    up in the wrong axes): the run turned the bodies silently; it is now refused, naming
    the link, the turn and the likely cause."""
    s = System(gravity=[0, 0, -9.81])
    s.ground.add_node("m", position=[0, 0, 0])
    b = s.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0], position=[0.0, 0.0, 0.0])
    b.add_node("n", position=[0, 0, 0], orientation={"axis": [1, 0, 0], "angle_deg": 90})
    s.add_link("slide", "planar", master="ground.m", slave="b.n")
    with pytest.raises(ModelError, match=r"^links\.slide: .*'slide' by tz 0 m, rx 90 deg, "
                       r"ry 0 deg.*axes are not aligned"):
        s.run(t_end=0.01, dt=0.01)


# ------------------------------------------- found by tests/test_case_mutations.py

def test_integer_beyond_float_range(system: System) -> None:
    """float(10**400) raised OverflowError from as_float and from the array parsers."""
    with raises(r"^bodies\.b\.mass: expected a finite number, got 1000"):
        system.add_body("b", mass=10**400, inertia=[1.0, 1.0, 1.0])
    with raises(r"^bodies\.b\.inertia: expected finite numbers"):
        system.add_body("b", mass=1.0, inertia=[10**400, 1.0, 1.0])
    with raises(r"^links\.l\.spring_damper\.stiffness: expected a number, 1 numbers"):
        system.add_link("l", "prismatic", master="ground.seabed", slave="buoy.pto",
                        spring_damper={"stiffness": [[-(10**400)]]})


@pytest.mark.parametrize(("where", "value"), [
    ("mass", 1.0e300), ("position", [0.0, 1.0e31, 0.0]), ("velocity", [0.0, 0.0, -1.0e300]),
])
def test_numbers_beyond_range_are_refused(system: System, where: str, value: Any) -> None:
    """A position of 1e300 overflowed numpy in the first projection (a RuntimeWarning,
    then a ValueError from nanargmax); a screw pitch of 1e300 in the constraint solve."""
    kwargs = {"mass": 1.0, "inertia": [1.0, 1.0, 1.0], where: value}
    with raises(rf"^bodies\.b\.{where}(\[\d\])?: .*accepted up to 1e\+30 in magnitude"):
        system.add_body("b", **kwargs)


def test_range_of_matrices_and_orientations(system: System) -> None:
    with raises(r"^bodies\.b\.inertia: expected finite numbers up to 1e\+30"):
        system.add_body("b", mass=1.0, inertia=[[1e300, 0, 0], [0, 1, 0], [0, 0, 1]])
    with raises(r"^bodies\.b\.orientation: expected finite numbers up to 1e\+30"):
        system.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0], orientation=[1e300, 0, 0, 0])
    with raises(r"^links\.l\.spring_damper\.damping: expected a number, 1 numbers"):
        system.add_link("l", "prismatic", master="ground.seabed", slave="buoy.pto",
                        spring_damper={"damping": [1e31]})
    with raises(r"^links\.l\.pitch: 1e\+300 is out of range"):
        system.add_link("l", "screw", master="ground.seabed", slave="buoy.pto", pitch=1e300)


def test_subnormal_mass_and_inertia_are_refused(system: System) -> None:
    """1 / 5e-324 overflows: the first projection warned (RuntimeWarning) and went on
    with inf and nan."""
    with raises(r"^bodies\.b\.mass: mass 4\.94066e-324 kg is too small to invert"):
        system.add_body("b", mass=5e-324, inertia=[1.0, 1.0, 1.0])
    with raises(r"^bodies\.b\.inertia: inertia is too small to invert"):
        system.add_body("b", mass=1.0, inertia=[5e-324, 1.0, 1.0])
    system.add_body("b", mass=1e-300, inertia=[1e-300, 1e-300, 1e-300])  # tiny is fine


def _laughs() -> list[Any]:
    x: list[Any] = [1.0] * 9
    for _ in range(8):
        x = [x] * 9
    return x


def test_messages_show_a_billion_laughs_briefly(system: System) -> None:
    """A YAML alias bomb (9**9 numbers in a few lines) given where a number, a name or a
    choice goes: the message printed it with repr, which never ended; numpy converted
    it, which took gigabytes."""
    bomb = _laughs()
    cases = [
        (lambda: system.add_body("b", mass=bomb, inertia=[1.0, 1.0, 1.0]), "bodies.b.mass"),
        (lambda: system.add_body("b", mass=1.0, inertia=bomb), "bodies.b.inertia"),
        (lambda: system.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0], orientation=bomb),
         "bodies.b.orientation"),
        (lambda: system.add_link("l", bomb, master="ground.seabed", slave="buoy"),
         "links.l.type"),
        (lambda: system.add_link("l", "prismatic", master=bomb, slave="buoy"),
         "links.l.master"),
        (lambda: system.add_link("l", "universal", master="ground.seabed", slave="buoy",
                                 axes=bomb), "links.l.axes"),
        (lambda: system.add_force("f", "world_force", node="buoy", force=[0, 0, 0],
                                  resolve_frame=bomb), "forces.f.resolve_frame"),
        (lambda: system.add_force("f", "linear_spring_damper", master="ground.seabed",
                                  slave="buoy", active=bomb), "forces.f.active"),
        (lambda: system.add_force("f", "world_force", node="buoy",
                                  force=[0, 0, {"type": "table", "file": bomb}]),
         "forces.f.force[2].file"),
    ]
    for add, path in cases:
        with pytest.raises(ModelError) as info:
            add()
        assert info.value.path == path
        assert len(info.value.message) < 400, info.value.message


def test_assembly_memory_grows_with_the_bodies_not_their_square() -> None:
    """A chain of 2000 bodies assembles in a few MB: the added mass between bodies is
    laid out over the bodies a force couples only (a (6 nb)^2 matrix was 1.2 GB here,
    27 GB for the benchmark's 10,000 rods)."""
    import tracemalloc

    from frylinks.engine import assemble
    from tests.bench import benchmark

    system = benchmark("chain").build_chain(2000)
    tracemalloc.start()
    try:
        assemble(system)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6, peak
