"""Power take-off (PTO) types: the force a wave-energy converter's PTO applies along one
DOF between two nodes, by its control law.

A PTO acts along (``pto_*``) or about (``rotary_pto_*``) a unit ``axis`` of its master
node, usually on the free DOF of the link that joins the same two nodes (a prismatic
link's slide, a revolute link's hinge). Its **position** ``x`` and **velocity** ``v`` are
those of Exudyn's connectors (:mod:`frylinks_forces.exudyn`, the same kernels): the
slave node's displacement along the axis, ``x = n . (p_s - p_m)``, ``v = n . (v_s -
v_m)``, or the unwrapped twist of the slave node about the axis and its exact rate. The
control law gives the **PTO force** ``f`` [N] or torque [N m], positive resisting the
motion: ``+f n`` acts on the master node, ``-f n`` on the slave.

Control laws, each a type (a controller of a third party is a type too: subclass
:class:`PTOType` and give its kernels):

* ``*_damper`` (passive): ``f = B v``;
* ``*_reactive`` (reactive control): ``f = K (x - x0) + B v``, ``K`` of either sign (a
  negative stiffness cancels part of the hydrostatic one, as complex-conjugate control
  asks below resonance);
* ``*_coulomb`` (a hydraulic or friction PTO of constant force): ``f = F tanh(v / v_s) +
  B v``: the sign change of the constant force is smoothed over ``|v| ~ v_s``, so the
  force is continuous at zero velocity and an implicit step does not chatter;
* ``*_declutch`` (declutching control): ``f = B v`` while the PTO is clutched, ``f = 0``
  while it is declutched: it declutches when the velocity changes sign and stays free
  for ``declutch_time``, then clutches again (it starts clutched). The switch is decided
  once per accepted step, at its end (:meth:`frylinks.forces.ForceType.accept`), so it
  works in irregular waves and holds for a whole step on either integrator;
* any of them with ``function``: ``f = function(t, x, v)``, a Python function on numpy
  arrays replacing the law (Python API only; the model takes the engine's Python path).

The **absorbed power** ``P`` is the power the PTO takes out of the motion for good, not
the power a spring stores and gives back: ``P = B v^2`` for the damper and the reactive
PTO (``K (x - x0) v`` averages to zero), ``F tanh(v / v_s) v + B v^2`` for the Coulomb
PTO, ``f v`` for a function. Two states integrate it with the bodies: the absorbed
**energy** ``E = int_0^t P dt`` [J] and its value at ``mean_power_from``, so that the
**mean power** over ``[mean_power_from, t]`` is ``(E(t) - E(t_0)) / (t - t_0)`` exactly
(0 before ``t_0``), as a WEC engineer reads it after the ramp.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from frylinks.errors import ModelError
from frylinks.forces import ForceContext, ForceKernels, ForceType, Output
from frylinks.jit import kernel
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec

from .common import UserFunctions, check_axis, line_wrench, unit_axes
from .exudyn import axis_translation, axis_twist

Array = np.ndarray


def _params(rotary: bool, law: dict[str, Param]) -> dict[str, Param]:
    """The parameters of a PTO type: nodes, axis, its law's, the mean-power window."""
    return {
        "master": Param("node", "", "node whose axes carry the PTO axis (e.g. the link's "
                        "master node)"),
        "slave": Param("node", "", "the other node (e.g. the link's slave node)"),
        "axis": Param("vector", "1", f"axis {'about' if rotary else 'along'} which the PTO "
                      "acts, in master-node axes (normalised)", default=(0.0, 0.0, 1.0)),
        **law,
        "mean_power_from": Param("float", "s", "start of the window of the mean absorbed "
                                 "power (e.g. the end of the wave ramp)", default=0.0,
                                 minimum=0.0),
        "function": Param("callable", "", "f(t, position, velocity) -> PTO "
                          f"{'torque' if rotary else 'force'} on numpy arrays, positive "
                          "resisting the motion, replacing the law (Python API only)",
                          default=None),
    }


