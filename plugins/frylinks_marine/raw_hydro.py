"""What the readers of hydrodynamic files share: their arrays over all the bodies of a
dataset (:class:`RawHydro`), made into one body's database (:func:`single_body`) or all
of them (:func:`all_bodies`), the infinite-frequency added mass completed and the
coefficients moved to the COGs.

The readers, :mod:`frylinks_marine.capytaine_reader` and :mod:`frylinks_marine.bemio`,
each fill a :class:`RawHydro` in frylinks' conventions (:mod:`frylinks_marine.hydrodb`)
and leave the rest to this module, so both formats give the same databases.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from frylinks.errors import ModelError

from .hydrodb import (
    DOF_NAMES,
    HEADING_TOL,
    DatasetBodyError,
    HydroDatabase,
    MultiBodyDatabase,
    body_choice_message,
    checked_array,
)
from .radiation import RadiationStateSpace, ogilvie_added_mass_inf
from .rigid_transforms import block_transform, moved_by
from .second_order import SecondOrder

Array = np.ndarray


@dataclass
class RawHydro:
    """A reader's arrays over all the bodies of a dataset, in frylinks' DOF order
    (``6 N``), before the infinite-frequency added mass is completed and the
    coefficients are moved to the COGs (:func:`single_body`, :func:`all_bodies`).

    ``bodies`` holds None for the one body of a dataset that does not name it;
    ``aliases`` maps other accepted names (BEMIO's group ``body2``, WAMIT's body number
    ``2``) to a body's index. ``added_mass_zero``, ``excitation_absent``,
    ``second_order`` and ``froude_krylov`` are those of
    :class:`~frylinks_marine.hydrodb.HydroDatabase`, over all the bodies.
    """

    bodies: list[str | None]
    omega: Array
    added_mass: Array
    radiation_damping: Array
    excitation: Array
    headings: Array
    added_mass_inf: Array | None
    hydrostatic_stiffness: Array | None
    inertia: Array | None
    rho: float
    g: float
    water_depth: float
    rotation_centers: list[Array | None]
    centers_of_mass: list[Array | None]
    dofs: list[tuple[str, ...]]
    where: str
    kernel_time: Array | None = None
    kernel: Array | None = None
    state_space: RadiationStateSpace | None = None
    aliases: dict[str, int] = field(default_factory=dict)
    added_mass_zero: Array | None = None
    excitation_absent: str | None = None
    second_order: SecondOrder | None = None
    froude_krylov: Array | None = None

    def chosen(self, body: str | None) -> int:
        """The index of ``body`` (None: the only one)."""
        named = [b for b in self.bodies if b is not None]
        if body is None:
            if len(self.bodies) > 1:
                raise DatasetBodyError(body_choice_message(self.where, named, None, "body="),
                                       "body", named, self.where)
            return 0
        if body in self.bodies:
            return self.bodies.index(body)
        if body in self.aliases:
            return self.aliases[body]
        if self.bodies == [None]:  # one body the dataset does not name: any name is it
            return 0
        raise DatasetBodyError(body_choice_message(self.where, named, body, "body="), "body",
                               named, self.where, body)


def single_body(raw: RawHydro, body: str | None, cog: Any) -> HydroDatabase:
    """One body's :class:`~frylinks_marine.hydrodb.HydroDatabase` from a reader's arrays
    (its diagonal block), about ``cog`` (default: the dataset's centre of mass, if
    any)."""
    b = raw.chosen(body)
    s = slice(6 * b, 6 * b + 6)

    def block(m: Array | None) -> Array | None:
        return None if m is None else m[..., s, s]

    added_mass, damping = raw.added_mass[:, s, s], raw.radiation_damping[:, s, s]
    a_inf = block(raw.added_mass_inf)
    if a_inf is not None and np.isfinite(a_inf).all():
        source = "dataset"
    else:
        a_inf, source = ogilvie_added_mass_inf(raw.omega, added_mass, damping), "ogilvie"
    state_space = None
    if raw.state_space is not None:
        state_space = raw.state_space.restricted(np.arange(6 * b, 6 * b + 6))
    db = HydroDatabase(
        omega=raw.omega, added_mass=added_mass, radiation_damping=damping,
        excitation=raw.excitation[..., s], headings=raw.headings, added_mass_inf=a_inf,
        added_mass_inf_source=source, hydrostatic_stiffness=block(raw.hydrostatic_stiffness),
        inertia=block(raw.inertia), rho=raw.rho, g=raw.g, water_depth=raw.water_depth,
        rotation_center=raw.rotation_centers[b], center_of_mass=raw.centers_of_mass[b],
        dofs=raw.dofs[b], source=raw.where, body=raw.bodies[b],
        kernel_time=raw.kernel_time, kernel=block(raw.kernel), state_space=state_space,
        added_mass_zero=block(raw.added_mass_zero), excitation_absent=raw.excitation_absent,
        second_order=None if raw.second_order is None else raw.second_order.restricted(s),
        froude_krylov=None if raw.froude_krylov is None else raw.froude_krylov[..., s])
    target = db.center_of_mass if cog is None else checked_array(cog, (3,), "cog")
    if target is None:
        return db
    if db.rotation_center is None:
        if any(d in db.dofs for d in DOF_NAMES[3:]):
            warnings.warn(f"{db.label}: the dataset does not record its rotation centre; "
                          "the rotational coefficients are taken as about the COG",
                          UserWarning, stacklevel=3)
        return replace(db, rotation_center=target, center_of_mass=target)
    center = db.rotation_center
    db = replace(db, center_of_mass=target)
    if np.allclose(center, target, rtol=0.0, atol=1e-9):
        return db
    return db.referred_to(target)


def all_bodies(raw: RawHydro, cog: Mapping[str, Any] | None = None) -> MultiBodyDatabase:
    """Every body's coefficients, cross-body terms included, each body's about its COG
    (``cog[name]``, default the dataset's centre of mass of that body)."""
    names = [b if b is not None else f"body{i + 1}" for i, b in enumerate(raw.bodies)]
    cog = dict(cog or {})
    unknown = sorted(set(cog) - set(names))
    if unknown:
        raise ModelError(f"{raw.where}: no body {unknown[0]!r} in the dataset; its bodies: "
                         f"{', '.join(names)}", "cog")
    a_inf, source = raw.added_mass_inf, "dataset"
    if a_inf is None or not np.isfinite(a_inf).all():
        a_inf = ogilvie_added_mass_inf(raw.omega, raw.added_mass, raw.radiation_damping)
        source = "ogilvie"
    centers: list[Array | None] = []
    masses: list[Array | None] = []
    old: list[Array] = []
    new: list[Array] = []
    unrecorded = []
    for b, name in enumerate(names):
        given = cog.get(name)
        target = raw.centers_of_mass[b] if given is None else checked_array(given, (3,), "cog")
        center = raw.rotation_centers[b]
        if target is not None and center is None:
            if any(d in raw.dofs[b] for d in DOF_NAMES[3:]):
                unrecorded.append(name)
            center = target
        centers.append(target if target is not None else center)
        masses.append(target if target is not None else raw.centers_of_mass[b])
        old.append(np.zeros(3) if center is None else center)
        new.append(old[-1] if target is None else target)
    if unrecorded:
        warnings.warn(f"{raw.where}: the dataset does not record the rotation centre of "
                      f"{', '.join(unrecorded)}; their rotational coefficients are taken as "
                      "about their COG", UserWarning, stacklevel=3)
    t = block_transform(old, new)
    moved = not np.allclose(t, np.eye(t.shape[0]), rtol=0.0, atol=1e-12)

    def mv(m: Array | None) -> Array | None:
        return moved_by(m, t) if moved else m

    added_mass, damping, a_inf_moved = mv(raw.added_mass), mv(raw.radiation_damping), mv(a_inf)
    assert added_mass is not None and damping is not None and a_inf_moved is not None
    state_space = raw.state_space
    if moved and state_space is not None:
        state_space = state_space.moved(t)
    second_order = raw.second_order
    if moved and second_order is not None:
        second_order = second_order.moved(t)
    return MultiBodyDatabase(
        bodies=tuple(names), omega=raw.omega, added_mass=added_mass, radiation_damping=damping,
        excitation=np.einsum("ki,...k->...i", t, raw.excitation) if moved else raw.excitation,
        froude_krylov=(np.einsum("ki,...k->...i", t, raw.froude_krylov)
                       if moved and raw.froude_krylov is not None else raw.froude_krylov),
        headings=raw.headings, added_mass_inf=a_inf_moved, added_mass_inf_source=source,
        hydrostatic_stiffness=mv(raw.hydrostatic_stiffness), inertia=mv(raw.inertia),
        rho=raw.rho, g=raw.g, water_depth=raw.water_depth,
        rotation_centers=tuple(centers), centers_of_mass=tuple(masses),
        dofs=tuple(raw.dofs), source=raw.where, kernel_time=raw.kernel_time,
        kernel=mv(raw.kernel), state_space=state_space,
        added_mass_zero=mv(raw.added_mass_zero), excitation_absent=raw.excitation_absent,
        second_order=second_order)


def by_heading(values: Array, headings: Array) -> tuple[Array, Array]:
    """Excitation ``(nw, nh, n)`` and headings sorted by heading, repeats dropped."""
    by_angle = np.argsort(headings, kind="stable")
    headings, values = headings[by_angle], values[:, by_angle]
    distinct = np.concatenate([[True], np.diff(headings) > HEADING_TOL])
    return values[:, distinct], headings[distinct]
