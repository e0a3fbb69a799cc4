"""Exudyn's connectors ``linear_spring_damper`` and ``torsional_spring_damper``.

``linear_spring_damper`` follows Exudyn's ``ObjectConnectorLinearSpringDamper``
literally: with ``n = R_m d`` the unit ``axis`` ``d`` of the master node (Exudyn's
marker 0) carried into world axes, so that it co-moves with the master node,

    dx = n . (p_s - p_m),      dv = n . (v_s - v_m),
    f  = stiffness (dx - rest) + damping (dv - velocity_offset) + preload,

and the force ``-f n`` acts on the slave node, ``+f n`` on the master node: a positive
``f`` pulls the slave back towards the master (a unit load pulling the slave along
``+n`` settles at ``dx = rest + 1 / stiffness``, Exudyn's mini example). As in Exudyn,
``dv`` is the rate of ``dx`` only while the master node does not turn (the element is
meant for a prismatic link), and no torque is applied: when the nodes are not on a
common line along ``n`` the two forces make a couple, which a link must carry.

``torsional_spring_damper`` is its rotational twin about the unit ``axis`` ``a`` of the
master node (Exudyn: the master joint's z axis), defined here so that it is exactly
conservative whatever the relative rotation:

* the **angle** ``theta`` is the twist of the relative rotation ``q = q_m* q_s``
  (master node -> slave node) about ``a`` in its swing-twist decomposition
  ``q = swing * twist(a, theta)``: ``theta = 2 atan2(a . q_v, q_w)``, **unwrapped** so it
  counts turns (against its value at the previous evaluation, so the relative rotation
  between two evaluations must stay below half a turn);
* its **rate** is the exact ``theta' = g . Omega`` with ``Omega = R_m^T (w_s - w_m)`` and
  ``g = (c (c a + q_v x a) + s q_v) / (c^2 + s^2)``, ``c = q_w``, ``s = a . q_v``
  (``g = a`` when there is no swing, as in a revolute link);
* the torque ``tau = stiffness (theta - rest) + damping (theta' - velocity_offset) +
  preload`` acts as ``-tau R_m g`` on the slave and ``+tau R_m g`` on the master: the
  generalised force of ``theta``, so a spring stores exactly ``stiffness (theta -
  rest)^2 / 2``. In a revolute link this is Exudyn's element; with a swing (a spherical
  link), Exudyn's torque about ``a`` would not be conservative. ``g`` is undefined when
  the swing is a half turn (``c = s = 0``).

Both take a Python ``user_function`` in place of the linear law,
``f = user_function(t, displacement, velocity, stiffness, damping, rest)`` (Exudyn's
``springForceUserFunction`` without ``mbs`` and ``itemNumber``), called once per
evaluation with arrays of every element that uses it (see
:mod:`frylinks_forces.common`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceType, Output
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.rotations import cross, quat_conjugate, quat_multiply, rotate, rotate_back
from frylinks.signals import SignalSpec

from .common import ACTIVE, UserFunctions, check_active, check_axis, unit_axes

Array = np.ndarray


class _AxisSpringDamper(ForceType):
    """Shared parameters and law of the two connectors (the subclass gives the
    kinematics and where the scalar acts)."""

    attachments = ("master", "slave")

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        check_axis(params)
        check_active(params)

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.axis = unit_axes(instances)
        self.stiffness = np.array([p["stiffness"] for p in instances], dtype=float)
        self.damping = np.array([p["damping"] for p in instances], dtype=float)
        self.active = np.array([bool(p["active"]) for p in instances])
        self._rest = self.signal_array([p["rest"] for p in instances])
        self._velocity_offset = self.signal_array([p["velocity_offset"] for p in instances])
        self._preload = self.signal_array([p["preload"] for p in instances])
        self.user = UserFunctions([p["user_function"] for p in instances], self.name)

    def law(self, x: Array, v: Array, ctx: ForceContext) -> Array:
        """The scalar force (or torque) of every element at displacement ``x`` and rate
        ``v``: the linear law, a user function's value, or 0 if inactive."""
        rest = self._rest.at(ctx.signals)
        f = (self.stiffness * (x - rest)
             + self.damping * (v - self._velocity_offset.at(ctx.signals))
             + self._preload.at(ctx.signals))
        if self.user:
            f = self.user.apply(f, (ctx.t,), (x, v, self.stiffness, self.damping,
                                              np.broadcast_to(rest, x.shape)))
        return np.where(self.active, f, 0.0)