class PTOType(ForceType):
    """Base of the PTO types (module doc): kinematics, wrench, absorbed energy, outputs.

    A subclass sets ``name``, ``parameters`` (see :func:`_params`), ``rotary`` and
    ``law`` (the coefficients of ``f = K (x - x0) + B v + F tanh(v / v_s)`` it uses,
    from its parameters)."""

    attachments = ("master", "slave")
    #: The PTO turns about its axis (a torque), else slides along it (a force).
    rotary: ClassVar[bool] = False
    #: the unwrapping reference of a rotary PTO; the clutch's state
    memory = ("angle_ref", "clutch")

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        check_axis(params)
        if "smoothing_velocity" in params and not params["smoothing_velocity"] > 0:
            raise ModelError("expected a velocity > 0", "smoothing_velocity")

    @classmethod
    def coefficients(cls, p: Mapping[str, Any]
                     ) -> tuple[float, float, float, float, float, float]:
        """``(K, x0, B, F, v_s, T_d)`` of one element's law (``T_d``: the declutching
        time, 0 for a PTO that never declutches)."""
        return 0.0, 0.0, 0.0, 0.0, 1.0, 0.0

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        n = self.nb_forces
        self.axis = unit_axes(instances)
        self.law = np.array([self.coefficients(p) for p in instances],
                            dtype=float).reshape(n, 6)
        self.mean_from = np.array([p["mean_power_from"] for p in instances], dtype=float)
        #: twist at the previous evaluation (NaN before the first): unwrapping reference
        self.angle_ref = np.full(n, np.nan)
        #: clutched (1) or not (0), when it last switched [s], the velocity at the last
        #: accepted step (NaN before the first)
        self.clutch = np.tile([1.0, 0.0, np.nan], (n, 1))
        self.nb_states = 2 * n  # absorbed energy, and its value at mean_power_from
        self.user = UserFunctions([p["function"] for p in instances], self.name)

    def linearisable(self) -> str | None:
        # the accept kernel switches only a declutching PTO; the states are the absorbed
        # energy, which the force does not read
        if np.any(self.law[:, 5] > 0):
            return ("a declutching PTO (declutch_time > 0) switches its force at each "
                    "velocity reversal")
        return None

    def kernel_data(self) -> tuple[Any, ...]:
        """``(axis, law, mean_from, rotary, angle_ref, clutch)``: unit axes ``(n, 3)``,
        the law's coefficients ``(n, 6)`` (``K, x0, B, F, v_s, T_d``), the mean-power
        windows' starts, 1 for a rotary PTO, the unwrapping reference and the clutch's
        state ``(n, 3)`` (both updated in place)."""
        return (self.axis, self.law, self.mean_from, int(self.rotary), self.angle_ref,
                self.clutch)

    # -- Python methods (the kernels' values; the Python path of a user function)

    def kinematics(self, frames: Sequence[NodeFrames]) -> tuple[Array, Array, Array]:
        """World direction of the force ``(n, 3)``, position and velocity ``(n,)``."""
        n = self.nb_forces
        direction, x, v = np.zeros((n, 3)), np.zeros(n), np.zeros(n)
        pto_kinematics(self._data(), frames[0], frames[1], direction, x, v)
        return direction, x, v

    def compiled(self) -> str | None:
        if self.user:
            return f"force '{self.name}': a control law is a Python function"
        return super().compiled()

    def force_and_power(self, t: float, x: Array, v: Array) -> tuple[Array, Array]:
        """PTO force (or torque) and absorbed power of every element ``(n,)``: the
        type's law (:func:`pto_law`), or a user function's force and ``f v``."""
        f, p = np.zeros(self.nb_forces), np.zeros(self.nb_forces)
        pto_law(self._data(), x, v, f, p)
        if self.user:
            given = np.zeros(self.nb_forces)
            self.user.apply(given, (t,), (x, v))
            mine = self.user.flags(self.nb_forces).astype(bool)
            f[mine] = given[mine]
            p[mine] = (given * v)[mine]
        return f, p

    # -- the Python path of a block with a user function (the kernels' otherwise)

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        if not self.user:
            return super().evaluate(frames, ctx)
        direction, x, v = self.kinematics(frames)
        shape = (self.nb_forces, 2, 3)
        force, torque = np.zeros(shape), np.zeros(shape)
        line_wrench(self.force_and_power(ctx.t, x, v)[0], direction,
                    torque if self.rotary else force)
        return force, torque

    def state_derivative(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> Array:
        if not self.user:
            return super().state_derivative(frames, ctx)
        _, x, v = self.kinematics(frames)
        p = self.force_and_power(ctx.t, x, v)[1]
        return np.concatenate([p, np.where(ctx.t < self.mean_from, p, 0.0)])

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, Array]:
        """The type's ``outputs`` kernel; with user functions the force and power of
        their elements from the functions (:meth:`force_and_power`)."""
        values = super().output_values(frames, ctx)
        if self.user:
            prefix = self.name
            x = np.ascontiguousarray(values[f"{prefix}_position"])
            v = np.ascontiguousarray(values[f"{prefix}_velocity"])
            values[f"{prefix}_force"], values[f"{prefix}_power"] = \
                self.force_and_power(ctx.t, x, v)
        return values


