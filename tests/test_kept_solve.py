"""The step's kept mass inverse and constraint factor (frylinks.engine.kernels): made again
exactly when what made them changes, or after ``forget``, and otherwise kept (the factor
also when the inverse, made again at a new rotation, came out the same)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from frylinks.engine import assemble
from frylinks.engine import kernels as K
from frylinks.engine.step_data import model_data
from frylinks.io.case import load_case
from frylinks.kinematics import BodyStates, body_states_kernel

CASE = Path(__file__).resolve().parents[1] / "cases" / "point_absorber.yaml"


def test_the_inverse_and_the_factor_are_kept_only_while_their_inputs_are() -> None:
    """The point absorber's body (added mass) on its prismatic link: the room's inverse
    equals a fresh one after a turn, after a change of the constants and ``forget``; the
    factor of G M^-1 G^T is kept while G is, and equals a fresh one once G changes."""
    model = assemble(load_case(CASE)[0])
    s = model.initial
    core = model_data(model)[0]
    nb = len(s.x)
    room = K.solve_room(core, nb)

    def states(angle: float) -> BodyStates:
        q = s.q.copy()
        q[0] = [np.cos(angle / 2), 0.0, np.sin(angle / 2), 0.0]  # a turn about y
        return body_states_kernel(s.x, q, s.v, s.w)

    def fresh(bs: BodyStates) -> np.ndarray:
        return K.mass_inverse(core, bs, nb).blocks

    for angle in (0.0, 0.3, 0.3, 0.0):  # new, turned, the same again, back
        bs = states(angle)
        K.mass_inverse_into(core, bs, nb, room)
        np.testing.assert_array_equal(room.blocks, fresh(bs))

    # the constants changed in place: kept until forget, then made again
    core[0][0] *= 2.0
    K.mass_inverse_into(core, bs, nb, room)
    assert not np.array_equal(room.blocks, fresh(bs))
    K.forget(room)
    K.mass_inverse_into(core, bs, nb, room)
    np.testing.assert_array_equal(room.blocks, fresh(bs))

    values = np.random.default_rng(1).standard_normal(len(core[9]))
    K.dense_G_into(core, values, room)
    assert K.factor_into(room) and room.factored[0] == 1
    made = room.L.copy()
    room.L[0, 0] = 123.0  # a factor kept is not made again
    K.dense_G_into(core, values, room)
    K.mass_inverse_into(core, bs, nb, room)
    assert K.factor_into(room) and room.L[0, 0] == 123.0
    values[np.flatnonzero(core[10] >= 0)[0]] += 0.5  # G changes: made again
    K.dense_G_into(core, values, room)
    assert room.factored[0] == 0
    assert K.factor_into(room)
    other = K.room_of(room.G.copy(), K.MassInverse(room.blocks, room.coupled, room.W),
                      (room.rb, room.nrb, room.nbr_start, room.nbr))
    assert K.factor_into(other)
    np.testing.assert_array_equal(room.L, other.L)
    assert not np.array_equal(room.L, made)
    # a turn of 1e-20 rad about z (the sphere's inertia the same about x and y) makes the
    # block again, to the same bits: the factor is kept
    assert K.factor_into(room) and room.factored[0] == 1
    room.L[0, 0] = 123.0
    q = s.q.copy()
    q[0] = [1.0, 0.0, 0.0, 5e-21]
    turned = body_states_kernel(s.x, q, s.v, s.w)
    assert not np.array_equal(turned.R, states(0.0).R)
    K.mass_inverse_into(core, turned, nb, room)
    np.testing.assert_array_equal(room.R, turned.R[:nb])  # (made again)
    np.testing.assert_array_equal(room.blocks, fresh(states(0.0)))
    assert room.factored[0] == 1 and K.factor_into(room) and room.L[0, 0] == 123.0
    # a turn of the body changes M^-1: the factor is made again
    K.mass_inverse_into(core, states(0.3), nb, room)
    assert room.factored[0] == 0
