"""Result variables: the one metadata table, sampling of states, and Dataset assembly.

Sampling (what the step loop hands over every ``output.every`` steps) and writing
(memory, netCDF) are separate: :class:`Sampler` turns a state into a dict of arrays,
sinks store them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from .engine import Model, State, body_states, evaluate, force_outputs, link_outputs
from .engine.compose import compiled_step
from .forces import ForceContext
from .kinematics import node_frames
from .links import DOFS
from .rotations import cross


@dataclass(frozen=True)
class Variable:
    """Metadata of one result variable."""

    dims: tuple[str, ...]
    units: str
    long_name: str


#: Every variable the core writes (DESIGN §4). Plugins declare theirs beside their types.
VARIABLES: dict[str, Variable] = {
    "body_position": Variable(("time", "body", "xyz"), "m", "position of the body COG, world axes"),
    "body_orientation": Variable(("time", "body", "quat"), "1",
                                 "unit quaternion body axes to world axes"),
    "body_velocity": Variable(("time", "body", "xyz"), "m s-1",
                              "velocity of the body COG, world axes"),
    "body_angular_velocity": Variable(("time", "body", "xyz"), "rad s-1",
                                      "angular velocity of the body, world axes"),
    "body_acceleration": Variable(("time", "body", "xyz"), "m s-2",
                                  "acceleration of the body COG, world axes"),
    "body_angular_acceleration": Variable(("time", "body", "xyz"), "rad s-2",
                                          "angular acceleration of the body, world axes"),
    "link_displacement": Variable(
        ("time", "link", "dof"), "m or rad",
        "slave node relative to master node, master-node axes (tx ty tz in m; rx ry rz in rad: "
        "unwrapped angle of a single free rotation, otherwise the rotation vector)"),
    "link_velocity": Variable(
        ("time", "link", "dof"), "m s-1 or rad s-1",
        "relative velocity and angular velocity of the slave node, master-node axes"),
    "link_reaction_force": Variable(
        ("time", "link", "xyz"), "N", "constraint force on the slave body, master-node axes"),
    "link_reaction_torque": Variable(
        ("time", "link", "xyz"), "N m",
        "constraint torque on the slave body about the slave node, master-node axes"),
    "link_spring_force": Variable(
        ("time", "link", "dof"), "N or N m",
        "link spring-damper generalised force on the free DOFs (on the slave body)"),
    "link_power": Variable(("time", "link"), "W",
                           "power absorbed by the link spring-damper (PTO power)"),
    "force_force": Variable(("time", "force", "xyz"), "N",
                            "force of the element on its first body, world axes"),
    "force_torque": Variable(
        ("time", "force", "xyz"), "N m",
        "torque of the element on its first body about its attachment node, world axes"),
}

COORDS = {"xyz": ["x", "y", "z"], "quat": ["w", "x", "y", "z"], "dof": list(DOFS)}


def variables(model: Model) -> dict[str, Variable]:
    """The core variables plus every output declared by the model's force types.

    A force type's output ``name`` has dims ``(time, force, *dims)``; elements of other
    types hold NaN there.
    """
    out = dict(VARIABLES)
    for blk in model.force_blocks:
        for name, o in blk.kind.outputs.items():
            out[name] = Variable(("time", "force", *o.dims), o.units, o.long_name)
    for setting in _reporting_settings(model):
        for name, o in setting.outputs.items():
            out[name] = Variable(("time", *o.dims), o.units, o.long_name)
    return out


def _reporting_settings(model: Model) -> list[Any]:
    """Settings with outputs whose every dimension has names (a setting without wave
    probes writes no elevation: a zero-length netCDF dimension would be unlimited)."""
    out = []
    for setting in model.settings.values():
        outputs = getattr(setting, "outputs", {})
        if outputs and all(setting.coordinates().get(d) for o in outputs.values()
                           for d in o.dims):
            out.append(setting)
    return out


class Sampler:
    """Turns a state into the values of every result variable."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.settings = _reporting_settings(model)

    def sample(self, s: State) -> dict[str, np.ndarray]:
        """Values at state ``s``, keyed by variable name, without the time dimension."""
        step = compiled_step(self.model)
        if step is not None:
            return self._compiled(s, step)
        ev = evaluate(self.model, s)
        out = {
            "body_position": s.x.copy(),
            "body_orientation": s.q / np.linalg.norm(s.q, axis=1, keepdims=True),
            "body_velocity": s.v.copy(),
            "body_angular_velocity": s.w.copy(),
            "body_acceleration": ev.udot[:, :3].copy(),
            "body_angular_acceleration": ev.udot[:, 3:].copy(),
        }
        out.update(link_outputs(self.model, ev))
        out.update(force_outputs(self.model, ev))
        nf = len(self.model.force_names)
        for blk, frames in zip(self.model.force_blocks, ev.force_frames, strict=True):
            if not blk.kind.outputs:
                continue
            ev.force_ctx.states = s.z[blk.states]
            _place(out, blk, blk.kind.output_values(frames, ev.force_ctx), nf)
        for setting in self.settings:
            out.update(setting.output_values(s.t))
        return out


    def _compiled(self, s: State, step: Any) -> dict[str, np.ndarray]:
        """:meth:`sample` from the model's compiled evaluation (one call for the core
        variables; plugin outputs from their types' Python methods)."""
        model = self.model
        udot, links, forces, _ = step.outputs(s)
        out = {
            "body_position": s.x.copy(),
            "body_orientation": s.q / np.linalg.norm(s.q, axis=1, keepdims=True),
            "body_velocity": s.v.copy(),
            "body_angular_velocity": s.w.copy(),
            "body_acceleration": udot[:, :3].copy(),
            "body_angular_acceleration": udot[:, 3:].copy(),
            "link_displacement": links[:, 0:6],
            "link_velocity": links[:, 6:12],
            "link_reaction_force": links[:, 12:15],
            "link_reaction_torque": links[:, 15:18],
            "link_spring_force": links[:, 18:24],
            "link_power": links[:, 24],
            "force_force": forces[:, :3],
            "force_torque": forces[:, 3:],
        }
        nf = len(model.force_names)
        b = None
        signals = model.signals.evaluate(s.t, 0) if model.signals.nb_slots else np.zeros(0)
        for blk in model.force_blocks:
            if blk.added is None and not blk.kind.outputs:
                continue
            b = body_states(model, s) if b is None else b
            frames = [node_frames(b, att) for att in blk.attachments]
            if blk.added is not None:
                # the added-mass force -A u' sits in the mass matrix (see force_outputs)
                inertial = -np.einsum("nij,nj->ni", blk.added, udot[blk.attachments[0].body])
                out["force_force"][blk.index] += inertial[:, :3]
                out["force_torque"][blk.index] += (inertial[:, 3:]
                                                   - cross(frames[0].r, inertial[:, :3]))
            if blk.kind.outputs:
                ctx = ForceContext(s.t, signals, model.gravity, model.settings,
                                   states=s.z[blk.states])
                _place(out, blk, blk.kind.output_values(frames, ctx), nf)
        for setting in self.settings:
            out.update(setting.output_values(s.t))
        return out


