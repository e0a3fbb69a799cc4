"""The hydrodynamic data layer (``frylinks_marine.hydrodb``, ``.dofs``, ``.bem``) as the
force types use it: several bodies (``read_capytaine_bodies``, ``hydrodynamics_body``),
the density rule, the checks of the frequency grid and the symmetry rule of added
masses.
"""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
from frylinks_marine.capytaine_reader import read_capytaine, read_capytaine_bodies
from frylinks_marine.dofs import (
    ASYMMETRY_LIMIT,
    ASYMMETRY_ROUND_OFF,
    added_mass_asymmetry,
    symmetric_added_mass,
)
from frylinks_marine.frequency_grid import frequency_grid_problems
from frylinks_marine.hydro_files import read_hydrodynamics_bodies
from frylinks_marine.hydrodb import DatasetBodyError, HydroDatabase

import frylinks
from frylinks.errors import CaseError, ModelError

DATA = Path(__file__).parents[1] / "plugins" / "frylinks_marine" / "data"
SPHERE = DATA / "sphere_capytaine.nc"
RM3 = DATA / "rm3_hydrodynamics.nc"
RM3_COG = {"rm3_float": [0.0, 0.0, -0.72], "rm3_spar": [0.0, 0.0, -21.29]}
DOFS = ("Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw")


