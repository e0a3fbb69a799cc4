"""The ``slider_hinge`` link: the slave node slides along the master node's x axis and
turns about its z axis."""

from __future__ import annotations

from typing import Any

from frylinks.links import AxisLink


class SliderHinge(AxisLink):
    """Free translation along the master x axis and rotation about the master z axis.

    An :class:`~frylinks.links.AxisLink` needs nothing but its ``free_dofs``: the other
    four DOFs are locked, the single free rotation is unwrapped over many turns, and a
    ``spring_damper`` on ``tx`` and ``rz`` works as on any built-in link.

    It is a compiled type: it inherits ``AxisLink.kernels``, numba kernels written once
    for every link whose free DOFs are master axes, so a model of compiled types with
    this link runs compiled (``SliderHinge([{}]).compiled()`` is None).
    """

    name = "slider_hinge"
    free_dofs = ("tx", "rz")
    description = "free tx and rz of the master node (a hinge on a slider)"
    #: Parameter sets for frylinks.testing: no parameters, so one empty set.
    examples: list[dict[str, Any]] = [{}]
