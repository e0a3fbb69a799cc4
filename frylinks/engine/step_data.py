"""The arrays a model's compiled step reads: the core's (bodies, constraint rows,
masses) and each block's, packed once per run from the assembled model."""

from __future__ import annotations

from typing import Any

import numpy as np

from frylinks.engine.model import Model
from frylinks.engine.sampling import reported_outputs
from frylinks.links import DOFS

Array = np.ndarray


def core_data(model: Model) -> tuple[Any, ...]:
    """The core tuple of :mod:`.kernels`."""
    nb = model.nb_bodies
    rows: list[Array] = []
    cols: list[Array] = []
    for blk in model.link_blocks:
        n, nc = len(blk.names), blk.kind.nb_constraints
        r = blk.row_start + np.repeat(np.arange(n * nc), 12)
        c = np.concatenate([6 * blk.master.body[:, None] + np.arange(6),
                            6 * blk.slave.body[:, None] + np.arange(6)], axis=1)
        c = np.broadcast_to(c[:, None, :], (n, nc, 12)).reshape(-1)
        rows.append(r)
        cols.append(np.where(c // 6 == nb, -1, c))  # ground's columns dropped
    cat = (lambda a: np.concatenate(a).astype(np.int64) if a  # noqa: E731
           else np.zeros(0, dtype=np.int64))
    added = model.added_mass if model.added_mass is not None else np.zeros((nb, 6, 6))
    return (np.asarray(model.mass, dtype=float), np.ascontiguousarray(model.inertia),
            np.ascontiguousarray(model.inertia_inv), np.asarray(model.gravity, dtype=float),
            np.ascontiguousarray(added), model.added_mass is not None, int(model.nb_rows),
            float(model.length_scale), int(model.signals.nb_slots), cat(rows), cat(cols),
            np.asarray(model.row_link, dtype=np.int64), *mass_coupling(model))


def mass_coupling(model: Model) -> tuple[Array, Array, Array]:
    """The added mass between bodies as the kernels take it: the coupled bodies
    ``(ng,)``, each body's place among them ``(nb + 1,)`` (-1: none) and the
    ``(6 ng, 6 ng)`` matrix (:mod:`.kernels`)."""
    slot = np.full(model.nb_bodies + 1, -1, dtype=np.int64)
    if model.mass_coupling is None:
        return np.zeros(0, dtype=np.int64), slot, np.zeros((0, 0))
    coupled, C = model.mass_coupling
    slot[coupled] = np.arange(len(coupled))
    return coupled, slot, C


def _nodes(ns: Any) -> tuple[Array, ...]:
    return tuple(np.ascontiguousarray(a) for a in ns.arrays())


def model_data(model: Model) -> tuple[Any, ...]:
    """Everything the generated step reads: ``(core, links, forces, signals)``."""
    links = tuple(
        (*_nodes(blk.master), *_nodes(blk.slave), blk.index.astype(np.int64),
         int(blk.row_start), bool(blk.has_spring),
         np.ascontiguousarray(blk.K, dtype=float).reshape(len(blk.names), blk.kind.nb_free,
                                                          blk.kind.nb_free),
         np.ascontiguousarray(blk.B, dtype=float).reshape(len(blk.names), blk.kind.nb_free,
                                                          blk.kind.nb_free),
         np.ascontiguousarray(blk.r0, dtype=float).reshape(len(blk.names), blk.kind.nb_free),
         blk.kind._data(),
         np.array([DOFS.index(d) for d in blk.kind.free_dofs], dtype=np.int64))
        for blk in model.link_blocks)
    offsets = {r.block: r.offset for r in reported_outputs(model)}
    forces = tuple(
        (tuple(_nodes(att) for att in blk.attachments), int(blk.states.start),
         int(blk.states.stop), blk.kind._data(), blk.index.astype(np.int64),
         offsets.get(j, -1))
        for j, blk in enumerate(model.force_blocks))
    signals = tuple((slots.astype(np.int64), kind._data())
                    for kind, slots in model.signals._blocks)
    return (core_data(model), links, forces, signals)
