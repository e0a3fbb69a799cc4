"""Solfec's ``fix_point``: a point of the slave body held at a point of the master body."""

from __future__ import annotations

from frylinks.links import AxisLink


class FixPointLink(AxisLink):
    """The slave node's origin stays at the master node's origin; rotations are free.

    Solfec's FIX_POINT (the constraint velocity ``U = 0`` at the point). The geometry is
    that of a ``spherical`` link, named for Solfec: with the master node on ground it
    fixes the point in space.
    """

    name = "fix_point"
    free_dofs = ("rx", "ry", "rz")
    description = ("pinned point: the slave node is held at the master node (e.g. a point fixed in "
                   "space) and turns freely about it (3 DOFs: rx, ry, rz)")