def quiet(call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call`` without its warnings (RM3 records no rotation centre)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


# --------------------------------------------------------------------------------------
# Several bodies
# --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rm3() -> Any:
    return quiet(read_capytaine_bodies, RM3, cog=RM3_COG)


def test_rm3_all_bodies_against_the_dataset_and_the_single_reads(rm3: Any) -> None:
    """12 x 12 in frylinks' order: entry [k, i, j] is the dataset's (influenced i,
    radiating j) value; the diagonal blocks are exactly the single-body reads (A_inf
    included: Ogilvie's estimate is entry by entry); each body's excitation is its own."""
    assert rm3.bodies == ("rm3_float", "rm3_spar")
    assert rm3.added_mass.shape == (260, 12, 12) and rm3.excitation.shape == (260, 1, 12)
    assert rm3.added_mass_inf_source == "ogilvie"
    raw = xr.open_dataset(RM3).load()
    for (bi, di), (bj, dj) in ((("rm3_float", 2), ("rm3_spar", 2)),
                               (("rm3_spar", 4), ("rm3_float", 0)),
                               (("rm3_float", 4), ("rm3_float", 0))):
        i = rm3.bodies.index(bi) * 6 + di
        j = rm3.bodies.index(bj) * 6 + dj
        for name in ("added_mass", "radiation_damping"):
            expected = raw[name].sel(influenced_dof=f"{bi}__{DOFS[di]}",
                                     radiating_dof=f"{bj}__{DOFS[dj]}").values
            np.testing.assert_array_equal(getattr(rm3, name)[:, i, j], expected)
    for b, name in enumerate(rm3.bodies):
        single = quiet(read_capytaine, RM3, body=name, cog=RM3_COG[name])
        block = rm3.body(name)
        s = slice(6 * b, 6 * b + 6)
        for key in ("added_mass", "radiation_damping", "excitation", "added_mass_inf",
                    "hydrostatic_stiffness", "inertia"):
            np.testing.assert_allclose(getattr(block, key), getattr(single, key), rtol=1e-12,
                                       atol=0.0, err_msg=f"{name} {key}")
        np.testing.assert_allclose(rm3.added_mass_inf[s, s], single.added_mass_inf,
                                   rtol=1e-12)
        np.testing.assert_array_equal(rm3.centers_of_mass[b], RM3_COG[name])
        assert block.body == name and block.label.endswith(f"body '{name}'")


def test_rm3_symmetry(rm3: Any) -> None:
    """Reciprocity makes the 12 x 12 matrices symmetric; Capytaine's data are so to
    their accuracy only (the float's surge-pitch terms differ most). The whole A_inf is
    within what the symmetry rule accepts, and symmetrised it is symmetric positive
    definite: the mass matrix a body-to-body model adds."""
    asymmetry, i, j = added_mass_asymmetry(rm3.added_mass_inf)
    assert ASYMMETRY_ROUND_OFF < asymmetry < ASYMMETRY_LIMIT
    assert (i, j) == (0, 4)  # float surge-pitch
    with pytest.warns(UserWarning, match="float surge-pitch|body 1 surge and body 1 pitch"):
        sym = symmetric_added_mass(rm3.added_mass_inf, "RM3's A_inf")
    np.testing.assert_array_equal(sym, sym.T)
    assert np.linalg.eigvalsh(sym).min() > 0
    assert read_hydrodynamics_bodies(RM3).bodies == rm3.bodies  # the dispatcher


def test_a_symmetric_dataset_stays_symmetric() -> None:
    """Two bodies, symmetric random coefficients, the influenced DOFs listed in another
    order than the radiating ones: the 12 x 12 arrays come out exactly symmetric (rows
    and columns mapped alike)."""
    rng = np.random.default_rng(1)
    names = [f"{b}__{d}" for b in ("a", "b") for d in DOFS]
    order = rng.permutation(12)
    a = rng.normal(size=(3, 12, 12))
    a = a + np.swapaxes(a, 1, 2)
    ds = xr.Dataset(
        {"added_mass": (("omega", "influenced_dof", "radiating_dof"), a[:, order][:, :, :]),
         "radiation_damping": (("omega", "influenced_dof", "radiating_dof"), a[:, order]),
         "excitation_force": (("omega", "wave_direction", "influenced_dof"),
                              rng.normal(size=(3, 1, 12)) + 0j)},
        coords={"omega": [0.5, 1.0, 1.5], "influenced_dof": [names[k] for k in order],
                "radiating_dof": names, "wave_direction": [0.0]})
    m = read_capytaine_bodies(ds)
    assert m.bodies == ("a", "b")
    np.testing.assert_array_equal(m.added_mass, np.swapaxes(m.added_mass, 1, 2))
    np.testing.assert_array_equal(m.added_mass, a)


def rm3_system(**extra: Any) -> frylinks.System:
    s = frylinks.System()
    s.add_body("float", mass=725833.0, inertia=[2.09e7, 2.13e7, 3.71e7],
               position=[0, 0, -0.72])
    s.configure("environment", water_density=1000.0)
    return s


def test_hydrodynamics_body_names_the_dataset_body() -> None:
    """Each type reading a dataset takes hydrodynamics_body; without it a multi-body
    dataset is refused with its bodies listed and the key named."""
    for kind in ("wave_excitation", "radiation", "linear_hydrostatics"):
        s = rm3_system()
        with pytest.raises(ModelError) as err:
            s.add_force("f", kind, body="float", hydrodynamics=str(RM3))
        assert err.value.path == "forces.f.hydrodynamics_body"
        assert "several bodies (rm3_float, rm3_spar)" in str(err.value)
        assert "hydrodynamics_body: rm3_float" in str(err.value)
        with pytest.raises(ModelError, match="no body 'float'; bodies: rm3_float, rm3_spar"):
            s.add_force("f", kind, body="float", hydrodynamics=str(RM3),
                        hydrodynamics_body="float")
    s = rm3_system()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind in ("wave_excitation", "radiation", "linear_hydrostatics"):
            s.add_force(kind, kind, body="float", hydrodynamics=str(RM3),
                        hydrodynamics_body="rm3_float")
        ds = s.run(t_end=0.2, dt=0.05)
    single = quiet(read_capytaine, RM3, body="rm3_float")
    k = single.hydrostatic_stiffness
    assert k is not None
    # released at its equilibrium in still water: the hydrostatics hold it there
    np.testing.assert_allclose(ds.body_position.sel(body="float").values[-1], [0, 0, -0.72],
                               atol=1e-9)


def test_hydrodynamics_body_in_a_case_file(tmp_path: Path) -> None:
    case = tmp_path / "rm3.yaml"
    case.write_text(textwrap.dedent(f"""\
        frylinks: 1
        name: float
        bodies:
          float: {{mass: 725833.0, inertia: [2.09e7, 2.13e7, 3.71e7], position: [0, 0, -0.72]}}
        forces:
          exc: {{type: wave_excitation, body: float, hydrodynamics: {RM3}}}
        solver: {{t_end: 0.1, dt: 0.05}}
        """))
    with pytest.raises(CaseError) as err:
        frylinks.load_case(case)
    text = str(err.value)
    assert "rm3.yaml" in text and "forces.exc.hydrodynamics_body" in text
    assert "rm3_float, rm3_spar" in text
    case.write_text(case.read_text().replace(f"hydrodynamics: {RM3}}}",
                                             f"hydrodynamics: {RM3}, "
                                             "hydrodynamics_body: rm3_spar}"))
    quiet(frylinks.load_case, case)


def test_python_readers_name_body_equals() -> None:
    with pytest.raises(DatasetBodyError, match=r"choose one with body= \(for instance "
                                               r"body=rm3_float\)") as err:
        read_capytaine(RM3)
    assert err.value.bodies == ("rm3_float", "rm3_spar")
    assert err.value.keyed("hydrodynamics_body").path == "hydrodynamics_body"


# --------------------------------------------------------------------------------------
# The density rule
# --------------------------------------------------------------------------------------

def test_at_density_scales_every_water_coefficient() -> None:
    db = read_capytaine(SPHERE)
    denser = db.at_density(1025.0)
    r = 1.025
    assert denser.rho == 1025.0 and db.at_density(1000.0) is db
    for name in ("added_mass", "radiation_damping", "excitation", "added_mass_inf",
                 "hydrostatic_stiffness"):
        np.testing.assert_allclose(getattr(denser, name), getattr(db, name) * r, rtol=1e-14,
                                   err_msg=name)
    np.testing.assert_array_equal(denser.inertia, db.inertia)  # the body's, not the water's
    m = quiet(read_capytaine_bodies, RM3).at_density(1025.0)
    assert m.rho == 1025.0 and m.hydrostatic_stiffness is not None
    with pytest.raises(ModelError, match="water density > 0"):
        db.at_density(0.0)


def test_linear_hydrostatics_from_a_dataset_follows_the_density() -> None:
    """The stiffness a dataset gives is scaled by the environment's density; a stiffness
    the user gives is not."""
    db = read_capytaine(SPHERE)
    assert db.hydrostatic_stiffness is not None
    k33 = db.hydrostatic_stiffness[2, 2]
    forces = {}
    for given in (False, True):
        s = frylinks.System()
        s.add_body("b", mass=2.618e5, inertia=[1e6, 1e6, 1e6], position=[0, 0, -1.9])
        s.configure("environment", water_density=1025.0)
        params: dict[str, Any] = ({"stiffness": {"heave": k33}} if given
                                  else {"hydrodynamics": str(SPHERE)})
        s.add_force("hs", "linear_hydrostatics", body="b", equilibrium=[0, 0, -2.0], **params)
        ds = s.run(t_end=0.01, dt=0.01)
        forces[given] = float(ds.force_force.sel(force="hs", xyz="z").values[0])
    weight = 2.618e5 * 9.81
    assert forces[False] - weight == pytest.approx(-1.025 * k33 * 0.1, rel=1e-9)
    assert forces[True] - weight == pytest.approx(-k33 * 0.1, rel=1e-9)


# --------------------------------------------------------------------------------------
# The frequency grid
# --------------------------------------------------------------------------------------

def write(ds: xr.Dataset, path: Path) -> Path:
    from capytaine.io.xarray import separate_complex_values

    separate_complex_values(ds).to_netcdf(path)
    return path


def test_truncated_and_coarse_grids_are_reported(tmp_path: Path) -> None:
    """The sphere stopped at 3 rad/s (surge damping still 54 % of its peak) and taken
    every 0.4 rad/s: a warning per DOF naming the file, the DOF and the frequency, when
    the radiation force is added; the full dataset gives none."""
    raw = xr.open_dataset(SPHERE).load()
    assert frequency_grid_problems(read_capytaine(raw)) == []
    truncated = write(raw.sel(omega=raw.omega[(raw.omega <= 3.0) | np.isinf(raw.omega)]),
                      tmp_path / "truncated.nc")
    coarse = write(raw.isel(omega=np.r_[np.arange(7, 130, 8), 130]), tmp_path / "coarse.nc")
    s = frylinks.System()
    s.add_body("b", mass=2.618e5, inertia=[1e6, 1e6, 1e6])
    with pytest.warns(UserWarning) as record:
        s.add_force("rad", "radiation", body="b", hydrodynamics=str(truncated))
    messages = [str(w.message) for w in record]
    surge = next(m for m in messages if "damping of surge" in m)
    assert "truncated.nc" in surge and "still 54% of its peak" in surge
    assert "last frequency, 3 rad/s" in surge and "11.9%" in surge
    assert not any("of heave" in m for m in messages)  # heave's tail is negligible there
    with pytest.warns(UserWarning) as record:
        s.add_force("rad2", "radiation", body="b", hydrodynamics=str(coarse))
    heave = [str(w.message) for w in record if "damping of heave" in str(w.message)]
    assert len(heave) == 1 and "coarse.nc" in heave[0]
    assert "changes too fast between data frequencies near 1.2 rad/s" in heave[0]
    assert "frequency step, 0.4 rad/s" in heave[0]


def test_rm3_spar_outlier_is_reported() -> None:
    problems = frequency_grid_problems(quiet(read_capytaine, RM3, body="rm3_spar"))
    assert len(problems) == 1
    assert "body 'rm3_spar'" in problems[0] and "heave" in problems[0]
    assert "near 0.64 rad/s" in problems[0] and "outlier" in problems[0]


# --------------------------------------------------------------------------------------
# The symmetry rule of added masses
# --------------------------------------------------------------------------------------

def test_added_mass_rule_both_branches() -> None:
    """Slightly non-symmetric: used symmetrised with a warning stating the asymmetry
    and the DOFs; far from symmetric or negative: refused."""
    m = np.diag([1e5, 1e5, 2e5, 1e7, 1e7, 1e6])
    m[0, 4], m[4, 0] = 3e5, 3.3e5  # sqrt(1e5 1e7) = 1e6: asymmetry 0.015
    s = frylinks.System()
    s.add_body("b", mass=1e5, inertia=[1e6, 1e6, 1e6])
    with pytest.warns(UserWarning, match=r"not symmetric \(relative asymmetry 0.015, "
                                         r"largest between surge and pitch: 3e\+05 and "
                                         r"3.3e\+05\)"):
        s.add_force("am", "added_mass", body="b", matrix=m.tolist())
    block = s.registry.types["force"]["added_mass"].cls([{"body": "b", "matrix": m.tolist()}],
                                                         [])
    np.testing.assert_array_equal(block.added_mass()[0], 0.5 * (m + m.T))
    swapped = m.copy()
    swapped[4, 0] = -8e5  # the two estimates 1.1 apart: (0.3 + 0.8) / 2 > 0.5
    with pytest.raises(ModelError, match=r"far from symmetric \(relative asymmetry 0.55 "
                                         r"between surge and pitch.*accepted: up to 0.5") as err:
        s.add_force("bad", "added_mass", body="b", matrix=swapped.tolist())
    assert err.value.path == "forces.bad.matrix"
    with pytest.raises(ModelError, match="must not be negative"):
        s.add_force("neg", "added_mass", body="b", matrix={"heave": -1.0e4})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # round-off passes silently
        tiny = m.copy()
        tiny[4, 0] = m[0, 4] * (1 + 1e-9)
        s.add_force("ok", "added_mass", body="b", matrix=tiny.tolist())


def asymmetric_sphere(tmp_path: Path, factor: float) -> Path:
    """The sphere dataset with its omega = inf surge-pitch term multiplied by ``factor``
    on one side only."""
    raw = xr.open_dataset(SPHERE).load()
    inf = raw.added_mass.sel(omega=np.inf, influenced_dof="Pitch", radiating_dof="Surge")
    raw["added_mass"].loc[{"omega": np.inf, "influenced_dof": "Pitch",
                           "radiating_dof": "Surge"}] = float(inf) * factor
    return write(raw, tmp_path / f"asymmetric_{factor}.nc")


def test_radiation_applies_the_same_rule_and_runs(tmp_path: Path) -> None:
    """The sphere's A_inf surge-pitch term made 20 % smaller on one side: warned,
    symmetrised, and a run with surge and pitch motion stays finite and matches the
    run on the symmetric average put in by hand; made of the wrong sign: refused."""
    path = asymmetric_sphere(tmp_path, 0.8)
    s = frylinks.System()
    s.add_body("b", mass=2.618e5, inertia=[3e6, 3e6, 3e6], position=[0, 0, -2.0],
               velocity=[0.3, 0, 0], angular_velocity=[0, 0.05, 0])
    with pytest.warns(UserWarning, match=r"asymmetric_0.8.nc.*infinite-frequency added mass "
                                         r"is not symmetric.*surge and pitch"):
        s.add_force("rad", "radiation", body="b", hydrodynamics=str(path))
    s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=str(SPHERE))
    ds = s.run(t_end=2.0, dt=0.02)
    assert np.isfinite(ds.body_position.values).all()
    block = s.registry.types["force"]["radiation"].cls(
        [{"body": "b", "hydrodynamics": str(path), "hydrodynamics_body": None,
          "fit_tolerance": 0.02, "state_space": "fit"}], [])
    a = block.added_mass()[0]
    np.testing.assert_array_equal(a, a.T)
    original = read_capytaine(SPHERE).added_mass_inf
    assert a[0, 4] == pytest.approx(original[0, 4] * 0.9, rel=1e-6)
    wrong = asymmetric_sphere(tmp_path, -1.0)
    with pytest.raises(ModelError, match="far from symmetric") as err:
        s.add_force("rad2", "radiation", body="b", hydrodynamics=str(wrong))
    assert err.value.path == "forces.rad2.hydrodynamics"


