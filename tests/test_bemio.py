"""The BEMIO HDF5 reader (``frylinks_marine.bemio``): layout, scalings, conventions,
bodies, errors, the choice of format, and the force types reading BEMIO files.

Small BEMIO files are written here with h5py in WEC-Sim's layout (``writeBEMIOH5``: as
h5py reads them, a body's rows first, all bodies' columns, frequencies last), with
random coefficients, so that every index of the mapping is checked; the physics of a
real file is in ``tests/validation/test_bemio.py``.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
from frylinks_marine.bemio import read_bemio, read_bemio_bodies
from frylinks_marine.hydro_files import is_bemio, read_hydrodynamics, read_hydrodynamics_bodies
from frylinks_marine.hydrodb import DatasetBodyError

import frylinks
from frylinks.errors import ModelError

DATA = Path(__file__).parents[1] / "plugins" / "frylinks_marine" / "data"
SPHERE = DATA / "sphere_bemio.h5"
CAPYTAINE = DATA / "sphere_capytaine.nc"
RHO, G = 1025.0, 9.80665
OMEGA = np.array([0.4, 0.8, 1.2, 1.6])
HEADINGS_DEG = np.array([0.0, 45.0, 90.0])


def write_bemio(path: Path, nb: int = 2, seed: int = 0, frequencies_first: bool = False,
                radians: bool = False, drop: str | None = None, scaled: int = 0,
                depth: Any = "infinite", names: tuple[str, ...] = ("float", "spar")
                ) -> dict[str, Any]:
    """A BEMIO file of ``nb`` bodies with random normalised coefficients; returns them."""
    rng = np.random.default_rng(seed)
    nw, nh, n = OMEGA.size, HEADINGS_DEG.size, 6 * nb
    raw: dict[str, Any] = {"am": [], "rd": [], "re": [], "im": [], "inf": [], "k": [], "cg": []}
    with h5py.File(path, "w") as f:
        f["bem_data/code"] = np.bytes_(b"WAMIT")
        f["simulation_parameters/rho"] = [[RHO]]
        f["simulation_parameters/g"] = [[G]]
        f["simulation_parameters/scaled"] = [[scaled]]
        f["simulation_parameters/w"] = OMEGA.reshape(-1, 1)
        f["simulation_parameters/T"] = (2 * np.pi / OMEGA).reshape(-1, 1)
        heading = np.radians(HEADINGS_DEG) if radians else HEADINGS_DEG
        f["simulation_parameters/wave_dir"] = heading.reshape(1, -1)
        f["simulation_parameters/wave_dir"].attrs["units"] = np.bytes_(
            b"rad" if radians else b"deg")
        if isinstance(depth, str):
            f["simulation_parameters/water_depth"] = np.bytes_(depth.encode())
        elif depth is not None:
            f["simulation_parameters/water_depth"] = [[depth]]
        for b in range(nb):
            g = f"body{b + 1}"
            f[f"{g}/properties/name"] = np.bytes_(names[b].encode())
            cg = rng.normal(size=3)
            f[f"{g}/properties/cg"] = cg.reshape(3, 1)
            f[f"{g}/properties/dof"] = [[6.0]]
            f[f"{g}/properties/dof_start"] = [[6.0 * b + 1]]
            f[f"{g}/properties/dof_end"] = [[6.0 * b + 6]]
            arrays = {"am": rng.normal(size=(6, n, nw)), "rd": rng.normal(size=(6, n, nw)),
                      "re": rng.normal(size=(6, nh, nw)), "im": rng.normal(size=(6, nh, nw)),
                      "inf": rng.normal(size=(6, n)), "k": rng.normal(size=(6, 6)), "cg": cg}
            for key, value in arrays.items():
                raw[key].append(value)

            def put(name: str, value: np.ndarray) -> None:
                if name == drop:
                    return
                f[name] = value.T if frequencies_first and value.ndim == 3 else value

            c = f"{g}/hydro_coeffs"
            put(f"{c}/added_mass/all", arrays["am"])
            put(f"{c}/radiation_damping/all", arrays["rd"])
            put(f"{c}/excitation/re", arrays["re"])
            put(f"{c}/excitation/im", arrays["im"])
            put(f"{c}/added_mass/inf_freq", arrays["inf"])
            put(f"{c}/linear_restoring_stiffness", arrays["k"])
    return raw


def test_two_bodies_in_frylinks_order_with_bemio_scalings_undone(tmp_path: Path) -> None:
    """Body b's row i, column (body c, DOF j) at frequency k lands at [k, 6b+i, 6c+j];
    added mass * rho, damping * rho omega, excitation conjugated * rho g, stiffness *
    rho g, inf_freq * rho; headings from degrees; each body about its cg."""
    path = tmp_path / "two.h5"
    raw = write_bemio(path)
    m = read_bemio_bodies(path)
    assert m.bodies == ("float", "spar") and m.added_mass.shape == (4, 12, 12)
    assert (m.rho, m.g, m.water_depth) == (RHO, G, np.inf)
    np.testing.assert_allclose(m.headings, np.radians(HEADINGS_DEG))
    for b in range(2):
        rows = slice(6 * b, 6 * b + 6)
        np.testing.assert_allclose(m.added_mass[:, rows, :],
                                   np.moveaxis(raw["am"][b], 2, 0) * RHO, rtol=1e-14)
        np.testing.assert_allclose(m.radiation_damping[:, rows, :],
                                   np.moveaxis(raw["rd"][b], 2, 0) * RHO * OMEGA[:, None, None],
                                   rtol=1e-14)
        x = np.transpose(raw["re"][b] - 1j * raw["im"][b], (2, 1, 0)) * RHO * G
        np.testing.assert_allclose(m.excitation[:, :, rows], x, rtol=1e-14)
        np.testing.assert_allclose(m.added_mass_inf[rows], raw["inf"][b] * RHO, rtol=1e-14)
        assert m.hydrostatic_stiffness is not None
        np.testing.assert_allclose(m.hydrostatic_stiffness[rows, rows], raw["k"][b] * RHO * G)
        np.testing.assert_array_equal(m.centers_of_mass[b], raw["cg"][b])
        np.testing.assert_array_equal(m.rotation_centers[b], raw["cg"][b])
    assert m.hydrostatic_stiffness is not None
    assert np.count_nonzero(m.hydrostatic_stiffness[:6, 6:]) == 0
    assert m.added_mass_inf_source == "dataset"


def test_one_body_by_name_or_group(tmp_path: Path) -> None:
    path = tmp_path / "two.h5"
    write_bemio(path)
    m = read_bemio_bodies(path)
    spar = read_bemio(path, body="spar")
    assert spar.body == "spar" and "'spar'" in spar.label
    np.testing.assert_array_equal(spar.added_mass, m.added_mass[:, 6:, 6:])
    np.testing.assert_array_equal(spar.excitation, m.excitation[:, :, 6:])
    np.testing.assert_array_equal(spar.added_mass_inf, m.added_mass_inf[6:, 6:])
    np.testing.assert_array_equal(read_bemio(path, body="body2").added_mass, spar.added_mass)
    with pytest.raises(DatasetBodyError, match=r"several bodies \(float, spar\); choose one "
                                               r"with body=") as err:
        read_bemio(path)
    assert err.value.bodies == ("float", "spar") and "two.h5" in str(err.value)
    with pytest.raises(DatasetBodyError, match="no body 'plate'; bodies: float, spar"):
        read_bemio(path, body="plate")


def test_frequencies_first_radians_and_depth(tmp_path: Path) -> None:
    """Arrays stored frequencies first (the reverse order) read the same; a wave_dir
    whose units are 'rad' is not converted; a numeric water depth is read."""
    a, b = tmp_path / "a.h5", tmp_path / "b.h5"
    write_bemio(a, depth=None)
    write_bemio(b, frequencies_first=True, radians=True, depth=50.0)
    ma, mb = read_bemio_bodies(a), read_bemio_bodies(b)
    for name in ("added_mass", "radiation_damping", "excitation", "headings"):
        np.testing.assert_allclose(getattr(mb, name), getattr(ma, name), rtol=1e-14,
                                   err_msg=name)
    assert ma.water_depth == np.inf and mb.water_depth == 50.0


def test_errors_name_the_file_and_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such file"):
        read_bemio(tmp_path / "missing.h5")
    text = tmp_path / "notes.h5"
    text.write_text("not HDF5\n")
    with pytest.raises(ModelError, match=r"notes\.h5'.*not an HDF5 file"):
        read_bemio(text)
    renamed = tmp_path / "capytaine.h5"  # netCDF4 is HDF5, but not BEMIO's layout
    shutil.copy(CAPYTAINE, renamed)
    with pytest.raises(ModelError, match=r"not a BEMIO file \(no group "
                                         r"'simulation_parameters'.*named \.nc"):
        read_bemio(renamed)
    gone = tmp_path / "gone.h5"
    write_bemio(gone, drop="body2/hydro_coeffs/excitation/im")
    with pytest.raises(ModelError, match=r"gone\.h5': missing dataset "
                                         r"'body2/hydro_coeffs/excitation/im'") as err:
        read_bemio(gone, body="float")
    assert err.value.path == "body2/hydro_coeffs/excitation/im"
    dimensional = tmp_path / "scaled.h5"
    write_bemio(dimensional, scaled=1)
    with pytest.raises(ModelError, match="scaled' is not 0"):
        read_bemio(dimensional, body="float")
    with h5py.File(gone, "w") as f:
        f["simulation_parameters/rho"] = [[1000.0]]
    with pytest.raises(ModelError, match=r"no body group \('body1'"):
        read_bemio(gone)


def test_without_inf_freq_the_ogilvie_estimate(tmp_path: Path) -> None:
    path = tmp_path / "one.h5"
    write_bemio(path, nb=1, drop="body1/hydro_coeffs/added_mass/inf_freq", names=("buoy",))
    assert read_bemio(path).added_mass_inf_source == "ogilvie"


def test_the_sphere_file_against_its_raw_values() -> None:
    """The shipped file, read independently with h5py: heave-heave added mass * rho,
    damping * rho omega, excitation conj * rho g at the second frequency."""
    with h5py.File(SPHERE, "r") as f:
        rho = float(f["simulation_parameters/rho"][()].ravel()[0])
        g = float(f["simulation_parameters/g"][()].ravel()[0])
        w = f["simulation_parameters/w"][()].ravel()
        am = f["body1/hydro_coeffs/added_mass/all"][2, 2, 1]
        rd = f["body1/hydro_coeffs/radiation_damping/all"][2, 2, 1]
        re = f["body1/hydro_coeffs/excitation/re"][0, 0, 1]
        im = f["body1/hydro_coeffs/excitation/im"][0, 0, 1]
        k = f["body1/hydro_coeffs/radiation_damping/impulse_response_fun/K"][2, 2, :3]
    db = read_bemio(SPHERE)
    assert db.omega[1] == w[1] and db.body == "sphere"
    assert db.added_mass[1, 2, 2] == pytest.approx(am * rho, rel=1e-14)
    assert db.radiation_damping[1, 2, 2] == pytest.approx(rd * rho * w[1], rel=1e-14)
    assert db.excitation[1, 0, 0] == pytest.approx((re - 1j * im) * rho * g, rel=1e-14)
    assert db.kernel is not None
    np.testing.assert_allclose(db.kernel[:3, 2, 2], k * rho, rtol=1e-14)


def test_format_by_suffix_or_content(tmp_path: Path) -> None:
    plain = tmp_path / "sphere_hydro"  # no suffix: a BEMIO file is told by its groups
    shutil.copy(SPHERE, plain)
    assert is_bemio(SPHERE) and is_bemio(plain) and not is_bemio(CAPYTAINE)
    assert read_hydrodynamics(plain).body == "sphere"
    assert read_hydrodynamics(CAPYTAINE).omega.size == 130
    assert read_hydrodynamics_bodies(SPHERE).bodies == ("sphere",)


def system(path: Path | str, **extra: Any) -> frylinks.System:
    s = frylinks.System()
    s.add_body("b", mass=2.618e5, inertia=[1e6, 1e6, 1e6], position=[0, 0, -2.0])
    s.configure("environment", water_density=1000.0,
                waves={"type": "regular", "height": 1.0, "period": 6.0})
    s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=str(path), **extra)
    s.add_force("rad", "radiation", body="b", hydrodynamics=str(path), **extra)
    s.add_force("exc", "wave_excitation", body="b", hydrodynamics=str(path), **extra)
    return s


def test_force_types_read_a_bemio_file() -> None:
    """The same case from the BEMIO file and from the Capytaine dataset: the first
    second of the sphere in waves agrees to the files' differences (a few %), and the
    file's own state space runs too."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the shipped files give no warning
        runs = {name: system(path).run(t_end=1.0, dt=0.05)
                for name, path in (("bemio", SPHERE), ("capytaine", CAPYTAINE))}
    f = {k: ds.force_force.sel(force="exc", xyz="z").values for k, ds in runs.items()}
    assert np.abs(f["bemio"]).max() > 1e5
    assert np.max(np.abs(f["bemio"] - f["capytaine"])) < 0.03 * np.abs(f["capytaine"]).max()
    s = frylinks.System()
    s.add_body("b", mass=2.618e5, inertia=[1e6, 1e6, 1e6], position=[0, 0, -1.5])
    s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=str(SPHERE),
                equilibrium=[0, 0, -2.0])
    s.add_force("rad", "radiation", body="b", hydrodynamics=str(SPHERE),
                state_space="dataset")
    ds = s.run(t_end=1.0, dt=0.05)
    assert np.abs(ds.radiation_memory_force.values).max() > 1e3


