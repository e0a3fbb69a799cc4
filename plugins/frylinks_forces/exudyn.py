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

Both are compiled kernels (kinematics, law and wrench: :func:`linear_evaluate`,
:func:`torsional_evaluate`; outputs: :func:`linear_outputs`, :func:`torsional_outputs`).
A block with a ``user_function`` cannot run compiled: its model runs on the engine's
Python path, where the same kernels compute the kinematics, the linear law and the
outputs, and the function's values replace the law's for its elements.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.forces import ForceContext, ForceKernels, ForceType, Output
from frylinks.jit import (
    cross3,
    dot3,
    kernel,
    quat_conj_mul,
    rotate3,
    rotate_back3,
    scratch,
    signal_values,
    unwrap,
)
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec

from .common import ACTIVE, UserFunctions, check_active, check_axis, line_wrench, unit_axes

Array = np.ndarray


class _AxisSpringDamper(ForceType):
    """Shared parameters and law of the two connectors (the subclass gives the
    kinematics and where the scalar acts)."""

    attachments = ("master", "slave")
    #: True when the scalar of the law is a torque (else a force).
    _torque = False

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

    def kernel_data(self) -> tuple[Any, ...]:
        """``(axis, stiffness, damping, active, rest, rest slots, velocity_offset, its
        slots, preload, its slots, user)``: the unit axes ``(n, 3)``, the coefficients,
        the signals' constants and slots, and int64 flags (``active``; ``user``: the
        element's law is a user function's value)."""
        return (self.axis, self.stiffness, self.damping, self.active.astype(np.int64),
                self._rest.const.reshape(-1), self._rest.slots(),
                self._velocity_offset.const.reshape(-1), self._velocity_offset.slots(),
                self._preload.const.reshape(-1), self._preload.slots(),
                self.user.flags(self.nb_forces))

    def compiled(self) -> str | None:
        if self.user:
            return f"force '{self.name}': user_function is a Python callable"
        return super().compiled()

    def kinematics(self, frames: Sequence[NodeFrames]) -> tuple[Array, Array, Array]:
        """World direction of the scalar ``(n, 3)``, displacement and its rate ``(n,)``."""
        raise NotImplementedError

    def law(self, x: Array, v: Array, ctx: ForceContext) -> Array:
        """The scalar force (or torque) of every element at displacement ``x`` and rate
        ``v``: the linear law, a user function's value, or 0 if inactive
        (:func:`axis_law`)."""
        x = np.ascontiguousarray(x, dtype=float)
        v = np.ascontiguousarray(v, dtype=float)
        given = np.zeros(self.nb_forces)
        if self.user:
            rest = self._rest.at(ctx.signals)
            self.user.apply(given, (ctx.t,), (x, v, self.stiffness, self.damping,
                                              np.broadcast_to(rest, x.shape)))
        out = np.zeros(self.nb_forces)
        axis_law(self._data(), ctx.signals, x, v, given, out)
        return out

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        """The type's kernel; with user functions (Python path) the same kernels around
        the functions' values."""
        if not self.user:
            return super().evaluate(frames, ctx)
        direction, x, v = self.kinematics(frames)
        shape = (self.nb_forces, 2, 3)
        force, torque = np.zeros(shape), np.zeros(shape)
        line_wrench(self.law(x, v, ctx), direction, torque if self._torque else force)
        return force, torque

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, Array]:
        """The type's ``outputs`` kernel; with user functions (Python path) the scalar of
        their elements from the functions (:meth:`law`)."""
        values = super().output_values(frames, ctx)
        if self.user:
            x, v, scalar = self.outputs
            values[scalar] = self.law(values[x], values[v], ctx)
        return values


