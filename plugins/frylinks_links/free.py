"""The ``free`` link: no constraint, but the relative motion is measured and reported."""

from __future__ import annotations

from frylinks.links import AxisLink


class FreeLink(AxisLink):
    """All six DOFs free (no constraint row): the link only reports the slave node's
    displacement and velocity relative to the master node, and may carry a
    spring-damper on any DOF (rotations as the rotation vector)."""

    name = "free"
    free_dofs = ("tx", "ty", "tz", "rx", "ry", "rz")
    description = ("no constraint (6 DOFs): measures the slave node's motion relative to the "
                   "master node, and may carry a spring-damper on any DOF")
