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
from frylinks.params import Param
from frylinks.registry import Registry


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


class Plugin:
    @staticmethod
    @frylinks.hookimpl
    def frylinks_force_types() -> list[type]:
        return [Drag]


def registry() -> Registry:
    reg = Registry(autoload=False)
    for name, mod in (("links", frylinks_links), ("forces", frylinks_forces),
                      ("signals", frylinks_signals)):
        reg.register(mod, name=name, distribution="frylinks")
    reg.register(Plugin, name="drag", distribution="test")
    return reg


def test_outputs_in_dataset_and_file(tmp_path: Path) -> None:
    """Declared outputs appear with units, exact values, and NaN for other types."""
    s = frylinks.System(gravity=[0, 0, 0], registry=registry())
    s.add_body("b", mass=2.0, inertia=[1, 1, 1], velocity=[3.0, 0, 0])
    s.add_force("push", "world_force", node="b", force=[0.0, 0.0, 0.0])
    s.add_force("drag", "test_drag", node="b", coefficient=4.0)
    ds = s.run(t_end=0.5, dt=1e-3, every=100, output=tmp_path / "r.nc")
    speed = ds.test_drag_speed.sel(force="drag").values
    np.testing.assert_allclose(speed, 3.0 * np.exp(-2.0 * ds.time.values), rtol=1e-10)
    assert np.isnan(ds.test_drag_speed.sel(force="push")).all()
    assert ds.test_drag_velocity.dims == ("time", "force", "xyz")
    assert ds.test_drag_speed.attrs["units"] == "m s-1"
    with xr.open_dataset(tmp_path / "r.nc") as f:
        xr.testing.assert_allclose(f.test_drag_velocity.load(), ds.test_drag_velocity)
        assert f.test_drag_speed.attrs["long_name"] == "speed of the node"


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
