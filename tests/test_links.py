"""Every registered link type: constraint Jacobian, free basis and block evaluation.

The checks are those of the plugin contract suite, :class:`frylinks.testing.LinkCase`
(one implementation for our tests and for plugin authors); here each one is a test of
its own for every type in ``Registry().types["link"]``, so a new link type (built-in or
third-party) is covered as soon as it is installed. Parameters come from the type's
``examples``, or from ``EXAMPLES`` in tests/test_testing.py for built-ins without them.

Configurations are built from the link's own description: start with the slave node on
the master node, Newton-project onto the constraint manifold with the link's ``rows``,
then move along its free basis ``E`` (re-projecting after each small step), keeping the
angle-unwrapping reference up to date like the engine does. Bodies then move with
arbitrary world velocities ``u`` (constant ``v`` and ``w``, rotations by exponential
maps, so the motion is known exactly) and the residual is differenced in time with step
``H = 1e-5``: the central-difference error is O(H^2) ~ 1e-10 times third derivatives of
order one, measured below 3e-10 for every built-in type, so ``TOL = 1e-7``; a row off
by 1% in one coefficient makes an error of 1e-2.
"""

from __future__ import annotations

import numpy as np
import pytest

from frylinks import System
from frylinks.engine import assemble, evaluate, link_outputs
from frylinks.model.registry import Registry
from frylinks.rotations import quat_multiply, quat_to_matrix, rotvec_to_quat
from frylinks.testing import OFF_MANIFOLD, LinkCase

from .test_testing import examples_for

REGISTRY = Registry()
LINK_TYPES = sorted(REGISTRY.types["link"])


def random_quat(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


@pytest.fixture(params=LINK_TYPES)
def link_type(request: pytest.FixtureRequest) -> str:
    return str(request.param)


_CASES: dict[tuple[str, bool], LinkCase] = {}


@pytest.fixture(params=[False, True], ids=["master_on_body", "master_on_ground"])
def case(request: pytest.FixtureRequest, link_type: str,
         tmp_path_factory: pytest.TempPathFactory) -> LinkCase:
    """Built once per (type, master placement): the manifold walk is the costly part."""
    key = (link_type, bool(request.param))
    if key not in _CASES:
        info = REGISTRY.types["link"][link_type]
        examples = examples_for(info, tmp_path_factory.mktemp(link_type))
        _CASES[key] = LinkCase.build(info.cls, examples, master_on_ground=key[1],
                                     registry=REGISTRY)
    return _CASES[key]


@pytest.fixture
def setup(case: LinkCase) -> LinkCase:
    return case


def test_builtin_catalogue_is_registered() -> None:
    """The loop below really covers the FRyDoM catalogue of DESIGN §1."""
    assert {"fixed", "revolute", "prismatic", "cylindrical", "spherical",
            "screw"} <= set(LINK_TYPES)


def test_shapes_and_declared_counts(setup: LinkCase) -> None:
    """rows (n, nc, 6), residual/velocity/acceleration (n, nc), E (n, 6, nf) with the
    declared nb_constraints and free_dofs; the rows are independent (full row rank)."""
    setup.check_shapes()


def test_configurations_reach_the_manifold(case: LinkCase) -> None:
    """The construction works: residual at round-off after moving along E (with
    rotations beyond pi), i.e. unwrapping and the coupled screw translation agree; the
    free motion really moved the slave, and single free rotations went past pi."""
    case.check_manifold()


def test_jacobian_on_manifold_matches_residual_rate(case: LinkCase) -> None:
    """On the manifold, d(residual)/dt == rows @ J @ u - velocity for ANY body velocities
    u (also those violating the constraint): G is the residual's exact Jacobian."""
    case.check_jacobian_on_manifold()


@pytest.mark.parametrize("eps", OFF_MANIFOLD)
def test_jacobian_off_manifold_is_first_order(case: LinkCase, eps: float) -> None:
    """A distance ``eps`` off the manifold, G still predicts the residual rate up to
    O(eps |u|) (rotation-vector residuals are only tangent to w_rel at zero): the error
    is below 2 eps |u| + TOL (measured: 0.25-0.8 eps |u|, scaling linearly with eps).
    A wrong row would make an O(|u|) error instead."""
    case.check_jacobian_off_manifold(eps)


def test_free_basis_violates_no_constraint(case: LinkCase) -> None:
    """rows @ E == 0 on the manifold; E has full column rank; and a small step ``h`` along
    E leaves the residual at O(h^2) (exactly zero for axis links)."""
    case.check_free_basis()


def test_block_of_n_equals_n_blocks_of_one(case: LinkCase) -> None:
    """constraints(), residual, displacement, coordinates and E of one block of N links
    equal the concatenation of N single-link blocks, on and off the manifold."""
    case.check_blocks()


def test_quaternion_sign_does_not_matter(case: LinkCase) -> None:
    """q and -q are the same body attitude (an integrator may drift to either): flipping
    the sign of the slave or the master bodies' quaternions (so q_rel changes sign)
    leaves residuals and displacement unchanged, near the manifold and with rotations
    past pi."""
    case.check_quaternion_sign()


# ---------------------------------------------------------------------------- engine level

def add_pendulum(system: System, i: int, rng: np.random.Generator) -> None:
    """A compound pendulum on a revolute link about a random ground axis, displaced by a
    random angle, spinning about its hinge, with a full inertia tensor and a torsion
    spring-damper on the hinge."""
    pivot = rng.uniform(-5, 5, 3)
    axis = random_quat(rng, 1)[0]
    system.ground.add_node(f"pivot{i}", position=pivot, orientation={"quaternion": axis})
    angle = rng.uniform(-np.pi, np.pi)
    q_body = quat_multiply(axis, rotvec_to_quat(np.array([0.0, 0.0, angle])))
    arm = np.array([rng.uniform(0.5, 2.0), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)])
    x_body = pivot + quat_to_matrix(q_body) @ arm
    omega = rng.uniform(-2, 2) * quat_to_matrix(axis)[:, 2]
    principal = rng.uniform(1.0, 3.0, 3)
    inertia = [*principal, 0.1 * principal[0], -0.05 * principal[1], 0.07 * principal[2]]
    body = system.add_body(f"p{i}", mass=float(rng.uniform(1, 10)), inertia=inertia,
                           position=x_body, orientation={"quaternion": q_body},
                           velocity=np.cross(omega, x_body - pivot), angular_velocity=omega)
    body.add_node("hinge", position=-arm)
    system.add_link(f"hinge{i}", "revolute", master=f"ground.pivot{i}", slave=f"p{i}.hinge",
                    spring_damper={"stiffness": float(rng.uniform(0, 20)),
                                   "damping": float(rng.uniform(0, 2)), "rest": 0.3})


