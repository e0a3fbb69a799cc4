"""frylinks.joints: Arboris' joints standalone and on every link of a running system.

* The seed page ../shared/seeds/arboris-rigid-mechanisms.rst runs as a doctest, as
  written (numpy's legacy 1.13 print format, ``from arboris.all import *`` aliased to
  :mod:`frylinks.arboris_compat` for the test only).
* Standalone joints: ``twist`` is the body twist ``H^-1 dH/dt`` of ``pose`` moving at
  ``gvel`` (central differences), ``itwist`` that of ``ipose``, and the jacobians are
  Arboris' closed forms.
* Link joints: a revolute link is an RzJoint and a universal link the cardan joint of its
  ``axes``; for every registered link type the pose is the slave node in the master node
  rebuilt from the body states, the twist is ``H^-1 dH/dt`` along the run, and
  ``twist == jacobian @ gvel`` (plus the prescribed motion of drivers).
"""

from __future__ import annotations

import doctest
import sys
import types
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

import frylinks
import frylinks.arboris_compat
from frylinks import joints
from frylinks.engine import FROM_ANYWHERE, assemble
from frylinks.engine.joints import link_joints
from frylinks.joints import (
    FreeJoint,
    RotationsJoint,
    RxJoint,
    RyJoint,
    RyRxJoint,
    RzJoint,
    RzRxJoint,
    RzRyJoint,
    RzRyRxJoint,
    adjoint,
)
from frylinks.model.registry import Registry

SEED = Path(__file__).resolve().parents[1] / ".." / "shared" / "seeds" / \
    "arboris-rigid-mechanisms.rst"
ROTATION_JOINTS = [RxJoint, RyJoint, RzJoint, RzRyJoint, RyRxJoint, RzRxJoint, RzRyRxJoint]
H = 1e-6


def hat(twist: np.ndarray) -> np.ndarray:
    """The 4x4 matrix ``[[w]x, v], [0, 0]]`` of a twist ``[w, v]``."""
    w, v = twist[:3], twist[3:]
    m = np.zeros((4, 4))
    m[:3, :3] = [[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]]
    m[:3, 3] = v
    return m


def vee(m: np.ndarray) -> np.ndarray:
    """Inverse of :func:`hat` (the skew part averaged)."""
    s = 0.5 * (m[:3, :3] - m[:3, :3].T)
    return np.array([s[2, 1], s[0, 2], s[1, 0], *m[:3, 3]])


def body_twist(pose_at: Any, h: float = H) -> np.ndarray:
    """``H^-1 dH/dt`` at t = 0 of the pose function ``pose_at(t)`` (central differences)."""
    dh = (pose_at(h) - pose_at(-h)) / (2 * h)
    return vee(np.linalg.inv(pose_at(0.0)) @ dh)


# ------------------------------------------------------------------------- the seed page

@pytest.fixture
def arboris_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    """``arboris.all`` imports frylinks' compatibility names, for this test only."""
    package = types.ModuleType("arboris")
    package.all = frylinks.arboris_compat  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "arboris", package)
    monkeypatch.setitem(sys.modules, "arboris.all", frylinks.arboris_compat)


def test_arboris_seed_page_doctest(arboris_alias: None) -> None:
    """The Arboris page runs as written, printed numbers included."""
    if not SEED.is_file():
        pytest.skip(f"seed page {SEED} absent (a clone without ../shared beside it)")
    with np.printoptions(legacy="1.13"):
        result = doctest.testfile(str(SEED), module_relative=False, verbose=False)
    assert result.attempted >= 10
    assert result.failed == 0


def test_no_arboris_package_is_shipped() -> None:
    """The alias is the test's: frylinks installs no top-level ``arboris``."""
    import importlib.util

    if "arboris" in sys.modules:
        pytest.skip("an arboris module is imported in this session")
    assert importlib.util.find_spec("arboris") is None


