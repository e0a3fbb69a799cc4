"""The ``frylinks`` command (docs/reference/cli.md): ``run``, ``sweep``, ``check``, ``plugins``,
``schema``, ``info``, ``plot``, the linear analyses ``modes`` and ``rao``, and
``hydrostatics`` (a body's hydrostatics from its geometry).

Exit codes: 0 success; 1 a run that did not complete (diverged, interrupted); 2 a
mistake in the input (case file, plugin, command line), reported on one line as
``frylinks: error: <message>`` without a traceback; 141 (as for SIGPIPE), quietly, when
the reader of the output closed it early (``frylinks plugins | head -1``). A warning is
one line too, ``frylinks: warning: <message>``, without Python's file and line.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import sys
import textwrap
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from frylinks.errors import FrylinksError, Notice
from frylinks.version import __version__

PROG = "frylinks"
#: Cases not completed listed after a sweep.
MAX_LISTED_CASES = 10
#: Exit code when the reader of the output closed it early: that of a command killed by
#: SIGPIPE (128 + 13), as ``yes | head -1`` gives; the shell says nothing about it.
BROKEN_PIPE = 141
#: Narrowest column of descriptions that ``frylinks plugins`` wraps text into.
MIN_DESCRIPTION_WIDTH = 30


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv
        Arguments without the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The exit code; :data:`BROKEN_PIPE` when the reader of the output went away
        (``frylinks info OUT.nc | head -1``), which ends the command quietly.
    """
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        code = _main(argv)
        # output to a pipe is buffered: the reader's absence shows at this flush
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _reader_gone()
    finally:
        warnings.showwarning = shown


#: numba's words for a mistake a plugin's kernel makes with frylinks.jit, in frylinks'.
KNOWN = ((re.compile(r"_alive_intrinsic\(\) takes 2 positional arguments but (\d+) were "
                     r"given"),
          lambda m: f"frylinks.jit.alive takes one array or tuple per call, got "
                    f"{int(m.group(1)) - 1}: write alive(a) then alive(b)"),)


def _compile_failure(exc: BaseException) -> str | None:
    """One line for a kernel numba cannot compile (a plugin's kernel breaking numba's or
    frylinks' rules, docs/plugins.md): numba's own message is some forty lines of
    context; this keeps what went wrong and which kernel. None for an exception raised
    elsewhere. ``FRYLINKS_TRACEBACK=1`` shows the whole of it instead."""
    if os.environ.get("FRYLINKS_TRACEBACK") == "1":
        return None
    kernel = None
    tb = exc.__traceback__
    while tb is not None:   # the innermost dispatcher compiling is the kernel at fault
        frame = tb.tb_frame
        if frame.f_code.co_name == "_compile_for_args" and \
                frame.f_code.co_filename.endswith(os.path.join("numba", "core",
                                                               "dispatcher.py")):
            fn = getattr(frame.f_locals.get("self"), "py_func", None)
            kernel = (f"{fn.__module__}.{fn.__qualname__}" if fn is not None
                      else "a kernel")
        tb = tb.tb_next
    if kernel is None:
        return None
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    for pattern, words in KNOWN:
        lines = [pattern.sub(words, ln) for ln in lines]
    what = next((ln for ln in lines if "frylinks.jit" in ln), None) or \
        next((ln for ln in lines if not ln.startswith(("-", "During", "File", "^",
                                                        "Failed in"))),
             type(exc).__name__)
    return (f"the compiled kernel {kernel} failed to compile: {what.rstrip('.')} "
            "(FRYLINKS_TRACEBACK=1 shows numba's whole message)")


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
    """A warning as a user of the command reads it, ``frylinks: warning: <message>``:
    not the Python file and source line that raised it (a user's case is not there)."""
    what = "note" if issubclass(category, Notice) else "warning"
    try:
        print(f"{PROG}: {what}: {message}", file=file or sys.stderr)
    except OSError:  # stderr gone: nothing to tell
        pass