def _place(out: dict[str, np.ndarray], blk: Any, values: dict[str, np.ndarray], nf: int
           ) -> None:
    """A force block's plugin outputs into the model's arrays (NaN for other types)."""
    for name, o in blk.kind.outputs.items():
        full = out.get(name)
        if full is None:
            shape = tuple(len(COORDS[d]) for d in o.dims)
            full = out[name] = np.full((nf, *shape), np.nan)
        full[blk.index] = values[name]


def coordinates(model: Model) -> dict[str, Any]:
    """Name coordinates of a model's results."""
    coords: dict[str, Any] = {"body": model.body_names, "link": model.link_names,
                              "force": model.force_names, **COORDS}
    for setting in _reporting_settings(model):
        coords.update(setting.coordinates())
    return coords


def to_dataset(model: Model, times: list[float], samples: list[dict[str, np.ndarray]],
               attrs: dict[str, Any]) -> xr.Dataset:
    """An xarray Dataset of stacked samples, with CF attributes from :data:`VARIABLES`."""
    data = {}
    for name, var in variables(model).items():
        values = np.array([s[name] for s in samples]) if samples else \
            np.zeros((0, *[len(coordinates(model)[d]) for d in var.dims[1:]]))
        data[name] = (var.dims, values, {"units": var.units, "long_name": var.long_name})
    ds = xr.Dataset(data, coords={"time": ("time", np.asarray(times, dtype=float),
                                           {"units": "s", "long_name": "time"}),
                                  **coordinates(model)})
    ds.attrs.update(attrs)
    return ds
