"""Validation of the ``moordyn`` force type (MoorDyn's dynamic lines, frylinks_marine).

Two small models serve every test (on the interpreted tier of tests/conftest.py: MoorDyn's
C calls go through ctypes there): a body on linear hydrostatics held by two fully
suspended lines (10 segments each), free or held by a ``fixed`` link. They give the
quasi-static limit against frylinks' catenary (independent of MoorDyn), the coupling's
order of accuracy (halving dt) with rk4 and with generalized-alpha, a resume equal bit
for bit, MoorDyn's errors as frylinks errors, and, through a MoorDyn input file on the
held body, the line's own dynamics: a taut string plucked at its middle against the
lumped-mass chain's exact frequency, and the energy of an undamped line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import frylinks
from frylinks.errors import FrylinksError, ModelError

pytest.importorskip("moordyn")

from frylinks_marine.catenary import solve

DIAMETER, MASS, EA = 0.05, 50.0, 2.0e8
RHO, G = 1025.0, 9.81
#: submerged weight per length [N m-1]
WEIGHT = (MASS - RHO * np.pi * DIAMETER**2 / 4) * G
ANCHORS = ([60.0, 0.0, -50.0], [-60.0, 0.0, -50.0])
FAIRLEADS = ([1.0, 0.0, 0.0], [-1.0, 0.0, 0.0])
LENGTH = 80.0  # anchors on the seabed; each line suspended from its anchor (V > 0)


def buoy(position: tuple[float, float, float] = (0.0, 0.0, 0.0), *, coupling: str =
         "extrapolate", time_step: float = 1.25e-3,
         velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> frylinks.System:
    """A 20 t body on heave hydrostatics held by two suspended lines in 50 m water."""
    s = frylinks.System(gravity=[0, 0, -G], name="moordyn-validation")
    s.configure("environment", depth=50.0, water_density=RHO)
    s.add_body("buoy", mass=2.0e4, inertia=[1.0e5, 1.0e5, 1.0e5], position=list(position),
               velocity=list(velocity))
    # buoyancy balances the weight at z = 0, restoring in heave, roll and pitch
    s.add_force("hydrostatics", "linear_hydrostatics", body="buoy",
                stiffness={"heave": 2.0e5, "roll": 1.0e6, "pitch": 1.0e6, "yaw": 1.0e5})
    s.add_force("lines", "moordyn", body="buoy", coupling=coupling, time_step=time_step,
                line_types={"wire": {"diameter": DIAMETER, "mass": MASS,
                                     "axial_stiffness": EA}},
                lines=[{"line_type": "wire", "anchor": a, "fairlead": f, "length": LENGTH,
                        "segments": 10} for a, f in zip(ANCHORS, FAIRLEADS, strict=True)])
    return s


def catenary_tensions(x: np.ndarray) -> np.ndarray:
    """frylinks' elastic catenary tension at each fairlead for the COG at ``x``."""
    out = []
    for a, f in zip(ANCHORS, FAIRLEADS, strict=True):
        d = x + np.asarray(f) - np.asarray(a)
        sol = solve(np.array([np.hypot(d[0], d[1])]), np.array([d[2]]), np.array([LENGTH]),
                    np.array([WEIGHT]), EA)
        out.append(float(sol.tension[0]))
    return np.array(out)


@pytest.mark.parametrize("surge", [0.0, 2.0])
def test_static_fairlead_tension_equals_the_catenary(surge: float) -> None:
    """The quasi-static limit: at rest, MoorDyn's fairlead tension (after its static
    solve) equals frylinks' elastic catenary for the same line within 1 %, the body held
    off centre (surge 2 m) or not."""
    s = buoy((surge, 0.0, 0.0))
    s.ground.add_node("here", position=[surge, 0.0, 0.0])
    s.add_link("hold", "fixed", master="ground.here", slave="buoy")
    ds = s.run(t_end=0.5, dt=0.05, every=10)
    got = ds.moordyn_fairlead_tension.sel(moordyn_element="lines").values
    exact = catenary_tensions(np.array([surge, 0.0, 0.0]))
    np.testing.assert_allclose(got[0], exact, rtol=1e-2)
    np.testing.assert_allclose(got[-1], exact, rtol=1e-2)


