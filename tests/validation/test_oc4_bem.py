"""Two BEM codes on one platform: Capytaine 3.0's added mass and radiation damping of
the OC4 DeepCwind semi-submersible (``plugins/frylinks_marine/data/oc4_semi_capytaine.nc``,
made by ``make_oc4_capytaine.py`` from the published geometry) against WAMIT's
(``wamit/marin_semi.1.gz``, OpenFAST's), each read through frylinks' own reader; and the
natural periods of the full OC4 system (platform, tower, rotor-nacelle assembly and the
three catenary lines) from those coefficients against OC4 Phase II's.

The two models differ on purpose: the Capytaine mesh has the columns only, WAMIT's also
the pontoons and braces (1.6 m diameter, ~360 m^3 of the 13917 m^3 under water). That,
not the panel resolution, sets the agreement measured here (numbers in each test): a
Capytaine mesh of 2.2 times the panels moved the added mass by 0.1 % in heave and pitch
and 1 % in surge (see ``make_oc4_capytaine.py``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from frylinks_marine.capytaine_reader import read_capytaine
from frylinks_marine.catenary import solve as solve_catenary
from frylinks_marine.hydrodb import HydroDatabase
from frylinks_marine.wamit_reader import read_wamit

DATA = Path(__file__).parents[2] / "plugins" / "frylinks_marine" / "data"
CAPYTAINE = DATA / "oc4_semi_capytaine.nc"
WAMIT = DATA / "wamit" / "marin_semi.1.gz"
RHO, G = 1025.0, 9.80665  # OpenFAST's, with which the WAMIT files are made dimensional

#: (row, column) of the compared entries, frylinks' DOF order (0 surge ... 5 yaw).
ENTRIES = {"surge": (0, 0), "heave": (2, 2), "pitch": (4, 4), "surge-pitch": (0, 4)}

# Full-system mass properties for the natural periods (the definition's periods are
# those of the whole wind turbine, not of the platform alone): the platform from
# Robertson et al. 2014 (NREL/TP-5000-60601), the NREL 5 MW tower as on OC3/OC4
# (base 10 m, top 87.6 m above the water line) and its rotor-nacelle assembly (Jonkman
# et al. 2009, NREL/TP-500-38060): (mass [kg], CM height z [m], own pitch inertia about
# the CM [kg m^2]).
COMPONENTS = {
    "platform": (1.3473e7, -13.46, 6.827e9),
    "tower": (249718.0, 43.4, 1.1824e8),
    "nacelle": (240000.0, 87.6 + 1.75, 0.0),
    "rotor": (110000.0, 90.0, 38776410.0 / 2.0),  # about a diameter: half the polar
}
#: WAMIT's .hst in rho g units, about (0, 0, 0) without gravity: heave rho g Awp and
#: pitch rho g (Iwp + V zB).
HST_HEAVE, HST_PITCH = 380.0615, -37875.27

# The three lines (OpenFAST's MoorDyn OC4 input; length from the definition report).
FAIRLEADS = np.array([[20.434, 35.393, -14.0], [-40.868, 0.0, -14.0], [20.434, -35.393, -14.0]])
ANCHORS = np.array([[418.8, 725.383, -200.0], [-837.6, 0.0, -200.0], [418.8, -725.383, -200.0]])
LENGTH, EA = 835.5, 7.536e8
WEIGHT = (113.35 - RHO * np.pi / 4 * 0.0766**2) * G  # N/m submerged

#: The definition's natural frequencies of the full system [Hz] (FAST; Robertson et al.
#: 2014, OC4 Phase II results, Fig. 3, as quoted on NREL's forum): surge, heave, pitch.
REPORT_PERIODS = {"surge": 1 / 0.0093, "heave": 1 / 0.0578, "pitch": 1 / 0.0373}
#: The definition's linearised mooring stiffness about the undisplaced platform (its
#: eq. 5-15): surge [N/m], heave [N/m], pitch [N m/rad].
REPORT_MOORING = {"surge": 7.08e4, "heave": 1.91e4, "pitch": 8.73e7}


@pytest.fixture(scope="module")
def capytaine() -> HydroDatabase:
    # about (0, 0, 0), where it was computed and where WAMIT's coefficients are
    return read_capytaine(CAPYTAINE, cog=(0.0, 0.0, 0.0))


@pytest.fixture(scope="module")
def wamit() -> HydroDatabase:
    return read_wamit(WAMIT, rho=RHO, g=G)


def relative_l2(values: np.ndarray, reference: np.ndarray) -> float:
    """``||values - reference|| / ||reference||`` over the frequencies."""
    return float(np.linalg.norm(values - reference) / np.linalg.norm(reference))


def on_grid(db: HydroDatabase, name: str, omega: np.ndarray, i: int, j: int) -> np.ndarray:
    return np.interp(omega, db.omega, getattr(db, name)[:, i, j])


def mooring_wrench(pose: np.ndarray) -> np.ndarray:
    """Force and moment about (0, 0, 0) of the three lines on the platform displaced by
    ``pose`` (surge, sway, heave [m], roll, pitch, yaw [rad], small rotations)."""
    rotation = pose[3:]
    fairleads = FAIRLEADS + pose[:3] + np.cross(rotation, FAIRLEADS)
    reach = ANCHORS[:, :2] - fairleads[:, :2]
    distance = np.linalg.norm(reach, axis=1)
    lines = solve_catenary(distance, fairleads[:, 2] - ANCHORS[:, 2], np.full(3, LENGTH),
                           np.full(3, WEIGHT), EA)
    pull = np.column_stack([lines.horizontal[:, None] * reach / distance[:, None],
                            -lines.vertical])
    arm = fairleads - pose[:3]  # from the displaced reference point
    return np.concatenate([pull.sum(axis=0), np.cross(arm, pull).sum(axis=0)])


def mooring_stiffness() -> np.ndarray:
    """``-dF/dx`` (6, 6) of the lines about the undisplaced platform, by central
    differences (steps 1 cm, 1e-4 rad)."""
    steps = np.array([0.01, 0.01, 0.01, 1e-4, 1e-4, 1e-4])
    k = np.zeros((6, 6))
    for j, h in enumerate(steps):
        dx = np.zeros(6)
        dx[j] = h
        k[:, j] = -(mooring_wrench(dx) - mooring_wrench(-dx)) / (2 * h)
    return k


def full_system() -> tuple[np.ndarray, np.ndarray]:
    """Mass (6, 6) about (0, 0, 0) of the whole turbine, and its stiffness: WAMIT's
    hydrostatics, the weight's pitch and roll moment ``-g sum m z`` and the lines'."""
    m = sum(c[0] for c in COMPONENTS.values())
    mz = sum(c[0] * c[1] for c in COMPONENTS.values())
    inertia = sum(c[2] + c[0] * c[1] ** 2 for c in COMPONENTS.values())
    mass = np.diag([m, m, m, inertia, inertia, 0.0])
    mass[0, 4] = mass[4, 0] = mz   # a surge acceleration with the CM below the origin
    mass[1, 3] = mass[3, 1] = -mz
    stiffness = np.zeros((6, 6))
    stiffness[2, 2] = RHO * G * HST_HEAVE
    stiffness[3, 3] = stiffness[4, 4] = RHO * G * HST_PITCH - G * mz
    return mass, stiffness + mooring_stiffness()


def natural_periods(db: HydroDatabase, mass: np.ndarray, stiffness: np.ndarray
                    ) -> dict[str, float]:
    """Natural periods [s] of surge, heave and pitch (the coupled surge-heave-pitch
    system about (0, 0, 0)), each with the added mass at its own frequency (fixed
    point)."""
    dofs = [0, 2, 4]
    out = {}
    for name, dof in (("surge", 0), ("heave", 2), ("pitch", 4)):
        omega = 0.3
        for _ in range(50):
            added = np.array([[np.interp(omega, db.omega, db.added_mass[:, i, j])
                               for j in dofs] for i in dofs])
            m = mass[np.ix_(dofs, dofs)] + added
            eig, vec = np.linalg.eig(np.linalg.solve(m, stiffness[np.ix_(dofs, dofs)]))
            # the mode this DOF dominates (its share of the mode shape, by energy)
            share = np.abs(vec) ** 2 * np.diag(m)[:, None]
            pick = int(np.argmax(share[dofs.index(dof)] / share.sum(axis=0)))
            new = float(np.sqrt(eig[pick].real))
            if abs(new - omega) < 1e-9:
                break
            omega = new
        out[name] = float(2 * np.pi / omega)
    return out


def comparison(capytaine: HydroDatabase, wamit: HydroDatabase, name: str
               ) -> dict[str, float]:
    """Relative L2 difference of Capytaine's ``name`` (added_mass, radiation_damping)
    from WAMIT's (interpolated on Capytaine's frequencies: WAMIT's step is 0.01 rad/s),
    per compared entry, over Capytaine's frequencies up to 3 rad/s."""
    omega = capytaine.omega[capytaine.omega <= 3.0 + 1e-9]
    out = {}
    for label, (i, j) in ENTRIES.items():
        ours = getattr(capytaine, name)[: omega.size, i, j]
        out[label] = relative_l2(ours, on_grid(wamit, name, omega, i, j))
    return out