def _reader_gone() -> int:
    """End quietly after the reader of stdout closed it (``| head -1``).

    Python would otherwise fail once more flushing stdout at exit ("Exception ignored
    ... BrokenPipeError"): stdout is pointed at the null device first, as the Python
    documentation advises for SIGPIPE.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor (a redirected sys.stdout)
        pass
    return BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (printed already)
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except FrylinksError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        line = _compile_failure(exc)
        if line is None:
            raise
        print(f"{PROG}: error: {line}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Time-domain dynamics of rigid bodies joined by links (marine engineering).")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run a case file and write its results to netCDF",
                         description="Run a case file. Results are streamed to a netCDF "
                                     "file while the run goes.")
    run.add_argument("case", metavar="CASE", help="YAML case file")
    run.add_argument("-o", "--output", metavar="OUT.nc",
                     help="results file (default: the case file's name with .nc, beside it)")
    run.add_argument("--t-end", type=_seconds, metavar="SECONDS",
                     help="end time, in place of the case's solver.t_end [s]")
    run.add_argument("--dt", type=_seconds, metavar="SECONDS",
                     help="time step, in place of the case's solver.dt [s]")
    run.add_argument("--resume", metavar="OUT.nc",
                     help="continue the run saved in OUT.nc (interrupted, killed, diverged, "
                          "or extended with a later --t-end) from its last checkpoint; the "
                          "result equals an uninterrupted run")
    run.set_defaults(func=_run)

    sweep = sub.add_parser(
        "sweep", help="run load cases of a case file on a dask cluster",
        description="Run load cases of a case file on dask.distributed (a LocalCluster of "
                    "one worker per core by default, or a running scheduler) and write one "
                    "results file with a 'case' dimension, the swept values as its "
                    "coordinates and each case's status. Cases are written as they finish; "
                    "a case that fails or diverges is recorded with its message.",
        epilog="example: frylinks sweep cases/point_absorber.yaml "
               "--set links.pto.spring_damper.damping=1e5:4e5:4 "
               "--set environment.waves.tp=6,8,10,12 -o matrix.nc")
    sweep.add_argument("case", metavar="CASE", help="YAML case file (the base case)")
    sweep.add_argument("--set", metavar="KEY=VALUES", action="append", default=[],
                       dest="values",
                       help="a key path of the case and its values: start:stop:count (both "
                            "ends included), a list 1e5,2e5,4e5, or [[0,0,1],[0,0,2]]; "
                            "repeat for more keys (added to the case's 'sweep' section)")
    sweep.add_argument("--zip", action="store_true", default=None,
                       help="pair the i-th values of every key instead of taking every "
                            "combination")
    sweep.add_argument("--scheduler", metavar="ADDRESS",
                       help="address of a running dask scheduler (tcp://host:8786); "
                            "default: a LocalCluster on this machine")
    sweep.add_argument("--workers", type=_count, metavar="N",
                       help="worker processes of the LocalCluster (default: one per core)")
    sweep.add_argument("-o", "--output", metavar="OUT.nc",
                       help="results file (default: the case file's name with _sweep.nc, "
                            "beside it)")
    sweep.add_argument("--t-end", type=_seconds, metavar="SECONDS",
                       help="end time of every case, in place of solver.t_end [s]")
    sweep.add_argument("--dt", type=_seconds, metavar="SECONDS",
                       help="time step of every case, in place of solver.dt [s]")
    sweep.add_argument("--resume", metavar="OUT.nc",
                       help="run only the cases still pending in OUT.nc (an interrupted or "
                            "killed sweep), keeping those it holds")
    sweep.set_defaults(func=_sweep)

    check = sub.add_parser("check", help="check a case file without running it",
                           description="Load a case file, assemble its model and bring its "
                                       "initial state onto the links, without running it.")
    check.add_argument("case", metavar="CASE", help="YAML case file")
    check.set_defaults(func=_check)

    imp = sub.add_parser(
        "import", help="write a case file from another tool's model (WEC-Sim)",
        description="Write a commented frylinks case file from a WEC-Sim input file "
                    "(wecSimInputFile.m) and the hydrodynamic files it names: simu, waves, "
                    "body, constraint, pto and mooring, as docs/wecsim.md maps them. Its "
                    "Simulink diagram is not read: each constraint's and PTO's block is "
                    "taken from the comment above it and the bodies it joins as WEC-Sim's "
                    "examples join them, or given with --joint. Every guess and every line "
                    "not translated is printed and written at the top of the case.")
    imp.add_argument("tool", choices=["wecsim"], help="the tool the model comes from")
    imp.add_argument("input", metavar="INPUT.m", help="the WEC-Sim input file")
    imp.add_argument("-o", "--output", metavar="CASE.yaml",
                     help="the case file (default: beside the input, named after its "
                          "folder)")
    imp.add_argument("--joint", metavar="NAME=TYPE:BASE:FOLLOWER", action="append",
                     default=[], help="a constraint's or PTO's block (fixed, floating_3dof, "
                     "floating_6dof, translational, rotational, spherical, or a link type) "
                     "and the bodies it joins (ground or a body number): "
                     "Constraint1=floating_3dof:ground:2; repeat")
    imp.add_argument("--force", action="store_true", help="overwrite the case file")
    imp.set_defaults(func=_import)

    hydro = sub.add_parser(
        "hydrostatics", help="hydrostatics of each body from its geometry",
        description="For each body with a geometry, at its initial pose in still water "
                    "(z = 0): displaced volume, centre of buoyancy, waterplane, the 6x6 "
                    "hydrostatic stiffness about the COG, GM, and the righting-arm curve "
                    "GZ(heel) at free sinkage and the initial trim. Water density from "
                    "the case's environment (default 1025 kg m-3), gravity from the case.")
    hydro.add_argument("case", metavar="CASE", help="YAML case file")
    hydro.add_argument("--body", metavar="NAME", help="only this body")
    hydro.add_argument("--max-heel", type=float, default=60.0, metavar="DEG",
                       help="last heel of the GZ curve (default 60)")
    hydro.add_argument("--heel-step", type=_positive_float, default=10.0, metavar="DEG",
                       help="heel step of the GZ curve (default 10)")
    hydro.add_argument("--resolution", type=_count, default=96, metavar="N",
                       help="panels around a shape's circumference (cylinder, sphere; "
                            "default 96)")
    hydro.set_defaults(func=_hydrostatics)

    plugins = sub.add_parser("plugins", help="list the link, force and signal types",
                             description="List every registered link, force and signal type "
                                         "with the plugin and distribution it comes from.")
    plugins.set_defaults(func=_plugins)

    cache = sub.add_parser(
        "cache", help="show, fill ahead or clear the compiled code kept between runs",
        description="Show where frylinks keeps compiled code between runs (the cache "
                    "folder; set FRYLINKS_CACHE_DIR to move it): the steps generated for "
                    "each kind of model, and the machine code of the types' kernels and "
                    "of the steps, by module and a hash of the sources it was compiled "
                    "from. --build compiles ahead what case files need (once after "
                    "installing, or for the shared cache of a cluster), so that their "
                    "first run starts at once. Clearing is always safe: what is missing "
                    "is compiled again by the next run.")
    cache.add_argument("--clear", action="store_true", help="delete all of it")
    cache.add_argument("--build", metavar="CASE", nargs="+",
                       help="compile what these case files need: each is run for two "
                            "output samples, into a file that is then deleted")
    cache.set_defaults(func=_cache)

    schema = sub.add_parser("schema", help="print the JSON Schema of a case file",
                            description="Print the JSON Schema (draft 2020-12) of a case "
                                        "file, with every installed link, force and signal "
                                        "type, for editor completion and checking.")
    schema.add_argument("-o", "--output", metavar="FILE",
                        help="write the schema to FILE instead of printing it")
    schema.set_defaults(func=_schema)

    info = sub.add_parser("info", help="summarise a results file",
                          description="Summarise a results file: title, status, solver, "
                                      "samples, bodies, links, forces and variables with "
                                      "their units. Works on a file still being written.")
    info.add_argument("results", metavar="OUT.nc", help="netCDF results file")
    info.set_defaults(func=_info)

    modes = sub.add_parser(
        "modes", help="natural periods, damping and mode shapes of a case",
        description="Linearise a case about its static equilibrium, in its links' "
                    "independent coordinates, and print its natural periods, damping ratios "
                    "and what moves in each mode (added mass A(w) iterated to each mode's "
                    "frequency); write them to netCDF.")
    modes.add_argument("case", metavar="CASE", help="YAML case file")
    modes.add_argument("-o", "--output", metavar="OUT.nc",
                       help="results file (default: the case file's name with _modes.nc)")
    modes.add_argument("--initial", action="store_true",
                       help="linearise about the initial state, not the static equilibrium")
    modes.set_defaults(func=_modes)

    rao = sub.add_parser(
        "rao", help="frequency-domain response of a case to unit regular waves",
        description="Linearise a case about its static equilibrium and solve its response "
                    "to regular waves of unit amplitude: RAOs of every body DOF and link, "
                    "and the power each link and force absorbs per unit amplitude squared; "
                    "write them to netCDF.",
        epilog="example: frylinks rao cases/point_absorber.yaml --periods 4:16:49 "
               "--headings 0,30")
    rao.add_argument("case", metavar="CASE", help="YAML case file")
    rao.add_argument("--periods", metavar="START:STOP:COUNT",
                     help="wave periods [s], a range (even in frequency) or a list 6,8,10 "
                          "(default: 3:25:100)")
    rao.add_argument("--headings", metavar="DEG,...", default="0",
                     help="directions the waves travel towards [deg] (default: 0)")
    rao.add_argument("-o", "--output", metavar="OUT.nc",
                     help="results file (default: the case file's name with _rao.nc)")
    rao.add_argument("--initial", action="store_true",
                     help="linearise about the initial state, not the static equilibrium")
    rao.add_argument("--wave-height", type=float, metavar="H",
                     help="regular wave height [m] the quadratic drags are linearised for "
                          "((8 / (3 pi)) D |V| at the response amplitude; default: none, a "
                          "drag adds no damping)")
    rao.set_defaults(func=_rao)

    plot = sub.add_parser("plot", help="plot a result variable (a sweep: over its cases)",
                          description="Plot a variable of a results file against time, "
                                      "one line per remaining coordinate (e.g. x, y, z), "
                                      "and print the figure file written. The cases of a "
                                      "sweep are summarised over time (--stat) against the "
                                      "swept values: a line over one swept key, a heat map "
                                      "over two (a power matrix).")
    plot.add_argument("results", metavar="OUT.nc", help="netCDF results file")
    plot.add_argument("variable", metavar="VAR", nargs="?",
                      help="variable to plot (see 'frylinks info OUT.nc'); none for a "
                           "modes file ('frylinks modes'): its mode shapes are drawn")
    plot.add_argument("--select", metavar="DIM=VALUE", action="append", default=[],
                      help="keep one value of a dimension (body=buoy, xyz=z, dof=tz); "
                           "repeat for other dimensions, or the same one for several values")
    # the statistics are checked by plot() (importing it here would cost every command
    # xarray's import); tests/test_cli.py keeps this list equal to plotting.STATS
    plot.add_argument("--stat", metavar="STAT",
                      help="summary of each case of a sweep over time: mean, std, rms, min, "
                           "max, amplitude, final, or none for time series per case "
                           "(default: mean)")
    plot.add_argument("--after", type=_time, metavar="SECONDS",
                      help="use only the samples at t >= SECONDS (skip a start-up transient)")
    plot.add_argument("-o", "--output", metavar="FIG.png",
                      help="figure file, format from its extension (default: "
                           "OUT_VAR.png beside the results file)")
    plot.set_defaults(func=_plot)

    stats = sub.add_parser(
        "stats", help="extremes and fatigue of a result variable (a sweep: per case)",
        description="Extremes (global peaks; the most probable maximum in a storm by "
                    "Rayleigh, a Weibull fit of the peaks and a generalized Pareto tail "
                    "with its confidence interval) and fatigue (rainflow ranges, the "
                    "damage-equivalent load, Miner's damage) of a variable of a results "
                    "file, one record per remaining coordinate. Prints them; -o writes "
                    "them as netCDF.")
    stats.add_argument("results", metavar="OUT.nc", help="netCDF results file")
    stats.add_argument("variable", metavar="VAR", help="variable (see 'frylinks info')")
    stats.add_argument("--select", metavar="DIM=VALUE", action="append", default=[],
                       help="keep one value of a dimension (link=pto, dof=tz); repeat")
    stats.add_argument("--after", type=_time, metavar="SECONDS",
                       help="use only the samples at t >= SECONDS (skip the transient)")
    stats.add_argument("--extreme", action="store_true", help="the extremes (default: "
                       "both extremes and fatigue)")
    stats.add_argument("--fatigue", action="store_true", help="the fatigue")
    stats.add_argument("--duration", type=_positive_float, default=10800.0,
                       metavar="SECONDS", help="the storm of the most probable maxima "
                       "(default 10800: 3 hours)")
    stats.add_argument("--threshold", type=float, metavar="VALUE",
                       help="the generalized Pareto threshold (default: mean + 1.5 std)")
    stats.add_argument("--declustering", type=_positive_float, metavar="SECONDS",
                       help="peaks over the threshold closer than this are one "
                            "(default: two mean up-crossing periods)")
    stats.add_argument("--slope", type=_positive_float, default=3.0, metavar="M",
                       help="S-N slope m of the damage-equivalent load (default 3)")
    stats.add_argument("--equivalent-cycles", type=_positive_float, metavar="N",
                       help="cycles of the damage-equivalent load (default: the record's "
                            "length in seconds, the 1 Hz DEL)")
    stats.add_argument("--sn-k", type=_positive_float, metavar="K",
                       help="S-N curve N = K S^-m for Miner's damage")
    stats.add_argument("-o", "--output", metavar="STATS.nc",
                       help="write the statistics as netCDF")
    stats.set_defaults(func=_stats)

    perf = sub.add_parser(
        "performance", help="IEC TS 62600-100 power performance of a sweep over sea states",
        description="The power performance of a wave-energy converter from a sweep's "
                    "results (one case per sea state), after IEC TS 62600-100: each case's "
                    "Hm0, Te and energy flux (from its sea's components), mean power and "
                    "capture width; the capture width matrices over Hm0 x Te bins; the "
                    "power matrix; with a site's scatter diagram, the mean annual energy "
                    "production. Prints a summary; -o writes the Dataset, --plot the "
                    "figure.")
    perf.add_argument("results", metavar="SWEEP.nc", help="a sweep's results file")
    perf.add_argument("--power", metavar="VAR", default="absorbed_power",
                      help="variable of the absorbed power [W] (default absorbed_power, "
                           "every PTO's whatever supplies it)")
    perf.add_argument("--select", metavar="DIM=VALUE", action="append", default=[],
                      help="keep one value of a dimension of it (pto=pto); repeat")
    perf.add_argument("--electrical", metavar="VAR",
                      help="variable of the electrical power (default: electrical_power "
                           "where the PTO has a drivetrain)")
    perf.add_argument("--after", type=_time, metavar="SECONDS",
                      help="mean over t >= SECONDS (leave out the ramp)")
    perf.add_argument("--scatter", metavar="TABLE.csv",
                      help="the site's scatter diagram: columns hm0, te and frequency "
                           "(or weight, hours); '#' lines are comments")
    perf.add_argument("--hm0-bins", metavar="H1,H2,...",
                      help="Hm0 bin centres [m] (default every 0.5 m)")
    perf.add_argument("--te-bins", metavar="T1,T2,...",
                      help="Te bin centres [s] (default every 1 s)")
    perf.add_argument("--width", type=_positive_float, metavar="B",
                      help="the device's characteristic width [m]: capture width ratio")
    perf.add_argument("-o", "--output", metavar="PERF.nc", help="write the Dataset")
    perf.add_argument("--plot", metavar="FIG.png",
                      help="draw the power matrix (and annual energy by bin)")
    perf.set_defaults(func=_performance)

    animate = sub.add_parser(
        "animate", help="animate a results file (MP4 or GIF), offscreen",
        description="Draw the model moving (bodies, node frames, links, force and mooring "
                    "lines, the free surface) into an MP4 or GIF file, offscreen. Only the "
                    "samples drawn are read: a window of a long run is quick.")
    _window(animate)
    animate.add_argument("-o", "--output", metavar="MOTION.mp4",
                         help="video file, .mp4 or .gif (default: OUT.mp4 beside the "
                              "results file)")
    animate.add_argument("--camera", default="iso", metavar="VIEW",
                         help="iso, front, side, top, or ELEV,AZIM[,ZOOM] in degrees "
                              "(default: iso)")
    animate.add_argument("--speed", type=_seconds, default=1.0, metavar="X",
                         help="simulated seconds per second of video (default: 1)")
    animate.add_argument("--fps", type=_count, default=20, metavar="N",
                         help="frames per second of video (default: 20)")
    animate.add_argument("--size", default="800x600", metavar="WxH",
                         help="image size in pixels (default: 800x600)")
    animate.set_defaults(func=_animate)

    export = sub.add_parser(
        "export", help="export a results file for ParaView (one .vtkhdf file, or .pvd)",
        description="Write ParaView files of the bodies' surfaces, node frames, links, "
                    "force and mooring lines and the free surface, coloured by velocity, "
                    "elevation, tension, link power: one VTKHDF file (the cells once, each "
                    "step's points and data appended, compressed), or with --format pvd a "
                    ".pvd time collection of one .vtu file per step.")
    _window(export)
    export.add_argument("--vtk", required=True, metavar="DIR",
                        help="folder for the files (DIR/<title>.vtkhdf, or .pvd and its "
                             ".vtu files), or a FILE.vtkhdf itself")
    export.add_argument("--rate", type=_seconds, metavar="HZ",
                        help="time steps per simulated second, at most (default: every "
                             "sample)")
    export.add_argument("--format", choices=("vtkhdf", "pvd"), default="vtkhdf",
                        help="vtkhdf: one file (default); pvd: a .vtu file per step, each "
                             "repeating the cells (many times larger)")
    export.add_argument("--precision", type=_nonnegative_float, metavar="METRES",
                        help="vtkhdf only: round the points, elevation and velocity "
                             "(m s-1) to a power of two at most this (error at most half "
                             "of it), for a smaller file (RM3: 0.6 times the lossless "
                             "size at 1e-4); 0: lossless, float32 as computed (default: "
                             "1e-4, an error of at most 0.031 mm)")
    export.set_defaults(func=_export)
    return parser


def _window(command: argparse.ArgumentParser) -> None:
    """Arguments shared by ``animate`` and ``export``: the file, a window, a case."""
    command.add_argument("results", metavar="OUT.nc", help="netCDF results file")
    command.add_argument("--start", type=_time, metavar="SECONDS",
                         help="first time drawn (default: the start)")
    command.add_argument("--end", type=_time, metavar="SECONDS",
                         help="last time drawn (default: the end)")
    command.add_argument("--case", type=_index, metavar="N",
                         help="the case of a sweep's results to draw (0, 1, ...)")


def _number(text: str, convert: type, what: str, low: float, strict: bool) -> float:
    """``text`` as a finite number above ``low`` (argparse types)."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not math.isfinite(value) or value < low or (strict and value == low):
        bound = f"> {low:g}" if strict else f">= {low:g}"
        raise argparse.ArgumentTypeError(f"expected {what} {bound}, got {text!r}")
    return value


