"""The ``fixed`` link: no relative motion between the two nodes."""

from __future__ import annotations

from frylinks.links import AxisLink


class FixedLink(AxisLink):
    """No relative motion between the two nodes."""

    name = "fixed"
    free_dofs = ()
    description = ("rigid connection: no relative motion between the two nodes (0 DOFs), e.g. a "
                   "welded or bolted joint")
