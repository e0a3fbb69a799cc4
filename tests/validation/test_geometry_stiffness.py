"""``linear_hydrostatics`` with ``stiffness: geometry``: the stiffness from the body's
mesh at its initial pose, against the closed form for the IEA sphere (radius 5 m, half
submerged: K33 = rho g pi R^2, K44 = K55 = rho g V GM with its metacentre at its centre)
and against the dataset's; a mesh that disagrees with the dataset, or does not float the
body's mass, is said."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from frylinks_marine.bem import EXAMPLE_DATA

import frylinks
from frylinks.errors import ModelError

RHO, G, R = 1000.0, 9.81, 5.0
MASS = RHO * 2 / 3 * math.pi * R**3


def _buoy(radius: float = R, **params: object) -> frylinks.System:
    """The point absorber's sphere (COG 2 m below the centre), free, with a linear
    hydrostatics whose stiffness comes from its geometry."""
    s = frylinks.System(gravity=[0, 0, -G])
    s.configure("environment", water_density=RHO)
    s.add_body("buoy", mass=MASS, inertia=[1.5e6, 1.5e6, 2.6e6], position=[0, 0, -2.0],
               geometry={"shape": "sphere", "radius": radius, "position": [0, 0, 2.0]})
    s.add_force("hydro", "linear_hydrostatics", body="buoy", stiffness="geometry",
                mesh_resolution=64, **params)
    return s


def _stiffness(system: frylinks.System) -> np.ndarray:
    from frylinks.engine import assemble

    model = assemble(system)
    (block,) = [b for b in model.force_blocks if b.kind.name == "linear_hydrostatics"]
    return np.asarray(block.kind.stiffness[0])


def test_the_sphere_stiffness_from_its_mesh_is_the_closed_form() -> None:
    """K33 = rho g pi R^2; about the COG (2 m below the centre, the centre of buoyancy
    3 R / 8 below it), K44 = K55 = rho g (I_wp + V (z_B - z_G)) - m g 0 with I_wp =
    pi R^4 / 4: the sphere's metacentre is its centre, GM = 2 m."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the mesh floats the mass: no warning
        k = _stiffness(_buoy())
    V = MASS / RHO
    k33 = RHO * G * math.pi * R**2
    k44 = RHO * G * (math.pi * R**4 / 4 + V * (-3 * R / 8 + 2.0))
    # (= rho g V GM with GM = 2 m: BM = 3 R / 8... the metacentre at the centre)
    # (measured 0.16 % and 0.25 % off: the mesh's discretisation)
    np.testing.assert_allclose([k[2, 2], k[3, 3], k[4, 4]], [k33, k44, k44], rtol=5e-3)


def test_the_dataset_stiffness_is_checked_against_the_geometry() -> None:
    """Beside the dataset (Capytaine's, for the same sphere) no warning; a sphere of
    4.5 m against it is said, naming both values and the tolerance."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _stiffness(_buoy(hydrodynamics=EXAMPLE_DATA))
    with pytest.warns(UserWarning, match=r"heave stiffness from the geometry, .* differs "
                                          r"from the dataset's .* by more than 5%"):
        _stiffness(_buoy(4.5, hydrodynamics=EXAMPLE_DATA))


def test_a_mesh_that_does_not_float_the_mass_is_said() -> None:
    with pytest.warns(UserWarning, match=r"mesh displaces .* t at its initial pose, its "
                                         r"mass is 261\.799 t"):
        _stiffness(_buoy(4.0))


def test_geometry_needs_a_geometry() -> None:
    s = frylinks.System(gravity=[0, 0, -G])
    s.add_body("buoy", mass=MASS, inertia=[1.5e6, 1.5e6, 2.6e6])
    with pytest.raises(ModelError, match=r"bodies\.buoy\.geometry"):
        s.add_force("hydro", "linear_hydrostatics", body="buoy", stiffness="geometry")


def test_a_mesh_too_coarse_for_the_waves_is_said() -> None:
    """nonlinear_hydrostatics with the Froude-Krylov pressure on a 5 m sphere meshed
    with 12 points around (2.6 m panels) in 2 s waves (6.2 m long) is warned of; 96
    points around (0.33 m) are not."""
    from frylinks.engine import assemble

    def sphere(resolution: int) -> frylinks.System:
        s = frylinks.System(gravity=[0, 0, -G])
        s.configure("environment", water_density=RHO,
                    waves={"type": "regular", "height": 0.2, "period": 2.0})
        s.add_body("buoy", mass=MASS, inertia=[1.5e6, 1.5e6, 2.6e6],
                   geometry={"shape": "sphere", "radius": R})
        s.add_force("hydro", "nonlinear_hydrostatics", body="buoy", froude_krylov=True,
                    mesh_resolution=resolution)
        return s

    with pytest.warns(UserWarning, match=r"panels reach .* more than 1/8 of the sea's "
                                         r"shortest wave \(6\.2\d* m\)"):
        assemble(sphere(12))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assemble(sphere(96))