@kernel(allocates=True)
def axis_law(data: tuple[Any, ...], signals: Array, x: Array, v: Array, given: Array,
             out: Array) -> None:
    """The scalars of the elements into ``out (n,)``: ``stiffness (x - rest) + damping (v
    - velocity_offset) + preload``, or ``given`` for an element with a user function; 0
    for an inactive element."""
    stiffness, damping, active = data[1], data[2], data[3]
    user = data[10]
    n = len(out)
    rest = np.empty(n)
    offset = np.empty(n)
    preload = np.empty(n)
    signal_values(data[4], data[5], signals, 0, rest)
    signal_values(data[6], data[7], signals, 0, offset)
    signal_values(data[8], data[9], signals, 0, preload)
    for i in range(n):
        if user[i]:
            f = given[i]
        else:
            f = (stiffness[i] * (x[i] - rest[i]) + damping[i] * (v[i] - offset[i])
                 + preload[i])
        out[i] = f if active[i] else 0.0


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
    description = ("spring-damper along an axis fixed to the master node (stiffness, damping, "
                   "rest, preload), e.g. a linear PTO or a fender")
    examples = [
        {"stiffness": 2.0e3, "damping": 20.0},
        {"stiffness": 100.0, "damping": 1.0, "axis": [0.0, 1.0, 1.0], "rest": 0.3,
         "velocity_offset": 0.1, "preload": {"type": "sine", "amplitude": 5.0, "omega": 2.0}},
        {"stiffness": 10.0, "active": False},
        {"stiffness": 50.0, "user_function": cubic_spring},
    ]

    def kinematics(self, frames: Sequence[NodeFrames]) -> tuple[Array, Array, Array]:
        """World axis ``n (n, 3)``, displacement ``dx`` and velocity ``dv`` ``(n,)``
        (:func:`linear_kinematics`)."""
        n = self.nb_forces
        direction, dx, dv = np.zeros((n, 3)), np.zeros(n), np.zeros(n)
        linear_kinematics(self._data(), frames[0], frames[1], direction, dx, dv)
        return direction, dx, dv


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
    description = ("torsional spring-damper on the twist about an axis of the master node, "
                   "unwrapped over many turns, e.g. a rotary PTO")
    memory = ("angle_ref",)  # the unwrapping reference: saved with checkpoints
    _torque = True
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

    def kernel_data(self) -> tuple[Any, ...]:
        """The connector's arrays, then ``angle_ref`` itself (the kernels update it in
        place)."""
        return (*super().kernel_data(), self.angle_ref)

    def kinematics(self, frames: Sequence[NodeFrames]) -> tuple[Array, Array, Array]:
        """Torque direction ``g`` (world, ``(n, 3)``), unwrapped twist angle and its rate
        ``(n,)``; the angle becomes the new unwrapping reference (in place,
        :func:`twist_kinematics`)."""
        n = self.nb_forces
        direction, angle, rate = np.zeros((n, 3)), np.zeros(n), np.zeros(n)
        twist_kinematics(self._data(), frames[0], frames[1], direction, angle, rate)
        return direction, angle, rate


@kernel
def linear_kinematics(data: tuple[Any, ...], master: NodeFrames, slave: NodeFrames,
                      direction: Array, dx: Array, dv: Array) -> None:
    """:func:`axis_translation` with the type's axes (``data[0]``)."""
    axis_translation(data[0], master, slave, direction, dx, dv)


@kernel
def axis_translation(axis: Array, master: NodeFrames, slave: NodeFrames, direction: Array,
                     dx: Array, dv: Array) -> None:
    """``n = R_m axis`` into ``direction (n, 3)``, ``dx = n . (p_s - p_m)`` and ``dv = n .
    (v_s - v_m)`` into ``(n,)``, for unit ``axis (n, 3)`` in master-node axes."""
    for i in range(len(dx)):
        rotate3(master.R[i], axis[i], direction[i])
        e = direction[i]
        dx[i] = (e[0] * (slave.p[i, 0] - master.p[i, 0]) + e[1] * (slave.p[i, 1] - master.p[i, 1])
                 + e[2] * (slave.p[i, 2] - master.p[i, 2]))
        dv[i] = (e[0] * (slave.v[i, 0] - master.v[i, 0]) + e[1] * (slave.v[i, 1] - master.v[i, 1])
                 + e[2] * (slave.v[i, 2] - master.v[i, 2]))


@kernel(allocates=True)
def linear_state(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], signals: Array
                 ) -> tuple[Array, Array, Array, Array]:
    """``linear_spring_damper``: each force's direction ``n``, ``dx``, ``dv`` and ``f``
    (:func:`axis_law`)."""
    n = len(data[0])
    direction = np.empty((n, 3))
    dx = np.empty(n)
    dv = np.empty(n)
    f = np.empty(n)
    linear_kinematics(data, frames[0], frames[1], direction, dx, dv)
    axis_law(data, signals, dx, dv, dx, f)
    return direction, dx, dv, f


@kernel
def linear_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                    signals: Array, gravity: Array, states: Array, static: bool, force: Array,
                    torque: Array) -> None:
    """``linear_spring_damper``: ``+f n`` on the master node, ``-f n`` on the slave."""
    direction, _, _, f = linear_state(data, frames, signals)
    line_wrench(f, direction, force)


