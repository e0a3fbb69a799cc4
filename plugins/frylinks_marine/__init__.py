"""Marine forces, waves and mooring for frylinks: a plugin using only the public API.

Frames are right-handed, z up, origin at the still-water level; waves travel towards
+x at heading 0. Per-DOF coefficients act on a body's COG in world-aligned axes
(:mod:`frylinks_marine.dofs`).
"""

from __future__ import annotations

from frylinks.hookspecs import hookimpl

from .bem import Radiation, WaveExcitation
from .body_forces import AddedMass, LinearDamping, LinearHydrostatics, QuadraticDamping
from .environment import Environment
from .moordyn_lines import MoorDynLines
from .mooring import CatenaryLine, MooringMatrix
from .morison import Morison
from .nonlinear_hydro import NonlinearHydrostatics
from .wave_drift import WaveDrift


@hookimpl
def frylinks_setting_types() -> list[type]:
    return [Environment]


@hookimpl
def frylinks_force_types() -> list[type]:
    return [LinearHydrostatics, AddedMass, LinearDamping, QuadraticDamping, Morison,
            WaveExcitation, Radiation, MooringMatrix, CatenaryLine, MoorDynLines,
            WaveDrift, NonlinearHydrostatics]
