"""Hydrostatics from geometry (frylinks_marine.hydrostatics) against exact references:
the spherical cap, the cut vertical cylinder, the heeled and trimmed box (a prism cut by
a plane), the box's righting-arm curve past deck-edge immersion (the 2-D polygon of its
cross-section, clipped here independently), the refinement rate of a curved body, and
Capytaine's ``compute_hydrostatics`` on one mesh."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frylinks_marine.hydrostatics import hydrostatics, righting_arms, wetted_part
from scipy.optimize import brentq
from scipy.spatial.transform import Rotation

from frylinks.model.geometry import shape_mesh

RHO, G = 1025.0, 9.81
pytestmark = pytest.mark.compiled


def posed(spec: dict[str, Any], heel: float = 0.0, trim: float = 0.0,
          centre: Any = (0.0, 0.0, 0.0), resolution: int = 24,
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A shape's mesh turned by heel (x) then trim (y) about its centre, moved to
    ``centre``; also the rotation (scipy, independent of the code under test)."""
    # not merged(): it rounds coordinates to 1e-6 m, which the exact checks would see
    mesh = shape_mesh(spec, resolution)
    rot = Rotation.from_euler("yx", [trim, heel]).as_matrix()   # trim after heel
    return mesh.points @ rot.T + np.asarray(centre), mesh.faces, rot


# ----------------------------------------------------------------------------- sphere

def cap(radius: float, c: float) -> tuple[float, float]:
    """Volume under z = 0 of a sphere centred at height c, and its centroid's z."""
    h = float(np.clip(radius - c, 0.0, 2.0 * radius))
    volume = np.pi * h * h * (3.0 * radius - h) / 3.0
    zc = c - 3.0 * (2.0 * radius - h) ** 2 / (4.0 * (3.0 * radius - h)) if h > 0 else np.nan
    return volume, zc


@pytest.mark.parametrize("c", [1.9, 1.0, 0.4, 0.0, -0.7, -1.0, -3.0])
@pytest.mark.parametrize("angles", [(0.0, 0.0), (0.5, 0.0), (0.3, -0.8)])
def test_sphere_volume_and_centre(c: float, angles: tuple[float, float],
                                  record_property: Callable[[str, Any], None]) -> None:
    """A sphere of radius 2 at any height and turn: its cap's volume and centroid to the
    mesh's discretisation error (a 128 x 64 inscribed mesh: at most 1.0e-3 of the whole
    volume, measured when wholly submerged)."""
    radius = 2.0
    points, faces, _ = posed({"shape": "sphere", "radius": radius}, *angles, (0.3, -0.2, c),
                             resolution=128)
    part = wetted_part(points, faces, RHO, G)
    volume, zc = cap(radius, c)
    whole = 4.0 / 3.0 * np.pi * radius**3
    error = abs(part.volume - volume) / whole
    record_property("volume_error", error)
    assert error < 1.5e-3
    np.testing.assert_allclose(part.force, [0.0, 0.0, RHO * G * part.volume],
                               atol=1e-9 * RHO * G * whole)
    if volume > 1e-3 * whole:
        np.testing.assert_allclose(part.buoyancy_centre, [0.3, -0.2, zc], atol=2e-3 * radius)


def test_sphere_refinement_is_second_order(record_property: Callable[[str, Any], None],
                                           ) -> None:
    """Half-submerged sphere: the volume error halves the panel size -> a quarter."""
    errors = []
    for n in (16, 32, 64, 128):
        points, faces, _ = posed({"shape": "sphere", "radius": 1.0}, 0.2, 0.1, (0, 0, 0.3),
                                 resolution=n)
        errors.append(abs(wetted_part(points, faces).volume - cap(1.0, 0.3)[0]))
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    record_property("sphere_volume_errors", errors)
    record_property("sphere_rates", rates.tolist())
    assert np.all((rates > 1.8) & (rates < 2.2)), rates


# --------------------------------------------------------------------------- cylinder