def test_database_kernel_and_state_space_shapes_are_checked() -> None:
    base = read_capytaine(SPHERE)
    with pytest.raises(ModelError, match="both kernel_time and kernel"):
        HydroDatabase(omega=base.omega, added_mass=base.added_mass,
                      radiation_damping=base.radiation_damping, excitation=base.excitation,
                      headings=base.headings, added_mass_inf=base.added_mass_inf,
                      kernel_time=np.zeros(3))


def _two_bodies(**radiation: Any) -> frylinks.System:
    s = rm3_system()
    s.add_body("spar", mass=8.866878e5, inertia=[9.44e7, 9.44e7, 2.85e7],
               position=[0, 0, -21.29])
    s.configure("environment", water_density=1025.0)
    for body in ("float", "spar"):
        s.add_force(f"{body}_rad", "radiation", body=body, hydrodynamics=str(RM3),
                    hydrodynamics_body=f"rm3_{body}", **radiation.get(body, {}))
    return s


def test_bodies_of_one_dataset_interact_through_their_mass_matrix() -> None:
    """By default the radiation forces of one multi-body dataset interact: the model's
    mass couples the bodies with the dataset's cross-body A_inf (symmetrised, at the
    water's density), their own blocks stay theirs; ``interaction: false`` has none."""
    from frylinks.engine import assemble

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = assemble(_two_bodies())
        alone = assemble(_two_bodies(float={"interaction": False},
                                     spar={"interaction": False}))
    m = quiet(read_capytaine_bodies, RM3)
    dofs = np.concatenate([6 * m.bodies.index(b) + np.arange(6)
                           for b in ("rm3_float", "rm3_spar")])
    a_inf = m.added_mass_inf[np.ix_(dofs, dofs)]
    a_inf = 0.5 * (a_inf + a_inf.T) * 1025.0 / 1000.0
    assert model.mass_coupling is not None and alone.mass_coupling is None
    coupled, C = model.mass_coupling
    np.testing.assert_array_equal(coupled, [0, 1])
    np.testing.assert_allclose(C[:6, 6:], a_inf[:6, 6:], rtol=1e-12)
    np.testing.assert_array_equal(C[:6, :6], 0.0)
    assert model.added_mass is not None and alone.added_mass is not None
    np.testing.assert_allclose(model.added_mass[1], a_inf[6:, 6:], rtol=1e-12)
    np.testing.assert_allclose(alone.added_mass, model.added_mass, rtol=1e-12)
    assert model.force_blocks[0].kind.nb_states > alone.force_blocks[0].kind.nb_states


