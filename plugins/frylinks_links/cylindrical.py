"""The ``cylindrical`` link: translation along and rotation about the master node's z axis."""

from __future__ import annotations

from frylinks.links import AxisLink


class CylindricalLink(AxisLink):
    """Translation along and rotation about the master node's z axis."""

    name = "cylindrical"
    free_dofs = ("tz", "rz")
    description = ("cylindrical joint: the slave node slides along and turns about the master "
                   "node's z axis (2 DOFs: tz, rz)")
