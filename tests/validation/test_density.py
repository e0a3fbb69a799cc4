"""The water density rule: a dataset computed at one density used in water of another.

Every coefficient of a dataset (added mass, damping, excitation, infinite-frequency added
mass, hydrostatic stiffness) is an integral of the water's pressure over the same hull,
so all scale with the density. A freely floating body's heave response to long waves
then tends to the wave itself, ``RAO -> X / K = rho g A_wp / rho g A_wp = 1``, whatever
the water. Before the rule covered the hydrostatic stiffness, the sphere's dataset at
1000 kg/m^3 used in 1025 kg/m^3 water gave 1.025.

The sphere floats freely (its mass is the displaced mass at each density) in regular
waves of 60 s (omega = 0.105 rad/s, kR = 0.0056): its steady heave amplitude over the
wave amplitude, from the simulation, against 1 and against the frequency-domain closed
form ``X / (K - omega^2 (m + A) - i omega B)`` with the dataset's coefficients scaled
by the density ratio.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frylinks_marine.bem import EXAMPLE_DATA
from frylinks_marine.datasets import load_database

import frylinks

VOLUME = 2.0 / 3.0 * math.pi * 5.0**3  # m^3, the sphere's displaced volume
PERIOD = 60.0  # s


def heave_rao(rho: float) -> complex:
    """Steady complex heave amplitude over the wave amplitude, by projection on
    ``exp(-i w t)`` over the last two periods (after a one-period ramp and one more)."""
    s = frylinks.System()
    s.add_body("b", mass=rho * VOLUME, inertia=[1e6, 1e6, 1e6], position=[0, 0, -2.0])
    s.configure("environment", water_density=rho,
                waves={"type": "regular", "height": 1.0, "period": PERIOD, "ramp": PERIOD})
    for name, kind in (("hs", "linear_hydrostatics"), ("rad", "radiation"),
                       ("exc", "wave_excitation")):
        s.add_force(name, kind, body="b", hydrodynamics=EXAMPLE_DATA)
    ds = s.run(t_end=4 * PERIOD, dt=0.1, integrator="rk4", every=10)
    t = ds.time.values
    z = ds.body_position.sel(body="b", xyz="z").values + 2.0
    keep = t >= t[-1] - 2 * PERIOD - 1e-9
    w = 2 * math.pi / PERIOD
    # whole periods on a uniform grid: the mean of z exp(i w t) is exact for a sinusoid
    return complex(2 * np.mean(z[keep][:-1] * np.exp(1j * w * t[keep][:-1]))) / 0.5


@pytest.mark.parametrize("rho", [1000.0, 1025.0])
def test_long_wave_heave_rao_tends_to_one_for_any_density(
        rho: float, record_property: Callable[[str, Any], None]) -> None:
    db = load_database(EXAMPLE_DATA)
    assert db.rho == 1000.0  # the dataset's; 1025 exercises the rule
    rao = heave_rao(rho)
    scaled = db.at_density(rho)
    w = 2 * math.pi / PERIOD
    k = scaled.hydrostatic_stiffness
    assert k is not None
    a = float(np.interp(w, scaled.omega, scaled.added_mass[:, 2, 2]))
    b = float(np.interp(w, scaled.omega, scaled.radiation_damping[:, 2, 2]))
    x = complex(scaled.excitation_at(w, 0.0)[2])
    exact = x / (k[2, 2] - w**2 * (rho * VOLUME + a) - 1j * w * b)
    record_property("heave_rao", abs(rao))
    record_property("heave_rao_frequency_domain", abs(exact))
    record_property("heave_rao_difference", abs(rao - exact))
    assert abs(abs(rao) - 1.0) < 0.01
    assert abs(rao - exact) < 2e-3