def _outputs(name: str, rotary: bool) -> dict[str, Output]:
    length, force = ("rad", "N m") if rotary else ("m", "N")
    return {
        f"{name}_position": Output(length, "PTO position: the slave node's "
                                   + ("twist about" if rotary else "displacement along")
                                   + " the axis"),
        f"{name}_velocity": Output(f"{length} s-1", "PTO velocity"),
        f"{name}_force": Output(force, "PTO " + ("torque" if rotary else "force")
                                + ", positive resisting the motion"),
        f"{name}_power": Output("W", "power absorbed by the PTO (without the power its "
                                "spring stores and returns)", role="absorbed_power"),
        f"{name}_energy": Output("J", "energy absorbed since t = 0"),
        f"{name}_mean_power": Output("W", "mean absorbed power since mean_power_from (0 "
                                     "before it)"),
    }


@kernel
def pto_kinematics(data: tuple[Any, ...], master: NodeFrames, slave: NodeFrames,
                   direction: Array, x: Array, v: Array) -> None:
    """The PTOs' force directions ``(n, 3)``, positions and velocities ``(n,)`` (a
    rotary PTO's twist unwrapped from, and kept as, its reference ``data[4]``)."""
    pto_motion(data, data[4], master, slave, direction, x, v)


@kernel
def pto_motion(data: tuple[Any, ...], angle_ref: Array, master: NodeFrames,
               slave: NodeFrames, direction: Array, x: Array, v: Array) -> None:
    """:func:`pto_kinematics` with a rotary PTO's twist unwrapped from ``angle_ref``
    (which becomes it)."""
    if data[3]:
        axis_twist(data[0], angle_ref, master, slave, direction, x, v)
    else:
        axis_translation(data[0], master, slave, direction, x, v)


@kernel(allocates=True)
def pto_state(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], angle_ref: Array
              ) -> tuple[Array, Array, Array, Array, Array]:
    """Each PTO's force direction, position, velocity, force and absorbed power
    (:func:`pto_motion`, :func:`pto_law`)."""
    n = len(data[2])
    direction = np.empty((n, 3))
    x = np.empty(n)
    v = np.empty(n)
    f = np.empty(n)
    p = np.empty(n)
    pto_motion(data, angle_ref, frames[0], frames[1], direction, x, v)
    pto_law(data, x, v, f, p)
    return direction, x, v, f, p


