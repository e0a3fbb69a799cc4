"""The ``screw`` link: rotation about the master node's z axis with a coupled translation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.links import AxisLink
from frylinks.params import Param
from frylinks.signals import SignalSpec


class ScrewLink(AxisLink):
    """Rotation about the master z axis; translation ``tz = pitch * rz / (2 pi)``.

    The one free DOF is the unwrapped angle ``rz``; a spring-damper on it acts as a
    torque (its force along z follows through the coupling).
    """

    name = "screw"
    free_dofs = ("rz",)
    parameters = {"pitch": Param("float", "m", "advance along z per turn (m per turn)")}
    description = ("screw joint: the slave node turns about the master node's z axis and advances "
                   "`pitch` metres per turn along it (1 DOF), e.g. a jack")
    examples = [{"pitch": 0.5}, {"pitch": -0.2}, {"pitch": 2.0}]

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec] | None = None) -> None:
        self._pitch = np.array([p["pitch"] for p in instances], dtype=float)
        super().__init__(instances, signal_specs)

    def coupling(self) -> np.ndarray:
        c = np.zeros((len(self._pitch), 3))
        c[:, 2] = self._pitch / (2.0 * np.pi)
        return c
