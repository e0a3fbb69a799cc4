"""The radiation state-space fit as a run meets it (``frylinks_marine.radiation``): kept
on disk and read back (keyed by the data, the tolerance and the fitting code), cleared by
``frylinks cache --clear``, its progress shown, and its misses named.

Every test keeps the fits in its own temporary directory (the compiled steps stay in
frylinks' cache folder: a run here does not compile again).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from frylinks_marine import radiation
from frylinks_marine.capytaine_reader import read_capytaine
from frylinks_marine.hydrodb import HydroDatabase
from frylinks_marine.radiation import cached_state_space

import frylinks
from frylinks.cli import main
from frylinks.errors import Notice

DATA = Path(__file__).parents[1] / "plugins" / "frylinks_marine" / "data"
SPHERE = DATA / "sphere_capytaine.nc"
Record = Callable[[str, Any], None]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache folder the fits go to: ``steps/radiation`` under it, as under
    frylinks' own (where ``frylinks cache`` looks)."""
    folder = tmp_path / "cache"
    monkeypatch.setattr(radiation, "cache_folder", lambda: folder / "radiation")
    return folder


@pytest.fixture(scope="module")
def sphere() -> HydroDatabase:
    return read_capytaine(SPHERE)


def fits(folder: Path) -> list[Path]:
    return sorted(folder.rglob("fit_*.npz"))