def test_added_mass_agrees_with_wamit(capytaine: HydroDatabase, wamit: HydroDatabase,
                                      record_property) -> None:
    """Added mass, relative L2 difference over Capytaine's frequencies up to 3 rad/s.

    Measured: surge 1.6 %, heave 5.4 %, pitch 2.5 %, surge-pitch 1.6 %. Heave and
    pitch are the pontoons and braces WAMIT has (the Capytaine mesh is converged to
    0.1 % there); surge and the coupling are within the mesh's 1 %.
    """
    measured = comparison(capytaine, wamit, "added_mass")
    record_property("relative_l2", measured)
    limits = {"surge": 0.025, "heave": 0.065, "pitch": 0.035, "surge-pitch": 0.025}
    for label, limit in limits.items():
        assert measured[label] < limit, (label, measured[label])


def test_damping_agrees_with_wamit(capytaine: HydroDatabase, wamit: HydroDatabase,
                                   record_property) -> None:
    """Radiation damping, relative L2 difference over Capytaine's frequencies up to
    3 rad/s.

    Measured: surge 6.2 %, heave 12.9 %, pitch 6.9 %, surge-pitch 5.7 %. The heave
    damping is small and shaped by the waves between the columns and over the pontoons
    (its notch near 0.45 rad/s: Capytaine 0.01, WAMIT 7 rho omega m^2): the largest
    relative difference.
    """
    measured = comparison(capytaine, wamit, "radiation_damping")
    record_property("relative_l2", measured)
    limits = {"surge": 0.075, "heave": 0.15, "pitch": 0.085, "surge-pitch": 0.07}
    for label, limit in limits.items():
        assert measured[label] < limit, (label, measured[label])