# -------------------------------------------------------------------- standalone joints

@pytest.mark.parametrize("cls", ROTATION_JOINTS, ids=lambda c: c.__name__)
def test_rotation_joint_twist_is_the_body_twist_of_its_pose(cls: type[RotationsJoint]
                                                           ) -> None:
    """``twist = jacobian @ gvel`` equals ``H^-1 dH/dt`` with ``gpos' = gvel``, and
    ``itwist`` is the body twist of ``ipose``; ``ipose`` inverts ``pose``."""
    rng = np.random.default_rng(3)
    for _ in range(5):
        j = cls(gpos=rng.uniform(-3, 3, len(cls.axes)), gvel=rng.uniform(-2, 2, len(cls.axes)))
        assert j.ndof == len(cls.axes) and j.jacobian.shape == (6, j.ndof)
        np.testing.assert_allclose(j.ipose @ j.pose, np.eye(4), atol=1e-15)

        def moved(t: float, j: RotationsJoint = j) -> RotationsJoint:
            return cls(gpos=j.gpos + t * j.gvel, gvel=j.gvel)

        np.testing.assert_allclose(j.twist, j.jacobian @ j.gvel, rtol=0, atol=0)
        np.testing.assert_allclose(body_twist(lambda t: moved(t).pose), j.twist, atol=1e-8)
        np.testing.assert_allclose(body_twist(lambda t: moved(t).ipose), j.itwist, atol=1e-8)


def test_cardan_and_ball_jacobians_are_arboris_closed_forms() -> None:
    """RzRy: columns [-sin b, 0, cos b] and y; RyRx: [0, cos b, -sin b] and x; RzRx:
    [0, sin b, cos b] and x; RzRyRx: [-sy, sx cy, cx cy], [0, cx, -sx], x (angular rows;
    the linear rows are zero), as Arboris' joints.py."""
    a, b, c = 0.7, -1.1, 2.3
    sa, sb, cb = np.sin(a), np.sin(b), np.cos(b)
    assert sa  # a does not enter the body jacobians of the cardan joints
    expected = {
        RzRyJoint: [[-sb, 0.0], [0.0, 1.0], [cb, 0.0]],
        RyRxJoint: [[0.0, 1.0], [cb, 0.0], [-sb, 0.0]],
        RzRxJoint: [[0.0, 1.0], [sb, 0.0], [cb, 0.0]],
    }
    for cls, ang in expected.items():
        jac = cls(gpos=[a, b]).jacobian
        np.testing.assert_allclose(jac[:3], ang, atol=1e-15, err_msg=cls.__name__)
        np.testing.assert_array_equal(jac[3:], 0.0)
    sx, cx, sy, cy = np.sin(c), np.cos(c), np.sin(b), np.cos(b)
    jac = RzRyRxJoint(gpos=[a, b, c]).jacobian
    np.testing.assert_allclose(jac[:3], [[-sy, 0.0, 1.0], [sx * cy, cx, 0.0],
                                         [cx * cy, -sx, 0.0]], atol=1e-15)
    # pose = Rz(a) Ry(b) Rx(c) (scipy, intrinsic ZYX)
    r = Rotation.from_euler("ZYX", [a, b, c]).as_matrix()
    np.testing.assert_allclose(RzRyRxJoint(gpos=[a, b, c]).pose[:3, :3], r, atol=1e-15)


