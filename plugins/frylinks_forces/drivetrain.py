"""Drivetrain power take-offs: from the motion of a link to electrical power.

A drivetrain acts, as the control-law PTOs of :mod:`frylinks_forces.pto`, along (or
about) a unit ``axis`` of its master node between two nodes, with the same position
``x`` and velocity ``v`` (the slave node's displacement along the axis and its rate,
or its unwrapped twist about it) and the same sign: its force ``f`` is positive
resisting the motion, ``+f n`` on the master node and ``-f n`` on the slave. What it
adds is what happens behind the piston or the rotor, with its own states integrated
with the bodies, and the power at each stage: mechanical (``f v``, taken out of the
motion), electrical (delivered), and every loss by kind.

``pto_generator``, ``rotary_pto_generator``: a direct-drive generator
    Force constant ``k`` (= its back-EMF constant; N/A, or N m/A for a rotary one), coil
    resistance ``R_c`` and an iron-loss drag ``c_fe v`` (eddy currents and hysteresis,
    proportional to speed). Either a **resistive load** ``R_L``: the current
    ``i = k v / (R_c + R_L)``, the electromagnetic force ``k i``; or a **controlled**
    force ``f_em = K (x - x0) + B v`` (a power converter imposing the current
    ``i = f_em / k``: passive with ``K = 0``, reactive otherwise, drawing power from
    the grid where ``f_em v < i^2 R_c``). The force on the bodies is ``f_em + c_fe v``;
    the electrical power ``P_e = f_em v - i^2 R_c`` (``= i^2 R_L`` with the load), the
    copper loss ``i^2 R_c``, the iron loss ``c_fe v^2``. Inductance is left out: the
    current follows the speed (its time constant ``L / R``, milliseconds, is far below a
    wave's).

``pto_hydraulic``: a hydraulic circuit, as WEC-Sim's PTO-Sim "non-compressible fluid
hydraulic" model
    A double-acting piston (area ``A`` on both sides) pumps through a rectifying bridge
    of check valves from a low-pressure accumulator into a high-pressure one; a
    hydraulic motor between them turns a generator. Its states per element: the fluid
    volumes ``V_h``, ``V_l`` in the accumulators and the motor speed ``w``.

    * Check valves: ideal (no pressure drop), their switch smoothed over the piston
      velocity ``v_s``: the chamber being compressed is at ``p_h``, the other at
      ``p_l``, so the force is ``f = A (p_h - p_l) tanh(v / v_s)`` and the flow pumped
      ``Q = A v tanh(v / v_s)`` (``A |v|`` beyond ``v_s``); ``f v = (p_h - p_l) Q``
      exactly (no loss hidden in the smoothing).
    * Accumulators (gas at a polytropic law, index ``n`` = 1.4 as in PTO-Sim): the gas
      of volume ``V_0 - V`` at ``p = p_pre (V_0 / (V_0 - V))^n``, ``p_pre`` the
      precharge; ``V_h' = Q - Q_m``, ``V_l' = Q_m - Q``.
    * Motor: displacement ``D`` [m^3/rad] at a fraction ``alpha`` of it (PTO-Sim's
      ``alpha``), flow ``Q_m = alpha D w``, torque ``T_m = eta_m alpha D (p_h - p_l)``
      (mechanical efficiency ``eta_m``; loss ``(1 - eta_m) alpha D (p_h - p_l) w``).
    * Motor and generator shaft: ``J w' = T_m - T_g - b_f w``, the generator's torque
      ``T_g = b_g w`` (PTO-Sim's ``bg``, ``bf``), its electrical power
      ``eta_g T_g w`` (a constant efficiency in place of PTO-Sim's lookup table).

    The energy balance is exact: ``f v = P_e + losses + d/dt (E_gas + J w^2 / 2)``, the
    gas energies ``p_pre V_0^n (V_0 - V)^(1 - n) / (n - 1)``. A rectified hydraulic
    circuit cannot push the piston: no control law is combined with it (a latching
    valve is the ``latch`` link on the same DOF).

``end_stop``, ``rotary_end_stop``: a stroke's limits
    Beyond ``upper`` (``x > upper``) or below ``lower``, a unilateral spring-damper
    contact (WEC-Sim's ``hardStops``): ``f = max(0, k d + c d')`` for a penetration
    ``d`` (it pushes, never pulls: the contact opens when the damper would pull). Its
    outputs give the impact force and the penetration.

Each drivetrain integrates its mechanical and electrical energies (and, for the
hydraulic one, its losses) as states, with their values at ``mean_power_from`` for the
mean powers after a ramp, as the control-law PTOs do.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from frylinks.errors import ModelError
from frylinks.forces import ForceKernels, ForceType, Output
from frylinks.jit import kernel
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec

from .common import check_axis, line_wrench, unit_axes
from .pto import pto_motion

Array = np.ndarray

#: Columns of a generator's coefficients: force constant, coil resistance, load
#: resistance (0: controlled), control stiffness, rest, control damping, iron loss.
KF, RC, RL, KC, X0, BC, CFE = range(7)
#: Columns of a hydraulic PTO's coefficients: piston area, smoothing velocity, the two
#: accumulators' volumes and precharges, polytropic index, motor displacement and
#: fraction, motor efficiency, shaft inertia, friction, generator damping and efficiency.
(AREA, VS, V0H, PPH, V0L, PPL, NPOLY, DISP, ALPHA, ETAM, INERTIA, FRIC, BG,
 ETAG) = range(14)
#: Columns of an end stop's coefficients: lower and upper limits, stiffness, damping.
LOWER, UPPER, KSTOP, CSTOP = range(4)


def _nodes(rotary: bool) -> dict[str, Param]:
    return {
        "master": Param("node", "", "node whose axes carry the axis (e.g. the link's "
                        "master node)"),
        "slave": Param("node", "", "the other node (e.g. the link's slave node)"),
        "axis": Param("vector", "1", f"axis {'about' if rotary else 'along'} which it "
                      "acts, in master-node axes (normalised)", default=(0.0, 0.0, 1.0)),
    }


MEAN_FROM = Param("float", "s", "start of the window of the mean powers (e.g. the end of "
                  "the wave ramp)", default=0.0, minimum=0.0)


def _kinematics(out: dict[str, Output], name: str, rotary: bool) -> None:
    length, force = ("rad", "N m") if rotary else ("m", "N")
    out[f"{name}_position"] = Output(length, "position: the slave node's "
                                     + ("twist about" if rotary else "displacement along")
                                     + " the axis")
    out[f"{name}_velocity"] = Output(f"{length} s-1", "velocity along the axis")
    out[f"{name}_force"] = Output(force, ("torque" if rotary else "force")
                                  + " on the motion, positive resisting it")


class DrivetrainType(ForceType):
    """Base of the drivetrains (module doc): the axis kinematics, unwrapping memory."""

    attachments = ("master", "slave")
    rotary: ClassVar[bool] = False
    #: the unwrapping reference of a rotary type, updated at accepted states
    memory = ("angle_ref",)
    examples: ClassVar[list[dict[str, Any]]] = []

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        check_axis(params)

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.axis = unit_axes(instances)
        #: twist at the previous evaluation (NaN before the first): unwrapping reference
        self.angle_ref = np.full(self.nb_forces, np.nan)
        self.mean_from = np.array([p.get("mean_power_from", 0.0) for p in instances],
                                  dtype=float)

    def linearisable(self) -> str | None:
        return None


@kernel(allocates=True)
def axis_accept(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                signals: Array, states: Array) -> None:
    """At an accepted state: a rotary type's twist becomes its unwrapping reference
    (evaluations unwrap from a copy of it, so that each is a function of the state
    alone, however often it is called)."""
    n = len(data[2])
    d = np.empty((n, 3))
    x = np.empty(n)
    v = np.empty(n)
    pto_motion(data, data[4], frames[0], frames[1], d, x, v)


# ----------------------------------------------------------------------------- generator

class GeneratorPTO(DrivetrainType):
    """Direct-drive generator (module doc)."""

    name = "pto_generator"
    description = ("direct-drive linear generator along an axis between two nodes: force "
                   "constant, coil resistance, a resistive load or a controlled force")

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        super().validate(params)
        load, damping = params["load_resistance"], params["damping"]
        if (load is None) == (damping is None):
            raise ModelError("give either 'load_resistance' (a passive resistive load) or "
                             "'damping' (a controlled force K (x - x0) + B v), not "
                             + ("both" if load is not None else "neither"),
                             "load_resistance")
        if load is not None and params["stiffness"] != 0.0:
            raise ModelError("a resistive load has no stiffness: give 'damping' (and "
                             "'stiffness') for a controlled, reactive generator",
                             "stiffness")

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        rows = []
        for p in instances:
            load = p["load_resistance"]
            rows.append([p["force_constant"], p["coil_resistance"],
                         0.0 if load is None else load, p["stiffness"], p["rest"],
                         0.0 if p["damping"] is None else p["damping"], p["iron_loss"]])
        self.coeff = np.array(rows, dtype=float).reshape(-1, 7)
        # mechanical and electrical energies, and their values at mean_power_from
        self.nb_states = 4 * self.nb_forces

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.axis, self.coeff, self.mean_from, int(self.rotary), self.angle_ref)


def _generator_parameters(rotary: bool) -> dict[str, Param]:
    length, force = ("rad", "N m") if rotary else ("m", "N")
    damping = "N m s rad-1" if rotary else "N s m-1"
    return {
        **_nodes(rotary),
        "force_constant": Param("float", f"{force} A-1", "force (torque) constant k, equal "
                                "to the back-EMF constant in V s m-1 (V s rad-1)",
                                positive=True),
        "coil_resistance": Param("float", "ohm", "coil (phase) resistance R_c",
                                 minimum=0.0),
        "load_resistance": Param("float", "ohm", "a passive resistive load R_L (or give "
                                 "'damping' for a controlled force)", default=None,
                                 positive=True),
        "damping": Param("float", damping, "controlled force's damping B (a power converter "
                         "imposing f = K (x - x0) + B v)", default=None, minimum=0.0),
        "stiffness": Param("float", "N m rad-1" if rotary else "N m-1",
                           "controlled force's stiffness K, of either sign (reactive "
                           "control)", default=0.0),
        "rest": Param("float", length, "position x0 where the controlled spring force is "
                      "zero", default=0.0),
        "iron_loss": Param("float", damping, "iron-loss drag coefficient c_fe: a loss "
                           "c_fe v^2", default=0.0, minimum=0.0),
        "mean_power_from": MEAN_FROM,
    }


def _generator_outputs(name: str, rotary: bool) -> dict[str, Output]:
    out: dict[str, Output] = {}
    _kinematics(out, name, rotary)
    out[f"{name}_current"] = Output("A", "coil current (the electromagnetic force over the "
                                    "force constant)")
    out[f"{name}_mechanical_power"] = Output("W", "power taken out of the motion, f v",
                                             role="absorbed_power")
    out[f"{name}_electrical_power"] = Output("W", "electrical power delivered (negative: "
                                             "drawn, under reactive control)",
                                             role="electrical_power")
    out[f"{name}_copper_loss"] = Output("W", "copper loss i^2 R_c")
    out[f"{name}_iron_loss"] = Output("W", "iron loss c_fe v^2")
    out[f"{name}_mean_power"] = Output("W", "mean mechanical power since mean_power_from")
    out[f"{name}_mean_electrical_power"] = Output("W", "mean electrical power since "
                                                  "mean_power_from")
    out[f"{name}_efficiency"] = Output("1", "mean electrical over mean mechanical power since "
                                       "mean_power_from (0 before, or with none taken)")
    return out


@kernel
def generator_state(data: tuple[Any, ...], frames: tuple[NodeFrames, ...],
                    angle_ref: Array, direction: Array, x: Array, v: Array, f: Array,
                    current: Array, p_mech: Array, p_elec: Array, copper: Array,
                    iron: Array) -> None:
    """Each generator's direction, position, velocity, force on the motion, current and
    powers (module doc), the twist of a rotary one unwrapped from ``angle_ref``."""
    c = data[1]
    pto_motion(data, angle_ref, frames[0], frames[1], direction, x, v)
    for i in range(len(x)):
        k = c[i, KF]
        if c[i, RL] > 0.0:
            cur = k * v[i] / (c[i, RC] + c[i, RL])
            em = k * cur
        else:
            em = c[i, KC] * (x[i] - c[i, X0]) + c[i, BC] * v[i]
            cur = em / k
        current[i] = cur
        f[i] = em + c[i, CFE] * v[i]
        copper[i] = cur * cur * c[i, RC]
        iron[i] = c[i, CFE] * v[i] * v[i]
        p_mech[i] = f[i] * v[i]
        p_elec[i] = em * v[i] - copper[i]


@kernel(allocates=True)
def generator_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                       signals: Array, gravity: Array, states: Array, static: bool,
                       force: Array, torque: Array) -> None:
    n = len(data[2])
    d = np.empty((n, 3))
    x, v, f, i, pm, pe, cu, fe = (np.empty(n), np.empty(n), np.empty(n), np.empty(n),
                                  np.empty(n), np.empty(n), np.empty(n), np.empty(n))
    generator_state(data, frames, data[4].copy(), d, x, v, f, i, pm, pe, cu, fe)
    line_wrench(f, d, torque if data[3] else force)


@kernel(allocates=True)
def generator_state_derivative(data: tuple[Any, ...], frames: tuple[NodeFrames, ...],
                               t: float, signals: Array, states: Array, out: Array) -> None:
    """The mechanical and electrical energies; their values at the window's start."""
    n = len(data[2])
    d = np.empty((n, 3))
    x, v, f, i, pm, pe, cu, fe = (np.empty(n), np.empty(n), np.empty(n), np.empty(n),
                                  np.empty(n), np.empty(n), np.empty(n), np.empty(n))
    generator_state(data, frames, data[4].copy(), d, x, v, f, i, pm, pe, cu, fe)
    for k in range(n):
        before = t < data[2][k]
        out[k] = pm[k]
        out[n + k] = pe[k]
        out[2 * n + k] = pm[k] if before else 0.0
        out[3 * n + k] = pe[k] if before else 0.0


