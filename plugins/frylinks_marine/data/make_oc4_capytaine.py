"""Regenerate ``oc4_semi_capytaine.nc``: Capytaine's first-order hydrodynamic database of
the OC4 DeepCwind semi-submersible, the excitation ``cases/oc4_semi.yaml`` uses (the
WAMIT run shipped in ``wamit/`` has no ``.3`` excitation file) and the fixture of
``tests/validation/test_oc4_bem.py``, which checks its added mass and damping against
that WAMIT run.

Geometry (Robertson et al. 2014, *Definition of the semisubmersible floating system for
Phase II of OC4*, NREL/TP-5000-60601; checked against the member table of OpenFAST's
OC4 HydroDyn input, ``docs/source/user/hydrodyn/appendix.rst``): a main column of
6.5 m diameter from z = -20 m to +10 m on the platform's axis; three offset columns at
28.87 m from it, at (14.434, 25), (-28.868, 0) and (14.434, -25) m, each a 12 m upper
column from z = -14 m to +12 m on a 24 m base column from z = -20 m to -14 m. Only the
wetted part (below z = 0) is meshed: the side and bottom of the main column, the side of
each upper column, the top ring, side and bottom of each base column.

Left out: the pontoons and braces (1.6 m diameter; under water the three lower delta
pontoons, the three lower Y pontoons and part of the three cross braces, about 180 m
and 360 m^3 of the 13917 m^3 displacement; the upper pontoons are 10 m above the water).
OpenFAST's WAMIT model includes them (its HydroDyn input marks them ``PropPot``, and
``PtfmVol0 = 13917`` is the volume with them); meshing their intersections with the
columns is not worth it for a 1.6 m member. Their absence, not the mesh, is the
difference to the WAMIT run that the validation test measures (5.4 % of the heave added
mass, 2.6 % of the pitch one): a mesh of 2.2 times the panels (4896 + 648, 48 around
an offset column) moved the added mass by 0.1 % in heave and pitch and 1 % in surge at
0.5, 1, 1.5 rad/s and infinite frequency, the damping by 0.3 to 7 %.

Run it from anywhere (about eighteen minutes on one core)::

    python plugins/frylinks_marine/data/make_oc4_capytaine.py

Choices, and why:

- Water depth 200 m (finite depth), as the OC4 site and the WAMIT run: the WAMIT file's
  low-frequency damping (heave at 0.1 rad/s: 179 rho omega) is the finite-depth value
  (Capytaine: 192 at 200 m, 68 in deep water). rho 1025 kg/m^3, g 9.80665 m/s^2
  (OpenFAST's, with which the WAMIT files are made dimensional).
- Rotation centre (0, 0, 0), the platform reference point on the still-water level,
  where WAMIT's coefficients are: the two codes compare without moving either. The
  dataset records it and the centre of mass (0, 0, -13.46) m, so frylinks' reader moves
  the coefficients to the COG unless told another point.
- 91 frequencies: every 0.05 rad/s from 0.05 to 0.9 rad/s, every 0.025 rad/s to
  1.7 rad/s (and 0.0125 between 1.275 and 1.35), every 0.05 rad/s to 3 rad/s, every
  0.1 rad/s to 4 rad/s (and 3.25, 3.75); and omega = inf (the exact A_inf). Above
  0.9 rad/s the damping has the sharp humps and notches of the waves between the
  columns (the surge damping rises from a quarter of its peak to its peak between 0.95
  and 1.1 rad/s, the heave damping falls by half between 1.3 and 1.35): with 0.05 rad/s
  steps there, and coarser ones above 1.6 rad/s, frylinks' grid check
  (``frequency_grid_problems``) found midpoint interpolation errors of 2 to 15 % of the
  peak damping; with these steps its check passes. The tail to 4 rad/s (surge damping
  3 %, pitch about the COG 5 % of the peak there) is what the impulse response needs.
  Above about 3 rad/s (wavelength 7 m) the panels of the upper columns (1.2 m around)
  resolve the waves coarsely.
- Headings 0, 30, 60, 90, 180 degrees (the extra diffraction problems share each
  frequency's factorised matrix, so they cost little): the platform has a 120-degree
  symmetry, and 0-60 degrees with the xOz reflection covers it.
- Mesh: the columns as bodies of revolution, 32 panels around each offset column and
  16 around the main column (2208 hull panels), and lids on the four waterplanes (320
  panels) to remove the irregular frequencies. The mesh is stored as a half
  (y >= 0) with its reflection in the xOz plane, which halves the work.
- Hydrostatics and inertia are not stored: the case uses WAMIT's ``.hst`` (it includes
  the pontoons) and the platform's mass properties from the definition report.
"""

from __future__ import annotations

import time
from pathlib import Path