def test_n_pendulums_in_one_block_equal_n_separate_systems() -> None:
    """25 independent pendulums in one system (one revolute block of 125 rows: the sparse
    path of the constraint solver) give the accelerations and link outputs of 25
    one-pendulum systems (dense path), at the initial state and along 5 rk4 steps."""
    nb = 25
    combined = System(registry=REGISTRY)
    separate = [System(registry=REGISTRY) for _ in range(nb)]
    for i in range(nb):
        add_pendulum(combined, i, np.random.default_rng(100 + i))
        add_pendulum(separate[i], i, np.random.default_rng(100 + i))
    model = assemble(combined)
    assert len(model.link_blocks) == 1 and model.nb_rows == 5 * nb
    ev = evaluate(model, model.initial)
    out = link_outputs(model, ev)
    for i, system in enumerate(separate):
        m1 = assemble(system)
        ev1 = evaluate(m1, m1.initial)
        np.testing.assert_allclose(ev.udot[i], ev1.udot[0], rtol=1e-9, atol=1e-9)
        for key, value in link_outputs(m1, ev1).items():
            np.testing.assert_allclose(out[key][i], value[0], rtol=1e-9, atol=1e-8,
                                       err_msg=key)
    # the reactions are not trivially zero (gravity and spin load the hinges)
    assert np.abs(out["link_reaction_force"]).max() > 1.0
    ds = combined.run(t_end=0.05, dt=0.01)
    for i in (0, 7, 13, 24):  # a sample: one-body runs cost 0.1 s each
        ds1 = separate[i].run(t_end=0.05, dt=0.01)
        for var in ("body_position", "body_orientation", "body_angular_velocity",
                    "link_reaction_force", "link_displacement"):
            entity = ds[var].dims[1]
            np.testing.assert_allclose(ds[var].isel({entity: i}), ds1[var].isel({entity: 0}),
                                       rtol=1e-9, atol=1e-9, err_msg=var)
