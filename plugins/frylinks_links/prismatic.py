"""The ``prismatic`` link: translation along the master node's z axis only."""

from __future__ import annotations

from frylinks.links import AxisLink


class PrismaticLink(AxisLink):
    """Translation along the master node's z axis only."""

    name = "prismatic"
    free_dofs = ("tz",)
    description = ("translational joint: one sliding DOF along the master node's z axis (tz), e.g. "
                   "a heaving point absorber's PTO")
