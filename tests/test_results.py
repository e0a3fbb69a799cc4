"""Result variables: plugin force types' declared outputs reach the Dataset and the file."""

from __future__ import annotations

from pathlib import Path

import frylinks_forces
import frylinks_links
import frylinks_signals
import numpy as np
import pytest
import xarray as xr

import frylinks
from frylinks.errors import PluginError
from frylinks.forces import ForceType, Output
from frylinks.model.registry import Registry
from frylinks.params import Param


class Drag(ForceType):
    """Linear drag -c v on a node, with its speed as an output."""

    name = "test_drag"
    attachments = ("node",)
    parameters = {"node": Param("node", "", "node"),
                  "coefficient": Param("float", "N s m-1", "drag coefficient")}
    outputs = {"test_drag_speed": Output("m s-1", "speed of the node"),
               "test_drag_velocity": Output("m s-1", "velocity of the node", ("xyz",))}

    def __init__(self, instances, signal_specs):  # type: ignore[no-untyped-def]
        super().__init__(instances, signal_specs)
        self.c = np.array([p["coefficient"] for p in instances])

    def evaluate(self, frames, ctx):  # type: ignore[no-untyped-def]
        f = -self.c[:, None] * frames[0].v
        return f[:, None, :], np.zeros_like(f)[:, None, :]

    def output_values(self, frames, ctx):  # type: ignore[no-untyped-def]
        return {"test_drag_speed": np.linalg.norm(frames[0].v, axis=1),
                "test_drag_velocity": frames[0].v.copy()}


class Spin(ForceType):
    """A second type with outputs: a torque -c w on a body, and its wrench over ``dof``
    (force in N, torque in N m: mixed units)."""

    name = "test_spin"
    attachments = ("body",)
    parameters = {"body": Param("body", "", "body"),
                  "coefficient": Param("float", "N m s rad-1", "damping")}
    outputs = {"test_spin_wrench": Output("N", "wrench on the body", ("dof",), "N m")}

    def __init__(self, instances, signal_specs):  # type: ignore[no-untyped-def]
        super().__init__(instances, signal_specs)
        self.c = np.array([p["coefficient"] for p in instances])

    def evaluate(self, frames, ctx):  # type: ignore[no-untyped-def]
        t = -self.c[:, None] * frames[0].w
        return np.zeros_like(t)[:, None, :], t[:, None, :]

    def output_values(self, frames, ctx):  # type: ignore[no-untyped-def]
        return {"test_spin_wrench": np.hstack([np.zeros_like(frames[0].w),
                                               -self.c[:, None] * frames[0].w])}


class Plugin:
    @staticmethod
    @frylinks.hookimpl
    def frylinks_force_types() -> list[type]:
        return [Drag, Spin]


def registry() -> Registry:
    reg = Registry(autoload=False)
    for name, mod in (("links", frylinks_links), ("forces", frylinks_forces),
                      ("signals", frylinks_signals)):
        reg.register(mod, name=name, distribution="frylinks")
    reg.register(Plugin, name="drag", distribution="test")
    return reg


def test_outputs_in_dataset_and_file(tmp_path: Path) -> None:
    """Declared outputs appear with units and exact values, each type's over its own
    elements only (no NaN padding over the elements of other types)."""
    s = frylinks.System(gravity=[0, 0, 0], registry=registry())
    s.add_body("b", mass=2.0, inertia=[1, 1, 1], velocity=[3.0, 0, 0],
               angular_velocity=[0, 0, 1.0])
    s.add_force("push", "world_force", node="b", force=[0.0, 0.0, 0.0])
    s.add_force("drag", "test_drag", node="b", coefficient=4.0)
    s.add_force("spin1", "test_spin", body="b", coefficient=0.5)
    s.add_force("spin2", "test_spin", body="b", coefficient=0.25)
    ds = s.run(t_end=0.5, dt=1e-3, every=100, output=tmp_path / "r.nc")
    speed = ds.test_drag_speed.sel(test_drag_element="drag").values
    np.testing.assert_allclose(speed, 3.0 * np.exp(-2.0 * ds.time.values), rtol=1e-10)
    assert ds.test_drag_speed.dims == ("time", "test_drag_element")
    assert ds.test_drag_velocity.dims == ("time", "test_drag_element", "xyz")
    assert ds.test_spin_wrench.dims == ("time", "test_spin_element", "dof")
    assert list(ds.test_spin_element.values) == ["spin1", "spin2"]
    assert list(ds.force.values) == ["push", "drag", "spin1", "spin2"]
    assert not any(np.isnan(ds[v]).any() for v in ds.data_vars)
    wz = ds.body_angular_velocity.sel(body="b", xyz="z").values
    np.testing.assert_allclose(ds.test_spin_wrench.sel(test_spin_element="spin2", dof="rz"),
                               -0.25 * wz, rtol=1e-12)
    assert ds.test_drag_speed.attrs["units"] == "m s-1"
    # mixed units: "1" on the array, the unit of each DOF as a coordinate
    assert ds.test_spin_wrench.attrs["units"] == "1"
    assert list(ds.test_spin_wrench_units.values) == ["N"] * 3 + ["N m"] * 3
    assert str(ds.test_spin_wrench.sel(dof="rx").test_spin_wrench_units.values) == "N m"
    with xr.open_dataset(tmp_path / "r.nc") as f:
        xr.testing.assert_allclose(f.test_drag_velocity.load(), ds.test_drag_velocity)
        xr.testing.assert_identical(f.test_spin_wrench.load(), ds.test_spin_wrench)
        assert f.test_drag_speed.attrs["long_name"] == "speed of the node"
        assert "test_spin_wrench_units" in f.coords