def test_interaction_errors_name_the_key() -> None:
    with pytest.raises(ModelError, match="expected true or false") as err:
        _two_bodies(float={"interaction": "yes"})
    assert err.value.path == "forces.float_rad.interaction"
    from frylinks.engine import assemble

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ModelError, match="differ in interaction") as err:
            assemble(_two_bodies(spar={"interaction": False}))
        assert err.value.path == "forces.spar_rad.interaction"
        twice = _two_bodies()
        twice.add_force("again", "radiation", body="spar", hydrodynamics=str(RM3),
                        hydrodynamics_body="rm3_float")
        with pytest.raises(ModelError, match="two radiation forces read body 'rm3_float'"
                           ) as err:
            assemble(twice)
        assert err.value.path == "forces.again.hydrodynamics_body"


def test_capytaine_mean_drift_merged_and_near_field() -> None:
    """Capytaine's merged ``drift_force`` (over influenced_dof) is read as the far-field
    table, a script's ``near_field_mean_drift_force`` over one ``wave_direction`` as the
    pressure table; a dataset without either has no second-order data."""
    path = Path(__file__).parents[1] / "plugins/frylinks_marine/data/cylinder_drift_capytaine.nc"
    with xr.open_dataset(path) as opened:
        stored = opened.load()
    ds = xr.Dataset({name: da.sel(complex="re", drop=True) + 1j * da.sel(complex="im",
                                                                          drop=True)
                     if "complex" in da.dims else da
                     for name, da in stored.data_vars.items()})
    parts = [ds[f"drift_force_{d}"] for d in ("surge", "sway", "yaw")]
    merged = xr.concat(parts, dim=xr.DataArray(["Surge", "Sway", "Yaw"],
                                               dims="influenced_dof"))
    near = ds["excitation_force"] * 0 + 7.0 + 1j
    plain = ds.drop_vars([str(p.name) for p in parts])
    so = read_capytaine(plain.assign(drift_force=merged,
                                     near_field_mean_drift_force=near)).second_order
    first = read_capytaine(path).second_order
    assert so is not None and first is not None
    assert np.allclose(so.mean_drift_momentum.values, first.mean_drift_momentum.values,
                       equal_nan=True)
    assert so.mean_drift_pressure.values.shape == (10, 2, 6)
    assert np.all(so.mean_drift_pressure.values == 7.0 + 1j)
    assert read_capytaine(plain).second_order is None
