"""A run: assemble, integrate, sample, write; status kept whatever happens."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from . import __version__
from .engine import Model, State, assemble, project
from .errors import FrylinksError, ModelError, SimulationError
from .integrators import INTEGRATORS, dop853, nb_steps, rk4
from .params import as_float
from .results import Sampler, to_dataset

if TYPE_CHECKING:
    from .system import System


def run_system(system: System, t_end: float, dt: float, integrator: str = "rk4",
               every: int = 1, rtol: float = 1e-9, atol: float = 1e-12,
               output: str | Path | None = None, progress: bool = False,
               state: State | None = None, resume: bool = False) -> xr.Dataset:
    """Run ``system`` and return its results (see :meth:`System.run`)."""
    if resume:
        raise FrylinksError("resuming a run is not available yet")
    t_end = as_float(t_end, "solver.t_end", "s", positive=True)
    dt = as_float(dt, "solver.dt", "s", positive=True)
    if integrator not in INTEGRATORS:
        raise FrylinksError(f"solver.integrator: unknown integrator {integrator!r}; "
                            f"accepted: {', '.join(INTEGRATORS)}")
    if not isinstance(every, int) or isinstance(every, bool) or every < 1:
        raise FrylinksError(f"output.every: expected a whole number >= 1, got {every!r}")
    try:
        nb_steps(t_end, dt if integrator == "rk4" else dt * every)
    except SimulationError as exc:
        raise ModelError(str(exc), "solver.t_end") from None
    model = assemble(system)
    s = (state or model.initial).copy()
    given = s.x.copy()
    try:
        project(model, s, initial=True)
    except SimulationError as exc:
        raise ModelError(str(exc)) from exc
    moved = np.linalg.norm(s.x - given, axis=1)
    if state is None and moved.size and moved.max() > 1e-6 * model.length_scale:
        worst = int(np.argmax(moved))
        warnings.warn(
            f"initial positions do not satisfy the links: body '{model.body_names[worst]}' "
            f"was moved by {moved[worst]:.3g} m to assemble them", stacklevel=3)
    if integrator == "rk4":
        steps = rk4(model, s, t_end, dt, every)
    else:
        steps = dop853(model, s, t_end, dt, every, rtol=rtol, atol=atol)
    attrs = {
        "title": system.name,
        "description": system.description,
        "frylinks_version": __version__,
        "integrator": integrator,
        "dt": dt,
        "output_every": every,
        "case": system.case_text,
        "Conventions": "CF-1.8",
        "status": "running",
    }
    sampler = Sampler(model)
    times: list[float] = []
    samples: list[dict[str, np.ndarray]] = []
    writer = None
    if output is not None:
        from .netcdf import StreamWriter

        writer = StreamWriter(output, model, attrs)
    reg = system.registry
    observe_step = reg.observers("frylinks_step_completed")
    if reg.observers("frylinks_run_started"):
        reg.pm.hook.frylinks_run_started(system=system, t_end=t_end, dt=dt)
    bar = _progress(progress, t_end)
    status = "completed"
    last_t = s.t
    # a diverging run overflows on its last step; the status reports it, not warnings
    errstate = np.errstate(over="ignore", invalid="ignore")
    errstate.__enter__()
    try:
        for st in steps:
            sample = sampler.sample(st)
            times.append(st.t)
            samples.append(sample)
            if writer is not None:
                writer.append(st.t, sample, st)
            if observe_step:
                reg.pm.hook.frylinks_step_completed(system=system, t=st.t, state=st)
            if bar is not None:
                bar.update(st.t - last_t)
            last_t = st.t
    except SimulationError as exc:
        status = f"diverged at t={s.t:.6g}: {exc}"
    except KeyboardInterrupt:
        status = f"interrupted at t={s.t:.6g}"
    finally:
        errstate.__exit__(None, None, None)
        if bar is not None:
            bar.close()
        attrs["status"] = status
        try:
            if writer is not None:
                writer.close(status)
        finally:
            if reg.observers("frylinks_run_finished"):
                reg.pm.hook.frylinks_run_finished(system=system, status=status)
    return to_dataset(model, times, samples, attrs)


def _progress(enabled: bool, total: float) -> Any:
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="s", unit_scale=False, desc="simulated time",
                bar_format="{l_bar}{bar}| {n:.3g}/{total:.3g} s [{elapsed}<{remaining}, "
                           "{rate_fmt}]")


__all__ = ["Model", "run_system"]