def test_infinite_frequency_added_mass_agrees_with_wamit(capytaine: HydroDatabase,
                                                         wamit: HydroDatabase,
                                                         record_property) -> None:
    """Both codes solve omega = inf directly. Measured (Capytaine / WAMIT - 1): surge
    +0.002 %, heave -5.4 %, pitch -2.6 %, surge-pitch -0.7 %. The surge match is partly
    luck: the finer mesh gives -1.35 %, hence its 2 % limit."""
    assert capytaine.added_mass_inf_source == "dataset"
    assert wamit.added_mass_inf_source == "dataset"
    measured = {label: float(capytaine.added_mass_inf[i, j] / wamit.added_mass_inf[i, j]) - 1
                for label, (i, j) in ENTRIES.items()}
    record_property("relative_difference", measured)
    limits = {"surge": 0.02, "heave": 0.065, "pitch": 0.035, "surge-pitch": 0.015}
    for label, limit in limits.items():
        assert abs(measured[label]) < limit, (label, measured[label])


def test_mooring_stiffness_is_the_definitions(record_property) -> None:
    """The lines (835.5 m, 1065.3 N/m submerged, EA 753.6 MN) through frylinks' catenary
    solver, linearised about the undisplaced platform, against the definition's
    stiffness (its eq. 5-15). Measured: surge -0.96 %, heave -0.10 %, pitch
    -0.68 % (relative); the lines' total vertical pull, 1.887 MN, is the
    buoyancy left over by the whole turbine's weight, rho g V - m g = 1.885 MN."""
    k = mooring_stiffness()
    measured = {name: float(k[i, i] / REPORT_MOORING[name]) - 1
                for name, i in (("surge", 0), ("heave", 2), ("pitch", 4))}
    record_property("relative_difference", measured)
    for name, value in measured.items():
        assert abs(value) < 0.02, (name, value)
    pull = -mooring_wrench(np.zeros(6))[2]
    mass = sum(c[0] for c in COMPONENTS.values())
    np.testing.assert_allclose(pull, (RHO * 13917.0 - mass) * G, rtol=0.02)


def test_natural_periods_agree_with_oc4_phase_ii(capytaine: HydroDatabase,
                                                 wamit: HydroDatabase,
                                                 record_property) -> None:
    """Surge, heave and pitch natural periods of the full system (the coupled
    surge-heave-pitch eigenproblem about (0, 0, 0), the added mass at each mode's own
    frequency) against OC4 Phase II's FAST values (:data:`REPORT_PERIODS`: surge
    107.5 s, heave 17.3 s, pitch 26.8 s).

    Measured with Capytaine's added mass: surge 113.7 s (+5.7 %), heave 17.02 s
    (-1.6 %), pitch 25.30 s (-5.6 %); with WAMIT's: 113.7, 17.28, 25.44 s. Heave agrees.
    Surge with the infinite-frequency added mass instead is 107.9 s (+0.4 %): FAST's
    value looks like that of a model that does not see the low-frequency added mass
    (the surge added mass is 8.8e6 kg at the surge frequency, 6.5e6 kg at infinite
    frequency; OpenFAST's OC4 HydroDyn input cuts the radiation kernel at 60 s), a
    guess not checked here. Pitch is ~5 % short with either code's added mass: not
    explained here (the tower and rotor-nacelle properties are the NREL 5 MW
    definition's, the lines' pitch stiffness the definition's within 0.7 %).
    """
    mass, stiffness = full_system()
    ours = natural_periods(capytaine, mass, stiffness)
    theirs = natural_periods(wamit, mass, stiffness)
    record_property("capytaine", ours)
    record_property("wamit", theirs)
    limits = {"surge": 0.07, "heave": 0.025, "pitch": 0.07}
    for name, limit in limits.items():
        for periods in (ours, theirs):
            error = periods[name] / REPORT_PERIODS[name] - 1
            assert abs(error) < limit, (name, periods[name], REPORT_PERIODS[name])
    a_inf = replace(capytaine, added_mass=np.repeat(capytaine.added_mass_inf[None],
                                                    capytaine.omega.size, axis=0))
    surge = natural_periods(a_inf, mass, stiffness)["surge"]
    assert abs(surge / REPORT_PERIODS["surge"] - 1) < 0.01, surge
