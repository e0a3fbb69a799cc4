"""The power take-offs of a model: the one place a WEC engineer reads power.

A PTO is whatever absorbs power from the motion on purpose:

* a link whose spring-damper has a damping (``links.<name>.spring_damper.damping`` not
  all zero): its power is the link's ``link_power``;
* a force element whose type declares an output with the role ``absorbed_power``
  (:class:`frylinks.forces.Output`): the ``pto_*`` dampers and controllers, the
  drivetrains. A drivetrain's output with the role ``electrical_power`` is its
  electrical power.

The results write ``absorbed_power`` and ``electrical_power`` over the dimension ``pto``
(docs/reference/results.md), whichever of these supplies it; ``frylinks rao`` its frequency-domain
counterpart. A link spring with no damping stores and returns energy only: it is no PTO.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from frylinks.engine.model import Model
from frylinks.errors import ModelError

#: The roles a force type's output may have (:attr:`frylinks.forces.Output.role`).
ABSORBED, ELECTRICAL = "absorbed_power", "electrical_power"


@dataclass(frozen=True)
class PTO:
    """One power take-off.

    Attributes
    ----------
    name
        The link's or the force element's name (the ``pto`` coordinate).
    link
        Its position in the model's link order, or -1 for a force element.
    force, block, element
        Its position in the model's force order, its force block and its position in
        the block, or -1 for a link.
    absorbed, electrical
        The names of the force type's outputs with those roles ("" for none; a link's
        absorbed power is ``link_power``).
    """

    name: str
    link: int = -1
    force: int = -1
    block: int = -1
    element: int = -1
    absorbed: str = ""
    electrical: str = ""


def ptos(model: Model) -> list[PTO]:
    """The model's power take-offs, links first, in the model's order.

    Raises
    ------
    ModelError
        If a PTO link and a PTO force element share a name (the ``pto`` coordinate could
        not tell them apart).
    """
    out: list[PTO] = []
    for lb in model.link_blocks:
        if not lb.has_spring:
            continue
        for k, name in enumerate(lb.names):
            if np.any(lb.B[k]):
                out.append(PTO(name, link=int(lb.index[k])))
    for j, fb in enumerate(model.force_blocks):
        roles = {o.role: name for name, o in fb.kind.outputs.items() if o.role}
        if ABSORBED not in roles:
            continue
        for k, name in enumerate(fb.names):
            out.append(PTO(name, force=int(fb.index[k]), block=j, element=k,
                           absorbed=roles[ABSORBED],
                           electrical=roles.get(ELECTRICAL, "")))
    names = [p.name for p in out]
    for name in names:
        if names.count(name) > 1:
            raise ModelError(f"the link '{name}' and the force '{name}' are both power "
                             "take-offs: give them different names (they are told apart "
                             "by name along the results' pto dimension)")
    return out


def pto_powers(units: list[PTO], values: Mapping[str, np.ndarray]
               ) -> dict[str, np.ndarray]:
    """``absorbed_power`` and ``electrical_power`` ``(..., npto)`` [W] of the PTOs
    ``units`` (:func:`ptos`) from the result variables ``values`` (``link_power (...,
    nl)`` and the force types' scalar outputs ``(..., n)``, any leading axes): empty
    without a PTO; no ``electrical_power`` when none of them has one, else NaN for those
    without."""
    if not units:
        return {}
    lead = np.shape(values["link_power"])[:-1]
    absorbed = np.empty((*lead, len(units)))
    electrical = np.full((*lead, len(units)), np.nan)
    for i, p in enumerate(units):
        if p.link >= 0:
            absorbed[..., i] = values["link_power"][..., p.link]
        else:
            absorbed[..., i] = values[p.absorbed][..., p.element]
            if p.electrical:
                electrical[..., i] = values[p.electrical][..., p.element]
    out = {ABSORBED: absorbed}
    if any(p.electrical for p in units):
        out[ELECTRICAL] = electrical
    return out
