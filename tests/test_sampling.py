"""A compiled call covers several output samples (frylinks.engine.sampling): how the
run is cut into calls changes no number, and a divergence inside a call still hands
over every sample before it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import frylinks
from frylinks.engine import State, assemble
from frylinks.engine import sampling as sampling_module
from frylinks.engine.compose import compiled_step
from frylinks.engine.implicit import generalized_alpha
from frylinks.engine.integrators import rk4
from tests.bench import benchmark
from tests.test_resume import rotors


def _run(integrator: str, call_seconds: float, monkeypatch: pytest.MonkeyPatch,
         t_end: float = 1.0, dt: float = 0.01, every: int = 3
         ) -> tuple[list[tuple[Any, ...]], str | None]:
    """Each sample's time, state, accelerations, link and force outputs; the error."""
    monkeypatch.setattr(sampling_module, "CALL_SECONDS", call_seconds)
    model = assemble(rotors())
    step = compiled_step(model)
    assert step is not None
    run: Iterator[State] = (rk4 if integrator == "rk4" else generalized_alpha)(
        model, model.initial.copy(), t_end, dt, every)
    kept: list[tuple[Any, ...]] = []
    try:
        for s in run:
            udot, links, forces, lam, _ = step.outputs(s)
            kept.append((s.t, s.pack().copy(), s.angle_ref.copy(), udot.copy(), links.copy(),
                         forces.copy(), lam.copy(), s.x))  # s.x itself, not a copy
    except frylinks.SimulationError as exc:
        return kept, f"{s.t} {exc}"
    return kept, None


@pytest.mark.parametrize("integrator", ["rk4", "generalized_alpha"])
def test_calls_of_one_or_many_samples_give_the_same_numbers(
        integrator: str, monkeypatch: pytest.MonkeyPatch) -> None:
    one, _ = _run(integrator, 0.0, monkeypatch)  # a call per sample
    many, _ = _run(integrator, 1.0e9, monkeypatch)  # the run in one call (after the first)
    assert len(one) == len(many) == 34
    for a, b in zip(one, many, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)  # bit for bit
    # a sample's arrays are its own: no later sample or call writes over them
    for k in many:
        np.testing.assert_array_equal(k[-1].ravel(), k[1][:6])


def test_a_divergence_inside_a_call_keeps_the_samples_before_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # dt = 0.3 s: the pendulum's link is violated beyond repair at the 31st step
    one, error_one = _run("rk4", 0.0, monkeypatch, t_end=60.0, dt=0.3, every=1)
    many, error_many = _run("rk4", 1.0e9, monkeypatch, t_end=60.0, dt=0.3, every=1)
    assert error_one is not None and "constraint violation" in error_one
    assert error_many == error_one  # the state is left at the last accepted step
    assert error_one.startswith("9.0 ")
    assert len(many) == len(one) == 31
    for a, b in zip(one, many, strict=True):
        np.testing.assert_array_equal(a[1], b[1])


def slider() -> frylinks.System:
    """The benchmark suite's spring-damper (the same kind of model: no new compile)."""
    return benchmark("suite").spring_damper()


@pytest.mark.parametrize("make", [slider, rotors])  # without, with a type's memory
def test_a_loop_without_outputs_steps_the_same(make: Any) -> None:
    """``outputs=False`` makes no report in the compiled call; the states are the same,
    and outputs asked for afterwards equal those made in the call."""
    runs = []
    for outputs in (True, False):
        model = assemble(make())
        step = compiled_step(model)
        assert step is not None
        kept = []
        for s in generalized_alpha(model, model.initial.copy(), 0.5, 1e-3, 10,
                                   outputs=outputs):
            kept.append((s.t, s.pack().copy(), s.x))
        # outputs of the last sample, asked for when the run is over
        kept.append(tuple(a.copy() for a in step.outputs(s)))
        runs.append(kept)
    with_outputs, without = runs
    assert len(with_outputs) == len(without) == 52
    for a, b in zip(with_outputs[:-1], without[:-1], strict=True):
        assert a[0] == b[0]
        np.testing.assert_array_equal(a[1], b[1])
        np.testing.assert_array_equal(b[2].ravel(), b[1][:3 * len(b[2])])
    for a, b in zip(with_outputs[-1], without[-1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
