"""The clipping core of frylinks_marine.wetted and the mesh checks: single panels cut at
known heights against exact areas and pressure integrals, the degenerate cases (a corner
or an edge on the surface, dry, wet), a sloping surface, and meshes that do not close."""

from __future__ import annotations

import numpy as np
import pytest
from frylinks_marine import wetted as W
from frylinks_marine.hydrostatics import HydrostaticsError, checked_mesh
from frylinks_marine.mesh_checks import mesh_problems, signed_volume

RHO, G = 1000.0, 10.0
pytestmark = pytest.mark.compiled

# a triangle in the plane y = 0, normal -y: corners (0, -1), (2, -1), (0, 1) in (x, z);
# its width at height z is 1 - z
TRIANGLE = (np.array([[0.0, 0.0, -1.0], [2.0, 0.0, -1.0], [0.0, 0.0, 1.0]]),
            np.array([[0, 1, 2, 2]]))
# a unit square in the plane y = 0, x in [0, 1], z in [-0.5, 0.5], normal -y
SQUARE = (np.array([[0.0, 0.0, -0.5], [1.0, 0.0, -0.5], [1.0, 0.0, 0.5], [0.0, 0.0, 0.5]]),
          np.array([[0, 1, 2, 3]]))


def integrals(points: np.ndarray, faces: np.ndarray, eta: float | np.ndarray,
              pressure: float = 0.0) -> np.ndarray:
    pts = np.ascontiguousarray(points, dtype=float)
    out = np.full(W.NOUT, np.nan)
    W.wetted_integrals(pts, np.ascontiguousarray(faces, dtype=np.int64),
                       np.broadcast_to(np.asarray(eta, dtype=float), len(pts)).copy(),
                       np.full(len(pts), pressure), RHO, G, np.zeros(3), out)
    return out


def poly_integral(coeffs: list[float], a: float, b: float) -> float:
    """Exact integral of a polynomial (highest power first) from a to b."""
    p = np.polyint(np.poly1d(coeffs))
    return float(p(b) - p(a))


@pytest.mark.parametrize("eta", [-1.5, -1.0, -0.6, 0.0, 0.3, 0.999, 1.0, 1.7])
def test_triangle_cut_at_a_height(eta: float) -> None:
    """Wetted area int (1 - z) dz and force rho g int (eta - z)(1 - z) dz from the
    bottom to the surface, its moment about the origin likewise (exact)."""
    top = float(np.clip(eta, -1.0, 1.0))
    out = integrals(*TRIANGLE, eta)
    area = poly_integral([-1.0, 1.0], -1.0, top)
    # n = -y, F = -int p n dA: +y; p = rho g (eta - z) over width (1 - z)
    fy = RHO * G * poly_integral(np.polymul([-1.0, eta], [-1.0, 1.0]).tolist(), -1.0, top)
    # moment about the origin: int x' x F: M_x = -z F_y density; x-centroid of a strip
    # of width (1 - z) is (1 - z) / 2: M_z = x F_y density
    mx = -RHO * G * poly_integral(np.polymul(np.polymul([-1.0, eta], [-1.0, 1.0]),
                                             [1.0, 0.0]).tolist(), -1.0, top)
    mz = RHO * G * poly_integral(np.polymul(np.polymul([-1.0, eta], [-1.0, 1.0]),
                                            [-0.5, 0.5]).tolist(), -1.0, top)
    np.testing.assert_allclose(out[W.AREA], area, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(out[W.FORCE:W.FORCE + 3], [0.0, fy, 0.0], atol=1e-9)
    np.testing.assert_allclose(out[W.MOMENT:W.MOMENT + 3], [mx, 0.0, mz], atol=1e-9)


@pytest.mark.parametrize("eta", [-0.7, -0.5, -0.2, 0.0, 0.25, 0.5, 0.9])
def test_square_cut_at_a_height(eta: float) -> None:
    """A quad (two triangles) cut at eta: area (eta + 0.5) clipped to [0, 1]."""
    out = integrals(*SQUARE, eta)
    top = float(np.clip(eta, -0.5, 0.5))
    np.testing.assert_allclose(out[W.AREA], top + 0.5, rtol=1e-13, atol=1e-15)
    fy = RHO * G * poly_integral([-1.0, eta], -0.5, top)
    np.testing.assert_allclose(out[W.FORCE + 1], fy, rtol=1e-12, atol=1e-9)


def test_a_sloping_surface_is_interpolated_on_the_panel() -> None:
    """eta = 0.2 x over the square: the wetted part is under the line, area
    int_0^1 (0.2 x + 0.5) dx = 0.6, force rho g int int (0.2 x - z) over it."""
    points, faces = SQUARE
    out = integrals(points, faces, 0.2 * points[:, 0])
    np.testing.assert_allclose(out[W.AREA], 0.6, rtol=1e-13)
    # int_0^1 int_{-0.5}^{0.2x} (0.2 x - z) dz dx = int_0^1 (0.2 x + 0.5)^2 / 2 dx
    fy = RHO * G * poly_integral(np.polymul([0.2, 0.5], [0.1, 0.25]).tolist(), 0.0, 1.0)
    np.testing.assert_allclose(out[W.FORCE + 1], fy, rtol=1e-12)


def test_corner_or_edge_on_the_surface() -> None:
    """A corner exactly on the surface makes no cut and no sliver: a triangle with only
    its apex at z = 0 and the rest above is dry; with its base on z = 0 and the apex
    below, wholly wet; apex on the surface, base below: wholly wet."""
    apex_down = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]])
    base_down = np.array([[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])
    face = np.array([[0, 1, 2, 2]])
    assert integrals(apex_down, face, 0.0)[W.AREA] == 0.0
    np.testing.assert_allclose(integrals(base_down, face, 0.0)[W.AREA], 1.0, rtol=1e-15)
    np.testing.assert_allclose(integrals(apex_down - [0, 0, 1], face, 0.0)[W.AREA], 1.0,
                               rtol=1e-15)
    # the corner on the surface in a cut triangle: one cut point, a wetted triangle
    # corners (0, 0), (2, -1), (2, 1) in (x, z): wet part x from 0 to 2, z from -x/2 to 0
    fan = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, -1.0], [2.0, 0.0, 1.0]])
    np.testing.assert_allclose(integrals(fan, face, 0.0)[W.AREA], 1.0, rtol=1e-15)