def test_state_space_dataset_needs_one() -> None:
    s = frylinks.System()
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    with pytest.raises(ModelError, match="holds no state-space realisation") as err:
        s.add_force("rad", "radiation", body="b", hydrodynamics=str(CAPYTAINE),
                    state_space="dataset")
    assert err.value.path == "forces.rad.state_space"


def test_multi_body_bemio_file_needs_its_body_key(tmp_path: Path) -> None:
    path = tmp_path / "two.h5"
    write_bemio(path)
    s = frylinks.System()
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    with pytest.raises(ModelError, match=r"several bodies \(float, spar\); choose one with "
                                         r"hydrodynamics_body \(for instance "
                                         r"hydrodynamics_body: float\)") as err:
        s.add_force("exc", "wave_excitation", body="b", hydrodynamics=str(path))
    assert err.value.path == "forces.exc.hydrodynamics_body"
    s.add_force("exc", "wave_excitation", body="b", hydrodynamics=str(path),
                hydrodynamics_body="body2")


def test_mean_drift_groups(tmp_path: Path) -> None:
    """``hydro_coeffs/mean_drift/<group>/val`` (WEC-Sim: real, ``/ (rho g)``, ``(dof,
    heading, frequency)`` as h5py reads it): momentum conservation, pressure integration
    and control surface, each body's rows; a body without a group is NaN there."""
    path = tmp_path / "drift.h5"
    write_bemio(path)
    rng = np.random.default_rng(5)
    shape = (6, HEADINGS_DEG.size, OMEGA.size)
    given = {("body1", "momentum_conservation"): rng.normal(size=shape),
             ("body2", "momentum_conservation"): rng.normal(size=shape),
             ("body1", "pressure_integration"): rng.normal(size=shape),
             ("body2", "control_surface"): rng.normal(size=shape).T}  # frequencies first
    with h5py.File(path, "a") as f:
        for (body, group), value in given.items():
            f[f"{body}/hydro_coeffs/mean_drift/{group}/val"] = value
    so = read_bemio_bodies(path).second_order
    assert so is not None and so.qtf_difference is None and so.qtf_sum is None
    momentum, pressure = so.mean_drift_momentum, so.mean_drift_pressure
    surface = so.mean_drift_control_surface
    assert momentum is not None and pressure is not None and surface is not None
    assert momentum.values.shape == (OMEGA.size, HEADINGS_DEG.size, 12)
    assert np.allclose(np.degrees(momentum.headings), HEADINGS_DEG)
    assert np.array_equal(momentum.omega, OMEGA)
    raw1 = given[("body1", "momentum_conservation")]
    assert momentum.values[2, 1, 4] == pytest.approx(raw1[4, 1, 2] * RHO * G)
    assert momentum.values[3, 2, 6] == pytest.approx(
        given[("body2", "momentum_conservation")][0, 2, 3] * RHO * G)
    assert np.isnan(pressure.values[..., 6:]).all()  # body2 has none
    assert pressure.values[0, 0, 0] == pytest.approx(
        given[("body1", "pressure_integration")][0, 0, 0] * RHO * G)
    assert surface.values[1, 2, 11] == pytest.approx(
        given[("body2", "control_surface")].T[5, 2, 1] * RHO * G)
    one = read_bemio(path, body="spar").second_order  # one body: its own six DOFs
    assert one is not None and one.mean_drift_momentum.values.shape[-1] == 6
    assert one.mean_drift_momentum.values[3, 2, 0] == pytest.approx(
        momentum.values[3, 2, 6])