@kernel
def pto_law(data: tuple[Any, ...], x: Array, v: Array, f: Array, p: Array) -> None:
    """``f = K (x - x0) + c (B v + F tanh(v / v_s))`` and the absorbed power ``c (B v^2 +
    F tanh(v / v_s) v)`` of every element into ``f`` and ``p`` (``c``: 1 while the PTO is
    clutched, 0 while declutched)."""
    law, clutch = data[1], data[5]
    for i in range(len(x)):
        k, x0, b, fc, vs = law[i, 0], law[i, 1], law[i, 2], law[i, 3], law[i, 4]
        dissipative = clutch[i, 0] * (b * v[i] + fc * math.tanh(v[i] / vs))
        f[i] = k * (x[i] - x0) + dissipative
        p[i] = dissipative * v[i]


@kernel
def pto_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                 signals: Array, gravity: Array, states: Array, static: bool, force: Array,
                 torque: Array) -> None:
    """``+f n`` on the master node, ``-f n`` on the slave (a torque for a rotary PTO)."""
    direction, _, _, f, _ = pto_state(data, frames, data[4])
    line_wrench(f, direction, torque if data[3] else force)


@kernel
def pto_state_derivative(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                         signals: Array, states: Array, out: Array) -> None:
    """``E' = P``; the energy at the window's start grows until ``mean_power_from``."""
    n = len(data[2])
    p = pto_state(data, frames, data[4])[4]
    for i in range(n):
        out[i] = p[i]
        out[n + i] = p[i] if t < data[2][i] else 0.0


@kernel(allocates=True)
def pto_accept(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
               signals: Array, states: Array) -> None:
    """At an accepted state: a declutching PTO (``T_d > 0``) declutches where its
    velocity changed sign since the last accepted step, and clutches again
    ``T_d`` after it declutched."""
    law, clutch = data[1], data[5]
    n = len(law)
    direction = np.empty((n, 3))
    x = np.empty(n)
    v = np.empty(n)
    pto_kinematics(data, frames[0], frames[1], direction, x, v)
    for i in range(n):
        held = law[i, 5]
        before = clutch[i, 2]
        if held > 0.0 and not math.isnan(before):
            if clutch[i, 0] == 1.0 and before * v[i] < 0.0:
                clutch[i, 0] = 0.0
                clutch[i, 1] = t
            elif clutch[i, 0] == 0.0 and t - clutch[i, 1] >= held * (1.0 - 1e-9):
                clutch[i, 0] = 1.0
                clutch[i, 1] = t
        clutch[i, 2] = v[i]


@kernel(allocates=True)
def pto_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                signals: Array, gravity: Array, states: Array, out: Array) -> None:
    """The outputs into ``out (n, 6)``: position, velocity, force, absorbed power and
    energy, and the mean power ``(E - E(t_0)) / (t - t_0)`` (0 until ``t_0``); a rotary
    PTO's unwrapping reference is left as it is (unwrapped against a copy)."""
    mean_from = data[2]
    n = len(mean_from)
    _, x, v, f, p = pto_state(data, frames, data[4].copy())
    for i in range(n):
        energy = states[i]
        span = t - mean_from[i]
        out[i, 0] = x[i]
        out[i, 1] = v[i]
        out[i, 2] = f[i]
        out[i, 3] = p[i]
        out[i, 4] = energy
        out[i, 5] = (energy - states[n + i]) / span if span > 0 else 0.0


PTOType.kernels = ForceKernels(pto_evaluate, pto_state_derivative, accept=pto_accept,
                               outputs=pto_outputs)

_DAMPING = {False: "N s m-1", True: "N m s rad-1"}
_STIFFNESS = {False: "N m-1", True: "N m rad-1"}


def hydraulic_law(t: float, x: Array, v: Array) -> Array:
    """An example control law: a damper with a constant pressure drop,
    ``100 v + 10 sign(v)``."""
    return 100.0 * v + 10.0 * np.sign(v)