@kernel(allocates=True)
def generator_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                      signals: Array, gravity: Array, states: Array, out: Array) -> None:
    n = len(data[2])
    d = np.empty((n, 3))
    x, v, f, i, pm, pe, cu, fe = (np.empty(n), np.empty(n), np.empty(n), np.empty(n),
                                  np.empty(n), np.empty(n), np.empty(n), np.empty(n))
    generator_state(data, frames, data[4].copy(), d, x, v, f, i, pm, pe, cu, fe)
    for k in range(n):
        span = t - data[2][k]
        out[k, 0] = x[k]
        out[k, 1] = v[k]
        out[k, 2] = f[k]
        out[k, 3] = i[k]
        out[k, 4] = pm[k]
        out[k, 5] = pe[k]
        out[k, 6] = cu[k]
        out[k, 7] = fe[k]
        taken = states[k] - states[2 * n + k]
        given = states[n + k] - states[3 * n + k]
        out[k, 8] = taken / span if span > 0 else 0.0
        out[k, 9] = given / span if span > 0 else 0.0
        out[k, 10] = given / taken if span > 0 and taken != 0.0 else 0.0


GeneratorPTO.parameters = _generator_parameters(False)
GeneratorPTO.outputs = _generator_outputs("pto_generator", False)
GeneratorPTO.examples = [
    {"force_constant": 200.0, "coil_resistance": 0.5, "load_resistance": 2.0},
    {"force_constant": 50.0, "coil_resistance": 0.1, "damping": 1.0e3, "stiffness": -100.0,
     "iron_loss": 5.0, "mean_power_from": 1.0}]
