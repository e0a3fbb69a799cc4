"""Regenerate ``cylinder_drift_capytaine.nc``: Capytaine 3.0's hydrodynamic dataset, with
its far-field mean drift force, of a fixed vertical circular cylinder standing on the
seabed, the fixture of ``tests/validation/test_mean_drift.py`` (which compares the drift
with the closed form of the MacCamy-Fuchs diffraction solution).

The cylinder: radius 5 m, standing on the seabed in 50 m of water and piercing the free
surface; sea water (rho 1025 kg/m^3, g 9.81 m/s^2); ten wavenumbers ka = 0.2, 0.4, ...,
2.0 (kh = 10 ka: 2 to 20, finite depth, the depth factor 1 + 2kh/sinh(2kh) is 1.15 at
ka = 0.2); waves travelling towards 0 and 90 degrees (the second checks the sway and
heading mapping through the axial symmetry).

Run it from anywhere (about 10-20 s on one core)::

    python plugins/frylinks_marine/data/make_cylinder_drift.py

What it stores, and how frylinks reads it (``frylinks_marine.capytaine_reader``):

- ``cpt.BEMSolver().fill_dataset`` with a ``theta`` coordinate (Capytaine then keeps the
  sources and adds the Kochin functions ``kochin_diffraction``, ``kochin_radiation``);
- ``cpt.post_pro.far_field_mean_drift_force(X, ds)`` with the motion ``X = 0`` (the
  cylinder is fixed), merged into the dataset: ``drift_force_surge``,
  ``drift_force_sway``, ``drift_force_yaw`` over ``(omega, wave_direction_k,
  wave_direction_l)``, complex, in N/m^2 (N m/m^2 for yaw) per square metre of wave
  amplitude, in Capytaine's (and frylinks') ``exp(-i omega t)``. The diagonal ``k = l``
  is the mean drift of one wave system; frylinks reads it as its
  ``mean_drift_momentum`` table (far field = momentum conservation, WAMIT's ``.8``);
- the Kochin functions are dropped before export (the reader does not need them and they
  are most of the file).

Choices, and why:

- Mesh: the wetted side wall only (no bottom: the cylinder stands on the seabed, which
  the finite-depth Green function already holds), 48 panels around x 50 in height
  (2400 panels), axially symmetric. Refining it to 64 x 80 (5120 panels, 13 times
  slower) changes the drift by less than 1.3 % of its value (the error against the
  closed form drops from at most 4.0 % to at most 3.1 %: see the test's docstring).
- ka <= 2 stays below the first irregular frequency of the side wall (the interior
  Dirichlet problem: ka = j_01 = 2.405), so no lid is needed.
- Depth 10 radii: Capytaine 3.0.0's far-field drift formula is not right in shallower
  water. Measured with this mesh at h = 2 radii, against the closed form: -70 % at
  kh = 0.4, -28 % at kh = 1.0, -3 % at kh = 2, within 1 % for kh >= 3, while its
  first-order surge excitation there agrees with MacCamy-Fuchs within 1 %; the
  difference is in the post-processing of the Kochin functions in finite depth, not the
  BEM solution. At h = 10 radii (kh >= 2 over the range) that error is below the mesh's.
- The Kochin functions over 120 directions, on a grid that holds 0 and 2 pi and extends
  two points beyond each (Capytaine's formula requires the wave directions strictly
  inside the grid).
"""

from __future__ import annotations

import time
from pathlib import Path

import capytaine as cpt
import numpy as np
import xarray as xr

RADIUS = 5.0  # m
DEPTH = 50.0  # m
RHO = 1025.0  # kg/m^3
G = 9.81  # m/s^2
KA = np.round(np.arange(1, 11) * 0.2, 10)  # wavenumber x radius
HEADINGS = [0.0, np.pi / 2]  # rad, the direction the waves travel towards
AROUND_PANELS = 48
HEIGHT_PANELS = 50
KOCHIN_DIRECTIONS = 120

OUT = Path(__file__).with_name("cylinder_drift_capytaine.nc")


def cylinder_body() -> cpt.FloatingBody:
    """The side wall of the cylinder, from the seabed to the free surface, with six
    rigid-body DOFs about the origin on the still-water level (a fixed body: the DOFs
    are only there for the radiation data a hydrodynamic dataset holds)."""
    mesh = cpt.mesh_vertical_cylinder(length=DEPTH, radius=RADIUS,
                                      center=(0.0, 0.0, -DEPTH / 2),
                                      resolution=(0, AROUND_PANELS, HEIGHT_PANELS),
                                      axial_symmetry=True)
    return cpt.FloatingBody(mesh=mesh, dofs=cpt.rigid_body_dofs(rotation_center=(0, 0, 0)),
                            center_of_mass=(0.0, 0.0, 0.0), name="cylinder")


def omegas() -> np.ndarray:
    """The angular frequencies [rad/s] of the wavenumbers ``KA / RADIUS`` at ``DEPTH``."""
    k = KA / RADIUS
    return np.sqrt(G * k * np.tanh(k * DEPTH))


def main() -> None:
    cpt.set_logging("ERROR")
    body = cylinder_body()
    step = 2 * np.pi / KOCHIN_DIRECTIONS
    test_matrix = xr.Dataset(coords={
        "omega": omegas(),
        "wave_direction": HEADINGS,
        "radiating_dof": list(body.dofs),
        "water_depth": [DEPTH],
        "rho": [RHO],
        "g": [G],
        "theta": np.arange(-2, KOCHIN_DIRECTIONS + 3) * step,
    })
    start = time.perf_counter()
    ds = cpt.BEMSolver().fill_dataset(test_matrix, body, hydrostatics=False,
                                      progress_bar=False)
    motion = xr.zeros_like(ds["excitation_force"].rename(influenced_dof="radiating_dof"))
    drift = cpt.post_pro.far_field_mean_drift_force(motion, ds)
    elapsed = time.perf_counter() - start
    ds = ds.drop_vars(["kochin_diffraction", "kochin_radiation", "theta"])
    ds = ds.merge(drift)
    ds.attrs.update({
        "title": "Fixed bottom-mounted vertical circular cylinder (R = 5 m) in 50 m of "
                 "water, with Capytaine's far-field mean drift force",
        "generated_by": "plugins/frylinks_marine/data/make_cylinder_drift.py (frylinks)",
        "hull_panels": body.mesh.nb_faces,
        "mesh": f"side wall, {AROUND_PANELS} x {HEIGHT_PANELS} panels, axially symmetric",
        "mean_drift": "drift_force_surge/sway/yaw: cpt.post_pro.far_field_mean_drift_force "
                      "with the motion X = 0 (fixed body), per m^2 of wave amplitude",
        "solve_time_s": round(elapsed, 1),
    })
    cpt.export_dataset(OUT, ds, format="netcdf")
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e3:.0f} kB): {len(KA)} frequencies, "
          f"{body.mesh.nb_faces} panels, solved in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
