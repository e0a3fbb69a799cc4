"""Regenerate ``sphere_capytaine.nc``: Capytaine's hydrodynamic database of the IEA OES
Task 10 heaving sphere, the fixture of ``tests/validation/test_hydrodb.py``.

The sphere: radius 5 m, centre on the still-water level (half submerged), mass
261.8 t (= rho V with rho = 1000 kg/m^3, so it floats there), centre of gravity and
rotation centre at z = -2 m; deep water; waves at headings 0 and pi/2 (the second one
lets a test check the heading and DOF mapping through the body's axial symmetry).

Run it from anywhere (about five minutes on one core; the first Capytaine run on a
machine also spends ~25 s tabulating its Green function)::

    python plugins/frylinks_marine/data/make_sphere_capytaine.py

``--add-drift`` computes only the mean drift (below) and adds it to the existing file,
leaving every other variable as it is (how the shipped file got it: the runs compare
their results bit for bit, so the first-order data must not change).

Choices, and why:

- 130 frequencies, 0.05 to 6.5 rad/s every 0.05 rad/s, plus omega = inf (Capytaine 3
  solves radiation problems at infinite frequency, giving the exact A_inf the Ogilvie
  estimate is tested against). The radiation damping is below 1e-4 of its peak (in
  units of rho V omega) above 6 rad/s, so the cosine transform to the impulse response
  loses nothing by stopping there; 0.05 rad/s steps resolve the damping peak
  (near 1 rad/s) finely enough for the interpolation to stay well under 1 %.
- Mesh: 30 panels along the immersed meridian x 96 around (2880 panels), axially
  symmetric, so Capytaine solves 96 small systems instead of one dense one (about 4x
  faster); heave added mass and damping are then within ~1-2 % of Hulme (1982).
- A lid on the waterplane (15 x 96 panels) removes the irregular frequencies, which
  for this hemisphere start near omega = 2.2 rad/s (kR = 2.5) and otherwise show as
  spikes in the added mass and damping.
- Hydrostatics: Capytaine 3.0.0 cannot build its hydrostatics dataset for an axially
  symmetric mesh (``compute_hydrostatics_dataset`` wraps the body in a ``Multibody``,
  whose mesh join fails with "set.intersection() needs an argument"), so the stiffness
  is computed by ``FloatingBody.compute_hydrostatic_stiffness`` and added by hand.
- Inertia: Capytaine's ``compute_rigid_body_inertia`` integrates over the hull mesh,
  which for a half-submerged body is open at the waterline and gives wrong moments of
  inertia; the Task 10 definition gives only the mass and the centre of gravity, so
  the stored matrix is the mass and, for the moments of inertia about the centre of
  gravity, those of a uniform solid hemisphere about its centroid
  (Ixx = Iyy = 83/320 m R^2, Izz = 2/5 m R^2). Heave, the DOF of the benchmark, uses
  only the mass.
- Mean drift: Capytaine 3.0's far-field formula, ``cpt.post_pro.far_field_mean_drift_
  force(X, ds)``, from the Kochin functions of a second solve at the finite frequencies
  (``fill_dataset`` with a ``theta`` coordinate: 120 directions over a grid that holds
  0 and 2 pi and extends two points beyond each, as the formula needs the wave
  directions strictly inside it), with ``X`` the motion RAO of the freely floating
  sphere (``cpt.post_pro.rao`` with its inertia and hydrostatic stiffness, radiation
  damping only). Stored as Capytaine writes it, ``drift_force_surge``, ``_sway``,
  ``_yaw`` over ``(omega, wave_direction_k, wave_direction_l)`` per square metre of
  wave amplitude (NaN at omega = inf), which frylinks reads as the
  ``mean_drift_momentum`` table (:func:`frylinks_marine.capytaine_reader.mean_drift_
  tables`). A moored buoy's wave-frequency motion is nearly the free one (its lines
  are soft), so the free body's drift is the one to use; a held body would need ``X``
  of its own. At the highest frequencies (wavelength 1.5 m at 6.5 rad/s, about 5
  panels of the meridian a wavelength) the mesh resolves the waves only coarsely.
  Measured: the surge drift over rho g R (per m^2 of amplitude) is below 1e-4 up to
  0.95 rad/s (the sphere follows the long waves), peaks at 0.78 at 1.6 rad/s (heave
  resonance), and levels at 0.62 to 0.64 from 2.2 rad/s on (0.632 at 6.5 rad/s),
  below the short-wave limit 2/3 of a body wall-sided at the waterline; a mesh twice
  as fine (60 x 192, lid 30 x 192) gives 0.624 instead of 0.623 at 3 rad/s and 0.645
  instead of 0.635 at 5 rad/s, 360 Kochin directions instead of 120 the same to four
  digits. Regenerating the whole file gave the same drift bit for bit and the
  first-order data within 5e-16 of their largest value.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import capytaine as cpt
import numpy as np
import xarray as xr

RADIUS = 5.0  # m
RHO = 1000.0  # kg/m^3
G = 9.81  # m/s^2
MASS = RHO * 2.0 / 3.0 * np.pi * RADIUS**3  # kg, 261.8 t: floats with its centre at z = 0
COG = (0.0, 0.0, -2.0)  # m, also the rotation centre of the rotational DOFs
OMEGA = np.round(np.arange(1, 131) * 0.05, 10)  # rad/s, 0.05 ... 6.5
HEADINGS = [0.0, np.pi / 2]  # rad, direction the waves travel towards
MERIDIAN_PANELS = 30  # along the immersed half meridian
AROUND_PANELS = 96
LID_RINGS = 15
KOCHIN_DIRECTIONS = 120  # of the far-field drift's Kochin functions

OUT = Path(__file__).with_name("sphere_capytaine.nc")


def sphere_body() -> cpt.FloatingBody:
    """The half-immersed sphere with its waterplane lid and six rigid-body DOFs."""
    hull = cpt.mesh_sphere(radius=RADIUS, center=(0.0, 0.0, 0.0),
                           resolution=(2 * MERIDIAN_PANELS, AROUND_PANELS),
                           axial_symmetry=True).immersed_part()
    lid = cpt.mesh_disk(radius=RADIUS, center=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0),
                        resolution=(LID_RINGS, AROUND_PANELS), axial_symmetry=True)
    return cpt.FloatingBody(mesh=hull, lid_mesh=lid,
                            dofs=cpt.rigid_body_dofs(rotation_center=COG),
                            center_of_mass=COG, mass=MASS, name="sphere")


def inertia_matrix(dofs: list[str]) -> xr.DataArray:
    """Rigid-body inertia about the centre of gravity (see the module docstring)."""
    moments = np.array([83.0 / 320.0, 83.0 / 320.0, 2.0 / 5.0]) * MASS * RADIUS**2
    values = np.diag(np.concatenate([[MASS] * 3, moments]))
    return xr.DataArray(values, dims=("influenced_dof", "radiating_dof"),
                        coords={"influenced_dof": dofs, "radiating_dof": dofs})


def mean_drift(body: cpt.FloatingBody, dofs: list[str]) -> xr.Dataset:
    """The far-field mean drift of the freely floating sphere at ``OMEGA`` (see the
    module docstring): ``drift_force_surge``, ``_sway``, ``_yaw``."""
    step = 2 * np.pi / KOCHIN_DIRECTIONS
    test_matrix = xr.Dataset(coords={
        "omega": OMEGA,
        "wave_direction": HEADINGS,
        "radiating_dof": dofs,
        "water_depth": [np.inf],
        "rho": [RHO],
        "g": [G],
        "theta": np.arange(-2, KOCHIN_DIRECTIONS + 3) * step,
    })
    ds = cpt.BEMSolver().fill_dataset(test_matrix, body, hydrostatics=False,
                                      progress_bar=False)
    stiffness = body.compute_hydrostatic_stiffness(rho=RHO, g=G)
    ds["hydrostatic_stiffness"] = stiffness.sel(influenced_dof=dofs, radiating_dof=dofs)
    ds["inertia_matrix"] = inertia_matrix(dofs)
    motion = cpt.post_pro.rao(ds)
    # (the sphere's yaw has no excitation, added mass nor damping: its RAO is 0 / (w^2 I),
    # round-off in practice, but a NaN there would spoil every DOF's drift)
    drift = cpt.post_pro.far_field_mean_drift_force(motion.fillna(0.0), ds)
    return drift


def add_drift() -> None:
    """Add the mean drift to the existing file, every other variable unchanged."""
    cpt.set_logging("ERROR")
    body = sphere_body()
    start = time.perf_counter()
    drift = mean_drift(body, list(body.dofs))
    elapsed = time.perf_counter() - start
    with xr.open_dataset(OUT) as old:
        ds = old.load()
    merge_drift(ds, drift)
    ds.attrs.update(DRIFT_ATTRS)
    ds.attrs["drift_solve_time_s"] = round(elapsed, 1)
    tmp = OUT.with_suffix(".tmp.nc")
    ds.to_netcdf(tmp)
    tmp.replace(OUT)
    print(f"added the mean drift to {OUT}, solved in {elapsed:.0f} s")


def merge_drift(ds: xr.Dataset, drift: xr.Dataset) -> None:
    """Put the complex drift variables into ``ds`` as read from the file (real and
    imaginary parts along ``complex``, NaN at omega = inf), keeping the attributes of
    its coordinates (assigning a variable replaces those of the coordinates it
    carries)."""
    kept = {name: dict(ds[name].attrs) for name in ds.coords}
    for name, var in drift.data_vars.items():
        values = var.reindex(omega=ds["omega"].values)
        values = values.drop_vars([c for c in values.coords if c not in values.dims])
        ds[name] = xr.concat([values.real, values.imag], dim="complex").assign_coords(
            complex=["re", "im"]).transpose("complex", ...)
    for name, attrs in kept.items():
        ds.variables[name].attrs.clear()  # (in place: ds[name] is a copy)
        ds.variables[name].attrs.update(attrs)


DRIFT_ATTRS = {
    "mean_drift": "drift_force_surge/sway/yaw: cpt.post_pro.far_field_mean_drift_force "
                  "with the motion RAO of the freely floating sphere (cpt.post_pro.rao), "
                  "per m^2 of wave amplitude; NaN at omega = inf",
}


def main() -> None:
    cpt.set_logging("ERROR")
    body = sphere_body()
    dofs = list(body.dofs)
    test_matrix = xr.Dataset(coords={
        "omega": np.concatenate([OMEGA, [np.inf]]),
        "wave_direction": HEADINGS,
        "radiating_dof": dofs,
        "water_depth": [np.inf],
        "rho": [RHO],
        "g": [G],
    })
    start = time.perf_counter()
    ds = cpt.BEMSolver().fill_dataset(test_matrix, body, hydrostatics=False,
                                      progress_bar=False)
    elapsed = time.perf_counter() - start
    drift = mean_drift(body, dofs)

    stiffness = body.compute_hydrostatic_stiffness(rho=RHO, g=G)
    ds["hydrostatic_stiffness"] = stiffness.sel(influenced_dof=dofs, radiating_dof=dofs)
    ds["inertia_matrix"] = inertia_matrix(dofs)
    ds.coords["center_of_mass"] = ("space_coordinate", list(COG))
    # NaN at omega = inf; the coordinates' attributes are the first-order dataset's
    ds = ds.merge(drift.reindex(omega=ds["omega"].values), combine_attrs="override")
    ds.attrs.update(DRIFT_ATTRS)
    ds.attrs.update({
        "title": "IEA OES Task 10 heaving sphere (R = 5 m, half submerged, "
                 "COG and rotation centre at z = -2 m), deep water",
        "generated_by": "plugins/frylinks_marine/data/make_sphere_capytaine.py (frylinks)",
        "hull_panels": body.mesh.nb_faces,
        "lid_panels": body.lid_mesh.nb_faces,
        "mesh": f"sphere, {MERIDIAN_PANELS} x {AROUND_PANELS} immersed panels, axially "
                f"symmetric; lid {LID_RINGS} x {AROUND_PANELS}",
        "inertia_note": "mass rho V; moments of a uniform solid hemisphere about its "
                        "centroid, taken about the COG (Task 10 gives mass and COG only)",
        "solve_time_s": round(elapsed, 1),
    })
    cpt.export_dataset(OUT, ds, format="netcdf")
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e3:.0f} kB): {len(OMEGA)} frequencies "
          f"+ inf, {body.mesh.nb_faces} hull + {body.lid_mesh.nb_faces} lid panels, "
          f"solved in {elapsed:.0f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--add-drift", action="store_true",
                        help="only compute the mean drift and add it to the existing file")
    if parser.parse_args().add_drift:
        add_drift()
    else:
        main()
