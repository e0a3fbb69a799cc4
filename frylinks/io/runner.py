"""A run: assemble, integrate, sample, write; status kept whatever happens."""

from __future__ import annotations

import inspect
import json
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from frylinks.engine import Model, State, assemble, background
from frylinks.engine.assembly import (
    DEFAULT_TOLERANCE,
    AssemblyTolerance,
    as_tolerance,
    assemble_initial,
    equilibrium_attributes,
)
from frylinks.engine.checkpoint import Checkpoint
from frylinks.engine.compose import compiled_step
from frylinks.engine.implicit import generalized_alpha
from frylinks.engine.integrators import (
    ADAPTIVE,
    INTEGRATORS,
    dop853,
    fixed_steps_only,
    nb_steps,
    rk4,
)
from frylinks.engine.sampling import Batch
from frylinks.engine.schemes import first_call
from frylinks.engine.statics import MAX_TURN_DEG
from frylinks.errors import FrylinksError, ModelError, Notice, SimulationError
from frylinks.io.key_lines import case_error
from frylinks.io.recorder import Recorder
from frylinks.io.results import Sampler, to_dataset
from frylinks.model.geometry import relative_scene, scene_spec
from frylinks.model.system import System as SystemModel
from frylinks.params import as_float
from frylinks.version import __version__


