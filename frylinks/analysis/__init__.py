"""Linear analysis of a linked model: natural periods and mode shapes
(:func:`modes`), the frequency-domain response to regular waves (:func:`rao`).

* :mod:`.linearise`: the model linearised about a state, in its links' independent
  coordinates, from the engine's own evaluation;
* :mod:`.operating_point`: the state (static equilibrium) it is made about;
* :mod:`.modes`: eigenvalues, damping ratios and mode shapes (``A(w_n)`` per mode);
* :mod:`.rao`: response amplitude operators and absorbed power per unit wave amplitude.
"""

from __future__ import annotations

from frylinks.analysis.linearise import LinearModel, linearise
from frylinks.analysis.modes import modes
from frylinks.analysis.operating_point import OperatingPoint, operating_point

__all__ = ["LinearModel", "OperatingPoint", "linearise", "modes", "operating_point"]