GeneratorPTO.kernels = ForceKernels(generator_evaluate, generator_state_derivative,
                                    accept=axis_accept, outputs=generator_outputs)


class RotaryGeneratorPTO(GeneratorPTO):
    """Direct-drive rotary generator (module doc)."""

    name = "rotary_pto_generator"
    rotary = True
    description = ("direct-drive rotary generator about an axis between two nodes: torque "
                   "constant, coil resistance, a resistive load or a controlled torque")
    parameters = _generator_parameters(True)
    outputs = _generator_outputs("rotary_pto_generator", True)


# ----------------------------------------------------------------------------- hydraulic

class HydraulicPTO(DrivetrainType):
    """Hydraulic PTO after PTO-Sim (module doc)."""

    name = "pto_hydraulic"
    description = ("hydraulic PTO along an axis between two nodes: piston, check valves, "
                   "high- and low-pressure accumulators, motor and generator (PTO-Sim)")

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        super().validate(params)
        for side in ("high", "low"):
            p0, pre = params[f"{side}_pressure"], params[f"{side}_precharge"]
            if not p0 >= pre:
                raise ModelError(f"the initial pressure {p0:g} Pa is below the precharge "
                                 f"{pre:g} Pa: the accumulator would hold no fluid; give a "
                                 f"pressure >= the precharge", f"{side}_pressure")
        if not params["high_pressure"] >= params["low_pressure"]:
            raise ModelError("the high-pressure accumulator starts below the low-pressure "
                             "one", "high_pressure")
        for key in ("motor_efficiency", "generator_efficiency", "motor_fraction"):
            if not 0.0 < params[key] <= 1.0:
                raise ModelError(f"expected a number in (0, 1], got {params[key]:g}", key)
        if not params["polytropic_index"] >= 1.0:
            raise ModelError("expected at least 1 (1: isothermal, 1.4: adiabatic air or "
                             "nitrogen)", "polytropic_index")

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.coeff = np.array([[p["piston_area"], p["smoothing_velocity"], p["high_volume"],
                                p["high_precharge"], p["low_volume"], p["low_precharge"],
                                p["polytropic_index"], p["motor_displacement"],
                                p["motor_fraction"], p["motor_efficiency"], p["inertia"],
                                p["friction"], p["generator_damping"],
                                p["generator_efficiency"]] for p in instances],
                              dtype=float).reshape(-1, 14)
        self._start = [(p["high_pressure"], p["low_pressure"], p["initial_speed"])
                       for p in instances]
        # V_h, V_l, w; mechanical, electrical and lost energies; the first two at
        # mean_power_from
        self.nb_states = 8 * self.nb_forces

    def initial_states(self) -> Array:
        n = self.nb_forces
        z = np.zeros(8 * n)
        c = self.coeff
        for i, (ph, pl, w) in enumerate(self._start):
            z[i] = fluid_volume(c[i, V0H], c[i, PPH], c[i, NPOLY], ph)
            z[n + i] = fluid_volume(c[i, V0L], c[i, PPL], c[i, NPOLY], pl)
            z[2 * n + i] = w
        return z

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.axis, self.coeff, self.mean_from, int(self.rotary), self.angle_ref)