def _law_parameters(law: str, rotary: bool) -> dict[str, Param]:
    """The parameters of a control law, in the units of a sliding or a rotary PTO."""
    length, force = ("rad", "N m") if rotary else ("m", "N")
    damping = Param("float", _DAMPING[rotary], "PTO damping B", minimum=0.0)
    if law == "damper":
        return {"damping": damping}
    if law == "reactive":
        return {"stiffness": Param("float", _STIFFNESS[rotary], "PTO stiffness K, of either "
                                   "sign (negative: reactive power fed back)"),
                "damping": damping,
                "rest": Param("float", length, "position x0 where the spring force is zero",
                              default=0.0)}
    if law == "declutch":
        return {"damping": damping,
                "declutch_time": Param("float", "s", "how long the PTO stays declutched "
                                       "(free) after its velocity changes sign",
                                       positive=True)}
    return {"force": Param("float", force, "constant PTO force (torque) F opposing the "
                           "motion", minimum=0.0),
            "smoothing_velocity": Param("float", f"{length} s-1", "velocity v_s over which "
                                        "the force changes sign", default=0.01,
                                        positive=True),
            "damping": Param("float", _DAMPING[rotary], "added linear damping B", default=0.0,
                             minimum=0.0)}


def _coefficients(law: str) -> Any:
    """``coefficients(p)`` of a law: ``(K, x0, B, F, v_s)`` from its parameters."""
    def coefficients(cls: type[PTOType], p: Mapping[str, Any]
                     ) -> tuple[float, float, float, float, float, float]:
        return (float(p.get("stiffness", 0.0)), float(p.get("rest", 0.0)),
                float(p["damping"]), float(p.get("force", 0.0)),
                float(p.get("smoothing_velocity", 1.0)), float(p.get("declutch_time", 0.0)))
    return classmethod(coefficients)


#: Each control law: its formula, what ``frylinks plugins`` says of it, its examples.
LAWS: dict[str, tuple[str, str, list[dict[str, Any]]]] = {
    "damper": ("f = B v", "a passive damper", [
        {"damping": 1.0e3}, {"damping": 50.0, "mean_power_from": 2},
        {"damping": 0.0, "function": hydraulic_law}]),
    "reactive": ("f = K (x - x0) + B v, K of either sign",
                 "reactive control (spring, possibly negative, and damper)", [
                     {"stiffness": -200.0, "damping": 1.0e3},
                     {"stiffness": 500.0, "damping": 20.0, "rest": 0.1}]),
    "coulomb": ("f = F tanh(v / v_s) + B v",
                "constant (Coulomb) force, smoothed at zero velocity", [
                    {"force": 100.0},
                    {"force": 20.0, "smoothing_velocity": 0.05, "damping": 5.0}]),
    "declutch": ("f = B v while clutched, 0 for declutch_time after the velocity changes "
                 "sign", "declutching control (a damper freed at each velocity reversal)", [
                     {"damping": 1.0e3, "declutch_time": 0.5},
                     {"damping": 40.0, "declutch_time": 0.05}]),
}


def _pto_type(law: str, rotary: bool) -> type[PTOType]:
    """The PTO type of ``law`` (a key of :data:`LAWS`), sliding or rotary, under a
    module-level name (``PTODamper``, ``RotaryPTODamper``...: pickling, docs)."""
    formula, what, examples = LAWS[law]
    name = f"{'rotary_pto' if rotary else 'pto'}_{law}"
    motion = "turning about" if rotary else "sliding along"
    cls = type(f"{'RotaryPTO' if rotary else 'PTO'}{law.capitalize()}", (PTOType,), {
        "__doc__": f"PTO {motion} an axis: {formula}.",
        "__module__": __name__,
        "name": name,
        "rotary": rotary,
        "parameters": _params(rotary, _law_parameters(law, rotary)),
        "outputs": _outputs(name, rotary),
        "description": f"power take-off {motion} an axis between two nodes: {what}",
        "examples": examples,
        "coefficients": _coefficients(law),
    })
    return cls


#: Every PTO type, as registered.
PTO_TYPES = tuple(_pto_type(law, rotary) for rotary in (False, True) for law in LAWS)
(PTODamper, PTOReactive, PTOCoulomb, PTODeclutch, RotaryPTODamper, RotaryPTOReactive,
 RotaryPTOCoulomb, RotaryPTODeclutch) = PTO_TYPES