def _seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type)."""
    return _number(text, float, "a number of seconds", 0.0, strict=True)


def _time(text: str) -> float:
    """A finite number of seconds, 0 or more (argparse type)."""
    return _number(text, float, "a number of seconds", 0.0, strict=False)


def _positive_float(text: str) -> float:
    """A positive, finite number (argparse type)."""
    return _number(text, float, "a number", 0.0, strict=True)


def _nonnegative_float(text: str) -> float:
    """A finite number >= 0 (argparse type)."""
    return _number(text, float, "a number", 0.0, strict=False)


def _count(text: str) -> int:
    """A whole number >= 1 (argparse type)."""
    return int(_number(text, int, "a whole number", 1, strict=False))


def _index(text: str) -> int:
    """A whole number >= 0 (argparse type)."""
    return int(_number(text, int, "a whole number", 0, strict=False))


def _sweep(args: argparse.Namespace) -> int:
    from frylinks.io.sweeps import summary, sweep

    if args.resume and args.output and Path(args.output) != Path(args.resume):
        raise FrylinksError("--resume names the results file to continue: give it alone, "
                            "without a different -o")
    values: dict[str, str] = {}
    for item in args.values:
        key, sep, text = item.partition("=")
        if not sep or not key.strip() or not text.strip():
            raise FrylinksError(f"--set {item!r}: expected KEY=VALUES, e.g. "
                                "links.pto.spring_damper.damping=1e5:4e5:4")
        values[key.strip()] = text.strip()
    case = Path(args.case)
    output = Path(args.resume or args.output or case.with_name(f"{case.stem}_sweep.nc"))
    start = time.perf_counter()
    results = sweep(case, values, output, zip=args.zip, scheduler=args.scheduler,
                    workers=args.workers, resume=bool(args.resume), progress=True,
                    t_end=args.t_end, dt=args.dt)
    wall = time.perf_counter() - start
    status = str(results.attrs.get("status", "unknown"))
    print(f"{status}: {summary(results)} in {wall:.1f} s -> {output}")
    shown = 0
    for i, case_status in enumerate(np.asarray(results["status"].values)):
        if str(case_status) not in ("completed", "pending"):
            shown += 1
            if shown > MAX_LISTED_CASES:
                print("  ... ('frylinks info' lists them all)")
                break
            first, *more = str(case_status).splitlines() or [""]
            print(f"  case {i}: {first}{' ...' if more else ''}")
    everything = status == "completed" and \
        all(str(s) == "completed" for s in results["status"].values)
    return 0 if everything else 1


def _run(args: argparse.Namespace) -> int:
    from frylinks import interpreted, run
    from frylinks.engine import background

    if args.resume and args.output and Path(args.output) != Path(args.resume):
        raise FrylinksError("--resume names the results file to continue: give it alone, "
                            "without a different -o")
    default = Path(args.case).with_suffix(".nc")
    output = Path(args.resume or args.output or default)
    start = time.perf_counter()
    # a run that waits for a compile, or runs interpreted for want of a compile slot,
    # says so on a line of its own
    background.SAY[0] = lambda text: print(f"{PROG}: note: {text}", file=sys.stderr)
    results = run(args.case, output=output, t_end=args.t_end, dt=args.dt,
                  resume=bool(args.resume), progress=True, in_memory=False)
    wall = time.perf_counter() - start
    status = str(results.attrs.get("status", "unknown"))
    n = results.sizes["time"]
    t_last = float(results["time"][-1]) if n else 0.0
    print(f"{status}: {n} samples to t = {t_last:g} s in {wall:.1f} s -> {output}")
    moved = _moved(results.attrs)
    if moved:
        print(moved)
    if background.INTERPRETED_CALLS[0] and interpreted.forced():
        print(f"{PROG}: note: the step ran as Python ({interpreted.FORCED_ENV}=1), "
              "nothing was compiled", file=sys.stderr)
    elif background.INTERPRETED_CALLS[0]:
        print(f"{PROG}: note: a new kind of model: its step ran as Python while a "
              "background process compiled it; runs of this kind will start compiled "
              "once it is done (frylinks cache shows the cache)", file=sys.stderr)
    return 0 if status == "completed" else 1


def _moved(attrs: Mapping[str, Any]) -> str:
    """What the static equilibrium moved the bodies by before the first step, from a
    run's results' attributes (what the assembly of the links moved them by is a note
    of the run itself: :meth:`frylinks.engine.Assembly.notice`)."""
    if "equilibrium_move_m" not in attrs:
        return ""
    return (f"equilibrium: the static equilibrium moved the bodies by at most "
            f"{attrs['equilibrium_move_m']:.3g} m and turned them by at most "
            f"{attrs['equilibrium_turn_deg']:.3g} deg from their initial poses")


def _check(args: argparse.Namespace) -> int:
    from frylinks.engine import assemble, assemble_initial
    from frylinks.engine.integrators import fixed_steps_only
    from frylinks.errors import ModelError
    from frylinks.io.case import case_error, load_case

    system, solver = load_case(args.case)
    try:
        model = assemble(system)
        fixed_steps_only(model, solver["integrator"])
        # the start of a run: initial positions must be brought onto the links, and
        # are refused beyond the case's tolerance
        done = assemble_initial(model, model.initial.copy(), solver["assembly_tolerance"])
    except ModelError as exc:
        raise case_error(args.case, system.case_text, exc) from None
    warning = done.warning()
    if warning:
        print(f"warning: {warning}")
    print(f"ok: {len(system.bodies)} bodies, {len(system.links)} links, "
          f"{len(system.forces)} forces")
    if system.links:
        print(f"assembly: {done.summary()}")
    return 0


def _hydrostatics(args: argparse.Namespace) -> int:
    # the computation is the marine plugin's (plain arrays in, no model); the command
    # line, the top layer, may use a plugin, which never imports the layers above the
    # plugin API (pyproject's import contracts)
    from frylinks_marine.hydrostatics import (
        HydrostaticsError,
        checked_mesh,
        hydrostatics,
        righting_arms,
    )

    from frylinks.errors import ModelError
    from frylinks.io.case import case_error, load_case
    from frylinks.model.geometry import body_mesh
    from frylinks.rotations import quat_to_matrix

    system, _ = load_case(args.case)
    rho = float(system.settings.get("environment", {}).get("water_density", 1025.0))
    g = float(np.linalg.norm(system.gravity))
    bodies = dict(system.bodies)
    if args.body is not None:
        if args.body not in bodies:
            raise FrylinksError(f"case '{args.case}': no body '{args.body}'; bodies: "
                                f"{', '.join(bodies) or '(none)'}")
        bodies = {args.body: bodies[args.body]}
    shown_any = False
    for name, body in bodies.items():
        key = f"bodies.{name}.geometry"
        if body.geometry is None:
            if args.body is not None:
                raise case_error(args.case, system.case_text, ModelError(
                    "the body has no geometry (a mesh file or a shape) to take its "
                    "hydrostatics from", key))
            print(f"body '{name}': no geometry, skipped\n")
            continue
        spec = body.geometry
        what = f"mesh '{spec['mesh']}'" if "mesh" in spec else f"a {spec['shape']}"
        local = body_mesh(spec, 0.0, resolution=args.resolution)
        rot = quat_to_matrix(np.asarray(body.orientation, dtype=float))
        points = local.points @ rot.T + np.asarray(body.position, dtype=float)
        cog = np.asarray(body.position, dtype=float)
        try:
            checked_mesh(points, local.faces, what)
            h = hydrostatics(points, local.faces, body.mass, cog, rho, g)
        except HydrostaticsError as exc:
            raise case_error(args.case, system.case_text, ModelError(str(exc), key)) from None
        if h.wetted.volume > 0.0:
            print(_hydrostatics_table(name, what, len(local.faces), h))
        else:
            print(f"body '{name}': {what}, {len(local.faces)} panels: clear of the water "
                  "at its initial pose")
        heels = np.arange(0.0, args.max_heel + 1e-9, args.heel_step)
        try:
            arms = righting_arms(points, local.faces, body.mass, cog, rho, np.radians(heels))
        except HydrostaticsError as exc:
            print(f"  GZ curve: none, {exc}\n")
        else:
            print("  GZ curve (heel about x through the COG, free sinkage, trim held):")
            print(f"    {'heel [deg]':>10}  {'GZ [m]':>10}  {'sinkage [m]':>11}")
            for heel, gz, dz in zip(heels, arms.gz, arms.sinkage, strict=True):
                print(f"    {heel:10.1f}  {gz:10.4f}  {dz:11.4f}")
            print()
        shown_any = True
    if not shown_any:
        raise FrylinksError(f"case '{args.case}': no body has a geometry (a mesh file or a "
                            "shape: bodies.NAME.geometry) to take hydrostatics from")
    return 0


def _hydrostatics_table(name: str, what: str, nb_panels: int, h: Any) -> str:
    """The hydrostatics of one body as text (a :class:`~frylinks_marine.hydrostatics.
    Hydrostatics`)."""
    w = h.wetted
    v3 = "  ".join
    lines = [
        f"body '{name}': {what}, {nb_panels} panels, at its initial pose "
        f"(rho {h.rho:g} kg m-3, g {h.g:g} m s-2)",
        f"  mass                      {h.mass:.6g} kg (displaced {h.rho * w.volume:.6g} kg)",
        f"  displaced volume          {w.volume:.6g} m3",
        f"  centre of buoyancy        {v3(f'{x + 0.0:.4f}' for x in w.buoyancy_centre)} m",
        f"  centre of gravity         {v3(f'{x:.4f}' for x in h.cog)} m",
        f"  wetted area               {w.wetted_area:.6g} m2",
        f"  waterplane area           {w.waterplane_area:.6g} m2",
        f"  centre of flotation       {v3(f'{x + 0.0:.4f}' for x in w.flotation_centre)} m",
        f"  waterplane I_T, I_L       {h.inertia_transverse:.6g}  {h.inertia_longitudinal:.6g}"
        " m4 (about the centre of flotation)",
        f"  BM transverse, longit.    {h.bm_transverse:.4f}  {h.bm_longitudinal:.4f} m",
        f"  GM transverse, longit.    {h.gm_transverse:.4f}  {h.gm_longitudinal:.4f} m",
        "  stiffness about the COG (heave, roll, pitch, yaw) [N m-1, N, N m rad-1]:"]
    block = h.stiffness[2:6, 2:6]
    # round-off of a symmetric body's zero couplings shown as 0
    shown = np.where(np.abs(block) > 1e-9 * np.abs(block).max(), block, 0.0) + 0.0
    for row in shown:
        lines.append("    " + "  ".join(f"{x:12.5g}" for x in row))
    return "\n".join(lines)


def _plugins(args: argparse.Namespace) -> int:
    from frylinks.model.registry import Registry

    header = ("kind", "type", "plugin", "distribution", "version", "description")
    rows = [(i.kind, i.name, i.plugin, i.distribution, i.version,
             " ".join(str(getattr(i.cls, "description", "") or "").split()))
            for i in Registry().all()]
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header) - 1)]
    indent = sum(widths) + 2 * len(widths)
    # on a terminal the descriptions wrap under their column; into a pipe or a file each
    # type stays on one line, for grep
    room = shutil.get_terminal_size().columns - indent if sys.stdout.isatty() else 0
    for row in [header, *rows]:
        cells = [cell.ljust(w) for cell, w in zip(row, widths, strict=False)]
        lines = textwrap.wrap(row[-1], room) if room >= MIN_DESCRIPTION_WIDTH else []
        print("  ".join([*cells, lines[0] if lines else row[-1]]).rstrip())
        for more in lines[1:]:
            print(" " * indent + more)
    return 0


def _cache(args: argparse.Namespace) -> int:
    from frylinks.engine.compose import cache_files
    from frylinks.kernel_cache import cache_dir

    if args.build:
        return _build(args.build)
    groups, kernels = cache_files()
    size = (lambda files: sum(f.stat().st_size for f in files) / 1e6)  # noqa: E731
    kept = [f for files in groups.values() for f in files]
    if args.clear:
        for f in kept + kernels:
            f.unlink(missing_ok=True)
        print(f"cleared {len(kept)} files from {cache_dir()}"
              + (f" and {len(kernels)} left beside the modules" if kernels else ""))
        return 0
    print(f"cache folder: {cache_dir()}")
    what = {"steps": "generated steps of each kind of model",
            "kernels": "machine code of the kernels and steps, by module and sources' hash"}
    for name, files in groups.items() or {"steps": []}.items():
        print(f"  {name}: {len(files)} files, {size(files):.1f} MB "
              f"({what.get(name, 'kept by a plugin')})")
    if kernels:
        print(f"left by earlier versions beside the modules of frylinks and its plugins: "
              f"{len(kernels)} files, {size(kernels):.1f} MB")
    print("clear all of it with: frylinks cache --clear")
    return 0


def _build(cases: list[str]) -> int:
    """Compile ahead what ``cases`` need: run each for two output samples with its own
    solver (the setup, the step and the outputs compile as in a first run)."""
    import tempfile

    from frylinks import run
    from frylinks.engine import background
    from frylinks.io.case import load_case
    from frylinks.kernel_cache import cache_dir

    background.WAIT[0] = True  # (not interpreted meanwhile: compiled, every kernel)
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        for case in cases:
            start = time.perf_counter()
            try:
                solver = load_case(case)[1]
                results = run(case, output=Path(folder) / "build.nc",
                              t_end=2 * solver["dt"] * solver["every"], in_memory=False)
                status = str(results.attrs["status"])
                results.close()
            except FrylinksError as exc:
                status = str(exc).splitlines()[0]
            ok = status == "completed"
            failed += not ok
            print(f"{'compiled' if ok else 'failed'}: {case} in "
                  f"{time.perf_counter() - start:.1f} s" + ("" if ok else f" ({status})"),
                  flush=True)
    print(f"cache folder: {cache_dir()}")
    return 1 if failed else 0


def _schema(args: argparse.Namespace) -> int:
    import json

    from frylinks.io.schema import case_schema

    text = json.dumps(case_schema(), indent=2) + "\n"
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise FrylinksError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return 0


def _info(args: argparse.Namespace) -> int:
    from frylinks.io.info import describe
    from frylinks.views.linear_plots import analysis_kind
    from frylinks.views.linear_plots import describe as describe_analysis

    # a linear analysis' file has no time: its own summary
    analysis = Path(args.results).is_file() and analysis_kind(args.results)
    print(describe_analysis(args.results) if analysis else describe(args.results))
    return 0


def _numbers(text: str, what: str) -> list[float]:
    """``start:stop:count`` (periods even in frequency between the ends) or ``a,b,c``."""
    try:
        if ":" in text:
            start, stop, count = text.split(":")
            n = int(count)
            if n < 1:
                raise ValueError
            w = np.linspace(2 * np.pi / float(stop), 2 * np.pi / float(start), n)
            return [float(x) for x in 2 * np.pi / w]
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise FrylinksError(f"{what}: expected START:STOP:COUNT or a list 6,8,10, got "
                            f"{text!r}") from None


def _modes(args: argparse.Namespace) -> int:
    from frylinks.analysis.modes import modes, table

    output = Path(args.output or Path(args.case).with_name(f"{Path(args.case).stem}_modes.nc"))
    ds = modes(args.case, equilibrium=not args.initial)
    _write(ds, output)
    print(f"{ds.attrs['title']}: {ds.sizes['mode']} modes about the "
          f"{ds.attrs['linearised_about']}")
    print(table(ds))
    print(f"-> {output}")
    return 0


def _rao(args: argparse.Namespace) -> int:
    from frylinks.analysis.rao import rao

    output = Path(args.output or Path(args.case).with_name(f"{Path(args.case).stem}_rao.nc"))
    periods = None if args.periods is None else _numbers(args.periods, "--periods")
    headings = _numbers(args.headings, "--headings")
    ds = rao(args.case, periods=periods, headings_deg=headings, equilibrium=not args.initial,
             wave_height=args.wave_height)
    _write(ds, output)
    print(f"{ds.attrs['title']}: {ds.sizes['omega']} frequencies x {ds.sizes['heading']} "
          f"headings about the {ds.attrs['linearised_about']}")
    print(f"  drag: {ds.attrs['drag_linearisation']}")
    for name in ds["pto"].values if "pto" in ds.coords else ():
        first = np.asarray(ds["absorbed_power"].sel(pto=name).isel(heading=0).values)
        k = int(np.argmax(first))
        print(f"  PTO {name}: largest absorbed power {first[k]:.4g} W per m2 of wave "
              f"amplitude at {float(ds['period'][k]):.3g} s (absorbed_power)")
    if "body_mean_drift" in ds:
        for name in ds["body"].values:
            drift = np.asarray(ds["body_mean_drift"].sel(body=name).isel(heading=0).values)
            horizontal = np.hypot(drift[:, 0], drift[:, 1])
            if not np.any(horizontal > 0):
                continue
            k = int(np.nanargmax(horizontal))
            print(f"  body {name}: mean wave drift up to {horizontal[k]:.4g} N per m2 of "
                  f"wave amplitude (surge {drift[k, 0]:.4g}, sway {drift[k, 1]:.4g}) at "
                  f"{float(ds['period'][k]):.3g} s, heading "
                  f"{float(ds['heading'][0]):g} deg (body_mean_drift)")
    print(f"-> {output}")
    return 0


def _write(ds: object, output: Path) -> None:
    try:
        ds.to_netcdf(output)  # type: ignore[attr-defined]
    except OSError as exc:
        raise FrylinksError(f"cannot write {output}: {exc.strerror or exc}") from None


def _plot(args: argparse.Namespace) -> int:
    from frylinks.views.plots import parse_select, plot

    print(plot(args.results, args.variable, parse_select(args.select), args.output,
               stat=args.stat, after=args.after))
    return 0


def _stats(args: argparse.Namespace) -> int:
    from frylinks.views.plots import parse_select
    from frylinks.views.statistics import describe, statistics

    both = not (args.extreme or args.fatigue)
    ds = statistics(args.results, args.variable, parse_select(args.select),
                    after=args.after, extreme=args.extreme or both,
                    fatigue_=args.fatigue or both, duration=args.duration,
                    threshold=args.threshold, declustering=args.declustering,
                    slope=args.slope, equivalent_cycles=args.equivalent_cycles,
                    sn_k=args.sn_k)
    print(describe(ds))
    if args.output:
        _write(ds, Path(args.output))
    return 0


def _floats(text: str, what: str) -> Any:
    """A list ``a,b,c`` of numbers as an array."""
    try:
        return np.array([float(x) for x in text.split(",")])
    except ValueError:
        raise FrylinksError(f"{what}: expected numbers separated by commas, got {text!r}"
                            ) from None


def _performance(args: argparse.Namespace) -> int:
    from frylinks.performance import power_performance, summary
    from frylinks.views.plots import parse_select

    bins = {k: None if getattr(args, k) is None else
            _floats(getattr(args, k), f"--{k.replace('_', '-')}")
            for k in ("hm0_bins", "te_bins")}
    ds = power_performance(args.results, args.power, parse_select(args.select),
                           after=args.after, electrical=args.electrical,
                           scatter=args.scatter, width=args.width, **bins)
    print(summary(ds))
    if args.output:
        _write(ds, Path(args.output))
    if args.plot:
        from frylinks.views.performance_plots import performance_figure

        print(performance_figure(ds, args.plot))
    return 0


def _import(args: argparse.Namespace) -> int:
    from frylinks_marine.wecsim_import import import_wecsim

    from frylinks.errors import ModelError

    source = Path(args.input)
    output = Path(args.output) if args.output else \
        source.resolve().parent / f"{source.resolve().parent.name.lower() or 'case'}.yaml"
    if output.exists() and not args.force:
        raise FrylinksError(f"'{output}' exists: give another -o, or --force to replace it")
    joints = {}
    for item in args.joint:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise FrylinksError(f"--joint {item!r}: expected NAME=TYPE:BASE:FOLLOWER")
        joints[name] = value
    try:
        conv = import_wecsim(source, output, joints)
    except ModelError as exc:
        raise FrylinksError(str(exc)) from None
    output.write_text(conv.text, encoding="utf-8")
    for line in conv.guesses:
        print(f"guessed: {line}")
    for line in conv.untranslated:
        print(f"not translated: {line}")
    print(f"-> {output} ({len(conv.guesses)} guesses, {len(conv.untranslated)} lines not "
          "translated; frylinks check it, then run it)")
    return 0


def _animate(args: argparse.Namespace) -> int:
    from frylinks.views.animate import animate
    from frylinks.views.reading import open_results

    width, sep, height = args.size.partition("x")
    if not (sep and width.isdigit() and height.isdigit() and int(width) > 0
            and int(height) > 0):
        raise FrylinksError(f"--size {args.size!r}: expected WIDTHxHEIGHT in pixels, "
                            "e.g. 800x600")
    output = args.output or str(Path(args.results).with_suffix(".mp4"))
    with open_results(args.results, args.case) as ds:
        done = animate(ds, output, start=args.start, end=args.end, speed=args.speed,
                       fps=args.fps, camera=args.camera, size=(int(width), int(height)),
                       source=f"'{args.results}'")
    print(f"{done['frames']} frames in {done['seconds']:.1f} s -> {done['output']}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from frylinks.views.reading import open_results
    from frylinks.views.vtk import export_vtk

    with open_results(args.results, args.case) as ds:
        done = export_vtk(ds, args.vtk, start=args.start, end=args.end, rate=args.rate,
                          source=f"'{args.results}'", format=args.format,
                          precision=args.precision, progress=True)
    print(f"{done.nb_steps} time steps of {done.nb_points} points, "
          f"{done.nbytes / 1e6:.1f} MB in {done.seconds:.1f} s -> {done.path}")
    return 0


__all__ = ["main"]