def fluid_volume(total: float, precharge: float, index: float, pressure: float) -> float:
    """The fluid volume in an accumulator of ``total`` volume at ``pressure``: its gas,
    precharged to ``precharge`` when empty, compressed polytropically [m^3]."""
    return total * (1.0 - (precharge / pressure) ** (1.0 / index))


@kernel
def gas_energy(total: float, precharge: float, index: float, fluid: float) -> float:
    """Energy stored in an accumulator's gas with ``fluid`` in it, from when it held
    none [J]: the work ``int p dV`` of its polytropic (``index`` 1: isothermal)
    compression."""
    ratio = total / (total - fluid)
    if index == 1.0:
        return precharge * total * math.log(ratio)
    return precharge * total / (index - 1.0) * (ratio ** (index - 1.0) - 1.0)


@kernel
def accumulator_pressure(total: float, precharge: float, index: float, fluid: float
                         ) -> float:
    """The pressure of an accumulator holding ``fluid`` (its gas at the precharge when
    it holds none, and below if it is sucked dry)."""
    return precharge * (total / (total - fluid)) ** index


def _hydraulic_parameters() -> dict[str, Param]:
    return {
        **_nodes(False),
        "piston_area": Param("float", "m2", "piston area A on each side (PTO-Sim's "
                             "pistonNCF.topA = botA)", positive=True),
        "smoothing_velocity": Param("float", "m s-1", "velocity v_s over which the check "
                                    "valves switch", default=0.01, positive=True),
        "high_volume": Param("float", "m3", "high-pressure accumulator's volume V_0 "
                             "(PTO-Sim's accumulator(1).VI0)", positive=True),
        "high_precharge": Param("float", "Pa", "its gas precharge pressure (pIprecharge)",
                                positive=True),
        "high_pressure": Param("float", "Pa", "its pressure at the start", positive=True),
        "low_volume": Param("float", "m3", "low-pressure accumulator's volume "
                            "(accumulator(2).VI0)", positive=True),
        "low_precharge": Param("float", "Pa", "its gas precharge pressure", positive=True),
        "low_pressure": Param("float", "Pa", "its pressure at the start", positive=True),
        "polytropic_index": Param("float", "1", "the gas law's index n (p V^n constant)",
                                  default=1.4),
        "motor_displacement": Param("float", "m3 rad-1", "hydraulic motor's displacement D "
                                    "(hydraulicMotor.D)", positive=True),
        "motor_fraction": Param("float", "1", "fraction of the displacement in use "
                                "(hydraulicMotor.alpha)", default=1.0),
        "motor_efficiency": Param("float", "1", "motor's mechanical efficiency eta_m",
                                  default=1.0),
        "inertia": Param("float", "kg m2", "moment of inertia of motor and generator "
                         "(hydraulicMotor.J)", positive=True),
        "friction": Param("float", "N m s rad-1", "shaft friction b_f (hydraulicMotor.bf)",
                          default=0.0, minimum=0.0),
        "generator_damping": Param("float", "N m s rad-1", "generator torque per speed b_g "
                                   "(hydraulicMotor.bg)", positive=True),
        "generator_efficiency": Param("float", "1", "generator's efficiency eta_g "
                                      "(rotaryGenerator.driveEff)", default=1.0),
        "initial_speed": Param("float", "rad s-1", "shaft speed at the start "
                               "(hydraulicMotor.angVelInit)", default=0.0),
        "mean_power_from": MEAN_FROM,
    }


