"""frylinks.analysis from the command line and Python: files written, units, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import frylinks
from frylinks.analysis import modes
from frylinks.analysis.modes import table
from frylinks.analysis.rao import rao
from frylinks.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _every_variable_described(ds: xr.Dataset) -> None:
    for name, var in ds.data_vars.items():
        assert var.attrs.get("units"), name
        assert var.attrs.get("long_name"), name


def test_modes_command_writes_netcdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    out = tmp_path / "m.nc"
    assert main(["modes", str(ROOT / "cases" / "point_absorber.yaml"), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "buoy tz" in text and "static equilibrium" in text
    with xr.open_dataset(out) as ds:
        _every_variable_described(ds)
        assert ds.sizes["mode"] == 1
        assert np.isfinite(float(ds["added_mass_frequency"][0]))


def test_mode_shapes_are_normalised_as_their_long_name_says(tmp_path: Path) -> None:
    """The largest body component, rotations times the length scale, is 1 in every
    mode: in the file, the table and the plot's bars alike (a flap's pitch mode has its
    rotation weigh L = 5 m)."""
    from frylinks.analysis.modes import weights

    out = tmp_path / "m.nc"
    assert main(["modes", str(ROOT / "cases" / "oswec_flap.yaml"), "-o", str(out)]) == 0
    with xr.open_dataset(out) as ds:
        assert "largest body component (rotations times" in \
            ds.body_mode_amplitude.attrs["long_name"]
        weighed = ds.body_mode_amplitude.values * weights(ds)
        np.testing.assert_allclose(weighed.max(axis=(1, 2)), 1.0, rtol=1e-12)
        assert ds.attrs["length_scale"] == 5.0
        ry = float(ds.body_mode_amplitude.sel(dof="ry").isel(mode=0, body=0))
        assert ry == pytest.approx(1.0 / 5.0, rel=1e-9)


def test_rao_command_and_energy_balance(tmp_path: Path) -> None:
    out = tmp_path / "r.nc"
    case = ROOT / "cases" / "point_absorber.yaml"
    assert main(["rao", str(case), "--periods", "5:12:8", "--headings", "0,30",
                 "-o", str(out)]) == 0
    with xr.open_dataset(out) as ds:
        _every_variable_described(ds)
        assert ds.sizes["omega"] == 8 and ds.sizes["heading"] == 2
        # in steady state the wave brings in what the PTO absorbs and the body radiates
        total = ds["link_power"].sum("link") + ds["force_power"].sum("force")
        scale = float(ds["link_power"].max())
        assert float(abs(total).max()) < 1e-9 * scale
        assert float(ds["link_power"].min()) > 0
        np.testing.assert_array_equal(ds["absorbed_power"].sel(pto="pto"),
                                      ds["link_power"].sel(link="pto"))


def test_rao_reads_absorbed_power_whatever_supplies_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """RM3's PTO is a pto_damper force (its slide link has no spring-damper): the command
    prints its absorbed power and the Dataset has it over pto."""
    out = tmp_path / "r.nc"
    assert main(["rao", str(ROOT / "cases" / "rm3.yaml"), "--periods", "6,8,10",
                 "-o", str(out)]) == 0
    assert "PTO pto: largest absorbed power" in capsys.readouterr().out
    with xr.open_dataset(out) as ds:
        assert list(ds["pto"].values) == ["pto"]
        np.testing.assert_array_equal(ds["absorbed_power"].sel(pto="pto"),
                                      ds["force_power"].sel(force="pto"))
        assert float(ds["absorbed_power"].min()) > 0
        assert not np.any(ds["link_power"].values)


def test_a_switching_type_is_named(tmp_path: Path) -> None:
    text = (ROOT / "cases" / "point_absorber.yaml").read_text()
    text = text.replace("forces:\n", "forces:\n  latching: {type: pto_declutch, master: "
                        "ground.anchor, slave: buoy, damping: 1.0e5, declutch_time: 0.5}\n", 1)
    case = tmp_path / "declutched.yaml"
    case.write_text(text.replace("../plugins", str(ROOT / "plugins")))
    with pytest.raises(frylinks.CaseError, match=r"declutched.yaml', forces.latching: force "
                                                 "type 'pto_declutch' cannot be linearised"):
        modes(case)


def test_no_equilibrium_is_a_clear_error(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    code = main(["modes", str(ROOT / "cases" / "screw_jack.yaml"), "-o",
                 str(tmp_path / "x.nc")])
    err = capsys.readouterr().err
    assert code == 2
    assert "static equilibrium" in err and "Traceback" not in err


def test_bad_periods_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rao", str(ROOT / "cases" / "pendulum.yaml"), "--periods", "a:b"]) == 2
    assert "--periods" in capsys.readouterr().err


def test_undamped_pendulum_python_api() -> None:
    system = frylinks.load_case(str(ROOT / "cases" / "pendulum.yaml"))
    ds = modes(system)
    assert ds.attrs["linearised_about"] == "static equilibrium"
    assert float(ds["damping_ratio"][0]) == 0.0
    # no waves act on a pendulum: its RAOs are zero
    r = rao(system, periods=[2.0, 4.0])
    assert float(r["body_rao_amplitude"].max()) == 0.0


def test_plot_of_an_rao_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.nc"
    assert main(["rao", str(ROOT / "cases" / "point_absorber.yaml"), "--periods", "4:12:6",
                 "-o", str(out)]) == 0
    fig = tmp_path / "rao.png"
    assert main(["plot", str(out), "body_rao_amplitude", "--select", "dof=tz",
                 "-o", str(fig)]) == 0
    assert fig.stat().st_size > 0
    assert main(["plot", str(out), "body_rao_amplitude", "--select", "dof=zz"]) == 2
    assert "dof=zz" in capsys.readouterr().err


def test_mode_table_weighs_rotations_by_the_length_scale() -> None:
    """A 100 m barge (no gravity) on two vertical springs at its ends and a horizontal
    one on a 20 m mast: surge and pitch couple in two modes whose pitch is about 1/30
    rad per metre of surge, which the table lists because a radian moves the barge's
    ends by its length scale (50 m), not by 1 m."""
    system = frylinks.System(gravity=[0, 0, 0])
    m = 1e6
    barge = system.add_body("barge", mass=m, inertia=[m * 100 / 6, m * 1e4 / 12,
                                                      m * 1e4 / 12], position=[0, 0, 0])
    for name, point, direction, k in (("bow", [50, 0, 0], [0, 0, 1], 1e5),
                                      ("stern", [-50, 0, 0], [0, 0, 1], 1e5),
                                      ("mast", [0, 0, 20], [1, 0, 0], 1e6)):
        anchor = np.add(point, np.multiply(direction, 20.0))
        system.ground.add_node(name, position=anchor.tolist())
        barge.add_node(name, position=point)
        system.add_force(name, "spring", master=f"ground.{name}", slave=f"barge.{name}",
                         stiffness=k, rest=20.0)
    ds = modes(system, equilibrium=False)
    assert ds.attrs["length_scale"] == 50.0
    rows = {line.split()[0]: line for line in table(ds).splitlines()[1:]}
    # the modes whose pitch moves the ends by more than half the largest motion
    pitching = np.nonzero(50.0 * ds["body_mode_amplitude"].sel(body="barge", dof="ry").values
                          > 0.5)[0]
    assert len(pitching) == 2
    for k in pitching:
        amp = ds["body_mode_amplitude"].sel(body="barge").isel(mode=int(k))
        # the translation dwarfs the rotation in raw units (m against rad) ...
        assert float(amp.sel(dof="tx")) > 10 * float(amp.sel(dof="ry"))
        # ... and both are listed
        assert "barge tx" in rows[str(k)] and "barge ry" in rows[str(k)]


def test_modes_file_drawn_and_summarised(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.nc"
    assert main(["modes", str(ROOT / "cases" / "pendulum.yaml"), "-o", str(out)]) == 0
    capsys.readouterr()
    # no variable: a modes file draws its mode shapes
    assert main(["plot", str(out)]) == 0
    figure = Path(capsys.readouterr().out.strip())
    assert figure == tmp_path / "m_shapes.png" and figure.stat().st_size > 0
    assert main(["plot", str(out), "--select", "mode=7"]) == 2
    assert "mode=7" in capsys.readouterr().err
    # info: what it is and the modes table, not a refusal for want of time
    assert main(["info", str(out)]) == 0
    text = capsys.readouterr().out
    assert "analysis          modes" in text and "bob" in text and "period [s]" in text
    # a run's results still need a variable
    run = tmp_path / "run.nc"
    frylinks.run(str(ROOT / "cases" / "pendulum.yaml"), output=str(run), t_end=0.1)
    assert main(["plot", str(run)]) == 2
    assert "name the variable" in capsys.readouterr().err


def test_rao_file_summarised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.nc"
    assert main(["rao", str(ROOT / "cases" / "oswec_waves.yaml"), "--periods", "6,8",
                 "--wave-height", "2", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    text = capsys.readouterr().out
    assert "wave height       2 m" in text and "8 / (3 pi)" in text
    with xr.open_dataset(out) as ds:
        # the Morison elements' inertia and drag now drive the flap
        assert float(ds["link_rao_amplitude"].sel(link="pto", dof="rz").min()) > 0
    assert main(["rao", str(ROOT / "cases" / "oswec_waves.yaml"), "--wave-height", "-1",
                 "-o", str(out)]) == 2
    assert "wave height" in capsys.readouterr().err
