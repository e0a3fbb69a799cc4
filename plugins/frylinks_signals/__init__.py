"""Built-in signal types, registered like any third-party plugin."""

from __future__ import annotations

from frylinks.hookspecs import hookimpl

from .basic import Constant, LinearSpline, Ramp, Sine
from .table import Table


@hookimpl
def frylinks_signal_types() -> list[type]:
    return [Constant, Sine, Ramp, LinearSpline, Table]