def run_system(system: System, t_end: float, dt: float, integrator: str = "rk4",
               every: int = 1, rtol: float = 1e-9, atol: float = 1e-12, rho_inf: float = 0.8,
               output: str | Path | None = None, progress: bool = False,
               state: State | None = None, resume: bool = False,
               initial_equilibrium: bool = False, in_memory: bool = True,
               assembly_tolerance: AssemblyTolerance = DEFAULT_TOLERANCE,
               equilibrium_max_turn_deg: float = MAX_TURN_DEG) -> xr.Dataset:
    """Run ``system`` and return its results (see :meth:`System.run`).

    Parameters
    ----------
    assembly_tolerance
        The largest initial residual of a link the run assembles
        (:class:`~frylinks.engine.assembly.AssemblyTolerance`, or a mapping ``{length:
        m, angle_deg: deg}``); beyond it the run is refused.
    equilibrium_max_turn_deg
        With ``initial_equilibrium``, the largest turn [deg] of a body from its initial
        orientation the equilibrium may make; beyond it the run is refused.
    resume
        Go on from the checkpoint saved in ``output`` by an earlier run of the same
        model that stopped (interrupted, killed, diverged) or that ended before
        ``t_end``. The records up to the checkpoint are kept; the run continues as the
        uninterrupted run would have, and the returned Dataset holds the whole run.
    state
        Start from this state instead of the system's initial one.
    in_memory
        With False and an ``output`` file, keep no results in memory: return the
        file's Dataset, read lazily (:func:`frylinks.run`).
    """
    t_end = as_float(t_end, "solver.t_end", "s", positive=True)
    dt = as_float(dt, "solver.dt", "s", positive=True)
    if integrator not in INTEGRATORS:
        raise FrylinksError(f"solver.integrator: unknown integrator {integrator!r}; "
                            f"accepted: {', '.join(INTEGRATORS)}")
    if not isinstance(every, int) or isinstance(every, bool) or every < 1:
        raise FrylinksError(f"output.every: expected a whole number >= 1, got {every!r}")
    sample_times(t_end, dt, integrator, every)  # a whole number of steps
    rho_inf = as_float(rho_inf, "solver.rho_inf", "")
    if not 0.0 <= rho_inf <= 1.0:
        raise FrylinksError(f"solver.rho_inf: expected a spectral radius in [0, 1], got "
                            f"{rho_inf:g}")
    tolerance = as_tolerance(assembly_tolerance)
    max_turn = as_float(equilibrium_max_turn_deg, "solver.equilibrium_max_turn_deg", "deg",
                        positive=True)
    background.begin()  # (the kernels not compiled yet run interpreted meanwhile)
    try:  # (a child compiling a new kind of model is handed its last work at the end)
        # (the span lets a force precompute the loads it knows in advance: wave records)
        model = assemble(system, span=(0.0 if state is None else min(0.0, float(state.t)),
                                       t_end), step=dt)
        fixed_steps_only(model, integrator)
        _say_path(model, integrator, rho_inf)
        attrs = run_attributes(system, integrator, dt, every, rtol, atol, rho_inf)
        for fblk in model.force_blocks:  # (what a type chose on its own: docs/reference)
            attrs.update(fblk.kind.report())
        if output is not None:
            attrs["scene"] = relative_scene(attrs["scene"], Path(output).parent)
        s = (state or model.initial).copy()
        restart: Checkpoint | None = None
        if resume:
            if output is None:
                raise FrylinksError("resuming a run needs its results file (output)")
            restart = _restart_point(Path(output), model, attrs, t_end)
        else:
            attrs.update(_assemble_initial(model, s, tolerance, warn=state is None))
            if initial_equilibrium:
                from frylinks.engine.statics import initial_equilibrium as equilibrium

                try:
                    moves = equilibrium(model, s, max_turn)
                except SimulationError as exc:  # a force type refused a pose on the way
                    raise ModelError(f"the static equilibrium could not be found: {exc}",
                                     "solver.initial_equilibrium") from None
                attrs.update(equilibrium_attributes(moves, max_turn))
        run_kwargs: dict[str, Any] = {"resume": restart, "on_checkpoint": None}
        writer = None
        if output is not None:
            from frylinks.io.netcdf import StreamWriter

            writer = StreamWriter(output, model, attrs, resume=restart)
        reg = system.registry
        observe_step = reg.observers("frylinks_step_completed")
        # the variables made and written beside the step (checkpoints in order with them),
        # unless an observer, which may read the file, runs meanwhile (frylinks.io.recorder)
        recorder = Recorder(Sampler(model), writer, keep=in_memory or writer is None,
                            beside=not observe_step)
        if writer is not None:
            run_kwargs["on_checkpoint"] = recorder.checkpoint
        steps: Iterator[Batch]
        if integrator == "rk4":
            steps = rk4(model, s, t_end, dt, every, batches=True, **run_kwargs)
        elif integrator == "generalized_alpha":
            steps = generalized_alpha(model, s, t_end, dt, every, rho_inf=rho_inf, batches=True,
                                      **run_kwargs)
        else:
            steps = map(Batch.of, dop853(model, s, t_end, dt, every, rtol=rtol, atol=atol,
                                         **run_kwargs))
        if reg.observers("frylinks_run_started"):
            reg.pm.hook.frylinks_run_started(system=system, t_end=t_end, dt=dt)
        t_start = s.t if restart is None else restart.state.t
        bar = _progress(progress, t_end, t_start)
        status = "completed"
        last_t = t_start
        # a diverging run overflows on its last step; the status reports it, not warnings
        errstate = np.errstate(over="ignore", invalid="ignore")
        errstate.__enter__()
        try:
            with sigterm_interrupts(defer=True) as pending:
                # the samples of one call of the compiled step at a time: their variables
                # made, written and kept together (a sample at a time cost 10x the step)
                for batch in steps:
                    stop = None
                    if observe_step:
                        stop = _observed(batch, lambda st: reg.pm.hook.frylinks_step_completed(
                            system=system, t=st.t, state=st))
                        if stop is not None:  # the run ends at the sample whose observer
                            batch = batch.head(stop[0])  # raised (kept, as before)
                    recorder.add(batch)
                    if stop is not None:
                        raise stop[1]
                    t = float(batch.times[-1])
                    if bar is not None:
                        bar.update(t - last_t)
                    last_t = t
                    if pending:  # a signal came: stop here, every sample so far written
                        raise pending[0]
                recorder.finish()
        except SimulationError as exc:
            status = f"diverged at t={s.t:.6g}: {exc}"
        except KeyboardInterrupt as exc:
            why = f" ({exc})" if str(exc) else ""
            # the time of the last sample kept (the state may be a few steps further on)
            kept = recorder.last_time if recorder.last_time is not None else t_start
            status = f"interrupted at t={kept:.6g}{why}"
        finally:
            errstate.__exit__(None, None, None)
            if bar is not None:
                bar.close()
            attrs["status"] = status
            try:
                recorder.finish(quiet=True)  # (every sample handed over, written)
                if writer is not None:
                    writer.close(status)
            finally:
                if reg.observers("frylinks_run_finished"):
                    reg.pm.hook.frylinks_run_finished(system=system, status=status)
        if output is not None and not in_memory:
            return xr.open_dataset(output)
        if restart is not None and output is not None:
            with xr.open_dataset(output) as whole:
                return whole.load()
        return to_dataset(model, recorder.times, recorder.values, attrs)
    finally:
        background.release()


