"""Signal ``table``: CSV and netCDF time series, the same interpolation as ``linear_spline``.

A table and a ``linear_spline`` through the same points must agree exactly at every time
and derivative order (they share one function). File and column errors are model errors
naming the parameter. Used as a force component, a table ramp ``F = 2 t`` moves a free
body along ``x = t^3 / (3 m)``, which rk4 integrates exactly (a cubic).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
import yaml

import frylinks
from frylinks import ModelError, System
from frylinks.errors import CaseError
from frylinks.io.case import load_case
from frylinks.model.registry import Registry
from frylinks.params import parse_params

REGISTRY = Registry()
TABLE = REGISTRY.types["signal"]["table"].cls
SPLINE = REGISTRY.types["signal"]["linear_spline"].cls
POINTS = [[0.0, 1.0], [0.5, 3.0], [2.0, -1.0], [3.5, 0.25]]
TENFOLD = [[t, 10 * v] for t, v in POINTS]
TIMES = [-1.0, 0.0, 0.2, 0.5, 0.7, 1.9, 2.0, 3.0, 3.5, 9.0]


def table(**params: Any) -> Any:
    """A ``table`` block of one signal, checked as at input."""
    p = parse_params(TABLE.parameters, params, "signal")
    TABLE.validate(p)
    return TABLE([p])


def spline_values(points: list[list[float]], order: int) -> np.ndarray:
    sig = SPLINE([parse_params(SPLINE.parameters, {"points": points}, "signal")])
    return np.array([sig.evaluate(t, order)[0] for t in TIMES])


def values(sig: Any, order: int) -> np.ndarray:
    return np.array([sig.evaluate(t, order)[0] for t in TIMES])


def write_csv(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("order", [0, 1, 2])
def test_csv_with_header_matches_the_spline(tmp_path: Path, order: int) -> None:
    rows = "\n".join(f"{t},{v},{10 * v}" for t, v in POINTS)
    f = write_csv(tmp_path / "s.csv", f"# wave gauge\ntime,eta,force\n{rows}\n")
    np.testing.assert_array_equal(values(table(file=str(f)), order), spline_values(POINTS, order))
    np.testing.assert_array_equal(values(table(file=str(f), column="force"), order),
                                  spline_values(TENFOLD, order))
    np.testing.assert_array_equal(values(table(file=str(f), column=2), order),
                                  spline_values(TENFOLD, order))


def test_csv_without_header_and_whitespace(tmp_path: Path) -> None:
    rows = "\n".join(f"  {t}\t{v}   7" for t, v in POINTS)
    f = write_csv(tmp_path / "s.dat", rows + "\n\n")
    np.testing.assert_array_equal(values(table(file=str(f)), 0), spline_values(POINTS, 0))


def netcdf(path: Path, units: str | None = "s", scale: float = 1.0, extra: bool = False) -> Path:
    t = np.array([p[0] for p in POINTS]) / scale
    time = xr.DataArray(t, dims="time", attrs={} if units is None else {"units": units})
    ds = xr.Dataset({"eta": ("time", [p[1] for p in POINTS])}, coords={"time": time})
    if extra:
        ds["force"] = ("time", [10 * p[1] for p in POINTS])
        ds["grid"] = (("time", "x"), np.zeros((len(POINTS), 2)))
    ds.to_netcdf(path)
    return path


@pytest.mark.parametrize(("units", "scale"), [("s", 1.0), (None, 1.0), ("minutes", 60.0),
                                              ("hours since 2020-01-01", 3600.0)])
def test_netcdf_time_series(tmp_path: Path, units: str | None, scale: float) -> None:
    f = netcdf(tmp_path / "s.nc", units, scale)
    np.testing.assert_allclose(values(table(file=str(f)), 0), spline_values(POINTS, 0),
                               rtol=1e-14)
    np.testing.assert_allclose(values(table(file=str(f)), 1), spline_values(POINTS, 1),
                               rtol=1e-12)


def test_netcdf_variable_is_chosen(tmp_path: Path) -> None:
    f = netcdf(tmp_path / "s.nc", extra=True)
    np.testing.assert_array_equal(values(table(file=str(f), variable="force"), 0),
                                  spline_values(TENFOLD, 0))
    with pytest.raises(ModelError, match=r"^variable: give the variable .*eta, force"):
        table(file=str(f))
    with pytest.raises(ModelError, match=r"^variable: variable 'grid' has dimensions"):
        table(file=str(f), variable="grid")
    with pytest.raises(ModelError, match=r"^variable: no variable 'wave'"):
        table(file=str(f), variable="wave")


def test_netcdf_odd_time_units_are_refused(tmp_path: Path) -> None:
    f = netcdf(tmp_path / "s.nc", units="fortnights")
    with pytest.raises(ModelError, match=r"units 'fortnights'; accepted: s, min, h, d"):
        table(file=str(f))


CSV_ERRORS = [
    ("time,eta\n0,1\n1,2\n", {"column": "force"}, r"^column: no column named 'force'.*time, eta"),
    ("0,1\n1,2\n", {"column": "eta"}, r"^column: no column named 'eta'.*has no header"),
    ("0,1\n1,2\n", {"column": 2}, r"^column: column index 2 is not a value column"),
    ("0,1\n1,2\n", {"column": 0}, r"^column: column index 0 is not a value column"),
    ("0,1\n1,2\n", {"column": 1.5}, r"^column: expected a column name or a 0-based index"),
    ("0,1\n1,2\n1,3\n", {}, r"^file: .*times must increase strictly; sample 2 \(t = 1\)"),
    ("0,1\n1,2,3\n", {}, r"^file: .*line 2: 3 columns, expected 2"),
    ("0,1\n1,x\n", {}, r"^file: .*line 2: not a number"),
    ("t,v\n", {}, r"^file: .*has a header but no data"),
    ("# nothing\n", {}, r"^file: .*holds no data"),
    ("0,1\n1,nan\n", {}, r"^file: .*not a finite number"),
    ("0,1\n1,2\n", {"variable": "v"}, r"^variable: 'variable' is for netCDF files"),
]


@pytest.mark.parametrize(("text", "params", "message"), CSV_ERRORS)
def test_csv_errors(tmp_path: Path, text: str, params: dict[str, Any], message: str) -> None:
    f = write_csv(tmp_path / "s.csv", text)
    with pytest.raises(ModelError, match=message):
        table(file=str(f), **params)


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"^file: no such file '.*/missing.csv'$"):
        table(file="missing.csv")
    with pytest.raises(ModelError, match=r"^file: cannot tell the format of '.*/a.xlsx'"):
        table(file="a.xlsx")
    with pytest.raises(ModelError, match=r"^signal.file: expected a file path"):
        table(file=3)
    bad = tmp_path / "bad.nc"
    bad.write_text("not netcdf")
    with pytest.raises(ModelError, match=r"^file: cannot read .* as netCDF"):
        table(file=str(bad))
    f = netcdf(tmp_path / "s.nc")
    with pytest.raises(ModelError, match=r"^column: 'column' is for CSV files"):
        table(file=str(f), column="eta")


def test_error_names_the_key_path_in_a_model() -> None:
    s = System()
    s.add_body("b", mass=1.0, inertia=[1, 1, 1])
    with pytest.raises(ModelError, match=r"^forces.push.force\[2\].file: no such file"):
        s.add_force("push", "world_force", node="b",
                    force=[0.0, 0.0, {"type": "table", "file": "nowhere.csv"}])


# -- in a run -------------------------------------------------------------------------------

MASS = 2.0


def ramp_csv(path: Path) -> Path:
    return write_csv(path, "t,F\n0,0\n1,2\n")


def check_cubic(ds: xr.Dataset) -> None:
    """x = t^3 / (3 m) under F = 2 t (rk4 integrates the cubic exactly)."""
    t = ds.time.values
    x = ds.body_position.sel(body="puck", xyz="x").values
    np.testing.assert_allclose(x, t**3 / (3.0 * MASS), rtol=0, atol=1e-15)


def test_table_force_moves_a_body_exactly(tmp_path: Path) -> None:
    f = ramp_csv(tmp_path / "ramp.csv")
    s = frylinks.System(gravity=[0, 0, 0])
    s.add_body("puck", mass=MASS, inertia=[1, 1, 1])
    s.add_force("push", "world_force", node="puck",
                force=[{"type": "table", "file": str(f), "column": "F"}, 0.0, 0.0])
    check_cubic(s.run(t_end=0.5, dt=1e-2))


def test_case_file_reads_a_path_relative_to_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``file`` in a case file is read relative to the case file, from any working
    directory; in Python it is relative to the working directory."""
    (tmp_path / "series").mkdir()
    ramp_csv(tmp_path / "series" / "ramp.csv")
    (tmp_path / "cases").mkdir()
    case = {
        "frylinks": 1, "name": "table-push", "gravity": [0, 0, 0],
        "bodies": {"puck": {"mass": MASS, "inertia": [1, 1, 1]}},
        "forces": {"push": {"type": "world_force", "node": "puck",
                            "force": [{"type": "table", "file": "../series/ramp.csv"}, 0, 0]}},
        "solver": {"t_end": 0.5, "dt": 0.01},
    }
    path = tmp_path / "cases" / "push.yaml"
    path.write_text(yaml.safe_dump(case))
    for cwd in (tmp_path, tmp_path / "cases", tmp_path / "series"):
        monkeypatch.chdir(cwd)
        system, solver = load_case(path)
        check_cubic(system.run(**solver))
    # in Python, the same relative path is read from the working directory
    monkeypatch.chdir(tmp_path / "cases")
    table(file="../series/ramp.csv")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelError, match=r"^file: no such file '.*/series/ramp.csv'"):
        table(file="../series/ramp.csv")
    case["forces"]["push"]["force"][0]["file"] = "series/ramp.csv"
    path.write_text(yaml.safe_dump(case))
    where = re.escape(str((tmp_path / "cases" / "series" / "ramp.csv").resolve()))
    with pytest.raises(CaseError, match=rf"forces.push.force\[0\].file: no such file "
                                        rf"'{where}'"):
        load_case(path)
