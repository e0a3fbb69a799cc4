"""The ``frylinks`` command, run as a user runs it: a real subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import xarray as xr

from frylinks.cli import main

SHORT_CASE = """\
frylinks: 1
name: short-pendulum
ground:
  nodes:
    pivot: {orientation: {axis: [1, 0, 0], angle_deg: 90}}
bodies:
  bob:
    mass: 1.0
    inertia: [1.0e-3, 1.0e-3, 1.0e-3]
    position: [0.6, 0, -0.8]
    nodes:
      hinge: {position: [-0.6, 0, 0.8], orientation: {axis: [1, 0, 0], angle_deg: 90}}
links:
  hinge: {type: revolute, master: ground.pivot, slave: bob.hinge}
solver: {t_end: 0.1, dt: 0.01}
output: {every: 2}
"""


def frylinks_cmd(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "frylinks", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120)


@pytest.fixture
def case(tmp_path: Path) -> Path:
    path = tmp_path / "short.yaml"
    path.write_text(SHORT_CASE)
    return path


def test_run_writes_the_file_beside_the_case(case: Path) -> None:
    proc = frylinks_cmd("run", case.name, cwd=case.parent)
    assert proc.returncode == 0, proc.stderr
    out = case.with_suffix(".nc")
    assert proc.stdout.startswith("completed: 6 samples to t = 0.1 s in ")
    assert proc.stdout.rstrip().endswith(f"-> {out.name}")
    assert "Traceback" not in proc.stderr
    assert "simulated time" not in proc.stderr  # no progress bar off a terminal
    with xr.open_dataset(out) as ds:
        assert ds.attrs["status"] == "completed"
        assert ds.attrs["title"] == "short-pendulum"
        assert ds.attrs["case"] == SHORT_CASE
        assert ds.sizes["time"] == 6


def test_run_with_output_option(case: Path, tmp_path: Path) -> None:
    out = tmp_path / "results" / "custom.nc"
    out.parent.mkdir()
    proc = frylinks_cmd("run", str(case), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.exists() and not case.with_suffix(".nc").exists()


def test_broken_case_is_one_error_line(case: Path) -> None:
    case.write_text(SHORT_CASE.replace("mass: 1.0", "mass: -1.0"))
    proc = frylinks_cmd("run", str(case))
    assert proc.returncode == 2
    assert proc.stderr == (f"frylinks: error: case '{case}', bodies.bob.mass: must be > 0, "
                           "got -1 (line 8)\n")
    assert proc.stdout == ""
    assert not case.with_suffix(".nc").exists()


def test_cache_build_compiles_what_cases_need(case: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``frylinks cache --build`` runs each case for two samples, writes nothing beside
    it, and names a case it could not run (exit 1)."""
    broken = tmp_path / "broken.yaml"
    broken.write_text(SHORT_CASE.replace("mass: 1.0", "mass: -1.0"))
    assert main(["cache", "--build", str(case)]) == 0
    out = capsys.readouterr().out
    assert f"compiled: {case} in " in out
    assert not case.with_suffix(".nc").exists()
    assert main(["cache", "--build", str(case), str(broken)]) == 1
    out = capsys.readouterr().out
    assert f"compiled: {case} in " in out
    assert f"failed: {broken} in " in out and "bodies.bob.mass: must be > 0" in out


def test_yaml_error_and_missing_file(case: Path) -> None:
    case.write_text("frylinks: 1\nbodies: [\n")
    proc = frylinks_cmd("check", str(case))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"frylinks: error: case '{case}': line 3, column 1: YAML")
    assert "Traceback" not in proc.stderr
    assert main(["check", str(case.parent / "missing.yaml")]) == 2


def test_diverged_run_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "stiff.yaml"
    path.write_text("frylinks: 1\nbodies:\n  mass: {mass: 1.0, inertia: [1, 1, 1]}\n"
                    "links:\n  spring:\n    type: prismatic\n    master: ground\n"
                    "    slave: mass\n    spring_damper: {stiffness: 1.0e+9}\n"
                    "solver: {t_end: 1.0, dt: 0.01}\n")
    proc = frylinks_cmd("run", str(path))
    assert proc.returncode == 1
    assert proc.stdout.startswith("diverged at t=")
    with xr.open_dataset(path.with_suffix(".nc")) as ds:
        assert ds.attrs["status"].startswith("diverged at t=")


def test_check(case: Path) -> None:
    proc = frylinks_cmd("check", str(case))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ("ok: 1 bodies, 1 links, 0 forces\nassembly: largest initial link "
                           "residual 0 m, 0 deg (tolerance 0.01 m, 0.1 deg)\n")
    assert not case.with_suffix(".nc").exists()


