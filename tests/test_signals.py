"""Built-in signals against closed forms and finite differences; banks, arrays, forces.

Derivatives are checked by central differences of step ``H = 1e-5`` at times away from
the kinks of ramps and splines: the error is ``H^2/6`` times the third derivative (at
most ``A omega^3 ~ 40`` here, so < 1e-9) plus round-off; measured at most 2e-9, so the
tolerance ``1e-7`` has a 50-fold margin.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from frylinks import ModelError, System
from frylinks.engine import assemble, evaluate, force_outputs
from frylinks.model.registry import Registry
from frylinks.params import parse_params
from frylinks.signals import SignalArray, SignalBank, SignalSpec

REGISTRY = Registry()
DATA = Path(__file__).parent / "data"
H = 1e-5
TOL = 1e-7
#: sample times: none within 1e-3 of a kink of the examples below (kinks at -1, 0, 0.5, 1,
#: 2, 3), where the derivative is one-sided
TIMES = [-0.7, 0.004, 0.23, 0.61, 1.37, 2.2, 2.95, 3.4, 7.1]

Closed = Callable[[float], tuple[float, float, float]]


def sine(a: float, om: float, ph_deg: float = 0.0, off: float = 0.0) -> Closed:
    ph = np.radians(ph_deg)
    return lambda t: (off + a * np.sin(om * t + ph), a * om * np.cos(om * t + ph),
                      -a * om**2 * np.sin(om * t + ph))


def ramp(t0: float, t1: float, v0: float, v1: float) -> Closed:
    slope = (v1 - v0) / (t1 - t0)
    return lambda t: (v0 if t < t0 else v1 if t >= t1 else v0 + slope * (t - t0),
                      slope if t0 <= t < t1 else 0.0, 0.0)


def spline(points: list[list[float]]) -> Closed:
    def f(t: float) -> tuple[float, float, float]:
        (ta, va), (tb, vb) = points[0], points[-1]
        if t < ta:
            return va, 0.0, 0.0
        if t >= tb:
            return vb, 0.0, 0.0
        for (t0, v0), (t1, v1) in itertools.pairwise(points):
            if t0 <= t < t1:
                s = (v1 - v0) / (t1 - t0)
                return v0 + s * (t - t0), s, 0.0
        raise AssertionError

    return f


#: Per built-in signal type: instances (case-file parameters) and their closed forms.
EXAMPLES: dict[str, list[tuple[dict[str, Any], Closed]]] = {
    "constant": [({"value": 2.5}, lambda t: (2.5, 0.0, 0.0)),
                 ({"value": -1e5}, lambda t: (-1e5, 0.0, 0.0))],
    "sine": [({"amplitude": 3.0, "omega": 2.0}, sine(3.0, 2.0)),
             ({"amplitude": 1.5, "omega": 3.0, "phase_deg": 90.0, "offset": -4.0},
              sine(1.5, 3.0, 90.0, -4.0)),
             ({"amplitude": -2.0, "omega": 0.5, "phase_deg": -30.0}, sine(-2.0, 0.5, -30.0))],
    "ramp": [({"t_end": 2.0}, ramp(0.0, 2.0, 0.0, 1.0)),
             ({"t_start": 1.0, "t_end": 3.0, "initial": 5.0, "final": -1.0},
              ramp(1.0, 3.0, 5.0, -1.0))],
    "linear_spline": [
        ({"points": [[0.0, 1.0], [0.5, 3.0], [2.0, -1.0], [3.0, -1.0]]},
         spline([[0.0, 1.0], [0.5, 3.0], [2.0, -1.0], [3.0, -1.0]])),
        ({"points": [[1.0, 4.0]]}, lambda t: (4.0, 0.0, 0.0)),
        ({"points": [[-1.0, 0.0], [1.0, 2.0]]}, spline([[-1.0, 0.0], [1.0, 2.0]])),
    ],
    "table": [
        ({"file": str(DATA / "table.csv")},
         spline([[0.0, 1.0], [0.5, 3.0], [2.0, -1.0], [3.0, -1.0]])),
        ({"file": str(DATA / "table.csv"), "column": "force"},
         spline([[0.0, 10.0], [0.5, 20.0], [2.0, 30.0], [3.0, 40.0]])),
    ],
}


def builtin_signal_types() -> list[str]:
    return sorted(n for n, i in REGISTRY.types["signal"].items() if i.distribution == "frylinks")


def build(name: str) -> Any:
    """One object of type ``name`` holding all its examples (parsed as from a case)."""
    cls = REGISTRY.types["signal"][name].cls
    return cls([parse_params(cls.parameters, p, f"signal.{name}") for p, _ in EXAMPLES[name]])


def test_every_builtin_signal_type_has_examples() -> None:
    """The checks below cover every built-in signal type (add an example for new ones)."""
    assert {"constant", "sine", "ramp", "linear_spline"} <= set(builtin_signal_types())
    missing = set(builtin_signal_types()) - set(EXAMPLES)
    assert not missing, f"add closed-form examples for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_values_and_derivatives_match_closed_forms(name: str) -> None:
    """Orders 0, 1, 2 of every instance equal the closed forms (vectorised evaluation:
    one call gives all instances)."""
    sig = build(name)
    assert sig.nb_signals == len(EXAMPLES[name])
    for t in TIMES:
        for order in range(3):
            got = sig.evaluate(t, order)
            assert got.shape == (sig.nb_signals,)
            expected = [f(t)[order] for _, f in EXAMPLES[name]]
            np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-12,
                                       err_msg=f"t={t}, order={order}")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_derivatives_match_finite_differences(name: str) -> None:
    """Order k+1 is the central difference of order k (k = 0, 1) away from kinks."""
    sig = build(name)
    for t in TIMES:
        for order in (0, 1):
            fd = (sig.evaluate(t + H, order) - sig.evaluate(t - H, order)) / (2 * H)
            np.testing.assert_allclose(sig.evaluate(t, order + 1), fd, rtol=0, atol=TOL,
                                       err_msg=f"t={t}, order={order + 1}")


def test_bank_with_mixed_types_gives_each_slot_its_value() -> None:
    """A SignalBank of interleaved types (grouped internally by type) returns each slot
    its own signal's value and derivatives, in slot order."""
    order_of_slots = [("sine", 1), ("constant", 0), ("ramp", 1), ("sine", 0),
                      ("linear_spline", 0), ("constant", 1), ("ramp", 0), ("sine", 2),
                      ("linear_spline", 2)]
    specs, closed = [], []
    for name, k in order_of_slots:
        params, f = EXAMPLES[name][k]
        cls = REGISTRY.types["signal"][name].cls
        specs.append(SignalSpec(name, parse_params(cls.parameters, params, name)))
        closed.append(f)
    classes = {n: i.cls for n, i in REGISTRY.types["signal"].items()}
    bank = SignalBank(classes, specs)
    assert bank.nb_slots == len(specs)
    for t in TIMES:
        for order in range(3):
            np.testing.assert_allclose(bank.evaluate(t, order), [f(t)[order] for f in closed],
                                       rtol=1e-14, atol=1e-12)