def test_free_joint() -> None:
    """FreeJoint: gpos is the pose, gvel the twist, jacobian the identity; along
    ``H(t) = H0 expm(t hat(gvel))`` the body twist is gvel, and itwist is the body twist
    of the inverse (``-Ad(H) gvel``)."""
    rng = np.random.default_rng(5)
    h0 = np.eye(4)
    h0[:3, :3] = Rotation.random(random_state=1).as_matrix()
    h0[:3, 3] = rng.uniform(-1, 1, 3)
    gvel = rng.uniform(-1, 1, 6)
    j = FreeJoint(gpos=h0, gvel=gvel)
    assert j.ndof == 6
    np.testing.assert_array_equal(j.pose, h0)
    np.testing.assert_array_equal(j.jacobian, np.eye(6))
    np.testing.assert_array_equal(j.twist, gvel)

    def pose_at(t: float) -> np.ndarray:
        return h0 @ expm(t * hat(gvel))

    np.testing.assert_allclose(body_twist(pose_at), gvel, atol=1e-8)
    np.testing.assert_allclose(body_twist(lambda t: np.linalg.inv(pose_at(t))), j.itwist,
                               atol=1e-8)
    np.testing.assert_allclose(j.itwist, -adjoint(h0) @ gvel, atol=1e-15)
    np.testing.assert_allclose(FreeJoint().pose, np.eye(4))


def test_defaults_and_shapes_follow_arboris() -> None:
    """Default gpos/gvel are zeros; a scalar is a 1-vector (``array([ 1.04666667])``)."""
    j = RzJoint()
    np.testing.assert_array_equal(j.gpos, [0.0])
    assert RzJoint(gpos=3.14 / 3, gvel=2.0).gpos.shape == (1,)
    assert RzRyJoint().gvel.shape == (2,)
    with pytest.raises(ValueError):
        RzRyJoint(gpos=[1.0, 2.0, 3.0])


# ------------------------------------------------------------------------- link joints

def revolute_system(rate: float = -8.0) -> frylinks.System:
    """A pendulum on a revolute link about world -y, swinging over the top (its angle
    passes pi)."""
    s = frylinks.System(gravity=[0.0, 0.0, -9.81])
    s.ground.add_node("p", position=[0.0, 0.0, 1.0],
                      orientation={"axis": [1, 0, 0], "angle_deg": 90})
    b = s.add_body("rod", mass=1.0, inertia=[0.1, 0.1, 0.1], position=[0.5, 0.0, 1.0],
                   angular_velocity=[0.0, rate, 0.0], velocity=[0.0, 0.0, -0.5 * rate])
    b.add_node("h", position=[-0.5, 0.0, 0.0], orientation={"axis": [1, 0, 0],
                                                           "angle_deg": 90})
    s.add_link("hinge", "revolute", master="ground.p", slave="rod.h")
    return s


def test_revolute_link_is_an_rz_joint() -> None:
    """At every sample, the revolute link's joint equals RzJoint(gpos=angle, gvel=rate):
    pose, twist, itwist and jacobian, with the angle unwrapped past pi (the Dataset's
    link_displacement is the reference)."""
    s = revolute_system()
    ds = s.run(t_end=0.5, dt=1e-3, every=50)
    model = assemble(s)
    angles = ds.link_displacement.sel(link="hinge", dof="rz").values
    assert angles.max() > np.pi  # over the top
    for k in range(ds.sizes["time"]):
        j = link_joints(model, ds.isel(time=k))["hinge"]
        assert j.ndof == 1 and j.type == "revolute"
        np.testing.assert_allclose(j.gpos, [angles[k]], atol=1e-12)
        r = RzJoint(gpos=j.gpos, gvel=j.gvel)
        for attr in ("pose", "ipose", "twist", "itwist", "jacobian"):
            np.testing.assert_allclose(getattr(j, attr), getattr(r, attr), atol=1e-12,
                                       err_msg=attr)


