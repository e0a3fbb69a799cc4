"""The joint of every link of a model at a state, in Arboris' conventions
(:class:`frylinks.joints.LinkJoint`): ``gpos``, ``gvel``, ``pose``, ``twist`` and
``jacobian`` measured by the relative-kinematics core every link type uses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from frylinks.engine.model import Model, State, assemble, body_states
from frylinks.joints import LinkJoint
from frylinks.kinematics import relative
from frylinks.links import LinkContext
from frylinks.rotations import quat_to_matrix

if TYPE_CHECKING:
    from frylinks.model.system import System


def state_from_dataset(model: Model, ds: Any) -> State:
    """A :class:`~frylinks.engine.State` from one time of a results Dataset."""
    if "time" in ds.dims:
        raise ValueError("select one time of the results first: ds.isel(time=k)")
    bodies = model.body_names
    pick = (lambda var: np.asarray(ds[var].sel(body=bodies).values, dtype=float))  # noqa: E731
    angle_ref = np.full(len(model.link_names), np.nan)
    if "link_displacement" in ds:
        disp = ds.link_displacement.sel(link=model.link_names)
        for blk in model.link_blocks:
            turns = [d for d in blk.kind.free_dofs if d.startswith("r")]
            if len(turns) == 1:  # its displacement is the unwrapped angle: the reference
                angle_ref[blk.index] = disp.sel(dof=turns[0]).values[blk.index]
    return State(float(ds.time.values), pick("body_position"), pick("body_orientation"),
                 pick("body_velocity"), pick("body_angular_velocity"), angle_ref)


def link_joints(source: System | Model, state: State | Any = None) -> dict[str, LinkJoint]:
    """The joint of every link at a state: ``{link name: LinkJoint}`` in link order.

    Parameters
    ----------
    source
        A :class:`~frylinks.model.system.System` (assembled here) or an assembled
        :class:`~frylinks.engine.Model` (cheaper when called at many states).
    state
        The state: a :class:`~frylinks.engine.State` (as observers receive it), one time
        of a results Dataset (``ds.isel(time=k)``; a single free rotation is then
        unwrapped against the ``link_displacement`` stored there), or None for the
        initial state as given (not assembled).

    Returns
    -------
    dict of str to LinkJoint
        ``gpos``, ``gvel``, ``ndof``, ``pose``, ``ipose``, ``twist``, ``itwist`` and
        ``jacobian`` of each link (module doc), master node = frame 0, slave node =
        frame 1.

    Examples
    --------
    >>> joints = link_joints(system, ds.isel(time=-1))      # doctest: +SKIP
    >>> joints["hinge"].gpos, joints["hinge"].twist          # doctest: +SKIP
    """
    model = source if isinstance(source, Model) else assemble(source)
    if state is None:
        state = model.initial
    elif not hasattr(state, "angle_ref"):
        state = state_from_dataset(model, state)
    b = body_states(model, state)
    bank = model.signals
    signals = ([bank.evaluate(state.t, k) for k in range(3)] if bank.nb_slots
               else [np.zeros(0)] * 3)
    angle_ref = np.asarray(state.angle_ref, dtype=float)
    out: dict[str, LinkJoint] = {}
    joints: dict[int, LinkJoint] = {}
    for blk in model.link_blocks:
        rel = relative(b, blk.master, blk.slave, need_bias=False)
        ctx = LinkContext(state.t, signals, angle_ref[blk.index])
        gpos, gvel = blk.kind.coordinates(rel, ctx)
        E = blk.kind.free_basis(rel)
        R = quat_to_matrix(rel.q_rel) if len(rel.q_rel) else np.zeros((0, 3, 3))
        RT = np.swapaxes(R, 1, 2)
        # twist in slave axes, angular first: [R^T w_rel, R^T d'] from tau = [d', w_rel]
        twist = np.concatenate([np.einsum("nij,nj->ni", RT, rel.tau[:, 3:]),
                                np.einsum("nij,nj->ni", RT, rel.tau[:, :3])], axis=1)
        jac = np.concatenate([RT @ E[:, 3:], RT @ E[:, :3]], axis=1)
        for k, i in enumerate(blk.index):
            pose = np.zeros((4, 4))
            pose[:3, :3] = R[k]
            pose[:3, 3] = rel.d[k]
            pose[3, 3] = 1.0
            joints[int(i)] = LinkJoint(blk.names[k], type(blk.kind).name, gpos[k].copy(),
                                       gvel[k].copy(), pose, jac[k], twist[k])
    for i, name in enumerate(model.link_names):
        out[name] = joints[i]
    return out

