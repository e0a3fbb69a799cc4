"""The ``revolute`` link: rotation about the master node's z axis only."""

from __future__ import annotations

from frylinks.links import AxisLink


class RevoluteLink(AxisLink):
    """Rotation about the master node's z axis only."""

    name = "revolute"
    free_dofs = ("rz",)
    description = "hinge: one turning DOF about the master node's z axis (rz), e.g. a flap's hinge"