def test_dry_and_wet_panels() -> None:
    """Dry: every sum zero. Wet: the whole area, and the pressure added at the corners
    integrated with it (a uniform 1 kPa on the unit square)."""
    dry = integrals(*SQUARE, -3.0)
    assert np.all(dry == 0.0)
    wet = integrals(*SQUARE, 3.0, pressure=1000.0)
    np.testing.assert_allclose(wet[W.AREA], 1.0, rtol=1e-15)
    np.testing.assert_allclose(wet[W.FORCE + 1], RHO * G * 3.0 + 1000.0, rtol=1e-14)


def box(size: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    half = np.asarray(size) / 2.0
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
    faces = np.array([[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6],
                      [0, 2, 6, 4], [1, 5, 7, 3]])
    return corners, faces


def test_box_volume_under_a_wave_surface() -> None:
    """A box under a surface sloping along x, eta = 0.1 x (linear, so each panel's
    interpolation is exact): the volume is the prism under the plane,
    L B (mean height) = 4 * 2 * 0.5, its x moment L^3 B 0.1 / 12."""
    points, faces = box((4.0, 2.0, 2.0))
    out = integrals(points, faces, 0.1 * points[:, 0])
    np.testing.assert_allclose(out[W.VOLUME], 8.0, rtol=1e-13)
    np.testing.assert_allclose(out[W.VOLUME_MOMENT], 0.1 * 4.0**3 * 2.0 / 12.0, rtol=1e-13)


def test_mesh_problems_name_what_is_wrong() -> None:
    points, faces = box((4.0, 2.0, 1.0))
    assert mesh_problems(points, faces) == []
    assert signed_volume(points, faces) == pytest.approx(8.0)
    assert "not closed: 4 edges" in mesh_problems(points, faces[1:])[0]
    hull = mesh_problems(points, np.delete(faces, 5, axis=0))[0]   # the lid z = 0.5 off
    assert "all at z = 0.5: a mesh of the wetted hull alone" in hull
    flipped = faces.copy()
    flipped[0] = flipped[0, ::-1]
    assert "inconsistently oriented" in mesh_problems(points, flipped)[0]
    assert "normals point inward" in mesh_problems(points, faces[:, ::-1])[0]
    doubled = np.vstack([faces, faces[:1, ::-1]])
    assert "not manifold" in mesh_problems(points, doubled)[0]
    with pytest.raises(HydrostaticsError, match="body 'barge': mesh not closed"):
        checked_mesh(points, faces[1:], "body 'barge'")


def test_the_kernel_allocates_nothing_and_counts_no_references() -> None:
    """A per-step force will call the kernel: compiled afresh (cached machine code cannot
    be inspected) with the kernels' options, its own function (not the CPython wrapper)
    calls no allocation and no reference count (frylinks.jit's rules)."""
    import re

    from numba import njit

    from frylinks.jit import OPTIONS

    fresh = njit(**OPTIONS)(W.wetted_integrals.py_func)  # type: ignore[attr-defined]
    points, faces = box((2.0, 2.0, 2.0))
    out = np.zeros(W.NOUT)
    fresh(points, faces, np.zeros(8), np.zeros(8), 1.0, 1.0, np.zeros(3), out)
    assert out[W.VOLUME] == pytest.approx(4.0)
    llvm = next(iter(fresh.inspect_llvm().values()))
    own = [f for f in re.split(r"\n(?=define )", llvm)
           if f.startswith("define") and "wetted_integrals" in f.split("(")[0]
           and "cpython" not in f.split("(")[0]]
    assert own
    for body in own:
        assert "NRT_MemInfo_alloc" not in body
        assert "NRT_incref" not in body and "NRT_decref" not in body
