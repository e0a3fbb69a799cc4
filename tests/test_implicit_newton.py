"""The implicit step's Newton matrix: what it keeps from step to step and what it
refreshes.

The constraint reactions ``G(q)^T lam`` are linear in the multipliers, so their part of
the tangent (the geometric stiffness) is weighed with the multipliers at every
factorisation: a tangent built at ``lam0`` and refactored at ``lam1`` must equal one
built at ``lam1``. Keeping it so is what lets a chain of short rods, whose tension
changes by several per cent a step, run on one tangent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frylinks.engine import assemble, project
from frylinks.engine.implicit import Newton, Stepper, residual
from tests.bench import benchmark


def _moving_chain(n: int, steps: int) -> tuple[Any, Stepper, Any, Any]:
    """The N-rod chain released horizontal, ``steps`` implicit steps of 1 ms on."""
    model = assemble(benchmark("chain").build_chain(n))
    stepper = Stepper(model, 0.9)
    s = model.initial.copy()
    project(model, s, initial=True)
    mem = stepper.start(s)
    for _ in range(steps):
        s, mem = stepper.step(s, mem, 1e-3, s.t + 1e-3)
    return model, stepper, s, mem


def test_the_multipliers_part_of_the_tangent_is_weighed_anew() -> None:
    """Built at lam0 and refactored at lam1 = the matrix built at lam1; refactored at
    lam0 it is not (so the comparison can fail)."""
    model, stepper, s, mem = _moving_chain(100, 20)
    lam0 = mem.lam
    lam1 = 1.6 * lam0 + 0.05 * np.abs(lam0).max() * np.cos(np.arange(len(lam0)))
    res0 = residual(model, s, mem.udot, lam0)
    res1 = residual(model, s, mem.udot, lam1)

    def matrix(built_at: np.ndarray, factored_at: np.ndarray) -> Any:
        newton = Newton(model, stepper.coeff)
        newton.build(s, mem.udot, built_at, 1e-3, res0 if built_at is lam0 else res1)
        newton.factor(res1, factored_at, 1e-3)
        return newton.matrix

    fresh = matrix(lam1, lam1)
    size = abs(fresh).max()
    assert abs(matrix(lam0, lam1) - fresh).max() < 1e-6 * size
    assert abs(matrix(lam0, lam0) - fresh).max() > 1e-3 * size


def test_a_chain_of_short_rods_keeps_one_tangent() -> None:
    """300 rods of 3.3 mm released horizontal: 30 steps of 1 ms on the first tangent, no
    step halved, a few iterations a step (before the multipliers' part was refreshed,
    each step rebuilt the tangent)."""
    _, stepper, _, _ = _moving_chain(300, 30)
    assert stepper.newton.builds == 1
    assert stepper.halvings == 0
    assert stepper.iterations / stepper.steps < 8