def test_fit_is_kept_and_read_back(sphere: HydroDatabase, cache: Path,
                                   monkeypatch: pytest.MonkeyPatch,
                                   record_property: Record) -> None:
    """A second fit of the same data and tolerance reads the file (fitting again is
    made to fail) and gives the same system; another tolerance or other data fit again."""
    start = time.perf_counter()
    first = cached_state_space(sphere.omega, sphere.radiation_damping, tol=0.02)
    cold = time.perf_counter() - start
    assert len(fits(cache)) == 1

    def refit(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("fitted again")

    with monkeypatch.context() as m:
        m.setattr(radiation, "realised", refit)
        start = time.perf_counter()
        again = cached_state_space(sphere.omega, sphere.radiation_damping, tol=0.02)
        warm = time.perf_counter() - start
    record_property("sphere_fit_cold_s", cold)
    record_property("sphere_fit_cached_s", warm)
    for name in ("A", "B", "C", "fit_error", "order", "unstable"):
        np.testing.assert_array_equal(getattr(again, name), getattr(first, name), name)
    assert (again.dt, again.tol) == (first.dt, first.tol)
    cached_state_space(sphere.omega, sphere.radiation_damping, tol=0.05)
    changed = sphere.radiation_damping.copy()
    changed[10, 2, 2] *= 1.001
    cached_state_space(sphere.omega, changed, tol=0.02)
    assert len(fits(cache)) == 3


def test_an_unreadable_file_is_fitted_again(sphere: HydroDatabase, cache: Path) -> None:
    first = cached_state_space(sphere.omega, sphere.radiation_damping)
    (path,) = fits(cache)
    path.write_bytes(b"not a numpy file")
    again = cached_state_space(sphere.omega, sphere.radiation_damping)
    np.testing.assert_array_equal(again.A, first.A)
    with np.load(path) as f:  # and rewritten
        np.testing.assert_array_equal(f["A"], first.A)


def test_frylinks_cache_counts_and_clears_the_fits(sphere: HydroDatabase, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("FRYLINKS_CACHE_DIR", str(cache))
    assert radiation.cache_folder() == cache / "radiation"
    cached_state_space(sphere.omega, sphere.radiation_damping)
    assert main(["cache"]) == 0
    assert "  radiation: 1 files" in capsys.readouterr().out
    assert main(["cache", "--clear"]) == 0
    assert fits(cache) == []


def test_a_run_uses_the_cache(cache: Path) -> None:
    """The radiation force of a run fits once: the second run (a resume, a sweep's next
    case) reads the file."""
    def build() -> frylinks.System:
        s = frylinks.System()
        s.add_body("b", mass=2.618e5, inertia=[1e6, 1e6, 1e6], position=[0, 0, -1.9])
        s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=str(SPHERE),
                    equilibrium=[0, 0, -2.0])
        s.add_force("rad", "radiation", body="b", hydrodynamics=str(SPHERE))
        return s

    first = build().run(t_end=0.2, dt=0.05)
    assert len(fits(cache)) == 1
    stamp = fits(cache)[0].stat().st_mtime_ns
    second = build().run(t_end=0.2, dt=0.05)
    assert fits(cache)[0].stat().st_mtime_ns == stamp
    np.testing.assert_array_equal(second.radiation_memory_force.values,
                                  first.radiation_memory_force.values)


def test_progress_bar(sphere: HydroDatabase, cache: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    """A fit that lasts shows a bar naming what is fitted (here: at once, and asked for;
    by default only on a terminal)."""
    monkeypatch.setattr(radiation, "PROGRESS_DELAY", 0.0)
    cached_state_space(sphere.omega, sphere.radiation_damping, where="'sphere.nc'",
                       progress=True)
    err = capsys.readouterr().err
    assert "fitting the radiation memory of 'sphere.nc'" in err and "entry" in err


def test_a_missed_tolerance_names_the_body_and_the_dofs(sphere: HydroDatabase,
                                                        cache: Path) -> None:
    """At a tolerance the order limit cannot meet: one warning per entry naming the
    dataset and body, the DOF pair and the error reached; the same warnings when the
    realisation is read back from the disk."""
    messages = []
    for _ in range(2):  # fitted, then read back
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            ss = cached_state_space(sphere.omega, sphere.radiation_damping, tol=1e-4,
                                    max_order=4, where=sphere.label + " body 'ball'")
        messages.append(sorted(str(w.message) for w in record))
    assert messages[0] == messages[1] and len(messages[0]) >= 1
    heave = next(m for m in messages[0] if "heave-heave" in m)
    assert "sphere_capytaine.nc' body 'ball'" in heave
    assert f"{ss.fit_error[2, 2]:.3g}" in heave and "above the tolerance 0.0001" in heave
    assert "up to order 4" in heave


def test_entries_the_fit_misses_are_convolved_and_said(cache: Path, tmp_path: Path) -> None:
    """With a tolerance no fit up to 30 states meets, the radiation force convolves the
    entries directly: one note (not a warning) names them and their best fit error, the
    results record each entry's method, and the memory force is the convolution's
    (a run with method: convolution gives the same to round-off)."""
    def build(**extra: Any) -> frylinks.System:
        s = frylinks.System()
        s.add_body("b", mass=2.618e5, inertia=[1e6, 1e6, 1e6], position=[0, 0, -1.9])
        s.add_force("hs", "linear_hydrostatics", body="b", hydrodynamics=str(SPHERE),
                    equilibrium=[0, 0, -2.0])
        s.add_force("rad", "radiation", body="b", hydrodynamics=str(SPHERE), **extra)
        return s

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        missed = build(fit_tolerance=1e-6).run(t_end=1.0, dt=0.05)
    notes = [w for w in record if issubclass(w.category, Notice)]
    assert len(notes) == 1 and not [w for w in record if not issubclass(w.category, Notice)
                                    and "radiation" in str(w.message)]
    text = str(notes[0].message)
    assert "radiation of 'b'" in text and "heave-heave" in text
    assert "convolved directly" in text and "fit_tolerance 1e-06" in text
    entries = json.loads(missed.attrs["radiation_memory"])
    heave = next(e for e in entries if e["row"] == "b heave" and e["column"] == "b heave")
    assert heave["method"] == "convolution" and heave["fit_error"] > 1e-6
    assert heave["why"] == "the fit misses fit_tolerance" and heave["kernel_length"] > 10.0
    direct = build(method="convolution").run(t_end=1.0, dt=0.05)
    np.testing.assert_allclose(missed.radiation_memory_force.values,
                               direct.radiation_memory_force.values, rtol=0, atol=1e-9)
    assert np.abs(direct.radiation_memory_force.values).max() > 1.0
    # the command line shows it as a note
    case = tmp_path / "ball.yaml"
    case.write_text(f"""frylinks: 1
bodies:
  b: {{mass: 2.618e5, inertia: [1.0e6, 1.0e6, 1.0e6], position: [0, 0, -1.9]}}
forces:
  rad: {{type: radiation, body: b, hydrodynamics: {SPHERE}, fit_tolerance: 1.0e-6}}
solver: {{t_end: 1.0, dt: 0.05}}
""")
    done = subprocess.run([sys.executable, "-m", "frylinks", "check", str(case)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "frylinks: note: radiation of 'b'" in done.stderr
    assert "frylinks: warning" not in done.stderr


def test_the_modal_form_is_the_same_system_with_two_entries_of_a_a_state(
        sphere: HydroDatabase, cache: Path) -> None:
    """:func:`radiation.modal_form` turns each fitted block by its eigenvectors: the
    system's transfer function is unchanged (against the fit as realised, at the data's
    frequencies and beyond), and each state's row of ``A`` has at most two entries (a
    real pole, or a pair's 2 x 2 block), its row of ``B`` one input and its column of
    ``C`` one output."""
    ss = cached_state_space(sphere.omega, sphere.radiation_damping, tol=0.02)
    A, B, C = radiation.modal_form(ss.A, ss.B, ss.C)
    assert A.shape == ss.A.shape and np.count_nonzero(ss.A) > 2 * ss.nb_states
    w = np.concatenate([sphere.omega, [20.0, 50.0]])
    before, after = ss.transfer_function(w), radiation._transfer(A, B, C, w)
    assert np.abs(after - before).max() <= 1e-9 * np.abs(before).max()
    assert (np.count_nonzero(A, axis=1) <= 2).all()
    assert (np.count_nonzero(B, axis=1) == 1).all()
    assert (np.count_nonzero(C, axis=0) == 1).all()


def test_the_step_reads_the_state_space_as_the_matrix_products() -> None:
    """The compiled step's rates ``A z + B xi'`` and memory ``C z`` equal the dense
    products, for two elements whose states read unequal numbers of entries (real and
    complex modes, a state fed by two velocities, a state read by two DOFs): the rows of
    one length (``_rows``) fill the short ones with zeros at a spare input."""
    from frylinks_marine.radiation_kernels import (
        RadiationMemory,
        radiation_memory,
        radiation_state_derivative,
    )

    from frylinks.kinematics import NodeFrames

    rng = np.random.default_rng(5)
    nz, n = 7, 2
    A = np.zeros((nz, nz))
    A[0, 0] = -0.3  # a real mode
    A[1:3, 1:3] = [[-0.2, 1.1], [-1.1, -0.2]]  # complex pairs
    A[3:5, 3:5] = [[-0.5, 0.7], [-0.7, -0.5]]
    A[5, 5], A[6, 6] = -0.9, -0.1
    B = np.zeros((nz, 6 * n))
    B[[0, 1, 3, 5, 6], [2, 2, 8, 10, 4]] = rng.standard_normal(5)
    B[5, 1] = 0.4  # a state fed by two velocities, of two elements
    C = np.zeros((6 * n, nz))
    C[[2, 2, 8, 10, 4, 3], [0, 1, 3, 5, 6, 6]] = rng.standard_normal(6)

    class Memory(RadiationMemory):
        name = "memory_probe"

        def __init__(self) -> None:
            super().__init__([{}, {}], [])
            self.A, self.B, self.C = A, B, C
            self.units = []
            self._ratio = np.array([1.0, 2.0])

    data = Memory().kernel_data()
    v, w = rng.standard_normal((n, 3)), rng.standard_normal((n, 3))
    z3 = np.zeros((n, 3))
    frames = (NodeFrames(z3, np.repeat(np.eye(3)[None], n, axis=0),
                         np.tile([1.0, 0, 0, 0], (n, 1)), v, w, z3.copy()),)
    states = rng.standard_normal(nz)
    u = np.concatenate([v, w], axis=1).reshape(-1)
    rates = np.zeros(nz)
    radiation_state_derivative(data, frames, 0.0, np.zeros(0), states, rates)
    np.testing.assert_allclose(rates, A @ states + B @ u, rtol=1e-14, atol=1e-15)
    memory = np.zeros((n, 6))
    radiation_memory(data, frames, 0.0, states, memory)
    np.testing.assert_allclose(memory, (C @ states).reshape(n, 6) * [[1.0], [2.0]],
                               rtol=1e-14, atol=1e-15)