CONTRADICTION = """\
frylinks: 1
ground:
  nodes:
    a: {position: [0, 0, 0]}
    b: {position: [5, 0, 0]}
bodies:
  m: {mass: 1.0, inertia: [1, 1, 1]}
links:
  one: {type: fixed, master: ground.a, slave: m}
  two: {type: fixed, master: ground.b, slave: m}
solver: {t_end: 0.1, dt: 0.01, assembly_tolerance: {length: 100.0}}
"""

#: The contradiction with the default tolerance: refused before any assembly is tried.
FAR_OFF = CONTRADICTION.replace(", assembly_tolerance: {length: 100.0}", "")


LATCH_ON_GA = """\
frylinks: 1
bodies:
  m: {mass: 1.0, inertia: [1, 1, 1], position: [0, 0, 0.1]}
links:
  slide: {type: prismatic, master: ground, slave: m, spring_damper: {stiffness: 10.0}}
  latch: {type: latch, master: ground, slave: m, latch_time: 0.5}
solver: {t_end: 0.1, dt: 0.01, integrator: generalized_alpha}
"""


@pytest.mark.parametrize("command", ["check", "run"])
@pytest.mark.parametrize(("text", "message", "line"), [
    (CONTRADICTION, "links.one: the initial positions cannot be assembled", 9),
    (FAR_OFF, "links.two: the initial positions miss link 'two' by tx -5 m, ty 0 m, tz 0 m", 10),
    (LATCH_ON_GA, "solver.integrator: link type 'latch' switches", 7),
], ids=["contradiction", "far-off", "latch-on-generalized-alpha"])
def test_a_model_that_cannot_be_assembled_is_a_case_error(
        command: str, text: str, message: str, line: int, tmp_path: Path) -> None:
    """Found only at assembly, yet reported like any case-file mistake: file, key, line;
    nothing written."""
    case = tmp_path / "model.yaml"
    case.write_text(text)
    proc = frylinks_cmd(command, case.name, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"frylinks: error: case 'model.yaml', {message}")
    assert proc.stderr.rstrip().endswith(f"(line {line})")
    assert not case.with_suffix(".nc").exists()  # nothing written for a model that fails


TURNED_SLAVE = """\
frylinks: 1
ground:
  nodes:
    m: {position: [0, 0, 0]}
bodies:
  b:
    mass: 1.0
    inertia: [1, 1, 1]
    nodes:
      n: {position: [0, 0, 0], orientation: {axis: [1, 0, 0], angle_deg: 90}}
links:
  slide: {type: planar, master: ground.m, slave: b.n}
solver: {t_end: 0.1, dt: 0.01}
"""


