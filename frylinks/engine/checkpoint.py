"""Checkpoints: everything a run needs to go on exactly as if it had never stopped.

An integrator reports a :class:`Checkpoint` at points from which it can restart
exactly: after each output sample for ``rk4`` (its step count and the state), after
each accepted step for ``dop853`` (the state and the next step size). Next to the body
state it holds the bookkeeping that is not integrated: the links' unwrapping
references (``State.angle_ref``) and the force types' declared ``memory`` arrays.

The netCDF writer stores the latest checkpoint in the group ``/checkpoint`` of the
results file with the records up to it (xarray reads the root group only, so users
never see it); ``frylinks run CASE --resume OUT.nc`` reads it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import netCDF4

    from frylinks.engine.model import Model, State

Array = np.ndarray

GROUP = "checkpoint"


@dataclass
class Checkpoint:
    """A restart point of a run.

    Attributes
    ----------
    state
        The state at the restart point (a copy).
    samples
        Number of output samples produced up to this point (the sample at
        ``state.t`` included when there is one): the records a resumed run keeps.
    step
        Fixed-step integrators: steps taken since ``t0``.
    t0
        Start time of the run [s] (fixed-step times are ``t0 + step * dt``).
    h
        Adaptive integrators: the next step size [s] (NaN for fixed-step ones).
    memory
        Force types' memory arrays, keyed ``"<block>.<attribute>"``.
    extra
        The integrator's own memory (generalized-alpha: accelerations, multipliers and
        where its Newton matrix was built).
    """

    state: State
    samples: int
    step: int = 0
    t0: float = 0.0
    h: float = float("nan")
    memory: dict[str, Array] = field(default_factory=dict)
    extra: dict[str, Array] = field(default_factory=dict)


def force_memory(model: Model) -> dict[str, Array]:
    """Copies of every force block's and link block's declared ``memory`` arrays (keys
    ``"<block>.<attribute>"`` for forces, ``"link<block>.<attribute>"`` for links)."""
    out = {f"{i}.{name}": np.array(getattr(blk.kind, name), dtype=float)
           for i, blk in enumerate(model.force_blocks) for name in blk.kind.memory}
    out.update({f"link{i}.{name}": np.array(getattr(blk.kind, name), dtype=float)
                for i, blk in enumerate(model.link_blocks)
                for name in getattr(blk.kind, "memory", ())})
    return out


def restore_memory(model: Model, memory: dict[str, Array]) -> None:
    """Put saved memory arrays back into the model's force and link blocks (in place
    where the array exists: a compiled kernel holds it)."""
    for key, value in memory.items():
        i, name = key.split(".", 1)
        blocks: list[Any] = model.force_blocks
        if i.startswith("link"):
            blocks, i = model.link_blocks, i[4:]
        kind = blocks[int(i)].kind
        current = getattr(kind, name, None)
        value = np.asarray(value, dtype=float)
        if isinstance(current, np.ndarray) and current.shape == value.shape:
            current[...] = value
        else:
            setattr(kind, name, value.copy())


def take(model: Model, state: State, samples: int, *, step: int = 0, t0: float = 0.0,
         h: float = float("nan"), extra: dict[str, Array] | None = None) -> Checkpoint:
    """A checkpoint of ``state`` (copied) and of the model's force memory now."""
    return Checkpoint(state.copy(), samples, step, t0, h, force_memory(model), extra or {})


def write(ds: netCDF4.Dataset, ckpt: Checkpoint) -> None:
    """Store ``ckpt`` in the group ``/checkpoint`` of an open netCDF file (replacing it)."""
    grp = ds.groups.get(GROUP) or ds.createGroup(GROUP)
    s = ckpt.state
    arrays: dict[str, Array] = {"x": s.x, "q": s.q, "v": s.v, "w": s.w,
                                "angle_ref": s.angle_ref}
    if len(s.z):  # (a zero-length netCDF dimension would be an unlimited one)
        arrays["z"] = s.z
    arrays.update({f"memory:{k}": v for k, v in ckpt.memory.items()})
    arrays.update({f"extra:{k}": v for k, v in ckpt.extra.items() if np.size(v)})
    for name, value in arrays.items():
        value = np.asarray(value, dtype=float)
        if name not in grp.variables:
            dims = []
            for k, n in enumerate(value.shape):
                dim = f"{name}_{k}"
                if dim not in grp.dimensions:
                    grp.createDimension(dim, n)
                dims.append(dim)
            grp.createVariable(name, "f8", tuple(dims))
        grp[name][...] = value
    grp.setncatts({"t": float(s.t), "samples": int(ckpt.samples), "step": int(ckpt.step),
                   "t0": float(ckpt.t0), "h": float(ckpt.h)})


def read(ds: netCDF4.Dataset) -> Checkpoint | None:
    """The checkpoint stored in an open netCDF file, or None if it has none."""
    from frylinks.engine.model import State

    grp = ds.groups.get(GROUP)
    if grp is None or "t" not in grp.ncattrs():
        return None
    get: dict[str, Any] = {name: np.array(var[...], dtype=float)
                           for name, var in grp.variables.items()}
    state = State(float(grp.getncattr("t")), get["x"].reshape(-1, 3), get["q"].reshape(-1, 4),
                  get["v"].reshape(-1, 3), get["w"].reshape(-1, 3),
                  get["angle_ref"].reshape(-1), get.get("z", np.zeros(0)).reshape(-1))
    memory = {k.split(":", 1)[1]: v for k, v in get.items() if k.startswith("memory:")}
    extra = {k.split(":", 1)[1]: v for k, v in get.items() if k.startswith("extra:")}
    return Checkpoint(state, int(grp.getncattr("samples")), int(grp.getncattr("step")),
                      float(grp.getncattr("t0")), float(grp.getncattr("h")), memory, extra)


__all__ = ["Checkpoint", "force_memory", "read", "restore_memory", "take", "write"]