@pytest.mark.parametrize("c", [2.5, 1.0, 0.0, -0.8, -3.0])
@pytest.mark.parametrize("heel", [0.0, 0.15])
def test_cylinder_cut_by_the_surface(c: float, heel: float) -> None:
    """A vertical cylinder (radius 1, height 4) centred at height c, heeled so the surface
    cuts its side only: the volume is the base area times the axial length under the
    surface at the axis. Exact for the mesh's n-gon; the circle's area to O(1/n^2)."""
    n, radius, height = 48, 1.0, 4.0
    points, faces, rot = posed({"shape": "cylinder", "radius": radius, "height": height},
                               heel, 0.0, (0.0, 0.0, c), resolution=n)
    axis = rot[:, 2]
    # along the axis from the bottom centre (c - 2 axis) to where z = 0
    bottom = c - height / 2 * axis[2]
    length = float(np.clip(-bottom / axis[2], 0.0, height))
    ngon = 0.5 * n * radius**2 * np.sin(2.0 * np.pi / n)
    part = wetted_part(points, faces)
    np.testing.assert_allclose(part.volume, ngon * length, rtol=1e-12, atol=1e-12)
    circle = np.pi * radius**2 * length
    assert abs(part.volume - circle) <= 4.0 * np.pi**3 / (3.0 * n**2) * circle + 1e-12
    if 0.0 < length < height:   # floating: the centre of buoyancy on the axis, mid-length
        # (exact for a right prism cut square: heel 0)
        if heel == 0.0:
            np.testing.assert_allclose(part.buoyancy_centre, [0, 0, bottom + length / 2],
                                       atol=1e-12)
        np.testing.assert_allclose(part.waterplane_area, ngon / axis[2], rtol=1e-12)


# -------------------------------------------------------------------------------- box

def box_prism(size: np.ndarray, rot: np.ndarray, centre: np.ndarray,
              ) -> tuple[float, np.ndarray]:
    """Volume under z = 0 and its centroid (world) for a box cut by the surface on its
    four side walls only: in box axes the surface is z' = h(x', y') = h0 + a x' + b y'
    above the bottom, so V = int h dA, x-moment a L^3 B / 12, ...  (exact)."""
    L, B, D = size
    n = rot.T @ np.array([0.0, 0.0, 1.0])          # world up in box axes
    # world z of a box point p': centre_z + n . p' = 0 -> z' = -(centre_z + nx x + ny y)/nz
    h0 = -centre[2] / n[2] + D / 2.0
    a, b = -n[0] / n[2], -n[1] / n[2]
    assert h0 - abs(a) * L / 2 - abs(b) * B / 2 >= 0.0
    assert h0 + abs(a) * L / 2 + abs(b) * B / 2 <= D
    area = L * B
    volume = h0 * area
    ix, iy = L**3 * B / 12.0, B**3 * L / 12.0
    xb = a * ix / volume
    yb = b * iy / volume
    zb = (h0 * h0 * area + a * a * ix + b * b * iy) / (2.0 * volume) - D / 2.0
    return volume, centre + rot @ np.array([xb, yb, zb])


@pytest.mark.parametrize("draft_heel_trim", [(1.0, 0.0, 0.0), (0.5, 0.1, 0.0),
                                             (1.2, 0.2, 0.05), (0.8, -0.12, 0.08)])
def test_heeled_and_trimmed_box(draft_heel_trim: tuple[float, float, float]) -> None:
    """A 10 x 4 x 2 m box at a draft, heel and trim that keep the surface on its walls:
    volume and centre of buoyancy exact (round-off); the pressure force rho g V up."""
    size = np.array([10.0, 4.0, 2.0])
    draft, heel, trim = draft_heel_trim
    centre = np.array([0.5, -0.3, size[2] / 2 - draft])
    points, faces, rot = posed({"shape": "box", "size": size.tolist()}, heel, trim, centre)
    volume, b = box_prism(size, rot, centre)
    part = wetted_part(points, faces, RHO, G)
    np.testing.assert_allclose(part.volume, volume, rtol=1e-13)
    np.testing.assert_allclose(part.buoyancy_centre, b, atol=1e-12)
    np.testing.assert_allclose(part.force, [0, 0, RHO * G * volume], rtol=1e-13,
                               atol=1e-8)