def test_check_refuses_a_link_set_up_in_the_wrong_axes(tmp_path: Path) -> None:
    """A planar link whose slave node is turned 90 degrees from its master passed
    ``frylinks check`` silently, and the run turned the bodies to assemble it (issue 33):
    both refuse it, naming the link, its residual per constrained DOF and the cause."""
    case = tmp_path / "turned.yaml"
    case.write_text(TURNED_SLAVE)
    for command in ("check", "run"):
        proc = frylinks_cmd(command, case.name, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith("frylinks: error: case 'turned.yaml', links.slide: the "
                                      "initial positions miss link 'slide' by tz 0 m, rx 90 "
                                      "deg, ry 0 deg, beyond solver.assembly_tolerance")
        assert "axes are not aligned" in proc.stderr and "wrong side" in proc.stderr
        assert "Traceback" not in proc.stderr
    assert not case.with_suffix(".nc").exists()


#: A slave node 5 mm off its planar link's plane: within the tolerance, assembled.
NEARLY = TURNED_SLAVE.replace("n: {position: [0, 0, 0], orientation: {axis: [1, 0, 0], "
                              "angle_deg: 90}}", "n: {position: [0, 0, 0.005]}")


def test_a_small_initial_residual_is_assembled_and_said(tmp_path: Path) -> None:
    """Within the tolerance, the run assembles the link and says by how much it moved
    the body; ``check`` prints the largest residual."""
    case = tmp_path / "nearly.yaml"
    case.write_text(NEARLY)
    proc = frylinks_cmd("check", case.name, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "assembly: largest initial link residual 0.005 m, 0 deg (tolerance 0.01 m, " \
           "0.1 deg); assembling the links moved the bodies by at most 0.005 m" in proc.stdout


#: Names of the codes the built-in types were seeded from: they belong in the docs
#: (docs/render_reference.py SEEDS), not in the words ``frylinks plugins`` prints.
SEED_NAMES = ("Solfec", "FRyDoM", "Exudyn", "Multibody.jl", "Arboris", "Modelica")


def test_warnings_read_as_the_commands_not_as_python_source(tmp_path: Path) -> None:
    """A run's warning is one line ``frylinks: warning: ...``, without the Python file,
    line and source text that raised it."""
    case = tmp_path / "nearly.yaml"
    case.write_text(NEARLY)
    proc = frylinks_cmd("run", case.name, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("frylinks: warning: the initial positions do not satisfy "
                               "the links: violated 'slide'")
    assert "UserWarning" not in proc.stderr and ".py:" not in proc.stderr


def test_plugins_lists_every_builtin_type() -> None:
    """Every registered type on its own line (not wrapped into a pipe), with its kind,
    plugin, distribution, version and a description in engineering words."""
    from frylinks.model.registry import Registry

    proc = frylinks_cmd("plugins")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["kind", "type", "plugin", "distribution", "version",
                                "description"]
    rows = {line.split()[1]: line.split() for line in lines[1:]}
    assert rows["revolute"][:4] == ["link", "revolute", "links", "frylinks"]
    for kind, name in [("link", "screw"), ("force", "world_torque"), ("signal", "sine")]:
        assert rows[name][0] == kind and rows[name][3] == "frylinks"
    registered = list(Registry().all())
    assert len(lines) == 1 + len(registered)
    for info in registered:
        description = " ".join(rows[info.name][5:])
        assert rows[info.name][0] == info.kind and description, info.name
        if info.distribution == "frylinks":
            assert not any(seed in description for seed in SEED_NAMES), description
    assert "translational joint: one sliding DOF along the master node's z axis" in \
        " ".join(rows["prismatic"][5:])


def test_plugins_wraps_descriptions_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """On a terminal of 100 columns the descriptions wrap under their column."""
    import os
    import shutil

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size",
                        lambda fallback=(80, 24): os.terminal_size((100, 24)))
    assert main(["plugins"]) == 0
    lines = capsys.readouterr().out.splitlines()
    column = lines[0].index("description")
    assert max(len(line) for line in lines) <= 100
    more = [line for line in lines if not line[:column].strip()]
    assert more and all(line[column] != " " for line in more)


@pytest.mark.parametrize("command", [["plugins"], ["info", "RESULTS"], ["schema"]])
def test_a_closed_pipe_ends_the_command_quietly(command: list[str], tmp_path: Path) -> None:
    """``frylinks plugins | head -1``: the reader is gone before the command writes (the
    read end of its pipe closed first), so every write fails with EPIPE. The command ends
    with SIGPIPE's exit code, 141, and says nothing (no BrokenPipeError traceback, no
    "Exception ignored" at exit)."""
    import os

    if "RESULTS" in command:
        results = tmp_path / "r.nc"
        case = tmp_path / "short.yaml"
        case.write_text(SHORT_CASE)
        assert frylinks_cmd("run", str(case), "-o", str(results)).returncode == 0
        command = [str(results) if c == "RESULTS" else c for c in command]
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "frylinks", *command], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert proc.returncode == 141
    assert proc.stderr == ""


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["sweep"]) == 2
    assert "the following arguments are required: CASE" in capsys.readouterr().err
    assert main(["sweep", "x.yaml", "--set", "a"]) == 2
    assert "--set 'a': expected KEY=VALUES" in capsys.readouterr().err
    assert main(["sweep", "x.yaml", "--set", "a=1"]) == 2
    assert "case 'x.yaml': no such file" in capsys.readouterr().err
    assert main(["sweep", "x.yaml", "--workers", "0"]) == 2
    assert "expected a whole number >= 1" in capsys.readouterr().err
    assert main(["--version"]) == 0


def test_plot_help_lists_every_statistic(capsys: pytest.CaptureFixture[str]) -> None:
    from frylinks.views.plots import DEFAULT_STAT, STATS

    assert main(["plot", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    listed = text.split("summary of each case of a sweep over time: ")[1].split(" (default")[0]
    assert listed.replace(", or ", ", ").replace(" for time series per case", "").split(
        ", ") == list(STATS)
    assert f"(default: {DEFAULT_STAT})" in text


def test_a_kernel_that_cannot_compile_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A plugin author's kernel numba refuses (here ``alive(a, b)``, two values in one
    call) ends the command with one line naming the kernel and the reason, not numba's
    forty lines; other exceptions still show their traceback."""
    import numpy as np
    from numba import njit

    from frylinks import cli
    from frylinks.jit import alive

    @njit
    def bad_kernel(a: np.ndarray, b: np.ndarray) -> float:
        s = a[0] + b[0]
        alive(a, b)
        return s

    def run(args: object) -> int:
        bad_kernel(np.ones(2), np.ones(2))
        return 0

    import argparse

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    monkeypatch.setattr(parser, "parse_args",
                        lambda argv: argparse.Namespace(command="plugins", func=run))
    assert cli.main(["plugins"]) == 3
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "the compiled kernel tests.test_cli." in err and "bad_kernel failed to compile: " \
        "frylinks.jit.alive takes one array or tuple per call, got 2" in err