def test_element_dimension_clash_is_an_error() -> None:
    """A type whose element dimension is already a variable's name cannot be written."""
    from frylinks.engine import assemble
    from frylinks.errors import ModelError
    from frylinks.io.results import coordinates

    class Clash(Drag):
        name = "test_clash"
        outputs = {"test_clash_element": Output("m", "a variable named like a dimension")}

    class ClashPlugin:
        @staticmethod
        @frylinks.hookimpl
        def frylinks_force_types() -> list[type]:
            return [Clash]

    reg = registry()
    reg.register(ClashPlugin, name="clash", distribution="test")
    s = frylinks.System(gravity=[0, 0, 0], registry=reg)
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    s.add_force("c", "test_clash", node="b", coefficient=1.0)
    with pytest.raises(ModelError, match="'test_clash_element'"):
        coordinates(assemble(s))


def test_rotational_units_only_over_dof() -> None:
    """rotational_units on an output without a dof dimension is refused at registration."""
    class Odd(Drag):
        name = "odd_drag"
        outputs = {"odd_drag_speed": Output("m s-1", "speed", (), "rad s-1")}

    class OddPlugin:
        @staticmethod
        @frylinks.hookimpl
        def frylinks_force_types() -> list[type]:
            return [Odd]

    with pytest.raises(PluginError, match="only for an output over 'dof'"):
        Registry(autoload=False).register(OddPlugin, name="odd", distribution="test")


def test_undeclared_prefix_is_refused() -> None:
    """An output not prefixed with its type name is refused at registration."""
    class Bad(Drag):
        name = "bad_drag"

    class BadPlugin:
        @staticmethod
        @frylinks.hookimpl
        def frylinks_force_types() -> list[type]:
            return [Bad]

    with pytest.raises(PluginError, match="must be prefixed 'bad_drag_'"):
        Registry(autoload=False).register(BadPlugin, name="bad", distribution="test")


def test_body_attitude_is_roll_pitch_yaw_in_degrees(tmp_path: Path) -> None:
    """``body_attitude``: the ship's roll, pitch, yaw (intrinsic z-y'-x'') in degrees, as
    scipy gives them from ``body_orientation``; a body turning about the vertical at
    0.5 rad/s keeps its roll and pitch and its yaw grows at 0.5 rad/s."""
    from scipy.spatial.transform import Rotation

    s = frylinks.System(gravity=[0, 0, 0], registry=registry())
    # yaw 30, pitch 10, roll -5 degrees: intrinsic z, y', x''
    s.add_body("ship", mass=1.0, inertia=[1, 1, 1],
               orientation={"euler_deg": [30, 10, -5], "sequence": "zyx"},
               angular_velocity=[0, 0, 0.5])
    ds = s.run(t_end=1.0, dt=0.01, every=10, output=tmp_path / "a.nc")
    att = ds.body_attitude.sel(body="ship")
    assert att.attrs["units"] == "degree"
    assert list(ds.rpy.values) == ["roll", "pitch", "yaw"]
    q = ds.body_orientation.sel(body="ship").values
    expected = np.degrees(Rotation.from_quat(q, scalar_first=True).as_euler("ZYX")[:, ::-1])
    np.testing.assert_allclose(att.values, expected, atol=1e-9)
    np.testing.assert_allclose(att.sel(rpy="roll"), -5.0, atol=1e-9)
    np.testing.assert_allclose(att.sel(rpy="pitch"), 10.0, atol=1e-9)
    np.testing.assert_allclose(att.sel(rpy="yaw"), 30.0 + np.degrees(0.5 * ds.time.values),
                               atol=1e-9)
    with xr.open_dataset(tmp_path / "a.nc") as f:
        xr.testing.assert_identical(f.body_attitude.load(), ds.body_attitude)


