"""Built-in force types, registered like any third-party plugin."""

from __future__ import annotations

from frylinks.hookspecs import hookimpl

from .drivetrain import DRIVETRAIN_TYPES
from .exudyn import LinearSpringDamper, TorsionalSpringDamper
from .frames import Force, Torque
from .line import Damper, Spring, SpringDamperParallel
from .pto import PTO_TYPES
from .solfec import UserSpring
from .world import WorldForce, WorldTorque


@hookimpl
def frylinks_force_types() -> list[type]:
    return [WorldForce, WorldTorque, Force, Torque, LinearSpringDamper, TorsionalSpringDamper,
            Spring, Damper, SpringDamperParallel, UserSpring, *PTO_TYPES, *DRIVETRAIN_TYPES]