#: The hydraulic outputs copied into the shared absorbed_power and electrical_power.
ROLES = {"mechanical_power": "absorbed_power", "electrical_power": "electrical_power"}


def _hydraulic_outputs(name: str) -> dict[str, Output]:
    out: dict[str, Output] = {}
    _kinematics(out, name, False)
    for key, units, text in (
            ("flow", "m3 s-1", "flow pumped into the high-pressure accumulator, A v tanh(v/v_s)"),
            ("high_pressure", "Pa", "high-pressure accumulator's pressure"),
            ("low_pressure", "Pa", "low-pressure accumulator's pressure"),
            ("high_fluid", "m3", "fluid volume in the high-pressure accumulator"),
            ("low_fluid", "m3", "fluid volume in the low-pressure accumulator"),
            ("motor_speed", "rad s-1", "speed of the motor and generator shaft"),
            ("motor_torque", "N m", "motor torque eta_m alpha D (p_h - p_l)"),
            ("mechanical_power", "W", "power taken out of the motion, f v"),
            ("motor_power", "W", "hydraulic power through the motor, (p_h - p_l) Q_m"),
            ("electrical_power", "W", "electrical power delivered, eta_g b_g w^2"),
            ("motor_loss", "W", "motor loss (1 - eta_m) (p_h - p_l) Q_m"),
            ("friction_loss", "W", "shaft friction loss b_f w^2"),
            ("generator_loss", "W", "generator loss (1 - eta_g) b_g w^2"),
            ("stored_energy", "J", "energy stored: both accumulators' gas (from empty) and "
                                   "the shaft's kinetic energy"),
            ("energy", "J", "mechanical energy taken since t = 0"),
            ("electrical_energy", "J", "electrical energy delivered since t = 0"),
            ("loss_energy", "J", "energy lost since t = 0 (motor, friction, generator)"),
            ("mean_power", "W", "mean mechanical power since mean_power_from"),
            ("mean_electrical_power", "W", "mean electrical power since mean_power_from"),
            ("efficiency", "1", "mean electrical over mean mechanical power since "
                                "mean_power_from (0 before, or with none taken)")):
        out[f"{name}_{key}"] = Output(units, text, role=ROLES.get(key, ""))
    return out



