"""The signal type checks: shapes, and orders 1 and 2 of ``evaluate`` as the time
derivatives of order 0."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from frylinks.errors import FrylinksError
from frylinks.params import parse_params
from frylinks.signals import SignalType
from frylinks.testing.common import (
    Array,
    Instances,
    N,
    _close,
    _cycled,
    _explained,
    _finite,
    _label,
    _refused,
    _seed,
    _shape,
    example_instances,
)
from frylinks.testing.declarations import check_declarations

# ---------------------------------------------------------------------------- signals

#: Steps of the finite differences of signals [s] for orders 1 and 2.
SIGNAL_H = (1e-6, 1e-4)
#: Relative tolerance of the signal derivatives.
SIGNAL_RTOL = 1e-6


def _parse_signals(cls: type[SignalType], instances: list[dict[str, Any]], n: int
                   ) -> list[dict[str, Any]]:
    out = []
    for i, p in enumerate(_cycled(instances, n)):
        k = i % len(instances)
        try:
            parsed = parse_params(cls.parameters, p, f"examples[{k}]")
            cls.validate(parsed)
        except FrylinksError as exc:
            raise _refused(_label(cls), k, p, exc) from exc
        out.append(parsed)
    return out


def _signal_values(kind: SignalType, t: float, order: int, label: str) -> Array:
    value = kind.evaluate(t, order)
    out = _shape(label, f"evaluate(t={t:g}, order={order})", value, (kind.nb_signals,))
    _finite(label, f"evaluate(t={t:g}, order={order})", out)
    return np.array(out, dtype=float)


def _derivative_errors(f: Callable[[float], Array], df: Callable[[float], Array],
                       times: Array, h: float, order: int) -> tuple[Array, Array, Array]:
    """Per time and instance: the distance of the reported derivative ``df`` to the
    nearest of three finite-difference stencils of ``f`` (centred at t, t - h, t + h),
    the reported values, and the centred estimates.

    At a smooth point the centred stencil matches to O(h^2); within ``h`` of a kink, the
    stencil on the side of ``t`` that holds no kink matches (so a kink is no error, while
    a wrong derivative is one away from kinks).
    """
    def fd(t: float) -> Array:
        if order == 1:
            return (f(t + h) - f(t - h)) / (2 * h)
        return (f(t + h) - 2 * f(t) + f(t - h)) / h**2

    errs, reported, centred = [], [], []
    for t in times:
        value = df(t)
        stencils = np.array([fd(t), fd(t - h), fd(t + h)])
        errs.append(np.abs(stencils - value).min(axis=0))
        reported.append(value)
        centred.append(stencils[0])
    return np.array(errs), np.array(reported), np.array(centred)


def check_signal_type(cls: type[SignalType], instances: Instances | None = None, *,
                      n: int = N, times: Sequence[float] | None = None) -> None:
    """Run every signal check (module doc) on a signal type.

    Parameters
    ----------
    cls
        A subclass of :class:`~frylinks.signals.SignalType`.
    instances
        Parameter sets as a user gives them beside ``type`` (default: ``cls.examples``).
    n
        Signals in the "many" block; blocks of 0 and 1 are checked too.
    times
        Times [s] of the checks (default: 40 random times in [0, 20] s).

    Raises
    ------
    AssertionError
        The first broken rule, naming the type.
    """
    check_declarations(cls)
    label = _label(cls)
    examples = example_instances(cls, instances)
    params = _parse_signals(cls, examples, n)
    rng = np.random.default_rng(_seed(cls))
    ts = np.sort(rng.uniform(0.0, 20.0, 40)) if times is None else np.asarray(times, float)
    kind = cls(params)
    assert kind.nb_signals == n, f"{label}: nb_signals is {kind.nb_signals}, expected {n}"
    singles = [cls([p]) for p in params]
    for t in ts:
        for order in (0, 1, 2):
            value = _signal_values(kind, float(t), order, label)
            for i, one in enumerate(singles):
                _close(label, f"t={t:g}, order {order}: signal {i} of a block of {n} vs a "
                       "block of one", value[i], _signal_values(one, float(t), order, label)[0],
                       rtol=1e-13, atol=1e-300)
    with _explained(label, "a block of 0 signals"):
        empty = cls([])
        for t in ts[:3]:
            for order in (0, 1, 2):
                _signal_values(empty, float(t), order, label)
    values = np.array([_signal_values(kind, float(t), 0, label) for t in ts])
    size = np.abs(values).max(axis=0)

    def value_of(order: int) -> Callable[[float], Array]:
        return lambda t: _signal_values(kind, t, order, label)

    for order, h in zip((1, 2), SIGNAL_H, strict=True):
        err, reported, centred = _derivative_errors(value_of(0), value_of(order), ts, h,
                                                    order)
        scale = np.maximum(np.abs(reported), np.abs(centred)).max(axis=0)
        tol = SIGNAL_RTOL * scale + 20 * np.finfo(float).eps * size / h**order
        bad = err > tol
        if bad.any():
            k, i = np.argwhere(bad)[0]
            raise AssertionError(
                f"{label}: evaluate(t, order={order}) is not the time derivative of order "
                f"{order} of evaluate(t, 0): at t={ts[k]:g}, signal {i} (example "
                f"#{i % len(examples)}) gives {reported[k, i]:.10g}, finite differences "
                f"give {centred[k, i]:.10g}")