@kernel
def linear_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                   signals: Array, gravity: Array, states: Array, out: Array) -> None:
    """``linear_spring_damper``'s outputs into ``out (n, 3)``: ``dx``, ``dv`` and ``f``
    (``dx`` in place of ``f`` for an element with a user function: on the Python path,
    :meth:`_AxisSpringDamper.output_values` puts the function's value there)."""
    _, dx, dv, f = linear_state(data, frames, signals)
    for i in range(len(out)):
        out[i, 0] = dx[i]
        out[i, 1] = dv[i]
        out[i, 2] = f[i]


@kernel
def twist_kinematics(data: tuple[Any, ...], master: NodeFrames, slave: NodeFrames,
                     direction: Array, angle: Array, rate: Array) -> None:
    """:func:`axis_twist` with the type's axes (``data[0]``) and unwrapping reference
    (``data[11]``)."""
    axis_twist(data[0], data[11], master, slave, direction, angle, rate)


@kernel
def axis_twist(axis: Array, angle_ref: Array, master: NodeFrames, slave: NodeFrames,
               direction: Array, angle: Array, rate: Array) -> None:
    """Torque direction ``R_m g`` into ``direction (n, 3)``, the unwrapped twist about
    unit ``axis (n, 3)`` (master-node axes) and its rate ``g . Omega`` into ``(n,)``
    (module doc); ``angle_ref`` becomes the twist, in place."""
    q = scratch(4)
    qa = scratch(3)
    g = scratch(3)
    dw = scratch(3)
    omega = scratch(3)
    for i in range(len(angle)):
        quat_conj_mul(master.q[i], slave.q[i], q)
        a = axis[i]
        c = q[0]
        sn = a[0] * q[1] + a[1] * q[2] + a[2] * q[3]
        unwrapped = unwrap(2.0 * math.atan2(sn, c), angle_ref[i])
        angle_ref[i] = unwrapped
        angle[i] = unwrapped
        norm2 = max(c * c + sn * sn, 1e-300)
        cross3(q[1:4], a, qa)
        for j in range(3):
            g[j] = (c * (c * a[j] + qa[j]) + sn * q[1 + j]) / norm2
            dw[j] = slave.w[i, j] - master.w[i, j]
        rotate_back3(master.R[i], dw, omega)
        rate[i] = dot3(g, omega)
        rotate3(master.R[i], g, direction[i])


@kernel(allocates=True)
def torsional_state(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], signals: Array,
                    angle_ref: Array) -> tuple[Array, Array, Array, Array]:
    """``torsional_spring_damper``: each torque's direction ``R_m g``, the twist
    unwrapped from ``angle_ref`` (which becomes it), its rate and ``tau``
    (:func:`axis_law`)."""
    n = len(data[0])
    direction = np.empty((n, 3))
    angle = np.empty(n)
    rate = np.empty(n)
    tau = np.empty(n)
    axis_twist(data[0], angle_ref, frames[0], frames[1], direction, angle, rate)
    axis_law(data, signals, angle, rate, angle, tau)
    return direction, angle, rate, tau


@kernel
def torsional_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                       signals: Array, gravity: Array, states: Array, static: bool,
                       force: Array, torque: Array) -> None:
    """``torsional_spring_damper``: ``+tau R_m g`` on the master, ``-tau R_m g`` on the
    slave; the twist becomes the unwrapping reference (``data[11]``)."""
    direction, _, _, tau = torsional_state(data, frames, signals, data[11])
    line_wrench(tau, direction, torque)


@kernel(allocates=True)
def torsional_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                      signals: Array, gravity: Array, states: Array, out: Array) -> None:
    """``torsional_spring_damper``'s outputs into ``out (n, 3)``: the unwrapped twist,
    its rate and ``tau`` (as :func:`linear_outputs` for a user function), the
    unwrapping reference left as it is (unwrapped against a copy)."""
    _, angle, rate, tau = torsional_state(data, frames, signals, data[11].copy())
    for i in range(len(out)):
        out[i, 0] = angle[i]
        out[i, 1] = rate[i]
        out[i, 2] = tau[i]


LinearSpringDamper.kernels = ForceKernels(linear_evaluate, outputs=linear_outputs)
TorsionalSpringDamper.kernels = ForceKernels(torsional_evaluate, outputs=torsional_outputs)