def universal_system(axes: str) -> frylinks.System:
    """A body on a universal link to ground, its node turned by R_first(a0) R_second(b0)
    and spinning about both free axes."""
    first, second = (axes[1].lower(), axes[3].lower())
    unit = {"x": [1.0, 0, 0], "y": [0, 1.0, 0], "z": [0, 0, 1.0]}
    r0 = Rotation.from_rotvec(0.8 * np.array(unit[first])) * \
        Rotation.from_rotvec(-0.5 * np.array(unit[second]))
    s = frylinks.System(gravity=[0.0, 0.0, -9.81])
    s.ground.add_node("o", position=[0.0, 0.0, 2.0])
    offset = r0.apply([0.3, 0.2, -0.6])
    w = 1.5 * np.array(unit[first]) + 2.0 * r0.apply(unit[second])
    b = s.add_body("arm", mass=2.0, inertia=[0.2, 0.3, 0.4], position=np.array([0, 0, 2.0]) +
                   offset, orientation={"quaternion": np.roll(r0.as_quat(), 1)},
                   velocity=np.cross(w, offset), angular_velocity=w)
    b.add_node("x", position=[-0.3, -0.2, 0.6])
    s.add_link("cardan", "universal", master="ground.o", slave="arm.x", axes=axes)
    return s


@pytest.mark.parametrize(("axes", "cls"), [("RzRy", RzRyJoint), ("RyRx", RyRxJoint),
                                           ("RzRx", RzRxJoint)])
def test_universal_link_is_the_cardan_joint_of_its_axes(axes: str, cls: type) -> None:
    """gpos = (a, b) with pose R_first(a) R_second(b) (a0 = 0.8, b0 = -0.5 at the start),
    and pose, twist, itwist, jacobian equal to the Arboris joint of the same gpos/gvel
    along a run."""
    s = universal_system(axes)
    ds = s.run(t_end=0.3, dt=1e-3, every=100)
    model = assemble(s)
    first = link_joints(model, ds.isel(time=0))["cardan"]
    np.testing.assert_allclose(first.gpos, [0.8, -0.5], atol=1e-12)
    for k in range(ds.sizes["time"]):
        j = link_joints(model, ds.isel(time=k))["cardan"]
        r = cls(gpos=j.gpos, gvel=j.gvel)
        for attr in ("pose", "ipose", "twist", "itwist", "jacobian"):
            np.testing.assert_allclose(getattr(j, attr), getattr(r, attr), atol=1e-11,
                                       err_msg=f"{axes} {attr} at sample {k}")


#: Parameters for the types whose examples are not enough here (none declared).
PARAMS: dict[str, dict[str, Any]] = {"screw": {"pitch": 0.4}}


def one_link_system(link_type: str) -> frylinks.System:
    """A body joined to a moving body by one link of ``link_type`` (its first example's
    parameters), nodes on random frames, started with random velocities (the initial
    projection assembles positions and velocities)."""
    info = Registry().get("link", link_type)
    assert info is not None
    examples = getattr(info.cls, "examples", None)
    params = dict(examples[0]) if examples else dict(PARAMS.get(link_type, {}))
    rng = np.random.default_rng(7)
    s = frylinks.System(gravity=[0.0, 0.0, -9.81])
    base = s.add_body("base", mass=5.0, inertia=[1.0, 1.5, 2.0], velocity=[0.1, -0.2, 0.3],
                      angular_velocity=[0.3, 0.5, -0.4])
    arm = s.add_body("arm", mass=1.0, inertia=[0.2, 0.3, 0.4], position=[0.2, 0.1, -0.4],
                     orientation={"quaternion": rng.normal(size=4)},
                     velocity=rng.uniform(-1, 1, 3), angular_velocity=rng.uniform(-2, 2, 3))
    base.add_node("m", position=[0.1, 0.2, -0.3], orientation={"quaternion": rng.normal(size=4)})
    arm.add_node("s", position=[-0.1, 0.05, 0.2], orientation={"quaternion": rng.normal(size=4)})
    s.add_link("link", link_type, master="base.m", slave="arm.s", **params)
    return s


