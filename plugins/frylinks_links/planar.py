"""The ``planar`` link: the slave node moves in the master node's xy plane and turns
about its z axis."""

from __future__ import annotations

from frylinks.links import AxisLink


class PlanarLink(AxisLink):
    """Translations along the master node's x and y axes and rotation about its z axis;
    ``tz``, ``rx`` and ``ry`` are locked."""

    name = "planar"
    free_dofs = ("tx", "ty", "rz")
    description = ("planar joint: the slave node slides in the master node's xy plane and turns "
                   "about its z axis (3 DOFs: tx, ty, rz)")