def _observed(batch: Batch, observe: Callable[[State], None]
              ) -> tuple[int, BaseException] | None:
    """Call ``observe`` on each sample of ``batch`` in turn; if it raises, how many
    samples it saw (the one it raised at included) and what it raised."""
    for i, st in enumerate(batch.states()):
        try:
            observe(st)
        except (Exception, KeyboardInterrupt) as exc:
            return i + 1, exc
    return None


def run_attributes(system: System, integrator: str, dt: float, every: int, rtol: float,
                   atol: float, rho_inf: float = 0.8) -> dict[str, Any]:
    """The global attributes of a run's results (docs/reference/results.md), ``status``
    ``running``."""
    return {
        "title": system.name,
        "description": system.description,
        "frylinks_version": __version__,
        "integrator": integrator,
        "dt": dt,
        "output_every": every,
        "rtol": rtol,
        "atol": atol,
        "rho_inf": rho_inf,
        "case": system.case_text,
        # what frylinks animate / export draw (frylinks.views.scene): the model as the run read
        # it, also for a model built in Python; mesh paths absolute (made relative to the
        # results file where one is written: relative_scene)
        "scene": json.dumps(scene_spec(system)),
        "Conventions": "CF-1.8",
        "status": "running",
    }


def sample_times(t_end: float, dt: float, integrator: str = "rk4", every: int = 1
                 ) -> np.ndarray:
    """The times [s] of the samples a run from t = 0 keeps (what its integrator yields).

    Raises
    ------
    ModelError
        At ``solver.t_end`` if ``t_end`` is not a whole number of steps (of output
        intervals for dop853).
    """
    interval = dt * every if integrator in ADAPTIVE else dt
    try:
        n = nb_steps(t_end, interval)
    except SimulationError as exc:
        raise ModelError(str(exc), "solver.t_end") from None
    if integrator not in ADAPTIVE:
        return dt * np.arange(0, n + 1, every)
    return interval * np.arange(n + 1)


class PythonPathWarning(UserWarning):
    """A model runs on the engine's Python path: a type it uses has no compiled kernels."""


def _say_path(model: Model, integrator: str, rho_inf: float) -> None:
    """Say once, at the start of a run, why a model does not run compiled (a type without
    kernels, a Python callable); large sparse models take the Python path by design. A
    new kind of model's step starts compiling in a child process
    (:mod:`frylinks.engine.background`)."""
    if integrator in ADAPTIVE:
        return  # scipy drives dop853 from Python in any case
    compiled_step(model, first_call(integrator, rho_inf))
    why = getattr(model, "python_reason", None)
    if why and why[1]:  # a plugin's type (the engine's own reasons are documented)
        warnings.warn(f"this model runs on the Python path, several times slower than the "
                      f"compiled step: {why[0]}", PythonPathWarning, stacklevel=3)


def _assemble_initial(model: Model, s: State, tolerance: AssemblyTolerance, warn: bool
                      ) -> dict[str, Any]:
    """Bring the initial state onto the links (refused beyond ``tolerance``:
    :func:`frylinks.engine.assembly.assemble_initial`); warn naming the links and bodies
    if it visibly moved them, note the largest move if it moved them above round-off.
    Returns the results' attributes of the assembly."""
    done = assemble_initial(model, s, tolerance)
    if warn:
        text = done.warning()
        if text:
            warnings.warn(text, stacklevel=4)
        elif done.notice():  # never silently, however little
            warnings.warn(done.notice(), Notice, stacklevel=4)
    return done.attributes()


#: Attributes a resumed run must share with the run that wrote the file.
SAME_RUN = ("integrator", "dt", "output_every", "rtol", "atol", "rho_inf", "case")