def test_box_submerged_and_dry() -> None:
    points, faces, _ = posed({"shape": "box", "size": [3.0, 2.0, 1.0]}, 0.7, 0.4,
                             (1.0, 2.0, -5.0))
    part = wetted_part(points, faces)
    np.testing.assert_allclose(part.volume, 6.0, rtol=1e-13)
    np.testing.assert_allclose(part.buoyancy_centre, [1.0, 2.0, -5.0], atol=1e-12)
    np.testing.assert_allclose(part.wetted_area, 2 * (6.0 + 3.0 + 2.0), rtol=1e-13)
    assert abs(part.waterplane_area) < 1e-12
    dry = wetted_part(points + np.array([0.0, 0.0, 10.0]), faces)
    assert dry.volume == 0.0 and dry.wetted_area == 0.0


def test_box_stiffness_and_gm() -> None:
    """Upright 20 x 10 x 6 m box at 2 m draft, COG 1 m above the water: waterplane
    20 x 10, K33 = rho g L B, K44 = rho g V GM_T about the COG, K55 = rho g V GM_L."""
    L, B, D, T, zg = 20.0, 10.0, 6.0, 2.0, 1.0
    points, faces, _ = posed({"shape": "box", "size": [L, B, D]}, centre=(0, 0, D / 2 - T))
    mass = RHO * L * B * T
    h = hydrostatics(points, faces, mass, [0.0, 0.0, zg], RHO, G)
    gmt = -T / 2 + B**2 / (12 * T) - zg
    gml = -T / 2 + L**2 / (12 * T) - zg
    np.testing.assert_allclose([h.gm_transverse, h.gm_longitudinal], [gmt, gml], rtol=1e-13)
    rgv = RHO * G * L * B * T
    np.testing.assert_allclose(np.diag(h.stiffness)[2:5], [RHO * G * L * B, rgv * gmt,
                                                          rgv * gml], rtol=1e-13)


# ------------------------------------------------------------------- box: GZ curve

def clipped_area(polygon: np.ndarray) -> tuple[float, np.ndarray]:
    """Area and centroid of the part z <= 0 of a convex polygon (rows y, z;
    counter-clockwise): Sutherland-Hodgman and the shoelace formula, 2-D."""
    kept = []
    for k in range(len(polygon)):
        p, q = polygon[k], polygon[(k + 1) % len(polygon)]
        if p[1] <= 0.0:
            kept.append(p)
        if (p[1] < 0.0) != (q[1] < 0.0) and p[1] != 0.0 and q[1] != 0.0:
            kept.append(p + p[1] / (p[1] - q[1]) * (q - p))
    if len(kept) < 3:
        return 0.0, np.full(2, np.nan)
    y, z = np.array(kept).T
    cross = y * np.roll(z, -1) - np.roll(y, -1) * z
    area = cross.sum() / 2.0
    centroid = np.array([((y + np.roll(y, -1)) * cross).sum(),
                         ((z + np.roll(z, -1)) * cross).sum()]) / (6.0 * area)
    return float(area), centroid


def section_gz(breadth: float, depth: float, draft: float, zg: float, heel: float,
               ) -> float:
    """GZ of a long box from its cross-section: the rectangle (bottom at -draft) turned
    by ``heel`` about G, sunk until its clipped area is B T, GZ = yG - yB."""
    corners = np.array([[-breadth / 2, -draft], [breadth / 2, -draft],
                        [breadth / 2, depth - draft], [-breadth / 2, depth - draft]])
    c, s = np.cos(heel), np.sin(heel)
    turned = (corners - [0.0, zg]) @ np.array([[c, s], [-s, c]]) + [0.0, zg]
    target = breadth * draft
    dz = brentq(lambda d: clipped_area(turned + np.array([0.0, d]))[0] - target,
                -turned[:, 1].max(), -turned[:, 1].min(), xtol=1e-14)
    return float(0.0 - clipped_area(turned + np.array([0.0, dz]))[1][0])