def test_plot_selects_a_force_element_of_a_type_output(tmp_path: Path) -> None:
    """``frylinks plot OUT.nc test_spin_wrench --select force=spin2``: a force name picks
    the element on the type's own dimension, and the axis shows the DOF's units."""
    from frylinks.io.info import open_results
    from frylinks.views.plots import make_figure

    s = frylinks.System(gravity=[0, 0, 0], registry=registry())
    s.add_body("b", mass=1.0, inertia=[1, 1, 1], angular_velocity=[0, 0, 1.0])
    s.add_force("spin1", "test_spin", body="b", coefficient=0.5)
    s.add_force("spin2", "test_spin", body="b", coefficient=0.25)
    s.run(t_end=0.2, dt=0.01, every=5, output=tmp_path / "r.nc")
    with open_results(tmp_path / "r.nc") as ds:
        ax = make_figure(ds, "test_spin_wrench", {"force": "spin2", "dof": "rz"}).axes[0]
        wz = ds.body_angular_velocity.sel(body="b", xyz="z").values
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), -0.25 * wz, rtol=1e-12)
    assert ax.get_ylabel().endswith("[N m]")


def test_lever_arms_of_a_batch_equal_the_node_frames() -> None:
    """The lever arms COG -> node the runner turns a batch's added-mass torques with
    (every sample at once) are the node frames' ``r`` of each sample."""
    from frylinks.io.results import levers as lever_arms
    from frylinks.kinematics import NodeSet, body_states_kernel, node_frames
    from frylinks.rotations import quat_to_matrix

    rng = np.random.default_rng(7)
    m, nb = 5, 3
    q = rng.normal(size=(m, nb, 4))
    x, v, w = (rng.normal(size=(m, nb, 3)) for _ in range(3))
    body = np.array([2, 0, 2])
    offset = rng.normal(size=(3, 3))
    nodes = NodeSet(body, offset, quat_to_matrix(np.tile([1.0, 0, 0, 0], (3, 1))))
    levers = lever_arms(nodes, q)
    for i in range(m):
        b = body_states_kernel(x[i], q[i] / np.linalg.norm(q[i], axis=1, keepdims=True),
                               v[i], w[i])
        np.testing.assert_allclose(levers[i], node_frames(b, nodes).r, rtol=1e-13,
                                   atol=1e-15)
    at_cog = NodeSet(body, np.zeros((3, 3)), nodes.rot)
    assert not np.any(lever_arms(at_cog, q))


def _two_sliders(force_name: str = "damper") -> frylinks.System:
    """A slider on a damped prismatic link (a PTO), one on a spring only (none), and a
    pto_damper force between them (a PTO)."""
    s = frylinks.System(gravity=[0.0, 0.0, 0.0])
    s.add_body("a", mass=2.0, inertia=[1.0, 1.0, 1.0], velocity=[0.0, 0.0, 1.5])
    s.add_body("b", mass=3.0, inertia=[1.0, 1.0, 1.0], velocity=[0.0, 0.0, -0.5])
    s.add_link("pto", "prismatic", master="ground", slave="a",
               spring_damper={"damping": 3.0})
    s.add_link("spring", "prismatic", master="ground", slave="b",
               spring_damper={"stiffness": 4.0})
    s.add_force(force_name, "pto_damper", master="a", slave="b", axis=[0, 0, 1],
                damping=5.0)
    return s


def test_absorbed_power_of_every_pto_whatever_supplies_it() -> None:
    """``absorbed_power`` over ``pto``: a link with damping (its ``link_power``) and a
    ``pto_*`` force (its ``_power``); a spring without damping is no PTO."""
    from frylinks.engine.model import assemble
    from frylinks.io.results import Sampler, coordinates, variables

    model = assemble(_two_sliders())
    assert coordinates(model)["pto"] == ["pto", "damper"]
    assert variables(model)["absorbed_power"].dims == ("time", "pto")
    assert "electrical_power" not in variables(model)
    out = Sampler(model).sample(model.initial)
    assert out["absorbed_power"][0] == pytest.approx(3.0 * 1.5**2)
    assert out["absorbed_power"][1] == pytest.approx(5.0 * 2.0**2)
    assert out["absorbed_power"][1] == out["pto_damper_power"][0]


def test_a_link_and_a_force_pto_of_one_name_are_refused() -> None:
    from frylinks.engine.model import assemble
    from frylinks.engine.ptos import ptos
    from frylinks.errors import ModelError

    with pytest.raises(ModelError, match="the link 'pto' and the force 'pto' are both power "
                                         "take-offs: give them different names"):
        ptos(assemble(_two_sliders("pto")))


def test_an_output_role_is_a_scalar_power() -> None:
    with pytest.raises(ValueError, match="expected 'absorbed_power', 'electrical_power'"):
        Output("W", "x", role="power")
    with pytest.raises(ValueError, match="is a scalar in W"):
        Output("W", "x", ("xyz",), role="absorbed_power")