def _restart_point(path: Path, model: Model, attrs: dict[str, Any], t_end: float
                   ) -> Checkpoint:
    """The checkpoint of ``path``, checked to belong to this model and solver."""
    import netCDF4

    from frylinks.engine.checkpoint import read
    from frylinks.io.results import coordinates

    if not path.exists():
        raise FrylinksError(f"cannot resume: no results file '{path}'")
    try:
        with netCDF4.Dataset(path) as ds:
            old = {k: ds.getncattr(k) for k in ds.ncattrs()}
            ckpt = read(ds)
            names = {dim: [str(v) for v in ds[dim][:]] for dim in ("body", "link", "force")
                     if dim in ds.variables}
    except OSError as exc:
        raise FrylinksError(f"cannot resume from '{path}': not a readable netCDF file "
                            f"({exc})") from None
    if ckpt is None:
        raise FrylinksError(f"cannot resume from '{path}': it holds no checkpoint (not a "
                            "frylinks results file, or one written before checkpoints)")
    for key in SAME_RUN:
        mine, theirs = attrs[key], old.get(key)
        same = mine == theirs if isinstance(mine, str) else \
            theirs is not None and np.isclose(float(mine), float(theirs), rtol=1e-12, atol=0)
        if not same:
            what = "the case text differs" if key == "case" else \
                f"{key} = {_show(theirs)} there, {_show(mine)} now"
            raise FrylinksError(f"cannot resume from '{path}': it was written by another "
                                f"run ({what}); resume with the same case and settings")
    coords = coordinates(model)
    for dim, labels in names.items():
        if labels != [str(c) for c in coords[dim]]:
            raise FrylinksError(f"cannot resume from '{path}': its {dim} names {labels} "
                                f"differ from the model's")
    if ckpt.state.x.shape != model.initial.x.shape or \
            ckpt.state.angle_ref.shape != model.initial.angle_ref.shape:
        raise FrylinksError(f"cannot resume from '{path}': its checkpoint does not fit "
                            "this model")
    if ckpt.state.t >= t_end - 1e-9 * max(1.0, t_end):
        raise FrylinksError(f"nothing to resume: '{path}' already reaches t = "
                            f"{ckpt.state.t:g} s (status: {old.get('status')}); give a later "
                            "t_end to extend the run")
    return ckpt


def _show(value: Any) -> str:
    return f"{float(value):g}" if isinstance(value, int | float | np.number) else repr(value)


class _Terminated(KeyboardInterrupt):
    """SIGTERM (a job scheduler's stop, ``kill``): stop the run as Ctrl-C does."""


@contextmanager
def sigterm_interrupts(defer: bool = False) -> Iterator[list[KeyboardInterrupt]]:
    """SIGTERM (a job scheduler's stop, ``kill``) interrupts as Ctrl-C does, in the main
    thread.

    With ``defer`` (a run), both are recorded in the list yielded, not raised where they
    land: raised inside a call into compiled code (or while numba loads machine code
    from its cache) the exception can corrupt the interpreter's state and crash the
    process. The run checks the list after every sample it writes (a sample interval of
    compiled steps takes milliseconds); a second signal before then raises at once.
    Without (a sweep, waiting on dask in Python), they raise at once."""
    pending: list[KeyboardInterrupt] = []
    if threading.current_thread() is not threading.main_thread():
        yield pending
        return

    def handler(signum: int, frame: Any) -> None:
        exc = _Terminated("SIGTERM") if signum == signal.SIGTERM else KeyboardInterrupt()
        if pending or not defer:
            raise exc
        pending.append(exc)

    # SIGINT too, deferred or not: a process started with SIGINT ignored (by a parent
    # that ignores it, as pytest-xdist's workers may) would otherwise never stop on
    # Ctrl-C, Python installing its own handler only when SIGINT is not ignored
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield pending
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _progress(enabled: bool, total: float, start: float = 0.0) -> Any:
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=start, unit="s", unit_scale=False, desc="simulated time",
                bar_format="{l_bar}{bar}| {n:.3g}/{total:.3g} s [{elapsed}<{remaining}, "
                           "{rate_fmt}]")


__all__ = ["Model", "PythonPathWarning", "run_attributes", "run_system", "sample_times"]


#: What a run does where neither the call nor the case file says: ``run_system``'s
#: defaults of the settings a case file's ``solver`` and ``output`` sections hold.
RUN_DEFAULTS: dict[str, Any] = {
    name: p.default for name, p in inspect.signature(run_system).parameters.items()
    if name in ("integrator", "every", "rtol", "atol", "rho_inf", "initial_equilibrium",
                "assembly_tolerance", "equilibrium_max_turn_deg")}