def cubic_spring(t: float, x: Array, v: Array, stiffness: Array, damping: Array,
                 rest: Array) -> Array:
    """Exudyn's user-function example, a hardening spring ``k x + 0.1 k x^3`` (the damping
    and rest given to the element are ignored)."""
    return stiffness * x + 0.1 * stiffness * x**3


def _signal(units: str, doc: str) -> Param:
    return Param("signal", units, f"{doc}; a number or a signal", default=0.0)


class LinearSpringDamper(_AxisSpringDamper):
    """Exudyn's linear spring-damper along an axis of the master node (module doc)."""

    name = "linear_spring_damper"
    parameters = {
        "master": Param("node", "", "node whose axes carry the spring axis (Exudyn marker 0)"),
        "slave": Param("node", "", "the other node (Exudyn marker 1)"),
        "stiffness": Param("float", "N m-1", "spring stiffness", default=0.0, minimum=0.0),
        "damping": Param("float", "N s m-1", "damping coefficient", default=0.0, minimum=0.0),
        "axis": Param("vector", "1", "spring axis in master-node axes (normalised)",
                      default=(1.0, 0.0, 0.0)),
        "rest": _signal("m", "displacement at which the spring is relaxed (Exudyn's offset)"),
        "velocity_offset": _signal("m s-1", "velocity subtracted in the damper term"),
        "preload": _signal("N", "constant force added to the spring-damper force"),
        "active": ACTIVE,
        "user_function": Param(
            "callable", "", "f(t, displacement, velocity, stiffness, damping, rest) -> force "
            "on numpy arrays, replacing the linear law (Python API only)", default=None),
    }
    outputs = {
        "linear_spring_damper_displacement": Output(
            "m", "displacement of the slave node along the axis (Exudyn DisplacementLocal)"),
        "linear_spring_damper_velocity": Output(
            "m s-1", "relative velocity along the axis (Exudyn VelocityLocal)"),
        "linear_spring_damper_force": Output(
            "N", "spring-damper force, positive pulling the nodes together (Exudyn ForceLocal)"),
    }
    description = "Exudyn linear spring-damper along an axis co-moving with the master node"
    examples = [
        {"stiffness": 2.0e3, "damping": 20.0},
        {"stiffness": 100.0, "damping": 1.0, "axis": [0.0, 1.0, 1.0], "rest": 0.3,
         "velocity_offset": 0.1, "preload": {"type": "sine", "amplitude": 5.0, "omega": 2.0}},
        {"stiffness": 10.0, "active": False},
        {"stiffness": 50.0, "user_function": cubic_spring},
    ]

    def kinematics(self, frames: Sequence[NodeFrames]) -> tuple[Array, Array, Array]:
        """World axis ``n (n, 3)``, displacement ``dx`` and velocity ``dv`` ``(n,)``."""
        m, s = frames
        n = rotate(m.R, self.axis)
        return (n, np.einsum("ni,ni->n", n, s.p - m.p),
                np.einsum("ni,ni->n", n, s.v - m.v))

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        n, dx, dv = self.kinematics(frames)
        f = self.law(dx, dv, ctx)[:, None] * n
        force = np.stack([f, -f], axis=1)
        return force, np.zeros_like(force)

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, Array]:
        _, dx, dv = self.kinematics(frames)
        return {"linear_spring_damper_displacement": dx,
                "linear_spring_damper_velocity": dv,
                "linear_spring_damper_force": self.law(dx, dv, ctx)}


