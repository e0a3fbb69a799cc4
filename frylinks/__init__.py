"""frylinks: time-domain dynamics of rigid bodies joined by links, for marine engineering.

The public API mirrors the case file: :class:`System` with ``add_body``,
``Body.add_node``, ``add_link``, ``add_force`` and ``run``; :func:`load_case` and
:func:`run` for YAML case files.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import CaseError, FrylinksError, ModelError, PluginError, SimulationError
from .hookspecs import hookimpl
from .system import Body, Node, System


def load_case(path: str) -> System:
    """Read a YAML case file into a :class:`System` (see DESIGN §3)."""
    from .case import load_case as _load

    return _load(path)[0]


def run(path: str, output: str | None = None):  # type: ignore[no-untyped-def]
    """Load and run a case file; stream results to ``output`` (netCDF) if given."""
    from .case import load_case as _load

    system, solver = _load(path)
    return system.run(output=output, **solver)


__all__ = ["Body", "CaseError", "FrylinksError", "ModelError", "Node", "PluginError",
           "SimulationError", "System", "__version__", "hookimpl", "load_case", "run"]
