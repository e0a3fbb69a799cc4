"""The integrators by name, as a run chooses them: what each one is called with, and
the one call of a compiled step's entry that makes a compile child compile it
(:mod:`frylinks.engine.background`)."""

from __future__ import annotations

from collections.abc import Callable

from frylinks.engine.compose import CompiledStep
from frylinks.engine.implicit import CompiledStepper

#: The compiled step's entry function of each fixed-step integrator.
ENTRIES = {"rk4": "advance_rk4", "generalized_alpha": "advance_ga"}


def first_call(integrator: str, rho_inf: float
               ) -> tuple[str, Callable[[CompiledStep], None]] | None:
    """The entry of ``integrator``'s compiled step and a call that makes it compile (one
    step of the initial state, whose result is thrown away); None for an integrator
    that drives no compiled entry (``dop853``: scipy drives it from Python)."""
    entry = ENTRIES.get(integrator)
    if entry is None:
        return None

    def call(step: CompiledStep) -> None:
        s = step.model.initial.copy()
        if integrator == "rk4":
            step.advance_rk4(s, 0, 0, 0.0, s.t)
        else:
            CompiledStepper(step, rho_inf).report(s)

    return entry, call