@kernel(allocates=True)
def hydraulic_state(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], states: Array,
                    direction: Array, x: Array, v: Array, values: Array) -> None:
    """Each hydraulic PTO's direction, position and velocity, and its values ``(n, 13)``:
    force, flow, p_h, p_l, motor flow, motor torque, generator torque, mechanical,
    motor and electrical powers, motor, friction and generator losses."""
    c = data[1]
    n = len(x)
    pto_motion(data, data[4].copy(), frames[0], frames[1], direction, x, v)
    for i in range(n):
        ph = accumulator_pressure(c[i, V0H], c[i, PPH], c[i, NPOLY], states[i])
        pl = accumulator_pressure(c[i, V0L], c[i, PPL], c[i, NPOLY], states[n + i])
        w = states[2 * n + i]
        dp = ph - pl
        s = math.tanh(v[i] / c[i, VS])
        area = c[i, AREA]
        disp = c[i, ALPHA] * c[i, DISP]
        qm = disp * w
        tm = c[i, ETAM] * disp * dp
        tg = c[i, BG] * w
        values[i, 0] = area * dp * s
        values[i, 1] = area * v[i] * s
        values[i, 2] = ph
        values[i, 3] = pl
        values[i, 4] = qm
        values[i, 5] = tm
        values[i, 6] = tg
        values[i, 7] = values[i, 0] * v[i]
        values[i, 8] = dp * qm
        values[i, 9] = c[i, ETAG] * tg * w
        values[i, 10] = (1.0 - c[i, ETAM]) * dp * qm
        values[i, 11] = c[i, FRIC] * w * w
        values[i, 12] = (1.0 - c[i, ETAG]) * tg * w


@kernel(allocates=True)
def hydraulic_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                       signals: Array, gravity: Array, states: Array, static: bool,
                       force: Array, torque: Array) -> None:
    n = len(data[2])
    d = np.empty((n, 3))
    x = np.empty(n)
    v = np.empty(n)
    values = np.empty((n, 13))
    hydraulic_state(data, frames, states, d, x, v, values)
    f = np.empty(n)
    for i in range(n):
        f[i] = 0.0 if static else values[i, 0]  # (in statics the valves hold no force)
    line_wrench(f, d, force)


