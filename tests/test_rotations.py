"""Rotation algebra: round trips, agreement with scipy and numpy, small-angle accuracy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from frylinks.rotations import (
    axis_angle_to_quat,
    cross,
    euler_to_quat,
    matrix_to_quat,
    quat_conjugate,
    quat_multiply,
    quat_to_matrix,
    quat_to_roll_pitch_yaw,
    quat_to_rotvec,
    rotate,
    rotate_back,
    rotvec_to_quat,
    skew,
)

N = 200


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240611)


def random_quats(rng: np.random.Generator, n: int = N) -> np.ndarray:
    """Uniform random unit quaternions with w >= 0."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q * np.sign(q[:, :1])


def same_rotation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|<a, b>| for unit quaternions: 1 when they are the same rotation (q ~ -q)."""
    return np.abs(np.sum(a * b, axis=-1))


def test_quaternion_matrix_round_trip(rng: np.random.Generator) -> None:
    """quat -> matrix -> quat gives back the quaternion (w >= 0), and the matrices are
    proper rotations equal to scipy's (scalar-last convention converted)."""
    q = random_quats(rng)
    m = quat_to_matrix(q)
    np.testing.assert_allclose(m @ np.swapaxes(m, 1, 2), np.broadcast_to(np.eye(3), m.shape),
                               atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(m), 1.0, atol=1e-14)
    np.testing.assert_allclose(m, Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix(), atol=1e-14)
    np.testing.assert_allclose(matrix_to_quat(m), q, atol=1e-14)


def test_matrix_to_quat_every_branch() -> None:
    """The four branches of matrix_to_quat (trace > 0, and each diagonal entry largest)
    are all exercised by rotations by ~pi about x, y, z and a small one."""
    for rotvec in ([0.1, 0.2, 0.3], [3.1, 0.1, 0.05], [0.1, 3.1, 0.05], [0.05, 0.1, 3.1]):
        m = Rotation.from_rotvec(rotvec).as_matrix()
        expected = Rotation.from_rotvec(rotvec).as_quat()[[3, 0, 1, 2]]
        assert same_rotation(matrix_to_quat(m), expected) == pytest.approx(1.0, abs=1e-14)
        np.testing.assert_allclose(quat_to_matrix(matrix_to_quat(m)), m, atol=1e-14)


def test_unnormalised_quaternion_gives_rotation(rng: np.random.Generator) -> None:
    """quat_to_matrix normalises its input: 3 q and q give the same matrix."""
    q = random_quats(rng, 10)
    np.testing.assert_allclose(quat_to_matrix(3.0 * q), quat_to_matrix(q), atol=1e-15)


