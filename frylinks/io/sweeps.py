"""Load-case sweeps on dask.distributed: ``frylinks sweep`` and :func:`sweep`.

The client reads the case file, expands the swept values into load cases
(:mod:`frylinks.io.loadcases`) and submits one task per case to a dask cluster: a
:class:`distributed.LocalCluster` of one single-threaded worker process per core by
default, or any running scheduler by address. A task gets the case file's text (not its
path, so a worker need not see the file) and its values, runs the case as
``frylinks run`` would, and sends back its samples and status. The client writes each
case as it arrives (:mod:`frylinks.io.sweepfile`): a case that fails or diverges is recorded
with its message, an interrupted sweep keeps every finished case, and a resumed one runs
only those still pending.

Files the case names (datasets, time series) are read on the workers, relative to the
case file's directory: on a cluster of several machines they must be at the same path
on every machine (a shared file system).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
import yaml
from distributed.diagnostics.plugin import WorkerPlugin

from frylinks.errors import CaseError, FrylinksError, ModelError
from frylinks.io.case import CaseLoader, case_error, read_case
from frylinks.io.loadcases import LoadCaseError, Sweep, check_key, check_list, parse_values
from frylinks.io.runner import run_attributes, run_system, sample_times, sigterm_interrupts
from frylinks.io.sweepfile import (
    COMPLETED,
    PENDING,
    CaseOutcome,
    Layout,
    SweepStore,
    definition,
    read_attributes,
    time_grid,
)
from frylinks.model.geometry import relative_scene

#: Keys whose values change a case's time grid (each case is then read on the client).
SOLVER_PREFIXES = ("solver.", "output.")
#: Units of a body's swept keys.
BODY_UNITS = {"mass": "kg", "inertia": "kg m2", "position": "m", "velocity": "m s-1",
              "angular_velocity": "rad s-1"}
#: How long to wait for a scheduler given by address [s].
CONNECT_SECONDS = 10.0


@dataclass(frozen=True)
class CaseTask:
    """What a worker needs to run one load case (sent to it, so kept small)."""

    index: int
    file: str
    text: str
    overrides: dict[str, Any]
    given: dict[str, float]


def run_case(task: CaseTask) -> CaseOutcome:
    """Run one load case on a worker; never raises (a failure is the case's status).

    Parameters
    ----------
    task
        The case file's name and text, the swept values, and ``t_end``/``dt`` given in
        place of the case's.

    Returns
    -------
    CaseOutcome
        Status, samples and wall time of the case.
    """
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # a warning (an initial position moved onto its link) would go to the
            # worker's log, where no one reads it; the status says what matters
            warnings.simplefilter("ignore")
            read = read_case(task.file, text=task.text, overrides=task.overrides)
            try:
                ds = run_system(read.system, **{**read.solver, **task.given})
            except ModelError as exc:
                raise case_error(task.file, task.text, exc, task.given) from None
    except FrylinksError as exc:
        return CaseOutcome(task.index, f"failed: {exc}", wall=time.perf_counter() - start)
    except Exception as exc:  # a bug: the other cases must not be lost for it
        return CaseOutcome(task.index, f"failed: internal error {type(exc).__name__}: {exc}",
                           wall=time.perf_counter() - start)
    return CaseOutcome(
        task.index, str(ds.attrs["status"]), times=np.asarray(ds["time"].values),
        data={str(name): np.asarray(var.values) for name, var in ds.data_vars.items()},
        labels={str(dim): [str(c) for c in ds[dim].values] for dim in ds.dims
                if dim != "time" and dim in ds.coords},
        wall=time.perf_counter() - start)


def sweep(case: str | Path, values: Mapping[str, Any] | None = None,
          output: str | Path | None = None, *, zip: bool | None = None,
          scheduler: Any = None, workers: int | None = None, resume: bool = False,
          progress: bool = False, t_end: float | None = None, dt: float | None = None
          ) -> xr.Dataset:
    """Run the load cases of a case file on a dask cluster.

    Parameters
    ----------
    case
        The YAML case file (the base case).
    values
        Key path -> its values: a list, or a range ``"start:stop:count"`` (both ends
        included, as numpy.linspace). Added to the case file's ``sweep.set`` section
        (a key given in both takes these values).
    output
        The results file, written as cases finish; None keeps the results in memory.
    zip
        Pair the i-th values of every key instead of taking every combination; None
        takes the case file's ``sweep.zip`` (default false).
    scheduler
        None: a LocalCluster of ``workers`` single-threaded worker processes (default:
        one per core). A scheduler address (``tcp://host:8786``): a running cluster.
        A :class:`distributed.Client`: used as it is.
    workers
        Number of worker processes of the LocalCluster.
    resume
        Run only the cases still ``pending`` in ``output`` (a sweep that was
        interrupted or killed), keeping those it holds.
    progress
        Show a progress bar over the cases on a terminal.
    t_end, dt
        Given in place of the case's ``solver.t_end`` and ``solver.dt`` [s].

    Returns
    -------
    xarray.Dataset
        Every run variable with a leading ``case`` dimension, the swept key paths as
        coordinates along ``case``, ``status (case)`` and ``wall_time (case)``. The
        attribute ``status`` is ``completed`` once every case has run (whatever became
        of each), else ``interrupted (k of n cases done)``.

    Raises
    ------
    CaseError
        For a mistake in the case file or in a swept key (a value that only some cases
        take is a failed case, not an error).
    FrylinksError
        For no swept values, a results file that is not this sweep's on resume, or a
        scheduler that cannot be reached.
    """
    if scheduler is not None and workers is not None:
        raise FrylinksError("workers sets the size of a LocalCluster; a scheduler given "
                            "by address (or a Client) has its own workers")
    plan = _plan(Path(case), values, zip, {k: v for k, v in (("t_end", t_end), ("dt", dt))
                                           if v is not None})
    store = _store(plan, output, resume)
    todo = [i for i in range(len(plan.cases)) if store.status[i] == PENDING]
    bar = _progress(progress, len(plan.cases), store.done)
    why = ""
    try:
        with sigterm_interrupts():
            if todo:
                with _client(scheduler, workers) as client:
                    lost = _run_cases(client, plan, todo, store, bar)
                    why = f": {lost}" if lost else ""
    except KeyboardInterrupt as exc:
        why = f", {exc}" if str(exc) else ""
    except FrylinksError as exc:  # the cluster could not be had: the file says so too
        why = f": {exc}"
        raise
    finally:
        if bar is not None:
            bar.close()
        n = len(plan.cases)
        store.close("completed" if store.done == n and not why else
                    f"interrupted ({store.done} of {n} cases done{why})")
    return store.dataset()


@dataclass
class _Plan:
    """A sweep read and expanded on the client."""

    file: Path
    text: str
    sweep: Sweep
    cases: list[dict[str, Any]]
    given: dict[str, float]
    layout: Layout


def _plan(file: Path, values: Mapping[str, Any] | None, zipped: bool | None,
          given: dict[str, float]) -> _Plan:
    """Read the base case, expand the load cases and fix the results' layout."""
    from frylinks.engine import assemble, assemble_initial
    from frylinks.io.results import coordinates, variables

    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CaseError(str(file), "", "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseError(str(file), "", f"cannot read the file: {exc}") from None
    base = read_case(file, text=text)
    spec = _definition(file, text, base.sweep, values, zipped)
    try:
        cases = spec.cases()
    except LoadCaseError as exc:
        raise FrylinksError(f"sweep of '{file}': {exc}") from None
    _check_values(file, text, spec)
    for key in given:
        if f"solver.{key}" in spec.values:
            raise FrylinksError(f"solver.{key} is swept: a {key} given for every case "
                                "would replace its values")
    # the time grid: the base case's, unless the solver itself is swept
    solvers = [{**base.solver, **given}]
    if any(k.startswith(SOLVER_PREFIXES) for k in spec.values):
        solvers = []
        for overrides in cases:
            try:
                solvers.append({**read_case(file, text=text, overrides=overrides).solver,
                                **given})
            except CaseError:
                continue  # this case will fail on its worker, and say why
    try:
        grid = time_grid([sample_times(s["t_end"], s["dt"], s["integrator"], s["every"])
                          for s in solvers])
        model = assemble(base.system)
        # a base case whose links miss its initial positions is refused before any
        # worker starts (a case whose swept values move a node fails on its own)
        done = assemble_initial(model, model.initial.copy(),
                                base.solver["assembly_tolerance"])
    except ModelError as exc:
        raise case_error(file, text, exc, given) from None
    solver = solvers[0] if solvers else {**base.solver, **given}
    attrs = run_attributes(base.system, solver["integrator"], solver["dt"], solver["every"],
                           solver["rtol"], solver["atol"], solver["rho_inf"])
    attrs.update(done.attributes())  # the base case's
    attrs["sweep"] = json.dumps({**spec.to_json(), **given})
    swept = {key: [c[key] for c in cases] for key in spec.values}
    layout = Layout(coordinates(model), variables(model), grid, swept,
                    swept_units(base.system, spec.values), attrs)
    return _Plan(file.resolve(), text, spec, cases, given, layout)


def _check_values(file: Path, text: str, spec: Sweep) -> None:
    """Read the case with the swept values of each key in turn, before any worker starts,
    until one reads. A key every value of which the case refuses (a key path its types do
    not take, ``links.pto.damping`` on a link whose damping is under ``spring_damper``)
    could run no case: it is a mistake in the input, reported as one (exit code 2), not a
    sweep of failed cases. A value only some cases refuse fails those cases alone."""
    for key, values in spec.values.items():
        first: CaseError | None = None
        for value in _distinct(values):
            try:
                read_case(file, text=text, overrides={key: value})
            except CaseError as exc:
                first = first or exc
                continue
            break
        else:
            if first is not None:
                if f"swept value {key} =" in first.message:
                    raise first
                raise CaseError(first.file, first.path, f"{first.message} (with every value "
                                f"of the sweep's {key})") from None


def _distinct(values: list[Any]) -> Iterator[Any]:
    """``values`` without repeats (``1`` and ``1.0`` kept apart: a case may take one only)."""
    seen: list[Any] = []
    for value in values:
        if not any(value == v and type(value) is type(v) for v in seen):
            seen.append(value)
            yield value


def _definition(file: Path, text: str, from_file: Sweep | None,
                values: Mapping[str, Any] | None, zipped: bool | None) -> Sweep:
    """The case file's sweep section with the values given here added (or replacing)."""
    merged: dict[str, list[Any]] = dict(from_file.values) if from_file else {}
    data = yaml.load(text, Loader=CaseLoader)
    for key, given in (values or {}).items():
        try:
            check_key(data, key)
            merged[key] = parse_values(given) if isinstance(given, str) else \
                check_list(list(given) if isinstance(given, tuple | np.ndarray) else given,
                           key)
        except LoadCaseError as exc:
            raise CaseError(str(file), str(key), str(exc).removeprefix(f"{key}: ")) from None
    if not merged:
        raise FrylinksError(f"nothing to sweep in '{file}': give KEY=VALUES (--set "
                            "links.pto.spring_damper.damping=1e5:4e5:4), or a 'sweep' section "
                            "in the case file")
    default = from_file.zip if from_file else False
    return Sweep(merged, default if zipped is None else zipped)


def swept_units(system: Any, keys: Any) -> dict[str, str]:
    """Units of swept parameters declared by their type (``links.X.P``, ``forces.X.P``,
    ``SETTING.P``, ``SETTING.P.Q``), where the key path leads to one."""
    out: dict[str, str] = {}
    reg = system.registry
    for key in keys:
        parts = key.split(".")
        param = None
        if len(parts) == 3 and parts[0] in ("links", "forces"):
            table = system.links if parts[0] == "links" else system.forces
            element = table.get(parts[1])
            info = reg.get(parts[0][:-1], element.type) if element is not None else None
            param = info.cls.parameters.get(parts[2]) if info is not None else None
        elif len(parts) == 4 and parts[0] == "links" and parts[2] == "spring_damper" \
                and parts[1] in system.links:
            from frylinks.io.schema import spring_units

            info = reg.get("link", system.links[parts[1]].type)
            units = dict(zip(("stiffness", "damping", "rest"),
                             spring_units(info.cls.free_dofs), strict=True))
            if parts[3] in units:
                out[key] = units[parts[3]]
        elif len(parts) == 3 and parts[0] == "bodies" and parts[2] in BODY_UNITS:
            out[key] = BODY_UNITS[parts[2]]
        elif len(parts) in (2, 3) and reg.get("setting", parts[0]) is not None:
            cls = reg.get("setting", parts[0]).cls
            param = cls.parameters.get(parts[1]) if len(parts) == 2 else \
                cls.nested_parameters.get(parts[1], {}).get(parts[2])
        elif key in ("solver.t_end", "solver.dt"):
            out[key] = "s"
        if param is not None and param.units and param.units != "1":
            out[key] = param.units
    # a parameter over translations and rotations documents its units as a list ("N m-1,
    # N m rad-1", or "N m-1 or N m rad-1" for a spring-damper over mixed DOFs): no one
    # unit is true of its values, and a units attribute must be one UDUNITS string
    return {key: units for key, units in out.items()
            if "," not in units and " or " not in units}


def _store(plan: _Plan, output: str | Path | None, resume: bool) -> SweepStore:
    """A new results store, or the one of ``output`` checked to be this sweep's."""
    if output is not None:
        plan.layout.attrs["scene"] = relative_scene(plan.layout.attrs["scene"],
                                                    Path(output).parent)
    if not resume:
        return SweepStore(plan.layout, output)
    if output is None:
        raise FrylinksError("resuming a sweep needs its results file (output)")
    path = Path(output)
    attrs = read_attributes(path)
    if attrs.get("case") != plan.text:
        raise FrylinksError(f"cannot resume from '{path}': it was written for another case "
                            "(the case text differs); resume with the same case")
    if definition(attrs) != json.loads(plan.layout.attrs["sweep"]):
        raise FrylinksError(f"cannot resume from '{path}': its sweep was {attrs.get('sweep')}"
                            f", this one is {plan.layout.attrs['sweep']}; resume with the "
                            "same values")
    store = SweepStore(plan.layout, path, resume=True)
    if len(store.status) != len(plan.cases):
        raise FrylinksError(f"cannot resume from '{path}': it holds {len(store.status)} "
                            f"cases, this sweep has {len(plan.cases)}")
    return store


@contextmanager
def _client(scheduler: Any, workers: int | None) -> Iterator[Any]:
    """A dask client: of a new LocalCluster, of a scheduler's address, or the one given."""
    from distributed import Client, LocalCluster

    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is None:
        n = workers or os.cpu_count() or 1
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise FrylinksError(f"workers: expected a whole number >= 1, got {workers!r}")
        # one single-threaded process per core: a run holds the GIL in its step loop.
        # The sweep reports every case's outcome itself, so distributed's own logging
        # is kept to the critical: a cluster closed under running cases (Ctrl-C) has
        # workers whose last heartbeat finds the scheduler gone, logged as tracebacks.
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                          dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster, \
                Client(cluster) as client:
            client.register_plugin(_QuietWorker(), name="frylinks-quiet-worker")
            yield client
        return
    try:
        client = Client(scheduler, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as exc:
        raise FrylinksError(f"cannot reach the dask scheduler at {scheduler!r}: {exc}"
                            ) from None
    # a lost scheduler is reported in the sweep's status; distributed's client would
    # also log its reconnection attempts as tracebacks
    logger = logging.getLogger("distributed.client")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with client:
            yield client
    finally:
        logger.setLevel(level)


class _QuietWorker(WorkerPlugin):
    """A dask worker plugin: the worker process logs only what is critical.

    ``silence_logs`` quiets a worker's log handlers only until the worker starts to
    close, and a heartbeat still in flight then logs the scheduler it lost; the level of
    the ``distributed`` logger itself outlives the close.
    """

    def setup(self, worker: Any) -> None:
        """Raise the worker process's ``distributed`` logger to CRITICAL."""
        logging.getLogger("distributed").setLevel(logging.CRITICAL)


def _run_cases(client: Any, plan: _Plan, todo: list[int], store: SweepStore,
               bar: Any) -> str:
    """Submit the ``todo`` cases and store each outcome as it arrives.

    Returns
    -------
    str
        Why some cases did not run (dask cancelled them: the scheduler connection was
        lost); they stay ``pending``. Empty if every case ran.
    """
    from distributed import as_completed

    futures = {}
    for i in todo:
        task = CaseTask(i, str(plan.file), plan.text, plan.cases[i], plan.given)
        futures[client.submit(run_case, task, pure=False, key=f"frylinks-case-{i}-"
                              f"{os.getpid()}-{time.monotonic_ns()}")] = i
    lost = ""
    try:
        for future in as_completed(futures):
            i = futures[future]
            try:
                outcome = future.result()
            except Exception as exc:
                if future.status == "cancelled":
                    # not a result of the case: it stays pending, for --resume
                    reason = (str(exc).splitlines() or [""])[0]
                    lost = lost or ("the connection to the dask scheduler was lost"
                                    if "connection" in str(exc) else
                                    f"dask cancelled the cases left ({reason})")
                    continue
                # a worker died (memory, a crash), was lost, or could not unpack the task
                # (frylinks or a plugin missing there)
                outcome = CaseOutcome(i, f"failed: dask could not run it on a worker "
                                         f"({type(exc).__name__}: {exc})")
            store.put(outcome)
            if bar is not None:
                bar.update(1)
                failed = int(np.sum([s not in (PENDING, COMPLETED) for s in store.status]))
                if failed:
                    bar.set_postfix_str(f"{failed} not completed")
    except BaseException:
        client.cancel(list(futures))
        raise
    return lost


def _progress(enabled: bool, total: int, done: int) -> Any:
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=done, unit="case", desc="load cases")


def summary(results: xr.Dataset) -> str:
    """One line per kind of status: ``16 cases: 15 completed, 1 failed``."""
    from frylinks.io.info import status_counts, status_word

    statuses = [str(s) for s in np.asarray(results["status"].values)]
    kinds = status_counts(status_word(s) for s in statuses)
    n = len(statuses)
    return f"{n} case{'s' if n != 1 else ''}: " + ", ".join(f"{k} {w}" for w, k in kinds.items())


__all__ = ["CaseTask", "run_case", "summary", "sweep"]
