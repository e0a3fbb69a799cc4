"""Built-in link types (FRyDoM, Arboris and Solfec catalogues), registered like any
third-party plugin."""

from __future__ import annotations

from frylinks.hookspecs import hookimpl

from .cylindrical import CylindricalLink
from .drivers import PrescribedAcceleration, PrescribedDisplacement, PrescribedVelocity
from .fix_direction import FixDirectionLink
from .fix_point import FixPointLink
from .fixed import FixedLink
from .free import FreeLink
from .latch import LatchLink
from .planar import PlanarLink
from .prismatic import PrismaticLink
from .revolute import RevoluteLink
from .rigid_link import RigidLink
from .screw import ScrewLink
from .spherical import SphericalLink
from .universal import UniversalLink


@hookimpl
def frylinks_link_types() -> list[type]:
    return [FixedLink, RevoluteLink, PrismaticLink, CylindricalLink, SphericalLink, ScrewLink,
            UniversalLink, PlanarLink, FreeLink, FixPointLink, FixDirectionLink, RigidLink,
            PrescribedDisplacement, PrescribedVelocity, PrescribedAcceleration, LatchLink]