class System(SystemModel):
    """A multibody system that runs: the model's :class:`frylinks.model.System` with
    :meth:`run`. This is :class:`frylinks.System`, and what case files load into."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The run settings of the case file the system was read from (``solver.t_end``,
        #: ``dt``, ``integrator``, ``rtol``, ``atol``, ``rho_inf``,
        #: ``initial_equilibrium``, ``assembly_tolerance``, ``equilibrium_max_turn_deg``
        #: and ``output.every``): :meth:`run` takes each one it
        #: is not given from here, so ``load_case(path).run()`` is the case's run. Empty
        #: for a system built in Python. (A plain dict: a System is copied and pickled.)
        self.case_settings: dict[str, Any] = {}
        #: The case file the system was read from ("" for a system built in Python):
        #: an error in its run names it, its key path and line, as ``frylinks run`` does.
        self.case_file = ""

    def run(self, t_end: float | None = None, dt: float | None = None,
            integrator: str | None = None, every: int | None = None,
            rtol: float | None = None, atol: float | None = None,
            rho_inf: float | None = None, output: Any = None, progress: bool = False,
            resume: bool = False, initial_equilibrium: bool | None = None,
            in_memory: bool = True, assembly_tolerance: Any = None,
            equilibrium_max_turn_deg: float | None = None) -> xr.Dataset:
        """Integrate from the initial state to ``t_end`` and return the results.

        An argument not given is the case file's (:attr:`case_settings`, for a system
        read from one), else its default below: ``load_case(path).run()`` runs the case
        as ``frylinks run`` does, and a keyword given overrides the case.

        Parameters
        ----------
        t_end
            End time [s] (required for a system built in Python).
        dt
            Step [s] (``rk4``, ``generalized_alpha``), or the output interval of the
            adaptive ``dop853`` (required for a system built in Python).
        integrator
            ``rk4`` (explicit, fixed step; the default), ``dop853`` (adaptive,
            ``rtol``/``atol``) or ``generalized_alpha`` (implicit, fixed step: stiff
            springs, moorings, long chains; its numerical damping set by ``rho_inf``).
        rho_inf
            Spectral radius of ``generalized_alpha`` at infinite frequency, in [0, 1]:
            1 keeps every frequency's amplitude, lower values damp the ones far above
            ``1/dt`` (0.8 damps them by 20 % a step and costs nothing at the resolved
            frequencies; the default).
        every
            Keep one sample every ``every`` steps (default 1).
        rtol, atol
            ``dop853``'s tolerances (default 1e-9, 1e-12).
        output
            A netCDF path: results are streamed there while the run goes.
        progress
            Show a progress bar (rate and ETA) on a terminal.
        resume
            Continue the run saved in ``output`` from its last checkpoint (after Ctrl-C,
            ``kill``, a divergence, or to extend it to a later ``t_end``); the result
            equals the uninterrupted run to round-off and holds the whole run.
        initial_equilibrium
            First move the bodies to the pose where the forces balance (still water,
            zero velocities), then start the dynamics from there (default False).
        in_memory
            With False and an ``output`` file, keep no results in memory and return the
            file's Dataset, read when its values are asked for (a long run's every
            variable can take gigabytes).
        assembly_tolerance
            The largest initial residual of a link that the run assembles, an
            :class:`~frylinks.engine.AssemblyTolerance` or ``{"length": m,
            "angle_deg": deg}`` (default 0.01 m and 0.1 deg); beyond it the run is
            refused with a :class:`~frylinks.errors.ModelError` naming the link and its
            residual in each constrained DOF. ``frylinks.engine.FROM_ANYWHERE``
            assembles from any initial state.
        equilibrium_max_turn_deg
            With ``initial_equilibrium``, the largest turn of a body from its initial
            orientation that the equilibrium may make [deg] (default 45).

        Returns
        -------
        xarray.Dataset
            The variables of docs/reference/results.md; its attributes record the
            initial links' residuals and how far assembling them moved the bodies
            (``assembly_*``), and the static equilibrium's moves (``equilibrium_*``).

        Raises
        ------
        CaseError
            For a system read from a case file, a mistake found when its run is set up
            (initial positions that miss a link, a bad ``t_end``): file, key path, line.
        ModelError
            The same for a system built in Python.
        """
        given = {k: v for k, v in (("t_end", t_end), ("dt", dt), ("integrator", integrator),
                                   ("every", every), ("rtol", rtol), ("atol", atol),
                                   ("rho_inf", rho_inf),
                                   ("initial_equilibrium", initial_equilibrium),
                                   ("assembly_tolerance", assembly_tolerance),
                                   ("equilibrium_max_turn_deg", equilibrium_max_turn_deg))
                 if v is not None}
        settings = {**RUN_DEFAULTS, **self.case_settings, **given}
        for key, what in (("t_end", "end time"), ("dt", "time step")):
            if key not in settings:
                raise FrylinksError(f"run: give {key}, the {what} [s] (a system built in "
                                    "Python has no case file's solver section to take it "
                                    "from)")
        try:
            return run_system(self, output=output, progress=progress, resume=resume,
                              in_memory=in_memory, **settings)
        except ModelError as exc:
            if not getattr(self, "case_file", ""):  # (a system pickled before it had one)
                raise
            times = {k: v for k, v in given.items() if k in ("t_end", "dt")}
            raise case_error(self.case_file, self.case_text, exc, times) from None