import capytaine as cpt
import numpy as np
import xarray as xr
from capytaine.io.xarray import separate_complex_values
from capytaine.meshes.meshes import Mesh

RHO = 1025.0  # kg/m^3
G = 9.80665  # m/s^2
DEPTH = 200.0  # m
COG = (0.0, 0.0, -13.46)  # m, the platform's centre of mass (definition report)
ROTATION_CENTER = (0.0, 0.0, 0.0)  # m, WAMIT's reference point
OMEGA = np.round(np.concatenate([np.arange(1, 19) * 0.05,          # 0.05 ... 0.9
                                 0.9 + np.arange(1, 33) * 0.025,   # 0.925 ... 1.7
                                 [1.2875, 1.3125, 1.3375],         # heave's sharp drop
                                 1.7 + np.arange(1, 27) * 0.05,    # 1.75 ... 3.0
                                 3.0 + np.arange(1, 11) * 0.1,     # 3.1 ... 4.0
                                 [3.25, 3.75]]), 10)  # rad/s
OMEGA = np.unique(OMEGA)
HEADINGS_DEG = [0.0, 30.0, 60.0, 90.0, 180.0]  # direction the waves travel towards

MAIN_RADIUS = 3.25  # m
UPPER_RADIUS = 6.0
BASE_RADIUS = 12.0
DRAFT = 20.0
BASE_TOP = -14.0  # m, top of the base columns
OFFSET_COLUMNS = ((14.43376, 25.0), (-28.86751, 0.0), (14.43376, -25.0))  # (x, y) [m]
AROUND_OFFSET = 32  # panels around an offset column
AROUND_MAIN = 16

OUT = Path(__file__).with_name("oc4_semi_capytaine.nc")


def profile(*segments: tuple[tuple[float, float], tuple[float, float], int]
            ) -> list[tuple[float, float]]:
    """The points ``(r, z)`` of a meridian made of straight segments ``(start, end,
    nb_panels)``, each segment starting where the previous one ended."""
    points: list[tuple[float, float]] = []
    for start, end, count in segments:
        a, b = np.asarray(start, float), np.asarray(end, float)
        new = [tuple(a + (b - a) * s) for s in np.linspace(0.0, 1.0, count + 1)]
        points += new if not points else new[1:]
    return points


def revolved(meridian: list[tuple[float, float]], nb_around: int,
             center: tuple[float, float]) -> Mesh:
    """The surface of revolution of ``meridian`` about the vertical through ``center``.

    Panels run from one meridian point to the next (their normals point out of the body
    when the meridian goes from the bottom's centre outwards and up); a point on the
    axis (r = 0) makes triangles. The first meridian lies in the plane y = center y, so
    a column centred on y = 0 has vertices on it and splits exactly into halves.
    """
    angles = np.linspace(0.0, 2.0 * np.pi, nb_around, endpoint=False)
    vertices: list[tuple[float, float, float]] = []
    index: dict[tuple[int, int], int] = {}
    for i, (r, z) in enumerate(meridian):
        for k, angle in enumerate(angles):
            if r == 0.0 and k > 0:
                index[i, k] = index[i, 0]
                continue
            index[i, k] = len(vertices)
            vertices.append((center[0] + r * np.cos(angle), center[1] + r * np.sin(angle), z))
    faces = []
    for i in range(len(meridian) - 1):
        for k in range(nb_around):
            quad = [index[i, k], index[i, (k + 1) % nb_around],
                    index[i + 1, (k + 1) % nb_around], index[i + 1, k]]
            faces.append(list(dict.fromkeys(quad)))  # a triangle at the axis
    return Mesh(vertices=np.array(vertices), faces=faces)


def joined(meshes: list[Mesh]) -> Mesh:
    vertices, faces, offset = [], [], 0
    for mesh in meshes:
        vertices.append(mesh.vertices)
        faces += [[offset + v for v in face] for face in _face_lists(mesh)]
        offset += mesh.nb_vertices
    return Mesh(vertices=np.concatenate(vertices), faces=faces)


def _face_lists(mesh: Mesh) -> list[list[int]]:
    # Capytaine stores triangles as quads with the last vertex repeated
    return [list(dict.fromkeys(int(v) for v in face)) for face in mesh.faces]


def half_symmetric(mesh: Mesh) -> cpt.ReflectionSymmetricMesh:
    """``mesh`` (symmetric about y = 0, no panel crossing it) as its y > 0 half and the
    reflection in the xOz plane."""
    half = mesh.extract_faces(np.flatnonzero(mesh.faces_centers[:, 1] > 0.0))
    if 2 * half.nb_faces != mesh.nb_faces:
        raise ValueError("mesh is not split evenly by the plane y = 0")
    return cpt.ReflectionSymmetricMesh(half=half, plane="xOz")


