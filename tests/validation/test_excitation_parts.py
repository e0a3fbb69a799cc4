"""The excitation's two parts, and which force supplies which load on a body.

* The readers keep the Froude-Krylov part apart where the data give it (Capytaine's
  ``Froude_Krylov_force``, BEMIO's ``excitation/froude-krylov``): on the IEA sphere
  (radius 5 m, half submerged) it is the incident wave's pressure integrated exactly
  over a floating hemisphere.
* ``wave_excitation`` with ``part: diffraction`` beside ``nonlinear_hydrostatics`` with
  ``froude_krylov: true`` gives, on a sphere held in small waves, the linear model's
  wave force (the Froude-Krylov force counted once); the whole excitation there is an
  error naming the load, both forces and the fix.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from frylinks_marine.bem import EXAMPLE_DATA
from frylinks_marine.datasets import load_database
from scipy.integrate import quad
from scipy.special import j0

import frylinks
from frylinks.errors import ModelError

DATA = Path(EXAMPLE_DATA).parent
RHO, G, R = 1000.0, 9.81, 5.0


def hemisphere_froude_krylov(omega: float) -> float:
    """Heave Froude-Krylov force per unit wave amplitude on a floating hemisphere of
    radius R centred at the origin in deep water [N/m]: the incident pressure rho g
    e^(kz) e^(ikx) over its wetted surface; round the vertical axis the phase integrates
    to a Bessel function, J0(k R sin(theta)), and what is left by quadrature."""
    k = omega**2 / G

    def ring(theta: float) -> float:
        return (math.exp(-k * R * math.cos(theta)) * float(j0(k * R * math.sin(theta)))
                * math.cos(theta) * math.sin(theta))

    return 2 * math.pi * RHO * G * R**2 * quad(ring, 0.0, math.pi / 2, epsrel=1e-12)[0]


def test_the_froude_krylov_part_is_the_incident_pressure_on_the_hemisphere() -> None:
    """Capytaine's Froude-Krylov force on the IEA sphere, kept apart by the reader,
    against the exact integral: within 0.3 % of its largest value where it matters
    (0.2 to 2 rad/s; measured 0.07 %); the diffraction part is the rest of the total, and
    small in long waves. BEMIO's sphere file holds NaN there: its total alone is read."""
    db = load_database(EXAMPLE_DATA)
    assert db.froude_krylov is not None
    w = db.omega[(db.omega > 0.2) & (db.omega < 2.0)]
    total = db.excitation_at(w, 0.0)[:, 2]
    diffraction = db.excitation_at(w, 0.0, part="diffraction")[:, 2]
    exact = np.array([hemisphere_froude_krylov(x) for x in w])
    np.testing.assert_allclose(total - diffraction, exact, rtol=0, atol=3e-3 * exact.max())
    assert abs(diffraction[0]) < 0.1 * abs(total[0])
    bemio = load_database(str(DATA / "sphere_bemio.h5"))
    assert bemio.froude_krylov is None
    with pytest.raises(ModelError, match="only in total"):
        bemio.excitation_part("diffraction")


def test_the_diffraction_part_needs_the_parts_apart() -> None:
    s = frylinks.System()
    s.add_body("spar", mass=1.0e6, inertia=[1e8, 1e8, 1e8])
    with pytest.raises(ModelError, match=r"(?s)forces\.x\.part.*only in total.*"
                                         r"WAMIT's \.3 holds the total only"):
        s.add_force("x", "wave_excitation", body="spar",
                    hydrodynamics=str(DATA / "wamit" / "spar.1"), part="diffraction")