def node_pose(ds: xr.Dataset, node: frylinks.Node, k: int) -> np.ndarray:
    """World pose of a node at sample k, from the Dataset (scipy rotations)."""
    q = ds.body_orientation.sel(body=node.body.name).values[k]
    rb = Rotation.from_quat(q[[1, 2, 3, 0]]).as_matrix()
    rn = Rotation.from_quat(node.orientation[[1, 2, 3, 0]]).as_matrix()
    h = np.eye(4)
    h[:3, :3] = rb @ rn
    h[:3, 3] = ds.body_position.sel(body=node.body.name).values[k] + rb @ node.position
    return h


@pytest.mark.parametrize("link_type", sorted(Registry().types["link"]))
def test_every_link_exposes_its_joint(link_type: str) -> None:
    """For every registered link type, along a 20 ms run (dt = 0.1 ms):

    * ``pose`` is the slave node in the master node, rebuilt from the body states;
    * ``twist`` is ``H^-1 dH/dt`` (central differences over the samples, error
      O(dt^2) ~ 1e-7);
    * ``twist == jacobian @ gvel`` at round-off, but for drivers and the latch, where the
      difference is the motion along the master z axis (``tau_z``, in slave axes);
    * ``ndof`` is the number of free DOFs and ``gpos``, ``gvel`` are the type's
      coordinates.
    """
    s = one_link_system(link_type)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the initial positions are assembled
        # (from random node frames, on purpose: assembled from anywhere)
        ds = s.run(t_end=0.02, dt=1e-4, assembly_tolerance=FROM_ANYWHERE)
    model = assemble(s)
    link = s.links["link"]
    nf = len(model.link_blocks[0].kind.free_dofs)
    dt = float(ds.time[1] - ds.time[0])
    for k in (1, 100, 199):
        js = [link_joints(model, ds.isel(time=i))["link"] for i in (k - 1, k, k + 1)]
        j = js[1]
        assert j.ndof == nf and j.gpos.shape == (nf,) and j.jacobian.shape == (6, nf)
        expected = np.linalg.inv(node_pose(ds, link.master, k)) @ node_pose(ds, link.slave, k)
        np.testing.assert_allclose(j.pose, expected, atol=1e-12, err_msg="pose")
        fd = vee(np.linalg.inv(j.pose) @ (js[2].pose - js[0].pose) / (2 * dt))
        np.testing.assert_allclose(j.twist, fd, atol=1e-5 * (1 + np.abs(fd).max()),
                                   err_msg="twist vs dH/dt")
        rest = j.twist - j.jacobian @ j.gvel
        if link_type.startswith("prescribed_") or model.link_blocks[0].kind.switching:
            # the prescribed motion: d_z' along the master z axis, seen in slave axes (a
            # latch: the slide's motion while free, zero while latched)
            dz = ds.link_velocity.sel(link="link", dof="tz").values[k]
            drive = np.concatenate([np.zeros(3), j.pose[:3, :3].T @ [0.0, 0.0, dz]])
            np.testing.assert_allclose(rest, drive, atol=1e-10)
        else:
            np.testing.assert_allclose(rest, 0.0, atol=1e-10, err_msg="twist - jacobian gvel")


def test_link_joints_from_a_state_a_system_and_a_dataset_agree() -> None:
    """The same joints from a State (initial, assembled), from the System (initial state
    as given) and from the Dataset's first sample."""
    s = universal_system("RzRx")
    ds = s.run(t_end=1e-3, dt=1e-3)
    model = assemble(s)
    from frylinks.engine import project

    state = model.initial.copy()
    project(model, state, initial=True)
    a = link_joints(model, state)["cardan"]
    b = link_joints(s)["cardan"]
    c = link_joints(model, ds.isel(time=0))["cardan"]
    for other in (b, c):
        np.testing.assert_allclose(other.gpos, a.gpos, atol=1e-12)
        np.testing.assert_allclose(other.twist, a.twist, atol=1e-12)
    with pytest.raises(ValueError, match="one time"):
        link_joints(model, ds)
    assert list(link_joints(model, state)) == ["cardan"]
    assert "RzRyJoint" in dir(joints)