class TorsionalSpringDamper(_AxisSpringDamper):
    """A torsional spring-damper on the twist about an axis of the master node (module
    doc)."""

    name = "torsional_spring_damper"
    parameters = {
        "master": Param("node", "", "node whose axes carry the twist axis (Exudyn marker 0)"),
        "slave": Param("node", "", "the other node (Exudyn marker 1)"),
        "stiffness": Param("float", "N m rad-1", "torsional stiffness", default=0.0,
                           minimum=0.0),
        "damping": Param("float", "N m s rad-1", "torsional damping", default=0.0,
                         minimum=0.0),
        "axis": Param("vector", "1", "twist axis in master-node axes (normalised)",
                      default=(0.0, 0.0, 1.0)),
        "rest": _signal("rad", "angle at which the spring is relaxed (Exudyn's offset)"),
        "velocity_offset": _signal("rad s-1", "angular velocity subtracted in the damper term"),
        "preload": _signal("N m", "constant torque added to the spring-damper torque"),
        "active": ACTIVE,
        "user_function": Param(
            "callable", "", "tau(t, angle, angular_velocity, stiffness, damping, rest) -> "
            "torque on numpy arrays, replacing the linear law (Python API only)", default=None),
    }
    outputs = {
        "torsional_spring_damper_angle": Output(
            "rad", "unwrapped twist of the slave node about the axis (Exudyn Rotation)"),
        "torsional_spring_damper_angular_velocity": Output(
            "rad s-1", "rate of the twist angle (Exudyn AngularVelocityLocal)"),
        "torsional_spring_damper_torque": Output(
            "N m", "spring-damper torque, positive turning the slave back (Exudyn TorqueLocal)"),
    }
    description = "torsional spring-damper on the unwrapped twist about a master-node axis"
    memory = ("angle_ref",)  # the unwrapping reference: saved with checkpoints
    examples = [
        {"stiffness": 20.0, "damping": 0.3},
        {"stiffness": 5.0, "damping": 0.1, "axis": [1.0, 1.0, 0.0], "rest": 0.5,
         "velocity_offset": -0.2, "preload": {"type": "sine", "amplitude": 1.0, "omega": 2.0}},
        {"stiffness": 10.0, "active": False},
        {"stiffness": 3.0, "user_function": cubic_spring},
    ]

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        #: twist at the previous evaluation (NaN before the first): the unwrapping reference
        self.angle_ref = np.full(self.nb_forces, np.nan)

    def kinematics(self, frames: Sequence[NodeFrames]) -> tuple[Array, Array, Array]:
        """Torque direction ``g`` (world, ``(n, 3)``), unwrapped twist angle and its rate
        ``(n,)``; the angle becomes the new unwrapping reference."""
        m, s = frames
        q = quat_multiply(quat_conjugate(m.q), s.q)
        a = self.axis
        c = q[:, 0]
        v = q[:, 1:]
        sn = np.einsum("ni,ni->n", a, v)
        raw = 2.0 * np.arctan2(sn, c)
        ref = np.where(np.isnan(self.angle_ref), 0.0, self.angle_ref)
        angle = ref + (raw - ref + np.pi) % (2.0 * np.pi) - np.pi
        self.angle_ref = angle
        norm2 = np.maximum(c * c + sn * sn, 1e-300)
        g = (c[:, None] * (c[:, None] * a + cross(v, a)) + sn[:, None] * v) / norm2[:, None]
        rate = np.einsum("ni,ni->n", g, rotate_back(m.R, s.w - m.w))
        return rotate(m.R, g), angle, rate

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        g, angle, rate = self.kinematics(frames)
        tau = self.law(angle, rate, ctx)[:, None] * g
        torque = np.stack([tau, -tau], axis=1)
        return np.zeros_like(torque), torque

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, Array]:
        _, angle, rate = self.kinematics(frames)
        return {"torsional_spring_damper_angle": angle,
                "torsional_spring_damper_angular_velocity": rate,
                "torsional_spring_damper_torque": self.law(angle, rate, ctx)}
