"""Setting types: system-level sections of a case file that plugins contribute.

A setting type owns one top-level key of the case file (its ``name``), such as the
marine plugin's ``environment`` (water, waves, current). Its parameters are declared
like a force type's, so the case reader, the Python API (:meth:`System.configure`) and
the JSON schema check them the same way. One object is built per run from the parsed
parameters; force types find it in :attr:`ForceContext.settings` under its name, at
:meth:`~frylinks.forces.ForceType.prepare` and at every evaluation. A system without
the section gets the object built from the defaults.

A setting may declare outputs over dimensions of its own (``dimensions``, e.g.
``("wave_probe",)``, with names from :meth:`SettingType.coordinates`); they are written
as ``(time, *dims)`` variables named with the type name as prefix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from frylinks.forces import Output
from frylinks.params import Param

Array = np.ndarray


class SettingType:
    """Base class of setting types (one object per system and run).

    Class attributes
    ----------------
    name : str
        The case file's top-level key (``environment``).
    parameters : dict[str, Param]
        Declared parameters of the section.
    outputs : dict[str, Output]
        Variables over ``dimensions`` (named ``<name>_...``).
    dimensions : tuple of str
        Dimensions of the outputs, each with names from :meth:`coordinates`.
    description : str
        One line for ``frylinks plugins`` and the docs.
    nested_parameters : dict[str, dict[str, Param]]
        Keys of parameters that are mappings (``waves: {height: ..., period: ...}``),
        checked by the type itself; declared here, their units reach the coordinates of
        a sweep over them (``environment.waves.height [m]``).

    Parameters
    ----------
    params
        The parsed parameters (defaults filled in).
    gravity
        The system's gravity acceleration, world axes [m s-2].
    """

    name: ClassVar[str] = ""
    parameters: ClassVar[dict[str, Param]] = {}
    outputs: ClassVar[dict[str, Output]] = {}
    dimensions: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str] = ""
    nested_parameters: ClassVar[dict[str, dict[str, Param]]] = {}

    def __init__(self, params: Mapping[str, Any], gravity: Array) -> None:
        self.params = dict(params)
        self.gravity = np.asarray(gravity, dtype=float)

    @classmethod
    def normalise(cls, params: dict[str, Any]) -> dict[str, Any]:
        """The parsed parameters as a run takes them (default: unchanged): a type whose
        mappings hold file paths makes them absolute here, which is called where the
        case file is read (a relative path is read from the case file's directory, see
        :func:`frylinks.params.as_path`); raise
        :class:`~frylinks.errors.ModelError` with the parameter's key path."""
        return params

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        """Check parsed parameters beyond their declarations; raise
        :class:`~frylinks.errors.ModelError` with the parameter's key path."""

    def coordinates(self) -> dict[str, list[str]]:
        """Names along each of ``dimensions``."""
        return {d: [] for d in self.dimensions}

    def output_values(self, t: float) -> dict[str, Array]:
        """Values of the declared outputs at time ``t``, each shaped by its dims: a
        function of ``t`` alone (a run may ask for them in a thread beside its step)."""
        return {}

    def output_series(self, times: Array) -> dict[str, Array]:
        """Values of the declared outputs at each of ``times (m,)``, each with a leading
        axis of ``m`` (the run asks for many samples at once): :meth:`output_values` at
        each time by default; a type overrides it to compute them together."""
        each = [self.output_values(t) for t in np.asarray(times, dtype=float).tolist()]
        return {name: np.stack([v[name] for v in each]) for name in self.outputs}