def hull_and_lid() -> tuple[cpt.ReflectionSymmetricMesh, cpt.ReflectionSymmetricMesh]:
    """The wetted surface of the columns and the lids of their waterplanes."""
    main = profile(((0.0, -DRAFT), (MAIN_RADIUS, -DRAFT), 2),
                   ((MAIN_RADIUS, -DRAFT), (MAIN_RADIUS, 0.0), 10))
    offset = profile(((0.0, -DRAFT), (BASE_RADIUS, -DRAFT), 6),
                     ((BASE_RADIUS, -DRAFT), (BASE_RADIUS, BASE_TOP), 4),
                     ((BASE_RADIUS, BASE_TOP), (UPPER_RADIUS, BASE_TOP), 3),
                     ((UPPER_RADIUS, BASE_TOP), (UPPER_RADIUS, 0.0), 8))
    hull = joined([revolved(main, AROUND_MAIN, (0.0, 0.0))]
                  + [revolved(offset, AROUND_OFFSET, c) for c in OFFSET_COLUMNS])
    lid = joined([revolved(profile(((0.0, 0.0), (MAIN_RADIUS, 0.0), 2)), AROUND_MAIN,
                           (0.0, 0.0))]
                 + [revolved(profile(((0.0, 0.0), (UPPER_RADIUS, 0.0), 3)), AROUND_OFFSET, c)
                    for c in OFFSET_COLUMNS])
    return half_symmetric(hull), half_symmetric(lid)


def oc4_body() -> cpt.FloatingBody:
    hull, lid = hull_and_lid()
    return cpt.FloatingBody(mesh=hull, lid_mesh=lid,
                            dofs=cpt.rigid_body_dofs(rotation_center=ROTATION_CENTER),
                            center_of_mass=COG, name="oc4_semi")


def save_compressed(ds: xr.Dataset, path: Path) -> None:
    """Capytaine's netCDF export (complex values as a (re, im) ``complex`` dimension,
    DOF names as strings), compressed: ``cpt.export_dataset`` takes no encoding."""
    out = separate_complex_values(ds)
    for dim in ("radiating_dof", "influenced_dof"):
        out[dim] = out[dim].astype("str")
    encoding: dict[str, dict[str, object]] = {
        name: {"zlib": True, "complevel": 9} for name in out.data_vars}
    encoding.update({dim: {"dtype": "U"} for dim in ("radiating_dof", "influenced_dof")})
    out.to_netcdf(path, encoding=encoding)


def main() -> None:
    cpt.set_logging("ERROR")
    body = oc4_body()
    test_matrix = xr.Dataset(coords={
        "omega": np.concatenate([OMEGA, [np.inf]]),
        "wave_direction": np.radians(HEADINGS_DEG),
        "radiating_dof": list(body.dofs),
        "water_depth": [DEPTH],
        "rho": [RHO],
        "g": [G],
    })
    start = time.perf_counter()
    ds = cpt.BEMSolver().fill_dataset(test_matrix, body, hydrostatics=False,
                                      progress_bar=False, n_jobs=1)
    elapsed = time.perf_counter() - start
    ds.coords["rotation_center"] = ("space_coordinate", list(ROTATION_CENTER))
    ds.coords["center_of_mass"] = ("space_coordinate", list(COG))
    ds.attrs.update({
        "title": "OC4 DeepCwind semi-submersible, columns only (no pontoons or braces), "
                 "200 m water depth, coefficients about (0, 0, 0)",
        "geometry": "Robertson et al. 2014, NREL/TP-5000-60601; OpenFAST OC4 HydroDyn input",
        "generated_by": "plugins/frylinks_marine/data/make_oc4_capytaine.py (frylinks)",
        "capytaine_version": cpt.__version__,
        "hull_panels": body.mesh.nb_faces,
        "lid_panels": body.lid_mesh.nb_faces,
        "mesh": f"columns as bodies of revolution, {AROUND_OFFSET} panels around an "
                f"offset column, {AROUND_MAIN} around the main column; lids on the "
                "waterplanes; stored as a half with its xOz reflection",
        "displaced_volume_m3": round(float(body.volume), 1),
        "solve_time_s": round(elapsed, 1),
    })
    keep = ("added_mass", "radiation_damping", "diffraction_force", "Froude_Krylov_force",
            "excitation_force")
    ds = ds.drop_vars([v for v in ds.data_vars if v not in keep])
    save_compressed(ds, OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e3:.0f} kB): {len(OMEGA)} frequencies "
          f"+ inf, {len(HEADINGS_DEG)} headings, {body.mesh.nb_faces} hull + "
          f"{body.lid_mesh.nb_faces} lid panels, volume {body.volume:.0f} m^3, solved "
          f"in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