def test_a_resumed_run_equals_the_uninterrupted_one_bit_for_bit(tmp_path: Path) -> None:
    """A run ended at 0.6 s and extended to 1.2 s (a new model: MoorDyn's state comes
    back from the checkpoint, deserialised) equals the run to 1.2 s bit for bit."""
    kw: dict[str, Any] = {"dt": 0.02, "every": 5}
    whole = buoy(velocity=(0.5, 0.0, 0.2)).run(t_end=1.2, **kw)
    path = tmp_path / "part.nc"
    buoy(velocity=(0.5, 0.0, 0.2)).run(t_end=0.6, output=path, **kw)
    resumed = buoy(velocity=(0.5, 0.0, 0.2)).run(t_end=1.2, output=path, resume=True, **kw)
    for name in ("body_position", "body_velocity", "force_force",
                 "moordyn_fairlead_tension", "moordyn_node_position"):
        np.testing.assert_array_equal(resumed[name].values, whole[name].values, err_msg=name)


def final_position(dt: float, coupling: str, t_end: float = 2.0, integrator: str = "rk4",
                   time_step: float = 3.125e-4) -> np.ndarray:
    """Surge and heave at ``t_end`` of the body released with a velocity (MoorDyn's dtM
    ``time_step``, 0.3125 ms by default, dividing each dt); the run must complete."""
    ds = buoy(coupling=coupling, velocity=(0.5, 0.0, 0.2), time_step=time_step).run(
        t_end=t_end, dt=dt, every=round(t_end / dt), integrator=integrator)
    assert ds.attrs["status"] == "completed", ds.attrs["status"]
    x = ds.body_position.sel(body="buoy").values[-1, [0, 2]]
    assert np.all(np.isfinite(x))
    return x


@pytest.mark.slow
@pytest.mark.parametrize("integrator", ["rk4", "generalized_alpha"])
def test_coupling_order_of_accuracy(integrator: str) -> None:
    """Halving dt halves the error against a run at dt = 0.3125 ms with the same
    integrator: the coupling is first order with either scheme and either integrator on
    these taut lines, the extrapolation more accurate (docs/marine.md says why not second
    order). Measured orders, rk4: 1.02, 1.03, 1.03 (hold), 1.02, 1.02, 1.00 (extrapolate),
    errors 8.7 and 7.4 mm at dt = 10 ms; generalized-alpha: 1.04, 1.04, 1.05 (hold), 1.02,
    1.02, 1.00 (extrapolate), errors 10.0 and 7.5 mm at 10 ms. Its references agree with
    rk4's to 0.04 mm (hold) and 0.15 um (extrapolate)."""
    dts = (0.01, 0.005, 0.0025, 0.00125)
    err = {}
    for coupling in ("hold", "extrapolate"):
        ref = final_position(0.0003125, coupling, integrator=integrator)
        err[coupling] = np.array([
            np.abs(final_position(dt, coupling, integrator=integrator) - ref).max()
            for dt in dts])
        rates = np.log2(err[coupling][:-1] / err[coupling][1:])
        assert np.all(np.abs(rates - 1.0) < 0.2), (coupling, err[coupling], rates)
    assert np.all(err["extrapolate"] < err["hold"])


def test_generalized_alpha_agrees_with_rk4() -> None:
    """The moored body runs with generalized-alpha (the force is explicit within a step:
    MoorDyn is advanced at accepted states only, never at a Newton iterate) and agrees with
    rk4 at the same dt far inside the coupling's first-order error: 2 s at dt = 10, 5 and
    2.5 ms (dtM 1.25 ms), extrapolated coupling. The successive differences of the
    generalized-alpha runs halve (first order: measured ratio 2.19, differences 3.4 and
    1.6 mm); at 10 ms it differs from rk4 by 0.21 mm, where halving dt moves it by 3.4 mm
    (the slow test measures the errors against a fine run)."""
    dts = (0.01, 0.005, 0.0025)
    ga = [final_position(dt, "extrapolate", integrator="generalized_alpha",
                         time_step=1.25e-3) for dt in dts]
    rk4 = final_position(dts[0], "extrapolate", time_step=1.25e-3)
    steps = [np.abs(ga[k] - ga[k + 1]).max() for k in range(2)]
    assert 1.6 < steps[0] / steps[1] < 2.4, steps
    assert np.abs(ga[0] - rk4).max() < 0.1 * steps[0], (ga[0], rk4, steps)


