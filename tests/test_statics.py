"""frylinks.engine.statics: the static equilibrium a run starts from (solver.initial_equilibrium)
and a linear analysis is made about, on models whose links leave few coordinates."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import xarray as xr

from frylinks.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_pendulum_run_from_its_equilibrium(tmp_path: Path) -> None:
    """The pendulum case released at 30 degrees, with initial_equilibrium: the bob hangs
    straight down 1 m under the pivot (the link turned back by exactly 30 degrees) and
    stays there. A least-squares search over the bob's six coordinates sent it 38 km
    away on its first step; the search in the link's one coordinate does not."""
    text = (ROOT / "cases" / "pendulum.yaml").read_text().replace(
        "solver: {t_end: 4.0, dt: 0.01, integrator: rk4}",
        "solver: {t_end: 0.5, dt: 0.01, integrator: rk4, initial_equilibrium: true}")
    assert "initial_equilibrium: true" in text
    case = tmp_path / "pendulum.yaml"
    case.write_text(text)
    out = tmp_path / "p.nc"
    assert main(["run", str(case), "-o", str(out)]) == 0
    with xr.open_dataset(out) as ds:
        position = ds["body_position"].sel(body="bob").values
        angle = ds["link_displacement"].sel(link="hinge", dof="rz").values
    assert np.allclose(position, [0.0, 0.0, -1.0], atol=1e-9)
    assert np.allclose(angle, -math.pi / 6, atol=1e-9)
