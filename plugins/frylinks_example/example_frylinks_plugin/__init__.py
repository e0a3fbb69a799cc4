"""A minimal third-party frylinks plugin: the ``slider_hinge`` link and the ``linear_drag``
force.

The entry point ``example = "example_frylinks_plugin"`` in the group ``frylinks`` (see
``pyproject.toml``) points at this module; frylinks calls its hooks once per registry and
then evaluates the returned classes in blocks.
"""

from __future__ import annotations

from frylinks import hookimpl

from .linear_drag import LinearDrag
from .slider_hinge import SliderHinge

__all__ = ["LinearDrag", "SliderHinge", "frylinks_force_types", "frylinks_link_types"]


@hookimpl
def frylinks_link_types() -> list[type]:
    """The link types of this plugin."""
    return [SliderHinge]


@hookimpl
def frylinks_force_types() -> list[type]:
    """The force types of this plugin."""
    return [LinearDrag]
