"""The ``spherical`` link: the nodes coincide; rotations are free."""

from __future__ import annotations

from frylinks.links import AxisLink


class SphericalLink(AxisLink):
    """The nodes coincide; rotations are free."""

    name = "spherical"
    free_dofs = ("rx", "ry", "rz")
    description = ("ball joint: the nodes coincide and the slave turns freely about them (3 DOFs: "
                   "rx, ry, rz)")