@kernel(allocates=True)
def hydraulic_state_derivative(data: tuple[Any, ...], frames: tuple[NodeFrames, ...],
                               t: float, signals: Array, states: Array, out: Array) -> None:
    """``V_h' = Q - Q_m``, ``V_l' = Q_m - Q``, ``J w' = T_m - T_g - b_f w``; the
    mechanical, electrical and lost energies; the first two until ``mean_power_from``."""
    c = data[1]
    n = len(data[2])
    d = np.empty((n, 3))
    x = np.empty(n)
    v = np.empty(n)
    values = np.empty((n, 13))
    hydraulic_state(data, frames, states, d, x, v, values)
    for i in range(n):
        w = states[2 * n + i]
        before = t < data[2][i]
        out[i] = values[i, 1] - values[i, 4]
        out[n + i] = values[i, 4] - values[i, 1]
        out[2 * n + i] = (values[i, 5] - values[i, 6] - c[i, FRIC] * w) / c[i, INERTIA]
        out[3 * n + i] = values[i, 7]
        out[4 * n + i] = values[i, 9]
        out[5 * n + i] = values[i, 10] + values[i, 11] + values[i, 12]
        out[6 * n + i] = values[i, 7] if before else 0.0
        out[7 * n + i] = values[i, 9] if before else 0.0


@kernel(allocates=True)
def hydraulic_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                      signals: Array, gravity: Array, states: Array, out: Array) -> None:
    c = data[1]
    n = len(data[2])
    d = np.empty((n, 3))
    x = np.empty(n)
    v = np.empty(n)
    values = np.empty((n, 13))
    hydraulic_state(data, frames, states, d, x, v, values)
    for i in range(n):
        span = t - data[2][i]
        w = states[2 * n + i]
        stored = (0.5 * c[i, INERTIA] * w * w
                  + gas_energy(c[i, V0H], c[i, PPH], c[i, NPOLY], states[i])
                  + gas_energy(c[i, V0L], c[i, PPL], c[i, NPOLY], states[n + i]))
        out[i, 0] = x[i]
        out[i, 1] = v[i]
        out[i, 2] = values[i, 0]
        out[i, 3] = values[i, 1]
        out[i, 4] = values[i, 2]
        out[i, 5] = values[i, 3]
        out[i, 6] = states[i]
        out[i, 7] = states[n + i]
        out[i, 8] = w
        out[i, 9] = values[i, 5]
        out[i, 10] = values[i, 7]
        out[i, 11] = values[i, 8]
        out[i, 12] = values[i, 9]
        out[i, 13] = values[i, 10]
        out[i, 14] = values[i, 11]
        out[i, 15] = values[i, 12]
        out[i, 16] = stored
        out[i, 17] = states[3 * n + i]
        out[i, 18] = states[4 * n + i]
        out[i, 19] = states[5 * n + i]
        taken = states[3 * n + i] - states[6 * n + i]
        given = states[4 * n + i] - states[7 * n + i]
        out[i, 20] = taken / span if span > 0 else 0.0
        out[i, 21] = given / span if span > 0 else 0.0
        out[i, 22] = given / taken if span > 0 and taken != 0.0 else 0.0


#: PTO-Sim's RM3 / OSWEC hydraulic example values, scaled down for a small model
HYDRAULIC_EXAMPLE = {
    "piston_area": 0.0378, "high_volume": 8.5, "high_precharge": 1.3e7,
    "high_pressure": 1.45e7, "low_volume": 6.0, "low_precharge": 9.6e6,
    "low_pressure": 1.2e7, "motor_displacement": 7.68e-5, "inertia": 20.0,
    "generator_damping": 3.0, "friction": 0.15}

HydraulicPTO.parameters = _hydraulic_parameters()
HydraulicPTO.outputs = _hydraulic_outputs("pto_hydraulic")
HydraulicPTO.examples = [
    HYDRAULIC_EXAMPLE,
    {**HYDRAULIC_EXAMPLE, "motor_efficiency": 0.9, "generator_efficiency": 0.95,
     "polytropic_index": 1.0, "initial_speed": 20.0, "mean_power_from": 1.0}]
HydraulicPTO.kernels = ForceKernels(hydraulic_evaluate, hydraulic_state_derivative,
                                    outputs=hydraulic_outputs)


# ----------------------------------------------------------------------------- end stop

class EndStop(ForceType):
    """A stroke's limits as unilateral spring-damper contacts (module doc)."""

    name = "end_stop"
    attachments = ("master", "slave")
    rotary: ClassVar[bool] = False
    memory = ("angle_ref",)
    examples: ClassVar[list[dict[str, Any]]] = []
    description = ("end stops of a stroke along an axis between two nodes: a unilateral "
                   "spring-damper contact beyond its limits (WEC-Sim's hardStops)")

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        check_axis(params)
        lower, upper = params["lower"], params["upper"]
        if lower is None and upper is None:
            raise ModelError("give 'lower', 'upper' or both", "upper")
        if lower is not None and upper is not None and not lower < upper:
            raise ModelError(f"the lower limit {lower:g} is not below the upper {upper:g}",
                             "lower")

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        self.axis = unit_axes(instances)
        self.coeff = np.array([[-np.inf if p["lower"] is None else p["lower"],
                                np.inf if p["upper"] is None else p["upper"],
                                p["stiffness"], p["damping"]] for p in instances],
                              dtype=float).reshape(-1, 4)
        self.angle_ref = np.full(self.nb_forces, np.nan)

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.axis, self.coeff, np.zeros(self.nb_forces), int(self.rotary),
                self.angle_ref)