def test_a_bad_moordyn_file_is_a_clear_error(tmp_path: Path) -> None:
    """A MoorDyn file that cannot be read, or without coupled point, is a ModelError
    naming the file and what is wrong; a missing key set is named too."""
    bad = tmp_path / "lines.dat"
    bad.write_text("--- LINES ---\nID LineType A B L N\n(#) (-) (#) (#) (m) (-)\n"
                   "1 nope 1 2 abc 10\n")
    s = frylinks.System()
    s.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0])
    with pytest.raises(ModelError, match=r"lines\.dat.*length: expected a number"):
        s.add_force("m", "moordyn", body="b", file=str(bad))
        s.run(t_end=0.1, dt=0.05)
    with pytest.raises(FrylinksError, match="give either file"):
        s.add_force("m2", "moordyn", body="b")


# --- the line's own dynamics: a taut string between two fixed points --------------------
# One line of 20 segments from a fixed point to the coupled point of the held body (its
# fairlead held still by the ``fixed`` link, the static test's model kind), as two lines of
# 10 joined at a free point of no mass of its own: the free point starts displaced, so the
# string starts plucked at its middle, at rest (TmaxIC 0: MoorDyn's initial-condition solve
# skipped; its nodes start straight between the points). No drag, added mass or bending;
# the axial damping is 0, so MoorDyn's RK4 scheme (its default RK2 makes undamped axial
# modes grow: measured, a neutral string's energy went from 0.47 J to 171 kJ in 6 s).

STRING_D, STRING_EA, STRING_L0, STRING_SPAN, STRING_N, STRING_Z = 0.05, 1.0e5, 20.0, 21.0, 20, -20.0
#: mass per length of a neutrally buoyant string [kg m-1] (no weight in the water)
NEUTRAL = RHO * math.pi * STRING_D**2 / 4
#: the held body's fairlead in body axes (the body's COG at the origin) [m]
STRING_FAIRLEAD = (1.0, 0.0, STRING_Z)


def string_file(path: Path, mass: float, pluck: float) -> Path:
    """A MoorDyn input file of the taut string (mass per length ``mass`` [kg m-1]) plucked
    by ``pluck`` [m] along y at its middle."""
    x_a = STRING_FAIRLEAD[0] - STRING_SPAN
    mid = STRING_FAIRLEAD[0] - STRING_SPAN / 2
    path.write_text(f"""--- MoorDyn input file: a taut string plucked at its middle ---
---------------------- LINE TYPES -----------------------------------
TypeName Diam Mass/m EA BA/-zeta EI Cd Ca CdAx CaAx
(name) (m) (kg/m) (N) (N-s) (N-m^2) (-) (-) (-) (-)
string {STRING_D!r} {mass!r} {STRING_EA!r} 0 0 0 0 0 0
---------------------- POINTS ---------------------------------------
ID Attachment X Y Z Mass Volume CdA Ca
(#) (-) (m) (m) (m) (kg) (m^3) (m^2) (-)
1 Fixed {x_a!r} 0 {STRING_Z!r} 0 0 0 0
2 Free {mid!r} {pluck!r} {STRING_Z!r} 0 0 0 0
3 Coupled {STRING_FAIRLEAD[0]!r} 0 {STRING_Z!r} 0 0 0 0
---------------------- LINES ----------------------------------------
ID LineType AttachA AttachB UnstrLen NumSegs Outputs
(#) (name) (#) (#) (m) (-) (-)
1 string 1 2 {STRING_L0 / 2!r} {STRING_N // 2} -
2 string 2 3 {STRING_L0 / 2!r} {STRING_N // 2} -
---------------------- OPTIONS --------------------------------------
1.0e-3 dtM
RK4 tScheme
50 WtrDpth
{RHO!r} rho
{G!r} g
0 TmaxIC
---------------------- OUTPUTS --------------------------------------
END
------------------------- need this line ---------------------------
""")
    return path


