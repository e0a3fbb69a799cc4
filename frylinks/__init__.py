"""frylinks: time-domain dynamics of rigid bodies joined by links, for marine engineering.

The public API mirrors the case file: :class:`System` with ``add_body``,
``Body.add_node``, ``add_link``, ``add_force`` and ``run``; :func:`load_case` and
:func:`run` for YAML case files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from frylinks.errors import CaseError, FrylinksError, ModelError, PluginError, SimulationError
from frylinks.hookspecs import hookimpl
from frylinks.io.runner import System
from frylinks.model.system import Body, Node
from frylinks.version import __version__

if TYPE_CHECKING:
    import xarray as xr


def load_case(path: str) -> System:
    """Read a YAML case file into a :class:`System` (docs/reference/case-file.md)."""
    from frylinks.io.case import load_case as _load

    return _load(path)[0]


def run(path: str | Path, output: str | Path | None = None, *, t_end: float | None = None,
        dt: float | None = None, resume: bool = False, progress: bool = False,
        overrides: Mapping[str, Any] | None = None, in_memory: bool = True) -> xr.Dataset:
    """Load and run a case file.

    Parameters
    ----------
    path
        The YAML case file.
    output
        netCDF results file, streamed while the run goes; None keeps results in memory.
    t_end, dt
        Override the case's ``solver.t_end`` and ``solver.dt`` [s].
    resume
        Continue the run whose results are in ``output`` from its last saved state
        (see :func:`frylinks.io.runner.run_system`).
    progress
        Show a progress bar (rate and ETA) on a terminal.
    overrides
        Key path -> value set in the case before it is read: one load case of a sweep,
        ``{"links.pto.spring_damper.damping": 2e5}``.
    in_memory
        With False and an ``output`` file, the run keeps no results in memory and
        returns the file's Dataset, read when its values are asked for (a 3-hour sea
        state's every variable can take gigabytes; ``frylinks run`` does this).

    Returns
    -------
    xarray.Dataset
        The results; attribute ``status`` says whether the run completed.

    Raises
    ------
    CaseError
        For any mistake in the case file, including one found only when the model is
        assembled (initial positions that cannot satisfy the links, a bad ``t_end``).
    """
    from frylinks.io.case import case_error
    from frylinks.io.case import load_case as _load

    system = _load(path, overrides=overrides)[0]
    given = {k: v for k, v in (("t_end", t_end), ("dt", dt)) if v is not None}
    try:
        # (System.run merges the case's settings and these: one place for both paths)
        return system.run(t_end=t_end, dt=dt, output=output, progress=progress,
                          resume=resume, in_memory=in_memory)
    except ModelError as exc:
        raise case_error(path, system.case_text, exc, given) from None


def sweep(case: str | Path, values: Mapping[str, Any] | None = None,
          output: str | Path | None = None, **options: Any) -> xr.Dataset:
    """Run the load cases of a case file on a dask cluster (``frylinks sweep``).

    ``values`` maps key paths of the case (``"links.pto.spring_damper.damping"``) to
    their values: a list or a range ``"start:stop:count"``. See
    :func:`frylinks.io.sweeps.sweep` for the options (``zip``, ``scheduler``, ``workers``,
    ``resume``, ``progress``, ``t_end``, ``dt``) and the Dataset returned.

    A script that calls it must guard its top level with ``if __name__ ==
    "__main__":``: the LocalCluster's worker processes import the script again.
    """
    from frylinks.io.sweeps import sweep as _sweep

    return _sweep(case, values, output, **options)


def modes(target: System | str | Path, **options: Any) -> xr.Dataset:
    """Natural periods, damping ratios and mode shapes of a system or case file about its
    static equilibrium (``frylinks modes``; :func:`frylinks.analysis.modes.modes`)."""
    from frylinks.analysis.modes import modes as _modes

    return _modes(target, **options)


def rao(target: System | str | Path, **options: Any) -> xr.Dataset:
    """Response to unit regular waves of a system or case file (``frylinks rao``;
    :func:`frylinks.analysis.rao.rao`)."""
    from frylinks.analysis.rao import rao as _rao

    return _rao(target, **options)


def animate(ds: xr.Dataset, output: str | Path | None = None, **options: Any) -> Any:
    """Animate a results Dataset into ``output`` (``.mp4``, ``.gif``), or return a
    matplotlib animation for a notebook when ``output`` is None (``frylinks animate``).

    See :func:`frylinks.views.animate.animate` for the options (``start``, ``end``, ``speed``,
    ``fps``, ``camera``, ``size``).
    """
    from frylinks.views.animate import animate as _animate

    return _animate(ds, output, **options)


def export_vtk(ds: xr.Dataset, target: str | Path, **options: Any) -> Any:
    """Write ParaView files of a results Dataset (``frylinks export --vtk DIR``): one
    VTKHDF file ``DIR/<title>.vtkhdf`` (or ``target`` itself, a ``.vtkhdf`` file).

    See :func:`frylinks.views.vtk.export_vtk` for the options (``start``, ``end``,
    ``rate``, ``format``, ``precision``) and what the files hold.
    """
    from frylinks.views.vtk import export_vtk as _export

    return _export(ds, target, **options)


def statistics(results: xr.Dataset | str | Path, variable: str,
               select: Mapping[str, Any] | None = None, **options: Any) -> xr.Dataset:
    """Extremes (most probable maxima: Rayleigh, Weibull, generalized Pareto) and fatigue
    (rainflow, damage-equivalent load, Miner's damage) of a result variable, per run or
    per case of a sweep, as a Dataset (``frylinks stats``).

    See :func:`frylinks.views.statistics.statistics` for the options (``after``,
    ``extreme``, ``fatigue_``, ``duration``, ``threshold``, ``declustering``, ``alpha``,
    ``slope``, ``equivalent_cycles``, ``sn_k``).
    """
    from frylinks.views.statistics import statistics as _statistics

    return _statistics(results, variable, select, **options)


__all__ = ["Body", "CaseError", "FrylinksError", "ModelError", "Node", "PluginError",
           "SimulationError", "System", "__version__", "hookimpl", "load_case", "modes",
           "rao", "run", "statistics", "sweep"]
