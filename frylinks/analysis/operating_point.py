"""The state a linear analysis is made about, from a system or a case file, and the
attributes that record it in the analysis' Dataset."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frylinks.analysis.linearise import LinearModel, linearise
from frylinks.engine import DEFAULT_TOLERANCE, Model, State, assemble, assemble_initial
from frylinks.errors import ModelError, SimulationError
from frylinks.model.system import System
from frylinks.version import __version__


@dataclass
class OperatingPoint:
    """A linearised model and how it was obtained.

    Attributes
    ----------
    system, model : the system and its assembled model.
    linear : the :class:`LinearModel`.
    about : ``"static equilibrium"`` or ``"initial state"`` (what the state is).
    case_file : the case file read, or None for a system built in Python.
    """

    system: System
    model: Model
    linear: LinearModel
    about: str
    case_file: str | None = None

    def attributes(self, analysis: str) -> dict[str, Any]:
        """Global attributes of an analysis' Dataset (the inputs, so it explains itself)."""
        attrs = {
            "title": self.system.name,
            "frylinks_version": __version__,
            "analysis": analysis,
            "linearised_about": self.about,
            "residual_acceleration": self.linear.residual,
            "nb_coordinates": self.linear.nb_coordinates,
            "Conventions": "CF-1.8",
        }
        if self.case_file is not None:
            attrs["case_file"] = self.case_file
        text = getattr(self.system, "case_text", None)
        if text:
            attrs["case"] = text
        return attrs


def operating_point(target: System | str | Path, equilibrium: bool = True,
                    state: State | None = None) -> OperatingPoint:
    """Assemble ``target`` (a :class:`System` or a case file) and linearise it.

    Parameters
    ----------
    target
        A system, or the path of a YAML case file.
    equilibrium
        Linearise about the static equilibrium (the pose where every force balances in
        still water, found from the initial state); otherwise about the initial state
        as given (brought onto the links).
    state
        Linearise about this state instead (velocities taken as zero).

    Raises
    ------
    CaseError
        For a case file whose model cannot be linearised or has no static equilibrium,
        naming the file and key path.
    ModelError
        The same for a system built in Python.
    """
    case_file = None
    if isinstance(target, System):
        system = target
    else:
        from frylinks.io.case import load_case

        case_file = str(target)
        system = load_case(target)[0]
    try:
        return _linearised(system, equilibrium, state, case_file)
    except ModelError as exc:
        if case_file is None:
            raise
        from frylinks.io.case import case_error

        raise case_error(case_file, system.case_text, exc) from None


def _linearised(system: System, equilibrium: bool, state: State | None,
                case_file: str | None) -> OperatingPoint:
    model = assemble(system)
    if state is not None:
        s, about = state.copy(), "given state"
    else:
        s = model.initial.copy()
        # as a run starts: refused beyond the case's tolerance, said if visibly moved
        settings = getattr(system, "case_settings", {})
        moved = assemble_initial(model, s, settings.get("assembly_tolerance",
                                                        DEFAULT_TOLERANCE)).warning()
        if moved:
            warnings.warn(moved, UserWarning, stacklevel=3)
        about = "initial state"
        if equilibrium:
            from frylinks.engine.statics import MAX_TURN_DEG, initial_equilibrium

            try:
                initial_equilibrium(model, s, settings.get("equilibrium_max_turn_deg",
                                                           MAX_TURN_DEG))
            except SimulationError as exc:
                raise ModelError(f"a linear analysis is made about the static "
                                 f"equilibrium, and none was found: {exc}",
                                 exc.path or "bodies") from None
            about = "static equilibrium"
    return OperatingPoint(system, model, linearise(model, s), about, case_file)