def test_signal_array_mixes_constants_and_slots() -> None:
    """A SignalArray of shape (2, 3) puts bank values where signals are and constants
    elsewhere; it registers its signals in the model's spec list."""
    cls = REGISTRY.types["signal"]["sine"].cls
    s1 = SignalSpec("sine", parse_params(cls.parameters, {"amplitude": 1.0, "omega": 1.0}, ""))
    s2 = SignalSpec("sine", parse_params(cls.parameters, {"amplitude": 2.0, "omega": 3.0}, ""))
    specs: list[SignalSpec] = [s1]  # a slot already used elsewhere
    arr = SignalArray([[1.0, s2, 3.0], [s1, 5.0, 6.0]], specs)
    assert specs == [s1, s2, s1] and arr.shape == (2, 3) and not arr.constant
    values = np.array([10.0, 20.0, 30.0])
    np.testing.assert_array_equal(arr.at(values), [[1.0, 20.0, 3.0], [30.0, 5.0, 6.0]])
    const = SignalArray([[1.0, 2.0, 3.0]], specs)
    assert const.constant
    np.testing.assert_array_equal(const.at(values), [[1.0, 2.0, 3.0]])


def test_world_force_follows_a_sine() -> None:
    """A world_force [F0, A sin(omega t + phase), 0] at the COG of a free body gives
    a = F(t)/m + g and no angular acceleration; at an off-COG node it also gives
    I^-1 (r x F) (body at rest, identity orientation). Checked with the engine at
    several times and in a run's outputs."""
    m, inertia, r = 4.0, np.array([2.0, 3.0, 5.0]), np.array([0.0, 0.5, 1.0])
    amp, omega, phase = 10.0, 2.0, 30.0
    g = np.array([0.1, 0.0, -9.81])
    system = System(gravity=g, registry=REGISTRY)
    buoy = system.add_body("buoy", mass=m, inertia=inertia)
    buoy.add_node("fairlead", position=r)
    system.add_body("other", mass=m, inertia=inertia, position=[5.0, 0.0, 0.0])
    wave = {"type": "sine", "amplitude": amp, "omega": omega, "phase_deg": phase}
    system.add_force("wave", "world_force", node="buoy", force=[3.0, wave, 0.0])
    system.add_force("line", "world_force", node="buoy.fairlead", force=[0.0, 0.0, wave])

    def force(t: float) -> tuple[np.ndarray, np.ndarray]:
        s = amp * np.sin(omega * t + np.radians(phase))
        return np.array([3.0, s, 0.0]), np.array([0.0, 0.0, s])

    model = assemble(system)
    for t in (0.0, 0.4, 1.3, 2.9):
        s = model.initial.copy()
        s.t = t
        ev = evaluate(model, s)
        f_cog, f_node = force(t)
        np.testing.assert_allclose(ev.udot[0, :3], (f_cog + f_node) / m + g, atol=1e-12)
        np.testing.assert_allclose(ev.udot[0, 3:], np.cross(r, f_node) / inertia, atol=1e-12)
        np.testing.assert_allclose(ev.udot[1], [*g, 0.0, 0.0, 0.0], atol=1e-14)
        out = force_outputs(model, ev)
        np.testing.assert_allclose(out["force_force"], [f_cog, f_node], atol=1e-12)
    # in a run the buoy also rotates, but forces in world axes keep a = F(t)/m + g
    ds = system.run(t_end=0.5, dt=0.05)
    times = ds["time"].values
    assert len(times) == 11
    np.testing.assert_allclose(ds["body_acceleration"].sel(body="buoy"),
                               [sum(force(t)) / m + g for t in times], atol=1e-12)
    np.testing.assert_allclose(ds["body_acceleration"].sel(body="other"),
                               np.tile(g, (len(times), 1)), atol=1e-12)
    np.testing.assert_allclose(ds["force_force"].sel(force="wave"),
                               [force(t)[0] for t in times], atol=1e-12)
    assert float(np.abs(ds["body_angular_velocity"].sel(body="buoy")[-1]).max()) > 0.1