def _stop_parameters(rotary: bool) -> dict[str, Param]:
    length = "rad" if rotary else "m"
    return {
        **_nodes(rotary),
        "lower": Param("float", length, "lower limit of the position (none: no stop "
                       "below)", default=None),
        "upper": Param("float", length, "upper limit (none: no stop above)", default=None),
        "stiffness": Param("float", "N m rad-1" if rotary else "N m-1", "contact stiffness "
                           "k", positive=True),
        "damping": Param("float", "N m s rad-1" if rotary else "N s m-1", "contact damping "
                         "c", default=0.0, minimum=0.0),
    }


def _stop_outputs(name: str, rotary: bool) -> dict[str, Output]:
    out: dict[str, Output] = {}
    _kinematics(out, name, rotary)
    out[f"{name}_penetration"] = Output("rad" if rotary else "m", "how far beyond a limit "
                                        "(0 inside the stroke)")
    out[f"{name}_power"] = Output("W", "power taken out of the motion by the contact")
    return out


@kernel
def stop_state(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], angle_ref: Array,
               direction: Array, x: Array, v: Array, f: Array, depth: Array) -> None:
    """Each stop's direction, position, velocity, contact force (positive resisting the
    motion) and penetration."""
    c = data[1]
    pto_motion(data, angle_ref, frames[0], frames[1], direction, x, v)
    for i in range(len(x)):
        f[i] = 0.0
        depth[i] = 0.0
        above = x[i] - c[i, UPPER]
        below = c[i, LOWER] - x[i]
        if above > 0.0:
            depth[i] = above
            f[i] = max(0.0, c[i, KSTOP] * above + c[i, CSTOP] * v[i])
        elif below > 0.0:
            depth[i] = below
            f[i] = -max(0.0, c[i, KSTOP] * below - c[i, CSTOP] * v[i])


@kernel(allocates=True)
def stop_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                  signals: Array, gravity: Array, states: Array, static: bool,
                  force: Array, torque: Array) -> None:
    n = len(data[2])
    d = np.empty((n, 3))
    x, v, f, depth = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    stop_state(data, frames, data[4].copy(), d, x, v, f, depth)
    line_wrench(f, d, torque if data[3] else force)


@kernel(allocates=True)
def stop_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                 signals: Array, gravity: Array, states: Array, out: Array) -> None:
    n = len(data[2])
    d = np.empty((n, 3))
    x, v, f, depth = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    stop_state(data, frames, data[4].copy(), d, x, v, f, depth)
    for i in range(n):
        out[i, 0] = x[i]
        out[i, 1] = v[i]
        out[i, 2] = f[i]
        out[i, 3] = depth[i]
        out[i, 4] = f[i] * v[i]


EndStop.parameters = _stop_parameters(False)
EndStop.outputs = _stop_outputs("end_stop", False)
EndStop.examples = [{"lower": -0.5, "upper": 0.5, "stiffness": 1.0e5, "damping": 1.0e3},
                    {"upper": 0.02, "stiffness": 1.0e4}]
EndStop.kernels = ForceKernels(stop_evaluate, accept=axis_accept, outputs=stop_outputs)


class RotaryEndStop(EndStop):
    """Angular end stops (module doc)."""

    name = "rotary_end_stop"
    rotary = True
    description = ("end stops of a rotation about an axis between two nodes: a unilateral "
                   "spring-damper contact beyond its angle limits")
    parameters = _stop_parameters(True)
    outputs = _stop_outputs("rotary_end_stop", True)
    examples = [{"lower": -0.6, "upper": 0.6, "stiffness": 1.0e6, "damping": 1.0e4}]


#: Every drivetrain and end-stop type, as registered.
DRIVETRAIN_TYPES = (GeneratorPTO, RotaryGeneratorPTO, HydraulicPTO, EndStop, RotaryEndStop)

__all__ = ["DRIVETRAIN_TYPES", "EndStop", "GeneratorPTO", "HydraulicPTO",
           "RotaryEndStop", "RotaryGeneratorPTO", "accumulator_pressure", "fluid_volume",
           "gas_energy"]
