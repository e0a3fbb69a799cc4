"""Signals ``constant``, ``sine``, ``ramp`` and ``linear_spline``, vectorised over instances."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.params import Param
from frylinks.signals import SignalType

from .interpolation import evaluate, interpolated


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

    def evaluate(self, t: float, order: int = 0) -> np.ndarray:
        return self.value if order == 0 else np.zeros_like(self.value)


class Sine(SignalType):
    """``offset + amplitude * sin(omega * t + phase)``."""

    name = "sine"
    parameters = {
        "amplitude": Param("float", "1", "amplitude (in the units of its use)"),
        "omega": Param("float", "rad s-1", "angular frequency"),
        "phase_deg": Param("float", "degree", "phase at t = 0", default=0.0),
        "offset": Param("float", "1", "mean value", default=0.0),
    }
    description = "offset + amplitude sin(omega t + phase)"

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(instances)
        self.amplitude = _column(instances, "amplitude")
        self.omega = _column(instances, "omega")
        self.phase = np.radians(_column(instances, "phase_deg"))
        self.offset = _column(instances, "offset")

    def evaluate(self, t: float, order: int = 0) -> np.ndarray:
        arg = self.omega * t + self.phase
        if order == 0:
            return self.offset + self.amplitude * np.sin(arg)
        if order == 1:
            return self.amplitude * self.omega * np.cos(arg)
        return -self.amplitude * self.omega**2 * np.sin(arg)


class Ramp(SignalType):
    """``initial`` until ``t_start``, linear to ``final`` at ``t_end``, then ``final``."""

    name = "ramp"
    parameters = {
        "t_end": Param("float", "s", "time the ramp reaches its final value"),
        "t_start": Param("float", "s", "time the ramp starts", default=0.0),
        "initial": Param("float", "1", "value before t_start", default=0.0),
        "final": Param("float", "1", "value after t_end", default=1.0),
    }
    description = "linear ramp from initial (at t_start) to final (at t_end)"

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

    def evaluate(self, t: float, order: int = 0) -> np.ndarray:
        slope = (self.v1 - self.v0) / (self.t1 - self.t0)
        inside = (t >= self.t0) & (t < self.t1)
        if order == 0:
            return self.v0 + slope * np.clip(t - self.t0, 0.0, self.t1 - self.t0)
        if order == 1:
            return np.where(inside, slope, 0.0)
        return np.zeros_like(slope)


class LinearSpline(SignalType):
    """Linear interpolation of ``points`` ``[[t, value], ...]``; held constant outside."""

    name = "linear_spline"
    parameters = {"points": Param("points", "1", "[time, value] pairs, times increasing")}
    description = "piecewise-linear signal through (t, value) points (Solfec's driver input)"

    def __init__(self, instances: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(instances)
        points = [np.asarray(p["points"], dtype=float) for p in instances]
        self.curves = interpolated([(pts[:, 0], pts[:, 1]) for pts in points])

    def evaluate(self, t: float, order: int = 0) -> np.ndarray:
        return evaluate(self.curves, t, order)
