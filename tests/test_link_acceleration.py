"""The acceleration level of every registered link type.

The contract suite (``frylinks.testing``) checks rows against the residual's rate; this
checks the acceleration target against the rate of the velocity constraint, which is
what makes configuration-dependent rows (universal, rigid_link) and time-dependent
targets (drivers) right. Along a body motion with constant world ``v`` and ``w``
(``u' = 0``, so ``tau' = kappa``)::

    d/dt (rows @ tau - velocity) == rows @ kappa - acceleration

for ANY velocities (the target must carry ``-(d rows/dt) @ tau + d velocity/dt``), on
and off the manifold. Central differences with ``H = 1e-5``: O(H^2) errors measured
below 4e-8 (rigid_link, length 0.35 m, the largest curvature); the tolerance 1e-6 is
far below the O(|u|^2) error of a missing ``rows'`` term.

``constraint_level = "acceleration"`` types (Solfec's acceleration driver) have the
current velocity as their velocity target, so the check becomes: the velocity target is
``rows @ tau`` and the acceleration target is the signal, checked against the signal
bank directly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from frylinks.kinematics import BodyStates
from frylinks.model.registry import Registry
from frylinks.rotations import quat_multiply, quat_to_matrix, rotvec_to_quat
from frylinks.signals import SignalBank, SignalSpec
from frylinks.testing import T0, LinkCase

from .test_testing import examples_for

REGISTRY = Registry()
H = 1e-5
TOL = 1e-6


def motion(b: BodyStates, dt: float) -> BodyStates:
    """Body states after ``dt`` of motion with constant world ``v`` and ``w``."""
    q = quat_multiply(rotvec_to_quat(b.w * dt), b.q)
    return BodyStates(b.x + b.v * dt, q, quat_to_matrix(q), b.v, b.w)


def velocity_violation(case: LinkCase, b: BodyStates, t: float) -> np.ndarray:
    rel = case.rel(b)
    cons = case.kind.constraints(rel, case.ctx(t, case.ref))
    return np.einsum("nci,ni->nc", cons.rows, rel.tau) - cons.velocity


@pytest.mark.parametrize("master_on_ground", [False, True], ids=["body", "ground"])
@pytest.mark.parametrize("link_type", sorted(REGISTRY.types["link"]))
def test_acceleration_target_is_the_rate_of_the_velocity_constraint(
        link_type: str, master_on_ground: bool, tmp_path: Path) -> None:
    info = REGISTRY.types["link"][link_type]
    case = LinkCase.build(info.cls, examples_for(info, tmp_path),
                          master_on_ground=master_on_ground, registry=REGISTRY)
    rng = np.random.default_rng(29)
    for off in (0.0, 0.05):
        dq = off * rng.normal(size=(case.n, 6))
        d = case.d + dq[:, :3]
        q = quat_multiply(rotvec_to_quat(dq[:, 3:]), case.q)
        b = case.states(d, q, *case.random_velocities(rng))
        rel = case.rel(b)
        cons = case.kind.constraints(rel, case.ctx(T0, case.ref))
        if info.cls.constraint_level == "acceleration":
            np.testing.assert_allclose(velocity_violation(case, b, T0), 0.0, atol=1e-15)
            for i, given in enumerate(p["signal"] for p in case.params):
                if isinstance(given, SignalSpec):
                    signal = REGISTRY.types["signal"][given.type].cls
                    given = SignalBank({given.type: signal}, [given]).evaluate(T0, 0)[0]
                assert cons.acceleration[i, 0] == pytest.approx(given, rel=1e-15)
            continue
        predicted = np.einsum("nci,ni->nc", cons.rows, rel.kappa) - cons.acceleration
        rate = (velocity_violation(case, motion(b, H), T0 + H)
                - velocity_violation(case, motion(b, -H), T0 - H)) / (2 * H)
        err = np.abs(rate - predicted)
        assert err.size == 0 or err.max() < TOL, (link_type, off, err)
