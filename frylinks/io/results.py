"""Result variables: the one metadata table, sampling of states, and Dataset assembly.

Sampling (what the step loop hands over every ``output.every`` steps) and writing
(memory, netCDF) are separate: :class:`Sampler` turns a state into a dict of arrays,
sinks store them.

Every ``units`` attribute is a UDUNITS-2 string (what CF readers parse). A variable over
``dof`` mixes translations and rotations (m and rad, N and N m): no single unit is true
of the whole array, so its ``units`` is ``"1"`` and a coordinate along ``dof``,
``<variable>_units``, gives the unit of each DOF (:func:`unit_coordinates`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from frylinks.engine import Model, State, body_states, evaluate, force_outputs, link_outputs
from frylinks.engine.compose import compiled_step
from frylinks.engine.evaluate import add_added_mass_wrenches
from frylinks.engine.ptos import ABSORBED, ELECTRICAL, pto_powers, ptos
from frylinks.engine.sampling import Batch, python_outputs, reported_outputs
from frylinks.errors import ModelError
from frylinks.forces import ForceContext, output_columns
from frylinks.io.info import ELEMENT_SUFFIX, UNITS_SUFFIX
from frylinks.kinematics import node_frames
from frylinks.links import DOFS
from frylinks.rotations import quat_to_matrix, quat_to_roll_pitch_yaw


@dataclass(frozen=True)
class Variable:
    """Metadata of one result variable.

    Attributes
    ----------
    dims
        Dimensions, ``time`` first.
    units
        The CF ``units`` attribute (UDUNITS-2): ``"1"`` for a variable over ``dof`` whose
        translational and rotational DOFs differ in units.
    long_name
        The CF ``long_name`` attribute.
    dof_units
        For a variable over ``dof`` with mixed units, the unit of each DOF (``tx`` ...
        ``rz``), written as the coordinate ``<name>_units``; None otherwise.
    """

    dims: tuple[str, ...]
    units: str
    long_name: str
    dof_units: tuple[str, ...] | None = None


#: ``units`` of a variable whose DOFs differ in units (each DOF's in ``<name>_units``).
MIXED_UNITS = "1"


def per_dof(units: str, rotational_units: str | None, dims: tuple[str, ...]
            ) -> tuple[str, tuple[str, ...] | None]:
    """``units`` and ``dof_units`` of a variable over ``dims`` whose translational DOFs
    are in ``units`` and rotational DOFs in ``rotational_units`` (None: the same)."""
    if "dof" not in dims or rotational_units is None or rotational_units == units:
        return units, None
    return MIXED_UNITS, tuple(units if d[0] == "t" else rotational_units for d in DOFS)


def _mixed(dims: tuple[str, ...], units: str, rotational_units: str, long_name: str
           ) -> Variable:
    attr, dof_units = per_dof(units, rotational_units, dims)
    return Variable(dims, attr, long_name, dof_units)


#: Every variable the core writes (docs/reference/results.md). Plugins declare theirs
#: beside their types.
VARIABLES: dict[str, Variable] = {
    "body_position": Variable(("time", "body", "xyz"), "m", "position of the body COG, world axes"),
    "body_orientation": Variable(("time", "body", "quat"), "1",
                                 "unit quaternion body axes to world axes"),
    "body_attitude": Variable(
        ("time", "body", "rpy"), "degree",
        "roll, pitch and yaw of the body: intrinsic z-y'-x'' Euler angles of the rotation "
        "body axes to world axes (yaw about world z, then pitch about the turned y, then "
        "roll about body x); roll and yaw in [-180, 180], pitch in [-90, 90]"),
    "body_velocity": Variable(("time", "body", "xyz"), "m s-1",
                              "velocity of the body COG, world axes"),
    "body_angular_velocity": Variable(("time", "body", "xyz"), "rad s-1",
                                      "angular velocity of the body, world axes"),
    "body_acceleration": Variable(("time", "body", "xyz"), "m s-2",
                                  "acceleration of the body COG, world axes"),
    "body_angular_acceleration": Variable(("time", "body", "xyz"), "rad s-2",
                                          "angular acceleration of the body, world axes"),
    "link_displacement": _mixed(
        ("time", "link", "dof"), "m", "rad",
        "slave node relative to master node, master-node axes (tx ty tz in m; rx ry rz in rad: "
        "unwrapped angle of a single free rotation, otherwise the rotation vector)"),
    "link_velocity": _mixed(
        ("time", "link", "dof"), "m s-1", "rad s-1",
        "relative velocity and angular velocity of the slave node, master-node axes"),
    "link_reaction_force": Variable(
        ("time", "link", "xyz"), "N", "constraint force on the slave body, master-node axes"),
    "link_reaction_torque": Variable(
        ("time", "link", "xyz"), "N m",
        "constraint torque on the slave body about the slave node, master-node axes"),
    "link_spring_force": _mixed(
        ("time", "link", "dof"), "N", "N m",
        "link spring-damper generalised force on the free DOFs (on the slave body)"),
    "link_power": Variable(("time", "link"), "W",
                           "power absorbed by the link spring-damper (PTO power)"),
    "force_force": Variable(("time", "force", "xyz"), "N",
                            "force of the element on its first body, world axes"),
    "force_torque": Variable(
        ("time", "force", "xyz"), "N m",
        "torque of the element on its first body about its attachment node, world axes"),
}

COORDS = {"xyz": ["x", "y", "z"], "quat": ["w", "x", "y", "z"], "dof": list(DOFS),
          "rpy": ["roll", "pitch", "yaw"]}


def element_dim(type_name: str) -> str:
    """The dimension of a force type's own elements, over which its outputs are written
    (``radiation`` -> ``radiation_element``; its labels are the elements' names)."""
    return f"{type_name}{ELEMENT_SUFFIX}"


def variables(model: Model) -> dict[str, Variable]:
    """The core variables plus every output declared by the model's force types and
    settings.

    A force type's output has dims ``(time, <type>_element, *dims)``: it is written over
    the elements of its own type only (:func:`element_dim`), so a model of many types
    stores no padding for the elements of the others.
    """
    out = dict(VARIABLES)
    for blk in model.force_blocks:
        for name, o in blk.kind.outputs.items():
            dims = ("time", element_dim(blk.kind.name), *o.dims)
            units, dof_units = per_dof(o.units, o.rotational_units, dims)
            out[name] = Variable(dims, units, o.long_name, dof_units)
    for setting in _reporting_settings(model):
        for name, o in setting.outputs.items():
            out[name] = Variable(("time", *o.dims), o.units, o.long_name)
    takeoffs = ptos(model)
    if takeoffs:
        out[ABSORBED] = Variable(("time", "pto"), "W", PTO_LONG_NAMES[ABSORBED])
    if any(p.electrical for p in takeoffs):
        out[ELECTRICAL] = Variable(("time", "pto"), "W", PTO_LONG_NAMES[ELECTRICAL])
    return out


#: The shared power variables of every PTO (:mod:`frylinks.engine.ptos`).
PTO_LONG_NAMES = {
    ABSORBED: "power absorbed from the motion by each power take-off, whatever supplies it "
              "(a link spring-damper's damping, a pto_* force, a drivetrain)",
    ELECTRICAL: "electrical power delivered by each power take-off with a drivetrain (NaN "
                "for the others)",
}


def unit_coordinates(variables: dict[str, Variable]) -> dict[str, tuple[Any, ...]]:
    """The per-DOF units coordinates of the variables with mixed units.

    Returns
    -------
    dict
        ``<variable>_units`` -> ``("dof", units of tx ... rz, attributes)``, as xarray
        takes a coordinate. A selection keeps the units of the DOFs it keeps:
        ``ds.link_displacement.sel(dof="rz").link_displacement_units`` is ``"rad"``.
    """
    return {f"{name}{UNITS_SUFFIX}": ("dof", list(var.dof_units),
                                      {"long_name": f"units of each DOF of {name}"})
            for name, var in variables.items() if var.dof_units is not None}


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
    """Turns states into the values of every result variable."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.settings = _reporting_settings(model)
        self.ptos = ptos(model)
        #: The force blocks whose outputs are made in Python (at each sample).
        self.in_python = python_outputs(model)

    @property
    def batch_only(self) -> bool:
        """Whether :meth:`batch` of a batch with the compiled step's report reads that
        batch alone (and the settings' outputs, functions of time): no force type makes
        its outputs in Python, from the model as it is now. The run then makes the
        variables beside its step (:mod:`frylinks.io.recorder`)."""
        return not self.in_python

    def sample(self, s: State) -> dict[str, np.ndarray]:
        """Values at state ``s``, keyed by variable name, without the time dimension."""
        step = compiled_step(self.model)
        if step is not None:
            udot, links, forces, lam, extra = step.outputs(s)
            batch = Batch.of(s)
            batch.report = tuple(a[None] for a in (links, forces, udot, lam, s.z, extra))
            return {name: v[0] for name, v in self.batch(batch).items()}
        ev = evaluate(self.model, s)
        out = _body_values(s.x, s.q, s.v, s.w, ev.udot)
        out.update(link_outputs(self.model, ev))
        out.update(force_outputs(self.model, ev))
        for blk, frames in zip(self.model.force_blocks, ev.force_frames, strict=True):
            if not blk.kind.outputs:
                continue
            ev.force_ctx.states = s.z[blk.states]
            _place(out, blk, blk.kind.output_values(frames, ev.force_ctx))
        for setting in self.settings:
            out.update(setting.output_values(s.t))
        out.update(pto_powers(self.ptos, out))
        return out

    def batch(self, batch: Batch) -> dict[str, np.ndarray]:
        """Values at every sample of ``batch``, keyed by variable name, with a leading
        sample axis: from the compiled step's report when the batch has one (every
        variable at once), else sample by sample."""
        if batch.report is None:
            each = [self.sample(s) for s in batch.states()]
            return {name: np.stack([v[name] for v in each]) for name in each[0]}
        model = self.model
        x, q, v, w = batch.arrays[:4]
        links, forces, udot, _, _, extra = batch.report
        out = _body_values(x, q, v, w, udot)
        out.update({
            "link_displacement": links[:, :, 0:6],
            "link_velocity": links[:, :, 6:12],
            "link_reaction_force": links[:, :, 12:15],
            "link_reaction_torque": links[:, :, 15:18],
            "link_spring_force": links[:, :, 18:24],
            "link_power": links[:, :, 24],
            # copies: the added-mass wrenches are added in below, and the report may be
            # the compiled step's own, asked for again
            "force_force": forces[:, :, :3].copy(),
            "force_torque": forces[:, :, 3:].copy(),
        })
        for r in reported_outputs(model):
            values = extra[:, r.offset:r.offset + r.nb * r.width].reshape(-1, r.nb, r.width)
            for name, (cols, shape) in output_columns(model.force_blocks[r.block].kind.outputs
                                                      ).items():
                out[name] = values[:, :, cols].reshape(len(batch), r.nb, *shape)
        for j, blk in enumerate(model.force_blocks):
            if blk.added is not None or blk.coupled is not None:
                add_added_mass_wrenches(blk, udot, levers(blk.attachments[0], q),
                                        out["force_force"], out["force_torque"])
            if j in self.in_python:  # outputs in plain numpy
                rows = []
                for s in batch.states():
                    b = body_states(model, s)
                    frames = [node_frames(b, att) for att in blk.attachments]
                    signals = (model.signals.evaluate(s.t, 0) if model.signals.nb_slots
                               else np.zeros(0))
                    ctx = ForceContext(s.t, signals, model.gravity, model.settings,
                                       states=s.z[blk.states])
                    rows.append(blk.kind.output_values(frames, ctx))
                for name in blk.kind.outputs:
                    out[name] = np.stack([np.asarray(r[name], dtype=float) for r in rows])
        for setting in self.settings:
            out.update(setting.output_series(batch.times))
        out.update(pto_powers(self.ptos, out))
        return out


def levers(nodes: Any, q: np.ndarray) -> np.ndarray:
    """The lever arms COG -> node ``(m, n, 3)`` (world axes) of ``nodes`` at the
    orientations ``q (m, nb, 4)`` (zero for nodes at their COG, the usual case)."""
    if not np.any(nodes.offset):
        return np.zeros((len(q), len(nodes.body), 3))
    R = quat_to_matrix(q[:, nodes.body] / np.linalg.norm(q[:, nodes.body], axis=-1,
                                                          keepdims=True))
    return np.einsum("mnij,nj->mni", R, nodes.offset)


def _body_values(x: np.ndarray, q: np.ndarray, v: np.ndarray, w: np.ndarray,
                 udot: np.ndarray) -> dict[str, np.ndarray]:
    """The body variables at states ``x, q, v, w`` with accelerations ``udot``
    (``(..., nb, 6)``; any leading axes)."""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return {
        "body_position": x.copy(),
        "body_orientation": q,
        "body_attitude": np.degrees(quat_to_roll_pitch_yaw(q)),
        "body_velocity": v.copy(),
        "body_angular_velocity": w.copy(),
        "body_acceleration": udot[..., :3].copy(),
        "body_angular_acceleration": udot[..., 3:].copy(),
    }


def _place(out: dict[str, np.ndarray], blk: Any, values: dict[str, np.ndarray]) -> None:
    """A force block's plugin outputs, over the block's own elements."""
    for name in blk.kind.outputs:
        out[name] = np.asarray(values[name], dtype=float)


def coordinates(model: Model) -> dict[str, Any]:
    """Name coordinates of a model's results: dimension -> labels.

    Raises
    ------
    ModelError
        If a force type's element dimension (``<type>_element``) is also a dimension of
        a setting or the name of an output: the file could not hold both.
    """
    coords: dict[str, Any] = {"body": model.body_names, "link": model.link_names,
                              "force": model.force_names, **COORDS}
    takeoffs = ptos(model)
    if takeoffs:
        coords["pto"] = [p.name for p in takeoffs]
    for setting in _reporting_settings(model):
        coords.update(setting.coordinates())
    outputs = {name for blk in model.force_blocks for name in blk.kind.outputs}
    for blk in model.force_blocks:
        if not blk.kind.outputs:
            continue
        dim = element_dim(blk.kind.name)
        if dim in coords or dim in outputs:
            raise ModelError(f"force type '{blk.kind.name}' writes its outputs over the "
                             f"dimension '{dim}', which is already the name of a "
                             "dimension or variable of the results")
        coords[dim] = list(blk.names)
        for own, labels in blk.kind.coordinates().items():
            if own in coords or own in outputs:
                raise ModelError(f"force type '{blk.kind.name}' declares the dimension "
                                 f"'{own}', which is already the name of a dimension or "
                                 "variable of the results")
            coords[own] = list(labels)
    return coords


def to_dataset(model: Model, times: Sequence[np.ndarray],
               batches: Sequence[dict[str, np.ndarray]], attrs: dict[str, Any]) -> xr.Dataset:
    """An xarray Dataset of the samples of ``batches`` (:meth:`Sampler.batch`, at
    ``times``, one array per batch), with CF attributes from :data:`VARIABLES`."""
    data = {}
    for name, var in variables(model).items():
        values = np.concatenate([b[name] for b in batches]) if batches else \
            np.zeros((0, *[len(coordinates(model)[d]) for d in var.dims[1:]]))
        data[name] = (var.dims, values, {"units": var.units, "long_name": var.long_name})
    stamps = np.concatenate(times) if len(times) else np.zeros(0)
    ds = xr.Dataset(data, coords={"time": ("time", stamps.astype(float),
                                           {"units": "s", "long_name": "time"}),
                                  **coordinates(model),
                                  **unit_coordinates(variables(model))})
    ds.attrs.update(attrs)
    return ds