def test_mean_drift_of_the_wrong_shape(tmp_path: Path) -> None:
    path = tmp_path / "bad.h5"
    write_bemio(path, nb=1)
    with h5py.File(path, "a") as f:
        f["body1/hydro_coeffs/mean_drift/momentum_conservation/val"] = np.zeros((6, 2, 4))
    with pytest.raises(ModelError, match="momentum_conservation/val' has shape"):
        read_bemio(path)


def wecsim_qtf(lines: np.ndarray, kind: str) -> dict[str, np.ndarray]:
    """WEC-Sim's ``triToFullMatrix`` (with ``assignIDs``) on one DOF's lines of a WAMIT
    ``.12d``/``.12s`` file (``PER_i PER_j BETA_i BETA_j Re Im``, nondimensional, exp(+i
    omega t)), redone here: the datasets ``writeBEMIOH5`` stores, as h5py reads them."""
    def ids(column: np.ndarray) -> np.ndarray:
        _, first, inverse = np.unique(column, return_index=True, return_inverse=True)
        rank = np.argsort(np.argsort(first))  # MATLAB's unique(..., 'stable')
        return rank[inverse]

    id_i, id_j = ids(lines[:, 1]), ids(lines[:, 0])  # assignIDs: i from PER_j, j from PER_i
    n = int(max(id_i.max(), id_j.max())) + 1
    full = np.zeros((n, n), dtype=complex)
    periods = np.zeros(n)
    for row, r, c in zip(lines, id_i, id_j, strict=True):
        element = row[4] - 1j * row[5]
        full[r, c] = element
        full[c, r] = np.conj(element) if kind == "Diff" else element
        if r == c:
            periods[r] = row[0]
    flat = full.flatten(order="F") * RHO * G  # F_ij(:), dimensional with ULEN = 1
    return {"PER_i": periods.reshape(1, -1), "BETA_i": np.zeros((1, n)),
            "BETA_j": np.zeros((1, n)), "Re_F_ij": flat.real.reshape(1, -1),
            "Im_F_ij": flat.imag.reshape(1, -1)}


