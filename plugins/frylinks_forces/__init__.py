"""Built-in force types, registered like any third-party plugin."""

from __future__ import annotations

from frylinks import hookimpl

from .world import WorldForce, WorldTorque


@hookimpl
def frylinks_force_types() -> list[type]:
    return [WorldForce, WorldTorque]
