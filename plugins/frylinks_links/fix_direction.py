"""Solfec's ``fix_direction``: no motion of a point along a direction."""

from __future__ import annotations

from frylinks.links import AxisLink


class FixDirectionLink(AxisLink):
    """The slave node's origin stays in the master node's xy plane (``d_z = 0``); it moves
    freely in that plane and turns freely.

    Solfec's FIX_DIRECTION with the master node's z axis as the fixed direction: one
    constraint row on ``tz``, so the reaction is normal to the plane (its tangential
    components are zero by construction).
    """

    name = "fix_direction"
    free_dofs = ("tx", "ty", "rx", "ry", "rz")
    description = ("point on a plane: the slave node stays in the master node's xy plane, "
                   "sliding and turning freely in it (5 DOFs: all but tz)")
