"""The benchmark suite runs from a clean clone (a fast version: frylinks only, short
horizons; the peers need the ``bench`` extra and run in ``python benchmarks/suite.py``)."""

from __future__ import annotations

import re

import pytest

from tests.bench import benchmark


def test_suite_runs_and_reports_every_model(capsys: pytest.CaptureFixture[str]) -> None:
    suite = benchmark("suite")
    assert suite.main(["--quick", "--no-peers", "--chains", "1", "10", "--cost-n", "10",
                       "--buoy-seconds", "0.2",
                       # (the point absorber's kind is test_compiled's; the OC4 semi's
                       # and the drifting buoy's would be compiled for this test alone)
                       "--wave-cases", "point_absorber",
                       "--radiation-cases", "point_absorber"]) == 0
    out = capsys.readouterr().out
    for model in ("pendulum on a revolute link", "spring-damper", "N = 1 ", "N = 10 ",
                  "cost per generalized-alpha step", "moored heaving buoy",
                  "point_absorber (cases/point_absorber.yaml", "its records precomputed",
                  "radiation method: state_space", "radiation method: convolution",
                  "start-up, each in a new process"):
        assert model in out, model
    # the implicit pendulum meets the exact solution as a second-order scheme should
    angle = re.search(r"frylinks generalized-alpha \(rho_inf=0\.9\) +[\d.e+-]+ +- +angle err "
                      r"([\d.e+-]+) rad", out)
    assert angle is not None and float(angle.group(1)) < 1e-4, out
    assert "diverged" not in out, out