def test_rotvec_round_trips(rng: np.random.Generator) -> None:
    """rotvec -> quat -> rotvec is the identity for angles in [0, pi), and quat -> rotvec
    -> quat gives back the rotation; both agree with scipy."""
    axis = rng.normal(size=(N, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = rng.uniform(0.0, np.pi - 1e-6, size=(N, 1))
    v = axis * angle
    q = rotvec_to_quat(v)
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-15)
    np.testing.assert_allclose(q, Rotation.from_rotvec(v).as_quat()[:, [3, 0, 1, 2]], atol=1e-14)
    np.testing.assert_allclose(quat_to_rotvec(q), v, atol=1e-12)
    qs = random_quats(rng)
    assert np.all(same_rotation(rotvec_to_quat(quat_to_rotvec(qs)), qs) > 1 - 1e-14)
    np.testing.assert_allclose(quat_to_rotvec(qs),
                               Rotation.from_quat(qs[:, [1, 2, 3, 0]]).as_rotvec(), atol=1e-12)


def test_quat_to_rotvec_takes_shortest_rotation(rng: np.random.Generator) -> None:
    """q and -q are the same rotation: both give the rotation vector of angle <= pi."""
    q = random_quats(rng)
    np.testing.assert_allclose(quat_to_rotvec(-q), quat_to_rotvec(q), atol=1e-14)
    assert np.all(np.linalg.norm(quat_to_rotvec(q), axis=1) <= np.pi + 1e-12)


def test_small_angle_accuracy() -> None:
    """Near zero (where the series branches are used) both maps keep full relative
    precision: compared with the exact half-angle formulas in extended precision."""
    direction = np.array([0.3, -0.5, 0.8])
    direction /= np.linalg.norm(direction)
    for angle in (1e-12, 1e-9, 1e-6, 5e-5, 9.9e-5, 1.01e-4, 1e-3):
        v = direction * angle
        q = rotvec_to_quat(v)
        half = np.longdouble(angle) / 2
        expected = np.concatenate([[np.cos(half)],
                                   np.sin(half) * direction.astype(np.longdouble)])
        np.testing.assert_allclose(q, expected.astype(float), rtol=1e-15, atol=0)
        np.testing.assert_allclose(quat_to_rotvec(q), v, rtol=1e-14, atol=0)
        # an unnormalised quaternion [1, v/2] is a rotation by 2 atan(|v|/2) about v
        np.testing.assert_allclose(quat_to_rotvec(np.concatenate([[1.0], 0.5 * v])),
                                   2.0 * np.arctan(0.5 * angle) * direction, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(quat_to_rotvec(np.array([1.0, 0, 0, 0])), np.zeros(3))
    np.testing.assert_array_equal(rotvec_to_quat(np.zeros(3)), [1.0, 0, 0, 0])


@pytest.mark.parametrize("sequence", ["xyz", "zyx", "zxz", "yzx", "XYZ", "ZYX", "ZXZ", "YXY"])
def test_euler_to_quat_matches_scipy(rng: np.random.Generator, sequence: str) -> None:
    """frylinks (DESIGN §3): lower case intrinsic, upper case extrinsic. scipy's
    from_euler uses the opposite case (upper = intrinsic), so compare with the case
    swapped: the same rotation for every sequence and random angles."""
    for angles in rng.uniform(-np.pi, np.pi, size=(20, 3)):
        q = euler_to_quat(angles, sequence)
        expected = Rotation.from_euler(sequence.swapcase(), angles).as_quat()[[3, 0, 1, 2]]
        assert same_rotation(q, expected) == pytest.approx(1.0, abs=1e-14)


def test_intrinsic_and_extrinsic_differ_and_reverse() -> None:
    """Intrinsic xyz is Rx(a) Ry(b) Rz(c) (rotating axes, composed on the right), equals
    extrinsic ZYX with the angles reversed, and differs from extrinsic XYZ."""
    a = np.radians([30.0, 40.0, 50.0])
    qi = euler_to_quat(a, "xyz")
    r = [Rotation.from_rotvec(angle * np.eye(3)[k]).as_matrix() for k, angle in enumerate(a)]
    np.testing.assert_allclose(quat_to_matrix(qi), r[0] @ r[1] @ r[2], atol=1e-15)
    assert same_rotation(qi, euler_to_quat(a[::-1], "ZYX")) == pytest.approx(1.0, abs=1e-14)
    assert same_rotation(qi, euler_to_quat(a, "XYZ")) < 0.99


def test_axis_angle_normalises_axis() -> None:
    """axis_angle_to_quat normalises the axis: [0, 0, 5] and 90 degrees is Rz(90)."""
    q = axis_angle_to_quat([0.0, 0.0, 5.0], np.pi / 2)
    np.testing.assert_allclose(q, [np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)], atol=1e-15)


def test_cross_and_skew_match_numpy(rng: np.random.Generator) -> None:
    """cross equals numpy.cross, including broadcasting, and skew(a) @ b == a x b."""
    a = rng.normal(size=(N, 3))
    b = rng.normal(size=(N, 3))
    np.testing.assert_allclose(cross(a, b), np.cross(a, b), atol=1e-14)
    np.testing.assert_allclose(cross(a[0], b), np.cross(a[0], b), atol=1e-14)
    np.testing.assert_allclose(cross(a.reshape(20, 10, 3), b[:10]),
                               np.cross(a.reshape(20, 10, 3), b[:10]), atol=1e-14)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", skew(a), b), np.cross(a, b), atol=1e-14)


def test_multiply_conjugate_and_rotate(rng: np.random.Generator) -> None:
    """Hamilton product composes rotations (R(a b) = R(a) R(b)), the conjugate inverts,
    and rotate / rotate_back apply R and R^T."""
    a, b = random_quats(rng), random_quats(rng)
    np.testing.assert_allclose(quat_to_matrix(quat_multiply(a, b)),
                               quat_to_matrix(a) @ quat_to_matrix(b), atol=1e-14)
    ident = quat_multiply(a, quat_conjugate(a))
    np.testing.assert_allclose(ident, np.tile([1.0, 0, 0, 0], (N, 1)), atol=1e-15)
    v = rng.normal(size=(N, 3))
    r = quat_to_matrix(a)
    np.testing.assert_allclose(rotate(r, v), Rotation.from_quat(a[:, [1, 2, 3, 0]]).apply(v),
                               atol=1e-14)
    np.testing.assert_allclose(rotate_back(r, rotate(r, v)), v, atol=1e-14)


def _wrapped(a: np.ndarray) -> np.ndarray:
    """Angles [rad] brought into [-pi, pi): -pi and pi are the same roll or yaw."""
    return (a + np.pi) % (2 * np.pi) - np.pi


def test_roll_pitch_yaw_match_scipy(rng: np.random.Generator) -> None:
    """Roll, pitch, yaw are scipy's intrinsic ZYX angles (yaw, pitch, roll) reversed, for
    random rotations and for rotations of every sign and size of each angle."""
    r = Rotation.random(N, random_state=rng)
    got = quat_to_roll_pitch_yaw(r.as_quat(scalar_first=True))
    expected = r.as_euler("ZYX")[:, ::-1]
    np.testing.assert_allclose(_wrapped(got - expected), 0.0, atol=1e-12)
    assert (np.abs(got[:, 1]) <= np.pi / 2).all() and (np.abs(got) <= np.pi).all()
    # given angles come back, in their principal ranges
    rpy = np.array([[0.1, 0.2, 0.3], [-2.5, 1.2, 3.0], [3.1, -1.5, -3.1], [0.0, 0.0, -1.0]])
    q = Rotation.from_euler("ZYX", rpy[:, ::-1]).as_quat(scalar_first=True)
    np.testing.assert_allclose(quat_to_roll_pitch_yaw(q), rpy, atol=1e-12)
    # any leading shape, and a quaternion and its negative are the same attitude
    qs = r.as_quat(scalar_first=True).reshape(10, 20, 4)
    np.testing.assert_allclose(quat_to_roll_pitch_yaw(-qs), got.reshape(10, 20, 3),
                               atol=1e-12)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("offset", [0.0, 1e-12, 1e-9, 3e-8])
def test_roll_pitch_yaw_at_gimbal_lock(sign: float, offset: float) -> None:
    """Pitch at (or within 1e-7 rad of) +-90 deg: roll is 0 and yaw carries the turn about
    the vertical, as scipy does; the angles give back the rotation (to the offset)."""
    roll, yaw = 0.4, -2.0
    pitch = sign * (np.pi / 2 - offset)
    r = Rotation.from_euler("ZYX", [yaw, pitch, roll])
    got = quat_to_roll_pitch_yaw(r.as_quat(scalar_first=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scipy: "Gimbal lock detected"
        expected = r.as_euler("ZYX")[::-1]
    assert got[0] == 0.0 and expected[0] == 0.0
    assert got[1] == pytest.approx(pitch, abs=1e-7)
    # pitch up: only yaw - roll is defined; pitch down: yaw + roll
    assert _wrapped(got[2] - (yaw - sign * roll)) == pytest.approx(0.0, abs=1e-7)
    assert _wrapped(got[2] - expected[2]) == pytest.approx(0.0, abs=1e-7)
    back = Rotation.from_euler("ZYX", got[::-1]).as_matrix()
    np.testing.assert_allclose(back, r.as_matrix(), atol=2e-7)


@pytest.mark.parametrize("offset", [1e-6, 1e-4, 1e-2])
def test_roll_pitch_yaw_near_gimbal_lock(offset: float) -> None:
    """Just outside gimbal lock every angle is still found, to round-off amplified by
    1 / cos(pitch) at worst (atan2 of sine and cosine, not asin, for the pitch)."""
    rpy = np.array([0.4, np.pi / 2 - offset, -2.0])
    r = Rotation.from_euler("ZYX", rpy[::-1])
    got = quat_to_roll_pitch_yaw(r.as_quat(scalar_first=True))
    np.testing.assert_allclose(got, rpy, atol=1e-15 / offset + 1e-14)
    assert got[1] == pytest.approx(rpy[1], abs=1e-15)
