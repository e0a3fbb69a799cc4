"""The speed benchmark suite: frylinks against Exudyn and MuJoCo on the same models.

One command, from a clean clone::

    pip install -e '.[bench]'         # exudyn and mujoco from PyPI
    python benchmarks/suite.py          # about 15 minutes on 2 cores
    python benchmarks/suite.py --quick  # shorter horizons, a couple of minutes

Models (their definitions in ``benchmarks/peers.py``, exact solutions in
``benchmarks/exact.py``): a pendulum on a revolute link (10 s), a prismatic link with a
linear spring-damper under a constant force (10 s), the chain of N thin rods on
spherical links released horizontal (1 s; N = 1000 over its first 0.1 s), all at
dt = 1e-3; the cost per step of the chain up to N = 10,000; and the moored heaving
buoy (``cases/moored_buoy.yaml``) at dt = 0.01, timed over ``--buoy-seconds`` (20) and
extrapolated to 3 hours (``--buoy-seconds 10800`` runs all of it). Then the sea states
whose wave loads are precomputed records (``--wave-loads`` runs only these): the moored
buoy with Newman slow drift and drift damping (``cases/moored_buoy_drift.yaml``) at
dt = 0.01 and the point absorber (``cases/point_absorber.yaml``) at its own dt, each
run as ``frylinks run`` runs it and extrapolated to 3 hours, with the time
``frylinks.engine.assemble`` takes to precompute their records over 3 hours.

Every engine is timed on its time integration only (model building and file output
excluded) in this one process, so the ratios compare like with like. The moored buoy is
also timed as a user runs it (``frylinks.run``: the case read, its static equilibrium,
every result variable of a sample every 2 steps streamed to a netCDF file). Accuracy
against the exact solution is printed beside the speed; frylinks also runs a second,
larger step where that meets the peer's accuracy ("equal accuracy" rows). The start-up
is timed last, each in a new process: ``import frylinks``, a first ``frylinks run
cases/pendulum.yaml`` with nothing cached, and the second run (:func:`start_up`).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import frylinks
from frylinks.engine import Model, State, assemble
from frylinks.engine.implicit import generalized_alpha
from frylinks.engine.integrators import rk4

HERE = Path(__file__).resolve().parent


def _module(name: str) -> Any:
    """A sibling script as a module (``benchmarks`` is not a package)."""
    key = f"frylinks_bench_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, HERE / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


peers = _module("peers")
chain = _module("chain")
G = 9.81


# ----------------------------------------------------------------------- frylinks models

def pendulum() -> frylinks.System:
    """1 kg, inertia 1e-3 kg m2, COG 1 m from a revolute link about world y, horizontal."""
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="pendulum")
    hinge = {"axis": [1.0, 0.0, 0.0], "angle_deg": 90.0}  # node z along world y
    s.ground.add_node("pivot", orientation=hinge)
    bob = s.add_body("bob", mass=1.0, inertia=[1e-3] * 3, position=[1.0, 0.0, 0.0])
    bob.add_node("hinge", position=[-1.0, 0.0, 0.0], orientation=hinge)
    s.add_link("hinge", "revolute", master="ground.pivot", slave="bob.hinge")
    return s


def spring_damper() -> frylinks.System:
    """1 kg on a prismatic link along world x, k = 100 N/m, c = 2 N s/m, pushed by 10 N."""
    s = frylinks.System(gravity=[0.0, 0.0, -G], name="spring-damper")
    along_x = {"axis": [0.0, 1.0, 0.0], "angle_deg": 90.0}  # node z along world x
    s.ground.add_node("rail", orientation=along_x)
    body = s.add_body("slider", mass=1.0, inertia=[0.1] * 3)
    body.add_node("pto", orientation=along_x)
    s.add_link("pto", "prismatic", master="ground.rail", slave="slider.pto",
               spring_damper={"stiffness": 100.0, "damping": 2.0})
    s.add_force("push", "world_force", node="slider", force=[10.0, 0.0, 0.0])
    return s


def _steps(model: Model, integrator: str, t_end: float, dt: float, every: int,
           rho_inf: float) -> Iterator[State]:
    state = model.initial.copy()
    # the loops read the states only (as the peers record positions only)
    if integrator == "rk4":
        return rk4(model, state, t_end, dt, every, outputs=False)
    return generalized_alpha(model, state, t_end, dt, every, rho_inf=rho_inf, outputs=False)


def _timed(system: frylinks.System, integrator: str, t_end: float, dt: float,
           sample: float, rho_inf: float, keep: Callable[[State], Any]
           ) -> tuple[float, str, list[Any], list[float]]:
    """Run and time the integration; ``keep`` is called on every sampled state. The
    model's compiled step is made (or loaded from the cache) by one step of a copy of
    the model before the clock starts: compile time is reported by compile_times()."""
    for _ in _steps(assemble(system), integrator, dt, dt, 1, rho_inf):
        pass
    model = assemble(system)
    every = max(1, round(sample / dt))
    times: list[float] = []
    kept: list[Any] = []
    status = "ok"
    start = time.perf_counter()
    try:
        for s in _steps(model, integrator, t_end, dt, every, rho_inf):
            times.append(s.t)
            kept.append(keep(s))
    except frylinks.SimulationError as exc:
        status = f"diverged at t={times[-1] if times else 0:.3g} s: {exc}"
    return time.perf_counter() - start, status, kept, times


def _label(integrator: str, rho_inf: float) -> str:
    return ("frylinks rk4" if integrator == "rk4"
            else f"frylinks generalized-alpha (rho_inf={rho_inf:g})")


def frylinks_pendulum(t_end: float = 10.0, dt: float = 1e-3, integrator: str = "gen-alpha",
                      rho_inf: float = peers.RHO_INF) -> dict[str, Any]:
    def keep(s: State) -> tuple[np.ndarray, float]:
        e = 0.5 * float(s.v[0] @ s.v[0]) + 0.5e-3 * float(s.w[0] @ s.w[0]) + G * s.x[0, 2]
        return s.x[0].copy(), e

    wall, status, kept, times = _timed(pendulum(), integrator, t_end, dt, 0.01, rho_inf, keep)
    pos = np.array([k[0] for k in kept])
    figures = peers._pendulum_figures(np.array(times), pos, [k[1] for k in kept])
    return peers._result(_label(integrator, rho_inf), "pendulum", 1, dt, times[-1],
                         (wall, times[-1]), status, **figures)


def frylinks_spring_damper(t_end: float = 10.0, dt: float = 1e-3,
                           integrator: str = "gen-alpha", rho_inf: float = peers.RHO_INF
                           ) -> dict[str, Any]:
    wall, status, kept, times = _timed(spring_damper(), integrator, t_end, dt, 0.01, rho_inf,
                                       lambda s: float(s.x[0, 0]))
    figures = peers._spring_figures(np.array(times), np.array(kept))
    return peers._result(_label(integrator, rho_inf), "spring_damper", 1, dt, times[-1],
                         (wall, times[-1]), status, **figures)


def frylinks_chain(n: int, t_end: float = 1.0, dt: float = 1e-3,
                   rho_inf: float = peers.RHO_INF) -> dict[str, Any]:
    system = chain.build_chain(n)
    energies: list[float] = []
    wall, status, _, times = _timed(system, "gen-alpha", t_end, dt, t_end, rho_inf,
                                    lambda s: energies.append(chain.energy(system, s)))
    t = times[-1] if times[-1] > 0 else dt
    return peers._result(_label("gen-alpha", rho_inf), "chain", n, dt, t, (wall, t), status,
                         **peers._drift(energies))


def chain_cost_per_step(ns: list[int], steps: int = 10, dt: float = 1e-3,
                        rho_inf: float = peers.RHO_INF) -> list[dict[str, float]]:
    """Wall seconds per step of the N-rod chain (after two steps, the first of which
    builds the Newton matrix), for each N, with what a step did: Newton iterations,
    factorisations and tangent builds per step, and the wall seconds of one residual."""
    from frylinks.engine import project
    from frylinks.engine.implicit import Stepper, residual

    out = []
    for n in ns:
        model = assemble(chain.build_chain(n))
        stepper = Stepper(model, rho_inf)
        s = model.initial.copy()
        project(model, s, initial=True)
        mem = stepper.start(s)
        for _ in range(2):
            s, mem = stepper.step(s, mem, dt, s.t + dt)
        newton = stepper.newton
        before = (stepper.iterations, newton.factors, newton.builds, stepper.halvings)
        start = time.perf_counter()
        for _ in range(steps):
            s, mem = stepper.step(s, mem, dt, s.t + dt)
        wall = (time.perf_counter() - start) / steps
        after = (stepper.iterations, newton.factors, newton.builds, stepper.halvings)
        its, factors, builds, halvings = ((a - b) / steps for a, b in zip(after, before,
                                                                           strict=True))
        start = time.perf_counter()
        residual(model, s, mem.udot, mem.lam)
        out.append({"n": n, "step": wall, "iterations": its, "factors": factors,
                    "builds": builds, "halvings": halvings,
                    "residual": time.perf_counter() - start})
    return out


def frylinks_buoy(seconds: float, dt: float = 0.01, rho_inf: float = peers.RHO_INF
                  ) -> dict[str, Any]:
    """The moored buoy case with generalized-alpha, timed over ``seconds``."""
    system = frylinks.load_case(str(HERE.parent / "cases" / "moored_buoy.yaml"))
    model = assemble(system)
    state = model.initial.copy()
    from frylinks.engine import project
    from frylinks.engine.statics import static_equilibrium

    project(model, state, initial=True)
    static_equilibrium(model, state)  # as the case asks (solver.initial_equilibrium)
    warm = assemble(system)  # the compiled step made (or loaded) before the clock starts
    for _ in generalized_alpha(warm, state.copy(), dt, dt, 1, rho_inf=rho_inf):
        pass
    status = "ok"
    start = time.perf_counter()
    t = 0.0
    try:
        for s in generalized_alpha(model, state, seconds, dt, max(1, round(min(1.0, seconds) / dt)),
                                   rho_inf=rho_inf):
            t = s.t
    except frylinks.SimulationError as exc:
        status = f"diverged at t={t:.3g} s: {exc}"
    wall = time.perf_counter() - start
    return peers._result(_label("gen-alpha", rho_inf), "moored_buoy", 1, dt, t, (wall, t),
                         status)


def frylinks_buoy_run(seconds: float, dt: float = 0.01) -> dict[str, Any]:
    """The moored buoy case as ``frylinks run`` runs it (rk4, from the static equilibrium,
    the case's ``output.every`` of 2, every variable streamed to a netCDF file), at
    ``dt`` over ``seconds``: :func:`frylinks_case_run`."""
    return frylinks_case_run(HERE.parent / "cases" / "moored_buoy.yaml", seconds, dt)


def frylinks_case_run(case: Path, seconds: float, dt: float | None = None,
                      overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """A case as ``frylinks run`` runs it, at ``dt`` (None: the case's) over ``seconds``:
    wall time of the whole call, the case read and set up included (with the records
    of the wave loads over the run), its step compiled (or loaded) by a first short run
    before the clock. The start (a run of two steps, timed apart) is not extrapolated to
    3 hours; the rest is, linearly (the records too: their cost is per sample)."""
    import tempfile

    from frylinks.engine import background

    short = 2 * (dt or case_dt(case))
    given: dict[str, Any] = {"dt": dt, "in_memory": False, "overrides": overrides}
    with tempfile.TemporaryDirectory() as folder:
        # the first run compiles the step (or loads it) and waits for it: the runs timed
        # are compiled (a run that does not wait goes on interpreted meanwhile)
        waiting, background.WAIT[0] = background.WAIT[0], True
        try:
            frylinks.run(case, Path(folder) / "warm.nc", t_end=short, **given)
        finally:
            background.WAIT[0] = waiting
        start = time.perf_counter()
        frylinks.run(case, Path(folder) / "start.nc", t_end=short, **given)
        begin = time.perf_counter() - start
        start = time.perf_counter()
        with frylinks.run(case, Path(folder) / "run.nc", t_end=seconds, **given) as ds:
            wall = time.perf_counter() - start
            samples = ds.sizes["time"]
            status = "ok" if ds.attrs["status"] == "completed" else ds.attrs["status"]
    hours = begin + (wall - begin) * 10800 / seconds
    return {"wall": wall, "start": begin, "hours": hours, "samples": samples,
            "status": status}


def case_dt(case: Path) -> float:
    """The time step [s] a case file's ``solver`` gives."""
    from frylinks.io.case import load_case

    return float(load_case(case)[1]["dt"])


def record_time(case: Path, span: float = 10800.0,
                overrides: dict[str, Any] | None = None) -> dict[str, float]:
    """Wall seconds of ``frylinks.engine.assemble`` of a case with the run's span
    ``(0, span)`` given (its force types precompute their records of the wave loads
    over it) and without (no records): their difference is the records' cost."""
    from frylinks.io.case import load_case

    system = load_case(case, overrides=overrides)[0]
    assemble(system)  # (the dataset read and cached once, outside the clock)
    start = time.perf_counter()
    assemble(system)
    bare = time.perf_counter() - start
    start = time.perf_counter()
    assemble(system, span=(0.0, span))
    return {"with": time.perf_counter() - start, "without": bare}


#: The OC4 semi with the full difference-frequency QTF in a spread sea (its Capytaine
#: excitation's headings, 0 to 180 degrees, hold a wrapped-normal spread of 10 degrees
#: about 45; the QTF's one heading serves every component, as the run warns).
OC4_QTF = {"forces.drift.method": "qtf",
           "environment.waves.heading_deg": 45.0,
           "environment.waves.spreading": {"type": "wrapped_normal", "sigma_deg": 10.0}}


#: The cases :func:`wave_loads` times, by name.
WAVE_CASES = ("moored_buoy_drift", "point_absorber", "oc4_semi")


def wave_loads(quick: bool, names: tuple[str, ...] = WAVE_CASES) -> None:
    """The sea states with precomputed wave-load records, timed as ``frylinks run``
    runs them over 3 hours (the whole 3 hours; --quick: extrapolated from a few
    minutes, which misses the cost of a results file that grows: each write copies
    it): the moored buoy with
    Newman slow drift and drift damping (``cases/moored_buoy_drift.yaml``) at dt = 0.01,
    the point absorber (``cases/point_absorber.yaml``) at its own dt, and the OC4 semi
    (``cases/oc4_semi.yaml``) with the full QTF in a spread sea (:data:`OC4_QTF`)."""
    import warnings

    cases = HERE.parent / "cases"
    for name, dt, seconds, target, overrides in (
            ("moored_buoy_drift", 0.01, 60.0 if quick else 10800.0, 60.0, None),
            ("point_absorber", None, 300.0 if quick else 10800.0, 3.0, None),
            ("oc4_semi", None, 600.0 if quick else 10800.0, 300.0, OC4_QTF)):
        if name not in names:
            continue
        case = cases / f"{name}.yaml"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the data's grid checks, the one heading)
            r = frylinks_case_run(case, seconds, dt, overrides)
            rec = record_time(case, overrides=overrides)
        step = f"dt = {dt:g}" if dt else f"its dt = {case_dt(case):g}"
        what = ", full QTF in a spread sea" if overrides else ""
        print(f"{name} (cases/{name}.yaml{what}, rk4, {step}, as `frylinks run` runs it, "
              f"{seconds:g} s simulated, {r['samples']} samples written): {r['wall']:.1f} s "
              f"wall, {r['start']:.2f} s of it the start -> 3 hours in {r['hours']:.1f} s "
              f"wall (target < {target:g} s: "
              f"{'met' if r['hours'] < target else 'NOT met'}); run {r['status']}")
        print(f"  assemble over 3 hours, its records precomputed: {rec['with']:.2f} s "
              f"(without a span, no records: {rec['without']:.2f} s)", flush=True)


#: The cases :func:`radiation_methods` times, with their radiation forces.
RADIATION_CASES = {"point_absorber": ("radiation",),
                   "rm3": ("float_radiation", "spar_radiation")}


def radiation_methods(quick: bool, names: tuple[str, ...] = tuple(RADIATION_CASES)) -> None:
    """The radiation memory's two methods (``state_space``, the default, and
    ``convolution``) on the point absorber and RM3 (cases/point_absorber.yaml,
    cases/rm3.yaml at their own dt), as ``frylinks run`` runs them over 3 hours
    (extrapolated from 1800 s; --quick: 120 s)."""
    import warnings

    cases = HERE.parent / "cases"
    seconds = 120.0 if quick else 1800.0
    for name in names:
        case = cases / f"{name}.yaml"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the data's grid checks)
            step = case_dt(case)
        for method in ("state_space", "convolution"):
            overrides = {f"forces.{f}.method": method for f in RADIATION_CASES[name]}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the data's grid checks, the notes)
                r = frylinks_case_run(case, seconds, None, overrides)
            print(f"{name} (cases/{name}.yaml, radiation method: {method}, its dt = "
                  f"{step:g}, {seconds:g} s simulated): {r['wall']:.1f} s wall -> "
                  f"3 hours in {r['hours']:.1f} s wall; {r['status']}", flush=True)


#: The JONSWAP sea of cases/point_absorber.yaml, for the nonlinear heaving sphere.
JONSWAP = {"type": "irregular", "spectrum": "jonswap", "hs": 2.0, "tp": 8.0, "gamma": 3.3,
           "nb_frequencies": 150, "seed": 7, "heading_deg": 0, "ramp": 20.0}
#: The same sphere with linear_hydrostatics (the dataset's stiffness) in its place.
LINEAR_HYDROSTATICS = {"forces.hydrostatics": {
    "type": "linear_hydrostatics", "body": "buoy",
    "hydrodynamics": str(HERE.parent / "plugins" / "frylinks_marine" / "data"
                         / "sphere_capytaine.nc")}}


#: The heaving sphere's Froude-Krylov force from its mesh, the excitation's diffraction
#: part beside it (WEC-Sim's nonlinearHydro = 2).
FROUDE_KRYLOV = {"forces.hydrostatics.froude_krylov": True,
                 "forces.excitation.part": "diffraction"}


def nonlinear_hydrostatics(quick: bool) -> None:
    """``nonlinear_hydrostatics``: one compiled evaluation per 1000 panels (a sphere of
    radius 5 m, half submerged, in a regular wave, with and without Froude-Krylov), and
    the heaving sphere of ``cases/point_absorber_nonlinear.yaml`` in the JONSWAP sea of
    ``cases/point_absorber.yaml`` at dt = 0.01 over 3 hours (extrapolated), against the
    same run with ``linear_hydrostatics``, and with the Froude-Krylov force from the
    mesh, its wave sums at every evaluation and once every 0.4 s (``wave_interval``)."""
    import warnings

    from frylinks_marine.environment import Environment
    from frylinks_marine.nonlinear_hydro import NonlinearHydrostatics
    from frylinks_marine.nonlinear_hydro import nonlinear_hydrostatics as evaluate

    from frylinks.forces import ForceContext
    from frylinks.kinematics import frames_room
    from frylinks.model.geometry import body_mesh

    gravity = np.array([0.0, 0.0, -G])
    env = Environment({"water_density": 1025.0, "depth": "infinite", "current": None,
                       "wave_probes": None,
                       "waves": {"type": "regular", "height": 2.0, "period": 8.0}}, gravity)
    for resolution in (48, 96):
        mesh = body_mesh({"shape": "sphere", "radius": 5.0}, 0.0, resolution)
        for fk in (False, True):
            block = NonlinearHydrostatics([{"body": "b", "mesh": mesh, "froude_krylov": fk,
                                            "wave_interval": 0.0,
                                            "mesh_resolution": resolution}], [])
            frames = frames_room(1)
            frames.q[0] = [1.0, 0.0, 0.0, 0.0]
            block.prepare([frames], ForceContext(0.0, np.zeros(0), gravity,
                                                 {"environment": env}))
            data = block.kernel_data()
            force, torque, none = np.zeros((1, 1, 3)), np.zeros((1, 1, 3)), np.zeros(0)
            evaluate(data, (frames,), 0.0, none, gravity, none, False, force, torque)
            n = 2000
            start = time.perf_counter()
            for i in range(n):
                evaluate(data, (frames,), 0.01 * i, none, gravity, none, False, force, torque)
            each = (time.perf_counter() - start) / n
            panels = len(mesh.faces)
            print(f"nonlinear_hydrostatics, sphere of {panels} panels, froude_krylov {fk}: "
                  f"{1e6 * each:.1f} us an evaluation, {1e9 * each / panels:.1f} us per "
                  "1000 panels", flush=True)
    case = HERE.parent / "cases" / "point_absorber_nonlinear.yaml"
    seconds = 60.0 if quick else 600.0
    runs = {}
    every = {**FROUDE_KRYLOV, "forces.hydrostatics.wave_interval": 0.4}
    for label, extra in (("nonlinear", {}), ("linear", LINEAR_HYDROSTATICS),
                         ("nonlinear + Froude-Krylov", FROUDE_KRYLOV),
                         ("nonlinear + Froude-Krylov every 0.4 s", every)):
        span = seconds
        if extra is FROUDE_KRYLOV:
            span = 2.0 if quick else 10.0  # (the sums at every vertex and stage: slow)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs[label] = r = frylinks_case_run(
                case, span, 0.01, {"environment.waves": JONSWAP, **extra})
        print(f"heaving sphere, {label} hydrostatics, JONSWAP Hs 2 m Tp 8 s, rk4, dt = 0.01, "
              f"{span:g} s simulated: {r['wall']:.1f} s wall -> 3 hours in "
              f"{r['hours']:.1f} s (target < 300 s); {r['status']}", flush=True)
    for label in ("nonlinear", "nonlinear + Froude-Krylov every 0.4 s"):
        print(f"  ratio {label} / linear over 3 hours: "
              f"{runs[label]['hours'] / runs['linear']['hours']:.2f}", flush=True)


def _running(marker: str) -> bool:
    """Whether a process whose command line holds ``marker`` runs (a compile child left
    by a run carries its parent's command line)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                return True
        except OSError:
            continue
    return False


def start_up(case: Path = HERE.parent / "cases" / "pendulum.yaml",
             kernels: Path | None = None) -> dict[str, float]:
    """Wall seconds, each in a new process as a user runs it: ``import frylinks``; a
    first ``frylinks run`` of ``case`` with nothing cached (an empty cache folder); the
    time its compile child works on after it (Linux, to be waited for: it carries the
    run's command line); and a second run. With ``kernels`` (a cache folder), the
    runs share its kernels but not its steps: the first run is then that of a new kind
    of model whose kernels are compiled (a minute shorter, for ``--quick``)."""
    import os
    import subprocess
    import tempfile

    def timed(*command: str, env: dict[str, str]) -> float:
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        return time.perf_counter() - start

    env = dict(os.environ)
    env.pop("PYTEST_XDIST_WORKER", None)  # (a user's run, even from the test suite)
    got = {"import": timed(sys.executable, "-c", "import frylinks", env=env)}
    with tempfile.TemporaryDirectory() as folder:
        env["FRYLINKS_CACHE_DIR"] = str(Path(folder) / "cache")
        if kernels is not None and (kernels / "kernels").is_dir():
            (Path(folder) / "cache" / "kernels").mkdir(parents=True)
            for kept in (kernels / "kernels").iterdir():
                if not kept.name.startswith("frylinks_step_"):
                    (Path(folder) / "cache" / "kernels" / kept.name).symlink_to(kept)
        out = str(Path(folder) / "cold.nc")
        got["cold"] = timed(sys.executable, "-m", "frylinks", "run", str(case), "-o", out,
                            env=env)
        start = time.perf_counter()
        while Path("/proc").exists() and _running(out):
            time.sleep(0.2)
        got["child"] = time.perf_counter() - start
        got["warm"] = timed(sys.executable, "-m", "frylinks", "run", str(case), "-o",
                            str(Path(folder) / "warm.nc"), env=env)
    return got


# ----------------------------------------------------------------------------- report

def _ratio(ours: dict[str, Any], theirs: dict[str, Any] | None) -> str:
    if theirs is None or not theirs.get("per_second"):
        return "-"
    return f"{ours['per_second'] / theirs['per_second']:.3g}"


def _accuracy(r: dict[str, Any]) -> str:
    if "angle_error_max" in r:
        return f"angle err {r['angle_error_max']:.2e} rad"
    if "rel_error_max" in r:
        return f"rel err {r['rel_error_max']:.2e}"
    if "energy_drift" in r:
        return f"dE/(MgL) {r['energy_drift']:+.2e} (max {r['energy_drift_max']:.2e})"
    return ""


def _row(r: dict[str, Any], ratio: str = "") -> str:
    return (f"  {r['engine'][:52]:<52} {r['per_second']:>11.4g} {ratio:>8}  "
            f"{_accuracy(r):<40} {r['status'][:60]}")


def _peer(fn: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any) -> dict[str, Any] | None:
    try:
        return fn(*args, **kwargs)
    except ImportError as exc:
        print(f"  ({exc})")
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="short horizons (pendulum and spring 2 s, chains 0.1 s, "
                             "N = 1000 over 0.01 s, buoy 10 s)")
    parser.add_argument("--buoy-seconds", type=float, default=None,
                        help="simulated seconds of the moored buoy (default 20; 10800 "
                             "for the whole 3 hours)")
    parser.add_argument("--no-peers", action="store_true", help="frylinks only")
    parser.add_argument("--wave-cases", nargs="+", default=list(WAVE_CASES),
                        choices=WAVE_CASES, help="the wave-load cases timed (default: all)")
    parser.add_argument("--nonlinear-hydrostatics", action="store_true",
                        help="only the nonlinear_hydrostatics force: an evaluation per 1000 "
                             "panels and the 3-hour heaving sphere against the linear one "
                             "(extrapolated from 600 s; --quick: 60 s)")
    parser.add_argument("--wave-loads", action="store_true",
                        help="only the sea states with wave-load records: the moored buoy "
                             "with slow drift, the point absorber and the OC4 semi over "
                             "the whole 3 hours (--quick: extrapolated from 60, 300 and "
                             "600 s)")
    parser.add_argument("--radiation", action="store_true",
                        help="only the radiation memory's two methods, state space and "
                             "convolution, on the point absorber and RM3 over 3 hours "
                             "(extrapolated from 1800 s; --quick: 120 s)")
    parser.add_argument("--radiation-cases", nargs="+", default=list(RADIATION_CASES),
                        choices=list(RADIATION_CASES),
                        help="the cases of the radiation methods (default: all)")
    parser.add_argument("--chains", type=int, nargs="+", default=[1, 10, 100, 1000])
    parser.add_argument("--large-seconds", type=float, default=None,
                        help="simulated seconds of chains with N >= 1000 (default 0.1, "
                             "--quick 0.01; Exudyn takes minutes per 0.01 s there)")
    parser.add_argument("--cost-n", type=int, nargs="+", default=None,
                        help="chain sizes of the cost per step (default 10 100 1000 10000; "
                             "--quick: up to 1000)")
    args = parser.parse_args(argv)
    if args.nonlinear_hydrostatics:
        nonlinear_hydrostatics(args.quick)
        return 0
    if args.wave_loads:
        wave_loads(args.quick, tuple(args.wave_cases))
        return 0
    if args.radiation:
        radiation_methods(args.quick, tuple(args.radiation_cases))
        return 0
    single = 2.0 if args.quick else 10.0
    buoy = args.buoy_seconds or (5.0 if args.quick else 20.0)
    print("wall seconds per simulated second; ratio = frylinks / Exudyn; dt = 1e-3\n")
    header = f"  {'engine':<52} {'wall/sim s':>11} {'ratio':>8}  {'accuracy':<40} status"

    for name, ours_fn, exu_fn, mj_fn in (
            ("pendulum on a revolute link", frylinks_pendulum, peers.exudyn_pendulum,
             peers.mujoco_pendulum),
            ("prismatic link + linear spring-damper, constant force", frylinks_spring_damper,
             peers.exudyn_spring_damper, peers.mujoco_spring_damper)):
        print(f"{name} ({single:g} s)\n{header}")
        exu = None if args.no_peers else _peer(exu_fn, t_end=single)
        mj = None if args.no_peers else _peer(mj_fn, t_end=single)
        for r in (exu, mj):
            if r is not None:
                print(_row(r), flush=True)
        print(_row(ours := ours_fn(t_end=single), _ratio(ours, exu)), flush=True)
        # equal accuracy: the largest of these steps whose error is within the peer's
        for dt, integ in ((1e-2, "rk4"), (2e-2, "rk4"), (5e-3, "gen-alpha")):
            r = ours_fn(t_end=single, dt=dt, integrator=integ)
            r["engine"] += f", dt={dt:g}"
            print(_row(r, _ratio(r, exu)), flush=True)
        print()

    print(f"chain of N rods on spherical links, released horizontal\n{header}")
    for n in args.chains:
        large = args.large_seconds or (0.01 if args.quick else 0.1)
        horizon = large if n >= 1000 else (0.1 if args.quick else 1.0)
        exu = None if args.no_peers else _peer(peers.exudyn_chain, n, t_end=horizon)
        mj = None if args.no_peers else _peer(peers.mujoco_chain, n,
                                              t_end=min(horizon, 0.02 if n >= 1000 else 1.0))
        print(f" N = {n} ({horizon:g} s)")
        for r in (exu, mj):
            if r is not None:
                print(_row(r), flush=True)
        print(_row(ours := frylinks_chain(n, t_end=horizon), _ratio(ours, exu)), flush=True)
    print()

    ns = args.cost_n or ([10, 100, 1000] if args.quick else [10, 100, 1000, 10000])
    cost = chain_cost_per_step(ns)
    sizes = np.log([c["n"] for c in cost])
    if len(cost) > 1:   # (a growth needs two sizes)
        slope = np.polyfit(sizes, np.log([c["step"] for c in cost]), 1)[0]
        per_residual = np.polyfit(sizes, np.log([c["residual"] for c in cost]), 1)[0]
        growth = f" (grows as N^{slope:.2f}; one residual as N^{per_residual:.2f})"
    else:
        growth = ""
    print(f"chain cost per generalized-alpha step{growth}:")
    for c in cost:
        print(f"  N={c['n']:<6d} {1e3 * c['step']:9.3g} ms a step: {c['iterations']:.1f} "
              f"iterations, {c['factors']:.1f} factorisations, {c['builds']:.1f} tangent "
              f"builds, {c['halvings']:.1f} halvings a step; one residual "
              f"{1e3 * c['residual']:.3g} ms")
    print()

    r = frylinks_buoy(buoy)
    hours = r["per_second"] * 10800
    print(f"moored heaving buoy (cases/moored_buoy.yaml), dt = 0.01, {buoy:g} s simulated: "
          f"{r['wall']:.1f} s wall, {r['per_second']:.3g} s/s -> 3 hours in "
          f"{hours:.0f} s wall (target < 60 s); {r['status']}")
    # (over half an hour: the first minute of the ramped sea extrapolates to half the time)
    r = frylinks_buoy_run(60.0 if args.quick else 1800.0)
    print(f"  the same case as `frylinks run` runs it (rk4, every variable of {r['samples']} "
          f"samples to a netCDF file): {r['wall']:.1f} s wall, {r['start']:.2f} s of it "
          f"the start -> 3 hours in {r['hours']:.0f} s wall (target < 60 s); {r['status']}")
    print()
    wave_loads(args.quick, tuple(args.wave_cases))
    print()
    radiation_methods(args.quick, tuple(args.radiation_cases))
    from frylinks.kernel_cache import cache_dir

    r = start_up(kernels=cache_dir() if args.quick else None)
    first = ("a new kind of model, kernels cached (--quick)" if args.quick
             else "nothing cached (target < 15 s)")
    print(f"\nstart-up, each in a new process (cases/pendulum.yaml): import frylinks "
          f"{r['import']:.2f} s; first run, {first}: {r['cold']:.1f} s; its compile "
          f"child busy {r['child']:.0f} s after it; the second run {r['warm']:.2f} s "
          f"(target < 3 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