def _sphere(nonlinear: bool, part: str = "diffraction") -> frylinks.System:
    """The IEA sphere held at its floating position in regular waves (height 0.2 m,
    period 8 s): linear hydrostatics and the whole excitation, or the nonlinear
    hydrostatics and Froude-Krylov force with the excitation's ``part``."""
    s = frylinks.System(gravity=[0, 0, -G])
    s.configure("environment", water_density=RHO,
                waves={"type": "regular", "height": 0.2, "period": 8.0, "ramp": 0.0})
    s.add_body("buoy", mass=2.618e5, inertia=[1.5e6, 1.5e6, 2.6e6], position=[0, 0, -2.0],
               geometry={"shape": "sphere", "radius": R, "position": [0, 0, 2.0]})
    s.ground.add_node("hold", position=[0, 0, -2.0])
    s.add_link("hold", "fixed", master="ground.hold", slave="buoy")
    if nonlinear:
        s.add_force("hydro", "nonlinear_hydrostatics", body="buoy", froude_krylov=True,
                    mesh_resolution=32)
    else:
        s.add_force("hydro", "linear_hydrostatics", body="buoy", hydrodynamics=EXAMPLE_DATA)
    s.add_force("excitation", "wave_excitation", body="buoy", hydrodynamics=EXAMPLE_DATA,
                part=part if nonlinear else "total")
    return s


def test_froude_krylov_on_the_mesh_and_the_diffraction_part_give_the_linear_wave_force(
        record_property: object) -> None:
    """On the sphere held in small waves (one period), the nonlinear hydrostatics' and
    Froude-Krylov force (less its mean, the still water's buoyancy) plus the excitation's
    diffraction part equal the linear model's wave force (the whole excitation; its
    hydrostatics give the weight, constant) to the mesh's discretisation; counted twice,
    the Froude-Krylov force would add its 61 kN again to the 51 kN."""
    run = {"t_end": 8.0, "dt": 0.1}
    linear = _sphere(False).run(**run)
    nonlinear = _sphere(True).run(**run)
    f_lin = linear.force_force.sel(force=["hydro", "excitation"]).sum("force").values[:, 2]
    f_nl = nonlinear.force_force.sel(force=["hydro", "excitation"]).sum("force").values[:, 2]
    # less the still water's buoyancy (the mean over the period: the mesh's volume is
    # 1.6 % short of the sphere's, 41 kN, near the wave force itself)
    f_nl = f_nl - f_nl[:-1].mean()
    f_lin = f_lin - 2.618e5 * G  # (its hydrostatics: the weight, constant)
    amplitude = np.abs(f_lin).max()
    error = float(np.abs(f_nl - f_lin).max() / amplitude)
    record_property("nonlinear_vs_linear_wave_force", error)
    assert amplitude > 0.05 * hemisphere_froude_krylov(2 * math.pi / 8.0)
    assert error < 0.03, error  # (measured 1.1 %; counted twice: 120 %)


@pytest.mark.parametrize("first", ["nonlinear", "excitation"])
def test_the_froude_krylov_force_counted_twice_is_an_error(first: str) -> None:
    s = frylinks.System(gravity=[0, 0, -G])
    s.add_body("buoy", mass=2.618e5, inertia=[1.5e6, 1.5e6, 2.6e6],
               geometry={"shape": "sphere", "radius": R})
    add = {"nonlinear": lambda: s.add_force("hydro", "nonlinear_hydrostatics", body="buoy",
                                            froude_krylov=True),
           "excitation": lambda: s.add_force("excitation", "wave_excitation", body="buoy",
                                             hydrodynamics=EXAMPLE_DATA)}
    add[first]()
    with pytest.raises(ModelError, match=r"both supply its Froude-Krylov force, which "
                                         r"would count twice.*part: diffraction"):
        add["excitation" if first == "nonlinear" else "nonlinear"]()


def test_hydrostatics_alone_keep_the_whole_excitation() -> None:
    """Without froude_krylov the mesh supplies no Froude-Krylov force: the whole
    excitation beside it is the model of WEC-Sim's nonlinearHydro = 1."""
    s = frylinks.System(gravity=[0, 0, -G])
    s.add_body("buoy", mass=2.618e5, inertia=[1.5e6, 1.5e6, 2.6e6],
               geometry={"shape": "sphere", "radius": R})
    s.add_force("hydro", "nonlinear_hydrostatics", body="buoy")
    s.add_force("excitation", "wave_excitation", body="buoy", hydrodynamics=EXAMPLE_DATA)
    assert set(s.forces) == {"hydro", "excitation"}
