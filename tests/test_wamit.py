"""The WAMIT reader (``frylinks_marine.wamit_reader``, ``wamit_files``): numbers read
from OpenFAST's shipped WAMIT files against the same lines made dimensional by hand, the
exponents of ``ULEN``, the QTF symmetries, natural periods, errors, the choice of format
and the force types reading a WAMIT run.

The hand values below are copied from the files (the line is quoted in a comment), so
each test says which number it checks.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest
from frylinks_marine.hydro_files import is_wamit, read_hydrodynamics, read_hydrodynamics_bodies
from frylinks_marine.hydrodb import DatasetBodyError
from frylinks_marine.wamit_files import wamit_file_set
from frylinks_marine.wamit_reader import read_wamit, read_wamit_bodies

import frylinks
from frylinks.errors import ModelError

DATA = Path(__file__).parents[1] / "plugins" / "frylinks_marine" / "data" / "wamit"
SPAR = DATA / "spar.1"
SEMI = DATA / "marin_semi.1.gz"
RHO, G = 1025.0, 9.80665
RG = RHO * G


def at_period(db_omega: np.ndarray, period: float) -> int:
    k = int(np.argmin(np.abs(db_omega - 2 * np.pi / period)))
    assert db_omega[k] == pytest.approx(2 * np.pi / period, rel=1e-12)
    return k


def test_semi_added_mass_and_damping() -> None:
    db = read_wamit(SEMI)
    k = at_period(db.omega, 6.28319)
    w = 2 * np.pi / 6.28319
    # "0.628319E+01  3  3  1.451567E+04  5.065138E+02"
    assert db.added_mass[k, 2, 2] == pytest.approx(RHO * 1.451567e4, rel=1e-12)
    assert db.radiation_damping[k, 2, 2] == pytest.approx(RHO * w * 5.065138e2, rel=1e-12)
    # "0.628319E+01  5  5  7.056766E+06  3.349901E+05"
    assert db.added_mass[k, 4, 4] == pytest.approx(RHO * 7.056766e6, rel=1e-12)
    # "0.628319E+01  1  5 -1.167666E+05 -1.812648E+04"
    assert db.added_mass[k, 0, 4] == pytest.approx(RHO * -1.167666e5, rel=1e-12)
    assert db.radiation_damping[k, 0, 4] == pytest.approx(RHO * w * -1.812648e4, rel=1e-12)
    # the limits are not on the grid: "0.000000E+00  3  3  1.434026E+04" (PER = 0,
    # infinite frequency), "-0.100000E+01  3  3  1.462155E+04" (PER = -1, zero frequency)
    assert db.omega.size == 498 and db.omega[0] > 0 and np.all(np.diff(db.omega) > 0)
    assert db.added_mass_inf_source == "dataset"
    assert db.added_mass_inf[2, 2] == pytest.approx(RHO * 1.434026e4, rel=1e-12)
    assert db.added_mass_zero is not None
    assert db.added_mass_zero[2, 2] == pytest.approx(RHO * 1.462155e4, rel=1e-12)
    # a pair WAMIT leaves out (zero by symmetry) is zero
    assert db.added_mass[k, 0, 1] == 0.0


def test_hydrostatics() -> None:
    db = read_wamit(SEMI)
    c = db.hydrostatic_stiffness
    assert c is not None
    assert c[2, 2] == pytest.approx(RG * 3.800615e2, rel=1e-12)  # "3  3  3.800615E+02"
    assert c[4, 4] == pytest.approx(RG * -3.787527e4, rel=1e-12)  # "5  5 -3.787527E+04"
    assert c[2, 4] == pytest.approx(RG * -1.533109e-2, rel=1e-12)  # "3  5 -1.533109E-02"
    # the OC3 spar's: 332.9 kN/m in the OC3 definition (Jonkman 2010, table 5-1)
    spar = read_wamit(SPAR).hydrostatic_stiffness
    assert spar is not None and spar[2, 2] == pytest.approx(332_941.0, rel=1e-5)


def test_spar_excitation_amplitude_and_phase() -> None:
    db = read_wamit(SPAR)
    k = at_period(db.omega, 6.28319)
    h = int(np.argmin(np.abs(db.headings)))
    assert db.headings[h] == 0.0
    x = db.excitation[k, h]
    # "0.628319E+01  0.000000E+00  1  1.002835E+02  8.381805E+01  1.079915E+01  9.970038E+01"
    assert abs(x[0]) == pytest.approx(RG * 1.002835e2, rel=1e-6)
    # WAMIT's exp(+i w t) phase is frylinks' (exp(-i w t)) with the opposite sign
    assert np.degrees(np.angle(x[0])) == pytest.approx(-83.81805, abs=1e-4)
    assert x[0] == pytest.approx(RG * (1.079915e1 - 9.970038e1j), rel=1e-12)
    # "... 5  1.238875E+03 -9.618195E+01 -1.334098E+02 -1.231671E+03"
    assert abs(x[4]) == pytest.approx(RG * 1.238875e3, rel=1e-6)
    assert np.degrees(np.angle(x[4])) == pytest.approx(96.18195, abs=1e-4)
    # "... 3  1.503272E+01 -1.765366E+02 -1.500526E+01 -9.081356E-01"
    assert x[2] == pytest.approx(RG * (-1.500526e1 + 9.081356e-1j), rel=1e-12)
    # -180 .. 180 deg in 10 deg steps: 36 distinct headings in [0, 2 pi), ascending
    assert db.nb_headings == 36
    assert np.allclose(np.degrees(db.headings), np.arange(0.0, 360.0, 10.0))
    db.require_excitation()


def test_qtfs_and_their_other_triangle() -> None:
    so = read_wamit(DATA / "marin_semi.12d.gz").second_order
    assert so is not None and so.mean_drift_momentum is None
    diff, total = so.qtf_difference, so.qtf_sum
    assert diff is not None and total is not None
    assert diff.values.shape == (56, 56, 1, 1, 6)
    assert not np.isnan(diff.values).any() and not np.isnan(total.values).any()
    i, j = at_period(diff.omega, 20.944), at_period(diff.omega, 25.133)
    # .12d: "0.20944E+02 0.25133E+02 0 0 1  2.61249E+00 -9.74187E+01 -3.37323E-01 -2.59062E+00"
    # (force per m^2 of amplitude: rho g ULEN^1 for a force, ULEN^2 for a moment)
    assert diff.values[i, j, 0, 0, 0] == pytest.approx(RG * (-3.37323e-1 + 2.59062j), rel=1e-12)
    # the file gives one triangle; the other is the Hermitian mirror
    assert diff.values[j, i, 0, 0, 0] == pytest.approx(RG * (-3.37323e-1 - 2.59062j), rel=1e-12)
    # "... 5  2.94887E+01 -1.13329E+02 -1.16780E+01 -2.70778E+01"
    assert diff.values[i, j, 0, 0, 4] == pytest.approx(RG * (-1.16780e1 + 2.70778e1j), rel=1e-12)
    # .12s (the other triangle): "0.25133E+02 0.20944E+02 0 0 5 1.10582E+02 7.93556E+01
    # 2.04259E+01 1.08679E+02", and its plain mirror
    expected = RG * (2.04259e1 - 1.08679e2j)
    assert total.values[j, i, 0, 0, 4] == pytest.approx(expected, rel=1e-12)
    assert total.values[i, j, 0, 0, 4] == pytest.approx(expected, rel=1e-12)
    # off the diagonal, the difference QTF is Hermitian by construction; its diagonal
    # (the mean drift, given by the file) is real but for round-off
    off = ~np.eye(56, dtype=bool)
    mirrored = np.conj(np.swapaxes(diff.values, 0, 1))
    assert np.array_equal(diff.values[off], mirrored[off])
    diagonal = np.einsum("iid->id", diff.values[:, :, 0, 0])
    assert np.abs(diagonal.imag).max() < 1e-5 * np.abs(diagonal).max()


def test_length_scale_exponents(tmp_path: Path) -> None:
    """``ULEN = 2``: each coefficient scales by 2 to its power of length."""
    one, two = read_wamit(SPAR), read_wamit(SPAR, ulen=2.0)
    for name, powers in (("added_mass", {(0, 0): 3, (0, 4): 4, (4, 4): 5}),
                         ("radiation_damping", {(0, 0): 3, (1, 3): 4, (3, 3): 5}),
                         ("hydrostatic_stiffness", {(2, 2): 2, (4, 4): 4})):
        for (i, j), p in powers.items():
            assert np.allclose(getattr(two, name)[..., i, j],
                               2.0**p * getattr(one, name)[..., i, j], rtol=1e-12)
    assert np.allclose(two.excitation[..., :3], 4 * one.excitation[..., :3], rtol=1e-12)
    assert np.allclose(two.excitation[..., 3:], 8 * one.excitation[..., 3:], rtol=1e-12)
    semi1, semi2 = read_wamit(SEMI).second_order, read_wamit(SEMI, ulen=2.0).second_order
    assert semi1 is not None and semi2 is not None
    assert semi1.qtf_sum is not None and semi2.qtf_sum is not None
    assert np.allclose(semi2.qtf_sum.values[..., :3], 2 * semi1.qtf_sum.values[..., :3])
    assert np.allclose(semi2.qtf_sum.values[..., 3:], 4 * semi1.qtf_sum.values[..., 3:])


def heave_period(db: object, mass: float) -> float:
    """``T = 2 pi sqrt((m + A33(2 pi / T)) / C33)``, iterated on ``A33``."""
    omega, a33 = db.omega, db.added_mass[:, 2, 2]  # type: ignore[attr-defined]
    c33 = db.hydrostatic_stiffness[2, 2]  # type: ignore[attr-defined]
    period = 2 * np.pi * np.sqrt(mass / c33)
    for _ in range(50):
        period = 2 * np.pi * np.sqrt((mass + np.interp(2 * np.pi / period, omega, a33)) / c33)
    return float(period)


def test_heave_natural_periods() -> None:
    """OC4 semi: platform mass 1.3473e7 kg (Robertson et al. 2014, OC4 Phase II
    definition), whose report gives a heave period of about 17.5 s (the whole system,
    with the turbine's mass and the mooring, in FAST). OC3 spar: platform and turbine
    8.066e6 kg (Jonkman 2010: 7.466e6 + 0.6e6), heave 0.0324 Hz = 30.9 s with the
    mooring's heave stiffness, which these files leave out (it shortens the period by
    about 2 %): hence the tolerances."""
    semi = heave_period(read_wamit(SEMI), 1.3473e7)
    spar = heave_period(read_wamit(SPAR), 8.066e6)
    print(f"heave natural periods: OC4 semi {semi:.2f} s, OC3 spar {spar:.2f} s")
    assert semi == pytest.approx(17.5, rel=0.04)
    assert spar == pytest.approx(30.9, rel=0.04)


def copied(tmp_path: Path, *names: str) -> Path:
    for name in names:
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def test_a_mode_of_a_second_body_one_file_lacks(tmp_path: Path) -> None:
    folder = copied(tmp_path, "spar.1", "spar.hst")
    with (folder / "spar.1").open("a") as f:
        f.write("  0.628319E+01    13    13  1.000000E+00  1.000000E+00\n")
    nb_lines = len((folder / "spar.1").read_text().splitlines())
    with pytest.raises(ModelError, match=rf"spar.1', line {nb_lines}: mode index 13 means 3 "
                                         r"bodies, but '.*spar.hst' holds the modes of 1 "
                                         r"\(1..6\)"):
        read_wamit(folder / "spar.1")


def test_a_truncated_line(tmp_path: Path) -> None:
    lines = (DATA / "spar.1").read_text().splitlines()
    whole = lines[40]
    lines[40] = whole[:26]
    (tmp_path / "spar.1").write_text("\n".join(lines) + "\n")
    with pytest.raises(ModelError, match=r"spar.1', line 41: 3 columns; expected 4 or 5 "
                                         r"\(PER I J A\(I,J\) \[B\(I,J\)\]\)"):
        read_wamit(tmp_path / "spar.1")
    lines[40] = whole[:30]  # cut in the added mass: a damping column missing
    (tmp_path / "spar.1").write_text("\n".join(lines) + "\n")
    with pytest.raises(ModelError, match=r"spar.1', line 41: PER = 41.8879 with no damping "
                                         r"column; only the limits PER = -1 and 0"):
        read_wamit(tmp_path / "spar.1")
    (tmp_path / "spar.1").write_text("\n".join(lines[:40]) + "\n  0.6E+01  3  0  1.0  1.0\n")
    with pytest.raises(ModelError, match=r"line 41: mode index 0 is out of range; expected "
                                         r"a whole number 1..6 NBODY"):
        read_wamit(tmp_path / "spar.1")


def test_excitation_without_its_file() -> None:
    db = read_wamit(SEMI)
    assert db.nb_headings == 0 and db.excitation.shape == (498, 0, 6)
    with pytest.raises(ModelError, match=r"no wave excitation: no WAMIT excitation file "
                                         r"'.*marin_semi.3' or '.*marin_semi.2'"):
        db.require_excitation()
    with pytest.raises(ModelError, match=r"marin_semi.3"):
        db.excitation_at(1.0)
    s = frylinks.System()
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    with pytest.raises(ModelError, match=r"marin_semi.3") as err:
        s.add_force("exc", "wave_excitation", body="b", hydrodynamics=str(SEMI))
    assert err.value.path == "forces.exc.hydrodynamics"
    s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=str(SEMI))


def test_no_radiation_file(tmp_path: Path) -> None:
    folder = copied(tmp_path, "spar.hst")
    with pytest.raises(ModelError, match=r"no WAMIT added-mass and damping file "
                                         r"'.*spar.1' \(or .1.gz\); files of the set found: "
                                         r"spar.hst"):
        read_wamit(folder / "spar.hst")


def test_file_set_gz_and_stem(tmp_path: Path) -> None:
    stem, files = wamit_file_set(DATA / "marin_semi.12s.gz")
    assert stem == DATA / "marin_semi"
    assert sorted(files) == [".1", ".12d", ".12s", ".hst"]
    folder = copied(tmp_path, "spar.1", "spar.hst")
    with gzip.open(DATA / "spar.3.gz", "rb") as src, (folder / "spar.3").open("wb") as dst:
        shutil.copyfileobj(src, dst)
    plain, packed = read_wamit(folder / "spar"), read_wamit(SPAR)
    assert np.array_equal(plain.excitation, packed.excitation)
    with pytest.raises(ModelError, match="period_is is 'hertz'; accepted: period, frequency"):
        read_wamit(SPAR, period_is="hertz")


def test_dispatch_and_body_names() -> None:
    assert is_wamit(SPAR) and is_wamit(DATA / "spar.3.gz") and is_wamit("x.12d")
    assert not is_wamit("x.nc") and not is_wamit("x.h5") and not is_wamit("x.10")
    direct = read_wamit(SPAR)
    for path in (SPAR, DATA / "spar.hst", DATA / "spar.3.gz"):
        db = read_hydrodynamics(path)
        assert db.rho == RHO and db.g == G and db.body == "body1"
        for name in ("omega", "added_mass", "radiation_damping", "excitation", "headings",
                     "added_mass_inf", "hydrostatic_stiffness"):
            assert np.array_equal(getattr(db, name), getattr(direct, name)), name
    for body in ("body1", "1"):
        assert read_wamit(SPAR, body=body).body == "body1"
    with pytest.raises(DatasetBodyError, match=r"no body 'body2'; bodies: body1"):
        read_wamit(SPAR, body="body2")
    bodies = read_hydrodynamics_bodies(SEMI)
    assert bodies.bodies == ("body1",) and bodies.second_order is not None
    assert bodies.body("body1").second_order is not None


def two_bodies(tmp_path: Path) -> Path:
    """The spar twice (modes 1-6 and 7-12) with a cross-body heave term, from its .1,
    .3 and .hst lines."""
    def doubled(text: str, columns: list[int], cross: str) -> str:
        out = []
        for line in text.splitlines():
            fields = line.split()
            out.append(line)
            for c in columns:
                fields[c] = str(int(fields[c]) + 6)
            out.append("  ".join(fields))
        return "\n".join([*out, cross]) + "\n"

    (tmp_path / "two.1").write_text(doubled((DATA / "spar.1").read_text(), [1, 2],
                                            "  0.628319E+01  3  9  1.5E+01  2.5E+00"))
    with gzip.open(DATA / "spar.3.gz", "rt") as f:
        (tmp_path / "two.3").write_text(doubled(f.read(), [2], ""))
    (tmp_path / "two.hst").write_text(doubled((DATA / "spar.hst").read_text(), [0, 1], ""))
    return tmp_path / "two.1"


def test_two_bodies(tmp_path: Path) -> None:
    path = two_bodies(tmp_path)
    both = read_wamit_bodies(path)
    spar = read_wamit(SPAR)
    assert both.bodies == ("body1", "body2")
    k = at_period(both.omega, 6.28319)
    assert both.added_mass[k, 2, 8] == pytest.approx(RHO * 15.0, rel=1e-12)
    assert both.radiation_damping[k, 2, 8] == pytest.approx(RHO * 2.5 * both.omega[k])
    assert np.array_equal(both.added_mass[:, 6:, 6:], spar.added_mass)
    assert np.array_equal(both.excitation[..., 6:], spar.excitation)
    second = read_wamit(path, body="2")
    assert second.body == "body2"
    assert np.array_equal(second.hydrostatic_stiffness, spar.hydrostatic_stiffness)
    with pytest.raises(DatasetBodyError, match="several bodies"):
        read_wamit(path)
    s = frylinks.System()
    s.add_body("b", mass=8.066e6, inertia=[1e10, 1e10, 1e8])
    s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=str(path),
                hydrodynamics_body=2)
    with pytest.raises(ModelError, match="no body '3'") as err:
        s.add_force("x", "wave_excitation", body="b", hydrodynamics=str(path),
                    hydrodynamics_body=3)
    assert err.value.path == "forces.x.hydrodynamics_body"


def test_force_types_read_a_wamit_run() -> None:
    """The spar in a regular wave: the excitation force from the WAMIT run is the
    database's phasor, at the environment's density."""
    s = frylinks.System()
    s.add_body("spar", mass=8.066e6, inertia=[4.2e10, 4.2e10, 1.6e8], position=[0, 0, 0])
    s.configure("environment", water_density=RHO,
                waves={"type": "regular", "height": 2.0, "period": 10.0})
    s.add_force("hs", "linear_hydrostatics", body="spar", hydrodynamics=str(SPAR))
    s.add_force("exc", "wave_excitation", body="spar", hydrodynamics=str(DATA / "spar.3.gz"),
                hydrodynamics_body="body1")
    ds = s.run(t_end=10.0, dt=0.1)
    fx = ds.force_force.sel(force="exc", xyz="x").values
    amplitude = abs(read_wamit(SPAR).excitation_at(2 * np.pi / 10.0, 0.0)[0])
    assert np.abs(fx).max() == pytest.approx(1.0 * amplitude, rel=0.02)


def test_other_readers_fill_what_their_files_hold() -> None:
    """The fields the WAMIT reader adds default to None for the other formats; the
    second-order tables are there where the file holds them (the Capytaine sphere's
    far-field mean drift), not elsewhere (the BEMIO sphere)."""
    for name in ("sphere_capytaine.nc", "sphere_bemio.h5"):
        db = read_hydrodynamics(DATA.parent / name)
        assert db.added_mass_zero is None
        assert db.excitation_absent is None and db.nb_headings >= 1
    assert read_hydrodynamics(DATA.parent / "sphere_bemio.h5").second_order is None
    drift = read_hydrodynamics(DATA.parent / "sphere_capytaine.nc").second_order
    assert drift is not None and list(drift.tables) == ["mean_drift_momentum"]


def test_mean_drift_files(tmp_path: Path) -> None:
    """A ``.8`` of 7 columns (surge, sway, yaw: what momentum conservation gives) and a
    ``.9`` of 8 (WAMIT 7's two headings; the lines of one heading are kept)."""
    folder = copied(tmp_path, "spar.1")
    (folder / "spar.8").write_text(
        "  0.628319E+01  0.000000E+00  1  2.0E+00  1.8E+02 -2.0E+00  0.0E+00\n"
        "  0.628319E+01  0.000000E+00  2  0.0E+00  0.0E+00  0.0E+00  0.0E+00\n"
        "  0.628319E+01  0.000000E+00  6  0.0E+00  0.0E+00  0.0E+00  0.0E+00\n"
        "  0.125664E+02  0.900000E+02  2  1.0E+00  1.8E+02 -1.0E+00  1.0E-03\n")
    (folder / "spar.9").write_text(
        " WAMIT Numeric Output -- Filename  spar.9\n"
        "  0.628319E+01  0.000000E+00  0.000000E+00  3  1.0E-01  0.0E+00  1.0E-01  0.0E+00\n"
        "  0.628319E+01  0.000000E+00  0.900000E+02  3  9.0E+00  0.0E+00  9.0E+00  0.0E+00\n"
        "  0.628319E+01  0.000000E+00  0.000000E+00  5  3.0E+00  0.0E+00  3.0E+00  0.0E+00\n")
    so = read_wamit(folder / "spar.1", ulen=2.0).second_order
    assert so is not None and so.qtf_difference is None
    momentum, pressure = so.mean_drift_momentum, so.mean_drift_pressure
    assert momentum is not None and pressure is not None
    assert momentum.values.shape == (2, 2, 6)  # (omega, heading, dof)
    assert np.allclose(momentum.omega, [2 * np.pi / 12.5664, 2 * np.pi / 6.28319])
    assert np.allclose(np.degrees(momentum.headings), [0.0, 90.0])
    assert momentum.values[1, 0, 0] == pytest.approx(-2.0 * RG * 2.0)  # force: L^1
    assert momentum.values[0, 1, 1] == pytest.approx((-1.0 - 1e-3j) * RG * 2.0)  # conj
    assert np.isnan(momentum.values[1, 0, 2])  # heave: not in a .8
    assert np.isnan(momentum.values[0, 0, 0])  # (omega, heading) not given
    assert pressure.values.shape == (1, 1, 6)
    assert pressure.values[0, 0, 2] == pytest.approx(0.1 * RG * 2.0)  # not the 90 deg line
    assert pressure.values[0, 0, 4] == pytest.approx(3.0 * RG * 4.0)  # moment: L^2


def test_frequencies_instead_of_periods(tmp_path: Path) -> None:
    """The same ``.1`` with ``PER`` written as omega: 0 the zero-frequency limit, -1 the
    infinite-frequency one."""
    out = []
    for line in (DATA / "spar.1").read_text().splitlines():
        per, rest = line.split(maxsplit=1)
        period = float(per)
        value = {-1.0: 0.0, 0.0: -1.0}[period] if period <= 0 else 2 * np.pi / period
        out.append(f"  {value!r}  {rest}")
    (tmp_path / "w.1").write_text("\n".join(out) + "\n")
    by_omega, by_period = read_wamit(tmp_path / "w.1", period_is="frequency"), read_wamit(SPAR)
    assert np.allclose(by_omega.omega, by_period.omega, rtol=1e-14)
    assert np.allclose(by_omega.added_mass, by_period.added_mass, rtol=1e-12)
    assert np.allclose(by_omega.radiation_damping, by_period.radiation_damping, rtol=1e-12)
    assert np.array_equal(by_omega.added_mass_inf, by_period.added_mass_inf)
    assert np.array_equal(by_omega.added_mass_zero, by_period.added_mass_zero)