def string_nodes(path: Path, t_end: float, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Times and the string's node positions ``(time, node, xyz)`` (end A first) of a run
    of the held body with the string of ``path``, a sample every step."""
    s = frylinks.System(gravity=[0, 0, -G], name="moordyn-validation")
    s.configure("environment", depth=50.0, water_density=RHO)
    s.add_body("buoy", mass=2.0e4, inertia=[1.0e5, 1.0e5, 1.0e5], position=[0.0, 0.0, 0.0])
    s.add_force("hydrostatics", "linear_hydrostatics", body="buoy",
                stiffness={"heave": 2.0e5, "roll": 1.0e6, "pitch": 1.0e6, "yaw": 1.0e5})
    s.add_force("lines", "moordyn", body="buoy", file=str(path),
                fairleads=[list(STRING_FAIRLEAD)])
    s.ground.add_node("here", position=[0.0, 0.0, 0.0])
    s.add_link("hold", "fixed", master="ground.here", slave="buoy")
    ds = s.run(t_end=t_end, dt=dt, every=1)
    assert ds.attrs["status"] == "completed", ds.attrs["status"]
    nodes = ds.moordyn_node_position.sel(moordyn_element="lines").values
    # line 1's nodes, then line 2's but its first (the free point, line 1's last)
    return ds.time.values, np.concatenate([nodes[:, 0], nodes[:, 1, 1:]], axis=1)


def test_a_plucked_string_has_the_lumped_mass_chain_frequency(tmp_path: Path) -> None:
    """A taut string (T = EA (21 - 20) / 20 = 5 kN, 20 segments, neutrally buoyant) plucked
    by 2 cm at its middle: its first modal coordinate, the projection of the nodes'
    transverse displacements on sin(pi j / N), oscillates at the lumped-mass chain's exact
    frequency (2 / dx) sqrt(T / mu) sin(pi / 2N) / (2 pi), dx the stretched segment and mu
    the mass per stretched length, within 1e-4 (measured 1.3e-5 at 2 cm, 8.0e-5 at 5 cm:
    the geometric stretch of the amplitude), and so 0.10 % below the continuous string's
    sqrt(T / mu) / (2 L) (the chain's sin(x) / x: 1.028e-3; measured 1.015e-3)."""
    t, nodes = string_nodes(string_file(tmp_path / "string.dat", NEUTRAL, 0.02), 6.0, 0.005)
    j = np.arange(1, STRING_N)
    q1 = nodes[:, 1:STRING_N, 1] @ np.sin(np.pi * j / STRING_N)
    k = np.flatnonzero(np.sign(q1[:-1]) * np.sign(q1[1:]) < 0)
    crossings = t[k] - q1[k] * (t[k + 1] - t[k]) / (q1[k + 1] - q1[k])
    assert len(crossings) > 10
    measured = (len(crossings) - 1) / (2 * (crossings[-1] - crossings[0]))
    tension = STRING_EA * (STRING_SPAN - STRING_L0) / STRING_L0
    mu = NEUTRAL * STRING_L0 / STRING_SPAN
    dx = STRING_SPAN / STRING_N
    chain = 2 / dx * math.sqrt(tension / mu) * math.sin(math.pi / (2 * STRING_N)) / (2 * math.pi)
    continuous = math.sqrt(tension / mu) / (2 * STRING_SPAN)
    assert abs(measured / chain - 1) < 1e-4, (measured, chain)
    assert abs((measured / continuous - 1) - (chain / continuous - 1)) < 1e-4
    # the tension is the one the frequencies were computed with: every segment keeps its
    # stretched length dx (measured within 2.4e-6 of it through the oscillation)
    segments = np.linalg.norm(np.diff(nodes, axis=1), axis=2)
    assert np.abs(segments / dx - 1).max() < 2e-5


def test_the_energy_of_an_undamped_line_is_conserved(tmp_path: Path) -> None:
    """A heavy string (3 times neutral: 39.5 N m-1 in the water) released straight and
    plucked by 5 cm sags and swings: kinetic (node masses mu l0, velocities from 4th-order
    differences of the positions every 2 ms), elastic (EA / l0 (l - l0)^2 / 2 per taut
    segment) and potential (the nodes' submerged weight) energies exchange 330 J, their
    sum stays within 1e-6 of that over 4 s (measured 8e-8 over 6 s: MoorDyn's RK4 at
    dtM = 1 ms, the axial damping 0, loses nothing measurable)."""
    mass = 3 * NEUTRAL
    t, p = string_nodes(string_file(tmp_path / "string.dat", mass, 0.05), 4.0, 0.002)
    h = t[1] - t[0]
    v = (-p[4:] + 8 * p[3:-1] - 8 * p[1:-3] + p[:-4]) / (12 * h)
    p = p[2:-2]
    l0 = STRING_L0 / STRING_N
    inner = slice(1, STRING_N)  # the end nodes are held
    kinetic = 0.5 * mass * l0 * (v[:, inner] ** 2).sum(axis=(1, 2))
    stretch = np.maximum(np.linalg.norm(np.diff(p, axis=1), axis=2) - l0, 0.0)
    elastic = 0.5 * STRING_EA / l0 * (stretch**2).sum(axis=1)
    potential = (mass - NEUTRAL) * G * l0 * p[:, inner, 2].sum(axis=1)
    swing = np.ptp(potential)
    assert swing > 100.0 and kinetic.max() > 0.1 * swing  # the energies do exchange
    total = kinetic + elastic + potential
    assert np.ptp(total) < 1e-6 * swing, (np.ptp(total), swing)


def test_a_line_gone_unstable_is_a_clear_error_and_the_run_keeps_its_steps(
        tmp_path: Path) -> None:
    """MoorDyn's dtM 20 ms, 14 times the stable step of these stiff segments (8 m of
    EA 2e8 N, 50 kg m-1: 2 / omega = 1.4 ms): the lines explode; the run ends as diverged
    at the first fairlead force beyond the lines' EA (a strain of 1), naming the element,
    where its lines come from, the line and what to change, before the body feels the
    force (the body moved 2 m, not 1e6 m as when the force reached it), and the file keeps
    every step written before."""
    out = tmp_path / "unstable.nc"
    ds = buoy(velocity=(0.5, 0.0, 0.2), time_step=0.02).run(t_end=2.0, dt=0.02, every=1,
                                                            output=out)
    status = ds.attrs["status"]
    assert status.startswith("diverged at t=")
    for words in ("force type 'moordyn' element #0", "lines from the case file",
                  "line 1 went unstable", "time_step"):
        assert words in status, status
    import xarray as xr

    with xr.open_dataset(out) as saved:
        assert saved.attrs["status"] == status
        assert 2 <= saved.sizes["time"] < 100
        np.testing.assert_array_equal(saved.body_position.values, ds.body_position.values)
        assert np.all(np.isfinite(saved.body_position.values))
        assert np.abs(saved.body_position.values).max() < 10.0


# --- the moored buoy in current: dynamic and quasi-static lines -------------------------
CASES = Path(__file__).resolve().parents[2] / "cases"


def buoy_in_current(tmp_path: Path, name: str, segments: int | None = None) -> Path:
    """``cases/<name>`` in current only (the waves' height 0) with 1e5 N s m-1 of linear
    surge and sway damping (no force at rest: the mean offset is the current's, reached
    without the buoy's 50 s slow drift oscillation); with ``segments``, each MoorDyn line
    cut into that many (dtM scaled to keep its stability: 1 ms at 20)."""
    import yaml

    case = yaml.safe_load((CASES / name).read_text())
    case["environment"]["waves"]["height"] = 0.0
    case["forces"]["roll_pitch_yaw"]["damping"].update({"surge": 1.0e5, "sway": 1.0e5})
    for force in case["forces"].values():
        if "hydrodynamics" in force:
            force["hydrodynamics"] = str((CASES / force["hydrodynamics"]).resolve())
    if segments is not None:
        for line in case["forces"]["lines"]["lines"]:
            line["segments"] = segments
        case["forces"]["lines"]["time_step"] = 1.0e-3 * 20 / segments
    path = tmp_path / name
    path.write_text(yaml.safe_dump(case))
    return path


def mean_offset(path: Path, t_end: float, window: float) -> np.ndarray:
    """Mean surge and sway of the buoy over the last ``window`` seconds of a run."""
    ds = frylinks.run(path, t_end=t_end)
    assert ds.attrs["status"] == "completed", ds.attrs["status"]
    t = ds.time.values
    x = ds.body_position.sel(body="buoy").values[:, :2]
    return x[t >= t_end - window].mean(axis=0)


def test_the_moored_buoy_holds_the_quasi_static_offset_in_current(tmp_path: Path) -> None:
    """From the quasi-static equilibrium in the 0.8 m/s current (surge 1.963 m, sway
    0.609 m), the buoy on 40-segment MoorDyn lines stays there: its mean position over
    20-30 s is within 3 cm (measured 1.1 cm, still creeping towards its own equilibrium 2 cm
    off; the slow test runs to it). The lines feel no current, the buoy does."""
    qs = np.array([1.9626, 0.6090])  # the quasi-static case's equilibrium (slow test: 1e-4)
    dynamic = mean_offset(buoy_in_current(tmp_path, "moored_buoy_dynamic.yaml", 40), 30.0,
                          10.0)
    assert np.hypot(*(dynamic - qs)) < 0.03, dynamic


@pytest.mark.slow
def test_dynamic_and_quasi_static_lines_give_the_same_mean_offset_in_current(
        tmp_path: Path) -> None:
    """80 s in current, means over the last 20 s: the quasi-static catenaries hold the
    buoy at (1.9626, 0.6090) m; MoorDyn's lines of 40 and 80 segments at (1.952, 0.595)
    and (1.976, 0.615): within 2 cm (1 % of the 2.05 m offset). The shipped case's 20
    segments put it at (2.14, 0.665), 0.19 m (9 %) further: its touchdown falls between
    nodes (its static tensions are 2.7 % off the catenary's, 0.007 % at 40 segments), and
    the offset is the small difference of the lines' large horizontal pulls."""
    qs = mean_offset(buoy_in_current(tmp_path, "moored_buoy.yaml"), 80.0, 20.0)
    np.testing.assert_allclose(qs, [1.9626, 0.6090], atol=1e-4)
    for segments in (40, 80):
        dynamic = mean_offset(buoy_in_current(tmp_path, "moored_buoy_dynamic.yaml",
                                              segments), 80.0, 20.0)
        assert np.hypot(*(dynamic - qs)) < 0.03, (segments, dynamic, qs)


# --- a MoorDyn input file's options: the time step, side files ---------------------------

def _file_model(path: Path, time_step: float | None = None) -> Any:
    """The moordyn force type of the held buoy with the lines of ``path``, assembled."""
    from frylinks.engine import assemble

    s = frylinks.System(gravity=[0, 0, -G])
    s.configure("environment", depth=50.0, water_density=RHO)
    s.add_body("buoy", mass=2.0e4, inertia=[1.0e5, 1.0e5, 1.0e5])
    extra = {} if time_step is None else {"time_step": time_step}
    s.add_force("lines", "moordyn", body="buoy", file=str(path),
                fairleads=[list(STRING_FAIRLEAD)], **extra)
    model = assemble(s)
    return next(b.kind for b in model.force_blocks if b.kind.name == "moordyn")


def test_the_time_step_reaches_the_file_moordyn_reads_and_frylinks_couples() -> None:
    """The case's ``time_step`` replaces the file's dtM in the copy MoorDyn reads and sets
    the calls per frylinks step (it was read before it was written: one call a step); a
    file without dtM gets 1e-3 s, as documented, not MoorDyn's silent own choice."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = string_file(Path(folder) / "string.dat", NEUTRAL, 0.0)
        given = _file_model(path, time_step=2.5e-4)
        assert list(given._dtm()) == [2.5e-4]
        assert "2.5e-4 dtM" in given.systems[0].text.replace("0.00025", "2.5e-4")
        assert list(_file_model(path)._dtm()) == [1.0e-3]   # the file's
        path.write_text(path.read_text().replace("1.0e-3 dtM\n", ""))
        none = _file_model(path)
        assert list(none._dtm()) == [1.0e-3]
        assert "0.001 dtM" in none.systems[0].text


def test_a_side_file_is_found_beside_the_input_file(tmp_path: Path) -> None:
    """An option naming a file relative to the input file is made absolute in the copy
    MoorDyn reads elsewhere; one that is not there is named, with where it was looked for."""
    from frylinks_marine.moordyn_input import read_input, side_files

    path = string_file(tmp_path / "string.dat", NEUTRAL, 0.0)
    text = path.read_text().replace("0 TmaxIC\n", "0 TmaxIC\nic/start.txt fileIC\n")
    inp = read_input(text, "string.dat")
    with pytest.raises(ModelError, match=r"string\.dat: its option fileIC names the file "
                                         r"'ic/start\.txt', not found \(looked for '.*ic/"
                                         r"start\.txt'\)"):
        side_files(inp, tmp_path, "string.dat")
    (tmp_path / "ic").mkdir()
    (tmp_path / "ic" / "start.txt").write_text("0\n")
    found = side_files(inp, tmp_path, "string.dat")
    assert found == {"fileIC": str((tmp_path / "ic" / "start.txt").resolve())}
    assert "tScheme" not in found          # RK4 is a word, not a file
    path.write_text(text.replace("ic/start.txt", "ic/missing.txt"))
    with pytest.raises(ModelError, match=r"option fileIC names the file 'ic/missing\.txt'"):
        _file_model(path)