def test_qtf_groups_as_wecsim_writes_them(tmp_path: Path) -> None:
    """QTFs under ``excitation/QTF1/Diff<d>`` and ``Sum<d>``: frylinks' ``T(w_a, w_b)``
    is the conjugate of WAMIT's line ``(PER_i, PER_j)`` (as the WAMIT reader reads a
    ``.12d``), on ascending omega, both triangles (Hermitian / symmetric), per DOF."""
    path = tmp_path / "qtf.h5"
    write_bemio(path, nb=1)
    periods = [5.0, 10.0, 20.0]
    rng = np.random.default_rng(9)
    wamit = {}
    with h5py.File(path, "a") as f:
        for kind in ("Diff", "Sum"):
            for dof in range(1, 7):
                # the diagonal real, as in theory: triToFullMatrix conjugates a diagonal
                # entry twice (F(i, i) = conj(F(i, i))), leaving WAMIT's phase there
                lines = np.array([[p, q, 0.0, 0.0, rng.normal(), rng.normal() * (p != q)]
                                  for a, p in enumerate(periods) for q in periods[a:]])
                wamit[kind, dof] = lines
                for name, value in wecsim_qtf(lines, kind).items():
                    f[f"body1/hydro_coeffs/excitation/QTF1/{kind}{dof}/{name}"] = value
    so = read_bemio(path).second_order
    assert so is not None and so.mean_drift_momentum is None
    diff, total = so.qtf_difference, so.qtf_sum
    assert diff is not None and total is not None
    assert np.allclose(diff.omega, 2 * np.pi / np.array(periods[::-1]))
    assert diff.values.shape == (3, 3, 1, 1, 6) and np.allclose(diff.headings, [0.0])

    def at(period: float) -> int:
        return int(np.argmin(np.abs(diff.omega - 2 * np.pi / period)))

    for (kind, dof), lines in wamit.items():
        table = diff if kind == "Diff" else total
        for p, q, _, _, re, im in lines:
            w = (re + 1j * im) * RHO * G
            assert table.values[at(p), at(q), 0, 0, dof - 1] == pytest.approx(np.conj(w))
            mirror = w if kind == "Diff" else np.conj(w)
            assert table.values[at(q), at(p), 0, 0, dof - 1] == pytest.approx(mirror)