def test_bad_ramp_is_a_model_error_at_input() -> None:
    """A ramp whose t_end is not after t_start is refused where it is given."""
    system = System(registry=REGISTRY)
    system.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0])
    with pytest.raises(ModelError, match=r"forces\.f\.force\[2\].*t_end"):
        system.add_force("f", "world_force", node="b",
                         force=[0.0, 0.0, {"type": "ramp", "t_start": 1.0, "t_end": 0.5}])


def test_signal_parameters_are_checked() -> None:
    """Unknown signal types and missing parameters are named by key path."""
    system = System(registry=REGISTRY)
    system.add_body("b", mass=1.0, inertia=[1.0, 1.0, 1.0])
    with pytest.raises(ModelError, match=r"^forces\.f\.force\[2\]\.type: unknown signal type "
                                         r"'sinus'; did you mean 'sine'\?"):
        system.add_force("f", "world_force", node="b", force=[0, 0, {"type": "sinus"}])
    with pytest.raises(ModelError, match=r"^forces\.f\.force\[2\]\.omega: missing required"):
        system.add_force("f", "world_force", node="b",
                         force=[0, 0, {"type": "sine", "amplitude": 1.0}])


def test_derivatives_at_kinks_are_right_sided() -> None:
    """At a kink the rate is the one of the segment that starts there (right-continuous,
    as an integrator stepping forward sees it): ramp and spline, first and last knots."""
    ramp_sig, spline_sig = build("ramp"), build("linear_spline")
    assert ramp_sig.evaluate(1.0, 1)[1] == pytest.approx(-3.0)   # t_start: slope
    assert ramp_sig.evaluate(3.0, 1)[1] == 0.0                   # t_end: held
    assert spline_sig.evaluate(0.0, 1)[0] == pytest.approx(4.0)  # first knot
    assert spline_sig.evaluate(0.5, 1)[0] == pytest.approx(-8.0 / 3.0)
    assert spline_sig.evaluate(3.0, 1)[0] == 0.0                 # last knot: held
    assert spline_sig.evaluate(1.0, 1)[1] == 0.0                 # a single point


def test_signal_array_derivatives_of_constants_are_zero() -> None:
    """``at(values, order)`` gives constants a zero rate and signals their own."""
    from frylinks.signals import SignalArray, SignalBank, SignalSpec

    specs: list[SignalSpec] = []
    arr = SignalArray([[2.0, SignalSpec("sine", {"amplitude": 1.0, "omega": 3.0,
                                                 "phase_deg": 0.0, "offset": 0.5})]], specs)
    bank = SignalBank({"sine": REGISTRY.get("signal", "sine").cls}, specs)
    t = 0.4
    np.testing.assert_allclose(arr.at(bank.evaluate(t, 0)), [[2.0, 0.5 + np.sin(3 * t)]])
    np.testing.assert_allclose(arr.at(bank.evaluate(t, 1), 1), [[0.0, 3 * np.cos(3 * t)]])
    np.testing.assert_allclose(arr.at(bank.evaluate(t, 2), 2), [[0.0, -9 * np.sin(3 * t)]])
