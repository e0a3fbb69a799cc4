"""The ``fixed`` link: no relative motion between the two nodes."""

from __future__ import annotations

from frylinks.links import AxisLink


class FixedLink(AxisLink):
    """No relative motion between the two nodes."""

    name = "fixed"
    free_dofs = ()
    description = "no relative motion between the two nodes"
