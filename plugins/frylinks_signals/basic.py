"""Signals ``constant``, ``sine``, ``ramp`` and ``linear_spline``, each a compiled kernel
over all instances of its type (``kernel(data, t, order, out)``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.jit import kernel
from frylinks.params import Param
from frylinks.signals import SignalType

from .interpolation import SeriesSignal

Array = np.ndarray


def _column(instances: Sequence[Mapping[str, Any]], key: str) -> np.ndarray:
    return np.array([float(p[key]) for p in instances])


class Constant(SignalType):
    """``value`` at all times."""

    name = "constant"
    parameters = {"value": Param("float", "1", "the value (in the units of its use)")}
    description = "a constant value"

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(instances)
        self.value = _column(instances, "value")

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.value,)


class Sine(SignalType):
    """``offset + amplitude * sin(omega * t + phase)``."""

    name = "sine"
    parameters = {
        "amplitude": Param("float", "1", "amplitude (in the units of its use)"),
        "omega": Param("float", "rad s-1", "angular frequency"),
        "phase_deg": Param("float", "degree", "phase at t = 0", default=0.0),
        "offset": Param("float", "1", "mean value", default=0.0),
    }
    description = "sine wave: offset + amplitude sin(omega t + phase)"

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(instances)
        self.amplitude = _column(instances, "amplitude")
        self.omega = _column(instances, "omega")
        self.phase = np.radians(_column(instances, "phase_deg"))
        self.offset = _column(instances, "offset")

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.amplitude, self.omega, self.phase, self.offset)


class Ramp(SignalType):
    """``initial`` until ``t_start``, linear to ``final`` at ``t_end``, then ``final``."""

    name = "ramp"
    parameters = {
        "t_end": Param("float", "s", "time the ramp reaches its final value"),
        "t_start": Param("float", "s", "time the ramp starts", default=0.0),
        "initial": Param("float", "1", "value before t_start", default=0.0),
        "final": Param("float", "1", "value after t_end", default=1.0),
    }
    description = "linear ramp from an initial value (at t_start) to a final value (at t_end)"

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        if params["t_end"] <= params["t_start"]:
            raise ModelError(f"must be after t_start = {params['t_start']:g} s, "
                             f"got {params['t_end']:g} s", "t_end")

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(instances)
        self.t0 = _column(instances, "t_start")
        self.t1 = _column(instances, "t_end")
        self.v0 = _column(instances, "initial")
        self.v1 = _column(instances, "final")

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.t0, self.t1, self.v0, self.v1)


class LinearSpline(SeriesSignal):
    """Linear interpolation of ``points`` ``[[t, value], ...]``; held constant outside."""

    name = "linear_spline"
    parameters = {"points": Param("points", "1", "[time, value] pairs, times increasing")}
    description = "piecewise-linear curve through (time, value) points"

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(instances)
        points = [np.asarray(p["points"], dtype=float).reshape(-1, 2) for p in instances]
        self.series = [(pts[:, 0], pts[:, 1]) for pts in points]


@kernel
def constant_kernel(data: tuple[Any, ...], t: float, order: int, out: Array) -> None:
    value = data[0]
    for i in range(len(value)):
        out[i] = value[i] if order == 0 else 0.0


@kernel
def sine_kernel(data: tuple[Any, ...], t: float, order: int, out: Array) -> None:
    amplitude, omega, phase, offset = data
    for i in range(len(amplitude)):
        arg = omega[i] * t + phase[i]
        if order == 0:
            out[i] = offset[i] + amplitude[i] * math.sin(arg)
        elif order == 1:
            out[i] = amplitude[i] * omega[i] * math.cos(arg)
        else:
            out[i] = -amplitude[i] * (omega[i] * omega[i]) * math.sin(arg)


@kernel
def ramp_kernel(data: tuple[Any, ...], t: float, order: int, out: Array) -> None:
    t0, t1, v0, v1 = data
    for i in range(len(t0)):
        slope = (v1[i] - v0[i]) / (t1[i] - t0[i])
        if order == 0:  # v0 + slope * clip(t - t0, 0, t1 - t0)
            out[i] = v0[i] + slope * min(max(t - t0[i], 0.0), t1[i] - t0[i])
        elif order == 1 and t0[i] <= t < t1[i]:
            out[i] = slope
        else:
            out[i] = 0.0


Constant.kernel = constant_kernel
Sine.kernel = sine_kernel
Ramp.kernel = ramp_kernel