def test_box_gz_to_large_heel(record_property: Callable[[str, Any], None]) -> None:
    """A 30 x 10 x 4 m box at 2 m draft (freeboard 2 m), COG at the waterline: GZ to 80
    degrees against the cross-section's polygon, and against the wall-sided formula
    sin(phi) (GM + BM tan^2(phi) / 2) until the deck edge immerses (tan = 2 / 5)."""
    L, B, D, T, zg = 30.0, 10.0, 4.0, 2.0, 0.0
    points, faces, _ = posed({"shape": "box", "size": [L, B, D]}, centre=(0, 0, D / 2 - T))
    heels = np.radians([0, 5, 10, 15, 20, 21.8, 25, 30, 40, 50, 60, 70, 80])
    arms = righting_arms(points, faces, RHO * L * B * T, np.array([0.0, 0.0, zg]), RHO,
                         heels)
    exact = np.array([section_gz(B, D, T, zg, h) for h in heels])
    error = np.abs(arms.gz - exact).max()
    record_property("gz_max_error_m", error)
    np.testing.assert_allclose(arms.gz, exact, atol=1e-9)
    bm = B**2 / (12 * T)
    gm = -T / 2 + bm - zg
    wall = heels <= np.arctan(2 * (D - T) / B) + 1e-12
    np.testing.assert_allclose(arms.gz[wall], np.sin(heels[wall]) * (
        gm + bm * np.tan(heels[wall]) ** 2 / 2), atol=1e-9)
    # past the deck edge the wall-sided formula overestimates: the curve turns over
    assert arms.gz[-1] < arms.gz[-5]


# ------------------------------------------------------------------------ capytaine

def test_against_capytaine(record_property: Callable[[str, Any], None]) -> None:
    """A heeled, trimmed, off-centre box on a fine mesh: volume, waterplane and wetted
    areas agree to round-off with Capytaine's compute_hydrostatics; the centre of
    buoyancy and the stiffness, which Capytaine integrates by one point per panel, to
    its rule's error (measured 1.7e-4 m, 0.05 %), ours being exact (the prism's closed
    form)."""
    capytaine = pytest.importorskip("capytaine")
    mesh = capytaine.mesh_parallelepiped(size=(12.0, 6.0, 4.0), center=(0.0, 0.0, 0.0),
                                         resolution=(48, 24, 16))
    rot = Rotation.from_euler("yx", [0.04, 0.1]).as_matrix()
    points = np.asarray(mesh.vertices) @ rot.T + [0.4, -0.3, 0.5]
    faces = np.asarray(mesh.faces)
    cog = np.array([0.4, -0.3, 0.2])
    mass = 200e3
    body = capytaine.FloatingBody(mesh=capytaine.Mesh(points, faces),
                                  dofs=capytaine.rigid_body_dofs(rotation_center=cog),
                                  center_of_mass=cog, mass=mass)
    ref = body.compute_hydrostatics(rho=RHO, g=G)
    ours = hydrostatics(points, faces, mass, cog, RHO, G)
    np.testing.assert_allclose(ours.wetted.volume, ref["disp_volume"], rtol=1e-12)
    volume, b = box_prism(np.array([12.0, 6.0, 4.0]), rot, np.array([0.4, -0.3, 0.5]))
    np.testing.assert_allclose(ours.wetted.volume, volume, rtol=1e-12)
    np.testing.assert_allclose(ours.wetted.buoyancy_centre, b, atol=1e-12)
    cob = np.abs(ours.wetted.buoyancy_centre - ref["center_of_buoyancy"]).max()
    record_property("cob_diff_m", cob)
    assert cob < 5e-4
    np.testing.assert_allclose(ours.wetted.waterplane_area, ref["waterplane_area"],
                               rtol=1e-10)
    np.testing.assert_allclose(ours.wetted.wetted_area, ref["wet_surface_area"], rtol=1e-10)
    k_ref = np.asarray(ref["hydrostatic_stiffness"].values)
    scale = np.abs(k_ref[2:5, 2:5]).max()
    diff = np.abs(ours.stiffness[2:5, 2:5] - k_ref[2:5, 2:5]).max() / scale
    record_property("stiffness_rel_diff", diff)
    assert diff < 3e-3
