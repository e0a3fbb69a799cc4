"""Built-in link types (FRyDoM catalogue), registered like any third-party plugin."""

from __future__ import annotations

from frylinks import hookimpl

from .cylindrical import CylindricalLink
from .fixed import FixedLink
from .prismatic import PrismaticLink
from .revolute import RevoluteLink
from .screw import ScrewLink
from .spherical import SphericalLink


@hookimpl
def frylinks_link_types() -> list[type]:
    return [FixedLink, RevoluteLink, PrismaticLink, CylindricalLink, SphericalLink, ScrewLink]
